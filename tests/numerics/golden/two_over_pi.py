"""The 24-bit digits of 2/pi in shaders/shared/f64_trig.wgsl (two_over_pi_d24_), from pi by
Machin's formula in Python integers (no other package):

    python3 two_over_pi.py

2/pi = sum_i d_i 2^(-24 (i + 1)); 52 digits (1248 bits) cover f64 exponents up to 1023 with
the 11-digit window that rem_pio2_big64_ reads.
"""

BITS = 1600  # working precision: far more than the 1248 bits printed


def arctan_inv(n, one):
    """arctan(1/n) * one, by its Taylor series in integers."""
    total, term, k, sign = 0, one // n, 1, 1
    while term:
        total += sign * (term // k)
        term //= n * n
        k += 2
        sign = -sign
    return total


one = 1 << BITS
pi = 4 * (4 * arctan_inv(5, one) - arctan_inv(239, one))
two_over_pi = (2 * one * one) // pi  # 2/pi scaled by 2^BITS
digits = []
for i in range(52):
    shift = BITS - 24 * (i + 1)
    digits.append((two_over_pi >> shift) & 0xFFFFFF)
print(digits)
