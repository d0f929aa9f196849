//! Negative slice steps and `flip` as views with negative strides: NumPy's `x[::-1]`,
//! `x[5:1:-2]`, `x[::-3]`, against a CPU reference that walks NumPy's index rule on a host
//! vector; every dtype, 1-D to 4-D, combined with transposes and broadcasting, as operands of
//! the elementwise, reduction, product, sort, scan, index, join and conv families, and as
//! targets of `assign` and `fill` (writes go through to the viewed buffer).

#[path = "../common/mod.rs"]
mod common;
mod ops;
mod writes;

use common::{assert_close, dev, host, if_supported, unravel, Rng};
use gpuarray::{f16, Array, Error, Real, Slice};

/// NumPy's indices of `start:end:step` over an axis of `len` (bounds within the axis).
fn numpy_indices(s: Slice, len: usize) -> Vec<usize> {
    let n = len as isize;
    let fix = |i: isize| if i < 0 { i + n } else { i };
    let back = s.step < 0;
    let mut i = s.start.map(fix).unwrap_or(if back { n - 1 } else { 0 });
    let end = s.end.map(fix).unwrap_or(if back { -1 } else { n });
    if back {
        i = i.min(n - 1);
    }
    let mut out = Vec::new();
    while (s.step > 0 && i < end) || (s.step < 0 && i > end) {
        out.push(i as usize);
        i += s.step;
    }
    out
}

/// A host array: shape and row-major values.
#[derive(Debug, Clone)]
struct H {
    shape: Vec<usize>,
    v: Vec<f64>,
}

impl H {
    fn iota(shape: &[usize], rng: &mut Rng, lo: i64, hi: i64) -> H {
        let n = shape.iter().product();
        H {
            shape: shape.to_vec(),
            v: rng.ints(n, lo, hi),
        }
    }
    fn at(&self, idx: &[usize]) -> f64 {
        let mut o = 0;
        for (d, &i) in idx.iter().enumerate() {
            o = o * self.shape[d] + i;
        }
        self.v[o]
    }
    /// Element `idx` of the result is element `map(idx)` of self.
    fn build(&self, shape: Vec<usize>, map: impl Fn(&[usize]) -> Vec<usize>) -> H {
        let n = shape.iter().product();
        let v = (0..n).map(|i| self.at(&map(&unravel(i, &shape)))).collect();
        H { shape, v }
    }
    /// NumPy's slicing of the leading axes.
    fn slice(&self, s: &[Slice]) -> H {
        let idx: Vec<Vec<usize>> = (0..self.shape.len())
            .map(|d| match s.get(d) {
                Some(&sl) => numpy_indices(sl, self.shape[d]),
                None => (0..self.shape[d]).collect(),
            })
            .collect();
        let shape = idx.iter().map(|v| v.len()).collect();
        self.build(shape, |i| {
            i.iter().enumerate().map(|(d, &k)| idx[d][k]).collect()
        })
    }
    fn transpose(&self, perm: &[usize]) -> H {
        let shape = perm.iter().map(|&p| self.shape[p]).collect();
        self.build(shape, |i| {
            let mut src = vec![0; i.len()];
            for (k, &p) in perm.iter().enumerate() {
                src[p] = i[k];
            }
            src
        })
    }
    fn broadcast_to(&self, shape: &[usize]) -> H {
        let lead = shape.len() - self.shape.len();
        self.build(shape.to_vec(), |i| {
            (0..self.shape.len())
                .map(|d| if self.shape[d] == 1 { 0 } else { i[lead + d] })
                .collect()
        })
    }
    fn up<T: Real>(&self) -> Array<T> {
        let t: Vec<T> = self.v.iter().map(|&x| T::from_f64(x)).collect();
        dev().from_slice(&t, self.shape.clone()).unwrap()
    }
}

fn rev() -> Slice {
    Slice::from(..).step(-1)
}

fn check<T: Real>(a: &Array<T>, h: &H, what: &str) {
    assert_eq!(a.shape(), h.shape.as_slice(), "{what}: shape");
    assert_close(&host(a), &h.v, 0.0, 0.0);
}

