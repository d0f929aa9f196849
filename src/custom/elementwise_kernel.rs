//! [`ElementwiseKernel`]: a user's WGSL statements run once per element, with broadcasting.
//! Host side of shaders/elementwise_kernel.wgsl; the layouts (contiguous, or broadcast and
//! strided) are those of the built-in elementwise ops (`ops::elementwise`). Scalar arguments
//! travel as 32-bit words through [`KernelParams`].

use std::collections::HashSet;
use std::sync::Mutex;

use crate::array::Array;
use crate::custom::{args_of, parse_params, scalar_words, Arg, KernelArg, Param, Types, RESERVED};
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use crate::ops::elementwise::{broadcast_layout, is_plain, Operand};
use crate::shape::broadcast_shapes;

mod body;
use body::{inputs_types, with_final_semicolon};

const SRC: &str = include_str!("../../shaders/elementwise_kernel.wgsl");
const WG: u32 = 256;
/// Array inputs a kernel binds (bindings 1, 2, 3).
const MAX_ARRAYS: usize = 3;
/// Scalar inputs a kernel takes (the four words of `P.sc`).
const MAX_SCALARS: usize = 4;
/// Names of shaders/elementwise_kernel.wgsl beyond [`RESERVED`] that the generated code
/// calls, which parameters may not shadow.
const RESERVED_ELEMENTWISE: &[&str] = &["scalar_word"];

/// A kernel of WGSL statements run once per element of the broadcast inputs, as CuPy's
/// `ElementwiseKernel`.
///
/// Parameters are lists like `"T x, T y"`: a type (`f32`, `i32`, `u32`, `f16`, `f64`, `i64`, `u64`, or
/// their NumPy names such as `float32`) or a placeholder (any other name, such as `T`),
/// bound to the dtype of the arguments at call time and usable in the body as a WGSL type
/// (`T(0)`), then the parameter's name. An input is an array or a scalar according to the
/// argument passed; the output is one array. The body sees the inputs' elements by name,
/// assigns the output by name, and may use the element index `i` (a `u32`).
///
/// Every real dtype stored one element per slot: the 64-bit integers (and 64-bit scalars,
/// f64 included) where the adapter has SHADER_INT64. At most 3 array inputs and 4 scalar
/// words (a scalar of 32 bits or f16 takes one, an f64, i64 or u64 two). Each (dtypes, array/scalar)
/// combination is compiled once and cached.
///
/// The body is compiled as the driver chooses: naga marks no float operation exact, so a
/// driver may fold `x - x` or `x * 0.0` to 0 also where `x` is NaN or ±inf (lavapipe does).
/// [`fuse`](crate::custom::fuse) guards its expressions against that; a body here must
/// not rely on such expressions for special values.
///
/// ```
/// use gpuarray::custom::ElementwiseKernel;
/// # let dev = gpuarray::Device::new()?;
/// let k = ElementwiseKernel::new(&dev, "T x, T a", "T y", "y = a * x + T(i);", "axpi")?;
/// let x = dev.from_slice(&[1.0f32, 1.0, 1.0], [3])?;
/// assert_eq!(k.call::<f32>(&[&x, &2.0f32])?.to_vec()?, vec![2.0, 3.0, 4.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct ElementwiseKernel {
    dev: Device,
    name: String,
    inputs: Vec<Param>,
    output: Param,
    body: String,
    /// Variants already validated with naga (by their generated text).
    validated: Mutex<HashSet<String>>,
    /// The body is valid on vec4 values (fused expressions): contiguous operands take four
    /// elements per invocation, with vec4 loads.
    vec4: bool,
    /// Fused expressions: the dtype whose elementwise math library (`ops::elementwise`) the
    /// kernel includes, and module-scope helpers placed before the `element` function.
    library: Option<(DType, String)>,
}

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElementwiseKernel")
            .field("name", &self.name)
            .finish()
    }
}

