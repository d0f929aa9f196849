//! Property tests: random shapes (0 to 4-D, extents 0, 1, primes and others), dtypes, views
//! (transposes, stepped slices, broadcasts) and random sequences of elementwise ops,
//! reductions, matrix products and convolutions, each compared with a CPU f64 reference.
//!
//! `GPUARRAY_PROP_CASES` sets the number of cases (default 1,000, under a minute on
//! lavapipe); `GPUARRAY_PROP_SEED` the first seed. Case `k` uses seed `seed + k`, so a
//! failure names the one seed that reproduces it (`GPUARRAY_PROP_SEED=<seed>
//! GPUARRAY_PROP_CASES=1`).
//!
//! Tolerances: f32 elementwise results 1e-5 relative (transcendentals 1e-5 + 1e-6 absolute);
//! integer results exact; sums, means, matmul and convolutions `eps * 4 * (reduction length
//! + 1) * (sum of |terms|)`, the bound of a recursive sum, with eps of the dtype.

#[macro_use]
mod common;

use common::*;
use gpuarray::nn::{conv2d, Conv2d};
use gpuarray::signal::{convolve, convolve2d, Mode};
use gpuarray::{Array, Slice};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const EXTENTS: [usize; 10] = [0, 1, 1, 2, 3, 4, 5, 7, 13, 31];

/// A random extent: mostly small, sometimes 0, 1 or a prime.
fn extent(rng: &mut Rng, big: bool) -> usize {
    if big && rng.bool(0.2) {
        [37usize, 64, 97, 128, 251][(rng.next_u64() % 5) as usize]
    } else {
        EXTENTS[(rng.next_u64() % EXTENTS.len() as u64) as usize]
    }
}

fn shape(rng: &mut Rng) -> Vec<usize> {
    let nd = (rng.next_u64() % 5) as usize;
    let mut s: Vec<usize> = (0..nd).map(|_| extent(rng, nd <= 2)).collect();
    // Keep the element count moderate.
    while s.iter().product::<usize>() > 20_000 {
        let d = (rng.next_u64() % s.len() as u64) as usize;
        s[d] = s[d].div_ceil(2);
    }
    s
}

/// A random view of a fresh array whose shape is `want`: plain, transposed, a stepped
/// slice of a larger array, or a broadcast of a smaller one. Returns the view and its
/// host model.
fn view<T: Ty>(rng: &mut Rng, want: &[usize], lo: f64, hi: f64) -> (Array<T>, Host) {
    let dev = dev();
    let make = |rng: &mut Rng, s: &[usize]| {
        let n: usize = s.iter().product();
        let v = if T::FLOAT {
            rng.vec(n.max(1), lo, hi)[..n].to_vec()
        } else {
            rng.ints(n, lo as i64, hi as i64)
        };
        let (a, back) = upload::<T>(dev, &v, s);
        (a, Host::new(s, back))
    };
    match rng.next_u64() % 4 {
        0 => make(rng, want),
        1 if want.len() >= 2 => {
            // The transpose of an array of the reversed shape.
            let rev: Vec<usize> = want.iter().rev().copied().collect();
            let (a, h) = make(rng, &rev);
            (a.t(), h.t())
        }
        2 => {
            // A stepped slice with an offset.
            let steps: Vec<usize> = want
                .iter()
                .map(|_| 1 + (rng.next_u64() % 3) as usize)
                .collect();
            let starts: Vec<usize> = want.iter().map(|_| (rng.next_u64() % 3) as usize).collect();
            let big: Vec<usize> = want
                .iter()
                .zip(&steps)
                .zip(&starts)
                .map(|((&w, &st), &s0)| s0 + if w == 0 { 0 } else { (w - 1) * st + 1 })
                .collect();
            let (a, h) = make(rng, &big);
            let sl: Vec<Slice> = (0..want.len())
                .map(|d| {
                    let end = starts[d] + want[d] * steps[d];
                    Slice::new(starts[d] as isize, Some(end.min(big[d]) as isize), steps[d])
                })
                .collect();
            let hs: Vec<(usize, usize, usize)> = (0..want.len())
                .map(|d| {
                    (
                        starts[d],
                        (starts[d] + want[d] * steps[d]).min(big[d]),
                        steps[d],
                    )
                })
                .collect();
            let v = a.slice(sl.as_slice()).expect("slice");
            let hv = h.slice(&hs);
            assert_eq!(v.shape(), want);
            (v, hv)
        }
        _ => {
            // A broadcast of a shape with some axes 1 (and maybe fewer dimensions).
            let drop_lead = if want.is_empty() {
                0
            } else {
                (rng.next_u64() % 2) as usize
            };
            let small: Vec<usize> = want[drop_lead.min(want.len())..]
                .iter()
                .map(|&w| if rng.bool(0.5) { 1 } else { w })
                .collect();
            let (a, h) = make(rng, &small);
            (
                a.broadcast_to(want).expect("broadcast"),
                h.broadcast_to(want),
            )
        }
    }
}

