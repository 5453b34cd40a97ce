"""Keras 3's convolution layers beyond Conv2D: 1-D, transposed, depthwise, separable."""

from __future__ import annotations

__all__: list[str] = []
