# Generates keras_activation_layers_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_activation_layers_reference.py \
#       > tests/data/keras_activation_layers_reference.json
#
# Records what tests/test_keras_activation_layers.py compares tapers with, for the activation, value-map,
# noise and regularization layers (LeakyReLU, ELU, PReLU, Softmax, Rescaling, UnitNormalization,
# GaussianNoise, GaussianDropout, AlphaDropout, SpatialDropout1D/2D, ActivityRegularization, Lambda):
# for each case (a constructor expression over `L = keras.layers`, an input `fixed(shape, k)` and an
# optional mask), the layer's name, weight paths/shapes/trainable flags, sorted get_config() keys and
# its JSON-able scalar values, the inference output with weights set from `fixed(shape, k)` (tapers'
# initializers use other random streams), the output shape for a symbolic keras.Input with a None batch
# dimension, layer.losses, and the gradients of sum(out * fixed(out.shape, 5)) with respect to the input
# and the weights (tf.GradientTape). Random layers are recorded in inference only (the identity): their
# training samples come from other random streams, so the tests check them statistically.
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


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


# name -> (constructor expression, input shape, input k, input dtype, mask (nested list) or None)
CASES = {
    "leaky_default": ("L.LeakyReLU()", (3, 5), 2, "float32", None),
    "leaky_slope": ("L.LeakyReLU(negative_slope=0.1)", (2, 3, 4), 3, "float32", None),
    "elu": ("L.ELU()", (3, 5), 2, "float32", None),
    "elu_alpha": ("L.ELU(alpha=0.5)", (2, 3, 4), 3, "float32", None),
    "prelu": ("L.PReLU()", (2, 3, 4), 3, "float32", None),
    "prelu_shared": ("L.PReLU(shared_axes=[1, 2])", (2, 3, 3, 2), 4, "float32", None),
    "prelu_shared_int": ("L.PReLU(shared_axes=1)", (2, 3, 4), 6, "float32", None),
    "softmax": ("L.Softmax()", (3, 5), 2, "float32", None),
    "softmax_axis1": ("L.Softmax(axis=1)", (2, 3, 4), 3, "float32", None),
    "softmax_axes": ("L.Softmax(axis=[1, 2])", (2, 3, 4), 3, "float32", None),
    "softmax_axis_list1": ("L.Softmax(axis=[-2])", (2, 3, 4), 1, "float32", None),
    "softmax_mask_bool": ("L.Softmax()", (3, 5), 2, "float32",
                          [[True, False, True, True, False], [True] * 5, [False, True, False, False, True]]),
    "softmax_mask_float_bcast": ("L.Softmax()", (3, 5), 2, "float32", [[1.0, 0.0, 1.0, 0.7, 0.2]]),
    "rescaling": ("L.Rescaling(scale=0.5, offset=-1.0)", (3, 5), 2, "float32", None),
    "rescaling_default_offset": ("L.Rescaling(1.0 / 255)", (3, 5), 2, "float32", None),
    "rescaling_int": ("L.Rescaling(scale=1.0 / 127.5, offset=-1.0)", (2, 4), 0, "int32", None),
    "rescaling_channels": ("L.Rescaling(scale=[0.5, 2.0, -1.0], offset=[0.1, 0.0, 0.2])", (2, 2, 3), 5,
                           "float32", None),
    "unitnorm": ("L.UnitNormalization()", (3, 5), 2, "float32", None),
    "unitnorm_axes": ("L.UnitNormalization(axis=[1, 2])", (2, 3, 4), 3, "float32", None),
    "unitnorm_axis1": ("L.UnitNormalization(axis=1)", (2, 3, 4), 1, "float32", None),
    "gaussian_noise_inference": ("L.GaussianNoise(0.2, seed=3)", (3, 5), 2, "float32", None),
    "gaussian_dropout_inference": ("L.GaussianDropout(0.3, seed=3)", (3, 5), 2, "float32", None),
    "alpha_dropout_inference": ("L.AlphaDropout(0.2, noise_shape=(None, 1, 4))", (2, 3, 4), 2, "float32", None),
    "spatial1d_inference": ("L.SpatialDropout1D(0.5)", (2, 3, 4), 2, "float32", None),
    "spatial2d_inference": ("L.SpatialDropout2D(0.5, seed=1)", (2, 3, 3, 2), 2, "float32", None),
    "spatial2d_channels_first": ("L.SpatialDropout2D(0.5, data_format='channels_first')", (2, 2, 3, 3), 2,
                                 "float32", None),
    "activity_reg": ("L.ActivityRegularization(l1=0.01, l2=0.02)", (3, 5), 2, "float32", None),
    "activity_reg_l2": ("L.ActivityRegularization(l2=0.5)", (2, 3, 4), 3, "float32", None),
    "lambda": ("L.Lambda(lambda t: t * 2.0 + 1.0)", (3, 5), 2, "float32", None),
    "lambda_output_shape": ("L.Lambda(lambda t: t[:, :2], output_shape=(2,))", (3, 5), 2, "float32", None),
    "lambda_arguments": ("L.Lambda(lambda t, k: t * k, arguments={'k': 3.0})", (3, 5), 2, "float32", None),
}  # fmt: skip


def scalar_config(config):
    """The config entries holding plain JSON values (numbers, strings, lists, None)."""
    out = {}
    for k, v in config.items():
        if k == "dtype":
            continue
        try:
            json.dumps(v)
        except TypeError:
            continue
        if isinstance(v, (int, float, str, list, tuple, bool)) or v is None:
            out[k] = list(v) if isinstance(v, tuple) else v
    return out


def run_case(expr, shape, k, dtype, mask):
    keras.backend.clear_session()
    layer = eval(expr, {"L": L})  # noqa: S307 - fixed expressions above
    if dtype == "int32":
        x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) * 37 % 256
    else:
        x = fixed(shape, k)
    kwargs = {} if mask is None else {"mask": tf.constant(np.asarray(mask))}
    layer(x, **kwargs)
    for i, w in enumerate(layer.weights):
        w.assign(fixed(tuple(w.shape), 1 + i))
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        if dtype != "int32":
            tape.watch(xt)
        y = layer(xt, **kwargs)
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 5))
    grads = tape.gradient(loss, ([xt] if dtype != "int32" else []) + list(layer.trainable_weights))
    grad_x = arr(grads[0]) if dtype != "int32" else None
    grad_w = [arr(g) for g in grads[1 if dtype != "int32" else 0 :]]
    losses = [float(v) for v in layer.losses]
    # Symbolic call with a None batch dimension.
    keras.backend.clear_session()
    sym = eval(expr, {"L": L})  # noqa: S307
    inp = keras.Input(shape=shape[1:], dtype=dtype)
    out_sym = sym(inp)
    config = layer.get_config()
    return {
        "expr": expr,
        "shape": list(shape),
        "k": k,
        "dtype": dtype,
        "mask": mask,
        "class": type(layer).__name__,
        "name": layer.name,
        "weights": [[w.path, list(w.shape), bool(w.trainable)] for w in layer.weights],
        "config_keys": sorted(config),
        "config": scalar_config(config),
        "output": arr(y),
        "output_dtype": str(y.dtype.name),
        "symbolic_shape": list(out_sym.shape),
        "losses": losses,
        "grad_x": grad_x,
        "grad_w": grad_w,
    }


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
for name, (expr, shape, k, dtype, mask) in CASES.items():
    out["cases"][name] = run_case(expr, shape, k, dtype, mask)

print(json.dumps(out, indent=1, sort_keys=True))
