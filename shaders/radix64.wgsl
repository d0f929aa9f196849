// Keys-only radix sort of 8-byte values (f64, i64, u64), included after shaders/radix_sg.wgsl
// into shaders/sort.wgsl for its own kernels (their rank and staging helpers are used here).
// Host: src/ops/sort/radix64.rs.
//
// The records are the values themselves, two words an element (low word first, element e
// at words 2e, 2e + 1): every digit is taken of the value's key (`key_w2`, per dtype: NaNs
// last, -0 and +0 one key), so the first live pass reads the input and the last writes the
// sorted values, with no key, index or gather pass: 16 bytes moved an element a pass (and 8
// read by its histogram) against the 28 + 4 of key-index records.
//
// Pass skipping. `k64_reduce` and `k64_plan` first find, in one read of the input, the
// least, the greatest, the bitwise OR and the bitwise AND of the keys. A byte of the key
// whose OR and AND agree is the same in every key: its pass would not move anything. And
// where the keys span a narrow range (max - min below 2^(8j)), the keys less the least key
// have only j live low bytes (above the constant low bytes): the plan takes whichever form
// leaves fewer passes (`key - min` orders as `key`, equal keys stay equal). The passes the
// host launches (slots 0..NSLOT) read the plan's table: slot i performs live pass
// i - (NSLOT - k) of the k live ones, in ascending byte order, and the slots before those
// return at once. Slot i writes to the output where NSLOT - 1 - i is even, else to the
// scratch, and the first live slot reads the input: so the last slot always writes the
// output, whatever k is (k is at least 1: with no live byte, byte 0 is sorted, a stable
// copy).
//
// The table (in the counts buffer, from word `tab_at()` = 256 * tiles()): words 0..8 one per
// slot (DEAD, or the pass's shift | FIRST where the slot reads the input), word 8 the form
// (1: digits of key - min), words 9, 10 the least key, word 11 the live passes k, word 12
// 1 where the digits may be read off the plain key (`digit_plain`: form 0, ascending, no
// NaN and no -0.0 among the values, and `k64_plan`'s `pass_word()` 0); the reduction's
// partials follow from word TAB_WORDS, PART_W words a workgroup (least and greatest key,
// OR, AND, and 1 where a key is not its plain key).
//
// Entry points (bindings as shaders/sort.wgsl's: 1..3 inputs, 4 the output):
// - `k64_reduce`: grid-stride workgroups of WG over the elements. 1 the input (`a2`, element
//   offset `in_off()`); 4 the counts buffer: each workgroup's least and greatest key, OR
//   and AND (8 words) at its partial slot.
// - `k64_plan`: one workgroup of WG. 4 the counts buffer: the `count_n()` partials reduced
//   and the table written.
// - `hist64`: as `hist` (tiles of WG * ITEMS). 1 the previous slot's records; 3 the input
//   (2: the input again, unused); 4 the counts buffer (its table read, the counts written).
//   `pass_word()` is the slot.
// - `scatter64`: as `scatter_sg` staged (tiles of WG * SG_STEPS * ROUNDS). 1 the previous
//   slot's records; 2 the scanned counts and the table; 3 the input; 4 this slot's records.
//   A round's entries are staged in workgroup memory both words at once (`stg`, `stg2`),
//   then written as runs of one digit.
//   With FULL (shaders/radix_sg.wgsl), a round whose lanes all hold elements (all but a
//   sort's last) ranks without the ballot of `valid` (`rank_digit_full`).
// - `scatter64s` (the default): rounds of S64 = 8 keys an invocation, below with its reasons.
// The onesweep kernels (`os_hist64`, `scatter64_os`, `scatter64_pairs`) are in
// shaders/radix64_os.wgsl.

// The records, the input and the output as 8-byte words (the bindings of `a`, `c` and
// `out`): one 8-byte access an element where two 4-byte ones would be issued.
@group(0) @binding(1) var<storage, read> a2: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> c2: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> out2: array<vec2<u32>>;

