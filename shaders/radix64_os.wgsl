// The onesweep form of the keys-only radix sort of 8-byte values (`Tuning::radix_onesweep`),
// included after shaders/radix64.wgsl (whose helpers, bindings and table it uses) only in
// the onesweep kernels. Host: src/ops/sort/radix64.rs (`onesweep64`, `argsort_onesweep64`).

// ---- Onesweep form (OS64 = 1, `Tuning::radix_onesweep`): the histograms of all eight
// bytes from one read, then each live pass one `scatter64_os` whose tiles find their
// offsets by a decoupled look-back over the tiles before them (radix_sg.wgsl's
// `scatter_os`, for two-word values and the pass table): per live pass 8 + 8 bytes an
// element and one dispatch, where `hist64`, the scan of the counts and `scatter64` take
// 8 + 8 + 8 and five. Tiles are one round of WG * SG_STEPS elements.
//
// The scratch (`st`, binding 3 read-write; `out` for `k64_reduce` and `k64_plan`), cleared
// by the host: words 0..2048 the eight bytes' counts of the keys (in the table's form),
// scanned by `os_scan` in place; OS_CNT + i the tile counter of slot i; two planes of tile
// status from OS_PL (256 * tiles() words each; live pass j uses plane j % 2 and clears
// the other for its tile); then the table (`tab_at()`) and the reduction's partials. A
// status word is as in `scatter_os` (OS_AGG, OS_INCL over a 30-bit count).


// A round's indices staged (`scatter64_pairs`).
var<workgroup> stg3: array<u32, WG * SG_STEPS>;

// The input as 8-byte words at binding 2 (`scatter64_os`, whose binding 3 is `st`).
@group(0) @binding(2) var<storage, read> b2: array<vec2<u32>>;

