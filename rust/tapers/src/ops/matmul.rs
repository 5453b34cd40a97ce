//! The matrix product op: its options, description and gradient rule (the
//! kernels and their scheduling are in `kernels::gemm`).

use super::{describe_attr_op, record, rule, unbroadcast};
use crate::error::{Error, Result};
use crate::kernels::gemm::{kernel_float, kernel_int};
use crate::kernels::same_dtype;
use crate::shape::{broadcast_shapes, ShapeDisplay};
use crate::tensor::{Storage, Tensor};

/// TensorFlow's `transpose_a` / `transpose_b` flags of a matrix product.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MatmulOptions {
    /// Use the transpose of `a`'s last two dims.
    pub transpose_a: bool,
    /// Use the transpose of `b`'s last two dims.
    pub transpose_b: bool,
}

impl MatmulOptions {
    /// Products of `a^T` (with `transpose_b` unset).
    pub fn transpose_a() -> MatmulOptions {
        MatmulOptions {
            transpose_a: true,
            transpose_b: false,
        }
    }

    /// Products with `b^T` (with `transpose_a` unset).
    pub fn transpose_b() -> MatmulOptions {
        MatmulOptions {
            transpose_a: false,
            transpose_b: true,
        }
    }
}

describe_attr_op!(
    MatMul { options: MatmulOptions },
    "MatMul",
    |op, [a, b]| matmul_with(a, b, op.options),
    rows: true,
    fusion: |op| crate::op::Fusion::Product {
        transpose_a: op.options.transpose_a,
        transpose_b: op.options.transpose_b,
    }
);

/// Matrix product of the last two dims; leading (batch) dims broadcast.
///
/// ```
/// use tapers::{ops, Tensor};
/// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
/// let b = Tensor::from_vec(vec![1.0f32, 0.0, 0.0, 1.0], &[2, 2]).unwrap();
/// assert_eq!(ops::matmul(&a, &b).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
/// ```
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    product(a, b, false, false)
}

/// [`matmul`] of `op(a) @ op(b)`, where `op` transposes as `options` say.
pub fn matmul_with(a: &Tensor, b: &Tensor, options: MatmulOptions) -> Result<Tensor> {
    product(a, b, options.transpose_a, options.transpose_b)
}

impl Tensor {
    /// `self @ other` (see [`matmul`]).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        matmul(self, other)
    }

    /// `op(self) @ op(other)` (see [`matmul_with`]).
    pub fn matmul_with(&self, other: &Tensor, options: MatmulOptions) -> Result<Tensor> {
        matmul_with(self, other, options)
    }
}

fn product(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    same_dtype("MatMul", a, b)?;
    let again = |i: &[Tensor]| product(&i[0], &i[1], transpose_a, transpose_b);
    if let Some(r) = super::half::via_f32("MatMul", &[a, b], again) {
        return r;
    }
    crate::kernels::registered::check("MatMul", a.dtype())?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() < 2 || sb.len() < 2 {
        return Err(Error::invalid(format!(
            "In[0] and In[1] must have rank >= 2, got shapes {} and {} [Op:MatMul]",
            ShapeDisplay::of(sa),
            ShapeDisplay::of(sb)
        )));
    }
    let (ra, rb) = (sa.len(), sb.len());
    let ((m, k1), (k2, n)) = crate::kernels::gemm::product_dims(sa, sb, transpose_a, transpose_b);
    let mismatch = || {
        Error::invalid(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} [Op:MatMul]",
            ShapeDisplay::of(sa),
            ShapeDisplay::of(sb)
        ))
    };
    if k1 != k2 {
        return Err(mismatch());
    }
    let batch = broadcast_shapes("MatMul", &sa[..ra - 2], &sb[..rb - 2]).map_err(|_| mismatch())?;
    let mut out_shape = batch.clone();
    out_shape.extend([m, n]);
    crate::tensor::check_alloc(&out_shape, a.dtype())?;
    let out = Tensor::from_storage(match (a.storage(), b.storage()) {
        (Storage::F32(p), Storage::F32(q)) => {
            Storage::F32(kernel_float(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::F64(p), Storage::F64(q)) => {
            Storage::F64(kernel_float(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::I32(p), Storage::I32(q)) => {
            Storage::I32(kernel_int(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::I64(p), Storage::I64(q)) => {
            Storage::I64(kernel_int(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        // Complex products: the straightforward kernel (no GEMM scheduling).
        (Storage::C64(p), Storage::C64(q)) => {
            Storage::C64(kernel_int(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::C128(p), Storage::C128(q)) => {
            Storage::C128(kernel_int(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        _ => {
            return Err(Error::UnsupportedDType {
                op: "MatMul",
                dtype: a.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    let rank = out.rank();
    let options = MatmulOptions {
        transpose_a,
        transpose_b,
    };
    record(MatMul { options }, &[a, b], &[&out], || {
        let (a, b) = (a.clone(), b.clone());
        let (ta, tb) = (transpose_a, transpose_b);
        rule(move |g, needs| {
            let g = &g[0];
            // Complex: the conjugates (TF's _MatMulGrad), real: the values.
            let conj = crate::ops::complex::conj_if_complex;
            let (a, b) = (
                if needs[1] { conj(&a)? } else { a.clone() },
                if needs[0] { conj(&b)? } else { b.clone() },
            );
            // TensorFlow's _MatMulGrad, case by case.
            let ga = if needs[0] {
                let r = match (ta, tb) {
                    (false, false) => product(g, &b, false, true)?,
                    (false, true) => product(g, &b, false, false)?,
                    (true, false) => product(&b, g, false, true)?,
                    (true, true) => product(&b, g, true, true)?,
                };
                Some(unbroadcast(&r, rank, a.shape())?)
            } else {
                None
            };
            let gb = if needs[1] {
                let r = match (ta, tb) {
                    (false, false) => product(&a, g, true, false)?,
                    (false, true) => product(g, &a, true, false)?,
                    (true, false) => product(&a, g, false, false)?,
                    (true, true) => product(g, &a, true, true)?,
                };
                Some(unbroadcast(&r, rank, b.shape())?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        })
    });
    Ok(out)
}
