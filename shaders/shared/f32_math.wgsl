// f32 math for the elementwise family (f32, and f16 widened to f32 and rounded once), on
// TW (f32 or vec4<f32>), M (u32 or vec4<u32>) and TB (bool or vec4<bool>).
//
// Vulkan lets exp, log, pow, sin, division and sqrt be approximate (NVIDIA maps them to
// approximate hardware instructions), so these functions use only what every adapter
// computes exactly: +, -, *, comparisons, floor/round, conversions and bit casts. Exact
// products come from fma where the adapter fuses it (checked in the shader) and otherwise
// from splitting factors into 12-bit halves by masking, range reductions are exact
// (Cody-Waite for sin/cos/tan below 98304, an integer Payne-Hanek above), and every
// decision about an input is read from its bits, so adapters that flush subnormals in
// arithmetic still see them. A built-in approximation is used
// only as the start of a Newton step, or where its error is scaled down far below an ulp.
// The bounds measured over tests/numerics are in the rustdoc of each Array method.

// A value hi + lo with |lo| <= ulp(hi) / 2: a double-f32.
struct DD { h: TW, l: TW }

// v itself, in a form the shader compiler cannot see through. Compilers rewrite float
// algebra (Mesa's NIR folds (a + b) - a to b and m * (1 / m) to 1 unless an instruction is
// marked exact, which WGSL cannot ask for), and that would cancel the error terms below.
// P.aux.x is 0 in every elementwise dispatch (shaders/elementwise.wgsl), unknown to the
// compiler: or-ing it into the bits keeps v and hides where it came from.
fn opaque_(v: TW) -> TW { return bitcast<TW>(bitcast<M>(v) | M(P.aux.x)); }

const F32_LN2_HI: f32 = 0.693145751953125; // 15 bits: k * F32_LN2_HI is exact for |k| < 2^9
const F32_LN2_LO: f32 = 1.428606765330187e-06;
const F32_LN2: f32 = 0.6931471824645996;
const F32_LOG2E: f32 = 1.4426950216293335;
const F32_LOG2E_LO: f32 = 1.925963033500011e-08;
const F32_SIGN: u32 = 0x80000000u;

fn f32_nan_() -> TW { return bitcast<TW>(M(0x7fc00000u)); }
fn f32_inf_() -> TW { return bitcast<TW>(M(0x7f800000u)); }
fn abits_(x: TW) -> M { return bitcast<M>(x) & M(0x7fffffffu); }
fn is_nan_(x: TW) -> TB { return abits_(x) > M(0x7f800000u); }
fn is_inf_(x: TW) -> TB { return abits_(x) == M(0x7f800000u); }
fn is_zero_(x: TW) -> TB { return abits_(x) == M(0u); }
// Whether x is ±0 or subnormal, from its bits: where f(x) rounds to x for these (sin, tan,
// tanh, expm1, log1p), x is returned as it is, also on adapters that flush subnormals.
fn tiny_(x: TW) -> TB { return abits_(x) < M(0x00800000u); }
// x > 0 and x < 0 from the bits (a flushing adapter compares a subnormal as a zero).
fn positive_(x: TW) -> TB { return bitcast<M>(x) - M(1u) < M(0x7f800000u); }
fn negative_(x: TW) -> TB {
    return (bitcast<M>(x) > M(F32_SIGN)) & (bitcast<M>(x) <= M(0xff800000u));
}
fn sign_bit_(x: TW) -> TB { return (bitcast<M>(x) & M(F32_SIGN)) != M(0u); }
// |mag| with the sign of s.
fn copysign_(mag: TW, s: TW) -> TW {
    return bitcast<TW>(abits_(mag) | (bitcast<M>(s) & M(F32_SIGN)));
}

// NumPy's sign from the bits: ±1 for every non-zero x (subnormals too, where a flushing
// adapter's sign() says 0), +0 for ±0, NaN for NaN.
fn sign_bits_(x: TW) -> TW {
    return select(select(copysign_(TW(1.0), x), TW(0.0), is_zero_(x)), x, is_nan_(x));
}

