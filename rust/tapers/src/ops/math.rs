//! Elementwise math on floats (and abs/sign/square on every numeric dtype);
//! complex64/complex128 where TensorFlow has complex kernels (their element
//! math in `kernels::complex`, their gradients `g * conj(f'(z))`).

use num_traits::Float;

use super::{describe_op, elementwise, pointwise, record, record_pointwise, rule};
use crate::error::Result;
use crate::kernels::special::{self, Special};
use crate::kernels::{
    complex, complex_binary, complex_unary, float_binary, float_unary, numeric_binary,
    numeric_unary,
};
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
        // Horner steps as fused multiply-adds (as Eigen's `pmadd` on FMA
        // CPUs): one rounding each, and the same bits on every CPU (an FMA
        // is exactly rounded; without the instruction it is libm's `fmaf`).
        let x2 = x * x;
        let mut p = -2.760_768_5e-16_f32;
        p = p.mul_add(x2, 2.000_188e-13);
        p = p.mul_add(x2, -8.604_672e-11);
        p = p.mul_add(x2, 5.122_297e-8);
        p = p.mul_add(x2, 1.485_722_4e-5);
        p = p.mul_add(x2, 6.372_619e-4);
        p = p.mul_add(x2, 4.893_524_6e-3);
        p *= x;
        let mut q = 1.198_258_4e-6_f32;
        q = q.mul_add(x2, 1.185_347_1e-4);
        q = q.mul_add(x2, 2.268_434_6e-3);
        q = q.mul_add(x2, 4.893_525e-3);
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
        // Multiply-adds fused as in Eigen's `pmadd` on FMA CPUs (see
        // `fast_tanh`: the same bits on every CPU).
        let x = self.clamp(LO, HI);
        let shifted = x.mul_add(LOG2E, MAGIC);
        let m = shifted - MAGIC;
        let r = (-m).mul_add(C2, (-m).mul_add(C1, x));
        let r2 = r * r;
        let mut p = 1.987_569_2e-4_f32;
        p = p.mul_add(r, 1.398_199_9e-3);
        p = p.mul_add(r, 8.333_452e-3);
        p = p.mul_add(r, 4.166_579_6e-2);
        p = p.mul_add(r, 1.666_666_5e-1);
        p = p.mul_add(r, 0.5); // Cephes: 5.0000001201e-1, which rounds to 0.5 in f32
        let y = p.mul_add(r2, r) + 1.0;
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
///
/// `$Fwd` names the op's per-element forward formula ([`elementwise!`]):
/// eager's kernel and a traced graph run the same code.
macro_rules! unary_op {
    ($(#[$doc:meta])* $name:ident, $Op:ident, $Fwd:ident, $tf:literal, |$v:ident| $fwd:expr,
     $(complex: |$cv:ident| $cfwd:expr,)? |$x:ident, $y:ident| $dydx:expr) => {
        elementwise!(
            /// The op's formula at one element.
            $Fwd<T: [Float + Special + ErfFn]>, |$v| $fwd
        );
        describe_op!($Op, $tf, |[x]| $name(x), rows: true, elementwise: $Fwd, method: $name);

        $(#[$doc])*
        pub fn $name(x: &Tensor) -> Result<Tensor> {
            let c: Option<Tensor> = None $(.or(complex_unary!(x, |$cv| $cfwd)))?;
            let y = match c {
                Some(t) => t,
                None => float_unary!($tf, x, |v| $Fwd::at(v))?,
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
    expm1, Expm1, Expm1Fwd, "Expm1", |v| v.exp_m1(), complex: |v| complex::expm1(v), |x, y| ops::add(y, &scalar_like(y, 1.0))?
);
unary_op!(
    /// `ln(1 + x)`, accurate near 0.
    log1p, Log1p, Log1pFwd, "Log1p", |v| v.ln_1p(), complex: |v| complex::log1p(v), |x, y| ops::reciprocal(&ops::add(x, &scalar_like(x, 1.0))?)?
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
    tan, Tan, TanFwd, "Tan", |v| v.tan(), complex: |v| v.tan(), |x, y| ops::add(&ops::mul(y, y)?, &scalar_like(y, 1.0))?
);
unary_op!(
    /// Arcsine.
    asin, Asin, AsinFwd, "Asin", |v| v.asin(), complex: |v| v.asin(), |x, y| ops::rsqrt(&ops::sub(&scalar_like(x, 1.0), &ops::mul(x, x)?)?)?
);
unary_op!(
    /// Arccosine.
    acos, Acos, AcosFwd, "Acos", |v| v.acos(), complex: |v| v.acos(), |x, y| ops::neg(&ops::rsqrt(&ops::sub(&scalar_like(x, 1.0), &ops::mul(x, x)?)?)?)?
);
unary_op!(
    /// Arctangent.
    atan, Atan, AtanFwd, "Atan", |v| v.atan(), complex: |v| v.atan(), |x, y| ops::reciprocal(&ops::add(&ops::mul(x, x)?, &scalar_like(x, 1.0))?)?
);
unary_op!(
    /// Hyperbolic sine.
    sinh, Sinh, SinhFwd, "Sinh", |v| v.sinh(), complex: |v| v.sinh(), |x, y| ops::cosh(x)?
);
unary_op!(
    /// Hyperbolic cosine.
    cosh, Cosh, CoshFwd, "Cosh", |v| v.cosh(), complex: |v| v.cosh(), |x, y| ops::sinh(x)?
);
unary_op!(
    /// `ln(1 + e^x)`, computed without overflow.
    softplus, Softplus, SoftplusFwd, "Softplus", |v| {
        let zero = zero_of(v);
        let m = if v > zero { v } else { zero };
        m + (Float::exp(-Float::abs(v))).ln_1p()
    }, |x, y| ops::sigmoid(x)?
);
unary_op!(
    /// The error function.
    erf, Erf, ErfFwd, "Erf", |v| ErfFn::erf(v), |x, y| {
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

// ---- tf.math's rounding, inverse hyperbolic, "no NaN" and special functions
// (issue 20). Special functions: `kernels::special` (Cephes as Eigen has it,
// and libm).

/// Rounds without a gradient: TF registers none for Floor, Ceil, Round and
/// Rint (their gradient is `None`).
macro_rules! rounding_op {
    ($(#[$doc:meta])* $name:ident, $tf:literal, |$v:ident| $body:expr) => {
        $(#[$doc])*
        pub fn $name(x: &Tensor) -> Result<Tensor> {
            let y = float_unary!($tf, x, |$v| $body)?;
            super::trace_only($tf, &[x], &y, |i| $name(&i[0]));
            Ok(y)
        }
    };
}

rounding_op!(
    /// The largest integer not above each element (TF's `Floor`). Not differentiable.
    floor, "Floor", |v| v.floor()
);
rounding_op!(
    /// The smallest integer not below each element (TF's `Ceil`). Not differentiable.
    ceil, "Ceil", |v| v.ceil()
);
rounding_op!(
    /// The nearest integer, halves to even (TF's `Rint`; float32/float64 only,
    /// as TF's CPU kernels). Not differentiable.
    rint, "Rint", |v| v.round_ties_even()
);

/// The nearest integer, halves to even ("banker's rounding", TF's
/// `tf.math.round`): integers come back unchanged, complex numbers are TF's
/// `NotFoundError`. Not differentiable.
pub fn round(x: &Tensor) -> Result<Tensor> {
    if x.dtype().is_integer() {
        return Ok(x.clone());
    }
    if x.dtype().is_complex() {
        return Err(crate::error::Error::NotFound(format!(
            "Could not find device for node: {{{{node Round}}}} = Round[T=DT_{}]\n\
             All kernels registered for op Round on CPU exclude {} [Op:Round]",
            x.dtype().name().to_uppercase(),
            x.dtype().name()
        )));
    }
    let y = float_unary!("Round", x, |v| v.round_ties_even())?;
    super::trace_only("Round", &[x], &y, |i| round(&i[0]));
    Ok(y)
}

unary_op!(
    /// Inverse hyperbolic sine.
    asinh, Asinh, AsinhFwd, "Asinh", |v| v.asinh(), complex: |v| v.asinh(), |x, y| ops::reciprocal(&ops::cosh(y)?)?
);
unary_op!(
    /// Inverse hyperbolic cosine (NaN below 1).
    acosh, Acosh, AcoshFwd, "Acosh", |v| v.acosh(), complex: |v| v.acosh(), |x, y| ops::reciprocal(&ops::sinh(y)?)?
);
unary_op!(
    /// Inverse hyperbolic tangent (`+-inf` at `+-1`, NaN beyond).
    atanh, Atanh, AtanhFwd, "Atanh", |v| v.atanh(), complex: |v| v.atanh(), |x, y| ops::reciprocal(&ops::sub(&scalar_like(x, 1.0), &ops::mul(x, x)?)?)?
);
unary_op!(
    /// The complementary error function `1 - erf(x)`, accurate where erf is near 1.
    erfc, Erfc, ErfcFwd, "Erfc", |v| Special::erfc(v), |x, y| {
        let minus_two_over_sqrt_pi = scalar_like(x, -std::f64::consts::FRAC_2_SQRT_PI);
        ops::mul(&minus_two_over_sqrt_pi, &ops::exp(&ops::neg(&ops::mul(x, x)?)?)?)?
    }
);
unary_op!(
    /// `ln |Gamma(x)|` (infinite at 0 and the negative integers).
    lgamma, Lgamma, LgammaFwd, "Lgamma", |v| Special::lgamma(v), |x, y| digamma(x)?
);
unary_op!(
    /// The digamma function `d ln Gamma(x) / dx` (NaN at 0 and the negative integers).
    digamma, Digamma, DigammaFwd, "Digamma", |v| Special::digamma(v), |x, y| polygamma(&scalar_like(x, 1.0), x)?
);

describe_op!(Softsign, "Softsign", |[x]| softsign(x), method: softsign);

/// `x / (1 + |x|)` (NaN at `+-inf`, as TF's kernel). Its gradient is
/// `g / (1 + |x|)^2` (TF's `SoftsignGrad`); TF has no gradient of that, and
/// tapers' is `None` (TF raises `LookupError`).
pub fn softsign(x: &Tensor) -> Result<Tensor> {
    let y = float_unary!("Softsign", x, |v| v / (v.abs() + 1.0))?;
    record(Softsign, &[x], &[&y], || {
        let x = x.clone();
        rule(move |g, _| {
            // Cut from tapes when the rule runs (not while recording): TF has
            // no gradient of `SoftsignGrad`.
            let x = ops::stop_gradient(&x);
            let d = ops::add(&abs(&x)?, &scalar_like(&x, 1.0))?;
            Ok(vec![Some(ops::div(&g[0], &ops::mul(&d, &d)?)?)])
        })
    });
    Ok(y)
}

/// Records a binary op whose rule gives each input's gradient before
/// broadcasting (`grads(g, a, b)`), reduced to the input's shape.
#[allow(clippy::type_complexity)]
fn record_binary<O: crate::op::Op>(
    op: O,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    grads: impl Fn(&Tensor, &Tensor, &Tensor, &[bool]) -> Result<[Option<Tensor>; 2]>
        + Send
        + Sync
        + 'static,
) {
    let rank = out.rank();
    record(op, &[a, b], &[out], || {
        let (a, b) = (a.clone(), b.clone());
        rule(move |g, needs| {
            let [ga, gb] = grads(&g[0], &a, &b, needs)?;
            Ok(vec![
                ga.map(|t| super::unbroadcast(&t, rank, a.shape()))
                    .transpose()?,
                gb.map(|t| super::unbroadcast(&t, rank, b.shape()))
                    .transpose()?,
            ])
        })
    });
}

/// 1 where `x` is not zero, else 0, in `x`'s dtype (TF's `not_zero_x`).
fn not_zero(x: &Tensor) -> Result<Tensor> {
    ops::cast(&ops::not_equal(x, &ops::zeros_like(x)?)?, x.dtype())
}

describe_op!(SquaredDifference, "SquaredDifference", |[a, b]| squared_difference(a, b), method: squared_difference);

/// `(x - y)^2` with broadcasting (floats, int32, int64; complex:
/// `(x - y) conj(x - y)`, real-valued, as TF's kernel). Gradient
/// `2 (x - y) g` and its negation (unconjugated for complex, as TF's rule).
pub fn squared_difference(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let c = complex_binary!("SquaredDifference", x, y, |a, b| {
        let d = a - b;
        num_complex::Complex::new(d.norm_sqr(), num_traits::Zero::zero())
    });
    let out = match c {
        Some(r) => r?,
        None => numeric_binary!("SquaredDifference", x, y, |a, b| {
            let d = Arith::sub(a, b);
            Arith::mul(d, d)
        })?,
    };
    record_binary(SquaredDifference, x, y, &out, |g, x, y, needs| {
        let gx = ops::mul(&ops::mul(g, &scalar_like(g, 2.0))?, &ops::sub(x, y)?)?;
        let gy = if needs[1] { Some(ops::neg(&gx)?) } else { None };
        Ok([Some(gx), gy])
    });
    Ok(out)
}

describe_op!(DivNoNan, "DivNoNan", |[a, b]| div_no_nan(a, b), method: div_no_nan);

/// `x / y`, and 0 where `y` is 0 (whatever `x` is), with broadcasting (TF's
/// `DivNoNan`; floats and complex: `tf.math.divide_no_nan` casts integers
/// first). Gradients `div_no_nan(g, y)` and `g * div_no_nan(div_no_nan(-x,
/// y), y)`: zeros where `y` is 0 (complex: of `conj(x)`, `conj(y)`, as TF's).
pub fn div_no_nan(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let c = complex_binary!("DivNoNan", x, y, |a, b| if num_traits::Zero::is_zero(&b) {
        num_traits::Zero::zero()
    } else {
        complex::div(a, b)
    });
    let out = match c {
        Some(r) => r?,
        None => float_binary!("DivNoNan", x, y, |a, b| if b == 0.0 { 0.0 } else { a / b })?,
    };
    record_binary(DivNoNan, x, y, &out, |g, x, y, needs| {
        let (x, y) = (&conj_if_complex(x)?, &conj_if_complex(y)?);
        let gx = if needs[0] {
            Some(div_no_nan(g, y)?)
        } else {
            None
        };
        let gy = if needs[1] {
            Some(ops::mul(
                g,
                &div_no_nan(&div_no_nan(&ops::neg(x)?, y)?, y)?,
            )?)
        } else {
            None
        };
        Ok([gx, gy])
    });
    Ok(out)
}

/// `div_no_nan(1, x)`: `1 / x`, and 0 where `x` is 0 (TF's
/// `tf.math.reciprocal_no_nan`, with DivNoNan's gradient).
pub fn reciprocal_no_nan(x: &Tensor) -> Result<Tensor> {
    div_no_nan(&Tensor::scalar_of(x.dtype(), 1.0), x)
}

describe_op!(MulNoNan, "MulNoNan", |[a, b]| mul_no_nan(a, b), method: mul_no_nan);

/// `x * y`, and 0 where `y` is 0 (even if `x` is infinite or NaN), with
/// broadcasting (TF's `MulNoNan`). Gradients `mul_no_nan(g, y)` and
/// `mul_no_nan(x, g)`.
///
/// Complex too; TF's rule does not conjugate here, nor does tapers'.
pub fn mul_no_nan(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let c = complex_binary!("MulNoNan", x, y, |a, b| if num_traits::Zero::is_zero(&b) {
        num_traits::Zero::zero()
    } else {
        a * b
    });
    let out = match c {
        Some(r) => r?,
        None => float_binary!("MulNoNan", x, y, |a, b| if b == 0.0 { 0.0 } else { a * b })?,
    };
    record_binary(MulNoNan, x, y, &out, |g, x, y, needs| {
        let gx = if needs[0] {
            Some(mul_no_nan(g, y)?)
        } else {
            None
        };
        let gy = if needs[1] {
            Some(mul_no_nan(x, g)?)
        } else {
            None
        };
        Ok([gx, gy])
    });
    Ok(out)
}

describe_op!(Xlogy, "Xlogy", |[a, b]| xlogy(a, b), method: xlogy);

/// `x * ln(y)`, and 0 where `x` is 0 (even if `y` is 0 or NaN), with
/// broadcasting (TF's `Xlogy`). Gradients `g xlogy(x != 0, y)` and
/// `g xdivy(x, y)`: zeros where `x` is 0.
///
/// Complex too (principal log); TF's rule does not conjugate, nor does tapers'.
pub fn xlogy(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let c = complex_binary!("Xlogy", x, y, |a, b| if num_traits::Zero::is_zero(&a) {
        num_traits::Zero::zero()
    } else {
        a * b.ln()
    });
    let out = match c {
        Some(r) => r?,
        None => float_binary!("Xlogy", x, y, |a, b| if a == 0.0 {
            0.0
        } else {
            a * b.ln()
        })?,
    };
    record_binary(Xlogy, x, y, &out, |g, x, y, needs| {
        let gx = if needs[0] {
            Some(ops::mul(g, &xlogy(&not_zero(x)?, y)?)?)
        } else {
            None
        };
        let gy = if needs[1] {
            Some(ops::mul(g, &xdivy(x, y)?)?)
        } else {
            None
        };
        Ok([gx, gy])
    });
    Ok(out)
}

describe_op!(Xlog1py, "Xlog1py", |[a, b]| xlog1py(a, b), method: xlog1py);

/// `x * ln(1 + y)`, and 0 where `x` is 0, with broadcasting (TF's
/// `Xlog1py`). Gradients `g xlog1py(x != 0, y)` and `g xdivy(x, y + 1)`.
/// Complex too (TF's rule does not conjugate, nor does tapers').
pub fn xlog1py(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let c = complex_binary!("Xlog1py", x, y, |a, b| if num_traits::Zero::is_zero(&a) {
        num_traits::Zero::zero()
    } else {
        a * complex::log1p(b)
    });
    let out = match c {
        Some(r) => r?,
        None => float_binary!("Xlog1py", x, y, |a, b| if a == 0.0 {
            0.0
        } else {
            a * b.ln_1p()
        })?,
    };
    record_binary(Xlog1py, x, y, &out, |g, x, y, needs| {
        let gx = if needs[0] {
            Some(ops::mul(g, &xlog1py(&not_zero(x)?, y)?)?)
        } else {
            None
        };
        let gy = if needs[1] {
            Some(ops::mul(
                g,
                &xdivy(x, &ops::add(y, &scalar_like(y, 1.0))?)?,
            )?)
        } else {
            None
        };
        Ok([gx, gy])
    });
    Ok(out)
}

describe_op!(Xdivy, "Xdivy", |[a, b]| xdivy(a, b), method: xdivy);

/// `x / y`, and 0 where `x` is 0 (even if `y` is 0 or NaN), with
/// broadcasting (TF's `Xdivy`). Gradients `g xdivy(x != 0, y)` and
/// `g xdivy(-x, y^2)`.
///
/// Complex too (TF's rule does not conjugate, nor does tapers'); a nonzero
/// `x` over a zero `y` gives NaN parts (Eigen's vectorized division: TF's
/// scalar path gives infinities there).
pub fn xdivy(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let c = complex_binary!("Xdivy", x, y, |a, b| if num_traits::Zero::is_zero(&a) {
        num_traits::Zero::zero()
    } else {
        complex::div(a, b)
    });
    let out = match c {
        Some(r) => r?,
        None => float_binary!("Xdivy", x, y, |a, b| if a == 0.0 { 0.0 } else { a / b })?,
    };
    record_binary(Xdivy, x, y, &out, |g, x, y, needs| {
        let gx = if needs[0] {
            Some(ops::mul(g, &xdivy(&not_zero(x)?, y)?)?)
        } else {
            None
        };
        let gy = if needs[1] {
            Some(ops::mul(g, &xdivy(&ops::neg(x)?, &ops::mul(y, y)?)?)?)
        } else {
            None
        };
        Ok([gx, gy])
    });
    Ok(out)
}

/// Integer division by zero: refused before the kernel runs (TF's kernel
/// reports an `InternalError` there; tapers an `InvalidArgumentError`, as
/// for `floordiv`).
fn check_int_divisor(op: &'static str, b: &Tensor) -> Result<()> {
    use crate::dtype::Scalar;
    let zero = b.dtype().is_integer()
        && crate::with_real_storage!(b.storage(), q => q.iter().any(|v| v.to_num().is_zero()), _ => false);
    if zero {
        return Err(crate::error::Error::invalid(format!(
            "Integer division by zero [Op:{op}]"
        )));
    }
    Ok(())
}

/// Division rounding toward zero, C's `/` (TF's `tf.truncatediv`; floats
/// give `trunc(x / y)`). Not differentiable.
pub fn truncatediv(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    check_int_divisor("TruncateDiv", y)?;
    let out = numeric_binary!("TruncateDiv", x, y, |a, b| TruncOps::tdiv(a, b))?;
    super::trace_only("TruncateDiv", &[x, y], &out, |i| truncatediv(&i[0], &i[1]));
    Ok(out)
}

/// The remainder of division rounding toward zero, with the sign of `x`
/// (C's `%` and `fmod`; TF's `tf.truncatemod`). TF registers no gradient
/// (`LookupError`); tapers' is `None`.
pub fn truncatemod(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    check_int_divisor("TruncateMod", y)?;
    let out = numeric_binary!("TruncateMod", x, y, |a, b| TruncOps::tmod(a, b))?;
    super::trace_only("TruncateMod", &[x, y], &out, |i| truncatemod(&i[0], &i[1]));
    Ok(out)
}

/// Truncating division and remainder on every real element type.
trait TruncOps: Copy {
    fn tdiv(self, o: Self) -> Self;
    fn tmod(self, o: Self) -> Self;
}
macro_rules! trunc_float {
    ($($t:ty),*) => {$(
        impl TruncOps for $t {
            fn tdiv(self, o: Self) -> Self {
                (self / o).trunc()
            }
            fn tmod(self, o: Self) -> Self {
                self % o
            }
        }
    )*};
}
trunc_float!(f32, f64);
macro_rules! trunc_int {
    ($($t:ty),*) => {$(
        impl TruncOps for $t {
            // Divisors of 0 are refused before; MIN / -1 wraps, as TF's kernels.
            fn tdiv(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_div(o) }
            }
            fn tmod(self, o: Self) -> Self {
                if o == 0 { 0 } else { self.wrapping_rem(o) }
            }
        }
    )*};
}
trunc_int!(i8, i16, i32, i64, u8, u16, u32, u64);

describe_op!(Polygamma, "Polygamma", |[a, x]| polygamma(a, x), method: polygamma);

/// The polygamma function `psi^(a)(x)`, the `a`-th derivative of digamma
/// (`a` a non-negative integer, else NaN), with broadcasting. Gradient with
/// respect to `x`: `polygamma(a + 1, x)`; none with respect to `a` (as TF).
pub fn polygamma(a: &Tensor, x: &Tensor) -> Result<Tensor> {
    let out = float_binary!("Polygamma", a, x, |n, v| Special::polygamma(n, v))?;
    record_binary(Polygamma, a, x, &out, |g, a, x, needs| {
        let gx = if needs[1] {
            Some(ops::mul(
                g,
                &polygamma(&ops::add(a, &scalar_like(a, 1.0))?, x)?,
            )?)
        } else {
            None
        };
        Ok([None, gx])
    });
    Ok(out)
}

describe_op!(Zeta, "Zeta", |[a, b]| zeta(a, b), method: zeta);

/// The Hurwitz zeta function `sum_k (k + q)^-x`, with broadcasting.
/// Gradient with respect to `q`: `-x zeta(x + 1, q)`; none with respect to
/// `x` (as TF).
pub fn zeta(x: &Tensor, q: &Tensor) -> Result<Tensor> {
    let out = float_binary!("Zeta", x, q, |a, b| Special::zeta(a, b))?;
    record_binary(Zeta, x, q, &out, |g, x, q, needs| {
        let gq = if needs[1] {
            let z = zeta(&ops::add(x, &scalar_like(x, 1.0))?, q)?;
            Some(ops::mul(g, &ops::neg(&ops::mul(x, &z)?)?)?)
        } else {
            None
        };
        Ok([None, gq])
    });
    Ok(out)
}

unary_op!(
    /// The inverse of the standard normal CDF (`-inf` at 0, `inf` at 1, NaN
    /// outside [0, 1]). Gradient `sqrt(2 pi) exp(y^2 / 2)` (TF's).
    ndtri, Ndtri, NdtriFwd, "Ndtri", |v| Special::ndtri(v), |x, y| {
        let half_square = ops::mul(&ops::square(y)?, &scalar_like(y, 0.5))?;
        ops::mul(&scalar_like(x, (2.0 * std::f64::consts::PI).sqrt()), &ops::exp(&half_square)?)?
    }
);
unary_op!(
    /// The inverse error function, `ndtri((x + 1) / 2) / sqrt(2)` as Eigen
    /// computes it (`+-inf` at `+-1`, NaN beyond). Gradient
    /// `sqrt(pi) / 2 exp(y^2)` (TF's).
    erfinv, Erfinv, ErfinvFwd, "Erfinv", |v| Special::erfinv(v), |x, y| {
        ops::mul(&scalar_like(x, std::f64::consts::PI.sqrt() / 2.0), &ops::exp(&ops::square(y)?)?)?
    }
);

/// The inverse complementary error function, `-ndtri(x / 2) sqrt(1/2)`
/// (TF's `tf.math.erfcinv`, composed of the same ops, so its gradient is
/// theirs). Floats only.
pub fn erfcinv(x: &Tensor) -> Result<Tensor> {
    if !x.dtype().is_float() {
        return Err(crate::error::Error::UnsupportedDType {
            op: "Ndtri",
            dtype: x.dtype(),
            allowed: "bfloat16, half, float, double",
        });
    }
    let n = ndtri(&ops::mul(x, &scalar_like(x, 0.5))?)?;
    ops::neg(&ops::mul(&n, &scalar_like(x, 0.5f64.sqrt()))?)
}

unary_op!(
    /// The modified Bessel function of the first kind of order 0. Gradient
    /// `bessel_i1(x)`.
    bessel_i0, BesselI0, BesselI0Fwd, "BesselI0", |v| Special::bessel_i0(v), |x, y| bessel_i1(x)?
);
unary_op!(
    /// `exp(-|x|) I0(x)`, finite for every finite `x`. Gradient
    /// `bessel_i1e(x) - sign(x) y`.
    bessel_i0e, BesselI0e, BesselI0eFwd, "BesselI0e", |v| Special::bessel_i0e(v), |x, y| {
        ops::sub(&bessel_i1e(x)?, &ops::mul(&sign(x)?, y)?)?
    }
);
unary_op!(
    /// The modified Bessel function of the first kind of order 1. Gradient
    /// `bessel_i0(x) - y / x`, and 1/2 at 0 (TF's).
    bessel_i1, BesselI1, BesselI1Fwd, "BesselI1", |v| Special::bessel_i1(v), |x, y| bessel_i1_slope(x, y, false)?
);
unary_op!(
    /// `exp(-|x|) I1(x)`. Gradient `bessel_i0e(x) - y (sign(x) + 1 / x)`, and
    /// 1/2 at 0 (TF's).
    bessel_i1e, BesselI1e, BesselI1eFwd, "BesselI1e", |v| Special::bessel_i1e(v), |x, y| bessel_i1_slope(x, y, true)?
);

/// TF's `_BesselI1Grad` / `_BesselI1eGrad`: the slope at `safe_x` (`x`, or
/// the dtype's smallest normal where `|x|` is not above it), and 1/2 there.
fn bessel_i1_slope(x: &Tensor, y: &Tensor, scaled: bool) -> Result<Tensor> {
    let tiny = match x.dtype() {
        crate::DType::F64 => f64::MIN_POSITIVE,
        crate::DType::F16 => 6.103_515_625e-5,
        _ => f32::MIN_POSITIVE as f64,
    };
    let zeros = ops::zeros_like(x)?;
    let tiny = ops::add(&zeros, &scalar_like(x, tiny))?;
    let not_tiny = ops::greater(&abs(x)?, &tiny)?;
    let safe_x = ops::where_(&not_tiny, x, &tiny)?;
    let d = if scaled {
        let s = ops::add(&sign(&safe_x)?, &ops::reciprocal(&safe_x)?)?;
        ops::sub(&bessel_i0e(&safe_x)?, &ops::mul(y, &s)?)?
    } else {
        ops::sub(
            &bessel_i0(&safe_x)?,
            &ops::mul(y, &ops::reciprocal(&safe_x)?)?,
        )?
    };
    ops::where_(&not_tiny, &d, &ops::add(&zeros, &scalar_like(x, 0.5))?)
}

// tf.math.special's functions beyond the modified Bessel I (float16 for the
// Bessel ones computes in float32, as TF; the others are float32/float64).
// Gradients as TF's rules in `math_grad.py`.
unary_op!(
    /// Bessel function of the first kind of order 0. Gradient `-bessel_j1(x)`.
    bessel_j0, BesselJ0, BesselJ0Fwd, "BesselJ0", |v| Special::via64(v, special::bessel_j0), |x, y| ops::neg(&bessel_j1(x)?)?
);
unary_op!(
    /// Bessel function of the first kind of order 1. Gradient
    /// `bessel_j0(x) - y / x`, and 1/2 at 0 (TF's).
    bessel_j1, BesselJ1, BesselJ1Fwd, "BesselJ1", |v| Special::via64(v, special::bessel_j1), |x, y| {
        let zero = ops::equal(x, &ops::zeros_like(x)?)?;
        let d = ops::sub(&bessel_j0(x)?, &ops::div(y, x)?)?;
        ops::where_(&zero, &ops::add(&ops::zeros_like(x)?, &scalar_like(x, 0.5))?, &d)?
    }
);
unary_op!(
    /// Bessel function of the second kind of order 0 (`-inf` for `x <= 0`).
    /// Gradient `-bessel_y1(x)`.
    bessel_y0, BesselY0, BesselY0Fwd, "BesselY0", |v| Special::via64(v, special::bessel_y0), |x, y| ops::neg(&bessel_y1(x)?)?
);
unary_op!(
    /// Bessel function of the second kind of order 1 (`-inf` for `x <= 0`).
    /// Gradient `bessel_y0(x) - y / x`.
    bessel_y1, BesselY1, BesselY1Fwd, "BesselY1", |v| Special::bessel_y1(v), |x, y| {
        ops::sub(&bessel_y0(x)?, &ops::div(y, x)?)?
    }
);
unary_op!(
    /// Modified Bessel function of the second kind of order 0 (`inf` for `x <= 0`).
    /// Gradient `-bessel_k1(x)`.
    bessel_k0, BesselK0, BesselK0Fwd, "BesselK0", |v| Special::via64(v, special::bessel_k0), |x, y| ops::neg(&bessel_k1(x)?)?
);
unary_op!(
    /// `exp(x) K0(x)`. Gradient `y - bessel_k1e(x)`.
    bessel_k0e, BesselK0e, BesselK0eFwd, "BesselK0e", |v| Special::via64(v, special::bessel_k0e), |x, y| {
        ops::sub(y, &bessel_k1e(x)?)?
    }
);
unary_op!(
    /// Modified Bessel function of the second kind of order 1 (`inf` for `x <= 0`).
    /// Gradient `-bessel_k0(x) - y / x`.
    bessel_k1, BesselK1, BesselK1Fwd, "BesselK1", |v| Special::via64(v, special::bessel_k1), |x, y| {
        ops::sub(&ops::neg(&bessel_k0(x)?)?, &ops::div(y, x)?)?
    }
);
unary_op!(
    /// `exp(x) K1(x)`. Gradient `y (1 - 1 / x) - bessel_k0e(x)`.
    bessel_k1e, BesselK1e, BesselK1eFwd, "BesselK1e", |v| Special::via64(v, special::bessel_k1e), |x, y| {
        let one = scalar_like(x, 1.0);
        ops::sub(&ops::mul(y, &ops::sub(&one, &ops::reciprocal(x)?)?)?, &bessel_k0e(x)?)?
    }
);
unary_op!(
    /// Dawson's integral. Gradient `1 - 2 x y`.
    dawsn, Dawsn, DawsnFwd, "Dawsn", |v| Special::via64(v, special::dawsn), |x, y| {
        let two_xy = ops::mul(&ops::mul(x, y)?, &scalar_like(x, 2.0))?;
        ops::sub(&scalar_like(x, 1.0), &two_xy)?
    }
);
unary_op!(
    /// The exponential integral `Ei(x)` (NaN for `x < 0`). Gradient `e^x / x`.
    expint, Expint, ExpintFwd, "Expint", |v| Special::via64(v, special::expint), |x, y| {
        ops::div(&ops::exp(x)?, x)?
    }
);
unary_op!(
    /// The Fresnel cosine integral. Gradient `cos(pi x^2 / 2)`.
    fresnel_cos, FresnelCos, FresnelCosFwd, "FresnelCos", |v| Special::via64(v, special::fresnel_cos), |x, y| {
        ops::cos(&ops::mul(&scalar_like(x, std::f64::consts::FRAC_PI_2), &ops::square(x)?)?)?
    }
);
unary_op!(
    /// The Fresnel sine integral. Gradient `sin(pi x^2 / 2)`.
    fresnel_sin, FresnelSin, FresnelSinFwd, "FresnelSin", |v| Special::via64(v, special::fresnel_sin), |x, y| {
        ops::sin(&ops::mul(&scalar_like(x, std::f64::consts::FRAC_PI_2), &ops::square(x)?)?)?
    }
);
unary_op!(
    /// Spence's function (NaN for `x < 0`). Gradient `ln(x) / (1 - x)`, and
    /// -1 at `x == 1` (TF's).
    spence, Spence, SpenceFwd, "Spence", |v| Special::via64(v, special::spence), |x, y| {
        let one = scalar_like(x, 1.0);
        let at_one = ops::equal(x, &ops::add(&ops::zeros_like(x)?, &one)?)?;
        let d = ops::div(&ops::log(x)?, &ops::sub(&one, x)?)?;
        ops::where_(&at_one, &ops::neg(&ops::ones_like(x)?)?, &d)?
    }
);

describe_op!(Igamma, "Igamma", |[a, b]| igamma(a, b), method: igamma);
describe_op!(Igammac, "Igammac", |[a, b]| igammac(a, b), method: igammac);

/// `P(a, x)`'s gradients as TF's `_IgammaGrad` (negated for `Igammac`):
/// `igamma_grad_a(a, x)` for `a` (not differentiable again: TF has no
/// gradient of `IgammaGradA`), `exp(-x + (a - 1) ln x - lgamma(a))` for `x`.
fn igamma_grads(
    g: &Tensor,
    a: &Tensor,
    x: &Tensor,
    needs: &[bool],
    sign: f64,
) -> Result<[Option<Tensor>; 2]> {
    let s = scalar_like(g, sign);
    let ga = if needs[0] {
        let d = igamma_grad_a(&ops::stop_gradient(a), &ops::stop_gradient(x))?;
        Some(ops::mul(&ops::mul(g, &d)?, &s)?)
    } else {
        None
    };
    let gx = if needs[1] {
        let one = scalar_like(a, 1.0);
        let e = ops::sub(
            &ops::add(
                &ops::neg(x)?,
                &ops::mul(&ops::sub(a, &one)?, &ops::log(x)?)?,
            )?,
            &lgamma(a)?,
        )?;
        Some(ops::mul(&ops::mul(g, &ops::exp(&e)?)?, &s)?)
    } else {
        None
    };
    Ok([ga, gx])
}

/// The regularized lower incomplete gamma function `P(a, x)` with
/// broadcasting (TF's `Igamma`, Cephes' series and continued fraction as
/// Eigen has them): 0 at `x == 0`, NaN for `x < 0`, `a <= 0` or a NaN.
/// Gradients with respect to both (see `igamma_grads`).
pub fn igamma(a: &Tensor, x: &Tensor) -> Result<Tensor> {
    let out = float_binary!("Igamma", a, x, |p, q| Special::via64_2(
        p,
        q,
        special::igamma
    ))?;
    record_binary(Igamma, a, x, &out, |g, a, x, needs| {
        igamma_grads(g, a, x, needs, 1.0)
    });
    Ok(out)
}

/// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`
/// (TF's `Igammac`). Gradients the negated ones of [`igamma`] (TF's rule).
pub fn igammac(a: &Tensor, x: &Tensor) -> Result<Tensor> {
    let out = float_binary!("Igammac", a, x, |p, q| Special::via64_2(
        p,
        q,
        special::igammac
    ))?;
    record_binary(Igammac, a, x, &out, |g, a, x, needs| {
        igamma_grads(g, a, x, needs, -1.0)
    });
    Ok(out)
}

/// `d P(a, x) / da` with broadcasting (TF's `IgammaGradA`, float32/float64).
/// Not differentiable (TF registers no gradient for it): recorded nowhere.
pub fn igamma_grad_a(a: &Tensor, x: &Tensor) -> Result<Tensor> {
    float_binary!("IgammaGradA", a, x, |p, q| Special::via64_2(
        p,
        q,
        special::igamma_grad_a
    ))
}

describe_op!(NextAfter, "NextAfter", |[a, b]| nextafter(a, b), method: nextafter);

/// The next representable value after `x1` toward `x2` (float32/float64).
/// Gradients as TF's: `g` for `x1`, zeros for `x2`.
pub fn nextafter(x1: &Tensor, x2: &Tensor) -> Result<Tensor> {
    let out = float_binary!("NextAfter", x1, x2, |a, b| Special::nextafter(a, b))?;
    record_binary(NextAfter, x1, x2, &out, |g, _, _, needs| {
        let gy = if needs[1] {
            Some(ops::zeros_like(g)?)
        } else {
            None
        };
        Ok([Some(g.clone()), gy])
    });
    Ok(out)
}

/// `ln |B(x)|` of the last axis: `sum(lgamma(x)) - lgamma(sum(x))` (TF's
/// `tf.math.lbeta`, composed of the same ops, so its gradient is theirs; an
/// empty last axis gives `-inf`, as TF).
pub fn lbeta(x: &Tensor) -> Result<Tensor> {
    let log_prod = ops::reduce_sum(&lgamma(x)?, Some(&[-1]), false)?;
    let sum = ops::reduce_sum(x, Some(&[-1]), false)?;
    ops::sub(&log_prod, &lgamma(&sum)?)
}

describe_op!(Betainc, "Betainc", |[a, b, x]| betainc(a, b, x));

/// The regularized incomplete beta function `I_x(a, b)` (TF's
/// `tf.math.betainc`): NaN for `a <= 0`, `b <= 0` or `x` outside [0, 1].
/// `a`, `b` and `x` share one shape, except that any may be a scalar (TF's
/// rule). Gradient with respect to `x` only (TF has none for `a` and `b`):
/// `exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - ln B(a, b))`.
pub fn betainc(a: &Tensor, b: &Tensor, x: &Tensor) -> Result<Tensor> {
    crate::kernels::same_dtype("Betainc", a, b)?;
    crate::kernels::same_dtype("Betainc", a, x)?;
    crate::kernels::registered::check("Betainc", a.dtype())?;
    let shape = [a, b, x]
        .iter()
        .map(|t| t.shape())
        .find(|s| !s.is_empty())
        .unwrap_or(&[])
        .to_vec();
    for (name, t) in [("b", b), ("x", x)] {
        let s = if t.shape().is_empty() {
            &shape[..]
        } else {
            t.shape()
        };
        if s != &shape[..] || (!a.shape().is_empty() && a.shape() != &shape[..]) {
            return Err(crate::error::Error::invalid(format!(
                "Shapes of a and {name} are inconsistent: {:?} vs. {:?} [Op:Betainc]",
                a.shape(),
                t.shape()
            )));
        }
    }
    use crate::tensor::Storage;
    let out = match (a.storage(), b.storage(), x.storage()) {
        (Storage::F64(p), Storage::F64(q), Storage::F64(r)) => {
            Tensor::from_array(crate::kernels::zip3_map(
                "Betainc",
                crate::kernels::Pass::Compute,
                p,
                q,
                r,
                crate::kernels::special::betainc,
            )?)
        }
        (Storage::F32(p), Storage::F32(q), Storage::F32(r)) => {
            Tensor::from_array(crate::kernels::zip3_map(
                "Betainc",
                crate::kernels::Pass::Compute,
                p,
                q,
                r,
                |a, b, x| crate::kernels::special::betainc(a as f64, b as f64, x as f64) as f32,
            )?)
        }
        _ => {
            return Err(crate::error::Error::UnsupportedDType {
                op: "Betainc",
                dtype: a.dtype(),
                allowed: "float, double",
            })
        }
    };
    record(Betainc, &[a, b, x], &[&out], || {
        let (a, b, x) = (a.clone(), b.clone(), x.clone());
        let shape = x.shape().to_vec();
        rule(move |g, needs| {
            if !needs[2] {
                return Ok(vec![None, None, None]);
            }
            let one = scalar_like(&x, 1.0);
            let log_beta = ops::sub(
                &ops::add(&lgamma(&a)?, &lgamma(&b)?)?,
                &lgamma(&ops::add(&a, &b)?)?,
            )?;
            let e = ops::add(
                &xlog1py(&ops::sub(&b, &one)?, &ops::neg(&x)?)?,
                &xlogy(&ops::sub(&a, &one)?, &x)?,
            )?;
            let d = ops::mul(&g[0], &ops::exp(&ops::sub(&e, &log_beta)?)?)?;
            let gx = super::unbroadcast(&d, d.rank(), &shape)?;
            Ok(vec![None, None, Some(gx)])
        })
    });
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
