"""Runnable examples: ``python -m tapers.examples.<name>``."""
