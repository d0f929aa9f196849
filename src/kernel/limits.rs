//! The adapter's limits on one kernel, checked on the validated naga module before wgpu
//! compiles it: workgroup memory (which wgpu does not check, and on which some drivers
//! spend minutes or all the host's memory), workgroup size, bindings and immediates.
//!
//! Every user kernel passes here (raw kernels, and the generated kernels holding user text:
//! `ElementwiseKernel`, `ReductionKernel`, `fuse`); errors name the limit and both numbers.

use naga::{AddressSpace, ArraySize, Expression, Handle, Literal, Module};

use crate::gpu::Gpu;

/// The limits a kernel must fit, from the device's own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KernelLimits {
    pub workgroup_storage: u64,
    pub workgroup_size: [u64; 3],
    pub invocations: u64,
    pub storage_buffers: u64,
    pub uniform_buffers: u64,
    pub bindings: u64,
    pub bind_groups: u64,
    pub immediate_size: u64,
}

impl KernelLimits {
    pub(crate) fn of(gpu: &Gpu) -> KernelLimits {
        let l = gpu.device.limits();
        KernelLimits {
            workgroup_storage: l.max_compute_workgroup_storage_size.into(),
            workgroup_size: [
                l.max_compute_workgroup_size_x.into(),
                l.max_compute_workgroup_size_y.into(),
                l.max_compute_workgroup_size_z.into(),
            ],
            invocations: l.max_compute_invocations_per_workgroup.into(),
            storage_buffers: l.max_storage_buffers_per_shader_stage.into(),
            uniform_buffers: l.max_uniform_buffers_per_shader_stage.into(),
            bindings: binding_limit(l.max_bindings_per_bind_group),
            bind_groups: l.max_bind_groups.into(),
            immediate_size: l.max_immediate_size.into(),
        }
    }
}

/// WebGPU's default `max_bindings_per_bind_group` (wgpu's on Vulkan where the driver allows
/// no more descriptors per set, as lavapipe).
const PORTABLE_BINDINGS: u32 = 1000;

/// The binding numbers a kernel may use: below the adapter's `max_bindings_per_bind_group`
/// and never past [`PORTABLE_BINDINGS`]. wgpu's GL, Metal and DX12 backends report no limit
/// (`u32::MAX`), and GL's then sizes a table by the largest binding number of each layout:
/// `@binding(65535)` was accepted on GL alone, and `@binding(4000000000)` would allocate
/// gigabytes there. Capped, a kernel accepted on one backend is accepted on all.
fn binding_limit(adapter: u32) -> u64 {
    adapter.min(PORTABLE_BINDINGS).into()
}

