//! [`ReductionKernel`]: a user's map, combination and post-map on the built-in reductions'
//! machinery (`ops::reduce`: rows and columns kernels, splits of K, a second stage).

use std::collections::HashSet;
use std::sync::Mutex;

use crate::array::Array;
use crate::custom::{parse_params, Param, Ty, Types, RESERVED};
use crate::device::{lock, Device};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::source::{validate_user, Region};
use crate::ops::reduce::{reduce_with, spec, Load, Reducer};
use crate::shape::Axes;

/// A reduction defined by WGSL expressions, as CuPy's `ReductionKernel`: `map_expr` gives
/// each element's value (over the input parameter's name), `reduce_expr` combines two
/// values `a` and `b`, `post_map` assigns the output parameter from the result `a`, and
/// `identity` (a number, or a number converted to a type, `T(0)`) is the value of
/// combining nothing.
///
/// The values accumulate in the input's type, f16 widened to f32: in every expression the
/// input parameter, `a`, `b` and the output parameter have that type, and so has a type
/// placeholder (`T`), usable as in CuPy: `"x * T(2)"`, `"y = a + T(5)"`. The combination
/// must be associative and commutative, as in CuPy: it runs as a tree, in an order fixed by
/// the shape. Runs on the same machinery as [`Array::sum_axis`]: any axes, any layout.
///
/// ```
/// use gpuarray::custom::ReductionKernel;
/// # let dev = gpuarray::Device::new()?;
/// let l2norm = ReductionKernel::new(&dev, "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")?;
/// let x = dev.from_slice(&[3.0f32, 4.0, 6.0, 8.0], [2, 2])?;
/// assert_eq!(l2norm.call_axis::<f32, f32>(&x, 1, false)?.to_vec()?, vec![5.0, 10.0]);
///
/// // The placeholder in every expression: 5 + the sum of 2 x.
/// let k = ReductionKernel::new(&dev, "T x", "T y", "x * T(2)", "a + b", "y = a + T(5)", "T(0)", "k")?;
/// let n = dev.from_slice(&[1i32, 2, 3], [3])?;
/// assert_eq!(k.call::<i32, i32>(&n)?.to_scalar()?, 17);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct ReductionKernel {
    dev: Device,
    name: String,
    input: Param,
    output: Param,
    map_expr: String,
    reduce_expr: String,
    post_map: String,
    identity: f64,
    validated: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for ReductionKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReductionKernel")
            .field("name", &self.name)
            .finish()
    }
}

/// Names of the reduction template (shaders/reduce.wgsl and the functions made here) that
/// user parameters and placeholders may not take.
const RESERVED_REDUCE: &[&str] = &[
    "a", "b", "r", "Acc", "Acc4", "k_", "v_", "mu_", "E", "A", "Src", "Dst",
];

/// The value of an identity: a number (`0`, `1.5f`, `-inf`), bare or as a conversion
/// `NAME(number)` to a placeholder in `names` or a dtype (`T(0)`, `f32(1)`).
fn parse_identity(text: &str, names: &[&str]) -> Option<f64> {
    let t = text.trim();
    if let Some((name, rest)) = t.split_once('(') {
        let inner = rest.strip_suffix(')')?;
        let typed =
            names.contains(&name.trim()) || crate::custom::dtype_named(name.trim()).is_some();
        return if typed {
            parse_identity(inner, &[])
        } else {
            None
        };
    }
    match t {
        "inf" | "INFINITY" => Some(f64::INFINITY),
        "-inf" | "-INFINITY" => Some(f64::NEG_INFINITY),
        _ => t.trim_end_matches(['f', 'u', 'i']).parse().ok(),
    }
}

/// The type values of `d` take in a reduction's expressions: f16 widened to f32.
fn widened(d: DType) -> DType {
    if d == DType::F16 {
        DType::F32
    } else {
        d
    }
}

