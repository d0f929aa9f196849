//! The kernels of shaders/qr.wgsl and the blocked Householder factorization built on them:
//! for each panel of [`NB`] columns, `qr_panel` (the reflectors, one workgroup per
//! matrix), `V^T V` by [`Array::matmul`], `qr_t` (the compact-WY T factor) and the
//! trailing update `A22 -= V (T^T (V^T A22))` by three batched products. Forming or
//! applying Q goes through the same products ([`Factored::form_q`]).

use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::params::Params;
use crate::kernel::source::Spec;
use crate::Array;

/// The text of shaders/qr.wgsl.
const SRC: &str = include_str!("../../shaders/qr.wgsl");

/// Invocations per workgroup (32 columns x 8 row groups in the panel's products).
const WG: u32 = 256;
/// Invocations per workgroup of the panels of at least [`TALL`] rows where the adapter
/// allows (32 columns x 32 row groups): the panel is one workgroup's work, and more
/// invocations keep more of its loads in flight.
const WG_TALL: u32 = 1024;
const TALL: usize = 512;

/// The panel's width: 32 columns (the kernels' limit), or all of them when fewer.
pub(crate) const NB: usize = 32;

/// Matrices of at most this many elements (and at most [`NB`] columns) are factored in
/// workgroup memory (`SMALL` of shaders/qr.wgsl: 16 KiB in f64).
const SMALL: usize = 2048;

/// The variant for dtype `d` (f32 or f64); `small`: qr_panel on the whole matrix in
/// workgroup memory.
pub(crate) fn spec(d: DType, small: bool) -> Spec {
    let tiny = match d {
        DType::F64 => "fn tiny() -> S { return 2.2250738585072014e-308lf; }",
        _ => "fn tiny() -> S { return 1.17549435e-38f; }",
    };
    let s = Spec::new("qr", SRC).scalar(d).function("tiny", tiny);
    if !small {
        return s;
    }
    s.function("ld", "fn ld(base: u32, e: u32) -> S { return sm[e]; }")
        .function("st", "fn st(base: u32, e: u32, v: S) { sm[e] = v; }")
        .function(
            "stage_in",
            "fn stage_in(base: u32, l: u32) { for (var e = l; e < qr_m() * qr_n(); e += WG) { sm[e] = out[base + e]; } }",
        )
        .function(
            "stage_out",
            "fn stage_out(base: u32, l: u32) { for (var e = l; e < qr_m() * qr_n(); e += WG) { out[base + e] = sm[e]; } }",
        )
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        v.extend([spec(d, false), spec(d, true)]);
    }
    v
}

fn key(entry: &'static str, d: DType, small: bool, wg: u32) -> Key {
    Key {
        family: "qr",
        entry,
        variant: format!("{d:?}|{}", if small { "small" } else { "global" }),
        inputs: 2,
        wg,
        ndim: 0,
        per: 0,
    }
}

/// One panel of the factorization: its first column `j0`, its width `jb`, its reflectors
/// `v` (`[count, M - j0, jb]`, unit lower trapezoidal), their scalars `tau` (`[count,
/// jb]`) and the T factor (`[count, jb, jb]`, upper triangular): `H_j0 ... H_(j0+jb-1) = I
/// - V T V^T`.
pub(crate) struct Panel<T: Element> {
    pub j0: usize,
    pub v: Array<T>,
    pub tau: Array<T>,
    pub t: Array<T>,
}

/// A stack of `count` matrices of `m x n` factored: `work` holds R on and above the
/// diagonal and the reflectors below it (LAPACK's layout, row-major), `panels` the
/// compact-WY form of Q.
pub(crate) struct Factored<T: Element> {
    pub work: Array<T>,
    pub panels: Vec<Panel<T>>,
    pub count: usize,
    pub m: usize,
    pub n: usize,
}

/// The kernels' parameters: count matrices of m x n, the panel at j0 of width jb.
fn params(count: usize, m: usize, n: usize, j0: usize, jb: usize) -> Params {
    let mut p = Params::new(count as u32);
    p.aux = [m as u32, n as u32];
    p.offs = [j0 as u32, jb as u32, ((m - j0) * jb + jb) as u32, 0];
    p
}

