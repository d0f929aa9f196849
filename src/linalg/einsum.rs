//! `einsum`: NumPy's Einstein summation, run as views (diagonals are strided views, a
//! broadcast axis a dropped one), sums over the indices one operand alone carries
//! ([`Array::sum_axis`]) and pairwise batched products ([`Array::matmul`]) in the order the
//! plan of `einsum_parse` found. No kernel is compiled for a call: every step is one the
//! library already has.

use std::collections::BTreeMap;

use super::einsum_parse::{EinsumState, Label, Plan};
use crate::dtype::accepts;
use crate::{Array, Element, Result};

/// NumPy's `einsum(subscripts, *operands)`: the sum over the indices the output does not
/// name of the products of the operands' elements, each operand's axes labelled by the
/// letters of its term.
///
/// - `"ij,jk->ik"` a matrix product, `"bij,bjk->bik"` a batched one, `"ij,j->i"` a
///   matrix-vector product, `"i,j->ij"` an outer product, `"bi,bi->b"` dots of rows;
/// - `"ii->i"` a diagonal, `"ii"` (or `"ii->"`) a trace, an index repeated in one term
///   taking the diagonal over its axes; `"ij->i"` a sum over `j`, `"ij->ji"` a transpose;
/// - `"...ij,...jk"`: the ellipsis stands for the axes the letters leave, broadcast
///   across the operands as NumPy's (an explicit output must name `...` where it covers
///   any axis, as NumPy's);
/// - without `->`, the output is the ellipsis's axes, then the indices appearing once over
///   all the terms, in alphabetical (ASCII) order: `"ij,jk"` is `"ij,jk->ik"`, `"ji"` is
///   `"ji->ij"`;
/// - an axis of extent 1 broadcasts against the same index's longer extent elsewhere.
///
/// Spaces are ignored. Any number of operands: they are contracted two at a time in the
/// order NumPy's `optimize='greedy'` picks (the pair whose product is smallest against its
/// inputs first), each contraction one batched [`Array::matmul`] of views (a copy only
/// where an operand's axes cannot be merged in place). The plan (the labels, the extents
/// and the order) is made once per subscripts and shapes and kept by the device.
///
/// The result is always a new array, of the operands' type. Integers wrap on overflow; f16
/// accumulates its products in f32 as [`Array::matmul`] does. The order of summation is
/// the products' and reductions' (not NumPy's), so floats agree with NumPy's to rounding.
///
/// # Errors
/// [`crate::Error::Einsum`] (with the facts: the operand, the index, the extents) for
/// subscripts that are not letters, `...`, `,` and one `->`, for an operand count or
/// number of dimensions other than the subscripts name, for an output index repeated or
/// in no input, for an explicit output without `...` where the inputs' `...` covers
/// dimensions, and for an index whose extents differ (neither being 1);
/// [`crate::Error::InvalidArgument`] for no operands; [`crate::Error::Unsupported`] for a
/// dtype other than f16, f32, f64, i32 and u32 (the products' arithmetic types) or one
/// the adapter lacks; [`crate::Error::DeviceMismatch`] for operands of two devices.
///
/// ```
/// use gpuarray::linalg::einsum;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
/// let b = dev.from_slice(&[1.0f32, 0.0, 1.0, 1.0], [2, 2])?;
/// assert_eq!(einsum("ij,jk->ik", &[&a, &b])?.to_vec()?, vec![3.0, 2.0, 7.0, 4.0]);
/// assert_eq!(einsum("ii", &[&a])?.to_scalar()?, 5.0); // trace
/// assert_eq!(einsum("ii->i", &[&a])?.to_vec()?, vec![1.0, 4.0]); // diagonal
/// assert_eq!(einsum("ij->j", &[&a])?.to_vec()?, vec![4.0, 6.0]); // column sums
/// assert_eq!(einsum("ji", &[&a])?.to_vec()?, vec![1.0, 3.0, 2.0, 4.0]); // transpose
/// // a stack of products with the ellipsis; three operands contracted pairwise
/// let s = dev.ones::<f32>([3, 2, 2])?;
/// assert_eq!(einsum("...ij,...jk", &[&s, &b])?.shape(), &[3, 2, 2]);
/// let v = dev.from_slice(&[1.0f32, 1.0], [2])?;
/// assert_eq!(einsum("i,ij,j->", &[&v, &a, &v])?.to_scalar()?, 10.0);
/// assert!(einsum("ij,jk", &[&a]).is_err()); // two terms, one operand
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn einsum<T: Element>(subscripts: &str, operands: &[&Array<T>]) -> Result<Array<T>> {
    let op = "einsum";
    let Some(first) = operands.first() else {
        return Err(crate::Error::InvalidArgument {
            op,
            reason: "needs at least one operand",
        });
    };
    let dev = first.device();
    let others: Vec<&crate::Device> = operands[1..].iter().map(|a| a.device()).collect();
    dev.expect_same(op, &others)?;
    dev.accept(op, T::DTYPE, accepts::arith32)?;
    let shapes: Vec<Vec<usize>> = operands.iter().map(|a| a.shape().to_vec()).collect();
    let plan = dev.state::<EinsumState>().plan(subscripts, &shapes)?;
    run(&plan, operands)
}

