//! The families' dtype whitelists: each a positive list of the dtypes a family (or one
//! operation) takes, checked by `Device::accept`, which refuses any other dtype with
//! [`crate::Error::Unsupported`] naming the public operation. A dtype added to [`DType`]
//! (complex64, say) is in none of these lists until a family is taught to take it.

use super::DType;

/// Every real dtype stored one element per slot: the floats, the 32- and 64-bit
/// integers and bool (not the packed u8, i8, u16, i16). Indexing, sorting (8-byte keys
/// as two words), manip copies, compaction, bincount, products, user kernels and the
/// other kernels that address one element per slot.
pub(crate) fn slots(d: DType) -> bool {
    matches!(
        d,
        DType::F16
            | DType::F32
            | DType::F64
            | DType::I32
            | DType::U32
            | DType::I64
            | DType::U64
            | DType::Bool
    )
}

/// [`slots`] and the complex dtypes: the families that only move elements (copies, joins,
/// remaps, gathers, writes, `where_`), which run a complex array as the real array of its
/// components (`Array::components`).
pub(crate) fn moves(d: DType) -> bool {
    slots(d) || d.is_complex()
}

/// The real dtypes whose kernels work in 32-bit words (or f64): [`slots`] but the 64-bit
/// integers. Histograms, convolutions, quantiles' outputs.
pub(crate) fn words32(d: DType) -> bool {
    matches!(
        d,
        DType::F16 | DType::F32 | DType::F64 | DType::I32 | DType::U32 | DType::Bool
    )
}

/// [`words32`] but bool: the dtypes with 32-bit (or f16, f64) arithmetic (NumPy's
/// running sum of bools is a count: `as_u32().cumsum(axis)`).
pub(crate) fn arith32(d: DType) -> bool {
    matches!(
        d,
        DType::F16 | DType::F32 | DType::F64 | DType::I32 | DType::U32
    )
}

/// [`arith32`] and the 64-bit integers (SHADER_INT64): the scans, whose i64 and u64
/// accumulate in their own type.
pub(crate) fn arith(d: DType) -> bool {
    arith32(d) || d.is_int64()
}

/// The floating-point dtypes.
pub(crate) fn floats(d: DType) -> bool {
    matches!(d, DType::F16 | DType::F32 | DType::F64)
}

/// The dtypes of the factorizations and solvers (`gpuarray::linalg`): f32 and f64 (NumPy
/// computes f16 in f32; here an f16 stack is cast first by the caller).
pub(crate) fn factor(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F64)
}

/// Every real dtype, packed ones included ([`DType::is_real`]): creation kernels,
/// elementwise arithmetic and reductions.
pub(crate) fn real(d: DType) -> bool {
    d.is_real()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_nest() {
        for d in DType::ALL.into_iter().chain(DType::PACKED) {
            assert!(real(d), "{d}");
            assert!(!words32(d) || slots(d), "{d}");
            assert!(!floats(d) || words32(d), "{d}");
            assert_eq!(slots(d), !d.is_packed(), "{d}");
        }
        assert!(!real(DType::Opaque8) && !slots(DType::Opaque8) && !words32(DType::Opaque8));
    }
}
