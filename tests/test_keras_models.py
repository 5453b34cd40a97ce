"""tapers.keras models (Sequential, functional, subclassed) and their training, against Keras 3
(tests/data/keras_layers_reference.json, written by make_keras_layers_reference.py): summary
texts, weight paths, fit/evaluate/predict numbers from fixed weights, a custom loop, a custom
train_step; plus weights files, checkpoints, iterables of batches and the progress bar."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import REF, fixed, path, set_fixed

import tapers as tf

keras = tf.keras
L = keras.layers

xr = fixed((20, 4), 21)
yr = np.stack([xr.sum(1), xr[:, 0] - xr[:, 1], np.cos(xr[:, 2])], axis=1).astype(np.float32)
xc = fixed((24, 5), 31) * 2
yc = np.argmax(fixed((24, 3), 37), axis=1).astype(np.int32)
x4 = fixed((2, 6, 6, 3), 4)


@pytest.fixture(autouse=True)
def _fresh_names(monkeypatch: pytest.MonkeyPatch) -> None:
    keras.backend.clear_session()
    monkeypatch.setenv("COLUMNS", "80")  # the reference summaries were printed on an 80-column terminal


def _summary(model: Any) -> str:
    lines: list[str] = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def _models() -> dict[str, Any]:
    """The reference script's models, created in the same order (so with the same names)."""
    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(8, activation="relu"), L.Dense(3)])
    seq_unbuilt = keras.Sequential([L.Dense(8), L.Dense(3)], name="lazy")
    inp = keras.Input(shape=(6, 6, 3))
    h = L.Conv2D(4, 3, activation="relu")(inp)
    h = L.MaxPooling2D()(h)
    h = L.Flatten()(h)
    h = L.Dropout(0.2)(h)
    out = L.Dense(2, name="head")(h)
    func = keras.Model(inp, out, name="convnet")
    bn_seq = keras.Sequential(
        [keras.Input(shape=(5,)), L.Dense(4), L.BatchNormalization(), L.ReLU(), L.Dense(1)], name="with_bn"
    )
    return {"sequential": seq, "sequential_unbuilt": seq_unbuilt, "functional": func, "with_bn": bn_seq}


def test_summaries_match_keras_text() -> None:
    models = _models()
    for name, model in models.items():
        assert _summary(model) == REF["summary"][name], name


def test_summary_counts_a_trained_optimizer_like_keras() -> None:
    model = keras.Sequential([keras.Input(shape=(5,)), L.Dense(3)], name="adam_model")
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    assert "Optimizer params" not in _summary(model)
    model.fit(xc, np.ones((24, 3), np.float32), epochs=1, verbose=0)
    # The totals (the table's layer name depends on how many Dense layers the script made before).
    assert _summary(model).splitlines()[-4:] == REF["summary"]["adam_trained"].splitlines()[-4:]


def test_weight_paths_and_layers_match_keras() -> None:
    models = _models()
    ref = REF["model_weights"]
    assert [path(w) for w in models["sequential"].weights] == ref["sequential"]
    assert [path(w) for w in models["functional"].weights] == ref["functional"]
    assert [layer.name for layer in models["functional"].layers] == ref["functional_layers"]
    assert [path(w) for w in models["with_bn"].trainable_weights] == ref["with_bn_trainable"]
    assert [path(w) for w in models["with_bn"].non_trainable_weights] == ref["with_bn_non_trainable"]
    func = models["functional"]
    set_fixed(func, 3)
    np.testing.assert_allclose(func(x4).numpy(), REF["functional_forward"], rtol=1e-5, atol=1e-6)
    assert isinstance(func, keras.Model) and type(func).__name__ == "Functional"


def _history(h: Any) -> dict[str, list[float]]:
    return {k: [float(v) for v in vals] for k, vals in h.history.items()}


def _assert_history(got: dict[str, list[float]], want: dict[str, list[float]]) -> None:
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=1e-6, err_msg=k)


