//! The WGSL an [`ElementwiseKernel`] generates around the user's body: the `element`
//! function (placeholder aliases, the inputs' `let`s, the body, the output's store), its
//! validation with errors in the body's terms, and the body's final `;`.

use crate::custom::{scalar_read, scalar_width, Param, Types};
use crate::device::lock;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::source::{validate_user, Region, Spec};

use super::{spec, ElementwiseKernel};

impl ElementwiseKernel {
    /// The generated `element` function (and placeholder aliases) for these types, whether
    /// each input is an array, whether the output's value is read first, and whether values
    /// are vec4s (placeholders then name vec4 types and scalars are splat).
    pub(super) fn element(&self, types: &Types, arrays: &[bool], load: bool, vec: bool) -> String {
        let mut def = if vec {
            types
                .0
                .iter()
                .map(|(n, d)| format!("alias {n} = vec4<{}>;\n", d.wgsl()))
                .collect()
        } else {
            types.aliases()
        };
        if let Some((d, helpers)) = &self.library {
            def.push_str(&crate::ops::elementwise::library(*d, vec).0);
            def.push_str(helpers);
        }
        def.push_str("fn element(i: u32, o: vec3<u32>) {\n");
        def.push_str(&self.input_lets(types, arrays, vec));
        let out = &self.output.name;
        if load {
            def.push_str(&format!("    var {out} = out0[P.offs.w + i];\n"));
        } else {
            def.push_str(&format!("    var {out}: O0;\n"));
        }
        def.push_str(&self.body);
        if !self.body.ends_with('\n') {
            def.push('\n');
        }
        def.push_str(&format!("    out0[P.offs.w + i] = {out};\n}}"));
        def
    }

    /// The `let` lines naming the inputs in a generated function of `i` and `o`: arrays
    /// read at their offsets `o`, scalars from their words (splat where `vec`).
    pub(crate) fn input_lets(&self, types: &Types, arrays: &[bool], vec: bool) -> String {
        let mut out = String::new();
        let (mut a, mut s) = (0, 0);
        for (p, &is_array) in self.inputs.iter().zip(arrays) {
            let d = types.get(&p.ty).expect("bound");
            if is_array {
                out.push_str(&format!("    let {} = in{a}[o[{a}]];\n", p.name));
                a += 1;
            } else {
                let t = if vec {
                    format!("vec4<{}>", d.wgsl())
                } else {
                    d.wgsl().to_string()
                };
                out.push_str(&format!(
                    "    let {}: {t} = {t}({});\n",
                    p.name,
                    scalar_read(d, s)
                ));
                s += scalar_width(d);
            }
        }
        out
    }

    /// Validates the variant for these types with naga (once), mapping errors to the body;
    /// returns its `element` function.
    pub(super) fn check(
        &self,
        types: &Types,
        arrays: &[bool],
        out: DType,
        load: bool,
        vec: bool,
    ) -> Result<String> {
        let def = self.element(types, arrays, load, vec);
        if lock(&self.validated).contains(&def) {
            return Ok(def);
        }
        let inputs = inputs_types(&self.inputs, types, arrays);
        let mut spec = self.spec(&inputs, out, def.clone(), vec);
        spec.immediates = self.dev.immediates();
        let src = spec.render()?;
        let from = src.find("fn element(").unwrap_or(0);
        let regions: Vec<Region> = Region::find("body", &src, &self.body, from)
            .into_iter()
            .collect();
        let validated = validate_user(&self.name, &src, self.dev.naga_capabilities(), &regions)?;
        // Text that closes the function can declare globals: check the adapter's limits.
        self.dev.check_limits(&self.name, &validated, None, &[])?;
        lock(&self.validated).insert(def.clone());
        Ok(def)
    }

    /// The source of a variant: [`spec`], with the math library of a fused expression.
    pub(super) fn spec(&self, inputs: &[DType], out: DType, def: String, vec: bool) -> Spec {
        let spec = spec(inputs, out, def, vec);
        match &self.library {
            None => spec,
            Some((d, _)) => crate::ops::elementwise::library(*d, vec)
                .1
                .iter()
                .fold(spec.alias("S", d.wgsl()), |s, name| s.import(name))
                .f64_lanes(vec),
        }
    }
}

/// `body` ending in a `;` or a `}`, as WGSL needs: CuPy's bodies omit the final `;`
/// (`"z = (x - y) * (x - y)"`). After a final line comment it goes on a line of its own.
pub(super) fn with_final_semicolon(body: &str) -> String {
    let trimmed = body.trim_end();
    if trimmed.is_empty() || trimmed.ends_with(';') || trimmed.ends_with('}') {
        return body.to_string();
    }
    let last = trimmed.rsplit('\n').next().unwrap_or(trimmed);
    if last.contains("//") {
        format!("{trimmed}\n;")
    } else {
        format!("{trimmed};")
    }
}

/// The dtypes of the array inputs, in order.
pub(super) fn inputs_types(params: &[Param], types: &Types, arrays: &[bool]) -> Vec<DType> {
    params
        .iter()
        .zip(arrays)
        .filter(|&(_, &a)| a)
        .map(|(p, _)| types.get(&p.ty).expect("bound"))
        .collect()
}
