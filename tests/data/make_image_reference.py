# Generates image_reference.json with TensorFlow 2.21 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_image_reference.py > tests/data/image_reference.json
#
# Records what tests/test_image.py compares tapers.image with: for each case (a tf.image function,
# positional/keyword arguments and a deterministic input `make_input(shape, dtype, k)`), the output's
# values, shape and dtype, and for float inputs of differentiable functions the gradient w.r.t. the
# input of sum(out * fixed(out.shape, 9)) taken with tf.GradientTape. Error cases record the exception
# class name and message TF raises for bad inputs (wrong rank, boxes that do not fit, bad fractions).
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def fixed(shape, k=0):
    """Deterministic inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def make_input(shape, dtype, k):
    """float: fixed + 0.5 in [0, 1]; integer dtypes: that scaled to [0, 255] and rounded."""
    base = fixed(shape, k).astype(np.float64) + 0.5
    if dtype in ("float32", "float64", "float16"):
        return base.astype(dtype)
    return np.round(base * 255).astype(dtype)


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


S4 = (2, 4, 5, 3)
S3 = (4, 5, 3)
# name: (function, input shape, dtype, k, args, kwargs, differentiable)
CASES = {}
for i, (src, dst) in enumerate([((4, 5), (8, 10)), ((4, 5), (3, 7)), ((6, 6), (2, 3)), ((5, 3), (5, 3)),
                                ((7, 9), (4, 4)), ((3, 4), (1, 1)), ((4, 4), (9, 2))]):
    for m in ("bilinear", "nearest", "bicubic"):
        CASES[f"resize_{m}_{i}"] = ("resize", (2, *src, 2), "float32", i, [list(dst)], {"method": m}, True)
    # TF has no gradient for ResizeArea: values only (tapers' gradient is checked by finite differences).
    CASES[f"resize_area_{i}"] = ("resize", (2, *src, 2), "float32", i, [list(dst)], {"method": "area"}, False)
CASES["resize_bilinear_hwc"] = ("resize", (4, 5, 3), "float32", 20, [[7, 3]], {}, True)
CASES["resize_bilinear_uint8"] = ("resize", (1, 4, 5, 3), "uint8", 21, [[6, 3]], {}, False)
CASES["resize_nearest_uint8"] = ("resize", (1, 4, 5, 3), "uint8", 22, [[6, 3]], {"method": "nearest"}, False)
CASES["resize_area_uint8"] = ("resize", (1, 5, 7, 3), "uint8", 26, [[3, 4]], {"method": "area"}, False)
CASES["resize_bilinear_f64"] = ("resize", (1, 4, 5, 1), "float64", 23, [[3, 8]], {}, False)
CASES["resize_aspect"] = ("resize", (1, 4, 6, 2), "float32", 24, [[10, 10]], {"preserve_aspect_ratio": True}, True)
CASES["resize_aspect_down"] = ("resize", (1, 5, 3, 2), "float32", 25, [[4, 9]],
                               {"preserve_aspect_ratio": True, "method": "nearest"}, True)
for name, fn in [("flip_lr", "flip_left_right"), ("flip_ud", "flip_up_down"), ("transpose", "transpose")]:
    CASES[f"{name}_4d"] = (fn, S4, "float32", 1, [], {}, True)
    CASES[f"{name}_3d"] = (fn, S3, "float32", 2, [], {}, True)
for k in (-1, 0, 1, 2, 3, 5):
    CASES[f"rot90_k{k}"] = ("rot90", S4, "float32", 3, [], {"k": k}, True)
CASES["rot90_3d"] = ("rot90", S3, "float32", 4, [], {"k": 1}, True)
for f in (0.5, 0.33, 0.9, 1.0):
    CASES[f"central_crop_{f}"] = ("central_crop", (2, 7, 6, 2), "float32", 5, [f], {}, True)
CASES["central_crop_3d"] = ("central_crop", (9, 5, 2), "float32", 6, [0.6], {}, True)
CASES["crop_box"] = ("crop_to_bounding_box", S4, "float32", 7, [1, 2, 2, 3], {}, True)
CASES["crop_box_3d"] = ("crop_to_bounding_box", S3, "int32", 8, [0, 0, 4, 5], {}, False)
CASES["pad_box"] = ("pad_to_bounding_box", S4, "float32", 9, [1, 2, 7, 8], {}, True)
CASES["pad_box_3d"] = ("pad_to_bounding_box", S3, "uint8", 10, [0, 1, 4, 6], {}, False)
for th, tw in [(6, 3), (2, 8), (4, 5), (3, 2), (7, 9)]:
    CASES[f"crop_or_pad_{th}_{tw}"] = ("resize_with_crop_or_pad", S4, "float32", 11, [th, tw], {}, True)
for src, dst, sat in [("uint8", "float32", False), ("uint8", "int32", False), ("int32", "uint8", False),
                      ("uint8", "int16", False), ("int16", "uint8", True), ("float32", "uint8", False),
                      ("float32", "int32", False), ("float32", "float64", False), ("uint8", "float64", False),
                      ("float64", "uint8", True), ("float32", "int16", True)]:
    CASES[f"convert_{src}_{dst}_{sat}"] = ("convert_image_dtype", S3, src, 12, [dst], {"saturate": sat}, False)
CASES["standardize_4d"] = ("per_image_standardization", S4, "float32", 13, [], {}, True)
CASES["standardize_uint8"] = ("per_image_standardization", S3, "uint8", 14, [], {}, False)
CASES["brightness"] = ("adjust_brightness", S4, "float32", 15, [0.3], {}, True)
CASES["brightness_uint8"] = ("adjust_brightness", S3, "uint8", 16, [0.2], {}, False)
CASES["contrast"] = ("adjust_contrast", S4, "float32", 17, [1.7], {}, False)  # TF: no gradient for AdjustContrastv2
CASES["contrast_uint8"] = ("adjust_contrast", S3, "uint8", 18, [0.4], {}, False)
CASES["gamma"] = ("adjust_gamma", S4, "float32", 19, [], {"gamma": 2.2, "gain": 0.8}, True)
CASES["gamma_uint8"] = ("adjust_gamma", S3, "uint8", 20, [], {"gamma": 0.5}, False)
CASES["gray"] = ("rgb_to_grayscale", S4, "float32", 21, [], {}, True)
CASES["gray_uint8"] = ("rgb_to_grayscale", S3, "uint8", 22, [], {}, False)
CASES["to_rgb"] = ("grayscale_to_rgb", (2, 4, 5, 1), "float32", 23, [], {}, True)
CASES["tv_4d"] = ("total_variation", S4, "float32", 24, [], {}, True)
CASES["tv_3d"] = ("total_variation", S3, "float32", 25, [], {}, True)

# The part of TF's message the tests require (default: its whole first line).
KEYS = {"random_crop_too_big": "Need value.shape >= size, got", "random_crop_rank": "Incompatible shapes: [4] vs. [3]"}
# name: (function, input shape, dtype, args, kwargs)
ERRORS = {
    "flip_rank2": ("flip_left_right", (4, 5), "float32", [], {}),
    "resize_rank2": ("resize", (4, 5), "float32", [[2, 2]], {}),
    "resize_size3": ("resize", S4, "float32", [[2, 2, 2]], {}),
    "crop_neg_offset": ("crop_to_bounding_box", S4, "float32", [-1, 0, 2, 2], {}),
    "crop_zero_target": ("crop_to_bounding_box", S4, "float32", [0, 0, 0, 2], {}),
    "crop_too_big": ("crop_to_bounding_box", S4, "float32", [2, 0, 3, 2], {}),
    "crop_rank5": ("crop_to_bounding_box", (1, 2, 4, 5, 3), "float32", [0, 0, 1, 1], {}),
    "pad_neg_offset": ("pad_to_bounding_box", S4, "float32", [0, -1, 6, 6], {}),
    "pad_too_small": ("pad_to_bounding_box", S4, "float32", [1, 0, 4, 6], {}),
    "central_zero": ("central_crop", S4, "float32", [0.0], {}),
    "central_big": ("central_crop", S4, "float32", [1.5], {}),
    "crop_or_pad_neg": ("resize_with_crop_or_pad", S4, "float32", [-2, 3], {}),
    "to_rgb_bad": ("grayscale_to_rgb", S4, "float32", [], {}),
    "gradients_rank3": ("image_gradients", S3, "float32", [], {}),
    "standardize_rank2": ("per_image_standardization", (4, 5), "float32", [], {}),
    "random_brightness_neg": ("random_brightness", S4, "float32", [-0.1], {}),
    "random_contrast_order": ("random_contrast", S4, "float32", [0.8, 0.5], {}),
    "random_contrast_neg": ("random_contrast", S4, "float32", [-0.5, 0.5], {}),
    "gamma_neg": ("adjust_gamma", S4, "float32", [-1.0], {}),
    "random_crop_too_big": ("random_crop", S4, "float32", [[3, 2, 2, 3]], {}),
    "random_crop_rank": ("random_crop", S4, "float32", [[2, 2, 3]], {}),
    "gray_rank1": ("grayscale_to_rgb", (3,), "float32", [], {}),
}


def run_case(fn, shape, dtype, k, args, kwargs, diff):
    x = tf.constant(make_input(shape, dtype, k))
    with tf.GradientTape() as tape:
        if diff:
            tape.watch(x)
        y = getattr(tf.image, fn)(x, *args, **kwargs)
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * fixed(tuple(y.shape), 9).astype(np.float64))
    out = {"fn": fn, "shape": list(shape), "dtype": dtype, "k": k, "args": args, "kwargs": kwargs,
           "out": arr(y), "out_shape": list(y.shape), "out_dtype": y.dtype.name}
    if diff:
        out["grad"] = arr(tape.gradient(loss, x))
    return out


ref = {"cases": {}, "errors": {}}
for name, (fn, shape, dtype, k, args, kwargs, diff) in CASES.items():
    ref["cases"][name] = run_case(fn, shape, dtype, k, args, kwargs, diff)
x = tf.constant(make_input((1, 4, 5, 2), "float32", 30))
dy, dx = tf.image.image_gradients(x)
ref["image_gradients"] = {"shape": [1, 4, 5, 2], "k": 30, "dy": arr(dy), "dx": arr(dx)}
a = tf.constant(make_input((2, 4, 5, 3), "float32", 31))
b = tf.constant(make_input((2, 4, 5, 3), "float32", 32))
with tf.GradientTape() as tape:
    tape.watch(a)
    p = tf.image.psnr(a, b, 1.0)
ref["psnr"] = {"a_k": 31, "b_k": 32, "shape": [2, 4, 5, 3], "max_val": 1.0, "out": arr(p),
               "grad_a": arr(tape.gradient(p, a))}
au = tf.constant(make_input((4, 5, 3), "uint8", 33))
bu = tf.constant(make_input((4, 5, 3), "uint8", 34))
ref["psnr_uint8"] = {"a_k": 33, "b_k": 34, "shape": [4, 5, 3], "max_val": 255, "out": arr(tf.image.psnr(au, bu, 255)),
                     "dtype": tf.image.psnr(au, bu, 255).dtype.name}
for name, (fn, shape, dtype, args, kwargs) in ERRORS.items():
    try:
        getattr(tf.image, fn)(tf.constant(make_input(shape, dtype, 0)), *args, **kwargs)
        ref["errors"][name] = None
    except Exception as e:  # noqa: BLE001 - record whatever TF raises
        ref["errors"][name] = {"fn": fn, "shape": list(shape), "dtype": dtype, "args": args, "kwargs": kwargs,
                               "class": type(e).__name__, "message": str(e).splitlines()[0][:300],
                               "key": KEYS.get(name, str(e).splitlines()[0][:300])}
print(json.dumps(ref))
