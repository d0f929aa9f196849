//! bincount of i64 and u64, and scatter_add into i64 and u64 targets (two 32-bit atomics
//! a element, the low word's carry added to the high word), against exact references.

use crate::common::{assert_unsupported, dev, Rng};
use crate::{down, small_values, wide_values, Int64, SIZES};
use gpuarray::{Error, IndexMode};

fn bincount<T: Int64>() {
    let mut rng = Rng::new(31);
    for n in SIZES {
        for hi in [1u64, 7, 5000] {
            let v = small_values::<T>(&mut rng, n, hi);
            let x = dev().from_slice(&v, [n]).unwrap();
            let bins = v
                .iter()
                .map(|e| e.bits() as usize + 1)
                .max()
                .unwrap_or(0)
                .max(3);
            let mut want = vec![0u32; bins];
            for e in &v {
                want[e.bits() as usize] += 1;
            }
            assert_eq!(
                down(&x.bincount(3).unwrap()),
                want,
                "bincount n={n} hi={hi}"
            );
            // A strided view counts only its elements.
            if n > 2 {
                let s = x.slice_axis(0, gpuarray::Slice::new(0, None, 2)).unwrap();
                let mut w = vec![0u32; bins];
                for e in v.iter().step_by(2) {
                    w[e.bits() as usize] += 1;
                }
                assert_eq!(down(&s.bincount(bins).unwrap()), w, "strided n={n}");
            }
        }
    }
    let e = dev().zeros::<T>([0]).unwrap();
    assert_eq!(down(&e.bincount(4).unwrap()), vec![0u32; 4]);
}

fn bincount_negative() {
    let x = dev().from_slice(&[3i64, -1, 2], [3]).unwrap();
    assert!(matches!(x.bincount(0), Err(Error::InvalidArgument { .. })));
    let x = dev().from_slice(&[i64::MIN], [1]).unwrap();
    assert!(matches!(x.bincount(0), Err(Error::InvalidArgument { .. })));
    // The device is still usable, the input untouched.
    assert_eq!(down(&x), vec![i64::MIN]);
}

fn scatter_add<T: Int64>() {
    let mut rng = Rng::new(32);
    // Few targets: many duplicates, so that the low words' carries pile up.
    for (n, m) in [
        (0usize, 3usize),
        (1, 1),
        (7, 3),
        (1031, 5),
        (20011, 17),
        (20011, 4099),
    ] {
        let start = wide_values::<T>(&mut rng, m);
        let src = wide_values::<T>(&mut rng, n);
        let idx: Vec<i64> = (0..n).map(|_| (rng.next_u64() % m as u64) as i64).collect();
        let mut want = start.clone();
        for (i, &k) in idx.iter().enumerate() {
            want[k as usize] = want[k as usize].wadd(src[i]);
        }
        let x = dev().from_slice(&start, [m]).unwrap();
        let ia = dev().from_slice(&idx, [n]).unwrap();
        let sa = dev().from_slice(&src, [n]).unwrap();
        x.scatter_add(0, &ia, &sa).unwrap();
        assert_eq!(down(&x), want, "scatter_add n={n} m={m}");
    }
    // Along axis 1 of a 2-D target, negative i32 indices, wrap mode, into a strided view.
    let base = wide_values::<T>(&mut rng, 3 * 8);
    let src = wide_values::<T>(&mut rng, 3 * 5);
    let idx: Vec<i32> = (0..15).map(|i| (i % 7) - 3).collect();
    let x = dev().from_slice(&base, [3, 8]).unwrap();
    let view = x.slice_axis(1, gpuarray::Slice::new(0, None, 2)).unwrap(); // [3, 4]
    let ia = dev().from_slice(&idx, [3, 5]).unwrap();
    let sa = dev().from_slice(&src, [3, 5]).unwrap();
    view.scatter_add_mode(1, &ia, &sa, IndexMode::Wrap).unwrap();
    let mut want = base.clone();
    for r in 0..3 {
        for c in 0..5 {
            let k = (idx[r * 5 + c]).rem_euclid(4) as usize;
            want[r * 8 + 2 * k] = want[r * 8 + 2 * k].wadd(src[r * 5 + c]);
        }
    }
    assert_eq!(down(&x), want, "scatter_add into a strided view");
    // No 64-bit maximum or minimum: refused, the target untouched.
    assert_unsupported(view.scatter_max(1, &ia, &sa), T::DTYPE);
    assert_unsupported(view.scatter_min(1, &ia, &sa), T::DTYPE);
    assert_eq!(down(&x), want);
    // Out of range: an error, nothing written.
    let bad = dev().from_slice(&[0i64, 9], [1, 2]).unwrap();
    let two = dev().from_slice(&src[..2], [1, 2]).unwrap();
    assert!(matches!(
        x.scatter_add(1, &bad, &two),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert_eq!(down(&x), want);
}

#[test]
fn bincount_refuses_negatives() {
    crate::require_dtype!(i64);
    bincount_negative();
}

crate::per_dtype! {
    [i64_: i64, u64_: u64] => {
        bincount => super::bincount::<T>();
        scatter_add => super::scatter_add::<T>();
    }
}
