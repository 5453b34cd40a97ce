//! Linear algebra beyond matmul: tensordot, einsum, norms, trace.

use crate::error::{Error, Result};
use crate::ops;
use crate::shape::ShapeDisplay;
use crate::tensor::Tensor;

fn isz(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&d| d as isize).collect()
}

/// `tf.tensordot`: contracts `a_axes` of `a` with `b_axes` of `b`.
pub fn tensordot(a: &Tensor, b: &Tensor, a_axes: &[isize], b_axes: &[isize]) -> Result<Tensor> {
    if a_axes.len() != b_axes.len() {
        return Err(Error::invalid(format!(
            "tensordot: {} axes of a but {} axes of b",
            a_axes.len(),
            b_axes.len()
        )));
    }
    let na: Vec<usize> = a_axes
        .iter()
        .map(|&x| crate::shape::normalize_axis(x, a.rank()))
        .collect::<Result<_>>()?;
    let nb: Vec<usize> = b_axes
        .iter()
        .map(|&x| crate::shape::normalize_axis(x, b.rank()))
        .collect::<Result<_>>()?;
    for (&i, &j) in na.iter().zip(&nb) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::invalid(format!(
                "tensordot: dimension {i} of a ({}) does not match dimension {j} of b ({}): shapes {} and {}",
                a.shape()[i],
                b.shape()[j],
                ShapeDisplay::of(a.shape()),
                ShapeDisplay::of(b.shape())
            )));
        }
    }
    let free_a: Vec<usize> = (0..a.rank()).filter(|k| !na.contains(k)).collect();
    let free_b: Vec<usize> = (0..b.rank()).filter(|k| !nb.contains(k)).collect();
    let k: usize = na.iter().map(|&i| a.shape()[i]).product();
    let m: usize = free_a.iter().map(|&i| a.shape()[i]).product();
    let n: usize = free_b.iter().map(|&i| b.shape()[i]).product();
    let pa: Vec<usize> = free_a.iter().chain(&na).copied().collect();
    let pb: Vec<usize> = nb.iter().chain(&free_b).copied().collect();
    let a2 = ops::reshape(&ops::transpose(a, Some(&pa))?, &[m as isize, k as isize])?;
    let b2 = ops::reshape(&ops::transpose(b, Some(&pb))?, &[k as isize, n as isize])?;
    let out_shape: Vec<usize> = free_a
        .iter()
        .map(|&i| a.shape()[i])
        .chain(free_b.iter().map(|&i| b.shape()[i]))
        .collect();
    ops::reshape(&ops::matmul(&a2, &b2)?, &isz(&out_shape))
}

/// Parses `"ij,jk->ik"` into input subscripts and the output subscript.
fn parse_einsum(eq: &str, n_inputs: usize) -> Result<(Vec<Vec<char>>, Vec<char>)> {
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let inputs: Vec<Vec<char>> = lhs.split(',').map(|s| s.chars().collect()).collect();
    if inputs.len() != n_inputs {
        return Err(Error::invalid(format!(
            "einsum: equation {eq:?} has {} inputs but {n_inputs} were given",
            inputs.len()
        )));
    }
    let rhs_chars: Vec<char> = rhs.as_deref().unwrap_or("").chars().collect();
    if inputs
        .iter()
        .flatten()
        .chain(&rhs_chars)
        .any(|c| !c.is_ascii_alphabetic())
    {
        return Err(Error::invalid(format!(
            "einsum: unsupported equation {eq:?} (letters only; no ellipsis)"
        )));
    }
    let output: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => {
            // Implicit mode: letters appearing once, sorted.
            let mut counts = std::collections::BTreeMap::new();
            for c in inputs.iter().flatten() {
                *counts.entry(*c).or_insert(0) += 1;
            }
            counts
                .into_iter()
                .filter(|&(_, n)| n == 1)
                .map(|(c, _)| c)
                .collect()
        }
    };
    Ok((inputs, output))
}

