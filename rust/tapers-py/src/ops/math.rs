//! Elementwise math of one tensor (the core's `ops/math.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, export, name_doc, unary, Exports};
use crate::args::Name;
use crate::call::{call, Work};

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
    [Math] is_nan => ops::is_nan, "Elementwise test for NaN (bool result, no gradient).";
    [Math] is_finite => ops::is_finite, "Elementwise test for finite values (bool result, no gradient).";
    [Math] is_inf => ops::is_inf, "Elementwise test for infinities (bool result, no gradient).";
    [Math, Tf] floor => ops::floor, "Elementwise largest integer not above x. Not differentiable (gradient None, as in TensorFlow).";
    [Math] ceil => ops::ceil, "Elementwise smallest integer not below x. Not differentiable (gradient None, as in TensorFlow).";
    [Math, Tf] round => ops::round, "Elementwise nearest integer, halves to even (banker's rounding, as TensorFlow); integers unchanged. Not differentiable.";
    [Math] rint => ops::rint, "Elementwise nearest integer, halves to even (float32/float64, as TensorFlow's CPU kernels). Not differentiable.";
    [Math, Tf] asinh => ops::asinh, "Elementwise inverse hyperbolic sine.";
    [Math, Tf] acosh => ops::acosh, "Elementwise inverse hyperbolic cosine (NaN below 1).";
    [Math, Tf] atanh => ops::atanh, "Elementwise inverse hyperbolic tangent (+-inf at +-1, NaN beyond).";
    [Special] bessel_j0 => ops::bessel_j0, "Elementwise Bessel function of the first kind of order 0 (``tf.math.special.bessel_j0``).";
    [Special] bessel_j1 => ops::bessel_j1, "Elementwise Bessel function of the first kind of order 1 (``tf.math.special.bessel_j1``).";
    [Special] bessel_y0 => ops::bessel_y0, "Elementwise Bessel function of the second kind of order 0, -inf for x <= 0 (``tf.math.special.bessel_y0``).";
    [Special] bessel_y1 => ops::bessel_y1, "Elementwise Bessel function of the second kind of order 1, -inf for x <= 0 (``tf.math.special.bessel_y1``).";
    [Special] bessel_k0 => ops::bessel_k0, "Elementwise modified Bessel function of the second kind of order 0, inf for x <= 0 (``tf.math.special.bessel_k0``).";
    [Special] bessel_k0e => ops::bessel_k0e, "Elementwise exponentially scaled modified Bessel function of the second kind of order 0, exp(x) * K0(x) (``tf.math.special.bessel_k0e``).";
    [Special] bessel_k1 => ops::bessel_k1, "Elementwise modified Bessel function of the second kind of order 1, inf for x <= 0 (``tf.math.special.bessel_k1``).";
    [Special] bessel_k1e => ops::bessel_k1e, "Elementwise exponentially scaled modified Bessel function of the second kind of order 1, exp(x) * K1(x) (``tf.math.special.bessel_k1e``).";
    [Special] dawsn => ops::dawsn, "Elementwise Dawson's integral (``tf.math.special.dawsn``).";
    [Special] expint => ops::expint, "Elementwise exponential integral Ei(x), NaN for x < 0 (``tf.math.special.expint``).";
    [Special] fresnel_cos => ops::fresnel_cos, "Elementwise Fresnel cosine integral (``tf.math.special.fresnel_cos``).";
    [Special] fresnel_sin => ops::fresnel_sin, "Elementwise Fresnel sine integral (``tf.math.special.fresnel_sin``).";
    [Special] spence => ops::spence, "Elementwise Spence's function, NaN for x < 0 (``tf.math.special.spence``).";
    [Math] reciprocal_no_nan => ops::reciprocal_no_nan, "Elementwise 1 / x, and 0 where x is 0 (gradient 0 there, as TensorFlow's).";
    [Math] erfc => ops::erfc, "Elementwise complementary error function 1 - erf(x), accurate where erf(x) is near 1.";
    [Math] lgamma => ops::lgamma, "Elementwise log of the absolute value of the Gamma function (inf at 0 and the negative integers).";
    [Math] digamma => ops::digamma, "Elementwise digamma function, the derivative of lgamma (NaN at 0 and the negative integers).";
    [Math] erfinv => ops::erfinv, "Elementwise inverse error function (+-inf at +-1, NaN beyond). float32/float64, as TensorFlow's CPU kernels.";
    [Math] ndtri => ops::ndtri, "Elementwise inverse of the standard normal CDF (-inf at 0, inf at 1, NaN outside [0, 1]). float32/float64, as TensorFlow's CPU kernels.";
    [Math] erfcinv => ops::erfcinv, "Elementwise inverse complementary error function, -ndtri(x / 2) * sqrt(1/2), as TensorFlow composes it.";
    [Math, Special] bessel_i0 => ops::bessel_i0, "Elementwise modified Bessel function of the first kind of order 0.";
    [Math, Special] bessel_i0e => ops::bessel_i0e, "Elementwise exponentially scaled modified Bessel function of order 0, exp(-|x|) * I0(x).";
    [Math, Special] bessel_i1 => ops::bessel_i1, "Elementwise modified Bessel function of the first kind of order 1.";
    [Math, Special] bessel_i1e => ops::bessel_i1e, "Elementwise exponentially scaled modified Bessel function of order 1, exp(-|x|) * I1(x).";
);