// `os_hist64` (SGS at least 8: its counts are `sgc`): grid-stride workgroups of WG over
// the input. 1 the input (`a2`, from `in_off()`); 3 the scratch (its table read, the
// bytes' counts added); 4 unused.
@compute @workgroup_size(WG)
fn os_hist64(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = tile_id(wid, nwg);
    let stride = nwg.x * nwg.y * WG;
    let at = tab_at();
    let form = atomicLoad(&st[at + 8u]);
    let kmin = vec2<u32>(atomicLoad(&st[at + 9u]), atomicLoad(&st[at + 10u]));
    for (var k = lid; k < 8u * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
    workgroupBarrier();
    let n = rec_n();
    let base = in_off();
    for (var e = g * WG + lid; e < n; e += stride) {
        let w = a2[base + e];
        var k = key64(w.x, w.y);
        if (form == 1u) { k = sub64(k, kmin); }
        for (var j = 0u; j < 4u; j++) {
            atomicAdd(&sgc[j * 256u + ((k.x >> (j * 8u)) & 255u)], 1u);
            atomicAdd(&sgc[(j + 4u) * 256u + ((k.y >> (j * 8u)) & 255u)], 1u);
        }
    }
    workgroupBarrier();
    for (var k = lid; k < 8u * 256u; k += WG) {
        let v = atomicLoad(&sgc[k]);
        if (v != 0u) { atomicAdd(&st[k], v); }
    }
}

// Element e's two words: of the input (`b2`, from `in_off()`) for the first live slot, else
// of the previous slot's records (`a2`).
fn rec64_os(e: u32, first: bool) -> vec2<u32> {
    if (first) { return b2[in_off() + e]; }
    return a2[e];
}

// The start of a workgroup of `scatter64_os` / `scatter64_pairs` (every invocation calls
// it): slot `pass_word()`'s table entry and the tile this workgroup takes (NONE where the
// slot is dead: the workgroup returns).
fn os64_head(lid: u32) -> vec2<u32> {
    let i = pass_word();
    if (lid == 0u) {
        let ent = atomicLoad(&st[tab_at() + i]);
        tabw = ent;
        os_tile = NONE;
        if (ent != DEAD) { os_tile = atomicAdd(&st[OS_CNT + i], 1u); }
    }
    let ent = workgroupUniformLoad(&tabw);
    let t = workgroupUniformLoad(&os_tile);
    return vec2<u32>(ent, t);
}

// A tile's ranks (every invocation calls it; `ids`: lid, sg, lane, sz; `ent` the slot's
// table entry, `t` the tile, `kx` its elements' words as loaded, clamped to the last
// element): the digits ranked in `dr` (as `scatter64`), the tile's counts published and
// its offsets found by the look-back, the round's entries placed (`stage_slots`), and
// `dr` turned into each element's entry in the staged order (NONE: no element).
fn os64_rank(ids: vec4<u32>, nsg: u32, ent_t: vec2<u32>,
             kx: ptr<function, array<vec2<u32>, SG_STEPS>>, dr: ptr<function, array<u32, SG_STEPS>>) {
    let lid = ids.x;
    let sg = ids.y;
    let lane = ids.z;
    let sz = ids.w;
    let t = ent_t.y;
    let at = tab_at();
    let first = (ent_t.x & FIRST) != 0u;
    let shift = ent_t.x & 63u;
    let form = atomicLoad(&st[at + 8u]);
    let kmin = vec2<u32>(atomicLoad(&st[at + 9u]), atomicLoad(&st[at + 10u]));
    // The live pass's number: slot i runs live pass i - (8 - k).
    let lp = pass_word() + atomicLoad(&st[at + 11u]) - 8u;
    let plane = OS_PL + (lp % 2u) * tiles() * 256u;
    let next = OS_PL + ((lp + 1u) % 2u) * tiles() * 256u;
    let n = rec_n();
    for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
    // The next live pass's plane, used by no tile of this pass.
    for (var d = lid; d < 256u; d += WG) { atomicStore(&st[next + t * 256u + d], 0u); }
    workgroupBarrier();
    let below = lanes_below(lane);
    let at0 = t * WG * SG_STEPS + sg * sz * SG_STEPS + lane;
    // unroll
    for (var s = 0u; s < SG_STEPS; s++) {
        let valid = at0 + s * sz < n;
        let dg = digit64((*kx)[s].x, (*kx)[s].y, shift, form, kmin);
        (*dr)[s] = rank_digit(valid, dg, below, lane, sg);
    }
    workgroupBarrier();
    for (var d = lid; d < 256u; d += WG) {
        var own = 0u;
        for (var s = 0u; s < nsg; s++) { own += atomicLoad(&sgc[s * 256u + d]); }
        slot[d] = own;
        atomicStore(&st[plane + t * 256u + d], select(OS_AGG, OS_INCL, t == 0u) | own);
    }
    var spins = SPIN;
    let row = (shift / 8u) * 256u;
    let dig = vec4<u32>(select(0u, 1u, first), shift, form, 0u);
    for (var d = lid; d < 256u; d += WG) {
        let before = look_back64(t, d, plane, &spins, dig, kmin);
        if (t > 0u) { atomicStore(&st[plane + t * 256u + d], OS_INCL | (before + slot[d])); }
        slot[d] = atomicLoad(&st[row + d]) + before;
    }
    workgroupBarrier();
    stage_slots(ids, nsg);
    workgroupBarrier();
    to_slots(sg, dr);
}

// `scatter64_os`: one workgroup per tile (ROUNDS 1), tiles taken in the order the
// workgroups start (slot i's counter in `st`). 1 the previous slot's records; 2 the input;
// 3 the scratch; 4 this slot's records. `pass_word()` is the slot i; a dead slot's
// workgroups return at once. The tile is ranked as a round of `scatter64`; its count of
// each digit goes to its status (OS_AGG; tile 0: OS_INCL), the look-back sums the earlier
// tiles' counts (`look_back64`), and the entries are staged and written as in `scatter64`.
@compute @workgroup_size(WG)
fn scatter64_os(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_id) sg: u32,
                @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
                @builtin(num_subgroups) nsg: u32) {
    let head = os64_head(lid);
    if (head.x == DEAD || head.y >= tiles()) { return; }
    let first = (head.x & FIRST) != 0u;
    let shift = head.x & 63u;
    let form = atomicLoad(&st[tab_at() + 8u]);
    let kmin = vec2<u32>(atomicLoad(&st[tab_at() + 9u]), atomicLoad(&st[tab_at() + 10u]));
    let n = rec_n();
    let last = max(n, 1u) - 1u;
    let round0 = head.y * WG * SG_STEPS;
    let at0 = round0 + sg * sz * SG_STEPS + lane;
    var kx: array<vec2<u32>, SG_STEPS>;
    var dr: array<u32, SG_STEPS>;
    // unroll
    for (var s = 0u; s < SG_STEPS; s++) { kx[s] = rec64_os(min(at0 + s * sz, last), first); }
    os64_rank(vec4<u32>(lid, sg, lane, sz), nsg, head, &kx, &dr);
    // unroll
    for (var s = 0u; s < SG_STEPS; s++) {
        let p = dr[s];
        if (p != NONE) { stg[p] = kx[s].x; stg2[p] = kx[s].y; }
    }
    workgroupBarrier();
    let cnt = min(n - min(n, round0), WG * SG_STEPS);
    // unroll
    for (var q = 0u; q < SG_STEPS; q++) {
        let e = q * WG + lid;
        let ec = min(e, WG * SG_STEPS - 1u);
        let lo = stg[ec];
        let hi = stg2[ec];
        if (e < cnt) {
            out2[gofs[digit64(lo, hi, shift, form, kmin)] + e] = vec2<u32>(lo, hi);
        }
    }
}