fn tol<T: Ty>(terms: usize, mag: f64) -> f64 {
    T::EPS * 4.0 * (terms as f64 + 1.0) * mag
}

/// A random chain of 1 to 4 elementwise ops, compared after each read.
fn elementwise_case<T: Ty + gpuarray::Signed>(rng: &mut Rng, what: &str) {
    let s = shape(rng);
    let (mut x, mut h) = view::<T>(rng, &s, -4.0, 4.0);
    let steps = 1 + rng.next_u64() % 4;
    for step in 0..steps {
        let (other, ho) = {
            // A second operand broadcast against x from either side.
            let mut t = s.clone();
            if !t.is_empty() && rng.bool(0.5) {
                let d = (rng.next_u64() % t.len() as u64) as usize;
                t[d] = 1;
            }
            view::<T>(rng, &t, -4.0, 4.0)
        };
        let op = rng.next_u64() % 8;
        let (y, e, (atol, rtol)) = match op {
            0 => (
                x.add(&other),
                zip_with(&h, &ho, |a, b| T::wrap(a + b)),
                T::ARITH,
            ),
            1 => (
                x.sub(&other),
                zip_with(&h, &ho, |a, b| T::wrap(a - b)),
                T::ARITH,
            ),
            2 => (
                x.mul(&other),
                zip_with(&h, &ho, |a, b| T::wrap(a * b)),
                T::ARITH,
            ),
            3 => (x.maximum(&other), zip_with(&h, &ho, f64::max), (0.0, 0.0)),
            4 => (x.minimum(&other), zip_with(&h, &ho, f64::min), (0.0, 0.0)),
            5 => (x.abs(), h.map(f64::abs), (0.0, 0.0)),
            6 => (x.neg(), h.map(|a| -a), (0.0, 0.0)),
            _ => {
                let c = rng.int(-3, 3);
                (
                    x.mul_scalar(T::from_f64(c)),
                    h.map(|a| T::wrap(a * c)),
                    T::ARITH,
                )
            }
        };
        let y = y.unwrap_or_else(|e| panic!("{what} step {step} op {op}: {e}"));
        assert_eq!(y.shape(), e.shape.as_slice(), "{what} step {step} op {op}");
        // Keep magnitudes bounded for the next step.
        let (y, e) = if e.data.iter().any(|v| v.abs() > 1e3) {
            (
                y.clip(T::from_f64(-50.0), T::from_f64(50.0)).unwrap(),
                e.map(|v| v.clamp(-50.0, 50.0)),
            )
        } else {
            (y, e)
        };
        assert_close_what(
            &host(&y),
            &e.data,
            atol,
            rtol,
            &format!("{what} step {step} op {op}"),
        );
        x = y;
        h = e;
    }
}

#[track_caller]
fn assert_close_what(a: &[f64], e: &[f64], atol: f64, rtol: f64, what: &str) {
    if let Err(p) = std::panic::catch_unwind(|| assert_close(a, e, atol, rtol)) {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "mismatch".into());
        panic!("{what}: {msg}");
    }
}

