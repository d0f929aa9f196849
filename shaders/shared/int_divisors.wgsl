// Divisors of 32-bit integers (T is i32 or u32, a vec4 in the vectorised variants; M the
// u32 of the same shape): gcd and lcm, as NumPy's, in u32 on the magnitudes (|i32::MIN| =
// 2^31 is exact there).

// Euclid's algorithm on every lane at once; 48 steps bound any pair of 32-bit values
// (Fibonacci's F(48) > 2^32), the loop leaves as soon as every lane is done.
fn gcd_u_(x: M, y: M) -> M {
    var a = x;
    var b = y;
    for (var i = 0u; i < 48u; i++) {
        if !any(b != M(0u)) {
            break;
        }
        let done = b == M(0u);
        // a - (a / d) * d, not a % d: Mesa's GL gave 4294967295 % 65536 = 4294967295.
        let d = select(b, M(1u), done);
        let r = a - (a / d) * d;
        a = select(b, a, done);
        b = select(r, M(0u), done);
    }
    return a;
}

// |x| as M, without abs: Mesa's GL took abs of a u32 as of an i32 (|4294967295| = 1).
fn mag_(x: T) -> M {
    return select(bitcast<M>(x), M(0u) - bitcast<M>(x), x < T(0));
}

// gcd(x, y) >= 0; gcd(i32::MIN, 0) is i32::MIN, as NumPy's.
fn gcd_int_(x: T, y: T) -> T {
    return bitcast<T>(gcd_u_(mag_(x), mag_(y)));
}

// |x / gcd * y| (wrapping, as NumPy's), 0 where either is 0.
fn lcm_int_(x: T, y: T) -> T {
    let a = mag_(x);
    let b = mag_(y);
    let g = gcd_u_(a, b);
    let zero = g == M(0u);
    return bitcast<T>(select((a / select(g, M(1u), zero)) * b, M(0u), zero));
}
