"""keras.layers API pieces outside the layer families: InputSpec checks, Wrapper, serialize/deserialize,
``dot`` and Keras' long aliases, against Keras 3 (tests/data/make_keras_api_reference.py)."""

import json
import pathlib

import numpy as np
import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "keras_api_reference.json").read_text())
L = tf.keras.layers


class Checked(L.Layer):
    def __init__(self, spec, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = spec

    def call(self, x):
        return x


def _spec(args):
    return [L.InputSpec(**a) for a in args] if isinstance(args, list) else L.InputSpec(**args)


@pytest.mark.parametrize("key", sorted(REF["input_spec"]))
@pytest.mark.parametrize("symbolic", [False, True])
def test_input_spec_checks_give_keras_messages(key, symbolic):
    case = REF["input_spec"][key]
    layer = Checked(_spec(case["spec"]), name="checked")
    if symbolic:
        xs = [L.Input(batch_shape=tuple(s), dtype=case["dtype"]) for s in case["shapes"]]
    else:
        xs = [np.zeros(s, dtype=case["dtype"]) for s in case["shapes"]]
    want = case["symbolic" if symbolic else "eager"]
    arg = xs[0] if len(xs) == 1 else xs
    if want is None:
        layer(arg)
        return
    with pytest.raises(ValueError) as e:
        layer(arg)
    got = str(e.value)
    if key == "count":  # the inputs' reprs differ between frameworks
        assert got.split("Inputs received:")[0] == want.split("Inputs received:")[0]
    else:
        assert got.split("\n\nArguments received by")[0] == want


def test_input_spec_is_checked_before_build():
    built = []

    class Spy(Checked):
        def build(self, shape):
            built.append(shape)

    layer = Spy(L.InputSpec(ndim=3))
    with pytest.raises(ValueError, match="expected ndim=3"):
        layer(np.zeros((2, 4), "float32"))
    assert built == [] and not layer.built
    layer(np.zeros((2, 4, 1), "float32"))
    assert built == [(2, 4, 1)]


def test_input_spec_repr_and_config_round_trip():
    spec = L.InputSpec(dtype="float32", shape=(None, 3), axes={1: 3})
    assert repr(spec) == REF["repr"]
    cfg = spec.get_config()
    want = dict(REF["config"])
    want["axes"] = {int(k): v for k, v in want["axes"].items()}  # JSON made the key a string
    want["shape"] = tuple(want["shape"])
    assert cfg == want
    again = L.InputSpec.from_config(cfg)
    assert again.get_config() == cfg


def test_input_spec_bad_arguments():
    with pytest.raises(TypeError, match="integer keys"):
        L.InputSpec(axes={"a": 1})
    with pytest.raises(ValueError, match="Axis 3 is greater than the maximum allowed value: 1"):
        L.InputSpec(ndim=2, axes={3: 1})


def test_input_spec_inside_function_and_model():
    layer = Checked(L.InputSpec(ndim=2, axes={-1: 4}))

    @tf.function
    def f(x):
        return layer(x) * 2.0

    assert f(tf.ones([3, 4])).shape == (3, 4)
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
        f(tf.ones([3, 5]))
    inp = L.Input((5,))
    with pytest.raises(ValueError, match="expected axis -1"):
        Checked(L.InputSpec(axes={-1: 4}))(inp)


def test_serialize_matches_keras_keys_and_round_trips():
    d = L.Dense(3, name="d", activation="relu")
    ser = L.serialize(d)
    want = REF["serialize_dense"]
    assert sorted(ser) == want["keys"]
    assert (ser["module"], ser["class_name"], ser["registered_name"]) == (
        want["module"], want["class_name"], want["registered_name"])
    again = L.deserialize(ser)
    assert type(again) is L.Dense and again.get_config() == d.get_config()
    # Keras' older two-key form reads too.
    assert type(L.deserialize({"class_name": "Dense", "config": d.get_config()})) is L.Dense


def test_deserialize_custom_objects_and_errors():
    class MyLayer(L.Layer):
        def __init__(self, k=1, **kwargs):
            super().__init__(**kwargs)
            self.k = k

        def get_config(self):
            return {**super().get_config(), "k": self.k}

    ser = L.serialize(MyLayer(k=4))
    assert ser["registered_name"] == "MyLayer"
    got = L.deserialize(ser, custom_objects={"MyLayer": MyLayer})
    assert isinstance(got, MyLayer) and got.k == 4
    with pytest.raises(ValueError, match="Could not locate class 'MyLayer'"):
        L.deserialize(ser)
    with pytest.raises(ValueError, match="Could not interpret serialized layer"):
        L.deserialize("Dense")


def test_wrapper_base_class():
    assert issubclass(L.TimeDistributed, L.Wrapper) and issubclass(L.Bidirectional, L.Wrapper)
    td = L.TimeDistributed(L.Dense(2, name="inner"), name="td")
    cfg = td.get_config()
    want = REF["time_distributed_layer"]
    assert sorted(cfg["layer"]) == want["keys"]
    assert (cfg["layer"]["module"], cfg["layer"]["class_name"]) == (want["module"], want["class_name"])
    bi = L.Bidirectional(L.LSTM(3))
    assert isinstance(bi.layer, L.LSTM)
    out = bi(np.ones((2, 4, 5), "float32"))
    assert out.shape == (2, 6)
    assert len(bi.weights) == 6  # the forward and backward copies; the original is never built

    class Twice(L.Wrapper):
        def call(self, x):
            return self.layer(self.layer(x))

    w = Twice(L.Dense(4, name="sq"))
    y = w(np.ones((2, 4), "float32"))
    assert y.shape == (2, 4) and len(w.weights) == 2
    again = Twice.from_config(w.get_config())
    assert isinstance(again.layer, L.Dense) and again.layer.units == 4
    with pytest.raises(ValueError, match="supplied to Wrapper isn't a supported layer type"):
        Twice(3)


def test_dot_function_matches_keras():
    ref = REF["dot"]
    a, b = np.array(ref["a"], "float32"), np.array(ref["b"], "float32")
    np.testing.assert_allclose(L.dot([a, b], axes=1).numpy(), ref["axes1"], rtol=1e-6)
    np.testing.assert_allclose(L.dot([a, b], axes=1, normalize=True).numpy(), ref["normalized"], rtol=1e-6)


def test_long_aliases():
    for alias, name in REF["aliases"].items():
        assert getattr(L, alias) is getattr(L, name), alias


def test_build_config_dtype_policy_input_dtype_and_add_variable():
    d = L.Dense(3)
    assert d.get_build_config() is None
    d(np.ones((2, 4), "float32"))
    assert d.get_build_config() == {"input_shape": (2, 4)}
    e = L.Dense(3)
    e.build_from_config({"input_shape": (None, 5)})
    assert e.built and tuple(e.kernel.shape) == (5, 3)
    assert e.get_build_config() == {"input_shape": (None, 5)}
    L.Dense(2).build_from_config(None)  # nothing to do
    assert d.input_dtype == "float32" and d.dtype_policy.name == "float32"
    assert L.Dense(2, dtype="float64").dtype_policy.compute_dtype == "float64"

    class WithVariable(L.Layer):
        def build(self, shape):
            self.w = self.add_variable((2, 3), "ones", name="w")

        def call(self, x):
            return x @ self.w

    layer = WithVariable(name="wv")
    out = layer(np.ones((1, 2), "float32"))
    assert out.numpy().tolist() == [[2.0, 2.0, 2.0]]
    assert layer.w.name == "wv/w:0" and layer.w.trainable and layer.weights == [layer.w]
