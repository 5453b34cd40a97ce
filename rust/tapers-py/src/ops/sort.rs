//! Orderings: sort, argsort, top_k, unique, searchsorted, bincount (the
//! core's `ops/sort.rs`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use tapers::{ops, DType, Tensor};

use super::{export, name_doc, Exports};
use crate::args::{dtype_or, DTypeArg, IndexType, Name, TensorArg};
use crate::call::{call, run, Output, Work};

/// `items` as an instance of the named tuple `name` (TF returns `TopKV2`
/// and `Unique` named tuples), its class made once.
fn named_tuple(
    py: Python<'_>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
    fields: &str,
    items: Vec<Tensor>,
) -> PyResult<Py<PyAny>> {
    let cls = cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        let nt = py.import("collections")?.getattr("namedtuple")?;
        Ok(nt.call1((name, fields))?.unbind())
    })?;
    let items = items
        .into_iter()
        .map(|t| t.into_python(py))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(cls.bind(py).call1(PyTuple::new(py, items)?)?.unbind())
}

/// TF's `direction` argument: true for DESCENDING.
fn descending(direction: &str) -> PyResult<bool> {
    match direction {
        "ASCENDING" => Ok(false),
        "DESCENDING" => Ok(true),
        _ => Err(PyValueError::new_err(format!(
            "Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction={direction}"
        ))),
    }
}

/// Sorts a tensor along an axis (``tf.sort``).
///
/// Parameters
/// ----------
/// values : Tensor-like
///     Real values (float32, float64, int32, int64).
/// axis : int, default -1
///     The axis to sort along.
/// direction : str, default "ASCENDING"
///     ``ASCENDING`` or ``DESCENDING``; anything else raises ``ValueError``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Equal values keep their order, as in TF (which
///     sorts with ``top_k``). NaN's place is unspecified in TF; here it sorts
///     as the largest value. Differentiable: the gradient goes back to
///     where each value came from.
#[pyfunction]
#[pyo3(signature = (values, axis=-1, direction="ASCENDING", name=None))]
pub fn sort(
    py: Python<'_>,
    values: TensorArg,
    axis: isize,
    direction: &str,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let desc = descending(direction)?;
    let t = values.0;
    call(py, name, Work::of(&[&t]), || ops::sort(&t, axis, desc))
}

/// The indices that sort a tensor along an axis (``tf.argsort``).
///
/// Parameters
/// ----------
/// values : Tensor-like
///     Real values (float32, float64, int32, int64).
/// axis : int, default -1
///     The axis to sort along.
/// direction : str, default "ASCENDING"
///     ``ASCENDING`` or ``DESCENDING``; anything else raises ``ValueError``.
/// stable : bool, default False
///     Accepted; the order is always stable (equal values keep their order),
///     as TensorFlow's is.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     int32 indices, the shape of ``values``. Not differentiable.
#[pyfunction]
#[pyo3(signature = (values, axis=-1, direction="ASCENDING", stable=false, name=None))]
pub fn argsort(
    py: Python<'_>,
    values: TensorArg,
    axis: isize,
    direction: &str,
    stable: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let _ = stable;
    let desc = descending(direction)?;
    let t = values.0;
    call(py, name, Work::of(&[&t]), || ops::argsort(&t, axis, desc))
}

/// The ``k`` largest entries along the last axis (``tf.math.top_k``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Real values, at least 1-D.
/// k : int, default 1
///     How many; ``0 <= k <= input.shape[-1]`` (else ``InvalidArgumentError``).
/// sorted : bool, default True
///     Accepted; the result is always sorted (TF leaves the order open when
///     False).
/// index_type : DType, default int32
///     ``int32`` or ``int64``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// TopKV2
///     A named tuple ``(values, indices)``: larger first, equal values in
///     index order (TF's order). ``values`` is differentiable (the gradient
///     scatters back to ``indices``).
#[pyfunction]
#[pyo3(signature = (input, k=1, sorted=true, index_type=None, name=None))]
pub fn top_k(
    py: Python<'_>,
    input: TensorArg,
    k: isize,
    sorted: bool,
    index_type: Option<IndexType>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    static TOPK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let t = input.0;
    let out = index_type.map_or(DType::I32, |d| d.0);
    let (v, i) = run(py, name, Work::of(&[&t]), || {
        let (v, i) = ops::top_k(&t, k, sorted)?;
        Ok((v, ops::cast(&i, out)?))
    })?;
    named_tuple(py, &TOPK, "TopKV2", "values indices", vec![v, i])
}

