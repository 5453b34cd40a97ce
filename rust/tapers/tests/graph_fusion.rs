//! Forward elementwise fusion in traced graphs (`tapers::graph::FusionStats`):
//! chains of large same-shape elementwise ops, the sum that ends them and
//! the fused backward region that reads them replay as one chunked loop,
//! with eager's bits; an op that cannot fuse splits a chain in two. Matrix
//! products run with the elementwise ops that read them (`MatMulChain`
//! nodes, `PlanStats::product_chains`): a layer's bias add and activation,
//! and the activation's gradient mask after a backward product, replay on
//! each half of the product's rows with eager's bits.

use tapers::graph::{self, FusionStats};
use tapers::{ops, DType, GradientTape, Tensor};

fn bits(t: &Tensor) -> Vec<u64> {
    ops::cast(t, DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

fn vals(shape: &[usize], dtype: DType, seed: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.731 + seed).sin() * 1.5)
        .collect();
    ops::cast(&Tensor::from_vec(v, shape).unwrap(), dtype).unwrap()
}

fn scalar(dtype: DType, v: f64) -> Tensor {
    Tensor::scalar_of(dtype, v)
}

type Program = fn(&[Tensor]) -> tapers::Result<Vec<Tensor>>;

/// Traces `f` on inputs of `shapes`, checks the trace and two replays on
/// other values against eager execution bit for bit, and returns the stats.
fn check(f: Program, shapes: &[&[usize]], dtype: DType) -> (FusionStats, Vec<&'static str>) {
    let g = check_graph(f, shapes, dtype);
    (g.fusion_stats().clone(), g.op_names())
}

/// [`check`], returning the graph.
fn check_graph(f: Program, shapes: &[&[usize]], dtype: DType) -> graph::Graph {
    let inputs = |seed: f64| -> Vec<Tensor> {
        shapes
            .iter()
            .enumerate()
            .map(|(k, s)| vals(s, dtype, seed + k as f64))
            .collect()
    };
    let (g, first) = graph::trace(&inputs(0.0), f).unwrap();
    for (a, b) in first.iter().zip(f(&inputs(0.0)).unwrap()) {
        assert_eq!(bits(a), bits(&b));
    }
    for seed in [0.4, 2.5] {
        let again = g.run(&inputs(seed)).unwrap();
        let eager = f(&inputs(seed)).unwrap();
        assert_eq!(again.len(), eager.len());
        for (k, (a, b)) in again.iter().zip(&eager).enumerate() {
            assert_eq!(a.shape(), b.shape(), "output {k}");
            assert_eq!(a.dtype(), b.dtype(), "output {k}");
            assert!(
                bits(a) == bits(b),
                "output {k} differs from eager ({dtype:?}, seed {seed})"
            );
        }
    }
    g
}

/// `f(x)` (a scalar loss) and its gradient for `x = i[0]`.
fn with_grad(
    i: &[Tensor],
    f: impl Fn(&Tensor) -> tapers::Result<Tensor>,
) -> tapers::Result<Vec<Tensor>> {
    let x = &i[0];
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record()?;
        tape.watch(x);
        f(x)?
    };
    let g = tape
        .gradient(std::slice::from_ref(&y), &[x.into()])?
        .remove(0)
        .unwrap();
    Ok(vec![y, g])
}

/// `tanh(x) * exp(-x*x) + x`.
fn chain(x: &Tensor) -> tapers::Result<Tensor> {
    x.tanh()?.mul(&x.neg()?.mul(x)?.exp()?)?.add(x)
}

/// `sum(tanh(x) * exp(-x*x) + x)` and its gradient.
fn value_and_grad(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    with_grad(i, |x| ops::reduce_sum(&chain(x)?, None, false))
}

#[test]
fn value_and_gradient_are_one_loop_with_eager_bits() {
    for dtype in [DType::F32, DType::F64] {
        let (stats, names) = check(value_and_grad, &[&[70_000]], dtype);
        // Tanh, Neg, Mul, Exp, Mul, AddV2, Sum and the backward region.
        assert_eq!(names, vec!["FusedElementwise"], "{stats:?}");
        assert_eq!((stats.loops, stats.ops), (1, 8), "{stats:?}");
        assert_eq!((stats.sums, stats.joined_backward), (1, 1), "{stats:?}");
        // Nothing but the sum and the gradient is written.
        assert_eq!(stats.not_materialized, 6, "{stats:?}");
    }
}

