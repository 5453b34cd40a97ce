//! float16 and bfloat16 through float32, for ops with kernels of their own
//! (reductions, matmul, softmax, ...): the inputs are cast to float32, the op
//! runs there, and its result is rounded back once, as TensorFlow's CPU
//! kernels compute these dtypes. The casts are recorded ops, so a tape sees
//! `cast -> op -> cast` and gradients come back in the source's dtype.
//! (Elementwise kernels get the same treatment inside their dispatch macros.)

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Runs `f` on `inputs` with every float16/bfloat16 input cast to float32 and
/// casts a float32 result back; `None` when no input is float16/bfloat16 (the
/// caller computes as usual). `op` (TF's name) must have a kernel for the
/// dtype (`kernels::registered`); every float input must share it.
pub(crate) fn via_f32(
    op: &'static str,
    inputs: &[&Tensor],
    f: impl FnOnce(&[Tensor]) -> Result<Tensor>,
) -> Option<Result<Tensor>> {
    let half = inputs.iter().map(|t| t.dtype()).find(|d| d.is_half())?;
    Some((|| {
        crate::kernels::registered::check(op, half)?;
        if let Some((i, t)) = inputs
            .iter()
            .enumerate()
            .find(|(_, t)| t.dtype().is_float() && t.dtype() != half)
        {
            return Err(Error::DTypeMismatch {
                op,
                index: i,
                expected: half,
                actual: t.dtype(),
            });
        }
        let wide = inputs
            .iter()
            .map(|t| {
                if t.dtype() == half {
                    super::cast(t, DType::F32)
                } else {
                    Ok((*t).clone())
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let out = f(&wide)?;
        if out.dtype() == DType::F32 {
            super::cast(&out, half)
        } else {
            Ok(out)
        }
    })())
}

/// Runs `f` on an integer `x` widened to int64 and casts the result back
/// (wrapping, as the narrow type's own arithmetic would); `None` for the
/// dtypes with kernels of their own (float32, float64, int32, int64) and for
/// non-integers. For sums, products and scans, whose results modulo 2^k do
/// not depend on the width they are computed in; uint64 keeps its bits
/// through int64's wrapping arithmetic.
pub(crate) fn via_i64(
    op: &'static str,
    x: &Tensor,
    f: impl FnOnce(&Tensor) -> Result<Tensor>,
) -> Option<Result<Tensor>> {
    let d = x.dtype();
    if !d.is_integer() || matches!(d, DType::I32 | DType::I64) {
        return None;
    }
    Some((|| {
        crate::kernels::registered::check(op, d)?;
        let out = f(&super::cast(x, DType::I64)?)?;
        super::cast(&out, d)
    })())
}
