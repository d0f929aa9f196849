//! Choosing a device by index, copies between devices, and many devices at once: on lavapipe
//! every device here is a device of the same adapter, opened again (each with its own queue,
//! pools and kernel cache, as two GPUs would have).

mod common;

use std::sync::OnceLock;

use common::*;
use gpuarray::{f16, Array, Axis, Device, Element, Error, Slice};

/// A second device of the shared device's adapter, opened by index.
fn other() -> &'static Device {
    static OTHER: OnceLock<Device> = OnceLock::new();
    OTHER.get_or_init(|| {
        let index = dev().info().index.expect("Device::new gives the index");
        Device::open(index).expect("a second device")
    })
}

#[test]
fn enumerate_lists_stable_indices() {
    let a = Device::enumerate().unwrap();
    let b = Device::enumerate().unwrap();
    assert!(!a.is_empty());
    assert_eq!(a, b, "two calls list the same adapters in the same order");
    for (i, info) in a.iter().enumerate() {
        assert_eq!(info.index, Some(i));
    }
    // Sorted by backend, then PCI bus id, vendor, device id, name.
    let rank = |b: &str| {
        ["vulkan", "metal", "dx12", "gl"]
            .iter()
            .position(|x| *x == b)
    };
    let keys: Vec<_> = a
        .iter()
        .map(|i| {
            let r = rank(&i.backend);
            (
                r,
                i.pci_bus_id.clone(),
                i.vendor,
                i.device_id,
                i.name.clone(),
            )
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
    // Device::new's choice carries its index, naming the same adapter.
    let chosen = dev().info();
    let i = chosen.index.expect("an index");
    assert_eq!(a[i].name, chosen.name);
    assert_eq!(a[i].backend, chosen.backend);
}

#[test]
fn open_by_index_opens_that_adapter() {
    let list = Device::enumerate().unwrap();
    for info in &list {
        let i = info.index.unwrap();
        let d = Device::open(i).unwrap();
        assert_eq!(d.info().index, Some(i));
        assert_eq!(
            (&d.info().name, &d.info().backend),
            (&info.name, &info.backend)
        );
        assert_eq!(
            (d.info().vendor, d.info().device_id),
            (info.vendor, info.device_id)
        );
        let x = d.arange::<i32>(0, 101, 1).unwrap();
        assert_eq!(x.sum().unwrap().to_scalar().unwrap(), 5050, "device {i}");
    }
    let mut opts = gpuarray::Options::default();
    opts.tuning.subgroups = false;
    let d = Device::open_with_options(0, opts).unwrap();
    assert!(!d.options().tuning.subgroups);
    assert_eq!(d.info().index, Some(0));
}

#[test]
fn open_out_of_range_is_a_typed_error() {
    let n = Device::enumerate().unwrap().len();
    for index in [n, n + 1, usize::MAX] {
        match Device::open(index) {
            Err(Error::NoSuchDevice { index: i, count }) => assert_eq!((i, count), (index, n)),
            other => panic!("open({index}): expected NoSuchDevice, got {other:?}"),
        }
        let e = Device::open_with_options(index, gpuarray::Options::default()).unwrap_err();
        assert!(e.to_string().contains(&index.to_string()), "{e}");
    }
    // The devices already open are unaffected.
    assert_eq!(
        dev().ones::<f32>([3]).unwrap().to_vec().unwrap(),
        vec![1.0; 3]
    );
}

/// Copies of `T` arrays of awkward sizes, and of views, to the other device and back.
fn copies_of<T: Element>(seed: u64) {
    let mut rng = Rng::new(seed);
    for shape in [
        vec![0],
        vec![1],
        vec![7],
        vec![3, 0, 2],
        vec![13, 17],
        vec![2, 3, 31],
    ] {
        let n: usize = shape.iter().product();
        let (a, want) = upload::<T>(dev(), &rng.vec(n, -100.0, 100.0), &shape);
        let b = a.to_device(other()).unwrap();
        assert!(
            matches!(b.add(&a), Err(Error::DeviceMismatch { .. })),
            "on the other device"
        );
        assert_eq!(b.shape(), &shape[..]);
        assert_close(&host(&b), &want, 0.0, 0.0);
        // And back.
        assert_close(&host(&b.to_device(dev()).unwrap()), &want, 0.0, 0.0);
    }
    // Views: a transpose, a stepped slice with an offset, a broadcast.
    let (a, want) = upload::<T>(dev(), &rng.vec(11 * 13, -50.0, 50.0), &[11, 13]);
    let h = Host::new(&[11, 13], want);
    let cases: Vec<(Array<T>, Host)> = vec![
        (a.t(), h.t()),
        (
            a.slice([Slice::from(2..).step(3), Slice::from(1..12).step(2)])
                .unwrap(),
            h.slice(&[(2, 11, 3), (1, 12, 2)]),
        ),
        (
            a.slice_axis(Axis(0), 5..6)
                .unwrap()
                .broadcast_to([4, 1, 13])
                .unwrap(),
            h.slice(&[(5, 6, 1), (0, 13, 1)]).broadcast_to(&[4, 1, 13]),
        ),
    ];
    for (view, model) in cases {
        let b = view.to_device(other()).unwrap();
        assert_eq!(b.shape(), &model.shape[..]);
        assert!(b.is_contiguous() && b.offset() == 0);
        assert_close(&host(&b), &model.data, 0.0, 0.0);
    }
}

#[test]
fn to_device_copies_every_dtype_and_view() {
    copies_of::<f32>(1);
    copies_of::<i32>(2);
    copies_of::<u32>(3);
    if_supported::<f16>(|| copies_of::<f16>(4));
    if_supported::<f64>(|| copies_of::<f64>(5));
}

#[test]
fn to_device_keeps_special_values() {
    let v = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        1e-45,
        f32::MAX,
        f32::MIN,
    ];
    let b = dev()
        .from_slice(&v, [7])
        .unwrap()
        .to_device(other())
        .unwrap();
    let got = b.to_vec().unwrap();
    let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&v));
    let ints = [i32::MIN, -1, 0, i32::MAX];
    let c = dev()
        .from_slice(&ints, [2, 2])
        .unwrap()
        .to_device(other())
        .unwrap();
    assert_eq!(c.to_vec().unwrap(), ints);
}

