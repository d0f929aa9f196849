//! Binding and dispatch: the one place that turns a kernel, its parameters and its buffers
//! into a [`Dispatch`], which the device records into its pending compute pass.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::gpu::{lock, Gpu};
use crate::kernel::cache::Kernel;
use crate::memory::pool::BufferHandle;

pub(crate) use crate::kernel::params::{Params, MAX_DIMS, PARAM_SLOT};
/// Most workgroups in one dispatch dimension (WebGPU's minimum guarantee).
pub(crate) const MAX_GROUPS: u32 = 65_535;

/// A buffer bound to a kernel and the bytes of it the kernel may touch.
#[derive(Clone, Copy)]
pub(crate) struct Binding<'a> {
    pub buffer: &'a BufferHandle,
    /// End of the bytes the kernel may touch, from the buffer's start.
    pub bytes: u64,
    /// Where the binding starts in the buffer, in bytes (a multiple of the adapter's
    /// storage offset alignment): element 0 of the shader's array. 0 binds from the start;
    /// larger values bind windows of buffers larger than one binding.
    pub window: u64,
}

/// The parameter bytes of one dispatch (at most one arena slot), kept inline: launching
/// allocates nothing on the host.
#[derive(Clone, Copy)]
pub(crate) struct ParamBytes {
    bytes: [u8; PARAM_SLOT as usize],
    len: usize,
}

impl ParamBytes {
    /// `bytes`, which must fit one arena slot (checked by the callers: family parameters
    /// by a compile-time assertion, raw kernels' uniforms by their reflection).
    pub(crate) fn new(bytes: &[u8]) -> ParamBytes {
        assert!(
            bytes.len() as u64 <= PARAM_SLOT,
            "parameters larger than a slot"
        );
        let mut p = ParamBytes {
            bytes: [0; PARAM_SLOT as usize],
            len: bytes.len(),
        };
        p.bytes[..bytes.len()].copy_from_slice(bytes);
        p
    }
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
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

/// Bind groups by (input count, buffer ids, starts). Every allocation is bound whole (up to
/// the binding limit), so the same allocations give the same bind group: pooled buffers recur, and
/// creating a bind group costs microseconds on some drivers.
#[derive(Default)]
pub(crate) struct BindCache {
    /// The device's count of releases (`Gpu::released`) the entries were made under, and
    /// the entries.
    map: Mutex<(u64, HashMap<BindKey, wgpu::BindGroup>)>,
}

/// Where a dispatch's parameters travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamsIn {
    /// A slot of the uniform arena, bound with a dynamic offset.
    Arena,
    /// Immediates (kernels of gpuarray's families on adapters with them).
    Immediates,
    /// Nowhere: a raw kernel without a uniform.
    None,
}

/// A dispatch ready to record: the pipeline, its bind group, the parameter bytes and the
/// grid of workgroups.
pub(crate) struct Dispatch {
    pub pipeline: wgpu::ComputePipeline,
    pub bind_group: wgpu::BindGroup,
    pub params: ParamBytes,
    /// Where the parameters go.
    pub params_in: ParamsIn,
    pub grid: [u32; 3],
}

/// Input count, whether the last input is read-write (the two layouts are not compatible), the
/// ids of the bound buffers (inputs, then the output; 0 unused) and where the bindings start
/// in them (a slab's id stands for one slot size, so the start fixes the binding's size too).
type BindKey = (usize, bool, [u64; 4], [u64; 4]);

/// Entries kept before the cache starts over.
const BIND_CACHE_ENTRIES: usize = 1024;

impl BindCache {
    /// Drops every entry (and so the buffers they hold).
    pub(crate) fn clear(&self) {
        lock(&self.map).1.clear();
    }

    #[allow(clippy::too_many_arguments)] // the bind group's parts, named
    fn get(
        &self,
        gpu: &Gpu,
        arena: &wgpu::Buffer,
        kernel: &Kernel,
        inputs: &[Binding<'_>],
        output: &Binding<'_>,
        ids: [u64; 4],
        windows: [u64; 4],
    ) -> wgpu::BindGroup {
        let key = (kernel.inputs, kernel.writable_last, ids, windows);
        let released = gpu.releases();
        let mut guard = lock(&self.map);
        let (seen, map) = &mut *guard;
        // A pool released buffers: drop every entry, so that none keeps a buffer alive.
        if *seen != released || map.len() >= BIND_CACHE_ENTRIES {
            map.clear();
            *seen = released;
        }
        map.entry(key)
            .or_insert_with(|| create_bind_group(gpu, arena, kernel, inputs, output))
            .clone()
    }
}

fn create_bind_group(
    gpu: &Gpu,
    arena: &wgpu::Buffer,
    kernel: &Kernel,
    inputs: &[Binding<'_>],
    output: &Binding<'_>,
) -> wgpu::BindGroup {
    let max = gpu.limits.max_storage_buffer_binding_size;
    let size = |b: &Binding<'_>| wgpu::BufferSize::new((b.buffer.size() - b.window).min(max & !3));
    let offset = |b: &Binding<'_>| b.buffer.base() + b.window;
    let mut entries = Vec::with_capacity(5);
    if !gpu.immediates {
        entries.push(wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: arena,
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
                offset: offset(b),
                size: size(b),
            }),
        });
    }
    entries.push(wgpu::BindGroupEntry {
        binding: 4,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: output.buffer.buffer(),
            offset: offset(output),
            size: size(output),
        }),
    });
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &kernel.layout,
        entries: &entries,
    })
}

impl BindCache {
    /// The dispatch of `kernel` over `grid` (each extent at most [`MAX_GROUPS`]) with
    /// `params`, reading `inputs` and writing `output`; `None` for an empty grid.
    ///
    /// # Errors
    /// [`Error::BufferTooLarge`] when a binding's bytes exceed the adapter's binding limit.
    #[allow(clippy::too_many_arguments)] // a dispatch's parts, named
    pub(crate) fn dispatch(
        &self,
        gpu: &Gpu,
        arena: &wgpu::Buffer,
        kernel: &Kernel,
        params: &Params,
        inputs: &[Binding<'_>],
        output: Binding<'_>,
        grid: [u32; 3],
    ) -> Result<Option<Dispatch>> {
        debug_assert_eq!(inputs.len(), kernel.inputs);
        debug_assert!(grid.iter().all(|&g| g <= MAX_GROUPS));
        if grid.contains(&0) {
            return Ok(None);
        }
        let max = gpu.limits.max_storage_buffer_binding_size;
        let mut ids = [0u64; 4];
        let mut windows = [0u64; 4];
        for (k, b) in inputs.iter().chain([&output]).enumerate() {
            let bytes = (b.bytes - b.window.min(b.bytes)).div_ceil(4) * 4;
            if bytes > max {
                return Err(Error::BufferTooLarge {
                    requested: bytes,
                    max,
                });
            }
            ids[k] = b.buffer.buffer_id();
            windows[k] = b.buffer.base() + b.window;
        }
        let bind_group = self.get(gpu, arena, kernel, inputs, &output, ids, windows);
        Ok(Some(Dispatch {
            pipeline: kernel.pipeline.clone(),
            bind_group,
            params: ParamBytes::new(bytemuck::bytes_of(params)),
            params_in: if gpu.immediates {
                ParamsIn::Immediates
            } else {
                ParamsIn::Arena
            },
            grid,
        }))
    }
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
