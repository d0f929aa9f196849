//! Where the in-workgroup transform keeps its values in workgroup memory: each row's pitch
//! and an XOR swizzle of the element index within the row, chosen by counting the bank
//! wavefronts of every exchange (a model of NVIDIA's workgroup memory: 32 banks of 4
//! bytes, 32 invocations a subgroup, one wavefront per distinct word a bank serves).
//!
//! The Stockham exchanges read neighbouring elements (conflict-free) but write a pass of
//! radix r over sub-transforms of ns elements at `(j / ns) * ns * r + j % ns + i * ns`: for
//! ns = 1 (radix 4) neighbouring invocations write 32 bytes apart (complex64), for ns = 4
//! in groups of 4 elements 128 bytes apart: both 4-way conflicts (8 wavefronts where 2
//! would do). A length of 1,024 in five radix-4 passes makes four exchanges, two of them
//! with these writes: 640 write wavefronts of 896 in all per transform where 512 would
//! do, on the same data path as the twiddle table's loads and the global accesses. The
//! swizzle `x ^ (((x >> 4) & 3) * 5)` (complex64: sixteen elements a 128-byte line; rows
//! of sixteen elements mapped by their index mod 4 onto both bit pairs of the position
//! within the line) spreads both patterns over all banks and keeps the contiguous reads
//! contiguous within each line; complex128 (eight a line) flips bits 0-1 by the line's
//! index and bit 2 by its next bit. Rows shared by several transforms are padded so that
//! the column mapping of the first and last passes (neighbouring invocations on
//! neighbouring transforms) spreads over the banks: one element (16 transforms a
//! workgroup) or more (the run splits' groups of 4).
//!
//! `GPUARRAY_FFT_BANKS=0` keeps the earlier layout (rows `l + 1` apart where several share a
//! workgroup, no swizzle), for measuring one against the other.
//!
//! Measured on the H200 (2026-11-29, per dispatch, earlier layout -> this one): 65,536 x
//! 1,024 complex64 0.486 -> 0.479 ms; 2^24's three passes of 256 x 4 columns 0.160 ->
//! 0.152, 0.208 -> 0.205, 0.182 -> 0.177; complex128 2^24's 0.292 -> 0.279, 0.419 ->
//! 0.418, 0.343 -> 0.347; rows of 4,096 (one workgroup of 1,024) 0.210 -> 0.212 and the 64
//! x 16 columns unchanged. Whole transforms: 65,536 x 1,024 0.483 -> 0.477 ms, 2^24 0.526
//! -> 0.510, complex128 2^24 1.029 -> 1.015. The conflicts cost a few percent at most: the
//! pass kernels are not bound by workgroup memory's banks (nor by the twiddle loads that
//! share its data path: `GPUARRAY_FFT_TWREC`, one load a butterfly, measured within 2%).

/// A layout of `sbuf`: rows `pitch` elements apart, the swizzle on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Layout {
    pub pitch: usize,
    pub swizzle: bool,
}

/// The shape whose exchanges are counted (as src/fft/passes.rs generates them).
#[derive(Debug, Clone, Copy)]
pub(super) struct Exchanges<'a> {
    /// Bytes of one complex element (8 or 16).
    pub elem: usize,
    pub l: usize,
    pub m: usize,
    pub wg: usize,
    pub col_in: bool,
    pub col_out: bool,
    pub radices: &'a [usize],
}

/// Elements of one 128-byte line of workgroup memory.
fn line(elem: usize) -> usize {
    (128 / elem).max(1)
}

/// Whether the swizzle keeps every index of a row of `l` within the row.
pub(super) fn can_swizzle(elem: usize, l: usize) -> bool {
    (elem == 8 || elem == 16) && l.is_multiple_of(line(elem))
}

