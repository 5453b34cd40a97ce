"""3-D convolution and pooling of NDHWC volumes (``tf.nn.conv3d``, ``tf.nn.max_pool3d``, ``tf.nn.avg_pool3d``).

tapers has no native 3-D kernels, so each op is built from the 2-D ones: the
depth axis is padded (for ``"SAME"``) and sliced, every kernel-depth offset
``i`` takes the depth slices ``i * dilation + o * stride`` for all output
depths ``o`` at once, folds them into the batch, and runs the 2-D op over the
height and width. Convolution sums the results over ``i``, max pooling takes
their maximum and average pooling their mean. Every step is an ordinary
tapers op, so gradients flow through ``GradientTape`` and the ops trace inside
``tapers.function``.
"""

from __future__ import annotations

from typing import Any

from . import _core, errors
from ._core import Tensor
from ._core.nn import avg_pool2d, conv2d, max_pool2d

__all__ = ["avg_pool3d", "conv3d", "conv3d_transpose", "max_pool3d"]


def _triple(v: Any, what: str) -> list[int]:
    """An int, 1, 3 or 5 ints (``[1, d, h, w, 1]``) as ``[d, h, w]``."""
    if v is None:
        return [1, 1, 1]
    if isinstance(v, int):
        items = [v]
    else:
        items = [int(d) for d in v]
    if len(items) == 1:
        items = items * 3
    elif len(items) == 5:
        if items[0] != 1 or items[4] != 1:
            raise errors.InvalidArgumentError(
                None, None, f"{what} in the batch and depth (channel) dimensions must be 1, got {list(v)!r}"
            )
        items = items[1:4]
    elif len(items) != 3:
        raise ValueError(f"{what} must be an int or a list of 1, 3 or 5 ints, got {v!r}")
    if any(d <= 0 for d in items):
        raise ValueError(f"{what} must be positive, got {v!r}")
    return items


def _check_format(data_format: str, padding: str, op: str) -> None:
    if data_format != "NDHWC":
        raise ValueError(f"tapers supports data_format='NDHWC' only in {op}, got {data_format!r}")
    if padding not in ("SAME", "VALID"):
        raise errors.InvalidArgumentError(
            None,
            None,
            f'Value for attr \'padding\' of "{padding}" is not in the list of allowed values: "SAME", "VALID"',
        )


def _check_rank5(x: Tensor, what: str, op: str) -> None:
    if len(x.shape) != 5:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: {what} must be 5-dimensional (NDHWC), got shape {list(x.shape)}"
        )


def _depth_plan(
    x: Tensor,
    k: list[int],
    s: list[int],
    d: list[int],
    padding: str,
    op: str,
    pad_value: float,
    ksize_what: str,
    filters_shape: list[int] | None = None,
) -> tuple[Tensor, int, list[int]]:
    """Pads the depth for ``"SAME"`` and checks ``"VALID"`` windows fit.

    Returns the (padded) input, the output depth and, for ``"SAME"``, the
    front padding plus the original depth (``[front, depth]``), else ``[0, depth]``.
    """
    shape = [int(n) for n in x.shape[1:4]]
    eff = [(kk - 1) * dd + 1 for kk, dd in zip(k, d)]
    depth = shape[0]
    if padding == "VALID":
        if any(n < e for n, e in zip(shape, eff)):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{op}: the {ksize_what} {k} (dilated to {eff}) is larger than the input's spatial dimensions "
                f"{shape} with padding='VALID'; input shape {list(x.shape)}"
                + ("" if filters_shape is None else f", filters shape {filters_shape}"),
            )
        return x, (depth - eff[0]) // s[0] + 1, [0, depth]
    out = (depth + s[0] - 1) // s[0]
    total = max((out - 1) * s[0] + eff[0] - depth, 0)
    front = total // 2
    if total:
        x = _core.pad(x, [[0, 0], [front, total - front], [0, 0], [0, 0], [0, 0]], constant_values=pad_value)
    return x, out, [front, depth]


def _per_depth(x: Tensor, kd: int, sd: int, dd: int, out_d: int, fn: Any) -> list[Tensor]:
    """``fn`` (a 2-D op on NHWC) on each kernel-depth offset's slices, back as NDHWC."""
    h, w, c = (int(n) for n in x.shape[2:5])
    results = []
    for i in range(kd):
        start = i * dd
        sl = x[:, start : start + (out_d - 1) * sd + 1 : sd]
        y = fn(i, _core.reshape(sl, [-1, h, w, c]))
        oh, ow, oc = (int(n) for n in y.shape[1:4])
        results.append(_core.reshape(y, [-1, out_d, oh, ow, oc]))
    return results


