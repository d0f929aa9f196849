"""`--sweep api_random`: 64M-element draws of a stateful generator,
`cp.random.default_rng(seed)` beside gpuarray's `Device::default_rng(seed)`: integers in
[0, 1000) as int32, standard normals as float32, and Poisson counts of mean 10 (CuPy returns
int64 there: its bytes are counted as written)."""
import cupy as cp


def run(case):
    n = 1 << 26
    a = cp.random.default_rng(1).random(n, dtype=cp.float32)
    c = cp.empty_like(a)
    case("copy_f32_64M", lambda: cp.copyto(c, a), byte=8 * n)
    del a, c
    rng = cp.random.default_rng(7)
    case("integers_i32_64M", lambda: rng.integers(0, 1000, n, dtype=cp.int32), byte=4 * n)
    case("standard_normal_f32_64M", lambda: rng.standard_normal(n, dtype=cp.float32),
         byte=4 * n)
    case("poisson10_i32_64M", lambda: rng.poisson(10.0, n), byte=8 * n)
