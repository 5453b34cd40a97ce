"""Keras 3 _conv_rnn: being filled (empty for now)."""

__all__: list[str] = []
