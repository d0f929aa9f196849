// Reduction family: sum, prod, min, max, argmin, argmax, all, any, mean, var, std, norm
// over the whole array or any set of axes.
//
// The host reduces an M x K problem: M outputs (the kept axes, in order) each reducing K
// elements (the reduced axes, merged into one axis of stride `rstride()`). Element k of
// output m is at `P.offs.x + kept_offset(m) + k * rstride()`, where kept_offset decodes m
// through the kept axes (P.shape and the strides P.st0, NDIM of them).
// Bindings: 0 params; 1 the input `a` (elements, or partial results of an earlier stage);
// 2 `b`, the means of var and std (one per output, accumulator type); 3 `last`, the
// read-write scratch of rows_last / rows4_last (32-bit accumulators only; its first
// COUNTERS words are counters, one per output, zero between dispatches, then the partial
// results as (value bits, index) word pairs); 4 the output.
// Dispatch: a 1-D grid of work units folded into 2-D; unit ids start at `first_unit()` and
// end before `end_unit()`, so that the host can cover the units of a problem larger than
// one binding in several dispatches, each binding a window of the input.
//
// Two shapes of problem:
// - `rows` / `rows4`: PER invocations share one output (a row), WG / PER outputs per
//   workgroup. Units are (block of outputs, split of K), split fastest.
// - `cols` / `cols4`: each of PER lanes of a workgroup has its own output (a column, whose
//   neighbours are contiguous in memory) and the WG / PER lanes of each column stride
//   through K together. Units are (split of K, block of columns), block fastest.
// With one split the result goes to out[m]; with S splits each unit writes the partial
// result of its split to out[m * S + s], and a second `rows` dispatch reduces those rows.
// `rows_last` / `rows4_last` (one output per workgroup, PER = WG) fold that second stage in:
// each unit writes its partial result to `last`, then counts itself in its output's
// counter (atomicAdd, after a storage barrier, which naga makes device-scoped); the unit
// that counts last combines the S partial results of its output in a fixed order, writes
// out[m] and puts the counter back to 0 for the next dispatch. No unit waits on another.
// The `4` entries load vec4 values: rows4 four consecutive elements of a row, cols4 four
// neighbouring columns.
//
// Determinism: every combination happens in an order fixed by the problem's shape (a
// serial walk per invocation, then a binary tree in workgroup memory), never by timing,
// atomics or the subgroup size, so the same input gives the same bits on every run.
//
// The host replaces the alias lines and the one-line functions map, map4, combine,
// combine4, in_order, after, after4, finish, load, load4, mean_of, shuffle and
// shuffle_width per operation and dtype (src/ops/reduce/source.rs).

#import params

alias E = f32;  // element type of the input (its accumulator type for partial inputs)
alias Src = f32; // what `a` holds: E, vec4<E>, or Acc for partial inputs
alias A = f32;  // accumulator type
alias Dst = f32; // what `out` holds: the result's element type, or Acc for partial results
alias S = f32;  // scalar arguments: the accumulator type
alias SC = f32;

// A partial result: the accumulated value and, for argmin / argmax, the index (within the
// reduced elements) of the value found; 0xffffffff when no element was seen.
struct Acc {
    v: A,
    i: u32,
}
struct Acc4 {
    v: vec4<A>,
    i: vec4<u32>,
}

override WG: u32 = 256u;
override NDIM: u32 = 1u; // kept axes (at least 1)
override PER: u32 = 1u;  // rows: invocations per output; cols: outputs per workgroup

@group(0) @binding(1) var<storage, read> a: array<Src>;
@group(0) @binding(2) var<storage, read> b: array<A>;
@group(0) @binding(3) var<storage, read_write> last: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> out: array<Dst>;

var<workgroup> sh: array<Acc, WG>;
var<workgroup> sh4: array<Acc4, WG>;
var<workgroup> counted: u32;
// Counters at the start of `last` (src/ops/reduce/last.rs `COUNTERS`): the most outputs of
// a fused stage.
const COUNTERS: u32 = 4096u;

