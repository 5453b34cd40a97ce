"""Keras 3 ops: being filled (empty for now)."""

__all__: list[str] = []
