//! Complex element kernels (complex64, complex128): arithmetic for the
//! shared reductions and products, and the dispatch macros the op families
//! call before their real-dtype dispatch.
//!
//! Complex math follows `num-complex` (C99-style formulas: `exp(a+bi) =
//! e^a (cos b + i sin b)`, principal branches on the negative real axis),
//! as TensorFlow's Eigen kernels follow `std::complex`.

use num_complex::Complex;
use num_traits::Float;

use super::Arith;
use crate::dtype::{c128, c64};

macro_rules! complex_arith {
    ($t:ty) => {
        impl Arith for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                div(self, o)
            }
            // Floor division and modulo have no complex kernels (TF neither):
            // the ops reject complex tensors before any kernel runs.
            fn floordiv(self, o: Self) -> Self {
                div(self, o)
            }
            fn floormod(self, _o: Self) -> Self {
                Complex::new(Float::nan(), Float::nan())
            }
            fn pow(self, o: Self) -> Self {
                pow(self, o)
            }
            fn neg(self) -> Self {
                -self
            }
            fn is_nan(self) -> bool {
                self.re.is_nan() || self.im.is_nan()
            }
        }
    };
}
complex_arith!(c64);
complex_arith!(c128);

/// `a / b` as Eigen's vectorized complex division (`pdiv_complex`, which
/// TensorFlow's `Div`/`RealDiv` kernels run): `b` scaled by the larger of
/// `|re b|`, `|im b|` first, so large divisors do not overflow `|b|^2`;
/// a zero or infinite divisor gives NaN in both parts (as TensorFlow).
#[inline]
pub(crate) fn div<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let m = b.re.abs().max(b.im.abs());
    let (c, d) = (b.re / m, b.im / m);
    let den = c * c + d * d;
    let re = (a.re * c + a.im * d) / den;
    let im = (a.im * c - a.re * d) / den;
    Complex::new(re / m, im / m)
}

/// `a ** b` as `exp(b log a)` (as `std::pow` on complex numbers: `0 ** 0` is NaN, as TensorFlow's).
#[inline]
pub(crate) fn pow<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    (b * a.ln()).exp()
}

/// `1 / z` (TensorFlow's `Reciprocal`: a zero or infinite `z` gives NaN).
#[inline]
pub(crate) fn recip<T: Float>(z: Complex<T>) -> Complex<T> {
    div(Complex::new(T::one(), T::zero()), z)
}

/// The principal square root with C99's special values (Annex G, as
/// `std::sqrt` on complex numbers): `sqrt(x ± i inf) = inf ± i inf` even for
/// NaN `x`, `sqrt(-inf + iy) = 0 + i inf`, `sqrt(inf + iy) = inf + i0`, and
/// `(|x| + |z|) / 2` formed without overflow.
#[inline]
pub(crate) fn sqrt<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let zero = T::zero();
    let two = T::one() + T::one();
    if x == zero && y == zero {
        return Complex::new(zero, y);
    }
    if y.is_infinite() {
        return Complex::new(T::infinity(), y);
    }
    if x.is_nan() {
        return Complex::new(x, T::nan());
    }
    if x.is_infinite() {
        return if y.is_nan() {
            Complex::new(x.abs(), y)
        } else if x > zero {
            Complex::new(x, zero.copysign(y))
        } else {
            Complex::new(zero, T::infinity().copysign(y))
        };
    }
    if y.is_nan() {
        return Complex::new(y, y);
    }
    // t = sqrt((|x| + |z|) / 2), scaled down first where the sum would overflow.
    let big = T::max_value() / (two * two);
    let t = if x.abs() > big || y.abs() > big {
        let four = two * two;
        let (xs, ys) = (x / four, y / four);
        ((xs.abs() + xs.hypot(ys)) / two).sqrt() * two
    } else {
        ((x.abs() + x.hypot(y)) / two).sqrt()
    };
    if x >= zero {
        Complex::new(t, y / (two * t))
    } else {
        Complex::new(y.abs() / (two * t), t.copysign(y))
    }
}

/// `1 / (1 + e^-z)`.
#[inline]
pub(crate) fn sigmoid<T: Float>(z: Complex<T>) -> Complex<T> {
    recip(Complex::new(T::one(), T::zero()) + (-z).exp())
}

