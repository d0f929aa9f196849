//! Creation from another array's shape (`zeros_like`, `ones_like`, `full_like`,
//! `empty_like`), `empty`, `identity` and the deep `copy`: every dtype, strided views and
//! zero sizes as the model array, against the values they must hold.

use crate::all_dtypes;
use crate::common::*;
use gpuarray::{Array, Real, Slice};

/// A strided, offset view of shape [3, 2]: every other element of a [13] buffer from 1.
fn view<T: Real>() -> Array<T> {
    let vals: Vec<T> = (0..13).map(|k| T::from_f64(k as f64 % 5.0)).collect();
    let base = dev().from_slice(&vals, [13]).unwrap();
    base.slice(Slice::from(1..13).step(2))
        .unwrap()
        .reshape([3, 2])
        .unwrap()
}

fn like<T: Real>() {
    let v = view::<T>();
    let before = host(&v);
    let seven = T::from_f64(7.0);
    let cases: [(&str, Array<T>, f64); 3] = [
        ("zeros_like", v.zeros_like().unwrap(), 0.0),
        ("ones_like", v.ones_like().unwrap(), 1.0),
        ("full_like", v.full_like(seven).unwrap(), 7.0),
    ];
    for (name, a, want) in cases {
        assert_eq!(a.shape(), &[3, 2], "{name} {:?}", T::DTYPE);
        assert_eq!(host(&a), vec![want; 6], "{name} {:?}", T::DTYPE);
    }
    let e = v.empty_like().unwrap();
    assert_eq!(
        (e.shape(), e.to_vec().unwrap().len()),
        (&[3usize, 2][..], 6)
    );
    // The model is untouched.
    assert_eq!(host(&v), before);
    // Zero sizes.
    let z = dev().from_slice::<T>(&[], [0, 4]).unwrap();
    for a in [
        z.zeros_like(),
        z.ones_like(),
        z.full_like(seven),
        z.empty_like(),
    ] {
        let a = a.unwrap();
        assert_eq!(
            (a.shape(), a.to_vec().unwrap().len()),
            (&[0usize, 4][..], 0)
        );
    }
    // identity(n): ones on the diagonal, n = 0, 1 and a prime.
    for n in [0usize, 1, 5] {
        let i = dev().identity::<T>(n).unwrap();
        let want: Vec<f64> = (0..n * n)
            .map(|k| f64::from(u8::from(k / n == k % n)))
            .collect();
        assert_eq!(
            (i.shape().to_vec(), host(&i)),
            (vec![n, n], want),
            "{:?}",
            T::DTYPE
        );
    }
    let e = dev().empty::<T>([2, 0, 3]).unwrap();
    assert_eq!(e.shape(), &[2, 0, 3]);
}

#[test]
fn like_functions_every_dtype_on_views() {
    all_dtypes!(like);
}

fn deep_copy<T: Real>() {
    let v = view::<T>();
    let c = v.copy().unwrap();
    let want = host(&v);
    assert_eq!((c.shape(), host(&c)), (&[3usize, 2][..], want.clone()));
    // Writing the source (through the view, into the shared buffer) leaves the copy.
    v.fill(T::from_f64(3.0)).unwrap();
    assert_eq!(host(&v), vec![3.0; 6]);
    assert_eq!(host(&c), want, "{:?}", T::DTYPE);
}

#[test]
fn copy_is_deep_for_every_dtype() {
    all_dtypes!(deep_copy);
}
