"""Keras 3 _image_preprocessing: being filled (empty for now)."""

__all__: list[str] = []
