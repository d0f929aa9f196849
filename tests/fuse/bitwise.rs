//! The integer functions of `Var` (bitwise and, or, xor, not, shifts) against Rust's
//! operators with NumPy's rules (a shift count past the width, or negative, gives 0, or
//! the sign fill for i32's right shift), for i32 and u32; floats refused with a typed
//! error.

use crate::common::dev;
use gpuarray::custom::fuse;
use gpuarray::{DType, Error};

/// NumPy's shifts of 32-bit words: counts read as unsigned, those past 31 shift out.
fn shl(a: u32, n: u32) -> u32 {
    if n >= 32 {
        0
    } else {
        a << n
    }
}

#[test]
fn bitwise_functions_match_rust_operators() {
    let xs: Vec<i32> = vec![7, -7, 0, i32::MAX, i32::MIN, 0x1234_5678, -1, 5];
    let ns: Vec<i32> = vec![0, 1, 5, 31, 1, 32, 40, -1];
    let x = dev().from_slice(&xs, [8]).unwrap();
    let n = dev().from_slice(&ns, [8]).unwrap();
    let and_or = fuse(dev(), |[a, b]| {
        a.bitwise_and(b).bitwise_xor(a.bitwise_or(b).bitwise_not())
    })
    .unwrap();
    let got = and_or.call::<i32>(&[&x, &n]).unwrap().to_vec().unwrap();
    let want: Vec<i32> = xs
        .iter()
        .zip(&ns)
        .map(|(&a, &b)| (a & b) ^ !(a | b))
        .collect();
    assert_eq!(got, want);
    let shifts = fuse(dev(), |[a, b]| {
        a.left_shift(b).bitwise_xor(a.right_shift(b))
    })
    .unwrap();
    let got = shifts.call::<i32>(&[&x, &n]).unwrap().to_vec().unwrap();
    let want: Vec<i32> = xs
        .iter()
        .zip(&ns)
        .map(|(&a, &b)| {
            let r = if (b as u32) >= 32 { a >> 31 } else { a >> b };
            shl(a as u32, b as u32) as i32 ^ r
        })
        .collect();
    assert_eq!(got, want);
    // u32: a logical right shift.
    let xu: Vec<u32> = xs.iter().map(|&v| v as u32).collect();
    let nu: Vec<u32> = ns.iter().map(|&v| v as u32).collect();
    let (x, n) = (
        dev().from_slice(&xu, [8]).unwrap(),
        dev().from_slice(&nu, [8]).unwrap(),
    );
    let got = shifts.call::<u32>(&[&x, &n]).unwrap().to_vec().unwrap();
    let want: Vec<u32> = xu
        .iter()
        .zip(&nu)
        .map(|(&a, &b)| shl(a, b) ^ if b >= 32 { 0 } else { a >> b })
        .collect();
    assert_eq!(got, want);
    // The fused results equal the methods'.
    assert_eq!(
        got,
        x.left_shift(&n)
            .unwrap()
            .bitwise_xor(&x.right_shift(&n).unwrap())
            .unwrap()
            .to_vec()
            .unwrap()
    );
    let xf = dev().from_slice(&[1.0f32], [1]).unwrap();
    let e = and_or.call::<f32>(&[&xf, &xf]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Unsupported {
                dtype: DType::F32,
                ..
            }
        ),
        "{e:?}"
    );
}
