//! Raw user kernels: the bind-group layout read from the naga module's globals, and binding
//! and dispatch of arbitrary buffers in that layout.

use std::sync::Arc;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernel::cache::{KernelCache, RawPipeline};
use crate::kernel::launch::{Binding, Dispatch, ParamBytes, ParamsIn, PARAM_SLOT};
use crate::kernel::limits::Constants;

/// One resource of a raw kernel, from its global variables.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Slot {
    /// A storage buffer at `binding`; `elem` is the element type of an `array<scalar>`.
    Storage {
        binding: u32,
        name: String,
        read_only: bool,
        elem: Option<DType>,
    },
    /// A uniform at `binding` holding scalars: (name, byte offset, type) of each member, in
    /// order; `size` is its size in bytes.
    Uniform {
        binding: u32,
        members: Vec<(String, u32, DType)>,
        size: u32,
    },
}

/// The resources of a raw kernel (in binding order) and its workgroup size.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub slots: Vec<Slot>,
    pub workgroup: [u32; 3],
}

fn dtype_of(s: naga::Scalar) -> Option<DType> {
    use naga::ScalarKind::*;
    match (s.kind, s.width) {
        (Float, 2) => Some(DType::F16),
        (Float, 4) => Some(DType::F32),
        (Float, 8) => Some(DType::F64),
        (Sint, 4) => Some(DType::I32),
        (Uint, 4) => Some(DType::U32),
        (Sint, 8) => Some(DType::I64),
        (Uint, 8) => Some(DType::U64),
        _ => None,
    }
}

/// The first name in `constants` that is no override of `module` (overrides with an `@id`
/// are named by it, as wgpu's pipeline constants are).
pub(crate) fn unknown_constant<'a>(
    module: &naga::Module,
    constants: Constants<'a>,
) -> Option<&'a str> {
    let known = |k: &str| {
        module.overrides.iter().any(|(_, o)| match o.id {
            Some(id) => id.to_string() == k,
            None => o.name.as_deref() == Some(k),
        })
    };
    constants.iter().map(|(k, _)| *k).find(|k| !known(k))
}

/// Reads the layout of entry point `entry` of a validated module, its workgroup size with
/// `constants` set; `Err(reason)` when the module uses something raw kernels do not bind.
// Long because it is one walk over the entry point's globals with a case for each kind of
// resource and each reason to refuse it.
pub(crate) fn reflect(
    module: &naga::Module,
    entry: &str,
    constants: Constants<'_>,
) -> std::result::Result<Layout, String> {
    let ep = module
        .entry_points
        .iter()
        .find(|e| e.name == entry)
        .ok_or_else(|| format!("no entry point named `{entry}`"))?;
    if ep.stage != naga::ShaderStage::Compute {
        return Err(format!("entry point `{entry}` is not a @compute function"));
    }
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| format!("layout: {e}"))?;
    let mut slots = Vec::new();
    for (_, g) in module.global_variables.iter() {
        let name = g.name.clone().unwrap_or_default();
        let access = match g.space {
            naga::AddressSpace::Storage { access } => Some(access),
            naga::AddressSpace::Uniform => None,
            naga::AddressSpace::Handle => {
                return Err(format!("`{name}`: raw kernels bind buffers only"))
            }
            naga::AddressSpace::Immediate => {
                return Err(format!(
                    "`{name}`: raw kernels take scalars through a uniform, not immediates"
                ))
            }
            _ => continue,
        };
        let rb = g
            .binding
            .as_ref()
            .ok_or_else(|| format!("`{name}` has no @binding"))?;
        if rb.group != 0 {
            return Err(format!("`{name}`: raw kernels use @group(0) only"));
        }
        let ty = &module.types[g.ty].inner;
        match access {
            Some(access) => {
                let elem = match ty {
                    naga::TypeInner::Array { base, .. } => match module.types[*base].inner {
                        naga::TypeInner::Scalar(s) => dtype_of(s),
                        _ => None,
                    },
                    _ => None,
                };
                slots.push(Slot::Storage {
                    binding: rb.binding,
                    name,
                    read_only: !access.contains(naga::StorageAccess::STORE),
                    elem,
                });
            }
            None => {
                let scalar = |t: naga::Handle<naga::Type>| match module.types[t].inner {
                    naga::TypeInner::Scalar(s) => dtype_of(s).filter(|d| d.size() >= 4),
                    _ => None,
                };
                let members = match ty {
                    naga::TypeInner::Scalar(_) => {
                        vec![(
                            name.clone(),
                            0,
                            scalar(g.ty).ok_or("uniform scalars are 32- or 64-bit")?,
                        )]
                    }
                    naga::TypeInner::Struct { members, .. } => members
                        .iter()
                        .map(|m| {
                            let d = scalar(m.ty).ok_or_else(|| {
                                format!("uniform `{name}`: members must be 32- or 64-bit scalars")
                            })?;
                            Ok((m.name.clone().unwrap_or_default(), m.offset, d))
                        })
                        .collect::<std::result::Result<Vec<_>, String>>()?,
                    _ => {
                        return Err(format!(
                            "uniform `{name}` must be a scalar or a struct of scalars"
                        ))
                    }
                };
                let size = layouter[g.ty].size.max(4);
                if size as u64 > PARAM_SLOT {
                    return Err(format!("uniform `{name}` exceeds {PARAM_SLOT} bytes"));
                }
                slots.push(Slot::Uniform {
                    binding: rb.binding,
                    members,
                    size,
                });
            }
        }
    }
    slots.sort_by_key(|s| match s {
        Slot::Storage { binding, .. } | Slot::Uniform { binding, .. } => *binding,
    });
    if slots
        .iter()
        .filter(|s| matches!(s, Slot::Uniform { .. }))
        .count()
        > 1
    {
        return Err("raw kernels take at most one uniform (put the scalars in a struct)".into());
    }
    let size = crate::kernel::limits::workgroup_size(module, ep, constants)?;
    Ok(Layout {
        slots,
        workgroup: size.map(|s| u32::try_from(s).unwrap_or(u32::MAX)),
    })
}

