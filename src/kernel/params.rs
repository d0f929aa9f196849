//! The parameter block every kernel of gpuarray's families receives: 256 bytes, one slot of
//! the device's uniform arena or the immediates, mirrored by `struct Params` in
//! `shaders/shared/params.wgsl`.
//!
//! Its generic fields mean the same in every family: `n` the work items, `ndim`, `shape` and
//! the strides the layout of a strided kernel, `offs` element offsets, `sc` scalar
//! arguments. A family that needs other values (matrix sizes, a seed, paddings) defines a
//! typed struct of its own whose `encode` is the only code placing them in slots, and reads
//! them in WGSL through named accessor functions that mirror it.

use bytemuck::{Pod, Zeroable};

use crate::dtype::{DType, Element};

/// Bytes of the parameter arena given to one dispatch (the uniform offset alignment that
/// every adapter accepts).
pub(crate) const PARAM_SLOT: u64 = 256;

/// Most dimensions a kernel takes (after merging contiguous ones).
pub(crate) const MAX_DIMS: usize = 8;

/// The parameter block of shaders/shared/params.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct Params {
    pub n: u32,
    pub ndim: u32,
    pub aux: [u32; 2],
    pub offs: [u32; 4],
    pub shape: [u32; MAX_DIMS],
    pub strides: [[u32; MAX_DIMS]; 3],
    /// `vec4<S>`: up to four scalars of the kernel's scalar type.
    pub sc: [u8; 32],
}

const _: () = assert!(std::mem::size_of::<Params>() as u64 <= PARAM_SLOT);

impl Params {
    pub(crate) fn new(n: u32) -> Params {
        Params {
            n,
            ..Zeroable::zeroed()
        }
    }

    /// Sets the scalar arguments (`arg(0u)`, `arg(1u)`, ... in WGSL); f16 travels as f32.
    pub(crate) fn scalars<T: Element>(mut self, values: &[T]) -> Params {
        if T::DTYPE == DType::F16 {
            let repr = T::to_repr(values);
            let halves: &[half::f16] = bytemuck::cast_slice(&repr);
            let wide: Vec<f32> = halves.iter().map(|h| h.to_f32()).collect();
            let bytes: &[u8] = bytemuck::cast_slice(&wide);
            self.sc[..bytes.len()].copy_from_slice(bytes);
        } else {
            let repr = T::to_repr(values);
            let bytes: &[u8] = bytemuck::cast_slice(&repr);
            self.sc[..bytes.len()].copy_from_slice(bytes);
        }
        self
    }

    /// Sets the shape and the strides of up to three inputs. A negative stride travels as
    /// its two's complement: kernels add `index * stride` in wrapping u32 arithmetic, which
    /// lands on the right element wherever the view's elements lie in the buffer.
    pub(crate) fn layout(mut self, shape: &[usize], strides: &[Vec<isize>]) -> Params {
        self.ndim = shape.len() as u32;
        for (d, &s) in shape.iter().enumerate() {
            self.shape[d] = s as u32;
        }
        for (k, st) in strides.iter().enumerate() {
            for (d, &s) in st.iter().enumerate() {
                self.strides[k][d] = s as i32 as u32;
            }
        }
        self
    }
}
