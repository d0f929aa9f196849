// Compare-and-swap combining of shaders/scatter.wgsl for f32 targets held as atomic u32
// words (AT = u32): imported by shaders/scatter.wgsl, whose host leaves it out of the variants
// that do not use it (all but f32 without a native atomic).
//
// f32 through compare-and-swap on the bits: `f` of the old value and v, until no other
// invocation changed the word in between (or nothing changes).
fn cas_f32(k: u32, v: f32, op: u32) {
    var old = atomicLoad(&out[k]);
    loop {
        let x = bitcast<f32>(old);
        var y = x + v;
        // NaN tested on the bits: compilers may fold `x != x` to false.
        let x_nan = (bitcast<u32>(old) & 0x7fffffffu) > 0x7f800000u;
        let v_nan = (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
        if op == 1u {
            y = select(select(max(x, v), v, v_nan), x, x_nan);
        } else if op == 2u {
            y = select(select(min(x, v), v, v_nan), x, x_nan);
        }
        let bits = bitcast<AT>(y);
        if bits == old {
            return;
        }
        let r = atomicCompareExchangeWeak(&out[k], old, bits);
        if r.exchanged {
            return;
        }
        old = r.old_value;
    }
}

