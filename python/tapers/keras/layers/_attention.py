"""Keras 3's attention layers: MultiHeadAttention, Attention, AdditiveAttention, Dot, EinsumDense."""

from __future__ import annotations

__all__: list[str] = []
