//! Integer quotients and remainders (`div`, `rem`, `remainder`, `floor_divide`, their scalar
//! forms and `rdiv_scalar`) on every pair of awkward operands: signs, 0, ±1, the type's
//! extremes (`MIN / -1`, division by zero), against a reference in i128 with the documented
//! results. Exact: integer results have no tolerance.
//!
//! Written for issue 36: GLSL leaves `%` of negative operands and `MIN / -1` undefined, and
//! Mesa's GL (llvmpipe) gave `7 % -2 = 7`, `-7 % 2 = 1` where WGSL (and the library)
//! give 1 and -1; these tests run on every backend.

use super::*;
use std::fmt::Debug;

/// The integer dtypes, as i128 and back (wrapping, as the GPU's arithmetic does).
trait DivInt: gpuarray::Element + Copy + PartialEq + Debug {
    const MIN: i128;
    const MAX: i128;
    fn wide(self) -> i128;
    fn narrow(v: i128) -> Self;
}

macro_rules! div_int {
    ($($t:ty),+) => {$(
        impl DivInt for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
            fn wide(self) -> i128 {
                self as i128
            }
            fn narrow(v: i128) -> Self {
                v as $t
            }
        }
    )+};
}
div_int!(i8, u8, i16, u16, i32, u32, i64, u64);

#[derive(Clone, Copy, Debug)]
enum Op {
    Div,
    Rem,
    Remainder,
    FloorDivide,
}

const OPS: [Op; 4] = [Op::Div, Op::Rem, Op::Remainder, Op::FloorDivide];

/// The documented result of `x op y`: truncating `/` and `%` (Rust's), NumPy's flooring
/// pair, 0 wherever `y` is 0, `MIN / -1` and `MIN // -1` wrapping to `MIN`, `MIN % -1` 0.
fn reference<T: DivInt>(op: Op, x: T, y: T) -> T {
    let (x, y) = (x.wide(), y.wide());
    if y == 0 {
        return T::narrow(0);
    }
    let (q, r) = (x / y, x % y);
    let differ = r != 0 && (r < 0) != (y < 0);
    T::narrow(match op {
        Op::Div => q,
        Op::Rem => r,
        Op::Remainder if differ => r + y,
        Op::Remainder => r,
        Op::FloorDivide if differ => q - 1,
        Op::FloorDivide => q,
    })
}

fn gpu<T: DivInt>(op: Op, x: &Array<T>, y: &Array<T>) -> Array<T> {
    match op {
        Op::Div => x.div(y),
        Op::Rem => x.rem(y),
        Op::Remainder => x.remainder(y),
        Op::FloorDivide => x.floor_divide(y),
    }
    .unwrap_or_else(|e| panic!("{op:?} {:?}: {e}", T::DTYPE))
}

fn gpu_scalar<T: DivInt>(op: Op, x: &Array<T>, y: T) -> Array<T> {
    match op {
        Op::Div => x.div_scalar(y),
        Op::Rem => x.rem_scalar(y),
        Op::Remainder => x.remainder_scalar(y),
        Op::FloorDivide => x.floor_divide_scalar(y),
    }
    .unwrap_or_else(|e| panic!("{op:?}_scalar {:?}: {e}", T::DTYPE))
}

/// The awkward operands of `T`: 0, ±1, ±2, small primes of both signs, the extremes and
/// their neighbours (negative ones wrap for unsigned types: -1 is MAX there).
fn specials<T: DivInt>() -> Vec<T> {
    let mut v: Vec<i128> = vec![0, 1, -1, 2, -2, 3, -3, 5, 7, -7, 13, -13];
    v.extend([
        T::MIN,
        T::MIN + 1,
        T::MAX,
        T::MAX - 1,
        T::MIN / 2,
        T::MAX / 3,
    ]);
    v.into_iter().map(T::narrow).collect()
}

