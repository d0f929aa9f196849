// Index resolution of the indexing families (shaders/index.wgsl, shaders/scatter.wgsl,
// which define NONE and the one-line `split_index` for their index dtype).
//
// The position an index `raw` names along an axis of `len` elements (len > 0), by mode:
// 0 (checked): negative indices count from the end, NONE outside [-len, len);
// 1 (wrap): modulo len, as NumPy's mode='wrap'; 2 (clip): into [0, len - 1], negative
// indices to 0, as NumPy's mode='clip'.
fn resolve(raw: I, len: u32, mode: u32) -> u32 {
    let s = split_index(raw);
    let negative = s.y != 0u;
    if mode == 1u {
        // x - (x / len) * len, not x % len: Mesa's GL gets % of a u32 past 2^31 wrong.
        if !negative {
            return s.x - (s.x / len) * len;
        }
        let r = s.y - (s.y / len) * len;
        return select(len - r, 0u, r == 0u);
    }
    if mode == 2u {
        return select(min(s.x, len - 1u), 0u, negative);
    }
    if !negative {
        return select(NONE, s.x, s.x < len);
    }
    return select(NONE, len - s.y, s.y <= len);
}
