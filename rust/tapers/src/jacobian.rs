//! Jacobians, on one snapshot of the tape.
//!
//! When every op between the target and the sources has a rule that carries
//! leading row dims ([`crate::ops`]'s `rule_handles_rows`), one backward pass
//! computes many rows at once: its seed stacks one one-hot seed per row, and
//! the row products become one matrix product instead of many vector ones
//! (TensorFlow's `pfor`, JAX's `vmap`). Otherwise, and under an outer tape
//! that records the pass, it is one backward pass per row: in parallel on
//! rayon, or in order under an outer tape (so the outer tape's recording is
//! the same on every run).

use rayon::prelude::*;

use crate::backward::{self, Unconnected};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::tuple_string;
use crate::tape::{Entry, GradientTape, Origin, RecordingContext, Source};
use crate::tensor::Tensor;

/// Elements the largest tensor of a vectorized pass may hold: rows beyond
/// that run in further passes. Depends on shapes only, so the result does
/// not depend on the thread count.
const ROW_BUDGET: usize = 1 << 22;

/// `rows` one-hot seeds of `shape`, stacked: row `r` has ones at `hot(first + r)`.
fn seeds(
    shape: &[usize],
    dtype: DType,
    first: usize,
    rows: usize,
    hot: &(impl Fn(usize) -> Vec<usize> + Sync),
) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let mut v = vec![0.0f64; rows * n];
    for r in 0..rows {
        for i in hot(first + r) {
            v[r * n + i] = 1.0;
        }
    }
    let mut full = vec![rows];
    full.extend(shape);
    ops::cast(&Tensor::from_vec(v, &full)?, dtype)
}

fn source_shape(s: &Source) -> Vec<usize> {
    match s {
        Source::Tensor(t) => t.shape().to_vec(),
        Source::Variable(v) => v.shape(),
    }
}

/// All rows in vectorized passes, per source `[count, *source.shape]`;
/// `None` when some op on the path cannot carry row dims.
fn vectorized(
    entries: &[Entry],
    origins: &[Origin],
    target: &Tensor,
    sources: &[Source],
    count: usize,
    hot: &(impl Fn(usize) -> Vec<usize> + Sync),
) -> Option<Vec<Option<Tensor>>> {
    let widest = entries
        .iter()
        .flat_map(|e| e.outputs.iter().map(|o| o.shape.iter().product::<usize>()))
        .chain(sources.iter().map(|s| source_shape(s).iter().product()))
        .chain([target.numel()])
        .max()
        .unwrap_or(1)
        .max(1);
    let chunk = (ROW_BUDGET / widest).clamp(1, count);
    let mut parts: Vec<Vec<Tensor>> = vec![Vec::new(); sources.len()];
    let mut connected = vec![false; sources.len()];
    for first in (0..count).step_by(chunk) {
        let rows = chunk.min(count - first);
        let seed = seeds(target.shape(), target.dtype(), first, rows, hot).ok()?;
        // An error here may come from a rule that mishandles row dims: the
        // per-row passes then run and report any real error themselves.
        let grads = backward::run_rows(entries, origins, target, sources, seed, 1).ok()??;
        for (k, (g, s)) in grads.into_iter().zip(sources).enumerate() {
            let Some(g) = g else { continue };
            let mut want = vec![rows];
            want.extend(source_shape(s));
            if g.shape() != want.as_slice() || (first > 0 && !connected[k]) {
                return None;
            }
            connected[k] = true;
            parts[k].push(g);
        }
    }
    parts
        .into_iter()
        .zip(connected)
        .map(|(p, c)| match (c, p.len()) {
            (false, _) => Some(None),
            (true, 1) => p.into_iter().next().map(Some),
            (true, _) => ops::concat(&p, 0).ok().map(Some),
        })
        .collect()
}

