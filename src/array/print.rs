//! Printing: `Display` as NumPy's `str(array)`, `Debug` with the layout and the values.
//!
//! Floats follow NumPy's default `maxprec` mode: each value with the fewest digits that read
//! back to the same value of its own type (f16 values as f16), at most `precision` after
//! the point; positional unless the largest magnitude is 1e8 or more, the smallest non-zero
//! below 1e-4 or their ratio above 1000, then scientific. One width for every element.
//! Arrays over `threshold` elements are summarised: `edgeitems` at each end of every axis
//! longer than twice that, and `...` between; only those elements are read from the device
//! (the edges are gathered on the device, then read at once).

use std::fmt;

use crate::array::complex::{by_component, parts};
use crate::array::Array;
use crate::dtype::{real_f64, round_to_float, DType, Element};
use crate::error::Result;
use crate::shape::Slice;

/// How arrays print: NumPy's `set_printoptions` fields of the same names.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.arange::<f32>(0.0, 10.0, 1.0)?;
/// let opts = gpuarray::PrintOptions { threshold: 5, edgeitems: 2, ..Default::default() };
/// assert_eq!(x.display_with(opts).to_string(), "[0. 1. ... 8. 9.]");
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintOptions {
    /// Arrays of more elements than this are summarised (1000).
    pub threshold: usize,
    /// Elements shown at each end of a summarised axis (3).
    pub edgeitems: usize,
    /// Most digits after the decimal point of floats (8); `{:.3}` overrides it.
    pub precision: usize,
    /// Characters per line before rows wrap (75).
    pub linewidth: usize,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            threshold: 1000,
            edgeitems: 3,
            precision: 8,
            linewidth: 75,
        }
    }
}

/// An array printed with given [`PrintOptions`] ([`Array::display_with`]).
#[derive(Debug)]
pub struct DisplayWith<'a, T: Element> {
    array: &'a Array<T>,
    opts: PrintOptions,
}

impl<T: Element> Array<T> {
    /// The array as a [`fmt::Display`] with `opts` instead of the defaults.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f64 / 3.0, 2.0], [2])?;
    /// let opts = gpuarray::PrintOptions { precision: 3, ..Default::default() };
    /// assert_eq!(x.display_with(opts).to_string(), "[0.333 2.   ]");
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn display_with(&self, opts: PrintOptions) -> DisplayWith<'_, T> {
        DisplayWith { array: self, opts }
    }

    /// The printed elements, in row-major order over the summarised shape, and which axes
    /// are summarised.
    fn printed(&self, summarise: bool, edge: usize) -> Result<(Vec<usize>, Vec<bool>, Vec<T>)> {
        let cut: Vec<bool> = self
            .shape
            .iter()
            .map(|&n| summarise && n > 2 * edge)
            .collect();
        let mut a = self.clone();
        for (axis, _) in cut.iter().enumerate().filter(|c| *c.1) {
            let n = a.shape[axis] as isize;
            let head = a.slice_at(axis, Slice::new(0, Some(edge as isize), 1))?;
            let tail = a.slice_at(axis, Slice::new(n - edge as isize, None, 1))?;
            a = crate::ops::manip::join(&[&head, &tail], axis, "print")?;
        }
        let shape = a.shape.clone();
        Ok((shape, cut, a.to_vec()?))
    }

    fn slice_at(&self, axis: usize, s: Slice) -> Result<Array<T>> {
        let mut info = vec![Slice::from(..); axis + 1];
        info[axis] = s;
        self.slice(info)
    }

    fn render(&self, opts: PrintOptions) -> Result<String> {
        if self.ndim() == 0 {
            let v = self.to_vec()?[0];
            return Ok(scalar_str(v));
        }
        if self.is_empty() {
            return Ok("[]".into());
        }
        let summarise = self.len() > opts.threshold;
        let (shape, cut, vals) = self.printed(summarise, opts.edgeitems)?;
        let cells = format_cells(&vals, opts.precision);
        let grid = Grid {
            shape: &shape,
            cut: &cut,
            cells: &cells,
            edge: opts.edgeitems,
        };
        Ok(grid.rec(0, 0, " ", opts.linewidth))
    }
}

impl<T: Element> fmt::Display for DisplayWith<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut opts = self.opts;
        if let Some(p) = f.precision() {
            opts.precision = p;
        }
        match self.array.render(opts) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<error: {e}>"),
        }
    }
}

