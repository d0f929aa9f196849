//! An adapter without SHADER_INT64 (`Tuning::int64` off): no i64 or u64 array exists
//! there, so the families never see one; the scalars a user kernel reads through 64-bit
//! words (f64, i64, u64) are refused with `Unsupported`, the device still usable.

use crate::common::dev;
use gpuarray::custom::{ElementwiseKernel, RawKernel};
use gpuarray::{DType, Device, Error, Options};

#[test]
fn refused_without_int64() {
    let mut opts = Options::default();
    opts.tuning.int64 = false;
    let d = Device::with_options(opts).unwrap();
    assert!(!d.supports::<i64>() && !d.supports::<u64>());
    assert!(matches!(
        d.zeros::<u64>([2]),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        d.default_rng(1).integers::<i64>([4], 0, 9),
        Err(Error::Unsupported { .. })
    ));
    let k = ElementwiseKernel::new(&d, "f32 x, T s", "f32 y", "y = x + f32(s);", "gate").unwrap();
    let x = d.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    for (r, want) in [
        (k.call::<f32>(&[&x, &7i64]), DType::I64),
        (k.call::<f32>(&[&x, &7u64]), DType::U64),
    ] {
        match r {
            Err(Error::Unsupported { dtype, .. }) => assert_eq!(dtype, want),
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }
    if d.supports::<f64>() {
        assert!(matches!(
            k.call::<f32>(&[&x, &0.5f64]),
            Err(Error::Unsupported {
                dtype: DType::F64,
                ..
            })
        ));
    }
    // 32-bit scalars still work on that device.
    assert_eq!(
        k.call::<f32>(&[&x, &2i32]).unwrap().to_vec().unwrap(),
        vec![3.0, 4.0]
    );
    // A raw kernel declaring 64-bit types does not validate without the capability.
    let src =
        "@group(0) @binding(0) var<uniform> a: i64;\n@compute @workgroup_size(1) fn f() { _ = a; }";
    assert!(RawKernel::new(&d, src, "f").is_err());
    // The shared device, which has SHADER_INT64 on lavapipe, takes that kernel.
    if dev().supports::<i64>() {
        let k = RawKernel::new(dev(), src, "f").unwrap();
        k.launch(1, &[&5i64]).unwrap();
    }
}