/// The pipeline of `src` at `entry` in `layout`, compiled on first use.
pub(crate) fn pipeline(
    gpu: &Gpu,
    cache: &KernelCache,
    src: &str,
    entry: &str,
    layout: &Layout,
    constants: Constants<'_>,
) -> Result<Arc<RawPipeline>> {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = layout
        .slots
        .iter()
        .map(|s| {
            let (binding, ty) = match s {
                Slot::Storage {
                    binding, read_only, ..
                } => (
                    *binding,
                    wgpu::BufferBindingType::Storage {
                        read_only: *read_only,
                    },
                ),
                Slot::Uniform { binding, .. } => (*binding, wgpu::BufferBindingType::Uniform),
            };
            wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: matches!(s, Slot::Uniform { .. }),
                    min_binding_size: None,
                },
                count: None,
            }
        })
        .collect();
    cache.get_raw(gpu, src, entry, &entries, constants)
}

/// One dispatch of a raw kernel: `buffers` for the storage slots (in slot order), `uniform`
/// the bytes of its uniform (if it has one, in a slot of `arena`); `None` for an empty grid.
pub(crate) fn dispatch(
    gpu: &Gpu,
    arena: &wgpu::Buffer,
    kernel: &RawPipeline,
    layout: &Layout,
    buffers: &[Binding<'_>],
    uniform: &[u8],
    grid: [u32; 3],
) -> Result<Option<Dispatch>> {
    let max_groups = gpu.limits.max_compute_workgroups_per_dimension;
    if grid.iter().any(|&g| g > max_groups) {
        return Err(Error::InvalidArgument {
            op: "RawKernel::launch",
            reason: "a grid extent exceeds the adapter's workgroups per dimension",
        });
    }
    if grid.contains(&0) {
        return Ok(None);
    }
    let max = gpu.limits.max_storage_buffer_binding_size & !3;
    let mut storage = buffers.iter();
    let mut entries = Vec::with_capacity(layout.slots.len());
    for s in &layout.slots {
        match s {
            Slot::Storage { binding, .. } => {
                let b = storage.next().expect("one buffer per storage slot");
                let bytes = (b.bytes - b.window).div_ceil(4) * 4;
                if bytes > max {
                    return Err(Error::BufferTooLarge {
                        requested: bytes,
                        max,
                    });
                }
                entries.push(wgpu::BindGroupEntry {
                    binding: *binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: b.buffer.buffer(),
                        offset: b.buffer.base() + b.window,
                        size: wgpu::BufferSize::new((b.buffer.size() - b.window).min(max)),
                    }),
                });
            }
            Slot::Uniform { binding, size, .. } => entries.push(wgpu::BindGroupEntry {
                binding: *binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: arena,
                    offset: 0,
                    size: wgpu::BufferSize::new((*size as u64).div_ceil(16) * 16),
                }),
            }),
        }
    }
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gpuarray raw kernel"),
        layout: &kernel.layout,
        entries: &entries,
    });
    let has_uniform = layout
        .slots
        .iter()
        .any(|s| matches!(s, Slot::Uniform { .. }));
    Ok(Some(Dispatch {
        pipeline: kernel.pipeline.clone(),
        bind_group,
        params: ParamBytes::new(uniform),
        params_in: if has_uniform {
            ParamsIn::Arena
        } else {
            ParamsIn::None
        },
        grid,
    }))
}
