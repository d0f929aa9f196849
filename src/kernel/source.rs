//! Embedded WGSL and its specialisation per dtype and operation.
//!
//! A variant of a shader file is made by replacing its `alias X = ...;` lines and its
//! one-line `fn NAME(...)` definitions, resolving its `#import` lines ([`super::import`]),
//! adding `enable f16;` when f16 appears and the parameter block when the text did not
//! import it, and unrolling the loops marked `// unroll` ([`super::unroll`]).

use super::import::{shared, Resolver};
use crate::dtype::DType;
use crate::error::{Error, Result};

/// How to make one variant of a shader file.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    /// Shader family (the file's name without extension).
    pub family: &'static str,
    /// The file's text (or a generated kernel's).
    pub source: std::borrow::Cow<'static, str>,
    /// `alias NAME = TYPE;` replacements.
    pub aliases: Vec<(&'static str, String)>,
    /// One-line function definitions replacing the file's line `fn NAME(...`.
    pub functions: Vec<(&'static str, String)>,
    /// Shared files imported after the file's text, as `#import` lines at its end would
    /// (a choice made per variant by the host, as a generator's `#import` lines are).
    pub imports: Vec<&'static str>,
    /// Per variant, the shared file an `#import` name reads instead, or `None` for nothing
    /// (mulhilo64 for mulhilo on adapters with 64-bit integers).
    pub instead: Vec<(&'static str, Option<&'static str>)>,
    /// Texts appended after the imports, with their own `#import` lines resolved: a family's
    /// second file in some of its kernels (shaders/radix_sg.wgsl after sort.wgsl).
    pub includes: Vec<&'static str>,
    /// Parameters as immediates rather than a uniform binding (set by the cache per device).
    pub immediates: bool,
    /// Override constants beyond `WG`, `NDIM` and `PER` (tile sizes, layout flags), passed
    /// at pipeline creation. The caller puts them in the key's `variant` too.
    pub constants: Vec<(&'static str, f64)>,
    /// The kernel keeps every index in bounds by construction: compile it without naga's
    /// runtime bounds checks and loop bounding, which cost registers in tight inner loops.
    pub unchecked: bool,
    /// The last input binding is read-write (a kernel's own scratch, such as counters of
    /// finished workgroups), not read-only.
    pub writable_last_input: bool,
    /// Counts of the loop bounds named in the text's `// unroll` loops
    /// ([`crate::kernel::unroll`]).
    pub unrolls: Vec<(&'static str, u32)>,
}

/// The parameter binding of shaders/shared/params.wgsl, and its immediate replacement.
pub(crate) const PARAMS_UNIFORM: &str = "@group(0) @binding(0) var<uniform> P: Params;";
const PARAMS_IMMEDIATE: &str = "var<immediate> P: Params;";

impl Spec {
    pub(crate) fn new(
        family: &'static str,
        source: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Spec {
        Spec {
            family,
            source: source.into(),
            aliases: Vec::new(),
            functions: Vec::new(),
            imports: Vec::new(),
            instead: Vec::new(),
            includes: Vec::new(),
            immediates: false,
            constants: Vec::new(),
            unchecked: false,
            writable_last_input: false,
            unrolls: Vec::new(),
        }
    }
    pub(crate) fn alias(mut self, name: &'static str, ty: impl Into<String>) -> Spec {
        self.aliases.push((name, ty.into()));
        self
    }
    pub(crate) fn function(mut self, name: &'static str, def: impl Into<String>) -> Spec {
        self.functions.push((name, def.into()));
        self
    }
    pub(crate) fn constant(mut self, name: &'static str, value: impl Into<f64>) -> Spec {
        self.constants.push((name, value.into()));
        self
    }
    pub(crate) fn writable_last_input(mut self) -> Spec {
        self.writable_last_input = true;
        self
    }
    pub(crate) fn unchecked(mut self) -> Spec {
        self.unchecked = true;
        self
    }
    /// Loops marked `// unroll` whose bound is `name` run `count` steps, unrolled.
    pub(crate) fn unroll(mut self, name: &'static str, count: u32) -> Spec {
        self.unrolls.push((name, count));
        self
    }
    /// Appends text after the file's (its `#import` lines resolved): a family's second file.
    /// Shared files enter by `#import` lines or [`Spec::import`], each once.
    pub(crate) fn include(mut self, src: &'static str) -> Spec {
        self.includes.push(src);
        self
    }
    /// Imports shared file `name` (its stem in shaders/shared) after the text, once, as an
    /// `#import name` line at the text's end would: for imports chosen per variant.
    #[allow(
        dead_code,
        reason = "for families that choose imports per dtype (elementwise)"
    )]
    pub(crate) fn import(mut self, name: &'static str) -> Spec {
        self.imports.push(name);
        self
    }
    /// In this variant, `#import name` reads shared file `file` instead (`None`: nothing),
    /// wherever the line is (the text's own or an imported file's).
    pub(crate) fn import_instead(mut self, name: &'static str, file: Option<&'static str>) -> Spec {
        self.instead.push((name, file));
        self
    }

    /// The adapter's forms of the f64 library's building blocks (shaders/shared/f64_math.wgsl
    /// imports them; in kernels that do not, nothing changes): exponent and mantissa from
    /// the bits where it has 64-bit integers (`int64`: f64_split_bits.wgsl for
    /// f64_split.wgsl's comparisons), exact products by one fma where its f64 fma is fused
    /// (`fused_fma`: f64_prod_fma.wgsl for Dekker's f64_prod.wgsl). Applied to every kernel
    /// as it compiles; the results are the same either way.
    pub(crate) fn f64_choices(self, int64: bool, fused_fma: bool) -> Spec {
        let s = if int64 {
            self.import_instead("f64_split", Some("f64_split_bits"))
        } else {
            self
        };
        if fused_fma {
            s.import_instead("f64_prod", Some("f64_prod_fma"))
        } else {
            s
        }
    }

    /// The lanes of the f64 library's bit helpers (f64_lanes.wgsl) as vec4s where the
    /// kernel's `TW` is `vec4<f64>` (`vec`).
    pub(crate) fn f64_lanes(self, vec: bool) -> Spec {
        if vec {
            self.import_instead("f64_lanes", Some("f64_lanes4"))
        } else {
            self
        }
    }

    /// The element type `S` and the carrier `SC` of scalar arguments (f32 for f16).
    pub(crate) fn scalar(self, d: DType) -> Spec {
        // f16 travels as f32; a complex scalar as its two components.
        let carrier = match d {
            DType::F16 => DType::F32,
            d => d.component().unwrap_or(d),
        };
        self.alias("S", d.wgsl()).alias("SC", carrier.wgsl())
    }

    /// The specialised WGSL text.
    ///
    /// # Errors
    /// [`Error::InvalidShader`] when an `#import` line (the text's, an imported file's or
    /// [`Spec::import`]'s) names no file of shaders/shared.
    pub(crate) fn render(&self) -> Result<String> {
        let mut lines = Vec::new();
        for line in self.source.lines() {
            let t = line.trim_start();
            let replaced = self
                .aliases
                .iter()
                .find(|(n, _)| {
                    t.strip_prefix("alias ")
                        .and_then(|r| r.strip_prefix(n))
                        .is_some_and(|r| r.trim_start().starts_with('='))
                })
                .map(|(n, ty)| format!("alias {n} = {ty};"))
                .or_else(|| {
                    self.functions
                        .iter()
                        .find(|(n, _)| {
                            t.strip_prefix("fn ")
                                .and_then(|r| r.strip_prefix(n))
                                .is_some_and(|r| r.starts_with('('))
                        })
                        .map(|(_, def)| def.clone())
                });
            lines.push(replaced.unwrap_or_else(|| line.to_string()));
        }
        // Imports after the replacements: a shared file's aliases and functions are its own.
        let mut body = String::with_capacity(self.source.len() + 4096);
        let mut imports = Resolver::new(&shared, &self.instead);
        let invalid = |message| Error::InvalidShader {
            name: self.family.to_string(),
            message,
        };
        imports
            .resolve(self.family, &lines.join("\n"), &mut body)
            .map_err(invalid)?;
        for name in self.imports.iter().copied().chain(["params"]) {
            // The parameter block is binding 0 of every kernel's layout: it is there even
            // where the text does not import it.
            imports
                .import(self.family, name, &mut body)
                .map_err(invalid)?;
        }
        for inc in &self.includes {
            imports
                .resolve(self.family, inc, &mut body)
                .map_err(invalid)?;
        }
        if self.immediates {
            body = body.replace(PARAMS_UNIFORM, PARAMS_IMMEDIATE);
        }
        let mut out = String::with_capacity(body.len() + 16);
        if uses_f16(&body) {
            out.push_str("enable f16;\n");
        }
        out.push_str(&body);
        if out.contains("// unroll") {
            out = super::unroll::expand(&out, &self.unrolls);
        }
        Ok(out)
    }
}

/// Whether WGSL code names the type `f16` outside comments (and so needs `enable f16;`, which
/// an adapter without SHADER_F16 refuses): a comment that mentions f16 must not make an f32
/// kernel fail there.
pub(super) fn uses_f16(code: &str) -> bool {
    code.lines().any(|line| {
        let code = line.split("//").next().unwrap_or("");
        code.match_indices("f16").any(|(i, _)| {
            let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let before = code[..i].chars().next_back().is_some_and(word);
            let after = code[i + 3..].chars().next().is_some_and(word);
            !before && !after
        })
    })
}

/// A validated module and what its validation found (which globals each entry point uses).
pub(crate) type Validated = (naga::Module, naga::valid::ModuleInfo);

/// Parses and validates WGSL with naga; errors carry naga's diagnostic with line and column.
pub(crate) fn validate(
    name: &str,
    src: &str,
    caps: naga::valid::Capabilities,
) -> Result<Validated> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| Error::InvalidShader {
        name: name.to_string(),
        message: e.emit_to_string(src),
    })?;
    immediates_fit(&module).map_err(|m| Error::InvalidShader {
        name: name.to_string(),
        message: format!("{name}: {m}"),
    })?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| Error::InvalidShader {
            name: name.to_string(),
            message: e.emit_to_string(src),
        })?;
    Ok((module, info))
}

