//! Elementwise math of one tensor (the core's `ops/math.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, unary, Exports};

unary!(
    exports_unary;
    [Math, Tf] exp => ops::exp, "Elementwise e**x.";
    [Math] log => ops::log, "Elementwise natural logarithm (``-inf`` at 0, NaN below).";
    [Math, Tf] sqrt => ops::sqrt, "Elementwise square root.";
    [Math, Tf] square => ops::square, "Elementwise x*x (integers wrap on overflow, as in TensorFlow).";
    [Math, Tf] sin => ops::sin, "Elementwise sine.";
    [Math, Tf] cos => ops::cos, "Elementwise cosine.";
    [Math, Tf, Nn] tanh => ops::tanh, "Elementwise hyperbolic tangent. float32 uses Eigen's rational approximation, as TensorFlow's CPU kernel does (last-digit differences remain: TensorFlow's build uses FMA).";
    [Math, Tf, Nn] sigmoid => ops::sigmoid, "Elementwise logistic sigmoid 1 / (1 + e**-x), computed without overflow.";
    [Math, Tf] abs => ops::abs, "Elementwise absolute value.";
    [Math, Tf] sign => ops::sign, "Elementwise sign: -1, 0 or 1 (NaN for NaN). Its gradient is zero.";
    [Math] expm1 => ops::expm1, "Elementwise e**x - 1, accurate near 0.";
    [Math] log1p => ops::log1p, "Elementwise log(1 + x), accurate near 0.";
    [Math] rsqrt => ops::rsqrt, "Elementwise 1 / sqrt(x).";
    [Math] reciprocal => ops::reciprocal, "Elementwise 1 / x.";
    [Math, Tf] tan => ops::tan, "Elementwise tangent.";
    [Math, Tf] asin => ops::asin, "Elementwise arcsine.";
    [Math, Tf] acos => ops::acos, "Elementwise arccosine.";
    [Math, Tf] atan => ops::atan, "Elementwise arctangent.";
    [Math, Tf] sinh => ops::sinh, "Elementwise hyperbolic sine.";
    [Math, Tf] cosh => ops::cosh, "Elementwise hyperbolic cosine.";
    [Math] erf => ops::erf, "Elementwise Gauss error function.";
    [Math, Nn] softplus => ops::softplus, "Elementwise log(1 + e**x), computed without overflow.";
    [Nn] relu => ops::relu, "Elementwise max(x, 0). The gradient at 0 is 0, as in TensorFlow.";
    [Nn] relu6 => ops::relu6, "Elementwise min(max(x, 0), 6).";
    [Math] is_nan => ops::is_nan, "Elementwise test for NaN (bool result, no gradient).";
    [Math] is_finite => ops::is_finite, "Elementwise test for finite values (bool result, no gradient).";
    [Math] is_inf => ops::is_inf, "Elementwise test for infinities (bool result, no gradient).";
);

binary!(
    exports_binary;
    [Math] atan2(y, x) => ops::atan2, "Elementwise angle of the point (x, y): atan(y / x) in the quadrant of (x, y).";
);

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    exports_unary(ex)?;
    exports_binary(ex)?;
    Ok(())
}
