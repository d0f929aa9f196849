"""`--sweep complex`: copy, multiply, exp and abs of 64M complex64, multiply, exp and abs of
32M complex128, a complex64 matrix product at 4096 (cuBLAS cgemm) (the same row names and
byte counts as examples/bench_table/sweep_complex.rs)."""
import cupy as cp


def run(case):
    n = 1 << 26
    side = 4096
    rng = cp.random.default_rng(31)

    def pair(m):
        re = rng.random(m, dtype=cp.float32)
        im = rng.random(m, dtype=cp.float32)
        return (re + 1j * im).astype(cp.complex64)

    x = pair(n)
    y = pair(n)
    a = pair(side * side).reshape(side, side)
    b = pair(side * side).reshape(side, side)
    c = cp.empty_like(x)
    case("copy_c64_64M", lambda: cp.copyto(c, x), byte=16 * n)
    case("mul_c64_64M", lambda: x * y, byte=24 * n)
    case("exp_c64_64M", lambda: cp.exp(x), byte=16 * n)
    case("abs_c64_64M", lambda: cp.abs(x), byte=12 * n)
    h = n // 2
    u = x[:h].astype(cp.complex128)
    v = y[:h].astype(cp.complex128)
    case("mul_c128_32M", lambda: u * v, byte=48 * h)
    case("exp_c128_32M", lambda: cp.exp(u), byte=32 * h)
    case("abs_c128_32M", lambda: cp.abs(u), byte=24 * h)
    case("matmul_c64_4096", lambda: a @ b, n_repeat=20)
