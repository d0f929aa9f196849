//! Matrix products: `matmul`, `dot`, `outer`, `trace`. Host side of shaders/linalg.wgsl
//! (module [`tiled`], which also picks the large f32 kernel of shaders/linalg_big.wgsl,
//! module [`linalg_big`], where the tile trial finds it faster, and the f64 kernel of
//! shaders/linalg_f64.wgsl, module [`linalg_f64`], likewise for f64; [`splitk`] runs products with a
//! long K and few output tiles on it as a batch over slices of K, and f16 ones on the
//! cooperative-matrix kernel with f32 partial products), of shaders/gemv.wgsl (module
//! [`gemv`]: products with one row or one column) and of the staged cooperative-matrix
//! f16 kernel that [`coop_gen`] generates, with the tile copies of [`coop_copy`] (module
//! [`coop`]).
//!
//! Every product becomes one batched `C[z] = A[z] @ B[z]` over contiguous output
//! ([`product`]). Each operand is read in place when one of its two matrix dimensions has
//! stride 1 (row-major, or a transposed view); other layouts are copied first. Tiles
//! (workgroup tile BM x BN x BK, and TM x TN outputs per invocation) are override
//! constants: small problems take small tiles, large ones the configuration that a timed
//! trial on first use found fastest on this device (kept in the device's
//! [`LinalgState`], and on disk per adapter and driver so that later processes run no
//! trial: [`tile_trial`]). f16 products of any shape and alignment run on cooperative matrices
//! (tensor cores) where the adapter has them, else on the tiled kernel with f32
//! accumulation. The kernels' parameters are typed ([`params`]).

mod complex;
mod coop;
mod linalg_big;
mod linalg_f64;
#[macro_use]
mod coop_copy;
mod coop_gen;
mod gemv;
mod params;
mod product;
mod splitk;
mod tensor;
mod tile_trial;
mod tiled;

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::launch::MAX_DIMS;
use crate::shape::broadcast_shapes;

use params::TraceParams;
use product::{operand, prepare, Product};

/// The text of shaders/linalg.wgsl.
const SRC: &str = include_str!("../../../shaders/linalg.wgsl");

/// What the matrix products keep per device (the device's typed state,
/// `dev.state::<LinalgState>()`): two devices never share it, even on adapters of one name.
#[derive(Default)]
pub(crate) struct LinalgState {
    /// The tile trial's result per (element type, size class).
    tuned: Mutex<tiled::Tuned>,
    /// The cooperative-matrix kernel failed to compile on this device: f16 products take
    /// the tiled kernel.
    coop_broken: AtomicBool,
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<crate::kernel::source::Spec> {
    let mut specs = Vec::new();
    for &d in &DType::ALL {
        for (va, vb) in [(false, false), (true, false), (false, true), (true, true)] {
            specs.push(tiled::spec(d, [va, vb, false], tiled::LARGE, false, true));
        }
        if d.size() <= 4 {
            specs.push(tiled::spec(
                d,
                [true, true, true],
                tiled::LARGE,
                true,
                false,
            ));
        }
    }
    specs.extend(gemv::specs());
    specs.extend(linalg_big::specs());
    specs.extend(linalg_f64::specs());
    // Each default configuration, with element-wise loads and a scalar epilogue (unaligned
    // operands, N not a multiple of 4) and with f32 output (split-K).
    for c in coop::COOP_DEFAULTS {
        let unaligned = coop_gen::CoopCfg {
            la: 1,
            lb: 2,
            epi: 1,
            ..c
        };
        let f32_out = coop_gen::CoopCfg { f32_out: true, ..c };
        for cfg in [c, unaligned, f32_out] {
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                specs.push(coop::spec(cfg, ta, tb));
            }
        }
    }
    specs
}