def test_sequential_fit_evaluate_predict_match_keras() -> None:
    seq = _models()["sequential"]
    set_fixed(seq, 5)
    seq.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    hist = seq.fit(xr, yr, batch_size=6, epochs=3, shuffle=False, verbose=0, validation_data=(xr[:7], yr[:7]))
    ref = REF["fit_regression"]
    _assert_history(_history(hist), ref["history"])
    np.testing.assert_allclose(seq.evaluate(xr, yr, batch_size=8, verbose=0), ref["evaluate"], rtol=2e-5)
    np.testing.assert_allclose(seq.predict(xr[:5], verbose=0), ref["predict"], rtol=2e-5, atol=1e-6)
    for w, rw in zip(seq.weights, ref["weights"]):
        np.testing.assert_allclose(w.numpy(), rw, rtol=2e-5, atol=1e-6)
    assert seq.history is hist and hist.epoch == [0, 1, 2]


def test_fit_on_an_iterable_of_batches_equals_fit_on_arrays() -> None:
    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(8, activation="relu"), L.Dense(3)])
    set_fixed(seq, 5)
    seq.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])

    class Batches:
        """Duck-typed dataset: iterable again each epoch, with a cardinality."""

        def __iter__(self) -> Any:
            for i in range(0, 20, 6):
                yield xr[i : i + 6], yr[i : i + 6]

        def cardinality(self) -> int:
            return 4

    hist = seq.fit(Batches(), epochs=3, verbose=0, validation_data=Batches())
    ref = REF["fit_regression"]["history"]
    np.testing.assert_allclose(hist.history["loss"], ref["loss"], rtol=2e-5)
    assert len(hist.history["val_loss"]) == 3
    with pytest.raises(ValueError, match="`y` should not be passed"):
        seq.fit(Batches(), yr, verbose=0)


def test_custom_loop_matches_keras() -> None:
    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(8, activation="relu"), L.Dense(3)])
    set_fixed(seq, 5)
    opt = keras.optimizers.SGD(0.1)
    loss_fn = keras.losses.MeanSquaredError()
    losses = []
    for _epoch in range(3):
        for i in range(0, 20, 6):
            with tf.GradientTape() as tape:
                loss = loss_fn(yr[i : i + 6], seq(xr[i : i + 6], training=True))
            grads = tape.gradient(loss, seq.trainable_variables)
            opt.apply_gradients(zip(grads, seq.trainable_variables))
            losses.append(float(loss))
    ref = REF["custom_loop"]
    np.testing.assert_allclose(losses, ref["losses"], rtol=2e-5)
    for w, rw in zip(seq.weights, ref["weights"]):
        np.testing.assert_allclose(w.numpy(), rw, rtol=2e-5, atol=1e-6)


class BNModel(keras.Model):
    def __init__(self) -> None:
        super().__init__(name="bn_model")
        self.d1 = L.Dense(6)
        self.bn = L.BatchNormalization()
        self.drop = L.Dropout(0.0)
        self.d2 = L.Dense(3)

    def call(self, x: Any, training: bool = False) -> Any:
        h = self.d1(x)
        h = self.bn(h, training=training)
        h = keras.activations.relu(h)
        h = self.drop(h, training=training)
        return self.d2(h)


