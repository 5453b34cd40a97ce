"""Keras 3 _layers_more: being filled (empty for now)."""

__all__: list[str] = []
