//! `einsum`'s subscripts read once per (subscripts, shapes): every axis of every operand
//! labelled, each label's extent, the output's labels and the order of the pairwise
//! contractions (NumPy's `optimize='greedy'`). The result is a [`Plan`], kept per device.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

/// One index of the subscripts: an axis the ellipsis covers (`0..E`, right-aligned over
/// the operands, before every letter in the implicit output) or a letter (`LETTER + its
/// ASCII code`, in ASCII order as NumPy sorts them).
pub(crate) type Label = u16;
const LETTER: Label = 1000;

/// What running a contraction needs, found from the subscripts and the shapes alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Per operand, the label of each of its axes (a label repeated for a diagonal).
    pub inputs: Vec<Vec<Label>>,
    /// Each label's extent (broadcast: the extent other than 1 where there is one).
    pub extents: BTreeMap<Label, usize>,
    /// The output's labels, in order.
    pub output: Vec<Label>,
    /// The contractions in order: each removes terms `i < j` of the working list and
    /// appends their product (the operands first, each reduced to its own labels).
    pub path: Vec<(usize, usize)>,
}

/// The plans a device has made, by (subscripts, shapes); cleared when it holds
/// [`CACHED_PLANS`] (the device's typed state).
#[derive(Default)]
pub(crate) struct EinsumState {
    plans: Mutex<HashMap<PlanKey, Arc<Plan>>>,
}

/// A plan's key: the subscripts and the operands' shapes.
type PlanKey = (String, Vec<Vec<usize>>);

/// Whether label `l` is needed beyond terms `skip` of `terms` (by the output or another).
type NeededBy<'a> = &'a dyn Fn(&[Vec<Label>], &[usize], Label) -> bool;

/// The most plans a device keeps.
const CACHED_PLANS: usize = 512;

impl EinsumState {
    /// The plan of `subscripts` over operands of `shapes`, made once.
    pub fn plan(&self, subscripts: &str, shapes: &[Vec<usize>]) -> Result<Arc<Plan>> {
        let key = (subscripts.to_owned(), shapes.to_vec());
        if let Some(p) = lock(&self.plans).get(&key) {
            return Ok(p.clone());
        }
        let plan = Arc::new(make_plan(subscripts, shapes)?);
        let mut map = lock(&self.plans);
        if map.len() >= CACHED_PLANS {
            map.clear();
        }
        map.insert(key, plan.clone());
        Ok(plan)
    }

    /// How many plans are cached (tests).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        lock(&self.plans).len()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A label as the user wrote it, for messages.
pub(crate) fn show(l: Label) -> String {
    if l >= LETTER {
        format!("'{}'", char::from((l - LETTER) as u8))
    } else {
        format!("broadcast dimension {l} of '...'")
    }
}

/// One term of the subscripts: its letters before and after the ellipsis, if it has one.
struct Term {
    head: Vec<Label>,
    tail: Option<Vec<Label>>,
}

/// Reads one term (`"ij"`, `"...ij"`, `"i...j"`).
fn term(text: &str, fail: &dyn Fn(String) -> Error) -> Result<Term> {
    let (head, tail) = match text.find("...") {
        Some(p) => (&text[..p], Some(&text[p + 3..])),
        None => (text, None),
    };
    let letters = |s: &str| -> Result<Vec<Label>> {
        s.chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' => Ok(LETTER + c as Label),
                '.' => Err(fail(format!(
                    "'.' outside an ellipsis '...', or more than one ellipsis in {text:?}"
                ))),
                _ => Err(fail(format!(
                    "{c:?} is not an index (the indices are the letters a-z and A-Z)"
                ))),
            })
            .collect()
    };
    Ok(Term {
        head: letters(head)?,
        tail: tail.map(letters).transpose()?,
    })
}

