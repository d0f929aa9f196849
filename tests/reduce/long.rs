//! Long rows and long columns (row, column and split-column kernels).

use super::*;

/// `ops` over shapes with long rows ([3, 100_003]: the row kernel, several workgroups per
/// row), long columns with few of them ([100_003, 3]: the reduced axis split across
/// workgroups), a large odd matrix ([4099, 515]) and rows and columns whose extents are
/// multiples of 4 ([12, 40_004], [40_004, 12]: the vec4 kernels, where the lanes of an
/// argmax hold interleaved indices): whole, each axis, both axes (keepdims).
fn large<T: Red>(ops: &[Op]) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("large {}", T::NAME)));
    for &op in ops {
        for shape in [
            [3, 100_003],
            [100_003, 3],
            [4099, 515],
            [12, 40_004],
            [40_004, 12],
        ] {
            let (a, h) = make::<T>(op, &mut rng, &shape);
            let mut forms = vec![Form::Whole, Form::One(0), Form::One(1)];
            if op.has_sets() {
                forms.push(Form::Set(vec![1, 0], true));
            }
            for form in forms {
                check(&format!("{shape:?}"), &a, &h, op, &form);
            }
        }
    }
}

#[test]
fn large_f32_sum_prod_extremes() {
    large::<f32>(&[Op::Sum, Op::Prod, Op::Max, Op::Min, Op::ArgMax, Op::ArgMin]);
}

#[test]
fn large_f32_logical_moments() {
    large::<f32>(&[Op::All, Op::Any, Op::Mean, Op::Var(0), Op::Std(1), Op::Norm]);
}

#[test]
fn large_f16() {
    large::<f16>(&[Op::Sum, Op::Max, Op::ArgMax, Op::Mean, Op::Var(0), Op::Norm]);
}

#[test]
fn large_f64() {
    large::<f64>(&[Op::Sum, Op::Prod, Op::Min, Op::ArgMin, Op::Std(0)]);
}

#[test]
fn large_i32() {
    large::<i32>(&[Op::Sum, Op::Prod, Op::Max, Op::ArgMin, Op::All]);
}

#[test]
fn large_u32() {
    large::<u32>(&[Op::Sum, Op::Min, Op::ArgMax, Op::Any]);
}

/// The view of `base`'s elements (row-major, offset 0) with `shape` and `strides`.
fn strided(base: &Host, shape: &[usize], strides: &[usize]) -> Host {
    let n: usize = shape.iter().product();
    let mut data = Vec::with_capacity(n);
    let mut idx = vec![0; shape.len()];
    let mut o = 0;
    for _ in 0..n {
        data.push(base.data[o]);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            o += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            o -= idx[d] * strides[d];
            idx[d] = 0;
        }
    }
    Host::new(shape, data)
}

/// Large strided inputs: a transposed matrix (columns become rows), a stepped slice, both
/// broadcast directions (a reduced or kept axis of stride 0) and a 3-D array over axis sets
/// that merge (1, 2) and that do not (0, 2).
fn large_views<T: Red>(ops: &[Op]) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("large views {}", T::NAME)));
    for &op in ops {
        // The host models are strided gathers with the strides worked out here (Host's own
        // view methods are too slow for millions of elements).
        let mut cases: Vec<(&str, Array<T>, Host)> = Vec::new();
        let (a, h) = make::<T>(op, &mut rng, &[515, 4099]);
        cases.push((
            "t() of [515, 4099]",
            a.t(),
            strided(&h, &[4099, 515], &[1, 4099]),
        ));
        let (a, h) = make::<T>(op, &mut rng, &[3, 200_006]);
        cases.push((
            "[.., .. step 2] of [3, 200006]",
            a.slice([Slice::from(..), Slice::from(..).step(2)]).unwrap(),
            strided(&h, &[3, 100_003], &[200_006, 2]),
        ));
        let (a, h) = make::<T>(op, &mut rng, &[1, 100_003]);
        cases.push((
            "[1, 100003] broadcast to [3, 100003]",
            a.broadcast_to([3, 100_003]).unwrap(),
            strided(&h, &[3, 100_003], &[0, 1]),
        ));
        let (a, h) = make::<T>(op, &mut rng, &[100_003, 1]);
        cases.push((
            "[100003, 1] broadcast to [100003, 3]",
            a.broadcast_to([100_003, 3]).unwrap(),
            strided(&h, &[100_003, 3], &[1, 0]),
        ));
        for (what, a, h) in &cases {
            let mut forms = vec![Form::Whole, Form::One(0), Form::One(1)];
            if op.has_sets() {
                forms.push(Form::Set(vec![0, 1], true));
            }
            for form in forms {
                check(what, a, h, op, &form);
            }
        }
        let (a, h) = make::<T>(op, &mut rng, &[3, 7, 20_011]);
        let mut forms = vec![Form::Whole, Form::One(0), Form::One(1), Form::One(2)];
        if op.has_sets() {
            forms.extend([
                Form::Set(vec![0, 2], false),
                Form::Set(vec![2, 0], true),
                Form::Set(vec![1, 2], false),
                Form::Set(vec![0, 1], true),
            ]);
        }
        for form in forms {
            check("[3, 7, 20011]", &a, &h, op, &form);
        }
    }
}

#[test]
fn large_views_f32_a() {
    large_views::<f32>(&[Op::Sum, Op::Max, Op::ArgMax, Op::ArgMin]);
}

#[test]
fn large_views_f32_b() {
    large_views::<f32>(&[Op::Mean, Op::Var(0), Op::All]);
}

#[test]
fn large_views_int() {
    large_views::<i32>(&[Op::Sum, Op::Min, Op::ArgMax]);
    large_views::<u32>(&[Op::Max, Op::ArgMin]);
}

/// Five and six dimensions (more than the sweep's four), contiguous and transposed.
fn many_dims<T: Red>(ops: &[Op]) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("many dims {}", T::NAME)));
    for &op in ops {
        let (a, h) = make::<T>(op, &mut rng, &[2, 3, 1, 4, 3, 5]);
        let (b, hb) = make::<T>(op, &mut rng, &[3, 2, 5, 2, 3]);
        let p = [4, 1, 3, 0, 2];
        let cases = [
            ("[2, 3, 1, 4, 3, 5]", a, h),
            (
                "transpose([4, 1, 3, 0, 2]) of [3, 2, 5, 2, 3]",
                b.transpose(&p).unwrap(),
                hb.transpose(&p),
            ),
        ];
        for (what, a, h) in &cases {
            let nd = h.shape.len();
            let mut forms = vec![Form::Whole];
            forms.extend((0..nd).map(Form::One));
            if op.has_sets() {
                forms.extend([
                    Form::Set(vec![0, 2, 4], false),
                    Form::Set(vec![1, 3], true),
                    Form::Set(vec![nd - 1, 0], false),
                    Form::Set((1..nd).collect(), true),
                    Form::Set(vec![], true),
                ]);
            }
            for form in forms {
                check(what, a, h, op, &form);
            }
        }
    }
}

#[test]
fn many_dims_f32() {
    many_dims::<f32>(&[Op::Sum, Op::Max, Op::ArgMin, Op::Mean, Op::Var(1), Op::Any]);
}

#[test]
fn many_dims_int() {
    many_dims::<i32>(&[Op::Prod, Op::Min, Op::ArgMax, Op::All]);
    many_dims::<u32>(&[Op::Sum, Op::Max]);
}