/// Every start/end/step combination (None, negative, positive, past the end) on lengths 0,
/// 1, 2, 5 and 10 gives NumPy's elements, and each is a view of the same buffer.
#[test]
fn one_axis_matches_numpy() {
    let x = dev().arange::<i32>(0, 10, 1).unwrap();
    let hx = H {
        shape: vec![10],
        v: (0..10).map(f64::from).collect(),
    };
    for len in [0usize, 1, 2, 5, 10] {
        let a = x.slice(0..len).unwrap();
        let ha = hx.slice(&[Slice::from(0..len)]);
        let n = len as isize;
        let mut bounds: Vec<Option<isize>> = vec![None];
        bounds.extend((-n..=n).map(Some));
        for &start in &bounds {
            for &end in &bounds {
                for step in [-4isize, -3, -2, -1, 1, 2, 3] {
                    let s = Slice::numpy(start, end, Some(step));
                    let v = a.slice(s).unwrap();
                    check(&v, &ha.slice(&[s]), &format!("{len} {s:?}"));
                }
            }
        }
    }
}

/// Bad bounds and a zero step are typed errors; the array stays usable.
#[test]
fn bad_slices_are_errors() {
    let x = dev().arange::<f32>(0.0, 5.0, 1.0).unwrap();
    for s in [
        Slice::new(6, None, -1),
        Slice::new(-6, None, -1),
        Slice::numpy(None, Some(7), Some(-2)),
        Slice::numpy(None, Some(-7), Some(-1)),
    ] {
        let r = x.slice(s);
        assert!(
            matches!(
                r,
                Err(Error::SliceOutOfRange {
                    axis: 0,
                    len: 5,
                    ..
                })
            ),
            "{s:?}: {r:?}"
        );
    }
    let r = x.slice(Slice::from(..).step(0));
    assert!(
        matches!(r, Err(Error::SliceOutOfRange { step: 0, .. })),
        "{r:?}"
    );
    assert_eq!(x.to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
    // A usize step past isize::MAX saturates: one element, either way.
    let v = x.slice(Slice::from(..).step(usize::MAX)).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![0.0]);
    let v = x.slice(Slice::from(..).step(isize::MIN)).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![4.0]);
}

/// Reversed and stepped views of every dtype: to_vec, contiguous, an elementwise op with the
/// view on each side, and writes through `fill` and `assign`.
fn dtype_case<T: Real>(lo: i64, hi: i64) {
    let mut rng = Rng::new(7);
    for n in [0usize, 1, 3, 4, 13, 258] {
        let h = H::iota(&[n], &mut rng, lo, hi);
        let a = h.up::<T>();
        for s in [
            rev(),
            Slice::numpy(None, None, Some(-3)),
            Slice::numpy(Some(-2), Some(0), Some(-2)),
        ] {
            if n < 2 && s.start.is_some() {
                continue;
            }
            let v = a.slice(s).unwrap();
            let hv = h.slice(&[s]);
            check(&v, &hv, T::DTYPE.name());
            check(&v.contiguous().unwrap(), &hv, "contiguous");
            assert!(v.len() <= 1 || !v.is_contiguous());
            // v + v.reversed, and the other way round: both operands negative-strided.
            let w = v.slice(rev()).unwrap();
            let hw = hv.slice(&[rev()]);
            let sum = H {
                shape: hv.shape.clone(),
                v: hv.v.iter().zip(&hw.v).map(|(x, y)| x + y).collect(),
            };
            check(&(&v + &w), &sum, "v + w");
            check(&(&w + &v), &sum, "w + v");
        }
        // Writes through a reversed, stepped view reach only its elements (the packed types
        // take writes into strided views where they take any: else a typed refusal).
        let b = h.up::<T>();
        let s = Slice::numpy(None, None, Some(-2));
        let taken = numpy_indices(s, n);
        let mut want = h.v.clone();
        match b.slice(s).unwrap().fill(T::from_f64(1.0)) {
            Err(Error::Unsupported { .. }) if T::DTYPE.size() < 4 => continue,
            r => r.unwrap(),
        }
        for &i in &taken {
            want[i] = 1.0;
        }
        assert_close(&host(&b), &want, 0.0, 0.0);
        let src = H::iota(&[taken.len()], &mut rng, lo, hi);
        b.slice(s).unwrap().assign(&src.up::<T>()).unwrap();
        for (k, &i) in taken.iter().enumerate() {
            want[i] = src.v[k];
        }
        assert_close(&host(&b), &want, 0.0, 0.0);
    }
}

