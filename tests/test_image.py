"""tapers.image against TensorFlow 2.21 (tests/data/image_reference.json, written by
make_image_reference.py): values, shapes, dtypes and input gradients of resize, flips, rot90, crops,
pads, dtype conversion and color adjustments; plus float64 finite-difference gradients,
tf.function, seeded/statistical checks of the random functions and TF's errors on bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "image_reference.json").read_text())
CASES = REF["cases"]


def fixed(shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    """The reference script's deterministic values: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def make_input(shape: tuple[int, ...], dtype: str, k: int) -> np.ndarray:
    base = fixed(shape, k).astype(np.float64) + 0.5
    if dtype in ("float32", "float64", "float16"):
        return base.astype(dtype)
    return np.round(base * 255).astype(dtype)


def run(ref: dict[str, Any], x: Any) -> Any:
    return getattr(tf.image, ref["fn"])(x, *ref["args"], **ref["kwargs"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tf(case: str) -> None:
    ref = CASES[case]
    x = tf.constant(make_input(tuple(ref["shape"]), ref["dtype"], ref["k"]))
    with tf.GradientTape() as tape:
        if "grad" in ref:
            tape.watch(x)
        y = run(ref, x)
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * fixed(tuple(y.shape), 9).astype(np.float64))
    assert list(y.shape) == ref["out_shape"]
    assert y.dtype.name == ref["out_dtype"]
    want = np.array(ref["out"])
    if y.dtype.is_integer:
        # float -> int conversions truncate; one ulp of float32 may move a value across an integer.
        np.testing.assert_allclose(y.numpy().astype(np.float64), want, rtol=0, atol=1)
        assert np.mean(y.numpy().astype(np.float64) == want) > 0.95
    else:
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
    if "grad" in ref:
        g = tape.gradient(loss, x)
        np.testing.assert_allclose(g.numpy(), np.array(ref["grad"]), rtol=1e-5, atol=1e-5)


def _fd_check(fn: Any, x0: np.ndarray, eps: float = 1e-6, tol: float = 1e-6) -> None:
    x = tf.constant(x0)
    w = np.cos(np.arange(int(np.prod(fn(x).shape)))).reshape(tuple(fn(x).shape))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(fn(x) * w)
    g = tape.gradient(loss, x).numpy()
    num = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        xp, xm = x0.copy(), x0.copy()
        xp[i] += eps
        xm[i] -= eps
        fp = float(tf.reduce_sum(fn(tf.constant(xp)) * w))
        num[i] = (fp - float(tf.reduce_sum(fn(tf.constant(xm)) * w))) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=tol, atol=tol)


# Functions that compute in float32 whatever the input (TF converts float64 images to float32 first):
# their finite differences use a larger step and a float32-sized tolerance.
FLOAT32_INSIDE = {"standardize", "contrast", "gamma", "gray"}

FD = {
    "resize_bilinear_up": lambda x: tf.image.resize(x, [5, 7]),
    "resize_bilinear_down": lambda x: tf.image.resize(x, [2, 2]),
    "resize_bicubic": lambda x: tf.image.resize(x, [5, 2], method="bicubic"),
    "resize_area": lambda x: tf.image.resize(x, [2, 3], method="area"),
    "resize_nearest": lambda x: tf.cast(tf.image.resize(x, [5, 7], method="nearest"), tf.float64),
    "rot90": lambda x: tf.image.rot90(x, 3),
    "crop_or_pad": lambda x: tf.image.resize_with_crop_or_pad(x, 2, 6),
    "standardize": tf.image.per_image_standardization,
    "contrast": lambda x: tf.image.adjust_contrast(x, 1.3),
    "gamma": lambda x: tf.image.adjust_gamma(x, 1.7, 0.9),
    "gray": tf.image.rgb_to_grayscale,
    "tv": tf.image.total_variation,
    "gradients": lambda x: tf.concat(tf.image.image_gradients(x), -1),
}