def test_subclassed_model_with_batchnorm_matches_keras() -> None:
    model = BNModel()
    model(xc[:2])
    set_fixed(model, 7)
    model.compile(
        optimizer=keras.optimizers.SGD(0.05),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    hist = model.fit(xc, yc, batch_size=8, epochs=2, shuffle=False, verbose=0)
    ref = REF["fit_bn_classifier"]
    _assert_history(_history(hist), ref["history"])
    assert [path(w) for w in model.weights] == ref["weight_paths"]
    np.testing.assert_allclose(model.bn.moving_mean.numpy(), ref["moving_mean"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(model.bn.moving_variance.numpy(), ref["moving_variance"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(model.evaluate(xc, yc, verbose=0), ref["evaluate"], rtol=2e-5)
    assert model.metrics_names == ref["metrics_names"]
    assert _summary(model) == ref["summary"]  # eager build shapes, an unbuilt-shape Dropout, optimizer params
    assert len(model.trainable_variables) == 6 and len(model.non_trainable_variables) == 2


def test_subclassed_model_with_dropout_trains_and_predicts_deterministically() -> None:
    class Net(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.d1 = L.Dense(16, activation="relu")
            self.drop = L.Dropout(0.5)
            self.d2 = L.Dense(3)

        def call(self, x: Any, training: bool = False) -> Any:
            return self.d2(self.drop(self.d1(x), training=training))

    net = Net()
    net.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["acc"])
    hist = net.fit(xc, yc, batch_size=8, epochs=3, verbose=0)
    assert sorted(hist.history) == ["acc", "loss"]
    p1, p2 = net.predict(xc, verbose=0), net.predict(xc, verbose=0)
    np.testing.assert_array_equal(p1, p2)  # inference: no dropout
    with tf.GradientTape() as t:
        a = net(xc, training=True)
        total = tf.reduce_sum(a)
    assert not np.allclose(a.numpy(), p1)  # training: dropout active
    assert all(g is not None for g in t.gradient(total, net.trainable_variables))
    assert net.name == "net"


def test_custom_train_step_matches_keras() -> None:
    class CustomModel(keras.Model):
        def train_step(self, data: Any) -> dict[str, Any]:
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    ci = keras.Input(shape=(4,))
    co = L.Dense(3)(L.Dense(5, activation="tanh")(ci))
    cm = CustomModel(ci, co)
    assert isinstance(cm, CustomModel)
    set_fixed(cm, 13)
    cm.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    hist = cm.fit(xr, yr, batch_size=5, epochs=2, shuffle=False, verbose=0)
    _assert_history(_history(hist), REF["custom_train_step"]["history"])


def test_custom_train_step_with_own_metrics() -> None:
    class Own(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = L.Dense(3)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")

        def call(self, x: Any) -> Any:
            return self.dense(x)

        def train_step(self, data: Any) -> dict[str, Any]:
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = keras.losses.mean_squared_error(y, y_pred)
                loss = tf.reduce_mean(loss)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self) -> list[Any]:
            return [self.loss_tracker, self.mae_metric]

    model = Own()
    model.compile(optimizer=keras.optimizers.SGD(0.05))
    hist = model.fit(xr, yr, batch_size=5, epochs=3, verbose=0)
    assert sorted(hist.history) == ["loss", "mae"]
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_progress_bar_and_verbose_two(capsys: pytest.CaptureFixture[str]) -> None:
    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(3)])
    seq.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    seq.fit(xr, yr, batch_size=6, epochs=2, verbose=1, validation_data=(xr, yr))
    text = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert "Epoch 1/2" in text and "Epoch 2/2" in text
    assert re.search(
        r"4/4 ━{20} \d+s \d+[mu]?s/step - loss: [0-9.e-]+ - mae: [0-9.e-]+ - val_loss: [0-9.e-]+ - val_mae:", text
    )
    seq.fit(xr, yr, batch_size=6, epochs=1, verbose=2)
    text = capsys.readouterr().out
    assert re.fullmatch(r"4/4 - \d+s - \d+[mu]?s/step - loss: [0-9.e-]+ - mae: [0-9.e-]+\n", text)
    seq.fit(xr, yr, batch_size=6, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""


def test_functional_multi_input_and_save_load_weights(tmp_path: Any) -> None:
    a = keras.Input(shape=(4,), name="a")
    b = keras.Input(shape=(2,), name="b")
    ha = L.Dense(3, name="da")(a)
    hb = L.Dense(3, name="db")(b)
    out = L.Dense(1, name="out")(L.LayerNormalization()(ha))
    model = keras.Model(inputs=[a, b], outputs=[out, hb], name="two_in")
    ref = REF["multi_input"]
    assert [layer.name for layer in model.layers] == ref["layers"]
    assert _summary(model) == ref["summary"]
    set_fixed(model, 17)
    o1, o2 = model([xr, xr[:, :2]])
    assert o1.shape == (20, 1) and o2.shape == (20, 3)
    np.testing.assert_allclose(o1.numpy(), ref["out"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(o2.numpy(), ref["hb"], rtol=2e-5, atol=1e-6)
    file = tmp_path / "m.weights.h5"
    model.save_weights(file)
    before = [w.numpy().copy() for w in model.weights]
    for w in model.weights:
        w.assign(tf.zeros_like(w))
    model.load_weights(file)
    for w, b0 in zip(model.weights, before):
        np.testing.assert_array_equal(w.numpy(), b0)
    other = keras.Sequential([keras.Input(shape=(4,)), L.Dense(2)])
    with pytest.raises(ValueError, match="weights"):
        other.load_weights(file)
    text = _summary(model)
    assert "Connected to" in text and "da[0][0]" in text
    with pytest.raises(ValueError, match="expects 2 input"):
        model(xr)
    by_name = model({"b": xr[:, :2], "a": xr})
    np.testing.assert_allclose(by_name[0].numpy(), ref["out"], rtol=2e-5, atol=1e-6)
    with pytest.raises(ValueError, match="no entry"):
        model({"a": xr})


def test_sequential_builds_lazily_and_supports_add_pop() -> None:
    seq = keras.Sequential()
    seq.add(L.Dense(4, activation="relu"))
    seq.add(L.Dense(2))
    assert not seq.built and seq.weights == []
    y = seq(xr)
    assert y.shape == (20, 2) and seq.built
    assert [path(w) for w in seq.weights][0] == "sequential/dense/kernel"
    popped = seq.pop()
    assert popped.name == "dense_1" and len(seq.layers) == 1
    stacked = keras.Sequential([L.Dense(3, input_shape=(4,))])
    assert stacked.built and "(None, 3)" in _summary(stacked)


def test_checkpoint_of_a_keras_model_and_optimizer(tmp_path: Any) -> None:
    model = BNModel()
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    model.fit(xc, np.ones((24, 3), np.float32), epochs=1, verbose=0)
    ckpt = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
    file = ckpt.save(tmp_path / "ckpt.safetensors")
    names = dict(tf.train.list_variables(file))
    assert names["model/bn/moving_mean"] == [6] and names["model/d1/kernel"] == [5, 6]
    before = [w.numpy().copy() for w in model.weights]
    for w in model.weights:
        w.assign(tf.zeros_like(w))
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(file).assert_consumed()
    for w, b in zip(model.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


def test_errors_name_the_problem() -> None:
    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(3)])
    with pytest.raises(ValueError, match="compile"):
        seq.fit(xr, yr, verbose=0)
    seq.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="cardinality"):
        seq.fit(xr, yr[:5], verbose=0)
    with pytest.raises(ValueError, match="incompatible"):
        seq(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="optimizer"):
        seq.compile(optimizer="nope", loss="mse")
    with pytest.raises(TypeError, match="Unrecognized data"):
        seq.fit(3, verbose=0)
    assert isinstance(seq.evaluate(xr, yr, verbose=0), float)


def test_callbacks_validation_split_and_batch_methods() -> None:
    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(3)], name="cb")
    seq.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    events: list[Any] = []

    class Stop(keras.callbacks.Callback):
        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            events.append((epoch, sorted(logs)))
            if epoch == 1:
                self.model.stop_training = True

    batches: list[int] = []
    hist = seq.fit(
        xr,
        yr,
        batch_size=4,
        epochs=5,
        verbose=0,
        validation_split=0.25,
        callbacks=[Stop(), keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batches.append(b))],
    )
    assert events == [(0, ["loss", "mae", "val_loss", "val_mae"]), (1, ["loss", "mae", "val_loss", "val_mae"])]
    assert hist.epoch == [0, 1] and batches == [0, 1, 2, 3] * 2  # 15 training rows in batches of 4
    logs = seq.evaluate(xr, yr, verbose=0, return_dict=True)
    assert sorted(logs) == ["loss", "mae"]
    one = seq.train_on_batch(xr[:4], yr[:4])
    assert isinstance(one, list) and len(one) == 2
    np.testing.assert_allclose(seq.predict_on_batch(xr[:3]), seq(xr[:3]).numpy(), rtol=1e-6)
    assert seq.get_layer(index=0) is seq.layers[0] and seq.get_layer("dense") is seq.layers[0]
    with pytest.raises(ValueError, match="No such layer"):
        seq.get_layer("nope")


def test_sparse_labels_as_int64_and_sample_weights() -> None:
    model = keras.Sequential([keras.Input(shape=(5,)), L.Dense(3)])
    model.compile(
        optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"]
    )
    hist = model.fit(xc, yc.astype(np.int64), batch_size=8, epochs=2, verbose=0, sample_weight=np.ones(24))
    assert np.isfinite(hist.history["loss"]).all() and 0.0 <= hist.history["accuracy"][-1] <= 1.0
    zero = model.evaluate(xc, yc, sample_weight=np.zeros(24), verbose=0)
    assert zero[0] == 0.0


def test_merging_layers_in_a_functional_model_match_keras() -> None:
    ma = keras.Input(shape=(3,))
    mb = keras.Input(shape=(3,))
    cat = L.concatenate([ma, mb])
    md = L.Dense(2)(cat)
    summed = L.Add()([ma, mb])
    prod = L.Multiply()([ma, mb])
    avg = L.Average()([ma, mb, summed])
    sub = L.Subtract()([ma, mb])
    mx = L.Maximum()([ma, mb])
    mn = L.Minimum()([ma, mb])
    cat0 = L.Concatenate(axis=1)([ma, summed, mb])
    merge = keras.Model([ma, mb], [md, summed, prod, avg, sub, mx, mn, cat0], name="merge")
    ref = REF["merge"]
    assert [layer.name for layer in merge.layers] == ref["layers"]
    assert _summary(merge) == ref["summary"]
    set_fixed(merge, 19)
    outs = merge([fixed((4, 3), 1), fixed((4, 3), 2)])
    assert len(outs) == len(ref["outputs"])
    for got, want in zip(outs, ref["outputs"]):
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-6, atol=1e-7)
    assert sorted(L.Add().get_config()) == ref["config_keys"]["add"]
    assert sorted(L.Concatenate().get_config()) == ref["config_keys"]["concatenate"]
    with pytest.raises(ValueError, match="list of at least 2 inputs"):
        L.Add()([ma])
    with pytest.raises(ValueError, match="matching shapes"):
        L.Concatenate()([ma, keras.Input(shape=(2, 3))])


