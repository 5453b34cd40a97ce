//! `tf.einsum` in general: ellipsis (`...`, broadcast between operands) and
//! any number of operands, rewritten into letters-only one- and two-operand
//! einsums (`ops::einsum`, a batched matmul), contracted left to right.
//! Every step is a differentiable op, so gradients of any order follow.

use std::collections::{BTreeMap, HashSet};

use crate::error::{Error, Result};
use crate::ops;
use crate::tensor::Tensor;

/// One operand's subscripts: letters, with the ellipsis (if any) at `dots`.
struct Term {
    letters: Vec<char>,
    dots: Option<usize>,
}

fn parse_term(s: &str, eq: &str) -> Result<Term> {
    let bad = || {
        Error::invalid(format!(
            "einsum: invalid subscripts {s:?} in equation {eq:?}"
        ))
    };
    let mut letters = Vec::new();
    let mut dots = None;
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if dots.replace(letters.len()).is_some() {
                return Err(bad());
            }
            rest = r;
            continue;
        }
        let c = rest.chars().next().expect("not empty");
        if !c.is_ascii_alphabetic() {
            return Err(bad());
        }
        letters.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(Term { letters, dots })
}

fn word(cs: &[char]) -> String {
    cs.iter().collect()
}

/// `tf.einsum(equation, *inputs)`: Einstein summation with an ellipsis
/// standing for the same (broadcast) dims in each operand, and any number of
/// operands. As in TF (unlike NumPy), an output without `...` may not drop
/// ellipsis dims, and the implicit output never has them.
pub fn einsum_general(equation: &str, inputs: &[Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    if !eq.contains("...") && inputs.len() <= 2 {
        return ops::einsum(&eq, inputs);
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<Term> = lhs
        .split(',')
        .map(|t| parse_term(t, &eq))
        .collect::<Result<_>>()?;
    if terms.len() != inputs.len() {
        return Err(Error::invalid(format!(
            "einsum: equation {eq:?} has {} inputs but {} were given",
            terms.len(),
            inputs.len()
        )));
    }
    // Fresh letters for the ellipsis dims.
    let used: HashSet<char> = eq.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    let fresh: Vec<char> = ('A'..='Z')
        .chain('a'..='z')
        .filter(|c| !used.contains(c))
        .collect();
    let mut ell = Vec::with_capacity(terms.len());
    for (t, x) in terms.iter().zip(inputs) {
        let n = x.rank() as isize - t.letters.len() as isize;
        if n < 0 || (n > 0 && t.dots.is_none()) {
            return Err(Error::invalid(format!(
                "einsum: the subscripts {:?} do not match an operand of rank {}",
                word(&t.letters),
                x.rank()
            )));
        }
        ell.push(n as usize);
    }
    let e_max = ell.iter().copied().max().unwrap_or(0);
    if e_max > fresh.len() {
        return Err(Error::invalid(
            "einsum: too many dimensions under the ellipsis",
        ));
    }
    let dots_letters = &fresh[..e_max];
    // Each operand's full subscripts; its ellipsis takes the last letters.
    let mut subs: Vec<Vec<char>> = terms
        .iter()
        .zip(&ell)
        .map(|(t, &n)| {
            let at = t.dots.unwrap_or(t.letters.len());
            let mut s = t.letters[..at].to_vec();
            s.extend(&dots_letters[e_max - n..]);
            s.extend(&t.letters[at..]);
            s
        })
        .collect();
    // Broadcast the ellipsis dims: a size-1 dim against a larger one drops out.
    let mut ts: Vec<Tensor> = inputs.to_vec();
    for &c in dots_letters {
        let sizes: Vec<Option<usize>> = subs
            .iter()
            .zip(&ts)
            .map(|(s, t)| s.iter().position(|&x| x == c).map(|p| t.shape()[p]))
            .collect();
        let size = sizes.iter().flatten().copied().max().unwrap_or(1);
        for (k, s) in sizes.iter().enumerate() {
            match *s {
                Some(d) if d == size => {}
                Some(1) => {
                    let p = subs[k].iter().position(|&x| x == c).expect("present");
                    let shape: Vec<isize> = ts[k]
                        .shape()
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != p)
                        .map(|(_, &d)| d as isize)
                        .collect();
                    ts[k] = ops::reshape(&ts[k], &shape)?;
                    subs[k].remove(p);
                }
                Some(d) => {
                    return Err(Error::invalid(format!(
                        "einsum: the ellipsis dims of the operands do not broadcast ({d} vs {size})"
                    )))
                }
                None => {}
            }
        }
    }
    let out: Vec<char> = match rhs {
        Some(r) => {
            let t = parse_term(r, &eq)?;
            let mut o = Vec::new();
            let at = t.dots.unwrap_or(t.letters.len());
            o.extend(&t.letters[..at]);
            if t.dots.is_some() {
                o.extend(dots_letters);
            }
            o.extend(&t.letters[at..]);
            o
        }
        None => {
            // TF's implicit output: the letters appearing once, sorted (no
            // ellipsis, so ellipsis dims are an error below).
            let mut counts = BTreeMap::new();
            for c in terms.iter().flat_map(|t| &t.letters) {
                *counts.entry(*c).or_insert(0) += 1;
            }
            counts
                .into_iter()
                .filter(|&(_, n)| n == 1)
                .map(|(c, _)| c)
                .collect()
        }
    };
    if e_max > 0 && !rhs.is_some_and(|r| r.contains("...")) {
        return Err(Error::invalid(format!(
            "Output contains {e_max} broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts. [Op:Einsum]"
        )));
    }
    // A broadcast letter that every operand dropped is a size-1 output dim.
    let present: HashSet<char> = subs.iter().flatten().copied().collect();
    let missing: Vec<usize> = out
        .iter()
        .enumerate()
        .filter(|(_, c)| !present.contains(c))
        .map(|(i, _)| i)
        .collect();
    let out_present: Vec<char> = out
        .iter()
        .filter(|c| present.contains(c))
        .copied()
        .collect();
    let mut cur = ts[0].clone();
    let mut cs = subs[0].clone();
    if ts.len() == 1 {
        cur = ops::einsum(&format!("{}->{}", word(&cs), word(&out_present)), &[cur])?;
    }
    for i in 1..ts.len() {
        let keep: Vec<char> = if i + 1 == ts.len() {
            out_present.clone()
        } else {
            let later: HashSet<char> = subs[i + 1..]
                .iter()
                .flatten()
                .chain(&out)
                .copied()
                .collect();
            let mut k: Vec<char> = Vec::new();
            for &c in cs.iter().chain(&subs[i]) {
                if later.contains(&c) && !k.contains(&c) {
                    k.push(c);
                }
            }
            k
        };
        let step = format!("{},{}->{}", word(&cs), word(&subs[i]), word(&keep));
        cur = ops::einsum(&step, &[cur, ts[i].clone()])?;
        cs = keep;
    }
    if missing.is_empty() {
        return Ok(cur);
    }
    let mut shape: Vec<isize> = cur.shape().iter().map(|&d| d as isize).collect();
    for i in missing {
        shape.insert(i, 1);
    }
    ops::reshape(&cur, &shape)
}
