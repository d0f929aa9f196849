//! The ziggurat's tables for the standard normals of shaders/shared/ziggurat.wgsl (Marsaglia
//! and Tsang's method with 1024 layers of equal area v under f(x) = exp(-x^2 / 2), x >= 0).
//! Layer i (1..=1023) is the rectangle [0, x_i] x [f(x_i), f(x_(i+1))], with
//! x_1 = r = 4.03885 and x_1024 = 0; layer 0 is the base: [0, r] x [0, f(r)] and the tail
//! beyond r, of area v together. The edges come from r by v = x_i (f(x_(i+1)) - f(x_i)), r
//! being the root that makes the top layer end at f = 1.
//!
//! 1024 layers: one 32-bit word holds the layer (10 bits), the sign (1) and a 21-bit uniform
//! j, and the fast path (j < k_i) takes 99.57% of the candidates (256 layers with a 23-bit j:
//! 98.5%). The slow path (a second dispatch, several -ln u in integer arithmetic) costs tens
//! of times the fast one per element on a large GPU (measured: BENCHMARKS.md, "Measurements behind the code's choices"), so
//! 3.5 times fewer slow elements are worth the 2 bits of j: the candidates z = j w_i are spaced x_i 2^-21 apart (below 2e-6; f32's
//! spacing at 4 is 4.8e-7), finer than the 24-bit uniforms behind Box-Muller normals. The
//! (k_i, w_i) half of the table (8 KiB) stays in the L1 cache.
//!
//! The tables are split by the path that reads them: [`rectangles`] (k_i and w_i, the fast
//! path) and [`density`] (F_i and DF_i, the slow path). Their literals were printed once
//! from the f64 recursion that tests/random_ziggurat.rs's
//! `ziggurat_tables_match_their_definition` recomputes and checks them against (its ignored
//! twin `print_ziggurat_tables` prints them again). These files use nothing of the crate:
//! the tests include this module as the CPU mirror's tables.

mod density;
mod rectangles;

pub(crate) use density::{DF, F};
pub(crate) use rectangles::{K, W};

/// Layers of the ziggurat.
pub(crate) const LAYERS: usize = 1024;
/// Bits of the uniform j in a word, above the layer's 10 bits and the sign (bit 10).
pub(crate) const J_BITS: u32 = 21;
// The layer's bits, the sign and j fill the word; every table has a row per layer.
const _: () = assert!(LAYERS == 1 << (31 - J_BITS));
const _: () = assert!(K.len() == LAYERS && W.len() == LAYERS);
const _: () = assert!(F.len() == LAYERS && DF.len() == LAYERS);

/// The table as the shader reads it: (k_i, w_i) for the layers, then (F_i, DF_i) (the
/// floats as their bits), so that the fast path reads two words.
pub(crate) fn table_words() -> Vec<u32> {
    let fast = (0..LAYERS).flat_map(|i| [K[i], W[i].to_bits()]);
    fast.chain((0..LAYERS).flat_map(|i| [F[i].to_bits(), DF[i].to_bits()]))
        .collect()
}
