//! The integer transforms of shaders/shared/rng_exact.wgsl on the CPU, step for step: the
//! reference that the GPU's normals and exponentials must equal bit for bit. Every product
//! is a 32 x 32 -> 64-bit multiply, every value an unsigned fixed-point number (Qk: k bits
//! after the point) or a (mantissa, exponent) pair; the floats are built from their bits.

/// ln(1 - t) / -t around t = 1/4, in Q30, lowest degree first (see the WGSL file).
const LOG_Q: [u32; 11] = [
    1235585093, 784282719, 680617981, 671073359, 709212805, 783714829, 891405361, 1005705560,
    1187153565, 1906913988, 2315019525,
];
/// sin(pi g / 2) / g and cos(pi g / 2) as polynomials in x = g^2, in Q31, signs alternating
/// (the magnitudes, lowest degree first).
const SIN_Q: [u32; 5] = [3373259426, 1387197334, 171138516, 10052930, 339721];
const COS_Q: [u32; 6] = [2147483648, 2649351758, 544751119, 44803956, 1973885, 53367];
/// 1 / sqrt(m) on [1/2, 1) to about 2^-8, a - m (b - m c) in Q30 (16-bit products).
const RSQRT_Q: [u32; 3] = [2388083616, 2189186838, 877755388];
/// ln 2 in Q58, as (high, low) words.
const LN2_Q58: (u32, u32) = (0x02c5_c85f, 0xdf47_3de7);
/// sqrt(2) in Q31.
const SQRT2_Q31: u32 = 0xb504_f334;

fn mulhi(a: u32, b: u32) -> u32 {
    ((a as u64 * b as u64) >> 32) as u32
}

/// The high word of a b from their top 16 bits (rx_mul16).
fn mul16(a: u32, b: u32) -> u32 {
    (a >> 16) * (b >> 16)
}

/// The high word of x acc from x's top 16 bits (x <= 2^30) and acc >> s (rx_mul_small).
fn mul_small(x: u32, acc: u32, s: u32) -> u32 {
    ((x >> 14) * (acc >> s)) >> (18 - s)
}

/// -ln(u) for u = (a + 1) 2^-32 (a = 2^32 - 1 gives u = 1): `None` for 0, else (m, e) with
/// m in [2^31, 2^32) and -ln(u) = m 2^(e - 32) within 2^-28 relative.
pub fn neg_log(a: u32) -> Option<(u32, i32)> {
    let x = a.wrapping_add(1);
    if x == 0 {
        return None;
    }
    let lz = x.leading_zeros();
    // u = (1 - t) 2^-lz with t in (0, 1/2], Q32.
    let t = (x << lz).wrapping_neg();
    // Horner around 1/4: s = t - 1/4 (signed, |s| <= 1/4), acc stays positive.
    let s = t.wrapping_sub(1 << 30);
    let neg = if (s as i32) < 0 { u32::MAX } else { 0 };
    let mut q = LOG_Q[10];
    for (i, &c) in LOG_Q[..10].iter().rev().enumerate() {
        // The first two steps' errors shrink by s^8 (2^-16) afterwards: 16-bit products.
        let p = if i < 2 { mul16(q, s) } else { mulhi(q, s) };
        q = c.wrapping_add(p.wrapping_sub(q & neg));
    }
    // t q in Q62; plus lz ln 2 in Q58 (Q62 kept when lz = 0, where -ln u is t q alone).
    let p = t as u64 * q as u64;
    let (l, frac) = if lz == 0 {
        (p, 62)
    } else {
        let ln2 = ((LN2_Q58.0 as u64) << 32) | LN2_Q58.1 as u64;
        ((p >> 4) + lz as u64 * ln2, 58)
    };
    let sh = l.leading_zeros();
    let m = ((l << sh) >> 32) as u32;
    Some((m, 64 - sh as i32 - frac))
}

/// sqrt(2 L) for L = m 2^(e - 32), m in [2^31, 2^32): (r, re) with r in Q31 and sqrt(2 L) =
/// r 2^(re - 31): sqrt(A), A = M or M / 2 (k = e + 1 odd), by a Newton step on y ~ 1 / sqrt(A)
/// and one step r + y (A - r^2) / 2 on r = A y.
fn sqrt2(m: u32, e: i32) -> (u32, i32) {
    let k = e + 1;
    let odd = k & 1 != 0;
    let mut y = RSQRT_Q[0].wrapping_sub(mul16(m, RSQRT_Q[1].wrapping_sub(mul16(m, RSQRT_Q[2]))));
    if odd {
        y = mul16(y, SQRT2_Q31) << 1;
    }
    let a = if odd { m >> 1 } else { m };
    y = mulhi(y, (3u32 << 28).wrapping_sub(mulhi(a, mulhi(y, y)))) << 3;
    let r0 = mulhi(a, y) << 1;
    let d = a.wrapping_sub(mulhi(r0, r0) << 2);
    let neg = if (d as i32) < 0 { y } else { 0 };
    let r = r0.wrapping_add(mulhi(y, d)).wrapping_sub(neg);
    (r, (k + 1) >> 1)
}

