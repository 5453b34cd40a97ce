//! Elementwise math on floats (and abs/sign/square on every numeric dtype);
//! complex64/complex128 where TensorFlow has complex kernels (their element
//! math in `kernels::complex`, their gradients `g * conj(f'(z))`).

use num_traits::Float;

use super::{describe_op, elementwise, pointwise, record, record_pointwise, rule};
use crate::error::Result;
use crate::kernels::{complex, complex_unary, float_unary, numeric_unary};
use crate::ops::complex::conj_if_complex;
use crate::ops::{self, arith::Arith};
use crate::tensor::Tensor;

// The forward formulas of the fusable elementwise ops, each run by its eager
// kernel and by a traced graph's fused loops.
elementwise!(
    /// `e^x` at one element.
    ExpFwd<T: [FastExp]>, |v| FastExp::fast_exp(v)
);
elementwise!(
    /// `ln x` at one element.
    LogFwd<T: [Float]>, |v| v.ln()
);
elementwise!(
    /// `sqrt(x)` at one element.
    SqrtFwd<T: [Float]>, |v| v.sqrt()
);
elementwise!(
    /// `x * x` at one element.
    SquareFwd<T: [Arith]>, |v| Arith::mul(v, v)
);
elementwise!(
    /// `sin x` at one element.
    SinFwd<T: [Float]>, |v| v.sin()
);
elementwise!(
    /// `cos x` at one element.
    CosFwd<T: [Float]>, |v| v.cos()
);
elementwise!(
    /// `tanh x` at one element.
    TanhFwd<T: [FastTanh]>, |v| FastTanh::fast_tanh(v)
);
elementwise!(
    /// `1 / sqrt(x)` at one element.
    RsqrtFwd<T: [Float]>, |v| v.sqrt().recip()
);
elementwise!(
    /// `1 / x` at one element.
    ReciprocalFwd<T: [Float]>, |v| v.recip()
);
elementwise!(
    /// The logistic sigmoid at one element: one exp of -|v| (never
    /// overflows): sigmoid(|v|) = 1 / (1 + e), and sigmoid(-|v|) = e / (1 +
    /// e). Selects only, so the loop vectorizes.
    SigmoidFwd<T: [FastExp + Float]>, |v| {
        let one = one_of(v);
        let e = FastExp::fast_exp(-v.abs());
        let s = one / (one + e);
        if v >= zero_of(v) {
            s
        } else {
            e * s
        }
    }
);
elementwise!(
    /// relu at one element: `v < 0`, not `v > 0`, so NaN (and -0.0) pass
    /// through, as in TF.
    ReluFwd<T: [Arith + PartialOrd]>, |v| {
        let z = zero_of(v);
        if v < z {
            z
        } else {
            v
        }
    }
);

fn scalar_like(t: &Tensor, v: f64) -> Tensor {
    Tensor::scalar_of(t.dtype(), v)
}

pointwise!(
    /// `d e^x = g y`.
    ExpLocal { arity: 1, saves: Output, 0: |g, y, _y| g * y }
);
describe_op!(Exp, "Exp", |[x]| exp(x), rows: true, pointwise: ExpLocal, elementwise: ExpFwd, method: exp);

/// `e^x`. float32 uses Cephes' polynomial (as TensorFlow's Eigen kernels
/// do; within 1 ulp of the rounded true value), vectorized; float64 the
/// platform's `exp`.
pub fn exp(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| v.exp()) {
        Some(t) => t,
        None => float_unary!("Exp", x, map_simd, |v| ExpFwd::at(v))?,
    };
    record_pointwise(Exp, &[x], &y);
    Ok(y)
}

pointwise!(
    /// `d ln x = g / x`.
    LogLocal { arity: 1, saves: Inputs, 0: |g, x, _x| g / x }
);
describe_op!(Log, "Log", |[x]| log(x), rows: true, pointwise: LogLocal, elementwise: LogFwd, method: log);

/// Natural logarithm.
pub fn log(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| v.ln()) {
        Some(t) => t,
        None => float_unary!("Log", x, |v| LogFwd::at(v))?,
    };
    record_pointwise(Log, &[x], &y);
    Ok(y)
}

