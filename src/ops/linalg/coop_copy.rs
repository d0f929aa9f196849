//! The tile copies of the cooperative-matrix kernel that [`super::coop_gen`] generates:
//! for one operand, the global loads of a step into registers (chunks of 4 or 8 halves,
//! loaded whole or in narrower loads, each tested against the edges of the matrix) and the
//! stores of the registers into workgroup memory.

use std::fmt::Write;

/// Appends one formatted line to a `String` (which cannot fail to grow).
macro_rules! emit {
    ($w:expr, $($fmt:tt)*) => {
        writeln!($w, $($fmt)*).expect("writing to a String")
    };
}

/// One operand's tile copy: global loads into registers, stores into workgroup memory.
pub(super) struct TileCopy {
    /// `a` or `b`.
    pub src: &'static str,
    /// Chunks in the tile (each invocation copies ceil(chunks / wg)).
    pub chunks: u32,
    /// Chunks per stored row.
    pub per_row: u32,
    /// Row stride of the stored tile, in `vec4<f16>` units.
    pub stride: u32,
    /// Halves per chunk (4 or 8) and per global load (1, 2, 4 or 8; at most `chunk`).
    pub chunk: u32,
    pub load: u32,
    /// Workgroup size.
    pub wg: u32,
    /// For chunk (o, i) of the step at `k0`: the outer bound test, the inner index of its
    /// first half and the inner bound, and its address in halves.
    pub bounds: [&'static str; 4],
}

impl TileCopy {
    pub(super) fn new(
        src: &'static str,
        (outer, inner): (u32, u32),
        load: u32,
        wg: u32,
    ) -> TileCopy {
        let chunk = load.max(4);
        TileCopy {
            src,
            chunks: outer * inner / chunk,
            per_row: inner / chunk,
            stride: inner / 4 + 2,
            chunk,
            load,
            wg,
            bounds: [""; 4],
        }
    }

    /// Loads per invocation.
    fn n(&self) -> u32 {
        self.chunks.div_ceil(self.wg)
    }

    /// The test that chunk `c` of load j exists (the last load of a tile that does not
    /// divide among the invocations).
    fn exists(&self, j: u32) -> Option<String> {
        ((j + 1) * self.wg > self.chunks).then(|| format!("c < {}u", self.chunks))
    }

    /// The WGSL type of one global load.
    pub(super) fn load_ty(&self) -> &'static str {
        match self.load {
            8 => "H8",
            4 => "vec4<f16>",
            2 => "vec2<f16>",
            _ => "f16",
        }
    }

    /// The WGSL type of one chunk (a register).
    fn chunk_ty(&self) -> &'static str {
        if self.chunk == 8 {
            "H8"
        } else {
            "vec4<f16>"
        }
    }

    /// The loads of one chunk into `v` (zero-initialised), inside the outer bound test.
    fn chunk_loads(&self) -> String {
        let [_, start, bound, _] = self.bounds;
        let (src, l) = (self.src, self.load);
        if l == self.chunk {
            return format!("if ({start} < {bound}) {{ v = {src}[p / {l}u]; }}");
        }
        (0..4 / l)
            .map(|q| {
                let h = q * l;
                let set = if l == 2 {
                    format!(
                        "let x = {src}[(p + {h}u) / 2u]; v[{h}] = x.x; v[{}] = x.y;",
                        h + 1
                    )
                } else {
                    format!("v[{h}] = {src}[p + {h}u];")
                };
                format!("if ({start} + {h}u < {bound}) {{ {set} }}")
            })
            .collect::<Vec<_>>()
            .join("\n                ")
    }

    /// The global loads of register set `set`.
    pub(super) fn fetch(&self, w: &mut String, set: u32) {
        let [outer_ok, _, _, addr] = self.bounds;
        let loads = self.chunk_loads();
        for j in 0..self.n() {
            let ok = match self.exists(j) {
                Some(e) => format!("{e} && {outer_ok}"),
                None => outer_ok.to_string(),
            };
            emit!(
                w,
                "        {{
            let c = tid + {off}u;
            let o = c / {ipr}u;
            let i = c % {ipr}u * {u}u;
            var v = {ty}();
            if ({ok}) {{
                let p = {addr};
                {loads}
            }}
            r{src}{set}_{j} = v;
        }}",
                src = self.src,
                off = j * self.wg,
                ipr = self.per_row,
                u = self.chunk,
                ty = self.chunk_ty(),
            );
        }
    }

    /// The stores of register set `set` into the stage at `base` (in `vec4<f16>` units).
    pub(super) fn store(&self, w: &mut String, set: u32, base: &str) {
        for j in 0..self.n() {
            let mut st = if self.chunk == 8 {
                format!(
                    "sh[d] = r{0}{set}_{j}.lo; sh[d + 1u] = r{0}{set}_{j}.hi;",
                    self.src
                )
            } else {
                format!("sh[d] = r{}{set}_{j};", self.src)
            };
            if let Some(e) = self.exists(j) {
                st = format!("if ({e}) {{ {st} }}");
            }
            emit!(
                w,
                "        {{
            let c = tid + {off}u;
            let d = {base} + (c / {ipr}u) * {stride}u + (c % {ipr}u) * {q}u;
            {st}
        }}",
                off = j * self.wg,
                ipr = self.per_row,
                stride = self.stride,
                q = self.chunk / 4,
            );
        }
    }

    /// The registers of set `set`.
    pub(super) fn declare(&self, w: &mut String, set: u32) {
        for j in 0..self.n() {
            emit!(w, "    var r{}{set}_{j}: {};", self.src, self.chunk_ty());
        }
    }
}
