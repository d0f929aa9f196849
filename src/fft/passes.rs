//! The Stockham passes of shaders/fft.wgsl's `run_passes`, generated per length as
//! straight-line WGSL: one function `pass_K(lid)` per pass with its radix, sub-transform
//! size, butterflies per invocation, strides and twiddle steps as literals, every value in
//! its own variable (no indexed private array, which a driver may put in local memory), a
//! guard `if (i < total)` per butterfly where it can fail, and the radix's butterfly
//! written out in place (no `switch`, no loop).
//!
//! The first pass reads its values straight from global memory (`load_x`) and the last
//! writes them straight to global memory (`store_x`): the radix's values of a Stockham
//! butterfly are L / R apart on input and, in the last pass, L / R apart on output, so
//! neighbouring invocations touch neighbouring elements (one transform's row, or where
//! the rows are strided, the same element of neighbouring transforms: the "column"
//! mapping). Workgroup memory carries only the exchanges between passes: a length of P
//! passes costs P - 1 exchanges (2 (P - 1) barriers) and no separate load or store loop.
//! The first pass's twiddles are all 1 and are not applied.

use std::fmt::Write;

/// Most values one invocation holds in a pass (butterflies per invocation times the radix).
pub(super) const MAX_VALUES: usize = 48;

/// The shape of one generated kernel: length `l`, `m` transforms per workgroup of `wg`
/// invocations, each transform's row `lp` elements apart in `sbuf`; `col_in` / `col_out`:
/// the first / last pass maps neighbouring invocations to neighbouring transforms (their
/// rows are strided in global memory) rather than to neighbouring elements of one.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape {
    pub l: usize,
    pub m: usize,
    pub wg: usize,
    pub lp: usize,
    pub col_in: bool,
    pub col_out: bool,
    /// Element x of a row at `sw(x)` (src/fft/banks.rs), else at x.
    pub swizzle: bool,
}

/// The text replacing `run_passes`: the passes of `s.l` (`radices`), then `run_passes`
/// calling them in order.
pub(super) fn run_passes(s: Shape, radices: &[usize]) -> String {
    let mut out = String::new();
    if radices.is_empty() {
        // Length 1: a copy (with the output's scale and twiddle).
        let c = s.m.div_ceil(s.wg);
        let _ = writeln!(out, "fn run_passes(lid: u32) {{");
        for b in 0..c {
            let _ = writeln!(
                out,
                "    if (lid + {0}u < {1}u) {{ let o = offs(lid + {0}u); store_x(o, 0u, load_x(o, 0u)); }}",
                b * s.wg,
                s.m
            );
        }
        let _ = writeln!(out, "}}");
        return out;
    }
    let mut calls = String::new();
    let mut ns = 1;
    let last = radices.len() - 1;
    let tables = table_offsets(s.l, radices);
    for (k, &r) in radices.iter().enumerate() {
        let c = (s.m * s.l / r).div_ceil(s.wg);
        debug_assert!(
            c * r <= MAX_VALUES,
            "length {}: {c} butterflies of radix {r}",
            s.l
        );
        let col = (k == 0 && s.col_in) || (k == last && s.col_out);
        let p = Pass {
            k,
            ns,
            r,
            c,
            first: k == 0,
            last: k == last,
            col,
            table: tables[k],
        };
        pass(&mut out, s, p);
        let _ = write!(calls, "pass_{k}(lid); ");
        ns *= r;
    }
    let _ = write!(out, "fn run_passes(lid: u32) {{ {calls}}}");
    out
}

/// Pass `k`: radix `r` over sub-transforms of `ns` elements, `c` butterflies per
/// invocation; `first` reads global memory, `last` writes it; `col`: the column mapping.
#[derive(Clone, Copy)]
struct Pass {
    k: usize,
    ns: usize,
    r: usize,
    c: usize,
    first: bool,
    last: bool,
    col: bool,
    /// Where the pass's twiddles start in the table (`table_offsets`).
    table: usize,
}