impl ElementwiseKernel {
    /// A kernel named `name` with parameters `in_params` and `out_params` (one output) and
    /// WGSL statements `body`.
    ///
    /// The body is validated with naga at once (placeholders taken as `f32`, every input
    /// as an array) and again for each new combination of dtypes at call time.
    ///
    /// # Errors
    /// [`Error::InvalidShader`] for a parameter list that does not parse, or a body naga
    /// rejects: the message gives the line and column in `body`; also for text that
    /// exceeds the adapter's limits (as [`RawKernel::new`](crate::custom::RawKernel::new)).
    /// [`Error::DeviceLost`] on a lost (or destroyed) device.
    ///
    /// ```
    /// use gpuarray::custom::ElementwiseKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let e = ElementwiseKernel::new(&dev, "T x", "T y", "y = x +;", "typo").unwrap_err();
    /// assert!(e.to_string().contains("typo:1:"), "{e}");
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn new(
        dev: &Device,
        in_params: &str,
        out_params: &str,
        body: &str,
        name: &str,
    ) -> Result<ElementwiseKernel> {
        let k = ElementwiseKernel::parse(dev, in_params, out_params, body, name)?;
        k.trial()?;
        Ok(k)
    }

    /// A kernel as [`ElementwiseKernel::new`] makes it, before validation.
    fn parse(
        dev: &Device,
        in_params: &str,
        out_params: &str,
        body: &str,
        name: &str,
    ) -> Result<ElementwiseKernel> {
        dev.expect_alive()?;
        let reserved: Vec<&str> = RESERVED
            .iter()
            .chain(RESERVED_ELEMENTWISE)
            .copied()
            .collect();
        let inputs = parse_params(name, "in_params", in_params, &reserved)?;
        let mut outputs = parse_params(name, "out_params", out_params, &reserved)?;
        if outputs.len() != 1 {
            return Err(Error::InvalidShader {
                name: name.to_string(),
                message: format!(
                    "{name}: out_params `{out_params}`: one output parameter is supported"
                ),
            });
        }
        if let Some(p) = inputs.iter().find(|p| p.name == outputs[0].name) {
            return Err(Error::InvalidShader {
                name: name.to_string(),
                message: format!("{name}: `{}` is both an input and an output", p.name),
            });
        }
        let k = ElementwiseKernel {
            dev: dev.clone(),
            name: name.to_string(),
            inputs,
            output: outputs.remove(0),
            body: with_final_semicolon(body),
            validated: Mutex::new(HashSet::new()),
            vec4: false,
            library: None,
        };
        Ok(k)
    }

    /// A kernel of a fused expression over inputs of dtype `d` (its placeholders): `body`
    /// may call the elementwise family's math library for `d` and the module-scope
    /// `helpers`; vectorised where `vec4`.
    pub(crate) fn with_library(
        dev: &Device,
        in_params: &str,
        out_params: &str,
        body: &str,
        name: &str,
        (d, helpers, vec4): (DType, String, bool),
    ) -> Result<ElementwiseKernel> {
        let mut k = ElementwiseKernel::parse(dev, in_params, out_params, body, name)?;
        k.vec4 = vec4;
        k.library = Some((d, helpers));
        k.trial()?;
        Ok(k)
    }

    /// Validates a trial variant: placeholders as f32 (the library's dtype for fused
    /// expressions), inputs as arrays (up to the binding limit).
    fn trial(&self) -> Result<()> {
        let k = self;
        let dev = &self.dev;
        let fill = self.library.as_ref().map_or(DType::F32, |(d, _)| *d);
        let mut types = Types::default();
        for p in k.inputs.iter().chain([&k.output]) {
            if let crate::custom::Ty::Placeholder(n) = &p.ty
                && types.get(&p.ty).is_none()
            {
                types.0.push((n.clone(), fill));
            }
        }
        let arrays: Vec<bool> = (0..k.inputs.len()).map(|j| j < MAX_ARRAYS).collect();
        let out = types.get(&k.output.ty).expect("bound");
        if k.inputs.len() <= MAX_ARRAYS + MAX_SCALARS
            && k.inputs
                .iter()
                .chain([&k.output])
                .all(|p| types.get(&p.ty).is_some_and(|d| dev.supports_dtype(d)))
        {
            k.check(&types, &arrays, out, false, false)?;
        }
        Ok(())
    }

