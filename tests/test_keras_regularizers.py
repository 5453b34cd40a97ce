"""keras.regularizers and keras.constraints against Keras 3 (fixtures from
``tests/data/make_keras_regularizers_reference.py``): penalties, projections, the
losses layers list, a fit whose weights carry both, errors and names."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from conftest import check_gradients
from tapers import keras
from tapers.keras import constraints, regularizers

REF = json.loads((Path(__file__).parent / "data" / "keras_regularizers_reference.json").read_text())

REGS = {
    "L1(0.3)": lambda: regularizers.L1(0.3),
    "L2(0.2)": lambda: regularizers.L2(0.2),
    "L1L2(0.1,0.05)": lambda: regularizers.L1L2(0.1, 0.05),
    "L1L2()": lambda: regularizers.L1L2(),
    "l1_l2()": lambda: regularizers.l1_l2(),
    "get('l2')": lambda: regularizers.get("l2"),
    "get('L1')": lambda: regularizers.get("L1"),
    "Orthogonal(0.1,rows)": lambda: regularizers.OrthogonalRegularizer(0.1, "rows"),
    "Orthogonal(0.2,columns)": lambda: regularizers.OrthogonalRegularizer(0.2, "columns"),
}

CONS = {
    "MaxNorm(2.0)": lambda: constraints.MaxNorm(2.0),
    "MaxNorm(1.5,axis=1)": lambda: constraints.MaxNorm(1.5, axis=1),
    "MaxNorm(2,axis=[0,1])": lambda: constraints.MaxNorm(2, axis=[0, 1]),
    "MinMaxNorm(0.5,1.5,0.7)": lambda: constraints.MinMaxNorm(0.5, 1.5, 0.7),
    "MinMaxNorm(axis=1)": lambda: constraints.MinMaxNorm(axis=1),
    "NonNeg": lambda: constraints.NonNeg(),
    "UnitNorm": lambda: constraints.UnitNorm(),
    "UnitNorm(axis=1)": lambda: constraints.UnitNorm(axis=1),
    "get('max_norm')": lambda: constraints.get("max_norm"),
}


def test_the_fixture_covers_every_case():
    assert set(REF["regularizers"]["values"]) == set(REGS)
    assert set(REF["constraints"]["values"]) == set(CONS)


@pytest.mark.parametrize("name", sorted(REGS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_regularizer_penalties_are_keras(name, dtype):
    want = REF["regularizers"]["values"][name][dtype]
    x = tf.constant(np.array(REF["regularizers"]["inputs"][dtype], dtype=dtype))
    got = REGS[name]()(x)
    got = tf.convert_to_tensor(got)
    assert got.dtype.name == dtype
    if want is None:
        # Keras fails here (a float32 factor times a float64 input); tapers computes
        # in the input's dtype: compare with the float64 formula.
        want = _orthogonal_by_hand(x.numpy(), *(0.1, "rows") if "rows" in name else (0.2, "columns"))
    rtol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=1e-7)
    assert REGS[name]().get_config() == REF["regularizers"]["configs"][name]


def _orthogonal_by_hand(x: np.ndarray, factor: float, mode: str) -> float:
    v = x if mode == "rows" else x.T
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    p = v @ v.T
    n = p.shape[0]
    return factor * 0.5 * np.abs(p - np.diag(np.diag(p))).sum() / (n * (n - 1) / 2)


@pytest.mark.parametrize(
    "name", ["L1(0.3)", "L2(0.2)", "L1L2(0.1,0.05)", "Orthogonal(0.1,rows)", "Orthogonal(0.2,columns)"]
)
def test_regularizer_gradients_match_finite_differences(name):
    check_gradients(lambda t: REGS[name]()(t), np.array(REF["regularizers"]["inputs"]["float64"]))


@pytest.mark.parametrize("name", sorted(CONS))
def test_constraint_projections_are_keras(name):
    w = tf.constant(np.array(REF["constraints"]["input"], dtype=np.float32))
    got = CONS[name]()(w)
    np.testing.assert_allclose(got.numpy(), REF["constraints"]["values"][name], rtol=2e-6, atol=1e-7)
    assert CONS[name]().get_config() == REF["constraints"]["configs"].get(name, {})


def test_layer_losses_are_keras():
    ref = REF["layer_losses"]
    x = np.array(ref["x"], np.float32)
    R = regularizers
    dense = keras.layers.Dense(
        3, kernel_regularizer=R.L2(0.1), bias_regularizer=R.L1(0.2), activity_regularizer=R.L1L2(0.01, 0.02)
    )
    dense.build((None, 4))
    dense.set_weights([np.array(ref["dense"]["kernel"], np.float32), np.array(ref["dense"]["bias"], np.float32)])
    dense(x)
    emb = keras.layers.Embedding(6, 2, embeddings_regularizer="l2")
    emb.build()  # Keras 3.15 builds an Embedding on its first call
    emb.set_weights([np.array(ref["embedding"]["embeddings"], np.float32)])
    emb(np.array(ref["embedding"]["ids"]))
    conv = keras.layers.Conv2D(2, 2, kernel_regularizer=R.L1(0.05), activity_regularizer="l2")
    conv.build((None, 3, 3, 1))
    conv.set_weights([np.array(ref["conv"]["kernel"], np.float32), np.zeros(2, np.float32)])
    conv(np.array(ref["conv"]["x"], np.float32))
    ln = keras.layers.LayerNormalization(gamma_regularizer=R.L2(0.3), beta_regularizer=R.L1(0.4))
    ln.build((None, 4))
    ln.set_weights([np.array(ref["layer_norm"]["gamma"], np.float32), np.array(ref["layer_norm"]["beta"], np.float32)])
    ln(x)
    for layer, key in [(dense, "dense"), (emb, "embedding"), (conv, "conv"), (ln, "layer_norm")]:
        got = [float(v) for v in layer.losses]
        np.testing.assert_allclose(got, ref[key]["losses"], rtol=2e-6, err_msg=key)


def test_weight_penalties_follow_the_current_values_and_activity_losses_the_last_call():
    d = keras.layers.Dense(2, kernel_initializer="ones", kernel_regularizer=regularizers.L1(0.5),
                           activity_regularizer=regularizers.L1(1.0))  # fmt: skip
    d(np.ones((4, 3), np.float32))
    # Activity: sum|y| / batch = (4 * 2 * 3) / 4; weights: 0.5 * 6.
    assert [float(v) for v in d.losses] == [6.0, 3.0]
    d.kernel.assign(tf.zeros((3, 2)))
    assert [float(v) for v in d.losses] == [6.0, 0.0]
    d(np.ones((0, 3), np.float32))  # an empty batch: the activity loss is 0, not NaN
    assert [float(v) for v in d.losses] == [0.0, 0.0]


def test_a_model_lists_its_layers_regularization_losses():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_regularizer="l2"), keras.layers.Dense(1)])
    penalties = [float(v) for v in model.losses]
    assert len(penalties) == 1
    np.testing.assert_allclose(penalties[0], 0.01 * np.sum(model.layers[0].kernel.numpy() ** 2), rtol=1e-6)


def _fit_model():
    R, C = regularizers, constraints
    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(
                3,
                activation="tanh",
                kernel_regularizer=R.L2(0.05),
                kernel_constraint=C.MaxNorm(0.8),
                bias_constraint=C.NonNeg(),
                activity_regularizer=R.L1(0.01),
            ),
            keras.layers.Dense(1, kernel_regularizer="l1", kernel_constraint="unit_norm"),
        ]
    )
    model.set_weights([np.array(w, np.float32) for w in REF["fit"]["initial"]])
    return model


def _check_final_weights(model):
    for got, want in zip(model.get_weights(), REF["fit"]["final"]):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    # The constraints held after the last step.
    k = model.layers[0].kernel.numpy()
    assert np.all(np.linalg.norm(k, axis=0) <= 0.8 + 1e-6)
    assert np.all(model.layers[0].bias.numpy() >= 0)


def test_fit_with_regularizers_and_constraints_follows_keras():
    ref = REF["fit"]
    model = _fit_model()
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    hist = model.fit(np.array(ref["x"], np.float32), np.array(ref["y"], np.float32), epochs=3, batch_size=4,
                     shuffle=False, verbose=0)  # fmt: skip
    np.testing.assert_allclose(hist.history["loss"], ref["loss"], rtol=2e-5)
    _check_final_weights(model)


def test_a_compiled_custom_step_with_model_losses_follows_keras_fit():
    ref = REF["fit"]
    model = _fit_model()
    opt = keras.optimizers.SGD(0.1)
    mse = keras.losses.MeanSquaredError()

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = mse(y, model(x, training=True)) + tf.add_n(model.losses)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    x, y = np.array(ref["x"], np.float32), np.array(ref["y"], np.float32)
    for _ in range(3):
        for lo in (0, 4):
            step(tf.constant(x[lo : lo + 4]), tf.constant(y[lo : lo + 4]))
    assert step.experimental_get_tracing_count() == 1
    _check_final_weights(model)


def test_an_optimizer_applies_a_variables_constraint_after_its_update():
    v = tf.Variable([1.0, -2.0, 3.0], constraint=constraints.NonNeg())
    assert isinstance(v.constraint, constraints.NonNeg)
    tf.keras.optimizers.SGD(1.0).apply_gradients([(tf.constant([2.0, 0.0, -1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0, 4.0])
    assert tf.Variable(1.0).constraint is None
    with pytest.raises(TypeError, match="constraint"):
        tf.Variable(1.0, constraint=3)


def test_a_constraint_applies_inside_a_compiled_step():
    v = tf.Variable([0.5, 0.5], constraint=lambda w: tf.clip_by_value(w, 0.0, 1.0))
    opt = tf.keras.optimizers.SGD(1.0)

    @tf.function
    def step(g):
        opt.apply_gradients([(g, v)])

    step(tf.constant([-2.0, 2.0]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 0.0])
    step(tf.constant([0.25, -0.25]))
    np.testing.assert_array_equal(v.numpy(), [0.75, 0.25])
    assert step.experimental_get_tracing_count() == 1


def test_a_variable_does_not_keep_its_constraint_alive_past_itself():
    class Box:
        def __call__(self, w):
            return w

    c = Box()
    ref = weakref.ref(c)
    v = tf.Variable(1.0, constraint=c)
    del c
    assert ref() is not None
    del v
    gc.collect()
    assert ref() is None


def test_a_cycle_through_a_constraint_is_collected():
    class Tied:
        def __call__(self, w):
            return self.v * 0 + w

    tied = Tied()
    tied.v = tf.Variable(1.0, constraint=tied)  # variable -> constraint -> variable
    ref = weakref.ref(tied.v)
    del tied
    gc.collect()
    assert ref() is None


def test_get_config_round_trips_the_regularizers():
    d = keras.layers.Dense(2, kernel_regularizer=regularizers.L1L2(0.1, 0.2), bias_constraint="non_neg",
                           activity_regularizer="l2")  # fmt: skip
    cfg = d.get_config()
    assert cfg["kernel_regularizer"] == {"class_name": "L1L2", "config": {"l1": 0.1, "l2": 0.2}}
    assert cfg["bias_constraint"] == {"class_name": "NonNeg", "config": {}}
    assert cfg["activity_regularizer"] == {"class_name": "L2", "config": {"l2": 0.01}}
    again = keras.layers.Dense.from_config(cfg)
    assert isinstance(again.kernel_regularizer, regularizers.L1L2)
    assert again.kernel_regularizer.get_config() == {"l1": 0.1, "l2": 0.2}
    assert isinstance(again.bias_constraint, constraints.NonNeg)
    assert isinstance(regularizers.deserialize(regularizers.serialize(regularizers.L2(0.3))), regularizers.L2)
    max_norm = constraints.deserialize({"class_name": "MaxNorm", "config": {"max_value": 3}})
    assert isinstance(max_norm, constraints.MaxNorm) and max_norm.max_value == 3


ERRORS = {
    "L1(-1)": lambda: regularizers.L1(-1.0),
    "L2(nan)": lambda: regularizers.L2(float("nan")),
    "L1L2(l2='a')": lambda: regularizers.L1L2(l2="a"),
    "Orthogonal(mode='diag')": lambda: regularizers.OrthogonalRegularizer(mode="diag"),
    "Orthogonal(rank 3)": lambda: regularizers.OrthogonalRegularizer()(tf.ones((2, 2, 2))),
    "regularizers.get('nope')": lambda: regularizers.get("nope"),
    "constraints.get(3)": lambda: constraints.get(3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_are_keras(case):
    kind, message = REF["errors"][case]
    with pytest.raises(getattr(__builtins__, kind, None) or ValueError) as e:
        ERRORS[case]()
    assert type(e.value).__name__ == kind
    assert str(e.value) == message


@pytest.mark.parametrize("module", ["regularizers", "constraints"])
def test_every_keras_name_is_there(module):
    mod = getattr(keras, module)
    missing = [n for n in REF["names"][module] if not hasattr(mod, n)]
    assert not missing
    assert sorted(mod.__all__) == REF["names"][module]


def test_keras_regularizer_is_exported():
    assert keras.Regularizer is regularizers.Regularizer
    assert regularizers.Regularizer()(tf.ones(3)) == 0.0