/// Reduces one operand: sums letters nobody else needs, takes diagonals of
/// repeated letters, and returns the tensor with its (unique) letters.
fn einsum_prepare(
    t: &Tensor,
    subs: &[char],
    keep: &dyn Fn(char) -> bool,
) -> Result<(Tensor, Vec<char>)> {
    if subs.len() != t.rank() {
        return Err(Error::invalid(format!(
            "einsum: subscript {:?} has {} letters for an operand of rank {}",
            subs.iter().collect::<String>(),
            subs.len(),
            t.rank()
        )));
    }
    let mut t = t.clone();
    let mut subs = subs.to_vec();
    // Repeated letters within an operand (a diagonal, as in "ii->i").
    while let Some((i, j)) = (0..subs.len()).find_map(|i| {
        (i + 1..subs.len())
            .find(|&j| subs[j] == subs[i])
            .map(|j| (i, j))
    }) {
        let n = t.shape()[i];
        if t.shape()[j] != n {
            return Err(Error::invalid(
                "einsum: repeated subscript with different dimensions",
            ));
        }
        let eye = ops::eye(n, n, &[], t.dtype())?;
        let mut shape = vec![1isize; t.rank()];
        shape[i] = n as isize;
        shape[j] = n as isize;
        t = ops::reduce_sum(
            &ops::mul(&t, &ops::reshape(&eye, &shape)?)?,
            Some(&[j as isize]),
            false,
        )?;
        subs.remove(j);
    }
    let drop: Vec<isize> = subs
        .iter()
        .enumerate()
        .filter(|(_, &c)| !keep(c))
        .map(|(i, _)| i as isize)
        .collect();
    if !drop.is_empty() {
        t = ops::reduce_sum(&t, Some(&drop), false)?;
        subs.retain(|&c| keep(c));
    }
    Ok((t, subs))
}

/// `tf.einsum` for one or two operands (letters only, implicit or explicit
/// output): contractions become a batched matmul.
pub fn einsum(equation: &str, inputs: &[Tensor]) -> Result<Tensor> {
    let (subs, out) = parse_einsum(equation, inputs.len())?;
    match inputs.len() {
        1 => {
            let (t, s) = einsum_prepare(&inputs[0], &subs[0], &|c| out.contains(&c))?;
            let perm: Vec<usize> = out
                .iter()
                .map(|c| {
                    s.iter().position(|x| x == c).ok_or_else(|| {
                        Error::invalid(format!("einsum: output letter {c} not in inputs"))
                    })
                })
                .collect::<Result<_>>()?;
            ops::transpose(&t, Some(&perm))
        }
        2 => {
            let (sa, sb) = (&subs[0], &subs[1]);
            let (a, la) = einsum_prepare(&inputs[0], sa, &|c| out.contains(&c) || sb.contains(&c))?;
            let (b, lb) = einsum_prepare(&inputs[1], sb, &|c| out.contains(&c) || sa.contains(&c))?;
            let batch: Vec<char> = la
                .iter()
                .filter(|c| lb.contains(c) && out.contains(c))
                .copied()
                .collect();
            let contract: Vec<char> = la
                .iter()
                .filter(|c| lb.contains(c) && !out.contains(c))
                .copied()
                .collect();
            let fa: Vec<char> = la.iter().filter(|c| !lb.contains(c)).copied().collect();
            let fb: Vec<char> = lb.iter().filter(|c| !la.contains(c)).copied().collect();
            let dim = |t: &Tensor, l: &[char], c: char| {
                t.shape()[l.iter().position(|&x| x == c).expect("letter present")]
            };
            for &c in batch.iter().chain(&contract) {
                if dim(&a, &la, c) != dim(&b, &lb, c) {
                    return Err(Error::invalid(format!(
                        "einsum: dimension of {c} differs between operands: {} vs {}",
                        dim(&a, &la, c),
                        dim(&b, &lb, c)
                    )));
                }
            }
            let pos = |l: &[char], cs: &[char]| {
                cs.iter()
                    .map(|c| l.iter().position(|x| x == c).expect("present"))
                    .collect::<Vec<_>>()
            };
            let prod = |t: &Tensor, l: &[char], cs: &[char]| {
                cs.iter().map(|&c| dim(t, l, c)).product::<usize>() as isize
            };
            let batch_dims: Vec<isize> = batch.iter().map(|&c| dim(&a, &la, c) as isize).collect();
            let mut pa = pos(&la, &batch);
            pa.extend(pos(&la, &fa));
            pa.extend(pos(&la, &contract));
            let mut pb = pos(&lb, &batch);
            pb.extend(pos(&lb, &contract));
            pb.extend(pos(&lb, &fb));
            let (m, k, n) = (
                prod(&a, &la, &fa),
                prod(&a, &la, &contract),
                prod(&b, &lb, &fb),
            );
            let nb: isize = batch_dims.iter().product();
            let a3 = ops::reshape(&ops::transpose(&a, Some(&pa))?, &[nb, m, k])?;
            let b3 = ops::reshape(&ops::transpose(&b, Some(&pb))?, &[nb, k, n])?;
            let r = ops::matmul(&a3, &b3)?;
            let mut letters = batch.clone();
            letters.extend(&fa);
            letters.extend(&fb);
            let mut shape = batch_dims;
            shape.extend(fa.iter().map(|&c| dim(&a, &la, c) as isize));
            shape.extend(fb.iter().map(|&c| dim(&b, &lb, c) as isize));
            let r = ops::reshape(&r, &shape)?;
            let perm: Vec<usize> = out
                .iter()
                .map(|c| {
                    letters.iter().position(|x| x == c).ok_or_else(|| {
                        Error::invalid(format!("einsum: output letter {c} not in inputs"))
                    })
                })
                .collect::<Result<_>>()?;
            ops::transpose(&r, Some(&perm))
        }
        n => Err(Error::invalid(format!(
            "einsum with {n} operands is not supported (one or two)"
        ))),
    }
}