/// The batched product of `a` (`[.., M, K]`) and `b` (`[.., K, N]`), both at least 2-D,
/// as a new array `[batch.., M, N]`.
fn matmul_nd<T: Element>(
    a: &Array<T>,
    b: &Array<T>,
    lhs: &[usize],
    rhs: &[usize],
) -> Result<Array<T>> {
    let dev = &a.dev;
    let mismatch = || Error::ShapeMismatch {
        op: "matmul",
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
    };
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape[na - 2], a.shape[na - 1]);
    let (k2, n) = (b.shape[nb - 2], b.shape[nb - 1]);
    if k != k2 {
        return Err(mismatch());
    }
    let batch = broadcast_shapes("matmul", &a.shape[..na - 2], &b.shape[..nb - 2])
        .map_err(|_| mismatch())?;
    let mut shape = batch.clone();
    shape.extend([m, n]);
    let batches: usize = batch.iter().product();
    if m * n * batches == 0 {
        return Array::alloc(dev, "matmul", shape);
    }
    if k == 0 {
        return dev.zeros::<T>(shape);
    }
    let (a, b) = (prepare(a)?, prepare(b)?);
    let prod = Product {
        a: operand(&a, &batch),
        b: operand(&b, &batch),
        m,
        n,
        k,
        batch_shape: batch,
        batches,
    };
    let (cshape, _) = prod.collapsed();
    if cshape.len() > MAX_DIMS {
        // More batch dimensions than kernels take, even merged: copies of the operands
        // broadcast to the whole batch have one.
        let whole = |x: &Array<T>, r: usize, c: usize| {
            x.broadcast_to([&prod.batch_shape[..], &[r, c]].concat())?
                .contiguous()
        };
        let (a, b) = (whole(&a, m, k)?, whole(&b, k, n)?);
        return matmul_nd(&a, &b, lhs, rhs);
    }
    if gemv::eligible(dev, &prod) {
        return gemv::run(dev, &prod, &shape);
    }
    if let Some(s) = splitk::slices::<T>(dev, &prod)
        && let Some(c) = splitk::run(dev, &prod, s, &shape)?
    {
        return Ok(c);
    }
    let out = Array::<T>::alloc(dev, "matmul", shape)?;
    if T::DTYPE == DType::F16 && coop::eligible(dev) && coop::run(dev, &prod, &out)? {
        return Ok(out);
    }
    tiled::record(dev, &prod, &out)?;
    Ok(out)
}

