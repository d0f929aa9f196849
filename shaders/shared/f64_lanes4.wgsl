// The 64- and 32-bit unsigned types of f64_split_bits.wgsl's lanes, shaped as TW: vec4,
// read instead of f64_lanes.wgsl by the kernels whose TW is vec4<f64>.
alias LU64 = vec4<u64>;
alias LU32 = vec4<u32>;
// The f32 type of the same shape (a seed for f64 quotients).
alias LF32 = vec4<f32>;
