# The polynomial of atan2_pos32_ (shaders/shared/f32_inverse_trig.wgsl): python3 atan_fit.py 8
# atan(r) = r + r s Q(s) for r in [0, 1], s = r^2, Q a Chebyshev interpolant of degree n in
# s (mapped to [-1, 1]) turned into monomials in s. Prints the WGSL and the largest error of
# an f32 evaluation (fma emulated in f64) over a dense sweep, in ulps of the result.
import mpmath as mp, sys, numpy as np
mp.mp.dps = 40
def q(s):
    if s == 0: return mp.mpf(-1) / 3
    r = mp.sqrt(s)
    return (mp.atan(r) / r - 1) / s
deg = int(sys.argv[1]); n = deg + 1
nodes = [mp.cos(mp.pi * (k + 0.5) / n) for k in range(n)]
vals = [q((1 + t) / 2) for t in nodes]
c = [sum(vals[k] * mp.cos(mp.pi * j * (k + 0.5) / n) for k in range(n)) * 2 / n for j in range(n)]
c[0] /= 2
# Chebyshev in t = 2s - 1 to monomials in s.
T = [[mp.mpf(1)], [mp.mpf(-1), mp.mpf(2)]]
for j in range(2, n):
    t = [mp.mpf(0)] * (j + 1)
    for i, v in enumerate(T[j - 1]):
        t[i + 1] += 4 * v; t[i] -= 2 * v
    for i, v in enumerate(T[j - 2]): t[i] -= v
    T.append(t)
m = [mp.mpf(0)] * n
for j in range(n):
    for i, v in enumerate(T[j]): m[i] += c[j] * v
f32 = lambda v: float(np.float32(float(v)))
co = [f32(v) for v in m]
def fma(a, b, c): return f32(a * b + c)
worst = (0, 0)
for i in range(1, 100001):
    r = f32(i / 100000 * (1 - 3e-8 * (i % 5)))
    s = f32(r * r)
    p = co[deg]
    for j in range(deg - 1, -1, -1): p = fma(p, s, co[j])
    got = fma(f32(r * s), p, r)
    want = mp.atan(r)
    e = float(abs(got - want) / float(np.spacing(np.float32(want))))
    if e > worst[0]: worst = (e, r)
print(f"// measured in f32 emulation: {worst[0]:.3f} ulps at r = {worst[1]}", file=sys.stderr)
print(f"    // Q of degree {deg} (python3 tests/numerics/golden/atan_fit.py {deg}).")
print(f"    var p = TW({co[deg]!r});")
for j in range(deg - 1, -1, -1): print(f"    p = fma(p, s, TW({co[j]!r}));")
