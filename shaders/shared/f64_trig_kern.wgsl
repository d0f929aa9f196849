// The kernel of f64 sin and cos's common path (f64_trig_fast.wgsl imports it; fdlibm's
// coefficients are in f64_trig.wgsl).

// sin(h + l) (c false, as sin_k64_) or cos(h + l) (c true, as cos_k64_) for |h| <= pi/4 +
// a little, per lane: both polynomials (their coefficients are operands of the fma, with no
// register or move of their own) and one selected, and one tail: sin's h + ((h z) p +
// l (1 - z/2)) and cos's w + (((1 - w) - z/2) + ((z z) p - l h)) (w = 1 - z/2) as
// a + (e + (f p + g)) with a, e, f's factor and g's selected. Selecting the six
// coefficients instead (the form measured first, same bits) cost each lane two selects and
// two moves per coefficient where this costs five fma: on the H200 (2026-11-29, vec4 sin)
// that path issued 287 instructions an invocation for 100 f64 ones, 96 of them selects and
// 42 moves, and timed sin / cos / tan of 16M f64 at 0.121 / 0.114 / 0.137 ms against this
// form's 0.106 / 0.103 / 0.133 in the same binary.
fn sincos_k64_(h: TW, l: TW, c: TB) -> TW {
    let z = h * h;
    var ps = TW(D64_S6);
    ps = fma(ps, z, TW(D64_S5));
    ps = fma(ps, z, TW(D64_S4));
    ps = fma(ps, z, TW(D64_S3));
    ps = fma(ps, z, TW(D64_S2));
    ps = fma(ps, z, TW(D64_S1));
    var pc = TW(D64_C6);
    pc = fma(pc, z, TW(D64_C5));
    pc = fma(pc, z, TW(D64_C4));
    pc = fma(pc, z, TW(D64_C3));
    pc = fma(pc, z, TW(D64_C2));
    pc = fma(pc, z, TW(D64_C1));
    let p = select(ps, pc, c);
    let hz = TW(0.5) * z;
    let w = TW(1.0) - hz;
    let a = select(h, w, c);
    let e = select(TW(0.0), (TW(1.0) - w) - hz, c);
    let f = z * select(h, z, c);
    let g = l * select(TW(1.0) - hz, -h, c);
    return a + (e + (f * p + g));
}
