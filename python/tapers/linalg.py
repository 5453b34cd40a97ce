"""``tapers.linalg``: linear algebra, as ``tf.linalg``."""

from ._core.linalg import *  # noqa: F403
from ._core.linalg import __all__ as __all__
