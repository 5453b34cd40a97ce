//! Fits `y = 3x - 2` with gradient descent on Variables and an Adam rule
//! applied in place: `cargo run -p tapers --example linear_model`.

use tapers::optim::{apply, Rule};
use tapers::{GradientTape, Tensor, Variable};

fn main() -> tapers::Result<()> {
    let xs: Vec<f32> = (0..64).map(|i| i as f32 / 32.0 - 1.0).collect();
    let ys: Vec<f32> = xs.iter().map(|x| 3.0 * x - 2.0).collect();
    let x = Tensor::from_vec(xs, &[64])?;
    let y = Tensor::from_vec(ys, &[64])?;
    let w = Variable::new(Tensor::scalar(0.0f32)).with_name("w");
    let b = Variable::new(Tensor::scalar(0.0f32)).with_name("b");
    let rule = Rule::Adam {
        beta_1: 0.9,
        beta_2: 0.999,
        epsilon: 1e-7,
        amsgrad: false,
    };
    let slots: Vec<Vec<Variable>> = (0..2)
        .map(|_| {
            (0..rule.slots())
                .map(|i| {
                    Variable::new(Tensor::scalar(0.0f32))
                        .with_name(format!("slot{i}"))
                        .trainable(false)
                })
                .collect()
        })
        .collect();
    let mut loss_value = f64::INFINITY;
    for step in 1..=500u64 {
        let tape = GradientTape::new();
        let loss = {
            let _rec = tape.record()?;
            let pred = x.mul(&w.read())?.add(&b.read())?;
            let err = pred.sub(&y)?;
            err.square()?.mean_all()?
        };
        loss_value = loss.to_f64_scalar()?;
        let grads = tape.gradient(&[loss], &[(&w).into(), (&b).into()])?;
        for ((var, g), s) in [&w, &b].into_iter().zip(grads).zip(&slots) {
            apply(&rule, var, &g.expect("connected"), s, 0.05, step, 0.0)?;
        }
    }
    let (wv, bv) = (w.value().to_f64_scalar()?, b.value().to_f64_scalar()?);
    println!("w = {wv:.4}, b = {bv:.4}, loss = {loss_value:.2e}");
    assert!((wv - 3.0).abs() < 1e-2 && (bv + 2.0).abs() < 1e-2);
    Ok(())
}