/// Reductions over a random axis (or all): sum, max, argmax, mean.
fn reduce_case<T: Ty>(rng: &mut Rng, what: &str) {
    let s = shape(rng);
    let (x, h) = view::<T>(rng, &s, -8.0, 8.0);
    let n = h.len();
    let axis = if s.is_empty() || rng.bool(0.25) {
        None
    } else {
        Some((rng.next_u64() % s.len() as u64) as usize)
    };
    // Groups of the reduction: (outputs, their member indices into h.data).
    let (out_shape, groups): (Vec<usize>, Vec<Vec<usize>>) = match axis {
        None => (vec![], vec![(0..n).collect()]),
        Some(a) => {
            let mut os = s.clone();
            let k = os.remove(a);
            let m: usize = os.iter().product();
            let stride: usize = s[a + 1..].iter().product();
            let groups = (0..m)
                .map(|o| {
                    let (outer, inner) = (o / stride.max(1), o % stride.max(1));
                    (0..k)
                        .map(|j| outer * k * stride + j * stride + inner)
                        .collect()
                })
                .collect();
            (os, groups)
        }
    };
    let op = rng.next_u64() % 4;
    let k = groups.first().map_or(0, |g| g.len());
    let what = format!("{what} shape {s:?} axis {axis:?} op {op}");
    let empty_max = k == 0;
    if empty_max && (op == 1 || op == 2) {
        // max/argmax of nothing: an error, never a panic.
        let r = match (op, axis) {
            (1, None) => x.max().map(drop),
            (1, Some(a)) => x.max_axis(a, false).map(drop),
            (_, None) => x.argmax().map(drop),
            (_, Some(a)) => x.argmax_axis(a, false).map(drop),
        };
        if !groups.is_empty() {
            assert!(r.is_err(), "{what}: max of an empty axis gave {r:?}");
        }
        return;
    }
    let vals = |g: &Vec<usize>| g.iter().map(|&i| h.data[i]).collect::<Vec<f64>>();
    match op {
        0 | 3 => {
            let y: gpuarray::Result<Array<f32>> = match (op, axis) {
                (0, None) => x.sum().and_then(|y| y.cast::<f32>()),
                (0, Some(a)) => x.sum_axis(a, false).and_then(|y| y.cast::<f32>()),
                // mean is for floats: of the f32 cast (exact for these integers).
                (_, None) => x.cast::<f32>().and_then(|x| x.mean()),
                (_, Some(a)) => x.cast::<f32>().and_then(|x| x.mean_axis(a, false)),
            };
            if op == 3 && k == 0 {
                // The mean of nothing is NaN (NumPy); not compared.
                let _ = y;
                return;
            }
            let y = y.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(y.shape(), out_shape.as_slice(), "{what}");
            let got = host(&y);
            for (o, g) in groups.iter().enumerate() {
                let v = vals(g);
                let mut e: f64 = v.iter().sum();
                let mut mag: f64 = v.iter().map(|a| a.abs()).sum();
                if op == 3 {
                    e /= k as f64;
                    mag /= k as f64;
                }
                let e = if T::FLOAT || op == 3 { e } else { T::wrap(e) };
                let t = if T::FLOAT || op == 3 {
                    tol::<f32>(k, mag)
                } else {
                    0.0
                };
                assert_close_what(&got[o..o + 1], &[e], t, 0.0, &format!("{what} output {o}"));
            }
        }
        1 => {
            let y = match axis {
                None => x.max(),
                Some(a) => x.max_axis(a, false),
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let e: Vec<f64> = groups
                .iter()
                .map(|g| vals(g).into_iter().fold(f64::NEG_INFINITY, f64::max))
                .collect();
            assert_close_what(&host(&y), &e, 0.0, 0.0, &what);
        }
        _ => {
            let y = match axis {
                None => x.argmax(),
                Some(a) => x.argmax_axis(a, false),
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            // The first index of the maximum (NumPy): compare the values it points at and
            // that no earlier one is as large.
            let got = host(&y);
            for (o, g) in groups.iter().enumerate() {
                let v = vals(g);
                let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let first = v.iter().position(|&a| a == m).unwrap();
                assert_eq!(got[o] as usize, first, "{what} output {o}: values {v:?}");
            }
        }
    }
}

/// A batched, broadcast or plain matmul of random views against the f64 reference.
fn matmul_case<T: Ty>(rng: &mut Rng, what: &str) {
    let m = extent(rng, true).min(97);
    let k = extent(rng, true).min(97);
    let n = extent(rng, true).min(97);
    let batch = if rng.bool(0.3) {
        vec![1 + (rng.next_u64() % 3) as usize]
    } else {
        vec![]
    };
    let sa: Vec<usize> = batch.iter().copied().chain([m, k]).collect();
    let bb = if rng.bool(0.5) { vec![] } else { batch.clone() };
    let sb: Vec<usize> = bb.iter().copied().chain([k, n]).collect();
    let (a, ha) = view::<T>(rng, &sa, -2.0, 2.0);
    let (b, hb) = view::<T>(rng, &sb, -2.0, 2.0);
    let what = format!("{what} {sa:?} @ {sb:?}");
    let y = a.matmul(&b).unwrap_or_else(|e| panic!("{what}: {e}"));
    let nb = batch.first().copied().unwrap_or(1);
    let mut e = Vec::with_capacity(nb * m * n);
    let mut t = Vec::with_capacity(nb * m * n);
    for bi in 0..nb {
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut mag) = (0.0, 0.0);
                for kk in 0..k {
                    let x = ha.data[bi * m * k + i * k + kk];
                    let y = if bb.is_empty() {
                        hb.data[kk * n + j]
                    } else {
                        hb.data[bi * k * n + kk * n + j]
                    };
                    s += x * y;
                    mag += (x * y).abs();
                }
                e.push(if T::FLOAT { s } else { T::wrap(s) });
                t.push(if T::FLOAT { tol::<T>(k, mag) } else { 0.0 });
            }
        }
    }
    let got = host(&y);
    assert_eq!(got.len(), e.len(), "{what}");
    for i in 0..e.len() {
        assert_close_what(
            &got[i..i + 1],
            &e[i..i + 1],
            t[i],
            0.0,
            &format!("{what} element {i}"),
        );
    }
}

