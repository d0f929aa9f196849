//! [`RawKernel`]: a whole WGSL module from the user, launched on a grid of workgroups.

use std::sync::Arc;

use crate::custom::{args_of, Arg, KernelArg};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::kernel::cache::RawPipeline;
use crate::kernel::launch::Binding;
use crate::kernel::raw::{self, Layout, Slot};
use crate::kernel::source::{validate, Validated};

/// A grid of workgroups: `Grid::from(5)`, `[x, y]` or `[x, y, z]`.
///
/// ```
/// use gpuarray::custom::Grid;
/// assert_eq!(Grid::from(5), Grid([5, 1, 1]));
/// assert_eq!(Grid::from([2, 3]), Grid([2, 3, 1]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid(pub [u32; 3]);

impl From<u32> for Grid {
    fn from(x: u32) -> Grid {
        Grid([x, 1, 1])
    }
}
impl From<[u32; 2]> for Grid {
    fn from([x, y]: [u32; 2]) -> Grid {
        Grid([x, y, 1])
    }
}
impl From<[u32; 3]> for Grid {
    fn from(g: [u32; 3]) -> Grid {
        Grid(g)
    }
}

/// A compute kernel written as a whole WGSL module, as CuPy's `RawKernel`.
///
/// Its resources are read from the module: every `var<storage>` of `@group(0)` takes an
/// array argument and every member of its one `var<uniform>` (a 32-bit scalar, or where
/// the adapter has SHADER_INT64 a 64-bit one: f64, i64, u64; or a struct of them) a scalar
/// argument, in the order of their `@binding`s. Storage declared
/// `read_write` is bound writable, so a kernel writes its output arrays in place. The
/// workgroup size is the module's `@workgroup_size`. Never use `arrayLength` as a bound:
/// an array's buffer may be longer than the array; pass the length as a scalar.
///
/// ```
/// use gpuarray::custom::RawKernel;
/// # let dev = gpuarray::Device::new()?;
/// let src = r#"
/// @group(0) @binding(0) var<storage, read> x: array<f32>;
/// @group(0) @binding(1) var<storage, read_write> y: array<f32>;
/// @group(0) @binding(2) var<uniform> n: u32;
/// @compute @workgroup_size(64)
/// fn twice(@builtin(global_invocation_id) id: vec3<u32>) {
///     if (id.x < n) { y[id.x] = 2.0 * x[id.x]; }
/// }"#;
/// let k = RawKernel::new(&dev, src, "twice")?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
/// let y = dev.zeros::<f32>([3])?;
/// k.launch(1, &[&x, &y, &3u32])?;
/// assert_eq!(y.to_vec()?, vec![2.0, 4.0, 6.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct RawKernel {
    dev: Device,
    entry: String,
    /// The source and its validated module, shared by the kernel's variants.
    source: Arc<(String, Validated)>,
    /// Override constants set by [`RawKernel::with_constants`].
    constants: Vec<(String, f64)>,
    layout: Layout,
    pipeline: Arc<RawPipeline>,
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawKernel")
            .field("entry", &self.entry)
            .field("workgroup_size", &self.layout.workgroup)
            .field("constants", &self.constants)
            .finish()
    }
}

