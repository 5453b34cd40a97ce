"""Pooling layers of Keras 3 beyond 2-D: global pooling, 1-D pooling."""

from __future__ import annotations

__all__: list[str] = []
