//! Bluestein's algorithm for lengths with a prime factor above 13: the transform of
//! length n as a chirp convolution of length `padded` (a power of two at least 2n - 1).
//!
//! Where the padded transform fits a workgroup (its plan is one in-workgroup pass), the
//! whole algorithm is two kernels (shaders/fft_chirp.wgsl fused into shaders/fft.wgsl's
//! `main`): a forward transform whose loads multiply by the chirp and whose stores
//! multiply by the chirp filter's transform, then an inverse transform whose stores
//! multiply by the chirp and scale into the caller's output: one read of the input, one
//! write and one read of the padded rows, one write of the output. Longer padded lengths
//! run the five steps of shaders/fft_bluestein.wgsl (chirp, transform, product,
//! transform, chirp).

use std::f64::consts::PI;

use super::kernel::{Dim, FftParams, Io, Launch, Mode};
use super::plan::{contiguous, exec, merge, plan, temp, Job, Node, Table};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{ComplexFloat, DType, Real};
use crate::error::Result;

/// The plan of a Bluestein length.
pub(super) struct Bluestein<C: ComplexFloat> {
    n: usize,
    padded: usize,
    sub: Box<Node<C>>,
    /// The chirp w_k = exp(-i pi k^2 / n), k < n.
    chirp: Table<C>,
    /// The transform of the chirp filter (padded elements).
    filter: Table<C>,
    /// Where `sub` is one in-workgroup pass: the chirp, then the filter's transform
    /// (computed in f64 on the host), for the fused kernels.
    aux: Option<Table<C>>,
}

/// The DFT of `x` (a power-of-two length) in f64: radix-2, twiddles from `sin_cos` each.
fn host_fft(x: &mut [(f64, f64)]) {
    let n = x.len();
    let bits = n.trailing_zeros();
    if n < 2 {
        return;
    }
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - bits);
        if i < j {
            x.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let half = len / 2;
        for k in 0..half {
            let (s, c) = (-2.0 * PI * k as f64 / len as f64).sin_cos();
            for start in (0..n).step_by(len) {
                let (ar, ai) = x[start + k];
                let (br, bi) = x[start + k + half];
                let (tr, ti) = (br * c - bi * s, br * s + bi * c);
                x[start + k] = (ar + tr, ai + ti);
                x[start + k + half] = (ar - tr, ai - ti);
            }
        }
        len *= 2;
    }
}

fn to_c<C: ComplexFloat>(v: (f64, f64)) -> C {
    C::new(C::Real::from_f64(v.0), C::Real::from_f64(v.1))
}

impl<C: ComplexFloat> Bluestein<C> {
    pub(super) fn new(dev: &Device, n: usize) -> Result<Bluestein<C>> {
        let padded = (2 * n - 1).next_power_of_two();
        let sub = plan::<C>(dev, padded)?;
        // w_k = exp(-i pi k^2 / n), k^2 reduced mod 2n exactly.
        let w = |k: usize| -> (f64, f64) {
            let r = ((k as u128 * k as u128) % (2 * n as u128)) as f64;
            let a = -PI * r / n as f64;
            let (s, c) = a.sin_cos();
            (c, s)
        };
        let chirp: Vec<C> = (0..n).map(|k| to_c(w(k))).collect();
        // The filter: conj(w_k) at k and padded - k.
        let mut b = vec![(0.0, 0.0); padded];
        for k in 0..n {
            let (c, s) = w(k);
            b[k] = (c, -s);
            if k > 0 {
                b[padded - k] = (c, -s);
            }
        }
        let (filter, aux) = if matches!(sub, Node::Direct(_)) {
            host_fft(&mut b);
            let f: Vec<C> = b.iter().copied().map(to_c).collect();
            let mut a = chirp.clone();
            a.extend_from_slice(&f);
            let len = a.len();
            (
                Table::new(&dev.from_slice(&f, [padded])?),
                Some(Table::new(&dev.from_slice(&a, [len])?)),
            )
        } else {
            let bv: Vec<C> = b.iter().copied().map(to_c).collect();
            let bvec = dev.from_slice(&bv, [padded])?;
            let filter = Array::<C>::alloc_any(dev, "fft", vec![padded], |x| dev.alloc(x))?;
            let job = Job::rows(bvec.binding(), filter.binding(), 1, padded, false, 1.0);
            exec(&sub, dev, &job)?;
            (Table::new(&filter), None)
        };
        Ok(Bluestein {
            n,
            padded,
            sub: Box::new(sub),
            chirp: Table::new(&dev.from_slice(&chirp, [n])?),
            filter,
            aux,
        })
    }
}

