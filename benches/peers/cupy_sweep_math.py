"""`--sweep math`: the float functions of 16M elements of f32, f16 and f64, inputs uniform in
[0.5, 1.5) (the `_wide` rows: [-1e4, 1e4)); `rem` is C's fmod (gpuarray's rem has the
dividend's sign)."""
import cupy as cp


def run(case):
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
                 "tanh": cp.tanh, "sin": cp.sin, "tan": cp.tan}
        for op, f in unary.items():
            case(f"{op}_{name}_16M", lambda f=f: f(a, out=c), byte=2 * size * n)
        case(f"sin_wide_{name}_16M", lambda: cp.sin(wide, out=c), byte=2 * size * n)
        case(f"tan_wide_{name}_16M", lambda: cp.tan(wide, out=c), byte=2 * size * n)
        case(f"tanh_wide_{name}_16M", lambda: cp.tanh(wide, out=c), byte=2 * size * n)
        case(f"cos_{name}_16M", lambda: cp.cos(a, out=c), byte=2 * size * n)
        case(f"cos_wide_{name}_16M", lambda: cp.cos(wide, out=c), byte=2 * size * n)