// The family's own parameters. These accessors mirror `ReduceParams` in
// src/ops/reduce/params.rs, whose `encode` is the one place that fills these slots: P.n,
// P.aux and the strides of input b (P.st1), which these kernels do not use as strides.
// Read them only through these functions. (The kept axes, P.shape and P.st0, and the
// offsets P.offs are the generic slots and are read directly; the identity is scalar 0.)
fn end_unit() -> u32 { return P.n; }         // unit ids of this dispatch end before this
fn outputs() -> u32 { return P.aux.x; }      // M: outputs (in cols4, columns, not groups of 4)
fn k_len() -> u32 { return P.aux.y; }        // K: reduced elements per output
fn rstride() -> u32 { return P.st1[0].x; }   // stride of the reduced axis, in elements
fn chunk() -> u32 { return P.st1[0].y; }     // elements of K per split (a multiple of 4)
fn splits() -> u32 { return P.st1[0].z; }    // splits of K per output
fn first_unit() -> u32 { return P.st1[0].w; } // unit ids of this dispatch start here
fn count() -> u32 { return P.st1[1].x; }     // divisor of mean, var and std
fn col_blocks() -> u32 { return P.st1[1].y; } // cols: blocks of PER columns

// The operation (replaced by the host): the accumulator of element x, the k-th reduced
// element of an output whose mean (var, std) is mu; its vec4 form; the combination of two
// partial results; the output of a final one.
fn map(x: E, k: u32, mu: A) -> Acc { return Acc(A(x), k); }
fn map4(x: vec4<E>, k: vec4<u32>, mu: vec4<A>) -> Acc4 { return Acc4(vec4<A>(x), k); }
fn combine(x: Acc, y: Acc) -> Acc { return Acc(x.v + y.v, x.i); }
fn combine4(x: Acc4, y: Acc4) -> Acc4 { return Acc4(x.v + y.v, x.i); }
fn finish(r: Acc) -> Dst { return Dst(r.v); }
// The partial result of the element at offset o of `a` (for elements, map(a[o], ...)), and
// of the four at 4 * o4.
fn load(o: u32, k: u32, mu: A) -> Acc { return map(E(a[o]), k, mu); }
fn load4(o4: u32, k: vec4<u32>, mu: vec4<A>) -> Acc4 { return Acc4(vec4<A>(A(a[4u * o4]), A(a[4u * o4 + 1u]), A(a[4u * o4 + 2u]), A(a[4u * o4 + 3u])), k); }
// The mean of output m (var and std read b; the others read nothing).
fn mean_of(m: u32) -> A { return A(0); }

// The identity of the combination: the host passes its value as scalar 0.
fn identity() -> Acc {
    return Acc(arg(0u), 0xffffffffu);
}
fn identity4() -> Acc4 {
    return Acc4(vec4<A>(arg(0u)), vec4<u32>(0xffffffffu));
}
fn lane(x: Acc4, j: u32) -> Acc {
    return Acc(x.v[j], x.i[j]);
}

// Offset of output m's first element: m decoded through the kept axes.
fn kept_offset(m: u32) -> u32 {
    var rem = m;
    var o = 0u;
    for (var k = i32(NDIM) - 1; k >= 1; k--) {
        let d = u32(k);
        let extent = extent_of(d);
        o += (rem % extent) * P.st0[d / 4u][d % 4u];
        rem = rem / extent;
    }
    return o + rem * P.st0[0].x;
}

// Writes the result of output m, split s.
fn put(m: u32, s: u32, r: Acc) {
    out[P.offs.w + m * splits() + s] = finish(r);
}

// Swaps partial results with the invocation whose index differs in bit h (subgroup
// variants: a subgroup shuffle; never called otherwise).
fn shuffle(x: Acc, h: u32) -> Acc { return x; }
// The width of the tree levels done with shuffles: 8 where the adapter's subgroups have at
// least 8 invocations (and the accumulator is 32-bit), else 1.
fn shuffle_width() -> u32 { return 1u; }