const DEAD: u32 = 0xffffffffu;
const FIRST: u32 = 0x100u;
const TAB_WORDS: u32 = 16u;
// Words of a partial of `k64_reduce` (the host's `PART_WORDS`).
const PART_W: u32 = 9u;

var<workgroup> tabw: u32;
var<workgroup> stg2: array<u32, WG * SG_STEPS>;
var<workgroup> red_mm: array<vec4<u32>, WG>;
var<workgroup> red_oa: array<vec4<u32>, WG>;
// Whether some key of the workgroup's (`k64_reduce`) or of the partials (`k64_plan`) is not
// its plain key (`plain_key`: a NaN or -0.0).
var<workgroup> odd_keys: atomic<u32>;

fn tab_at() -> u32 {
    if (OS64 == 1u) { return OS_PL + 512u * tiles(); }
    return 256u * tiles();
}

fn less64(p: vec2<u32>, q: vec2<u32>) -> bool { return p.y < q.y || (p.y == q.y && p.x < q.x); }

// The element's key in the order asked for (from its two words).
fn key64(lo: u32, hi: u32) -> vec2<u32> { return ordered(key_w2(lo, hi)); }

// The digit of the pass (shift 0..56) of the key, less `kmin` in form 1.
fn digit64(lo: u32, hi: u32, shift: u32, form: u32, kmin: vec2<u32>) -> u32 {
    var k = key64(lo, hi);
    if (form == 1u) { k = sub64(k, kmin); }
    if (shift >= 32u) { return (k.y >> (shift - 32u)) & 255u; }
    return (k.x >> shift) & 255u;
}

// The key of an element as its words with the sign flips alone: the words xor `FLIP_POS`
// (high word's top bit clear) or `FLIP_NEG` (set), the flips of the dtype's `key_w2` read
// off two probe values (constants once the driver folds them): f64 (0, 2^31) and all ones,
// i64 (0, 2^31) both, u64 none. It equals `key_w2` for every i64 and u64, and for every
// f64 but NaN and -0.0 (whose keys `key_w2` merges).
fn flip_pos() -> vec2<u32> { return key_w2(0u, 0x40000000u) ^ vec2<u32>(0u, 0x40000000u); }
fn flip_neg() -> vec2<u32> { return key_w2(0u, 0xc0000000u) ^ vec2<u32>(0u, 0xc0000000u); }
fn plain_key(lo: u32, hi: u32) -> vec2<u32> {
    return vec2<u32>(lo, hi) ^ select(flip_pos(), flip_neg(), hi >= 0x80000000u);
}

// The pass's digit by the plain key (where the table's word 12 allows it: it then equals
// `digit64`): `pd` from `plain_pass` (the half, its flips for both signs, the shift in it).
// One word is read, xor-ed and shifted: no NaN, -0.0 or form tests.
fn digit_plain(lo: u32, hi: u32, pd: vec4<u32>) -> u32 {
    let w = select(lo, hi, pd.x == 1u);
    return ((w ^ select(pd.y, pd.z, hi >= 0x80000000u)) >> pd.w) & 255u;
}
fn plain_pass(shift: u32) -> vec4<u32> {
    let h = select(0u, 1u, shift >= 32u);
    let fp = select(flip_pos().x, flip_pos().y, h == 1u);
    let fneg = select(flip_neg().x, flip_neg().y, h == 1u);
    return vec4<u32>(h, fp, fneg, shift & 31u);
}

// Combines the least/greatest (`mm`: min.xy, max.xy) and OR/AND (`oa`) of two sets.
fn mm_join(p: vec4<u32>, q: vec4<u32>) -> vec4<u32> {
    let lo = select(p.xy, q.xy, less64(q.xy, p.xy));
    let hi = select(p.zw, q.zw, less64(p.zw, q.zw));
    return vec4<u32>(lo, hi);
}
fn oa_join(p: vec4<u32>, q: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(p.xy | q.xy, p.zw & q.zw);
}
const MM_NONE: vec4<u32> = vec4<u32>(0xffffffffu, 0xffffffffu, 0u, 0u);
const OA_NONE: vec4<u32> = vec4<u32>(0u, 0u, 0xffffffffu, 0xffffffffu);