/// `mean(tanh(x) * exp(-x*x) + x)` and its gradient: a scalar division by
/// the count between the loop's sum and the backward region.
fn mean_and_grad(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    with_grad(i, |x| ops::reduce_mean(&chain(x)?, None, false))
}

/// `0.5 * mean(...)`: the scale's gradient goes through the division's
/// gradient for the numerator (`g / count`), which does not read the sum.
fn half_mean_and_grad(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    with_grad(i, |x| {
        scalar(x.dtype(), 0.5).mul(&ops::reduce_mean(&chain(x)?, None, false)?)
    })
}

#[test]
fn scalar_ops_on_a_sum_move_after_the_loop_the_backward_joins() {
    for dtype in [DType::F32, DType::F64] {
        let (stats, names) = check(mean_and_grad, &[&[70_000]], dtype);
        // The division by the count runs after the loop.
        assert_eq!(names, vec!["FusedElementwise", "RealDiv"], "{stats:?}");
        assert_eq!((stats.sums, stats.joined_backward), (1, 1), "{stats:?}");
        assert_eq!(stats.not_materialized, 6, "{stats:?}");
        let (stats, names) = check(half_mean_and_grad, &[&[70_000]], dtype);
        assert_eq!(
            names,
            vec!["FusedElementwise", "RealDiv", "Mul"],
            "{stats:?}"
        );
        assert_eq!((stats.sums, stats.joined_backward), (1, 1), "{stats:?}");
    }
}

/// `sum(x * x)` and its gradient: the backward region reads only `x`.
fn l2_and_grad(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    with_grad(i, |x| ops::reduce_sum(&x.mul(x)?, None, false))
}

#[test]
fn a_region_reading_only_the_loops_input_joins_the_loop() {
    for dtype in [DType::F32, DType::F64] {
        let (stats, names) = check(l2_and_grad, &[&[70_000]], dtype);
        assert_eq!(names, vec!["FusedElementwise"], "{stats:?}");
        assert_eq!((stats.sums, stats.joined_backward), (1, 1), "{stats:?}");
    }
}

#[test]
fn outputs_far_larger_than_the_caches_stream_with_eager_bits() {
    // 2^21 float32 elements (8 MiB) and more stream, and so do 2^20
    // float64; an odd length leaves a short last chunk.
    for (dtype, n, streamed) in [
        (DType::F32, (1 << 21) + 37, 1),
        (DType::F64, (1 << 20) + 37, 1),
        (DType::F32, (1 << 20) + 37, 0),
    ] {
        let (stats, _) = check(value_and_grad, &[&[n]], dtype);
        assert_eq!((stats.loops, stats.streamed), (1, streamed), "{stats:?}");
        // A forward value read after the loop is streamed too.
        let (stats, _) = check(mixed, &[&[n], &[n]], dtype);
        assert_eq!(stats.streamed, streamed, "{stats:?}");
    }
    // Each gradient element depends on its own input alone, so a streamed
    // gradient's elements are those of a short input's, which is not.
    let long = vals(&[(1 << 21) + 37], DType::F32, 0.0);
    let short = ops::slice_ranges(&long, &[(0, 1000)]).unwrap();
    let (g, _) = graph::trace(std::slice::from_ref(&long), value_and_grad).unwrap();
    assert_eq!(g.fusion_stats().streamed, 1);
    let streamed = g.run(std::slice::from_ref(&long)).unwrap().remove(1);
    let plain = value_and_grad(std::slice::from_ref(&short))
        .unwrap()
        .remove(1);
    assert_eq!(
        bits(&ops::slice_ranges(&streamed, &[(0, 1000)]).unwrap()),
        bits(&plain)
    );
}

