"""`--sweep scan`: cumsum of 64M f32 and along axis 1 and axis 0 of 8192 x 8192 f32, histogram
of 64M f32 into 256 bins over [0, 1), bincount of 64M u32 in 0..1024, nonzero
of 64M values with half set, x[mask] of 64M f32 with half selected (the same row names and
byte counts as examples/bench_table/sweep_scan.rs; gpuarray's masks are u32, CuPy's bool:
converted before timing)."""
import cupy as cp

# The rows issue 19 lists beside its sorts: `--sweep sort` runs them too (cupy_sweep_sort.py).
SORT_ROWS = ("cumsum_f32_64M", "cumsum_axis1_f32_8192x8192", "histogram_f32_64M_256bins")


def run(case, only=None):
    """Every row, or (`only`) the copy row and the rows named there."""
    if only is not None:
        every = case

        def case(name, fn, **kw):
            if name.startswith("copy") or name in only:
                every(name, fn, **kw)

    n = 1 << 26
    side = 8192
    rng = cp.random.default_rng(21)
    x = rng.random(n, dtype=cp.float32)
    sq = rng.random((side, side), dtype=cp.float32)
    mask_b = rng.random(n, dtype=cp.float32) < 0.5
    mask_u = mask_b.astype(cp.uint32)
    sel = int(cp.count_nonzero(mask_b))
    c = cp.empty_like(x)
    case("copy_f32_64M", lambda: cp.copyto(c, x), byte=8 * n)
    case("cumsum_f32_64M", lambda: cp.cumsum(x), byte=12 * n)
    case("cumsum_axis1_f32_8192x8192", lambda: cp.cumsum(sq, axis=1), byte=8 * side * side)
    case("cumsum_axis0_f32_8192x8192", lambda: cp.cumsum(sq, axis=0), byte=12 * side * side)
    ints = (rng.random(n, dtype=cp.float32) * 1024).astype(cp.uint32)
    case("histogram_f32_64M_256bins", lambda: cp.histogram(x, bins=256, range=(0.0, 1.0)), byte=4 * n)
    case("bincount_u32_64M_1024", lambda: cp.bincount(ints), byte=4 * n)
    case("nonzero_u32_64M_half", lambda: cp.nonzero(mask_u), byte=4 * n + 4 * sel)
    case("masked_select_f32_64M_half", lambda: x[mask_b], byte=8 * n + 4 * sel)