impl<T: Element> Array<T> {
    /// The matrix product `self @ other` with NumPy's `matmul` semantics: 2-D operands
    /// multiply as matrices; N-D operands are stacks of matrices in their last two
    /// dimensions, with the leading (batch) dimensions broadcast together; a 1-D left
    /// operand is a row vector and a 1-D right operand a column vector, and the added
    /// dimension is removed from the result.
    ///
    /// Transposed and strided views are read in place when one of their two matrix
    /// dimensions has stride 1; others are copied first. f16 accumulates in f32 (on
    /// cooperative matrices where the adapter has them); f32 in f32 on the GPU's FMA units
    /// (an order of summation different from a CPU's); integers wrap on overflow.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the inner dimensions differ or the batch dimensions do
    /// not broadcast; [`Error::InvalidArgument`] for 0-d operands; [`Error::Unsupported`]
    /// when the adapter lacks `T`; [`Error::DeviceMismatch`] for arrays of two devices.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
    /// let b = dev.from_slice(&[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], [3, 2])?;
    /// assert_eq!(a.matmul(&b)?.to_vec()?, vec![4.0, 5.0, 10.0, 11.0]);
    /// // a @ a.T, the transposed view read without a copy
    /// assert_eq!(a.matmul(&a.t())?.to_vec()?, vec![14.0, 32.0, 32.0, 77.0]);
    /// // batched: [4, 2, 3] @ [3, 2] -> [4, 2, 2]
    /// let s = dev.ones::<f32>([4, 2, 3])?;
    /// assert_eq!(s.matmul(&b)?.shape(), &[4, 2, 2]);
    /// assert!(a.matmul(&a).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn matmul(&self, other: &Array<T>) -> Result<Array<T>> {
        self.dev.expect_same("matmul", &[&other.dev])?;
        if T::DTYPE.is_complex() {
            self.dev.require_storage("matmul", T::DTYPE)?;
        } else {
            self.dev.require("matmul", T::DTYPE)?;
        }
        if self.ndim() == 0 || other.ndim() == 0 {
            return Err(Error::InvalidArgument {
                op: "matmul",
                reason: "0-d operands have no matrix dimensions (use mul)",
            });
        }
        // 1-D operands as a row (left) or a column (right), as views.
        let a = if self.ndim() == 1 {
            self.view(
                vec![1, self.shape[0]],
                vec![0, self.strides[0]],
                self.offset,
            )
        } else {
            self.clone()
        };
        let b = if other.ndim() == 1 {
            other.view(
                vec![other.shape[0], 1],
                vec![other.strides[0], 0],
                other.offset,
            )
        } else {
            other.clone()
        };
        let out = if T::DTYPE.is_complex() {
            complex::matmul_complex(&a, &b, &self.shape, &other.shape)?
        } else {
            matmul_nd(&a, &b, &self.shape, &other.shape)?
        };
        let mut shape = out.shape.clone();
        let nd = shape.len();
        match (self.ndim() == 1, other.ndim() == 1) {
            (false, false) => return Ok(out),
            (true, true) => shape.truncate(nd - 2),
            (true, false) => {
                shape.remove(nd - 2);
            }
            (false, true) => {
                shape.pop();
            }
        }
        out.reshape(shape)
    }

    /// NumPy's `dot`: the inner product of two 1-D arrays (a 0-d array), the matrix
    /// product of 2-D arrays and of a 2-D with a 1-D array, the product with a scalar when
    /// either is 0-d, and for N-D arrays the sum over the last axis of `self` and the
    /// second-to-last of `other` (`dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])`).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the summed dimensions differ; [`Error::Unsupported`]
    /// when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
    /// let y = dev.from_slice(&[4i32, 5, 6], [3])?;
    /// assert_eq!(x.dot(&y)?.to_scalar()?, 32);
    /// let m = dev.from_slice(&[1i32, 0, 0, 0, 1, 0], [2, 3])?;
    /// assert_eq!(m.dot(&y)?.to_vec()?, vec![4, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn dot(&self, other: &Array<T>) -> Result<Array<T>> {
        self.dev.expect_same("dot", &[&other.dev])?;
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.mul(other);
        }
        if other.ndim() <= 2 {
            return self.matmul(other);
        }
        // N-D: contract self's last axis with other's second-to-last.
        let (na, nb) = (self.ndim(), other.ndim());
        let k = self.shape[na - 1];
        if other.shape[nb - 2] != k {
            return Err(Error::ShapeMismatch {
                op: "dot",
                lhs: self.shape.clone(),
                rhs: other.shape.clone(),
            });
        }
        let rows: usize = self.shape[..na - 1].iter().product();
        let a = self.reshape([rows, k])?;
        // other as [K, (its other axes, in order)].
        let mut perm = vec![nb - 2];
        perm.extend((0..nb).filter(|&d| d != nb - 2));
        let bt = other.transpose(&perm)?;
        let cols = other.len() / k.max(1);
        let b = if k == 0 {
            other.dev.zeros::<T>([0, cols])?
        } else {
            bt.reshape([k, cols])?
        };
        let mut shape = self.shape[..na - 1].to_vec();
        shape.extend(perm[1..].iter().map(|&d| other.shape[d]));
        a.matmul(&b)?.reshape(shape)
    }

    /// The outer product of two arrays, flattened: `out[i, j] = self[i] * other[j]`
    /// (NumPy's `outer`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
    /// let y = dev.from_slice(&[1.0f32, 10.0, 100.0], [3])?;
    /// assert_eq!(x.outer(&y)?.to_vec()?, vec![1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn outer(&self, other: &Array<T>) -> Result<Array<T>> {
        self.dev.expect_same("outer", &[&other.dev])?;
        let a = self.reshape([self.len(), 1])?;
        let b = other.reshape([1, other.len()])?;
        a.matmul(&b)
    }

    /// The sum of the main diagonal, NumPy's `trace`: a 0-d array for a 2-D array; for
    /// N-D arrays the traces over the first two axes, of shape `shape[2..]`. f16 sums in
    /// f32.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for arrays of fewer than 2 dimensions;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.arange::<f32>(0.0, 9.0, 1.0)?.reshape([3, 3])?;
    /// assert_eq!(m.trace()?.to_scalar()?, 12.0);
    /// assert_eq!(m.t().trace()?.to_scalar()?, 12.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn trace(&self) -> Result<Array<T>> {
        self.dev.require("trace", T::DTYPE)?;
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op: "trace",
                reason: "trace needs at least 2 dimensions",
            });
        }
        let (r, c) = (self.shape[0], self.shape[1]);
        let diag = r.min(c);
        let rest = self.shape[2..].to_vec();
        let count: usize = rest.iter().product();
        let out = Array::<T>::alloc(&self.dev, "trace", rest)?;
        if count == 0 {
            return Ok(out);
        }
        if diag == 0 {
            return self.dev.zeros::<T>(out.shape.clone());
        }
        // Real dtypes: the diagonal as a view (axes 0 and 1 last, merged), summed by the
        // reduction family, a tree over the whole GPU; the kernel below walks each diagonal
        // with one invocation (an 8192 diagonal: 0.38 ms on the H200, against 0.017 by the
        // einsum route that is this one, 2026-11-28).
        if T::DTYPE.is_real() && T::DTYPE != DType::Bool {
            return self.diagonal(0, 0, 1)?.sum_axis(-1, false);
        }
        // Each trace's matrix: axes 0 and 1 moved last, so that matrix z starts at z * r * c.
        let (src, start, step, stride) = if self.ndim() == 2 {
            (
                self.clone(),
                self.offset,
                self.strides[0] + self.strides[1],
                0,
            )
        } else {
            let mut perm: Vec<usize> = (2..self.ndim()).collect();
            perm.extend([0, 1]);
            let m = self.transpose(&perm)?.contiguous()?;
            let off = m.offset;
            (m, off, (c + 1) as isize, r * c)
        };
        let p = TraceParams {
            count: count as u32,
            offset: start as u32,
            len: diag as u32,
            matrix_stride: stride as u32,
            // A negative step (reversed axes) travels as its two's complement.
            step: step as i32 as u32,
        };
        tiled::run_trace::<T>(&self.dev, src.binding(), out.binding(), p)?;
        Ok(out)
    }
}
