//! Segment reductions and log-space scans (the core's `ops/segment.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{export, name_doc, unary, Exports};
use crate::args::{Name, TensorArg};
use crate::call::{call, Work};

unary!(exports;
    [Math] log_sigmoid => ops::log_sigmoid, "``log(sigmoid(x))``, computed as ``-softplus(-x)`` as TensorFlow does (no overflow for large ``|x|``).";
);

/// Sums of sorted segments of rows (``tf.math.segment_sum``).
///
/// Parameters
/// ----------
/// data : Tensor-like
///     Numeric values; row ``i`` (along axis 0) belongs to segment
///     ``segment_ids[i]``.
/// segment_ids : Tensor-like of int32 or int64
///     1-D, one per row, sorted and non-negative (else
///     ``InvalidArgumentError``).
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     ``[segment_ids[-1] + 1] + data.shape[1:]``; a segment with no rows is
///     0. Differentiable in ``data``.
#[pyfunction]
#[pyo3(signature = (data, segment_ids, name=None))]
pub fn segment_sum(
    py: Python<'_>,
    data: TensorArg,
    segment_ids: TensorArg,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let (d, i) = (data.0, segment_ids.0);
    call(py, name, Work::of(&[&d]), || ops::segment_sum(&d, &i))
}

/// Defines the `unsorted_segment_*` wrappers, one line each.
macro_rules! unsorted {
    ($($name:ident => $f:path, $what:literal, $empty:literal, $grad:literal;)*) => {$(
        #[doc = concat!($what, " of segments in any order (``tf.math.", stringify!($name), "``).

Parameters
----------
data : Tensor-like
    Numeric values.
segment_ids : Tensor-like of int32 or int64
    Its shape is a prefix of ``data``'s: each entry names the segment of the
    slice of ``data`` at that position. Negative ids drop their slice; an id
    ``>= num_segments`` raises ``InvalidArgumentError``.
num_segments : int
    How many segments (the result's first dim).
", name_doc!(), "

Returns
-------
Tensor
    ``[num_segments] + data.shape[segment_ids.ndim:]``; an empty segment
    is ", $empty, ". ", $grad)]
        #[pyfunction]
        #[pyo3(signature = (data, segment_ids, num_segments, name=None))]
        pub fn $name(
            py: Python<'_>,
            data: TensorArg,
            segment_ids: TensorArg,
            num_segments: i64,
            name: Option<Name>,
        ) -> PyResult<Py<PyAny>> {
            let (d, i) = (data.0, segment_ids.0);
            call(py, name, Work::of(&[&d]), || $f(&d, &i, num_segments))
        }
    )*};
}

unsorted!(
    unsorted_segment_sum => ops::unsorted_segment_sum, "Sums", "0",
        "Differentiable in ``data``.";
    unsorted_segment_mean => ops::unsorted_segment_mean, "Means", "0",
        "Integer data gives float32 for 8- and 16-bit integers, float64 for the rest (TF's true division of the sum by the count, both in the data's dtype); complex raises ``InvalidArgumentError`` (TF's composite clips the count with ``Maximum``). Differentiable in ``data``.";
    unsorted_segment_max => ops::unsorted_segment_max, "Maxima",
        "the dtype's lowest value (as in TF)",
        "A NaN makes its segment's max NaN unless a number follows it (TF's fold). Differentiable in ``data``: the gradient goes to the entries equal to their segment's max, shared equally among ties (TF's rule).";
);

/// The log of the cumulative sum of ``exp(x)`` (``tf.math.cumulative_logsumexp``).
///
/// Parameters
/// ----------
/// x : Tensor-like
///     float32 or float64.
/// axis : int, default 0
///     The axis to scan.
/// exclusive : bool, default False
///     Each output excludes its own element (the first is ``-inf``).
/// reverse : bool, default False
///     Scan from the end of the axis.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Same shape and dtype, computed pairwise in log space (no overflow or
///     underflow). Differentiable (TF's rule).
#[pyfunction]
#[pyo3(signature = (x, axis=0, exclusive=false, reverse=false, name=None))]
pub fn cumulative_logsumexp(
    py: Python<'_>,
    x: TensorArg,
    axis: isize,
    exclusive: bool,
    reverse: bool,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    let t = x.0;
    call(py, name, Work::of(&[&t]), || {
        ops::cumulative_logsumexp(&t, axis, exclusive, reverse)
    })
}

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    exports(ex)?;
    export!(
        ex,
        [Math]: segment_sum,
        unsorted_segment_sum,
        unsorted_segment_mean,
        unsorted_segment_max,
        cumulative_logsumexp
    );
    Ok(())
}
