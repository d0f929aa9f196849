"""Builds the README's table of maximum ulp errors from GPUARRAY_NUMERICS_REPORT files.

    python3 tests/numerics/report_table.py lavapipe=lvp.md H100=h100.md

Each report line is `| function | dtype | max ulp | worst input | inputs | adapter |`; a
function checked more than once (the sweep, hard cases, pairs) counts its largest error.
"""
import sys
from collections import defaultdict

BOUND = {"sqrt": 2, "div": 2, "floor": 0, "ceil": 0, "round": 0}
cols = []
worst = defaultdict(dict)
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    cols.append(name)
    for line in open(path):
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(f) < 6:
            continue
        key = (f[0], f[1])
        v = float(f[2])
        worst[key][name] = max(v, worst[key].get(name, 0.0))
funcs = sorted({k[0] for k in worst})
dtypes = ["f32", "f16", "f64"]
head = ["function", "bound (f32, f64)"] + [f"{d} {c}" for d in dtypes for c in cols]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for fn in funcs:
    row = [f"`{fn}`", str(BOUND.get(fn, 4))]
    for d in dtypes:
        for c in cols:
            v = worst.get((fn, d), {}).get(c)
            row.append("" if v is None else f"{v:.2f}")
    print("| " + " | ".join(row) + " |")