    /// The kernel's name.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let k = gpuarray::custom::ElementwiseKernel::new(&dev, "T x", "T y", "y = x;", "copy")?;
    /// assert_eq!(k.name(), "copy");
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs the kernel on `args` (one per input parameter, arrays broadcast together) into
    /// a new array of `O`, the output parameter's type.
    ///
    /// # Errors
    /// [`Error::ArgumentCount`] for the wrong number of arguments; [`Error::ArgumentType`]
    /// when an argument's dtype contradicts its parameter's type (or another argument of the
    /// same placeholder), or `O` is not the output's type; [`Error::ShapeMismatch`] when the
    /// arrays do not broadcast together; [`Error::InvalidShader`] when the body does not
    /// compile for these dtypes (line and column in the body).
    ///
    /// ```
    /// use gpuarray::custom::ElementwiseKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let k = ElementwiseKernel::new(&dev, "T x, T y", "T z", "z = x * y;", "mul")?;
    /// let x = dev.from_slice(&[1i32, 2, 3, 4], [2, 2])?;
    /// let y = dev.from_slice(&[10i32, 100], [2])?;
    /// assert_eq!(k.call::<i32>(&[&x, &y])?.to_vec()?, vec![10, 200, 30, 400]);
    /// assert!(k.call::<i32>(&[&x]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn call<O: Element>(&self, args: &[&dyn KernelArg]) -> Result<Array<O>> {
        self.run::<O>("ElementwiseKernel::call", args, None)
    }

    /// Runs the kernel on `args` writing into `out`, which must have the broadcast shape of
    /// the array arguments and be contiguous. The body sees the output's current value.
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call`]; [`Error::ShapeMismatch`] when `out`'s shape is not
    /// the broadcast shape, [`Error::InvalidArgument`] when `out` is not contiguous or
    /// shares a buffer with an array argument (wgpu cannot bind one buffer read-only and
    /// writable in one dispatch; the body sees the output's value anyway).
    ///
    /// ```
    /// use gpuarray::custom::ElementwiseKernel;
    /// # let dev = gpuarray::Device::new()?;
    /// let k = ElementwiseKernel::new(&dev, "T x", "T acc", "acc += x;", "accumulate")?;
    /// let acc = dev.ones::<f32>([3])?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
    /// k.call_into(&[&x], &acc)?;
    /// assert_eq!(acc.to_vec()?, vec![2.0, 3.0, 4.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn call_into<O: Element>(&self, args: &[&dyn KernelArg], out: &Array<O>) -> Result<()> {
        self.run::<O>("ElementwiseKernel::call_into", args, Some(out))
            .map(|_| ())
    }

    /// Runs the kernel: binds the placeholders, splits the arguments into arrays and scalar
    /// words, makes (or checks) the output, validates the variant, then launches it.
    fn run<O: Element>(
        &self,
        op: &'static str,
        args: &[&dyn KernelArg],
        given: Option<&Array<O>>,
    ) -> Result<Array<O>> {
        let dev = &self.dev;
        let out_dev = given.map(|o| &o.dev);
        let args = args_of(dev, op, &self.name, args, out_dev, self.inputs.len())?;
        let types = self.bind_types(&args, given)?;
        let out_dtype = self.output_dtype::<O>(&types)?;
        let (operands, words) = self.split_args(&args, &types)?;
        let (out, shape) = output_of(dev, given, &operands)?;
        let arrays: Vec<bool> = args
            .iter()
            .map(|a| matches!(a, Arg::Array { .. }))
            .collect();
        let n = out.len();
        let plain = is_plain(&operands, &shape);
        let vec = self.vec4
            && plain
            && n.is_multiple_of(4)
            && out.offset.is_multiple_of(4)
            && operands.iter().all(|x| x.offset.is_multiple_of(4));
        let def = self.check(&types, &arrays, out_dtype, given.is_some(), vec)?;
        if n == 0 {
            return Ok(out);
        }
        let (entry, ndim, params) =
            KernelParams::plan(&operands, &shape, out.offset, words, plain, vec)?;
        let key = Key {
            family: "elementwise_kernel",
            entry,
            variant: def.clone(),
            inputs: operands.len(),
            wg: WG,
            ndim,
            per: if ndim > 0 { 1 } else { 0 },
        };
        let spec = self.spec(
            &inputs_types(&self.inputs, &types, &arrays),
            out_dtype,
            def,
            vec,
        );
        let kernel = dev.kernel(key, || spec)?;
        let inputs: Vec<Binding<'_>> = operands.iter().map(|x| x.binding).collect();
        let work = Work::Items(params.items);
        dev.launch(&kernel, &params.encode(), &inputs, out.binding(), work)?;
        Ok(out)
    }

    /// The placeholders bound by `args` (and the output `given`): arrays bind first;
    /// scalars take the arrays' types (as CuPy's Python scalars do) and bind only what no
    /// array did.
    pub(super) fn bind_types<O: Element>(
        &self,
        args: &[Arg<'_>],
        given: Option<&Array<O>>,
    ) -> Result<Types> {
        let mut types = Types::default();
        for (p, a) in self.inputs.iter().zip(args) {
            if matches!(a, Arg::Array { .. }) {
                types.bind(&self.name, p, a)?;
            }
        }
        if let Some(out) = given {
            types.bind(&self.name, &self.output, &out.kernel_arg_of())?;
        }
        for (p, a) in self.inputs.iter().zip(args) {
            if matches!(a, Arg::Scalar { .. }) && types.get(&p.ty).is_none() {
                types.bind(&self.name, p, a)?;
            }
        }
        Ok(types)
    }

    /// The output's dtype under `types`, checked to be `O`.
    pub(super) fn output_dtype<O: Element>(&self, types: &Types) -> Result<DType> {
        let out_dtype = types
            .get(&self.output.ty)
            .ok_or_else(|| Error::ArgumentType {
                kernel: self.name.clone(),
                param: self.output.name.clone(),
                expected: "a type bound by an input".into(),
                actual: "an unbound placeholder".into(),
            })?;
        if out_dtype != O::DTYPE {
            return Err(Error::ArgumentType {
                kernel: self.name.clone(),
                param: self.output.name.clone(),
                expected: format!("{out_dtype}"),
                actual: format!("{}", O::DTYPE),
            });
        }
        Ok(out_dtype)
    }

    /// The array arguments (copies of their operands, whose fields are all `Copy`) and the
    /// scalar arguments' words, in order; at most [`MAX_ARRAYS`] and [`MAX_SCALARS`].
    pub(super) fn split_args<'a>(
        &self,
        args: &[Arg<'a>],
        types: &Types,
    ) -> Result<(Vec<Operand<'a>>, Vec<u32>)> {
        let mut operands: Vec<Operand<'a>> = Vec::new();
        let mut words = Vec::new();
        for (p, a) in self.inputs.iter().zip(args) {
            match a {
                Arg::Array { operand, .. } => operands.push(Operand { ..*operand }),
                Arg::Scalar { .. } => {
                    let d = types.get(&p.ty).expect("bound");
                    let op = "ElementwiseKernel::call";
                    words.extend(scalar_words(&self.dev, (op, &self.name, &p.name), d, a)?);
                }
            }
        }
        if operands.len() > MAX_ARRAYS || words.len() > MAX_SCALARS {
            return Err(Error::InvalidArgument {
                op: "ElementwiseKernel::call",
                reason: "at most 3 array arguments and 4 scalar words (a 64-bit scalar takes 2)",
            });
        }
        Ok((operands, words))
    }
}

