"""`--sweep api_dtypes`: u8 add, cast to f32 and sum (into uint32), i64 add, sum and cast to f32, an f32 add of a scalar into an
existing array and an in-place f32 add (`acc += x`), over 64M elements (inputs: uniform f32 in [-1e6, 1e6), truncated to i64);
then issue 34's i64 families: sort and argsort of 16M, cumsum of 64M, integers of 64M, scatter_add of 16M into 65536 bins."""
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
    u = (cp.abs(x) * cp.float32(2.5e-4)).astype(cp.uint8)
    v = (cp.abs(-x) * cp.float32(1e-4)).astype(cp.uint8)
    case("add_u8_64M", lambda: u + v, byte=3 * n)
    case("cast_u8_f32_64M", lambda: u.astype(cp.float32), byte=5 * n)
    # NumPy's default accumulator for uint8 is uint64; gpuarray's row sums into u32.
    case("sum_u8_64M", lambda: u.sum(dtype=cp.uint32), byte=n)
    del u, v
    a = x.astype(cp.int64)
    b = (x * 3).astype(cp.int64)
    case("add_i64_64M", lambda: a + b, byte=24 * n)
    case("sum_i64_64M", lambda: a.sum(), byte=8 * n)
    case("cast_i64_f32_64M", lambda: a.astype(cp.float32), byte=12 * n)
    # Issue 34's i64 families (the same data: the first 16M of `a`; bins from |x|).
    q = n // 4
    s = a[:q].copy()
    idx = cp.minimum((cp.abs(x[:q]) * cp.float32(65536.0 / 1e6)).astype(cp.int64), 65535)
    bins = cp.zeros(65536, dtype=cp.int64)
    case("sort_i64_16M", lambda: cp.sort(s), byte=8 * 2 * 8 * q)
    case("argsort_i64_16M", lambda: cp.argsort(s), byte=8 * 2 * 12 * q + 4 * q)
    case("cumsum_i64_64M", lambda: cp.cumsum(a), byte=16 * n)
    gen = cp.random.default_rng(5)
    case("integers_i64_64M", lambda: gen.integers(-(1 << 40), 1 << 40, size=n, dtype=cp.int64), byte=8 * n)
    import cupyx
    case("scatter_add_i64_16M", lambda: cupyx.scatter_add(bins, idx, s), byte=16 * q)