/// As NumPy's `str(array)`: `[[1. 2.]\n [3. 4.]]`, summarised past 1000 elements; `{:.3}`
/// sets the precision (see [`PrintOptions`]). A 0-d array prints as its scalar (`1.5`,
/// `1.0`, `1e+20`). `Display` cannot fail: when the device reports an error (reading the
/// values back), it prints `<error: ...>` with the error's message instead.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.5, -3.0, f32::NAN], [2, 2])?;
/// assert_eq!(x.to_string(), "[[ 1.   2.5]\n [-3.   nan]]");
/// assert_eq!(format!("{:.1}", dev.from_slice(&[0.25f64], [1])?), "[0.2]");
/// # Ok::<(), gpuarray::Error>(())
/// ```
impl<T: Element> fmt::Display for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.display_with(PrintOptions::default()), f)
    }
}

/// The dtype, shape, strides, offset and the values as `Display` prints them (summarised
/// alike; `<error: ...>` in place of the values on a device error).
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1i32, 2], [2])?;
/// let s = format!("{x:?}");
/// assert_eq!(s, "Array { dtype: I32, shape: [2], strides: [1], offset: 0, values: [1 2] }");
/// # Ok::<(), gpuarray::Error>(())
/// ```
impl<T: Element> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Values<'a, T: Element>(&'a Array<T>);
        impl<T: Element> fmt::Debug for Values<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self.0, f)
            }
        }
        f.debug_struct("Array")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .field("offset", &self.offset)
            .field("values", &Values(self))
            .finish()
    }
}

/// The summarised shape and its formatted cells, laid out as NumPy's `_formatArray`.
struct Grid<'a> {
    shape: &'a [usize],
    cut: &'a [bool],
    cells: &'a [String],
    edge: usize,
}

impl Grid<'_> {
    /// The text of the sub-array at `axis` starting at cell `base`, its continuation lines
    /// indented by `hang`, in lines of `width` characters.
    fn rec(&self, axis: usize, base: usize, hang: &str, width: usize) -> String {
        if axis == self.shape.len() {
            return self.cells[base].clone();
        }
        let inner: usize = self.shape[axis + 1..].iter().product();
        let n = self.shape[axis];
        let (lead, trail) = if self.cut[axis] {
            (self.edge, self.edge)
        } else {
            (0, n)
        };
        let next_hang = format!("{hang} ");
        let width_in = width.saturating_sub(1);
        let at = |i: usize| self.rec(axis + 1, base + i * inner, &next_hang, width_in);
        // Indices shown: the leading ones, then "...", then the trailing ones.
        let mut items: Vec<Option<usize>> = (0..lead).map(Some).collect();
        if self.cut[axis] {
            items.push(None);
        }
        items.extend((n - trail..n).map(Some));
        let word = |it: &Option<usize>| it.map_or_else(|| "...".to_string(), at);
        let mut s = String::new();
        if axis + 1 == self.shape.len() {
            let mut line = hang.to_string();
            for (k, it) in items.iter().enumerate() {
                let w = word(it);
                if line.len() + w.len() > width.saturating_sub(1) && line.len() > hang.len() {
                    s.push_str(line.trim_end());
                    s.push('\n');
                    line = hang.to_string();
                }
                line.push_str(&w);
                if k + 1 < items.len() {
                    line.push(' ');
                }
            }
            s.push_str(&line);
        } else {
            let sep = "\n".repeat(self.shape.len() - axis - 1);
            for (k, it) in items.iter().enumerate() {
                s.push_str(hang);
                s.push_str(&word(it));
                if k + 1 < items.len() {
                    s.push_str(&sep);
                }
            }
        }
        format!("[{}]", &s[hang.len()..])
    }
}

/// An integer as NumPy prints it; booleans as `True` and `False`; an element of any other
/// non-float dtype as its `Debug` form.
fn int_str<T: Element>(v: T) -> String {
    match (T::DTYPE, real_f64(v)) {
        (DType::Bool, Some(x)) if x != 0.0 => "True".into(),
        (DType::Bool, _) => "False".into(),
        _ => format!("{v:?}"),
    }
}

/// The elements of `vals` as f64 when `T` is a float dtype.
fn float_values<T: Element>(vals: &[T]) -> Option<Vec<f64>> {
    round_to_float(T::DTYPE, 0.0)?;
    vals.iter().map(|&v| real_f64(v)).collect()
}

