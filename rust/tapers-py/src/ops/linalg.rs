//! Products and linear algebra (the core's `ops/matmul.rs` and `ops/linalg.rs`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};

use tapers::{ops, Tensor};

use super::{export, name_doc, Exports};
use crate::args::{Axes, ContractAxes, Name, Ord, TensorArg, Tensors};
use crate::call::{call, run, Output, Work};
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
        // An adjoint conjugates complex operands (`conj` returns a real one as it is).
        let x = if adjoint_a { ops::conj(&x)? } else { x.clone() };
        let y = if adjoint_b { ops::conj(&y)? } else { y.clone() };
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
    if ord.as_ref().is_some_and(|o| o.matrix_only) && axes.as_ref().is_none_or(|a| a.len() != 2) {
        return Err(PyValueError::new_err(
            "'ord' must be a supported vector norm, got fro",
        ));
    }
    let o = ord.map_or(ops::NormOrd::Euclidean, |o| o.ord);
    call(py, name, Work::of(&[&t]), || {
        if t.dtype().is_complex() && matches!(o, ops::NormOrd::Euclidean) {
            // TF's: sqrt(sum(z * conj(z))), a complex result with a zero imaginary part.
            let sq = ops::mul(&t, &ops::conj(&t)?)?;
            return ops::sqrt(&ops::reduce_sum(
                &sq,
                axes.as_deref(),
                keepdims.unwrap_or(false),
            )?);
        }
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
    export!(
        ex,
        [Linalg]: svd,
        qr,
        cholesky,
        cholesky_solve,
        inv,
        det,
        slogdet,
        logdet,
        solve,
        triangular_solve,
        lstsq,
        eigh,
        eigvalsh,
        pinv,
        diag,
        diag_part,
        band_part,
        matrix_transpose,
        adjoint
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Decompositions, solves and matrix helpers (the core's `ops/decomp.rs`).

/// The work of one factorization per matrix: about `rows * cols * min`
/// multiply-adds for each of the batch's matrices.
fn decomp_work(t: &Tensor) -> Work {
    match t.shape() {
        [.., m, n] => Work::shape(&[t.numel(), (*m).min(*n)]),
        _ => Work::of(&[t]),
    }
}

/// A Python tuple of tensors (TensorFlow returns tuples from multi-output
/// ops).
fn tuple_of(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Py<PyAny>> {
    let items = ts
        .into_iter()
        .map(|t| crate::tensor::PyTensor::wrap(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// A `collections.namedtuple` instance of class `cell` (created once, as
/// TensorFlow's `Qr` and `LogMatrixDeterminant` results).
fn named_tuple(
    py: Python<'_>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    class: &str,
    fields: [&str; 2],
    ts: Vec<Tensor>,
) -> PyResult<Py<PyAny>> {
    let cls = cell.get_or_try_init(py, || {
        let nt = py.import("collections")?.getattr("namedtuple")?;
        let c = nt.call1((class, fields.to_vec()))?;
        c.setattr("__module__", "tapers.linalg")?;
        Ok::<_, PyErr>(c.unbind())
    })?;
    let t = tuple_of(py, ts)?;
    Ok(cls
        .bind(py)
        .call1(t.bind(py).cast::<PyTuple>()?.clone())?
        .unbind())
}

/// Refuses a rank below 2 with TensorFlow's Python-side ``ValueError``.
fn need_matrix(t: &Tensor, what: &str) -> PyResult<()> {
    if t.rank() < 2 {
        return Err(PyValueError::new_err(format!(
            "Argument `{what}` should be a (batch) matrix with rank >= 2.  Received shape: {}",
            tapers::tuple_string(t.shape())
        )));
    }
    Ok(())
}

/// Singular value decomposition (``tf.linalg.svd``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     Float or complex matrices ``[..., M, N]``.
/// full_matrices : bool, default False
///     Return square ``u`` (``[..., M, M]``) and ``v`` (``[..., N, N]``)
///     instead of ``[..., M, P]`` and ``[..., N, P]`` (``P = min(M, N)``).
/// compute_uv : bool, default True
///     Also return the singular vectors.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// tuple of Tensor, or Tensor
///     ``(s, u, v)`` in TensorFlow's order, with ``a = u @ diag(s) @ v^T``
///     and ``s`` descending; ``s`` alone when ``compute_uv`` is False. The
///     signs of singular-vector pairs are faer's and may differ from
///     TensorFlow's. Differentiable with TensorFlow's rule (its broadening
///     at repeated or zero singular values, and its ``NotImplementedError``
///     for ``full_matrices`` with ``|M - N| > 1``).
#[pyfunction]
#[pyo3(signature = (tensor, full_matrices=false, compute_uv=true, name=None))]
pub fn svd(
    py: Python<'_>,
    tensor: TensorArg,
    full_matrices: bool,
    compute_uv: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = tensor.0;
    let (s, u, v) = run(py, name, decomp_work(&t), || {
        ops::svd(&t, full_matrices, compute_uv)
    })?;
    match (u, v) {
        (Some(u), Some(v)) => tuple_of(py, vec![s, u, v]),
        _ => s.into_python(py),
    }
}

/// QR decomposition (``tf.linalg.qr``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Float or complex matrices ``[..., M, N]``.
/// full_matrices : bool, default False
///     Return ``q`` ``[..., M, M]`` and ``r`` ``[..., M, N]`` instead of
///     ``[..., M, P]`` and ``[..., P, N]`` (``P = min(M, N)``).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Qr
///     The named tuple ``(q, r)``; ``r`` is upper triangular. Signs of
///     ``r``'s diagonal are faer's (Householder), which may differ from
///     TensorFlow's. Differentiable; as in TensorFlow, the gradient raises
///     ``NotImplementedError`` for ``M > N`` with ``full_matrices``.
#[pyfunction]
#[pyo3(signature = (input, full_matrices=false, name=None))]
pub fn qr(
    py: Python<'_>,
    input: TensorArg,
    full_matrices: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    static QR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let t = input.0;
    let (q, r) = run(py, name, decomp_work(&t), || ops::qr(&t, full_matrices))?;
    named_tuple(py, &QR, "Qr", ["q", "r"], vec![q, r])
}

/// Cholesky factor of symmetric positive-definite matrices
/// (``tf.linalg.cholesky``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Float or complex (Hermitian) matrices ``[..., N, N]``; only the lower triangle is read.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Lower triangular ``L`` with ``L @ L^T = input``. As TensorFlow 2.21's
///     CPU kernel does, a matrix that is not positive definite gives a NaN
///     lower triangle (no error). Differentiable.
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn cholesky(py: Python<'_>, input: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = input.0;
    call(py, name, decomp_work(&t), || ops::cholesky(&t))
}

/// Solves ``L L^T x = rhs`` from a Cholesky factor (``tf.linalg.cholesky_solve``).
///
/// Parameters
/// ----------
/// chol : Tensor-like
///     Lower triangular factors ``[..., M, M]``.
/// rhs : Tensor-like
///     Right-hand sides ``[..., M, K]``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., M, K]``; two triangular solves, differentiable in both.
#[pyfunction]
#[pyo3(signature = (chol, rhs, name=None))]
pub fn cholesky_solve(
    py: Python<'_>,
    chol: &Bound<'_, PyAny>,
    rhs: &Bound<'_, PyAny>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (c, r) = binary_operands(chol, rhs)?;
    call(py, name, Work::product(&c, &r), || {
        ops::cholesky_solve(&c, &r)
    })
}

/// Inverse of square matrices (``tf.linalg.inv``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Float or complex matrices ``[..., M, M]``.
/// adjoint : bool, default False
///     Invert the (conjugate) transpose instead.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Partial-pivoting LU; a singular matrix raises
///     ``InvalidArgumentError`` ("Input is not invertible."). Differentiable.
#[pyfunction]
#[pyo3(signature = (input, adjoint=false, name=None))]
pub fn inv(
    py: Python<'_>,
    input: TensorArg,
    adjoint: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    call(py, name, decomp_work(&t), || ops::inv(&t, adjoint))
}

/// Determinant of square matrices (``tf.linalg.det``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Float or complex matrices ``[..., M, M]``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shape ``[...]``. Differentiable (``g * det * inv(a)^H``, TensorFlow's
///     rule also for complex, where it lacks the conjugate on ``det``; the
///     gradient at a singular matrix raises, as TensorFlow's does).
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn det(py: Python<'_>, input: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = input.0;
    call(py, name, decomp_work(&t), || ops::det(&t))
}

/// Sign and log absolute determinant (``tf.linalg.slogdet``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Float or complex matrices ``[..., M, M]``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// LogMatrixDeterminant
///     The named tuple ``(sign, log_abs_determinant)``; a singular matrix
///     gives sign 0 and ``-inf``; for complex input both are complex (the
///     sign ``det / |det|``). The log's gradient is ``g * inv(a)^H``.
#[pyfunction]
#[pyo3(signature = (input, name=None))]
pub fn slogdet(py: Python<'_>, input: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    static LMD: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let t = input.0;
    let (s, l) = run(py, name, decomp_work(&t), || ops::slogdet(&t))?;
    named_tuple(
        py,
        &LMD,
        "LogMatrixDeterminant",
        ["sign", "log_abs_determinant"],
        vec![s, l],
    )
}

/// Log determinant of symmetric positive-definite matrices
/// (``tf.linalg.logdet``).
///
/// Parameters
/// ----------
/// matrix : Tensor-like
///     Float or complex (Hermitian) matrices ``[..., M, M]``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``2 * sum(log(diag(cholesky(matrix))))``, as TensorFlow computes it
///     (NaN for a matrix that is not positive definite). Differentiable.
#[pyfunction]
#[pyo3(signature = (matrix, name=None))]
pub fn logdet(py: Python<'_>, matrix: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = matrix.0;
    call(py, name, decomp_work(&t), || ops::logdet(&t))
}

/// Solves linear systems ``op(matrix) x = rhs`` (``tf.linalg.solve``).
///
/// Parameters
/// ----------
/// matrix : Tensor-like
///     Square float or complex matrices ``[..., M, M]``.
/// rhs : Tensor-like
///     ``[..., M, K]``, same rank and batch dims (no broadcasting, as in
///     TensorFlow).
/// adjoint : bool, default False
///     Solve with the conjugate transpose of ``matrix``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., M, K]``. A singular matrix raises ``InvalidArgumentError``.
///     Differentiable in both.
#[pyfunction]
#[pyo3(signature = (matrix, rhs, adjoint=false, name=None))]
pub fn solve(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    rhs: &Bound<'_, PyAny>,
    adjoint: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = binary_operands(matrix, rhs)?;
    call(py, name, decomp_work(&a).max(Work::product(&a, &b)), || {
        ops::solve(&a, &b, adjoint)
    })
}

/// Solves triangular systems ``op(matrix) x = rhs``
/// (``tf.linalg.triangular_solve``).
///
/// Parameters
/// ----------
/// matrix : Tensor-like
///     Square float or complex matrices ``[..., M, M]``; only the triangle named by
///     ``lower`` is read.
/// rhs : Tensor-like
///     ``[..., M, K]``; batch dims broadcast with ``matrix``'s.
/// lower : bool, default True
///     Whether ``matrix`` is lower (else upper) triangular.
/// adjoint : bool, default False
///     Solve with the conjugate transpose of ``matrix``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., M, K]``. Differentiable in both (the matrix's gradient keeps
///     its triangle).
#[pyfunction]
#[pyo3(signature = (matrix, rhs, lower=true, adjoint=false, name=None))]
pub fn triangular_solve(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    rhs: &Bound<'_, PyAny>,
    lower: bool,
    adjoint: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = binary_operands(matrix, rhs)?;
    call(py, name, Work::product(&a, &b), || {
        ops::triangular_solve(&a, &b, lower, adjoint)
    })
}

/// Least-squares solutions of ``matrix x = rhs`` (``tf.linalg.lstsq``).
///
/// Parameters
/// ----------
/// matrix : Tensor-like
///     Float or complex matrices ``[..., M, N]``.
/// rhs : Tensor-like
///     ``[..., M, K]``, same batch dims.
/// l2_regularizer : float, default 0.0
///     Ridge term ``lambda`` (used only when ``fast``).
/// fast : bool, default True
///     Solve the regularized normal equations through Cholesky (as
///     TensorFlow's composition; differentiable). Otherwise the
///     minimum-norm solution; as in TensorFlow its gradient raises
///     ``ValueError``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., N, K]``.
#[pyfunction]
#[pyo3(signature = (matrix, rhs, l2_regularizer=0.0, fast=true, name=None))]
pub fn lstsq(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    rhs: &Bound<'_, PyAny>,
    l2_regularizer: f64,
    fast: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = binary_operands(matrix, rhs)?;
    call(py, name, decomp_work(&a).max(Work::product(&a, &b)), || {
        ops::lstsq(&a, &b, l2_regularizer, fast)
    })
}

/// Eigen decomposition of symmetric matrices (``tf.linalg.eigh``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     Float or complex (Hermitian) matrices ``[..., N, N]``; only the lower triangle is read.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// tuple of Tensor
///     ``(e, v)``: eigenvalues ascending, eigenvectors as columns (their
///     signs are faer's). Differentiable with TensorFlow's rule (broadened,
///     so finite, at repeated eigenvalues).
#[pyfunction]
#[pyo3(signature = (tensor, name=None))]
pub fn eigh(py: Python<'_>, tensor: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = tensor.0;
    let (e, v) = run(py, name, decomp_work(&t), || ops::eigh(&t))?;
    tuple_of(py, vec![e, v])
}

/// Eigenvalues of symmetric matrices (``tf.linalg.eigvalsh``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     Float or complex (Hermitian) matrices ``[..., N, N]``; only the lower triangle is read.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., N]``, ascending. Differentiable (``v diag(g) v^T``).
#[pyfunction]
#[pyo3(signature = (tensor, name=None))]
pub fn eigvalsh(py: Python<'_>, tensor: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = tensor.0;
    call(py, name, decomp_work(&t), || ops::eigvalsh(&t))
}

/// Moore-Penrose pseudo-inverse (``tf.linalg.pinv``).
///
/// Parameters
/// ----------
/// a : Tensor-like
///     Float matrices ``[..., M, N]``.
/// rcond : float, optional
///     Singular values at or below ``rcond * max(s)`` count as zero; default
///     ``10 * max(M, N) * eps``.
/// validate_args : bool, default False
///     Accepted for TensorFlow compatibility (shapes are always checked).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., N, M]``, TensorFlow's SVD composition (differentiable
///     through it).
#[pyfunction]
#[pyo3(signature = (a, rcond=None, validate_args=false, name=None))]
pub fn pinv(
    py: Python<'_>,
    a: TensorArg,
    rcond: Option<f64>,
    validate_args: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let _ = validate_args;
    let t = a.0;
    if !t.dtype().is_float() {
        // TensorFlow's pinv checks the dtype in Python before any kernel.
        return Err(PyTypeError::new_err(format!(
            "Input `a` must have `float`-like `dtype` (saw {}).",
            t.dtype().name()
        )));
    }
    if t.rank() < 2 {
        return Err(PyValueError::new_err(format!(
            "Input `a` must have at least 2 dimensions (saw: {}).",
            t.rank()
        )));
    }
    call(py, name, decomp_work(&t), || ops::pinv(&t, rcond))
}

/// Square matrices with the given diagonal (``tf.linalg.diag``).
///
/// Parameters
/// ----------
/// diagonal : Tensor-like
///     ``[..., K]``.
#[doc = name_doc!()]
/// k, num_rows, num_cols, padding_value, align
///     Only TensorFlow's defaults (the main diagonal of a square result) are
///     supported; other values raise ``ValueError``.
///
/// Returns
/// -------
/// Tensor
///     ``[..., K, K]``. Differentiable.
#[pyfunction]
#[pyo3(signature = (diagonal, name=None, k=0, num_rows=-1, num_cols=-1, padding_value=0.0, align="RIGHT_LEFT"))]
#[allow(clippy::too_many_arguments)]
pub fn diag(
    py: Python<'_>,
    diagonal: TensorArg,
    name: Option<Name>,
    k: i64,
    num_rows: i64,
    num_cols: i64,
    padding_value: f64,
    align: &str,
) -> PyResult<Py<PyAny>> {
    let _ = align;
    if k != 0 || num_rows != -1 || num_cols != -1 || padding_value != 0.0 {
        return Err(PyValueError::new_err(
            "tapers.linalg.diag supports only the main diagonal of a square matrix (k=0, default num_rows, num_cols, padding_value)",
        ));
    }
    let t = diagonal.0;
    call(
        py,
        name,
        Work::shape(&[t.numel(), t.shape().last().copied().unwrap_or(1)]),
        || ops::matrix_diag(&t),
    )
}

/// The main diagonal of matrices (``tf.linalg.diag_part``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     ``[..., M, N]``.
#[doc = name_doc!()]
/// k, padding_value, align
///     Only the main diagonal (``k=0``) is supported; other values raise
///     ``ValueError``.
///
/// Returns
/// -------
/// Tensor
///     ``[..., min(M, N)]``. Differentiable.
#[pyfunction]
#[pyo3(signature = (input, name=None, k=0, padding_value=0.0, align="RIGHT_LEFT"))]
pub fn diag_part(
    py: Python<'_>,
    input: TensorArg,
    name: Option<Name>,
    k: i64,
    padding_value: f64,
    align: &str,
) -> PyResult<Py<PyAny>> {
    let _ = (align, padding_value);
    if k != 0 {
        return Err(PyValueError::new_err(
            "tapers.linalg.diag_part supports only the main diagonal (k=0)",
        ));
    }
    let t = input.0;
    call(py, name, Work::of(&[&t]), || ops::matrix_diag_part(&t))
}

/// Keeps a band of each matrix, zeroing the rest (``tf.linalg.band_part``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     ``[..., M, N]``.
/// num_lower, num_upper : int
///     Subdiagonals and superdiagonals to keep; negative keeps the whole
///     triangle (``band_part(x, -1, 0)`` is the lower triangle).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape. Differentiable (the gradient is the same band).
#[pyfunction]
#[pyo3(signature = (input, num_lower, num_upper, name=None))]
pub fn band_part(
    py: Python<'_>,
    input: TensorArg,
    num_lower: i64,
    num_upper: i64,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    call(py, name, Work::of(&[&t]), || {
        ops::band_part(&t, num_lower, num_upper)
    })
}

/// Transposes the last two axes (``tf.linalg.matrix_transpose``).
///
/// Parameters
/// ----------
/// a : Tensor-like
///     Rank at least 2.
#[doc = name_doc!()]
/// conjugate : bool, default False
///     Conjugate complex elements too (no effect on real dtypes).
///
/// Returns
/// -------
/// Tensor
///     ``[..., N, M]``. Differentiable.
#[pyfunction]
#[pyo3(signature = (a, name=None, conjugate=false))]
pub fn matrix_transpose(
    py: Python<'_>,
    a: TensorArg,
    name: Option<Name>,
    conjugate: bool,
) -> PyResult<Py<PyAny>> {
    let t = a.0;
    need_matrix(&t, "a")?;
    call(py, name, Work::of(&[&t]), || {
        let out = ops::matrix_transpose(&t)?;
        if conjugate {
            ops::conj(&out)
        } else {
            Ok(out)
        }
    })
}

/// Conjugate transpose of the last two axes (``tf.linalg.adjoint``; the
/// transpose on real dtypes).
///
/// Parameters
/// ----------
/// matrix : Tensor-like
///     Rank at least 2.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[..., N, M]``. Differentiable.
#[pyfunction]
#[pyo3(signature = (matrix, name=None))]
pub fn adjoint(py: Python<'_>, matrix: TensorArg, name: Option<Name>) -> PyResult<Py<PyAny>> {
    let t = matrix.0;
    need_matrix(&t, "a")?;
    call(py, name, Work::of(&[&t]), || {
        ops::conj(&ops::matrix_transpose(&t)?)
    })
}