// `scatter64_pairs`: `scatter64_os` for key-index pairs (the argsort): records of the
// values (as 8-byte words, elements 0..n) and a u32 index plane after them (words
// 2n..3n). The first live slot reads the input and takes each element's number as its
// index; slot 7 (always live) writes the indices alone, the argsort's u32 result (4: n
// words). The records are written through `out` alone (two words a value): one binding,
// one view in an entry point.
@compute @workgroup_size(WG)
fn scatter64_pairs(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_id) sg: u32,
                   @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
                   @builtin(num_subgroups) nsg: u32) {
    let head = os64_head(lid);
    if (head.x == DEAD || head.y >= tiles()) { return; }
    let first = (head.x & FIRST) != 0u;
    let shift = head.x & 63u;
    let form = atomicLoad(&st[tab_at() + 8u]);
    let kmin = vec2<u32>(atomicLoad(&st[tab_at() + 9u]), atomicLoad(&st[tab_at() + 10u]));
    let n = rec_n();
    let last = max(n, 1u) - 1u;
    let round0 = head.y * WG * SG_STEPS;
    let at0 = round0 + sg * sz * SG_STEPS + lane;
    var kx: array<vec2<u32>, SG_STEPS>;
    var ix: array<u32, SG_STEPS>;
    var dr: array<u32, SG_STEPS>;
    // unroll
    for (var s = 0u; s < SG_STEPS; s++) {
        let e = min(at0 + s * sz, last);
        kx[s] = rec64_os(e, first);
        // The index plane as 8-byte words: word 2n + e is half of word n + e / 2.
        let w = a2[select(n + (e >> 1u), 0u, first)];
        ix[s] = select(select(w.x, w.y, (e & 1u) == 1u), e, first);
    }
    os64_rank(vec4<u32>(lid, sg, lane, sz), nsg, head, &kx, &dr);
    // unroll
    for (var s = 0u; s < SG_STEPS; s++) {
        let p = dr[s];
        if (p != NONE) { stg[p] = kx[s].x; stg2[p] = kx[s].y; stg3[p] = ix[s]; }
    }
    workgroupBarrier();
    let cnt = min(n - min(n, round0), WG * SG_STEPS);
    let final_slot = pass_word() == 7u;
    // unroll
    for (var q = 0u; q < SG_STEPS; q++) {
        let e = q * WG + lid;
        let ec = min(e, WG * SG_STEPS - 1u);
        let lo = stg[ec];
        let hi = stg2[ec];
        if (e < cnt) {
            let dst = gofs[digit64(lo, hi, shift, form, kmin)] + e;
            if (final_slot) {
                out[dst] = stg3[ec];
            } else {
                out[2u * dst] = lo;
                out[2u * dst + 1u] = hi;
                out[2u * n + dst] = stg3[ec];
            }
        }
    }
}

// Elements of tiles before `t` whose digit is `d`, from their status words in `plane`, as
// radix_sg.wgsl's `look_back` (re-reads drawn on `spins`, then a slow predecessor's keys
// counted). `dig`: first slot (1/0), shift and form of the digits; `kmin` the least key.
fn look_back64(t: u32, d: u32, plane: u32, spins: ptr<function, u32>, dig: vec4<u32>,
               kmin: vec2<u32>) -> u32 {
    var sum = 0u;
    var j = t;
    while (j > 0u) {
        j -= 1u;
        var s = 0u;
        if (SPIN > 0u || j + 1u < t) {
            s = atomicLoad(&st[plane + j * 256u + d]);
            while (s < OS_AGG && *spins > 0u) {
                *spins -= 1u;
                s = atomicLoad(&st[plane + j * 256u + d]);
            }
        }
        if (s < OS_AGG) {
            sum += tile_count64(j, d, dig, kmin);
        } else {
            sum += s & OS_VAL;
            if (s >= OS_INCL) { break; }
        }
    }
    return sum;
}

// Elements of tile j (of `scatter64_os`) whose digit is d (`dig` as in `look_back64`).
fn tile_count64(j: u32, d: u32, dig: vec4<u32>, kmin: vec2<u32>) -> u32 {
    let lo = j * WG * SG_STEPS;
    let hi = min(rec_n(), lo + WG * SG_STEPS);
    let first = dig.x == 1u;
    var c = 0u;
    for (var e = lo; e < hi; e += 4u) {
        for (var k = 0u; k < 4u; k++) {
            let w = rec64_os(min(e + k, hi - 1u), first);
            c += u32(e + k < hi && digit64(w.x, w.y, dig.y, dig.z, kmin) == d);
        }
    }
    return c;
}
