//! Padding and gathers (the core's `ops/index.rs`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tapers::ops;

use super::{export, name_doc, Exports};
use crate::args::{Axis, Name, Paddings, TensorArg};
use crate::call::{call, Work};

/// Pads a tensor with a constant (``tf.pad``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     The values.
/// paddings : sequence of (int, int)
///     Elements to add before and after each axis.
/// mode : str, default "CONSTANT"
///     ``CONSTANT`` (fill with ``constant_values``), ``REFLECT`` (mirror
///     without repeating the edge; each padding below the axis' size) or
///     ``SYMMETRIC`` (mirror repeating the edge; each padding at most the
///     axis' size), in any case; others raise ``ValueError``.
/// constant_values : float, default 0
///     The fill value (``CONSTANT`` only).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Differentiable: the gradient is the inner slice (plus, in the mirror
///     modes, the mirrored parts added back).
#[pyfunction]
#[pyo3(signature = (tensor, paddings, mode="CONSTANT", constant_values=0.0, name=None))]
pub fn pad(
    py: Python<'_>,
    tensor: TensorArg,
    paddings: Paddings,
    mode: &str,
    constant_values: f64,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let mirror = match mode.to_ascii_uppercase().as_str() {
        "CONSTANT" => None,
        "REFLECT" => Some(false),
        "SYMMETRIC" => Some(true),
        _ => {
            return Err(PyValueError::new_err(format!(
                "Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or \"SYMMETRIC\". Received `mode` = {mode}"
            )))
        }
    };
    let t = tensor.0;
    let work = Work::of(&[&t]).max(Work::elems(paddings.padded_numel(&t)));
    call(py, name, work, || match mirror {
        None => ops::pad(&t, &paddings.0, constant_values),
        Some(symmetric) => ops::pad_mirror(&t, &paddings.0, symmetric),
    })
}

/// Gathers slices along an axis by index (``tf.gather``).
///
/// Parameters
/// ----------
/// params : Tensor-like
///     The values.
/// indices : Tensor-like of int32 or int64
///     Positions along ``axis``; out-of-range indices raise
///     ``InvalidArgumentError`` (TensorFlow's CPU behaviour).
/// validate_indices : optional
///     Accepted and ignored (indices are always validated).
/// axis : int, optional
///     The axis to gather from; ``batch_dims`` when None.
/// batch_dims : int, default 0
///     Leading axes shared by ``params`` and ``indices``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shape ``params.shape[:axis] + indices.shape[batch_dims:] +
///     params.shape[axis + 1:]``. Differentiable in ``params`` (repeated
///     indices accumulate).
#[pyfunction]
#[pyo3(signature = (params, indices, validate_indices=None, axis=None, batch_dims=0, name=None))]
pub fn gather(
    py: Python<'_>,
    params: TensorArg,
    indices: TensorArg,
    validate_indices: Option<&Bound<'_, PyAny>>,
    axis: Option<Axis>,
    batch_dims: isize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    // TensorFlow deprecated `validate_indices`; tapers always validates.
    let _ = validate_indices;
    let (p, i) = (params.0, indices.0);
    let ax = axis.map_or(batch_dims, |a| a.0);
    // The result holds one slice of `params` per index.
    let slice = tapers::normalize_axis(ax, p.rank())
        .ok()
        .map_or(1, |a| p.numel() / p.shape()[a].max(1));
    let work = Work::of(&[&p, &i]).max(Work::elems(i.numel().saturating_mul(slice)));
    call(py, name, work, || ops::gather(&p, &i, ax, batch_dims))
}

/// Gathers slices addressed by index tuples (``tf.gather_nd``).
///
/// Parameters
/// ----------
/// params : Tensor-like
///     The values.
/// indices : Tensor-like of int32 or int64
///     Its last axis holds index tuples into the leading axes of ``params``;
///     an index out of range raises ``InvalidArgumentError`` (TensorFlow on CPU
///     does too).
/// batch_dims : int, default 0
///     Only 0 is supported; others raise ``ValueError``.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shape ``indices.shape[:-1] + params.shape[indices.shape[-1]:]``.
///     Differentiable in ``params`` (the gradient scatter-adds).
#[pyfunction]
#[pyo3(signature = (params, indices, batch_dims=0, name=None))]
pub fn gather_nd(
    py: Python<'_>,
    params: TensorArg,
    indices: TensorArg,
    batch_dims: usize,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    if batch_dims != 0 {
        return Err(PyValueError::new_err(
            "tapers.gather_nd supports batch_dims=0 only",
        ));
    }
    let (p, i) = (params.0, indices.0);
    // One slice `params.shape[k:]` per index tuple of length k.
    let k = i.shape().last().copied().unwrap_or(0);
    let tuples = i.numel() / k.max(1);
    let slice: usize = p.shape().iter().skip(k).product();
    let work = Work::of(&[&p, &i]).max(Work::elems(tuples.saturating_mul(slice)));
    call(py, name, work, || ops::gather_nd(&p, &i))
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Tf]: pad, gather, gather_nd);
    Ok(())
}
