"""Keras 3 random: being filled (empty for now)."""

__all__: list[str] = []