/// The output of a call and the broadcast shape of the array arguments: `given`, checked
/// to have that shape (its own where there are no arrays), to be contiguous and not to share
/// a buffer with an argument; else a new array.
fn output_of<O: Element>(
    dev: &Device,
    given: Option<&Array<O>>,
    operands: &[Operand<'_>],
) -> Result<(Array<O>, Vec<usize>)> {
    let mut shape: Vec<usize> = Vec::new();
    for x in operands {
        shape = broadcast_shapes("ElementwiseKernel", &shape, x.shape)?;
    }
    let Some(out) = given else {
        let out = Array::<O>::alloc(dev, "ElementwiseKernel", shape.clone())?;
        return Ok((out, shape));
    };
    if operands.is_empty() {
        shape = out.shape.clone();
    }
    if out.shape != shape {
        return Err(Error::ShapeMismatch {
            op: "ElementwiseKernel",
            lhs: out.shape.clone(),
            rhs: shape,
        });
    }
    // wgpu forbids one buffer bound read-only and writable in one dispatch.
    let id = out.buf.id();
    if operands.iter().any(|x| x.binding.buffer.id() == id) {
        return Err(Error::InvalidArgument {
            op: "ElementwiseKernel::call_into",
            reason: "the output shares a buffer with an array argument; \
                     pass a copy of that argument",
        });
    }
    if !crate::shape::is_contiguous(&out.shape, &out.strides) {
        return Err(Error::InvalidArgument {
            op: "ElementwiseKernel::call_into",
            reason: "the output must be contiguous",
        });
    }
    Ok((out.clone(), shape))
}

/// The parameters of one dispatch of a user elementwise kernel. The accessors of
/// shaders/elementwise_kernel.wgsl mirror the fields beyond the generic layout, and
/// [`KernelParams::encode`] is the one place that writes them.
struct KernelParams {
    /// Work items: elements, or vec4s in the vectorised variant (`P.n`).
    items: u32,
    /// The generic layout: `offs` of the inputs and the output, and for the `strided` entry
    /// `ndim`, the merged shape and the broadcast strides (`n` is set from `items`).
    layout: Params,
    /// The scalar arguments as 32-bit words, in order (f32 and f16 as f32 bits, i32 as its
    /// bits): `P.sc`, read by `scalar_word(k)`.
    words: Vec<u32>,
}

impl KernelParams {
    /// The entry point (`contig` where `plain`, else `strided`), its `NDIM` (0 for
    /// `contig`) and the parameters of `operands` broadcast to `shape`, writing an output
    /// that starts at element `out_offset`; vec4 items where `vec`.
    fn plan(
        operands: &[Operand<'_>],
        shape: &[usize],
        out_offset: usize,
        words: Vec<u32>,
        plain: bool,
        vec: bool,
    ) -> Result<(&'static str, u32, KernelParams)> {
        let q = if vec { 4 } else { 1 };
        let items = (shape.iter().product::<usize>() / q) as u32;
        let (entry, ndim, mut layout) = if plain {
            let mut p = Params::new(items);
            for (k, x) in operands.iter().enumerate() {
                p.offs[k] = (x.offset / q) as u32;
            }
            ("contig", 0, p)
        } else {
            let (p, cshape, _) = broadcast_layout(operands, shape, Params::new(items))?;
            ("strided", cshape.len() as u32, p)
        };
        layout.offs[3] = (out_offset / q) as u32;
        let params = KernelParams {
            items,
            layout,
            words,
        };
        Ok((entry, ndim, params))
    }

    /// The parameter block.
    fn encode(&self) -> Params {
        let mut p = self.layout;
        p.n = self.items;
        for (k, w) in self.words.iter().enumerate() {
            p.sc[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
        }
        p
    }
}

/// The source of a kernel with array inputs of `inputs`, output `out` and the generated
/// `element` function `def`, on vec4 values where `vec`.
fn spec(inputs: &[DType], out: DType, def: String, vec: bool) -> Spec {
    let value = |d: DType| {
        if vec {
            format!("vec4<{}>", d.wgsl())
        } else {
            d.wgsl().to_string()
        }
    };
    let mut spec = Spec::new("elementwise_kernel", SRC);
    for (k, name) in ["I0", "I1", "I2"].into_iter().enumerate() {
        spec = spec.alias(name, inputs.get(k).map_or("f32".into(), |&d| value(d)));
    }
    spec.alias("O0", value(out)).function("element", def)
}

/// Variants of shaders/elementwise_kernel.wgsl (a body over three arrays and a scalar, per dtype), for
/// the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let dtypes = DType::ALL.iter();
    dtypes
        .clone()
        .map(|&d| {
            let t = d.wgsl();
            let def = format!(
                "alias T = {t};\nfn element(i: u32, o: vec3<u32>) {{\n    let x = in0[o[0]];\n    let y = in1[o[1]];\n    let m = in2[o[2]];\n    let s: u32 = scalar_word(0u);\n    var z: O0;\nz = x * y + m + T(s) + T(i);\n    out0[P.offs.w + i] = z;\n}}"
            );
            spec(&[d, d, d], d, def, false)
        })
        .chain(dtypes.map(|&d| {
            let t = d.wgsl();
            let def = format!(
                "alias T = vec4<{t}>;\nfn element(i: u32, o: vec3<u32>) {{\n    let x = in0[o[0]];\n    let s: T = T({});\n    var z: O0;\nz = abs(x * s + T(2)) - x;\n    out0[P.offs.w + i] = z;\n}}",
                crate::custom::scalar_read(d, 0)
            );
            spec(&[d], d, def, true)
        }))
        .collect()
}

impl<T: Element> Array<T> {
    /// This array as a kernel argument.
    pub(crate) fn kernel_arg_of(&self) -> Arg<'_> {
        crate::custom::private::Sealed::kernel_arg(self)
    }
}