/// Per source, the gradient of every row (row `i` seeded with ones at
/// `hot(i)`), stacked: `[count, *source.shape]`, or `None` where no row
/// reaches the source.
fn rows(
    tape: &GradientTape,
    target: &Tensor,
    sources: &[Source],
    count: usize,
    parallel: Option<usize>,
    hot: impl Fn(usize) -> Vec<usize> + Sync,
) -> Result<Vec<Option<Tensor>>> {
    let ctx = RecordingContext::current();
    let targets = std::slice::from_ref(target);
    tape.with_snapshot(
        targets,
        |_, _, _| {},
        |entries, origins| {
            if ctx.is_empty() && count > 0 {
                if let Some(j) = vectorized(entries, origins, target, sources, count, &hot) {
                    return Ok(j);
                }
            }
            let one = |i: usize| -> Result<Vec<Option<Tensor>>> {
                let s = ops::reshape(
                    &seeds(target.shape(), target.dtype(), i, 1, &hot)?,
                    &target
                        .shape()
                        .iter()
                        .map(|&d| d as isize)
                        .collect::<Vec<_>>(),
                )?;
                ctx.enter(|| {
                    backward::run(
                        entries,
                        origins,
                        targets,
                        sources,
                        Some(std::slice::from_ref(&s)),
                        Unconnected::None,
                        None,
                    )
                })
            };
            let section = if ctx.is_empty() && parallel != Some(1) {
                crate::kernels::parallel_section(count, 2)
            } else {
                None
            };
            let per_row: Vec<Vec<Option<Tensor>>> = if section.is_some() {
                (0..count).into_par_iter().map(one).collect::<Result<_>>()?
            } else {
                (0..count).map(one).collect::<Result<_>>()?
            };
            // Transpose to per-source rows, stacked.
            (0..sources.len())
                .map(|k| stack_rows(per_row.iter().map(|r| r[k].clone()).collect(), &sources[k]))
                .collect()
        },
    )
}

fn stack_rows(rows: Vec<Option<Tensor>>, source: &Source) -> Result<Option<Tensor>> {
    if rows.is_empty() || rows.iter().all(Option::is_none) {
        return Ok(None);
    }
    let filled: Vec<Tensor> = rows
        .into_iter()
        .map(|r| match r {
            Some(t) => Ok(t),
            None => source.zeros(),
        })
        .collect::<Result<_>>()?;
    ops::stack(&filled, 0).map(Some)
}

impl GradientTape {
    /// The Jacobian of `target` with respect to each source: shape
    /// `target.shape + source.shape` (as `tf.GradientTape.jacobian`).
    ///
    /// When every op on the path vectorizes (elementwise arithmetic and math,
    /// `matmul`, `reshape`, `transpose`, `reduce_sum`, `broadcast_to`), one
    /// backward pass computes all rows (a few
    /// passes for very large ones). Otherwise it is one pass per row, in
    /// parallel; `parallel_iterations = Some(1)` computes them one at a time.
    pub fn jacobian(
        &self,
        target: &Tensor,
        sources: &[Source],
        unconnected: Unconnected,
        parallel_iterations: Option<usize>,
    ) -> Result<Vec<Option<Tensor>>> {
        let n = target.numel();
        let tshape = target.shape().to_vec();
        let per_source = rows(self, target, sources, n, parallel_iterations, |i| vec![i])?;
        per_source
            .into_iter()
            .zip(sources)
            .map(|(j, s)| {
                let mut shape: Vec<isize> = tshape.iter().map(|&d| d as isize).collect();
                shape.extend(source_shape(s).iter().map(|&d| d as isize));
                match (j, unconnected) {
                    (Some(j), _) => ops::reshape(&j, &shape).map(Some),
                    (None, Unconnected::None) => Ok(None),
                    (None, Unconnected::Zero) => {
                        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
                        Tensor::zeros(&dims, s.dtype()).map(Some)
                    }
                }
            })
            .collect()
    }

