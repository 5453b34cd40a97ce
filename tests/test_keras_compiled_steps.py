"""``fit``/``evaluate``/``predict`` run their steps compiled, as Keras 3 does: each step is a
``tapers.function`` traced once per batch shape and replayed in Rust after that, unless
``compile(run_eagerly=True)``. Compared with Keras 3 (``tests/data/
make_keras_compiled_steps_reference.py``: how often each step's Python runs, the attributes
``compile`` sets, a learning rate changed by a callback) and, bit for bit, with the same
program run eagerly."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf
from tapers import keras

REF = json.loads((Path(__file__).parent / "data" / "keras_compiled_steps_reference.json").read_text())
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from keras_compiled_steps_programs import counted_run, lr_run, steps_per_execution_run  # noqa: E402

L = keras.layers


@pytest.mark.parametrize("eager", [False, True])
def test_steps_run_their_python_as_keras_does(eager: bool) -> None:
    got = counted_run(keras, run_eagerly=eager)
    want = REF["counted"][f"run_eagerly={eager}"]
    for key in (
        "run_eagerly",
        "jit_compile",
        "run_eagerly_set",
        "train_function_before_compile",
        "train_function_after_compile",
        "train_function_after_fit",
        "train_function_after_recompile",
    ):
        assert got[key] == want[key], key
    if eager:
        # Every batch runs the Python step.
        assert got["calls"] == want["calls"]
    else:
        # Once per batch shape. TensorFlow traces train_step a second time after a first
        # call that created variables (the optimizer's and the metrics'); tapers keeps the
        # first trace's graph, so its Python runs once.
        assert got["calls"] == {**want["calls"], "train": want["calls"]["train"] - 1}
    for k, v in want["history"].items():
        np.testing.assert_allclose(got["history"][k], v, rtol=1e-5, err_msg=k)
    np.testing.assert_allclose(got["evaluate"], want["evaluate"], rtol=1e-5)
    np.testing.assert_allclose(got["predict"], want["predict"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("eager", [False, True])
def test_a_rate_set_by_a_callback_reaches_the_compiled_step(eager: bool) -> None:
    got = lr_run(keras, run_eagerly=eager)
    want = REF["lr"][f"run_eagerly={eager}"]
    np.testing.assert_allclose(got["learning_rate"], want["learning_rate"], rtol=1e-7)
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-5)
    np.testing.assert_allclose(got["kernel"], want["kernel"], rtol=1e-5)


def _classifier_run(eager: bool, callbacks: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    keras.utils.set_random_seed(1)
    m = keras.Sequential(
        [keras.Input(shape=(8,)), L.Dense(16, activation="relu"), L.Dropout(0.25, seed=5), L.Dense(3)]
    )
    m.compile(
        optimizer=keras.optimizers.Adam(0.01),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        run_eagerly=eager,
    )
    rng = np.random.RandomState(0)
    x = rng.normal(size=(100, 8)).astype("float32")
    y = ((x[:, 0] > 0).astype("int32") + (x[:, 1] > 0)).astype("int32")
    np.random.seed(0)  # fit's shuffling
    hist = m.fit(x, y, batch_size=16, epochs=3, verbose=0, validation_data=(x[:20], y[:20]), callbacks=list(callbacks))
    return hist.history, m.evaluate(x, y, verbose=0), m.predict(x[:5], verbose=0), [w.numpy() for w in m.weights], m


def test_compiled_fit_gives_the_bits_of_eager_fit() -> None:
    # Adam, a seeded Dropout (its stream advances at each replay), an accuracy metric,
    # validation, shuffled batches and a smaller last batch.
    eager = _classifier_run(True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no retracing warning, no fallback to eager
        compiled = _classifier_run(False)
    assert compiled[0] == eager[0]
    assert compiled[1] == eager[1]
    assert np.array_equal(compiled[2], eager[2])
    assert all(np.array_equal(a, b) for a, b in zip(compiled[3], eager[3]))
    m = compiled[4]
    # The steps replayed: three epochs of 7 batches traced train_step once per batch shape
    # (16, then the last batch's 4 under the relaxed signature), no more.
    assert m.train_function.experimental_get_tracing_count() == 2
    assert m.test_function.experimental_get_tracing_count() == 2  # validation's 20, evaluate's 100 = 6x16+4
    assert not hasattr(eager[4].train_function, "experimental_get_tracing_count")


def test_a_rate_reduced_on_plateau_reaches_the_compiled_step() -> None:
    cb = (keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10.0),)
    eager = _classifier_run(True, cb)
    compiled = _classifier_run(False, cb)
    assert eager[0]["learning_rate"][-1] < eager[0]["learning_rate"][0]
    assert compiled[0] == eager[0]


def test_an_optimizer_rate_set_between_calls_reaches_a_compiled_step() -> None:
    # As Keras' rate variable: a traced step reads the current rate.
    w = tf.Variable([1.0, 2.0])
    opt = keras.optimizers.SGD(0.5)

    @tf.function
    def step() -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    step()
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    w.assign([1.0, 2.0])
    opt.learning_rate = 0.25
    step()
    np.testing.assert_array_equal(w.numpy(), [0.5, 1.0])
    assert step.experimental_get_tracing_count() == 1
    assert opt.learning_rate == 0.25 and isinstance(opt.learning_rate, float)


def test_run_eagerly_and_run_functions_eagerly_run_the_python_step_each_batch() -> None:
    calls: list[int] = []

    class Counted(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = L.Dense(1)

        def call(self, x: Any) -> Any:
            return self.dense(x)

        def train_step(self, data: Any) -> Any:
            calls.append(1)
            return super().train_step(data)

    x = np.ones((8, 3), "float32")
    m = Counted()
    m.compile(optimizer="sgd", loss="mse")
    m.fit(x, x[:, :1], batch_size=4, epochs=2, verbose=0)
    assert len(calls) == 1
    m.run_eagerly = True
    assert m.train_function is None  # switching modes drops the compiled step
    m.fit(x, x[:, :1], batch_size=4, epochs=2, verbose=0)
    assert len(calls) == 5
    m.run_eagerly = False
    tf.config.run_functions_eagerly(True)
    try:
        m.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0)
    finally:
        tf.config.run_functions_eagerly(False)
    assert len(calls) == 7


def test_jit_compile_is_kept() -> None:
    m = keras.Sequential([keras.Input(shape=(2,)), L.Dense(1)])
    m.compile(optimizer="sgd", loss="mse", jit_compile=True)
    assert m.jit_compile is True
    m.compile(optimizer="sgd", loss="mse", jit_compile=True, run_eagerly=True)
    assert m.jit_compile is False


def test_a_failing_compiled_step_raises_and_leaves_the_weights() -> None:
    m = keras.Sequential([keras.Input(shape=(3,)), L.Dense(2)])
    m.compile(optimizer="sgd", loss="mse")
    x = np.ones((4, 3), "float32")
    m.fit(x, np.ones((4, 2), "float32"), batch_size=4, verbose=0)
    before = [w.numpy() for w in m.weights]
    with pytest.raises(Exception, match=r"\(4, 2\)|\[4,2\]|4, 2|shape"):
        m.fit(x, np.ones((4, 5), "float32"), batch_size=4, verbose=0)
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, m.weights))


def test_a_batch_of_the_last_shapes_replays_without_a_signature_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # (x, y) batches are the compiled step's tensor arguments: a call with the previous call's
    # shapes takes tapers.function's fast path; only the first batch of each shape in a row
    # computes a signature in Python (_call_slow).
    from tapers._function import Function

    slow: list[int] = []
    original = Function._call_slow

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        slow.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Function, "_call_slow", counted)
    m = keras.Sequential([keras.Input(shape=(3,)), L.Dense(2)])
    m.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((100, 3), "float32"), np.zeros((100, 2), "float32")
    m.fit(x, y, batch_size=16, epochs=3, verbose=0)  # 6 batches of 16, then one of 4, per epoch
    # Per epoch: the first batch of 16 (after the previous epoch's 4) and the batch of 4.
    assert len(slow) == 6
    assert m.train_function.experimental_get_tracing_count() == 2


@pytest.mark.parametrize("n", sorted(REF["steps_per_execution"], key=int))
def test_steps_per_execution_groups_the_callbacks_as_keras(n: str) -> None:
    # Executions of n batches: the callbacks see each execution's first and (nominal) last
    # batch index, with the last step's logs; the results are those of one step at a time.
    got = steps_per_execution_run(keras, int(n))
    want = REF["steps_per_execution"][n]
    assert got["steps_per_execution"] == want["steps_per_execution"]
    assert got["seen"] == want["seen"]
    for k, v in want["history"].items():
        np.testing.assert_allclose(got["history"][k], v, rtol=1e-5, err_msg=k)
    np.testing.assert_allclose(got["evaluate"], want["evaluate"], rtol=1e-5)
    np.testing.assert_allclose(got["predict"], want["predict"], rtol=1e-5, atol=1e-6)
    one = steps_per_execution_run(keras, 1)
    assert got["history"] == one["history"] and got["evaluate"] == one["evaluate"]


def test_steps_per_execution_must_be_a_positive_integer() -> None:
    m = keras.Sequential([keras.Input(shape=(2,)), L.Dense(1)])
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="steps_per_execution must be a positive integer"):
            m.compile(optimizer="sgd", loss="mse", steps_per_execution=bad)
