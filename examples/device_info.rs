//! Every adapter wgpu can see: what it is, its limits and features, and which dtypes
//! gpuarray supports on it (each checked by running a small computation), then the adapter
//! `Device::new()` picks. `GPUARRAY_BACKEND` (vulkan, metal, dx12, gl) narrows the list, and
//! `GPUARRAY_ADAPTER` (part of a name) the choice.
//!
//! ```text
//! cargo run --release --example device_info
//! ```

use gpuarray::{Device, Real, Result};

/// The optional features gpuarray makes use of, requested when present.
fn useful_features() -> wgpu::Features {
    wgpu::Features::SHADER_F16
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SHADER_INT64
        | wgpu::Features::SUBGROUP
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::IMMEDIATES
        | wgpu::Features::MAPPABLE_PRIMARY_BUFFERS
}

fn mib(b: u64) -> String {
    format!("{} MiB", b >> 20)
}

/// Whether arrays of `T` work on `dev`: `supports`, then a small round trip through a kernel.
fn check<T: Real>(dev: &Device, values: [T; 3]) -> String {
    if !dev.supports::<T>() {
        return "no (the adapter lacks the feature)".into();
    }
    let run = || -> Result<bool> {
        let x = dev.from_slice(&values, [3])?;
        let y = x.maximum(&x)?.minimum(&x)?;
        Ok(y.to_vec()? == values)
    };
    match run() {
        Ok(true) => "yes".into(),
        Ok(false) => "NO: wrong results".into(),
        Err(e) => format!("NO: {e}"),
    }
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(backends));
    println!("{} adapter(s)", adapters.len());

    for (i, adapter) in adapters.iter().enumerate() {
        let info = adapter.get_info();
        let l = adapter.limits();
        println!("\n[{i}] {}", info.name);
        println!(
            "    backend {:?}, type {:?}",
            info.backend, info.device_type
        );
        println!(
            "    vendor {:#06x}, device {:#06x}",
            info.vendor, info.device
        );
        println!("    driver {} ({})", info.driver, info.driver_info);
        println!(
            "    subgroup size {}..{}",
            info.subgroup_min_size, info.subgroup_max_size
        );
        println!("    limits:");
        let rows: [(&str, String); 11] = [
            ("max_buffer_size", mib(l.max_buffer_size)),
            (
                "max_storage_buffer_binding_size",
                mib(l.max_storage_buffer_binding_size),
            ),
            (
                "max_storage_buffers_per_shader_stage",
                l.max_storage_buffers_per_shader_stage.to_string(),
            ),
            (
                "max_compute_workgroup_storage_size",
                format!("{} bytes", l.max_compute_workgroup_storage_size),
            ),
            (
                "max_compute_invocations_per_workgroup",
                l.max_compute_invocations_per_workgroup.to_string(),
            ),
            (
                "max_compute_workgroup_size_x/y/z",
                format!(
                    "{} / {} / {}",
                    l.max_compute_workgroup_size_x,
                    l.max_compute_workgroup_size_y,
                    l.max_compute_workgroup_size_z
                ),
            ),
            (
                "max_compute_workgroups_per_dimension",
                l.max_compute_workgroups_per_dimension.to_string(),
            ),
            (
                "max_uniform_buffer_binding_size",
                format!("{} bytes", l.max_uniform_buffer_binding_size),
            ),
            (
                "max_immediate_size",
                format!("{} bytes", l.max_immediate_size),
            ),
            (
                "min_storage_buffer_offset_alignment",
                format!("{} bytes", l.min_storage_buffer_offset_alignment),
            ),
            ("max_bind_groups", l.max_bind_groups.to_string()),
        ];
        for (name, value) in rows {
            println!("      {name:<40} {value}");
        }
        let features = adapter.features();
        let names: Vec<&str> = features.iter_names().map(|(n, _)| n).collect();
        println!("    features ({}):", names.len());
        for chunk in names.chunks(4) {
            println!("      {}", chunk.join(", "));
        }

        // Open it as gpuarray does (its own limits, the features gpuarray uses) and try
        // each dtype.
        let want = wgpu::DeviceDescriptor {
            label: Some("device_info"),
            required_features: features & useful_features(),
            required_limits: l.clone(),
            ..Default::default()
        };
        match pollster::block_on(adapter.request_device(&want)) {
            Err(e) => println!("    could not open: {e}"),
            Ok((device, queue)) => {
                let dev = Device::from_wgpu(device, queue);
                println!("    gpuarray dtypes:");
                println!("      f32 {}", check(&dev, [1.0f32, -2.5, 3.0]));
                println!("      i32 {}", check(&dev, [1i32, -2, 3]));
                println!("      u32 {}", check(&dev, [1u32, 2, 3]));
                let h = gpuarray::f16::from_f32;
                println!("      f16 {}", check(&dev, [h(1.0), h(-2.5), h(3.0)]));
                println!("      f64 {}", check(&dev, [1.0f64, -2.5, 3.0]));
                println!("      i64 {}", check(&dev, [1i64 << 40, -2, 3]));
                println!("      u64 {}", check(&dev, [1u64 << 63, 2, 3]));
                println!("      bool {}", check(&dev, [true, false, true]));
                println!("    gpuarray uses: {}", dev.info().features.join(", "));
            }
        }
    }

    let dev = Device::new()?;
    println!(
        "\nDevice::new() picks: {} ({}, {:?})",
        dev.info().name,
        dev.info().backend,
        dev.info().kind
    );
    Ok(())
}
