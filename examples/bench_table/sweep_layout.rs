//! `--sweep layout`: operands and reductions in layouts other than the plain contiguous one,
//! beside the CuPy peer's same rows (`benches/peers/cupy_sweeps.py --sweep layout`, module
//! `cupy_sweep_layout.py`), all f32:
//! - `copy_f32_64M`: a plain copy (`add_scalar(0)`), whose bandwidth gives every row's
//!   floor: the bytes the row moves over that bandwidth, in the row's note;
//! - `transpose_add_f32_RxC` (`a.t() + b`, `a` of C x R) and `transpose_copy_f32_RxC`
//!   (`a.t().contiguous()`) for square, odd and flat shapes;
//! - `add_permP_f32_S` (`a.transpose(P) + b`) and `copy_permP_f32_S`
//!   (`a.transpose(P).contiguous()`) of a 3-D and a 4-D shape, P the permutation's digits;
//! - `sum_axesA_f32_S` over every non-empty subset A of the axes of the same two shapes,
//!   `var_axisK_` / `std_axisK_` over each axis of the 3-D one;
//! - `argmax_f32_64M` / `argmin_f32_64M`, and `argmax_axisK_f32_S` / `argmin_axisK_` over
//!   each axis of a 2-D and a 3-D shape with odd extents.
//!
//! Bytes moved: every element read once and every output element written once (a
//! transposed operand's reads count once, though uncoalesced reads cost more); argmax
//! writes 8-byte (i64) indices, as CuPy.
//!
//! Quick mode keeps the row names and halves the largest extent of each shape until it has
//! at most 1/64 of its elements.

use gpuarray::{Array, Device};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of the copy and of the whole-array arg rows (64M).
const N: usize = 1 << 26;
/// The 2-D transposes: (rows, columns) of the result.
const TRANSPOSES: [[usize; 2]; 4] = [[4096, 4096], [8192, 8192], [8191, 4097], [1000, 30000]];
/// The 3-D and 4-D shapes of the permutations and the reductions.
const SHAPE3: [usize; 3] = [256, 512, 384];
const SHAPE4: [usize; 4] = [64, 96, 128, 80];
/// Permutations of the 3-D and 4-D shapes (the identity excluded).
const PERMS3: [[usize; 3]; 3] = [[0, 2, 1], [1, 0, 2], [2, 1, 0]];
const PERMS4: [[usize; 4]; 3] = [[0, 2, 1, 3], [0, 1, 3, 2], [3, 2, 1, 0]];
/// Shapes of the axis arg rows (odd extents).
const ARG2: [usize; 2] = [4099, 8191];
const ARG3: [usize; 3] = [255, 513, 383];

/// The rows' shared state: the device, quick mode, the copy's bandwidth (bytes per ms) and
/// the rows so far.
struct Sweep<'a> {
    dev: &'a Device,
    quick: bool,
    bandwidth: f64,
    rows: Vec<Row>,
}

/// `shape` with its largest extent halved until at most 1/QUICK_DIV of its elements remain
/// (quick mode), else itself.
fn sized(shape: &[usize], quick: bool) -> Vec<usize> {
    let mut s = shape.to_vec();
    let target = s.iter().product::<usize>() / QUICK_DIV;
    while quick && s.iter().product::<usize>() > target {
        let i = (0..s.len()).max_by_key(|&i| s[i]).unwrap_or(0);
        s[i] = s[i].div_ceil(2);
    }
    s
}

/// `8191x4097`.
fn dims(shape: &[usize]) -> String {
    let v: Vec<String> = shape.iter().map(|e| e.to_string()).collect();
    v.join("x")
}

/// `021`.
fn digits(v: &[usize]) -> String {
    v.iter().map(|d| d.to_string()).collect()
}