/// (|cos|, |sin|) of 2 pi b 2^-32 in Q31 times 2^(their exponent), and their signs (true
/// = negative).
fn cos_sin(b: u32) -> ((u32, i32, bool), (u32, i32, bool)) {
    let quadrant = b >> 30;
    let f = b << 2;
    let swap = f > 1 << 31;
    let g = if swap { f.wrapping_neg() } else { f };
    let x = mulhi(g, g);
    // Horner in x; the first two steps (small accumulators) take 16-bit products, acc >> s[i].
    let nest = |c: &[u32], s: [u32; 2]| {
        let mut acc = c[c.len() - 1];
        for (i, &ck) in c[..c.len() - 1].iter().rev().enumerate() {
            let p = if i < 2 {
                mul_small(x, acc, s[i])
            } else {
                mulhi(x, acc)
            };
            acc = ck.wrapping_sub(p);
        }
        acc
    };
    // The sine of the folded angle scaled by 2^lz, keeping its relative precision.
    let lz = g.leading_zeros() & 31;
    let s = (mulhi(g << lz, nest(&SIN_Q, [3, 8])), -(lz as i32));
    let c = (nest(&COS_Q, [0, 5]), 0);
    let (c, s) = if swap { (s, c) } else { (c, s) };
    let (cm, sm) = if quadrant & 1 == 1 { (s, c) } else { (c, s) };
    (
        (cm.0, cm.1, quadrant == 1 || quadrant == 2),
        (sm.0, sm.1, quadrant >= 2),
    )
}

/// The f32 nearest (ties to even) to m 2^e, m > 0, negated when `neg`; +0 for m = 0.
pub fn f32_bits(m: u32, e: i32, neg: bool) -> u32 {
    if m == 0 {
        return 0;
    }
    let s = m.leading_zeros();
    let n = m << s;
    let keep = n >> 8;
    let up = ((n & 0xff) + (keep & 1) + 0x7f) >> 8;
    let biased = (127 + 31 + e - s as i32) as u32;
    (((biased - 1) << 23) + keep + up) | ((neg as u32) << 31)
}

/// Two standard normals from words a and b (Box-Muller: r = sqrt(-2 ln u), u = (a + 1)
/// 2^-32, angle 2 pi b 2^-32): r cos, r sin, as f32.
pub fn normal_pair(a: u32, b: u32) -> [f32; 2] {
    let Some((m, e)) = neg_log(a) else {
        return [0.0, 0.0];
    };
    let (r, re) = sqrt2(m, e);
    let (c, s) = cos_sin(b);
    let z = |(v, e, neg): (u32, i32, bool)| f32::from_bits(f32_bits(mulhi(r, v), re - 30 + e, neg));
    [z(c), z(s)]
}

/// The ziggurat's tables, the library's own file.
#[path = "../../src/ops/random/ziggurat/mod.rs"]
pub mod ziggurat;

/// Which paths of the ziggurat an element took.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZigPath {
    /// It missed the fast path.
    pub slow: bool,
    /// It drew from the tail beyond r at least once.
    pub tail: bool,
    /// It tested a wedge at least once.
    pub wedge: bool,
}

/// The argument a of `neg_log` for u = floor(y 2^32) 2^-32 (shared/ziggurat.wgsl's
/// `zig_q32`; y >= 1 is u = 1).
fn zig_q32(y: f32) -> u32 {
    if y >= 1.0 {
        return u32::MAX;
    }
    let b = y.to_bits();
    let m = (b & 0x7f_ffff) | 0x80_0000;
    let sh = (b >> 23) as i32 - 118;
    let q = if sh >= 0 { m << sh } else { m >> (-sh).min(31) };
    q - 1
}

