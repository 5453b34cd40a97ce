"""Keras 3 utils: being filled (empty for now)."""

__all__: list[str] = []
