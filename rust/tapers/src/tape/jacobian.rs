//! Jacobians of a tape's recording (the engine is `autodiff::jacobian`).

use super::GradientTape;
use crate::autodiff::jacobian::{rows, source_shape};
use crate::autodiff::{Source, Unconnected};
use crate::dims::tuple_string;
use crate::error::{Error, Result};
use crate::ops;
use crate::record::RecordingContext;
use crate::tensor::Tensor;

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
        let per_source = self.rows(target, sources, n, parallel_iterations, |i| vec![i])?;
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
        let per_source = self.rows(
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

    /// The rows of a Jacobian over one snapshot of the recording.
    fn rows(
        &self,
        target: &Tensor,
        sources: &[Source],
        count: usize,
        parallel: Option<usize>,
        hot: impl Fn(usize) -> Vec<usize> + Sync,
    ) -> Result<Vec<Option<Tensor>>> {
        let ctx = RecordingContext::current();
        self.with_snapshot(
            std::slice::from_ref(target),
            |_, _, _| {},
            |entries, origins, stats| {
                rows(
                    entries, origins, &ctx, target, sources, count, parallel, hot, stats,
                )
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row-carrying rules (Transpose, Sum, BroadcastTo, Reshape,
    /// elementwise ops, MatMul) take the vectorized pass (one pass, counted)
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
            let m = ops::matmul_with(
                &ops::tanh(&b).unwrap(),
                &t,
                ops::MatmulOptions {
                    transpose_a: false,
                    transpose_b: true,
                },
            )
            .unwrap(); // [4, 3]
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
            .jacobian(&y, &sources, Unconnected::None, None)
            .unwrap();
        // One backward pass, carrying all four rows.
        let stats = tape.last_pass_stats();
        assert_eq!((stats.passes, stats.row_passes), (1, 1), "{stats:?}");
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

    /// `tanh(W @ x)` vectorizes whichever side of the product the source is
    /// on, and with the source a column vector: one backward pass.
    #[test]
    fn jacobians_through_matmul_take_one_pass_with_the_source_on_either_side() {
        let n = 16;
        let w = Tensor::from_vec(
            (0..n * n).map(|i| (i % 7) as f64 * 0.1 - 0.3).collect(),
            &[n, n],
        )
        .unwrap();
        let x = Tensor::from_vec((0..n).map(|i| i as f64 * 0.05).collect(), &[n, 1]).unwrap();
        for source_is_w in [false, true] {
            let tape = GradientTape::with_options(true, true);
            let y = {
                let _r = tape.record().unwrap();
                tape.watch(if source_is_w { &w } else { &x });
                w.matmul(&x).unwrap().tanh().unwrap()
            };
            let source = Source::from(if source_is_w { &w } else { &x });
            let j = tape
                .jacobian(&y, std::slice::from_ref(&source), Unconnected::None, None)
                .unwrap();
            let stats = tape.last_pass_stats();
            assert_eq!((stats.passes, stats.row_passes), (1, 1), "{stats:?}");
            // Row 3 of the Jacobian against its own backward pass.
            let mut hot = vec![0.0f64; n];
            hot[3] = 1.0;
            let seed = Tensor::from_vec(hot, &[n, 1]).unwrap();
            let g = tape
                .gradient_with(
                    std::slice::from_ref(&y),
                    &[source],
                    Some(&[seed]),
                    Unconnected::None,
                )
                .unwrap();
            let per = g[0].as_ref().unwrap().to_vec::<f64>().unwrap();
            let all = j[0].as_ref().unwrap().to_vec::<f64>().unwrap();
            let row = &all[3 * per.len()..4 * per.len()];
            assert_eq!(row, &per[..]);
        }
    }
}
