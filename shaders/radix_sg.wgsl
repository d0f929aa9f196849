// Radix scatter by subgroup ranking, included into shaders/sort.wgsl only for the
// `scatter_sg` kernel (so that the family's other kernels need no subgroup operations).
// Host: src/ops/sort/radix_sg.rs (`scatter_sg_kernel`; `scatter_sg_plan` chooses WG and STAGED).
//
// `scatter_sg`: one workgroup of WG invocations per radix tile of WG * SG_STEPS * ROUNDS
// elements (the tile of `hist`). Bindings as `scatter`: 1 records; 2 the scanned counts
// (`counts[d * tiles + t]`, the tile's first slot per digit); 4 the records in their new
// order. Runtime subgroups of L lanes (8 to 128, a power of two; WG a multiple of L).
//
// A tile is walked in ROUNDS rounds of WG * SG_STEPS elements; in a round, subgroup s owns
// the contiguous run of L * SG_STEPS elements from s * L * SG_STEPS, walked in SG_STEPS
// steps of L (lane l takes element step * L + l: coalesced). A lane first loads its
// SG_STEPS words (all in flight together, held in registers). In a step, the lanes with a
// key's digit come from 8 ballots of the digit's bits (the match mask); a key's rank is the
// number of matching lanes below it, and the lowest matching lane adds the match's size to
// the subgroup's counter of that digit (`sgc[s * 256 + d]`, one atomicAdd per distinct
// digit and step), whose old value it shares with the others by a shuffle. After a barrier
// the counters are scanned over the subgroups per digit, from the tile's slot per digit.
// Order kept: rounds, subgroups, steps and lanes all follow the input order, so the
// scatter is stable, and the same on every run. The step loops are unrolled by the host
// (`// unroll`, src/kernel/unroll.rs): as loops, the driver kept the private arrays in
// registers only through 16 compares and moves per access, and each step's load waited
// for the previous step's ballots.
//
// STAGED = 1 (the default, `Tuning::radix_stage`): the round's entries are placed in
// workgroup memory in their new order (by digit; within a digit, input order), one record
// plane at a time, the digits' plane first; invocation i then writes entries i, i + WG, ...
// to `gofs[digit] + entry` (the digit's slot minus the round's first entry of that digit),
// so that consecutive lanes write runs of one digit: whole sectors in place of one 32-byte
// sector per 4-byte key. STAGED = 0: every lane stores its own keys.
//
// Onesweep (`Tuning::radix_onesweep`, opt-in): `os_hist`, `os_scan` and `scatter_os` at
// the end of this file, their geometry and bindings there.
//
// Where the time goes (H100 through Vulkan, driver 580, 2026-11-23; sort_u32_64M, ms of
// the scatter's 4 passes from GPUARRAY_SORT_PROFILE, the SASS read from the pipeline
// cache): the step loop as a loop, unstaged, 4.65; unrolled with every load first, 4.34.
// Variants of that kernel that dropped part of the work (results kept alive): ballots
// replaced by one bit per lane 4.38; no global writes 1.33; writes at the input position
// (coalesced) 1.91. So the scattered writes, not the ranking, were two thirds of the
// time, which staging removes: staged in workgroups of 128 2.57 (256: 3.01, 64: 3.17).
// Slower: a branch-free ranking (every lane adding to a spare counter, so that the driver
// could overlap the steps): it took 250 registers a lane. Earlier, with the step loop as a
// loop, staging had measured slower than direct writes (2.67 against 1.36 ms a pass):
// the ranking's latency then hid everything else.

// The most subgroups of a workgroup (WG over the smallest subgroup size), and the rounds.
override SGS: u32 = 8u;
override ROUNDS: u32 = 1u;
// 1: write through workgroup memory (runs of one digit); 0: each lane writes its keys.
// The host always sets it (its default is for the shader validation test).
override STAGED: u32 = 1u;
// 1: subgroups of at most 32 lanes, whose ballots fit their first word (the host sets it
// where the adapter's largest subgroup has 32 lanes or fewer); 0: up to 128 lanes.
override NARROW: u32 = 0u;
// Passes (digits of a key) that `os_hist` counts, the first KPASS of them of the key words
// (digit p: word p / 4, bit (p % 4) * 8), the rest of the row number.
// (Every named override comes before the arrays sized by override expressions: naga
// 30's pipeline-constant pass assumes that order.)
override NP: u32 = 4u;
override KPASS: u32 = 4u;
// Re-reads of unset statuses an invocation's look-back may spend before it counts
// predecessors' keys itself (0: the nearest predecessor is always counted so, for tests).
override SPIN: u32 = 4096u;
// 1: `rank_round` ranks a round whose lanes all hold elements by `rank_digit_full` (no
// ballot of `valid`); the host sets it unless `GPUARRAY_RADIX_FULL=0`.
override FULL: u32 = 0u;
// Steps of a subgroup in a round (keys held per invocation; the host's `SG_STEPS`, which
// unrolls the loops over them).
const SG_STEPS: u32 = 16u;
// A rank or slot that stands for no element.
const NONE: u32 = 0xffffffffu;

