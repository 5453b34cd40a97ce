//! Elementwise math on floats (and abs/sign/square on every numeric dtype).

use num_traits::Float;

use super::{record, rule};
use crate::error::Result;
use crate::kernels::{float_unary, numeric_unary};
use crate::ops::{self, arith::Arith};
use crate::tensor::Tensor;

fn scalar_like(t: &Tensor, v: f64) -> Tensor {
    Tensor::scalar_of(t.dtype(), v)
}

/// `e^x`.
pub fn exp(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Exp", x, |v| v.exp())?;
    record("Exp", &[x], &y, || {
        let y = y.clone();
        rule(move |g, _| Ok(vec![Some(ops::mul(&g[0], &y)?)]))
    });
    Ok(y)
}

/// Natural logarithm.
pub fn log(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Log", x, |v| v.ln())?;
    record("Log", &[x], &y, || {
        let x = x.clone();
        rule(move |g, _| Ok(vec![Some(ops::div(&g[0], &x)?)]))
    });
    Ok(y)
}

/// Square root; its gradient at 0 is infinite (as TF).
pub fn sqrt(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Sqrt", x, |v| v.sqrt())?;
    record("Sqrt", &[x], &y, || {
        let y = y.clone();
        rule(move |g, _| {
            let half = scalar_like(&y, 0.5);
            Ok(vec![Some(ops::div(&ops::mul(&g[0], &half)?, &y)?)])
        })
    });
    Ok(y)
}

/// `x * x`.
pub fn square(x: &Tensor) -> Result<Tensor> {
    let y = numeric_unary!("Square", x, |v| v * v)?;
    record("Square", &[x], &y, || {
        let x = x.clone();
        rule(move |g, _| {
            let two = scalar_like(&x, 2.0);
            Ok(vec![Some(ops::mul(&g[0], &ops::mul(&x, &two)?)?)])
        })
    });
    Ok(y)
}

/// Sine.
pub fn sin(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Sin", x, |v| v.sin())?;
    record("Sin", &[x], &y, || {
        let x = x.clone();
        rule(move |g, _| Ok(vec![Some(ops::mul(&g[0], &cos(&x)?)?)]))
    });
    Ok(y)
}

/// Cosine.
pub fn cos(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Cos", x, |v| v.cos())?;
    record("Cos", &[x], &y, || {
        let x = x.clone();
        rule(move |g, _| Ok(vec![Some(ops::neg(&ops::mul(&g[0], &sin(&x)?)?)?)]))
    });
    Ok(y)
}

/// Hyperbolic tangent.
pub fn tanh(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Tanh", x, |v| v.tanh())?;
    record("Tanh", &[x], &y, || {
        let y = y.clone();
        rule(move |g, _| {
            let one = scalar_like(&y, 1.0);
            Ok(vec![Some(ops::mul(
                &g[0],
                &ops::sub(&one, &ops::mul(&y, &y)?)?,
            )?)])
        })
    });
    Ok(y)
}

/// Logistic sigmoid `1 / (1 + e^-x)`, computed without overflow.
pub fn sigmoid(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Sigmoid", x, |v| {
        let one = one_of(v);
        if v >= zero_of(v) {
            (Float::exp(-v) + one).recip()
        } else {
            let e = v.exp();
            e / (e + one)
        }
    })?;
    record("Sigmoid", &[x], &y, || {
        let y = y.clone();
        rule(move |g, _| {
            let one = scalar_like(&y, 1.0);
            Ok(vec![Some(ops::mul(
                &g[0],
                &ops::mul(&y, &ops::sub(&one, &y)?)?,
            )?)])
        })
    });
    Ok(y)
}

/// Absolute value; the gradient at 0 is 0 (as TF).
pub fn abs(x: &Tensor) -> Result<Tensor> {
    let y = numeric_unary!("Abs", x, |v| if v < Arith::neg(v) {
        Arith::neg(v)
    } else {
        v
    })?;
    record("Abs", &[x], &y, || {
        let x = x.clone();
        rule(move |g, _| Ok(vec![Some(ops::mul(&g[0], &sign(&x)?)?)]))
    });
    Ok(y)
}

/// -1, 0 or 1 by sign (NaN stays NaN). Its gradient is zero.
pub fn sign(x: &Tensor) -> Result<Tensor> {
    let y = numeric_unary!("Sign", x, |v| {
        let zero = zero_of(v);
        if Arith::is_nan(v) {
            v
        } else if v > zero {
            zero + one_of(v)
        } else if v < zero {
            zero - one_of(v)
        } else {
            zero
        }
    })?;
    record("Sign", &[x], &y, || {
        rule(|g, _| Ok(vec![Some(ops::array::zeros_like(&g[0])?)]))
    });
    Ok(y)
}

fn one_of<T: num_traits::One>(_: T) -> T {
    T::one()
}

fn zero_of<T: num_traits::Zero>(_: T) -> T {
    T::zero()
}
