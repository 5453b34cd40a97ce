//! Convolution and pooling of NHWC images (the core's `ops/conv.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{export, name_doc, Exports};
use crate::args::{Dilations, KSize, Name, Nhwc, Padding, Strides, TensorArg};
use crate::call::{call, Work};
use crate::convert::binary_operands;

/// 2-D convolution of NHWC images with HWIO filters (``tf.nn.conv2d``).
///
/// Parameters
/// ----------
/// input : Tensor-like
///     Shape ``(batch, height, width, in_channels)``, float.
/// filters : Tensor-like
///     Shape ``(filter_height, filter_width, in_channels, out_channels)``.
/// strides : int or sequence of int
///     An int, a pair, or ``[1, sh, sw, 1]``.
/// padding : {"SAME", "VALID"}
///     TensorFlow's explicit padding lists are not supported.
/// data_format : str, optional
///     ``"NHWC"`` only; TensorFlow's ``"NCHW"`` raises ``ValueError``.
/// dilations : int or sequence of int, optional
///     As ``strides``; default 1.
#[doc = name_doc!()]
///
/// Returns
/// -------
/// Tensor
///     Shape ``(batch, out_height, out_width, out_channels)``. Differentiable in
///     ``input`` and ``filters`` (im2col and a matmul, with the GIL released).
#[pyfunction]
#[pyo3(signature = (input, filters, strides, padding, data_format=None, dilations=None, name=None))]
#[allow(clippy::too_many_arguments)]
pub fn conv2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    filters: &Bound<'_, PyAny>,
    strides: Strides,
    padding: Padding,
    data_format: Option<Nhwc>,
    dilations: Option<Dilations>,
    name: Option<Name>,
) -> PyResult<Py<PyAny>> {
    // NHWC is all there is; the converter refused anything else.
    let _ = data_format;
    let (x, f) = binary_operands(input, filters)?;
    let d = dilations.map_or([1, 1], |d| d.0);
    call(py, name, Work::product(&x, &f), || {
        ops::conv2d(&x, &f, strides.0, padding.0, d)
    })
}

/// Defines a pooling function; its docstring is `$summary`, then the shared
/// parameters with `$same` on SAME padding, then `$grad` on the gradient.
macro_rules! pool {
    ($name:ident, $f:path, $summary:literal, $same:literal, $grad:literal) => {
        #[doc = concat!(
            $summary,
            "\n\nParameters\n----------\n",
            "input : Tensor-like\n    Shape ``(batch, height, width, channels)``, float.\n",
            "ksize : int or sequence of int\n    The window: an int, a pair, or ``[1, kh, kw, 1]``.\n",
            "strides : int or sequence of int\n    As ``ksize``.\n",
            "padding : {\"SAME\", \"VALID\"}\n    With ``SAME``, ", $same, ".\n",
            "data_format : str, optional\n    ``\"NHWC\"`` only; TensorFlow's ``\"NCHW\"`` raises ``ValueError``.\n",
            name_doc!(), "\n",
            "\nReturns\n-------\nTensor\n",
            "    Shape ``(batch, out_height, out_width, channels)``. Differentiable: ", $grad, "."
        )]
        #[pyfunction]
        #[pyo3(signature = (input, ksize, strides, padding, data_format=None, name=None))]
        pub fn $name(
            py: Python<'_>,
            input: TensorArg,
            ksize: KSize,
            strides: Strides,
            padding: Padding,
            data_format: Option<Nhwc>,
            name: Option<Name>,
        ) -> PyResult<Py<PyAny>> {
            // NHWC is all there is; the converter refused anything else.
            let _ = data_format;
            let x = input.0;
            let [kh, kw] = ksize.0;
            let work = Work::elems(x.numel().saturating_mul(kh).saturating_mul(kw));
            call(py, name, work, || $f(&x, ksize.0, strides.0, padding.0))
        }
    };
}
pool!(
    max_pool2d,
    ops::max_pool2d,
    "Maximum over NHWC windows (``tf.nn.max_pool``, also ``tf.nn.max_pool2d``).",
    "padding never wins the max",
    "the gradient goes to the first maximum of each window (TensorFlow's MaxPoolGrad rule)"
);
pool!(
    avg_pool2d,
    ops::avg_pool2d,
    "Mean over NHWC windows (``tf.nn.avg_pool``, also ``tf.nn.avg_pool2d``).",
    "the average counts only the window's elements inside the input, as in TensorFlow",
    "the gradient is spread evenly over each window"
);

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Nn]: conv2d, max_pool2d, avg_pool2d);
    Ok(())
}