/// The cells of `vals`, each padded to the common width.
fn format_cells<T: Element>(vals: &[T], precision: usize) -> Vec<String> {
    if let Some(c) = T::DTYPE.component() {
        // NumPy's complex cells: the real parts formatted together, then the imaginary
        // parts together with their sign always shown, then `j` (`1.+2.j`, `3.-0.j`).
        let (re, im): (Vec<f64>, Vec<f64>) = vals.iter().map(|&v| complex_parts(v)).unzip();
        let digits = |x: f64| shortest(x, |y| round_to_float(c, y).unwrap_or(y));
        let rc = FloatFormat::new(&re, precision, digits).cells(&re);
        let ic: Vec<String> = FloatFormat::new(&im, precision, digits)
            .cells(&im)
            .iter()
            .map(|s| match s.trim() {
                t if t.starts_with('-') || t.starts_with('+') => t.to_string(),
                t => format!("+{t}"),
            })
            .collect();
        let w = ic.iter().map(String::len).max().unwrap_or(0);
        return rc
            .into_iter()
            .zip(ic)
            .map(|(r, i)| format!("{r}{i:>w$}j"))
            .collect();
    }
    let Some(xs) = float_values(vals) else {
        let strs: Vec<String> = vals.iter().map(|&v| int_str(v)).collect();
        let w = strs.iter().map(String::len).max().unwrap_or(0);
        return strs.into_iter().map(|s| format!("{s:>w$}")).collect();
    };
    let d = T::DTYPE;
    let digits = |x: f64| shortest(x, |y| round_to_float(d, y).unwrap_or(y));
    FloatFormat::new(&xs, precision, digits).cells(&xs)
}

/// The fewest significant digits of `x` (as `d1d2...`, no point) and the decimal exponent
/// of the first, such that `round(value) == x`: the shortest string that reads back.
fn shortest(x: f64, round: impl Fn(f64) -> f64) -> (String, i32) {
    let x = x.abs();
    let mut s = format!("{x:e}");
    for p in 0..17 {
        let t = format!("{x:.p$e}");
        if t.parse::<f64>().is_ok_and(|y| round(y) == x) {
            s = t;
            break;
        }
    }
    split_sci(&s)
}

/// `d.ddde±x` as (digits without trailing zeros, exponent).
fn split_sci(s: &str) -> (String, i32) {
    let (m, e) = s.split_once('e').unwrap_or((s, "0"));
    let mut d: String = m.chars().filter(|c| *c != '.').collect();
    while d.len() > 1 && d.ends_with('0') {
        d.pop();
    }
    (d, e.parse().unwrap_or(0))
}

/// A finite value's integer part (with its sign) and fractional digits, positional.
fn positional(x: f64, (d, e): &(String, i32), precision: usize) -> (String, String) {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let frac_len = (d.len() as i32 - 1 - e).max(0) as usize;
    let (int, frac) = if frac_len > precision {
        let t = format!("{:.precision$}", x.abs());
        let (i, f) = t.split_once('.').unwrap_or((&t, ""));
        (i.to_string(), f.trim_end_matches('0').to_string())
    } else if *e >= 0 {
        let e = *e as usize;
        let int = format!("{:0<w$}", &d[..d.len().min(e + 1)], w = e + 1);
        (int, d.get(e + 1..).unwrap_or("").to_string())
    } else {
        let zeros = "0".repeat((-e - 1) as usize);
        ("0".to_string(), format!("{zeros}{d}"))
    };
    (format!("{sign}{int}"), frac)
}

/// A finite value's mantissa (signed integer digit and fraction) and exponent, scientific.
fn scientific(x: f64, (d, e): &(String, i32), precision: usize) -> (String, String, i32) {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (d, e) = if d.len() - 1 > precision {
        split_sci(&format!("{:.precision$e}", x.abs()))
    } else {
        (d.clone(), *e)
    };
    (format!("{sign}{}", &d[..1]), d[1..].to_string(), e)
}

/// NumPy's `FloatingFormat` in `maxprec` mode: the layout shared by every cell.
struct FloatFormat {
    exp: bool,
    precision: usize,
    pad_left: usize,
    pad_right: usize,
    exp_size: usize,
    digits: Vec<Option<(String, i32)>>,
}

