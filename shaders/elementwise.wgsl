// Elementwise family: unary, binary and ternary maps, with NumPy broadcasting.
//
// Bindings: 0 params (uniform, dynamic offset, see shared/params.wgsl); 1 input a;
// 2 input b; 3 input c (the mask of `where`); 4 the output. A kernel binds the inputs it reads.
// Dispatch: a 1-D grid folded into 2-D, one invocation per output item. In the vectorised
// variant T, U and M are vec4 types and an item is 4 consecutive elements; in the strided
// entries an item is PER consecutive elements of one row.
// The output is written from offs.w on (0 but where an array larger than one binding is
// done in windows; a multiple of 4 in the `*_rows` entries).
// `*_contig` entries read input k at offs[k] + i (every operand contiguous, same shape);
// `*_strided` entries derive each input's offset from the output's multi-index and the
// input's strides, which are 0 along broadcast axes; `*_rows` entries do the same for 4
// elements of a row at once, in the vectorised variant, where every operand's row is
// contiguous (and aligned) or broadcast.
//
// Parameters: only the generic fields of shared/params.wgsl, in their documented meaning
// (n, offs, the shape and strides through extent_of/strides_of, scalars through arg); aux
// is 0 (shared/f32_math.wgsl reads aux.x as a zero the compiler cannot know), but aux.y,
// the tile axis of the `*_tiled` entries (below).
//
// The host replaces the alias lines with the operand types and the `op` lines with the
// operation (see src/ops/elementwise/wgsl.rs and table.rs).

#import params
#import strided

alias S = f32; // element type of the inputs
alias SC = f32; // carrier of scalar arguments: S, or f32 when S is f16
alias T = f32; // value type of the inputs: S, or vec4<S> when vectorised
alias TW = f32; // T with f16 widened to f32 (f16 remainders are computed in f32)
alias U = f32; // value type of the output
alias M = u32; // value type of the mask: u32, or vec4<u32> when vectorised
alias TB = bool; // comparison result: bool, or vec4<bool> when vectorised
alias TF = f32; // f32, or vec4<f32> when vectorised (f64 helpers read sign bits through it)
alias NI = i32; // i32, or vec4<i32> when vectorised (exponents of ldexp)

override WG: u32 = 256u;
override NDIM: u32 = 1u; // dimensions of the strided entries (P.ndim), fixed per pipeline
override PER: u32 = 1u;  // elements per invocation in the strided entries: 1, or 4 when the
                         // innermost extent is a multiple of 4 (the 4 share a row)

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read> b: array<T>;
@group(0) @binding(3) var<storage, read> c: array<M>;
@group(0) @binding(4) var<storage, read_write> out: array<U>;

// The largest finite value of TW's element type (replaced for float types; unused by
// integer ones).
fn max_finite_() -> TW { return TW(0); }

// The quotient of TW for the helpers of shared/float_math.wgsl: f32_math.wgsl's div_ for f32
// and f16 (the adapter's f32 division may be approximate; NVIDIA's is), the built-in for f64.
fn fdiv_(x: TW, y: TW) -> TW { return x / y; }
fn nan_() -> TW { return TW(0); }

fn op1(a: T) -> U { return U(a); }
fn op2(a: T, b: T) -> U { return U(a + b); }
fn op3(a: T, b: T, c: M) -> U { return U(select(b, a, c != M(0u))); }

// Element k of a, b or c, whatever T is: the host replaces these lines in vectorised
// variants with `a[k / 4u][k % 4u]` and the like.
fn lane_a(k: u32) -> S { return S(a[k]); }
fn lane_b(k: u32) -> S { return S(b[k]); }
fn lane_c(k: u32) -> u32 { return u32(c[k]); }