// TensorFlow names the activations' parameter `features`.
unary!(
    exports_features;
    features;
    [Math, Nn] softplus => ops::softplus, "Elementwise log(1 + e**x), computed without overflow.";
    [Nn] relu => ops::relu, "Elementwise max(x, 0). The gradient at 0 is 0, as in TensorFlow.";
    [Nn] relu6 => ops::relu6, "Elementwise min(max(x, 0), 6).";
    [Math, Nn] softsign => ops::softsign, "Elementwise x / (1 + |x|) (NaN at +-inf, as TensorFlow). Its gradient has no gradient in TensorFlow (LookupError); tapers gives None.";
);

binary!(
    exports_binary;
    [Math] atan2(y, x) => ops::atan2, "Elementwise angle of the point (x, y): atan(y / x) in the quadrant of (x, y).";
    [Math] squared_difference(x, y) => ops::squared_difference, "Elementwise (x - y) ** 2 (floats, int32, int64; complex: (x - y) * conj(x - y), as TensorFlow).";
    [Math] multiply_no_nan(x, y) => ops::mul_no_nan, "Elementwise x * y, and 0 where y is 0 even if x is infinite or NaN.";
    [Math] xlogy(x, y) => ops::xlogy, "Elementwise x * log(y), and 0 where x is 0 (gradients 0 there, as TensorFlow's).";
    [Math] xlog1py(x, y) => ops::xlog1py, "Elementwise x * log1p(y), and 0 where x is 0 (gradients 0 there, as TensorFlow's).";
    [Math] xdivy(x, y) => ops::xdivy, "Elementwise x / y, and 0 where x is 0 (gradients 0 there, as TensorFlow's).";
    [Tf] truncatediv(x, y) => ops::truncatediv, "Elementwise division rounding toward zero (C's /). Integer division by zero raises InvalidArgumentError. Not differentiable.";
    [Tf] truncatemod(x, y) => ops::truncatemod, "Elementwise remainder with the sign of x (C's % and fmod). No gradient (None; TensorFlow raises LookupError).";
    [Math] polygamma(a, x) => ops::polygamma, "Elementwise polygamma function: the a-th derivative of digamma at x (a a non-negative integer, else NaN). Gradient with respect to x only.";
    [Math] nextafter(x1, x2) => ops::nextafter, "Elementwise next representable value after x1 toward x2 (float32/float64). Gradients as TensorFlow's: the upstream gradient for x1, zeros for x2.";
    [Math] igamma(a, x) => ops::igamma, "Elementwise regularized lower incomplete gamma function P(a, x) (NaN for a <= 0 or x < 0). Differentiable with respect to both, as TensorFlow's.";
    [Math] igammac(a, x) => ops::igammac, "Elementwise regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x). Differentiable with respect to both, as TensorFlow's.";
    [Math] zeta(x, q) => ops::zeta, "Elementwise Hurwitz zeta function: the sum over k >= 0 of (k + q) ** -x. Gradient with respect to q only.";
);

/// Elementwise x / y, and 0 where y is 0 (``tf.math.divide_no_nan``).
///
/// Parameters
/// ----------
/// x, y : Tensor-like
///     Broadcast together with NumPy's rules; one dtype (else ``TypeError``,
///     as TensorFlow). Integers are cast first, as TensorFlow's true
///     division: int8/int16/uint8/uint16 to float32, the wider ones to
///     float64.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     The broadcast shape. Differentiable: the gradients are 0 where y is 0,
///     as TensorFlow's.
#[pyfunction]
#[pyo3(signature = (x, y, name=None))]
pub fn divide_no_nan(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = crate::convert::binary_operands(x, y)?;
    crate::tensor::truediv_dtypes(&a, &b)?;
    call(py, name, Work::broadcast(&[&a, &b]), || {
        crate::tensor::truediv_with(&a, &b, ops::div_no_nan)
    })
}

/// The log of the absolute value of the multivariate Beta function over the
/// last axis (``tf.math.lbeta``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     Floating values of rank at least 1.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``sum(lgamma(x), -1) - lgamma(sum(x, -1))``: the shape of ``x`` without
///     its last axis (``-inf`` where that axis is empty, as TensorFlow).
///     Differentiable through the same ops as TensorFlow's.
#[pyfunction]
#[pyo3(signature = (x, name=None))]
pub fn lbeta(py: Python<'_>, x: crate::args::TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, name, Work::of(&[&t]), || ops::lbeta(&t))
}

/// The regularized incomplete beta function I_x(a, b) (``tf.math.betainc``).
///
/// Parameters
/// ----------
/// a, b, x : Tensor-like
///     float32 or float64, one dtype; one shape, except that any of them may
///     be a scalar (TensorFlow's rule: ``InvalidArgumentError`` otherwise).
///     Python numbers take the dtype of the first tensor among them.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     NaN where ``a <= 0``, ``b <= 0`` or ``x`` is outside [0, 1].
///     Differentiable with respect to ``x`` only; the gradients of ``a`` and
///     ``b`` are None, as TensorFlow's.
#[pyfunction]
#[pyo3(signature = (a, b, x, name=None))]
pub fn betainc(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    x: &Bound<'_, PyAny>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let list = pyo3::types::PyList::new(py, [a, b, x])?;
    let ts = list.extract::<crate::args::Tensors>()?.0;
    call(py, name, Work::total(&ts), || {
        ops::betainc(&ts[0], &ts[1], &ts[2])
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    exports_unary(ex)?;
    exports_features(ex)?;
    exports_binary(ex)?;
    export!(ex, [Math]: divide_no_nan, lbeta, betainc);
    Ok(())
}
