# Generates keras_image_preprocessing_reference.json with TensorFlow 2.21 / Keras 3.15 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_image_preprocessing_reference.py \
#       > tests/data/keras_image_preprocessing_reference.json
#
# Records what tests/test_keras_image_preprocessing.py compares tapers with, for the geometric image
# preprocessing layers (Resizing, CenterCrop, RandomCrop, RandomFlip, RandomRotation, RandomZoom,
# RandomTranslation, RandomShear, RandomPerspective; and Pipeline, at the end) on deterministic
# inputs `fixed(shape, k)`. For each case: the constructor arguments, layer name, weights (none),
# get_config() keys and values, the transformation drawn by
# `get_random_transformation(x, training=True, seed=SeedGenerator(k + 100))` (tapers' random streams
# differ from Keras', so the test feeds this recorded transformation to tapers' `transform_images`),
# the output of `transform_images(x, transformation)` with its shape and dtype, the inference output
# (`layer(x, training=False)`), integer segmentation masks (`mask_for`) transformed with the same
# transformation and through an inference dict call (None where Keras fails on integer masks), the
# shape of a symbolic call on keras.Input (None batch), and gradients of sum(out * fixed(out.shape, 9))
# w.r.t. x: through tf.GradientTape ("grad_tape") and, for the resampling layers, the exact derivative
# ("grad_exact", from the transform being affine in x: basis images pushed through it, minus a zero
# image), because TensorFlow's registered gradient of ImageProjectiveTransformV3 applies the inverse
# transform to the output gradient, which is only an approximation of the derivative.
import json
import os
import sys

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


def jsonable(v):
    if isinstance(v, (tf.Tensor, tf.Variable, np.ndarray, np.generic)):
        a = np.asarray(v)
        return {"value": a.tolist(), "dtype": str(a.dtype), "shape": list(a.shape)}
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [jsonable(x) for x in v]
    return v


def config_values(cfg):
    out = {}
    for k, v in cfg.items():
        if k in ("name", "dtype"):
            continue
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def mask_for(shape, channels_first, k):
    """Deterministic integer segmentation masks (one channel) matching an image shape."""
    ms = list(shape)
    ms[-3 if channels_first else -1] = 1
    return np.round((fixed(tuple(ms), k + 50) + 0.5) * 6).astype(np.int32)


L = keras.layers
X = (2, 6, 7, 2)  # batch, height, width, channels (channels_last)
XCF = (2, 2, 6, 7)  # channels_first
X3 = (6, 7, 2)  # one image

