"""`--sweep sort`: the sort family beside gpuarray's rows of the same names. The first row
copies 64M u32; floors are computed on gpuarray's side (its notes).

- sort_u32_64M: cp.sort of 64M random u32 keys (CUB radix sort, keys only).
- sort_f32_16M / argsort_f32_16M: cp.sort / cp.argsort of 16M normal f32.
- sort_rows_f32_8192x1024: cp.sort(axis=1) of an 8192 x 1024 normal f32 matrix.
- top_k_100_f32_64M: the 100 largest of 64M normal f32 with their indices, as CuPy users
  write it: cp.argpartition(x, -100)[-100:], then those 100 sorted (cp.argsort of their
  values, descending) and gathered.
- unique_i32_16M: cp.unique of 16M int32 in [0, 65536) (many repeats).
- median_f32_64M: cp.median of 64M normal f32.
- sort_f64_16M / argsort_f64_16M / cumsum_f64_16M: cp.sort / cp.argsort / cp.cumsum of
  16M normal f64 (issue 34).
- then `--sweep scan`'s cumsum and histogram rows that the issue lists with these
  (cupy_sweep_scan.SORT_ROWS), after its f32 copy row.
"""
import cupy as cp

import cupy_sweep_scan


def run(case):
    big = 1 << 26
    mid = 1 << 24
    rng = cp.random.default_rng(7)
    keys = (rng.random(big, dtype=cp.float32) * 4.0e9).astype(cp.uint32)
    f = rng.standard_normal(mid, dtype=cp.float32)
    m = rng.standard_normal((8192, 1024), dtype=cp.float32)
    c = cp.empty_like(keys)
    case("copy_u32_64M", lambda: cp.copyto(c, keys), byte=2 * 4 * big)
    case("sort_u32_64M", lambda: cp.sort(keys), byte=4 * 2 * 4 * big)
    case("sort_f32_16M", lambda: cp.sort(f), byte=4 * 2 * 4 * mid)
    case("argsort_f32_16M", lambda: cp.argsort(f), byte=4 * 2 * 8 * mid)
    big_f = rng.standard_normal(big, dtype=cp.float32)

    def top_k():
        part = cp.argpartition(big_f, -100)[-100:]
        order = cp.argsort(-big_f[part])
        idx = part[order]
        return big_f[idx], idx

    case("top_k_100_f32_64M", top_k, byte=4 * big)
    case("sort_rows_f32_8192x1024", lambda: cp.sort(m, axis=1), byte=2 * 4 * 8192 * 1024)
    few = (rng.random(mid, dtype=cp.float32) * 65536.0).astype(cp.int32)
    case("unique_i32_16M", lambda: cp.unique(few), byte=4 * 2 * 4 * mid)
    case("median_f32_64M", lambda: cp.median(big_f), byte=4 * big)
    g = rng.standard_normal(mid, dtype=cp.float64)
    case("sort_f64_16M", lambda: cp.sort(g), byte=8 * 2 * 8 * mid)
    case("argsort_f64_16M", lambda: cp.argsort(g), byte=8 * 2 * 12 * mid + 4 * mid)
    case("cumsum_f64_16M", lambda: cp.cumsum(g), byte=2 * 8 * mid)
    cupy_sweep_scan.run(case, only=cupy_sweep_scan.SORT_ROWS)
