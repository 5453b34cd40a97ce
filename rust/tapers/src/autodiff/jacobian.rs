//! Jacobians, on one snapshot of the tape.
//!
//! When every op between the target and the sources has a rule that carries
//! leading row dims (as its description says), one backward pass
//! computes many rows at once: its seed stacks one one-hot seed per row, and
//! the row products become one matrix product instead of many vector ones
//! (TensorFlow's `pfor`, JAX's `vmap`). Otherwise, and under an outer tape
//! that records the pass, it is one backward pass per row: in parallel on
//! rayon, or in order under an outer tape (so the outer tape's recording is
//! the same on every run).

use rayon::prelude::*;

use super::backward::{self, PassCounter, Unconnected};
use super::Source;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops;
use crate::record::{Entry, Origin, RecordingContext};
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

pub(crate) fn source_shape(s: &Source) -> Vec<usize> {
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
    stats: &PassCounter,
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
        let grads = backward::run_rows(entries, origins, target, sources, seed, stats).ok()??;
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
/// reaches the source. `ctx` is the caller's recording context: under an
/// outer tape the rows run one by one, in order, recorded.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rows(
    entries: &[Entry],
    origins: &[Origin],
    ctx: &RecordingContext,
    target: &Tensor,
    sources: &[Source],
    count: usize,
    parallel: Option<usize>,
    hot: impl Fn(usize) -> Vec<usize> + Sync,
    stats: &PassCounter,
) -> Result<Vec<Option<Tensor>>> {
    let targets = std::slice::from_ref(target);
    if ctx.is_empty() && count > 0 {
        if let Some(j) = vectorized(entries, origins, target, sources, count, &hot, stats) {
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
                stats,
            )
        })
    };
    // Under an outer tape (or when asked) the rows run in order, so the
    // outer recording is the same on every run.
    let work = if ctx.is_empty() && parallel != Some(1) {
        count
    } else {
        0
    };
    let per_row: Vec<Vec<Option<Tensor>>> = crate::kernels::parallel(work, 2, |par| {
        if par {
            (0..count).into_par_iter().map(one).collect::<Result<_>>()
        } else {
            (0..count).map(one).collect::<Result<_>>()
        }
    })?;
    // Transpose to per-source rows, stacked.
    (0..sources.len())
        .map(|k| stack_rows(per_row.iter().map(|r| r[k].clone()).collect(), &sources[k]))
        .collect()
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
