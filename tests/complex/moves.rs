//! Data movement of complex arrays: every family that only moves elements, on views.
//! Exact (bit for bit) against the CPU model: `Host` over element positions says which
//! input element each output element reads.

use gpuarray::{Array, ComplexFloat, IndexMode, PadMode, Real, Slice};

use crate::common::{dev, if_supported, Host, Rng};
use crate::{same_bits, upload};

/// The positions 0..n of `shape`, as a host array to move around like the data.
fn positions(shape: &[usize]) -> Host {
    let n = shape.iter().product::<usize>();
    Host::new(shape, (0..n).map(|i| i as f64).collect())
}

/// The values at the positions of `h`.
fn at<C: Copy>(v: &[C], h: &Host) -> Vec<C> {
    h.data.iter().map(|&p| v[p as usize]).collect()
}

fn copies_of_views<C: ComplexFloat>() {
    let mut rng = Rng::new(1);
    for shape in [
        vec![7usize, 13],
        vec![1, 1],
        vec![0, 5],
        vec![3, 300],
        vec![17, 19],
    ] {
        let (x, v) = upload::<C>(&mut rng, &shape);
        let p = positions(&shape);
        // A transposed view copied (the transpose copy), and its reshape (a copy too).
        let t = x.t().contiguous().unwrap();
        assert!(t.is_contiguous());
        same_bits(&t.to_vec().unwrap(), &at(&v, &p.t()), "t().contiguous()");
        let flat = x.t().reshape([shape.iter().product::<usize>()]).unwrap();
        same_bits(&flat.to_vec().unwrap(), &at(&v, &p.t()), "t().reshape()");
        same_bits(
            &x.t().copy().unwrap().to_vec().unwrap(),
            &at(&v, &p.t()),
            "copy",
        );
        same_bits(
            &x.t().cast::<C>().unwrap().to_vec().unwrap(),
            &at(&v, &p.t()),
            "cast to itself",
        );
        if shape[0] >= 3 && shape[1] >= 3 {
            // Stepped, offset and reversed views.
            let s = x
                .slice([Slice::from(1..).step(2), Slice::from(..).step(-2)])
                .unwrap();
            let rows: Vec<usize> = (1..shape[0]).step_by(2).collect();
            let cols: Vec<usize> = (0..shape[1]).rev().step_by(2).collect();
            let want: Vec<C> = rows
                .iter()
                .flat_map(|&r| cols.iter().map(move |&c| (r, c)))
                .map(|(r, c)| v[r * shape[1] + c])
                .collect();
            same_bits(
                &s.contiguous().unwrap().to_vec().unwrap(),
                &want,
                "stepped view",
            );
            // A broadcast view copied.
            let row = x.slice_axis(0, 1..2).unwrap();
            let b = row
                .broadcast_to([4, 1, shape[1]])
                .unwrap()
                .contiguous()
                .unwrap();
            let want: Vec<C> = (0..4)
                .flat_map(|_| v[shape[1]..2 * shape[1]].to_vec())
                .collect();
            same_bits(&b.to_vec().unwrap(), &want, "broadcast copy");
        }
    }
}

fn joins<C: ComplexFloat>() {
    let mut rng = Rng::new(2);
    let (a, va) = upload::<C>(&mut rng, &[3, 5]);
    let (b, vb) = upload::<C>(&mut rng, &[5, 3]);
    // Along axis 1: a with b transposed (a strided view).
    let j = Array::concatenate(&[&a, &b.t()], 1).unwrap();
    let pb = positions(&[5, 3]).t();
    let mut want = Vec::new();
    for r in 0..3 {
        want.extend_from_slice(&va[r * 5..r * 5 + 5]);
        want.extend(at(&vb, &pb)[r * 5..r * 5 + 5].iter().copied());
    }
    same_bits(&j.to_vec().unwrap(), &want, "concatenate");
    let s = Array::stack(&[&a, &a.flip(0).unwrap()], 2).unwrap();
    assert_eq!(s.shape(), &[3, 5, 2]);
    let got = s.to_vec().unwrap();
    for r in 0..3 {
        for c in 0..5 {
            same_bits(
                &got[(r * 5 + c) * 2..(r * 5 + c) * 2 + 2],
                &[va[r * 5 + c], va[(2 - r) * 5 + c]],
                "stack",
            );
        }
    }
    assert!(j.split(3, 1).is_err());
    let halves = j.array_split(2, 1).unwrap();
    same_bits(
        &halves[0].contiguous().unwrap().to_vec().unwrap(),
        &va,
        "split",
    );
}

