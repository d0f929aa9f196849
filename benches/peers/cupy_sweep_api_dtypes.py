"""`--sweep api_dtypes`: i64 add, sum and cast to f32, an f32 add of a scalar into an
existing array and an in-place f32 add (`acc += x`), over 64M elements (inputs: uniform f32 in [-1e6, 1e6), truncated to i64)."""
import cupy as cp


def run(case):
    n = 1 << 26
    rng = cp.random.default_rng(21)
    x = (rng.random(n, dtype=cp.float32) * 2e6 - 1e6).astype(cp.float32)
    out = cp.zeros(n, dtype=cp.float32)
    c = cp.empty_like(x)
    case("copy_f32_64M", lambda: cp.copyto(c, x), byte=8 * n)
    case("add_scalar_into_f32_64M", lambda: cp.add(x, cp.float32(1.0), out=out), byte=8 * n)
    acc = cp.zeros(n, dtype=cp.float32)

    def add_assign():
        nonlocal acc
        acc += x

    case("add_assign_f32_64M", add_assign, byte=12 * n)
    a = x.astype(cp.int64)
    b = (x * 3).astype(cp.int64)
    case("add_i64_64M", lambda: a + b, byte=24 * n)
    case("sum_i64_64M", lambda: a.sum(), byte=8 * n)
    case("cast_i64_f32_64M", lambda: a.astype(cp.float32), byte=12 * n)
