# Generates keras_pooling_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_pooling_reference.py \
#       > tests/data/keras_pooling_reference.json
#
# Records what tests/test_keras_pooling.py compares tapers with, for Keras 3's global poolings
# (GlobalAverage/MaxPooling1D/2D/3D), 1-D pooling (MaxPooling1D, AveragePooling1D) and reshaping
# layers (ZeroPadding1D/2D, Cropping1D/2D, UpSampling1D/2D, Permute, RepeatVector, Identity):
# for each case (a class, constructor kwargs and a deterministic input `fixed(shape, k)`, plus an
# optional mask), the layer's name, weights (none), get_config(), the output and its shape, the
# output shapes of symbolic calls on keras.Input with a None batch dimension (and with every
# dimension unknown), and the gradient w.r.t. the input of sum(out * fixed(out.shape, 9)) taken
# with tf.GradientTape; gradients where inputs tie for a maximum. Also which Keras aliases
# (GlobalAvgPool1D, MaxPool1D, ...) name which class.
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__


def fixed(shape, k=0):
    """Deterministic weights/inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


# name: (class, kwargs, input shape, input k, mask shape or None)
CASES = {
    "gap1d": ("GlobalAveragePooling1D", {}, (2, 5, 3), 1, None),
    "gap1d_cf_keep": ("GlobalAveragePooling1D", {"data_format": "channels_first", "keepdims": True}, (2, 3, 5), 2,
                      None),
    "gap1d_mask": ("GlobalAveragePooling1D", {}, (2, 5, 3), 3, (2, 5)),
    "gap1d_mask_cf_keep": ("GlobalAveragePooling1D", {"data_format": "channels_first", "keepdims": True},
                           (2, 3, 5), 4, (2, 5)),
    "gap2d": ("GlobalAveragePooling2D", {}, (2, 4, 5, 3), 5, None),
    "gap2d_keep": ("GlobalAveragePooling2D", {"keepdims": True}, (2, 4, 5, 3), 6, None),
    "gap2d_cf": ("GlobalAveragePooling2D", {"data_format": "channels_first"}, (2, 3, 4, 5), 7, None),
    "gap3d": ("GlobalAveragePooling3D", {}, (2, 3, 4, 2, 3), 8, None),
    "gap3d_cf_keep": ("GlobalAveragePooling3D", {"data_format": "channels_first", "keepdims": True},
                      (2, 3, 3, 4, 2), 9, None),
    "gmp1d": ("GlobalMaxPooling1D", {}, (2, 5, 3), 10, None),
    "gmp1d_cf_keep": ("GlobalMaxPooling1D", {"data_format": "channels_first", "keepdims": True}, (2, 3, 5), 11,
                      None),
    "gmp2d": ("GlobalMaxPooling2D", {}, (2, 4, 5, 3), 12, None),
    "gmp2d_cf_keep": ("GlobalMaxPooling2D", {"data_format": "channels_first", "keepdims": True}, (2, 3, 4, 5), 13,
                      None),
    "gmp3d": ("GlobalMaxPooling3D", {"keepdims": True}, (2, 3, 4, 2, 3), 14, None),
    "gmp3d_cf": ("GlobalMaxPooling3D", {"data_format": "channels_first"}, (2, 3, 3, 4, 2), 15, None),
    "maxpool1d": ("MaxPooling1D", {}, (2, 7, 3), 16, None),
    "maxpool1d_same": ("MaxPooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, (2, 8, 3), 17, None),
    "maxpool1d_valid_s1": ("MaxPooling1D", {"pool_size": 3, "strides": 1}, (2, 6, 2), 18, None),
    "maxpool1d_cf": ("MaxPooling1D", {"pool_size": 2, "strides": 1, "padding": "same",
                                      "data_format": "channels_first"}, (2, 3, 5), 19, None),
    "avgpool1d": ("AveragePooling1D", {"pool_size": 2}, (2, 7, 3), 20, None),
    "avgpool1d_same": ("AveragePooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}, (2, 8, 3), 21, None),
    "avgpool1d_cf_valid": ("AveragePooling1D", {"pool_size": 3, "strides": 2, "data_format": "channels_first"},
                           (2, 3, 8), 22, None),
    "avgpool1d_cf_same": ("AveragePooling1D", {"pool_size": 4, "strides": 3, "padding": "same",
                                               "data_format": "channels_first"}, (2, 2, 7), 23, None),
    "zeropad1d": ("ZeroPadding1D", {}, (2, 4, 3), 24, None),
    "zeropad1d_asym": ("ZeroPadding1D", {"padding": (1, 2)}, (2, 4, 3), 25, None),
    "zeropad1d_cf": ("ZeroPadding1D", {"padding": (0, 3), "data_format": "channels_first"}, (2, 3, 4), 26, None),
    "zeropad2d": ("ZeroPadding2D", {}, (2, 3, 4, 2), 27, None),
    "zeropad2d_asym": ("ZeroPadding2D", {"padding": ((1, 2), (0, 3))}, (2, 3, 4, 2), 28, None),
    "zeropad2d_pair": ("ZeroPadding2D", {"padding": (2, 1)}, (2, 3, 4, 2), 29, None),
    "zeropad2d_cf": ("ZeroPadding2D", {"padding": ((0, 1), (2, 0)), "data_format": "channels_first"},
                     (2, 2, 3, 4), 30, None),
    "crop1d": ("Cropping1D", {}, (2, 6, 3), 31, None),
    "crop1d_right0": ("Cropping1D", {"cropping": (2, 0)}, (2, 6, 3), 32, None),
    "crop1d_int": ("Cropping1D", {"cropping": 2}, (2, 6, 3), 33, None),
    "crop2d": ("Cropping2D", {"cropping": ((1, 0), (2, 1))}, (2, 5, 6, 2), 34, None),
    "crop2d_int_cf": ("Cropping2D", {"cropping": 1, "data_format": "channels_first"}, (2, 2, 5, 6), 35, None),
    "crop2d_pair": ("Cropping2D", {"cropping": (1, 2)}, (2, 5, 6, 2), 36, None),
    "crop2d_default": ("Cropping2D", {}, (2, 3, 4, 2), 37, None),
    "upsample1d": ("UpSampling1D", {}, (2, 3, 2), 38, None),
    "upsample1d_3": ("UpSampling1D", {"size": 3}, (2, 3, 2), 39, None),
    "upsample2d": ("UpSampling2D", {}, (2, 3, 4, 2), 40, None),
    "upsample2d_cf": ("UpSampling2D", {"size": (2, 3), "data_format": "channels_first"}, (2, 2, 3, 4), 41, None),
    "upsample2d_bilinear": ("UpSampling2D", {"size": (2, 3), "interpolation": "bilinear"}, (2, 3, 4, 2), 42, None),
    "upsample2d_bilinear_cf": ("UpSampling2D", {"size": 3, "interpolation": "bilinear",
                                                "data_format": "channels_first"}, (2, 2, 3, 2), 43, None),
    "permute": ("Permute", {"dims": (2, 1)}, (2, 3, 4), 44, None),
    "permute_4d": ("Permute", {"dims": (3, 1, 2)}, (2, 3, 4, 5), 45, None),
    "repeatvector": ("RepeatVector", {"n": 3}, (2, 4), 46, None),
    "identity": ("Identity", {}, (2, 3, 4), 47, None),
}

ALIASES = ["GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D",
           "GlobalMaxPool3D", "MaxPool1D", "AvgPool1D"]


def mask_for(shape):
    """A boolean mask with a different number of kept steps per example (at least one)."""
    b, steps = shape
    return np.array([[t < steps - i for t in range(steps)] for i in range(b)])


def jsonable(value):
    return json.loads(json.dumps(value, default=lambda o: list(o) if isinstance(o, tuple) else str(o)))


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
for case, (cls_name, kwargs, shape, k, mask_shape) in CASES.items():
    keras.backend.clear_session()
    cls = getattr(keras.layers, cls_name)
    layer = cls(**kwargs)
    x = tf.constant(fixed(shape, k))
    call_kw = {}
    if mask_shape is not None:
        call_kw["mask"] = tf.constant(mask_for(mask_shape))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, **call_kw)
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 9))
    grad = tape.gradient(loss, x)
    sym = cls(**kwargs)(keras.Input(shape=shape[1:]))
    sym_unknown = cls(**kwargs)(keras.Input(shape=(None,) * (len(shape) - 1)))
    out["cases"][case] = {
        "class": cls_name,
        "kwargs": jsonable(kwargs),
        "input_shape": list(shape),
        "k": k,
        "mask": None if mask_shape is None else mask_for(mask_shape).tolist(),
        "name": layer.name,
        "weights": [[w.path, list(w.shape)] for w in layer.weights],
        "config": jsonable(layer.get_config()),
        "output": arr(y),
        "output_shape": list(y.shape),
        "symbolic_shape": list(sym.shape),
        "symbolic_shape_unknown": list(sym_unknown.shape),
        "input_grad": arr(grad),
    }
# Gradients where several inputs share the window's maximum (TensorFlow splits a reduce_max's
# gradient among ties but gives a max_pool window's gradient to its first maximum).
TIES_INPUT = [[[1.0, -1.0], [1.0, 0.0], [0.5, 0.0], [1.0, 2.0]]]
TIES = {
    "gmp1d": ("GlobalMaxPooling1D", {}),
    "maxpool1d_s1": ("MaxPooling1D", {"pool_size": 2, "strides": 1}),
    "maxpool1d_4": ("MaxPooling1D", {"pool_size": 4}),
    "maxpool1d_same": ("MaxPooling1D", {"pool_size": 3, "strides": 2, "padding": "same"}),
}
out["ties"] = {"input": TIES_INPUT}
for case, (cls_name, kwargs) in TIES.items():
    x = tf.constant(np.array(TIES_INPUT, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(keras.layers, cls_name)(**kwargs)(x)
        loss = tf.reduce_sum(y)
    grad = tape.gradient(loss, x)
    out["ties"][case] = {"class": cls_name, "kwargs": kwargs, "output": arr(y), "input_grad": arr(grad)}
out["aliases"] = {a: getattr(keras.layers, a).__name__ for a in ALIASES}
print(json.dumps(out, indent=1))
