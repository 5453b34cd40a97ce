"""Complex-number helpers: ``tf.complex``, ``tf.math.real``, ``imag``, ``conj`` and ``angle``.

Thin wrappers over the core's ops (recorded on gradient tapes, with TensorFlow's gradients:
``Real`` -> ``complex(g, 0)``, ``Imag`` -> ``complex(0, g)``, ``Conj`` -> ``conj(g)``, ``Angle``,
``Complex`` -> ``(real(g), imag(g))``) that check dtypes in Python first, where TensorFlow raises
``TypeError`` before any kernel runs. Dtype rules and errors follow TensorFlow 2.21.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._core import Tensor, convert_to_tensor
from ._core import math as _cmath
from .dtypes import float32, float64


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TensorFlow's name
    """``real + 1j * imag`` with broadcasting: float32 parts give complex64, float64 parts complex128.

    Parameters
    ----------
    real, imag : tensor-like
        The parts, both float32 or both float64.
    name : str, optional
        Ignored (TensorFlow's op name).

    Returns
    -------
    Tensor
        complex64 or complex128.

    Raises
    ------
    TypeError
        When the parts' dtypes differ or are not float32/float64 (TF's message).
    """
    re, im = _tensor(real), _tensor(imag)
    if re.dtype != im.dtype or re.dtype not in (float32, float64):
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: {re.dtype.name} {im.dtype.name}. "
            "They must be consistent, and one of [tf.float32, tf.float64]"
        )
    return _cmath._complex(re, im)


def _numeric(x: Tensor) -> None:
    if x.dtype.is_bool:
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.".replace("tapers.", "tf."))


def real(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The real part of a complex tensor.

    Parameters
    ----------
    input : tensor-like
        Any numeric tensor.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        float32 for complex64, float64 for complex128; a real tensor is returned as it is.
    """
    x = _tensor(input)
    _numeric(x)
    return _cmath._real(x)


def imag(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The imaginary part of a complex tensor.

    Parameters
    ----------
    input : tensor-like
        Any numeric tensor.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        float32 for complex64, float64 for complex128; zeros of the same dtype for a real tensor.
    """
    x = _tensor(input)
    _numeric(x)
    return _cmath._imag(x)


def conj(x: Any, name: str | None = None) -> Tensor:
    """The complex conjugate.

    Parameters
    ----------
    x : tensor-like
        Any numeric tensor.
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        Same dtype; a real tensor is returned as it is.
    """
    t = _tensor(x)
    _numeric(t)
    return _cmath._conj(t)


def angle(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The argument (phase) of each element: ``atan2(imag, real)``.

    Parameters
    ----------
    input : tensor-like
        A complex or real floating tensor (integers: TF's ``TypeError``).
    name : str, optional
        Ignored.

    Returns
    -------
    Tensor
        The real dtype; for a real tensor, pi where it is negative and 0 elsewhere (TF's rule).
    """
    x = _tensor(input)
    _numeric(x)
    if not x.dtype.is_complex and not x.dtype.is_floating:
        raise TypeError(f"Cannot convert {np.pi!r} to EagerTensor of dtype {x.dtype.name}")
    return _cmath._angle(x)
