//! The typed parameters of the linear-algebra kernels. Each struct's `encode` is the one
//! place that puts its fields into the generic parameter block ([`Params`]); the shaders
//! read them only through the accessor functions named beside each field, declared once
//! in shaders/linalg.wgsl (the generated cooperative-matrix kernel embeds the matrix-product
//! block, see [`accessors`]).

use crate::kernel::launch::Params;

use super::SRC;

/// One dispatch of a batched matrix product `C[z] = A[z] @ B[z]`, for the tiled and the
/// cooperative-matrix kernels alike. Fields in the generic slots that `batch_offsets`
/// (shaders/shared/params.wgsl) reads have no accessor of their own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MatmulParams<'a> {
    /// Batches in all: `P.n`.
    pub batches: u32,
    /// The collapsed batch shape (`P.ndim`, `P.shape`) and A's and B's strides along it (0
    /// along broadcast dimensions; `P.st0`, `P.st1`), read by `batch_offsets`.
    pub batch_shape: &'a [usize],
    /// A's and B's batch strides, in that order (see `batch_shape`).
    pub batch_strides: &'a [Vec<isize>],
    /// Element offset of A: `P.offs.x`, read by `batch_offsets`.
    pub offset_a: u32,
    /// Element offset of B: `P.offs.y`, read by `batch_offsets`.
    pub offset_b: u32,
    /// Rows of A and C: `dim_m()`.
    pub m: u32,
    /// Columns of B and C: `dim_n()`.
    pub n: u32,
    /// Columns of A, rows of B: `dim_k()`.
    pub k: u32,
    /// A's stride along its non-contiguous dimension (m, or k for a transposed A): `ld_a()`.
    pub lda: u32,
    /// B's stride along its non-contiguous dimension (k, or n for a transposed B): `ld_b()`.
    pub ldb: u32,
    /// The M tile of the dispatch's workgroup y = 0 (grids beyond 65,535 workgroups are
    /// split into several dispatches): `first_tile_m()`.
    pub first_tile_m: u32,
    /// The N tile of the dispatch's workgroup x = 0: `first_tile_n()`.
    pub first_tile_n: u32,
    /// The batch of the dispatch's workgroup z = 0: `first_batch()`.
    pub first_batch: u32,
}

impl MatmulParams<'_> {
    /// The parameter block: the one place that assigns these slots.
    pub(crate) fn encode(&self) -> Params {
        let mut p = Params::new(self.batches).layout(self.batch_shape, self.batch_strides);
        p.offs[0] = self.offset_a;
        p.offs[1] = self.offset_b;
        p.aux = [self.first_tile_m, self.first_tile_n]; // first_tile_m(), first_tile_n(): P.aux.xy
        let st2 = &mut p.strides[2];
        st2[0] = self.m; // dim_m(): P.st2[0].x
        st2[1] = self.n; // dim_n(): P.st2[0].y
        st2[2] = self.k; // dim_k(): P.st2[0].z
        st2[3] = self.lda; // ld_a(): P.st2[0].w
        st2[4] = self.ldb; // ld_b(): P.st2[1].x
        st2[5] = self.first_batch; // first_batch(): P.st2[1].y
        p
    }
}

/// One dispatch of the matrix-vector kernels of shaders/gemv.wgsl: `y[z] = X[z] v[z]`.
/// Fields in the generic slots that `batch_offsets` reads have no accessor of their own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GemvParams<'a> {
    /// Batches in all: `P.n`.
    pub batches: u32,
    /// The collapsed batch shape and X's and v's strides along it (`P.st0`, `P.st1`).
    pub batch_shape: &'a [usize],
    /// X's and v's batch strides, in that order.
    pub batch_strides: &'a [Vec<isize>],
    /// Element offsets of X and v: `P.offs.x`, `P.offs.y`.
    pub offset_x: u32,
    pub offset_v: u32,
    /// Rows of X (length of y): `dim_r()`.
    pub r: u32,
    /// Columns of X (length of v): `dim_k()`.
    pub k: u32,
    /// X's strides along r and k: `stride_r()`, `stride_k()`.
    pub stride_r: u32,
    pub stride_k: u32,
    /// v's stride: `stride_v()`.
    pub stride_v: u32,
    /// k per slice of a split sum: `chunk()`.
    pub chunk: u32,
    /// The row group of the dispatch's workgroup x = 0: `first_group()`.
    pub first_group: u32,
}

