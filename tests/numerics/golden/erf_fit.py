# The polynomials of erf_32_ (shaders/shared/f32_erf.wgsl):
#   python3 erf_fit.py 1,2.25,4 10
# Interval 0, |x| below the first edge: erf(x) = x P(x^2), P a Chebyshev interpolant in
# s = x^2 mapped to u in [-1, 1]; the others: erf itself as an interpolant in u = (x - mid)
# / half, its constant term in two parts. All share one degree (interval 0 padded with
# zeros), so the coefficients are picked by selects. Prints the WGSL and the largest error
# of an f32 evaluation (fma emulated in f64) over a dense sweep, in ulps of the result.
import mpmath as mp, sys, numpy as np
mp.mp.dps = 40
def g0(s): return mp.erf(mp.sqrt(s)) / mp.sqrt(s) if s > 0 else 2 / mp.sqrt(mp.pi)
def fit(f, a, b, deg):
    a, b = mp.mpf(a), mp.mpf(b); n = deg + 1
    nodes = [mp.cos(mp.pi * (k + 0.5) / n) for k in range(n)]
    vals = [f((a + b) / 2 + (b - a) / 2 * t) for t in nodes]
    c = [sum(vals[k] * mp.cos(mp.pi * j * (k + 0.5) / n) for k in range(n)) * 2 / n for j in range(n)]
    c[0] /= 2
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for j in range(2, n):
        t = [mp.mpf(0)] + [2 * v for v in T[j - 1]]
        for i, v in enumerate(T[j - 2]): t[i] -= v
        T.append(t)
    m = [mp.mpf(0)] * n
    for j in range(n):
        for i, v in enumerate(T[j]): m[i] += c[j] * v
    return m
edges = [float(v) for v in sys.argv[1].split(',')]
deg = int(sys.argv[2])
ivs = [(0.0, edges[0] ** 2)] + list(zip(edges, edges[1:]))
fits = [fit(g0 if i == 0 else mp.erf, a, b, deg) for i, (a, b) in enumerate(ivs)]
f32 = lambda v: float(np.float32(float(v)))
hi = [f32(m[0]) for m in fits]
lo = [f32(m[0] - mp.mpf(h)) for m, h in zip(fits, hi)]
coef = [[f32(m[j]) for m in fits] for j in range(deg + 1)]
mids = [f32((a + b) / 2) for a, b in ivs]; scales = [f32(2 / (b - a)) for a, b in ivs]
def fma(a, b, c): return f32(a * b + c)
def model(x):
    a = min(abs(x), edges[-1])
    k = sum(1 for e in edges[:-1] if a >= e)
    v = f32(a * a) if k == 0 else a
    u = f32(f32(v - mids[k]) * scales[k])
    p = coef[deg][k]
    for j in range(deg - 1, 0, -1): p = fma(p, u, coef[j][k])
    w = a if k == 0 else 1.0
    return fma(w, hi[k], f32(w * fma(p, u, lo[k])))
worst = (0, 0)
for i in range(1, 60001):
    x = f32(edges[-1] * i / 60000 * (1 + 1e-7 * (i % 7)))
    want = mp.erf(x); got = model(x)
    ulp = np.spacing(np.float32(abs(want)))
    e = float(abs(got - want) / float(ulp))
    if e > worst[0]: worst = (e, x)
print(f"// measured in f32 emulation: {worst[0]:.3f} ulps at x = {worst[1]}", file=sys.stderr)
def pick(vals):
    e = f"TW({vals[0]!r})"
    for k in range(1, len(vals)): e = f"select({e}, TW({vals[k]!r}), k == TW({k}.0))"
    return e
print(f"    // Intervals by the edges {edges}, degree {deg} (python3 tests/numerics/golden/erf_fit.py {sys.argv[1]} {deg}).")
print("    var k = TW(0.0);")
for i, e in enumerate(edges[:-1]): print(f"    k = select(k, TW({i + 1}.0), a >= TW({e!r}));")
print(f"    let v = select(a, a * a, k == TW(0.0));")
print(f"    let u = (v - {pick(mids)}) * {pick(scales)};")
print(f"    var p = {pick(coef[deg])};")
for j in range(deg - 1, 0, -1): print(f"    p = fma(p, u, {pick(coef[j])});")
print("    // Tiny arguments are scaled by 2^32 and the result back (exactly): a flushing adapter")
print("    // (the H100) flushes w * p below the normal range, which gave erf(1.2e-38) = 0.")
print("    let tiny = a < TW(5.421010862427522e-20);")
print("    let w = select(TW(1.0), a * select(TW(1.0), TW(4294967296.0), tiny), k == TW(0.0));")
print(f"    let q = fma(w, {pick(hi)}, w * fma(p, u, {pick(lo)})) * select(TW(1.0), TW(2.3283064365386963e-10), tiny);")