def test_add_loss_joins_the_compiled_loss_like_keras() -> None:
    class Penalty(L.Layer):
        def call(self, x: Any) -> Any:
            self.add_loss(0.01 * tf.reduce_sum(tf.square(x)))
            return x

    pm = keras.Sequential([keras.Input(shape=(4,)), L.Dense(3), Penalty()])
    set_fixed(pm, 23)
    pm.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    hist = pm.fit(xr, yr, batch_size=10, epochs=2, shuffle=False, verbose=0)
    ref = REF["add_loss"]
    _assert_history(_history(hist), ref["history"])
    np.testing.assert_allclose(pm.evaluate(xr, yr, batch_size=20, verbose=0), ref["evaluate"], rtol=2e-5)
    pm(xr[:2])
    np.testing.assert_allclose([float(v) for v in pm.losses], ref["losses_after_call"], rtol=2e-5)


def test_steps_per_epoch_continues_a_repeated_source_across_epochs() -> None:
    seen: list[float] = []

    class Endless:
        """A repeated dataset: batches numbered 0, 1, 2, ... forever."""

        def __iter__(self) -> Any:
            i = 0
            while True:
                yield np.full((2, 4), float(i), np.float32), np.zeros((2, 3), np.float32)
                i += 1

    seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(3)])
    # Eager steps: the spy reads each batch in Python (a compiled step runs it when tracing).
    seq.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", run_eagerly=True)
    original = seq.train_step

    def spy(data: Any) -> Any:
        seen.append(float(data[0].numpy()[0, 0]))
        return original(data)

    seq.train_step = spy  # type: ignore[method-assign]
    seq.fit(Endless(), epochs=3, steps_per_epoch=2, verbose=0)
    assert seen == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    seen.clear()
    # Finite arrays with steps_per_epoch: as Keras, an epoch ends early when the pass is used up (20 rows in
    # batches of 6: 4 batches), and the next epoch starts a new pass: 3 + 1 + 3 steps.
    seq.fit(xr, yr, batch_size=6, epochs=3, steps_per_epoch=3, shuffle=False, verbose=0)
    assert len(seen) == 7 and seen[3] != seen[0] and seen[4] == seen[0]