// Reduces each invocation's (mm, oa) over the workgroup (every invocation calls it): the
// result in red_mm[0], red_oa[0] after it returns.
fn wg_join(lid: u32, mm: vec4<u32>, oa: vec4<u32>) {
    red_mm[lid] = mm;
    red_oa[lid] = oa;
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        workgroupBarrier();
        if (lid < s) {
            red_mm[lid] = mm_join(red_mm[lid], red_mm[lid + s]);
            red_oa[lid] = oa_join(red_oa[lid], red_oa[lid + s]);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn k64_reduce(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = tile_id(wid, nwg);
    let stride = nwg.x * nwg.y * WG;
    let n = rec_n();
    let base = in_off();
    var mm = MM_NONE;
    var oa = OA_NONE;
    var odd = false;
    if (lid == 0u) { atomicStore(&odd_keys, 0u); }
    workgroupBarrier();
    for (var e = g * WG + lid; e < n; e += stride) {
        let w = a2[base + e];
        let k = key64(w.x, w.y);
        mm = mm_join(mm, vec4<u32>(k, k));
        oa = oa_join(oa, vec4<u32>(k, k));
        odd = odd || any(key_w2(w.x, w.y) != plain_key(w.x, w.y));
    }
    if (odd) { atomicOr(&odd_keys, 1u); }
    wg_join(lid, mm, oa);
    if (lid == 0u) {
        let at = tab_at() + TAB_WORDS + g * PART_W;
        let m = red_mm[0];
        let o = red_oa[0];
        out[at] = m.x; out[at + 1u] = m.y; out[at + 2u] = m.z; out[at + 3u] = m.w;
        out[at + 4u] = o.x; out[at + 5u] = o.y; out[at + 6u] = o.z; out[at + 7u] = o.w;
        out[at + 8u] = atomicLoad(&odd_keys);
    }
}

// The bytes of a 64-bit value that are not zero, as a mask of 8 bits.
fn nonzero_bytes(v: vec2<u32>) -> u32 {
    var m = 0u;
    for (var j = 0u; j < 8u; j++) {
        let w = select(v.x, v.y, j >= 4u);
        if (((w >> ((j % 4u) * 8u)) & 255u) != 0u) { m |= 1u << j; }
    }
    return m;
}

@compute @workgroup_size(WG)
fn k64_plan(@builtin(local_invocation_index) lid: u32) {
    let parts = count_n();
    let at = tab_at();
    var mm = MM_NONE;
    var oa = OA_NONE;
    var odd = 0u;
    if (lid == 0u) { atomicStore(&odd_keys, 0u); }
    workgroupBarrier();
    for (var g = lid; g < parts; g += WG) {
        let p = at + TAB_WORDS + g * PART_W;
        mm = mm_join(mm, vec4<u32>(out[p], out[p + 1u], out[p + 2u], out[p + 3u]));
        oa = oa_join(oa, vec4<u32>(out[p + 4u], out[p + 5u], out[p + 6u], out[p + 7u]));
        odd |= out[p + 8u];
    }
    if (odd != 0u) { atomicOr(&odd_keys, 1u); }
    wg_join(lid, mm, oa);
    if (lid != 0u) { return; }
    let m = red_mm[0];
    let o = red_oa[0];
    // Form 0: the bytes where the keys differ.
    let live0 = nonzero_bytes(o.xy ^ o.zw);
    // Form 1: key - min, whose bytes above the span's top byte are zero and whose bytes
    // below the lowest varying byte are zero too.
    let span = nonzero_bytes(sub64(m.zw, m.xy));
    var live1 = 0u;
    if (span != 0u && live0 != 0u) {
        let top = firstLeadingBit(span);
        let low = firstTrailingBit(live0);
        for (var j = low; j <= top; j++) { live1 |= 1u << j; }
    }
    let form = select(0u, 1u, countOneBits(live1) < countOneBits(live0));
    var live = select(live0, live1, form == 1u);
    if (live == 0u) { live = 1u; }
    let k = countOneBits(live);
    let nslot = 8u;
    var j = 0u;
    for (var i = 0u; i < nslot; i++) {
        if (i < nslot - k) {
            out[at + i] = DEAD;
        } else {
            while (((live >> j) & 1u) == 0u) { j++; }
            out[at + i] = j * 8u | select(0u, FIRST, i == nslot - k);
            j++;
        }
    }
    out[at + 8u] = form;
    out[at + 11u] = k;
    // Plain digits: form 0, every key its value's bits with the sign flips alone (no NaN,
    // no -0.0), and not forbidden by the host (`pass_word()` 1: the measuring switch).
    let plain = form == 0u && atomicLoad(&odd_keys) == 0u && !descending() && pass_word() == 0u;
    out[at + 12u] = select(0u, 1u, plain);
    out[at + 9u] = m.x;
    out[at + 10u] = m.y;
}

// Element e's two words: of the input (`c`, from `in_off()`) for the first live slot, else
// of the previous slot's records (`a`).
fn rec64(e: u32, first: bool) -> vec2<u32> {
    if (first) { return c2[in_off() + e]; }
    return a2[e];
}

@compute @workgroup_size(WG)
fn hist64(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = tile_id(wid, nwg);
    if (lid == 0u) { tabw = out[tab_at() + pass_word()]; }
    let ent = workgroupUniformLoad(&tabw);
    if (ent == DEAD) { return; }
    let first = (ent & FIRST) != 0u;
    let shift = ent & 63u;
    let form = out[tab_at() + 8u];
    let kmin = vec2<u32>(out[tab_at() + 9u], out[tab_at() + 10u]);
    for (var d = lid; d < 256u; d += WG) { atomicStore(&bins[d], 0u); }
    workgroupBarrier();
    let n = rec_n();
    let start = t * WG * ITEMS;
    if (t < tiles()) {
        // Every load first (clamped: none waits on a branch), then the counts.
        let last = max(n, 1u) - 1u;
        var x: array<vec2<u32>, ITEMS>;
        // unroll
        for (var q = 0u; q < ITEMS; q++) { x[q] = rec64(min(start + q * WG + lid, last), first); }
        if (out[tab_at() + 12u] == 1u) {
            let pd = plain_pass(shift);
            // unroll
            for (var q = 0u; q < ITEMS; q++) {
                if (start + q * WG + lid < n) {
                    atomicAdd(&bins[digit_plain(x[q].x, x[q].y, pd)], 1u);
                }
            }
        } else {
            // unroll
            for (var q = 0u; q < ITEMS; q++) {
                if (start + q * WG + lid < n) {
                    atomicAdd(&bins[digit64(x[q].x, x[q].y, shift, form, kmin)], 1u);
                }
            }
        }
    }
    workgroupBarrier();
    if (t < tiles()) {
        for (var d = lid; d < 256u; d += WG) { out[d * tiles() + t] = atomicLoad(&bins[d]); }
    }
}

@compute @workgroup_size(WG)
fn scatter64(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_id) sg: u32,
             @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
             @builtin(num_subgroups) nsg: u32) {
    let t = tile_id(wid, nwg);
    if (lid == 0u) { tabw = b[tab_at() + pass_word()]; }
    let ent = workgroupUniformLoad(&tabw);
    if (ent == DEAD) { return; }
    let first = (ent & FIRST) != 0u;
    let shift = ent & 63u;
    let form = b[tab_at() + 8u];
    let kmin = vec2<u32>(b[tab_at() + 9u], b[tab_at() + 10u]);
    let plain = b[tab_at() + 12u] == 1u;
    let pd = plain_pass(shift);
    let n = rec_n();
    let last = max(n, 1u) - 1u;
    let live = t < tiles();
    for (var d = lid; d < 256u; d += WG) {
        if (live) { slot[d] = b[d * tiles() + t]; }
    }
    let below = lanes_below(lane);
    let lanes = subgroupBallot(true);
    let ids = vec4<u32>(lid, sg, lane, sz);
    for (var r = 0u; r < ROUNDS; r++) {
        for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
        workgroupBarrier();
        let round0 = (t * ROUNDS + r) * WG * SG_STEPS;
        let at0 = round0 + sg * sz * SG_STEPS + lane;
        var kx: array<vec2<u32>, SG_STEPS>;
        var dr: array<u32, SG_STEPS>;
        // unroll
        for (var i = 0u; i < SG_STEPS; i++) { kx[i] = rec64(min(at0 + i * sz, last), first); }
        // The digits first (plain ones where the table allows: GPUARRAY_SORT64_SCATTER=3).
        if (plain) {
            // unroll
            for (var i = 0u; i < SG_STEPS; i++) { dr[i] = digit_plain(kx[i].x, kx[i].y, pd); }
        } else {
            // unroll
            for (var i = 0u; i < SG_STEPS; i++) { dr[i] = digit64(kx[i].x, kx[i].y, shift, form, kmin); }
        }
        if (FULL == 1u && live && n - min(n, round0) >= WG * SG_STEPS) {
            // unroll
            for (var i = 0u; i < SG_STEPS; i++) { dr[i] = rank_digit_full(dr[i], below, sg, lanes); }
        } else {
            // unroll
            for (var i = 0u; i < SG_STEPS; i++) {
                let valid = live && at0 + i * sz < n;
                dr[i] = rank_digit(valid, dr[i], below, lane, sg);
            }
        }
        workgroupBarrier();
        stage_slots(ids, nsg);
        workgroupBarrier();
        to_slots(sg, &dr);
        // unroll
        for (var i = 0u; i < SG_STEPS; i++) {
            let p = dr[i];
            if (p != NONE) { stg[p] = kx[i].x; stg2[p] = kx[i].y; }
        }
        workgroupBarrier();
        let cnt = min(n - min(n, round0), WG * SG_STEPS);
        if (plain) {
            // unroll
            for (var q = 0u; q < SG_STEPS; q++) {
                let e = q * WG + lid;
                let ec = min(e, WG * SG_STEPS - 1u);
                let lo = stg[ec];
                let hi = stg2[ec];
                if (e < cnt) { out2[gofs[digit_plain(lo, hi, pd)] + e] = vec2<u32>(lo, hi); }
            }
        } else {
            // unroll
            for (var q = 0u; q < SG_STEPS; q++) {
                let e = q * WG + lid;
                let ec = min(e, WG * SG_STEPS - 1u);
                let lo = stg[ec];
                let hi = stg2[ec];
                if (e < cnt) {
                    let dst = gofs[digit64(lo, hi, shift, form, kmin)] + e;
                    out2[dst] = vec2<u32>(lo, hi);
                }
            }
        }
        workgroupBarrier();
    }
}

// ---- `scatter64s` (the default; `GPUARRAY_SORT64_SCATTER`, src/ops/sort/radix64.rs): the
// rounds of `scatter64` with S64 = 8 keys an invocation (not SG_STEPS = 16), so that the
// keys held (two words each) and their ranks take half the registers; and, where the
// table's word 12 says the plain key is every key's (no NaN, no -0.0, form 0), each digit
// read off one word (`digit_plain`) in the ranking and again in the writes, where
// `digit64` tests for NaN, -0.0 and the form on both words (`scatter64` takes them too,
// in the switch's mode 3). The order of entries, and so every result, is `scatter64`'s:
// rounds, subgroups, steps and lanes follow the input order. H200, 16M normal f64
// (2026-11-29): the sort 2.833 ms with `scatter64` (R108 in its SASS), 2.699 with eight
// keys alone (`digit64`), 2.296 with the plain digits too (R69).

const S64: u32 = 8u;
var<workgroup> stg_lo: array<u32, WG * S64>;
var<workgroup> stg_hi: array<u32, WG * S64>;

// `to_slots` for S64 steps.
fn to_slots64(sg: u32, dr: ptr<function, array<u32, S64>>) {
    // unroll
    for (var i = 0u; i < S64; i++) {
        let v = (*dr)[i];
        let at = atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u);
        (*dr)[i] = select(at, NONE, v == NONE);
    }
}

