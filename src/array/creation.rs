//! Creation: zeros, ones, full, arange, linspace, eye. Host side of shaders/creation.wgsl.

use std::sync::Arc;

use crate::array::complex::{by_component, parts};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{accepts, packed_i32, DType, Element, Float, Real};
use crate::error::{Error, Result};
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use crate::ops::elementwise::{map_unary, Unary};
use crate::shape::Shape;

const SRC: &str = include_str!("../../shaders/creation.wgsl");
const WG: u32 = 256;

/// What a creation kernel writes: its entry point and values.
#[derive(Debug, Clone, Copy)]
enum Creation<T> {
    /// `fill`: `value` everywhere (`arg(0u)`).
    Fill { value: T },
    /// `arange`: `start + i * step` (`arg(0u)`, `arg(1u)`; for f16 and f32 the step as
    /// hi + lo in f32, `arg(3u)` the lo, computed with two fmas and rounded once); with
    /// `exact_end` the last element is `stop` (`arg(2u)`), as `linspace` wants
    /// (`exact_end()`). Made by [`arange_values`], which computes both forms of the
    /// scalars: `exact` `[start, step, stop, 0]` in `T`, `wide` in f32 with the step split.
    Arange {
        exact: [T; 4],
        wide: [f32; 4],
        exact_end: bool,
    },
    /// `eye`: ones where column - row == `diag` (`eye_diag()`) in rows of `cols` columns
    /// (`eye_cols()`, at least 1), zeros elsewhere.
    Eye { cols: u32, diag: i32 },
    /// `tri`: ones where column - row <= `diag`, as `Eye`'s fields.
    Tri { cols: u32, diag: i32 },
    /// `geom`: `sign(first) * 2^(lg0 + i * step)` (`arg(0u)`, `arg(1u)`, in the carrier),
    /// the first element `first` (`arg(2u)`) and the last `last` (`arg(3u)`).
    Geom {
        lg0: f64,
        step: f64,
        first: f64,
        last: f64,
    },
}

/// [`Creation::Arange`] from `start`, `step` and `stop`.
fn arange_values<T: Real>(start: T, step: f64, stop: T, exact_end: bool) -> Creation<T> {
    let wide = |v: T| v.to_f64() as f32;
    let (hi, lo) = (step as f32, (step - step as f32 as f64) as f32);
    Creation::Arange {
        exact: [start, T::from_f64(step), stop, T::zero()],
        wide: [wide(start), hi, wide(stop), lo],
        exact_end,
    }
}

impl<T: Element> Creation<T> {
    /// The same creation in i32 (for the packed types, whose values i32 holds exactly).
    fn widen(self) -> Creation<i32> {
        let w = |v: T| packed_i32(v).expect("a packed dtype");
        match self {
            Creation::Fill { value } => Creation::Fill { value: w(value) },
            Creation::Arange {
                exact,
                wide,
                exact_end,
            } => Creation::Arange {
                exact: exact.map(w),
                wide,
                exact_end,
            },
            Creation::Eye { cols, diag } => Creation::Eye { cols, diag },
            Creation::Tri { cols, diag } => Creation::Tri { cols, diag },
            Creation::Geom {
                lg0,
                step,
                first,
                last,
            } => Creation::Geom {
                lg0,
                step,
                first,
                last,
            },
        }
    }
}

impl<T> Creation<T> {
    fn entry(&self) -> &'static str {
        match self {
            Creation::Fill { .. } => "fill",
            Creation::Arange { .. } => "arange",
            Creation::Eye { .. } => "eye",
            Creation::Tri { .. } => "tri",
            Creation::Geom { .. } => "geom",
        }
    }
}

/// Parameters of the creation kernels. [`CreationParams::encode`] is the only code that
/// fills their slots; shaders/creation.wgsl reads them through the accessors named in
/// [`Creation`]'s docs (declared atop the file, mirroring this struct).
#[derive(Debug, Clone, Copy)]
struct CreationParams<T> {
    /// Elements to write (`P.n`).
    n: u32,
    /// The kernel and its values.
    what: Creation<T>,
}

impl<T: Element> CreationParams<T> {
    fn encode(&self) -> Params {
        let p = Params::new(self.n);
        match self.what {
            Creation::Fill { value } => p.scalars(&[value]),
            Creation::Arange {
                exact,
                wide,
                exact_end,
            } => {
                let mut p = if matches!(T::DTYPE, DType::F16 | DType::F32) {
                    // The step as hi + lo in f32 (arange_at in shaders/creation.wgsl).
                    p.scalars(&wide)
                } else {
                    p.scalars(&exact)
                };
                p.aux[0] = exact_end as u32;
                p
            }
            Creation::Eye { cols, diag } | Creation::Tri { cols, diag } => Params {
                aux: [cols, diag as u32],
                ..p
            },
            Creation::Geom {
                lg0,
                step,
                first,
                last,
            } => match T::DTYPE {
                DType::F64 => p.scalars(&[lg0, step, first, last]),
                _ => p.scalars(&[lg0 as f32, step as f32, first as f32, last as f32]),
            },
        }
    }
}

