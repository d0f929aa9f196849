//! `multi_dot`: the product of a chain of matrices in the order of fewest multiplications,
//! found by the classic O(n^3) dynamic programme over the chain's dimensions.

use crate::dtype::accepts;
use crate::{Array, Element, Error, Result};

/// NumPy's `linalg.multi_dot`: the product `arrays[0] @ arrays[1] @ ... @ arrays[n-1]`,
/// evaluated in the parenthesisation of fewest scalar multiplications (the dynamic
/// programme of Cormen et al., O(n^3) in the chain's length, on the host from the shapes
/// alone), each product one [`Array::matmul`].
///
/// Every array is 2-D but the first, which may be 1-D (a row vector: the result loses its
/// first axis) and the last, which may be 1-D (a column vector: the result loses its last
/// axis); both 1-D gives a 0-d array. The result is a new array of the operands' type.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than 2 arrays, or an array of another number of
/// dimensions than the above; [`Error::ShapeMismatch`] when neighbours' inner extents
/// differ (naming the pair); [`Error::Unsupported`] for a dtype other than f16, f32, f64,
/// i32 and u32 or one the adapter lacks; [`Error::DeviceMismatch`].
///
/// ```
/// use gpuarray::linalg::multi_dot;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.ones::<f32>([10, 100])?;
/// let b = dev.ones::<f32>([100, 5])?;
/// let c = dev.ones::<f32>([5, 50])?;
/// // (a b) c: 5,000 + 2,500 multiplications, against 25,000 + 50,000 for a (b c)
/// let r = multi_dot(&[&a, &b, &c])?;
/// assert_eq!(r.shape(), &[10, 50]);
/// assert_eq!(r.to_vec()?[0], 500.0);
/// let v = dev.ones::<f32>([10])?;
/// let w = dev.ones::<f32>([50])?;
/// assert_eq!(multi_dot(&[&v, &a, &b, &c, &w])?.to_scalar()?, 250_000.0);
/// assert!(multi_dot(&[&a]).is_err());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn multi_dot<T: Element>(arrays: &[&Array<T>]) -> Result<Array<T>> {
    let op = "multi_dot";
    let n = arrays.len();
    if n < 2 {
        return Err(Error::InvalidArgument {
            op,
            reason: "needs at least 2 arrays",
        });
    }
    let dev = arrays[0].device();
    let others: Vec<&crate::Device> = arrays[1..].iter().map(|a| a.device()).collect();
    dev.expect_same(op, &others)?;
    dev.accept(op, T::DTYPE, accepts::arith32)?;
    // Every operand as a matrix: a 1-D first as a row, a 1-D last as a column (views).
    let mut mats = Vec::with_capacity(n);
    for (k, a) in arrays.iter().enumerate() {
        let m = match (a.ndim(), k) {
            (2, _) => (*a).clone(),
            (1, 0) => a.view(vec![1, a.len()], vec![0, a.strides()[0]], a.offset()),
            (1, k) if k == n - 1 => a.view(vec![a.len(), 1], vec![a.strides()[0], 0], a.offset()),
            _ => {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "takes 2-D arrays, the first and the last may be 1-D",
                });
            }
        };
        mats.push(m);
    }
    for k in 1..n {
        if mats[k - 1].shape()[1] != mats[k].shape()[0] {
            return Err(Error::ShapeMismatch {
                op,
                lhs: arrays[k - 1].shape().to_vec(),
                rhs: arrays[k].shape().to_vec(),
            });
        }
    }
    let mut dims: Vec<usize> = mats.iter().map(|m| m.shape()[0]).collect();
    dims.push(mats[n - 1].shape()[1]);
    let split = order(&dims);
    let r = product(&mats, &split, 0, n - 1)?;
    let mut shape = Vec::new();
    if arrays[0].ndim() == 2 {
        shape.push(dims[0]);
    }
    if arrays[n - 1].ndim() == 2 {
        shape.push(dims[n]);
    }
    r.reshape(shape)
}

/// The dynamic programme: for the chain of matrices `dims[k] x dims[k + 1]`, `split[i][j]`
/// is where the cheapest product of matrices `i..=j` splits (`(i..=s)(s+1..=j)`).
pub(crate) fn order(dims: &[usize]) -> Vec<Vec<usize>> {
    let n = dims.len() - 1;
    let mut cost = vec![vec![0f64; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 1..n {
        for i in 0..n - len {
            let j = i + len;
            cost[i][j] = f64::INFINITY;
            for s in i..j {
                let c = cost[i][s]
                    + cost[s + 1][j]
                    + dims[i] as f64 * dims[s + 1] as f64 * dims[j + 1] as f64;
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = s;
                }
            }
        }
    }
    split
}

/// The product of matrices `i..=j` in the order of `split`.
fn product<T: Element>(
    mats: &[Array<T>],
    split: &[Vec<usize>],
    i: usize,
    j: usize,
) -> Result<Array<T>> {
    if i == j {
        return Ok(mats[i].clone());
    }
    let s = split[i][j];
    product(mats, split, i, s)?.matmul(&product(mats, split, s + 1, j)?)
}

#[cfg(test)]
mod tests {
    use super::order;

    #[test]
    fn the_textbook_chain() {
        // CLRS 15.2: 30x35, 35x15, 15x5, 5x10, 10x20, 20x25 is ((A1 (A2 A3)) ((A4 A5) A6)).
        let s = order(&[30, 35, 15, 5, 10, 20, 25]);
        assert_eq!(s[0][5], 2);
        assert_eq!(s[0][2], 0);
        assert_eq!(s[3][5], 4);
        assert_eq!(s[1][2], 1);
    }
}
