//! scatter_add / scatter_max / scatter_min, scatter and put against a CPU reference.

use super::common::*;
use super::{exact, offsets, values};
use gpuarray::{f16, Error, IndexMode, Slice};

per_dtype! {
    scatter_and_put_last_writer_wins: scatter_last;
}

/// Reference of a scatter: target (row-major, `shape`), indices and sources (row-major,
/// `ishape`), positions resolved along `ax`, combined by `f`.
fn scatter_ref(
    target: &mut [f64],
    shape: &[usize],
    ax: usize,
    (pos, src, ishape): (&[usize], &[f64], &[usize]),
    f: impl Fn(f64, f64) -> f64,
) {
    for k in 0..pos.len() {
        let mut idx = unravel(k, ishape);
        idx[ax] = pos[k];
        let mut o = 0;
        for (d, &i) in idx.iter().enumerate() {
            o = o * shape[d] + i;
        }
        target[o] = f(target[o], src[k]);
    }
}

fn scatter_case<T: Ty>(op: &str) {
    let d = dev();
    let mut rng = Rng::new(6);
    let shape = [5, 4];
    for axis in [0isize, -1] {
        let ax = axis.rem_euclid(2) as usize;
        let ishape = if ax == 0 { [23, 3] } else { [4, 31] };
        let n = ishape[0] * ishape[1];
        let len = shape[ax] as i64;
        let (x, mut want) = upload::<T>(d, &values::<T>(&mut rng, 20), &shape);
        if T::FLOAT {
            // Finite targets for the sums (inf + -inf is NaN in any order, fine; keep it simple).
            want.iter_mut()
                .for_each(|v| *v = if v.is_finite() { *v } else { 1.0 });
            x.copy_from_slice(&cast_in::<T>(&want).0).unwrap();
        }
        let lo = if T::SIGNED { -20 } else { 0 };
        let sv = rng.ints(n, lo, 20);
        let (src, sv) = upload::<T>(d, &sv, &ishape);
        let raw = rng.ints(n, -len, len - 1); // many duplicates
        let idx = d
            .from_slice(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>(), ishape)
            .unwrap();
        let pos: Vec<usize> = raw
            .iter()
            .map(|&v| (v as i64).rem_euclid(len) as usize)
            .collect();
        let r = match op {
            "add" => x.scatter_add(axis, &idx, &src),
            "max" => x.scatter_max(axis, &idx, &src),
            _ => x.scatter_min(axis, &idx, &src),
        };
        r.unwrap();
        let f = |a: f64, b: f64| match op {
            "add" => T::wrap(a + b),
            "max" => a.max(b),
            _ => a.min(b),
        };
        scatter_ref(&mut want, &shape, ax, (&pos, &sv, &ishape), f);
        // Exact: integers, and f32 sums of small integers.
        exact(&host(&x), &want);
    }
}

#[test]
fn scatter_add_max_min() {
    for op in ["add", "max", "min"] {
        scatter_case::<f32>(op);
        scatter_case::<i32>(op);
        scatter_case::<u32>(op);
    }
}