/// `e^z - 1`, accurate near 0: `expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y`.
#[inline]
pub(crate) fn expm1<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let half = (y / (T::one() + T::one())).sin();
    Complex::new(
        x.exp_m1() * y.cos() - (T::one() + T::one()) * half * half,
        x.exp() * y.sin(),
    )
}

/// `ln(1 + z)`, accurate near 0: `ln_1p(x (2 + x) + y^2) / 2 + i atan2(y, 1 + x)`.
#[inline]
pub(crate) fn log1p<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let two = T::one() + T::one();
    let m = x * (two + x) + y * y;
    if m.is_finite() && m > -T::one() {
        Complex::new(m.ln_1p() / two, y.atan2(T::one() + x))
    } else {
        (Complex::new(T::one(), T::zero()) + z).ln()
    }
}

/// Dispatches a unary kernel over complex64/complex128:
/// `complex_unary!(tensor, |z| expr)` is `Some(tensor)` for a complex
/// tensor, `None` for any other (the caller's real dispatch runs then). The
/// closure's body is generic over the element type (`num_complex::Complex<f32 or f64>`).
macro_rules! complex_unary {
    ($t:expr, |$x:ident| $body:expr) => {{
        let t: &$crate::Tensor = $t;
        match t.storage() {
            $crate::Storage::C64(a) => Some($crate::Tensor::from_array($crate::kernels::map(
                a,
                |$x: $crate::dtype::c64| $body,
            ))),
            $crate::Storage::C128(a) => Some($crate::Tensor::from_array($crate::kernels::map(
                a,
                |$x: $crate::dtype::c128| $body,
            ))),
            _ => None,
        }
    }};
}
pub(crate) use complex_unary;

/// Dispatches a binary kernel with broadcasting over complex64/complex128:
/// `complex_binary!(op, a, b, |x, y| expr)` is `None` when `a` is not
/// complex (the caller's real dispatch runs, and reports a dtype mismatch
/// itself), else `Some` of the result or of the mismatch error.
macro_rules! complex_binary {
    ($op:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {{
        let (a, b): (&$crate::Tensor, &$crate::Tensor) = ($a, $b);
        if !a.dtype().is_complex() {
            None
        } else {
            Some($crate::kernels::same_dtype($op, a, b).and_then(|_| {
                match (a.storage(), b.storage()) {
                    ($crate::Storage::C64(p), $crate::Storage::C64(q)) => $crate::kernels::zip_map(
                        $op,
                        p,
                        q,
                        |$x: $crate::dtype::c64, $y: $crate::dtype::c64| $body,
                    )
                    .map($crate::Tensor::from_array),
                    ($crate::Storage::C128(p), $crate::Storage::C128(q)) => {
                        $crate::kernels::zip_map(
                            $op,
                            p,
                            q,
                            |$x: $crate::dtype::c128, $y: $crate::dtype::c128| $body,
                        )
                        .map($crate::Tensor::from_array)
                    }
                    _ => unreachable!("dtypes checked equal and complex"),
                }
            }))
        }
    }};
}
pub(crate) use complex_binary;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_scales_and_handles_zero() {
        let q = div(c128::new(1.0, 2.0), c128::new(3.0, -4.0));
        assert!((q - c128::new(-0.2, 0.4)).norm() < 1e-15);
        let big = div(c128::new(1e300, 1e300), c128::new(1e300, 1e300));
        assert_eq!(big, c128::new(1.0, 0.0));
        let zero = div(c128::new(1.0, 0.0), c128::new(0.0, 0.0));
        assert!(zero.re.is_nan() && zero.im.is_nan());
        assert_eq!(
            pow(c128::new(0.0, 0.0), c128::new(2.0, 0.0)),
            c128::new(0.0, 0.0)
        );
        let r = sqrt(c128::new(-3.0, 4.0));
        assert!((r - c128::new(1.0, 2.0)).norm() < 1e-15);
        assert_eq!(
            sqrt(c64::new(f32::NEG_INFINITY, 1.0)),
            c64::new(0.0, f32::INFINITY)
        );
        let huge = sqrt(c64::new(f32::MAX, f32::MAX));
        assert!(huge.re.is_finite() && huge.im.is_finite());
    }
}
