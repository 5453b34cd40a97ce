//! Finite-difference checks of gradient rules in float64, from Rust.

use tapers::{ops, GradientTape, Result, Tensor};

fn check(f: impl Fn(&Tensor) -> Result<Tensor>, x: Vec<f64>, shape: &[usize]) {
    let xt = Tensor::from_vec(x.clone(), shape).unwrap();
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&xt);
        ops::reduce_sum(&f(&xt).unwrap(), None, false).unwrap()
    };
    let g = tape.gradient(&[y], &[(&xt).into()]).unwrap()[0]
        .clone()
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    let eps = 1e-6;
    for i in 0..x.len() {
        let eval = |d: f64| {
            let mut v = x.clone();
            v[i] += d;
            let t = Tensor::from_vec(v, shape).unwrap();
            ops::reduce_sum(&f(&t).unwrap(), None, false)
                .unwrap()
                .to_f64_scalar()
                .unwrap()
        };
        let num = (eval(eps) - eval(-eps)) / (2.0 * eps);
        assert!(
            (num - g[i]).abs() <= 1e-6 * (1.0 + num.abs()),
            "element {i}: analytic {} vs numeric {num}",
            g[i]
        );
    }
}

#[test]
fn unary_ops() {
    let x = vec![0.3, -1.2, 0.7, 1.9, -0.4, 0.1];
    check(ops::exp, x.clone(), &[2, 3]);
    check(ops::tanh, x.clone(), &[2, 3]);
    check(ops::sigmoid, x.clone(), &[2, 3]);
    check(ops::sin, x.clone(), &[6]);
    check(ops::cos, x.clone(), &[3, 2]);
    check(ops::square, x.clone(), &[6]);
    let pos: Vec<f64> = x.iter().map(|v| v.abs() + 0.5).collect();
    check(ops::log, pos.clone(), &[6]);
    check(ops::sqrt, pos, &[2, 3]);
}

#[test]
fn broadcasting_binary_ops() {
    let b = Tensor::from_vec(vec![0.5f64, -1.5, 2.0], &[3]).unwrap();
    let x = vec![0.3, -1.2, 0.7, 1.9, -0.4, 0.1];
    check(|t| ops::mul(t, &b), x.clone(), &[2, 3]);
    check(
        |t| ops::div(&b, &ops::add(&ops::square(t)?, &Tensor::scalar(1.0f64))?),
        x.clone(),
        &[2, 3],
    );
    check(|t| ops::sub(&b, t), x.clone(), &[2, 3]);
    check(|t| ops::maximum(t, &b), x.clone(), &[2, 3]);
}

#[test]
fn matmul_reduce_reshape_transpose() {
    let w = Tensor::from_vec((0..12).map(|i| (i as f64 - 5.0) / 7.0).collect(), &[3, 4]).unwrap();
    let x = vec![0.3, -1.2, 0.7, 1.9, -0.4, 0.1];
    check(|t| ops::tanh(&ops::matmul(t, &w)?), x.clone(), &[2, 3]);
    check(
        |t| {
            ops::matmul_with(
                &w,
                t,
                ops::MatmulOptions {
                    transpose_a: true,
                    transpose_b: false,
                },
            )
        },
        x.clone(),
        &[3, 2],
    );
    check(
        |t| ops::reduce_mean(&ops::mul(t, t)?, Some(&[0]), true),
        x.clone(),
        &[2, 3],
    );
    check(
        |t| ops::mul(&ops::transpose(t, None)?, &ops::reshape(t, &[3, 2])?),
        x,
        &[2, 3],
    );
}