#[test]
fn scatter_special_values_and_errors() {
    let d = dev();
    // NaN wins in max and min, as NumPy's maximum.at.
    let x = d.from_slice(&[0.0f32, 0.0, 5.0], [3]).unwrap();
    let idx = d.from_slice(&[0i32, 1, 1, 2], [4]).unwrap();
    let src = d
        .from_slice(&[f32::NAN, 3.0, -1.0, f32::NEG_INFINITY], [4])
        .unwrap();
    x.scatter_max(0, &idx, &src).unwrap();
    exact(&host(&x), &[f64::NAN, 3.0, 5.0]);
    x.scatter_min(0, &idx, &src).unwrap();
    exact(&host(&x), &[f64::NAN, -1.0, f64::NEG_INFINITY]);
    // i32 sums wrap; u32 indices.
    let y = d.from_slice(&[i32::MAX, 0], [2]).unwrap();
    let u = d.from_slice(&[0u32, 0, 1], [3]).unwrap();
    y.scatter_add(0, &u, &d.from_slice(&[1, 1, i32::MIN], [3]).unwrap())
        .unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![i32::MIN + 1, i32::MIN]);
    // Out of range indices: an error, nothing written.
    let bad = d.from_slice(&[0i32, 3], [2]).unwrap();
    let two = d.from_slice(&[1.0f32, 1.0], [2]).unwrap();
    let before = host(&x);
    assert!(matches!(
        x.scatter_add(0, &bad, &two),
        Err(Error::IndexOutOfRange { len: 3, .. })
    ));
    assert!(matches!(
        x.scatter_add(0, &idx, &two),
        Err(Error::ShapeMismatch { .. })
    ));
    let bcast = d.zeros::<f32>([1]).unwrap().broadcast_to([3]).unwrap();
    assert!(matches!(
        bcast.scatter_add(0, &bad, &two),
        Err(Error::InvalidArgument { .. })
    ));
    let wide = d.zeros::<i32>([2, 5]).unwrap();
    assert!(x
        .scatter_add(0, &wide, &d.zeros::<f32>([2, 5]).unwrap())
        .is_err());
    exact(&host(&x), &before);
    // No atomics for f16 and f64.
    if_supported::<f64>(|| {
        let z = d.zeros::<f64>([2]).unwrap();
        let i = d.zeros::<i32>([1]).unwrap();
        assert_unsupported(
            z.scatter_add(0, &i, &d.zeros::<f64>([1]).unwrap()),
            gpuarray::DType::F64,
        );
    });
    if_supported::<f16>(|| {
        let z = d.zeros::<f16>([2]).unwrap();
        let i = d.zeros::<i32>([1]).unwrap();
        assert_unsupported(
            z.scatter_max(0, &i, &d.zeros::<f16>([1]).unwrap()),
            gpuarray::DType::F16,
        );
    });
    // Wrap and clip modes: no check, NumPy's resolution of each index.
    let w = d.zeros::<i32>([4]).unwrap();
    let widx = d.from_slice(&[5i32, -5, -1, 9, i32::MIN], [5]).unwrap();
    let ones = d.from_slice(&[1i32, 10, 100, 1000, 10000], [5]).unwrap();
    w.scatter_add_mode(0, &widx, &ones, IndexMode::Wrap)
        .unwrap();
    // 5 -> 1, -5 -> 3, -1 -> 3, 9 -> 1, i32::MIN -> 0 (a multiple of 4)
    assert_eq!(w.to_vec().unwrap(), vec![10000, 1001, 0, 110]);
    w.fill(0).unwrap();
    w.scatter_add_mode(0, &widx, &ones, IndexMode::Clip)
        .unwrap();
    assert_eq!(w.to_vec().unwrap(), vec![10110, 0, 0, 1001]);
    let empty_axis = d.zeros::<i32>([0]).unwrap();
    assert!(empty_axis
        .scatter_add_mode(0, &widx, &ones, IndexMode::Wrap)
        .is_err());
    // Empty indices write nothing.
    x.scatter_add(
        0,
        &d.zeros::<i32>([0]).unwrap(),
        &d.zeros::<f32>([0]).unwrap(),
    )
    .unwrap();
    exact(&host(&x), &before);
}

/// f32 scatter_add of random sums into few bins: within the bound of any summation order;
/// with the native atomic add (lavapipe has it) and with the compare-and-swap loop
/// (`Tuning::float_atomics` off).
#[test]
fn scatter_add_f32_random_sums() {
    random_sums(dev());
    let mut opts = gpuarray::Options::default();
    opts.tuning.float_atomics = false;
    random_sums(&gpuarray::Device::with_options(opts).unwrap());
}

