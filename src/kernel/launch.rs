//! Binding and dispatch: the one place that turns a kernel, its parameters and its buffers
//! into a recorded compute pass.

use bytemuck::{Pod, Zeroable};

use crate::device::{Device, PARAM_SLOT};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Kernel;
use crate::memory::pool::BufferHandle;

/// Most dimensions a kernel takes (after merging contiguous ones).
pub(crate) const MAX_DIMS: usize = 8;
/// Most workgroups in one dispatch dimension (WebGPU's minimum guarantee).
pub(crate) const MAX_GROUPS: u32 = 65_535;

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
            let wide: Vec<f32> = values.iter().map(|v| v.to_f64() as f32).collect();
            let bytes: &[u8] = bytemuck::cast_slice(&wide);
            self.sc[..bytes.len()].copy_from_slice(bytes);
        } else {
            let bytes: &[u8] = bytemuck::cast_slice(values);
            self.sc[..bytes.len()].copy_from_slice(bytes);
        }
        self
    }

    /// Sets the shape and the strides of up to three inputs.
    pub(crate) fn layout(mut self, shape: &[usize], strides: &[Vec<usize>]) -> Params {
        self.ndim = shape.len() as u32;
        for (d, &s) in shape.iter().enumerate() {
            self.shape[d] = s as u32;
        }
        for (k, st) in strides.iter().enumerate() {
            for (d, &s) in st.iter().enumerate() {
                self.strides[k][d] = s as u32;
            }
        }
        self
    }
}

/// A buffer bound to a kernel and the bytes of it the kernel may touch.
pub(crate) struct Binding<'a> {
    pub buffer: &'a BufferHandle,
    pub bytes: u64,
}

/// Workgroups for `work` items: a 1-D count folded into (x, y) with x at most 65,535.
pub(crate) fn groups(work: u32, wg: u32) -> (u32, u32) {
    let g = work.div_ceil(wg);
    if g <= MAX_GROUPS {
        (g, 1)
    } else {
        let y = g.div_ceil(MAX_GROUPS);
        (g.div_ceil(y), y)
    }
}

/// Records one dispatch of `kernel` over `work` items into the device's pending batch.
pub(crate) fn launch(
    dev: &Device,
    kernel: &Kernel,
    params: &Params,
    inputs: &[Binding<'_>],
    output: Binding<'_>,
    work: u32,
) -> Result<()> {
    debug_assert_eq!(inputs.len(), kernel.inputs);
    if work == 0 {
        return Ok(());
    }
    let max = dev.limits().max_storage_buffer_binding_size;
    let size = |b: &Binding<'_>| -> Result<wgpu::BufferSize> {
        let bytes = b.bytes.div_ceil(4).max(1) * 4;
        if bytes > max {
            return Err(Error::BufferTooLarge {
                requested: bytes,
                max,
            });
        }
        Ok(wgpu::BufferSize::new(bytes).expect("non-zero"))
    };
    let mut entries = Vec::with_capacity(5);
    if !dev.inner.immediates {
        entries.push(wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: dev.arena(),
                offset: 0,
                size: wgpu::BufferSize::new(PARAM_SLOT),
            }),
        });
    }
    for (k, b) in inputs.iter().enumerate() {
        entries.push(wgpu::BindGroupEntry {
            binding: 1 + k as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: b.buffer.buffer(),
                offset: 0,
                size: Some(size(b)?),
            }),
        });
    }
    entries.push(wgpu::BindGroupEntry {
        binding: 4,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: output.buffer.buffer(),
            offset: 0,
            size: Some(size(&output)?),
        }),
    });
    let bind_group = dev.wgpu().create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &kernel.layout,
        entries: &entries,
    });
    let (x, y) = groups(work, kernel.wg);
    let bytes = bytemuck::bytes_of(params);
    dev.record_dispatch(bytes, |pass, offset| {
        pass.set_pipeline(&kernel.pipeline);
        match offset {
            Some(offset) => pass.set_bind_group(0, &bind_group, &[offset]),
            None => {
                pass.set_immediates(0, bytes);
                pass.set_bind_group(0, &bind_group, &[]);
            }
        }
        pass.dispatch_workgroups(x, y, 1);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_fit_the_limit() {
        for work in [
            1u32,
            255,
            256,
            257,
            65_535 * 256,
            65_535 * 256 + 1,
            u32::MAX,
        ] {
            let (x, y) = groups(work, 256);
            assert!(x <= MAX_GROUPS && y <= MAX_GROUPS, "{work}: {x}x{y}");
            assert!(x as u64 * y as u64 * 256 >= work as u64, "{work}: {x}x{y}");
        }
    }
}