fn spec(d: DType) -> Spec {
    let at = match d {
        DType::F16 | DType::F32 => {
            "fn arange_at(i: u32) -> S { \
             return S(fma(f32(i), P.sc[3u], fma(f32(i), P.sc[1u], P.sc[0u]))); }"
        }
        _ => "fn arange_at(i: u32) -> S { return S(P.sc[0u] + SC(i) * P.sc[1u]); }",
    };
    let spec = Spec::new("creation", SRC)
        .scalar(d)
        .function("arange_at", at);
    match d {
        DType::F16 | DType::F32 => spec.function(
            "geom_at",
            "fn geom_at(i: u32) -> SC { return exp2_(fma(f32(i), P.sc[1u], P.sc[0u])); }",
        ),
        DType::F64 => spec
            .import_instead("f32_math", Some("f64_math"))
            .alias("TW", "f64")
            .function(
                "geom_at",
                "fn geom_at(i: u32) -> SC { return exp2_64_(P.sc[0u] + f64(i) * P.sc[1u]); }",
            ),
        // Integers have no geom: no math.
        _ => spec.import_instead("f32_math", None),
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    DType::ALL.iter().map(|&d| spec(d)).collect()
}

fn kernel<T: Element>(dev: &Device, entry: &'static str) -> Result<Arc<Kernel>> {
    let key = Key {
        family: "creation",
        entry,
        variant: T::DTYPE.wgsl().to_string(),
        inputs: 0,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || spec(T::DTYPE))
}

/// Runs the creation kernel of `what` over a new array of `shape`.
fn generate<T: Element>(
    dev: &Device,
    op: &'static str,
    shape: Vec<usize>,
    what: Creation<T>,
) -> Result<Array<T>> {
    if T::DTYPE.is_complex() {
        return generate_complex(dev, op, shape, what);
    }
    // The creation kernels write the real dtypes; `zeros` clears storage and takes any.
    dev.accept(op, T::DTYPE, DType::is_real)?;
    if T::DTYPE.is_packed() {
        // The packed types: made as i32 (which holds every value) and packed by a cast.
        let wide = generate::<i32>(dev, op, shape, what.widen())?;
        return map_unary::<i32, T>(&wide, Unary::Cast, &[]);
    }
    let a = Array::<T>::alloc(dev, op, shape)?;
    let n = a.len() as u32;
    if n > 0 {
        let k = kernel::<T>(dev, what.entry())?;
        let p = CreationParams { n, what };
        let size = T::DTYPE.size();
        let max = dev.limits().max_storage_buffer_binding_size & !3;
        if matches!(what, Creation::Fill { .. }) && a.binding().bytes > max {
            // One value everywhere: fill runs that each fit one binding window, every run
            // starting at an aligned offset.
            let align = dev.limits().min_storage_buffer_offset_alignment.max(4) as usize;
            let q = align.div_ceil(size);
            let chunk = max as usize / size / q * q;
            let mut c0 = 0;
            while c0 < n as usize {
                let len = chunk.min(n as usize - c0);
                let out = Binding {
                    buffer: &a.buf,
                    bytes: ((c0 + len) * size) as u64,
                    window: (c0 * size) as u64,
                };
                let run = CreationParams { n: len as u32, ..p };
                dev.launch(&k, &run.encode(), &[], out, Work::Items(len as u32))?;
                c0 += len;
            }
        } else {
            dev.launch(&k, &p.encode(), &[], a.binding(), Work::Items(n))?;
        }
    }
    Ok(a)
}

/// [`generate`] for a complex dtype: each component written as its real dtype (a fill
/// splits its value; eye and tri are real, their imaginary parts zero).
fn generate_complex<T: Element>(
    dev: &Device,
    op: &'static str,
    shape: Vec<usize>,
    what: Creation<T>,
) -> Result<Array<T>> {
    dev.accept(op, T::DTYPE, DType::is_complex)?;
    by_component!(T::DTYPE, R => {
        let out = Array::<T>::alloc_any(dev, op, shape.clone(), |b| dev.alloc(b))?;
        let (re, im) = (out.component_view::<R>(0), out.component_view::<R>(1));
        match what {
            Creation::Fill { value } => {
                let (a, b) = parts::<T, R>(value);
                re.fill(a)?;
                im.fill(b)?;
            }
            Creation::Eye { cols, diag } => {
                re.assign(&generate::<R>(dev, op, shape, Creation::Eye { cols, diag })?)?;
                im.fill(R::zeroed())?;
            }
            Creation::Tri { cols, diag } => {
                re.assign(&generate::<R>(dev, op, shape, Creation::Tri { cols, diag })?)?;
                im.fill(R::zeroed())?;
            }
            // The ranges take `T: Real` or `T: Float`: never complex.
            Creation::Arange { .. } | Creation::Geom { .. } => {
                return Err(dev.unsupported(op, T::DTYPE))
            }
        }
        Ok(out)
    })
}

impl Device {
    /// An array of zeros.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<f32>([2, 2])?.to_vec()?, vec![0.0; 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn zeros<T: Element>(&self, shape: impl Into<Shape>) -> Result<Array<T>> {
        let a = Array::<T>::alloc_any(self, "zeros", shape.into().0, |b| self.alloc(b))?;
        self.clear(&a.buf);
        Ok(a)
    }

    /// An array of ones.
    ///
    /// # Errors
    /// As [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.ones::<i32>([3])?.to_vec()?, vec![1, 1, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ones<T: Real>(&self, shape: impl Into<Shape>) -> Result<Array<T>> {
        self.full(shape, T::one())
    }

    /// An array with every element `value`.
    ///
    /// # Errors
    /// As [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.full::<f32>([2], -1.5)?.to_vec()?, vec![-1.5, -1.5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn full<T: Element>(&self, shape: impl Into<Shape>, value: T) -> Result<Array<T>> {
        generate(self, "full", shape.into().0, Creation::Fill { value })
    }

    /// Values from `start` up to (not including) `stop`, `step` apart, as NumPy's `arange`:
    /// element i is `start + i * step` computed in `T`, and for f16 in f32 and rounded once.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a zero or non-finite step; as [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.arange::<f32>(1.0, 2.0, 0.25)?.to_vec()?, vec![1.0, 1.25, 1.5, 1.75]);
    /// assert_eq!(dev.arange::<i32>(5, 0, -2)?.to_vec()?, vec![5, 3, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn arange<T: Real>(&self, start: T, stop: T, step: T) -> Result<Array<T>> {
        // The numbers: as NumPy, a range of bools has no meaning.
        self.accept("arange", T::DTYPE, |d| accepts::floats(d) || d.is_integer())?;
        let (a, b, s) = (start.to_f64(), stop.to_f64(), step.to_f64());
        if s == 0.0 || !s.is_finite() || !a.is_finite() || !b.is_finite() {
            return Err(Error::InvalidArgument {
                op: "arange",
                reason: "start, stop and step must be finite and step non-zero",
            });
        }
        let n = ((b - a) / s).ceil().max(0.0);
        if n > u32::MAX as f64 {
            return Err(Error::InvalidArgument {
                op: "arange",
                reason: "more than 2^32 elements",
            });
        }
        let what = arange_values(start, s, stop, false);
        generate(self, "arange", vec![n as usize], what)
    }

    /// `num` values evenly spaced from `start` to `stop` inclusive, as NumPy's `linspace`:
    /// element i is `start + i * step` with the step rounded to `T` (to f32 for f16, whose
    /// elements are computed in f32 and rounded once), the last exactly `stop`.
    ///
    /// # Errors
    /// As [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.linspace::<f32>(0.0, 1.0, 5)?.to_vec()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn linspace<T: Float>(&self, start: T, stop: T, num: usize) -> Result<Array<T>> {
        let step = if num > 1 {
            (stop.to_f64() - start.to_f64()) / (num - 1) as f64
        } else {
            0.0
        };
        let what = arange_values(start, step, stop, num > 1);
        generate(self, "linspace", vec![num], what)
    }

    /// The `n` x `n` identity matrix.
    ///
    /// # Errors
    /// As [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.eye::<f32>(2)?.to_vec()?, vec![1.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn eye<T: Element>(&self, n: usize) -> Result<Array<T>> {
        self.eye_rect(n, n, 0)
    }

    /// An `n` x `m` matrix with ones on diagonal `k` (0 the main one, positive above it,
    /// negative below), as NumPy's `eye(n, m, k)`.
    ///
    /// # Errors
    /// As [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.eye_rect::<i32>(2, 3, 1)?.to_vec()?, vec![0, 1, 0, 0, 0, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn eye_rect<T: Element>(&self, n: usize, m: usize, k: isize) -> Result<Array<T>> {
        // Diagonals past the matrix are all zeros; clamp k to them (and into i32).
        let lim = |d: usize| d.min(i32::MAX as usize - 1) as isize + 1;
        let k = k.clamp(-lim(n), lim(m)) as i32;
        let what = Creation::Eye {
            cols: m.max(1) as u32,
            diag: k,
        };
        generate(self, "eye", vec![n, m], what)
    }

    /// An `n` x `m` matrix with ones at and below diagonal `k` (0 the main one, positive
    /// above it, negative below), zeros elsewhere, as NumPy's `tri(n, m, k)`.
    ///
    /// # Errors
    /// As [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.tri::<i32>(2, 3, 0)?.to_vec()?, vec![1, 0, 0, 1, 1, 0]);
    /// assert_eq!(dev.tri::<f32>(2, 2, -1)?.to_vec()?, vec![0.0, 0.0, 1.0, 0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn tri<T: Element>(&self, n: usize, m: usize, k: isize) -> Result<Array<T>> {
        let lim = |d: usize| d.min(i32::MAX as usize - 1) as isize + 1;
        let what = Creation::Tri {
            cols: m.max(1) as u32,
            diag: k.clamp(-lim(n), lim(m)) as i32,
        };
        generate(self, "tri", vec![n, m], what)
    }

    /// `num` values `base^e` for exponents `e` evenly spaced from `start` to `stop`
    /// inclusive, as NumPy's `logspace(start, stop, num, base=base)`. The first and last
    /// are `base^start` and `base^stop` computed on the host in f64 and rounded once; the
    /// others are `2^(start log2(base) + i step)` with the exponent in the carrier (f32 for
    /// f16 and f32, so within about `|log2 value|` ulps of f32 plus the exp2's 2 ulps; f64
    /// in f64). So an interior value NumPy computes exactly (`10^2` here, 100) may be an ulp
    /// or two off (NumPy raises `base` to the exponent with `pow`; this takes exp2).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a non-finite `start` or `stop`, or a `base` not finite
    /// and positive; as [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.logspace::<f32>(0.0, 3.0, 4, 2.0)?.to_vec()?, vec![1.0, 2.0, 4.0, 8.0]);
    /// assert_eq!(dev.logspace::<f64>(1.0, -1.0, 3, 2.0)?.to_vec()?, vec![2.0, 1.0, 0.5]);
    /// let d = dev.logspace::<f32>(0.0, 3.0, 4, 10.0)?.to_vec()?;
    /// assert_eq!((d[0], d[3]), (1.0, 1000.0));
    /// assert!((d[1] / 10.0 - 1.0).abs() < 1e-6 && (d[2] / 100.0 - 1.0).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn logspace<T: Float>(
        &self,
        start: f64,
        stop: f64,
        num: usize,
        base: f64,
    ) -> Result<Array<T>> {
        if !(start.is_finite() && stop.is_finite() && base.is_finite() && base > 0.0) {
            return Err(Error::InvalidArgument {
                op: "logspace",
                reason: "start and stop must be finite and base finite and positive",
            });
        }
        let l = base.log2();
        let what = geom(start * l, stop * l, num, base.powf(start), base.powf(stop));
        generate(self, "logspace", vec![num], what)
    }

    /// `num` values evenly spaced on a log scale from `start` to `stop` inclusive (a
    /// geometric progression), as NumPy's `geomspace`: the first is exactly `start` and the
    /// last exactly `stop`; both negative gives the negated progression of their magnitudes.
    /// Accuracy as [`Device::logspace`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when either endpoint is zero or not finite, or they differ
    /// in sign (NumPy returns complex values there); as [`Device::zeros`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.geomspace::<f64>(1.0, 8.0, 4)?.to_vec()?, vec![1.0, 2.0, 4.0, 8.0]);
    /// let g = dev.geomspace::<f64>(1.0, 1000.0, 4)?.to_vec()?;
    /// assert_eq!((g[0], g[3]), (1.0, 1000.0));
    /// assert!((g[2] / 100.0 - 1.0).abs() < 1e-15);
    /// assert_eq!(dev.geomspace::<f32>(-8.0, -2.0, 3)?.to_vec()?, vec![-8.0, -4.0, -2.0]);
    /// assert!(dev.geomspace::<f32>(0.0, 1.0, 3).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn geomspace<T: Float>(&self, start: T, stop: T, num: usize) -> Result<Array<T>> {
        let (a, b) = (start.to_f64(), stop.to_f64());
        if a == 0.0 || b == 0.0 || !a.is_finite() || !b.is_finite() || (a < 0.0) != (b < 0.0) {
            return Err(Error::InvalidArgument {
                op: "geomspace",
                reason: "start and stop must be finite, non-zero and of one sign",
            });
        }
        let what = geom(a.abs().log2(), b.abs().log2(), num, a, b);
        generate(self, "geomspace", vec![num], what)
    }
}

/// The `geom` kernel's values: exponents (base 2) from `lg0` to `lg1` over `num` elements,
/// the first and last elements given.
fn geom<T>(lg0: f64, lg1: f64, num: usize, first: f64, last: f64) -> Creation<T> {
    let step = if num > 1 {
        (lg1 - lg0) / (num - 1) as f64
    } else {
        0.0
    };
    Creation::Geom {
        lg0,
        step,
        first,
        last,
    }
}
