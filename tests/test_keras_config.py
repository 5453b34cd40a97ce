"""keras.config / keras.backend settings and fit's class_weight, against Keras 3
(tests/data/make_keras_config_reference.py)."""

import json
import logging
import pathlib
import warnings

import numpy as np
import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "keras_config_reference.json").read_text())
K = tf.keras
PY = {"int": int, "float": float}


@pytest.mark.parametrize("pair", sorted(REF["result_type"]))
def test_result_type_is_keras_promotion(pair):
    a, b = (PY.get(x, x) for x in pair.split(","))
    assert K.backend.result_type(a, b) == REF["result_type"][pair]


def test_dtype_predicates_and_standardize():
    for d, want in REF["is_float"].items():
        assert K.backend.is_float_dtype(d) == want, d
    for d, want in REF["is_int"].items():
        assert K.backend.is_int_dtype(d) == want, d
    given = {"'int'": int, "'float'": float, "'bool'": bool, "'f64'": "float64", "'np_i16'": np.int16, "'None'": None}
    for k, want in REF["standardize_dtype"].items():
        assert K.backend.standardize_dtype(given[k]) == want, k
    assert K.backend.standardize_dtype(tf.float64) == "float64"
    with pytest.raises(ValueError, match="Invalid dtype"):
        K.backend.standardize_dtype("float31")
    with pytest.raises(ValueError, match="At least one dtype"):
        K.backend.result_type()


@pytest.fixture
def restore_settings():
    yield
    K.config.set_epsilon(1e-7)
    K.config.set_max_epochs(None)
    K.config.set_max_steps_per_epoch(None)
    K.config.enable_interactive_logging()


def test_set_epsilon_is_read_by_losses_at_each_call(restore_settings):
    yt = np.array([[0.0, 1.0], [1.0, 0.0]], "float32")
    yp = np.array([[0.0, 1.0], [0.9995, 0.0005]], "float32")
    bce = K.losses.BinaryCrossentropy()  # made before the change: reads epsilon when called
    assert K.config.epsilon() == K.backend.epsilon() == 1e-7
    before = float(bce(yt, yp))
    K.config.set_epsilon(1e-3)
    assert K.backend.epsilon() == 1e-3
    np.testing.assert_allclose(float(bce(yt, yp)), REF["eps"]["bce"], rtol=1e-4)
    np.testing.assert_allclose(float(K.losses.CategoricalCrossentropy()(yt, yp)), REF["eps"]["cce"], rtol=1e-4)
    np.testing.assert_allclose(float(K.losses.KLDivergence()(yt, yp)), REF["eps"]["kld"], rtol=1e-4)
    assert before != float(bce(yt, yp))


def test_image_data_format_and_backend():
    assert K.config.image_data_format() == K.backend.image_data_format() == "channels_last"
    K.config.set_image_data_format("channels_last")
    with pytest.raises(NotImplementedError, match="data_format='channels_first' to each layer"):
        K.config.set_image_data_format("channels_first")
    with pytest.raises(ValueError, match="must be one of"):
        K.config.set_image_data_format("nhwc")
    assert K.backend.backend() == K.config.backend() == "tensorflow"
    assert K.backend.is_keras_tensor(K.Input((3,))) and not K.backend.is_keras_tensor(tf.ones([3]))


def fixed(shape, k):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n, dtype="float64") * 0.37 + k) * 0.5).reshape(shape).astype("float32")


X = fixed((12, 4), 1.0)
Y = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1, 2, 0])
CW = {0: 1.0, 1: 2.0, 2: 0.5}


def model(loss="sparse_categorical_crossentropy"):
    m = K.Sequential([K.Input((4,)), K.layers.Dense(3, activation="softmax")])
    m.set_weights([fixed((4, 3), 2.0), fixed((3,), 3.0)])
    m.compile(optimizer=K.optimizers.SGD(0.1), loss=loss)
    return m


