//! Compiled pipelines, cached by (family, entry point, variant, workgroup size), over the
//! ground floor ([`Gpu`]).
//!
//! Each key is compiled once, also when several threads ask for it at once: the map holds a
//! slot per key, made under the write lock after a second look, and the first thread to
//! lock a slot compiles into it while the others wait on that slot alone (other keys are
//! not blocked). A failed compilation leaves the slot empty, so a later call tries again.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::error::{Error, Result};
use crate::gpu::{lock, Gpu, ScopeError, DRIVER_LOCK};
use crate::kernel::params::Params;
use crate::kernel::source::{validate, Spec};

/// Identifies a pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub family: &'static str,
    pub entry: &'static str,
    /// Everything else the source depends on (dtypes, operation, vectorisation).
    pub variant: String,
    /// Number of input bindings (1..=3 at bindings 1..=3); the output is binding 4.
    pub inputs: usize,
    pub wg: u32,
    /// Dimensions of strided kernels (the `NDIM` override); 0 for kernels without it.
    pub ndim: u32,
    /// Elements per invocation of strided kernels (the `PER` override); 0 without it.
    pub per: u32,
}

/// A compiled compute pipeline and the layout of its bind group.
pub(crate) struct Kernel {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
    pub inputs: usize,
    /// Whether the last input is bound read-write (`Spec::writable_last_input`): its layout
    /// differs from a read-only one's, and it is never copied apart from the output.
    pub writable_last: bool,
    pub wg: u32,
}

/// A key's value once made; the mutex is held while it is being made.
type Slot<V> = Arc<Mutex<Option<Arc<V>>>>;

/// Values made once per key: a slot per key, filled by the first caller.
struct Once<K, V> {
    slots: RwLock<HashMap<K, Slot<V>>>,
}

impl<K, V> Default for Once<K, V> {
    fn default() -> Self {
        Once {
            slots: RwLock::default(),
        }
    }
}

impl<K: Hash + Eq + Clone, V> Once<K, V> {
    /// The value of `key`, made by `make` if no caller has made it yet. Callers asking for
    /// the same key meanwhile wait for this one; on an error the slot stays empty.
    fn get(&self, key: &K, make: impl FnOnce() -> Result<V>) -> Result<Arc<V>> {
        let slot = self
            .slots
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned();
        let slot = match slot {
            Some(s) => s,
            None => {
                let mut slots = self.slots.write().unwrap_or_else(|p| p.into_inner());
                slots.entry(key.clone()).or_default().clone()
            }
        };
        let mut value = lock(&slot);
        if let Some(v) = &*value {
            return Ok(v.clone());
        }
        let v = Arc::new(make()?);
        *value = Some(v.clone());
        Ok(v)
    }
}

#[derive(Default)]
pub(crate) struct KernelCache {
    map: Once<Key, Kernel>,
    /// Pipelines of raw user kernels (their own bind-group layouts), by (source, entry,
    /// override constants).
    raw: Once<(String, String, String), RawPipeline>,
    /// Bind-group layouts by (input count, whether the last input is read-write).
    layouts: Mutex<HashMap<(usize, bool), (wgpu::BindGroupLayout, wgpu::PipelineLayout)>>,
    compiled: AtomicU64,
    /// The driver's pipeline cache, persisted on disk where the adapter has PIPELINE_CACHE.
    disk: Option<DiskCache>,
}

/// A compiled raw kernel: its pipeline and the bind-group layout made from its globals.
pub(crate) struct RawPipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// A wgpu pipeline cache and the file it is loaded from and saved to.
struct DiskCache {
    cache: wgpu::PipelineCache,
    path: std::path::PathBuf,
}

