//! Jacobians: one backward pass per target element, on one snapshot of the
//! tape. Rows are independent, so they run in parallel on rayon unless an
//! outer tape is recording (then in order, so the outer tape's recording is
//! the same on every run).

use rayon::prelude::*;

use crate::backward::{self, Unconnected};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::tuple_string;
use crate::tape::{GradientTape, RecordingContext, Source};
use crate::tensor::Tensor;

fn seed(shape: &[usize], dtype: DType, hot: &[usize]) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let mut v = vec![0.0f64; n];
    for &i in hot {
        v[i] = 1.0;
    }
    ops::cast(&Tensor::from_vec(v, shape)?, dtype)
}

fn source_shape(s: &Source) -> Vec<usize> {
    match s {
        Source::Tensor(t) => t.shape().to_vec(),
        Source::Variable(v) => v.shape(),
    }
}

/// Runs `rows` backward passes (row `i` seeded by `seeds(i)`) and returns,
/// per source, the row gradients (`None` where the source is unconnected).
fn rows(
    tape: &GradientTape,
    target: &Tensor,
    sources: &[Source],
    count: usize,
    parallel: Option<usize>,
    seeds: impl Fn(usize) -> Result<Tensor> + Sync,
) -> Result<Vec<Vec<Option<Tensor>>>> {
    let ctx = RecordingContext::current();
    let targets = std::slice::from_ref(target);
    tape.with_snapshot(
        targets,
        |_, _, _| {},
        |entries, origins| {
            let one = |i: usize| -> Result<Vec<Option<Tensor>>> {
                let s = seeds(i)?;
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
            // Transpose to per-source rows.
            Ok((0..sources.len())
                .map(|k| per_row.iter().map(|r| r[k].clone()).collect())
                .collect())
        },
    )
}

fn stack_rows(rows: Vec<Option<Tensor>>, source: &Source, axis: isize) -> Result<Option<Tensor>> {
    if rows.iter().all(Option::is_none) {
        return Ok(None);
    }
    let filled: Vec<Tensor> = rows
        .into_iter()
        .map(|r| match r {
            Some(t) => Ok(t),
            None => source.zeros(),
        })
        .collect::<Result<_>>()?;
    ops::stack(&filled, axis).map(Some)
}

impl GradientTape {
    /// The Jacobian of `target` with respect to each source: shape
    /// `target.shape + source.shape` (as `tf.GradientTape.jacobian`).
    /// `parallel_iterations = Some(1)` computes rows one at a time.
    pub fn jacobian(
        &self,
        target: &Tensor,
        sources: &[Source],
        unconnected: Unconnected,
        parallel_iterations: Option<usize>,
    ) -> Result<Vec<Option<Tensor>>> {
        let n = target.numel();
        let tshape = target.shape().to_vec();
        let per_source = rows(self, target, sources, n, parallel_iterations, |i| {
            seed(&tshape, target.dtype(), &[i])
        })?;
        per_source
            .into_iter()
            .zip(sources)
            .map(|(r, s)| {
                let mut shape: Vec<isize> = tshape.iter().map(|&d| d as isize).collect();
                shape.extend(source_shape(s).iter().map(|&d| d as isize));
                let j = if n == 0 { None } else { stack_rows(r, s, 0)? };
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
            |j| {
                let hot: Vec<usize> = (0..b).map(|k| k * per + j).collect();
                seed(&ts, target.dtype(), &hot)
            },
        )?;
        let mut shape: Vec<usize> = ts.clone();
        shape.extend(&ss[1..]);
        let r = per_source.into_iter().next().expect("one source");
        match if per == 0 {
            None
        } else {
            stack_rows(r, source, 1)?
        } {
            Some(j) => ops::reshape(&j, &shape.iter().map(|&d| d as isize).collect::<Vec<_>>()),
            None => Tensor::zeros(&shape, source.dtype()),
        }
    }
}
