//! Products and linear algebra (the core's `ops/matmul.rs` and `ops/linalg.rs`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use tapers::{ops, Tensor};

use super::{export, name_doc, Exports};
use crate::args::{Axes, ContractAxes, Name, Ord, TensorArg, Tensors};
use crate::call::{call, Work};
use crate::convert::binary_operands;

/// The multiply-adds of `op(a) @ op(b)` over broadcast batches (an estimate:
/// operands that cannot be multiplied are left for the core to report).
fn matmul_work(a: &Tensor, b: &Tensor, ta: bool, tb: bool) -> Work {
    let last2 = |t: &Tensor, transposed: bool| match t.shape() {
        [.., r, c] if transposed => (*c, *r),
        [.., r, c] => (*r, *c),
        _ => (1, t.numel()),
    };
    let ((m, k), (_, n)) = (last2(a, ta), last2(b, tb));
    let batch = (a.numel() / (m * k).max(1)).max(b.numel() / (k * n).max(1));
    Work::shape(&[batch, m, k, n]).max(Work::of(&[a, b]))
}

/// Matrix product of the last two axes (``tf.matmul``).
///
/// Parameters
/// ----------
/// a, b : Tensor-like
///     Rank >= 2, same dtype; leading (batch) axes broadcast.
/// transpose_a, transpose_b : bool, default False
///     Transpose the operand's last two axes first.
/// adjoint_a, adjoint_b : bool, default False
///     Same as transpose (tapers has real dtypes only).
/// a_is_sparse, b_is_sparse, output_type, grad_a, grad_b
///     Accepted for TensorFlow compatibility and ignored.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Floats use faer's parallel GEMM (the result does not depend on the
///     thread count); integers wrap on overflow. Differentiable in both
///     operands, batched and broadcast gradients included.
#[pyfunction]
#[pyo3(signature = (a, b, transpose_a=false, transpose_b=false, adjoint_a=false, adjoint_b=false, a_is_sparse=false, b_is_sparse=false, output_type=None, grad_a=false, grad_b=false, name=None))]
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transpose_a: bool,
    transpose_b: bool,
    adjoint_a: bool,
    adjoint_b: bool,
    a_is_sparse: bool,
    b_is_sparse: bool,
    output_type: Option<&Bound<'_, PyAny>>,
    grad_a: bool,
    grad_b: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    // Sparsity hints and TensorFlow's gradient-graph flags change nothing in
    // a dense eager product; `output_type` matters only for int8 inputs,
    // which tapers does not have.
    let _ = (a_is_sparse, b_is_sparse, output_type, grad_a, grad_b);
    let (x, y) = binary_operands(a, b)?;
    let (ta, tb) = (transpose_a || adjoint_a, transpose_b || adjoint_b);
    call(py, name, matmul_work(&x, &y, ta, tb), || {
        ops::matmul_with(
            &x,
            &y,
            ops::MatmulOptions {
                transpose_a: ta,
                transpose_b: tb,
            },
        )
    })
}

/// Contracts two tensors over chosen axes (``tf.tensordot``).
///
/// Parameters
/// ----------
/// a, b : Tensor-like
///     The operands (one dtype).
/// axes : int or (sequence of int, sequence of int)
///     An int ``n`` contracts the last ``n`` axes of ``a`` with the first
///     ``n`` of ``b``; a pair lists the axes of each to contract, in order.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     The free axes of ``a`` followed by those of ``b``. Differentiable in
///     both operands (computed as one matmul).
#[pyfunction]
#[pyo3(signature = (a, b, axes, name=None))]
pub fn tensordot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    axes: ContractAxes,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = binary_operands(a, b)?;
    let (aa, ba): (Vec<isize>, Vec<isize>) = match axes {
        ContractAxes::Last(n) => {
            if n > x.rank() || n > y.rank() {
                return Err(PyValueError::new_err(format!(
                    "tensordot: axes={n} exceeds the rank of an input"
                )));
            }
            (
                ((x.rank() - n)..x.rank()).map(|v| v as isize).collect(),
                (0..n).map(|v| v as isize).collect(),
            )
        }
        ContractAxes::Lists(aa, ba) => (aa, ba),
    };
    call(py, name, Work::product(&x, &y), || {
        ops::tensordot(&x, &y, &aa, &ba)
    })
}