impl KernelCache {
    /// A cache for `device`; with a pipeline cache loaded from disk where the adapter has
    /// PIPELINE_CACHE (best-effort: any failure leaves it off or empty).
    pub(crate) fn new(
        device: &wgpu::Device,
        info: &wgpu::AdapterInfo,
        dir: Option<std::path::PathBuf>,
    ) -> KernelCache {
        let disk = (|| {
            if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
                return None;
            }
            let path = dir?.join(wgpu::util::pipeline_cache_key(info)?);
            let data = std::fs::read(&path).ok();
            // SAFETY: the data is only ever what `PipelineCache::get_data` gave for an adapter
            // of the same key; `fallback: true` makes wgpu discard data it cannot use.
            let cache = unsafe {
                device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                    label: Some("gpuarray"),
                    data: data.as_deref(),
                    fallback: true,
                })
            };
            Some(DiskCache { cache, path })
        })();
        KernelCache {
            disk,
            ..KernelCache::default()
        }
    }

    /// Writes the pipeline cache to disk (best-effort) if pipelines were compiled.
    pub(crate) fn save(&self) {
        let Some(disk) = &self.disk else { return };
        if self.compiled() == 0 {
            return;
        }
        let Some(data) = disk.cache.get_data() else {
            return;
        };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = disk.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = disk
                .path
                .with_extension(format!("tmp{}", std::process::id()));
            std::fs::write(&tmp, &data)?;
            std::fs::rename(&tmp, &disk.path)
        };
        if let Err(e) = write() {
            log::debug!("gpuarray: pipeline cache not saved to {:?}: {e}", disk.path);
        }
    }

    pub(crate) fn compiled(&self) -> u64 {
        self.compiled.load(Ordering::Relaxed)
    }

    fn pipeline_cache(&self) -> Option<&wgpu::PipelineCache> {
        self.disk.as_ref().map(|d| &d.cache)
    }

    /// The pipeline of raw kernel `src` at `entry`, with a bind-group layout of `entries`,
    /// compiling it on first use. `src` was validated by the caller.
    pub(crate) fn get_raw(
        &self,
        gpu: &Gpu,
        src: &str,
        entry: &str,
        entries: &[wgpu::BindGroupLayoutEntry],
        constants: &[(&str, f64)],
    ) -> Result<Arc<RawPipeline>> {
        let mut named: Vec<String> = constants
            .iter()
            .map(|(k, v)| format!("{k}={v:?}"))
            .collect();
        named.sort();
        let key = (src.to_string(), entry.to_string(), named.join(","));
        self.raw.get(&key, || {
            self.compile_raw(gpu, src, entry, entries, constants)
        })
    }

    fn compile_raw(
        &self,
        gpu: &Gpu,
        src: &str,
        entry: &str,
        entries: &[wgpu::BindGroupLayoutEntry],
        constants: &[(&str, f64)],
    ) -> Result<RawPipeline> {
        let name = format!("raw kernel {entry}");
        let _driver = lock(&DRIVER_LOCK);
        let (made, err) = gpu.scoped(|d| {
            let layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&name),
                entries,
            });
            let pl = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&name),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(&name),
                source: wgpu::ShaderSource::Wgsl(src.into()),
            });
            let pipeline = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&name),
                layout: Some(&pl),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: self.pipeline_cache(),
            });
            RawPipeline { pipeline, layout }
        });
        scope_result(&name, err)?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        Ok(made)
    }

    /// The pipeline for `key`, compiling `spec()` on first use (once, however many threads
    /// ask at the same time).
    pub(crate) fn get(
        &self,
        gpu: &Gpu,
        key: Key,
        spec: impl FnOnce() -> Spec,
    ) -> Result<Arc<Kernel>> {
        self.map.get(&key, || self.compile(gpu, &key, spec()))
    }

    /// The layouts of kernels with `inputs` inputs, the last one read-write if `writable`.
    fn layouts(
        &self,
        gpu: &Gpu,
        inputs: usize,
        writable: bool,
    ) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
        let mut layouts = lock(&self.layouts);
        layouts
            .entry((inputs, writable))
            .or_insert_with(|| {
                let d = &gpu.device;
                let immediates = gpu.immediates;
                let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
                    binding,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                };
                let mut entries = Vec::new();
                if !immediates {
                    entries.push(wgpu::BindGroupLayoutEntry {
                        binding: 0,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: true,
                            min_binding_size: None,
                        },
                        count: None,
                    });
                }
                for k in 0..inputs {
                    entries.push(storage(1 + k as u32, !(writable && k + 1 == inputs)));
                }
                entries.push(storage(4, false));
                let bgl = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("gpuarray"),
                    entries: &entries,
                });
                let pl = d.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("gpuarray"),
                    bind_group_layouts: &[Some(&bgl)],
                    immediate_size: if immediates {
                        std::mem::size_of::<Params>() as u32
                    } else {
                        0
                    },
                });
                (bgl, pl)
            })
            .clone()
    }

    fn compile(&self, gpu: &Gpu, key: &Key, spec: Spec) -> Result<Kernel> {
        let spec = Spec {
            immediates: gpu.immediates,
            ..spec
        }
        .f64_choices(
            gpu.features.contains(wgpu::Features::SHADER_INT64),
            gpu.f64_fma_fused,
        );
        let src = spec.render()?;
        let name = format!("{}::{} [{}]", spec.family, key.entry, key.variant);
        validate(&name, &src, gpu.naga_capabilities())?;
        let (bgl, pl) = self.layouts(gpu, key.inputs, spec.writable_last_input);
        let mut constants = vec![("WG", key.wg as f64)];
        if key.ndim > 0 {
            constants.extend([("NDIM", key.ndim as f64), ("PER", key.per as f64)]);
        }
        constants.extend(spec.constants.iter().copied());
        let constants = &constants[..];
        let _driver = lock(&DRIVER_LOCK);
        let (pipeline, err) = gpu.scoped(|d| {
            let desc = wgpu::ShaderModuleDescriptor {
                label: Some(&name),
                source: wgpu::ShaderSource::Wgsl(src.as_str().into()),
            };
            let module = if spec.unchecked && !gpu.opts.checked_kernels {
                // SAFETY: `Spec::unchecked` kernels index in bounds by construction (their
                // host code checks the sizes they are launched with) and their loops have
                // uniform, finite bounds.
                unsafe {
                    d.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                }
            } else {
                d.create_shader_module(desc)
            };
            d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&name),
                layout: Some(&pl),
                module: &module,
                entry_point: Some(key.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    zero_initialize_workgroup_memory: false,
                },
                cache: self.pipeline_cache(),
            })
        });
        scope_result(&name, err)?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        Ok(Kernel {
            pipeline,
            layout: bgl,
            inputs: key.inputs,
            writable_last: spec.writable_last_input,
            wg: key.wg,
        })
    }
}

/// The error an error scope caught while making pipeline `name`, if any. The device fills
/// in the bytes in use of an out-of-memory error, which this layer does not know.
fn scope_result(name: &str, err: Option<ScopeError>) -> Result<()> {
    match err {
        None => Ok(()),
        Some(ScopeError::OutOfMemory) => Err(Error::OutOfMemory {
            requested: 0,
            used: 0,
            limit: u64::MAX,
        }),
        Some(ScopeError::Validation(m)) => Err(Error::Validation(format!("{name}: {m}"))),
    }
}