// 2^k for integral k in [-126, 127], from its bits: k + 2^23 + 127 is exact and holds k + 127
// in its low bits (cheaper than a float-to-integer conversion, which is slow on NVIDIA).
fn exp2i_(k: TW) -> TW { return bitcast<TW>(bitcast<M>(k + TW(8388735.0)) << M(23u)); }
// The integer n < 2^23 as a float, exactly: the bits of 2^23 + n, minus 2^23.
fn u23_to_f_(n: M) -> TW { return bitcast<TW>(n | M(0x4b000000u)) - TW(8388608.0); }

// x * 2^k for integral k in [-160, 160] with one rounding (x * 2^k1 stays normal for x near
// 1, so only the second product rounds, into the subnormals or to infinity if it must).
fn ldexp_(x: TW, k: TW) -> TW {
    let k1 = floor(k * TW(0.5));
    return x * exp2i_(k1) * exp2i_(k - k1);
}

// x = m * 2^e with m in [1, 2), for finite non-zero x. A subnormal is read from its bits:
// its significand, an integer, converts exactly to a normal f32.
struct Unpacked { m: TW, e: TW }
fn unpack_(x: TW) -> Unpacked {
    let b = abits_(x);
    let sub = b < M(0x00800000u);
    let n = select(b, bitcast<M>(u23_to_f_(b)), sub);
    let e = u23_to_f_(n >> M(23u)) - select(TW(127.0), TW(276.0), sub);
    return Unpacked(bitcast<TW>((n & M(0x007fffffu)) | M(0x3f800000u)), e);
}

// The error-free transformations: a + b = s.h + s.l exactly (two_sum_; fast_two_sum_ when
// |a| >= |b|), a * b = p.h + p.l exactly (two_prod_, Dekker's product with factors split by
// masking into 12-bit halves, whose products are exact whether or not they are fused).
fn two_sum_(a: TW, b: TW) -> DD {
    let s = opaque_(a + b);
    let bb = s - a;
    return DD(s, (a - (s - bb)) + (b - bb));
}
fn fast_two_sum_(a: TW, b: TW) -> DD {
    let s = opaque_(a + b);
    return DD(s, b - (s - a));
}
fn hi12_(a: TW) -> TW { return bitcast<TW>(bitcast<M>(a) & M(0xfffff000u)); }
// Whether this adapter's fma is fused (NVIDIA's is; Vulkan lets it be a product and a sum):
// for a = 1 + 2^-12, a * a - round(a * a) is 2^-24 when fused, 0 when not. Uniform over
// the dispatch, so two_prod_'s branch on it costs next to nothing.
fn fma_fused_() -> bool {
    let a = bitcast<f32>(0x3f800800u | P.aux.x);
    return fma(a, a, -opaque1_(a * a)) != 0.0;
}
fn opaque1_(v: f32) -> f32 { return bitcast<f32>(bitcast<u32>(v) | P.aux.x); }
fn two_prod_(a: TW, b: TW) -> DD {
    let p = opaque_(a * b);
    if (fma_fused_()) {
        return DD(p, fma(a, b, -p));
    }
    let ah = hi12_(a);
    let al = a - ah;
    let bh = hi12_(b);
    let bl = b - bh;
    return DD(p, (((ah * bh - p) + ah * bl) + al * bh) + al * bl);
}
fn dd_mul_(a: DD, b: DD) -> DD {
    let p = two_prod_(a.h, b.h);
    return fast_two_sum_(p.h, p.l + (a.h * b.l + a.l * b.h));
}
fn dd_add_(a: DD, b: DD) -> DD {
    let s = two_sum_(a.h, b.h);
    return fast_two_sum_(s.h, s.l + (a.l + b.l));
}

