// Select family: the elements of given ranks along the rows of an array (radix select), for
// median, quantile and top_k. Host: src/ops/sort/radix_select.rs.
//
// Every row has `targets()` targets (at most MAXT), each a rank r (0 = the smallest, in the
// sort's order through `key_of`: shaders/shared/sort_keys.wgsl, NaN last, -0 == +0). A
// target's state is (prefix, rank): the key bits found so far and the rank among the keys
// carrying them. Each pass takes the next 8 bits down from the key's top: `hist` counts the
// digit of every key whose higher bits equal a target's prefix, `pick` finds the digit
// holding the target's rank and appends it. After key_bits / 8 passes the prefix is the
// whole key of the element of rank r.
//
// The work buffer: the states (2 words per (row, target): prefix, rank), then the counts
// (256 words per (row, target), zero between passes).
//
// Entry points (bindings: 0 params; 1 input; 4 output):
// - `init`: one invocation per (row, target) i. 4 the work buffer: state i = (0, rank of
//   target i % targets()), its 256 counts zeroed.
// - `hist`: one workgroup per tile of a row, `tiles()` tiles a row (chunk() elements each,
//   the grid folded into 2-D): workgroup g takes row g / tiles(). 1 the input's words (rows
//   of row_len() elements from in_off()); 4 the work buffer (atomic). Targets with equal
//   prefixes share one count in workgroup memory, which holds COPIES copies of 256 bins per
//   target (invocation l adds to copy l % COPIES: less contention where many keys share a
//   digit); the copies' sums are added to the row's counts in global memory (an integer sum:
//   the same whatever the order of the adds).
// - `pick`: one invocation per (row, target). 4 the work buffer: the digit d holding the
//   state's rank (counts below d <= rank < counts up to d), the state updated, the counts
//   zeroed.
// - `finish`: one invocation per (row, target) i. 1 the work buffer; 4 the values, out[row *
//   out_cols() + col_off() + t] = the value whose key is state i's prefix (`unkey`).

alias S = u32;
alias SC = u32;

override WG: u32 = 256u;
const MAXT: u32 = 4u;
const COPIES: u32 = 4u;

@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<atomic<u32>>;

var<workgroup> bins: array<atomic<u32>, 4096>; // MAXT * 256 * COPIES
var<workgroup> pre: array<u32, MAXT>;

// Parameter accessors, mirroring `SelectParams` in src/ops/sort/radix_select.rs.
fn rows() -> u32 { return P.n; }
fn in_off() -> u32 { return P.offs.x; }
fn row_len() -> u32 { return P.offs.y; }
fn tiles() -> u32 { return P.offs.z; }     // hist: tiles a row
fn chunk() -> u32 { return P.offs.w; }     // hist: elements a tile
fn shift() -> u32 { return P.aux.x; }      // the lowest bit of this pass's digit
fn targets() -> u32 { return P.ndim; }
fn rank_of(t: u32) -> u32 { return P.shape[t / 4u][t % 4u]; } // init: target t's rank
fn out_cols() -> u32 { return P.offs.z; }  // finish: values a row
fn col_off() -> u32 { return P.offs.w; }   // finish: the first target's column
fn counts_at(i: u32) -> u32 { return 2u * rows() * targets() + 256u * i; }

// The key of input element e (replaced per dtype) and the value word of key k.
fn key_of(e: u32) -> vec2<u32> { return key_u32(a[e]); }
fn unkey(k: u32) -> u32 { return k; }

fn unkey_f32(k: u32) -> u32 {
    if ((k & 0x80000000u) != 0u) { return k ^ 0x80000000u; }
    return ~k;
}

// The key bits above this pass's digit (those the prefix holds).
fn high_mask() -> u32 {
    if (shift() >= 24u) { return 0u; }
    return ~((1u << (shift() + 8u)) - 1u);
}

@compute @workgroup_size(WG)
fn init(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= rows() * targets()) { return; }
    atomicStore(&out[2u * i], 0u);
    atomicStore(&out[2u * i + 1u], rank_of(i % targets()));
    let c = counts_at(i);
    for (var d = 0u; d < 256u; d++) { atomicStore(&out[c + d], 0u); }
}

@compute @workgroup_size(WG)
fn hist(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = wid.y * nwg.x + wid.x;
    let row = g / tiles();
    if (row >= rows()) { return; }
    let nt = targets();
    for (var k = lid; k < nt * 256u * COPIES; k += WG) { atomicStore(&bins[k], 0u); }
    if (lid < nt) { pre[lid] = atomicLoad(&out[2u * (row * nt + lid)]); }
    workgroupBarrier();
    // rep[t]: the first target with t's prefix, whose bins count for both.
    var p: array<u32, MAXT>;
    var rep: array<u32, MAXT>;
    for (var t = 0u; t < nt; t++) {
        p[t] = pre[t];
        rep[t] = t;
        for (var u = 0u; u < t; u++) {
            if (rep[t] == t && pre[u] == pre[t]) { rep[t] = u; }
        }
    }
    let mask = high_mask();
    let sh = shift();
    let copy = lid % COPIES;
    let start = (g % tiles()) * chunk();
    let end = min(start + chunk(), row_len());
    let base = in_off() + row * row_len();
    for (var i = start + lid; i < end; i += WG) {
        let k = key_of(base + i).x;
        let d = (k >> sh) & 255u;
        for (var t = 0u; t < nt; t++) {
            if (rep[t] == t && (k & mask) == p[t]) {
                atomicAdd(&bins[(t * 256u + d) * COPIES + copy], 1u);
            }
        }
    }
    workgroupBarrier();
    for (var k = lid; k < nt * 256u; k += WG) {
        let t = k / 256u;
        let at = (rep[t] * 256u + k % 256u) * COPIES;
        var v = 0u;
        for (var c = 0u; c < COPIES; c++) { v += atomicLoad(&bins[at + c]); }
        if (v != 0u) { atomicAdd(&out[counts_at(row * nt + t) + k % 256u], v); }
    }
}

@compute @workgroup_size(WG)
fn pick(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= rows() * targets()) { return; }
    let c = counts_at(i);
    var rank = atomicLoad(&out[2u * i + 1u]);
    var below = 0u;
    var digit = 256u;
    for (var d = 0u; d < 256u; d++) {
        let n = atomicLoad(&out[c + d]);
        if (digit == 256u && below + n > rank) {
            digit = d;
            rank -= below;
        }
        below += n;
        atomicStore(&out[c + d], 0u);
    }
    // digit stays 256 only for a rank beyond the row (refused by the host).
    let prefix = atomicLoad(&out[2u * i]) | ((digit & 255u) << shift());
    atomicStore(&out[2u * i], prefix);
    atomicStore(&out[2u * i + 1u], rank);
}

@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= rows() * targets()) { return; }
    let row = i / targets();
    let t = i % targets();
    atomicStore(&out[row * out_cols() + col_off() + t], unkey(a[2u * i]));
}
