//! Subnormal inputs on adapters that flush them (the H100 through Vulkan does): such an
//! adapter reads a subnormal operand of +, *, < as a zero of its sign, but bit casts and
//! `select` keep its bits. The f32 math must therefore take every decision about an input
//! from its bits (shaders/shared/f32_math.wgsl), which lavapipe (which does not flush)
//! cannot show by running it. So this module checks it two ways: the sources hold no float
//! comparison with zero and no `floor(y) == y` integrality test, the two forms a flush
//! turns (the H100 gave pow(inf, 1.4e-45) = 0 and pow(-1, 1.4e-45) = 1 through them); and
//! the functions that round to their argument for subnormal and zero inputs return it bit
//! for bit, `sign` of a subnormal is ±1, and pow's decisions on subnormal operands match
//! NumPy, on every adapter.

//!
//! `DeviceInfo::flushes_subnormals` (measured when the device opens) agrees with the tests'
//! own measurement (`sweep::flushes`), per float dtype, and with what comparisons of
//! subnormals do on the device.

use gpuarray::{f16, Array, Result};

use crate::common::dev;
use crate::sweep::flushes;

const SOURCES: [(&str, &str); 2] = [
    (
        "f32_math.wgsl",
        include_str!("../../shaders/shared/f32_math.wgsl"),
    ),
    (
        "f32_trig.wgsl",
        include_str!("../../shaders/shared/f32_trig.wgsl"),
    ),
];

/// The lines of `src` (comments removed) that compare a float with zero or test
/// integrality by `floor`.
fn flush_sensitive(src: &str) -> Vec<String> {
    let ops = ["==", "!=", "<=", ">=", "<", ">"];
    let mut bad = Vec::new();
    for (n, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        let zero_cmp = ops.iter().any(|op| {
            squeezed.contains(&format!("{op}TW(0.0)")) || squeezed.contains(&format!("TW(0.0){op}"))
        });
        let floor_cmp = squeezed.match_indices("floor(").any(|(i, _)| {
            let rest = &squeezed[i + 6..];
            let arg = rest.split(')').next().unwrap_or("");
            rest[arg.len()..].starts_with(&format!(")=={arg}"))
        });
        if zero_cmp || floor_cmp {
            bad.push(format!("{}: {}", n + 1, line.trim()));
        }
    }
    bad
}

#[test]
fn the_lint_finds_the_flush_sensitive_forms() {
    let src = "let a = floor(y) == y;\nlet b = x < TW(0.0);\nlet c = TW(0.0)!=x; // y < TW(0.0)\n\
               let ok = is_zero_(x) & (x > TW(1.0)); // floor(y) == y";
    assert_eq!(flush_sensitive(src).len(), 3, "{:?}", flush_sensitive(src));
}

#[test]
fn f32_math_takes_no_decision_from_a_flushable_comparison() {
    for (name, src) in SOURCES {
        let bad = flush_sensitive(src);
        assert!(bad.is_empty(), "{name}: {bad:#?}");
    }
}

const SUBNORMALS: [u32; 6] = [1, 2, 3, 0x0040_0000, 0x007f_ffff, 0x0000_1234];

/// Every subnormal of the list, both signs, and ±0.
fn tiny_inputs() -> Vec<f32> {
    let mut v: Vec<f32> = SUBNORMALS.iter().map(|&b| f32::from_bits(b)).collect();
    v.extend(SUBNORMALS.iter().map(|&b| f32::from_bits(b | 0x8000_0000)));
    v.extend([0.0, -0.0]);
    v
}

type Method = fn(&Array<f32>) -> Result<Array<f32>>;

#[test]
fn odd_functions_return_subnormal_and_zero_arguments_bit_for_bit() {
    let xs = tiny_inputs();
    let a = dev().from_slice(&xs, [xs.len()]).unwrap();
    let methods: [(&str, Method); 5] = [
        ("sin", Array::sin),
        ("tan", Array::tan),
        ("tanh", Array::tanh),
        ("expm1", Array::expm1),
        ("log1p", Array::log1p),
    ];
    for (name, f) in methods {
        let got = f(&a).unwrap().to_vec().unwrap();
        for (x, g) in xs.iter().zip(&got) {
            assert_eq!(g.to_bits(), x.to_bits(), "{name}({x:e}) = {g:e}");
        }
    }
}

#[test]
fn sign_of_subnormals_is_one_and_of_zeros_plus_zero() {
    let xs = tiny_inputs();
    let got = dev()
        .from_slice(&xs, [xs.len()])
        .unwrap()
        .sign()
        .unwrap()
        .to_vec()
        .unwrap();
    for (x, g) in xs.iter().zip(&got) {
        // NumPy: np.sign(np.float32(-1e-45)) = -1.0, np.sign(np.float32(-0.0)) = 0.0.
        let want: f32 = if x.to_bits() & 0x7fff_ffff == 0 {
            0.0
        } else {
            x.signum()
        };
        assert_eq!(g.to_bits(), want.to_bits(), "sign({x:e}) = {g:e}");
    }
}

#[test]
fn pow_decides_on_subnormal_operands_as_numpy() {
    let s = f32::from_bits(1);
    let m = f32::from_bits(0x007f_ffff);
    // (x, y, NumPy's result); NumPy 2.4: np.power(np.float32(x), np.float32(y)).
    let cases: [(f32, f32, f32); 14] = [
        (f32::INFINITY, s, f32::INFINITY),
        (f32::INFINITY, -s, 0.0),
        (f32::NEG_INFINITY, s, f32::INFINITY),
        (0.0, s, 0.0),
        (0.0, -s, f32::INFINITY),
        (-0.0, -m, f32::INFINITY),
        (-1.0, s, f32::NAN),
        (-2.5, -m, f32::NAN),
        (-3.0e38, s, f32::NAN),
        (-s, 0.5, f32::NAN),
        (s, -0.5, 2.671_373_8e22),
        (m, 0.5, 1.084_202_1e-19),
        (s, 1.0, s),
        (-s, 2.0, 0.0),
    ];
    let xs: Vec<f32> = cases.iter().map(|c| c.0).collect();
    let ys: Vec<f32> = cases.iter().map(|c| c.1).collect();
    let got = dev()
        .from_slice(&xs, [xs.len()])
        .unwrap()
        .pow(&dev().from_slice(&ys, [ys.len()]).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    for (&(x, y, want), g) in cases.iter().zip(&got) {
        let ok = if want.is_nan() {
            g.is_nan()
        } else if want.is_infinite() || want == 0.0 || want == x {
            g.to_bits() == want.to_bits()
        } else {
            ((g - want) / want).abs() < 4.0 * f32::EPSILON
        };
        assert!(ok, "pow({x:e}, {y:e}) = {g:e}, NumPy {want:e}");
    }
}

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
    assert_eq!(
        eq,
        if flushed {
            vec![true, true]
        } else {
            vec![false, false]
        }
    );
    assert_eq!(
        gt,
        if flushed {
            vec![false, false]
        } else {
            vec![true, false]
        }
    );
    // Enumerated adapters have no device open: nothing measured.
    for info in gpuarray::Device::enumerate().unwrap() {
        assert_eq!(info.flushes_subnormals, gpuarray::Subnormals::default());
    }
}
