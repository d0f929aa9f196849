// Radix scatter by subgroup ranking, included into shaders/sort.wgsl only for the
// `scatter_sg` kernel (so that the family's other kernels need no subgroup operations).
// Host: src/ops/sort/plan.rs (`scatter_sg_kernel`; `scatter_sg_wg` chooses WG).
//
// `scatter_sg`: one workgroup of WG invocations per radix tile of WG * SG_STEPS * ROUNDS
// elements (the tile of `hist`). Bindings as `scatter`: 1 records; 2 the scanned counts
// (`counts[d * tiles + t]`, the tile's first slot per digit); 4 the records in their new
// order. Runtime subgroups of L lanes (8 to 128, a power of two; WG a multiple of L).
//
// A tile is walked in ROUNDS rounds of WG * SG_STEPS elements; in a round, subgroup s owns
// the contiguous run of L * SG_STEPS elements from s * L * SG_STEPS, walked in SG_STEPS
// steps of L (lane l takes element step * L + l: coalesced). In a step, the lanes with a
// key's digit come from 8 ballots of the digit's bits (the match mask); a key's rank is the
// number of matching lanes below it, and the lowest matching lane adds the match's size to
// the subgroup's counter of that digit (`sgc[s * 256 + d]`, one atomicAdd per distinct
// digit and step), whose old value it shares with the others by a shuffle. After a barrier
// the counters are scanned over the subgroups per digit, from the tile's slot per digit, and
// every key goes to its slot. Order kept: rounds, subgroups, steps and lanes all follow the
// input order, so the scatter is stable, and the same on every run.
//
// STAGED = 1 (opt-in, `Options::radix_stage`): after the counters are scanned, the round's entries are placed
// in workgroup memory in their new order (by digit; within a digit, input order) with their
// digits, one record plane at a time; invocation i then writes entries i, i + WG, ...
// to `gofs[digit] + entry` (the digit's slot minus the round's first entry of that digit),
// so that consecutive lanes write runs of one digit: coalesced stores in place of one 32-byte
// sector per 4-byte key. STAGED = 0: every lane stores its own keys (the previous kernel).
//
// On the H100 (2026-11-23, through Vulkan, 64M u32 keys), unstaged: 1.30-1.35 ms a pass
// against 1.50 ms for the chunk ranking of `scatter`. Measured worse there: loading the
// round's 16 digits in a loop of their own before ranking (2.19 ms a pass), an earlier
// staging of the round's records (3.27 ms a pass), and a staging that kept each key's
// position and destination in private arrays besides `dr` (3.40 ms a pass in workgroups of
// 256, 2.84 in workgroups of 128), and this staging, with only `dr` held per key (2.67 ms a
// pass in workgroups of 256 or 128; argsort of 16M f32 4.63 ms against 3.42 unstaged). Its
// writes are coalesced, so the time goes elsewhere (not measured: the added barriers and
// the scan per round at the occupancy of ~43 KB of workgroup memory, bank conflicts of the
// scattered workgroup-memory writes).

// The most subgroups of a workgroup (WG over the smallest subgroup size), and the rounds.
override SGS: u32 = 8u;
override ROUNDS: u32 = 1u;
// 1: write through workgroup memory (runs of one digit); 0: each lane writes its keys.
// The host always sets it (its default is for the shader validation test).
override STAGED: u32 = 1u;
// Measurement only (crate-internal `GPUARRAY_RADIX_PROBE`; the results are garbage but
// kept alive): 0 as is; 1 global writes removed; 2 staged without the staging (records to
// their places directly); 3 ranking only; 4 unstaged with the writes at the input
// positions (coalesced fakes); 5 staged, the round's scan by subgroup sums (2 barriers).
override PROBE: u32 = 0u;
// 1: subgroups of at most 32 lanes (a ballot's first word alone), 0: up to 128.
override NARROW: u32 = 0u;
// Steps of a subgroup in a round (keys held per invocation).
const SG_STEPS: u32 = 16u;