fn remaps<C: ComplexFloat>() {
    let mut rng = Rng::new(3);
    for n in [1usize, 2, 13, 257, 1031] {
        let (x, v) = upload::<C>(&mut rng, &[n]);
        let want: Vec<C> = v.iter().rev().copied().collect();
        same_bits(&x.flip(0).unwrap().to_vec().unwrap(), &want, "flip");
        for shift in [1isize, -3, 7] {
            let s = shift.rem_euclid(n as isize) as usize;
            let want: Vec<C> = (0..n).map(|i| v[(i + n - s) % n]).collect();
            same_bits(
                &x.roll(shift, None).unwrap().to_vec().unwrap(),
                &want,
                "roll flat",
            );
            same_bits(
                &x.roll(shift, 0).unwrap().to_vec().unwrap(),
                &want,
                "roll axis",
            );
        }
    }
    let (x, v) = upload::<C>(&mut rng, &[4, 6]);
    let xt = x.t(); // [6, 4], strided
    let p = positions(&[4, 6]).t();
    let vt = at(&v, &p);
    let fill = C::new(crate::re_of::<C>(1.5), crate::re_of::<C>(-0.0));
    let padded = xt.pad(&[(1, 2), (0, 3)], PadMode::Constant(fill)).unwrap();
    assert_eq!(padded.shape(), &[9, 7]);
    let got = padded.to_vec().unwrap();
    for r in 0..9 {
        for c in 0..7 {
            let inside = (1..7).contains(&r) && c < 4;
            let w = if inside { vt[(r - 1) * 4 + c] } else { fill };
            same_bits(&got[r * 7 + c..r * 7 + c + 1], &[w], "pad constant");
        }
    }
    let zero = C::new(crate::re_of::<C>(0.0), crate::re_of::<C>(0.0));
    let padded = xt.pad(&[(2, 1)], PadMode::Constant(zero)).unwrap();
    let got = padded.to_vec().unwrap();
    assert_eq!(padded.shape(), &[9, 7]);
    same_bits(&got[2 * 7 + 2..2 * 7 + 6], &vt[0..4], "pad zero");
    same_bits(&got[0..1], &[zero], "pad zero outside");
    let reflect = xt.pad(&[(0, 0), (2, 2)], PadMode::Reflect).unwrap();
    let got = reflect.to_vec().unwrap();
    let map = [2usize, 1, 0, 1, 2, 3, 2, 1];
    for r in 0..6 {
        for (c, &m) in map.iter().enumerate() {
            same_bits(
                &got[r * 8 + c..r * 8 + c + 1],
                &[vt[r * 4 + m]],
                "pad reflect",
            );
        }
    }
    let tiled = xt.tile(&[2, 1]).unwrap();
    let want: Vec<C> = vt.iter().chain(vt.iter()).copied().collect();
    same_bits(&tiled.to_vec().unwrap(), &want, "tile");
    let rep = xt.repeat(2, 1).unwrap();
    let want: Vec<C> = vt.iter().flat_map(|&z| [z, z]).collect();
    same_bits(&rep.to_vec().unwrap(), &want, "repeat");
    let each = xt.repeat_each(&[0, 2, 1, 3], 1).unwrap();
    let want: Vec<C> = (0..6)
        .flat_map(|r| [1usize, 1, 2, 3, 3, 3].map(|c| vt[r * 4 + c]))
        .collect();
    same_bits(&each.to_vec().unwrap(), &want, "repeat_each");
    let up = xt.triu(1).unwrap().to_vec().unwrap();
    let lo = xt.tril(0).unwrap().to_vec().unwrap();
    for r in 0..6 {
        for c in 0..4 {
            let w = if c > r { vt[r * 4 + c] } else { zero };
            same_bits(&up[r * 4 + c..r * 4 + c + 1], &[w], "triu");
            let w = if c <= r { vt[r * 4 + c] } else { zero };
            same_bits(&lo[r * 4 + c..r * 4 + c + 1], &[w], "tril");
        }
    }
}

