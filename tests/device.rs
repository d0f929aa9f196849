//! The device: adapter listing, information, adoption of a wgpu device, destruction, and
//! the thread-safety of the handle. Tests that open a device of their own take turns (see
//! `Device`'s docs on many devices at once).

#[macro_use]
mod common;

use std::sync::Mutex;

use common::*;
use gpuarray::{custom, Device, DeviceKind, Error};

static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn handles_are_send_sync_and_clone() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Device>();
    assert_send_sync::<gpuarray::Array<f32>>();
    assert_send_sync::<gpuarray::MemoryPool>();
}

#[test]
fn enumerate_lists_the_chosen_adapter() {
    let dev = dev();
    let all = Device::enumerate().unwrap();
    assert!(!all.is_empty());
    assert!(
        all.iter().any(|i| i.name == dev.info().name),
        "{} not in {:?}",
        dev.info().name,
        all.iter().map(|i| &i.name).collect::<Vec<_>>()
    );
    // Device::new prefers discrete, then integrated, then virtual, then CPU adapters.
    let rank = |k: DeviceKind| match k {
        DeviceKind::DiscreteGpu => 0,
        DeviceKind::IntegratedGpu => 1,
        DeviceKind::VirtualGpu => 2,
        DeviceKind::Cpu => 3,
        _ => 4,
    };
    let best = all.iter().map(|i| rank(i.kind)).min().unwrap();
    if std::env::var_os("GPUARRAY_ADAPTER").is_none() {
        assert_eq!(rank(dev.info().kind), best);
    }
}

#[test]
fn info_and_limits_are_the_adapters() {
    let dev = dev();
    let info = dev.info();
    assert!(!info.name.is_empty());
    assert!(["vulkan", "metal", "dx12", "gl"].contains(&info.backend.as_str()));
    assert!(info.subgroup_min_size <= info.subgroup_max_size);
    let l = dev.limits();
    // WebGPU's defaults are the floor; the device asks for the adapter's own limits.
    assert!(l.max_storage_buffer_binding_size >= 128 << 20);
    assert!(l.max_buffer_size >= l.max_storage_buffer_binding_size.min(256 << 20));
    assert!(l.max_compute_invocations_per_workgroup >= 256);
    assert!(l.max_compute_workgroups_per_dimension >= 65_535);
    assert!(dev.supports::<f32>() && dev.supports::<i32>() && dev.supports::<u32>());
    assert_eq!(dev.supports::<f64>(), info.features.contains(&"SHADER_F64"));
    assert_eq!(
        dev.supports::<gpuarray::f16>(),
        info.features.contains(&"SHADER_F16")
    );
}

/// A program's own wgpu device and queue work as a gpuarray device.
#[test]
fn from_wgpu_adopts_a_device() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let dev = Device::from_wgpu(device, queue);
    let mut rng = Rng::new(7);
    let (x, hx) = upload::<f32>(&dev, &rng.vec(1001, -4.0, 4.0), &[1001]);
    let e: Vec<f64> = hx.iter().map(|v| f32::wrap(v * 3.0)).collect();
    assert_close(&host(&x.mul_scalar(3.0).unwrap()), &e, 0.0, 0.0);
    assert_eq!(dev.stats().dispatches, 1);
}