impl Sweep<'_> {
    /// Times `f` as row `name` moving `bytes`, with its floor in the note (skipped when
    /// `GPUARRAY_BENCH_ONLY` leaves it out).
    fn row<R>(
        &mut self,
        name: String,
        bytes: usize,
        f: impl FnMut() -> gpuarray::Result<R>,
    ) -> Res<()> {
        if !want(&name) {
            return Ok(());
        }
        let t = gpu_median(self.dev, f)?;
        let floor = bytes as f64 / self.bandwidth;
        self.rows.push(Row {
            name,
            ms: t,
            bytes: Some(bytes as u64),
            note: format!(
                "floor {floor:.4} ms = bytes / copy bandwidth ({:.2}x of it)",
                t / floor
            ),
        });
        Ok(())
    }

    fn input(&self, shape: &[usize], seed: u64) -> Res<Array<f32>> {
        Ok(self.dev.random_uniform::<f32>(shape.to_vec(), seed)?)
    }

    /// The plain copy first: its bandwidth gives the floors.
    fn copy(&mut self) -> Res<()> {
        let n = if self.quick { N / QUICK_DIV } else { N };
        let a = self.input(&[n], 1)?;
        let bytes = 8 * n;
        let t = gpu_median(self.dev, || a.add_scalar(0.0))?;
        self.bandwidth = bytes as f64 / t;
        self.rows.push(Row {
            name: "copy_f32_64M".into(),
            ms: t,
            bytes: Some(bytes as u64),
            note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
        });
        Ok(())
    }

    /// `a.transpose(perm) + b` and `a.transpose(perm).contiguous()`, the result of `shape`
    /// (full size) and named `tag`.
    fn permuted(&mut self, shape: &[usize], perm: &[usize], tag: &str) -> Res<()> {
        let s = sized(shape, self.quick);
        // a's shape: the result's axes put back where the permutation takes them from.
        let mut src = vec![0; s.len()];
        for (d, &p) in perm.iter().enumerate() {
            src[p] = s[d];
        }
        let a = self.input(&src, 2)?;
        let b = self.input(&s, 3)?;
        let n: usize = s.iter().product();
        let (add, copy) = if perm.len() == 2 {
            ("transpose_add".to_string(), "transpose_copy".to_string())
        } else {
            (format!("add_perm{tag}"), format!("copy_perm{tag}"))
        };
        let suffix = format!("f32_{}", dims(shape));
        self.row(format!("{add}_{suffix}"), 12 * n, || {
            a.transpose(perm)?.add(&b)
        })?;
        self.row(format!("{copy}_{suffix}"), 8 * n, || {
            a.transpose(perm)?.contiguous()
        })
    }

    /// Sums over every non-empty subset of the axes of `shape`.
    fn sums(&mut self, shape: &[usize]) -> Res<()> {
        let s = sized(shape, self.quick);
        let a = self.input(&s, 4)?;
        let n: usize = s.iter().product();
        for mask in 1..(1usize << s.len()) {
            let axes: Vec<usize> = (0..s.len()).filter(|d| mask >> d & 1 == 1).collect();
            let outs: usize = (0..s.len())
                .filter(|d| mask >> d & 1 == 0)
                .map(|d| s[d])
                .product();
            let name = format!("sum_axes{}_f32_{}", digits(&axes), dims(shape));
            self.row(name, 4 * (n + outs), || a.sum_axis(&axes, false))?;
        }
        Ok(())
    }

    /// Rows `{op}_axisK_f32_{shape}` for each axis K of `shape` and each op of `ops`:
    /// `f(a, k, i)` runs op i over axis k of a random array.
    fn per_axis<O: gpuarray::Element>(
        &mut self,
        shape: &[usize],
        ops: [&str; 2],
        f: impl Fn(&Array<f32>, usize, usize) -> gpuarray::Result<Array<O>>,
    ) -> Res<()> {
        let s = sized(shape, self.quick);
        let a = self.input(&s, 5)?;
        let n: usize = s.iter().product();
        for (k, &e) in s.iter().enumerate() {
            for (i, op) in ops.iter().enumerate() {
                let name = format!("{op}_axis{k}_f32_{}", dims(shape));
                let out = std::mem::size_of::<O>() * (n / e);
                self.row(name, 4 * n + out, || f(&a, k, i))?;
            }
        }
        Ok(())
    }

    /// var and std over each axis of `shape` (two passes over the input: bytes counted
    /// once, as the peer's).
    fn moments(&mut self, shape: &[usize]) -> Res<()> {
        self.per_axis(shape, ["var", "std"], |a, k, i| {
            if i == 0 {
                a.var_axis([k], 0, false)
            } else {
                a.std_axis([k], 0, false)
            }
        })
    }

    /// argmax and argmin over the whole array (64M) and each axis of the 2-D and 3-D shapes.
    fn args(&mut self) -> Res<()> {
        let n = if self.quick { N / QUICK_DIV } else { N };
        let a = self.input(&[n], 6)?;
        self.row("argmax_f32_64M".into(), 4 * n + 8, || a.argmax())?;
        self.row("argmin_f32_64M".into(), 4 * n + 8, || a.argmin())?;
        for shape in [&ARG2[..], &ARG3[..]] {
            self.per_axis(shape, ["argmax", "argmin"], |a, k, i| {
                if i == 0 {
                    a.argmax_axis(k, false)
                } else {
                    a.argmin_axis(k, false)
                }
            })?;
        }
        Ok(())
    }
}

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let mut s = Sweep {
        dev,
        quick,
        bandwidth: 1.0,
        rows: Vec::new(),
    };
    s.copy()?;
    for shape in TRANSPOSES {
        s.permuted(&shape, &[1, 0], "10")?;
    }
    for perm in PERMS3 {
        s.permuted(&SHAPE3, &perm, &digits(&perm))?;
    }
    for perm in PERMS4 {
        s.permuted(&SHAPE4, &perm, &digits(&perm))?;
    }
    s.sums(&SHAPE3)?;
    s.sums(&SHAPE4)?;
    s.moments(&SHAPE3)?;
    s.args()?;
    Ok(s.rows)
}