pointwise!(
    /// `d sqrt(x) = g / (2 y)`, as `(g * 0.5) / y`, and 0 where `g` is 0 (TF's `SqrtGrad`).
    SqrtLocal { arity: 1, saves: Output, 0: |g, y, _y| g.unless_zero((g * y.lit(0.5)) / y) }
);
describe_op!(Sqrt, "Sqrt", |[x]| sqrt(x), rows: true, pointwise: SqrtLocal, elementwise: SqrtFwd, method: sqrt);

/// Square root; its gradient at 0 is infinite (as TF).
pub fn sqrt(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| complex::sqrt(v)) {
        Some(t) => t,
        None => float_unary!("Sqrt", x, |v| SqrtFwd::at(v))?,
    };
    record_pointwise(Sqrt, &[x], &y);
    Ok(y)
}

pointwise!(
    /// `d x^2 = g (2 x)`.
    SquareLocal { arity: 1, saves: Inputs, 0: |g, x, _x| g * (x * x.lit(2.0)) }
);
describe_op!(Square, "Square", |[x]| square(x), rows: true, pointwise: SquareLocal, elementwise: SquareFwd, method: square);

/// `x * x`.
pub fn square(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| v * v) {
        Some(t) => t,
        None => numeric_unary!("Square", x, |v| SquareFwd::at(v))?,
    };
    record_pointwise(Square, &[x], &y);
    Ok(y)
}

describe_op!(Sin, "Sin", |[x]| sin(x), rows: true, elementwise: SinFwd, method: sin);
describe_op!(Cos, "Cos", |[x]| cos(x), rows: true, elementwise: CosFwd, method: cos);

/// Sine.
pub fn sin(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| v.sin()) {
        Some(t) => t,
        None => float_unary!("Sin", x, |v| SinFwd::at(v))?,
    };
    record(Sin, &[x], &[&y], || {
        let x = x.clone();
        rule(move |g, _| Ok(vec![Some(ops::mul(&g[0], &conj_if_complex(&cos(&x)?)?)?)]))
    });
    Ok(y)
}

/// Cosine.
pub fn cos(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| v.cos()) {
        Some(t) => t,
        None => float_unary!("Cos", x, |v| CosFwd::at(v))?,
    };
    record(Cos, &[x], &[&y], || {
        let x = x.clone();
        rule(move |g, _| {
            Ok(vec![Some(ops::neg(&ops::mul(
                &g[0],
                &conj_if_complex(&sin(&x)?)?,
            )?)?)])
        })
    });
    Ok(y)
}

pointwise!(
    /// `d tanh = g (1 - y^2)` (TF's `TanhGrad`).
    TanhLocal { arity: 1, saves: Output, 0: |g, y, _y| g * (y.lit(1.0) - y * y) }
);
describe_op!(Tanh, "Tanh", |[x]| tanh(x), rows: true, pointwise: TanhLocal, elementwise: TanhFwd, method: tanh);

/// Hyperbolic tangent. float32 uses Eigen's rational approximation (as TF
/// does; within 4e-7 of the true value, and it vectorizes), float64 the
/// platform's `tanh`.
pub fn tanh(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| v.tanh()) {
        Some(t) => t,
        None => float_unary!("Tanh", x, map_simd, |v| TanhFwd::at(v))?,
    };
    record_pointwise(Tanh, &[x], &y);
    Ok(y)
}

/// tanh for the element types: fast rational form for f32, libm for f64.
pub(crate) trait FastTanh {
    fn fast_tanh(self) -> Self;
}

impl FastTanh for f64 {
    fn fast_tanh(self) -> f64 {
        self.tanh()
    }
}

impl FastTanh for f32 {
    #[inline]
    fn fast_tanh(self) -> f32 {
        // Eigen's generic_fast_tanh_float: odd 13/6 rational approximation on
        // [-7.905, 7.905]. Beyond, +-1 exactly: TensorFlow's (FMA) build of it
        // gives 1.0 there, and so tanh(+-inf) = +-1 with a zero gradient.
        const CLAMP: f32 = 7.905_311;
        let x = self.clamp(-CLAMP, CLAMP);
        let x2 = x * x;
        let mut p = -2.760_768_5e-16_f32;
        p = p * x2 + 2.000_188e-13;
        p = p * x2 - 8.604_672e-11;
        p = p * x2 + 5.122_297e-8;
        p = p * x2 + 1.485_722_4e-5;
        p = p * x2 + 6.372_619e-4;
        p = p * x2 + 4.893_524_6e-3;
        p *= x;
        let mut q = 1.198_258_4e-6_f32;
        q = q * x2 + 1.185_347_1e-4;
        q = q * x2 + 2.268_434_6e-3;
        q = q * x2 + 4.893_525e-3;
        // Selects, not early returns: the loop stays vectorized.
        let r = if self.abs() < 0.0004 { self } else { p / q };
        if self.abs() >= CLAMP {
            1.0f32.copysign(self)
        } else {
            r
        }
    }
}

