"""Keras 3's reshaping layers: padding, cropping, up-sampling, permuting, repeating."""

from __future__ import annotations

__all__: list[str] = []