def conv3d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: str,
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """3-D convolution of NDHWC volumes by DHWIO filters (``tf.nn.conv3d``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, depth, height, width, in_channels]``, float.
    filters : Tensor-like
        ``[kd, kh, kw, in_channels, out_channels]``.
    strides : int or list of int
        An int, three ints, or TensorFlow's ``[1, sd, sh, sw, 1]``.
    padding : {"SAME", "VALID"}
        ``"SAME"`` pads so each output dimension is ``ceil(n / stride)``.
    data_format : str, default "NDHWC"
        Only ``NDHWC``; others raise ``ValueError``.
    dilations : int or list of int, optional
        The filter's dilation, given as ``strides``; default 1.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_depth, out_height, out_width, out_channels]``: the sum over
        kernel depth of ``conv2d`` on depth slices. Differentiable in ``input``
        and ``filters``.

    Raises
    ------
    InvalidArgumentError
        For inputs or filters that are not 5-D, mismatched channels, or a
        (dilated) kernel larger than a ``"VALID"`` input; TensorFlow's CPU kernel
        does not check the last two.
    """
    del name
    _check_format(data_format, padding, "conv3d")
    x = _core.convert_to_tensor(input)
    f = _core.convert_to_tensor(filters, dtype=x.dtype)
    _check_rank5(x, "input", "conv3d")
    _check_rank5(f, "filters", "conv3d")
    if int(x.shape[4]) != int(f.shape[3]):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"conv3d: input depth (channels) must equal the filters' in_channels: input shape {list(x.shape)}, "
            f"filters shape {list(f.shape)}",
        )
    k = [int(n) for n in f.shape[:3]]
    s = _triple(strides, "strides")
    d = _triple(dilations, "dilations")
    xp, out_d, _ = _depth_plan(x, k, s, d, padding, "conv3d", 0.0, "filter size", list(f.shape))

    def conv(i: int, sl: Tensor) -> Tensor:
        return conv2d(sl, f[i], s[1:], padding, dilations=d[1:])

    parts = _per_depth(xp, k[0], s[0], d[0], out_d, conv)
    y = parts[0]
    for p in parts[1:]:
        y = y + p
    return y


def max_pool3d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC", name: Any = None
) -> Tensor:
    """Maximum over NDHWC windows (``tf.nn.max_pool3d``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, depth, height, width, channels]``, float.
    ksize : int or list of int
        The window: an int, three ints or ``[1, kd, kh, kw, 1]``.
    strides : int or list of int
        As ``ksize``.
    padding : {"SAME", "VALID"}
        With ``"SAME"``, padding never wins the maximum.
    data_format : str, default "NDHWC"
        Only ``NDHWC``; others raise ``ValueError``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_depth, out_height, out_width, channels]``. Differentiable;
        each window's gradient goes to one maximum. Where a window holds several
        equal maxima TensorFlow's CPU ``MaxPool3DGrad`` gives the full gradient to
        every one of them; tapers gives it to one (the first in depth order), as
        its 2-D ``max_pool2d`` does, so the gradient's sum stays the upstream sum.

    Raises
    ------
    InvalidArgumentError
        For a non-5-D input or a window larger than a ``"VALID"`` input
        (TensorFlow's CPU kernel crashes on the latter).
    """
    del name
    _check_format(data_format, padding, "max_pool3d")
    x = _core.convert_to_tensor(input)
    _check_rank5(x, "input", "max_pool3d")
    k = _triple(ksize, "ksize")
    s = _triple(strides, "strides")
    xp, out_d, _ = _depth_plan(x, k, s, [1, 1, 1], padding, "max_pool3d", float("-inf"), "window (ksize)")
    parts = _per_depth(xp, k[0], s[0], 1, out_d, lambda i, sl: max_pool2d(sl, k[1:], s[1:], padding))
    y = parts[0]
    for p in parts[1:]:
        y = _core.maximum(y, p)
    return y


