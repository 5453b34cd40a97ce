//! A graph's execution plan (`tapers::graph::PlanStats`): a backward pass
//! traced with no tape recording it replays fused as eager's does, values
//! are released after their last reader, and every replay keeps eager's bits.

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

fn vals(n: usize, seed: f64) -> Tensor {
    let v: Vec<f32> = (0..n)
        .map(|i| ((i as f64 * 0.731 + seed).sin() * 1.5) as f32)
        .collect();
    Tensor::from_vec(v, &[n]).unwrap()
}

/// `sum(tanh(x) * exp(-x*x) + x)` and its gradient.
fn value_and_grad(i: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    let x = &i[0];
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record()?;
        tape.watch(x);
        let z = x.tanh()?.mul(&x.neg()?.mul(x)?.exp()?)?.add(x)?;
        ops::reduce_sum(&z, None, false)?
    };
    let g = tape
        .gradient(std::slice::from_ref(&y), &[x.into()])?
        .remove(0)
        .unwrap();
    Ok(vec![y, g])
}

fn check(n: usize) -> graph::PlanStats {
    let (g, first) = graph::trace(&[vals(n, 0.0)], value_and_grad).unwrap();
    for (a, b) in first.iter().zip(value_and_grad(&[vals(n, 0.0)]).unwrap()) {
        assert_eq!(bits(a), bits(&b));
    }
    for seed in [0.4, 2.5] {
        let x = vals(n, seed);
        let again = g.run(std::slice::from_ref(&x)).unwrap();
        let eager = value_and_grad(&[x]).unwrap();
        for (a, b) in again.iter().zip(&eager) {
            assert_eq!(bits(a), bits(b), "n {n}, seed {seed}");
        }
    }
    g.plan_stats().clone()
}

#[test]
fn large_backward_replays_as_one_fused_region() {
    let stats = check(70_000);
    assert_eq!(stats.pointwise_grads, 0, "{stats:?}");
    // The seven forward ops and the backward region are one fused loop
    // (`graph::FusionStats`; tests/graph_fusion.rs).
    assert_eq!(stats.nodes, 1, "{stats:?}");
}

#[test]
fn small_backward_replays_one_kernel_pass_per_contribution() {
    let stats = check(10);
    assert_eq!(stats.fused_regions, 0, "{stats:?}");
    assert!(stats.pointwise_grads >= 5, "{stats:?}");
    assert!(stats.released_early > 0, "{stats:?}");
    assert!(stats.peak_live < stats.computed, "{stats:?}");
}

#[test]
fn an_outer_tape_still_gets_recordable_ops() {
    // Under a recording tape the inner backward's rules are recorded op by op
    // (the second derivative follows them); the replay gives eager's bits.
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let outer = GradientTape::new();
        let _o = outer.record()?;
        outer.watch(&i[0]);
        let mut r = value_and_grad(i)?;
        drop(_o);
        let d2 = outer
            .gradient(&r[1..2], &[(&i[0]).into()])?
            .remove(0)
            .unwrap();
        r.push(d2);
        Ok(r)
    };
    let x = vals(70_000, 0.2);
    let (g, _) = graph::trace(std::slice::from_ref(&x), f).unwrap();
    let x = vals(70_000, 1.1);
    let again = g.run(std::slice::from_ref(&x)).unwrap();
    for (a, b) in again.iter().zip(f(&[x]).unwrap()) {
        assert_eq!(bits(a), bits(&b));
    }
}

/// A replay's last update of a variable runs on the variable's own buffer
/// when nothing else holds it, and on a copy when a caller's tensor does
/// (which keeps its value); eager's bits either way.
#[test]
fn deferred_updates_write_in_place_unless_shared() {
    use tapers::Variable;
    let v = Variable::new(vals(300, 0.5).reshape(&[3, 100]).unwrap());
    let eager = Variable::new(v.value());
    let x = vals(100, 1.0);
    let step = |i: &[Tensor], v: &Variable| -> tapers::Result<Vec<Tensor>> {
        let d = ops::mul(&i[0], &Tensor::scalar(0.25f32))?;
        v.assign_sub(&d)?;
        Ok(vec![d])
    };
    let (g, _) = graph::trace(std::slice::from_ref(&x), |i| step(i, &v)).unwrap();
    step(std::slice::from_ref(&x), &eager).unwrap();
    assert_eq!(bits(&v.value()), bits(&eager.value()));
    for _ in 0..2 {
        g.run(std::slice::from_ref(&x)).unwrap();
        step(std::slice::from_ref(&x), &eager).unwrap();
        assert_eq!(bits(&v.value()), bits(&eager.value()));
        assert_eq!(g.update_stats().in_place, 1);
        assert_eq!(g.update_stats().copied, 0);
    }
    let held = v.value();
    let before = bits(&held);
    g.run(std::slice::from_ref(&x)).unwrap();
    step(std::slice::from_ref(&x), &eager).unwrap();
    assert_eq!(g.update_stats().copied, 1);
    assert_eq!(bits(&held), before);
    assert_eq!(bits(&v.value()), bits(&eager.value()));
}

/// Ops whose inputs are small constants run once, when the graph is built:
/// the replay runs only what depends on its inputs, with eager's bits. An
/// op on a large captured tensor still runs at each replay.
#[test]
fn ops_on_small_constants_fold_and_large_ones_do_not() {
    let big = vals(4096, 0.3);
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let k = Tensor::scalar(2.0f32)
            .sqrt()?
            .add(&Tensor::scalar(3.0f32).mul(&Tensor::scalar(0.5f32))?)?;
        Ok(vec![
            i[0].mul(&k)?,
            ops::reduce_sum(&big.mul(&k)?, None, false)?,
        ])
    };
    let x0 = vals(8, 0.1);
    let (g, _) = graph::trace(std::slice::from_ref(&x0), f).unwrap();
    assert_eq!(g.folded_constants(), 3, "Sqrt, Mul, AddV2");
    assert_eq!(g.op_names(), vec!["Mul", "Mul", "Sum"]);
    for seed in [0.2, 0.9] {
        let x = vals(8, seed);
        let got = g.run(std::slice::from_ref(&x)).unwrap();
        let eager = f(&[x]).unwrap();
        for (a, b) in got.iter().zip(&eager) {
            assert_eq!(bits(a), bits(b));
        }
    }
}