impl RawKernel {
    /// Validates `wgsl` with naga and compiles its compute entry point `entry` (once per
    /// source and entry on a device).
    ///
    /// # Errors
    /// [`Error::InvalidShader`] when naga rejects the module (the message gives the line and
    /// column in `wgsl`), when `entry` is not a compute entry point, when the module has
    /// resources raw kernels do not bind (textures, immediates, groups other than 0, two
    /// uniforms), or when it exceeds one of the adapter's limits (see
    /// [`Device::limits`](crate::Device::limits)): the workgroup memory its entry point
    /// uses, summed over its `var<workgroup>` variables, its workgroup size along each axis
    /// and in all, its storage and uniform buffers, its binding numbers. The message names
    /// the limit and both numbers; nothing reaches the driver. [`Error::DeviceLost`] on a
    /// lost (or destroyed) device.
    ///
    /// ```
    /// use gpuarray::custom::RawKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let e = RawKernel::new(&dev, "@compute @workgroup_size(1)\nfn f() {\n  let x = ;\n}", "f");
    /// assert!(e.unwrap_err().to_string().contains(":3:"));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn new(dev: &Device, wgsl: &str, entry: &str) -> Result<RawKernel> {
        dev.expect_alive()?;
        let validated = validate(entry, wgsl, dev.naga_capabilities())?;
        let source = Arc::new((wgsl.to_string(), validated));
        RawKernel::build(dev, source, entry, Vec::new())
    }

    /// The kernel of `source` at `entry` with override `constants` set.
    fn build(
        dev: &Device,
        source: Arc<(String, Validated)>,
        entry: &str,
        constants: Vec<(String, f64)>,
    ) -> Result<RawKernel> {
        let (wgsl, validated) = &*source;
        let named: Vec<(&str, f64)> = constants.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        // What naga cannot know, the adapter's limits, are checked before wgpu sees the
        // module (drivers can take minutes, or all memory, over a kernel past them); what
        // wgpu still refuses when it makes the pipeline is the kernel's fault too.
        dev.check_limits(entry, validated, Some(entry), &named)?;
        let layout =
            raw::reflect(&validated.0, entry, &named).map_err(|m| Error::InvalidShader {
                name: entry.to_string(),
                message: format!("{entry}: {m}"),
            })?;
        let pipeline = dev
            .raw_kernel(wgsl, entry, &layout, &named)
            .map_err(|e| match e {
                Error::Validation(m) => Error::InvalidShader {
                    name: entry.to_string(),
                    message: format!("{entry}: exceeds this adapter's limits: {m}"),
                },
                e => e,
            })?;
        Ok(RawKernel {
            dev: dev.clone(),
            entry: entry.to_string(),
            source,
            constants,
            layout,
            pipeline,
        })
    }

    /// The module's `@workgroup_size`, override expressions evaluated with the kernel's
    /// constants (else the overrides' defaults): what runs per workgroup.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let k = gpuarray::custom::RawKernel::new(&dev, "@compute @workgroup_size(8, 2) fn f() {}", "f")?;
    /// assert_eq!(k.workgroup_size(), [8, 2, 1]);
    /// let src = "override BLOCK: u32 = 64u;\n@compute @workgroup_size(BLOCK, 2) fn f() {}";
    /// let k = gpuarray::custom::RawKernel::new(&dev, src, "f")?;
    /// assert_eq!(k.workgroup_size(), [64, 2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.layout.workgroup
    }

    /// This kernel with the module's `override` constants `constants` set, by name (or by
    /// `@id` where the override has one); the others keep their defaults, or the values an
    /// earlier `with_constants` gave. As CuPy's block size passed per call, a workgroup size
    /// written `@workgroup_size(BLOCK)` is set here, and
    /// [`workgroup_size`](RawKernel::workgroup_size) follows. Pipelines are cached per set
    /// of constants on the device: asking again for the same values compiles nothing.
    ///
    /// # Errors
    /// [`Error::UnknownConstant`] for a name the module does not declare;
    /// [`Error::InvalidShader`] when a value makes the kernel exceed the adapter's limits
    /// (a workgroup too large) or cannot be converted to the override's type;
    /// [`Error::DeviceLost`].
    ///
    /// ```
    /// use gpuarray::custom::RawKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let src = r#"
    /// override BLOCK: u32 = 64u;
    /// @group(0) @binding(0) var<storage, read_write> y: array<u32>;
    /// @compute @workgroup_size(BLOCK)
    /// fn block_id(@builtin(global_invocation_id) i: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>) {
    ///     y[i.x] = g.x;
    /// }"#;
    /// let k = RawKernel::new(&dev, src, "block_id")?;
    /// let y = dev.zeros::<u32>([256])?;
    /// let k128 = k.with_constants(&[("BLOCK", 128.0)])?;
    /// assert_eq!(k128.workgroup_size(), [128, 1, 1]);
    /// k128.launch(2, &[&y])?;
    /// assert_eq!(y.to_vec()?[127..129], [0, 1]);
    /// assert!(k.with_constants(&[("BLOK", 128.0)]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn with_constants(&self, constants: &[(&str, f64)]) -> Result<RawKernel> {
        self.dev.expect_alive()?;
        if let Some(name) = raw::unknown_constant(&self.source.1 .0, constants) {
            return Err(Error::UnknownConstant {
                kernel: self.entry.clone(),
                name: name.to_string(),
            });
        }
        let mut all = self.constants.clone();
        for (k, v) in constants {
            all.retain(|(a, _)| a != k);
            all.push((k.to_string(), *v));
        }
        RawKernel::build(&self.dev, self.source.clone(), &self.entry, all)
    }

    /// Records one dispatch of `workgroups` workgroups with `args` bound in order: arrays to
    /// the storage bindings, scalars to the uniform's members. Returns at once, as every op.
    ///
    /// # Errors
    /// [`Error::ArgumentCount`] for the wrong number of arguments; [`Error::ArgumentType`]
    /// for a scalar where an array is bound (or the reverse) or an element type other than
    /// the binding's; [`Error::InvalidArgument`] for an array view that does not start at a
    /// bindable offset or is not contiguous, an array bound writable and bound again in the
    /// same launch (wgpu forbids it), or a grid larger than the adapter allows.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let k = gpuarray::custom::RawKernel::new(&dev, "@group(0) @binding(0) var<storage, read_write> y: array<u32>;\n@compute @workgroup_size(4) fn f(@builtin(global_invocation_id) i: vec3<u32>) { y[i.x] = i.x; }", "f")?;
    /// let y = dev.zeros::<u32>([8])?;
    /// k.launch([2, 1, 1], &[&y])?;
    /// assert_eq!(y.to_vec()?, (0..8).collect::<Vec<u32>>());
    /// assert!(k.launch(2, &[]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn launch(&self, workgroups: impl Into<Grid>, args: &[&dyn KernelArg]) -> Result<()> {
        let expected: usize = self
            .layout
            .slots
            .iter()
            .map(|s| match s {
                Slot::Storage { .. } => 1,
                Slot::Uniform { members, .. } => members.len(),
            })
            .sum();
        let args = args_of(
            &self.dev,
            "RawKernel::launch",
            &self.entry,
            args,
            None,
            expected,
        )?;
        let (buffers, uniform) = self.bind(&args)?;
        self.check_aliasing(&buffers)?;
        self.dev.launch_raw(
            &self.pipeline,
            &self.layout,
            &buffers,
            &uniform,
            workgroups.into().0,
        )
    }

    /// The arguments in slot order: a binding per storage slot, the uniform's bytes.
    fn bind<'a>(&self, args: &'a [Arg<'a>]) -> Result<(Vec<Binding<'a>>, Vec<u8>)> {
        let mut next = args.iter();
        let mut buffers: Vec<Binding<'_>> = Vec::new();
        let mut uniform = Vec::new();
        let wrong = |param: &str, expected: String, a: &Arg<'_>| Error::ArgumentType {
            kernel: self.entry.clone(),
            param: param.to_string(),
            expected,
            actual: a.describe(),
        };
        let align = self.dev.limits().min_storage_buffer_offset_alignment as u64;
        for slot in &self.layout.slots {
            match slot {
                Slot::Storage { name, elem, .. } => {
                    let a = next.next().expect("counted");
                    let Arg::Array {
                        dtype,
                        operand,
                        contiguous,
                        ..
                    } = a
                    else {
                        return Err(wrong(name, "an array".into(), a));
                    };
                    if elem.is_some_and(|e| e != *dtype) {
                        return Err(wrong(
                            name,
                            {
                                let e = elem.expect("some");
                                format!("{} {e} array", e.article())
                            },
                            a,
                        ));
                    }
                    let start = (operand.offset * dtype.size()) as u64;
                    if !contiguous || !start.is_multiple_of(align) {
                        return Err(Error::InvalidArgument {
                            op: "RawKernel::launch",
                            reason: "arrays must be contiguous and start at the buffer's start (or a multiple of the storage offset alignment)",
                        });
                    }
                    buffers.push(Binding {
                        window: start,
                        ..operand.binding
                    });
                }
                Slot::Uniform { members, size, .. } => {
                    uniform.resize(*size as usize, 0);
                    for (name, offset, d) in members {
                        let a = next.next().expect("counted");
                        let Arg::Scalar { dtype, .. } = a else {
                            return Err(wrong(name, format!("{} {d} scalar", d.article()), a));
                        };
                        // Scalars convert to the member's type only between float kinds.
                        if dtype != d && !(dtype.is_float() && d.is_float()) {
                            return Err(wrong(name, format!("{} {d} scalar", d.article()), a));
                        }
                        let at = ("RawKernel::launch", self.entry.as_str(), name.as_str());
                        let words = crate::custom::scalar_words(&self.dev, at, *d, a)?;
                        for (k, w) in words.iter().enumerate() {
                            let o = *offset as usize + 4 * k;
                            uniform[o..o + 4].copy_from_slice(&w.to_le_bytes());
                        }
                    }
                }
            }
        }
        Ok((buffers, uniform))
    }

    /// wgpu forbids a buffer bound writable and bound again in one dispatch.
    fn check_aliasing(&self, buffers: &[Binding<'_>]) -> Result<()> {
        let writable: Vec<bool> = self
            .layout
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Storage { read_only, .. } => Some(!read_only),
                Slot::Uniform { .. } => None,
            })
            .collect();
        for (j, b) in buffers.iter().enumerate() {
            let shared = buffers
                .iter()
                .enumerate()
                .any(|(k, c)| k != j && c.buffer.id() == b.buffer.id());
            if writable[j] && shared {
                return Err(Error::InvalidArgument {
                    op: "RawKernel::launch",
                    reason: "an array bound to a writable storage binding is bound again; \
                             pass a copy, or declare one binding and use it for both",
                });
            }
        }
        Ok(())
    }
}