#[test]
fn every_dtype() {
    dtype_case::<f32>(-100, 100);
    dtype_case::<i32>(-100, 100);
    dtype_case::<u32>(0, 100);
    dtype_case::<u8>(0, 100);
    dtype_case::<i8>(-60, 60);
    dtype_case::<u16>(0, 1000);
    dtype_case::<i16>(-1000, 1000);
    if_supported::<f16>(|| dtype_case::<f16>(-100, 100));
    if_supported::<f64>(|| dtype_case::<f64>(-100, 100));
    if_supported::<i64>(|| dtype_case::<i64>(-100, 100));
    if_supported::<u64>(|| dtype_case::<u64>(0, 100));
}

/// 2-D, 3-D and 4-D arrays with negative steps on each axis in turn and on all of them,
/// transposed, broadcast, and viewed again (negative of negative is positive).
#[test]
fn multi_dimensional_views() {
    let mut rng = Rng::new(11);
    for shape in [vec![7, 5], vec![3, 4, 5], vec![2, 3, 4, 5], vec![40, 33]] {
        let h = H::iota(&shape, &mut rng, -50, 50);
        let a = h.up::<f32>();
        let nd = shape.len();
        for axis in 0..=nd {
            // Axis `nd` stands for every axis at once, with steps -1, -2, -3, ...
            let s: Vec<Slice> = (0..nd)
                .map(|d| match axis {
                    x if x == nd => Slice::from(..).step(-(d as isize) - 1),
                    x if x == d => Slice::new(-1, None, -2),
                    _ => Slice::from(..),
                })
                .collect();
            let v = a.slice(s.clone()).unwrap();
            let hv = h.slice(&s);
            check(&v, &hv, &format!("{shape:?} {s:?}"));
            let perm: Vec<usize> = (0..nd).rev().collect();
            check(
                &v.transpose(&perm).unwrap(),
                &hv.transpose(&perm),
                "transposed",
            );
            check(
                &v.t().contiguous().unwrap(),
                &hv.transpose(&perm),
                "t contiguous",
            );
            // Elementwise with a transposed contiguous operand (the tiled walk where big).
            let other = H::iota(&hv.transpose(&perm).shape, &mut rng, -9, 9);
            let want = H {
                shape: other.shape.clone(),
                v: hv
                    .transpose(&perm)
                    .v
                    .iter()
                    .zip(&other.v)
                    .map(|(x, y)| x * y)
                    .collect(),
            };
            check(&(&v.t() * &other.up::<f32>()), &want, "tiled mul");
            // Views of the view: reversing back gives the stepped original.
            let back: Vec<Slice> = (0..nd).map(|_| rev()).collect();
            let w = v.slice(back.clone()).unwrap();
            check(&w, &hv.slice(&back), "view of view");
            let neg: Vec<isize> = v.strides().iter().map(|s| -s).collect();
            assert_eq!(w.strides(), neg.as_slice());
            // A reversed row broadcast against the whole view.
            let row = v.slice_axis(0, 0..1).unwrap();
            let hrow = hv.slice(&[Slice::from(0..1)]);
            let sum = H {
                shape: hv.shape.clone(),
                v: hv
                    .v
                    .iter()
                    .zip(&hrow.broadcast_to(&hv.shape).v)
                    .map(|(x, y)| x - y)
                    .collect(),
            };
            check(
                &(&v - &row.broadcast_to(hv.shape.clone()).unwrap()),
                &sum,
                "broadcast",
            );
            check(&v.sub(&row).unwrap(), &sum, "broadcast op");
        }
    }
}
