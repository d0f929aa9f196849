#!/usr/bin/env python3
"""Counts the operations one element of an f64 math function executes, from the WGSL of
shaders/shared (f64_*.wgsl): every arithmetic operator, comparison, logic operator, select
and built-in call in a function body, with the counts of the library functions it calls
added in (inlined, as the driver does), loops counted by their trip count. A static proxy
for the work per element (a built-in f64 division counts as one operation here, though it
is a sequence of about 10 fma on NVIDIA: `div` counts them apart, and `conv` the
conversions and roundings (floor, to and from integers and f32), a quarter of the fma rate
there, and `int` the integer operations on the bits, counted apart from the rest; the rare
slow path under
`if (any(...))`, Payne-Hanek, is left out), used to compare
the library's forms: `--int64` and `--fma` pick the adapter's choices of `Spec::f64_choices`.

    python3 tools/f64_op_count.py [--int64] [--fma] [FUNCTION ...]
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "shaders" / "shared"
DEFAULT = ["log64_", "log1p64_", "pow64_", "tan64_", "tanh64_", "expm1_64_", "sin64_",
           "exp64_", "log2_64_", "cos64_"]


def sources(int64, fma):
    files = ["f64_math", "f64_trig", "f64_trig_fast", "f64_trig_kern", "f64_trig_big", "f64_hyperbolic",
             "f64_exp_log", "f64_parts", "f64_erf"]
    files.append("f64_split_bits" if int64 else "f64_split")
    files.append("f64_prod_fma" if fma else "f64_prod")
    return "\n".join((ROOT / f"{f}.wgsl").read_text() for f in files)


def functions(text):
    text = re.sub(r"//[^\n]*", "", text)
    out = {}
    for m in re.finditer(r"\bfn\s+(\w+)\s*\([^)]*\)[^{]*\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out[m.group(1)] = text[m.end():i - 1]
    return out


OPS = re.compile(r"(==|!=|<=|>=|<<|>>|(?<![-=<>!])[<>](?!=)|[+*/&|^]|(?<![(,=e])\s-\s|-(?=\w))")
BUILTINS = ["fma", "select", "floor", "clamp", "abs", "min", "max", "ldexp", "bitcast", "trunc",
            "sqrt", "any", "round"]


def count(name, fns, memo, stack=()):
    if name in memo:
        return memo[name]
    if name == "opaque64_" and "LU64" in fns[name]:
        # The bits or-ed with a parameter: one integer operation (the bitcasts are free),
        # off the f64 pipeline; one64_()'s product in the ladder form counts as written.
        memo[name] = {"ops": 0, "int": 1, "div": 0, "conv": 0}
        return memo[name]
    body = fns[name]
    total = {"ops": 0, "int": 0, "div": 0, "conv": 0}
    # Loops: `for (var i = A; i >= 0; i--)` or `i < N`: the body counted by its trip count.
    loops = []
    for m in re.finditer(r"for\s*\(var \w+ = (\d+); \w+ (>=|<) (\d+); \w+(\+\+|--)\)\s*\{", body):
        a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
        trips = a - b + 1 if op == ">=" else b - a
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            i += 1
        loops.append((m.end(), i - 1, trips))

    # `if (any(...)) { ... }`: the rare slow path (Payne-Hanek), taken only where some lane
    # of the subgroup needs it: not counted.
    for m in re.finditer(r"if\s*\(any\([^{]*\{", body):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            i += 1
        loops.append((m.end(), i - 1, 0))

    def weight(pos):
        w = 1
        for s, e, t in loops:
            if s <= pos < e:
                w *= t
        return w

    for stmt in re.finditer(r"[^;{}]+", body):
        s = stmt.group(0)
        w = weight(stmt.start())
        if re.match(r"\s*for\s*\(", s) or not s.strip():
            continue
        code = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?(lf|lu|u|i|f)?\b|0x[0-9a-fA-Fp.+-]+(lu|u)?", "0", s)
        code = re.sub(r"\b(let|var|return)\b", "", code)
        # Constant expressions (TW(1.0 / 6.0)) fold at compile time.
        code = re.sub(r"\(\s*-?0\s*[-+*/]\s*0\s*\)", "(0)", code)
        n = len(OPS.findall(code))
        total["div"] += w * code.count("/")
        # Conversions and roundings of f64 (floor, NI(..) to an integer, TF(..) to f32, TW(u..)
        # from an integer): a quarter of the fma rate on NVIDIA, so worth about 4 operations.
        total["conv"] += w * len(re.findall(r"\b(floor|trunc|round|NI|TF)\s*\(|\bTW\(u\b", code))
        for b in BUILTINS:
            n += len(re.findall(rf"\b{b}\s*[(<]", code))
        # Statements on the bits (64-bit integer lanes): integer operations, off NVIDIA's
        # f64 pipeline; the bitcasts themselves are free.
        if re.search(r"\bLU(64|32)\b", s):
            total["int"] += w * (n - len(re.findall(r"\bbitcast\s*<", code)))
        else:
            total["ops"] += w * n
        for callee in re.findall(r"\b(\w+_)\s*\(", s):
            if callee in fns and callee not in stack and callee != name:
                c = count(callee, fns, memo, stack + (name,))
                total["ops"] += w * c["ops"]
                total["int"] += w * c["int"]
                total["div"] += w * c["div"]
                total["conv"] += w * c["conv"]
    memo[name] = total
    return total


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    names = args or DEFAULT
    rows = []
    for int64, fma in [(False, False), (True, False), (True, True)]:
        if ("--int64" in sys.argv or "--fma" in sys.argv) and (int64, fma) != (
                "--int64" in sys.argv, "--fma" in sys.argv):
            continue
        fns = functions(sources(int64, fma))
        memo = {}
        rows.append((int64, fma, {n: count(n, fns, memo) for n in names}))
    print(f"{'function':<12}" + "".join(
        f"{('bits' if i else 'ladder') + ('+fma' if f else '+dekker'):>18}" for i, f, _ in rows))
    for n in names:
        print(f"{n:<12}" + "".join(
            f"{r[n]['ops']:>11} ({r[n]['int']} int, {r[n]['div']} div, {r[n]['conv']} conv)"
            for _, _, r in rows))


if __name__ == "__main__":
    main()
