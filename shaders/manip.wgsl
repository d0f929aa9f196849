// Manipulation family: copies that rearrange elements (host side: src/ops/manip/).
//
// Bindings: 0 params (uniform, dynamic offset, see shared/params.wgsl); 1 input a; 2 runs
// (repeat_runs only: u32 run ends); 4 the output.
// Dispatch: a 1-D grid folded into 2-D, one invocation per element of the walked shape
// (P.shape over P.ndim dimensions, P.n elements; the host merges dimensions first).
// Complex elements (S a vec2) move whole, one 8- or 16-byte element an invocation, in every
// entry but roll4 (whose complex rolls the host does on the components).
//
// copy_into: the element at multi-index c reads a[offs.x + sum c[d] * st0[d]] and writes
//            out[offs.w + sum c[d] * st1[d]]: a strided input into a strided slab of a
//            larger output (concatenate, stack, copies into views).
// remap:     4 outputs per invocation, WG apart (REMAP_PER); the output is contiguous from
//            offs.w; element i, at multi-index c, reads the
//            input coordinate x[d] = map(c[d] - lo[d]) along each axis (lo in st1, the
//            input's extent in st2), map by remap_mode() (the override MODE, the same on every axis; an axis
//            with lo = 0 and an extent equal to the output's is left as it is):
//            0 constant (outside the input: arg 0), 1 edge (clamped), 2 reflect (period
//            2(n-1), the edge not repeated), 3 symmetric (period 2n, the edge repeated),
//            4 wrap (period n), 5 repeat (x = c / lo: lo copies of each element).
//            pad is every mode; flip is symmetric with lo = n; roll is wrap with lo the
//            shift; tile is wrap with lo = 0.
// band:      the output is contiguous from offs.w; element i, at multi-index c, is
//            a[offs.x + sum c[d] * st0[d]] where k = c[last] - c[last - 1] lies in the band
//            (band_upper(): k >= band_k(), triu; else k <= band_k(), tril), else 0.
// roll4:     a contiguous input of P.n elements from offs.x rolled by roll_shift() (in
//            [1, P.n)) into a new output of P.n rounded up to 4 elements: invocation j
//            writes outputs 4j .. 4j + 3 with one vec4 store (`out4`; those past P.n repeat
//            the last), output i reading a[offs.x + i - s], or i - s + P.n below s. Items:
//            P.n / 4 rounded up.
// repeat_runs: the output is contiguous from offs.w; element i, at multi-index c, reads the
//            input at c except along axis repeat_axis(), where the coordinate is the first
//            j with runs[j] > c (runs: the inclusive cumulative sum of the counts, the
//            input's extent st2 long), found by binary search.

#import params

alias S = f32; // element type
alias SC = f32; // carrier of scalar arguments: S, or f32 when S is f16
alias V4 = vec4<f32>; // roll4's four elements: vec4<S> (for a complex S, vec4<SC>: its rolls
                      // go through the components, and lane4 keeps those variants valid)

override WG: u32 = 256u;
override MODE: u32 = 0u; // remap's rule (see the header), fixed per pipeline

@group(0) @binding(1) var<storage, read> a: array<S>;
@group(0) @binding(2) var<storage, read> runs: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<storage, read_write> out4: array<V4>;

// Parameter accessors, mirroring `ManipParams` in src/ops/manip/kernel.rs (whose `encode`
// is the only code that fills these slots). P.n, P.ndim, offs, extent_of and strides_of
// (x: the input's strides; y: the output's in copy_into, lo in remap; z: the input's
// extents in remap and repeat_runs) are read directly.
fn remap_mode() -> u32 { return MODE; }                   // remap: the override, not P
fn band_upper() -> bool { return P.aux.x == 1u; }
fn band_k() -> i32 { return bitcast<i32>(P.aux.y); }
fn repeat_axis() -> u32 { return P.aux.y; }
fn roll_shift() -> u32 { return P.aux.x; }

@compute @workgroup_size(WG)
fn copy_into(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
             @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    var rem = i;
    var o = vec2<u32>(P.offs.x, P.offs.w);
    for (var k = i32(P.ndim) - 1; k >= 0; k--) {
        let d = u32(k);
        let e = extent_of(d);
        o += (rem % e) * strides_of(d).xy;
        rem = rem / e;
    }
    out[o.y] = a[o.x];
}

// x modulo p in [0, p) for p > 0, with `%` on non-negative operands only: GLSL leaves `%`
// of a negative operand undefined (issue 36).
fn pmod(x: i32, p: i32) -> i32 {
    if (x >= 0) { return x % p; }
    return p - 1 - (-1 - x) % p;
}