/// The most bytes of immediates naga's validator handles: past them (64 slots of 4 bytes)
/// its bookkeeping overflows (a panic in debug builds).
const NAGA_MAX_IMMEDIATES: u32 = 256;

/// Refuses `var<immediate>` globals larger than naga validates, before it runs. The
/// adapter's own, smaller limit is checked later (`kernel::limits`).
fn immediates_fit(module: &naga::Module) -> std::result::Result<(), String> {
    for (_, g) in module.global_variables.iter() {
        if g.space != naga::AddressSpace::Immediate {
            continue;
        }
        let bytes = module.types[g.ty].inner.try_size(module.to_ctx());
        if bytes.is_none_or(|b| b > NAGA_MAX_IMMEDIATES) {
            let name = g.name.as_deref().unwrap_or("?");
            let size = bytes.map_or("more than 4 GiB".into(), |b| format!("{b} bytes"));
            return Err(format!(
                "immediate `{name}` holds {size}; at most {NAGA_MAX_IMMEDIATES} are supported"
            ));
        }
    }
    Ok(())
}

/// A piece of user text inside a generated shader: what the user calls it (`body`,
/// `map_expr`...) and its byte range in the generated text.
#[derive(Debug, Clone)]
pub(crate) struct Region {
    pub label: &'static str,
    pub start: usize,
    pub text: String,
}

