//! The Stockham passes of shaders/fft.wgsl's `run_passes`, generated per length as
//! straight-line WGSL: one function `pass_K(lid)` per pass with its radix, sub-transform
//! size, butterflies per invocation, strides and twiddle steps as literals, every value in
//! its own variable (no indexed private array, which a driver may put in local memory), a
//! guard `if (i < total)` per butterfly where it can fail, and the radix's butterfly
//! written out in place (no `switch`, no loop).

use std::fmt::Write;

/// Most values one invocation holds in a pass (butterflies per invocation times the radix).
pub(super) const MAX_VALUES: usize = 48;

/// The text replacing `run_passes`: the passes of length `l` (`radices`), `m` transforms
/// per workgroup of `wg` invocations, then `run_passes` calling them in order.
pub(super) fn run_passes(l: usize, m: usize, wg: usize, radices: &[usize]) -> String {
    let mut out = String::new();
    let mut calls = String::new();
    let mut ns = 1;
    for (k, &r) in radices.iter().enumerate() {
        let c = (m * l / r).div_ceil(wg);
        debug_assert!(
            c * r <= MAX_VALUES,
            "length {l}: {c} butterflies of radix {r}"
        );
        pass(&mut out, k, Pass { l, m, wg, ns, r, c });
        let _ = write!(calls, "pass_{k}(lid); ");
        ns *= r;
    }
    let _ = write!(out, "fn run_passes(lid: u32) {{ {calls}}}");
    out
}

/// One pass: radix `r` over sub-transforms of `ns` elements, `c` butterflies per invocation.
#[derive(Clone, Copy)]
struct Pass {
    l: usize,
    m: usize,
    wg: usize,
    ns: usize,
    r: usize,
    c: usize,
}

/// Butterfly j of transform m reads elements j + r * L/R, twiddles them by
/// W_(ns R)^(r (j % ns)), transforms them, and writes element
/// (j / ns) * ns * R + j % ns + r * ns; all are read before any is written.
fn pass(out: &mut String, k: usize, p: Pass) {
    let Pass { l, m, wg, ns, r, c } = p;
    let q = l / r;
    let total = m * q;
    let stride = l / (ns * r);
    let v = |b: usize, i: usize| format!("v{b}_{i}");
    let _ = writeln!(
        out,
        "// Pass {k}: radix {r}, sub-transforms of {ns}, {c} butterflies per invocation."
    );
    let _ = writeln!(out, "fn pass_{k}(lid: u32) {{");
    for b in 0..c {
        for i in 0..r {
            let _ = writeln!(out, "    var {}: vec2<T>;", v(b, i));
        }
    }
    // Butterfly b of this invocation is i = lid + b * WG; lid < WG, so the guard is needed
    // only where (b + 1) * WG > total.
    let open = |out: &mut String, b: usize| {
        if (b + 1) * wg <= total {
            let _ = writeln!(out, "    {{");
        } else {
            let _ = writeln!(out, "    if (lid + {}u < {total}u) {{", b * wg);
        }
        let _ = writeln!(out, "        let i = lid + {}u;", b * wg);
        let _ = writeln!(out, "        let m = i / {q}u;");
        let _ = writeln!(out, "        let j = i % {q}u;");
    };
    for b in 0..c {
        open(out, b);
        let _ = writeln!(out, "        let at = m * {l}u + j;");
        for i in 0..r {
            let _ = writeln!(out, "        {} = sbuf[at + {}u];", v(b, i), i * q);
        }
        let _ = writeln!(out, "    }}");
    }
    let _ = writeln!(out, "    workgroupBarrier();");
    for b in 0..c {
        open(out, b);
        let _ = writeln!(out, "        let t = j % {ns}u;");
        for i in 1..r {
            let _ = writeln!(
                out,
                "        {0} = cmul({0}, twiddle({i}u * t * {stride}u));",
                v(b, i)
            );
        }
        let names: Vec<String> = (0..r).map(|i| v(b, i)).collect();
        butterfly(out, &names, l);
        let _ = writeln!(
            out,
            "        let d = m * {l}u + (j / {ns}u) * {}u + t;",
            ns * r
        );
        for (i, n) in names.iter().enumerate() {
            let _ = writeln!(out, "        sbuf[d + {}u] = {n};", i * ns);
        }
        let _ = writeln!(out, "    }}");
    }
    let _ = writeln!(out, "    workgroupBarrier();");
    let _ = writeln!(out, "}}");
}

