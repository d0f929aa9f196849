//! cumsum and cumprod of i64 and u64 (accumulating in their own type, wrapping), diff,
//! and the compaction family (nonzero, count_nonzero, extract) over them.

use crate::common::{dev, Rng};
use crate::{down, wide_values, Int64, SIZES};
use gpuarray::Array;

/// The running `f` of every line of `v` (shape `shape`) along `axis`, wrapping.
fn reference<T: Int64>(v: &[T], shape: &[usize], axis: usize, f: impl Fn(T, T) -> T) -> Vec<T> {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = v.to_vec();
    for o in 0..outer {
        for i in 0..inner {
            for k in 1..len {
                let at = |k: usize| (o * len + k) * inner + i;
                out[at(k)] = f(out[at(k - 1)], v[at(k)]);
            }
        }
    }
    out
}

#[track_caller]
fn check<T: Int64>(x: &Array<T>, axis: usize, what: &str) {
    let v = down(&x.contiguous().unwrap());
    let shape = x.shape().to_vec();
    let sum = reference(&v, &shape, axis, T::wadd);
    assert_eq!(
        down(&x.cumsum(axis as isize).unwrap()),
        sum,
        "cumsum {what}"
    );
    let prod = reference(&v, &shape, axis, T::wmul);
    assert_eq!(
        down(&x.cumprod(axis as isize).unwrap()),
        prod,
        "cumprod {what}"
    );
}

/// Values that make the products interesting: mostly small odd factors (so the running
/// product wraps around 2^64 but does not turn to 0 at once), some wide ones.
fn factors<T: Int64>(rng: &mut Rng, n: usize) -> Vec<T> {
    let wide = wide_values::<T>(rng, n);
    (0..n)
        .map(|i| {
            if rng.next_u64().is_multiple_of(8) {
                wide[i]
            } else {
                T::from_bits(2 * (rng.next_u64() % 50) + 1)
            }
        })
        .collect()
}

fn scans<T: Int64>() {
    let mut rng = Rng::new(21);
    // Lengths of a multiple of 4 from 64 up move in vec4s of 8-byte elements (one tile,
    // several tiles of one segment, several segments).
    for n in SIZES.into_iter().chain([70_001, 256, 8196, 36_868]) {
        let v = factors::<T>(&mut rng, n);
        let x = dev().from_slice(&v, [n]).unwrap();
        check(&x, 0, &format!("{} n={n}", T::DTYPE));
    }
    // Lines along each axis (the row kernels, and the column kernels with a stride).
    for shape in [[3usize, 4099], [517, 5], [1, 1], [0, 3], [2, 40_964]] {
        let n = shape[0] * shape[1];
        let x = dev().from_slice(&factors::<T>(&mut rng, n), shape).unwrap();
        check(&x, 0, &format!("{shape:?} axis 0"));
        check(&x, 1, &format!("{shape:?} axis 1"));
        // A transposed view.
        check(&x.t(), 1, &format!("{shape:?} transposed"));
    }
    // The whole range: sums that wrap past the extremes.
    let edge = [
        T::MAX,
        T::from_bits(1),
        T::MAX,
        T::MIN,
        T::from_bits(u64::MAX),
    ];
    let x = dev().from_slice(&edge, [5]).unwrap();
    check(&x, 0, "extremes");
    // All axes: the flattened array.
    let m = dev().from_slice(&edge[..4], [2, 2]).unwrap();
    assert_eq!(
        down(&m.cumsum(..).unwrap()),
        reference(&edge[..4], &[4], 0, T::wadd)
    );
}

fn diff_and_compaction<T: Int64>() {
    let mut rng = Rng::new(22);
    for n in [0usize, 1, 2, 31, 5003] {
        let mut v = wide_values::<T>(&mut rng, n);
        for (i, e) in v.iter_mut().enumerate() {
            if i % 3 == 0 {
                *e = T::from_bits(0);
            }
        }
        let x = dev().from_slice(&v, [n]).unwrap();
        let d: Vec<T> = v
            .windows(2)
            .map(|w| T::from_bits(w[1].bits().wrapping_sub(w[0].bits())))
            .collect();
        assert_eq!(down(&x.diff(1, 0).unwrap()), d, "diff n={n}");
        let nz: Vec<i64> = (0..n)
            .filter(|&i| v[i] != T::from_bits(0))
            .map(|i| i as i64)
            .collect();
        assert_eq!(down(&x.flatnonzero().unwrap()), nz, "flatnonzero n={n}");
        assert_eq!(x.count_nonzero().unwrap(), nz.len(), "count_nonzero n={n}");
        let zero = dev().zeros::<T>([n]).unwrap();
        let mask = x.ne(&zero).unwrap();
        let kept: Vec<T> = v
            .iter()
            .copied()
            .filter(|e| *e != T::from_bits(0))
            .collect();
        assert_eq!(down(&x.extract(&mask).unwrap()), kept, "extract n={n}");
    }
}

crate::per_dtype! {
    [i64_: i64, u64_: u64] => {
        scans => super::scans::<T>();
        diff_and_compaction => super::diff_and_compaction::<T>();
    }
}
