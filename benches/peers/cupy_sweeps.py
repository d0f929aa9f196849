"""CuPy peer of bench_table's sweeps: the same rows, named alike, timed with GPU events
(cupyx.profiler.benchmark, median of the repeats after 5 warm-ups), on the same GPU in the
same command as `bench_table --sweep NAME --peer cupy_sweeps.py`.

    python3 cupy_sweeps.py --sweep math [--json F]

math: the float functions of 16M elements of f32, f16 and f64, inputs uniform in [0.5, 1.5)
(the `_wide` rows: [-1e4, 1e4)); `rem` is C's fmod (gpuarray's rem has the dividend's sign).
"""
import argparse, json
import numpy as np
import cupy as cp
from cupyx.profiler import benchmark

ap = argparse.ArgumentParser()
ap.add_argument("--json")
ap.add_argument("--sweep", required=True, choices=["math"])
args = ap.parse_args()
out = {}


def case(name, fn, byte=None, n_repeat=50):
    r = benchmark(fn, (), n_repeat=n_repeat, n_warmup=5)
    ms = float(np.median(r.gpu_times[0])) * 1e3
    out[name] = ms
    rate = f"{byte / ms / 1e6:8.1f} GB/s" if byte else ""
    print(f"{name:36s} {ms:10.4f} ms  {rate}", flush=True)


def math_sweep():
    n = 1 << 24
    rng = cp.random.default_rng(7)
    for dt, name in ((cp.float32, "f32"), (cp.float16, "f16"), (cp.float64, "f64")):
        size = cp.dtype(dt).itemsize
        a = (rng.random(n, dtype=cp.float64) + 0.5).astype(dt)
        b = (rng.random(n, dtype=cp.float64) + 0.5).astype(dt)
        wide = (rng.random(n, dtype=cp.float64) * 2e4 - 1e4).astype(dt)
        c = cp.empty_like(a)
        case(f"copy_{name}_16M", lambda: cp.copyto(c, a), byte=2 * size * n)
        binary = {"div": cp.divide, "rem": cp.fmod, "pow": cp.power}
        for op, f in binary.items():
            case(f"{op}_{name}_16M", lambda f=f: f(a, b, out=c), byte=3 * size * n)
        unary = {"exp": cp.exp, "log": cp.log, "log1p": cp.log1p, "expm1": cp.expm1,
                 "tanh": cp.tanh, "sin": cp.sin}
        for op, f in unary.items():
            case(f"{op}_{name}_16M", lambda f=f: f(a, out=c), byte=2 * size * n)
        case(f"sin_wide_{name}_16M", lambda: cp.sin(wide, out=c), byte=2 * size * n)
        case(f"tan_wide_{name}_16M", lambda: cp.tan(wide, out=c), byte=2 * size * n)


{"math": math_sweep}[args.sweep]()
if args.json:
    with open(args.json, "w") as f:
        json.dump(out, f)