/// Where a kernel's override constants come from: the values passed at pipeline creation
/// (by name), else each override's default.
pub(crate) type Constants<'a> = &'a [(&'a str, f64)];

/// Checks compute entry point `entry` of `module` (every compute entry point where `None`),
/// whose validation gave `info`, with `constants`, against `limits`. `Err` names the limit
/// and both numbers.
pub(crate) fn check(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    entry: Option<&str>,
    constants: Constants<'_>,
    limits: &KernelLimits,
) -> Result<(), String> {
    check_resources(module, limits)?;
    for (index, ep) in module.entry_points.iter().enumerate() {
        if ep.stage != naga::ShaderStage::Compute || entry.is_some_and(|e| e != ep.name) {
            continue;
        }
        check_workgroup_size(module, ep, constants, limits)?;
        let uses = info.get_entry_point(index);
        let mut total = 0u64;
        for (h, g) in module.global_variables.iter() {
            if g.space != AddressSpace::WorkGroup {
                continue;
            }
            let name = g.name.as_deref().unwrap_or("?");
            // WebGPU counts each variable rounded up to 16 bytes.
            let bytes = size_of(module, g.ty, constants)
                .ok_or_else(|| {
                    format!(
                        "the size of workgroup variable `{name}` is an override expression \
                         that cannot be evaluated here: give it a constant size"
                    )
                })?
                .div_ceil(16)
                .saturating_mul(16);
            let used = !uses[h].is_empty();
            if used {
                total = total.saturating_add(bytes);
            }
            // A variable the entry point does not use is still compiled with the module.
            if bytes > limits.workgroup_storage || total > limits.workgroup_storage {
                let what = if used {
                    format!("entry point `{}` uses {total} bytes", ep.name)
                } else {
                    format!("workgroup variable `{name}` holds {bytes} bytes")
                };
                return Err(format!(
                    "workgroup memory: {what}, more than this adapter's \
                     max_compute_workgroup_storage_size of {} bytes",
                    limits.workgroup_storage
                ));
            }
        }
    }
    Ok(())
}

/// The workgroup size of `ep`, its override expressions evaluated with `constants` (else
/// the overrides' defaults); `Err` where one cannot be evaluated.
pub(crate) fn workgroup_size(
    module: &Module,
    ep: &naga::EntryPoint,
    constants: Constants<'_>,
) -> Result<[u64; 3], String> {
    let mut size = ep.workgroup_size.map(u64::from);
    if let Some(overrides) = &ep.workgroup_size_overrides {
        for (axis, o) in overrides.iter().enumerate() {
            if let Some(e) = o {
                size[axis] = eval(module, *e, constants).ok_or_else(|| {
                    format!(
                        "the workgroup size of `{}` is an override expression that cannot \
                         be evaluated here: give it a constant",
                        ep.name
                    )
                })?;
            }
        }
    }
    Ok(size)
}

/// The workgroup size of `ep` against the limits per axis and in all.
fn check_workgroup_size(
    module: &Module,
    ep: &naga::EntryPoint,
    constants: Constants<'_>,
    limits: &KernelLimits,
) -> Result<(), String> {
    let size = workgroup_size(module, ep, constants)?;
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        if size[axis] > limits.workgroup_size[axis] {
            return Err(format!(
                "@workgroup_size of `{}`: {} along {name}, more than this adapter's \
                 max_compute_workgroup_size_{name} of {}",
                ep.name, size[axis], limits.workgroup_size[axis]
            ));
        }
    }
    let total = size.iter().product::<u64>();
    if total > limits.invocations {
        return Err(format!(
            "@workgroup_size of `{}`: {total} invocations ({} x {} x {}), more than this \
             adapter's max_compute_invocations_per_workgroup of {}",
            ep.name, size[0], size[1], size[2], limits.invocations
        ));
    }
    Ok(())
}

/// The buffers, bindings and immediates the module declares. Counted over the whole
/// module: a kernel's bind-group layout holds every buffer it declares.
fn check_resources(module: &Module, limits: &KernelLimits) -> Result<(), String> {
    let (mut storage, mut uniform) = (0u64, 0u64);
    for (_, g) in module.global_variables.iter() {
        let name = g.name.as_deref().unwrap_or("?");
        match g.space {
            AddressSpace::Storage { .. } => storage += 1,
            AddressSpace::Uniform => uniform += 1,
            AddressSpace::Immediate => {
                let bytes = size_of(module, g.ty, &[]).unwrap_or(u64::MAX);
                if bytes > limits.immediate_size {
                    return Err(format!(
                        "immediate `{name}` holds {bytes} bytes, more than this adapter's \
                         max_immediate_size of {}",
                        limits.immediate_size
                    ));
                }
            }
            _ => {}
        }
        if let Some(rb) = &g.binding {
            if u64::from(rb.binding) >= limits.bindings {
                return Err(format!(
                    "`{name}` is at @binding({}), past max_bindings_per_bind_group of {} \
                     (this adapter's, at most WebGPU's {PORTABLE_BINDINGS})",
                    rb.binding, limits.bindings
                ));
            }
            if u64::from(rb.group) >= limits.bind_groups {
                return Err(format!(
                    "`{name}` is in @group({}), past this adapter's max_bind_groups of {}",
                    rb.group, limits.bind_groups
                ));
            }
        }
    }
    if storage > limits.storage_buffers {
        return Err(format!(
            "{storage} storage buffers, more than this adapter's \
             max_storage_buffers_per_shader_stage of {}",
            limits.storage_buffers
        ));
    }
    if uniform > limits.uniform_buffers {
        return Err(format!(
            "{uniform} uniform buffers, more than this adapter's \
             max_uniform_buffers_per_shader_stage of {}",
            limits.uniform_buffers
        ));
    }
    Ok(())
}

/// Bytes of type `ty`, with arrays sized by overrides evaluated under `constants`; `None`
/// where a size cannot be evaluated.
fn size_of(module: &Module, ty: Handle<naga::Type>, constants: Constants<'_>) -> Option<u64> {
    match &module.types[ty].inner {
        naga::TypeInner::Array {
            size: ArraySize::Pending(o),
            stride,
            ..
        } => {
            let count = override_value(module, *o, constants)?;
            count.checked_mul(u64::from(*stride))
        }
        inner => Some(inner.size(module.to_ctx()).into()),
    }
}

/// The value of override `o`: from `constants` (by name or numeric id), else its default.
fn override_value(
    module: &Module,
    o: Handle<naga::Override>,
    constants: Constants<'_>,
) -> Option<u64> {
    let ov = &module.overrides[o];
    let given = constants.iter().find(|(k, _)| {
        ov.name.as_deref() == Some(*k) || ov.id.is_some_and(|id| id.to_string() == *k)
    });
    match given {
        Some((_, v)) if *v >= 0.0 && v.fract() == 0.0 => Some(*v as u64),
        Some(_) => None,
        None => eval(module, ov.init?, constants),
    }
}

/// A non-negative integer constant expression of the module's global expressions: literals,
/// constants, overrides and the four arithmetic operators over them.
fn eval(module: &Module, e: Handle<Expression>, constants: Constants<'_>) -> Option<u64> {
    use naga::BinaryOperator as B;
    match module.global_expressions[e] {
        Expression::Literal(l) => match l {
            Literal::U32(v) => Some(v.into()),
            Literal::U64(v) => Some(v),
            Literal::I32(v) => u64::try_from(v).ok(),
            Literal::I64(v) | Literal::AbstractInt(v) => u64::try_from(v).ok(),
            _ => None,
        },
        Expression::ZeroValue(_) => Some(0),
        Expression::Constant(c) => eval(module, module.constants[c].init, constants),
        Expression::Override(o) => override_value(module, o, constants),
        Expression::Binary { op, left, right } => {
            let (a, b) = (
                eval(module, left, constants)?,
                eval(module, right, constants)?,
            );
            match op {
                B::Add => a.checked_add(b),
                B::Subtract => a.checked_sub(b),
                B::Multiply => a.checked_mul(b),
                B::Divide => a.checked_div(b),
                B::Modulo => a.checked_rem(b),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> KernelLimits {
        KernelLimits {
            workgroup_storage: 32 << 10,
            workgroup_size: [256, 256, 64],
            invocations: 256,
            storage_buffers: 8,
            uniform_buffers: 12,
            bindings: 1000,
            bind_groups: 4,
            immediate_size: 128,
        }
    }

    fn run(src: &str, constants: Constants<'_>) -> Result<(), String> {
        let module = naga::front::wgsl::parse_str(src).expect("parses");
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .expect("valid");
        check(&module, &info, None, constants, &limits())
    }

    /// Workgroup memory sums every variable the entry point uses (each rounded to 16
    /// bytes), sizes set by overrides included.
    #[test]
    fn workgroup_memory_is_summed() {
        let two = |n: u32| {
            format!(
                "var<workgroup> a: array<f32, {n}>;\nvar<workgroup> b: array<u32, {n}>;\n\
                 @compute @workgroup_size(1) fn f() {{ a[0] = 1.0; b[0] = 1u; }}"
            )
        };
        assert!(run(&two(4096), &[]).is_ok()); // 2 x 16 KiB: at the limit
        let e = run(&two(4097), &[]).unwrap_err();
        assert!(e.contains("32800") && e.contains("32768"), "{e}");
        let o = "override N: u32 = 1024u;\nvar<workgroup> a: array<vec4<f32>, N>;\n\
                 @compute @workgroup_size(1) fn f() { a[0] = vec4(1.0); }";
        assert!(run(o, &[]).is_ok());
        assert!(run(o, &[("N", 2048.0)]).is_ok());
        assert!(run(o, &[("N", 2049.0)]).unwrap_err().contains("32784"));
        // Rounded to 16 bytes each: 4 + 32756 bytes take 16 + 32768.
        let odd = "var<workgroup> a: array<f32, 1>;\nvar<workgroup> b: array<f32, 8189>;\n\
                   @compute @workgroup_size(1) fn f() { a[0] = 1.0; b[0] = 1.0; }";
        assert!(run(odd, &[]).unwrap_err().contains("32784"));
    }

    /// A variable no entry point uses counts only alone, and only against the limit.
    #[test]
    fn unused_workgroup_variables() {
        let src = "var<workgroup> a: array<f32, 8000>;\nvar<workgroup> b: array<f32, 8000>;\n\
                   @compute @workgroup_size(1) fn f() { a[0] = 1.0; }";
        assert!(run(src, &[]).is_ok());
        let big = "var<workgroup> a: array<f32, 9000>;\n@compute @workgroup_size(1) fn f() {}";
        let e = run(big, &[]).unwrap_err();
        assert!(e.contains("`a` holds 36000 bytes"), "{e}");
    }

    #[test]
    fn workgroup_size_per_axis_and_in_all() {
        let k = |s: &str| format!("@compute @workgroup_size({s}) fn f() {{}}");
        assert!(run(&k("256"), &[]).is_ok());
        assert!(run(&k("16, 16"), &[]).is_ok());
        let e = run(&k("257"), &[]).unwrap_err();
        assert!(e.contains("max_compute_workgroup_size_x of 256") && e.contains("257"));
        let e = run(&k("1, 1, 65"), &[]).unwrap_err();
        assert!(e.contains("max_compute_workgroup_size_z of 64"), "{e}");
        let e = run(&k("32, 16"), &[]).unwrap_err();
        assert!(e.contains("512 invocations") && e.contains("of 256"), "{e}");
        let o = "override W: u32 = 64u;\n@compute @workgroup_size(W * 2u) fn f() {}";
        assert!(run(o, &[]).is_ok());
        assert!(run(o, &[("W", 129.0)]).unwrap_err().contains("258"));
    }

    /// GL's `u32::MAX` bindings are capped at WebGPU's 1000; smaller limits are kept.
    #[test]
    fn binding_numbers_are_capped_at_the_portable_limit() {
        assert_eq!(binding_limit(u32::MAX), 1000);
        assert_eq!(binding_limit(1000), 1000);
        assert_eq!(binding_limit(640), 640);
        let mut l = limits();
        l.bindings = binding_limit(u32::MAX);
        let src = |b: u32| {
            format!(
                "@group(0) @binding({b}) var<storage> x: array<f32>;\n\
                 @compute @workgroup_size(1) fn f() {{ _ = x[0]; }}"
            )
        };
        let run_with = |s: &str| {
            let module = naga::front::wgsl::parse_str(s).expect("parses");
            let info = naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .expect("valid");
            check(&module, &info, None, &[], &l)
        };
        assert!(run_with(&src(999)).is_ok());
        for b in [1000, 65535, 4_000_000_000] {
            let e = run_with(&src(b)).unwrap_err();
            assert!(
                e.contains(&format!("@binding({b})")) && e.contains("of 1000"),
                "{e}"
            );
        }
    }

    #[test]
    fn buffers_bindings_and_immediates() {
        let buffers = |n: u32| {
            let mut s = String::new();
            for k in 0..n {
                s += &format!(
                    "@group(0) @binding({k}) var<storage, read_write> b{k}: array<f32>;\n"
                );
            }
            s + "@compute @workgroup_size(1) fn f() {}"
        };
        assert!(run(&buffers(8), &[]).is_ok());
        let e = run(&buffers(9), &[]).unwrap_err();
        assert!(e.contains("9 storage buffers") && e.contains("of 8"), "{e}");
        let far = "@group(0) @binding(1000) var<storage> x: array<f32>;\n\
                   @compute @workgroup_size(1) fn f() { _ = x[0]; }";
        let e = run(far, &[]).unwrap_err();
        assert!(e.contains("@binding(1000)") && e.contains("of 1000"), "{e}");
        let imm = |n: u32| {
            format!(
                "var<immediate> p: array<u32, {n}>;\n@compute @workgroup_size(1) fn f() {{ _ = p[0]; }}"
            )
        };
        assert!(run(&imm(32), &[]).is_ok());
        let e = run(&imm(33), &[]).unwrap_err();
        assert!(
            e.contains("132 bytes") && e.contains("max_immediate_size of 128"),
            "{e}"
        );
    }
}
