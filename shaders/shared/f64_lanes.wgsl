// The 64- and 32-bit unsigned types of f64_split_bits.wgsl's lanes, shaped as TW: scalar
// here; vec4 kernels read f64_lanes4.wgsl instead.
alias LU64 = u64;
alias LU32 = u32;
// The f32 type of the same shape (a seed for f64 quotients).
alias LF32 = f32;