/// The ziggurat's standard normal of word w, element e of block `counter` under `key`
/// (shared/ziggurat.wgsl's `zig_normal`, step for step), and the paths it took.
pub fn zig_normal(w: u32, key: u64, counter: u64, e: u32) -> (f32, ZigPath) {
    use ziggurat::{DF, F, J_BITS, K, LAYERS, W};
    let layer = |w: u32| (w as usize) & (LAYERS - 1);
    let sh = 32 - J_BITS;
    let signed = |z: f32, w: u32| if w & LAYERS as u32 != 0 { -z } else { z };
    let mut path = ZigPath::default();
    let (i, j) = (layer(w), w >> sh);
    if j < K[i] {
        return (signed(j as f32 * W[i], w), path);
    }
    path.slow = true;
    let (mut w, mut z) = (w, 0.0f32);
    for t in 0..16 {
        let ctr = [counter as u32, (counter >> 32) as u32, t, 1 + e];
        let b = super::philox::philox(ctr, [key as u32, (key >> 32) as u32]);
        let i = layer(w);
        if i == 0 {
            path.tail = true;
            let x = exponential(b[0]) * DF[0];
            z = F[0] + x;
            let y = exponential(b[1]);
            if y + y > x * x {
                break;
            }
        } else {
            path.wedge = true;
            z = (w >> sh) as f32 * W[i];
            let u = (b[0] >> 8) as f32 * 2f32.powi(-24);
            let y = F[i] + u * DF[i];
            if exponential(zig_q32(y)) > z * z * 0.5 {
                break;
            }
            w = b[2];
            let n = layer(w);
            z = (w >> sh) as f32 * W[n];
            if (w >> sh) < K[n] {
                break;
            }
        }
    }
    (signed(z, w), path)
}

/// -ln(u) for u = (a + 1) 2^-32, as f32.
pub fn exponential(a: u32) -> f32 {
    match neg_log(a) {
        Some((m, e)) => f32::from_bits(f32_bits(m, e - 32, false)),
        None => 0.0,
    }
}

/// f32 bits to f16 bits, ties to even (subnormals and infinity included; no NaN here).
pub fn f16_bits(b: u32) -> u16 {
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32;
    if exp == 0 {
        return sign as u16;
    }
    let mant = (b & 0x7f_ffff) | 0x80_0000;
    let e16 = exp - 127 + 15;
    let sh = (13 + (1 - e16).max(0)).min(31) as u32;
    let keep = mant >> sh;
    let rem = mant & ((1 << sh) - 1);
    let half = 1 << (sh - 1);
    let up = u32::from(rem > half || (rem == half && keep & 1 == 1));
    let v = if e16 >= 1 {
        (((e16 - 1) as u32) << 10) + keep + up
    } else {
        keep + up
    };
    (sign | v.min(0x7c00)) as u16
}

/// The inversion thresholds of poisson and binomial (src/ops/random/distributions.rs): the
/// probabilities relative to the mode's by their ratio recurrences while at least 2^-48,
/// normalised, cumulated and rounded to Q32. Returns k0 (the value of words below the first
/// threshold) and the thresholds (0s moved into k0, 2^32s dropped).
pub fn inversion_thresholds(
    mode: u32,
    kmax: u32,
    up: impl Fn(f64) -> f64,
    down: impl Fn(f64) -> f64,
) -> (u32, Vec<u32>) {
    let tail = 2f64.powi(-48);
    let mut pmf = std::collections::VecDeque::from([1.0f64]);
    let mut p = 1.0;
    for k in (1..=mode).rev() {
        p *= down(k as f64);
        if p < tail {
            break;
        }
        pmf.push_front(p);
    }
    let mut k0 = mode + 1 - pmf.len() as u32;
    p = 1.0;
    for k in mode..kmax {
        p *= up(k as f64);
        if p < tail {
            break;
        }
        pmf.push_back(p);
    }
    let total: f64 = pmf.iter().sum();
    let scale = 2f64.powi(32) / total;
    let mut thresholds = Vec::new();
    let mut cum = 0.0;
    for &p in pmf.iter().take(pmf.len() - 1) {
        cum += p;
        match (cum * scale).round() {
            t if t >= 2f64.powi(32) => break,
            t if t <= 0.0 => k0 += 1,
            t => thresholds.push(t as u32),
        }
    }
    (k0, thresholds)
}

/// Poisson(lam)'s thresholds.
pub fn poisson_thresholds(lam: f64) -> (u32, Vec<u32>) {
    inversion_thresholds(
        lam.floor() as u32,
        u32::MAX,
        |k| lam / (k + 1.0),
        |k| k / lam,
    )
}

/// Binomial(n, p)'s thresholds (one value for p = 0, p = 1 or n = 0).
pub fn binomial_thresholds(n: u32, p: f64) -> (u32, Vec<u32>) {
    if p == 0.0 || p == 1.0 || n == 0 {
        return (if p == 1.0 { n } else { 0 }, Vec::new());
    }
    let mode = (((n as f64 + 1.0) * p).floor() as u32).min(n);
    let (odds, nf) = (p / (1.0 - p), n as f64);
    inversion_thresholds(
        mode,
        n,
        |k| (nf - k) / (k + 1.0) * odds,
        |k| k / (nf - k + 1.0) / odds,
    )
}