impl ReductionKernel {
    /// A reduction named `name`: one input and one output parameter (`"T x"`, `"T y"`),
    /// WGSL expressions `map_expr` and `reduce_expr`, a statement `post_map` and the
    /// `identity` (a number, `inf` or `-inf`, bare or converted: `T(0)`, `f32(1)`).
    ///
    /// # Errors
    /// [`Error::InvalidShader`] for parameters that do not parse (or are not one input and
    /// one output, or take a name of the template: `a`, `b`, `r`, `E`, `A`, `Acc`...), an
    /// identity that is not a number, expressions naga rejects (the message names the
    /// expression and gives its line and column) and text past the adapter's limits.
    /// [`Error::DeviceLost`] on a lost (or destroyed) device.
    ///
    /// ```
    /// use gpuarray::custom::ReductionKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let e = ReductionKernel::new(&dev, "T x", "T y", "x * ", "a + b", "y = a", "0", "bad");
    /// assert!(e.unwrap_err().to_string().contains("map_expr"));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dev: &Device,
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map: &str,
        identity: &str,
        name: &str,
    ) -> Result<ReductionKernel> {
        dev.expect_alive()?;
        let reserved: Vec<&str> = RESERVED.iter().chain(RESERVED_REDUCE).copied().collect();
        let mut inputs = parse_params(name, "in_params", in_params, &reserved)?;
        let mut outputs = parse_params(name, "out_params", out_params, &reserved)?;
        let invalid = |message: String| Error::InvalidShader {
            name: name.to_string(),
            message: format!("{name}: {message}"),
        };
        if inputs.len() != 1 || outputs.len() != 1 {
            return Err(invalid(
                "one input and one output parameter are supported".into(),
            ));
        }
        let names: Vec<&str> = inputs
            .iter()
            .chain(&outputs)
            .filter_map(|p| match &p.ty {
                Ty::Placeholder(n) => Some(n.as_str()),
                Ty::Concrete(_) => None,
            })
            .collect();
        let identity = parse_identity(identity, &names)
            .ok_or_else(|| invalid(format!("identity `{identity}` is not a number")))?;
        let k = ReductionKernel {
            dev: dev.clone(),
            name: name.to_string(),
            input: inputs.remove(0),
            output: outputs.remove(0),
            // Expressions, as CuPy writes them; a final `;` (a statement's habit) is dropped.
            map_expr: map_expr.trim().trim_end_matches(';').trim_end().to_string(),
            reduce_expr: reduce_expr
                .trim()
                .trim_end_matches(';')
                .trim_end()
                .to_string(),
            post_map: post_map.trim().trim_end_matches(';').to_string(),
            identity,
            validated: Mutex::new(HashSet::new()),
        };
        // A trial variant: placeholders as f32.
        let input = match &k.input.ty {
            Ty::Concrete(d) => *d,
            _ => DType::F32,
        };
        if dev.supports_dtype(input) {
            let out = k.out_dtype(input);
            if dev.supports_dtype(out) {
                k.check(input, out)?;
            }
        }
        Ok(k)
    }

    fn out_dtype(&self, input: DType) -> DType {
        let mut t = Types::default();
        if let Ty::Placeholder(p) = &self.input.ty {
            t.0.push((p.clone(), input));
        }
        t.get(&self.output.ty).unwrap_or(input)
    }

    /// The pieces for inputs of `input` and outputs of `out`.
    fn reducer(&self, input: DType, out: DType) -> Reducer {
        let acc = widened(input);
        let x = &self.input.name;
        let y = &self.output.name;
        // The placeholders name the type values have in the expressions: the accumulator's,
        // which is the input's with f16 widened to f32 (and the output's for a placeholder
        // only the output has). Declared once, beside `combine`, which every variant has.
        let mut types = Types::default();
        for (p, d) in [(&self.input, input), (&self.output, out)] {
            if let Ty::Placeholder(n) = &p.ty
                && types.get(&p.ty).is_none()
            {
                types.0.push((n.clone(), widened(d)));
            }
        }
        let map = format!(
            "fn map(v_: E, k_: u32, mu_: A) -> Acc {{ let {x} = A(v_); return Acc(A({}), k_); }}",
            self.map_expr
        );
        let map4 = "fn map4(x: vec4<E>, k: vec4<u32>, mu: vec4<A>) -> Acc4 { let r0 = map(x.x, k.x, mu.x); let r1 = map(x.y, k.y, mu.y); let r2 = map(x.z, k.z, mu.z); let r3 = map(x.w, k.w, mu.w); return Acc4(vec4<A>(r0.v, r1.v, r2.v, r3.v), k); }".to_string();
        let combine = format!(
            "{}fn combine(x: Acc, y: Acc) -> Acc {{ let a = x.v; let b = y.v; return Acc(A({}), x.i); }}",
            types.aliases(),
            self.reduce_expr
        );
        let combine4 = "fn combine4(x: Acc4, y: Acc4) -> Acc4 { let r0 = combine(lane(x, 0u), lane(y, 0u)); let r1 = combine(lane(x, 1u), lane(y, 1u)); let r2 = combine(lane(x, 2u), lane(y, 2u)); let r3 = combine(lane(x, 3u), lane(y, 3u)); return Acc4(vec4<A>(r0.v, r1.v, r2.v, r3.v), x.i); }".to_string();
        let finish = format!(
            "let a = r.v; var {y}: A; {}; return Dst({y});",
            self.post_map
        );
        Reducer {
            key: format!(
                "user:{}|{}|{}|{}|{}|{}",
                self.name, map, combine, finish, self.identity, self.input.name
            ),
            acc,
            map: (map, map4),
            combine: (combine, combine4),
            finish,
            identity: self.identity,
            means: false,
            ordered: true,
            after: None,
            ddof: 0,
        }
    }

    /// Validates the kernels for inputs of `input` with naga (once), mapping errors to the
    /// user's expressions.
    fn check(&self, input: DType, out: DType) -> Result<Reducer> {
        let r = self.reducer(input, out);
        let key = format!("{input}|{out}");
        if lock(&self.validated).contains(&key) {
            return Ok(r);
        }
        for load in [Load::Elem, Load::Partial] {
            let final_out = if load == Load::Elem { None } else { Some(out) };
            let mut s = spec(&r, input, load, final_out, false);
            s.immediates = self.dev.immediates();
            let src = s.render()?;
            let at = |f: &str| src.find(f).unwrap_or(0);
            let regions: Vec<Region> = [
                Region::find("map_expr", &src, &self.map_expr, at("fn map(v_")),
                Region::find("reduce_expr", &src, &self.reduce_expr, at("fn combine(x")),
                Region::find("post_map", &src, &self.post_map, at("fn finish(")),
            ]
            .into_iter()
            .flatten()
            .collect();
            let validated =
                validate_user(&self.name, &src, self.dev.naga_capabilities(), &regions)?;
            // Text that closes a function can declare globals: check the adapter's limits.
            self.dev.check_limits(&self.name, &validated, None, &[])?;
        }
        lock(&self.validated).insert(key);
        Ok(r)
    }

    fn run<T: Element, O: Element>(
        &self,
        x: &Array<T>,
        axes: Option<&[usize]>,
        keepdims: bool,
    ) -> Result<Array<O>> {
        self.dev.expect_same("ReductionKernel", &[&x.dev])?;
        // The dtypes a user reduction takes (`accepts::slots`), before any code is made.
        self.dev.require("ReductionKernel", T::DTYPE)?;
        self.dev.require("ReductionKernel", O::DTYPE)?;
        let mut types = Types::default();
        types.bind(&self.name, &self.input, &x.kernel_arg_of())?;
        let out = types.get(&self.output.ty).unwrap_or(T::DTYPE);
        if out != O::DTYPE {
            return Err(Error::ArgumentType {
                kernel: self.name.clone(),
                param: self.output.name.clone(),
                expected: format!("{out}"),
                actual: format!("{}", O::DTYPE),
            });
        }
        let r = self.check(T::DTYPE, out)?;
        // The name travels owned: errors of the shared machinery name the operation
        // "ReductionKernel" (their `op` is static); the pipeline key carries this name.
        reduce_with(x, &r, self.name.clone(), axes, keepdims)
    }

    /// The reduction of every element of `x`: a 0-d array of `O`, the output's type.
    ///
    /// # Errors
    /// [`Error::ArgumentType`] when `x`'s dtype or `O` contradicts the parameters;
    /// [`Error::InvalidShader`] when the expressions do not compile for this dtype. Over
    /// no elements (an empty array, or an empty reduced axis) each output is
    /// `post_map(identity)`, as in CuPy.
    ///
    /// ```
    /// use gpuarray::custom::ReductionKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let maxabs = ReductionKernel::new(&dev, "T x", "T y", "abs(x)", "max(a, b)", "y = a", "0", "maxabs")?;
    /// let x = dev.from_slice(&[1i32, -7, 3], [3])?;
    /// assert_eq!(maxabs.call::<i32, i32>(&x)?.to_scalar()?, 7);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn call<T: Element, O: Element>(&self, x: &Array<T>) -> Result<Array<O>> {
        self.run(x, None, false)
    }

    /// The reduction along `axis` (one, several or all: see [`Axes`]; negative counts from
    /// the end), as CuPy's `kernel(x, axis=, keepdims=)`; with `keepdims` the reduced axes
    /// stay, with extent 1.
    ///
    /// # Errors
    /// As [`ReductionKernel::call`]; [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`]
    /// for an axis listed twice.
    ///
    /// ```
    /// use gpuarray::custom::ReductionKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let sum = ReductionKernel::new(&dev, "T x", "T y", "x", "a + b", "y = a", "0", "mysum")?;
    /// let x = dev.from_slice(&[1u32, 2, 3, 4], [2, 2])?;
    /// assert_eq!(sum.call_axis::<u32, u32>(&x, 0, false)?.to_vec()?, vec![4, 6]);
    /// assert_eq!(sum.call_axis::<u32, u32>(&x, -1, false)?.to_vec()?, vec![3, 7]);
    /// let y = dev.ones::<f32>([2, 3, 4])?;
    /// let s = sum.call_axis::<f32, f32>(&y, [0, 2], true)?;
    /// assert_eq!(s.shape(), &[1, 3, 1]);
    /// assert_eq!(s.to_vec()?, vec![8.0; 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn call_axis<T: Element, O: Element>(
        &self,
        x: &Array<T>,
        axis: impl Into<Axes>,
        keepdims: bool,
    ) -> Result<Array<O>> {
        let axes = axis.into().resolve_opt(x.ndim(), "ReductionKernel")?;
        self.run(x, axes.as_deref(), keepdims)
    }
}