var<workgroup> sgc: array<atomic<u32>, SGS * 256u>;
// Staged: the round's entries (one record plane at a time) and their digits in their new
// order, and per digit its slot minus the round's first entry of the digit (one word each
// when unstaged).
var<workgroup> stg: array<u32, WG * SG_STEPS * STAGED + 1u>;
var<workgroup> sdig: array<u32, WG * SG_STEPS * STAGED + 1u>;
var<workgroup> gofs: array<u32, 255u * STAGED + 1u>;

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
    let n = rec_n();
    let live = t < tiles();
    for (var d = lid; d < 256u; d += WG) {
        if (live) { slot[d] = b[d * tiles() + t]; }
    }
    let below = lanes_below(lane);
    var acc = 0u;
    for (var r = 0u; r < ROUNDS; r++) {
        for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
        workgroupBarrier();
        let first = (t * ROUNDS + r) * WG * SG_STEPS + sg * sz * SG_STEPS + lane;
        // Digit | rank within the subgroup's run << 8 per step; all ones: no element.
        var dr: array<u32, SG_STEPS>;
        for (var i = 0u; i < SG_STEPS; i++) {
            let e = first + i * sz;
            let valid = live && e < n;
            var d = 0u;
            if (valid) { d = digit(e); }
            let m = match_digit(valid, d);
            let rank = pop4(m & below);
            var prior = 0u;
            if (valid && rank == 0u) { prior = atomicAdd(&sgc[sg * 256u + d], pop4(m)); }
            prior = subgroupShuffle(prior, select(lane, first_lane(m), valid));
            dr[i] = select(0xffffffffu, d | ((prior + rank) << 8u), valid);
        }
        workgroupBarrier();
        if (PROBE == 3u) {
            for (var i = 0u; i < SG_STEPS; i++) { acc ^= dr[i]; }
        } else if (STAGED == 1u) {
            stage_slots(lid, vec3<u32>(sg, lane, sz), nsg);
            workgroupBarrier();
            acc ^= write_staged(lid, sg, sz, first, (t * ROUNDS + r) * WG * SG_STEPS, &dr);
        } else {
            direct_slots(lid, nsg);
            workgroupBarrier();
            for (var i = 0u; i < SG_STEPS; i++) {
                let v = dr[i];
                if (v != 0xffffffffu) {
                    let e = first + i * sz;
                    let dst = atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u);
                    for (var j = 0u; j < W + CARRY; j++) {
                        let x = a[src_off() + j * n + e];
                        if (PROBE == 1u) {
                            acc ^= x + dst;
                        } else if (PROBE == 4u) {
                            out[j * n + e] = x ^ u32(dst == 0xfffffffeu);
                        } else {
                            out[j * n + dst] = x;
                        }
                    }
                }
            }
        }
        workgroupBarrier();
    }
    // Probes: one word per workgroup at most, so that nothing is eliminated.
    if (PROBE != 0u && acc == 0x9e3779b9u) { out[t] = acc; }
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
// the round. Each invocation takes 256 / WG consecutive digits (every invocation calls it).
fn stage_slots(lid: u32, sub: vec3<u32>, nsg: u32) {
    let dpi = 256u / WG;
    var tot = 0u;
    for (var k = 0u; k < dpi; k++) {
        for (var s = 0u; s < nsg; s++) { tot += atomicLoad(&sgc[s * 256u + lid * dpi + k]); }
    }
    var run = 0u;
    if (PROBE == 5u) { run = sg_scan(sub.x, sub.y, sub.z, tot); } else { run = wg_scan(lid, tot); }
    for (var k = 0u; k < dpi; k++) {
        let d = lid * dpi + k;
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

// Exclusive scan of v over the workgroup by subgroup sums (every invocation calls it).
fn sg_scan(sg: u32, lane: u32, sz: u32, v: u32) -> u32 {
    let x = subgroupExclusiveAdd(v);
    if (lane == sz - 1u) { sh[sg] = x + v; }
    workgroupBarrier();
    var base = 0u;
    for (var s = 0u; s < sg; s++) { base += sh[s]; }
    workgroupBarrier();
    return base + x;
}

// Staged: the round's entries (from `round0`; this lane's from `first`, every `sz`, their
// digit | rank << 8 in `dr`) go to workgroup memory in their new order, with their digits,
// one record plane at a time; invocation lid writes entries lid, lid + WG, ... of each plane.
// Only `dr` is held per key (positions are re-read from `sgc`: no more private arrays).
// Every invocation calls it.
fn write_staged(lid: u32, sg: u32, sz: u32, first: u32, round0: u32,
                dr: ptr<function, array<u32, SG_STEPS>>) -> u32 {
    let n = rec_n();
    let cnt = min(n - min(n, round0), WG * SG_STEPS);
    var acc = 0u;
    for (var j = 0u; j < W + CARRY; j++) {
        if (j > 0u) { workgroupBarrier(); }
        for (var i = 0u; i < SG_STEPS; i++) {
            let v = (*dr)[i];
            if (v != 0xffffffffu) {
                let p = atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u);
                let x = a[src_off() + j * n + first + i * sz];
                if (PROBE == 2u) {
                    out[j * n + gofs[v & 255u] + p] = x;
                } else {
                    if (j == 0u) { sdig[p] = v & 255u; }
                    stg[p] = x;
                }
            }
        }
        if (PROBE == 2u) { continue; }
        workgroupBarrier();
        for (var k = 0u; k < SG_STEPS; k++) {
            let i = k * WG + lid;
            if (i < cnt) {
                let dst = j * n + gofs[sdig[i]] + i;
                if (PROBE == 1u) { acc ^= stg[i] + dst; } else { out[dst] = stg[i]; }
            }
        }
    }
    return acc;
}