fn gathers<C: ComplexFloat>() {
    let mut rng = Rng::new(4);
    let (x, v) = upload::<C>(&mut rng, &[5, 7]);
    let xt = x.t(); // [7, 5]
    let vt = at(&v, &positions(&[5, 7]).t());
    let idx = dev().from_slice(&[4i32, -1, 0, 2], [4]).unwrap();
    let got = xt.take(&idx, 1).unwrap();
    assert_eq!(got.shape(), &[7, 4]);
    let want: Vec<C> = (0..7)
        .flat_map(|r| [4usize, 4, 0, 2].map(|c| vt[r * 5 + c]))
        .collect();
    same_bits(&got.to_vec().unwrap(), &want, "take axis 1");
    let got = xt.take(&idx, None).unwrap();
    same_bits(
        &got.to_vec().unwrap(),
        &[vt[4], vt[34], vt[0], vt[2]],
        "take flat",
    );
    let wrap = dev().from_slice(&[9u32, 5], [2]).unwrap();
    let got = xt
        .take_mode(&wrap, 1, IndexMode::Wrap)
        .unwrap()
        .to_vec()
        .unwrap();
    same_bits(&got[..2], &[vt[4], vt[0]], "take wrap");
    // i64 indices, as NumPy's argsort gives (GL has no i64: a recorded skip there).
    if_supported::<i64>(|| {
        let along = dev().from_slice(&[1i64, 0, 3, 3, 2, 0, 1], [7, 1]).unwrap();
        let got = xt.take_along_axis(&along, 1).unwrap();
        let want: Vec<C> = [1usize, 0, 3, 3, 2, 0, 1]
            .iter()
            .enumerate()
            .map(|(r, &c)| vt[r * 5 + c])
            .collect();
        same_bits(&got.to_vec().unwrap(), &want, "take_along_axis");
    });
    let rows = dev().from_slice(&[6i32, 0], [2]).unwrap();
    let cols = dev().from_slice(&[1i32, 4], [2]).unwrap();
    let got = xt.gather(&[Some(&rows), Some(&cols)]).unwrap();
    same_bits(&got.to_vec().unwrap(), &[vt[31], vt[4]], "gather");
    // An index out of range: a typed error, the array untouched, the device usable.
    let bad = dev().from_slice(&[5i32], [1]).unwrap();
    assert!(matches!(
        xt.take(&bad, 1),
        Err(gpuarray::Error::IndexOutOfRange { .. })
    ));
    same_bits(&x.to_vec().unwrap(), &v, "after a refused take");
}

fn writes<C: ComplexFloat>() {
    let mut rng = Rng::new(5);
    let z = |a: f64, b: f64| C::new(crate::re_of::<C>(a), crate::re_of::<C>(b));
    assert_eq!(dev().empty::<C>([2, 3]).unwrap().shape(), &[2, 3]);
    let x = dev().zeros::<C>([4, 6]).unwrap();
    same_bits(&x.to_vec().unwrap(), &[z(0.0, 0.0); 24], "zeros");
    let f = dev().full([3], z(2.5, -7.0)).unwrap();
    same_bits(&f.to_vec().unwrap(), &[z(2.5, -7.0); 3], "full");
    let e = dev().eye::<C>(3).unwrap().to_vec().unwrap();
    for i in 0..9 {
        let w = if i % 4 == 0 { z(1.0, 0.0) } else { z(0.0, 0.0) };
        same_bits(&e[i..i + 1], &[w], "eye");
    }
    // fill through a strided view, assign a broadcast row into a transposed view.
    x.slice([Slice::from(..), Slice::from(1..).step(2)])
        .unwrap()
        .fill(z(-1.0, 3.0))
        .unwrap();
    let (row, vr) = upload::<C>(&mut rng, &[4]);
    x.t().slice_axis(0, 0..1).unwrap().assign(&row).unwrap();
    let got = x.to_vec().unwrap();
    for r in 0..4 {
        for c in 0..6 {
            let w = if c == 0 {
                vr[r]
            } else if c % 2 == 1 {
                z(-1.0, 3.0)
            } else {
                z(0.0, 0.0)
            };
            same_bits(&got[r * 6 + c..r * 6 + c + 1], &[w], "fill and assign");
        }
    }
    let (y, vy) = upload::<C>(&mut rng, &[2, 3]);
    let m = dev()
        .from_slice(&[true, false, true, false, false, true], [2, 3])
        .unwrap();
    y.masked_fill(&m, z(9.0, -9.0)).unwrap();
    let want: Vec<C> = (0..6)
        .map(|i| {
            if [0, 2, 5].contains(&i) {
                z(9.0, -9.0)
            } else {
                vy[i]
            }
        })
        .collect();
    same_bits(&y.to_vec().unwrap(), &want, "masked_fill");
    let vals = dev()
        .from_slice(&[z(1.0, 2.0), z(3.0, 4.0), z(5.0, 6.0)], [3])
        .unwrap();
    y.masked_assign(&m, &vals).unwrap();
    let want: Vec<C> = (0..6)
        .map(|i| match i {
            0 => z(1.0, 2.0),
            2 => z(3.0, 4.0),
            5 => z(5.0, 6.0),
            _ => vy[i],
        })
        .collect();
    same_bits(&y.to_vec().unwrap(), &want, "masked_assign");
    let t = dev().zeros::<C>([5]).unwrap();
    let idx = dev().from_slice(&[3i32, -1, 0], [3]).unwrap();
    t.put(&idx, &vals).unwrap();
    let zero = z(0.0, 0.0);
    same_bits(
        &t.to_vec().unwrap(),
        &[z(5.0, 6.0), zero, zero, z(1.0, 2.0), z(3.0, 4.0)],
        "put",
    );
    let s = dev().zeros::<C>([3, 2]).unwrap();
    let si = dev().from_slice(&[2i32, 0, 2, 1], [2, 2]).unwrap();
    let src = dev()
        .from_slice(
            &[z(1.0, -1.0), z(2.0, -2.0), z(3.0, -3.0), z(4.0, -4.0)],
            [2, 2],
        )
        .unwrap();
    s.scatter(0, &si, &src).unwrap();
    same_bits(
        &s.to_vec().unwrap(),
        &[zero, z(2.0, -2.0), zero, z(4.0, -4.0), z(3.0, -3.0), zero],
        "scatter",
    );
    // where_ with a broadcast mask and a broadcast operand.
    let (a, va) = upload::<C>(&mut rng, &[3, 4]);
    let (b, vb) = upload::<C>(&mut rng, &[4]);
    let mask = dev().from_slice(&[true, false, false, true], [4]).unwrap();
    let w = Array::where_(&mask, &a, &b).unwrap();
    let want: Vec<C> = (0..12)
        .map(|i| {
            if [0, 3].contains(&(i % 4)) {
                va[i]
            } else {
                vb[i % 4]
            }
        })
        .collect();
    same_bits(&w.to_vec().unwrap(), &want, "where_");
}