// The input coordinate of output coordinate `c` along an axis, or -1 outside the input
// (constant mode). `lo` is the axis' shift, `n` the input's extent (at least 1). Inside the
// input every mode reads c - lo; one period out (all of flip and roll, and pads no wider
// than the input) a direct formula; the general modulo only past that.
fn source_coord(c: i32, lo: i32, n: i32) -> i32 {
    let mode = remap_mode();
    if (mode == 5u) { return c / max(lo, 1); } // never / 0 (undefined in GLSL: issue 36)
    let x = c - lo;
    if (x >= 0 && x < n) { return x; }
    switch mode {
        case 0u: { return -1; }
        case 1u: { return clamp(x, 0, n - 1); }
        case 2u: {
            let p = 2 * (n - 1);
            if (p == 0) { return 0; }
            if (x < 0 && x > -n) { return -x; }
            if (x >= n && x < p) { return p - x; }
            let t = pmod(x, p);
            return select(p - t, t, t < n);
        }
        case 3u: {
            if (x < 0 && x >= -n) { return -1 - x; }
            if (x >= n && x < 2 * n) { return 2 * n - 1 - x; }
            let p = 2 * n;
            let t = pmod(x, p);
            return select(p - 1 - t, t, t < n);
        }
        default: {
            if (x < 0 && x >= -n) { return x + n; }
            if (x >= n && x < 2 * n) { return x - n; }
            return pmod(x, n);
        }
    }
}

// The input offset of the row `q` (the multi-index of every axis but the last, row-major),
// and 0 in .y when it lies outside the input (constant mode), else 1.
fn remap_row(q: u32) -> vec2<u32> {
    var rem = q;
    var o = P.offs.x;
    var inside = 1u;
    for (var k = i32(P.ndim) - 2; k >= 0; k--) {
        let d = u32(k);
        let e = extent_of(d);
        let st = strides_of(d);
        let x = source_coord(i32(rem % e), bitcast<i32>(st.y), i32(st.z));
        inside = select(0u, inside, x >= 0);
        o += u32(max(x, 0)) * st.x;
        rem = rem / e;
    }
    return vec2<u32>(o, inside);
}

// REMAP_PER outputs per invocation, WG apart (so each store is coalesced across the
// workgroup): the row's offset is found once and reused while the outputs stay in it.
const REMAP_PER: u32 = 4u;

@compute @workgroup_size(WG)
fn remap(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    let g = (w.y * nw.x + w.x) * WG * REMAP_PER + l;
    if (g >= P.n) { return; }
    let last = P.ndim - 1u;
    let e = extent_of(last);
    let st = strides_of(last);
    let lo = bitcast<i32>(st.y);
    var c = g % e;
    var row = remap_row(g / e);
    for (var k = 0u; k < REMAP_PER; k++) {
        let i = g + k * WG;
        if (i >= P.n) { return; }
        if (c >= e) {
            // Past the row's end: the next output's row, found afresh.
            c = i % e;
            row = remap_row(i / e);
        }
        let x = source_coord(i32(c), lo, i32(st.z));
        c += WG;
        var v = arg(0u);
        if (row.y == 1u && x >= 0) { v = a[row.x + u32(x) * st.x]; }
        out[P.offs.w + i] = v;
    }
}

// An element as a lane of V4: itself (the host's complex variants, never launched, take a
// component).
fn lane4(x: S) -> S { return x; }

@compute @workgroup_size(WG)
fn roll4(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    let j = linear_id(w, nw, l, WG);
    let n = P.n;
    let i0 = 4u * j;
    if (i0 >= n) { return; }
    let s = roll_shift();
    var v: V4;
    for (var k = 0u; k < 4u; k++) {
        let i = min(i0 + k, n - 1u);
        v[k] = lane4(a[P.offs.x + select(i - s, i + (n - s), i < s)]);
    }
    out4[j] = v;
}

@compute @workgroup_size(WG)
fn band(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    var rem = i;
    var o = P.offs.x;
    var rc = vec2<i32>(0, 0);
    for (var k = i32(P.ndim) - 1; k >= 0; k--) {
        let d = u32(k);
        let e = extent_of(d);
        let c = rem % e;
        if (d + 2u >= P.ndim) { rc[d + 2u - P.ndim] = i32(c); }
        o += c * strides_of(d).x;
        rem = rem / e;
    }
    let off = rc.y - rc.x;
    let keep = select(off <= band_k(), off >= band_k(), band_upper());
    var v = S(0);
    if (keep) { v = a[o]; }
    out[P.offs.w + i] = v;
}

// The first j < n with runs[j] > c (n when none).
fn run_of(c: u32, n: u32) -> u32 {
    var lo = 0u;
    var hi = n;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if (runs[mid] <= c) { lo = mid + 1u; } else { hi = mid; }
    }
    return lo;
}

@compute @workgroup_size(WG)
fn repeat_runs(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
               @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    var rem = i;
    var o = P.offs.x;
    for (var k = i32(P.ndim) - 1; k >= 0; k--) {
        let d = u32(k);
        let e = extent_of(d);
        let st = strides_of(d);
        var x = rem % e;
        if (d == repeat_axis()) { x = run_of(x, st.z); }
        o += x * st.x;
        rem = rem / e;
    }
    out[P.offs.w + i] = a[o];
}