// Combines the partial results of the PER invocations t of each row (invocation l holds
// `acc`) as a binary tree of neighbours, pairs first; invocation t = 0 gets the result.
// The first levels use subgroup shuffles where the variant has them and workgroup memory
// after: the tree, and so the rounding, is the same either way and for every subgroup size.
fn row_tree(l: u32, t: u32, acc: Acc) -> Acc {
    var x = acc;
    let w = min(shuffle_width(), PER);
    for (var h = 1u; h < w; h *= 2u) {
        x = combine(x, shuffle(x, h));
    }
    sh[l] = x;
    workgroupBarrier();
    for (var h = w; h < PER; h *= 2u) {
        if (t % (2u * h) == 0u) {
            sh[l] = combine(sh[l], sh[l + h]);
        }
        workgroupBarrier();
    }
    return sh[l];
}

// Whether the walks fold their elements in order (argmin / argmax): then `after(x, y)`
// folds element y, which comes after every element of x, into x, cheaper than `combine`
// (no index comparison: the walk's order keeps the first occurrence). Replaced by the host;
// elsewhere `after` is `combine`.
fn in_order() -> bool { return false; }
fn after(x: Acc, y: Acc) -> Acc { return combine(x, y); }
fn after4(x: Acc4, y: Acc4) -> Acc4 { return combine4(x, y); }

// The partial result x where `ok`, else the identity: the loads of a walk's last block that
// fall past its end read a valid element (the block's first) and are replaced by this.
fn keep(x: Acc, ok: bool) -> Acc {
    let e = identity();
    return Acc(select(e.v, x.v, ok), select(e.i, x.i, ok));
}
fn keep4(x: Acc4, ok: bool) -> Acc4 {
    let e = identity4();
    return Acc4(select(e.v, x.v, ok), select(e.i, x.i, ok));
}

// Element j of a walk's last block, which starts at k (below `end`): loaded unconditionally,
// at k itself where k + j * step is past the end, and then replaced by the identity.
fn tail(base: u32, rs: u32, k: u32, j: u32, step: u32, end: u32, mu: A) -> Acc {
    let kj = k + j * step;
    let ok = kj < end;
    let kc = select(k, kj, ok);
    return keep(load(base + kc * rs, kc, mu), ok);
}
fn tail4(base: u32, rs: u32, k: u32, j: u32, step: u32, end: u32, mu: vec4<A>, lane: vec4<u32>) -> Acc4 {
    let kj = k + j * step;
    let ok = kj < end;
    let kc = select(k, kj, ok);
    return keep4(load4((base + kc * rs) / 4u, vec4<u32>(kc) + lane, mu), ok);
}

// The tree of eight partial results, pairs first.
fn tree8(x0: Acc, x1: Acc, x2: Acc, x3: Acc, x4: Acc, x5: Acc, x6: Acc, x7: Acc) -> Acc {
    return combine(combine(combine(x0, x1), combine(x2, x3)), combine(combine(x4, x5), combine(x6, x7)));
}
fn tree8_4(x0: Acc4, x1: Acc4, x2: Acc4, x3: Acc4, x4: Acc4, x5: Acc4, x6: Acc4, x7: Acc4) -> Acc4 {
    return combine4(combine4(combine4(x0, x1), combine4(x2, x3)), combine4(combine4(x4, x5), combine4(x6, x7)));
}

