//! Philox4x32-10 on the CPU (Random123's philox4x32 with 10 rounds): the reference the
//! random tests compare the GPU's words with.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

pub fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// Random123's philox4x32 with 10 rounds: the key is bumped before rounds 2..10.
pub fn philox(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (ctr, key);
    for round in 0..10 {
        if round > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// Block j of the stream of `seed`: counter [j, 0, 0, 0], key [seed low, seed high].
pub fn block(seed: u64, j: u64) -> [u32; 4] {
    philox([j as u32, 0, 0, 0], [seed as u32, (seed >> 32) as u32])
}
