//! Loops unrolled in the WGSL text before it is compiled.
//!
//! naga emits a loop as written, and a driver may keep it a loop: on the H100 (Vulkan,
//! driver 580) the radix scatter's 16-step ranking loop stayed one, so each step's load
//! waited for the previous step's ballots, and its private array was indexed by 16
//! compares and moves per write (shaders/radix_sg.wgsl). A loop marked in the source,
//!
//! ```text
//! // unroll
//! for (var i = 0u; i < STEPS; i++) {
//!     body
//! }
//! ```
//!
//! becomes `STEPS` blocks `{ const i = 0u; body }`, `{ const i = 1u; body }`, ...: every
//! index into a private array is then a constant (the array stays in registers) and the
//! steps are straight-line code the driver can schedule together. The bound is a literal
//! (`16u`) or a name the kernel's spec gives a count ([`crate::kernel::source::Spec::unroll`]);
//! a marked loop whose bound is neither is left a loop. Marked loops may nest.

/// The marker line before a loop to unroll.
const MARK: &str = "// unroll";

/// `text` with every marked loop replaced by its steps; `counts` gives the bounds that are
/// names.
pub(crate) fn expand(text: &str, counts: &[(&str, u32)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut from = 0;
    while let Some(at) = (from..lines.len()).find(|&i| lines[i].trim() == MARK) {
        match unrolled(&lines, at, counts) {
            Some((end, steps)) => {
                lines.splice(at..=end, steps);
            }
            None => from = at + 1,
        }
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The steps of the loop marked at line `at`, and the loop's last line; `None` where the
/// next line is not a loop `for (var X = 0u; X < N; X++) {` with a known N, or its end is
/// missing.
fn unrolled(lines: &[String], at: usize, counts: &[(&str, u32)]) -> Option<(usize, Vec<String>)> {
    let head = lines.get(at + 1)?;
    let (var, count) = loop_head(head.trim(), counts)?;
    let indent: String = head.chars().take_while(|c| c.is_whitespace()).collect();
    let mut depth = 0i32;
    let mut end = None;
    for (i, line) in lines.iter().enumerate().skip(at + 1) {
        let code = line.split("//").next().unwrap_or("");
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        if depth == 0 {
            end = Some(i);
            break;
        }
    }
    let end = end?;
    let body = &lines[at + 2..end];
    let mut steps = Vec::with_capacity(count as usize * (body.len() + 2));
    for k in 0..count {
        steps.push(format!("{indent}{{ const {var} = {k}u;"));
        steps.extend(body.iter().cloned());
        steps.push(format!("{indent}}}"));
    }
    Some((end, steps))
}

/// The variable and count of a loop head `for (var X = 0u; X < N; X++) {`.
fn loop_head<'a>(head: &'a str, counts: &[(&str, u32)]) -> Option<(&'a str, u32)> {
    let rest = head.strip_prefix("for (var ")?;
    let (var, rest) = rest.split_once(" = 0u; ")?;
    let rest = rest.strip_prefix(var)?.strip_prefix(" < ")?;
    let (bound, rest) = rest.split_once("; ")?;
    if rest != format!("{var}++) {{") {
        return None;
    }
    let count = match bound.strip_suffix('u').and_then(|b| b.parse().ok()) {
        Some(n) => n,
        None => counts.iter().find(|(n, _)| *n == bound)?.1,
    };
    Some((var, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_loops_become_blocks_with_constant_indices() {
        let src = "fn f() {\n    // unroll\n    for (var i = 0u; i < N; i++) {\n        a[i] = i;\n    }\n    tail();\n}\n";
        let out = expand(src, &[("N", 3)]);
        let want = "fn f() {\n    { const i = 0u;\n        a[i] = i;\n    }\n    { const i = 1u;\n        a[i] = i;\n    }\n    { const i = 2u;\n        a[i] = i;\n    }\n    tail();\n}\n";
        assert_eq!(out, want);
    }

    #[test]
    fn literal_bounds_nesting_and_braces_in_the_body() {
        let src = "// unroll\nfor (var j = 0u; j < 2u; j++) {\n  if (x) { y(); }\n  // unroll\n  for (var i = 0u; i < 2u; i++) {\n    z(i, j); // a } in a comment\n  }\n}";
        let out = expand(src, &[]);
        assert_eq!(out.matches("z(i, j);").count(), 4);
        assert_eq!(out.matches("const j = 1u;").count(), 1);
        assert_eq!(out.matches("const i = 1u;").count(), 2);
        assert!(!out.contains("for ("));
        assert!(!out.contains(MARK));
    }

    #[test]
    fn unknown_bounds_and_unmarked_loops_stay_loops() {
        let src = "// unroll\nfor (var i = 0u; i < M; i++) {\n  a();\n}\nfor (var k = 0u; k < 4u; k++) {\n  b();\n}";
        assert_eq!(expand(src, &[("N", 2)]), src);
        // A marker before something that is not a loop, or a loop without its end.
        let odd = "// unroll\nlet x = 1u;\n// unroll\nfor (var i = 0u; i < 2u; i++) {\n  a();";
        assert_eq!(expand(odd, &[]), odd);
    }
}