/// Reads the subscripts against the operands' shapes and plans the contraction order.
pub(crate) fn make_plan(subscripts: &str, shapes: &[Vec<usize>]) -> Result<Plan> {
    let fail = |reason: String| Error::Einsum {
        subscripts: subscripts.to_owned(),
        reason,
    };
    let text: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match text.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (text.as_str(), None),
    };
    if lhs.contains(['-', '>']) || rhs.is_some_and(|r| r.contains(['-', '>', ','])) {
        return Err(fail(
            "'->' may appear once, between the inputs and the output (no ',' after it)".into(),
        ));
    }
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        return Err(fail(format!(
            "the subscripts name {} operand{}, {} given",
            terms.len(),
            if terms.len() == 1 { "" } else { "s" },
            shapes.len()
        )));
    }
    let parsed: Vec<Term> = terms
        .iter()
        .map(|t| term(t, &fail))
        .collect::<Result<_>>()?;
    // The dimensions each ellipsis covers, and their most (E).
    let mut ell = Vec::with_capacity(shapes.len());
    for (k, (t, s)) in parsed.iter().zip(shapes).enumerate() {
        let named = t.head.len() + t.tail.as_ref().map_or(0, Vec::len);
        let fits = match t.tail {
            Some(_) => named <= s.len(),
            None => named == s.len(),
        };
        if !fits {
            return Err(fail(format!(
                "operand {k} has {} dimension{}, its subscripts {:?} name {named}{}",
                s.len(),
                if s.len() == 1 { "" } else { "s" },
                terms[k],
                if t.tail.is_some() { " and more" } else { "" }
            )));
        }
        ell.push(s.len() - named);
    }
    let e = ell.iter().copied().max().unwrap_or(0);
    let inputs: Vec<Vec<Label>> = parsed
        .iter()
        .zip(&ell)
        .map(|(t, &k)| {
            let mut v = t.head.clone();
            if let Some(tail) = &t.tail {
                v.extend((e - k..e).map(|d| d as Label));
                v.extend(tail);
            }
            v
        })
        .collect();
    // Extents: equal within an operand (a diagonal), equal or 1 across operands.
    let mut extents: BTreeMap<Label, usize> = BTreeMap::new();
    let mut seen: BTreeMap<Label, (usize, usize)> = BTreeMap::new();
    for (k, (labels, s)) in inputs.iter().zip(shapes).enumerate() {
        let mut own: BTreeMap<Label, usize> = BTreeMap::new();
        for (&l, &n) in labels.iter().zip(s) {
            if let Some(&m) = own.get(&l)
                && m != n
            {
                return Err(fail(format!(
                    "index {} is repeated in operand {k} over extents {m} and {n} (a diagonal \
                     needs equal extents)",
                    show(l)
                )));
            }
            own.insert(l, n);
        }
        for (l, n) in own {
            match seen.get(&l) {
                Some(&(m, first)) if m != n && m != 1 && n != 1 => {
                    return Err(fail(format!(
                        "index {} has extent {m} in operand {first} and {n} in operand {k}",
                        show(l)
                    )));
                }
                Some(&(1, _)) | None => {
                    seen.insert(l, (n, k));
                }
                Some(_) => {}
            }
            let g = extents.entry(l).or_insert(n);
            if *g == 1 {
                *g = n;
            }
        }
    }
    let output = match rhs {
        Some(r) => {
            let t = term(r, &fail)?;
            let mut out = t.head.clone();
            match &t.tail {
                Some(tail) => {
                    out.extend((0..e).map(|d| d as Label));
                    out.extend(tail);
                }
                // NumPy's rule: the ellipsis's axes are not summed away silently.
                None if e > 0 => {
                    return Err(fail(format!(
                        "the inputs' '...' covers {e} dimension{}, the output has no '...' \
                         to keep them",
                        if e == 1 { "" } else { "s" }
                    )));
                }
                None => {}
            }
            for (i, &l) in out.iter().enumerate() {
                if out[..i].contains(&l) {
                    return Err(fail(format!("output index {} appears twice", show(l))));
                }
                if !extents.contains_key(&l) {
                    return Err(fail(format!(
                        "output index {} appears in no input",
                        show(l)
                    )));
                }
            }
            out
        }
        None => {
            // NumPy's implicit output: the broadcast dimensions, then the letters that
            // appear once over all the inputs, in ASCII order.
            let mut count: BTreeMap<Label, usize> = BTreeMap::new();
            for l in inputs.iter().flatten() {
                *count.entry(*l).or_default() += 1;
            }
            count
                .into_iter()
                .filter(|&(l, c)| l < LETTER || c == 1)
                .map(|(l, _)| l)
                .collect()
        }
    };
    let path = greedy(&inputs, shapes, &extents, &output);
    Ok(Plan {
        inputs,
        extents,
        output,
        path,
    })
}

/// The labels an operand keeps once reduced to its own: each once (diagonals taken), an
/// axis of extent 1 broadcast against a longer one dropped, and the labels no other
/// operand and not the output needs summed away. In order of first appearance.
pub(crate) fn reduced_labels(
    labels: &[Label],
    shape: &[usize],
    extents: &BTreeMap<Label, usize>,
    needed: &dyn Fn(Label) -> bool,
) -> Vec<Label> {
    let mut out = Vec::new();
    for (&l, &n) in labels.iter().zip(shape) {
        if out.contains(&l) || (n == 1 && extents[&l] != 1) || !needed(l) {
            continue;
        }
        out.push(l);
    }
    out
}

/// The number of elements of a term with these labels (f64: products of many extents).
fn size(labels: &[Label], extents: &BTreeMap<Label, usize>) -> f64 {
    labels.iter().map(|l| extents[l] as f64).product()
}