// Each subgroup's count of each digit.
var<workgroup> sgc: array<atomic<u32>, SGS * 256u>;
// Staged: the round's entries of one record plane in their new order; per digit its slot
// minus the round's first entry of the digit (one word each when unstaged); the
// subgroups' sums in the scan of the round's digit counts.
var<workgroup> stg: array<u32, WG * SG_STEPS * STAGED + 1u>;
var<workgroup> gofs: array<u32, 255u * STAGED + 1u>;
var<workgroup> sgt: array<u32, SGS>;

// Lanes below `lane` in a ballot's four words.
fn lanes_below(lane: u32) -> vec4<u32> {
    if (NARROW == 1u) { return vec4<u32>((1u << lane) - 1u, 0u, 0u, 0u); }
    let w = vec4<u32>(0u, 1u, 2u, 3u);
    let q = vec4<u32>(lane / 32u);
    let part = vec4<u32>((1u << (lane % 32u)) - 1u);
    return select(select(vec4<u32>(0u), part, w == q), vec4<u32>(0xffffffffu), w < q);
}

fn pop4(m: vec4<u32>) -> u32 {
    if (NARROW == 1u) { return countOneBits(m.x); }
    let c = countOneBits(m);
    return c.x + c.y + c.z + c.w;
}

// The lowest lane of a non-empty ballot.
fn first_lane(m: vec4<u32>) -> u32 {
    if (NARROW == 1u) { return firstTrailingBit(m.x); }
    if (m.x != 0u) { return firstTrailingBit(m.x); }
    if (m.y != 0u) { return 32u + firstTrailingBit(m.y); }
    if (m.z != 0u) { return 64u + firstTrailingBit(m.z); }
    return 96u + firstTrailingBit(m.w);
}

// One step's ranking of digit d in subgroup sg (every lane must call it): the lanes with d
// counted below this one, plus the subgroup's count of d before this step, which the
// lowest of those lanes adds the step's matches to and shares by a shuffle. Returns
// d | rank << 8, or NONE where the lane holds no element. (The lowest lane's branch keeps
// the driver from moving later steps' ballots ahead: on the H100 a branch-free form, every
// other lane adding to a spare counter, took 250 registers a lane and was slower.)
fn rank_digit(valid: bool, d: u32, below: vec4<u32>, lane: u32, sg: u32) -> u32 {
    let m = match_digit(valid, d);
    let rank = pop4(m & below);
    var prior = 0u;
    if (valid && rank == 0u) { prior = atomicAdd(&sgc[sg * 256u + d], pop4(m)); }
    prior = subgroupShuffle(prior, select(lane, first_lane(m), valid));
    return select(NONE, d | ((prior + rank) << 8u), valid);
}

// `rank_digit` for a step in which every lane of the subgroup holds an element (`lanes`:
// the subgroup's lanes, a ballot of true): the ballot of `valid` and the NONE cases go.
fn rank_digit_full(d: u32, below: vec4<u32>, sg: u32, lanes: vec4<u32>) -> u32 {
    let m = match_from(lanes, d);
    let rank = pop4(m & below);
    var prior = 0u;
    if (rank == 0u) { prior = atomicAdd(&sgc[sg * 256u + d], pop4(m)); }
    prior = subgroupShuffle(prior, first_lane(m));
    return d | ((prior + rank) << 8u);
}