/// An operand or an intermediate product: its array and the label of each axis (each once).
struct Term<T: Element> {
    arr: Array<T>,
    labels: Vec<Label>,
    /// Whether `arr` is a new array rather than a view of an operand.
    owned: bool,
}

/// Runs `plan` over the operands.
fn run<T: Element>(plan: &Plan, operands: &[&Array<T>]) -> Result<Array<T>> {
    let output = &plan.output;
    let mut terms: Vec<Term<T>> = Vec::with_capacity(operands.len());
    for (k, a) in operands.iter().enumerate() {
        let needed = |l: Label| {
            output.contains(&l)
                || plan
                    .inputs
                    .iter()
                    .enumerate()
                    .any(|(o, t)| o != k && t.contains(&l))
        };
        terms.push(reduce_operand(a, &plan.inputs[k], &plan.extents, &needed)?);
    }
    for (step, &(i, j)) in plan.path.iter().enumerate() {
        let b = terms.remove(j);
        let a = terms.remove(i);
        let keep = |l: Label| output.contains(&l) || terms.iter().any(|t| t.labels.contains(&l));
        let last = step + 1 == plan.path.len();
        terms.push(contract(a, b, &keep, last.then_some(output.as_slice()))?);
    }
    let t = terms.pop().expect("the path leaves one term");
    // The labels the output does not name are summed, the rest put in the output's order.
    let t = sum_out(t, &|l| output.contains(&l))?;
    let perm: Vec<usize> = output
        .iter()
        .map(|l| {
            t.labels
                .iter()
                .position(|m| m == l)
                .expect("an output label")
        })
        .collect();
    let arr = t.arr.transpose(&perm)?;
    if t.owned {
        arr.contiguous()
    } else {
        arr.copy()
    }
}

/// An operand reduced to its own labels: diagonals as strided views (one axis whose stride
/// is the sum of the repeated axes' strides), axes of extent 1 broadcast against a longer
/// extent dropped, and the labels nothing else needs summed.
fn reduce_operand<T: Element>(
    a: &Array<T>,
    labels: &[Label],
    extents: &BTreeMap<Label, usize>,
    needed: &dyn Fn(Label) -> bool,
) -> Result<Term<T>> {
    let (mut shape, mut strides, mut own) = (Vec::new(), Vec::new(), Vec::new());
    for (d, &l) in labels.iter().enumerate() {
        let n = a.shape()[d];
        if n == 1 && extents[&l] != 1 {
            continue;
        }
        match own.iter().position(|&m| m == l) {
            Some(p) => strides[p] += a.strides()[d],
            None => {
                own.push(l);
                shape.push(n);
                strides.push(a.strides()[d]);
            }
        }
    }
    let t = Term {
        arr: a.view(shape, strides, a.offset()),
        labels: own,
        owned: false,
    };
    sum_out(t, needed)
}