/// The distinct values of a 1-D tensor (``tf.unique``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     A 1-D tensor of any dtype (else ``InvalidArgumentError``).
/// out_idx : DType, default int32
///     ``int32`` or ``int64``, the dtype of ``idx``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Unique
///     A named tuple ``(y, idx)``: the values in order of first appearance
///     (``-0.0`` and ``0.0`` are one value; each NaN is its own), and for
///     each element of ``x`` the position of its value in ``y``. Not
///     differentiable (TF registers no gradient; tapers returns ``None``
///     where TF raises ``LookupError``).
#[pyfunction]
#[pyo3(signature = (x, out_idx=None, name=None))]
pub fn unique(
    py: Python<'_>,
    x: TensorArg,
    out_idx: Option<IndexType>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    static UNIQUE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let t = x.0;
    let out = out_idx.map_or(DType::I32, |d| d.0);
    let (y, i) = run(py, name, Work::of(&[&t]), || ops::unique(&t, out))?;
    named_tuple(py, &UNIQUE, "Unique", "y idx", vec![y, i])
}

/// Where values would be inserted into sorted rows (``tf.searchsorted``).
///
/// Parameters
/// ----------
/// sorted_sequence : Tensor-like
///     At least 1-D, sorted along its last axis.
/// values : Tensor-like
///     The same dtype; its leading dims match ``sorted_sequence``'s.
/// side : str, default "left"
///     ``left`` (before equal entries) or ``right`` (after them).
/// out_type : DType, default int32
///     ``int32`` or ``int64``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     The shape of ``values``. Not differentiable.
#[pyfunction]
#[pyo3(signature = (sorted_sequence, values, side="left", out_type=None, name=None))]
pub fn searchsorted(
    py: Python<'_>,
    sorted_sequence: TensorArg,
    values: TensorArg,
    side: &str,
    out_type: Option<IndexType>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let right = match side {
        "left" => false,
        "right" => true,
        _ => {
            return Err(PyValueError::new_err(format!(
                "Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'."
            )))
        }
    };
    let (s, v) = (sorted_sequence.0, values.0);
    let out = out_type.map_or(DType::I32, |d| d.0);
    call(py, name, Work::of(&[&s, &v]), || {
        ops::searchsorted(&s, &v, right, out)
    })
}

/// Counts the occurrences of each non-negative integer (``tf.math.bincount``).
///
/// Parameters
/// ----------
/// arr : Tensor-like
///     Non-negative values (floats are truncated, as TF casts them to int32);
///     a negative one raises ``InvalidArgumentError``.
/// weights : Tensor-like, optional
///     The shape of ``arr``: each occurrence adds its weight instead of 1
///     (the result then has the weights' dtype).
/// minlength, maxlength : int, optional
///     At least / at most this many bins (values beyond ``maxlength`` are
///     dropped).
/// dtype : DType, default int32
///     The result's dtype without weights.
#[doc = name_doc!()]
/// axis : int, optional
///     None (count all of ``arr``) or -1 (count each row of a 2-D ``arr``).
/// binary_output : bool, default False
///     1 where a bin has any occurrence.
///
/// Returns
/// -------
/// Tensor
///     ``[bins]`` or ``[rows, bins]``. Not differentiable (TF registers no
///     gradient).
#[pyfunction]
#[pyo3(signature = (arr, weights=None, minlength=None, maxlength=None, dtype=None, name=None, axis=None, binary_output=false))]
#[allow(clippy::too_many_arguments)]
pub fn bincount(
    py: Python<'_>,
    arr: TensorArg,
    weights: Option<TensorArg>,
    minlength: Option<i64>,
    maxlength: Option<i64>,
    dtype: Option<DTypeArg>,
    name: Option<Name>,
    axis: Option<isize>,
    binary_output: bool,
) -> PyResult<Py<PyAny>> {
    let per_row = match axis {
        None | Some(0) => false,
        Some(-1) => true,
        Some(a) => {
            return Err(PyValueError::new_err(format!(
                "Unsupported axis value {a}. Only 0 and -1 are currently supported."
            )))
        }
    };
    let t = arr.0;
    let w = weights.map(|w| w.0);
    let opts_dtype = dtype_or(dtype, DType::I32);
    // A negative bound is no bound below and nothing above, as in TF.
    let minlength = minlength.map(|m| m.max(0) as usize);
    let maxlength = maxlength.map(|m| m.max(0) as usize);
    call(py, name, Work::of(&[&t]), || {
        ops::bincount(
            &t,
            &ops::Bincount {
                weights: w.as_ref(),
                minlength,
                maxlength,
                dtype: opts_dtype,
                per_row,
                binary: binary_output,
            },
        )
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Tf]: sort, argsort, unique, searchsorted);
    export!(ex, [Math, Nn]: top_k);
    export!(ex, [Math]: bincount);
    Ok(())
}