/// Which norm [`norm`] computes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// Euclidean / Frobenius.
    Euclidean,
    /// Sum of absolute values.
    One,
    /// Largest absolute value.
    Inf,
    /// `(sum |x|^p)^(1/p)`.
    P(f64),
}

/// Vector norm over `axes` (all if `None`), as `tf.norm` for vectors.
pub fn norm(x: &Tensor, ord: NormOrd, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
    let a = ops::abs(x)?;
    match ord {
        NormOrd::Euclidean => ops::sqrt(&ops::reduce_sum(&ops::mul(x, x)?, axes, keepdims)?),
        NormOrd::One => ops::reduce_sum(&a, axes, keepdims),
        NormOrd::Inf => ops::reduce_max(&a, axes, keepdims),
        NormOrd::P(p) => {
            let pt = Tensor::scalar_of(x.dtype(), p);
            let s = ops::reduce_sum(&ops::pow(&a, &pt)?, axes, keepdims)?;
            ops::pow(&s, &Tensor::scalar_of(x.dtype(), 1.0 / p))
        }
    }
}

/// Sum of the main diagonal of the last two axes.
pub fn trace(x: &Tensor) -> Result<Tensor> {
    let r = x.rank();
    if r < 2 {
        return Err(Error::invalid(format!(
            "trace needs rank >= 2, got shape {}",
            ShapeDisplay::of(x.shape())
        )));
    }
    let (m, n) = (x.shape()[r - 2], x.shape()[r - 1]);
    // Selected, not multiplied by the identity: an inf or NaN off the
    // diagonal does not reach the sum (as TF's).
    let diag = ops::cast(&ops::eye(m, n, &[], crate::DType::I32)?, crate::DType::Bool)?;
    ops::reduce_sum(
        &ops::where_(&diag, x, &ops::zeros_like(x)?)?,
        Some(&[-2, -1]),
        false,
    )
}