fn casts<C: ComplexFloat>() {
    let mut rng = Rng::new(6);
    let (x, v) = upload::<C>(&mut rng, &[3, 5]);
    // complex -> real keeps the real part (NumPy drops the imaginary part).
    let re = x.t().cast::<f32>().unwrap().to_vec().unwrap();
    let vt = at(&v, &positions(&[3, 5]).t());
    for (g, w) in re.iter().zip(&vt) {
        assert_eq!(*g, w.re().to_f64() as f32);
    }
    let ints = x.cast::<i32>().unwrap().to_vec().unwrap();
    for (g, w) in ints.iter().zip(&v) {
        assert_eq!(*g, w.re().to_f64() as i32);
    }
    // complex64 <-> complex128 (where f64 is), each component as f32 <-> f64.
    if dev().supports::<f64>() {
        let wide = x
            .t()
            .cast::<gpuarray::Complex<f64>>()
            .unwrap()
            .to_vec()
            .unwrap();
        for (g, w) in wide.iter().zip(&vt) {
            assert_eq!((g.re, g.im), (w.re().to_f64(), w.im().to_f64()));
        }
        let narrow = x
            .cast::<gpuarray::Complex<f32>>()
            .unwrap()
            .to_vec()
            .unwrap();
        for (g, w) in narrow.iter().zip(&v) {
            assert_eq!(
                (g.re, g.im),
                (w.re().to_f64() as f32, w.im().to_f64() as f32)
            );
        }
    }
    // real -> complex: the real part, imaginary part +0.
    let r = dev()
        .from_slice(&[1.5f32, -0.0, 7.0, f32::INFINITY], [2, 2])
        .unwrap();
    let c = r.t().cast::<C>().unwrap().to_vec().unwrap();
    for (g, w) in c.iter().zip([1.5f64, 7.0, -0.0, f64::INFINITY]) {
        assert_eq!(g.re().to_f64().to_bits(), w.to_bits());
        assert_eq!(g.im().to_f64().to_bits(), 0.0f64.to_bits());
    }
    let i = dev()
        .from_slice(&[3i32, -4], [2])
        .unwrap()
        .cast::<C>()
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(crate::pairs(&i), vec![(3.0, 0.0), (-4.0, 0.0)]);
    let b = dev()
        .from_slice(&[true, false], [2])
        .unwrap()
        .cast::<C>()
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(crate::pairs(&b), vec![(1.0, 0.0), (0.0, 0.0)]);
}

/// Printing as NumPy prints complex numbers.
fn printing<C: ComplexFloat>() {
    let z = |a: f64, b: f64| C::new(crate::re_of::<C>(a), crate::re_of::<C>(b));
    let x = dev().from_slice(&[z(1.0, 2.0), z(3.0, -0.0)], [2]).unwrap();
    assert_eq!(x.to_string(), "[1.+2.j 3.-0.j]");
    let m = dev()
        .from_slice(&[z(0.5, 1.0), z(-2.0, 1.0)], [2, 1])
        .unwrap();
    assert_eq!(m.to_string(), "[[ 0.5+1.j]\n [-2. +1.j]]");
    let s = dev().from_slice(&[z(1.5, -2.0)], []).unwrap();
    assert_eq!(s.to_string(), "(1.5-2j)");
}

crate::both! {
    printing => printing;
    copies_of_views => copies_of_views;
    joins => joins;
    remaps => remaps;
    gathers => gathers;
    writes => writes;
    casts => casts;
}
