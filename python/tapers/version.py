"""Build information, as ``tf.version``: ``VERSION`` is tapers' own version.

tapers reads and writes no TensorFlow ``GraphDef``, so the graph-format numbers
(``GRAPH_DEF_VERSION`` and its bounds) are 0, and the build strings TF takes from
its compiler and git checkout are ``"unknown"``.
"""

from __future__ import annotations

__all__ = [
    "COMPILER_VERSION",
    "GIT_VERSION",
    "GRAPH_DEF_VERSION",
    "GRAPH_DEF_VERSION_MIN_CONSUMER",
    "GRAPH_DEF_VERSION_MIN_PRODUCER",
    "VERSION",
]

VERSION: str = "0.1.0"
GIT_VERSION: str = "unknown"
COMPILER_VERSION: str = "unknown"
GRAPH_DEF_VERSION: int = 0
GRAPH_DEF_VERSION_MIN_CONSUMER: int = 0
GRAPH_DEF_VERSION_MIN_PRODUCER: int = 0
