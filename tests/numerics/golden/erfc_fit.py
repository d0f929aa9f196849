# The interpolants of erfc_g32_ (shaders/shared/f32_erf.wgsl) and erfc_g64_ (f64_erf.wgsl):
#   python3 erfc_fit.py 32 3e-9 0.25,0.75,1.5,3,6,10.1
#   python3 erfc_fit.py 64 1.5e-17 0.25,0.75,1.5,3,6,10,16,27.3
# Generates the WGSL of g(x) = erfc(x) e^(x^2) on intervals: Chebyshev interpolants at high
# precision, as monomials in u = (x - mid) / half, the constant term split in two.
import mpmath as mp, sys, numpy as np
mp.mp.dps = 40
def g(x): return mp.erfc(x) * mp.exp(x * x)
def fit(a, b, deg):
    a, b = mp.mpf(a), mp.mpf(b); n = deg + 1
    nodes = [mp.cos(mp.pi * (k + 0.5) / n) for k in range(n)]
    vals = [g((a + b) / 2 + (b - a) / 2 * t) for t in nodes]
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
def err(a, b, m):
    w = 0
    for k in range(60):
        t = -1 + 2 * (k + 0.37) / 60
        x = (mp.mpf(a) + b) / 2 + (mp.mpf(b) - a) / 2 * t
        w = max(w, abs(mp.polyval(m[::-1], t) / g(x) - 1))
    return w
prec, target, edges = int(sys.argv[1]), float(sys.argv[2]), [float(v) for v in sys.argv[3].split(',')]
fits = []
for a, b in zip(edges, edges[1:]):
    for deg in range(4, 40):
        m = fit(a, b, deg)
        if err(a, b, m) < target: break
    fits.append((a, b, m))
deg = max(len(m) for _, _, m in fits) - 1
fits = [(a, b, fit(a, b, deg)) for a, b, _ in fits]
rnd = (lambda v: repr(float(np.float32(float(v))))) if prec == 32 else (lambda v: repr(float(v)))
def pick(vals):
    e = f"TW({vals[0]})"
    for k in range(1, len(vals)): e = f"select({e}, TW({vals[k]}), k == TW({k}.0))"
    return e
suffix = "32" if prec == 32 else "64"
print(f"// g on [{edges[0]}, {edges[-1]}]: interval k by the edges {edges}, u in [-1, 1], degree {deg}.")
print(f"fn erfc_g{suffix}_(x: TW) -> TW {{")
print("    var k = TW(0.0);")
for i, e in enumerate(edges[1:-1]): print(f"    k = select(k, TW({i + 1}.0), x >= TW({e}));")
mids = [repr((a + b) / 2) for a, b, _ in fits]; halves = [repr(2 / (b - a)) for a, b, _ in fits]
print(f"    let u = (x - {pick(mids)}) * {pick(halves)};")
print(f"    var p = {pick([rnd(m[deg]) for _, _, m in fits])};")
for j in range(deg - 1, 0, -1):
    print(f"    p = fma(p, u, {pick([rnd(m[j]) for _, _, m in fits])});")
hi = [rnd(m[0]) for _, _, m in fits]
lo = [rnd(m[0] - mp.mpf(float(h))) for (_, _, m), h in zip(fits, hi)]
print(f"    return {pick(hi)} + fma(p, u, {pick(lo)});")
print("}")
