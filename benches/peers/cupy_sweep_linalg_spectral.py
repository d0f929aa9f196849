"""`--sweep linalg_spectral`: eigh, eigvalsh, svd and svdvals at n = 256, 1024 and 4096 (f32 and
f64; svd and svdvals at 4096 in f32 only), 10,000 matrices of 8 x 8 and 32 x 32 (eigh, svd, svdvals), lstsq and pinv at
1024, through cupy.linalg (cuSOLVER): the rows of examples/bench_table/sweep_linalg_spectral.rs.
Inputs uniform in [-1, 1); eigh reads the lower triangle."""
import cupy as cp


def run(case):
    rng = cp.random.default_rng(7)
    for dt, name, sizes in ((cp.float32, "f32", (256, 1024, 4096)), (cp.float64, "f64", (256, 1024, 4096))):
        for n in sizes:
            a = (rng.random((n, n), dtype=dt) * 2 - 1).astype(dt)
            reps = 3 if n >= 1024 else 20
            case(f"eigh_{name}_{n}", lambda: cp.linalg.eigh(a, UPLO="L"), n_repeat=reps)
            case(f"eigvalsh_{name}_{n}", lambda: cp.linalg.eigvalsh(a, UPLO="L"), n_repeat=reps)
            if name == "f64" and n == 4096:
                continue
            case(f"svd_{name}_{n}", lambda: cp.linalg.svd(a, full_matrices=True, compute_uv=True), n_repeat=reps)
            case(f"svdvals_{name}_{n}", lambda: cp.linalg.svd(a, compute_uv=False), n_repeat=reps)
            if n == 1024:
                b = (rng.random((n, 1), dtype=dt) * 2 - 1).astype(dt)
                case(f"lstsq_{name}_{n}", lambda: cp.linalg.lstsq(a, b, rcond=None), n_repeat=reps)
                case(f"pinv_{name}_{n}", lambda: cp.linalg.pinv(a), n_repeat=reps)
        for n in (8, 32):
            a = (rng.random((10000, n, n), dtype=dt) * 2 - 1).astype(dt)
            case(f"eigh_{name}_b10000x{n}", lambda: cp.linalg.eigh(a, UPLO="L"))
            case(f"svd_{name}_b10000x{n}", lambda: cp.linalg.svd(a, full_matrices=True))
            case(f"svdvals_{name}_b10000x{n}", lambda: cp.linalg.svd(a, compute_uv=False))
