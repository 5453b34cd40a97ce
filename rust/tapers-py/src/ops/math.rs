//! Elementwise math of one tensor (the core's `ops/math.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, export, unary, Exports};

unary!(
    exp => ops::exp, "Elementwise e**x.";
    log => ops::log, "Elementwise natural logarithm (``-inf`` at 0, NaN below).";
    sqrt => ops::sqrt, "Elementwise square root.";
    square => ops::square, "Elementwise x*x (integers wrap on overflow, as in TensorFlow).";
    sin => ops::sin, "Elementwise sine.";
    cos => ops::cos, "Elementwise cosine.";
    tanh => ops::tanh, "Elementwise hyperbolic tangent. float32 uses Eigen's rational approximation, as TensorFlow's CPU kernel does (last-digit differences remain: TensorFlow's build uses FMA).";
    sigmoid => ops::sigmoid, "Elementwise logistic sigmoid 1 / (1 + e**-x), computed without overflow.";
    abs => ops::abs, "Elementwise absolute value.";
    sign => ops::sign, "Elementwise sign: -1, 0 or 1 (NaN for NaN). Its gradient is zero.";
    expm1 => ops::expm1, "Elementwise e**x - 1, accurate near 0.";
    log1p => ops::log1p, "Elementwise log(1 + x), accurate near 0.";
    rsqrt => ops::rsqrt, "Elementwise 1 / sqrt(x).";
    reciprocal => ops::reciprocal, "Elementwise 1 / x.";
    tan => ops::tan, "Elementwise tangent.";
    asin => ops::asin, "Elementwise arcsine.";
    acos => ops::acos, "Elementwise arccosine.";
    atan => ops::atan, "Elementwise arctangent.";
    sinh => ops::sinh, "Elementwise hyperbolic sine.";
    cosh => ops::cosh, "Elementwise hyperbolic cosine.";
    erf => ops::erf, "Elementwise Gauss error function.";
    softplus => ops::softplus, "Elementwise log(1 + e**x), computed without overflow.";
    relu => ops::relu, "Elementwise max(x, 0). The gradient at 0 is 0, as in TensorFlow.";
    relu6 => ops::relu6, "Elementwise min(max(x, 0), 6).";
    is_nan => ops::is_nan, "Elementwise test for NaN (bool result, no gradient).";
    is_finite => ops::is_finite, "Elementwise test for finite values (bool result, no gradient).";
    is_inf => ops::is_inf, "Elementwise test for infinities (bool result, no gradient).";
);

binary!(@args y, x; atan2 => ops::atan2, "Elementwise angle of the point (x, y): atan(y / x) in the quadrant of (x, y).";);

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Math, Tf]: exp, sqrt, square, sin, cos, abs, sign, tan, asin, acos, atan, sinh, cosh);
    export!(ex, [Math, Tf, Nn]: tanh, sigmoid);
    export!(ex, [Math]: log, expm1, log1p, rsqrt, reciprocal, erf, is_nan, is_finite, is_inf, atan2);
    export!(ex, [Math, Nn]: softplus);
    export!(ex, [Nn]: relu, relu6);
    Ok(())
}
