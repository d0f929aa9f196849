//! complex64 / complex128 arrays (issue 33): data movement of views (copies, joins,
//! remaps, gathers, writes, `where_`), creation and casts, against CPU references.
//!
//! Data movement is exact: every result is compared bit for bit with the CPU model, which
//! follows each output element to the input element it reads (the values are random, each
//! element distinct, so a wrong source, a swapped component or a lost sign shows).
//! complex128 needs SHADER_F64: its tests go through `require_dtype!` (a recorded skip).

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod math;
mod moves;
mod pairs;
mod poles;

use common::Rng;
use gpuarray::{Array, ComplexFloat, Real};

/// The component type of `C`, as f64 and back.
pub fn re_of<C: ComplexFloat>(v: f64) -> C::Real {
    <C::Real as Real>::from_f64(v)
}

/// `n` random complex numbers with components in [-10, 10) (distinct with certainty).
pub fn random<C: ComplexFloat>(rng: &mut Rng, n: usize) -> Vec<C> {
    (0..n)
        .map(|_| {
            C::new(
                re_of::<C>(rng.uniform(-10.0, 10.0)),
                re_of::<C>(rng.uniform(-10.0, 10.0)),
            )
        })
        .collect()
}

/// The components of complex values as f64 pairs.
pub fn pairs<C: ComplexFloat>(v: &[C]) -> Vec<(f64, f64)> {
    v.iter()
        .map(|z| (z.re().to_f64(), z.im().to_f64()))
        .collect()
}

/// Bit-exact equality of complex values (NaN payloads and signed zeros included).
pub fn same_bits<C: ComplexFloat>(got: &[C], want: &[C], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let gb = (g.re().to_f64().to_bits(), g.im().to_f64().to_bits());
        let wb = (w.re().to_f64().to_bits(), w.im().to_f64().to_bits());
        assert_eq!(gb, wb, "{what}: element {i}: {g:?} vs {w:?}");
    }
}

/// Uploads random values of `shape`; returns the array and its host values.
pub fn upload<C: ComplexFloat>(rng: &mut Rng, shape: &[usize]) -> (Array<C>, Vec<C>) {
    let n = shape.iter().product();
    let v = random::<C>(rng, n);
    (common::dev().from_slice(&v, shape.to_vec()).unwrap(), v)
}

/// The two dtypes' test bodies: complex64 everywhere, complex128 where f64 is.
#[macro_export]
macro_rules! both {
    ($($name:ident => $f:ident;)*) => {
        mod c64 { $( #[test] fn $name() { super::$f::<gpuarray::Complex<f32>>(); } )* }
        mod c128 { $( #[test] fn $name() {
            require_dtype!(gpuarray::Complex<f64>);
            super::$f::<gpuarray::Complex<f64>>();
        } )* }
    };
}