// The four elements of a row from element offset o, for an operand whose row stride s is 1
// (one vec4; the host ensures o is a multiple of 4) or 0 (one element, repeated). Used by
// the `*_rows` entries, in vectorised variants only.
fn row_a(o: u32, s: u32) -> T {
    if (s == 0u) { return T(lane_a(o)); }
    return a[o / 4u];
}
fn row_b(o: u32, s: u32) -> T {
    if (s == 0u) { return T(lane_b(o)); }
    return b[o / 4u];
}
fn row_c(o: u32, s: u32) -> M {
    if (s == 0u) { return M(lane_c(o)); }
    return c[o / 4u];
}

// strided_offsets(i), the offsets of a, b and c for output element i of the strided and
// rows entries, is in shared/strided.wgsl (shared with elementwise_kernel.wgsl). The math
// helpers of the operation's expression (shared/float_math.wgsl, f32_*.wgsl, ...) are
// imported per dtype by the host (ops/elementwise/wgsl.rs).

@compute @workgroup_size(WG)
fn unary_contig(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[P.offs.w + i] = op1(a[P.offs.x + i]);
}

@compute @workgroup_size(WG)
fn unary_strided(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                 @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG) * PER;
    if (i >= P.n) { return; }
    var o = strided_offsets(i);
    let step = strides_of(NDIM - 1u);
    for (var j = 0u; j < PER; j++) {
        out[P.offs.w + i + j] = op1(a[o.x]);
        o += step;
    }
}

// In-place forms of the contiguous entries (`a += b`, `a *= 2`): the output is also the
// left operand, read through its own binding (wgpu forbids binding one buffer twice in a
// dispatch); the right operand of `binary_inplace` is binding 1 (a), contiguous, of the
// output's shape. Each invocation reads and writes only its own item. The host uses them
// with U = T only; u_to_t lets the module validate in the variants where they differ (the
// host replaces it where T(...) cannot convert: the complex pairs with a real output).
fn u_to_t(v: U) -> T { return T(v); }

@compute @workgroup_size(WG)
fn unary_inplace(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                 @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[P.offs.w + i] = op1(u_to_t(out[P.offs.w + i]));
}

@compute @workgroup_size(WG)
fn binary_inplace(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                  @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[P.offs.w + i] = op2(u_to_t(out[P.offs.w + i]), a[P.offs.x + i]);
}

// The `*_into` forms' strided destinations: a (any layout, walked through slot a's strides)
// written at the offsets slot c's strides give (the destination view's; c itself is not
// bound). One element per invocation; the host refuses destinations that overlap
// themselves (broadcast views).
@compute @workgroup_size(WG)
fn unary_scatter(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                 @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    let o = strided_offsets(i);
    out[o.z] = op1(a[o.x]);
}

@compute @workgroup_size(WG)
fn binary_contig(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                 @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[P.offs.w + i] = op2(a[P.offs.x + i], b[P.offs.y + i]);
}

@compute @workgroup_size(WG)
fn binary_strided(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                  @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG) * PER;
    if (i >= P.n) { return; }
    var o = strided_offsets(i);
    let step = strides_of(NDIM - 1u);
    for (var j = 0u; j < PER; j++) {
        out[P.offs.w + i + j] = op2(a[o.x], b[o.y]);
        o += step;
    }
}

@compute @workgroup_size(WG)
fn ternary_contig(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                  @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[P.offs.w + i] = op3(a[P.offs.x + i], b[P.offs.y + i], c[P.offs.z + i]);
}

@compute @workgroup_size(WG)
fn ternary_strided(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                   @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG) * PER;
    if (i >= P.n) { return; }
    var o = strided_offsets(i);
    let step = strides_of(NDIM - 1u);
    for (var j = 0u; j < PER; j++) {
        out[P.offs.w + i + j] = op3(a[o.x], b[o.y], c[o.z]);
        o += step;
    }
}

// Broadcast and strided operands whose rows are contiguous or broadcast, vectorised: one
// invocation per 4 elements of a row, vec4 loads where the row is contiguous.
@compute @workgroup_size(WG)
fn unary_rows(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
              @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG) * 4u;
    if (i >= P.n) { return; }
    let o = strided_offsets(i);
    let s = strides_of(NDIM - 1u);
    out[(P.offs.w + i) / 4u] = op1(row_a(o.x, s.x));
}

