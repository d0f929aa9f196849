"""`--sweep api_stats`: nansum over 64M f32, uniform in [-2, 2) with 1% NaN (the rows of
examples/bench_table/sweep_api_stats.rs)."""
import cupy as cp


def run(case):
    n = 1 << 26
    rng = cp.random.default_rng(31)
    a = (rng.random(n, dtype=cp.float32) * 4 - 2).astype(cp.float32)
    a[rng.random(n, dtype=cp.float32) < 0.01] = cp.nan
    c = cp.empty_like(a)
    case("stats_copy_f32_64M", lambda: cp.copyto(c, a), byte=8 * n)
    case("nansum_f32_64M", lambda: cp.nansum(a), byte=4 * n)