impl FloatFormat {
    fn new(xs: &[f64], precision: usize, digits: impl Fn(f64) -> (String, i32)) -> FloatFormat {
        let digits: Vec<_> = xs
            .iter()
            .map(|&x| x.is_finite().then(|| digits(x)))
            .collect();
        let nz: Vec<f64> = xs
            .iter()
            .filter(|x| x.is_finite() && **x != 0.0)
            .map(|x| x.abs())
            .collect();
        let max = nz.iter().cloned().fold(0.0, f64::max);
        let min = nz.iter().cloned().fold(f64::INFINITY, f64::min);
        let exp = !nz.is_empty() && (max >= 1e8 || min < 1e-4 || max / min > 1e3);
        let mut f = FloatFormat {
            exp,
            precision,
            pad_left: 0,
            pad_right: 0,
            exp_size: 0,
            digits,
        };
        let finite = xs
            .iter()
            .zip(&f.digits)
            .filter_map(|(&x, d)| Some((x, d.as_ref()?)));
        if exp {
            let parts: Vec<_> = finite.map(|(x, d)| scientific(x, d, precision)).collect();
            f.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            f.exp_size = parts
                .iter()
                .map(|p| p.2.unsigned_abs().to_string().len().max(2))
                .max()
                .unwrap_or(2);
            f.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            let parts: Vec<_> = finite.map(|(x, d)| positional(x, d, precision)).collect();
            f.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
            f.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        }
        if xs.iter().any(|x| !x.is_finite()) {
            let neg_inf = xs.contains(&f64::NEG_INFINITY) as usize;
            let need = (3 + neg_inf).saturating_sub(f.pad_right + 1);
            f.pad_left = f.pad_left.max(need);
        }
        f
    }

    fn cells(&self, xs: &[f64]) -> Vec<String> {
        let width = self.pad_left + self.pad_right + 1;
        xs.iter()
            .zip(&self.digits)
            .map(|(&x, d)| match d {
                None => format!("{:>width$}", non_finite(x)),
                Some(d) if self.exp => {
                    let (i, fr, e) = scientific(x, d, self.precision);
                    let sign = if e < 0 { '-' } else { '+' };
                    format!(
                        "{i:>l$}.{fr:0<p$}e{sign}{:0>w$}",
                        e.unsigned_abs(),
                        l = self.pad_left,
                        p = self.precision,
                        w = self.exp_size
                    )
                }
                Some(d) => {
                    let (i, fr) = positional(x, d, self.precision);
                    format!("{i:>l$}.{fr:<r$}", l = self.pad_left, r = self.pad_right)
                }
            })
            .collect()
    }
}

fn non_finite(x: f64) -> &'static str {
    match x {
        x if x.is_nan() => "nan",
        x if x > 0.0 => "inf",
        _ => "-inf",
    }
}

/// A 0-d array as NumPy prints its scalar: ints plainly; floats with the shortest digits,
/// positional (`1.0`, `0.001`) from 1e-4 up to 1e16 and for zero, else scientific (`1e+16`,
/// `1.5e-05`).
/// The components of a complex value, as f64.
#[allow(
    clippy::useless_conversion,
    reason = "f64::from widens f32 components and is the identity for f64 ones"
)]
fn complex_parts<T: Element>(v: T) -> (f64, f64) {
    by_component!(T::DTYPE, R => {
        let (a, b) = parts::<T, R>(v);
        (f64::from(a), f64::from(b))
    })
}

fn scalar_str<T: Element>(v: T) -> String {
    if let Some(c) = T::DTYPE.component() {
        // NumPy's `(1.5-2j)`: each part as a scalar of the component type.
        let (re, im) = complex_parts(v);
        let part = |x: f64| {
            let s = match c {
                DType::F32 => scalar_str(x as f32),
                _ => scalar_str(x),
            };
            // Python's complex repr: `(1+2j)`, no `.0` of whole parts.
            s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
        };
        let i = part(im);
        let sign = if i.starts_with('-') || i.starts_with('+') {
            ""
        } else {
            "+"
        };
        return format!("({}{sign}{i}j)", part(re));
    }
    let Some(x) = float_values(&[v]).map(|xs| xs[0]) else {
        return int_str(v);
    };
    if !x.is_finite() {
        return non_finite(x).into();
    }
    let d = shortest(x, |y| round_to_float(T::DTYPE, y).unwrap_or(y));
    if x == 0.0 || (1e-4..1e16).contains(&x.abs()) {
        let (i, f) = positional(x, &d, usize::MAX);
        let f = if f.is_empty() { "0".into() } else { f };
        format!("{i}.{f}")
    } else {
        let (i, f, e) = scientific(x, &d, usize::MAX);
        let point = if f.is_empty() { "" } else { "." };
        let sign = if e < 0 { '-' } else { '+' };
        format!("{i}{point}{f}e{sign}{:02}", e.unsigned_abs())
    }
}