@compute @workgroup_size(WG)
fn binary_rows(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
               @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG) * 4u;
    if (i >= P.n) { return; }
    let o = strided_offsets(i);
    let s = strides_of(NDIM - 1u);
    out[(P.offs.w + i) / 4u] = op2(row_a(o.x, s.x), row_b(o.y, s.y));
}

@compute @workgroup_size(WG)
fn ternary_rows(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG) * 4u;
    if (i >= P.n) { return; }
    let o = strided_offsets(i);
    let s = strides_of(NDIM - 1u);
    out[(P.offs.w + i) / 4u] = op3(row_a(o.x, s.x), row_b(o.y, s.y), row_c(o.z, s.z));
}

// `*_tiled` entries: operands permuted against the output (a transposed view, a permuted
// axis order) through workgroup-memory tiles, so that reads and writes are both coalesced.
// A workgroup (WG = 256 = 32 x 8 invocations) computes a TILE x TILE tile of the output
// over two of its NDIM merged axes: the innermost (`j`, contiguous in the output) and the
// tile axis `P.aux.y` (`i`), at one multi-index of the other axes. Grid: x tiles along j,
// y tiles along i, z the multi-indices of the other axes (the host checks each below
// 65,536). Each invocation takes 4 elements of each operand. An operand whose stride along
// j is above 1 in magnitude (its fastest axis is not the output's) is read along i (32 neighbouring
// invocations on 32 neighbouring i) and stored in its tile, to be read across after the
// barrier; the others are read along j at the invocation's own output positions. The
// loads are written out one by one, unconditional (positions outside the output read the
// tile's first element instead), and all issued before any is used, so that each
// invocation has every load in flight at once (the compiler neither unrolls nor hoists
// loads out of a loop with a branch). The tiles are padded to TILE + 1 slots per j so
// that the reads across hit distinct banks. Only the scalar variants launch these entries
// (the vectorised ones carry them, unused).
const TILE: u32 = 32u;
const TROWS: u32 = 8u; // rows of the tile each of an invocation's 4 elements covers: WG / TILE
const TPAD: u32 = 33u; // TILE + 1
var<workgroup> tile_a: array<T, 1056>; // TILE * TPAD
var<workgroup> tile_b: array<T, 1056>;
var<workgroup> tile_c: array<M, 1056>;

// The tile's geometry: offsets of a, b, c and of the output at its multi-index (i and j
// zero), the strides of the operands along i and j, the output's stride along i, the
// extents along i and j, and the tile's first i and j.
struct TileAt {
    o: vec3<u32>,
    out: u32,
    si: vec3<u32>,
    sj: vec3<u32>,
    osi: u32,
    ni: u32,
    nj: u32,
    i0: u32,
    j0: u32,
}

fn tile_at(w: vec3<u32>) -> TileAt {
    let t = P.aux.y;
    let inner = NDIM - 1u;
    var rem = w.z;
    var o = P.offs.xyz;
    var out_o = 0u;
    var ostride = 1u;
    var osi = 1u;
    for (var k = i32(NDIM) - 1; k >= 0; k--) {
        let d = u32(k);
        let extent = extent_of(d);
        if (d == t) {
            osi = ostride;
        } else if (d != inner) {
            let idx = rem % extent;
            rem = rem / extent;
            o += idx * strides_of(d);
            out_o += idx * ostride;
        }
        ostride *= extent;
    }
    return TileAt(o, P.offs.w + out_o, strides_of(t), strides_of(inner), osi, extent_of(t),
                  extent_of(inner), w.y * TILE, w.x * TILE);
}

// Whether operand k (0 a, 1 b, 2 c) goes through its tile: its stride along j is above 1
// in magnitude (a negative stride arrives as its two's complement; -1 reads along j).
fn staged(g: TileAt, k: u32) -> bool {
    return g.sj[k] > 1u && g.sj[k] != 0xffffffffu;
}