/// signal.convolve (1-D), signal.convolve2d and nn.conv2d against direct sums (f32).
fn conv_case(rng: &mut Rng, what: &str) {
    let mode = [Mode::Full, Mode::Same, Mode::Valid][(rng.next_u64() % 3) as usize];
    match rng.next_u64() % 3 {
        0 => {
            let n = 1 + (rng.next_u64() % 300) as usize;
            let m = 1 + (rng.next_u64() % 40) as usize;
            let (x, hx) = view::<f32>(rng, &[n], -1.0, 1.0);
            let (w, hw) = view::<f32>(rng, &[m], -1.0, 1.0);
            let what = format!("{what} convolve {n} * {m} {mode:?}");
            let y = convolve(&x, &w, mode).unwrap_or_else(|e| panic!("{what}: {e}"));
            let full: Vec<(f64, f64)> = (0..n + m - 1)
                .map(|o| {
                    let mut s = (0.0, 0.0);
                    for j in 0..n {
                        if o >= j && o - j < m {
                            s.0 += hx.data[j] * hw.data[o - j];
                            s.1 += (hx.data[j] * hw.data[o - j]).abs();
                        }
                    }
                    s
                })
                .collect();
            let (start, len) = match mode {
                Mode::Full => (0, n + m - 1),
                Mode::Same => ((m - 1) / 2, n),
                Mode::Valid => (n.min(m) - 1, n.max(m) - n.min(m) + 1),
            };
            let got = host(&y);
            assert_eq!(got.len(), len, "{what}");
            for i in 0..len {
                let (e, mag) = full[start + i];
                assert_close_what(
                    &got[i..i + 1],
                    &[e],
                    tol::<f32>(m.min(n), mag),
                    0.0,
                    &format!("{what} [{i}]"),
                );
            }
        }
        1 => {
            let (h, w) = (
                1 + (rng.next_u64() % 20) as usize,
                1 + (rng.next_u64() % 20) as usize,
            );
            let (kh, kw) = (
                1 + (rng.next_u64() % 5) as usize,
                1 + (rng.next_u64() % 5) as usize,
            );
            let (x, hx) = view::<f32>(rng, &[h, w], -1.0, 1.0);
            let (k, hk) = view::<f32>(rng, &[kh, kw], -1.0, 1.0);
            let what = format!("{what} convolve2d {h}x{w} * {kh}x{kw} {mode:?}");
            let y = convolve2d(&x, &k, mode);
            if mode == Mode::Valid && !((h >= kh && w >= kw) || (h <= kh && w <= kw)) {
                assert!(
                    y.is_err(),
                    "{what}: SciPy refuses this valid shape, got {y:?}"
                );
                return;
            }
            let y = y.unwrap_or_else(|e| panic!("{what}: {e}"));
            let (fh, fw) = (h + kh - 1, w + kw - 1);
            let full = |p: usize, q: usize| {
                let mut s = (0.0, 0.0);
                for i in 0..h {
                    for j in 0..w {
                        if p >= i && p - i < kh && q >= j && q - j < kw {
                            let t = hx.data[i * w + j] * hk.data[(p - i) * kw + q - j];
                            s.0 += t;
                            s.1 += t.abs();
                        }
                    }
                }
                s
            };
            let (r0, c0, oh, ow) = match mode {
                Mode::Full => (0, 0, fh, fw),
                Mode::Same => ((kh - 1) / 2, (kw - 1) / 2, h, w),
                Mode::Valid => (
                    h.min(kh) - 1,
                    w.min(kw) - 1,
                    h.max(kh) - h.min(kh) + 1,
                    w.max(kw) - w.min(kw) + 1,
                ),
            };
            let got = host(&y);
            assert_eq!(y.shape(), &[oh, ow], "{what}");
            for p in 0..oh {
                for q in 0..ow {
                    let (e, mag) = full(r0 + p, c0 + q);
                    let i = p * ow + q;
                    assert_close_what(
                        &got[i..i + 1],
                        &[e],
                        tol::<f32>(kh * kw, mag),
                        0.0,
                        &format!("{what} [{p},{q}]"),
                    );
                }
            }
        }
        _ => {
            let groups = [1, 1, 2][(rng.next_u64() % 3) as usize];
            let nb = 1 + (rng.next_u64() % 2) as usize;
            let c = groups * (1 + (rng.next_u64() % 3) as usize);
            let o =
                groups * (1 + (rng.next_u64() % 4) as usize) * if rng.bool(0.3) { 8 } else { 1 };
            let (h, w) = (
                1 + (rng.next_u64() % 12) as usize,
                1 + (rng.next_u64() % 12) as usize,
            );
            let (kh, kw) = (
                1 + (rng.next_u64() % 3) as usize,
                1 + (rng.next_u64() % 3) as usize,
            );
            let opt = Conv2d {
                stride: [
                    1 + (rng.next_u64() % 2) as usize,
                    1 + (rng.next_u64() % 2) as usize,
                ],
                padding: [(rng.next_u64() % 2) as usize, (rng.next_u64() % 2) as usize],
                dilation: [1 + (rng.next_u64() % 2) as usize, 1],
                groups,
            };
            let cg = c / groups;
            let (x, hx) = view::<f32>(rng, &[nb, c, h, w], -1.0, 1.0);
            let (wt, hw) = view::<f32>(rng, &[o, cg, kh, kw], -1.0, 1.0);
            let (bias, hb) = view::<f32>(rng, &[o], -1.0, 1.0);
            let what = format!("{what} conv2d x {:?} w {:?} {opt:?}", x.shape(), wt.shape());
            let ext = |n: usize, p: usize, d: usize, k: usize, s: usize| {
                (n + 2 * p).checked_sub(d * (k - 1) + 1).map(|v| v / s + 1)
            };
            let (oh, ow) = match (
                ext(h, opt.padding[0], opt.dilation[0], kh, opt.stride[0]),
                ext(w, opt.padding[1], opt.dilation[1], kw, opt.stride[1]),
            ) {
                (Some(a), Some(b)) => (a, b),
                _ => {
                    let r = conv2d(&x, &wt, Some(&bias), opt);
                    assert!(
                        r.is_err(),
                        "{what}: filter larger than the input gave {r:?}"
                    );
                    return;
                }
            };
            let y = conv2d(&x, &wt, Some(&bias), opt).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(y.shape(), &[nb, o, oh, ow], "{what}");
            let got = host(&y);
            let og = o / groups;
            for n_ in 0..nb {
                for oc in 0..o {
                    let g = oc / og;
                    for yy in 0..oh {
                        for xx in 0..ow {
                            let (mut s, mut mag) = (hb.data[oc], hb.data[oc].abs());
                            for ci in 0..cg {
                                for a in 0..kh {
                                    for b in 0..kw {
                                        let iy = (yy * opt.stride[0] + a * opt.dilation[0])
                                            as isize
                                            - opt.padding[0] as isize;
                                        let ix = (xx * opt.stride[1] + b * opt.dilation[1])
                                            as isize
                                            - opt.padding[1] as isize;
                                        if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize
                                        {
                                            continue;
                                        }
                                        let cc = g * cg + ci;
                                        let t = hx.data
                                            [((n_ * c + cc) * h + iy as usize) * w + ix as usize]
                                            * hw.data[((oc * cg + ci) * kh + a) * kw + b];
                                        s += t;
                                        mag += t.abs();
                                    }
                                }
                            }
                            let i = ((n_ * o + oc) * oh + yy) * ow + xx;
                            assert_close_what(
                                &got[i..i + 1],
                                &[s],
                                tol::<f32>(cg * kh * kw, mag),
                                0.0,
                                &format!("{what} [{n_},{oc},{yy},{xx}]"),
                            );
                        }
                    }
                }
            }
        }
    }
}

