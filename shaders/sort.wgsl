// Sort family: sort, argsort (and what is built on them). Host: src/ops/sort/.
//
// Every dtype is sorted through u32 key words that order as the values do (NumPy's order:
// -0 and +0 equal, every NaN equal and after +inf): `key_of` (one line, per dtype) reads
// the input as raw u32 words, so no kernel here needs f16, f64 or 64-bit integer
// arithmetic. 32-bit and 16-bit dtypes have one key word, f64, i64 and u64 two (low word
// first).
//
// Records: a buffer of W key-word planes and, when CARRY is 1, an index plane, each
// `rec_n()` words long: word j of element e at `j * rec_n() + e`, its index at
// `W * rec_n() + e` (the flat index into the sorted rows). With CARRY 0 (one row of a
// 32-bit dtype, sorted by value alone) the records are the values themselves, and each
// digit is taken of `sort_key` of the value: the first pass reads the input (from
// `src_off()`), the last writes the sorted values; no `keys` or `unkey` pass.
//
// Entry points (bindings: 0 params; inputs at 1..3, read-only; 4 the output):
// - `keys`: one invocation per element (1-D grid folded into 2-D). 1 the input's words
//   (element offset `P.offs.x`); 4 the records. `keys_skip`: the same for one row of
//   8-byte keys whose passes skip (`SKIP`), 2 the pass table.
// - `hist`: one workgroup per tile of TILE = WG * ITEMS elements. 1 records (from
//   `src_off()`); 4 the counts,
//   `counts[d * tiles + t]` = elements of tile t whose digit is d (digit-major, so one
//   exclusive scan gives every tile's first slot per digit). Counts in workgroup atomics:
//   a count does not depend on the order of the adds.
// - `scan_reduce`: one workgroup per block of WG * SCAN_ITEMS counts. 1 counts; 4 the block sums.
// - `scan_top`: one workgroup. 4 the block sums, scanned in place (exclusive): invocation
//   i takes a run of consecutive sums, so one workgroup scan covers them all.
// - `scan_down`: one workgroup per block of WG * SCAN_ITEMS counts. 1 the scanned block sums; 4 the
//   counts, replaced by their exclusive scan.
// - `scatter`: one workgroup per tile, as `hist`. 1 records; 2 the scanned counts; 4 the
//   records in their new order. The tile is walked in chunks of WG elements in order; an
//   element's rank among the chunk's elements of its digit comes from a bitmask per digit
//   (bits set with atomicOr, whose result does not depend on order), so the scatter is
//   stable and the same on every run. Where the adapter's subgroups allow, `scatter_sg`
//   (shaders/radix_sg.wgsl, included only into its own kernel) ranks by subgroup ballots
//   and writes each round's runs of one digit together, through workgroup memory.
// - `finish`: one invocation per element. 1 records; 4 the index plane modulo the row
//   length (indices within each row).
// - `bitonic`: one workgroup per row of at most PMAX elements (PMAX a power of two). 1 the
//   input's words; 4 the indices within each row. Pads to a power of two with keys above
//   every key; compares (key, index), so equal keys keep their input order (stable).
// - `tile_top` (top_k's selection): one workgroup per tile of PMAX elements of a row,
//   `tiles()` tiles a row, rows of `row_len()` elements, `rec_n()` in all. 1 the input's
//   words, or (`from_records()`) the records of a previous round (W key planes and an
//   index plane of `rec_n()` words, keys already in the order asked for); 4 records of
//   the tile's `count_n()` (k) first elements by (key, index within the row), tile g's at
//   g * k, in planes of rows * tiles() * k words. The tile is sorted by the bitonic
//   network in workgroup memory; rounds repeat until one tile holds a row's candidates.
// - `take`: one invocation per output word. 1 the input's words (rows of `row_len()`);
//   2 indices within rows (rows of `out_row()`); 4 the values, out[r, i] = in[r, idx[r, i]]
//   (f16: two elements per word).
// - `search`: one invocation per query. 1 the sorted input's words; 2 the queries' words;
//   4 the insertion points (binary search over keys: NaN queries go after every number).
// - `flags`: one invocation per element e of 0..=rec_n() (unique). 1 the sorted input's
//   words; 4 out[e] = 1 where element e starts a run of equal keys (e = 0, or its key
//   differs from element e - 1's: all NaNs are one key, -0 and +0 one key), else 0, and 0
//   at e = rec_n(), so that the exclusive scan of the rec_n() + 1 flags (`scan_*`) ends
//   with the number of runs.
// - `run_starts`: one invocation per element. 1 the sorted words; 2 the scanned flags;
//   4 out[r] = the first element of run r, and out[runs] = rec_n().
// - `inverse`: one invocation per element. 1 the sorted words; 2 the scanned flags; 3 the
//   indices that sorted them; 4 out[c[e]] = the run of sorted element e.
//
// Digits: pass `pass_word()` < W takes 8 bits at `pass_shift()` of that key word; pass
// word W takes them of the row number (index / row length), so that LSD passes over the
// key words and then the row number sort many long rows at once.

