"""``tapers.math``: elementwise math and reductions, as ``tf.math``."""

from ._complex import angle, conj, imag, real
from ._core.math import *  # noqa: F403
from ._core.math import __all__ as __all__
from ._core.math import divide, floormod

mod = floormod
truediv = divide

__all__ = [*__all__, "angle", "conj", "imag", "mod", "real", "truediv"]