fn one_case(seed: u64) {
    let mut rng = Rng::new(seed);
    let what = format!("seed {seed}");
    match rng.next_u64() % 10 {
        0..=2 => match rng.next_u64() % 2 {
            0 => elementwise_case::<f32>(&mut rng, &what),
            _ => elementwise_case::<i32>(&mut rng, &what),
        },
        3..=5 => match rng.next_u64() % 3 {
            0 | 1 => reduce_case::<f32>(&mut rng, &what),
            _ => reduce_case::<i32>(&mut rng, &what),
        },
        6 | 7 => match rng.next_u64() % 3 {
            0 | 1 => matmul_case::<f32>(&mut rng, &what),
            _ => matmul_case::<i32>(&mut rng, &what),
        },
        _ => conv_case(&mut rng, &what),
    }
}

#[test]
fn random_programs_match_the_cpu() {
    let cases = env_usize("GPUARRAY_PROP_CASES", 1000);
    let seed = env_usize("GPUARRAY_PROP_SEED", 1) as u64;
    let t = std::time::Instant::now();
    let mut failures = Vec::new();
    for k in 0..cases as u64 {
        let s = seed + k;
        let r = std::panic::catch_unwind(|| one_case(s));
        if let Err(p) = r {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("seed {s}: {msg}"));
            if failures.len() >= 5 {
                break;
            }
        }
    }
    eprintln!(
        "properties: {cases} cases from seed {seed} in {:.1} s, {} failed",
        t.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing cases (rerun with GPUARRAY_PROP_SEED=<seed> GPUARRAY_PROP_CASES=1):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