/// exp for the element types: a polynomial for f32, libm for f64.
pub(crate) trait FastExp {
    fn fast_exp(self) -> Self;
}

impl FastExp for f64 {
    fn fast_exp(self) -> f64 {
        self.exp()
    }
}

impl FastExp for f32 {
    #[inline]
    fn fast_exp(self) -> f32 {
        // Cephes expf, as in Eigen's pexp_float: e^x = 2^m * e^r with
        // m = round(x / ln 2) and |r| <= ln 2 / 2, e^r by a polynomial. Only
        // float arithmetic, bit casts and selects, so the loop vectorizes
        // (libm's expf is a call per element).
        const LOG2E: f32 = std::f32::consts::LOG2_E;
        // ln 2 split in two so that m * C1 is exact and x - m * C1 loses nothing.
        const C1: f32 = 0.693_359_4;
        const C2: f32 = -2.121_944_4e-4;
        // Below LO the result rounds to 0, above HI (ln of f32::MAX) it is infinite.
        const LO: f32 = -104.0;
        const HI: f32 = 88.722_84;
        // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer, and
        // leaves it in the low mantissa bits of the sum.
        const MAGIC: f32 = 12_582_912.0;
        let x = self.clamp(LO, HI);
        let shifted = x * LOG2E + MAGIC;
        let m = shifted - MAGIC;
        let r = x - m * C1 - m * C2;
        let r2 = r * r;
        let mut p = 1.987_569_2e-4_f32;
        p = p * r + 1.398_199_9e-3;
        p = p * r + 8.333_452e-3;
        p = p * r + 4.166_579_6e-2;
        p = p * r + 1.666_666_5e-1;
        p = p * r + 0.5; // Cephes: 5.0000001201e-1, which rounds to 0.5 in f32
        let y = p * r2 + r + 1.0;
        // 2^m as two normal powers (m is in [-150, 128], beyond one f32
        // exponent): the product rounds once, into subnormals when it must.
        let mi = shifted.to_bits() as i32 - MAGIC.to_bits() as i32;
        let m1 = mi >> 1;
        let m2 = mi - m1;
        let pow = |k: i32| f32::from_bits(((k + 127) as u32) << 23);
        let e = y * pow(m1) * pow(m2);
        // Selects, not early returns: the loop stays vectorized.
        if self.is_nan() {
            self
        } else if self > HI {
            f32::INFINITY
        } else if self < LO {
            0.0
        } else {
            e
        }
    }
}

pointwise!(
    /// `d sigmoid = g y (1 - y)` (TF's `SigmoidGrad`).
    SigmoidLocal { arity: 1, saves: Output, 0: |g, y, _y| g * (y * (y.lit(1.0) - y)) }
);
describe_op!(Sigmoid, "Sigmoid", |[x]| sigmoid(x), rows: true, pointwise: SigmoidLocal, elementwise: SigmoidFwd, method: sigmoid);

/// Logistic sigmoid `1 / (1 + e^-x)`, computed without overflow.
pub fn sigmoid(x: &Tensor) -> Result<Tensor> {
    if let Some(y) = complex_unary!(x, |v| complex::sigmoid(v)) {
        record_pointwise(Sigmoid, &[x], &y);
        return Ok(y);
    }
    let y = float_unary!("Sigmoid", x, map_simd, |v| SigmoidFwd::at(v))?;
    record_pointwise(Sigmoid, &[x], &y);
    Ok(y)
}

describe_op!(Abs, "Abs", |[x]| abs(x), rows: true, method: abs);
describe_op!(Sign, "Sign", |[x]| sign(x), rows: true, method: sign);