// x / y within 1 ulp (measured 0.5 + a rounding in the subnormals), IEEE special values.
// Both operands are unpacked into [1, 2) (so the built-in reciprocal, the start of a Newton
// step, never meets the extreme divisors where Vulkan leaves it undefined), the quotient is
// corrected with its exact residual and scaled back with one rounding. r1 and q0 are opaque:
// with them visible, lavapipe's compiler rearranged the residual (1.49 ulps measured).
fn div_(x: TW, y: TW) -> TW {
    let ux = unpack_(x);
    let uy = unpack_(y);
    let r0 = opaque_(TW(1.0) / uy.m);
    let e0 = two_prod_(uy.m, r0);
    let r1 = opaque_(r0 + r0 * ((TW(1.0) - e0.h) - e0.l));
    let q0 = opaque_(ux.m * r1);
    let p = two_prod_(q0, uy.m);
    let q = q0 + ((ux.m - p.h) - p.l) * r1;
    var mag = ldexp_(q, clamp(ux.e - uy.e, TW(-160.0), TW(160.0)));
    mag = select(mag, TW(0.0), is_zero_(x) | is_inf_(y));
    mag = select(mag, f32_inf_(), is_zero_(y) | is_inf_(x));
    let nan = is_nan_(x) | is_nan_(y) | (is_zero_(x) & is_zero_(y)) | (is_inf_(x) & is_inf_(y));
    let signed = bitcast<TW>(bitcast<M>(mag) | ((bitcast<M>(x) ^ bitcast<M>(y)) & M(F32_SIGN)));
    return select(signed, f32_nan_(), nan);
}

// x / y correctly rounded (to nearest, ties to even) where the quotient is normal, as IEEE
// division and so NumPy's floor_divide (div_ is within an ulp, which moved floor_divide's
// quotient by one step: 9.223372e18 // 2147483520 gave 4294967296, NumPy 4294967808). div_'s
// quotient q of the significands (in [0.5, 2)), then its exact residual r = mx - q my (exact:
// q is within an ulp), compared with the residual of the midpoint to each neighbour,
// (u / 2) my for the ulp u of q above and below it: comparisons of exact values, so the
// neighbour is taken exactly where the true quotient lies past the midpoint, and at a tie
// where q is odd. Special values and subnormal quotients (rounded once more) as div_.
fn div_rn_(x: TW, y: TW) -> TW {
    let ux = unpack_(x);
    let uy = unpack_(y);
    let r0 = opaque_(TW(1.0) / uy.m);
    let e0 = two_prod_(uy.m, r0);
    let r1 = opaque_(r0 + r0 * ((TW(1.0) - e0.h) - e0.l));
    let q0 = opaque_(ux.m * r1);
    let p0 = two_prod_(q0, uy.m);
    let q = opaque_(q0 + ((ux.m - p0.h) - p0.l) * r1);
    let p = two_prod_(q, uy.m);
    let r = (ux.m - p.h) - p.l;
    // The ulp of q above it, and below it (half that at a power of two).
    let up = bitcast<TW>(bitcast<M>(q) & M(0x7f800000u)) * TW(1.1920928955078125e-07);
    let pow2 = (bitcast<M>(q) & M(0x007fffffu)) == M(0u);
    let down = select(up, up * TW(0.5), pow2);
    let odd = (bitcast<M>(q) & M(1u)) != M(0u);
    let half_up = up * TW(0.5) * uy.m;
    let half_down = down * TW(0.5) * uy.m;
    var m = select(q, q + up, (r > half_up) | ((r == half_up) & odd));
    m = select(m, q - down, (-r > half_down) | ((-r == half_down) & odd));
    var mag = ldexp_(m, clamp(ux.e - uy.e, TW(-160.0), TW(160.0)));
    mag = select(mag, TW(0.0), is_zero_(x) | is_inf_(y));
    mag = select(mag, f32_inf_(), is_zero_(y) | is_inf_(x));
    let nan = is_nan_(x) | is_nan_(y) | (is_zero_(x) & is_zero_(y)) | (is_inf_(x) & is_inf_(y));
    let signed = bitcast<TW>(bitcast<M>(mag) | ((bitcast<M>(x) ^ bitcast<M>(y)) & M(F32_SIGN)));
    return select(signed, f32_nan_(), nan);
}

// n / d for 2^-100 < |d| < 2^100 and a quotient above 2^-100 in magnitude or d a power of 2
// (the callers guarantee it; the exact residual's split product then loses no bits to
// adapters that flush subnormals): the built-in reciprocal, the quotient corrected once with
// its exact residual (within 0.5 ulp and a rounding), without div_'s unpacking.
fn div_normal_(n: TW, d: TW) -> TW {
    let r0 = opaque_(TW(1.0) / d);
    let q0 = opaque_(n * r0);
    let p = two_prod_(q0, d);
    return q0 + ((n - p.h) - p.l) * r0;
}

