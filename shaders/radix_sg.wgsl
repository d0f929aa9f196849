// Radix scatter by subgroup ranking, included into shaders/sort.wgsl only for the
// `scatter_sg` kernel (so that the family's other kernels need no subgroup operations).
// Host: src/ops/sort/radix.rs (`scatter_kernel`).
//
// `scatter_sg`: one workgroup of WG invocations per radix tile of WG * ITEMS * ROUNDS
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

// The most subgroups of a workgroup (WG over the smallest subgroup size), and the rounds.
override SGS: u32 = 8u;
override ROUNDS: u32 = 1u;
// Steps of a subgroup in a round (keys held per invocation).
const SG_STEPS: u32 = 16u;

var<workgroup> sgc: array<atomic<u32>, SGS * 256u>;

// Lanes below `lane` in a ballot's four words.
fn lanes_below(lane: u32) -> vec4<u32> {
    let w = vec4<u32>(0u, 1u, 2u, 3u);
    let q = vec4<u32>(lane / 32u);
    let part = vec4<u32>((1u << (lane % 32u)) - 1u);
    return select(select(vec4<u32>(0u), part, w == q), vec4<u32>(0xffffffffu), w < q);
}

fn pop4(m: vec4<u32>) -> u32 {
    let c = countOneBits(m);
    return c.x + c.y + c.z + c.w;
}

// The lowest lane of a non-empty ballot.
fn first_lane(m: vec4<u32>) -> u32 {
    if (m.x != 0u) { return firstTrailingBit(m.x); }
    if (m.y != 0u) { return 32u + firstTrailingBit(m.y); }
    if (m.z != 0u) { return 64u + firstTrailingBit(m.z); }
    return 96u + firstTrailingBit(m.w);
}

// The lanes of the subgroup that are valid and hold digit d (every lane must call it).
fn match_digit(valid: bool, d: u32) -> vec4<u32> {
    var m = subgroupBallot(valid);
    for (var bit = 0u; bit < 8u; bit++) {
        let one = ((d >> bit) & 1u) == 1u;
        let bb = subgroupBallot(one);
        m &= select(~bb, bb, one);
    }
    return m;
}

// The keys of subgroup `sg` from element `first` (this lane's first) in SG_STEPS steps of
// `sz`, ranked: per step digit | rank in the subgroup's run << 8 (all ones: no element),
// and `sgc` holding the subgroup's count per digit. Every invocation must call it.
fn rank_steps(first: u32, sz: u32, lane: u32, sg: u32, live: bool) -> array<u32, SG_STEPS> {
    let n = rec_n();
    let below = lanes_below(lane);
    // The digits first (256: no element), all loaded before the ranking so that the loads
    // overlap.
    var dr: array<u32, SG_STEPS>;
    for (var i = 0u; i < SG_STEPS; i++) {
        let e = first + i * sz;
        dr[i] = 256u;
        if (live && e < n) { dr[i] = digit(e); }
    }
    for (var i = 0u; i < SG_STEPS; i++) {
        let valid = dr[i] < 256u;
        let d = dr[i] & 255u;
        let m = match_digit(valid, d);
        let rank = pop4(m & below);
        var prior = 0u;
        if (valid && rank == 0u) { prior = atomicAdd(&sgc[sg * 256u + d], pop4(m)); }
        prior = subgroupShuffle(prior, select(lane, first_lane(m), valid));
        dr[i] = select(0xffffffffu, d | ((prior + rank) << 8u), valid);
    }
    return dr;
}

// The tile's first slot per digit into `slot` (live tiles).
fn load_slots(lid: u32, t: u32) {
    for (var d = lid; d < 256u; d += WG) {
        if (t < tiles()) { slot[d] = b[d * tiles() + t]; }
    }
}

