"""`--sweep linalg_qr_einsum`: cupy.linalg.qr (cuSOLVER geqrf + orgqr, mode 'reduced') at
n = 256, 1024, 4096 in f32 and f64, and six einsum contractions with cupy.einsum beside the
direct call each maps to (`_direct` rows), named as bench_table's rows
(examples/bench_table/sweep_linalg_qr_einsum.rs says how). The mm_* and copy rows give the
floors of the gpuarray side; they are timed here too for the table.
"""
import cupy as cp


def uniform(rng, shape, dt):
    return (rng.random(shape, dtype=cp.float64) * 2 - 1).astype(dt)


def run(case):
    rng = cp.random.default_rng(3)
    n = 1 << 26
    x = rng.random(n, dtype=cp.float32) + 0.5
    case("copy_f32_64M", lambda: x + 0, byte=8 * n)
    del x
    s = 4096
    a, b = uniform(rng, (s, s), cp.float32), uniform(rng, (s, s), cp.float32)
    case("mm_f32_4096", lambda: a @ b, n_repeat=20)
    case("einsum_mm_f32_4096_direct", lambda: cp.matmul(a, b), n_repeat=20)
    case("einsum_mm_f32_4096", lambda: cp.einsum("ij,jk->ik", a, b), n_repeat=20)
    del a, b
    a = uniform(rng, (256, 256, 256), cp.float32)
    b = uniform(rng, (256, 256, 256), cp.float32)
    case("einsum_bmm_f32_256x256_direct", lambda: cp.matmul(a, b))
    case("einsum_bmm_f32_256x256", lambda: cp.einsum("bij,bjk->bik", a, b))
    del a, b
    a = uniform(rng, (65536, 1024), cp.float32)
    b = uniform(rng, (65536, 1024), cp.float32)
    case("einsum_rowdot_f32_65536x1024_direct", lambda: (a * b).sum(axis=1))
    case("einsum_rowdot_f32_65536x1024", lambda: cp.einsum("bi,bi->b", a, b))
    del a, b
    a = uniform(rng, (8192, 8192), cp.float32)
    v = uniform(rng, (8192,), cp.float32)
    case("einsum_trace_f32_8192_direct", lambda: cp.trace(a))
    case("einsum_trace_f32_8192", lambda: cp.einsum("ii->", a))
    case("einsum_matvec_f32_8192_direct", lambda: cp.matmul(a, v))
    case("einsum_matvec_f32_8192", lambda: cp.einsum("ij,j->i", a, v))
    del a, v
    q = uniform(rng, (8, 16, 1024, 64), cp.float32)
    k = uniform(rng, (8, 16, 1024, 64), cp.float32)
    case("einsum_attn_f32_8x16x1024x64_direct", lambda: cp.matmul(q, k.swapaxes(-1, -2)))
    case("einsum_attn_f32_8x16x1024x64", lambda: cp.einsum("bhqd,bhkd->bhqk", q, k))
    del q, k
    for dt, name in ((cp.float32, "f32"), (cp.float64, "f64")):
        for s in (256, 1024, 4096):
            a = uniform(rng, (s, s), dt)
            b = uniform(rng, (s, s), dt)
            if not (name == "f32" and s == 4096):
                case(f"mm_{name}_{s}", lambda: a @ b, n_repeat=20)
            case(f"qr_{name}_{s}", lambda: cp.linalg.qr(a), n_repeat=10 if s == 4096 else 20)
            del a, b