// sqrt(x) within 1 ulp: the built-in root of the significand corrected by a Newton step with
// its exact residual. sqrt(-0) = -0, negative x (subnormals too) NaN.
fn sqrt_(x: TW) -> TW {
    let u = unpack_(x);
    let odd = u.e - TW(2.0) * floor(u.e * TW(0.5));
    let m = u.m * (TW(1.0) + odd);
    let y0 = opaque_(sqrt(m));
    let p = two_prod_(y0, y0);
    let y = y0 + ((m - p.h) - p.l) * (TW(0.5) / y0);
    var r = y * exp2i_((u.e - odd) * TW(0.5));
    r = select(r, x, is_zero_(x) | (bitcast<M>(x) == M(0x7f800000u)));
    return select(r, f32_nan_(), is_nan_(x) | (sign_bit_(x) & !is_zero_(x)));
}

// e^r - 1 for |r| <= 0.35 (Taylor to degree 8: the remainder is below 0.01 ulp).
fn em1_poly_(r: TW) -> TW {
    let p = TW(1.0 / 2.0) + r * (TW(1.0 / 6.0) + r * (TW(1.0 / 24.0) + r * (TW(1.0 / 120.0)
        + r * (TW(1.0 / 720.0) + r * (TW(1.0 / 5040.0) + r * TW(1.0 / 40320.0))))));
    return r + (r * r) * p;
}

// e^x = 2^k e^r with r = x - k ln2 reduced exactly (Cody-Waite).
fn exp_(x: TW) -> TW {
    let xc = clamp(x, TW(-104.0), TW(89.0));
    let k = round(xc * TW(F32_LOG2E));
    let r = (xc - k * TW(F32_LN2_HI)) - k * TW(F32_LN2_LO);
    return select(ldexp_(TW(1.0) + em1_poly_(r), k), x, is_nan_(x));
}

fn exp2_(x: TW) -> TW {
    let xc = clamp(x, TW(-152.0), TW(129.0));
    let k = round(xc);
    let v = ldexp_(TW(1.0) + em1_poly_((xc - k) * TW(F32_LN2)), k);
    return select(v, x, is_nan_(x));
}

// e^x - 1: 2^k (1 + p) - 1 with p = e^r - 1, the -1 taken before the scaling; exact for x
// small (k = 0, r = x). Past x = 44 (k > 64) it is e^x.
fn expm1_(x: TW) -> TW {
    let xc = clamp(x, TW(-30.0), TW(89.0));
    let k = round(xc * TW(F32_LOG2E));
    let p = em1_poly_((xc - k * TW(F32_LN2_HI)) - k * TW(F32_LN2_LO));
    let kh = max(k - TW(64.0), TW(0.0));
    let t = exp2i_(k - kh);
    let v = (t * p + (t - TW(1.0))) * exp2i_(kh);
    return select(v, x, is_nan_(x) | tiny_(x));
}

// x = 2^e (1 + f) with f in [sqrt(1/2) - 1, sqrt(2) - 1), f exact.
struct LogParts { e: TW, f: TW }
fn log_parts_(x: TW) -> LogParts {
    let u = unpack_(x);
    let big = u.m > TW(1.4142135381698608);
    return LogParts(u.e + select(TW(0.0), TW(1.0), big), select(u.m, u.m * TW(0.5), big) - TW(1.0));
}

// log(1 + f) - f for f from log_parts_: with s = f / (2 + f), log(1 + f) = 2 atanh(s) =
// f - f^2/2 + s (f^2/2 + R(s^2)). The built-in division only enters the small correction.
fn log1p_corr_(f: TW) -> TW {
    let s = f / (TW(2.0) + f);
    let z = s * s;
    let r = z * (TW(2.0 / 3.0) + z * (TW(2.0 / 5.0) + z * (TW(2.0 / 7.0) + z * (TW(2.0 / 9.0)
        + z * TW(2.0 / 11.0)))));
    let hfsq = TW(0.5) * f * f;
    return s * (hfsq + r) - hfsq;
}

