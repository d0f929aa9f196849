// The form of f64_trig_kern.wgsl that selects the polynomial's coefficients per lane (one
// polynomial evaluated instead of two; measured on the H200 on 2026-11-29 as the common path
// of GPUARRAY_F64_TRIG=1), read instead of it under the measuring switch
// GPUARRAY_F64_TRIG=1 (`Spec::f64_choices`). The same bits; not the default.

// sin(h + l) (c false, as sin_k64_) or cos(h + l) (c true, as cos_k64_) for |h| <= pi/4 +
// a little, per lane: one polynomial whose coefficients are selected, instead of both, and
// one tail: sin's h + ((h z) p + l (1 - z/2)) and cos's w + (((1 - w) - z/2) + ((z z) p -
// l h)) (w = 1 - z/2) as a + (e + (f p + g)) with a, e, f's factor and g's selected (the
// same operations on each lane's values: 16 f64 operations where both tails took 22).
fn sincos_k64_(h: TW, l: TW, c: TB) -> TW {
    let z = h * h;
    var p = select(TW(D64_S6), TW(D64_C6), c);
    p = fma(p, z, select(TW(D64_S5), TW(D64_C5), c));
    p = fma(p, z, select(TW(D64_S4), TW(D64_C4), c));
    p = fma(p, z, select(TW(D64_S3), TW(D64_C3), c));
    p = fma(p, z, select(TW(D64_S2), TW(D64_C2), c));
    p = fma(p, z, select(TW(D64_S1), TW(D64_C1), c));
    let hz = TW(0.5) * z;
    let w = TW(1.0) - hz;
    let a = select(h, w, c);
    let e = select(TW(0.0), (TW(1.0) - w) - hz, c);
    let f = z * select(h, z, c);
    let g = l * select(TW(1.0) - hz, -h, c);
    return a + (e + (f * p + g));
}