# name -> (class name, constructor kwargs, input shape, input k, random?, affine?)
CASES = {
    "resizing_bilinear": ("Resizing", dict(height=4, width=5), X, 1, False, False),
    "resizing_nearest_up": ("Resizing", dict(height=9, width=11, interpolation="nearest"), X, 2, False, False),
    "resizing_bicubic": ("Resizing", dict(height=5, width=9, interpolation="bicubic"), X, 3, False, False),
    "resizing_area": ("Resizing", dict(height=3, width=4, interpolation="area"), X, 4, False, False),
    "resizing_crop": ("Resizing", dict(height=4, width=4, crop_to_aspect_ratio=True), X, 5, False, False),
    "resizing_pad": ("Resizing", dict(height=4, width=4, pad_to_aspect_ratio=True, fill_value=0.25), X, 6,
                     False, False),
    "resizing_pad_wide": ("Resizing", dict(height=3, width=8, pad_to_aspect_ratio=True), X, 7, False, False),
    "resizing_channels_first": ("Resizing", dict(height=4, width=5, data_format="channels_first"), XCF, 8,
                                False, False),
    "resizing_unbatched": ("Resizing", dict(height=3, width=9), X3, 9, False, False),
    "center_crop": ("CenterCrop", dict(height=4, width=5), X, 1, False, False),
    "center_crop_smaller": ("CenterCrop", dict(height=8, width=5), X, 2, False, False),
    "center_crop_channels_first": ("CenterCrop", dict(height=3, width=4, data_format="channels_first"), XCF, 3,
                                   False, False),
    "center_crop_unbatched": ("CenterCrop", dict(height=5, width=3), X3, 4, False, False),
    "random_crop": ("RandomCrop", dict(height=4, width=5, seed=1), X, 1, True, False),
    "random_crop_small": ("RandomCrop", dict(height=7, width=5, seed=1), X, 2, True, False),
    "random_crop_channels_first": ("RandomCrop", dict(height=3, width=4, seed=2, data_format="channels_first"),
                                   XCF, 3, True, False),
    "random_crop_unbatched": ("RandomCrop", dict(height=2, width=3, seed=3), X3, 4, True, False),
    "random_flip": ("RandomFlip", dict(seed=1), (4, 6, 7, 2), 1, True, False),
    "random_flip_horizontal": ("RandomFlip", dict(mode="horizontal", seed=2), (4, 6, 7, 2), 2, True, False),
    "random_flip_vertical": ("RandomFlip", dict(mode="vertical", seed=3), (4, 6, 7, 2), 3, True, False),
    "random_flip_channels_first": ("RandomFlip", dict(mode="horizontal", data_format="channels_first"),
                                   (4, 2, 6, 7), 4, True, False),
    "random_flip_unbatched": ("RandomFlip", dict(mode="horizontal"), X3, 11, True, False),
    "random_rotation_reflect": ("RandomRotation", dict(factor=0.3), X, 1, True, True),
    "random_rotation_wrap": ("RandomRotation", dict(factor=0.3, fill_mode="wrap"), X, 2, True, True),
    "random_rotation_constant": ("RandomRotation", dict(factor=(-0.4, 0.2), fill_mode="constant", fill_value=0.3),
                                 X, 3, True, True),
    "random_rotation_nearest_fill": ("RandomRotation", dict(factor=0.25, fill_mode="nearest"), X, 4, True, True),
    "random_rotation_nearest_interp": ("RandomRotation", dict(factor=0.3, interpolation="nearest"), X, 5, True,
                                       True),
    "random_rotation_channels_first": ("RandomRotation", dict(factor=0.2, data_format="channels_first"), XCF, 6,
                                       True, True),
    "random_rotation_unbatched": ("RandomRotation", dict(factor=0.2, fill_mode="constant"), X3, 7, True, True),
    "random_zoom_reflect": ("RandomZoom", dict(height_factor=0.5), X, 1, True, True),
    "random_zoom_wh_wrap": ("RandomZoom", dict(height_factor=(0.2, 0.6), width_factor=(-0.5, -0.2),
                                               fill_mode="wrap"), X, 2, True, True),
    "random_zoom_constant": ("RandomZoom", dict(height_factor=0.6, fill_mode="constant", fill_value=-0.2), X, 3,
                             True, True),
    "random_zoom_nearest": ("RandomZoom", dict(height_factor=0.7, width_factor=0.4, fill_mode="nearest",
                                               interpolation="nearest"), X, 4, True, True),
    "random_zoom_unbatched": ("RandomZoom", dict(height_factor=0.4), X3, 5, True, True),
    "random_translation_reflect": ("RandomTranslation", dict(height_factor=0.4, width_factor=0.5), X, 1, True,
                                   True),
    "random_translation_wrap": ("RandomTranslation", dict(height_factor=(-0.6, 0.6), width_factor=0.7,
                                                          fill_mode="wrap"), X, 2, True, True),
    "random_translation_constant": ("RandomTranslation", dict(height_factor=0.5, width_factor=0.5,
                                                              fill_mode="constant", fill_value=0.7), X, 3, True,
                                    True),
    "random_translation_nearest": ("RandomTranslation", dict(height_factor=0.3, width_factor=(0.1, 0.6),
                                                             fill_mode="nearest", interpolation="nearest"), X, 4,
                                   True, True),
    "random_translation_channels_first": ("RandomTranslation", dict(height_factor=0.3, width_factor=0.3,
                                                                    data_format="channels_first"), XCF, 5, True,
                                          True),
    "random_shear_reflect": ("RandomShear", dict(x_factor=0.5, y_factor=0.3), X, 1, True, True),
    "random_shear_wrap": ("RandomShear", dict(x_factor=(0.2, 0.9), y_factor=0.0, fill_mode="wrap"), X, 2, True,
                          True),
    "random_shear_constant": ("RandomShear", dict(x_factor=0.0, y_factor=0.8, fill_mode="constant",
                                                  fill_value=0.5, interpolation="nearest"), X, 3, True, True),
    "random_shear_unbatched": ("RandomShear", dict(x_factor=0.6, y_factor=0.6, fill_mode="nearest"), X3, 4, True,
                               True),
    "random_perspective": ("RandomPerspective", dict(factor=1.0, scale=0.8), X, 1, True, True),
    "random_perspective_some": ("RandomPerspective", dict(factor=0.5, scale=1.0, fill_value=0.2), (4, 6, 7, 2), 2,
                                True, True),
    "random_perspective_nearest": ("RandomPerspective", dict(factor=(0.5, 1.0), scale=0.6,
                                                             interpolation="nearest"), X, 3, True, True),
    "random_perspective_channels_first": ("RandomPerspective", dict(scale=0.5, data_format="channels_first"), XCF,
                                          4, True, True),
}


def exact_grad(layer, x, t, v):
    """d sum(transform_images(x, t) * v) / dx, exactly: the transform is affine in x, so push basis
    images of one example through it (with that example's transformation repeated) minus zero images."""
    batched = x.ndim == 4
    xb = x if batched else x[None]
    vb = v if batched else v[None]
    b = xb.shape[0]
    n = int(np.prod(xb.shape[1:]))
    basis = np.eye(n, dtype=np.float32).reshape((n, *xb.shape[1:]))
    grads = []
    for i in range(b):
        ti = {}
        for key, val in t.items():
            if isinstance(val, tf.Tensor) and val.shape.rank >= 1 and (not batched or val.shape[0] == b):
                row = val[i : i + 1] if batched else (val[None] if key == "rotation_matrix" else val[0:1])
                ti[key] = tf.repeat(row, n, axis=0)
            else:
                ti[key] = val
        out = np.asarray(layer.transform_images(tf.constant(basis), ti, training=True))
        # The constant fill makes the map affine: subtract the image of zero.
        out = out - np.asarray(layer.transform_images(tf.zeros_like(basis), ti, training=True))
        grads.append((out * vb[i][None]).reshape(n, -1).sum(axis=1).reshape(xb.shape[1:]))
    g = np.stack(grads)
    return g if batched else g[0]