// The special values of a logarithm of x (+0 and -0 give -inf, negative x NaN, +inf +inf).
fn log_special_(x: TW, v: TW) -> TW {
    let b = bitcast<M>(x);
    var r = select(v, -f32_inf_(), is_zero_(x));
    r = select(r, x, (b >= M(0x7f800000u)) & (b < M(F32_SIGN)));
    return select(r, f32_nan_(), b > M(F32_SIGN));
}

fn log_(x: TW) -> TW {
    let p = log_parts_(x);
    let c = log1p_corr_(p.f) + p.e * TW(F32_LN2_LO);
    return log_special_(x, p.e * TW(F32_LN2_HI) + (p.f + c));
}

fn log2_(x: TW) -> TW {
    let p = log_parts_(x);
    let c = log1p_corr_(p.f);
    let t = two_prod_(p.f, TW(F32_LOG2E));
    let v = p.e + (t.h + (t.l + (p.f * TW(F32_LOG2E_LO) + c * TW(F32_LOG2E))));
    return log_special_(x, v);
}

// log(1 + x): the logarithm of u = 1 + x plus the rounding error of that sum over u.
fn log1p_(x: TW) -> TW {
    let u = two_sum_(TW(1.0), x);
    let p = log_parts_(u.h);
    let c = log1p_corr_(p.f) + (u.l / u.h + p.e * TW(F32_LN2_LO));
    let r = log_special_(u.h, p.e * TW(F32_LN2_HI) + (p.f + c));
    return select(r, x, tiny_(x));
}

// tanh(x) = t / (t + 2) with t = e^(2|x|) - 1, the sign of x (t + 2 is in [2, 2^59]). Below
// 2^-12, tanh(x) rounds to x (x^3/3 is under half an ulp) and is x: that also keeps the
// quotient of div_normal_ away from where its split product loses bits to flushing.
fn tanh_(x: TW) -> TW {
    let t = expm1_(TW(2.0) * min(abs(x), TW(20.0)));
    let small = abits_(x) < M(0x39800000u);
    return select(copysign_(div_normal_(t, t + TW(2.0)), x), x, is_nan_(x) | small);
}

// 1 / (1 + e^-x), as e^x / (1 + e^x) for negative x (no overflow, subnormal results kept).
fn sigmoid_(x: TW) -> TW {
    let e = exp_(-abs(x));
    return div_normal_(select(TW(1.0), e, negative_(x)), TW(1.0) + e);
}

// pow's double-f32 helpers: a product left unnormalised (its low part within a few ulps of
// its high part's, which the next product's cross terms take as they are) and a sum whose
// first high part is the larger or 0 (fast_two_sum_ exact for it).
fn dd_mul_raw_(a: DD, b: DD) -> DD {
    let p = two_prod_(a.h, b.h);
    return DD(p.h, p.l + (a.h * b.l + a.l * b.h));
}
fn dd_add_fast_(a: DD, b: DD) -> DD {
    let s = fast_two_sum_(a.h, b.h);
    return fast_two_sum_(s.h, s.l + (a.l + b.l));
}

// log2(x) as a double-f32, relative error near 2^-40, for finite x > 0: pow's exponent.
// Every sum has its larger term first (2 > |f|, 2/3 > |w|, |2 s| > |t|, and |e| >= 1 >
// |log2(m)| where e != 0), so the fast sums are exact; the inner products stay unnormalised.
fn log2_dd_(x: TW) -> DD {
    let p = log_parts_(x);
    let d = fast_two_sum_(TW(2.0), p.f);
    let inv = TW(1.0) / d.h;
    let sh = opaque_(p.f * inv);
    let q = two_prod_(sh, d.h);
    let s = DD(sh, (((p.f - q.h) - q.l) - sh * d.l) * inv);
    let s2 = dd_mul_raw_(s, s);
    let z = s2.h;
    let w = z * (TW(2.0 / 5.0) + z * (TW(2.0 / 7.0) + z * (TW(2.0 / 9.0) + z * (TW(2.0 / 11.0)
        + z * TW(2.0 / 13.0)))));
    let c = fast_two_sum_(TW(0.6666666865348816), w);
    let t = dd_mul_raw_(dd_mul_raw_(s2, s), DD(c.h, c.l - TW(1.9868215517249155e-08)));
    let ln = dd_add_fast_(DD(TW(2.0) * s.h, TW(2.0) * s.l), t);
    return dd_add_fast_(DD(p.e, TW(0.0)), dd_mul_(ln, DD(TW(F32_LOG2E), TW(F32_LOG2E_LO))));
}

