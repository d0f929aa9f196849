"""`--sweep linalg_factor`: cupy.linalg (cuSOLVER) beside gpuarray::linalg, named as
bench_table's rows (examples/bench_table/sweep_linalg_factor.rs says how, with each row's
floor): cholesky, solve (one vector), inv and det at n = 256, 1024, 4096 in f32 and f64, and
the solve of 10,000 8x8 and 32x32 systems (one right-hand side) in f32 and f64. Inputs as
there: uniform in [-1, 1) plus n on the diagonal; M M^T / n + I for cholesky. CuPy checks
nothing by default (no host wait).
"""
import cupy as cp

SIZES = [256, 1024, 4096]
BATCHED = [(10000, 8), (10000, 32)]


def well_conditioned(rng, dt, count, n):
    a = rng.random((count, n, n), dtype=cp.float64) * 2 - 1 + n * cp.eye(n)
    return a.astype(dt)


def spd(rng, dt, n):
    m = rng.random((n, n), dtype=cp.float64) * 2 - 1
    return (m @ m.T / n + cp.eye(n)).astype(dt)


def run(case):
    rng = cp.random.default_rng(7)
    for dt, name in ((cp.float32, "f32"), (cp.float64, "f64")):
        for n in SIZES:
            reps = 10 if n >= 4096 else 20
            a = spd(rng, dt, n)
            case(f"cholesky_{name}_{n}", lambda a=a: cp.linalg.cholesky(a), n_repeat=reps)
            a = well_conditioned(rng, dt, 1, n)[0]
            b = (rng.random(n, dtype=cp.float64) * 2 - 1).astype(dt)
            case(f"solve_{name}_{n}", lambda a=a, b=b: cp.linalg.solve(a, b), n_repeat=reps)
            case(f"inv_{name}_{n}", lambda a=a: cp.linalg.inv(a), n_repeat=reps)
            case(f"det_{name}_{n}", lambda a=a: cp.linalg.det(a), n_repeat=reps)
            del a, b
    for dt, name in ((cp.float32, "f32"), (cp.float64, "f64")):
        for count, n in BATCHED:
            a = well_conditioned(rng, dt, count, n)
            b = (rng.random((count, n, 1), dtype=cp.float64) * 2 - 1).astype(dt)
            case(f"solve_batched_{name}_{count}x{n}", lambda a=a, b=b: cp.linalg.solve(a, b))
