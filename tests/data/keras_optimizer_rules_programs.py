"""The optimizer configurations shared by make_keras_optimizer_rules_reference.py (Keras 3)
and tests/test_optimizer_rules.py (tapers)."""

from __future__ import annotations

from typing import Any


def cases(optimizers: Any) -> dict:
    """Name -> a function making the optimizer, from the library's ``optimizers`` module."""
    return {
        "Adagrad()": lambda: optimizers.Adagrad(learning_rate=0.1),
        "Adagrad(init=0.5,eps=1e-3)": lambda: optimizers.Adagrad(
            learning_rate=0.2, initial_accumulator_value=0.5, epsilon=1e-3
        ),
        "Adamax()": lambda: optimizers.Adamax(learning_rate=0.05),
        "Adamax(b=0.8,0.9)": lambda: optimizers.Adamax(learning_rate=0.05, beta_1=0.8, beta_2=0.9),
        "Nadam()": lambda: optimizers.Nadam(learning_rate=0.05),
        "Nadam(b=0.8,0.95)": lambda: optimizers.Nadam(learning_rate=0.05, beta_1=0.8, beta_2=0.95),
        "Adadelta()": lambda: optimizers.Adadelta(learning_rate=1.0),
        "Adadelta(rho=0.9)": lambda: optimizers.Adadelta(learning_rate=0.5, rho=0.9, epsilon=1e-4),
        "Lion()": lambda: optimizers.Lion(learning_rate=0.01),
        "Lion(b=0.5,0.9)": lambda: optimizers.Lion(learning_rate=0.02, beta_1=0.5, beta_2=0.9),
        "Ftrl()": lambda: optimizers.Ftrl(learning_rate=0.1),
        "Ftrl(l1,l2,shrink,beta)": lambda: optimizers.Ftrl(
            learning_rate=0.1,
            learning_rate_power=-0.7,
            initial_accumulator_value=0.2,
            l1_regularization_strength=0.01,
            l2_regularization_strength=0.02,
            l2_shrinkage_regularization_strength=0.03,
            beta=0.1,
        ),
        "Adagrad(wd)": lambda: optimizers.Adagrad(learning_rate=0.1, weight_decay=0.05),
        "Lion(wd)": lambda: optimizers.Lion(learning_rate=0.01, weight_decay=0.1),
        "Nadam(schedule)": lambda: optimizers.Nadam(learning_rate=optimizers.schedules.ExponentialDecay(0.05, 2, 0.5)),
        "Adamax(clipnorm)": lambda: optimizers.Adamax(learning_rate=0.05, clipnorm=0.5),
    }