// The lanes of `start` (a ballot) that hold digit d (every lane must call it).
fn match_from(start: vec4<u32>, d: u32) -> vec4<u32> {
    if (NARROW == 1u) {
        var m1 = start.x;
        for (var bit = 0u; bit < 8u; bit++) {
            let one = ((d >> bit) & 1u) == 1u;
            let bb = subgroupBallot(one).x;
            m1 &= select(~bb, bb, one);
        }
        return vec4<u32>(m1, 0u, 0u, 0u);
    }
    var m = start;
    for (var bit = 0u; bit < 8u; bit++) {
        let one = ((d >> bit) & 1u) == 1u;
        let bb = subgroupBallot(one);
        m &= select(~bb, bb, one);
    }
    return m;
}

// The lanes of the subgroup that are valid and hold digit d (every lane must call it).
fn match_digit(valid: bool, d: u32) -> vec4<u32> {
    if (NARROW == 1u) {
        var m1 = subgroupBallot(valid).x;
        for (var bit = 0u; bit < 8u; bit++) {
            let one = ((d >> bit) & 1u) == 1u;
            let bb = subgroupBallot(one).x;
            m1 &= select(~bb, bb, one);
        }
        return vec4<u32>(m1, 0u, 0u, 0u);
    }
    var m = subgroupBallot(valid);
    for (var bit = 0u; bit < 8u; bit++) {
        let one = ((d >> bit) & 1u) == 1u;
        let bb = subgroupBallot(one);
        m &= select(~bb, bb, one);
    }
    return m;
}

@compute @workgroup_size(WG)
fn scatter_sg(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_id) sg: u32,
              @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
              @builtin(num_subgroups) nsg: u32) {
    let t = tile_id(wid, nwg);
    if (SKIP == 1u) {
        var ent = 0u;
        if (lid == 0u) { ent = b[256u * tiles() + P.aux.x]; }
        if (!slot_live(lid, ent)) { return; }
    }
    let n = rec_n();
    let live = t < tiles();
    for (var d = lid; d < 256u; d += WG) {
        if (live) { slot[d] = b[d * tiles() + t]; }
    }
    let below = lanes_below(lane);
    for (var r = 0u; r < ROUNDS; r++) {
        for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
        workgroupBarrier();
        let first = (t * ROUNDS + r) * WG * SG_STEPS + sg * sz * SG_STEPS + lane;
        var kw: array<u32, SG_STEPS>;
        var dr: array<u32, SG_STEPS>;
        let full = live && n - min(n, (t * ROUNDS + r) * WG * SG_STEPS) >= WG * SG_STEPS;
        rank_round(first, live, full, below, lane, sg, sz, &kw, &dr);
        workgroupBarrier();
        write_tile(vec4<u32>(lid, sg, lane, sz), nsg, first, (t * ROUNDS + r) * WG * SG_STEPS, &kw, &dr);
        workgroupBarrier();
    }
}

// A round's writes, once its ranks are in `dr` and `slot` holds the tile's next slot per
// digit (every invocation calls it; `ids`: lid, sg, lane, sz).
fn write_tile(ids: vec4<u32>, nsg: u32, first: u32, round0: u32,
              kw: ptr<function, array<u32, SG_STEPS>>, dr: ptr<function, array<u32, SG_STEPS>>) {
    if (STAGED == 1u) {
        stage_slots(ids, nsg);
        workgroupBarrier();
        write_staged(ids, first, round0, kw, dr);
    } else {
        direct_slots(ids.x, nsg);
        workgroupBarrier();
        write_round(first, ids.y, ids.w, kw, dr);
    }
}

// A round's loads and ranks (every lane calls it). kw[i]: the word step i's digit is taken
// of, of element first + i * sz (clamped to the last element: every load is issued before
// the first ballot, and none waits on a branch); dr[i]: its digit | rank << 8 (NONE: no
// element). The loops are unrolled by the host, so the arrays stay in registers. `full`
// (workgroup-uniform): every element of the round is below n (ranked by `rank_digit_full`
// where FULL is 1).
fn rank_round(first: u32, live: bool, full: bool, below: vec4<u32>, lane: u32, sg: u32, sz: u32,
              kw: ptr<function, array<u32, SG_STEPS>>, dr: ptr<function, array<u32, SG_STEPS>>) {
    let n = rec_n();
    let last = max(n, 1u) - 1u;
    let w = pass_word();
    let shift = pass_shift();
    // unroll
    for (var i = 0u; i < SG_STEPS; i++) {
        (*kw)[i] = digit_word(min(first + i * sz, last), w);
    }
    if (FULL == 1u && full) {
        let lanes = subgroupBallot(true);
        // unroll
        for (var i = 0u; i < SG_STEPS; i++) {
            (*dr)[i] = rank_digit_full(word_digit((*kw)[i], w, shift), below, sg, lanes);
        }
        return;
    }
    // unroll
    for (var i = 0u; i < SG_STEPS; i++) {
        let valid = live && first + i * sz < n;
        (*dr)[i] = rank_digit(valid, word_digit((*kw)[i], w, shift), below, lane, sg);
    }
}