// Zeroes the subgroups' counters (then a barrier).
fn clear_counts(lid: u32, nsg: u32) {
    for (var k = lid; k < nsg * 256u; k += WG) { atomicStore(&sgc[k], 0u); }
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn scatter_sg(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_id) sg: u32,
              @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
              @builtin(num_subgroups) nsg: u32) {
    let t = tile_id(wid, nwg);
    let n = rec_n();
    load_slots(lid, t);
    for (var r = 0u; r < ROUNDS; r++) {
        clear_counts(lid, nsg);
        let first = (t * ROUNDS + r) * WG * SG_STEPS + sg * sz * SG_STEPS + lane;
        let dr = rank_steps(first, sz, lane, sg, t < tiles());
        workgroupBarrier();
        for (var d = lid; d < 256u; d += WG) {
            var run = slot[d];
            for (var s = 0u; s < nsg; s++) {
                let c = atomicLoad(&sgc[s * 256u + d]);
                atomicStore(&sgc[s * 256u + d], run);
                run += c;
            }
            slot[d] = run;
        }
        workgroupBarrier();
        for (var i = 0u; i < SG_STEPS; i++) {
            let v = dr[i];
            if (v != 0xffffffffu) {
                let e = first + i * sz;
                let dst = atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u);
                for (var j = 0u; j < W + CARRY; j++) { out[j * n + dst] = a[j * n + e]; }
            }
        }
        workgroupBarrier();
    }
}

// Staged: a round's records in workgroup memory in their new order, then written out by
// consecutive invocations (digit runs written whole).
var<workgroup> stage: array<u32, WG * SG_STEPS>;
var<workgroup> sdig: array<u32, WG * SG_STEPS>;
var<workgroup> gbase: array<u32, 256>;

// The counters scanned into round positions (digit-major, subgroups in order), `gbase`
// the global slot of round position 0 per digit (wrapping), `slot` moved past the round.
fn round_positions(lid: u32, nsg: u32) {
    let per = 256u / WG;
    var sum = 0u;
    for (var k = 0u; k < per; k++) {
        for (var s = 0u; s < nsg; s++) { sum += atomicLoad(&sgc[s * 256u + lid * per + k]); }
    }
    var loc = wg_scan(lid, sum);
    for (var k = 0u; k < per; k++) {
        let d = lid * per + k;
        var run = loc;
        for (var s = 0u; s < nsg; s++) {
            let c = atomicLoad(&sgc[s * 256u + d]);
            atomicStore(&sgc[s * 256u + d], run);
            run += c;
        }
        gbase[d] = slot[d] - loc;
        slot[d] += run - loc;
        loc = run;
    }
}

@compute @workgroup_size(WG)
fn scatter_sgs(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_id) sg: u32,
               @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sz: u32,
               @builtin(num_subgroups) nsg: u32) {
    let t = tile_id(wid, nwg);
    let n = rec_n();
    load_slots(lid, t);
    for (var r = 0u; r < ROUNDS; r++) {
        clear_counts(lid, nsg);
        let start = (t * ROUNDS + r) * WG * SG_STEPS;
        let first = start + sg * sz * SG_STEPS + lane;
        let dr = rank_steps(first, sz, lane, sg, t < tiles());
        workgroupBarrier();
        round_positions(lid, nsg);
        workgroupBarrier();
        var cnt = 0u;
        if (t < tiles() && start < n) { cnt = min(n - start, WG * SG_STEPS); }
        for (var i = 0u; i < SG_STEPS; i++) {
            let v = dr[i];
            if (v != 0xffffffffu) {
                sdig[atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u)] = v & 255u;
            }
        }
        for (var j = 0u; j < W + CARRY; j++) {
            for (var i = 0u; i < SG_STEPS; i++) {
                let v = dr[i];
                if (v != 0xffffffffu) {
                    let p = atomicLoad(&sgc[sg * 256u + (v & 255u)]) + (v >> 8u);
                    stage[p] = a[j * n + first + i * sz];
                }
            }
            workgroupBarrier();
            for (var q = lid; q < cnt; q += WG) { out[j * n + gbase[sdig[q]] + q] = stage[q]; }
            workgroupBarrier();
        }
    }
}
