//! tanh and tan next to their poles (tanh at x ~ 0, y ~ pi/2 + k pi; tan at x ~ pi/2 + k pi,
//! y ~ 0) against a reference in 320-bit arithmetic (astro-float), not num-complex's: its
//! tanh, (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), cancels in the denominator there (a
//! CPU model of both formulas in f64 against mpmath, 2026-11-29: num-complex's off by up
//! to 6e11 units of the bound below, msun's, the kernels', by 1.5). Same bound as math.rs:
//! per component |got_c - w_c| <= K (ulp(w_c) + eps |w|), K = 16 for tan and tanh.

use astro_float::{BigFloat, Consts, RoundingMode};
use gpuarray::{Array, Complex, ComplexFloat, ComplexOps, DType, Real};

use crate::common::{dev, Rng};
use crate::math::check;

type C64 = Complex<f64>;

const P: usize = 320;
const RM: RoundingMode = RoundingMode::ToEven;

/// The nearest f64 to `b` (finite, through its 100-digit decimal form).
fn to_f64(b: &BigFloat) -> f64 {
    b.to_string().parse().expect("a decimal number")
}

/// tanh(x + iy) in 320-bit arithmetic, rounded to f64 per component.
fn tanh_ref(x: f64, y: f64, cc: &mut Consts) -> C64 {
    let two = BigFloat::from_f64(2.0, P);
    let x2 = BigFloat::from_f64(x, P).mul(&two, P, RM);
    let y2 = BigFloat::from_f64(y, P).mul(&two, P, RM);
    let den = x2.cosh(P, RM, cc).add(&y2.cos(P, RM, cc), P, RM);
    let re = x2.sinh(P, RM, cc).div(&den, P, RM);
    let im = y2.sin(P, RM, cc).div(&den, P, RM);
    C64::new(to_f64(&re), to_f64(&im))
}

/// Points (x, y) next to tanh's poles: y within a few hundred ulps, 1e-12, 1e-8 or 1e-4 of
/// pi/2 + k pi (k = -3..2), x zero, tiny or small of either sign; and random ones within
/// 1e-6 of a pole. Widened from the component type (exact for complex64).
fn near_poles<C: ComplexFloat>(rng: &mut Rng) -> Vec<(f64, f64)> {
    let narrow = |v: f64| C::Real::from_f64(v).to_f64();
    let mut pts = Vec::new();
    for k in -3..3 {
        let pole = std::f64::consts::FRAC_PI_2 + k as f64 * std::f64::consts::PI;
        for dy in [0.0, 3e-16, -3e-16, 1e-12, -1e-12, 1e-8, -1e-8, 1e-4] {
            for x in [0.0, -0.0, 1e-30, -1e-12, 1e-8, -1e-4, 0.5] {
                pts.push((narrow(x), narrow(pole + dy * pole.abs())));
            }
        }
        for _ in 0..20 {
            let x = rng.uniform(-1e-6, 1e-6);
            let y = pole + rng.uniform(-1e-6, 1e-6);
            pts.push((narrow(x), narrow(y)));
        }
    }
    pts
}

/// `f` (tanh or tan) of `a`, through the concrete type of `C` (complex64 or complex128).
fn apply<C: ComplexFloat>(a: &Array<C>, tan: bool) -> Vec<C> {
    let out: Array<C> = if C::DTYPE == DType::Complex64 {
        let c = a.cast::<Complex<f32>>().unwrap();
        let r = if tan { c.tan() } else { c.tanh() };
        r.unwrap().cast().unwrap()
    } else {
        let c = a.cast::<Complex<f64>>().unwrap();
        let r = if tan { c.tan() } else { c.tanh() };
        r.unwrap().cast().unwrap()
    };
    out.to_vec().unwrap()
}

pub fn tanh_and_tan_near_poles<C: ComplexFloat>() {
    let mut rng = Rng::new(41);
    let mut cc = Consts::new().expect("astro-float constants");
    let pts = near_poles::<C>(&mut rng);
    let z: Vec<C> = pts
        .iter()
        .map(|&(x, y)| C::new(C::Real::from_f64(x), C::Real::from_f64(y)))
        .collect();
    let a = dev().from_slice(&z, [z.len()]).unwrap();
    let want: Vec<C64> = pts.iter().map(|&(x, y)| tanh_ref(x, y, &mut cc)).collect();
    let worst = check(&apply(&a, false), &want, 16.0, "tanh");
    eprintln!("{:?} tanh near its poles: worst {worst:.2} ulp", C::DTYPE);
    // tan(w) at w = y + ix (next to tan's poles): tan w = -i tanh(iw) = -i tanh(-x + iy).
    let w: Vec<C> = pts
        .iter()
        .map(|&(x, y)| C::new(C::Real::from_f64(y), C::Real::from_f64(x)))
        .collect();
    let b = dev().from_slice(&w, [w.len()]).unwrap();
    let want: Vec<C64> = pts
        .iter()
        .map(|&(x, y)| {
            let t = tanh_ref(-x, y, &mut cc);
            C64::new(t.im, -t.re)
        })
        .collect();
    let worst = check(&apply(&b, true), &want, 16.0, "tan");
    eprintln!("{:?} tan near its poles: worst {worst:.2} ulp", C::DTYPE);
}

crate::both! {
    tanh_and_tan_near_poles => tanh_and_tan_near_poles;
}