/// Factors a copy of `a` (contiguous `[count, m, n]`, any values).
pub(crate) fn factor<T: Element>(
    a: &Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<Factored<T>> {
    let dev: &Device = a.device();
    let work = a.copy()?.reshape([count, m, n])?;
    let k = m.min(n);
    let mut panels = Vec::new();
    if count == 0 || k == 0 {
        return Ok(Factored {
            work,
            panels,
            count,
            m,
            n,
        });
    }
    let d = T::DTYPE;
    let small = n <= NB && m * n <= SMALL;
    let panel = dev.kernel(key("qr_panel", d, small, WG), || {
        spec(d, small).writable_last_input()
    })?;
    let tall = (dev.limits().max_compute_invocations_per_workgroup >= WG_TALL)
        .then(|| {
            dev.kernel(key("qr_panel", d, false, WG_TALL), || {
                spec(d, false).writable_last_input()
            })
        })
        .transpose()?;
    let tk = dev.kernel(key("qr_t", d, false, WG), || {
        spec(d, false).writable_last_input()
    })?;
    let placeholder = Array::<T>::alloc(dev, "qr", vec![1])?;
    let groups = Work::Items((count as u32).saturating_mul(WG));
    for j0 in (0..k).step_by(NB) {
        let jb = NB.min(k - j0);
        let rows = m - j0;
        let stride = rows * jb + jb;
        // Its own buffer: bound writable beside read-only arrays that may share a slab.
        let hv = Array::<T>::alloc_with(dev, "qr", vec![count * stride], |b| dev.alloc_owned(b))?;
        let p = params(count, m, n, j0, jb);
        let (kernel, work_items) = match &tall {
            Some(k) if rows >= TALL && !small => {
                (k, Work::Items((count as u32).saturating_mul(WG_TALL)))
            }
            _ => (&panel, groups),
        };
        dev.launch(
            kernel,
            &p,
            &[placeholder.binding(), hv.binding()],
            work.binding(),
            work_items,
        )?;
        let v = hv.view(
            vec![count, rows, jb],
            vec![stride as isize, jb as isize, 1],
            0,
        );
        let tau = hv.view(vec![count, jb], vec![stride as isize, 1], rows * jb);
        let vt = v.transpose(&[0, 2, 1])?;
        let g = vt.matmul(&v)?;
        let t = Array::<T>::alloc_with(dev, "qr", vec![count, jb, jb], |b| {
            dev.alloc_apart(b, &[&g.buf])
        })?;
        dev.launch(&tk, &p, &[g.binding(), hv.binding()], t.binding(), groups)?;
        let n2 = n - j0 - jb;
        if n2 > 0 {
            // A22 -= V (T^T (V^T A22))
            let a22 = work.view(
                vec![count, rows, n2],
                vec![(m * n) as isize, n as isize, 1],
                j0 * n + j0 + jb,
            );
            let w = t.transpose(&[0, 2, 1])?.matmul(&vt.matmul(&a22)?)?;
            a22.assign(&a22.sub(&v.matmul(&w)?)?)?;
        }
        panels.push(Panel { j0, v, tau, t });
    }
    Ok(Factored {
        work,
        panels,
        count,
        m,
        n,
    })
}

impl<T: Element> Factored<T> {
    /// Q's first `cols` columns (`k` for the reduced Q, `m` for the complete one), as
    /// `[count, m, cols]`: the identity's columns with the panels applied from the last,
    /// `Q[j0.., j0..] -= V (T (V^T Q[j0.., j0..]))` (LAPACK's dorgqr, blocked).
    pub fn form_q(&self, cols: usize) -> Result<Array<T>> {
        let (count, m) = (self.count, self.m);
        let dev = self.work.device();
        let q = dev
            .eye_rect::<T>(m, cols, 0)?
            .broadcast_to([count, m, cols])?
            .contiguous()?;
        for p in self.panels.iter().rev() {
            let j0 = p.j0;
            if j0 >= cols {
                continue;
            }
            let q2 = q.view(
                vec![count, m - j0, cols - j0],
                vec![(m * cols) as isize, cols as isize, 1],
                j0 * cols + j0,
            );
            let vt = p.v.transpose(&[0, 2, 1])?;
            let w = p.t.matmul(&vt.matmul(&q2)?)?;
            q2.assign(&q2.sub(&p.v.matmul(&w)?)?)?;
        }
        Ok(q)
    }

    /// The scalars of all the reflectors, `[count, min(m, n)]`.
    pub fn tau(&self) -> Result<Array<T>> {
        if self.panels.is_empty() {
            return self.work.device().zeros::<T>([self.count, 0]);
        }
        let taus: Vec<&Array<T>> = self.panels.iter().map(|p| &p.tau).collect();
        Array::concatenate(&taus, 1)
    }
}
