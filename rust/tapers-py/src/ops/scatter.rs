//! Rearrangements and scatters: roll, reverse, repeat, boolean_mask,
//! scatter_nd, tensor_scatter_nd_update/add (the core's `ops/scatter.rs`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tapers::ops;

use super::{export, name_doc, Exports};
use crate::args::{Axes, IntList, Name, Shape, TensorArg};
use crate::call::{call, Work};

fn i64s(v: &[isize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

/// Rolls elements along axes, wrapping around (``tf.roll``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any dtype.
/// shift : int or list of int
///     How far to move along each axis of ``axis`` (negative: backwards).
/// axis : int or list of int
///     The axes, as many as shifts (``InvalidArgumentError`` otherwise); an
///     axis named twice moves by the sum of its shifts.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Differentiable (the gradient rolls back).
#[pyfunction]
#[pyo3(signature = (input, shift, axis, name=None))]
pub fn roll(
    py: Python<'_>,
    input: TensorArg,
    shift: IntList,
    axis: Axes,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    let shift = i64s(&shift.0);
    call(py, name, Work::of(&[&t]), || ops::roll(&t, &shift, &axis.0))
}

/// Reverses the order along axes (``tf.reverse``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     Any dtype.
/// axis : int or list of int
///     The axes to reverse (each at most once, else ``InvalidArgumentError``).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype. Differentiable (the gradient reverses back).
#[pyfunction]
#[pyo3(signature = (tensor, axis, name=None))]
pub fn reverse(
    py: Python<'_>,
    tensor: TensorArg,
    axis: Axes,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = tensor.0;
    call(py, name, Work::of(&[&t]), || ops::reverse(&t, &axis.0))
}

/// Repeats elements (``tf.repeat``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Any dtype.
/// repeats : int or list of int
///     One count for all, or one per element along ``axis`` (else
///     ``ValueError``, as in TF); each at least 0.
/// axis : int, optional
///     The axis; None repeats the flattened input.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``input.shape`` with ``axis`` as long as the repeats' sum (1-D when
///     ``axis`` is None). Differentiable (the gradient sums the copies).
#[pyfunction]
#[pyo3(signature = (input, repeats, axis=None, name=None))]
pub fn repeat(
    py: Python<'_>,
    input: TensorArg,
    repeats: IntList,
    axis: Option<isize>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = input.0;
    // TF checks these while building its graph: ValueError.
    let n = match axis {
        None => t.numel(),
        Some(a) => {
            let rank = t.rank() as isize;
            if a < -rank || a >= rank {
                return Err(PyValueError::new_err(format!(
                    "axis={a} out of bounds: expected {}<=axis<{rank}",
                    -rank
                )));
            }
            t.shape()[if a < 0 { a + rank } else { a } as usize]
        }
    };
    if repeats.0.len() != 1 && repeats.0.len() != n {
        return Err(PyValueError::new_err(format!(
            "Dimensions {n} and {} are not compatible",
            repeats.0.len()
        )));
    }
    let reps = i64s(&repeats.0);
    call(py, name, Work::of(&[&t]), || ops::repeat(&t, &reps, axis))
}

/// Keeps the entries where a boolean mask is true (``tf.boolean_mask``).
///
/// Parameters
/// ----------
/// tensor : Tensor-like
///     Any dtype.
/// mask : Tensor-like
///     k-D (k >= 1), its shape equal to ``tensor.shape[axis:axis + k]``
///     (else ``ValueError``, as in TF); non-bool values count as true when
///     nonzero.
/// axis : int, optional
///     Where the mask's dims start (default 0).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``tensor.shape[:axis] + [count of true] + tensor.shape[axis + k:]``.
///     Differentiable in ``tensor``.
#[pyfunction]
#[pyo3(signature = (tensor, mask, axis=None, name=None))]
pub fn boolean_mask(
    py: Python<'_>,
    tensor: TensorArg,
    mask: TensorArg,
    axis: Option<isize>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (t, m) = (tensor.0, mask.0);
    let ax = axis.unwrap_or(0);
    // TF checks the static shapes first: ValueError.
    if m.rank() == 0 {
        return Err(PyValueError::new_err("mask cannot be scalar."));
    }
    let a = if ax < 0 { ax + t.rank() as isize } else { ax };
    let fits = a >= 0 && a as usize + m.rank() <= t.rank();
    if !fits || t.shape()[a as usize..a as usize + m.rank()] != *m.shape() {
        let seen: Vec<usize> = if fits {
            t.shape()[a as usize..a as usize + m.rank()].to_vec()
        } else {
            t.shape()[(a.max(0) as usize).min(t.rank())..].to_vec()
        };
        return Err(PyValueError::new_err(format!(
            "Shapes {} and {} are incompatible",
            tapers::tuple_string(&seen),
            tapers::tuple_string(m.shape())
        )));
    }
    call(py, name, Work::of(&[&t]), || ops::boolean_mask(&t, &m, ax))
}

/// Scatters updates into a zero tensor (``tf.scatter_nd``).
///
/// Parameters
/// ----------
/// indices : Tensor-like of int32 or int64
///     ``[..., r]``: index tuples into the leading ``r`` dims of ``shape``;
///     one out of range raises ``InvalidArgumentError``.
/// updates : Tensor-like
///     ``indices.shape[:-1] + shape[r:]``.
/// shape : list of int
///     The result's shape.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``updates``' dtype; repeated indices add up (bool: OR).
///     Differentiable in ``updates`` (the gradient gathers).
#[pyfunction]
#[pyo3(signature = (indices, updates, shape, name=None))]
pub fn scatter_nd(
    py: Python<'_>,
    indices: TensorArg,
    updates: TensorArg,
    shape: Shape,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (i, u) = (indices.0, updates.0);
    let work = Work::of(&[&u]).max(Work::shape(&shape.0));
    call(py, name, work, || ops::scatter_nd(&i, &u, &shape.0))
}

/// Defines the `tensor_scatter_nd_*` wrappers, one line each.
macro_rules! tensor_scatter {
    ($($name:ident => $f:path, $what:literal, $grad:literal;)*) => {$(
        #[doc = concat!($what, " (``tf.", stringify!($name), "``).

Parameters
----------
tensor : Tensor-like
    The values.
indices : Tensor-like of int32 or int64
    ``[..., r]``: index tuples into the leading ``r`` dims of ``tensor``; one
    out of range raises ``InvalidArgumentError``.
updates : Tensor-like
    ``tensor``'s dtype, shape ``indices.shape[:-1] + tensor.shape[r:]``.
", name_doc!(), "

Returns
-------
Tensor
    The shape and dtype of ``tensor``. ", $grad)]
        #[pyfunction]
        #[pyo3(signature = (tensor, indices, updates, name=None))]
        pub fn $name(
            py: Python<'_>,
            tensor: TensorArg,
            indices: TensorArg,
            updates: TensorArg,
            name: Option<Name>,
        ) -> PyResult<Py<PyAny>> {
            let (t, i, u) = (tensor.0, indices.0, updates.0);
            call(py, name, Work::of(&[&t, &u]), || $f(&t, &i, &u))
        }
    )*};
}

tensor_scatter!(
    tensor_scatter_nd_update => ops::tensor_scatter_nd_update,
        "A copy of a tensor with the slices at ``indices`` replaced",
        "For a repeated index the last update wins (TF's CPU order). Differentiable in both; an overwritten duplicate update gets gradient 0 (TF gives it its position's gradient too).";
    tensor_scatter_nd_add => ops::tensor_scatter_nd_add,
        "A copy of a tensor with ``updates`` added at ``indices``",
        "Repeated indices add up. Differentiable in both (``updates`` gets the gathered gradient).";
);

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(
        ex,
        [Tf]: roll,
        reverse,
        repeat,
        boolean_mask,
        scatter_nd,
        tensor_scatter_nd_update,
        tensor_scatter_nd_add
    );
    Ok(())
}