/// Einstein summation over one or two operands (``tf.einsum``).
///
/// Parameters
/// ----------
/// equation : str
///     Subscripts such as ``"ij,jk->ik"``, ``"bij,bjk->bik"`` or ``"ii->i"``;
///     an implicit output (no ``->``) follows numpy's rule.
/// *inputs : Tensor-like
///     Any number of operands; an ellipsis (``...``) stands for the same
///     dims in each, broadcast between operands (``"...ij,...jk->...ik"``).
///     Three or more are contracted left to right.
#[doc = name_doc!()]
/// **kwargs
///     TensorFlow's other options, accepted and ignored.
///
/// Returns
/// -------
/// Tensor
///     Differentiable in every operand.
#[pyfunction]
#[pyo3(signature = (equation, *inputs, **kwargs))]
pub fn einsum(
    py: Python<'_>,
    equation: &str,
    inputs: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let ts: Tensors = inputs.as_any().extract()?;
    let ts = ts.0;
    let work = match ts.as_slice() {
        [a, b] => Work::product(a, b),
        _ => Work::total(&ts),
    };
    call(py, Name::from_kwargs(kwargs)?, work, || {
        ops::einsum_general(equation, &ts)
    })
}

/// Vector norm, or Frobenius norm (``tf.norm``, ``tf.linalg.norm``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     The values (float).
/// ord : {"euclidean", "fro", 1, 2, numpy.inf, p > 0}, optional
///     The norm; the default is Euclidean over all elements. Over a pair of
///     axes only the Frobenius norm (``"fro"``/``"euclidean"``) is supported:
///     TensorFlow's matrix norms ``ord=1, 2, inf`` raise ``ValueError``.
/// axis : int or sequence of int, optional
///     The axes the norm runs over; all when None.
/// keepdims : bool, default False
///     Keep reduced axes with size 1.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable; as in TensorFlow, the Euclidean norm's gradient at 0 is
///     not finite.
#[pyfunction]
#[pyo3(signature = (tensor, ord=None, axis=None, keepdims=None, name=None))]
pub fn norm(
    py: Python<'_>,
    tensor: TensorArg,
    ord: Option<Ord>,
    axis: Option<Axes>,
    keepdims: Option<bool>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = tensor.0;
    let axes = axis.map(|a| a.0);
    // Over a pair of axes TensorFlow reads 1, 2 and inf as matrix norms (max column sum,
    // spectral, max row sum), which are not implemented: refuse rather than return the
    // vector norm of the flattened matrix.
    if let (Some(n), Some(a)) = (ord.as_ref().and_then(|o| o.number.as_ref()), &axes) {
        if a.len() == 2 {
            return Err(PyValueError::new_err(format!(
                "tapers.norm: matrix norm ord={n} over axes {a:?} is not supported (only 'fro'/'euclidean')"
            )));
        }
    }
    let o = ord.map_or(ops::NormOrd::Euclidean, |o| o.ord);
    call(py, name, Work::of(&[&t]), || {
        ops::norm(&t, o, axes.as_deref(), keepdims.unwrap_or(false))
    })
}

/// Sum of the main diagonal of the innermost two axes (``tf.linalg.trace``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     Rank at least 2; leading axes are batch axes.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shape ``x.shape[:-2]``. Differentiable (the gradient is an identity
///     pattern).
#[pyfunction]
#[pyo3(signature = (x, name=None))]
pub fn trace(py: Python<'_>, x: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, name, Work::of(&[&t]), || ops::trace(&t))
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Linalg, Tf]: matmul, tensordot, einsum, norm);
    export!(ex, [Linalg]: trace);
    Ok(())
}