// A round's writes, unstaged (after `direct_slots`; every lane calls it): each element's
// planes to its slot, the subgroup's first slot of its digit plus its rank. The plane the
// digits came from is `kw`; each other plane's SG_STEPS words are loaded together first.
fn write_round(first: u32, sg: u32, sz: u32, kw: ptr<function, array<u32, SG_STEPS>>,
               dr: ptr<function, array<u32, SG_STEPS>>) {
    let n = rec_n();
    to_slots(sg, dr);
    for (var j = 0u; j < W + CARRY; j++) {
        let pw = plane_words(j, first, sz, kw);
        // unroll
        for (var i = 0u; i < SG_STEPS; i++) {
            let dst = (*dr)[i];
            if (dst != NONE) { out[j * n + dst] = pw[i]; }
        }
    }
}

// Each step's digit | rank << 8 in `dr` becomes subgroup sg's counter of the digit (after
// `direct_slots` or `stage_slots`: its first slot or entry) plus the rank; NONE stays.
fn to_slots(sg: u32, dr: ptr<function, array<u32, SG_STEPS>>) {
    // unroll
    for (var i = 0u; i < SG_STEPS; i++) {
        let v = (*dr)[i];
        let at = atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u);
        (*dr)[i] = select(at, NONE, v == NONE);
    }
}

// The words of record plane j at a round's steps (elements first + i * sz): `kw` where j is
// the plane the digits came from, else loaded together (clamped to the last element).
fn plane_words(j: u32, first: u32, sz: u32, kw: ptr<function, array<u32, SG_STEPS>>)
    -> array<u32, SG_STEPS> {
    if (CARRY == 0u || j == pass_word()) { return *kw; }
    let n = rec_n();
    let last = max(n, 1u) - 1u;
    var pw: array<u32, SG_STEPS>;
    // unroll
    for (var i = 0u; i < SG_STEPS; i++) {
        pw[i] = a[src_off() + j * n + min(first + i * sz, last)];
    }
    return pw;
}

// Unstaged: each subgroup's counter of each digit becomes its first global slot.
fn direct_slots(lid: u32, nsg: u32) {
    for (var d = lid; d < 256u; d += WG) {
        var run = slot[d];
        for (var s = 0u; s < nsg; s++) {
            let c = atomicLoad(&sgc[s * 256u + d]);
            atomicStore(&sgc[s * 256u + d], run);
            run += c;
        }
        slot[d] = run;
    }
}

// Staged: each subgroup's counter of each digit becomes its first entry in the round (by
// digit, then subgroup), `gofs` the digit's slot minus its first entry, and `slot` moves past
// the round. Invocation q = sg * sz + lane takes the 256 / WG digits from q * 256 / WG; the
// scan over them is by subgroup sums (two barriers). Every invocation calls it.
fn stage_slots(ids: vec4<u32>, nsg: u32) {
    let dpi = 256u / WG;
    let q = ids.y * ids.w + ids.z;
    var tot = 0u;
    for (var k = 0u; k < dpi; k++) {
        for (var s = 0u; s < nsg; s++) { tot += atomicLoad(&sgc[s * 256u + q * dpi + k]); }
    }
    let inc = subgroupInclusiveAdd(tot);
    if (ids.z == ids.w - 1u) { sgt[ids.y] = inc; }
    workgroupBarrier();
    var run = inc - tot;
    for (var s = 0u; s < ids.y; s++) { run += sgt[s]; }
    for (var k = 0u; k < dpi; k++) {
        let d = q * dpi + k;
        let start = run;
        for (var s = 0u; s < nsg; s++) {
            let c = atomicLoad(&sgc[s * 256u + d]);
            atomicStore(&sgc[s * 256u + d], run);
            run += c;
        }
        gofs[d] = slot[d] - start;
        slot[d] += run - start;
    }
}

