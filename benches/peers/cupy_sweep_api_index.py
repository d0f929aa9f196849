"""`--sweep api_index`: take (random gather of 64M f32 by 64M int32 indices; CuPy's take
wraps), x[mask] of 64M f32 with half true, cupyx.scatter_add of 16M f32 into 1M bins at
random indices, and the same of int64 values into int64 bins (the same row names and
byte counts as examples/bench_table/sweep_api_index.rs; gpuarray's masks are u32, CuPy's
bool)."""
import cupy as cp
import cupyx


def run(case):
    n = 1 << 26
    sn = 1 << 24
    bins = 1 << 20
    rng = cp.random.default_rng(31)
    x = rng.random(n, dtype=cp.float32)
    idx = (rng.random(n, dtype=cp.float32) * n).astype(cp.int32)
    mask = rng.random(n, dtype=cp.float32) < 0.5
    sel = int(cp.count_nonzero(mask))
    vals = rng.random(sn, dtype=cp.float32)
    sidx = (rng.random(sn, dtype=cp.float32) * bins).astype(cp.int32)
    hist = cp.zeros(bins, dtype=cp.float32)
    c = cp.empty_like(x)
    case("copy_f32_64M", lambda: cp.copyto(c, x), byte=8 * n)
    case("take_f32_64M_random", lambda: cp.take(x, idx), byte=12 * n)
    case("select_f32_64M_half", lambda: x[mask], byte=8 * n + 4 * sel)
    case("scatter_add_f32_16M_1M_bins", lambda: cupyx.scatter_add(hist, sidx, vals),
         byte=8 * sn + 8 * bins)
    vals64 = (vals * (1 << 20)).astype(cp.int64)
    hist64 = cp.zeros(bins, dtype=cp.int64)
    case("scatter_add_i64_16M_1M_bins", lambda: cupyx.scatter_add(hist64, sidx, vals64),
         byte=12 * sn + 16 * bins)