// Eight elements that come after every element of `acc`, combined into it: folded in order
// by the ordered walks of argmin / argmax (`in_order()`), else as a tree.
fn block(acc: Acc, x0: Acc, x1: Acc, x2: Acc, x3: Acc, x4: Acc, x5: Acc, x6: Acc, x7: Acc) -> Acc {
    if (in_order()) {
        return after(after(after(after(after(after(after(after(acc, x0), x1), x2), x3), x4), x5), x6), x7);
    }
    return combine(acc, tree8(x0, x1, x2, x3, x4, x5, x6, x7));
}
fn block4(acc: Acc4, x0: Acc4, x1: Acc4, x2: Acc4, x3: Acc4, x4: Acc4, x5: Acc4, x6: Acc4, x7: Acc4) -> Acc4 {
    if (in_order()) {
        return after4(after4(after4(after4(after4(after4(after4(after4(acc, x0), x1), x2), x3), x4), x5), x6), x7);
    }
    return combine4(acc, tree8_4(x0, x1, x2, x3, x4, x5, x6, x7));
}

// One invocation's walk through its share of an output's elements: k from `first` while
// below `end`, `step` apart, at `base + k * rs`. Eight loads are issued before any is
// combined (the memory system needs several in flight per invocation to reach its
// bandwidth): whole blocks of eight in a loop, then the last, partial block as eight
// unconditional loads (those past the end replaced by the identity; no branch around a
// load, which would keep the loads from overlapping). Ordered walks (argmin / argmax) start
// the result at the first element, so that `after` never meets the identity as its left
// operand (which a run of -inf or of integer minima would not replace); `after(x, identity)`
// is x, so the replaced loads change nothing.
fn walk(base: u32, rs: u32, first: u32, end: u32, step: u32, mu: A) -> Acc {
    if (first >= end) { return identity(); }
    var acc = identity();
    var k = first;
    if (in_order()) {
        acc = load(base + k * rs, k, mu);
        k += step;
    }
    for (; k + 7u * step < end; k += 8u * step) {
        let x0 = load(base + (k + 0u * step) * rs, k + 0u * step, mu);
        let x1 = load(base + (k + 1u * step) * rs, k + 1u * step, mu);
        let x2 = load(base + (k + 2u * step) * rs, k + 2u * step, mu);
        let x3 = load(base + (k + 3u * step) * rs, k + 3u * step, mu);
        let x4 = load(base + (k + 4u * step) * rs, k + 4u * step, mu);
        let x5 = load(base + (k + 5u * step) * rs, k + 5u * step, mu);
        let x6 = load(base + (k + 6u * step) * rs, k + 6u * step, mu);
        let x7 = load(base + (k + 7u * step) * rs, k + 7u * step, mu);
        acc = block(acc, x0, x1, x2, x3, x4, x5, x6, x7);
    }
    if (k < end) {
        let y0 = tail(base, rs, k, 0u, step, end, mu);
        let y1 = tail(base, rs, k, 1u, step, end, mu);
        let y2 = tail(base, rs, k, 2u, step, end, mu);
        let y3 = tail(base, rs, k, 3u, step, end, mu);
        let y4 = tail(base, rs, k, 4u, step, end, mu);
        let y5 = tail(base, rs, k, 5u, step, end, mu);
        let y6 = tail(base, rs, k, 6u, step, end, mu);
        let y7 = tail(base, rs, k, 7u, step, end, mu);
        acc = block(acc, y0, y1, y2, y3, y4, y5, y6, y7);
    }
    return acc;
}