// `scatter64s`: as `scatter64` (bindings, tiles of WG * ITEMS, ROUNDS rounds of WG * S64).
@compute @workgroup_size(WG)
fn scatter64s(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_id) sg: u32,
              @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
              @builtin(num_subgroups) nsg: u32) {
    let t = tile_id(wid, nwg);
    if (lid == 0u) { tabw = b[tab_at() + pass_word()]; }
    let ent = workgroupUniformLoad(&tabw);
    if (ent == DEAD) { return; }
    let first = (ent & FIRST) != 0u;
    let shift = ent & 63u;
    let form = b[tab_at() + 8u];
    let kmin = vec2<u32>(b[tab_at() + 9u], b[tab_at() + 10u]);
    let plain = b[tab_at() + 12u] == 1u;
    let pd = plain_pass(shift);
    let n = rec_n();
    let last = max(n, 1u) - 1u;
    let live = t < tiles();
    for (var d = lid; d < 256u; d += WG) {
        if (live) { slot[d] = b[d * tiles() + t]; }
    }
    let below = lanes_below(lane);
    let lanes = subgroupBallot(true);
    let ids = vec4<u32>(lid, sg, lane, sz);
    for (var r = 0u; r < ROUNDS; r++) {
        for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
        workgroupBarrier();
        let round0 = (t * ROUNDS + r) * WG * S64;
        let at0 = round0 + sg * sz * S64 + lane;
        var kx: array<vec2<u32>, S64>;
        var dr: array<u32, S64>;
        // The loads, the buffer chosen once (a uniform branch, not one a load).
        if (first) {
            let base = in_off();
            // unroll
            for (var i = 0u; i < S64; i++) { kx[i] = c2[base + min(at0 + i * sz, last)]; }
        } else {
            // unroll
            for (var i = 0u; i < S64; i++) { kx[i] = a2[min(at0 + i * sz, last)]; }
        }
        // The digits first (one uniform branch), then the ranks.
        if (plain) {
            // unroll
            for (var i = 0u; i < S64; i++) { dr[i] = digit_plain(kx[i].x, kx[i].y, pd); }
        } else {
            // unroll
            for (var i = 0u; i < S64; i++) { dr[i] = digit64(kx[i].x, kx[i].y, shift, form, kmin); }
        }
        if (FULL == 1u && live && n - min(n, round0) >= WG * S64) {
            // unroll
            for (var i = 0u; i < S64; i++) { dr[i] = rank_digit_full(dr[i], below, sg, lanes); }
        } else {
            // unroll
            for (var i = 0u; i < S64; i++) {
                let valid = live && at0 + i * sz < n;
                dr[i] = rank_digit(valid, dr[i], below, lane, sg);
            }
        }
        workgroupBarrier();
        stage_slots(ids, nsg);
        workgroupBarrier();
        to_slots64(sg, &dr);
        // unroll
        for (var i = 0u; i < S64; i++) {
            let p = dr[i];
            if (p != NONE) { stg_lo[p] = kx[i].x; stg_hi[p] = kx[i].y; }
        }
        workgroupBarrier();
        let cnt = min(n - min(n, round0), WG * S64);
        if (plain) {
            // unroll
            for (var q = 0u; q < S64; q++) {
                let e = q * WG + lid;
                let ec = min(e, WG * S64 - 1u);
                let lo = stg_lo[ec];
                let hi = stg_hi[ec];
                if (e < cnt) { out2[gofs[digit_plain(lo, hi, pd)] + e] = vec2<u32>(lo, hi); }
            }
        } else {
            // unroll
            for (var q = 0u; q < S64; q++) {
                let e = q * WG + lid;
                let ec = min(e, WG * S64 - 1u);
                let lo = stg_lo[ec];
                let hi = stg_hi[ec];
                if (e < cnt) {
                    out2[gofs[digit64(lo, hi, shift, form, kmin)] + e] = vec2<u32>(lo, hi);
                }
            }
        }
        workgroupBarrier();
    }
}

// The onesweep scratch's layout (shaders/radix64_os.wgsl): the tile counters from OS_CNT,
// the status planes from OS_PL.
const OS_CNT: u32 = 2048u;
const OS_PL: u32 = 2064u;