/// NumPy's greedy order: among the pairs of terms sharing an index, the one whose product
/// is smallest against its inputs (size of the result minus the sizes of the two), the
/// one of fewer multiplications on ties, then the first; with no pair sharing an index, the two smallest terms (an
/// outer product). Each contraction removes its two terms and appends its result.
fn greedy(
    inputs: &[Vec<Label>],
    shapes: &[Vec<usize>],
    extents: &BTreeMap<Label, usize>,
    output: &[Label],
) -> Vec<(usize, usize)> {
    let n = inputs.len();
    let needed_by = |terms: &[Vec<Label>], skip: &[usize], l: Label| {
        output.contains(&l)
            || terms
                .iter()
                .enumerate()
                .any(|(k, t)| !skip.contains(&k) && t.contains(&l))
    };
    let mut terms: Vec<Vec<Label>> = Vec::with_capacity(n);
    for k in 0..n {
        let reduced = reduced_labels(&inputs[k], &shapes[k], extents, &|l| {
            needed_by(inputs, &[k], l)
        });
        terms.push(reduced);
    }
    let mut path = Vec::new();
    while terms.len() > 1 {
        let mut best: Option<((f64, f64), usize, usize)> = None;
        for i in 0..terms.len() {
            for j in i + 1..terms.len() {
                if !terms[i].iter().any(|l| terms[j].contains(l)) {
                    continue;
                }
                let result = pair_labels(&terms, i, j, &needed_by);
                let removed =
                    size(&result, extents) - size(&terms[i], extents) - size(&terms[j], extents);
                let mut all = terms[i].clone();
                all.extend(terms[j].iter().filter(|l| !terms[i].contains(l)));
                let cost = (removed, size(&all, extents));
                if best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, i, j));
                }
            }
        }
        let (i, j) = match best {
            Some((_, i, j)) => (i, j),
            None => {
                let mut order: Vec<usize> = (0..terms.len()).collect();
                order.sort_by(|&a, &b| {
                    size(&terms[a], extents).total_cmp(&size(&terms[b], extents))
                });
                (order[0].min(order[1]), order[0].max(order[1]))
            }
        };
        let result = pair_labels(&terms, i, j, &needed_by);
        terms.remove(j);
        terms.remove(i);
        terms.push(result);
        path.push((i, j));
    }
    path
}

/// The labels of the product of terms `i` and `j`: theirs that the output or another term
/// needs.
fn pair_labels(terms: &[Vec<Label>], i: usize, j: usize, needed_by: NeededBy<'_>) -> Vec<Label> {
    let mut out: Vec<Label> = Vec::new();
    for &l in terms[i].iter().chain(&terms[j]) {
        if !out.contains(&l) && needed_by(terms, &[i, j], l) {
            out.push(l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(c: char) -> Label {
        LETTER + c as Label
    }

    #[test]
    fn implicit_output_and_ellipsis() {
        let p = make_plan("ba", &[vec![2, 3]]).unwrap();
        assert_eq!(p.output, vec![l('a'), l('b')]);
        let p = make_plan("...ij,...jk", &[vec![5, 2, 3], vec![4, 1, 3, 6]]).unwrap();
        assert_eq!(p.inputs[0], vec![1, l('i'), l('j')]);
        assert_eq!(p.inputs[1], vec![0, 1, l('j'), l('k')]);
        assert_eq!(p.output, vec![0, 1, l('i'), l('k')]);
        assert_eq!(p.extents[&1], 5);
        assert_eq!(make_plan("ii", &[vec![3, 3]]).unwrap().output, vec![]);
    }

    #[test]
    fn greedy_contracts_the_cheap_pair_first() {
        // (A B) v costs n^3 + n^2; A (B v) is two matrix-vector products: chosen.
        let p = make_plan("ij,jk,k->i", &[vec![64, 64], vec![64, 64], vec![64]]).unwrap();
        assert_eq!(p.path, vec![(1, 2), (0, 1)]);
    }

    #[test]
    fn bad_subscripts() {
        for (s, shapes) in [
            ("ij,jk", vec![vec![2, 2]]),
            ("i1", vec![vec![2, 2]]),
            ("i..j", vec![vec![2, 2]]),
            ("ij->ii", vec![vec![2, 2]]),
            ("ij->k", vec![vec![2, 2]]),
            ("ij->i->j", vec![vec![2, 2]]),
            ("ijk", vec![vec![2, 2]]),
            ("ij,jk", vec![vec![2, 3], vec![4, 2]]),
            ("ii", vec![vec![2, 3]]),
            ("...i->i", vec![vec![2, 3]]),
        ] {
            assert!(
                matches!(make_plan(s, &shapes), Err(Error::Einsum { .. })),
                "{s}"
            );
        }
    }

    #[test]
    fn the_cache_keeps_a_plan() {
        let st = EinsumState::default();
        let a = st.plan("ij,jk", &[vec![2, 3], vec![3, 4]]).unwrap();
        let b = st.plan("ij,jk", &[vec![2, 3], vec![3, 4]]).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(st.len(), 1);
    }
}