/// The swizzle of element `x` of a row (as the WGSL of [`wgsl_swizzle`] computes it).
pub(super) fn swizzle(elem: usize, x: usize) -> usize {
    if elem == 8 {
        x ^ (((x >> 4) & 3) * 5)
    } else {
        x ^ (((x >> 3) & 3) ^ (((x >> 4) & 1) << 2))
    }
}

/// The WGSL function `sw(x)` of the swizzle for elements of `elem` bytes.
pub(super) fn wgsl_swizzle(elem: usize) -> String {
    if elem == 8 {
        "fn sw(x: u32) -> u32 { return x ^ (((x >> 4u) & 3u) * 5u); }".to_string()
    } else {
        "fn sw(x: u32) -> u32 { return x ^ (((x >> 3u) & 3u) ^ (((x >> 4u) & 1u) << 2u)); }"
            .to_string()
    }
}

/// Wavefronts of one subgroup's access to the elements `at` (bank words of `elem` bytes
/// each): the most distinct words any bank serves, at least the bytes over 128.
fn wavefronts(elem: usize, at: &[usize]) -> usize {
    if at.is_empty() {
        return 0;
    }
    let words = elem / 4;
    let mut per_bank: [Vec<usize>; 32] = std::array::from_fn(|_| Vec::new());
    for &e in at {
        for w in 0..words {
            let word = e * words + w;
            let b = &mut per_bank[word % 32];
            if !b.contains(&word) {
                b.push(word);
            }
        }
    }
    let most = per_bank.iter().map(Vec::len).max().unwrap_or(0);
    most.max((at.len() * elem).div_ceil(128))
}

/// Wavefronts of every exchange of `x` under `layout`, per workgroup.
pub(super) fn count(x: Exchanges<'_>, layout: Layout) -> usize {
    let Exchanges {
        elem,
        l,
        m,
        wg,
        col_in,
        col_out,
        radices,
    } = x;
    let at = |row: usize, e: usize| {
        row * layout.pitch + if layout.swizzle { swizzle(elem, e) } else { e }
    };
    let last = radices.len().saturating_sub(1);
    let mut total = 0;
    let mut ns = 1;
    let mut lanes = Vec::with_capacity(32);
    for (k, &r) in radices.iter().enumerate() {
        let q = l / r;
        let butterflies = m * q;
        let c = butterflies.div_ceil(wg);
        let col = (k == 0 && col_in) || (k == last && col_out);
        let map = |i: usize| {
            if col && m > 1 {
                (i % m, i / m)
            } else {
                (i / q, i % q)
            }
        };
        for b in 0..c {
            for w in (0..wg).step_by(32) {
                for v in 0..r {
                    // Reads of every pass but the first.
                    if k > 0 {
                        lanes.clear();
                        for lid in w..(w + 32).min(wg) {
                            let i = lid + b * wg;
                            if i < butterflies {
                                let (mm, j) = map(i);
                                lanes.push(at(mm, j + v * q));
                            }
                        }
                        total += wavefronts(elem, &lanes);
                    }
                    // Writes of every pass but the last.
                    if k < last {
                        lanes.clear();
                        for lid in w..(w + 32).min(wg) {
                            let i = lid + b * wg;
                            if i < butterflies {
                                let (mm, j) = map(i);
                                let d = (j / ns) * ns * r + j % ns;
                                lanes.push(at(mm, d + v * ns));
                            }
                        }
                        total += wavefronts(elem, &lanes);
                    }
                }
            }
        }
        ns *= r;
    }
    total
}

/// The earlier layout: rows one element apart where several share the workgroup.
pub(super) fn plain(l: usize, m: usize) -> Layout {
    Layout {
        pitch: if m > 1 { l + 1 } else { l },
        swizzle: false,
    }
}

