# Generates keras_preprocessing_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_preprocessing_reference.py \
#       > tests/data/keras_preprocessing_reference.json
#
# Records what tests/test_keras_preprocessing.py compares tapers with, for Normalization,
# Discretization, CategoryEncoding, TimeDistributed and GroupNormalization: forward values on
# deterministic inputs (several option combinations), adapt() results (learned mean/variance/count,
# bin boundaries), output shapes (also of symbolic keras.Input calls with a None batch dimension),
# weight paths/shapes in order, get_config() keys, and gradients of sum(out * fixed) w.r.t. the
# input and the weights (weights set from `fixed(shape, k)`, as tests/_keras_fixtures.py does).
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__
L = keras.layers


def fixed(shape, k=0):
    """Deterministic weights/inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def set_fixed(layer, k=0):
    for i, w in enumerate(layer.weights):
        if not w.trainable:
            continue
        if w.path.endswith("gamma"):
            w.assign(1.0 + 0.1 * fixed(tuple(w.shape), k + i))
        else:
            w.assign(fixed(tuple(w.shape), k + i))


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


def record(layer, x, *, grads=True, kwargs=None, symbolic=True):
    kwargs = kwargs or {}
    xt = tf.convert_to_tensor(x)
    rec = {}
    if xt.dtype.is_floating and grads:
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = layer(xt, **kwargs)
            loss = tf.reduce_sum(y * fixed(tuple(y.shape), 5))
        tw = list(layer.trainable_weights)
        g = tape.gradient(loss, [xt, *tw])
        rec["grad_input"] = arr(g[0])
        rec["grad_weights"] = [arr(v) for v in g[1:]]
    else:
        y = layer(xt, **kwargs)
    rec.update(
        output=arr(y),
        output_shape=list(y.shape),
        output_dtype=y.dtype.name,
        weights=[[w.path, list(w.shape), w.dtype, bool(w.trainable)] for w in layer.weights],
        weight_values=[arr(w.numpy()) for w in layer.weights],
        config_keys=sorted(layer.get_config()),
    )
    if symbolic:
        cfg = layer.get_config()
        cfg.pop("name")
        inner = cfg.pop("layer", None)
        if inner is not None:
            clone = type(layer)(keras.layers.deserialize(inner))
        else:
            clone = type(layer)(**cfg)
        s = clone(keras.Input(shape=tuple(x.shape[1:]), dtype=xt.dtype.name))
        rec["symbolic_shape"] = [d for d in s.shape]
    return rec


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
C = out["cases"]
keras.utils.clear_session()

# ---------------------------------------------------------------- Normalization
x23 = fixed((4, 3), 1) * 3 + 1
C["norm_given"] = record(L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 5.0, 6.0]), x23)
C["norm_given_scalar_axis_none"] = record(L.Normalization(axis=None, mean=2.0, variance=3.0), x23)
C["norm_given_invert"] = record(L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 0.0, 6.0], invert=True), x23)
x532 = fixed((5, 3, 2), 2) * 2 - 0.5
C["norm_given_axis_1_2"] = record(L.Normalization(axis=(1, 2), mean=[0.5, -0.5], variance=[2.0, 3.0]), x532)

adapt_data = {
    "norm_adapt_last": ((6, 4), -1, "numpy"),
    "norm_adapt_axis_1_2": ((5, 3, 2), (1, 2), "numpy"),
    "norm_adapt_axis_none": ((6, 4), None, "numpy"),
    "norm_adapt_axis_1_tensor": ((5, 3, 2), 1, "tensor"),
    "norm_adapt_dataset": ((10, 3), -1, "dataset"),
}
for name, (shape, axis, kind) in adapt_data.items():
    data = fixed(shape, 3) * 3 + 1
    layer = L.Normalization(axis=axis)
    if kind == "numpy":
        layer.adapt(data)
    elif kind == "tensor":
        layer.adapt(tf.constant(data))
    else:
        layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(4))
    rec = record(layer, fixed(shape, 4) * 2, symbolic=False)
    rec["data_shape"] = list(shape)
    rec["axis"] = axis if axis is None or isinstance(axis, int) else list(axis)
    rec["kind"] = kind
    C[name] = rec

# ---------------------------------------------------------------- CategoryEncoding
ids1 = np.array([3, 2, 0, 1], np.int32)
ids2 = np.array([[0, 1], [0, 0], [1, 2], [3, 1]], np.int32)
for mode in ("one_hot", "multi_hot", "count"):
    C[f"cat_{mode}_rank1"] = record(L.CategoryEncoding(num_tokens=4, output_mode=mode), ids1)
    C[f"cat_{mode}_rank2"] = record(L.CategoryEncoding(num_tokens=5, output_mode=mode), ids2)
C["cat_one_hot_last1"] = record(L.CategoryEncoding(num_tokens=4, output_mode="one_hot"), ids1.reshape(4, 1))
cw = fixed((4, 2), 6)
C["cat_count_weights"] = record(
    L.CategoryEncoding(num_tokens=5, output_mode="count"), ids2, kwargs={"count_weights": cw}, symbolic=False
)

# ---------------------------------------------------------------- Discretization
xd = fixed((3, 4), 7) * 4
for mode in ("int", "one_hot", "multi_hot", "count"):
    C[f"disc_{mode}"] = record(
        L.Discretization(bin_boundaries=[-1.0, 0.0, 0.5, 1.0], output_mode=mode),
        xd[:, :1] if mode == "one_hot" else xd,
        grads=False,
    )
dl = L.Discretization(num_bins=4, epsilon=0.01)
dl.adapt(fixed((40,), 8) * 3)
rec = record(dl, xd, grads=False, symbolic=False)
rec["bin_boundaries"] = [float(b) for b in dl.bin_boundaries]
C["disc_adapt"] = rec

# ---------------------------------------------------------------- TimeDistributed
td = L.TimeDistributed(L.Dense(3))
td.build((2, 4, 5))
set_fixed(td, 1)
C["td_dense"] = record(td, fixed((2, 4, 5), 2))
td = L.TimeDistributed(L.Conv2D(2, 3, padding="same"))
td.build((2, 3, 5, 5, 1))
set_fixed(td, 2)
C["td_conv2d"] = record(td, fixed((2, 3, 5, 5, 1), 3))

# ---------------------------------------------------------------- GroupNormalization
for name, kw, shape in [
    ("gn_groups2", {"groups": 2}, (2, 5, 4)),
    ("gn_instance", {"groups": -1}, (2, 5, 4)),
    ("gn_layer", {"groups": 1, "epsilon": 1e-5}, (2, 3, 3, 6)),
    ("gn_axis1", {"groups": 2, "axis": 1}, (2, 4, 3, 3)),
    ("gn_no_center", {"groups": 3, "center": False}, (2, 4, 6)),
    ("gn_no_scale", {"groups": 3, "scale": False}, (2, 4, 6)),
]:
    gn = L.GroupNormalization(**kw)
    gn.build(shape)
    set_fixed(gn, 3)
    C[name] = record(gn, fixed(shape, 4) * 2 + 0.3)
    C[name]["kwargs"] = kw

print(json.dumps(out, indent=None))
