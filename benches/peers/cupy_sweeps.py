"""CuPy peer of bench_table's sweeps: the same rows, named alike, timed with GPU events
(cupyx.profiler.benchmark, median of the repeats after 5 warm-ups), on the same GPU in the
same command as `bench_table --sweep NAME --peer cupy_sweeps.py`.

    python3 cupy_sweeps.py --sweep NAME [--json F] [--cold]

Each sweep is a module beside this file, `cupy_sweep_NAME.py`, with `run(case)`: it calls
`case(row_name, fn, byte=None)` for every row, `fn` a callable of no arguments that runs the
row's work once on the GPU.

`--cold` (as bench_table's, issue 34) also times each row cold after its warm time:
COLD_ROUNDS rounds of a host pause of COLD_PAUSE_S, COLD_WARMUP warm-up calls and
COLD_CALLS timed calls (GPU events), the round's mean per call, and the median of the
rounds, written as "<row>:cold". The warm numbers are measured as before.
"""
import argparse, importlib, json, os, sys, time
import numpy as np
from cupyx.profiler import benchmark

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEPS = sorted(f[len("cupy_sweep_"):-3] for f in os.listdir(HERE)
                if f.startswith("cupy_sweep_") and f.endswith(".py"))

ap = argparse.ArgumentParser()
ap.add_argument("--json")
ap.add_argument("--sweep", required=True, choices=SWEEPS)
ap.add_argument("--cold", action="store_true",
                help="also time each row after a 200 ms host pause and 3 warm-up calls")
args = ap.parse_args()
out = {}
COLD_ROUNDS, COLD_PAUSE_S, COLD_WARMUP, COLD_CALLS = 3, 0.2, 3, 10


# GPUARRAY_BENCH_ONLY (comma-separated name prefixes), as bench_table reads it: the rows
# gpuarray leaves out are not timed here either.
ONLY = [p for p in os.environ.get("GPUARRAY_BENCH_ONLY", "").split(",") if p]


def case(name, fn, byte=None, n_repeat=50):
    if ONLY and not any(name.startswith(p) for p in ONLY):
        return
    r = benchmark(fn, (), n_repeat=n_repeat, n_warmup=5)
    ms = float(np.median(r.gpu_times[0])) * 1e3
    out[name] = ms
    rate = f"{byte / ms / 1e6:8.1f} GB/s" if byte else ""
    cold = ""
    if args.cold:
        rounds = []
        for _ in range(COLD_ROUNDS):
            time.sleep(COLD_PAUSE_S)
            r = benchmark(fn, (), n_repeat=COLD_CALLS, n_warmup=COLD_WARMUP)
            rounds.append(float(np.mean(r.gpu_times[0])) * 1e3)
        out[name + ":cold"] = float(np.median(rounds))
        cold = f"  cold {out[name + ':cold']:10.4f} ms"
    print(f"{name:36s} {ms:10.4f} ms  {rate}{cold}", flush=True)


sys.path.insert(0, HERE)
importlib.import_module(f"cupy_sweep_{args.sweep}").run(case)
if args.json:
    with open(args.json, "w") as f:
        json.dump(out, f)
