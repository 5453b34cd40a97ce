//! Complex numbers: `Complex` (two real parts into one complex), `Real`,
//! `Imag`, `Conj`, `Angle` and `ComplexAbs`, with TensorFlow's gradients.
//!
//! TensorFlow's convention for complex gradients: for a real loss `L` and
//! `z = x + iy`, the gradient returned for `z` is `dL/dx + i dL/dy`; through
//! an analytic `f` an upstream gradient `g` becomes `g * conj(f'(z))`. That
//! is how the pointwise derivatives apply to complex tensors
//! (`ops::pointwise` evaluates them on the conjugated saved values), and the
//! ops here, which are not analytic, spell their rules out as TensorFlow's
//! `math_grad.py` does.

use super::{describe_op, record, rule, unbroadcast};
use crate::dtype::{c128, c64, DType, Num, Scalar};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ops;
use crate::tensor::{Storage, Tensor};

describe_op!(Real, "Real", |[x]| real(x), rows: true, method: real);
describe_op!(Imag, "Imag", |[x]| imag(x), rows: true, method: imag);
describe_op!(Conj, "Conj", |[x]| conj(x), rows: true, method: conj);
describe_op!(Angle, "Angle", |[x]| angle(x), rows: true, method: angle);
describe_op!(ComplexAbs, "ComplexAbs", |[x]| complex_abs(x), rows: true);
describe_op!(Complex, "Complex", |[re, im]| complex(re, im), rows: true, method: complex);

fn numeric(op: &'static str, x: &Tensor) -> Result<()> {
    if x.dtype() == DType::Bool {
        return Err(Error::UnsupportedDType {
            op,
            dtype: x.dtype(),
            allowed: "numeric dtypes",
        });
    }
    Ok(())
}

/// A real tensor from each element of a complex one.
fn to_real(x: &Tensor, f32_of: fn(c64) -> f32, f64_of: fn(c128) -> f64) -> Option<Tensor> {
    match x.storage() {
        Storage::C64(a) => Some(Tensor::from_array(kernels::map(a, f32_of))),
        Storage::C128(a) => Some(Tensor::from_array(kernels::map(a, f64_of))),
        _ => None,
    }
}

/// `complex(g, 0)`: a real gradient as the complex one of a real-valued op.
fn as_complex(g: &Tensor) -> Result<Tensor> {
    complex(g, &Tensor::zeros(&[], g.dtype())?)
}

/// The real part of a complex tensor (float32 for complex64, float64 for
/// complex128); a real tensor is returned as it is (TF's `tf.math.real`).
/// Gradient: `complex(g, 0)`.
pub fn real(x: &Tensor) -> Result<Tensor> {
    numeric("Real", x)?;
    let Some(out) = to_real(x, |z| z.re, |z| z.re) else {
        return Ok(x.clone());
    };
    record(Real, &[x], &[&out], || {
        rule(|g, _| Ok(vec![Some(as_complex(&g[0])?)]))
    });
    Ok(out)
}

/// The imaginary part of a complex tensor; zeros (untaped) for a real one
/// (TF's `tf.math.imag`). Gradient: `complex(0, g)`.
pub fn imag(x: &Tensor) -> Result<Tensor> {
    numeric("Imag", x)?;
    let Some(out) = to_real(x, |z| z.im, |z| z.im) else {
        return ops::zeros_like(x);
    };
    record(Imag, &[x], &[&out], || {
        rule(|g, _| {
            Ok(vec![Some(complex(
                &Tensor::zeros(&[], g[0].dtype())?,
                &g[0],
            )?)])
        })
    });
    Ok(out)
}

/// The complex conjugate; a real tensor is returned as it is (TF's
/// `tf.math.conj`). Gradient: `conj(g)`.
pub fn conj(x: &Tensor) -> Result<Tensor> {
    numeric("Conj", x)?;
    let Some(out) = kernels::complex_unary!(x, |z| z.conj()) else {
        return Ok(x.clone());
    };
    record(Conj, &[x], &[&out], || {
        rule(|g, _| Ok(vec![Some(conj(&g[0])?)]))
    });
    Ok(out)
}