@pytest.mark.parametrize("name", sorted(FD))
def test_finite_difference_float64(name: str) -> None:
    fn = FD[name]
    x0 = make_input((1, 3, 4, 3), "float64", 3)
    if name.startswith("resize"):
        # resize computes in float32 as TF does; the float64 check goes through a float64 cast of the output
        # and compares the weights (exact in float32 for these sizes) at a looser tolerance.
        y = fn(tf.constant(x0))
        assert y.dtype in (tf.float32, tf.float64)
        x = tf.constant(x0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = tf.cast(fn(x), tf.float64)
            w = np.cos(np.arange(int(np.prod(out.shape)))).reshape(tuple(out.shape))
            loss = tf.reduce_sum(out * w)
        g = tape.gradient(loss, x).numpy()
        num = np.zeros_like(x0)
        eps = 1e-2  # the forward pass is float32 but linear in x, so a large step is exact up to rounding
        for i in np.ndindex(x0.shape):
            xp, xm = x0.copy(), x0.copy()
            xp[i] += eps
            xm[i] -= eps
            fp = float(tf.reduce_sum(tf.cast(fn(tf.constant(xp)), tf.float64) * w))
            fm = float(tf.reduce_sum(tf.cast(fn(tf.constant(xm)), tf.float64) * w))
            num[i] = (fp - fm) / (2 * eps)
        if name == "resize_nearest":
            assert g is not None
            return
        np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-4)
        return
    if name in FLOAT32_INSIDE:
        _fd_check(fn, x0, eps=1e-3, tol=2e-3)
    else:
        _fd_check(fn, x0)