def avg_pool3d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC", name: Any = None
) -> Tensor:
    """Mean over NDHWC windows (``tf.nn.avg_pool3d``).

    Parameters
    ----------
    input : Tensor-like
        ``[batch, depth, height, width, channels]``, float.
    ksize : int or list of int
        The window: an int, three ints or ``[1, kd, kh, kw, 1]``.
    strides : int or list of int
        As ``ksize``.
    padding : {"SAME", "VALID"}
        With ``"SAME"`` the mean is over the part of the window inside the
        input, as TensorFlow.
    data_format : str, default "NDHWC"
        Only ``NDHWC``; others raise ``ValueError``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``[batch, out_depth, out_height, out_width, channels]``. Differentiable.

    Raises
    ------
    InvalidArgumentError
        For a non-5-D input or a window larger than a ``"VALID"`` input.
    """
    del name
    _check_format(data_format, padding, "avg_pool3d")
    x = _core.convert_to_tensor(input)
    _check_rank5(x, "input", "avg_pool3d")
    k = _triple(ksize, "ksize")
    s = _triple(strides, "strides")
    xp, out_d, (front, depth) = _depth_plan(x, k, s, [1, 1, 1], padding, "avg_pool3d", 0.0, "window (ksize)")
    parts = _per_depth(xp, k[0], s[0], 1, out_d, lambda i, sl: avg_pool2d(sl, k[1:], s[1:], padding))
    y = parts[0]
    for p in parts[1:]:
        y = y + p
    # Each depth slice's 2-D mean already divides by its valid height x width count;
    # divide the sum by how many of the window's depth slices lie inside the input.
    counts = []
    for o in range(out_d):
        lo = o * s[0] - front
        counts.append(float(max(0, min(lo + k[0], depth) - max(lo, 0))))
    scale = _core.reshape(_core.constant([1.0 / c for c in counts], dtype=y.dtype), [1, out_d, 1, 1, 1])
    return y * scale


def conv3d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: Any = None,
) -> Tensor:
    """The transpose of ``conv3d`` (``tf.nn.conv3d_transpose``): its gradient with respect to its input.

    Parameters
    ----------
    input : Tensor-like
        ``[batch, d, h, w, in_channels]``: what ``conv3d`` of an ``output_shape``
        tensor by ``filters`` would give.
    filters : Tensor-like
        ``[kd, kh, kw, out_channels, in_channels]`` (TensorFlow's order:
        ``conv3d``'s filters).
    output_shape : list of int
        ``[batch, out_d, out_h, out_w, out_channels]``.
    strides : int or list of int
        As for ``conv3d``.
    padding : {"SAME", "VALID"}, default "SAME"
        As for ``conv3d``.
    data_format : str, default "NDHWC"
        Only ``NDHWC``.
    dilations : int or list of int, optional
        As for ``conv3d``.
    name : str, optional
        Accepted for TensorFlow compatibility and ignored.

    Returns
    -------
    Tensor
        ``output_shape``: the gradient of ``conv3d`` with respect to its input with
        ``input`` as the upstream gradient (TensorFlow's ``Conv3DBackpropInputV2``),
        so it is differentiable in ``input`` and ``filters``.

    Raises
    ------
    InvalidArgumentError
        When ``conv3d`` of an ``output_shape`` tensor would not have ``input``'s shape.
    """
    del name
    _check_format(data_format, padding, "conv3d_transpose")
    from ._tape import GradientTape

    dy = _core.convert_to_tensor(input)
    f = _core.convert_to_tensor(filters, dtype=dy.dtype)
    _check_rank5(dy, "input", "conv3d_transpose")
    _check_rank5(f, "filters", "conv3d_transpose")
    shape = [int(d) for d in output_shape]
    if len(shape) != 5:
        raise errors.InvalidArgumentError(
            None, None, f"conv3d_transpose: output_shape must have 5 elements (NDHWC), got {shape}"
        )
    x0 = _core.zeros(shape, dtype=dy.dtype)
    with GradientTape() as tape:
        tape.watch(x0)
        y = conv3d(x0, f, strides, padding, dilations=dilations)
    if list(y.shape) != list(dy.shape):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"conv3d_transpose: input has shape {list(dy.shape)}, but conv3d of output_shape {shape} "
            f"with filter shape {list(f.shape)} gives {list(y.shape)} [Op:Conv3DBackpropInputV2]",
        )
    grad = tape.gradient(y, x0, output_gradients=dy)
    assert grad is not None  # conv3d always connects its input
    return grad