#[track_caller]
fn expect<T: DivInt>(what: &str, got: &Array<T>, x: &[T], y: &[T], want: &[T]) {
    let got = got.to_vec().unwrap();
    assert_eq!(got.len(), want.len(), "{what}: length");
    let bad: Vec<String> = (0..want.len())
        .filter(|&i| got[i] != want[i])
        .take(8)
        .map(|i| {
            format!(
                "[{i}] {:?} op {:?}: got {:?}, want {:?}",
                x[i], y[i], got[i], want[i]
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{what} {:?}: {} of {} wrong:\n  {}",
        T::DTYPE,
        (0..want.len()).filter(|&i| got[i] != want[i]).count(),
        want.len(),
        bad.join("\n  ")
    );
}

/// Every pair of special operands, array by array: contiguous (a multiple of 4 long: the
/// vec4 path), then every other element of both (a strided view: the scalar path).
fn pairs<T: DivInt>() {
    require_dtype!(T);
    let dev = dev();
    let s = specials::<T>();
    let (x, y): (Vec<T>, Vec<T>) = s
        .iter()
        .flat_map(|&a| s.iter().map(move |&b| (a, b)))
        .unzip();
    assert_eq!(x.len() % 4, 0);
    let (gx, gy) = (
        dev.from_slice(&x, [x.len()]).unwrap(),
        dev.from_slice(&y, [y.len()]).unwrap(),
    );
    for op in OPS {
        let want: Vec<T> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| reference(op, a, b))
            .collect();
        expect(&format!("{op:?}"), &gpu(op, &gx, &gy), &x, &y, &want);
        // Odd elements of both: strided views, offset 1.
        let every = |v: &Array<T>| v.slice(Slice::from(1..).step(2)).unwrap();
        let (sx, sy) = (every(&gx), every(&gy));
        let odd = |v: &[T]| v.iter().skip(1).step_by(2).copied().collect::<Vec<T>>();
        let (ox, oy) = (odd(&x), odd(&y));
        let want: Vec<T> = ox
            .iter()
            .zip(&oy)
            .map(|(&a, &b)| reference(op, a, b))
            .collect();
        expect(
            &format!("{op:?} strided"),
            &gpu(op, &sx, &sy),
            &ox,
            &oy,
            &want,
        );
    }
}

/// The scalar forms: every special as the scalar divisor, over every special dividend (18
/// elements: the scalar path), and `rdiv_scalar` with every special as the dividend.
fn scalars<T: DivInt>() {
    require_dtype!(T);
    let dev = dev();
    let s = specials::<T>();
    let gs = dev.from_slice(&s, [s.len()]).unwrap();
    for op in OPS {
        for &b in &s {
            let y = vec![b; s.len()];
            let want: Vec<T> = s.iter().map(|&a| reference(op, a, b)).collect();
            let what = format!("{op:?}_scalar({b:?})");
            expect(&what, &gpu_scalar(op, &gs, b), &s, &y, &want);
        }
    }
    for &a in &s {
        let x = vec![a; s.len()];
        let want: Vec<T> = s.iter().map(|&b| reference(Op::Div, a, b)).collect();
        let got = gs.rdiv_scalar(a).unwrap();
        expect(&format!("rdiv_scalar({a:?})"), &got, &x, &s, &want);
    }
}

/// Random operands of both signs and every magnitude (a fifth of the divisors 0, -1 or 1)
/// at awkward sizes, and a column broadcast against a row.
fn random<T: DivInt>() {
    require_dtype!(T);
    let dev = dev();
    let mut rng = Rng::new(seed("int_division") ^ seed(&format!("{:?}", T::DTYPE)));
    let mut draw = |n: usize, small: bool| -> Vec<T> {
        (0..n)
            .map(|_| {
                let bits = rng.next_u64() as i128 | ((rng.next_u64() as i128) << 64);
                if small && rng.bool(0.2) {
                    T::narrow(rng.int(-1, 2) as i128)
                } else if rng.bool(0.5) {
                    // Small magnitudes, where truncation and flooring differ most often.
                    T::narrow(rng.int(-100, 101) as i128)
                } else {
                    T::narrow(bits)
                }
            })
            .collect()
    };
    for n in [1usize, 7, 8, 1031, 4099] {
        let (x, y) = (draw(n, false), draw(n, true));
        let (gx, gy) = (
            dev.from_slice(&x, [n]).unwrap(),
            dev.from_slice(&y, [n]).unwrap(),
        );
        for op in OPS {
            let want: Vec<T> = x
                .iter()
                .zip(&y)
                .map(|(&a, &b)| reference(op, a, b))
                .collect();
            expect(&format!("{op:?} n={n}"), &gpu(op, &gx, &gy), &x, &y, &want);
        }
    }
    // A column of 3 divisors against a row of 1031 dividends.
    let (x, y) = (
        draw(1031, false),
        [T::narrow(-2), T::narrow(3), T::narrow(-1)],
    );
    let gx = dev.from_slice(&x, [1031]).unwrap();
    let gy = dev.from_slice(&y, [3, 1]).unwrap();
    let (bx, by): (Vec<T>, Vec<T>) = y
        .iter()
        .flat_map(|&b| x.iter().map(move |&a| (a, b)))
        .unzip();
    for op in OPS {
        let want: Vec<T> = bx
            .iter()
            .zip(&by)
            .map(|(&a, &b)| reference(op, a, b))
            .collect();
        let got = gpu(op, &gx, &gy);
        assert_eq!(got.shape(), &[3, 1031]);
        expect(&format!("{op:?} broadcast"), &got, &bx, &by, &want);
    }
}

macro_rules! int_division {
    ($($m:ident: $t:ty),+) => {$(
        mod $m {
            #[test]
            fn pairs() {
                super::pairs::<$t>();
            }
            #[test]
            fn scalars() {
                super::scalars::<$t>();
            }
            #[test]
            fn random() {
                super::random::<$t>();
            }
        }
    )+};
}

int_division!(i8_: i8, u8_: u8, i16_: i16, u16_: u16, i32_: i32, u32_: u32, i64_: i64, u64_: u64);