/// `t` with the labels `keep` refuses summed away.
fn sum_out<T: Element>(t: Term<T>, keep: &dyn Fn(Label) -> bool) -> Result<Term<T>> {
    let axes: Vec<usize> = (0..t.labels.len())
        .filter(|&d| !keep(t.labels[d]))
        .collect();
    if axes.is_empty() {
        return Ok(t);
    }
    Ok(Term {
        arr: t.arr.sum_axis(&axes, false)?,
        labels: t.labels.into_iter().filter(|&l| keep(l)).collect(),
        owned: true,
    })
}

/// The labels of `t` in `subset`, ordered by decreasing stride (the order that merges in
/// place most often).
fn by_stride<T: Element>(t: &Term<T>, subset: &[Label]) -> Vec<Label> {
    let mut v = subset.to_vec();
    let stride = |l: &Label| {
        let d = t.labels.iter().position(|m| m == l).expect("a label of t");
        t.arr.strides()[d].unsigned_abs()
    };
    v.sort_by_key(|l| std::cmp::Reverse(stride(l)));
    v
}

/// The product of two terms summed over the labels they share that `keep` refuses: one
/// batched matmul `[batch, M, K] @ [batch, K, N]`, the shared kept labels the batch, each
/// term's own labels its rows (M) or columns (N), the summed ones K; where neither term
/// has labels of its own, an elementwise product summed over K. With `output` (the
/// last contraction) the labels are ordered as the output orders them where they can be,
/// so that no copy follows.
fn contract<T: Element>(
    a: Term<T>,
    b: Term<T>,
    keep: &dyn Fn(Label) -> bool,
    output: Option<&[Label]>,
) -> Result<Term<T>> {
    let (la, lb) = (a.labels.clone(), b.labels.clone());
    let a = sum_out(a, &|l| keep(l) || lb.contains(&l))?;
    let b = sum_out(b, &|l| keep(l) || la.contains(&l))?;
    let shared: Vec<Label> = a
        .labels
        .iter()
        .copied()
        .filter(|l| b.labels.contains(l))
        .collect();
    let batch: Vec<Label> = shared.iter().copied().filter(|&l| keep(l)).collect();
    let sum: Vec<Label> = shared.iter().copied().filter(|&l| !keep(l)).collect();
    let only = |t: &Term<T>| -> Vec<Label> {
        t.labels
            .iter()
            .copied()
            .filter(|l| !shared.contains(l))
            .collect()
    };
    let (mut af, mut bf) = (by_stride(&a, &only(&a)), by_stride(&b, &only(&b)));
    let mut batch = by_stride(&a, &batch);
    let sum = by_stride(&a, &sum);
    let (mut a, mut b) = (a, b);
    if let Some(out) = output {
        let pos = |l: &Label| out.iter().position(|m| m == l).unwrap_or(usize::MAX);
        for v in [&mut batch, &mut af, &mut bf] {
            v.sort_by_key(pos);
        }
        // The output's order is b's labels before a's: C^T = B^T A^T.
        if let (Some(x), Some(y)) = (af.first(), bf.first())
            && pos(y) < pos(x)
        {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut af, &mut bf);
        }
    }
    if af.is_empty() && bf.is_empty() {
        // No rows and no columns (dots of rows, a Hadamard product): the product is
        // elementwise, then summed over `sum`. A matmul of 1 x K by K x 1 matrices per
        // batch would leave the product kernels idle.
        let order: Vec<Label> = batch.iter().chain(&sum).copied().collect();
        let pa: Vec<usize> = order.iter().map(|&l| index(&a, l)).collect();
        let pb: Vec<usize> = order.iter().map(|&l| index(&b, l)).collect();
        let prod = a.arr.transpose(&pa)?.mul(&b.arr.transpose(&pb)?)?;
        let axes: Vec<usize> = (batch.len()..order.len()).collect();
        let arr = if axes.is_empty() {
            prod
        } else {
            prod.sum_axis(&axes, false)?
        };
        return Ok(Term {
            arr,
            labels: batch,
            owned: true,
        });
    }
    let extent = |t: &Term<T>, l: &Label| t.arr.shape()[index(t, *l)];
    let mut shape: Vec<usize> = batch.iter().map(|l| extent(&a, l)).collect();
    shape.extend(af.iter().map(|l| extent(&a, l)));
    shape.extend(bf.iter().map(|l| extent(&b, l)));
    // The batch as one axis where it is in both, else as it is in both (broadcast alike).
    let in_place = |t: &Term<T>| {
        let axes: Vec<(usize, isize)> = batch
            .iter()
            .map(|&l| (t.arr.shape()[index(t, l)], t.arr.strides()[index(t, l)]))
            .collect();
        merged(&axes).is_some()
    };
    let one_batch = in_place(&a) && in_place(&b);
    let am = grouped(&a, &[&batch, &af, &sum], one_batch)?;
    let bm = grouped(&b, &[&batch, &sum, &bf], one_batch)?;
    let c = am.matmul(&bm)?;
    let mut labels = batch;
    labels.extend(af);
    labels.extend(bf);
    Ok(Term {
        arr: c.reshape(shape)?,
        labels,
        owned: true,
    })
}

