# Generates keras_image_color_reference.json with TensorFlow 2.21 / Keras 3.15 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_image_color_reference.py \
#       > tests/data/keras_image_color_reference.json
#
# Records what tests/test_keras_image_color.py compares tapers' colour augmentation layers with.
# Keras' random streams differ from tapers', so for each case the script draws a transformation with
# the layer's `get_random_transformation` and records it; the test feeds the same transformation to
# tapers' `transform_images`. Per case: the layer's constructor arguments, the input (from `fixed()`,
# scaled into `value_range`), the transformation dict (values, dtype, shape), the transformed output,
# the gradient of sum(out * fixed) with respect to the input (tf.GradientTape; none for layers whose
# output is not differentiable), the output of a call with training=False, the output shape of a
# symbolic keras.Input call (None batch dim), MixUp's and CutMix's transform_labels of fixed labels,
# the weights (none: these layers have no weights) and get_config(). RandomColorJitter draws its inner
# transformations inside transform_images, so the script wraps the inner layers'
# get_random_transformation to record what they drew.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__
keras.utils.set_random_seed(1234)


def fixed(shape, k=0):
    """Deterministic weights/inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def image(shape, value_range, k=0):
    lo, hi = value_range
    return ((fixed(shape, k) + np.float32(0.5)) * np.float32(hi - lo) + np.float32(lo)).astype(np.float32)


def jsonable(v):
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (np.generic,)):
        return v.item()
    return v


def record_tensor(t):
    a = np.asarray(t)
    return {"value": a.astype(np.float64).tolist(), "dtype": str(a.dtype), "shape": list(a.shape)}


def record_transformation(t):
    if t is None:
        return None
    if isinstance(t, dict):
        return {k: record_transformation(v) for k, v in t.items()}
    return record_tensor(t)


# (name, class, kwargs, input shape, value range used for the input, batched, differentiable)
B = (2, 5, 6, 3)
U = (5, 6, 3)
CF = (2, 3, 5, 6)
CASES = [
    ("contrast", "RandomContrast", {"factor": 0.5}, B, (0, 255), True),
    ("contrast_pair_unit", "RandomContrast", {"factor": (0.2, 0.8), "value_range": (0, 1)}, U, (0, 1), True),
    ("contrast_cf", "RandomContrast", {"factor": 0.4, "data_format": "channels_first"}, CF, (0, 255), True),
    ("brightness", "RandomBrightness", {"factor": 0.3}, B, (0, 255), True),
    ("brightness_pair", "RandomBrightness", {"factor": (-0.2, 0.5), "value_range": (-1, 1)}, B, (-1, 1), True),
    ("brightness_single", "RandomBrightness", {"factor": 0.4}, U, (0, 255), True),
    ("grayscale", "RandomGrayscale", {"factor": 0.5}, (4, 5, 6, 3), (0, 255), True),
    ("grayscale_cf", "RandomGrayscale", {"factor": 1.0, "data_format": "channels_first"}, CF, (0, 255), True),
    ("grayscale_single", "RandomGrayscale", {"factor": 1.0}, U, (0, 1), True),
    ("invert", "RandomInvert", {}, B, (0, 255), True),
    ("invert_unit", "RandomInvert", {"factor": 0.7, "value_range": (0, 1)}, (4, 5, 6, 3), (0, 1), True),
    ("invert_single", "RandomInvert", {"factor": 1.0}, U, (0, 255), True),
    ("solarization", "Solarization", {"addition_factor": (0.1, 0.3), "threshold_factor": (0.2, 0.8)},
     B, (0, 255), True),
    ("solarization_unit", "Solarization", {"threshold_factor": 0.6, "value_range": (0, 1)}, B, (0, 1), True),
    ("solarization_default", "Solarization", {}, U, (0, 255), True),
    ("posterization", "RandomPosterization", {"factor": 4}, B, (0, 255), False),
    ("posterization_pair_unit", "RandomPosterization", {"factor": (2, 6), "value_range": (0, 1)},
     (4, 5, 6, 3), (0, 1), False),
    ("posterization_fixed", "RandomPosterization", {"factor": (3, 3)}, U, (0, 255), False),
    ("saturation", "RandomSaturation", {"factor": (0.2, 0.8)}, B, (0, 255), True),
    ("saturation_unit", "RandomSaturation", {"factor": (0.6, 0.9), "value_range": (0, 1)}, B, (0, 1), True),
    ("saturation_cf", "RandomSaturation", {"factor": (0.1, 0.4), "data_format": "channels_first"},
     CF, (0, 255), True),
    ("hue", "RandomHue", {"factor": 0.5}, (4, 5, 6, 3), (0, 255), True),
    ("hue_pair_unit", "RandomHue", {"factor": (0.2, 0.4), "value_range": (0, 1)}, B, (0, 1), True),
    ("hue_single", "RandomHue", {"factor": 0.8}, U, (0, 255), True),
    ("degeneration", "RandomColorDegeneration", {"factor": 0.5}, B, (0, 255), True),
    ("degeneration_unit", "RandomColorDegeneration", {"factor": (0.1, 0.9), "value_range": (0, 1)},
     B, (0, 1), True),
    ("sharpness", "RandomSharpness", {"factor": 0.5}, B, (0, 255), True),
    ("sharpness_unit", "RandomSharpness", {"factor": (0.6, 1.0), "value_range": (0, 1)}, B, (0, 1), True),
    ("sharpness_cf", "RandomSharpness", {"factor": (0.0, 0.4), "data_format": "channels_first"},
     CF, (0, 255), True),
    ("autocontrast", "AutoContrast", {}, B, (40, 160), True),
    ("autocontrast_unit", "AutoContrast", {"value_range": (0, 1)}, U, (0.2, 0.7), True),
    ("equalization", "Equalization", {}, B, (0, 255), False),
    ("equalization_unit", "Equalization", {"value_range": (0, 1)}, U, (0, 1), False),
    ("equalization_cf_bins", "Equalization", {"bins": 64, "data_format": "channels_first"}, CF, (0, 255), False),
    ("erasing", "RandomErasing", {}, (4, 5, 6, 3), (0, 255), True),
    ("erasing_fill", "RandomErasing", {"scale": (0.2, 0.5), "fill_value": 10.0, "value_range": (0, 1)},
     (4, 5, 6, 3), (0, 1), True),
    ("erasing_fill3", "RandomErasing", {"factor": 0.9, "fill_value": (100.0, 200.0, 300.0)}, (4, 5, 6, 3),
     (0, 255), True),
    ("erasing_cf", "RandomErasing", {"fill_value": 7.0, "data_format": "channels_first"}, (4, 3, 5, 6),
     (0, 255), True),
    ("erasing_single", "RandomErasing", {}, U, (0, 255), True),
    ("blur", "RandomGaussianBlur", {}, (4, 5, 6, 3), (0, 255), True),
    ("blur_sizes", "RandomGaussianBlur", {"kernel_size": (3, 5), "sigma": (0.5, 0.9), "value_range": (0, 1)},
     (4, 5, 6, 3), (0, 1), True),
    ("blur_cf", "RandomGaussianBlur", {"kernel_size": 5, "data_format": "channels_first"}, (4, 3, 5, 6),
     (0, 255), True),
    ("blur_single", "RandomGaussianBlur", {"factor": 1.0}, U, (0, 255), True),
    ("mixup", "MixUp", {}, (4, 5, 6, 3), (0, 255), True),
    ("mixup_alpha", "MixUp", {"alpha": 2.0}, (4, 5, 6, 3), (0, 1), True),
    ("mixup_single", "MixUp", {}, U, (0, 255), True),
    ("cutmix", "CutMix", {}, (4, 5, 6, 3), (0, 255), True),
    ("cutmix_factor_cf", "CutMix", {"factor": (0.3, 0.6), "data_format": "channels_first"}, (4, 3, 5, 6),
     (0, 255), True),
    ("cutmix_single", "CutMix", {}, U, (0, 255), True),
    ("jitter", "RandomColorJitter",
     {"brightness_factor": 0.2, "contrast_factor": 0.3, "saturation_factor": (0.3, 0.7), "hue_factor": 0.3},
     B, (0, 255), True),
    ("jitter_unit", "RandomColorJitter",
     {"value_range": (0, 1), "brightness_factor": (-0.1, 0.1), "hue_factor": (0.1, 0.2)}, B, (0, 1), True),
]


def run_case(name, cls_name, kwargs, shape, in_range, differentiable):
    cls = getattr(keras.layers, cls_name)
    layer = cls(**kwargs) if cls_name in ("AutoContrast", "Equalization") else cls(**kwargs, seed=7)
    x_np = image(shape, in_range, k=len(name))
    if name in ("autocontrast", "equalization"):  # one constant channel: left unchanged
        x_np[1, :, :, 2] = 100.0
    if name == "equalization":
        x_np[:, :, :, 1] = 100.0
    x = tf.constant(x_np)
    batched = len(shape) == 4
    xb = x if batched else x[None]
    w = tf.constant(fixed(tuple(xb.shape), 3))
    recorded = {}
    if cls_name == "RandomColorJitter":
        for key, inner in (("brightness", layer.random_brightness), ("contrast", layer.random_contrast),
                           ("saturation", layer.random_saturation), ("hue", layer.random_hue)):
            if inner is None:
                continue

            def wrap(fn, key=key):
                def g(*a, **k):
                    t = fn(*a, **k)
                    recorded[key] = t
                    return t
                return g

            inner.get_random_transformation = wrap(inner.get_random_transformation)
        transformation = None
    else:
        transformation = layer.get_random_transformation(x, training=True)
    with tf.GradientTape() as tape:
        tape.watch(xb)
        out = layer.transform_images(xb, transformation, training=True)
        loss = tf.reduce_sum(tf.cast(out, tf.float32) * w)
    grad = tape.gradient(loss, xb) if differentiable else None
    if cls_name == "RandomColorJitter":
        transformation = {k: dict(v) for k, v in recorded.items()}
    labels_output = None
    if cls_name in ("MixUp", "CutMix") and batched:
        labels = tf.constant(fixed((shape[0], 4), 2))
        labels_output = np.asarray(layer.transform_labels(labels, transformation)).astype(np.float64).tolist()
    inference = layer(x, training=False)
    sym_shape = (None, *shape[1:]) if batched else tuple(shape)
    sym = layer(keras.Input(batch_shape=sym_shape))
    config = layer.get_config()
    return {
        "class": cls_name,
        "kwargs": jsonable(kwargs),
        "input": x_np.astype(np.float64).tolist(),
        "shape": list(shape),
        "batched": batched,
        "transformation": record_transformation(transformation),
        "output": np.asarray(out if batched else out[0]).astype(np.float64).tolist(),
        "grad": None if grad is None else np.asarray(grad if batched else grad[0]).astype(np.float64).tolist(),
        "labels_output": labels_output,
        "inference": np.asarray(inference).astype(np.float64).tolist(),
        "symbolic_shape": list(sym.shape),
        "weights": [[v.path, list(v.shape)] for v in layer.weights],
        "config_keys": sorted(config),
        "config": jsonable({k: v for k, v in config.items() if k not in ("name", "dtype")}),
    }


def main():
    out = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__, "cases": {}}
    for case in CASES:
        out["cases"][case[0]] = run_case(*case)
    # HSV conversions (the kernels RandomSaturation and RandomHue go through).
    rgb = image((4, 5, 3), (0, 1), 11)
    rgb[0, 0] = [0.5, 0.5, 0.5]  # gray: hue 0
    rgb[0, 1] = [0.0, 0.0, 0.0]  # black: saturation 0
    rgb[0, 2] = [0.9, 0.9, 0.1]  # ties of the maximum
    hsv = tf.image.rgb_to_hsv(rgb)
    out["hsv"] = {
        "rgb": rgb.astype(np.float64).tolist(),
        "hsv": np.asarray(hsv).astype(np.float64).tolist(),
        "back": np.asarray(tf.image.hsv_to_rgb(hsv)).astype(np.float64).tolist(),
    }
    # keras.ops.image.hsv_to_rgb on hues outside [0, 1] (TF's kernel, no wrap).
    any_hue = image((2, 6, 3), (0, 1), 12)
    any_hue[..., 0] = np.linspace(-1.5, 2.5, 12, dtype=np.float32).reshape(2, 6)
    out["hsv_any_hue"] = {
        "hsv": any_hue.astype(np.float64).tolist(),
        "rgb": np.asarray(keras.ops.image.hsv_to_rgb(any_hue)).astype(np.float64).tolist(),
    }
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
