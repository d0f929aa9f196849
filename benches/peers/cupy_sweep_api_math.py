"""`--sweep api_math`: isclose, arctan2 and erf over 64M f32, inputs uniform in [-2, 2);
isclose against the input plus noise of 1e-5 (the rows of examples/bench_table/
sweep_api_math.rs)."""
import cupy as cp
import cupyx.scipy.special as sp


def run(case):
    n = 1 << 26
    rng = cp.random.default_rng(21)
    a = (rng.random(n, dtype=cp.float32) * 4 - 2).astype(cp.float32)
    b = a + (rng.random(n, dtype=cp.float32) * 2e-5 - 1e-5).astype(cp.float32)
    c = cp.empty_like(a)
    case("copy_f32_64M", lambda: cp.copyto(c, a), byte=8 * n)
    case("isclose_f32_64M", lambda: cp.isclose(a, b, rtol=1e-5, atol=1e-8), byte=12 * n)
    case("arctan2_f32_64M", lambda: cp.arctan2(a, b, out=c), byte=12 * n)
    case("erf_f32_64M", lambda: sp.erf(a, out=c), byte=8 * n)
