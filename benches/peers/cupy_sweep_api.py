"""`--sweep api`: every part of issue 18's API sweep (the modules cupy_sweep_api_<part>.py),
in the order of examples/bench_table/sweep_api.rs; a row name given twice keeps the first
part's time."""
import importlib

PARTS = ["math", "manip", "index", "stats", "dtypes", "random"]


def run(case):
    seen = set()

    def once(name, fn, byte=None, **kw):
        if name not in seen:
            seen.add(name)
            case(name, fn, byte=byte, **kw)

    for part in PARTS:
        importlib.import_module(f"cupy_sweep_api_{part}").run(once)