/// The argument of each element, `atan2(imag, real)`, in the real dtype.
/// For a real float tensor: pi where it is negative, 0 elsewhere (TF's
/// rule; constants, no gradient). Gradient for complex `z = x + iy`:
/// `-complex(g, 0) / complex(y, x)` (TF's `_AngleGrad`).
pub fn angle(x: &Tensor) -> Result<Tensor> {
    numeric("Angle", x)?;
    let Some(out) = to_real(x, |z| z.im.atan2(z.re), |z| z.im.atan2(z.re)) else {
        if !x.dtype().is_float() {
            return Err(Error::UnsupportedDType {
                op: "Angle",
                dtype: x.dtype(),
                allowed: "float and complex dtypes",
            });
        }
        // Every real float dtype (float16 and bfloat16 too): NaN is not negative, so 0.
        return Ok(Tensor::from_storage(
            crate::map_storage!(x.storage(), a => {
                kernels::map(a, |v| {
                    let pi = v.to_num().re() < 0.0;
                    Scalar::from_num(Num::Float(if pi { std::f64::consts::PI } else { 0.0 }))
                })
                .into_shared()
            }),
        ));
    };
    record(Angle, &[x], &[&out], || {
        let x = x.clone();
        rule(move |g, _| {
            let flipped = complex(&imag(&x)?, &real(&x)?)?;
            let z = ops::reciprocal(&flipped)?;
            Ok(vec![Some(ops::neg(&ops::mul(&as_complex(&g[0])?, &z)?)?)])
        })
    });
    Ok(out)
}

/// `|z|` of a complex tensor, in its real dtype (`hypot`; TF's
/// `ComplexAbs`, which `tf.abs` runs for complex inputs). Gradient:
/// `div_no_nan(complex(g, 0) * z, complex(|z|, 0))` (0 at `z = 0`).
pub fn complex_abs(x: &Tensor) -> Result<Tensor> {
    let Some(out) = to_real(x, |z| z.re.hypot(z.im), |z| z.re.hypot(z.im)) else {
        return Err(Error::UnsupportedDType {
            op: "ComplexAbs",
            dtype: x.dtype(),
            allowed: "complex64, complex128",
        });
    };
    record(ComplexAbs, &[x], &[&out], || {
        let (x, y) = (x.clone(), out.clone());
        rule(move |g, _| {
            let num = ops::mul(&as_complex(&g[0])?, &x)?;
            Ok(vec![Some(div_no_nan(&num, &as_complex(&y)?)?)])
        })
    });
    Ok(out)
}

/// `a / b`, and 0 where `b` is 0 (TF's `div_no_nan`); the division never
/// sees a zero divisor, so its own gradient has no NaN either.
pub(crate) fn div_no_nan(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let zero = ops::equal(b, &Tensor::zeros(&[], b.dtype())?)?;
    let safe = ops::where_(&zero, &Tensor::ones(&[], b.dtype())?, b)?;
    let q = ops::div(a, &safe)?;
    ops::where_(&zero, &Tensor::zeros(&[], q.dtype())?, &q)
}

/// `z / |z|`, 0 at 0: TF's `tf.math.sign` of a complex tensor,
/// `div_no_nan(z, cast(|z|))`, differentiable through those ops.
pub(crate) fn sign(x: &Tensor) -> Result<Tensor> {
    div_no_nan(x, &as_complex(&complex_abs(x)?)?)
}

/// `real + i imag` with broadcasting: float32 parts give complex64, float64
/// parts complex128 (TF's `tf.complex`). Gradient: `(real(g), imag(g))`,
/// summed back over broadcast dims.
pub fn complex(re: &Tensor, im: &Tensor) -> Result<Tensor> {
    kernels::same_dtype("Complex", re, im)?;
    let out = match (re.storage(), im.storage()) {
        (Storage::F32(p), Storage::F32(q)) => Storage::C64(
            kernels::zip_map("Complex", p, q, |a: f32, b: f32| c64::new(a, b))?.into_shared(),
        ),
        (Storage::F64(p), Storage::F64(q)) => Storage::C128(
            kernels::zip_map("Complex", p, q, |a: f64, b: f64| c128::new(a, b))?.into_shared(),
        ),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "Complex",
                dtype: re.dtype(),
                allowed: "float32, float64",
            })
        }
    };
    let out = Tensor::from_storage(out);
    let rank = out.rank();
    record(Complex, &[re, im], &[&out], || {
        let (sa, sb) = (re.shape().to_vec(), im.shape().to_vec());
        rule(move |g, needs| {
            Ok(vec![
                if needs[0] {
                    Some(unbroadcast(&real(&g[0])?, rank, &sa)?)
                } else {
                    None
                },
                if needs[1] {
                    Some(unbroadcast(&imag(&g[0])?, rank, &sb)?)
                } else {
                    None
                },
            ])
        })
    });
    Ok(out)
}

/// `conj(t)` for a complex tensor, `t` itself otherwise: the conjugation
/// TensorFlow's gradient rules apply to saved values (`grad * conj(y)`).
pub(crate) fn conj_if_complex(t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_complex() {
        conj(t)
    } else {
        Ok(t.clone())
    }
}