#import params
#import sort_keys

alias S = u32;
alias SC = u32;

override WG: u32 = 256u;
override W: u32 = 1u;      // key words per element
override CARRY: u32 = 1u;  // 1: the records carry an index plane
const ITEMS: u32 = 16u;    // chunks of WG elements per tile (the host's `ITEMS`)
const SCAN_ITEMS: u32 = 4u;  // counts per invocation of `scan_reduce`/`scan_down` (`SCAN_ITEMS`)
override PMAX: u32 = 1024u; // bitonic: the longest row, a power of two
// 1: the passes of one row of 8-byte keys read the pass table of shaders/radix64.wgsl
// (from word 256 * tiles() of the counts): `hist` and `scatter_sg` of slot `P.aux.x`
// return at once where the slot is dead, else take its word and shift (`keys_skip`
// writes their records).
override SKIP: u32 = 0u;
// 1: the onesweep form of shaders/radix64.wgsl's keys-only sort (its scratch layout,
// `tab_at()`, and the kernels `os_hist64` and `scatter64_os`).
override OS64: u32 = 0u;

@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read> c: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

// Parameter accessors, mirroring `SortParams` in src/ops/sort/params.rs.
fn rec_n() -> u32 { return P.n; }          // elements (all rows)
fn row_len() -> u32 { return P.offs.y; }   // elements per row
fn in_off() -> u32 { return P.offs.x; }    // element offset of the input
fn src_off() -> u32 { return P.offs.x; }   // hist, scatter: element offset of the records
fn tiles() -> u32 { return P.offs.z; }     // tiles of hist / scatter
fn count_n() -> u32 { return P.offs.w; }   // counts (scans), or padded row length (bitonic)
fn pass_word() -> u32 { if (SKIP == 1u) { return live_pass.x; } return P.aux.x; }
fn pass_shift() -> u32 { if (SKIP == 1u) { return live_pass.y; } return P.aux.y; }
fn descending() -> bool { return P.ndim == 1u; } // keys, bitonic: largest first
fn out_row() -> u32 { return P.offs.z; }        // take: output elements per row
fn q_off() -> u32 { return P.offs.z; }          // search: element offset of the queries
fn side_right() -> bool { return P.aux.y == 1u; } // search: NumPy's side="right"
fn from_records() -> bool { return P.aux.x == 1u; } // tile_top: read candidate records

// key_u32, key_i32, key_f32, key_f16, key_f64, key_i64, key_u64: shaders/shared/sort_keys.wgsl (imported).
// Half h (counted in halves from the buffer's start) of the input.
fn half_at(h: u32) -> u32 { return (a[h >> 1u] >> ((h & 1u) * 16u)) & 0xffffu; }

// The key of input element e (offset included by the caller), and of query element e
// (in `b`); replaced per dtype.
fn key_of(e: u32) -> vec2<u32> { return key_u32(a[e]); }
fn key_q(e: u32) -> vec2<u32> { return key_u32(b[e]); }
// The key of a 32-bit value given as its word (the values-only records); replaced per dtype.
fn key_w(w: u32) -> vec2<u32> { return key_u32(w); }
// The key of an 8-byte value given as its two words (shaders/radix64.wgsl); replaced per dtype.
fn key_w2(lo: u32, hi: u32) -> vec2<u32> { return key_u64(lo, hi); }
fn half_q(h: u32) -> u32 { return (b[h >> 1u] >> ((h & 1u) * 16u)) & 0xffffu; }

