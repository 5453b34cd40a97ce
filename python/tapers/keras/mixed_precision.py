"""Keras 3 mixed_precision: being filled (empty for now)."""

__all__: list[str] = []