impl GemvParams<'_> {
    /// The parameter block: the one place that assigns these slots.
    pub(crate) fn encode(&self) -> Params {
        let mut p = Params::new(self.batches).layout(self.batch_shape, self.batch_strides);
        p.offs[0] = self.offset_x;
        p.offs[1] = self.offset_v;
        p.aux[0] = self.first_group; // first_group(): P.aux.x
        let st2 = &mut p.strides[2];
        st2[0] = self.r; // dim_r(): P.st2[0].x
        st2[1] = self.k; // dim_k(): P.st2[0].y
        st2[2] = self.stride_r; // stride_r(): P.st2[0].z
        st2[3] = self.stride_k; // stride_k(): P.st2[0].w
        st2[4] = self.stride_v; // stride_v(): P.st2[1].x
        st2[5] = self.chunk; // chunk(): P.st2[1].y
        p
    }
}

/// One dispatch of the `trace` kernel: the sums of the diagonals of `count` matrices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TraceParams {
    /// Matrices (one invocation each): `P.n`.
    pub count: u32,
    /// Element offset of the first matrix's first diagonal element: `P.offs.x`.
    pub offset: u32,
    /// Elements on each diagonal: `trace_len()`.
    pub len: u32,
    /// Elements from one matrix to the next: `trace_matrix_stride()`.
    pub matrix_stride: u32,
    /// Elements from one diagonal element to the next: `trace_step()`.
    pub step: u32,
}

impl TraceParams {
    /// The parameter block: the one place that assigns these slots.
    pub(crate) fn encode(&self) -> Params {
        let mut p = Params::new(self.count);
        p.offs[0] = self.offset;
        p.aux[0] = self.len; // trace_len(): P.aux.x
        p.strides[2][0] = self.matrix_stride; // trace_matrix_stride(): P.st2[0].x
        p.strides[2][1] = self.step; // trace_step(): P.st2[0].y
        p
    }
}

/// First and last line of the matrix-product accessors in shaders/linalg.wgsl.
const BLOCK_BEGIN: &str = "// ---- matrix-product parameters";
const BLOCK_END: &str = "// ---- end of matrix-product parameters ----\n";

/// The matrix-product accessor functions of shaders/linalg.wgsl (`dim_m()` ...), which the
/// generated cooperative-matrix kernel embeds so that they are declared in one place.
pub(crate) fn accessors() -> &'static str {
    let start = SRC
        .find(BLOCK_BEGIN)
        .expect("shaders/linalg.wgsl declares the matrix-product accessors");
    let len = SRC[start..]
        .find(BLOCK_END)
        .expect("the accessor block of shaders/linalg.wgsl ends")
        + BLOCK_END.len();
    &SRC[start..start + len]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each field lands in the slot its accessor reads.
    #[test]
    fn fields_land_in_their_accessors_slots() {
        let strides = [vec![6, 0], vec![0, 10]];
        let p = MatmulParams {
            batches: 6,
            batch_shape: &[2, 3],
            batch_strides: &strides,
            offset_a: 1,
            offset_b: 2,
            m: 3,
            n: 4,
            k: 5,
            lda: 7,
            ldb: 8,
            first_tile_m: 9,
            first_tile_n: 11,
            first_batch: 12,
        }
        .encode();
        assert_eq!((p.n, p.ndim, p.offs[..2].to_vec()), (6, 2, vec![1, 2]));
        assert_eq!(p.aux, [9, 11]);
        assert_eq!(p.strides[2][..6], [3, 4, 5, 7, 8, 12]);
        assert_eq!((p.strides[0][0], p.strides[1][1]), (6, 10));
        let block = accessors();
        for (name, slot) in [
            ("dim_m", "P.st2[0].x"),
            ("dim_n", "P.st2[0].y"),
            ("dim_k", "P.st2[0].z"),
            ("ld_a", "P.st2[0].w"),
            ("ld_b", "P.st2[1].x"),
            ("first_batch", "P.st2[1].y"),
            ("first_tile_m", "P.aux.x"),
            ("first_tile_n", "P.aux.y"),
        ] {
            let decl = format!("fn {name}() -> u32 {{ return {slot}; }}");
            assert!(block.contains(&decl), "{decl}");
        }
        let t = TraceParams {
            count: 3,
            offset: 4,
            len: 5,
            matrix_stride: 6,
            step: 7,
        }
        .encode();
        assert_eq!((t.n, t.offs[0], t.aux[0]), (3, 4, 5));
        assert_eq!(t.strides[2][..2], [6, 7]);
        for decl in [
            "fn trace_len() -> u32 { return P.aux.x; }",
            "fn trace_matrix_stride() -> u32 { return P.st2[0].x; }",
            "fn trace_step() -> u32 { return P.st2[0].y; }",
        ] {
            assert!(SRC.contains(decl), "{decl}");
        }
    }
}