// The key in the order asked for: every key word inverted for largest first (ties keep
// their input order: the index still breaks them upwards).
fn sort_key(e: u32) -> vec2<u32> { return ordered(key_of(e)); }
fn ordered(k: vec2<u32>) -> vec2<u32> {
    if (!descending()) { return k; }
    if (W == 1u) { return vec2<u32>(~k.x, 0u); }
    return ~k;
}
// Output word w of `take`, from element `src(i)` of the input; replaced per dtype.
fn take_word(w: u32) -> u32 { return a[src(w)]; }

// The input element (offset included) that output element i of `take` copies.
fn src(i: u32) -> u32 {
    return in_off() + (i / out_row()) * row_len() + b[i];
}
// Word w of the gathered 8-byte values (f64, i64, u64).
fn take_f64(w: u32) -> u32 { return a[2u * src(w >> 1u) + (w & 1u)]; }
fn take_f16(w: u32) -> u32 {
    let i = 2u * w;
    var v = half_at(src(i));
    if (i + 1u < rec_n()) { v |= half_at(src(i + 1u)) << 16u; }
    return v;
}

// SKIP: the word and shift of this slot's live pass (`slot_live`).
var<private> live_pass: vec2<u32>;
var<workgroup> skipw: u32;

// SKIP: whether this slot's pass is live, from its table entry `ent` (read by invocation 0
// and shared: every invocation calls it); sets `live_pass`.
fn slot_live(lid: u32, ent: u32) -> bool {
    if (lid == 0u) { skipw = ent; }
    let e = workgroupUniformLoad(&skipw);
    live_pass = vec2<u32>((e & 63u) / 32u, e & 31u);
    return e != 0xffffffffu;
}

fn sub64(p: vec2<u32>, q: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(p.x - q.x, p.y - q.y - select(0u, 1u, p.x < q.x));
}

// Writes the records of element e with key k.
fn write_keys(e: u32, k: vec2<u32>) {
    let n = rec_n();
    out[e] = k.x;
    if (W == 2u) { out[n + e] = k.y; }
    if (CARRY == 1u) { out[W * n + e] = e; }
}

@compute @workgroup_size(WG)
fn keys(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    if (e >= rec_n()) { return; }
    write_keys(e, sort_key(in_off() + e));
}

// `keys` of one row of 8-byte keys whose passes skip (shaders/radix64.wgsl): 2 the table.
// Written only where the first live slot reads (`P.aux.x`: the parity of the live passes),
// less the least key in the table's form 1.
@compute @workgroup_size(WG)
fn keys_skip(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    let at = 256u * tiles();
    if (e >= rec_n() || (b[at + 11u] & 1u) != P.aux.x) { return; }
    var k = sort_key(in_off() + e);
    if (b[at + 8u] == 1u) { k = sub64(k, vec2<u32>(b[at + 9u], b[at + 10u])); }
    write_keys(e, k);
}

// Digit of record e of `a` in this pass (records of values alone: of the value's key).
fn digit(e: u32) -> u32 { return digit_at(e, pass_word(), pass_shift()); }

// Digit of record e of `a` at bit `shift` of key word `w` (W: of the row number).
fn digit_at(e: u32, w: u32, shift: u32) -> u32 { return word_digit(digit_word(e, w), w, shift); }

// The word of record e that a digit of key word `w` is taken of: the value itself (records
// of values alone), else plane w (W: the index plane).
fn digit_word(e: u32, w: u32) -> u32 {
    if (CARRY == 0u) { return a[src_off() + e]; }
    return a[w * rec_n() + e];
}

