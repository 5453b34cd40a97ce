"""Keras 3 _image_color: being filled (empty for now)."""

__all__: list[str] = []
