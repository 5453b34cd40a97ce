"""``tapers.math.special``: the special functions of ``tf.math.special`` (the binding's
``_core.special``).

The modified Bessel functions of the first kind are also ``tapers.math``'s (the same objects,
as in TensorFlow); the others are published here only, as TensorFlow publishes them. Each is
an elementwise op of the binding (values and gradients as TensorFlow's kernels and rules).
"""

from ._core.special import *  # noqa: F403
from ._core.special import __all__ as __all__