/// A destroyed device fails with DeviceLost, on every path, and no other device notices.
#[test]
fn destroyed_device_reports_lost() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dev = Device::new().unwrap();
    let x = dev.full::<f32>([100], 2.0).unwrap();
    // Pending, then dropped by destroy.
    let y = x.add_scalar(1.0).unwrap();
    // A raw kernel compiled before: making it again hits the pipeline cache.
    let raw = "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n\
               @compute @workgroup_size(1) fn f() { y[0] = 1.0; }";
    let kernel = custom::RawKernel::new(&dev, raw, "f").unwrap();
    let copy = custom::ElementwiseKernel::new(&dev, "T x", "T y", "y = x;", "copy").unwrap();
    dev.destroy();
    let lost = |r: Result<(), Error>| matches!(r, Err(Error::DeviceLost(_)));
    assert!(lost(y.to_vec().map(drop)));
    assert!(lost(x.to_vec().map(drop)));
    assert!(lost(dev.synchronize()));
    assert!(lost(dev.zeros::<f32>([4]).map(drop)));
    assert!(lost(dev.from_slice(&[1u32, 2], [2]).map(drop)));
    assert!(lost(x.exp().map(drop)));
    // Reductions, matrix products and convolutions, with and without a read.
    let m = x.reshape([10, 10]).unwrap();
    assert!(lost(x.sum().map(drop)));
    assert!(lost(m.max_axis(0, false).map(drop)));
    assert!(lost(m.var_axis([1], 1, false).map(drop)));
    assert!(lost(m.argmax().and_then(|a| a.to_vec()).map(drop)));
    assert!(lost(m.matmul(&m).map(drop)));
    assert!(lost(m.dot(&m).and_then(|a| a.to_vec()).map(drop)));
    let img = x.reshape([1, 1, 10, 10]).unwrap();
    let w = x.slice(..9).unwrap().reshape([1, 1, 3, 3]);
    assert!(lost(
        w.and_then(|w| gpuarray::nn::conv2d(&img, &w, None, Default::default()))
            .map(drop)
    ));
    let k = x.slice(..3).unwrap();
    assert!(lost(
        gpuarray::signal::convolve(&x, &k, gpuarray::signal::Mode::Same).map(drop)
    ));
    assert!(lost(dev.random_uniform::<f32>([8], 1).map(drop)));
    // Creating anything: arrays of every kind, and user kernels (issue 14, finding 4:
    // ElementwiseKernel::new and RawKernel::new succeeded).
    assert!(lost(dev.full::<i32>([3], 1).map(drop)));
    assert!(lost(dev.arange::<f32>(0.0, 4.0, 1.0).map(drop)));
    assert!(lost(dev.eye::<f32>(3).map(drop)));
    assert!(lost(
        x.reshape([10, 10]).unwrap().t().contiguous().map(drop)
    ));
    assert!(lost(x.cast::<i32>().map(drop)));
    assert!(lost(
        custom::ElementwiseKernel::new(&dev, "T x", "T y", "y = x;", "copy").map(drop)
    ));
    assert!(lost(custom::RawKernel::new(&dev, raw, "f").map(drop)));
    let other_raw = raw.replace("1.0", "2.0");
    assert!(lost(
        custom::RawKernel::new(&dev, &other_raw, "f").map(drop)
    ));
    assert!(lost(
        custom::ReductionKernel::new(&dev, "T x", "T y", "x", "a + b", "y = a", "0", "s").map(drop)
    ));
    assert!(lost(custom::fuse(&dev, |[x]| x * 2.0).map(drop)));
    // Kernels made before, and calls that write into existing arrays: lost too.
    assert!(lost(kernel.launch(1, &[&x])));
    assert!(lost(copy.call_into(&[&x], &y)));
    dev.destroy(); // twice is fine
                   // The shared device is unaffected.
    let other = common::dev();
    assert_close(
        &host(&other.full::<i32>([3], 7).unwrap()),
        &[7.0; 3],
        0.0,
        0.0,
    );
}

/// synchronize with nothing pending returns at once, and twice in a row.
#[test]
fn synchronize_without_work() {
    let dev = dev();
    let t = std::time::Instant::now();
    for _ in 0..3 {
        dev.synchronize().unwrap();
    }
    assert!(t.elapsed().as_secs() < 10);
}

/// Options that select nothing, or name a backend without adapters here, are typed errors,
/// and the default device is unaffected.
#[test]
fn options_that_select_no_adapter_are_errors() {
    let mut opts = gpuarray::Options::default();
    opts.adapter = Some("no adapter is called this".into());
    match gpuarray::Device::with_options(opts) {
        Err(Error::NoAdapter { filter }) => assert_eq!(filter, "no adapter is called this"),
        other => panic!("expected NoAdapter, got {other:?}"),
    }
    // The default options still open a device that works.
    let d = gpuarray::Device::with_options(gpuarray::Options::default()).unwrap();
    assert_eq!(
        d.from_slice(&[1u32, 2], [2])
            .unwrap()
            .sum()
            .unwrap()
            .to_scalar()
            .unwrap(),
        3
    );
    // The options as given, but `clock_hold`'s `Auto`, which the device resolves.
    let mut want = gpuarray::Options::default();
    assert_eq!(want.tuning.clock_hold, gpuarray::config::HoldSetting::Auto);
    assert_ne!(
        d.options().tuning.clock_hold,
        gpuarray::config::HoldSetting::Auto
    );
    want.tuning.clock_hold = d.options().tuning.clock_hold;
    assert_eq!(d.options(), &want);
}