    /// Per-example Jacobians: for `target` `[B, ...]` and `source` `[B, ...]`,
    /// shape `[B, target.shape[1:], source.shape[1:]]`, assuming example `b` of
    /// the target depends only on example `b` of the source (as
    /// `tf.GradientTape.batch_jacobian`). Unconnected sources give zeros.
    pub fn batch_jacobian(
        &self,
        target: &Tensor,
        source: &Source,
        parallel_iterations: Option<usize>,
    ) -> Result<Tensor> {
        let ts = target.shape().to_vec();
        let ss = source_shape(source);
        if ts.len() < 2 {
            return Err(Error::invalid(format!(
                "Shape {} must have rank at least 2",
                tuple_string(&ts)
            )));
        }
        if ss.len() < 2 {
            return Err(Error::invalid(format!(
                "Shape {} must have rank at least 2",
                tuple_string(&ss)
            )));
        }
        if ts[0] != ss[0] {
            return Err(Error::invalid(format!(
                "Need first dimension of target shape {} and source shape {} to match.",
                tuple_string(&ts),
                tuple_string(&ss)
            )));
        }
        let b = ts[0];
        let per: usize = ts[1..].iter().product();
        let per_source = rows(
            self,
            target,
            std::slice::from_ref(source),
            per,
            parallel_iterations,
            |j| (0..b).map(|k| k * per + j).collect(),
        )?;
        let mut shape: Vec<usize> = ts.clone();
        shape.extend(&ss[1..]);
        match per_source.into_iter().next().expect("one source") {
            // Rows are [per, B, *source.shape[1:]]: example first.
            Some(j) => {
                let mut perm: Vec<usize> = (0..j.rank()).collect();
                perm.swap(0, 1);
                let j = ops::transpose(&j, Some(&perm))?;
                ops::reshape(&j, &shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
            }
            None => Tensor::zeros(&shape, source.dtype()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row-carrying rules (Transpose, Sum, BroadcastTo, Reshape,
    /// elementwise ops, MatMul) take the vectorized pass (an error there
    /// would silently fall back to per-row passes, so it is called directly)
    /// and give every row its own backward pass's values.
    #[test]
    fn row_rules_vectorize_and_agree_with_one_pass_per_row() {
        let x = Tensor::from_vec(vec![0.3f64, -1.2, 0.8, 2.0, -0.4, 1.1], &[2, 3]).unwrap();
        let w = Tensor::from_vec(vec![0.5f64, -0.7, 1.3, 0.2, 0.9, -1.1], &[3, 2]).unwrap();
        let tape = GradientTape::with_options(true, true);
        let y = {
            let _r = tape.record().unwrap();
            tape.watch(&x);
            let t = ops::transpose(&x, None).unwrap(); // [3, 2]
            let s = ops::reduce_sum(&ops::mul(&t, &w).unwrap(), Some(&[0]), true).unwrap(); // [1, 2]
            let b = ops::broadcast_to(&s, &[4, 2]).unwrap();
            let m = ops::matmul(&ops::tanh(&b).unwrap(), &t, false, true).unwrap(); // [4, 3]
            let total = ops::reduce_sum(&m, Some(&[1]), false).unwrap(); // [4]
            ops::reshape(
                &ops::add(&total, &ops::reduce_sum(&x, None, false).unwrap()).unwrap(),
                &[2, 2],
            )
            .unwrap()
        };
        let sources = [Source::from(&x)];
        let n = y.numel();
        let j = tape
            .with_snapshot(
                std::slice::from_ref(&y),
                |_, _, _| {},
                |entries, origins| Ok(vectorized(entries, origins, &y, &sources, n, &|i| vec![i])),
            )
            .unwrap()
            .expect("every rule on the path carries row dims");
        let j = j[0].as_ref().expect("connected").to_vec::<f64>().unwrap();
        assert_eq!(j.len(), n * 6);
        for row in 0..n {
            let mut hot = vec![0.0f64; n];
            hot[row] = 1.0;
            let seed = Tensor::from_vec(hot, &[2, 2]).unwrap();
            let g = tape
                .gradient_with(
                    std::slice::from_ref(&y),
                    &sources,
                    Some(&[seed]),
                    Unconnected::None,
                )
                .unwrap();
            let g = g[0].as_ref().unwrap().to_vec::<f64>().unwrap();
            for (a, b) in j[row * 6..(row + 1) * 6].iter().zip(&g) {
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "row {row}: {a} vs {b}"
                );
            }
        }
    }
}