fn index<T: Element>(t: &Term<T>, l: Label) -> usize {
    t.labels
        .iter()
        .position(|&m| m == l)
        .expect("a label of the term")
}

/// `t`'s axes in the order of `groups`, each group one axis (extent the product; an empty
/// group an axis of extent 1): a view where each group's axes merge in place, else a copy
/// in that order. The first group (the batch) stays several axes unless `one_batch`: the
/// product broadcasts over them.
fn grouped<T: Element>(t: &Term<T>, groups: &[&[Label]; 3], one_batch: bool) -> Result<Array<T>> {
    let perm: Vec<usize> = groups
        .iter()
        .flat_map(|g| g.iter().map(|&l| index(t, l)))
        .collect();
    let view = t.arr.transpose(&perm)?;
    let merge = |v: &Array<T>| -> Option<(Vec<usize>, Vec<isize>)> {
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        let mut d = 0;
        for (k, g) in groups.iter().enumerate() {
            let axes: Vec<(usize, isize)> = (d..d + g.len())
                .map(|x| (v.shape()[x], v.strides()[x]))
                .collect();
            d += g.len();
            if k == 0 && !one_batch {
                shape.extend(axes.iter().map(|x| x.0));
                strides.extend(axes.iter().map(|x| x.1));
                continue;
            }
            let (n, s) = merged(&axes)?;
            shape.push(n);
            strides.push(s);
        }
        Some((shape, strides))
    };
    if let Some((shape, strides)) = merge(&view) {
        return Ok(view.view(shape, strides, view.offset()));
    }
    let copy = view.contiguous()?;
    let (shape, strides) = merge(&copy).expect("a contiguous array merges");
    Ok(copy.view(shape, strides, copy.offset()))
}

/// The one axis `(extent, stride)` that these axes (outermost first) are in place, if they
/// are one: axes of extent 1 ignored, each other's stride the next one's times its extent.
fn merged(axes: &[(usize, isize)]) -> Option<(usize, isize)> {
    let n: usize = axes.iter().map(|x| x.0).product();
    if n == 0 {
        return Some((0, 1));
    }
    let live: Vec<&(usize, isize)> = axes.iter().filter(|x| x.0 != 1).collect();
    let Some(last) = live.last() else {
        return Some((n, 1));
    };
    for w in live.windows(2) {
        if w[0].1 != w[1].1 * w[1].0 as isize {
            return None;
        }
    }
    Some((n, last.1))
}

#[cfg(test)]
mod tests {
    use super::merged;

    #[test]
    fn axes_merge_in_place_only_when_their_strides_chain() {
        assert_eq!(merged(&[]), Some((1, 1)));
        assert_eq!(merged(&[(3, 4), (4, 1)]), Some((12, 1)));
        assert_eq!(merged(&[(3, 1), (4, 3)]), None);
        assert_eq!(merged(&[(3, 8), (1, 0), (4, 2)]), Some((12, 2)));
        assert_eq!(merged(&[(3, 8), (0, 1)]), Some((0, 1)));
    }
}