// Whether y is an integer (±inf included) and whether an odd one, from its bits: with
// exponent e (biased), the bits of the significand below the binary point are its lowest
// 150 - e; an odd integer has e in [127, 150] and its units bit set. (floor(y) == y would
// call a subnormal y an integer on an adapter that flushes it.)
struct Integrality { integral: TB, odd: TB }
fn integrality_(y: TW) -> Integrality {
    let b = abits_(y);
    let e = b >> M(23u);
    let sh = M(150u) - clamp(e, M(126u), M(150u));
    let m = (b & M(0x007fffffu)) | M(0x00800000u);
    let integral = ((e >= M(127u)) & ((m & ((M(1u) << sh) - M(1u))) == M(0u))) | (b == M(0u));
    return Integrality(integral, integral & (e <= M(150u)) & (((m >> sh) & M(1u)) == M(1u)));
}

// x^y as C99 and NumPy: 2^(y log2|x|) with the product in double-f32, the sign of x for odd
// integral y; pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, ±inf) = 1, pow(x, 1) = x,
// negative finite x with finite non-integral y NaN, zeros and infinities by C99's table
// (pow_special_, only where some lane needs it: x not positive and finite, y zero, not
// finite, or 1, x = 1). Every decision reads x and y from their bits, so that an adapter
// which flushes subnormals in arithmetic still sees a subnormal x or y as the non-zero,
// non-integral number it is. 2^k scales with one product where it is normal (k in [-126,
// 127]: exact, or one rounding into the subnormals or to infinity), ldexp_'s two only where
// some lane needs them.
fn pow_(x: TW, y: TW) -> TW {
    let ax = bitcast<TW>(abits_(x));
    let l = log2_dd_(ax);
    let t = two_prod_(y, l.h);
    let over = !(abs(t.h) < TW(200.0));
    let th = clamp(t.h, TW(-200.0), TW(200.0));
    let k = round(th);
    let r = (th - k) + select(t.l + y * l.l, TW(0.0), over);
    let m = TW(1.0) + em1_poly_(r * TW(F32_LN2));
    var mag = m * exp2i_(clamp(k, TW(-126.0), TW(127.0)));
    let far = (k < TW(-126.0)) | (k > TW(127.0));
    if (any(far)) {
        mag = select(mag, ldexp_(m, k), far);
    }
    let plain = ((bitcast<M>(x) - M(1u)) < M(0x7f7fffffu)) & ((abits_(y) - M(1u)) < M(0x7f7fffffu))
        & (y != TW(1.0)) & (x != TW(1.0));
    if (any(!plain)) {
        mag = select(pow_special_(x, y, mag), mag, plain);
    }
    return mag;
}

// pow's special values, given mag = 2^(y log2|x|) as computed for finite non-zero x.
fn pow_special_(x: TW, y: TW, mag0: TW) -> TW {
    let ax = bitcast<TW>(abits_(x));
    var mag = mag0;
    let ix = is_inf_(x);
    let iy = is_inf_(y);
    let yneg = sign_bit_(y);
    mag = select(mag, select(TW(0.0), f32_inf_(), yneg), is_zero_(x));
    mag = select(mag, select(f32_inf_(), TW(0.0), yneg), ix);
    mag = select(mag, select(TW(0.0), f32_inf_(), (ax > TW(1.0)) != yneg), iy);
    let yi = integrality_(y);
    let neg = sign_bit_(x);
    var v = select(mag, -mag, neg & yi.odd);
    let bad = neg & !is_zero_(x) & !ix & !yi.integral;
    v = select(v, f32_nan_(), bad | is_nan_(x) | is_nan_(y));
    v = select(v, x, y == TW(1.0));
    return select(v, TW(1.0), is_zero_(y) | (x == TW(1.0)) | ((x == TW(-1.0)) & iy));
}