/// Where each pass's twiddles start in the table of a length `l` of `radices`: after the
/// l powers W_L^j, each pass of radix r over sub-transforms of ns > 1 elements has its
/// own (r - 1) ns entries, W_L^(i t L / (ns r)) at (i - 1) ns + t (1 <= i < r, t < ns),
/// so that neighbouring invocations (neighbouring t) read neighbouring entries: the
/// H200 (2026-11-29) read the powers table gathered (t i L / (ns r) apart) at 0.645 ms for
/// 65,536 x 1,024, against 0.471 ms with the twiddles computed by sin / cos.
pub(super) fn table_offsets(l: usize, radices: &[usize]) -> Vec<usize> {
    let mut off = l;
    let mut ns = 1;
    radices
        .iter()
        .map(|&r| {
            let at = off;
            if ns > 1 {
                off += (r - 1) * ns;
            }
            ns *= r;
            at
        })
        .collect()
}

/// Butterfly j of transform m reads elements j + r * L/R, twiddles them by
/// W_(ns R)^(r (j % ns)), transforms them, and writes element
/// (j / ns) * ns * R + j % ns + r * ns; in workgroup memory all are read before any is
/// written.
fn pass(out: &mut String, s: Shape, p: Pass) {
    let Shape {
        l,
        m,
        wg,
        lp,
        swizzle,
        ..
    } = s;
    let Pass {
        k,
        ns,
        r,
        c,
        first,
        last,
        col,
        ..
    } = p;
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
    // only where (b + 1) * WG > total. Transform m and butterfly j of i: neighbouring i
    // to neighbouring j (row mapping) or to neighbouring m (column mapping).
    let open = |out: &mut String, b: usize| {
        if (b + 1) * wg <= total {
            let _ = writeln!(out, "    {{");
        } else {
            let _ = writeln!(out, "    if (lid + {}u < {total}u) {{", b * wg);
        }
        let _ = writeln!(out, "        let i = lid + {}u;", b * wg);
        if col && m > 1 {
            let _ = writeln!(out, "        let m = i % {m}u;");
            let _ = writeln!(out, "        let j = i / {m}u;");
        } else {
            let _ = writeln!(out, "        let m = i / {q}u;");
            let _ = writeln!(out, "        let j = i % {q}u;");
        }
        if first || last {
            let _ = writeln!(out, "        let o = offs(m);");
        }
    };
    if !first {
        for b in 0..c {
            open(out, b);
            if swizzle {
                let _ = writeln!(out, "        let at = m * {lp}u;");
                for i in 0..r {
                    let _ = writeln!(
                        out,
                        "        {} = sbuf[sb(at + sw(j + {}u))];",
                        v(b, i),
                        i * q
                    );
                }
            } else {
                let _ = writeln!(out, "        let at = m * {lp}u + j;");
                for i in 0..r {
                    let _ = writeln!(out, "        {} = sbuf[sb(at + {}u)];", v(b, i), i * q);
                }
            }
            let _ = writeln!(out, "    }}");
        }
        if !last {
            let _ = writeln!(out, "    workgroupBarrier();");
        }
    }
    for b in 0..c {
        open(out, b);
        if first {
            for i in 0..r {
                let _ = writeln!(out, "        {} = load_x(o, j + {}u);", v(b, i), i * q);
            }
        }
        let _ = writeln!(out, "        let t = j % {ns}u;");
        if ns > 1 && r > 2 && super::tune::knobs().tw_rec {
            // `GPUARRAY_FFT_TWREC=1`: W^t from the table, its powers by products (one load
            // where there were r - 1; each product adds about one rounding).
            let _ = writeln!(
                out,
                "        let w1 = twp({}u + t, t * {stride}u);",
                p.table
            );
            let _ = writeln!(out, "        {0} = cmul({0}, w1);", v(b, 1));
            for i in 2..r {
                let _ = writeln!(out, "        let w{i} = cmul(w{}, w1);", i - 1);
                let _ = writeln!(out, "        {0} = cmul({0}, w{i});", v(b, i));
            }
        } else if ns > 1 {
            // This pass's own table (`table_offsets`): neighbouring t, neighbouring entries.
            for i in 1..r {
                let _ = writeln!(
                    out,
                    "        {0} = cmul({0}, twp({1}u + t, {i}u * t * {stride}u));",
                    v(b, i),
                    p.table + (i - 1) * ns
                );
            }
        }
        let names: Vec<String> = (0..r).map(|i| v(b, i)).collect();
        butterfly(out, &names, l);
        let _ = writeln!(out, "        let d = (j / {ns}u) * {}u + t;", ns * r);
        for (i, n) in names.iter().enumerate() {
            if last {
                let _ = writeln!(out, "        store_x(o, d + {}u, {n});", i * ns);
            } else if swizzle {
                let _ = writeln!(
                    out,
                    "        sbuf[sb(m * {lp}u + sw(d + {}u))] = {n};",
                    i * ns
                );
            } else {
                let _ = writeln!(out, "        sbuf[sb(m * {lp}u + d + {}u)] = {n};", i * ns);
            }
        }
        let _ = writeln!(out, "    }}");
    }
    if !last {
        let _ = writeln!(out, "    workgroupBarrier();");
    }
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
        16 => composite(v, 4, 4),
        32 => composite(v, 8, 4),
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

/// The DFT of the expressions `a` (2, 4 or 8 of them) as new variables `{p}0`, `{p}1`, ...
fn small_dft(p: &str, a: &[String]) -> String {
    match a.len() {
        2 => format!("let {p}0 = {0} + {1}; let {p}1 = {0} - {1}; ", a[0], a[1]),
        4 => format!(
            "let {p}s02 = {0} + {2}; let {p}d02 = {0} - {2}; let {p}s13 = {1} + {3}; \
             let {p}d13 = rot({1} - {3}); \
             let {p}0 = {p}s02 + {p}s13; let {p}1 = {p}d02 + {p}d13; \
             let {p}2 = {p}s02 - {p}s13; let {p}3 = {p}d02 - {p}d13; ",
            a[0], a[1], a[2], a[3]
        ),
        8 => {
            let e = [a[0].clone(), a[2].clone(), a[4].clone(), a[6].clone()];
            let o = [a[1].clone(), a[3].clone(), a[5].clone(), a[7].clone()];
            let mut s = small_dft(&format!("{p}e"), &e);
            s += &small_dft(&format!("{p}o"), &o);
            s += &format!("let {p}p1 = {}; ", twiddle_const(&format!("{p}o1"), 1, 8));
            s += &format!("let {p}p2 = rot({p}o2); ");
            s += &format!("let {p}p3 = {}; ", twiddle_const(&format!("{p}o3"), 3, 8));
            for k in 0..4 {
                let t = if k == 0 {
                    format!("{p}o0")
                } else {
                    format!("{p}p{k}")
                };
                let _ = write!(
                    s,
                    "let {p}{k} = {p}e{k} + {t}; let {p}{} = {p}e{k} - {t}; ",
                    k + 4
                );
            }
            s
        }
        n => unreachable!("small DFT of {n}"),
    }
}

/// `z` times W_r^e (conjugated for inverse transforms) as an expression: -i by `rot`, the
/// odd eighths by sums times sqrt(1/2), else a product with the constant's literals.
fn twiddle_const(z: &str, e: usize, r: usize) -> String {
    let e = e % r;
    if e == 0 {
        return z.to_string();
    }
    if 4 * e == r {
        return format!("rot({z})");
    }
    if 8 * e == r {
        return format!("(({z} + rot({z})) * T(0.70710678118654752440))");
    }
    if 8 * e == 3 * r {
        return format!("((rot({z}) - {z}) * T(0.70710678118654752440))");
    }
    let a = -2.0 * std::f64::consts::PI * e as f64 / r as f64;
    format!("cmul({z}, dirw(T({:.20e}), T({:.20e})))", a.cos(), a.sin())
}

/// A DFT of radix r = r1 * r2 (16 = 4 x 4, 32 = 8 x 4) in registers, in place: DFTs of r1
/// over n1 of the values r2 n1 + n2, each output k1 times W_r^(n2 k1), then DFTs of r2
/// over n2: output k1 + r1 k2.
fn composite(v: &[String], r1: usize, r2: usize) -> String {
    let mut s = String::new();
    for n2 in 0..r2 {
        let a: Vec<String> = (0..r1).map(|n1| v[r2 * n1 + n2].clone()).collect();
        s += &small_dft(&format!("y{n2}_"), &a);
    }
    for k1 in 0..r1 {
        let a: Vec<String> = (0..r2)
            .map(|n2| twiddle_const(&format!("y{n2}_{k1}"), n2 * k1, r1 * r2))
            .collect();
        s += &small_dft(&format!("x{k1}_"), &a);
        for k2 in 0..r2 {
            let _ = write!(s, "{} = x{k1}_{k2}; ", v[k1 + r1 * k2]);
        }
    }
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
            let _ = write!(s, " + cmul(a{i}, twl({}u))", ((i * k) % r) * step);
        }
        s += "; ";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(l: usize, m: usize, wg: usize, col_in: bool, col_out: bool) -> Shape {
        Shape {
            l,
            m,
            wg,
            lp: l + 1,
            col_in,
            col_out,
            swizzle: false,
        }
    }

    #[test]
    fn passes_index_no_array() {
        let text = run_passes(shape(60, 68, 256, false, false), &[4, 3, 5]);
        assert!(text.contains("fn pass_2(lid: u32)"));
        assert!(text.contains("run_passes(lid: u32) { pass_0(lid); pass_1(lid); pass_2(lid); }"));
        // 68 * 15 = 1020 butterflies of radix 4 over 256 invocations: the fourth guarded.
        assert!(text.contains("if (lid + 768u < 1020u)"));
        assert!(!text.contains("if (lid + 512u"));
        assert!(!text.contains("array<") && !text.contains("switch") && !text.contains("break"));
    }

    #[test]
    fn first_pass_loads_last_pass_stores() {
        let text = run_passes(shape(64, 4, 64, true, false), &[8, 8]);
        let (p0, p1) = text.split_at(text.find("fn pass_1").unwrap());
        // Pass 0: global loads, column mapping, no twiddles, no workgroup reads, one
        // barrier after its writes.
        assert!(p0.contains("load_x(o, j + 56u)") && p0.contains("let m = i % 4u;"));
        assert!(!p0.contains("twp(") && !p0.contains("= sbuf["));
        assert_eq!(p0.matches("workgroupBarrier").count(), 1);
        // Pass 1: workgroup reads (rows 65 apart), twiddles, global stores, no barrier.
        assert!(p1.contains("= sbuf[sb(at + 56u)]") && p1.contains("let at = m * 65u + j;"));
        assert!(p1.contains("twp(112u + t, 7u * t * 1u)") && p1.contains("store_x(o, d + 56u"));
        assert!(p1.contains("let m = i / 8u;"));
        assert!(!p1.contains("workgroupBarrier") && !p1.contains("sbuf[sb(m *"));
        // One pass: no workgroup memory at all; length 1: a copy.
        let one = run_passes(shape(8, 512, 256, false, true), &[8]);
        assert!(!one.contains("sbuf") && !one.contains("workgroupBarrier"));
        let copy = run_passes(shape(1, 1024, 256, false, false), &[]);
        assert!(copy.contains("if (lid + 768u < 1024u)") && copy.contains("store_x(o, 0u"));
        // Swizzled rows: every workgroup access through sw() of the index within the row.
        let mut sw = shape(64, 4, 64, true, false);
        sw.swizzle = true;
        let text = run_passes(sw, &[4, 4, 4]);
        assert!(
            text.contains("let at = m * 65u;") && text.contains("= sbuf[sb(at + sw(j + 16u))];")
        );
        assert!(text.contains("sbuf[sb(m * 65u + sw(d + 4u))] ="));
        assert!(!text.contains("+ j;") && !text.contains("+ d + "));
        assert!(copy.contains("if (lid + 768u < 1024u)") && copy.contains("store_x(o, 0u"));
    }
}