// The digit at bit `shift` of key word `w`, of the record's word `x` (from `digit_word`).
fn word_digit(x: u32, w: u32, shift: u32) -> u32 {
    if (CARRY == 0u) { return (ordered(key_w(x)).x >> shift) & 255u; }
    if (w == W) { return ((x / row_len()) >> shift) & 255u; }
    return (x >> shift) & 255u;
}

fn tile_id(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.y * nwg.x + wid.x; }

var<workgroup> bins: array<atomic<u32>, 256>;

@compute @workgroup_size(WG)
fn hist(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tile_id(wid, nwg);
    if (SKIP == 1u) {
        var ent = 0u;
        if (lid == 0u) { ent = out[256u * tiles() + P.aux.x]; }
        if (!slot_live(lid, ent)) { return; }
    }
    for (var d = lid; d < 256u; d += WG) { atomicStore(&bins[d], 0u); }
    workgroupBarrier();
    let n = rec_n();
    let start = t * WG * ITEMS;
    if (t < tiles()) {
        // Every load first (clamped: none waits on a branch), then the counts.
        let last = max(n, 1u) - 1u;
        let w = pass_word();
        let shift = pass_shift();
        var x: array<u32, ITEMS>;
        // unroll
        for (var c = 0u; c < ITEMS; c++) { x[c] = digit_word(min(start + c * WG + lid, last), w); }
        // unroll
        for (var c = 0u; c < ITEMS; c++) {
            if (start + c * WG + lid < n) { atomicAdd(&bins[word_digit(x[c], w, shift)], 1u); }
        }
    }
    workgroupBarrier();
    if (t < tiles()) {
        for (var d = lid; d < 256u; d += WG) { out[d * tiles() + t] = atomicLoad(&bins[d]); }
    }
}

var<workgroup> sh: array<u32, WG>;

// Exclusive scan of v over the workgroup (every invocation must call it); the total in
// `sh[WG - 1]` after it returns, until the next call.
fn wg_scan(lid: u32, v: u32) -> u32 {
    sh[lid] = v;
    for (var off = 1u; off < WG; off <<= 1u) {
        workgroupBarrier();
        var t = 0u;
        if (lid >= off) { t = sh[lid - off]; }
        workgroupBarrier();
        sh[lid] += t;
    }
    workgroupBarrier();
    return sh[lid] - v;
}

@compute @workgroup_size(WG)
fn scan_reduce(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let blk = tile_id(wid, nwg);
    let m = count_n();
    let base = (blk * WG + lid) * SCAN_ITEMS;
    var s = 0u;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        if (base + k < m) { s += a[base + k]; }
    }
    let ex = wg_scan(lid, s);
    if (lid == WG - 1u) { out[blk] = ex + s; }
}

@compute @workgroup_size(WG)
fn scan_top(@builtin(local_invocation_index) lid: u32) {
    // Invocation lid takes the `per` consecutive sums from lid * per: one workgroup scan.
    let m = count_n();
    let per = (m + WG - 1u) / WG;
    let base = lid * per;
    var s = 0u;
    for (var k = 0u; k < per; k++) {
        if (base + k < m) { s += out[base + k]; }
    }
    var run = wg_scan(lid, s);
    for (var k = 0u; k < per; k++) {
        if (base + k < m) {
            let v = out[base + k];
            out[base + k] = run;
            run += v;
        }
    }
}

@compute @workgroup_size(WG)
fn scan_down(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let blk = tile_id(wid, nwg);
    let m = count_n();
    let base = (blk * WG + lid) * SCAN_ITEMS;
    var v: array<u32, SCAN_ITEMS>;
    var s = 0u;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        v[k] = 0u;
        if (base + k < m) { v[k] = out[base + k]; }
        s += v[k];
    }
    var run = a[blk] + wg_scan(lid, s);
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        if (base + k < m) { out[base + k] = run; }
        run += v[k];
    }
}

// Scatter: bit masks of the chunk's elements per digit (WG / 32 words per digit), and the
// next free slot per digit.
var<workgroup> masks: array<atomic<u32>, 256u * (WG / 32u)>;
var<workgroup> slot: array<u32, 256>;

