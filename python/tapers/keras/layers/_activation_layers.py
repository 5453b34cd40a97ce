"""Keras 3's activation, noise and regularization layers."""

from __future__ import annotations

__all__: list[str] = []