/// Absolute value; the gradient at 0 is 0 (as TF). Complex: `|z|` in the
/// real dtype ([`ops::complex_abs`]).
pub fn abs(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        // `|z|` in the real dtype: TF's `tf.abs` runs `ComplexAbs`.
        return ops::complex_abs(x);
    }
    // abs(-0.0) is +0.0, as TF's.
    let y = numeric_unary!("Abs", x, |v| {
        let z = zero_of(v);
        if v < z {
            Arith::neg(v)
        } else if v == z {
            z
        } else {
            v
        }
    })?;
    record(Abs, &[x], &[&y], || {
        let x = x.clone();
        rule(move |g, _| Ok(vec![Some(ops::mul(&g[0], &sign(&x)?)?)]))
    });
    Ok(y)
}

/// -1, 0 or 1 by sign (NaN stays NaN). Its gradient is zero.
pub fn sign(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_complex() {
        // TF's `tf.math.sign` of complex: `div_no_nan(x, cast(|x|))`, composed
        // of taped ops (so differentiable, unlike the real `Sign`).
        return ops::complex::sign(x);
    }
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
    record(Sign, &[x], &[&y], || {
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

/// Defines a float unary op whose gradient is `g * d(x, y)`, with `d` written
/// using public ops on the input `x` and output `y`.
macro_rules! unary_op {
    ($(#[$doc:meta])* $name:ident, $Op:ident, $tf:literal, |$v:ident| $fwd:expr,
     $(complex: |$cv:ident| $cfwd:expr,)? |$x:ident, $y:ident| $dydx:expr) => {
        describe_op!($Op, $tf, |[x]| $name(x), rows: true, method: $name);

        $(#[$doc])*
        pub fn $name(x: &Tensor) -> Result<Tensor> {
            let c: Option<Tensor> = None $(.or(complex_unary!(x, |$cv| $cfwd)))?;
            let y = match c {
                Some(t) => t,
                None => float_unary!($tf, x, |$v| $fwd)?,
            };
            record($Op, &[x], &[&y], || {
                let ($x, $y) = (x.clone(), y.clone());
                rule(move |g, _| {
                    #[allow(unused_variables)]
                    let ($x, $y) = (&$x, &$y);
                    // Complex: g * conj(f'(x)) (TensorFlow's convention).
                    Ok(vec![Some(ops::mul(&g[0], &conj_if_complex(&$dydx)?)?)])
                })
            });
            Ok(y)
        }
    };
}

unary_op!(
    /// `e^x - 1`, accurate near 0.
    expm1, Expm1, "Expm1", |v| v.exp_m1(), complex: |v| complex::expm1(v), |x, y| ops::add(y, &scalar_like(y, 1.0))?
);
unary_op!(
    /// `ln(1 + x)`, accurate near 0.
    log1p, Log1p, "Log1p", |v| v.ln_1p(), complex: |v| complex::log1p(v), |x, y| ops::reciprocal(&ops::add(x, &scalar_like(x, 1.0))?)?
);
pointwise!(
    /// `d x^-1/2 = g (-y^3 / 2)`, and 0 where `g` is 0 (TF's `RsqrtGrad`).
    RsqrtLocal { arity: 1, saves: Output, 0: |g, y, _y| g.unless_zero(g * ((y * (y * y)) * y.lit(-0.5))) }
);
describe_op!(Rsqrt, "Rsqrt", |[x]| rsqrt(x), rows: true, pointwise: RsqrtLocal, elementwise: RsqrtFwd, method: rsqrt);

/// `1 / sqrt(x)`.
pub fn rsqrt(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| complex::recip(complex::sqrt(v))) {
        Some(t) => t,
        None => float_unary!("Rsqrt", x, |v| RsqrtFwd::at(v))?,
    };
    record_pointwise(Rsqrt, &[x], &y);
    Ok(y)
}

pointwise!(
    /// `d x^-1 = g (-y^2)`, and 0 where `g` is 0 (TF's `ReciprocalGrad`).
    ReciprocalLocal { arity: 1, saves: Output, 0: |g, y, _y| g.unless_zero(g * -(y * y)) }
);
describe_op!(Reciprocal, "Reciprocal", |[x]| reciprocal(x), rows: true, pointwise: ReciprocalLocal, elementwise: ReciprocalFwd, method: reciprocal);

/// `1 / x`.
pub fn reciprocal(x: &Tensor) -> Result<Tensor> {
    let y = match complex_unary!(x, |v| complex::recip(v)) {
        Some(t) => t,
        None => float_unary!("Reciprocal", x, |v| ReciprocalFwd::at(v))?,
    };
    record_pointwise(Reciprocal, &[x], &y);
    Ok(y)
}
unary_op!(
    /// Tangent.
    tan, Tan, "Tan", |v| v.tan(), complex: |v| v.tan(), |x, y| ops::add(&ops::mul(y, y)?, &scalar_like(y, 1.0))?
);
unary_op!(
    /// Arcsine.
    asin, Asin, "Asin", |v| v.asin(), complex: |v| v.asin(), |x, y| ops::rsqrt(&ops::sub(&scalar_like(x, 1.0), &ops::mul(x, x)?)?)?
);
unary_op!(
    /// Arccosine.
    acos, Acos, "Acos", |v| v.acos(), complex: |v| v.acos(), |x, y| ops::neg(&ops::rsqrt(&ops::sub(&scalar_like(x, 1.0), &ops::mul(x, x)?)?)?)?
);
unary_op!(
    /// Arctangent.
    atan, Atan, "Atan", |v| v.atan(), complex: |v| v.atan(), |x, y| ops::reciprocal(&ops::add(&ops::mul(x, x)?, &scalar_like(x, 1.0))?)?
);
unary_op!(
    /// Hyperbolic sine.
    sinh, Sinh, "Sinh", |v| v.sinh(), complex: |v| v.sinh(), |x, y| ops::cosh(x)?
);
unary_op!(
    /// Hyperbolic cosine.
    cosh, Cosh, "Cosh", |v| v.cosh(), complex: |v| v.cosh(), |x, y| ops::sinh(x)?
);
unary_op!(
    /// `ln(1 + e^x)`, computed without overflow.
    softplus, Softplus, "Softplus", |v| {
        let zero = zero_of(v);
        let m = if v > zero { v } else { zero };
        m + (Float::exp(-Float::abs(v))).ln_1p()
    }, |x, y| ops::sigmoid(x)?
);
unary_op!(
    /// The error function.
    erf, Erf, "Erf", |v| ErfFn::erf(v), |x, y| {
        let two_over_sqrt_pi = scalar_like(x, std::f64::consts::FRAC_2_SQRT_PI);
        ops::mul(&two_over_sqrt_pi, &ops::exp(&ops::neg(&ops::mul(x, x)?)?)?)?
    }
);

/// The error function on both float widths.
trait ErfFn {
    fn erf(self) -> Self;
}
impl ErfFn for f32 {
    fn erf(self) -> f32 {
        libm::erff(self)
    }
}
impl ErfFn for f64 {
    fn erf(self) -> f64 {
        libm::erf(self)
    }
}

pointwise!(
    /// `d relu = g * (x > 0)` (TF's `ReluGrad`: an infinite `g` where `x <= 0`
    /// gives NaN; its own gradient with respect to `x` is zeros).
    ReluLocal { arity: 1, saves: Inputs, 0: |g, x, _x| x.times_positive(g) }
);
describe_op!(Relu, "Relu", |[x]| relu(x), rows: true, pointwise: ReluLocal, elementwise: ReluFwd, method: relu);
describe_op!(Relu6, "Relu6", |[x]| relu6(x), method: relu6);

/// Rectified linear unit; the gradient at 0 is 0, and NaN stays NaN (as TF).
pub fn relu(x: &Tensor) -> Result<Tensor> {
    let y = numeric_unary!("Relu", x, |v| ReluFwd::at(v))?;
    record_pointwise(Relu, &[x], &y);
    Ok(y)
}

/// `min(max(x, 0), 6)`; NaN stays NaN; the gradient is `g` strictly inside
/// (0, 6) and `g * 0` elsewhere (TF's `Relu6Grad`), and its own gradient with
/// respect to `x` is zeros.
pub fn relu6(x: &Tensor) -> Result<Tensor> {
    let y = numeric_unary!("Relu6", x, |v| {
        let z = zero_of(v);
        let six = z + one_of(v) + one_of(v) + one_of(v) + one_of(v) + one_of(v) + one_of(v);
        if v > six {
            six
        } else if v < z {
            z
        } else {
            v
        }
    })?;
    record(Relu6, &[x], &[&y], || {
        let x = x.clone();
        rule(move |g, _| {
            let inside = ops::logical_and(
                &ops::greater(&x, &ops::zeros_like(&x)?)?,
                &ops::less(&x, &Tensor::scalar_of(x.dtype(), 6.0))?,
            )?;
            let d = ops::mul(&g[0], &ops::cast(&inside, g[0].dtype())?)?;
            Ok(vec![Some(ops::grad::zero_dependence(&d, &x))])
        })
    });
    Ok(y)
}

pointwise!(
    /// `d atan2(y, x) = (g x, -g y) / (x^2 + y^2)` (TF's `Atan2` gradient).
    Atan2Local {
        arity: 2,
        saves: Inputs,
        0: |g, y, x| x * (g / (x * x + y * y)),
        1: |g, y, x| -y * (g / (x * x + y * y)),
    }
);
describe_op!(Atan2, "Atan2", |[y, x]| atan2(y, x), rows: true, pointwise: Atan2Local, method: atan2);

/// The angle of the point `(x, y)`: `atan(y / x)` in the right quadrant,
/// with broadcasting (TF's `tf.math.atan2(y, x)`).
pub fn atan2(y: &Tensor, x: &Tensor) -> Result<Tensor> {
    let out = crate::kernels::float_binary!("Atan2", y, x, |a, b| a.atan2(b))?;
    record_pointwise(Atan2, &[y, x], &out);
    Ok(out)
}

/// Whether each element is NaN (floats only).
pub fn is_nan(x: &Tensor) -> Result<Tensor> {
    let out = float_unary!("IsNan", x, |v| v.is_nan())?;
    super::trace_only("IsNan", &[x], &out, |i| is_nan(&i[0]));
    Ok(out)
}

/// Whether each element is finite (floats only).
pub fn is_finite(x: &Tensor) -> Result<Tensor> {
    let out = float_unary!("IsFinite", x, |v| v.is_finite())?;
    super::trace_only("IsFinite", &[x], &out, |i| is_finite(&i[0]));
    Ok(out)
}

/// Whether each element is infinite (floats only).
pub fn is_inf(x: &Tensor) -> Result<Tensor> {
    let out = float_unary!("IsInf", x, |v| v.is_infinite())?;
    super::trace_only("IsInf", &[x], &out, |i| is_inf(&i[0]));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{FastExp, FastTanh};

    /// Distance in representable f32 values (monotone for same-sign floats).
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn fast_exp_f32_is_within_one_ulp_everywhere() {
        let mut worst = (0u32, 0f32);
        let n = 2_000_000;
        for i in 0..=n {
            let x = (-110.0 + 200.0 * (i as f64 / n as f64)) as f32;
            let d = ulps(x.fast_exp(), (x as f64).exp() as f32);
            if d > worst.0 {
                worst = (d, x);
            }
        }
        assert!(worst.0 <= 1, "{} ulp at x = {}", worst.0, worst.1);
    }

    #[test]
    fn fast_exp_f32_special_values() {
        assert_eq!(0.0f32.fast_exp(), 1.0);
        assert_eq!((-0.0f32).fast_exp(), 1.0);
        assert_eq!(f32::INFINITY.fast_exp(), f32::INFINITY);
        assert_eq!(f32::NEG_INFINITY.fast_exp(), 0.0);
        assert!(f32::NAN.fast_exp().is_nan());
        assert_eq!(89.0f32.fast_exp(), f32::INFINITY);
        assert!(88.72f32.fast_exp().is_finite());
        assert_eq!((-104.5f32).fast_exp(), 0.0);
        let tiny = (-100.0f32).fast_exp();
        assert!(tiny > 0.0 && !tiny.is_normal(), "a subnormal");
        assert!(ulps(1.0f32.fast_exp(), std::f32::consts::E) <= 1);
    }

    #[test]
    fn fast_tanh_f32_is_close_and_saturates() {
        for i in -20_000..=20_000 {
            let x = i as f32 * 5e-4;
            let want = (x as f64).tanh();
            assert!((x.fast_tanh() as f64 - want).abs() <= 4e-7, "x = {x}");
        }
        assert_eq!(f32::INFINITY.fast_tanh(), 1.0);
        assert_eq!(f32::NEG_INFINITY.fast_tanh(), -1.0);
    }
}