@compute @workgroup_size(WG)
fn scatter(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tile_id(wid, nwg);
    let n = rec_n();
    let words = WG / 32u;
    let live = t < tiles();
    for (var d = lid; d < 256u; d += WG) {
        if (live) { slot[d] = b[d * tiles() + t]; }
    }
    let start = t * WG * ITEMS;
    for (var c = 0u; c < ITEMS; c++) {
        for (var k = lid; k < 256u * words; k += WG) { atomicStore(&masks[k], 0u); }
        workgroupBarrier();
        let e = start + c * WG + lid;
        let valid = live && e < n;
        var d = 0u;
        if (valid) {
            d = digit(e);
            atomicOr(&masks[d * words + lid / 32u], 1u << (lid % 32u));
        }
        workgroupBarrier();
        if (valid) {
            var rank = countOneBits(atomicLoad(&masks[d * words + lid / 32u]) & ((1u << (lid % 32u)) - 1u));
            for (var q = 0u; q < lid / 32u; q++) { rank += countOneBits(atomicLoad(&masks[d * words + q])); }
            let dst = slot[d] + rank;
            for (var j = 0u; j < W + CARRY; j++) { out[j * n + dst] = a[src_off() + j * n + e]; }
        }
        workgroupBarrier();
        for (var dd = lid; dd < 256u; dd += WG) {
            var cnt = 0u;
            for (var q = 0u; q < words; q++) { cnt += countOneBits(atomicLoad(&masks[dd * words + q])); }
            slot[dd] += cnt;
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    let n = rec_n();
    if (e >= n) { return; }
    out[e] = a[W * n + e] % row_len();
}

var<workgroup> k0: array<u32, PMAX>;
var<workgroup> k1: array<u32, PMAX>;
var<workgroup> ix: array<u32, PMAX>;

// Whether slot i sorts after slot j: by key words, then by index.
fn after(i: u32, j: u32) -> bool {
    if (k1[i] != k1[j]) { return k1[i] > k1[j]; }
    if (k0[i] != k0[j]) { return k0[i] > k0[j]; }
    return ix[i] > ix[j];
}

// The bitonic network over the first p (a power of two) slots of k0, k1, ix: ascending by
// (key, index). Every invocation of the workgroup must call it.
fn bitonic_net(lid: u32, p: u32) {
    workgroupBarrier();
    for (var k = 2u; k <= p; k <<= 1u) {
        for (var j = k >> 1u; j > 0u; j >>= 1u) {
            for (var t = lid; t < p / 2u; t += WG) {
                let i = (t / j) * 2u * j + (t % j);
                let o = i + j;
                if (after(i, o) == ((i & k) == 0u)) {
                    let a0 = k0[i]; k0[i] = k0[o]; k0[o] = a0;
                    let a1 = k1[i]; k1[i] = k1[o]; k1[o] = a1;
                    let ai = ix[i]; ix[i] = ix[o]; ix[o] = ai;
                }
            }
            workgroupBarrier();
        }
    }
}

@compute @workgroup_size(WG)
fn bitonic(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = tile_id(wid, nwg);
    let l = row_len();
    let p = count_n();
    let live = row < tiles();
    for (var i = lid; i < p; i += WG) {
        var k = vec2<u32>(0xffffffffu, 0xffffffffu);
        if (live && i < l) { k = sort_key(in_off() + row * l + i); }
        k0[i] = k.x;
        k1[i] = k.y;
        ix[i] = i;
    }
    bitonic_net(lid, p);
    if (live) {
        for (var i = lid; i < l; i += WG) { out[row * l + i] = ix[i]; }
    }
}

@compute @workgroup_size(WG)
fn tile_top(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = tile_id(wid, nwg);
    let l = row_len();
    let rows = rec_n() / l;
    let tpr = tiles();
    let k = count_n();
    let live = g < rows * tpr;
    let row = g / tpr;
    let base = (g % tpr) * PMAX;
    for (var i = lid; i < PMAX; i += WG) {
        var key = vec2<u32>(0xffffffffu, 0xffffffffu);
        var idx = 0xffffffffu;
        let pos = base + i;
        if (live && pos < l) {
            let c = row * l + pos;
            if (from_records()) {
                key = vec2<u32>(a[c], 0u);
                if (W == 2u) { key.y = a[rec_n() + c]; }
                idx = a[W * rec_n() + c];
            } else {
                key = sort_key(in_off() + c);
                idx = pos;
            }
        }
        k0[i] = key.x;
        k1[i] = key.y;
        ix[i] = idx;
    }
    bitonic_net(lid, PMAX);
    if (live) {
        let m = rows * tpr * k;
        for (var i = lid; i < k; i += WG) {
            let o = g * k + i;
            out[o] = k0[i];
            if (W == 2u) { out[m + o] = k1[i]; }
            out[W * m + o] = ix[i];
        }
    }
}

@compute @workgroup_size(WG)
fn take(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = linear_id(wid, nwg, lid, WG);
    if (w >= count_n()) { return; }
    out[w] = take_word(w);
}

// Whether key p sorts before key q.
fn key_less(p: vec2<u32>, q: vec2<u32>) -> bool {
    return p.y < q.y || (p.y == q.y && p.x < q.x);
}

@compute @workgroup_size(WG)
fn search(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    if (e >= rec_n()) { return; }
    let q = key_q(q_off() + e);
    var lo = 0u;
    var hi = row_len();
    while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        let k = key_of(in_off() + mid);
        var go_right = key_less(k, q);
        if (side_right()) { go_right = !key_less(q, k); }
        if (go_right) { lo = mid + 1u; } else { hi = mid; }
    }
    out[e] = lo;
}

// Whether sorted element e starts a run of equal keys.
fn starts_run(e: u32) -> bool {
    if (e == 0u) { return true; }
    return any(key_of(in_off() + e) != key_of(in_off() + e - 1u));
}

@compute @workgroup_size(WG)
fn flags(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    let n = rec_n();
    if (e > n) { return; }
    out[e] = select(0u, 1u, e < n && starts_run(e));
}

// unique of 32-bit values in two passes over the sorted elements, no flag array: tiles of
// WG * ITEMS elements (`tiles()` of them), invocation lid of tile t taking the ITEMS
// consecutive elements from (t * WG + lid) * ITEMS. `run_count` writes each tile's count of
// run starts to out[t] (and out[tiles()] = 0, so that the exclusive scan of the tiles+1
// words ends with the total); `run_write` (b: that scan) writes each start's value to
// out[b[t] + its rank in the tile], the ranks from a workgroup scan of the invocations'
// counts, so the values keep their order.
fn tile_starts(t: u32, lid: u32) -> u32 {
    let n = rec_n();
    let first = (t * WG + lid) * ITEMS;
    var c = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        let e = first + k;
        if (e < n && starts_run(e)) { c++; }
    }
    return c;
}