impl Region {
    /// The region of `text`, found in `src` (its first occurrence at or after `from`).
    pub(crate) fn find(label: &'static str, src: &str, text: &str, from: usize) -> Option<Region> {
        src[from..].find(text).map(|at| Region {
            label,
            start: from + at,
            text: text.to_string(),
        })
    }

    /// Line and column (1-based) of byte `offset` of the generated text, in the user's text.
    fn locate(&self, offset: usize) -> Option<(usize, usize)> {
        let rel = offset.checked_sub(self.start)?;
        if rel > self.text.len() {
            return None;
        }
        let before = &self.text[..rel.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
        Some((line, col))
    }

    /// A diagnostic at the end of the user's text for an error at byte `offset` of the
    /// generated text `src`, where only whitespace lies between the two; what naga found
    /// there (generated code) is not named.
    fn at_end(&self, name: &str, src: &str, offset: usize, message: &str) -> Option<String> {
        let end = self.start + self.text.len();
        if offset < end || !src.get(end..offset)?.trim().is_empty() {
            return None;
        }
        let message = match message.find(", found ") {
            Some(k) => format!("{}, found the end of the {}", &message[..k], self.label),
            None => message.to_string(),
        };
        let last = self.start + self.text.trim_end().len();
        let (line, col) = self.locate(last)?;
        let text = self.text.lines().nth(line - 1).unwrap_or("");
        Some(format!(
            "{name}:{line}:{col}: {message} (at the end of the {})\n{line:>4} | {text}\n     | {}^",
            self.label,
            " ".repeat(col - 1),
        ))
    }

    /// A diagnostic at byte range `span` of the generated text, in the user's terms.
    fn diagnostic(
        &self,
        name: &str,
        span: std::ops::Range<usize>,
        message: &str,
    ) -> Option<String> {
        let (line, col) = self.locate(span.start)?;
        let text = self.text.lines().nth(line - 1).unwrap_or("");
        let width = span
            .len()
            .clamp(1, text.len().saturating_sub(col - 1).max(1));
        Some(format!(
            "{name}:{line}:{col}: {message} (in {})\n{line:>4} | {text}\n     | {}{}",
            self.label,
            " ".repeat(col - 1),
            "^".repeat(width)
        ))
    }
}

/// Parses and validates a generated shader holding user text in `regions`: errors give the
/// line and column in the user's own text (the first span that falls in a region), never a
/// line of generated code.
pub(crate) fn validate_user(
    name: &str,
    src: &str,
    caps: naga::valid::Capabilities,
    regions: &[Region],
) -> Result<Validated> {
    let explain = |spans: Vec<std::ops::Range<usize>>, message: String| -> Error {
        let located = spans
            .iter()
            .find_map(|span| {
                regions
                    .iter()
                    .find_map(|r| r.diagnostic(name, span.clone(), &message))
            })
            .or_else(|| {
                // An error in the generated code right after a region (only whitespace
                // between): the user's text ended too early; point at its end.
                spans.iter().find_map(|span| {
                    regions
                        .iter()
                        .find_map(|r| r.at_end(name, src, span.start, &message))
                })
            });
        Error::InvalidShader {
            name: name.to_string(),
            message: located.unwrap_or_else(|| {
                format!("{name}: {message} (in the code generated around the user's text: check the parameter types)")
            }),
        }
    };
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        let spans = e.labels().filter_map(|(s, _)| s.to_range()).collect();
        let mut msg = e.message().to_string();
        if let Some((_, label)) = e.labels().next()
            && !label.is_empty()
        {
            msg = format!("{msg}: {label}");
        }
        explain(spans, msg)
    })?;
    immediates_fit(&module).map_err(|m| Error::InvalidShader {
        name: name.to_string(),
        message: format!("{name}: {m}"),
    })?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| {
            let spans = e.spans().filter_map(|(s, _)| s.to_range()).collect();
            let mut msg = e.as_inner().to_string();
            let mut source: Option<&dyn std::error::Error> =
                std::error::Error::source(e.as_inner());
            while let Some(s) = source {
                msg = format!("{msg}: {s}");
                source = s.source();
            }
            explain(spans, msg)
        })?;
    Ok((module, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_is_enabled_only_for_code_that_names_it() {
        assert!(uses_f16("alias S = f16;"));
        assert!(uses_f16("let x = vec4<f16>(a);"));
        assert!(uses_f16("return f16(x); // f32"));
        assert!(!uses_f16("// f16 uniforms take 11 bits\nalias S = f32;"));
        assert!(!uses_f16("alias S = f32; // S, or f32 when S is f16"));
        assert!(!uses_f16("let f16x = 1.0; let a_f16 = 2.0;"));
    }

    #[test]
    fn user_errors_point_at_the_users_line() {
        let body = "let t = x;\nz = t +;\n";
        let src = format!("fn f(x: f32) -> f32 {{\n    var z: f32;\n{body}    return z;\n}}\n");
        let r = Region::find("body", &src, body, 0).unwrap();
        let e = validate_user("k", &src, naga::valid::Capabilities::empty(), &[r]).unwrap_err();
        assert!(e.to_string().contains("k:2:"), "{e}");
        let body = "z = y;";
        let src = format!("fn f(x: f32) -> f32 {{\n    var z: f32;\n{body}\n    return z;\n}}\n");
        let r = Region::find("body", &src, body, 0).unwrap();
        let e = validate_user("k", &src, naga::valid::Capabilities::empty(), &[r]).unwrap_err();
        assert!(e.to_string().contains("k:1:5:"), "{e}");
        // Text that ends too early: the error is in the generated code after it.
        let body = "z = (x";
        let src = format!("fn f(x: f32) -> f32 {{\n    var z: f32;\n{body}\n    return z;\n}}\n");
        let r = Region::find("body", &src, body, 0).unwrap();
        let e = validate_user("k", &src, naga::valid::Capabilities::empty(), &[r]).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("k:1:7:") && msg.contains("end of the body"),
            "{msg}"
        );
        assert!(
            !msg.contains("return") && !msg.contains("generated"),
            "{msg}"
        );
    }

    #[test]
    fn render_resolves_imports_once_with_the_parameter_block() {
        let src = "#import params\n#import philox\nalias S = f32;\nalias SC = f32;\n";
        let spec = Spec::new("k", src)
            .import("mulhilo")
            .import("philox")
            .include("#import mulhilo\nfn g() {}\n");
        let text = spec.render().unwrap();
        assert_eq!(text.matches("struct Params").count(), 1, "{text}");
        assert_eq!(text.matches("fn mulhilo(").count(), 1, "{text}");
        assert_eq!(text.matches("fn philox(").count(), 1, "{text}");
        assert!(text.contains("fn g() {}"), "{text}");
        assert!(!text.contains("#import"), "{text}");
        // Without an import of params, the block is appended; immediates replace its binding.
        let spec = Spec {
            immediates: true,
            ..Spec::new("k", "alias S = f32;\nalias SC = f32;\n")
        };
        let text = spec.render().unwrap();
        assert_eq!(text.matches("struct Params").count(), 1);
        assert!(text.contains(PARAMS_IMMEDIATE) && !text.contains(PARAMS_UNIFORM));
        // A variant reads another file.
        let spec = Spec::new("k", "#import mulhilo\n").import_instead("mulhilo", Some("mulhilo64"));
        assert!(spec.render().unwrap().contains("u64(a) * u64(b)"));
    }

    #[test]
    fn an_unknown_import_is_an_invalid_shader() {
        for spec in [
            Spec::new("k", "#import params\n#import no_such_file\n"),
            Spec::new("k", "").import("no_such_file"),
            Spec::new("k", "#import mulhilo\n").import_instead("mulhilo", Some("no_such_file")),
        ] {
            let e = spec.render().unwrap_err();
            assert!(matches!(e, Error::InvalidShader { .. }), "{e:?}");
            assert!(e.to_string().contains("`#import no_such_file`"), "{e}");
        }
    }

    #[test]
    fn errors_point_at_the_line() {
        let src = "fn f() -> f32 {\n    return 1.0 +;\n}\n";
        let e = validate("bad", src, naga::valid::Capabilities::empty()).unwrap_err();
        assert!(e.to_string().contains(":2:"), "{e}");
    }
}
