//! Fits `y = 3x - 2` like `linear_model`, but traces one training step
//! (forward, gradient, Adam update) into a graph once and replays the graph
//! for every later step, with no Rust closure run again:
//! `cargo run -p tapers --example traced_step`.

use tapers::graph::Tracing;
use tapers::optim::{apply_traced, Rule};
use tapers::{ops, GradientTape, Tensor, Variable};

fn main() -> tapers::Result<()> {
    let xs: Vec<f32> = (0..64).map(|i| i as f32 / 32.0 - 1.0).collect();
    let ys: Vec<f32> = xs.iter().map(|x| 3.0 * x - 2.0).collect();
    let x = Tensor::from_vec(xs, &[64])?;
    let y = Tensor::from_vec(ys, &[64])?;
    let w = Variable::new(Tensor::scalar(0.0f32)).with_name("w");
    let b = Variable::new(Tensor::scalar(0.0f32)).with_name("b");
    let iterations = Variable::new(Tensor::scalar(0i64))
        .with_name("iterations")
        .trainable(false);
    let rule = Rule::Adam {
        beta_1: 0.9,
        beta_2: 0.999,
        epsilon: 1e-7,
        amsgrad: false,
    };
    let slots: Vec<Vec<Variable>> = (0..2)
        .map(|_| {
            (0..rule.slots())
                .map(|_| Variable::new(Tensor::scalar(0.0f32)).trainable(false))
                .collect()
        })
        .collect();
    // One step: the loss of a batch, its gradient, and the update.
    let step = |x: &Tensor, y: &Tensor| -> tapers::Result<Tensor> {
        let tape = GradientTape::new();
        let loss = {
            let _rec = tape.record()?;
            let pred = x.mul(&w.read())?.add(&b.read())?;
            ops::reduce_mean(&pred.sub(y)?.square()?, None, false)?
        };
        let grads = tape.gradient(std::slice::from_ref(&loss), &[(&w).into(), (&b).into()])?;
        for ((var, g), s) in [&w, &b].into_iter().zip(grads).zip(&slots) {
            let g = g.expect("connected");
            apply_traced(&rule, var, &g, s, 0.05, None, Some(&iterations), 0.0)?;
        }
        iterations.assign_add(&Tensor::scalar(1i64))?;
        Ok(loss)
    };
    // The first step runs under a tracer; the graph replays all the others.
    let tracing = Tracing::start(&[x.clone(), y.clone()]);
    let loss = step(&x, &y)?;
    let graph = tracing.finish(std::slice::from_ref(&loss));
    println!(
        "traced {} nodes: {:?}",
        graph.op_names().len(),
        graph.op_names()
    );
    let mut loss_value = loss.to_f64_scalar()?;
    for _ in 2..=500 {
        loss_value = graph.run(&[x.clone(), y.clone()])?[0].to_f64_scalar()?;
    }
    let (wv, bv) = (w.value().to_f64_scalar()?, b.value().to_f64_scalar()?);
    println!(
        "after 500 steps ({} by replay): w = {wv:.4}, b = {bv:.4}, loss = {loss_value:.2e}",
        iterations.value().to_f64_scalar()? - 1.0
    );
    assert!((wv - 3.0).abs() < 0.05 && (bv + 2.0).abs() < 0.05);
    Ok(())
}