// Staged writes of a round (from element `round0`; this lane's from `first`, every `sz`,
// with their words in `kw` and digit | rank << 8 in `dr`; every invocation calls it): each
// record plane, the digits' plane first, goes to workgroup memory in its new order (by
// digit; within a digit, input order), then invocation lid writes entries lid, lid + WG,
// ... to `gofs[digit] + entry`: consecutive lanes write runs of one digit, whole sectors
// where the scattered stores would write one word each. An entry's digit comes from the
// staged word of the digits' plane, and its destination is kept for the other planes.
fn write_staged(ids: vec4<u32>, first: u32, round0: u32,
                kw: ptr<function, array<u32, SG_STEPS>>, dr: ptr<function, array<u32, SG_STEPS>>) {
    let lid = ids.x;
    let n = rec_n();
    let cnt = min(n - min(n, round0), WG * SG_STEPS);
    let w = pass_word();
    let shift = pass_shift();
    to_slots(ids.y, dr);
    // The digits' plane: the values (records of values alone), else plane w.
    let dp = select(w, 0u, CARRY == 0u);
    var gd: array<u32, SG_STEPS>;
    for (var jj = 0u; jj < W + CARRY; jj++) {
        let j = (dp + jj) % (W + CARRY);
        let pw = plane_words(j, first, ids.w, kw);
        // The previous plane's entries are all read.
        if (jj > 0u) { workgroupBarrier(); }
        // unroll
        for (var i = 0u; i < SG_STEPS; i++) {
            let p = (*dr)[i];
            if (p != NONE) { stg[p] = pw[i]; }
        }
        workgroupBarrier();
        // unroll
        for (var k = 0u; k < SG_STEPS; k++) {
            let e = k * WG + lid;
            let x = stg[min(e, WG * SG_STEPS - 1u)];
            if (jj == 0u) { gd[k] = select(NONE, gofs[word_digit(x, w, shift)] + e, e < cnt); }
            if (gd[k] != NONE) { out[j * n + gd[k]] = x; }
        }
    }
}

// ---- Onesweep (`Tuning::radix_onesweep`): every pass's histogram from one read, and each
// scatter's tile offsets by a chained scan with decoupled look-back over the tiles. ----
//
// `st` (binding 3, read-write) is the kernels' scratch: `os_hist` adds the histograms into
// it; `scatter_os` keeps there the tile counters (words 0..OS_HEAD, one per pass) and two
// planes of tile status (from OS_HEAD, `tiles() * 256` words each; pass p uses plane p % 2).
// A status word is a flag in its top two bits (0 not yet, OS_AGG the tile's own count of
// the digit, OS_INCL the count of this and every earlier tile) over a 30-bit count (the host
// keeps n below 2^30).
@group(0) @binding(3) var<storage, read_write> st: array<atomic<u32>>;

const OS_HEAD: u32 = 16u;
const OS_AGG: u32 = 0x40000000u;
const OS_INCL: u32 = 0x80000000u;
const OS_VAL: u32 = 0x3fffffffu;

var<workgroup> os_tile: u32;