def test_image_gradients_and_psnr() -> None:
    r = REF["image_gradients"]
    dy, dx = tf.image.image_gradients(tf.constant(make_input(tuple(r["shape"]), "float32", r["k"])))
    np.testing.assert_allclose(dy.numpy(), r["dy"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(dx.numpy(), r["dx"], rtol=1e-6, atol=1e-6)
    p = REF["psnr"]
    a = tf.constant(make_input(tuple(p["shape"]), "float32", p["a_k"]))
    b = tf.constant(make_input(tuple(p["shape"]), "float32", p["b_k"]))
    with tf.GradientTape() as tape:
        tape.watch(a)
        out = tf.image.psnr(a, b, p["max_val"])
    np.testing.assert_allclose(out.numpy(), p["out"], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(out, a).numpy(), p["grad_a"], rtol=1e-4, atol=1e-5)
    q = REF["psnr_uint8"]
    au = tf.constant(make_input(tuple(q["shape"]), "uint8", q["a_k"]))
    bu = tf.constant(make_input(tuple(q["shape"]), "uint8", q["b_k"]))
    out = tf.image.psnr(au, bu, q["max_val"])
    assert out.dtype.name == q["dtype"]
    np.testing.assert_allclose(out.numpy(), q["out"], rtol=1e-5)


@pytest.mark.parametrize("name", sorted(REF["errors"]))
def test_errors_match_tf(name: str) -> None:
    ref = REF["errors"][name]
    x = tf.constant(make_input(tuple(ref["shape"]), ref["dtype"], 0))
    exc = {"ValueError": ValueError, "InvalidArgumentError": tf.errors.InvalidArgumentError}[ref["class"]]
    with pytest.raises(exc) as info:
        getattr(tf.image, ref["fn"])(x, *ref["args"], **ref["kwargs"])
    assert ref["key"] in str(info.value)


def test_inside_tf_function() -> None:
    x = tf.constant(make_input((2, 4, 5, 3), "float32", 1))

    def body(x: Any) -> Any:
        r = tf.image.resize(x, [7, 3])
        c = tf.image.resize_with_crop_or_pad(tf.image.rot90(x), 4, 4)
        return tf.reduce_sum(r) + tf.reduce_sum(c * tf.image.per_image_standardization(c)), tf.image.flip_left_right(r)

    eager = body(x)
    graph = tf.function(body)(x)
    np.testing.assert_allclose(graph[0].numpy(), eager[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(graph[1].numpy(), eager[1].numpy(), rtol=1e-6)


def test_resize_method_enum_and_unimplemented() -> None:
    x = tf.constant(make_input((1, 4, 4, 1), "float32", 2))
    a = tf.image.resize(x, [3, 3], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    b = tf.image.resize(x, [3, 3], method="nearest")
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert tf.image.ResizeMethod.BILINEAR == "bilinear"
    with pytest.raises(ValueError, match="lanczos3"):
        tf.image.resize(x, [2, 2], method=tf.image.ResizeMethod.LANCZOS3)
    with pytest.raises(ValueError, match="antialias"):
        tf.image.resize(x, [2, 2], antialias=True)


def test_random_flips_statistics_and_seed() -> None:
    x = tf.constant(make_input((400, 2, 3, 1), "float32", 4))
    for fn, ref_fn in ((tf.image.random_flip_left_right, tf.image.flip_left_right),
                       (tf.image.random_flip_up_down, tf.image.flip_up_down)):
        tf.random.set_seed(5)
        y = fn(x, seed=1).numpy()
        flipped = ref_fn(x).numpy()
        is_flip = np.all(y == flipped, axis=(1, 2, 3))
        is_same = np.all(y == x.numpy(), axis=(1, 2, 3))
        assert np.all(is_flip | is_same)
        assert 0.4 < is_flip.mean() < 0.6
        tf.random.set_seed(5)
        np.testing.assert_array_equal(fn(x, seed=1).numpy(), y)


def test_random_ops_inside_tf_function() -> None:
    x = tf.constant(make_input((4, 3, 2, 1), "float32", 5))
    single = tf.constant(make_input((3, 2, 1), "float32", 6))

    @tf.function
    def f(x: Any, single: Any) -> Any:
        return (tf.image.random_flip_left_right(x), tf.image.random_flip_up_down(single),
                tf.image.random_crop(x, [2, 2, 2, 1]), tf.image.random_brightness(x, 0.1),
                tf.image.random_contrast(x, 0.9, 1.1))

    outs = f(x, single)
    assert [tuple(o.shape) for o in outs] == [(4, 3, 2, 1), (3, 2, 1), (2, 2, 2, 1), (4, 3, 2, 1), (4, 3, 2, 1)]
    one = outs[1].numpy()
    assert np.array_equal(one, single.numpy()) or np.array_equal(one, single.numpy()[::-1])


def test_adjust_gamma_negative() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        tf.image.adjust_gamma(tf.constant(make_input((2, 2, 1), "float32", 1)), -1.0)


def test_resize_size_tensor() -> None:
    x = tf.constant(make_input((1, 4, 5, 2), "float32", 1))
    np.testing.assert_array_equal(tf.image.resize(x, tf.constant([3, 7])).numpy(), tf.image.resize(x, [3, 7]).numpy())


def test_random_brightness_contrast_crop() -> None:
    x = tf.constant(make_input((2, 6, 5, 3), "float32", 6))
    tf.random.set_seed(3)
    deltas = [float(tf.reduce_mean(tf.image.random_brightness(x, 0.2) - x)) for _ in range(50)]
    assert all(-0.2 <= d < 0.2 for d in deltas) and np.std(deltas) > 0.05
    xn = x.numpy()
    mean = xn.mean(axis=(1, 2), keepdims=True)
    for _ in range(10):
        y = tf.image.random_contrast(x, 0.5, 1.5).numpy()
        f = (y - mean) / (xn - mean)
        assert 0.5 - 1e-4 <= np.median(f) < 1.5 + 1e-4
        np.testing.assert_allclose(f, np.median(f), rtol=1e-3, atol=1e-3)
    seen = set()
    for _ in range(60):
        c = tf.image.random_crop(x, [2, 3, 4, 3]).numpy()
        assert c.shape == (2, 3, 4, 3)
        hits = [(i, j) for i in range(4) for j in range(2) if np.array_equal(c, xn[:, i:i + 3, j:j + 4, :])]
        assert len(hits) == 1
        seen.add(hits[0])
    assert len(seen) == 8
    tf.random.set_seed(9)
    c1 = tf.image.random_crop(x, [1, 2, 2, 3], seed=4).numpy()
    tf.random.set_seed(9)
    np.testing.assert_array_equal(tf.image.random_crop(x, [1, 2, 2, 3], seed=4).numpy(), c1)


def test_grayscale_round_trip_and_convert_identity() -> None:
    g = tf.constant(make_input((4, 5, 1), "uint8", 7))
    rgb = tf.image.grayscale_to_rgb(g)
    assert rgb.shape == (4, 5, 3) and rgb.dtype == tf.uint8
    np.testing.assert_array_equal(rgb.numpy()[..., 2], g.numpy()[..., 0])
    x = tf.constant(make_input((2, 2, 1), "float32", 8))
    np.testing.assert_array_equal(tf.image.convert_image_dtype(x, tf.float32).numpy(), x.numpy())