/// Scalars broadcast (constants), a value used twice, an output read in the
/// middle of the chain, and a gradient of two inputs.
fn mixed(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    let (x, w) = (&i[0], &i[1]);
    let d = x.dtype();
    let tape = GradientTape::new();
    let (y, mid) = {
        let _r = tape.record()?;
        tape.watch(x);
        tape.watch(w);
        let a = ops::sigmoid(&x.mul(&scalar(d, 0.5))?)?;
        let b = a.mul(w)?.sub(&scalar(d, 1.25))?;
        let c = ops::square(&b)?.add(&ops::relu(&w.sub(x)?)?)?;
        let e = ops::sqrt(&ops::exp(&c.neg()?)?.add(&scalar(d, 1.0))?)?;
        (
            ops::reduce_sum(&e.div(&a.add(&scalar(d, 2.0))?)?, None, false)?,
            b,
        )
    };
    let g = tape.gradient(std::slice::from_ref(&y), &[x.into(), w.into()])?;
    Ok(vec![y, mid, g[0].clone().unwrap(), g[1].clone().unwrap()])
}

#[test]
fn mixed_programs_with_scalars_and_columns_fuse_with_eager_bits() {
    for dtype in [DType::F32, DType::F64] {
        for shape in [&[70_000][..], &[70_000, 1][..], &[300, 257][..]] {
            let (stats, names) = check(mixed, &[shape, shape], dtype);
            assert_eq!(stats.loops, 1, "{shape:?} {stats:?} {names:?}");
            assert_eq!(stats.joined_backward, 1, "{shape:?} {stats:?} {names:?}");
            assert!(stats.ops >= 15, "{shape:?} {stats:?}");
        }
    }
}

/// A chain split by `abs` (no fused kernel) and a `cumsum` (not
/// elementwise): the parts around them still fuse.
fn split(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    let x = &i[0];
    let a = x.tanh()?.mul(x)?.add(&scalar(x.dtype(), 3.0))?;
    let b = ops::abs(&a)?;
    let c = ops::exp(&b.neg()?)?.mul(&b)?;
    let s = ops::reduce_sum(&c, None, false)?;
    let d = ops::cumsum(&c, 0, false, false)?;
    let e = d.mul(&d)?.sub(x)?;
    Ok(vec![e.tanh()?, s])
}

#[test]
fn a_non_fusable_op_in_the_middle_splits_the_chain() {
    for dtype in [DType::F32, DType::F64] {
        let (stats, names) = check(split, &[&[70_000]], dtype);
        assert_eq!(stats.loops, 3, "{stats:?} {names:?}");
        assert_eq!(
            names,
            vec![
                "FusedElementwise",
                "Abs",
                "FusedElementwise",
                "Cumsum",
                "FusedElementwise"
            ],
            "{stats:?}"
        );
        // tanh(x), tanh(x) * x, -b, exp(-b), d * d, d * d - x: used only
        // inside their loops.
        assert_eq!(stats.not_materialized, 6, "{stats:?}");
        assert_eq!(stats.sums, 1, "{stats:?}");
    }
}

#[test]
fn small_tensors_stay_op_by_op() {
    let (stats, names) = check(value_and_grad, &[&[1000]], DType::F32);
    assert_eq!(stats, FusionStats::default());
    assert!(names.contains(&"Tanh"), "{names:?}");
}

#[test]
fn a_replay_under_a_recording_tape_runs_op_by_op_and_records() {
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let x = &i[0];
        Ok(vec![x.tanh()?.mul(x)?.exp()?])
    };
    let x = vals(&[70_000], DType::F64, 0.0);
    let (g, _) = graph::trace(std::slice::from_ref(&x), f).unwrap();
    assert_eq!(g.fusion_stats().loops, 1);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        g.run(std::slice::from_ref(&x)).unwrap().remove(0)
    };
    let got = tape.gradient(&[y], &[(&x).into()]).unwrap()[0]
        .clone()
        .unwrap();
    let want = {
        let t = GradientTape::new();
        let y = {
            let _r = t.record().unwrap();
            t.watch(&x);
            f(std::slice::from_ref(&x)).unwrap().remove(0)
        };
        t.gradient(&[y], &[(&x).into()]).unwrap()[0]
            .clone()
            .unwrap()
    };
    assert_eq!(bits(&got), bits(&want));
}