// `os_hist` (SGS at least NP: its counts are `sgc`): workgroups of WG striding over the
// records (grid-stride, any number of workgroups). 1 records (from `src_off()`); 3 `st`: st[p * 256 + d] += the records whose
// digit of pass p is d (zero before: the host clears it); 4 the status scratch, whose tile
// counters and first plane (OS_HEAD + tiles() * 256 words) it zeroes.
@compute @workgroup_size(WG)
fn os_hist(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = tile_id(wid, nwg);
    let stride = nwg.x * nwg.y * WG;
    for (var k = lid; k < NP * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
    for (var k = g * WG + lid; k < OS_HEAD + tiles() * 256u; k += stride) { out[k] = 0u; }
    workgroupBarrier();
    let n = rec_n();
    for (var e = g * WG + lid; e < n; e += stride) {
        if (CARRY == 0u) {
            let key = sort_key(src_off() + e).x;
            for (var p = 0u; p < NP; p++) { atomicAdd(&sgc[p * 256u + ((key >> (p * 8u)) & 255u)], 1u); }
        } else {
            for (var p = 0u; p < NP; p++) {
                var dg = 0u;
                if (p < KPASS) {
                    dg = digit_at(e, p / 4u, (p % 4u) * 8u);
                } else {
                    dg = digit_at(e, W, (p - KPASS) * 8u);
                }
                atomicAdd(&sgc[p * 256u + dg], 1u);
            }
        }
    }
    workgroupBarrier();
    for (var k = lid; k < NP * 256u; k += WG) {
        let v = atomicLoad(&sgc[k]);
        if (v != 0u) { atomicAdd(&st[k], v); }
    }
}

// `os_scan`: one workgroup of 256. 4 the histograms of `os_hist`, each pass's 256 counts
// replaced by their exclusive scan (the pass's first slot per digit).
@compute @workgroup_size(WG)
fn os_scan(@builtin(local_invocation_index) lid: u32) {
    for (var p = 0u; p < NP; p++) {
        let v = out[p * 256u + lid];
        let ex = wg_scan(lid, v);
        out[p * 256u + lid] = ex;
        workgroupBarrier();
    }
}

// `scatter_os`: one workgroup per tile of WG * SG_STEPS elements (ROUNDS 1), tiles taken
// in the order the workgroups start (a counter in `st`), so a tile waits only on tiles
// that have started. 1 records; 2 the scanned histograms (`os_scan`); 3 `st`; 4 the
// records in their new order. The tile is ranked as a round of `scatter_sg`; its count of
// each digit goes to its status (OS_AGG; tile 0: OS_INCL), then the look-back sums the
// earlier tiles' counts of the digit (from the nearest back to the first OS_INCL) and
// publishes the inclusive count. `count_n()` is the pass's number p.
@compute @workgroup_size(WG)
fn scatter_os(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_id) sg: u32,
              @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
              @builtin(num_subgroups) nsg: u32) {
    let p = count_n();
    if (lid == 0u) { os_tile = atomicAdd(&st[p], 1u); }
    let t = workgroupUniformLoad(&os_tile);
    if (t >= tiles()) { return; }
    let plane = OS_HEAD + (p % 2u) * tiles() * 256u;
    let next = OS_HEAD + ((p + 1u) % 2u) * tiles() * 256u;
    for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
    // The next pass's plane, used by no tile of this pass.
    for (var d = lid; d < 256u; d += WG) { atomicStore(&st[next + t * 256u + d], 0u); }
    workgroupBarrier();
    let first = t * WG * SG_STEPS + sg * sz * SG_STEPS + lane;
    var kw: array<u32, SG_STEPS>;
    var dr: array<u32, SG_STEPS>;
    let full = rec_n() - min(rec_n(), t * WG * SG_STEPS) >= WG * SG_STEPS;
    rank_round(first, true, full, lanes_below(lane), lane, sg, sz, &kw, &dr);
    workgroupBarrier();
    for (var d = lid; d < 256u; d += WG) {
        var own = 0u;
        for (var s = 0u; s < nsg; s++) { own += atomicLoad(&sgc[s * 256u + d]); }
        slot[d] = own;
        atomicStore(&st[plane + t * 256u + d], select(OS_AGG, OS_INCL, t == 0u) | own);
    }
    var spins = SPIN;
    for (var d = lid; d < 256u; d += WG) {
        let before = look_back(t, d, plane, &spins);
        if (t > 0u) { atomicStore(&st[plane + t * 256u + d], OS_INCL | (before + slot[d])); }
        slot[d] = b[p * 256u + d] + before;
    }
    workgroupBarrier();
    write_tile(vec4<u32>(lid, sg, lane, sz), nsg, first, t * WG * SG_STEPS, &kw, &dr);
}

// Elements of tiles before `t` whose digit is `d`, from their status words in `plane`.
// Re-reads of unset statuses draw on `spins` (SPIN for all of an invocation's digits); a
// status still unset when they are spent is replaced by counting that tile's keys (they are
// all in place: the previous pass has ended), so the look-back never waits unboundedly on
// a workgroup that may not run: slower, the same result. (lavapipe ends every loop of an
// invocation once their iterations together pass 65535: the budget keeps under that.)
fn look_back(t: u32, d: u32, plane: u32, spins: ptr<function, u32>) -> u32 {
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
            sum += tile_count(j, d);
        } else {
            sum += s & OS_VAL;
            if (s >= OS_INCL) { break; }
        }
    }
    return sum;
}

// Elements of tile j (of `scatter_os`) whose digit is d.
fn tile_count(j: u32, d: u32) -> u32 {
    let lo = j * WG * SG_STEPS;
    let hi = min(rec_n(), lo + WG * SG_STEPS);
    var c = 0u;
    for (var e = lo; e < hi; e += 4u) {
        for (var k = 0u; k < 4u; k++) { c += u32(e + k < hi && digit(e + k) == d); }
    }
    return c;
}