// Tile position (i, j) of invocation l's element q (0 to 3) when it loads a staged operand
// (32 invocations along i) and when it writes the output (32 along j).
fn stage_pos(l: u32, q: u32) -> vec2<u32> {
    return vec2(l % TILE, l / TILE + TROWS * q);
}
fn out_pos(l: u32, q: u32) -> vec2<u32> {
    return vec2(l / TILE + TROWS * q, l % TILE);
}

// Whether tile position p lies in the output.
fn tile_in(g: TileAt, p: vec2<u32>) -> bool {
    return g.i0 + p.x < g.ni && g.j0 + p.y < g.nj;
}

// Slot of tile position p: stored along i, read along j.
fn tile_slot(p: vec2<u32>) -> u32 {
    return p.y * TPAD + p.x;
}

// Output offset of tile position p.
fn tile_out(g: TileAt, p: vec2<u32>) -> u32 {
    return g.out + (g.i0 + p.x) * g.osi + g.j0 + p.y;
}

// Offset of the element operand k loads as invocation l's element q: at its stage position
// where it is staged, else at its output position; the tile's first element where that
// lies outside the output.
fn load_at(g: TileAt, k: u32, l: u32, q: u32) -> u32 {
    let p = select(out_pos(l, q), stage_pos(l, q), staged(g, k));
    let at = select(vec2(0u), p, tile_in(g, p));
    return g.o[k] + (g.i0 + at.x) * g.si[k] + (g.j0 + at.y) * g.sj[k];
}

// The four elements of a, b or c that invocation l loads.
fn load_a(g: TileAt, l: u32) -> array<T, 4> {
    return array<T, 4>(a[load_at(g, 0u, l, 0u)], a[load_at(g, 0u, l, 1u)],
                       a[load_at(g, 0u, l, 2u)], a[load_at(g, 0u, l, 3u)]);
}
fn load_b(g: TileAt, l: u32) -> array<T, 4> {
    return array<T, 4>(b[load_at(g, 1u, l, 0u)], b[load_at(g, 1u, l, 1u)],
                       b[load_at(g, 1u, l, 2u)], b[load_at(g, 1u, l, 3u)]);
}
fn load_c(g: TileAt, l: u32) -> array<M, 4> {
    return array<M, 4>(c[load_at(g, 2u, l, 0u)], c[load_at(g, 2u, l, 1u)],
                       c[load_at(g, 2u, l, 2u)], c[load_at(g, 2u, l, 3u)]);
}

// Stores the loaded elements v of a staged operand in its tile (a no-op for the others).
fn stage_a(g: TileAt, l: u32, v: array<T, 4>) {
    if (!staged(g, 0u)) { return; }
    let p = array(stage_pos(l, 0u), stage_pos(l, 1u), stage_pos(l, 2u), stage_pos(l, 3u));
    if (tile_in(g, p[0])) { tile_a[tile_slot(p[0])] = v[0]; }
    if (tile_in(g, p[1])) { tile_a[tile_slot(p[1])] = v[1]; }
    if (tile_in(g, p[2])) { tile_a[tile_slot(p[2])] = v[2]; }
    if (tile_in(g, p[3])) { tile_a[tile_slot(p[3])] = v[3]; }
}
fn stage_b(g: TileAt, l: u32, v: array<T, 4>) {
    if (!staged(g, 1u)) { return; }
    let p = array(stage_pos(l, 0u), stage_pos(l, 1u), stage_pos(l, 2u), stage_pos(l, 3u));
    if (tile_in(g, p[0])) { tile_b[tile_slot(p[0])] = v[0]; }
    if (tile_in(g, p[1])) { tile_b[tile_slot(p[1])] = v[1]; }
    if (tile_in(g, p[2])) { tile_b[tile_slot(p[2])] = v[2]; }
    if (tile_in(g, p[3])) { tile_b[tile_slot(p[3])] = v[3]; }
}
fn stage_c(g: TileAt, l: u32, v: array<M, 4>) {
    if (!staged(g, 2u)) { return; }
    let p = array(stage_pos(l, 0u), stage_pos(l, 1u), stage_pos(l, 2u), stage_pos(l, 3u));
    if (tile_in(g, p[0])) { tile_c[tile_slot(p[0])] = v[0]; }
    if (tile_in(g, p[1])) { tile_c[tile_slot(p[1])] = v[1]; }
    if (tile_in(g, p[2])) { tile_c[tile_slot(p[2])] = v[2]; }
    if (tile_in(g, p[3])) { tile_c[tile_slot(p[3])] = v[3]; }
}

