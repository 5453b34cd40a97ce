"""Keras 3's recurrent layers: cells, RNN, SimpleRNN, LSTM, GRU, Bidirectional."""

from __future__ import annotations

__all__: list[str] = []
