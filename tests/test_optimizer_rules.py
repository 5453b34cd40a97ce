"""Adagrad, Adamax, Nadam, Adadelta, Lion and Ftrl against Keras 3's trajectories
(fixtures from ``tests/data/make_keras_optimizer_rules_reference.py``), eager and
under ``tapers.function``, plus their errors, defaults and names."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from tapers import keras

REF = json.loads((Path(__file__).parent / "data" / "keras_optimizer_rules_reference.json").read_text())
optimizers = tf.optimizers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from keras_optimizer_rules_programs import cases  # noqa: E402

CASES = cases(optimizers)
TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-6, atol=1e-9)}


def test_the_fixture_covers_every_case():
    assert set(REF["trajectories"]) == set(CASES)


def _run(make, dtype, compiled):
    opt = make()
    v = tf.Variable(np.array(REF["x0"], dtype=dtype))

    def step(g):
        opt.apply_gradients([(g, v)])

    if compiled:
        step = tf.function(step)
    out = []
    for g in REF["grads"]:
        step(tf.constant(np.array(g, dtype=dtype)))
        out.append(v.numpy().copy())
    return out, step


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectories_are_keras(name, dtype):
    got, _ = _run(CASES[name], dtype, compiled=False)
    for k, (g, want) in enumerate(zip(got, REF["trajectories"][name][dtype])):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, want, err_msg=f"step {k + 1}", **TOL[dtype])


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_compiled_step_gives_the_eager_bits(name):
    eager, _ = _run(CASES[name], "float32", compiled=False)
    compiled, step = _run(CASES[name], "float32", compiled=True)
    for a, b in zip(eager, compiled):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
    # One trace: the step number and the schedule's rate are read at each replay.
    assert step.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", ["Adagrad", "Adamax", "Nadam", "Adadelta", "Lion", "Ftrl"])
def test_defaults_and_get_are_keras(name):
    opt = getattr(keras.optimizers, name)()
    for k, want in REF["defaults"][name].items():
        if k in ("name", "learning_rate") or k.startswith(("use_ema", "ema_", "loss_scale", "gradient_acc")):
            continue
        assert getattr(opt, k) == want, k
    assert opt.learning_rate == pytest.approx(REF["defaults"][name]["learning_rate"])
    assert type(keras.optimizers.get(name.lower())).__name__ == REF["get"][name.lower()]


ERRORS = {
    "Lion(beta_1=0)": lambda: optimizers.Lion(beta_1=0.0),
    "Ftrl(initial_accumulator_value=-1)": lambda: optimizers.Ftrl(initial_accumulator_value=-1.0),
    "Ftrl(learning_rate_power=0.5)": lambda: optimizers.Ftrl(learning_rate_power=0.5),
    "Ftrl(l1_regularization_strength=-1)": lambda: optimizers.Ftrl(l1_regularization_strength=-1.0),
    "Ftrl(l2_regularization_strength=-1)": lambda: optimizers.Ftrl(l2_regularization_strength=-1.0),
    "Ftrl(l2_shrinkage_regularization_strength=-1)": lambda: optimizers.Ftrl(l2_shrinkage_regularization_strength=-1.0),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_are_keras(case):
    kind, message = REF["errors"][case]
    with pytest.raises(ValueError) as e:
        ERRORS[case]()
    assert type(e.value).__name__ == kind and str(e.value) == message


def test_slots_are_the_optimizers_variables_and_start_where_keras_starts_them():
    v = tf.Variable([1.0, 2.0])
    opt = optimizers.Ftrl(initial_accumulator_value=0.3)
    opt.apply_gradients([(tf.constant([0.1, 0.2]), v)])
    names = [s.name for s in opt.variables()]
    assert names[0].startswith("iteration") and len(names) == 3
    nadam = optimizers.Nadam()
    nadam.apply_gradients([(tf.constant([0.1, 0.2]), v)])
    assert len(nadam.variables()) == 4  # iterations, the schedule's product, two slots


def test_an_indexed_slices_gradient_is_applied_dense():
    table = tf.Variable(np.ones((4, 2), np.float32))
    dense = tf.Variable(np.ones((4, 2), np.float32))
    opt_a, opt_b = optimizers.Adagrad(0.5), optimizers.Adagrad(0.5)
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(tf.gather(table, [1, 1, 3]) * 2.0)
        z = tf.reduce_sum(tf.gather(tf.convert_to_tensor(dense), [1, 1, 3]) * 2.0)
    opt_a.apply_gradients([(tape.gradient(y, table), table)])
    opt_b.apply_gradients([(tf.convert_to_tensor(tape.gradient(z, dense)), dense)])
    np.testing.assert_array_equal(table.numpy(), dense.numpy())


def test_a_model_trains_with_each_by_name():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    for name in ["adagrad", "adamax", "nadam", "adadelta", "lion", "ftrl"]:
        # From zeros (FTRL's proximal step ignores a random start) with a rate that moves.
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, kernel_initializer="zeros")])
        opt = keras.optimizers.get(name)
        opt.learning_rate = 1.0 if name == "adadelta" else 0.05
        model.compile(optimizer=opt, loss="mse")
        first = model.evaluate(x, y, verbose=0)
        model.fit(x, y, epochs=3, batch_size=8, verbose=0)
        assert model.evaluate(x, y, verbose=0) < first, name