/// More than one 4 MiB chunk, and a last chunk that is not full: every element in place.
#[test]
fn to_device_of_several_chunks() {
    let n = 2_500_009usize; // 10 MB of i32: three chunks
    let a = dev().arange::<i32>(0, n as i32, 1).unwrap();
    let b = a.to_device(other()).unwrap();
    let got = b.to_vec().unwrap();
    let wrong = got.iter().enumerate().position(|(i, &x)| x != i as i32);
    assert_eq!(wrong, None, "first wrong element");
    // A stepped view of it, starting at an offset.
    let v = a.slice(Slice::from(3..).step(2)).unwrap();
    let got = v.to_device(other()).unwrap().to_vec().unwrap();
    assert_eq!(got.len(), (n - 3).div_ceil(2));
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, &x)| x == (3 + 2 * i) as i32));
    // The copy is used on the target like any array of it.
    let s = b
        .cast::<f32>()
        .unwrap()
        .mean()
        .unwrap()
        .to_scalar()
        .unwrap();
    assert!((s as f64 - (n - 1) as f64 / 2.0).abs() < 1.0, "{s}");
}

/// On its own device, `to_device` gives a new contiguous copy (not a second handle).
#[test]
fn to_device_on_the_same_device_copies() {
    let a = dev()
        .from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])
        .unwrap();
    let before = dev().memory_pool().used_bytes();
    let b = a.t().to_device(dev()).unwrap();
    assert!(dev().memory_pool().used_bytes() > before, "a new buffer");
    assert!(b.is_contiguous());
    assert_eq!(b.to_vec().unwrap(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    drop(a);
    assert_eq!(b.sum().unwrap().to_scalar().unwrap(), 21.0);
}

#[test]
fn to_device_of_a_lost_device_is_device_lost() {
    let index = dev().info().index.unwrap();
    let target = Device::open(index).unwrap();
    let x = dev().arange::<f32>(0.0, 100.0, 1.0).unwrap();
    target.destroy();
    assert!(matches!(x.to_device(&target), Err(Error::DeviceLost(_))));
    let big = dev().zeros::<u32>([1 << 21]).unwrap(); // two chunks
    assert!(matches!(big.to_device(&target), Err(Error::DeviceLost(_))));
    // The source is intact.
    assert_eq!(x.sum().unwrap().to_scalar().unwrap(), 4950.0);
    // A lost source.
    let source = Device::open(index).unwrap();
    let y = source.ones::<i32>([10]).unwrap();
    source.destroy();
    assert!(matches!(y.to_device(dev()), Err(Error::DeviceLost(_))));
    assert_eq!(
        dev().ones::<i32>([2]).unwrap().to_vec().unwrap(),
        vec![1, 1]
    );
}

/// The courses' generic functions, written once over [`gpuarray::ArrayOps`].
mod generic {
    use gpuarray::{ArrayOps, Axis, Result};

    /// log(1 + e^x).
    pub fn softplus<A: ArrayOps>(x: &A) -> Result<A> {
        x.exp()?.log1p()
    }

    /// Each column scaled to mean 0 and variance 1.
    pub fn normalise<A: ArrayOps<Elem = f32>>(x: &A) -> Result<A> {
        let centred = x.sub(&x.mean_axis(Axis(0))?)?;
        let var = centred.mul(&centred)?.mean_axis(Axis(0))?;
        centred.div(&var.add_scalar(1e-6)?.sqrt()?)
    }

    /// A two-layer network: leaky-relu(tanh(x w1) w2), with a softmax-free score per row.
    pub fn network<A: ArrayOps<Elem = f32>>(x: &A, w1: &A, w2: &A) -> Result<(A, A, f32, f32)> {
        let h = x.matmul(w1)?.tanh()?;
        let y = h.matmul(w2)?;
        let y = y.maximum(&y.mul_scalar(0.1)?)?;
        let score = y.abs()?.sqrt()?.sum_axis(Axis(1))?.div_scalar(2.0)?;
        let top = y.max_axis(Axis(0))?;
        Ok((score, top, y.sum_all()?, y.max_all()? - y.mean_all()?))
    }
}

#[cfg(feature = "ndarray")]
#[test]
fn the_same_generic_code_runs_on_ndarray_and_gpuarray() {
    use gpuarray::ArrayOps;
    use ndarray::{ArrayD, IxDyn};
    let mut rng = Rng::new(20);
    let cpu = |v: &[f64], s: &[usize]| {
        ArrayD::from_shape_vec(IxDyn(s), v.iter().map(|&x| x as f32).collect()).unwrap()
    };
    let gpu = |v: &[f64], s: &[usize]| upload::<f32>(dev(), v, s).0;
    let (n, d, h, o) = (37, 13, 17, 5);
    let x = rng.vec(n * d, -3.0, 3.0);
    let w1 = rng.vec(d * h, -0.5, 0.5);
    let w2 = rng.vec(h * o, -0.5, 0.5);
    let close = |a: Vec<f32>, b: Vec<f32>, tol: f64| {
        assert_close(&to_f64(&a), &to_f64(&b), tol, tol);
    };
    let (xc, xg) = (cpu(&x, &[n, d]), gpu(&x, &[n, d]));
    close(
        generic::softplus(&xg).unwrap().to_host().unwrap(),
        generic::softplus(&xc).unwrap().to_host().unwrap(),
        1e-6,
    );
    let (nc, ng) = (
        generic::normalise(&xc).unwrap(),
        generic::normalise(&xg).unwrap(),
    );
    assert_eq!(nc.dims(), ng.dims());
    close(ng.to_host().unwrap(), nc.to_host().unwrap(), 1e-5);
    let rc = generic::network(&xc, &cpu(&w1, &[d, h]), &cpu(&w2, &[h, o])).unwrap();
    let rg = generic::network(&xg, &gpu(&w1, &[d, h]), &gpu(&w2, &[h, o])).unwrap();
    close(rg.0.to_host().unwrap(), rc.0.to_host().unwrap(), 1e-5);
    close(rg.1.to_host().unwrap(), rc.1.to_host().unwrap(), 1e-5);
    close(vec![rg.2, rg.3], vec![rc.2, rc.3], 1e-4);
    // The same typed errors on both.
    let (bc, bg) = (cpu(&[1.0; 4], &[4]), gpu(&[1.0; 4], &[4]));
    let (ec, eg) = (cpu(&[], &[0]), gpu(&[], &[0]));
    let kind = |e: gpuarray::Error| std::mem::discriminant(&e);
    let pairs = [
        (xc.add(&bc).unwrap_err(), xg.add(&bg).unwrap_err()),
        (
            ArrayOps::sum_axis(&xc, gpuarray::Axis(2)).unwrap_err(),
            ArrayOps::sum_axis(&xg, gpuarray::Axis(2)).unwrap_err(),
        ),
        (ec.max_all().unwrap_err(), eg.max_all().unwrap_err()),
        (xc.matmul(&xc).unwrap_err(), xg.matmul(&xg).unwrap_err()),
    ];
    for (c, g) in pairs {
        assert_eq!(kind(c.clone()), kind(g.clone()), "{c} / {g}");
    }
}

#[cfg(not(feature = "ndarray"))]
#[test]
fn the_same_generic_code_runs_on_ndarray_and_gpuarray() {
    // The GPU half still runs; the comparison needs `--features ndarray`.
    let x = dev().from_slice(&[0.0f32, 1.0], [2]).unwrap();
    use gpuarray::ArrayOps;
    let y = generic::softplus(&x).unwrap().to_host().unwrap();
    assert_close(
        &to_f64(&y),
        &[2f64.ln(), (1.0 + 1f64.exp()).ln()],
        1e-6,
        1e-6,
    );
    // Normalised columns: mean 0, variance 1.
    let mut rng = Rng::new(21);
    let x = upload::<f32>(dev(), &rng.vec(40 * 3, -5.0, 5.0), &[40, 3]).0;
    let z = generic::normalise(&x).unwrap();
    let mean = z.mean_axis(Axis(0)).unwrap().to_host().unwrap();
    let var = z
        .mul(&z)
        .unwrap()
        .mean_axis(Axis(0))
        .unwrap()
        .to_host()
        .unwrap();
    assert_close(&to_f64(&mean), &[0.0; 3], 1e-5, 0.0);
    assert_close(&to_f64(&var), &[1.0; 3], 1e-4, 1e-4);
    let w = dev().full::<f32>([3, 2], 0.0).unwrap();
    let (score, top, sum, spread) = generic::network(&x, &w, &w.t()).unwrap();
    assert_eq!((score.dims(), top.dims()), (vec![40], vec![3]));
    assert_eq!((sum, spread), (0.0, 0.0));
    skip("the ndarray half: build with --features ndarray");
}

/// Twelve devices of one adapter (`GPUARRAY_MANY_DEVICES`: another count), opened and
/// used from four threads at once, every result checked; then every device at once from
/// one thread per device (`DeviceSet::run`), a matrix product on each.
#[test]
fn many_devices_from_several_threads() {
    let count: usize = std::env::var("GPUARRAY_MANY_DEVICES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let index = dev().info().index.unwrap();
    let opened: Vec<Vec<Device>> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..4)
            .map(|t| {
                s.spawn(move || {
                    (t..count)
                        .step_by(4)
                        .map(|k| {
                            let d = Device::open(index).expect("a device");
                            let n = 1000 + 97 * k as i32;
                            let x = d.arange::<i32>(0, n, 1).unwrap();
                            let want = (n as i64 * (n as i64 - 1) / 2) as i32;
                            assert_eq!(x.sum().unwrap().to_scalar().unwrap(), want);
                            d
                        })
                        .collect()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let set = gpuarray::multi::DeviceSet::new(opened.concat()).unwrap();
    assert_eq!(set.len(), count);
    let got = set
        .run(|i, d| {
            let x = d.full::<f32>([64, 64], i as f32)?;
            x.matmul(&d.ones::<f32>([64, 1])?)?.sum()?.to_scalar()
        })
        .unwrap();
    let want: Vec<f32> = (0..count).map(|i| (i * 64 * 64) as f32).collect();
    assert_eq!(got, want);
}

#[test]
fn device_set_splits_maps_and_gathers() {
    use gpuarray::multi::DeviceSet;
    let set = DeviceSet::new(vec![dev().clone(), other().clone(), other().clone()]).unwrap();
    let mut rng = Rng::new(30);
    for (shape, axis) in [
        (vec![7, 5], 0),
        (vec![7, 5], 1),
        (vec![2, 3, 4], 2),
        (vec![2, 0, 4], 1),
        (vec![1], 0),
    ] {
        let n: usize = shape.iter().product();
        let (vals, want) = cast_in::<f32>(&rng.vec(n, -4.0, 4.0));
        let parts = set.split_host(&vals, &shape[..], Axis(axis)).unwrap();
        let bounds = set.bounds(shape[axis]);
        for (i, p) in parts.iter().enumerate() {
            assert_eq!(p.shape()[axis], bounds[i + 1] - bounds[i]);
        }
        let doubled = set.map(&parts, |_, x| x.mul_scalar(2.0)).unwrap();
        let back = set.gather(&doubled, Axis(axis), dev()).unwrap();
        assert_eq!(back.shape(), &shape[..]);
        let twice: Vec<f64> = want.iter().map(|x| 2.0 * x).collect();
        assert_close(&host(&back), &twice, 0.0, 0.0);
        // Split of an array, gathered on another device.
        let a = dev().from_slice(&vals, &shape[..]).unwrap();
        let parts = set.split(&a, Axis(axis)).unwrap();
        let back = set.gather(&parts, Axis(axis), other()).unwrap();
        assert_close(&host(&back), &want, 0.0, 0.0);
    }
    // Bad input: typed errors.
    let x = dev().ones::<f32>([4, 2]).unwrap();
    let parts = set.split(&x, Axis(0)).unwrap();
    assert!(matches!(
        set.split(&x, Axis(2)),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        set.split_host(&[1.0f32; 3], [2, 2], Axis(0)),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        set.map(&parts[..2], |_, p| p.exp()),
        Err(Error::InvalidArgument { .. })
    ));
    let swapped = vec![parts[1].clone(), parts[0].clone(), parts[2].clone()];
    assert!(matches!(
        set.map(&swapped, |_, p| p.exp()),
        Err(Error::DeviceMismatch { .. })
    ));
    let odd = vec![parts[0].clone(), dev().ones::<f32>([1, 3]).unwrap()];
    assert!(matches!(
        set.gather(&odd, Axis(0), dev()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        set.gather::<f32>(&[], Axis(0), dev()),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(gpuarray::multi::DeviceSet::new(vec![]).is_err());
    assert_eq!(x.to_vec().unwrap(), vec![1.0; 8]);
}
