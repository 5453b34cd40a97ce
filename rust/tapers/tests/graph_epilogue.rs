//! Matrix products run with the elementwise ops that read them
//! (`MatMulChain` nodes, `tapers::graph::PlanStats::product_chains`): a
//! layer's bias add and activation, and the activation's gradient mask
//! after a backward product, replay on each half of the product's rows
//! with eager's bits.

use tapers::graph;
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
        .map(|i| (i as f64 * 0.731 + seed).sin() * 0.8)
        .collect();
    ops::cast(&Tensor::from_vec(v, shape).unwrap(), dtype).unwrap()
}

type Program = fn(&[Tensor]) -> tapers::Result<Vec<Tensor>>;

/// Traces `f`, checks the trace and replays on other values against eager
/// execution bit for bit; returns the graph.
fn check(f: Program, shapes: &[&[usize]], dtype: DType) -> graph::Graph {
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
            assert!(
                bits(a) == bits(b),
                "output {k} differs from eager ({dtype:?}, seed {seed})"
            );
        }
    }
    g
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
        let g = check(two_layers, LAYERS, dtype);
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
    let g = check(
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
    let g = check(
        two_layers,
        &[&[16, 96], &[96, 80], &[80], &[80, 48], &[48]],
        DType::F32,
    );
    assert_eq!(g.plan_stats().product_chains, 0);
    assert!(g.op_names().contains(&"Maximum"));
}

#[test]
fn a_replay_under_a_recording_tape_runs_op_by_op_and_records() {
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