out = {"keras_version": keras.__version__, "tf_version": tf.__version__, "cases": {}}
for case, (cls, kwargs, shape, k, _is_random, is_affine) in CASES.items():
    keras.utils.clear_session()
    layer = getattr(L, cls)(**kwargs)
    x = fixed(shape, k)
    xt = tf.constant(x)
    t = layer.get_random_transformation(xt, training=True, seed=keras.random.SeedGenerator(k + 100))
    with tf.GradientTape() as tape:
        tape.watch(xt)
        if x.ndim == 3:
            y = layer.transform_single_image(xt, t, training=True)
        else:
            y = layer.transform_images(xt, t, training=True)
        v = fixed(tuple(y.shape), 9)
        loss = tf.reduce_sum(y * v)
    try:
        g = tape.gradient(loss, xt)
    except LookupError:  # ResizeArea has no registered gradient in TensorFlow
        g = None
    inference = layer(x, training=False)
    rec = {
        "class": cls,
        "kwargs": kwargs,
        "input_shape": list(shape),
        "input_k": k,
        "name": layer.name,
        "weights": [[w.path, list(w.shape)] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
        "config": config_values(layer.get_config()),
        "transformation": jsonable(t),
        "output": np.asarray(y, np.float64).tolist(),
        "output_shape": list(y.shape),
        "output_dtype": str(np.asarray(y).dtype),
        "inference_output": np.asarray(inference, np.float64).tolist(),
        "grad_tape": None if g is None else np.asarray(g, np.float64).tolist(),
    }
    # Dict inputs: segmentation masks follow the images (nearest interpolation where Keras resamples).
    masks = mask_for(shape, kwargs.get("data_format") == "channels_first", k)
    try:
        if x.ndim == 3:
            ym = layer.transform_single_segmentation_mask(tf.constant(masks), t, training=True)
        else:
            ym = layer.transform_segmentation_masks(tf.constant(masks), t, training=True)
        labels = np.arange(shape[0] if x.ndim == 4 else 1, dtype=np.int32)
        inf = layer({"images": x, "segmentation_masks": masks, "labels": labels}, training=False)
        assert np.array_equal(np.asarray(inf["labels"]), labels)
        rec["mask_output"] = np.asarray(ym).tolist()
        rec["mask_dtype"] = str(np.asarray(ym).dtype)
        rec["mask_inference"] = np.asarray(inf["segmentation_masks"]).tolist()
        rec["mask_inference_dtype"] = str(np.asarray(inf["segmentation_masks"]).dtype)
    except TypeError:  # Keras' pad_to_aspect_ratio multiplies integer masks by a float fill value
        rec["mask_output"] = None
    if is_affine:
        rec["grad_exact"] = exact_grad(layer, x, t, v).astype(np.float64).tolist()
    if x.ndim == 4:
        sym = layer(keras.Input(shape=shape[1:]))
        rec["symbolic_shape"] = list(sym.shape)
    out["cases"][case] = rec

# Integer images: Resizing rounds and saturate-casts back to the input dtype.
keras.utils.clear_session()
xi = np.round((fixed((1, 5, 6, 1), 3) + 0.5) * 255).astype(np.uint8)
yi = L.Resizing(3, 4)(xi)
out["resizing_uint8"] = {"input": xi.tolist(), "output": np.asarray(yi).tolist(), "dtype": str(np.asarray(yi).dtype)}

# Pipeline: a deterministic chain, its config and shapes; random members are the identity in inference.
keras.utils.clear_session()
pipe = L.Pipeline([L.Resizing(5, 6), L.CenterCrop(4, 4)])
xp = fixed((2, 6, 7, 2), 12)
cfg = pipe.get_config()
out["pipeline"] = {
    "name": pipe.name,
    "config_keys": sorted(cfg),
    "layer_entries": [sorted(e) for e in cfg["layers"]],
    "layer_classes": [e["class_name"] for e in cfg["layers"]],
    "layer_modules": [e["module"] for e in cfg["layers"]],
    "output": np.asarray(pipe(xp), np.float64).tolist(),
    "symbolic_shape": list(pipe(keras.Input((6, 7, 2))).shape),
    "weights": [w.path for w in pipe.weights],
}
rnd = L.Pipeline([L.RandomFlip(), L.RandomRotation(0.2), L.Resizing(3, 3)])
out["pipeline"]["random_inference"] = np.asarray(rnd(xp, training=False), np.float64).tolist()

json.dump(out, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