def _close(m, ref):
    for got, want in zip(m.get_weights(), ref["weights"]):
        np.testing.assert_allclose(got, np.array(want, "float32"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["sparse_arrays", "onehot_arrays", "sparse_dataset"])
def test_fit_with_class_weight_matches_keras(case):
    ref = REF["fit"][case]
    onehot = case.startswith("onehot")
    m = model("categorical_crossentropy" if onehot else "sparse_categorical_crossentropy")
    y = np.eye(3, dtype="float32")[Y] if onehot else Y
    if case.endswith("dataset"):
        h = m.fit(tf.data.Dataset.from_tensor_slices((X, y)).batch(4), epochs=2, class_weight=CW, verbose=0)
    else:
        h = m.fit(X, y, batch_size=4, epochs=2, shuffle=False, class_weight=CW, verbose=0)
    np.testing.assert_allclose(h.history["loss"], ref["loss"], rtol=1e-5)
    _close(m, ref)


def test_class_weight_is_the_same_as_its_sample_weights():
    a, b = model(), model()
    a.fit(X, Y, batch_size=4, epochs=1, shuffle=False, class_weight=CW, verbose=0)
    b.fit(X, Y, batch_size=4, epochs=1, shuffle=False, sample_weight=np.array([CW[c] for c in Y]), verbose=0)
    for x, y in zip(a.get_weights(), b.get_weights()):
        assert x.tobytes() == y.tobytes()
    unweighted = model()
    unweighted.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert not np.array_equal(unweighted.get_weights()[0], a.get_weights()[0])


def test_train_on_batch_with_class_weight_matches_keras():
    m = model()
    loss = m.train_on_batch(X, Y, class_weight=CW)
    np.testing.assert_allclose(loss, REF["train_on_batch"]["loss"], rtol=1e-5)
    _close(m, REF["train_on_batch"])
    with pytest.raises(ValueError) as e:
        m.train_on_batch(X, Y, sample_weight=np.ones(12), class_weight=CW)
    assert str(e.value).split(" Received:")[0] == REF["train_on_batch_both"]


def test_class_weight_errors():
    m = model()
    with pytest.raises(ValueError) as e:
        m.fit(X, Y, sample_weight=np.ones(12), class_weight=CW, verbose=0)
    assert str(e.value) == REF["fit_both"]
    ds = tf.data.Dataset.from_tensor_slices((X, Y, np.ones(12, "float32"))).batch(4)
    with pytest.raises(ValueError, match="cannot `class_weight` and `sample_weight`"):
        m.fit(ds, class_weight=CW, verbose=0)
    with pytest.raises(ValueError, match="single output"):
        m.fit(X, [Y, Y], class_weight=CW, verbose=0)


def test_max_epochs_and_steps_cap_fit_as_keras(restore_settings):
    K.config.set_max_epochs(2)
    K.config.set_max_steps_per_epoch(2)
    assert (K.config.max_epochs(), K.config.max_steps_per_epoch()) == (2, 2)
    m = model()
    seen = []
    cb = K.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(b))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        h = m.fit(X, Y, batch_size=4, epochs=5, shuffle=False, verbose=0, callbacks=[cb])
    ref = REF["caps"]
    assert len(h.history["loss"]) == ref["epochs"]
    assert seen == ref["batches"]
    assert sorted({str(x.message) for x in w if "Limiting" in str(x.message)}) == ref["warnings"]
    _close(m, ref)


def test_interactive_logging_goes_to_the_logger_when_disabled(restore_settings, capsys, caplog):
    m = model()
    m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=2)
    assert "Epoch 2/2" in capsys.readouterr().out
    K.config.disable_interactive_logging()
    assert not K.config.is_interactive_logging_enabled()
    with caplog.at_level(logging.INFO, logger="tapers.keras"):
        m.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=2)
    assert capsys.readouterr().out == ""
    assert any("Epoch 2/2" in r.getMessage() for r in caplog.records)


def test_unsafe_deserialization_allows_lambda_code(restore_settings):
    layer = K.layers.Lambda(lambda x: x * 3.0)
    cfg = layer.get_config()
    with pytest.raises(ValueError, match="safe_mode=False"):
        K.layers.Lambda.from_config(cfg)
    import tapers.keras.config as config_module

    try:
        K.config.enable_unsafe_deserialization()
        again = K.layers.Lambda.from_config(cfg)
        assert float(again(tf.constant(2.0))) == 6.0
    finally:
        config_module._unsafe_deserialization = False


def test_layers_take_a_dtype_policy_object():
    mp = K.mixed_precision
    layer = K.layers.Dense(2, dtype=mp.Policy("float64"))
    out = layer(tf.ones([1, 3], tf.float64))
    assert out.dtype == tf.float64 and layer.dtype == "float64"
    with pytest.raises(NotImplementedError, match="mixed_float16"):
        K.layers.Dense(2, dtype=mp.Policy("mixed_float16"))


def test_optimizer_serialize_dtype_policies_saving_and_top_level_names(tmp_path):
    ref = REF["optimizer_serialize"]
    ser = K.optimizers.serialize(K.optimizers.Adam(0.002, amsgrad=True))
    assert sorted(ser) == ref["keys"]
    assert (ser["module"], ser["class_name"], ser["registered_name"]) == (
        ref["module"], ref["class_name"], ref["registered_name"])
    again = K.optimizers.deserialize(ser)
    assert type(again).__name__ == ref["roundtrip"] and again.get_config()["amsgrad"] is True
    assert type(K.optimizers.get(ser)).__name__ == ref["get_dict"]
    with pytest.raises(ValueError, match="Could not interpret optimizer"):
        K.optimizers.deserialize({"class_name": "Nope", "config": {}})
    dp = REF["dtype_policies"]
    assert K.dtype_policies.serialize(K.dtype_policies.get("float64")) == dp["serialize"]
    assert K.dtype_policies.get("float32").name == dp["get_name"]
    assert K.dtype_policies.FloatDTypePolicy("float64").name == dp["float_is"]
    assert [n for n in REF["top_level"] if hasattr(K, n)] == REF["top_level"]
    assert K.Variable is tf.Variable and K.version() == "3.15.0"
    assert [n for n in REF["saving"] if hasattr(K.saving, n)] == REF["saving"]
    m = K.Sequential([K.Input((2,)), K.layers.Dense(1)])
    path = str(tmp_path / "m.weights.h5")
    K.saving.save_weights(m, path)
    m2 = K.Sequential([K.Input((2,)), K.layers.Dense(1)])
    K.saving.load_weights(m2, path)
    assert all((a == b).all() for a, b in zip(m.get_weights(), m2.get_weights()))
    with pytest.raises(NotImplementedError, match="does not save whole models"):
        K.saving.save_model(m, str(tmp_path / "m.keras"))
    assert K.config.dtype_policy().name == "float32"
    assert K.utils.is_interactive_logging_enabled() is K.config.is_interactive_logging_enabled()