@compute @workgroup_size(WG)
fn run_count(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tile_id(wid, nwg);
    let live = t < tiles();
    var c = 0u;
    if (live) { c = tile_starts(t, lid); }
    let before = wg_scan(lid, c);
    if (live && lid == WG - 1u) { out[t] = before + c; }
    if (t == 0u && lid == 0u) { out[tiles()] = 0u; }
}

@compute @workgroup_size(WG)
fn run_write(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tile_id(wid, nwg);
    let live = t < tiles();
    var c = 0u;
    if (live) { c = tile_starts(t, lid); }
    var j = wg_scan(lid, c);
    if (!live || c == 0u) { return; }
    j += b[t];
    let n = rec_n();
    let first = (t * WG + lid) * ITEMS;
    for (var k = 0u; k < ITEMS; k++) {
        let e = first + k;
        if (e < n && starts_run(e)) {
            out[j] = a[in_off() + e];
            j++;
        }
    }
}

@compute @workgroup_size(WG)
fn run_starts(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    let n = rec_n();
    if (e >= n) { return; }
    if (starts_run(e)) { out[b[e]] = e; }
    if (e == n - 1u) { out[b[n]] = n; }
}

@compute @workgroup_size(WG)
fn inverse(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(wid, nwg, lid, WG);
    if (e >= rec_n()) { return; }
    out[c[e]] = select(b[e] - 1u, b[e], starts_run(e));
}