fn random_sums(d: &gpuarray::Device) {
    let mut rng = Rng::new(7);
    let (n, bins) = (10_007, 13);
    let v = rng.vec(n, -1.0, 1.0);
    let (src, v) = upload::<f32>(d, &v, &[n]);
    let raw = rng.ints(n, 0, bins as i64 - 1);
    let idx = d
        .from_slice(&raw.iter().map(|&v| v as u32).collect::<Vec<_>>(), [n])
        .unwrap();
    let x = d.zeros::<f32>([bins]).unwrap();
    x.scatter_add(0, &idx, &src).unwrap();
    let (mut sum, mut abs, mut cnt) = (vec![0.0; bins], vec![0.0; bins], vec![0.0; bins]);
    for k in 0..n {
        let b = raw[k] as usize;
        sum[b] += v[k];
        abs[b] += v[k].abs();
        cnt[b] += 1.0;
    }
    let got = host(&x);
    for b in 0..bins {
        let tol = cnt[b] * f32::EPSILON as f64 * abs[b];
        assert!(
            (got[b] - sum[b]).abs() <= tol,
            "bin {b}: {} vs {} (tol {tol})",
            got[b],
            sum[b]
        );
    }
}

/// scatter and put: the last writer in C order of the indices wins, on every run; every
/// dtype; strided targets; errors leave the target as it was.
fn scatter_last<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(8);
    let (base, h) = upload::<T>(d, &values::<T>(&mut rng, 6 * 8), &[6, 8]);
    let mut want = h.clone();
    // Target: a strided view [3, 4] (rows 0, 2, 4; columns 1, 3, 5, 7), along axis 0.
    let view = base
        .slice([Slice::from(..).step(2), Slice::from(1..).step(2)])
        .unwrap();
    let offs = offsets(&view);
    let ishape = [9, 4];
    let raw = rng.ints(36, -3, 2);
    let idx = d
        .from_slice(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>(), ishape)
        .unwrap();
    let (src, sv) = upload::<T>(d, &values::<T>(&mut rng, 36), &ishape);
    view.scatter(0, &idx, &src).unwrap();
    for k in 0..36 {
        let j = k % 4;
        let r = (raw[k] as i64).rem_euclid(3) as usize;
        want[offs[r * 4 + j]] = sv[k]; // later k overwrite earlier ones
    }
    exact(&host(&base), &want);
    // put into the strided view (through a copy) and into a contiguous array.
    let pidx: Vec<i32> = vec![0, -1, 5, 5, 11, 0];
    let (pv, pvh) = upload::<T>(d, &values::<T>(&mut rng, 6), &[2, 3]);
    view.put(&d.from_slice(&pidx, [6]).unwrap(), &pv).unwrap();
    for (k, &p) in pidx.iter().enumerate() {
        want[offs[(p as i64).rem_euclid(12) as usize]] = pvh[k];
    }
    exact(&host(&base), &want);
    let flat = d.zeros::<T>([5]).unwrap();
    let one = d.from_slice(&cast_in::<T>(&[4.0]).0, [1]).unwrap();
    flat.put(&d.from_slice(&[1u32, 3], [2]).unwrap(), &one)
        .unwrap();
    exact(&host(&flat), &[0.0, 4.0, 0.0, 4.0, 0.0]);
    // Errors write nothing.
    let far = d.from_slice(&[0i32, 12], [2]).unwrap();
    assert!(matches!(
        view.put(&far, &one),
        Err(Error::IndexOutOfRange { .. })
    ));
    let two = d.zeros::<T>([2]).unwrap();
    assert!(matches!(
        view.put(&d.zeros::<i32>([3]).unwrap(), &two),
        Err(Error::SizeMismatch { .. })
    ));
    let bad = d.from_slice(&[3i32; 4], [1, 4]).unwrap();
    assert!(view
        .scatter(0, &bad, &d.zeros::<T>([1, 4]).unwrap())
        .is_err());
    exact(&host(&base), &want);
}