/// The layout of `x` with the fewest wavefronts within `cap` elements (the earlier one
/// where none has fewer; [`plain`] with `GPUARRAY_FFT_BANKS=0`).
pub(super) fn choose(x: Exchanges<'_>, cap: usize) -> Layout {
    let old = plain(x.l, x.m);
    if !super::tune::knobs().banks || x.radices.len() < 2 {
        return old;
    }
    let mut best = (count(x, old), old);
    let pitches: &[usize] = if x.m > 1 { &[1, 2, 4, 8] } else { &[0] };
    for swz in [false, true] {
        if swz && !can_swizzle(x.elem, x.l) {
            continue;
        }
        for &extra in pitches {
            let cand = Layout {
                pitch: x.l + extra,
                swizzle: swz,
            };
            if cand == old || x.m * cand.pitch > cap {
                continue;
            }
            let n = count(x, cand);
            if n < best.0 {
                best = (n, cand);
            }
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(
        elem: usize,
        l: usize,
        m: usize,
        wg: usize,
        col: [bool; 2],
        r: &[usize],
    ) -> Exchanges<'_> {
        Exchanges {
            elem,
            l,
            m,
            wg,
            col_in: col[0],
            col_out: col[1],
            radices: r,
        }
    }

    #[test]
    fn swizzle_permutes_rows() {
        for elem in [8, 16] {
            for l in [16, 64, 1024, 4096] {
                if !can_swizzle(elem, l) {
                    continue;
                }
                let mut seen = vec![false; l];
                for x in 0..l {
                    let s = swizzle(elem, x);
                    assert!(s < l && !seen[s], "elem {elem} l {l} x {x}");
                    seen[s] = true;
                }
            }
        }
        assert!(!can_swizzle(8, 24) && can_swizzle(16, 24));
    }

    #[test]
    fn model_counts_conflicts() {
        // Contiguous complex64: 2 wavefronts; 32 bytes apart: 8.
        let run: Vec<usize> = (0..32).collect();
        let strided: Vec<usize> = (0..32).map(|j| 4 * j).collect();
        assert_eq!(wavefronts(8, &run), 2);
        assert_eq!(wavefronts(8, &strided), 8);
        assert_eq!(wavefronts(16, &run), 4);
    }

    #[test]
    fn choice_within_capacity() {
        let r = [4usize; 4];
        // The run splits' columns: 4 transforms of 256 complex64, column mapping in and out.
        let x = ex(8, 256, 4, 256, [true; 2], &r);
        let lay = choose(x, 4096);
        assert!(lay.swizzle && 4 * lay.pitch <= 4096);
        assert!(count(x, lay) < count(x, plain(256, 4)));
        // No room for padding: the rows stay l + 1 apart (within the capacity).
        let lay = choose(x, 4 * 257);
        assert_eq!(lay.pitch, 257);
        // Lengths that are not whole lines, and single passes: the earlier layout.
        let r5 = [4usize, 2, 5, 5, 5];
        assert_eq!(
            choose(ex(8, 1000, 1, 256, [false; 2], &r5), 4096),
            plain(1000, 1)
        );
        assert_eq!(
            choose(ex(8, 4, 64, 64, [true; 2], &[4]), 4096),
            plain(4, 64)
        );
    }

    #[test]
    fn swizzle_removes_the_radix4_conflicts() {
        let r = [4usize; 5];
        // 1,024 complex64, 256 invocations: 8 warps x 4 values x 4 exchanges x (a read
        // and a write), each access ideally 2 wavefronts.
        let x = ex(8, 1024, 1, 256, [false; 2], &r);
        let ideal = 8 * 4 * 2 * 4 * 2;
        let old = count(x, plain(1024, 1));
        let new = count(
            x,
            Layout {
                pitch: 1024,
                swizzle: true,
            },
        );
        assert_eq!(new, ideal);
        assert!(old > new + new / 3, "old {old} new {new}");
        // complex128 (4 wavefronts an access).
        let x = ex(16, 1024, 1, 256, [false; 2], &r);
        let new = count(
            x,
            Layout {
                pitch: 1024,
                swizzle: true,
            },
        );
        assert_eq!(new, 2 * ideal);
        assert!(count(x, plain(1024, 1)) > new);
    }
}