// As walk, with vec4 loads at `(base + k * rs) / 4`: in rows4 the four lanes are the
// elements k..k+3 of one row (rs = 1, `lanes` = 1), in cols4 element k of four neighbouring
// columns (`lanes` = 0). In ordered walks each of the four lanes keeps its own first
// occurrence.
fn walk4(base: u32, rs: u32, first: u32, end: u32, step: u32, mu: vec4<A>, lanes: u32) -> Acc4 {
    if (first >= end) { return identity4(); }
    let lane = vec4<u32>(0u, 1u, 2u, 3u) * lanes;
    var acc = identity4();
    var k = first;
    if (in_order()) {
        acc = load4((base + k * rs) / 4u, vec4<u32>(k) + lane, mu);
        k += step;
    }
    for (; k + 7u * step < end; k += 8u * step) {
        let x0 = load4((base + (k + 0u * step) * rs) / 4u, vec4<u32>(k + 0u * step) + lane, mu);
        let x1 = load4((base + (k + 1u * step) * rs) / 4u, vec4<u32>(k + 1u * step) + lane, mu);
        let x2 = load4((base + (k + 2u * step) * rs) / 4u, vec4<u32>(k + 2u * step) + lane, mu);
        let x3 = load4((base + (k + 3u * step) * rs) / 4u, vec4<u32>(k + 3u * step) + lane, mu);
        let x4 = load4((base + (k + 4u * step) * rs) / 4u, vec4<u32>(k + 4u * step) + lane, mu);
        let x5 = load4((base + (k + 5u * step) * rs) / 4u, vec4<u32>(k + 5u * step) + lane, mu);
        let x6 = load4((base + (k + 6u * step) * rs) / 4u, vec4<u32>(k + 6u * step) + lane, mu);
        let x7 = load4((base + (k + 7u * step) * rs) / 4u, vec4<u32>(k + 7u * step) + lane, mu);
        acc = block4(acc, x0, x1, x2, x3, x4, x5, x6, x7);
    }
    if (k < end) {
        let y0 = tail4(base, rs, k, 0u, step, end, mu, lane);
        let y1 = tail4(base, rs, k, 1u, step, end, mu, lane);
        let y2 = tail4(base, rs, k, 2u, step, end, mu, lane);
        let y3 = tail4(base, rs, k, 3u, step, end, mu, lane);
        let y4 = tail4(base, rs, k, 4u, step, end, mu, lane);
        let y5 = tail4(base, rs, k, 5u, step, end, mu, lane);
        let y6 = tail4(base, rs, k, 6u, step, end, mu, lane);
        let y7 = tail4(base, rs, k, 7u, step, end, mu, lane);
        acc = block4(acc, y0, y1, y2, y3, y4, y5, y6, y7);
    }
    return acc;
}

// One unit of rows or rows4: `four` selects vec4 loads (a constant per entry point).
fn reduce_rows(w: vec3<u32>, nw: vec3<u32>, l: u32, four: bool) {
    let unit = first_unit() + w.y * nw.x + w.x;
    if (unit >= end_unit()) { return; }
    let r = row_unit(unit, l, four);
    let m = (unit / splits()) * (WG / PER) + l / PER;
    if (l % PER == 0u && m < outputs()) {
        put(m, unit % splits(), r);
    }
}

// The partial result of unit `unit` of rows or rows4 for the output of invocation l (in
// the invocation that starts its row).
fn row_unit(unit: u32, l: u32, four: bool) -> Acc {
    let s = unit % splits();
    let m = (unit / splits()) * (WG / PER) + l / PER;
    let t = l % PER;
    var acc = identity();
    if (m < outputs()) {
        let base = P.offs.x + kept_offset(m);
        let k0 = s * chunk();
        let k1 = min(k_len(), k0 + chunk());
        let mu = mean_of(m);
        if (four) {
            let acc4 = walk4(base, 1u, k0 + 4u * t, k1, 4u * PER, vec4<A>(mu), 1u);
            acc = combine(combine(lane(acc4, 0u), lane(acc4, 1u)), combine(lane(acc4, 2u), lane(acc4, 3u)));
        } else {
            acc = walk(base, rstride(), k0 + t, k1, PER, mu);
        }
    }
    return row_tree(l, t, acc);
}

// The bits of an accumulator's value and back (32-bit accumulators).
fn to_bits(v: A) -> u32 { return bitcast<u32>(v); }
fn from_bits(u: u32) -> A { return bitcast<A>(u); }

