//! `DeviceInfo::flushes_subnormals` (measured when the device opens) agrees with the tests'
//! own measurement (`sweep::flushes`), per float dtype, and with what comparisons of
//! subnormals do on the device.

use gpuarray::f16;

use crate::common::dev;
use crate::sweep::flushes;

#[test]
fn device_info_says_whether_subnormals_flush() {
    let f = dev().info().flushes_subnormals;
    assert_eq!(f.f32, Some(flushes::<f32>()));
    assert_eq!(f.f16, dev().supports::<f16>().then(flushes::<f16>));
    assert_eq!(f.f64, dev().supports::<f64>().then(flushes::<f64>));
    // Comparisons of the smallest subnormal with 0: equal where f32 flushes.
    let x = dev().from_slice(&[1e-45f32, -1e-45], [2]).unwrap();
    let flushed = f.f32.unwrap();
    let eq = x.eq_scalar(0.0).unwrap().to_vec().unwrap();
    let gt = x.gt_scalar(0.0).unwrap().to_vec().unwrap();
    assert_eq!(eq, if flushed { vec![1, 1] } else { vec![0, 0] });
    assert_eq!(gt, if flushed { vec![0, 0] } else { vec![1, 0] });
    // Enumerated adapters have no device open: nothing measured.
    for info in gpuarray::Device::enumerate().unwrap() {
        assert_eq!(info.flushes_subnormals, gpuarray::Subnormals::default());
    }
}