/// Runs Bluestein's plan `bl` over `job` (component type `d`).
pub(super) fn exec_bluestein<C: ComplexFloat>(
    bl: &Bluestein<C>,
    dev: &Device,
    job: &Job<'_>,
    d: DType,
) -> Result<()> {
    let batches = job.p.batches();
    let Bluestein {
        n,
        padded,
        sub,
        chirp,
        filter,
        aux,
    } = bl;
    if let (Node::Direct(dr), Some(aux)) = (sub.as_ref(), aux) {
        return fused(bl, dr, aux, dev, job, d);
    }
    let (n, padded) = (*n, *padded);
    let t1 = temp::<C>(dev, batches * padded)?;
    let t2 = temp::<C>(dev, batches * padded)?;
    let launch = |entry, io| Launch {
        entry,
        d,
        io,
        l: 0,
        m: 0,
        col: [false; 2],
        mode: Mode::Plain,
    };
    let plain = Io {
        real_in: false,
        real_out: false,
    };
    let mut p = job.p.clone();
    p.row_len = n;
    p.tw_n = padded;
    let cin = launch(
        "chirp_in",
        Io {
            real_in: job.io.real_in,
            real_out: false,
        },
    );
    cin.run(
        dev,
        &p,
        &[job.src, chirp.binding()],
        t1.binding(),
        batches * padded,
    )?;
    exec(
        sub,
        dev,
        &Job::rows(t1.binding(), t2.binding(), batches, padded, false, 1.0),
    )?;
    let mut pw = FftParams {
        dims: vec![Dim {
            extent: batches,
            s_in: 0,
            s_out: 0,
            tw: 0,
        }],
        tw_n: padded,
        ..FftParams::default()
    };
    pw.scale = 1.0;
    launch("pointwise", plain).run(
        dev,
        &pw,
        &[t2.binding(), filter.binding()],
        t1.binding(),
        batches * padded,
    )?;
    exec(
        sub,
        dev,
        &Job::rows(t1.binding(), t2.binding(), batches, padded, true, 1.0),
    )?;
    let mut po = job.p.clone();
    po.row_len = n;
    po.tw_n = padded;
    po.scale = job.p.scale / padded as f64;
    let cout = launch(
        "chirp_out",
        Io {
            real_in: false,
            real_out: job.io.real_out,
        },
    );
    cout.run(
        dev,
        &po,
        &[t2.binding(), chirp.binding()],
        job.dst,
        batches * job.p.n_out,
    )
}

/// The two fused kernels: chirp, forward transform and filter product into contiguous
/// rows of `padded`; inverse transform, chirp and scale into the caller's output.
fn fused<C: ComplexFloat>(
    bl: &Bluestein<C>,
    dr: &super::plan::Direct<C>,
    aux: &Table<C>,
    dev: &Device,
    job: &Job<'_>,
    d: DType,
) -> Result<()> {
    let (n, padded) = (bl.n, bl.padded);
    let batches = job.p.batches();
    let t = temp::<C>(dev, batches * padded)?;
    let rows = contiguous(&job.p.dims, padded);
    let launch = |io, col: [bool; 2], mode| {
        let m = dr.m_for(col[0] || col[1]);
        Launch {
            entry: "main",
            d,
            io,
            l: padded,
            m,
            col: [col[0] && m > 1, col[1] && m > 1],
            mode,
        }
    };
    let mut pa = job.p.clone();
    for (dim, s) in pa.dims.iter_mut().zip(&rows) {
        dim.s_out = *s;
    }
    pa.dims = merge(&pa.dims);
    pa.off_out = 0;
    pa.s_out = 1;
    pa.row_len = n;
    pa.n_out = padded;
    pa.chirp_n = n;
    pa.tw_n = 0;
    pa.scale = 1.0;
    let io_a = Io {
        real_in: job.io.real_in,
        real_out: false,
    };
    launch(io_a, [job.p.s_in != 1, false], Mode::ChirpIn).run(
        dev,
        &pa,
        &[job.src, dr.tw.binding(), aux.binding()],
        t.binding(),
        0,
    )?;
    let mut pb = job.p.clone();
    for (dim, s) in pb.dims.iter_mut().zip(&rows) {
        dim.s_in = *s;
    }
    pb.dims = merge(&pb.dims);
    pb.off_in = 0;
    pb.s_in = 1;
    pb.herm = 0;
    pb.n_in = padded;
    pb.row_len = padded;
    pb.chirp_n = n;
    pb.tw_n = 0;
    pb.scale = job.p.scale / padded as f64;
    let io_b = Io {
        real_in: false,
        real_out: job.io.real_out,
    };
    launch(io_b, [false, job.p.s_out != 1], Mode::ChirpOut).run(
        dev,
        &pb,
        &[t.binding(), dr.tw.binding(), aux.binding()],
        job.dst,
        0,
    )
}