// One unit of rows_last or rows4_last (PER = WG: unit m * S + s is split s of output m).
fn reduce_rows_last(w: vec3<u32>, nw: vec3<u32>, l: u32, four: bool) {
    let unit = first_unit() + w.y * nw.x + w.x;
    if (unit >= end_unit()) { return; }
    let r = row_unit(unit, l, four);
    let m = unit / splits();
    let n = splits();
    if (l == 0u) {
        atomicStore(&last[COUNTERS + 2u * unit], to_bits(r.v));
        atomicStore(&last[COUNTERS + 2u * unit + 1u], r.i);
    }
    storageBarrier();
    if (l == 0u) {
        counted = atomicAdd(&last[m], 1u);
    }
    if (workgroupUniformLoad(&counted) + 1u < n) { return; }
    storageBarrier();
    // The last unit of output m: invocation l folds the partial results l, l + WG, ... in
    // order, then the row's tree combines the invocations.
    var acc = identity();
    for (var k = l; k < n; k += WG) {
        let q = COUNTERS + 2u * (m * n + k);
        acc = combine(acc, Acc(from_bits(atomicLoad(&last[q])), atomicLoad(&last[q + 1u])));
    }
    let total = row_tree(l, l, acc);
    if (l == 0u) {
        out[P.offs.w + m] = finish(total);
        atomicStore(&last[m], 0u);
    }
}

@compute @workgroup_size(WG)
fn rows_last(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
             @builtin(local_invocation_index) l: u32) {
    reduce_rows_last(w, nw, l, false);
}

@compute @workgroup_size(WG)
fn rows4_last(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
              @builtin(local_invocation_index) l: u32) {
    reduce_rows_last(w, nw, l, true);
}

@compute @workgroup_size(WG)
fn rows(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    reduce_rows(w, nw, l, false);
}

// As rows, four elements at a time: K, the chunk, the input's offset and the kept strides
// are multiples of 4, and the reduced stride is 1.
@compute @workgroup_size(WG)
fn rows4(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    reduce_rows(w, nw, l, true);
}

@compute @workgroup_size(WG)
fn cols(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let unit = first_unit() + w.y * nw.x + w.x;
    if (unit >= end_unit()) { return; }
    let s = unit / col_blocks();
    let j = (unit % col_blocks()) * PER + l % PER;
    let r = l / PER;
    var acc = identity();
    if (j < outputs()) {
        let base = P.offs.x + kept_offset(j);
        let k0 = s * chunk();
        let k1 = min(k_len(), k0 + chunk());
        let mu = mean_of(j);
        acc = walk(base, rstride(), k0 + r, k1, WG / PER, mu);
    }
    sh[l] = acc;
    workgroupBarrier();
    for (var h = WG / PER / 2u; h > 0u; h /= 2u) {
        if (r < h) {
            sh[l] = combine(sh[l], sh[l + h * PER]);
        }
        workgroupBarrier();
    }
    if (r == 0u && j < outputs()) {
        put(j, s, sh[l]);
    }
}

// As cols, four neighbouring columns per lane: the innermost kept extent, the input's
// offset and every stride are multiples of 4; outputs() counts columns, not groups of 4.
@compute @workgroup_size(WG)
fn cols4(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    let unit = first_unit() + w.y * nw.x + w.x;
    if (unit >= end_unit()) { return; }
    let s = unit / col_blocks();
    let j = 4u * ((unit % col_blocks()) * PER + l % PER);
    let r = l / PER;
    var acc = identity4();
    if (j < outputs()) {
        let base = P.offs.x + kept_offset(j);
        let k0 = s * chunk();
        let k1 = min(k_len(), k0 + chunk());
        let mu = vec4<A>(mean_of(j), mean_of(j + 1u), mean_of(j + 2u), mean_of(j + 3u));
        acc = walk4(base, rstride(), k0 + r, k1, WG / PER, mu, 0u);
    }
    sh4[l] = acc;
    workgroupBarrier();
    for (var h = WG / PER / 2u; h > 0u; h /= 2u) {
        if (r < h) {
            sh4[l] = combine4(sh4[l], sh4[l + h * PER]);
        }
        workgroupBarrier();
    }
    if (r == 0u && j < outputs()) {
        let res = sh4[l];
        for (var q = 0u; q < 4u; q++) {
            put(j + q, s, lane(res, q));
        }
    }
}