/// The DFT of the values named `v` (radix v.len()), in place, in a block of its own.
fn butterfly(out: &mut String, v: &[String], l: usize) {
    let s = match v.len() {
        2 => format!(
            "let a = {0}; let b = {1}; {0} = a + b; {1} = a - b;",
            v[0], v[1]
        ),
        4 => format!(
            "let s02 = {0} + {2}; let d02 = {0} - {2}; let s13 = {1} + {3}; \
             let d13 = rot({1} - {3}); \
             {0} = s02 + s13; {1} = d02 + d13; {2} = s02 - s13; {3} = d02 - d13;",
            v[0], v[1], v[2], v[3]
        ),
        8 => radix8(v),
        r => radix_any(v, r, l),
    };
    let _ = writeln!(out, "        {{ {s} }}");
}

/// Two radix-4 transforms of the even and odd values, then one radix-2 stage: W_8^1 =
/// (1 - i)/sqrt2, W_8^2 = -i, W_8^3 = (-1 - i)/sqrt2 (conjugates for inverse).
fn radix8(v: &[String]) -> String {
    let four = |p: &str, a: [&String; 4]| {
        format!(
            "let {p}s02 = {0} + {2}; let {p}d02 = {0} - {2}; let {p}s13 = {1} + {3}; \
             let {p}d13 = rot({1} - {3}); \
             let {p}0 = {p}s02 + {p}s13; let {p}1 = {p}d02 + {p}d13; \
             let {p}2 = {p}s02 - {p}s13; let {p}3 = {p}d02 - {p}d13; ",
            a[0], a[1], a[2], a[3]
        )
    };
    let mut s = String::from("let h = T(0.70710678118654752440084436210484903928); ");
    s += &four("e", [&v[0], &v[2], &v[4], &v[6]]);
    s += &four("o", [&v[1], &v[3], &v[5], &v[7]]);
    s += "let p1 = (o1 + rot(o1)) * h; let p2 = rot(o2); let p3 = (rot(o3) - o3) * h; ";
    let _ = write!(
        s,
        "{} = e0 + o0; {} = e0 - o0; {} = e1 + p1; {} = e1 - p1; \
         {} = e2 + p2; {} = e2 - p2; {} = e3 + p3; {} = e3 - p3;",
        v[0], v[4], v[1], v[5], v[2], v[6], v[3], v[7]
    );
    s
}

/// A DFT of any radix R (3, 5, 7, 11, 13) by its definition, W_R^m read as W_L^(m L / R).
fn radix_any(v: &[String], r: usize, l: usize) -> String {
    let step = l / r;
    let mut s = String::new();
    for (i, n) in v.iter().enumerate() {
        let _ = write!(s, "let a{i} = {n}; ");
    }
    for (k, n) in v.iter().enumerate() {
        let _ = write!(s, "{n} = a0");
        for i in 1..r {
            let _ = write!(s, " + cmul(a{i}, twiddle({}u))", ((i * k) % r) * step);
        }
        s += "; ";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_index_no_array() {
        let text = run_passes(60, 68, 256, &[4, 3, 5]);
        assert!(text.contains("fn pass_2(lid: u32)"));
        assert!(text.contains("run_passes(lid: u32) { pass_0(lid); pass_1(lid); pass_2(lid); }"));
        // 68 * 15 = 1020 butterflies of radix 4 over 256 invocations: the fourth guarded.
        assert!(text.contains("if (lid + 768u < 1020u)"));
        assert!(!text.contains("if (lid + 512u"));
        assert!(!text.contains("array<") && !text.contains("switch") && !text.contains("break"));
    }
}
