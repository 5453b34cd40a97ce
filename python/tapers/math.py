"""``tapers.math``: elementwise math and reductions, as ``tf.math``."""

from ._complex import angle, conj, imag, real
from ._core.math import *  # noqa: F403
from ._core.math import __all__ as __all__
from ._core.math import divide, floormod

mod = floormod
truediv = divide

__all__ = [*__all__, "angle", "conj", "imag", "mod", "real", "truediv"]

# tf.math.special (python/tapers/_special.py); ``import tapers.math.special`` works as TF's does.
import sys as _sys  # noqa: E402

from . import _special as special  # noqa: E402

_sys.modules[__name__ + ".special"] = special

# Issue 20: the rest of tf.math's non-elementwise surface (python/tapers/_math_extra.py).
from ._core.nn import l2_normalize, log_softmax, softmax  # noqa: E402
from ._math_extra import (  # noqa: E402
    accumulate_n,
    confusion_matrix,
    count_nonzero,
    in_top_k,
    invert_permutation,
    is_non_decreasing,
    is_strictly_increasing,
    polyval,
    reduce_euclidean_norm,
    scalar_mul,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
    zero_fraction,
)
from ._nn_extra import approx_max_k, approx_min_k  # noqa: E402

__all__ += [
    "accumulate_n", "confusion_matrix", "count_nonzero", "in_top_k", "invert_permutation", "is_non_decreasing",
    "is_strictly_increasing", "l2_normalize", "log_softmax", "polyval", "reduce_euclidean_norm", "scalar_mul",
    "segment_max", "segment_mean", "segment_min", "segment_prod", "softmax", "unsorted_segment_min",
    "unsorted_segment_prod", "unsorted_segment_sqrt_n", "zero_fraction", "approx_max_k", "approx_min_k",
]  # fmt: skip