// Operand value at invocation l's output position q, after the barrier: from the tile
// where the operand is staged, else x (the element loaded there).
fn pick_a(g: TileAt, l: u32, q: u32, x: T) -> T {
    if (staged(g, 0u)) { return tile_a[tile_slot(out_pos(l, q))]; }
    return x;
}
fn pick_b(g: TileAt, l: u32, q: u32, x: T) -> T {
    if (staged(g, 1u)) { return tile_b[tile_slot(out_pos(l, q))]; }
    return x;
}
fn pick_c(g: TileAt, l: u32, q: u32, x: M) -> M {
    if (staged(g, 2u)) { return tile_c[tile_slot(out_pos(l, q))]; }
    return x;
}

// Writes y at invocation l's output position q where it lies in the output.
fn put(g: TileAt, l: u32, q: u32, y: U) {
    let p = out_pos(l, q);
    if (tile_in(g, p)) { out[tile_out(g, p)] = y; }
}

@compute @workgroup_size(WG)
fn unary_tiled(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let g = tile_at(w);
    let va = load_a(g, l);
    stage_a(g, l, va);
    workgroupBarrier();
    put(g, l, 0u, op1(pick_a(g, l, 0u, va[0])));
    put(g, l, 1u, op1(pick_a(g, l, 1u, va[1])));
    put(g, l, 2u, op1(pick_a(g, l, 2u, va[2])));
    put(g, l, 3u, op1(pick_a(g, l, 3u, va[3])));
}

@compute @workgroup_size(WG)
fn binary_tiled(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let g = tile_at(w);
    let va = load_a(g, l);
    let vb = load_b(g, l);
    stage_a(g, l, va);
    stage_b(g, l, vb);
    workgroupBarrier();
    put(g, l, 0u, op2(pick_a(g, l, 0u, va[0]), pick_b(g, l, 0u, vb[0])));
    put(g, l, 1u, op2(pick_a(g, l, 1u, va[1]), pick_b(g, l, 1u, vb[1])));
    put(g, l, 2u, op2(pick_a(g, l, 2u, va[2]), pick_b(g, l, 2u, vb[2])));
    put(g, l, 3u, op2(pick_a(g, l, 3u, va[3]), pick_b(g, l, 3u, vb[3])));
}

@compute @workgroup_size(WG)
fn ternary_tiled(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
    let g = tile_at(w);
    let va = load_a(g, l);
    let vb = load_b(g, l);
    let vc = load_c(g, l);
    stage_a(g, l, va);
    stage_b(g, l, vb);
    stage_c(g, l, vc);
    workgroupBarrier();
    put(g, l, 0u, op3(pick_a(g, l, 0u, va[0]), pick_b(g, l, 0u, vb[0]), pick_c(g, l, 0u, vc[0])));
    put(g, l, 1u, op3(pick_a(g, l, 1u, va[1]), pick_b(g, l, 1u, vb[1]), pick_c(g, l, 1u, vc[1])));
    put(g, l, 2u, op3(pick_a(g, l, 2u, va[2]), pick_b(g, l, 2u, vb[2]), pick_c(g, l, 2u, vc[2])));
    put(g, l, 3u, op3(pick_a(g, l, 3u, va[3]), pick_b(g, l, 3u, vb[3]), pick_c(g, l, 3u, vc[3])));
}
