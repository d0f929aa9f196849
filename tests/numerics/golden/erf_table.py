# The tables of erf64_ (shaders/shared/f64_math.wgsl) (erf_32_ once used them too): for the
# centers c = k/4, erf(c) as a double-double (f64) or a pair of f32, and 2/sqrt(pi) e^(-c^2)
# rounded once. Run: python3 erf_table.py (mpmath, 200 bits); paste its output.
import mpmath
import numpy as np

mpmath.mp.prec = 200


def dd(v):
    hi = float(v)
    return hi, float(v - mpmath.mpf(hi))


def ff(v):
    hi = np.float32(float(v))
    return hi, np.float32(float(v - mpmath.mpf(float(hi))))


def table(n, split, name):
    print(f"// {name}")
    for k in range(1, n + 1):
        c = mpmath.mpf(k) / 4
        hi, lo = split(mpmath.erf(c))
        w, _ = split(2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-c * c))
        print(f"    t = erf_pick{name}_(t, k == TW({k}.0), TW({hi}), TW({lo}), TW({w}));")


table(24, dd, "64")
table(16, ff, "32")
