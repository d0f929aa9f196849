//! Parameters of the sort family, mirrored by the accessors atop shaders/sort.wgsl.

use crate::kernel::launch::Params;

/// The slots one sort dispatch reads. [`SortParams::encode`] is the only code placing them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SortParams {
    /// Elements of all rows (`rec_n()`).
    pub n: u32,
    /// Elements per row (`row_len()`).
    pub row_len: u32,
    /// Element offset of the input (`in_off()`).
    pub in_off: u32,
    /// Tiles of `hist` / `scatter`, rows of `bitonic` (`tiles()`), the output row of
    /// `take` (`out_row()`), the queries' offset of `search` (`q_off()`).
    pub tiles: u32,
    /// Counts of the scans, the padded row of `bitonic`, the words of `take` (`count_n()`).
    pub count: u32,
    /// The key word of a radix pass, or W for the row number (`pass_word()`).
    pub word: u32,
    /// The bit of the pass's digit (`pass_shift()`); 1 for `search`'s right side
    /// (`side_right()`).
    pub shift: u32,
    /// Largest first (`descending()`, in `P.ndim`).
    pub descending: bool,
}

impl SortParams {
    pub(super) fn encode(&self) -> Params {
        let mut p = Params::new(self.n);
        p.offs = [self.in_off, self.row_len, self.tiles, self.count];
        p.aux = [self.word, self.shift];
        p.ndim = self.descending as u32;
        p
    }
}