/// The value of word w: k0 plus the number of thresholds at or below it.
pub fn invert(t: &(u32, Vec<u32>), w: u32) -> i32 {
    (t.0 + t.1.partition_point(|&x| x <= w) as u32) as i32
}

/// ln v for a normal f32 v > 0 as shaders/distributions.wgsl's `ln_exact`: v = (M / 2) 2^e,
/// e ln 2 - (-ln(M / 2)) in f32.
pub fn ln_exact(v: f32) -> f32 {
    let b = v.to_bits();
    let (m, e) = neg_log((((b & 0x7f_ffff) | 0x80_0000) << 8) - 1).expect("M / 2 < 1");
    let ex = ((b >> 23) as i32 - 126) as f32;
    ex * std::f32::consts::LN_2 - f32::from_bits(f32_bits(m, e - 32, false))
}

/// Gamma(a, 1) as shaders/distributions.wgsl's `gamma` (Marsaglia and Tsang from d and c):
/// d v and the accepted block's word 3 (the boost's), for element e of block `counter`
/// under `key`, its tries from private blocks s, s + 1, ...
pub fn gamma(d: f32, c: f32, key: u64, counter: u64, s: u32, e: u32) -> (f32, u32) {
    let open = |w: u32| ((w >> 8) + 1) as f32 * 2f32.powi(-24);
    let mut v = 1.0f32;
    let mut r = [0u32; 4];
    for t in 0..256 {
        let ctr = [counter as u32, (counter >> 32) as u32, s + t, 1 + e];
        r = super::philox::philox(ctr, [key as u32, (key >> 32) as u32]);
        let z = normal_pair(r[0], r[1])[0];
        let y = 1.0 + c * z;
        if y <= 0.0 {
            continue;
        }
        v = y * y * y;
        let z2 = z * z;
        if open(r[2]) < 1.0 - 0.0331 * z2 * z2 {
            break;
        }
        if -exponential(r[2] | 0xff) < 0.5 * z2 + d * ((1.0 - v) + ln_exact(v)) {
            break;
        }
    }
    (d * v, r[3])
}

/// 2^-f on [0, 1) in Q31, magnitudes of the alternating coefficients, lowest degree first.
const EXP2_Q: [u32; 9] = [
    2147483648, 1488522236, 515882489, 119194102, 20654457, 2862460, 329276, 31248, 2000,
];

/// U^(1/k) for U = (w + 1) 2^-32 as shaders/distributions.wgsl's `boost` (inv_k = 1 / k).
pub fn boost(w: u32, inv_k: f32) -> f32 {
    let Some((m, e)) = neg_log(w) else {
        return 1.0;
    };
    let ib = inv_k.to_bits();
    let q = mulhi(mulhi(m, ((ib & 0x7f_ffff) | 0x80_0000) << 8), 3_098_164_009);
    let sh = e + (ib >> 23) as i32 - 157;
    if sh >= 0 {
        return 0.0;
    }
    // Y = q 2^sh as floor n and fraction f in Q32.
    let y = ((q as u128) << 64) >> (-sh) as u32;
    let (n, f) = ((y >> 64) as u64, (y >> 32) as u32);
    if n >= 126 {
        return 0.0;
    }
    let mut p = EXP2_Q[8];
    for &c in EXP2_Q[..8].iter().rev() {
        p = c.wrapping_sub(mulhi(f, p));
    }
    f32::from_bits(f32_bits(p, -(n as i32) - 31, false))
}

/// Gamma of shape k as the GPU draws it (`gamma_at`): d, c, 1 / k and the boost from the
/// host's f64 formulas.
pub fn gamma_k(k: f64, key: u64, counter: u64, s: u32, e: u32) -> f32 {
    let boosted = k < 1.0;
    let d = (if boosted { k + 1.0 } else { k } - 1.0 / 3.0) as f32;
    let c = (1.0 / (9.0 * d as f64).sqrt()) as f32;
    let (g, w) = gamma(d, c, key, counter, s, e);
    if boosted {
        g * boost(w, (1.0 / k) as f32)
    } else {
        g
    }
}

/// x / s as shaders/distributions.wgsl's `div_exact`: IEEE's rounding, 0 below f32's normal
/// range and for a zero or subnormal x, NaN for s = 0.
pub fn div_exact(x: f32, s: f32) -> f32 {
    if s.to_bits() >> 23 == 0 {
        return f32::NAN;
    }
    let q = x / s;
    if x.to_bits() >> 23 == 0 || q < f32::MIN_POSITIVE {
        0.0
    } else {
        q
    }
}
