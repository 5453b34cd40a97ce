"""Programs run by Keras 3 (make_keras_compiled_steps_reference.py) and by tapers.keras
(tests/test_keras_compiled_steps.py): each takes the ``keras`` module to run on."""

from __future__ import annotations

from typing import Any

import numpy as np


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(0)
    x = rng.normal(size=(48, 5)).astype("float32")
    y = (x[:, :2] @ np.array([[1.0], [-2.0]], dtype="float32")).astype("float32")
    return x, y


def counted_run(keras: Any, run_eagerly: bool) -> dict[str, Any]:
    """How often the Python code of each step runs: fit for 3 epochs of 4 batches of 12 (with
    validation), evaluate and predict on the same batches; and the attributes compile sets."""
    calls = {"train": 0, "test": 0, "predict": 0}

    class Counted(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = keras.layers.Dense(1, kernel_initializer="ones")

        def call(self, x: Any) -> Any:
            return self.dense(x)

        def train_step(self, data: Any) -> Any:
            calls["train"] += 1
            return super().train_step(data)

        def test_step(self, data: Any) -> Any:
            calls["test"] += 1
            return super().test_step(data)

        def predict_step(self, data: Any) -> Any:
            calls["predict"] += 1
            return super().predict_step(data)

    x, y = _data()
    m = Counted()
    out: dict[str, Any] = {"train_function_before_compile": getattr(m, "train_function", "missing") is None}
    m.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    out["run_eagerly"] = m.run_eagerly
    out["jit_compile"] = m.jit_compile
    out["train_function_after_compile"] = m.train_function is None
    hist = m.fit(x, y, batch_size=12, epochs=3, verbose=0, shuffle=False, validation_data=(x, y))
    out["history"] = {k: [float(v) for v in vs] for k, vs in hist.history.items()}
    out["train_function_after_fit"] = m.train_function is None
    out["evaluate"] = [float(v) for v in m.evaluate(x, y, batch_size=12, verbose=0)]
    out["predict"] = m.predict(x[:24], batch_size=12, verbose=0).tolist()
    out["calls"] = dict(calls)
    m.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", run_eagerly=run_eagerly)
    out["train_function_after_recompile"] = m.train_function is None
    m.run_eagerly = not run_eagerly
    out["run_eagerly_set"] = m.run_eagerly
    return out


def lr_run(keras: Any, run_eagerly: bool) -> dict[str, Any]:
    """A LearningRateScheduler halving the rate each epoch: the compiled step must see each new rate."""
    x, y = _data()
    inputs = keras.Input(shape=(5,))
    m = keras.Model(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    m.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", run_eagerly=run_eagerly)
    cb = keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.05 * 0.5**epoch)
    hist = m.fit(x, y, batch_size=12, epochs=4, verbose=0, shuffle=False, callbacks=[cb])
    return {
        "loss": [float(v) for v in hist.history["loss"]],
        "learning_rate": [float(v) for v in hist.history["learning_rate"]],
        "kernel": m.layers[-1].kernel.numpy().ravel().tolist(),
    }


def steps_per_execution_run(keras: Any, steps_per_execution: int) -> dict[str, Any]:
    """fit (with validation), evaluate and predict on 4 batches of 12 with ``steps_per_execution``:
    which batch indices the callbacks see, the logs they get and the results."""
    x, y = _data()
    seen: list[Any] = []

    class Record(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
            seen.append(["train_begin", batch])

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            seen.append(["train_end", batch, sorted(logs)])

        def on_test_batch_begin(self, batch: int, logs: Any = None) -> None:
            seen.append(["test_begin", batch])

        def on_test_batch_end(self, batch: int, logs: Any = None) -> None:
            seen.append(["test_end", batch, sorted(logs)])

        def on_test_begin(self, logs: Any = None) -> None:
            seen.append(["test_start"])

        def on_test_end(self, logs: Any = None) -> None:
            seen.append(["test_stop", sorted(logs or {})])

        def on_predict_batch_begin(self, batch: int, logs: Any = None) -> None:
            seen.append(["predict_begin", batch])

        def on_predict_batch_end(self, batch: int, logs: Any = None) -> None:
            seen.append(["predict_end", batch])

    inputs = keras.Input(shape=(5,))
    m = keras.Model(inputs, keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    m.compile(
        optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"], steps_per_execution=steps_per_execution
    )
    out: dict[str, Any] = {"steps_per_execution": m.steps_per_execution}
    hist = m.fit(x, y, batch_size=12, epochs=2, verbose=0, shuffle=False, validation_data=(x, y), callbacks=[Record()])
    out["history"] = {k: [float(v) for v in vs] for k, vs in hist.history.items()}
    out["evaluate"] = [float(v) for v in m.evaluate(x, y, batch_size=12, verbose=0, callbacks=[Record()])]
    out["predict"] = m.predict(x, batch_size=12, verbose=0, callbacks=[Record()]).ravel().tolist()
    out["seen"] = seen
    return out