/// Two layers as TensorFlow users write them (`tf.maximum(x @ w + b, 0.0)`,
/// logits with a bias), a squared loss, and the gradients of every weight
/// and bias: inputs `x, w1, b1, w2, b2`.
fn two_layers(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    let (x, w1, b1, w2, b2) = (&i[0], &i[1], &i[2], &i[3], &i[4]);
    let zero = Tensor::scalar_of(x.dtype(), 0.0);
    let tape = GradientTape::new();
    let loss = {
        let _r = tape.record()?;
        for v in [w1, b1, w2, b2] {
            tape.watch(v);
        }
        let h = ops::maximum(&x.matmul(w1)?.add(b1)?, &zero)?;
        let y = h.matmul(w2)?.add(b2)?;
        ops::reduce_sum(&y.mul(&y)?, None, false)?
    };
    let mut out = vec![loss.clone()];
    let grads = tape.gradient(&[loss], &[w1.into(), b1.into(), w2.into(), b2.into()])?;
    out.extend(grads.into_iter().map(|g| g.unwrap()));
    Ok(out)
}

const LAYERS: &[&[usize]] = &[&[64, 96], &[96, 80], &[80], &[80, 48], &[48]];

#[test]
fn layers_and_their_gradient_masks_run_with_their_products_with_eager_bits() {
    for dtype in [DType::F32, DType::F64] {
        let g = check_graph(two_layers, LAYERS, dtype);
        let names = g.op_names();
        // Both forward layers (bias add, and the first's activation) and
        // the backward product `d @ w2^T` with the activation's mask.
        assert_eq!(g.plan_stats().product_chains, 3, "{names:?}");
        assert!(!names.contains(&"Maximum"), "{names:?}");
        assert!(!names.contains(&"PointwiseGrad"), "{names:?}");
    }
}

/// A product also returned raw, beside its biased value: both written.
fn raw_and_biased(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    let p = i[0].matmul_with(&i[1], tapers::ops::MatmulOptions::transpose_b())?;
    let y = p.add(&i[2])?.tanh()?;
    Ok(vec![y, p])
}

#[test]
fn a_product_read_outside_the_chain_is_written_too() {
    let g = check_graph(
        raw_and_biased,
        &[&[40, 70], &[90, 70], &[1, 90]],
        DType::F32,
    );
    assert_eq!(g.plan_stats().product_chains, 1, "{:?}", g.op_names());
    assert_eq!(g.op_names(), vec!["MatMulChain"]);
}

#[test]
fn products_matmul_does_not_split_stay_op_by_op() {
    // 16 rows: MatMul computes it in one call, not as row halves.
    let g = check_graph(
        two_layers,
        &[&[16, 96], &[96, 80], &[80], &[80, 48], &[48]],
        DType::F32,
    );
    assert_eq!(g.plan_stats().product_chains, 0);
    assert!(g.op_names().contains(&"Maximum"));
}

#[test]
fn a_chain_replayed_under_a_recording_tape_runs_op_by_op_and_records() {
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let zero = Tensor::scalar_of(i[0].dtype(), 0.0);
        Ok(vec![ops::maximum(&i[0].matmul(&i[1])?.add(&i[2])?, &zero)?])
    };
    let ins: Vec<Tensor> = [&[64usize, 96][..], &[96, 80], &[80]]
        .iter()
        .enumerate()
        .map(|(k, s)| vals(s, DType::F64, k as f64))
        .collect();
    let (g, _) = graph::trace(&ins, f).unwrap();
    assert_eq!(g.plan_stats().product_chains, 1);
    let grad_of_w = |run: &dyn Fn() -> Tensor| {
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record().unwrap();
            tape.watch(&ins[1]);
            run()
        };
        tape.gradient(&[y], &[(&ins[1]).into()]).unwrap()[0]
            .clone()
            .unwrap()
    };
    let got = grad_of_w(&|| g.run(&ins).unwrap().remove(0));
    let want = grad_of_w(&|| f(&ins).unwrap().remove(0));
    assert_eq!(bits(&got), bits(&want));
}
