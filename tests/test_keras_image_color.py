"""Keras 3's colour/intensity augmentation layers (tapers.keras.layers._image_color) against
TensorFlow 2.21 / Keras 3.15, through tests/data/keras_image_color_reference.json (written by
tests/data/make_keras_image_color_reference.py).

Random streams differ between tapers and Keras, so each reference case feeds tapers'
``transform_images`` the transformation Keras drew; the draws themselves are checked for their
distribution, seeding and shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf
from tapers.keras.layers import _image_color as M

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "keras_image_color_reference.json").read_text())
CASES = REF["cases"]
NAMES = list(M.__all__)


def fixed(shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    """The reference script's deterministic inputs: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def make(case: dict[str, Any], **extra: Any) -> Any:
    cls = getattr(M, case["class"])
    kwargs = dict(case["kwargs"])
    if case["class"] not in ("AutoContrast", "Equalization"):
        kwargs.setdefault("seed", 7)
    kwargs.update(extra)
    return cls(**kwargs)


def to_transformation(rec: Any) -> Any:
    if rec is None:
        return None
    if "value" in rec and "dtype" in rec:
        return tf.constant(np.asarray(rec["value"]).astype(rec["dtype"]).reshape(rec["shape"]))
    return {k: to_transformation(v) for k, v in rec.items()}


def apply(layer: Any, x: Any, transformation: Any, batched: bool) -> Any:
    if batched:
        return layer.transform_images(x, transformation, training=True)
    return tf.squeeze(layer.transform_images(tf.expand_dims(x, 0), transformation, training=True), [0])


def shape_of(case: dict[str, Any]) -> list[int]:
    return list(case["shape"])


def tol(case: dict[str, Any]) -> dict[str, float]:
    # Values live in the layer's value range (up to 255): the absolute tolerance scales with it.
    lo, hi = case["kwargs"].get("value_range", (0, 255))
    return {"rtol": 1e-5, "atol": 2e-6 * max(1.0, float(hi) - float(lo))}


# ----------------------------------------------------------------------------- parity


@pytest.mark.parametrize("name", list(CASES))
def test_matches_keras(name: str) -> None:
    case = CASES[name]
    layer = make(case)
    x = tf.constant(np.asarray(case["input"], np.float32))
    t = to_transformation(case["transformation"])
    w = tf.constant(fixed(tuple(x.shape) if case["batched"] else (1, *x.shape), 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = apply(layer, x, t, case["batched"])
        loss = tf.reduce_sum(out * (w if case["batched"] else w[0]))
    np.testing.assert_allclose(out.numpy(), np.asarray(case["output"]), **tol(case))
    grad = tape.gradient(loss, x)
    if case["grad"] is not None:
        ref = np.asarray(case["grad"], dtype=np.float64)
        nan = np.isnan(ref)
        # Keras' AutoContrast leaves a constant channel unchanged but its gradient there is NaN
        # (0 * inf through the discarded branch); tapers guards the division: the identity's gradient.
        assert not nan.any() or name == "autocontrast"
        ref = np.where(nan, np.broadcast_to(w.numpy() if case["batched"] else w.numpy()[0], ref.shape), ref)
        np.testing.assert_allclose(grad.numpy(), ref, **tol(case))
    if case.get("labels_output") is not None:
        labels = tf.constant(fixed((shape_of(case)[0], 4), 2))
        np.testing.assert_allclose(layer.transform_labels(labels, t).numpy(), np.asarray(case["labels_output"]),
                                   rtol=1e-5, atol=1e-6)
    # Inference (Keras' identity, except AutoContrast), symbolic shapes, weights, config.
    np.testing.assert_allclose(layer(x, training=False).numpy(), np.asarray(case["inference"]), **tol(case))
    shape = case["shape"]
    sym = layer(tf.keras.Input(batch_shape=[None, *shape[1:]] if case["batched"] else shape))
    assert list(sym.shape) == case["symbolic_shape"]
    assert [[w.name[:-2], list(w.shape)] for w in layer.weights] == case["weights"] == []
    config = layer.get_config()
    assert sorted(config) == case["config_keys"]
    mine = json.loads(json.dumps({k: v for k, v in config.items() if k not in ("name", "dtype")}))
    assert mine == case["config"]


def test_hsv_kernels_match_tensorflow() -> None:
    ref = REF["hsv"]
    rgb = tf.constant(np.asarray(ref["rgb"], np.float32))
    hsv = M._rgb_to_hsv(rgb)
    np.testing.assert_allclose(hsv.numpy(), np.asarray(ref["hsv"]), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(M._hsv_to_rgb(hsv).numpy(), np.asarray(ref["back"]), rtol=1e-6, atol=1e-7)
    # Hues outside [0, 1] go through TF's kernel as they are (no wrap).
    ref = REF["hsv_any_hue"]
    got = tf.keras.ops.image.hsv_to_rgb(tf.constant(np.asarray(ref["hsv"], np.float32)))
    np.testing.assert_allclose(got.numpy(), np.asarray(ref["rgb"]), rtol=1e-6, atol=1e-7)


def test_transformation_keys_and_shapes_match_keras() -> None:
    for name, case in CASES.items():
        layer = make(case)
        x = tf.constant(np.asarray(case["input"], np.float32))
        mine = layer.get_random_transformation(x, training=True)
        ref = case["transformation"]

        def shapes(t: Any) -> Any:
            if t is None:
                return None
            if isinstance(t, dict) and not ("value" in t and "dtype" in t):
                return {k: shapes(v) for k, v in t.items()}
            if isinstance(t, dict):
                return (t["dtype"], t["shape"])
            return (t.dtype.name, list(t.shape))

        assert shapes(mine) == shapes(ref), name


# ----------------------------------------------------------------------------- gradients


def _fd_check(layer: Any, x: np.ndarray, t: Any) -> None:
    w = fixed(x.shape, 5).astype(np.float64)

    def loss(v: Any) -> Any:
        return tf.reduce_sum(layer.transform_images(v, t, training=True) * w)

    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        value = loss(xt)
    grad = tape.gradient(value, xt).numpy()
    eps = 1e-6
    flat = x.reshape(-1)
    num = np.zeros_like(flat)
    for i in range(flat.size):
        p, m = flat.copy(), flat.copy()
        p[i] += eps
        m[i] -= eps
        num[i] = (float(loss(tf.constant(p.reshape(x.shape)))) - float(loss(tf.constant(m.reshape(x.shape))))) / (
            2 * eps
        )
    np.testing.assert_allclose(grad.reshape(-1), num, rtol=1e-5, atol=1e-6)


def _t64(t: Any) -> Any:
    return {k: (tf.cast(v, "float64") if v.dtype.name == "float32" else v) for k, v in t.items()}


FD_CASES = {
    "RandomContrast": ({"factor": 0.2, "value_range": (0, 1)}, {"contrast_factor": [[[[1.1]]], [[[0.9]]]]}),
    "RandomBrightness": ({"factor": 0.2, "value_range": (0, 1)}, {"rgb_delta": [[[[0.05]]], [[[-0.04]]]]}),
    "RandomInvert": ({"value_range": (0, 1)}, {"apply_inversion": [True, False]}),
    "Solarization": ({"value_range": (0, 1), "threshold_factor": 1.0}, {"additions": [[[[10.0]]], [[[3.0]]]],
                                                                          "thresholds": [[[[140.0]]], [[[90.0]]]]}),
    "RandomSaturation": ({"factor": 0.5, "value_range": (0, 1)}, {"factor": [0.7, 1.3]}),
    "RandomHue": ({"factor": 0.5, "value_range": (0, 1)}, {"factor": [0.13, -0.21]}),
    "RandomColorDegeneration": ({"factor": 0.5, "value_range": (0, 1)}, {"factor": [[[[0.3]]], [[[-0.2]]]]}),
    "RandomSharpness": ({"factor": 0.5, "value_range": (0, 1)}, {"factor": [0.2, 0.9]}),
    "RandomGaussianBlur": ({"kernel_size": (3, 5), "value_range": (-5, 5)},
                           {"should_apply_blur": [True, False], "blur_factor": [0.7, 0.4]}),
    "RandomErasing": ({"value_range": (0, 1)}, {
        "apply_erasing": [True, False],
        "batch_masks": np.arange(54).reshape(2, 3, 3, 3) % 4 == 1,
        "fill_value": fixed((2, 3, 3, 3), 9) + 0.5,
    }),
    "MixUp": ({}, {"mix_weight": [0.3, 0.8], "permutation_order": np.array([1, 0], np.int64)}),
    "CutMix": ({}, {"permutation_order": np.array([1, 0], np.int32),
                    "batch_masks": np.arange(54).reshape(2, 3, 3, 3) % 3 == 0, "mix_weight": [0.5, 0.5]}),
}


@pytest.mark.parametrize("cls_name", list(FD_CASES))
def test_float64_finite_differences(cls_name: str) -> None:
    kwargs, t = FD_CASES[cls_name]
    layer = getattr(M, cls_name)(dtype="float64", **kwargs)
    x = (0.25 + 0.5 * (fixed((2, 3, 3, 3), 1).astype(np.float64) + 0.5)).astype(np.float64)
    def conv(v: Any) -> Any:
        a = np.asarray(v)
        return tf.constant(a if a.dtype.kind in "bi" else a.astype(np.float64))

    tt = {k: conv(v) for k, v in t.items()}
    _fd_check(layer, x, tt)


def test_float64_finite_differences_grayscale_autocontrast_jitter() -> None:
    x = (0.25 + 0.5 * (fixed((2, 3, 3, 3), 2).astype(np.float64) + 0.5)).astype(np.float64)
    gray = M.RandomGrayscale(1.0, dtype="float64")
    _fd_check(gray, x, tf.constant(np.array([True, False]).reshape(2, 1, 1, 1)))
    _fd_check(M.AutoContrast(value_range=(0, 1), dtype="float64"), x, None)
    jitter = M.RandomColorJitter(value_range=(0, 1), brightness_factor=0.1, contrast_factor=0.2,
                                 saturation_factor=0.5, hue_factor=0.3, dtype="float64")
    t = jitter.get_random_transformation(x)
    _fd_check(jitter, x, {k: _t64(v) for k, v in t.items()})


def test_posterization_has_no_gradient_but_runs_under_a_tape() -> None:
    layer = M.RandomPosterization(4)
    x = tf.constant(np.asarray(CASES["posterization"]["input"], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(layer(x))
    g = tape.gradient(y, x)
    assert g is None or float(tf.reduce_max(tf.abs(g))) == 0.0


# ----------------------------------------------------------------------------- behaviour


def _layers(seed: int | None = 3) -> list[Any]:
    return [
        M.RandomContrast(0.5, seed=seed),
        M.RandomBrightness(0.3, seed=seed),
        M.RandomGrayscale(0.5, seed=seed),
        M.RandomInvert(0.5, seed=seed),
        M.Solarization(0.3, 0.6, seed=seed),
        M.RandomPosterization((2, 7), seed=seed),
        M.RandomSaturation((0.2, 0.8), seed=seed),
        M.RandomHue(0.5, seed=seed),
        M.RandomColorDegeneration(0.5, seed=seed),
        M.RandomSharpness(0.8, seed=seed),
        M.RandomErasing(seed=seed),
        M.RandomGaussianBlur(seed=seed),
        M.MixUp(seed=seed),
        M.CutMix(seed=seed),
        M.RandomColorJitter(brightness_factor=0.2, contrast_factor=0.3, saturation_factor=(0.3, 0.7),
                            hue_factor=0.3, seed=seed),
    ]


X = ((fixed((3, 5, 6, 3), 4) + 0.5) * 255.0).astype(np.float32)


def test_exported_names() -> None:
    assert sorted(NAMES) == sorted(
        ["AutoContrast", "CutMix", "Equalization", "MixUp", "RandomBrightness", "RandomColorDegeneration",
         "RandomColorJitter", "RandomContrast", "RandomErasing", "RandomGaussianBlur", "RandomGrayscale",
         "RandomHue", "RandomInvert", "RandomPosterization", "RandomSaturation", "RandomSharpness", "Solarization"])
    for n in NAMES:
        assert getattr(tf.keras.layers, n) is getattr(M, n)


def test_inference_is_identity_and_training_changes() -> None:
    for layer in _layers():
        x = tf.constant(X)
        np.testing.assert_array_equal(layer(x, training=False).numpy(), X)
        # training=True by default (a few calls: coin-flip layers may skip every image once)
        assert any(not np.array_equal(layer(x).numpy(), X) for _ in range(5)), type(layer).__name__
    # AutoContrast also applies in inference (as Keras), and is deterministic.
    ac = M.AutoContrast()
    y = ac(X * 0.5 + 20.0, training=False).numpy()
    np.testing.assert_allclose(y.min(axis=(1, 2)), 0.0, atol=1e-4)
    np.testing.assert_allclose(y.max(axis=(1, 2)), 255.0, rtol=1e-6)


def test_outputs_stay_in_value_range() -> None:
    for vr in ((0, 1), (-1, 1)):
        x = ((fixed((3, 5, 6, 3), 4) + 0.5) * (vr[1] - vr[0]) + vr[0]).astype(np.float32)
        for layer in (M.RandomContrast(0.9, value_range=vr), M.RandomBrightness(0.9, value_range=vr),
                      M.RandomColorDegeneration(1.0, value_range=vr), M.RandomSharpness(1.0, value_range=vr),
                      M.RandomHue(1.0, value_range=vr), M.Solarization(1.0, 1.0, value_range=vr),
                      M.RandomPosterization(3, value_range=vr), M.AutoContrast(value_range=vr),
                      M.Equalization(value_range=vr), M.RandomErasing(value_range=vr),
                      M.RandomGaussianBlur(value_range=vr), M.MixUp(), M.CutMix()):
            for _ in range(3):
                y = layer(x).numpy()
                assert y.min() >= vr[0] - 1e-5 and y.max() <= vr[1] + 1e-5, (type(layer).__name__, vr)


def test_seed_makes_layers_agree() -> None:
    for a, b, c in zip(_layers(11), _layers(11), _layers(12)):
        ya1, ya2 = a(X).numpy(), a(X).numpy()
        np.testing.assert_array_equal(ya1, b(X).numpy())
        np.testing.assert_array_equal(ya2, b(X).numpy())
        if not isinstance(a, M.RandomGrayscale):  # 3 coin flips may agree
            assert not np.array_equal(ya1, c(X).numpy()), type(a).__name__
    # An explicit seed to get_random_transformation.
    layer = M.RandomContrast(0.5)
    t1 = layer.get_random_transformation(X, seed=5)["contrast_factor"].numpy()
    t2 = layer.get_random_transformation(X, seed=5)["contrast_factor"].numpy()
    np.testing.assert_array_equal(t1, t2)


def test_global_seed_makes_unseeded_layers_repeat() -> None:
    tf.random.set_seed(42)
    y1 = M.RandomHue(0.5)(X).numpy()
    tf.random.set_seed(42)
    y2 = M.RandomHue(0.5)(X).numpy()
    tf.random.set_seed(None)
    np.testing.assert_array_equal(y1, y2)


def test_statistics_of_the_draws() -> None:
    n = 4000
    big = np.zeros((n, 1, 1, 3), np.float32)
    c = M.RandomContrast((0.2, 0.6), seed=1).get_random_transformation(big)["contrast_factor"].numpy()
    assert c.shape == (n, 1, 1, 1) and c.min() >= 0.8 and c.max() <= 1.6
    assert abs(c.mean() - 1.2) < 0.02 and abs(c.std() - 0.8 / np.sqrt(12)) < 0.01
    d = M.RandomBrightness(0.25, value_range=(0, 2), seed=1).get_random_transformation(big)["rgb_delta"].numpy()
    assert d.min() >= -0.5 and d.max() <= 0.5 and abs(d.mean()) < 0.02
    g = M.RandomGrayscale(0.3, seed=1).get_random_transformation(big).numpy()
    assert g.dtype == bool and abs(g.mean() - 0.3) < 0.03
    inv = M.RandomInvert((0.2, 0.6), seed=1).get_random_transformation(big)["apply_inversion"].numpy()
    assert abs(inv.mean() - 0.4) < 0.03
    sol = M.Solarization((0.1, 0.2), (0.0, 0.5), seed=1).get_random_transformation(big)
    a, t = sol["additions"].numpy(), sol["thresholds"].numpy()
    assert a.min() >= 0.1 and a.max() <= 0.2 * 255 and t.min() >= 0.0 and t.max() <= 127.5
    s = M.RandomPosterization((2, 6), seed=1).get_random_transformation(big)["shift_factor"].numpy()
    assert s.dtype == np.uint8 and set(np.unique(s)) == {3, 4, 5, 6}  # bits in [2, 6): shifts 8 - bits
    s1 = M.RandomPosterization(5, seed=1).get_random_transformation(big)["shift_factor"].numpy()
    assert set(np.unique(s1)) == {4, 5, 6, 7}
    sat = M.RandomSaturation((0.2, 0.8), seed=1).get_random_transformation(big)["factor"].numpy()
    assert sat.min() >= 0.25 - 1e-6 and sat.max() <= 4.0 + 1e-5
    assert abs(np.mean(sat / (1 + sat)) - 0.5) < 0.02  # u = f / (1 + f) is uniform in [0.2, 0.8]
    hue = M.RandomHue((0.2, 0.6), seed=1).get_random_transformation(big)["factor"].numpy()
    assert np.all(np.abs(hue) >= 0.1 - 1e-7) and np.all(np.abs(hue) <= 0.3 + 1e-7)
    assert abs((hue > 0).mean() - 0.5) < 0.03
    deg = M.RandomColorDegeneration(0.4, seed=1).get_random_transformation(big)["factor"].numpy()
    assert deg.shape == (n, 1, 1, 1) and deg.min() >= -0.4 and deg.max() <= 0.4 and abs(deg.mean()) < 0.02
    sh = M.RandomSharpness(0.5, seed=1).get_random_transformation(big)["factor"].numpy()
    assert sh.min() >= 0.0 and sh.max() <= 0.5 and abs(sh.mean() - 0.25) < 0.01
    blur = M.RandomGaussianBlur((0.2, 0.6), sigma=(0.3, 0.5), seed=1).get_random_transformation(big)
    assert abs(blur["should_apply_blur"].numpy().mean() - 0.4) < 0.03
    sig = blur["blur_factor"].numpy()
    assert sig.shape == (2,) and np.all(sig >= 0.3) and np.all(sig <= 0.5 + 2e-6)
    imgs = np.zeros((2000, 10, 10, 3), np.float32)
    er = M.RandomErasing(0.5, scale=(0.1, 0.3), seed=1).get_random_transformation(imgs)
    assert abs(er["apply_erasing"].numpy().mean() - 0.25) < 0.03
    m = er["batch_masks"].numpy()
    assert m.shape == imgs.shape and np.all(m == m[..., :1])
    area = m[..., 0].mean(axis=(1, 2))  # a rectangle of about the drawn fraction (pixel rounding aside)
    assert 0.03 < area.mean() < 0.3 and area.max() <= 0.5
    fill = er["fill_value"].numpy()
    assert fill.min() >= 0.0 and fill.max() <= 255.0 and abs((fill > 0).mean() - 0.5) < 0.01
    # MixUp: Beta(alpha, alpha) weights (mean 1/2, variance 1 / (4 (2 alpha + 1))) and a permutation.
    for alpha in (0.2, 2.0):
        mu = M.MixUp(alpha, seed=1).get_random_transformation(big)
        wts = mu["mix_weight"].numpy()
        assert wts.shape == (n,) and np.all((wts >= 0) & (wts <= 1)) and not np.isnan(wts).any()
        assert abs(wts.mean() - 0.5) < 0.02 and abs(wts.var() - 1 / (4 * (2 * alpha + 1))) < 0.01, alpha
        perm = mu["permutation_order"].numpy()
        assert perm.dtype == np.int64 and sorted(perm) == list(range(n))
    tiny = M.MixUp(1e-3, seed=1).get_random_transformation(big)["mix_weight"].numpy()
    assert not np.isnan(tiny).any() and np.mean((tiny < 0.01) | (tiny > 0.99)) > 0.95
    cm = M.CutMix(seed=1).get_random_transformation(imgs)
    mw, cmask = cm["mix_weight"].numpy().reshape(-1), cm["batch_masks"].numpy()
    assert np.all((mw >= 0) & (mw <= 1 + 1e-6)) and sorted(cm["permutation_order"].numpy()) == list(range(2000))
    assert abs(np.mean(1 - mw) - cmask[..., 0].mean()) < 0.03  # pasted area ~ 1 - mix_weight


def test_batched_and_unbatched_inputs() -> None:
    for a, b in zip(_layers(21), _layers(21)):
        one = a(X[0]).numpy()
        batch = b(X[:1]).numpy()
        assert one.shape == X[0].shape
        np.testing.assert_allclose(one, batch[0], rtol=1e-6, atol=1e-4)


def test_channels_first_matches_channels_last() -> None:
    xc = np.transpose(X, (0, 3, 1, 2))
    for make_layer in (lambda df: M.RandomContrast(0.5, seed=2, data_format=df),
                       lambda df: M.RandomSaturation((0.2, 0.8), seed=2, data_format=df),
                       lambda df: M.RandomHue(0.5, seed=2, data_format=df),
                       lambda df: M.RandomSharpness(0.5, seed=2, data_format=df),
                       lambda df: M.RandomGrayscale(0.5, seed=2, data_format=df)):
        last = make_layer("channels_last")(X).numpy()
        first = make_layer("channels_first")(xc).numpy()
        np.testing.assert_allclose(np.transpose(first, (0, 2, 3, 1)), last, rtol=1e-5, atol=1e-3)


def test_inside_tf_function_same_as_eager() -> None:
    for layer in [*_layers(), M.AutoContrast(), M.Equalization()]:
        t = layer.get_random_transformation(X)
        eager = layer.transform_images(X, t).numpy()
        graph = tf.function(lambda x, layer=layer, t=t: layer.transform_images(x, t))(tf.constant(X)).numpy()
        np.testing.assert_allclose(graph, eager, rtol=1e-6, atol=1e-4)
    # A full call inside tf.function draws anew each call, and follows the seed.
    a, b = M.RandomBrightness(0.5, seed=9), M.RandomBrightness(0.5, seed=9)
    f = tf.function(lambda x: b(x))
    eager = [a(X).numpy() for _ in range(3)]
    graph = [f(tf.constant(X)).numpy() for _ in range(3)]
    for ye, yg in zip(eager, graph):  # same stream, one draw per call
        np.testing.assert_array_equal(ye, yg)
    assert not np.array_equal(graph[0], graph[1])


def test_config_round_trip() -> None:
    for layer in [*_layers(), M.AutoContrast(value_range=(0, 1)), M.Equalization(bins=32)]:
        config = layer.get_config()
        clone = type(layer).from_config(config)
        assert clone.get_config() == config
        if "seed" in config:
            assert clone.seed == layer.seed


def test_dict_inputs() -> None:
    labels = np.arange(3, dtype=np.float32)
    out = M.RandomBrightness(0.3, seed=1)({"images": X, "labels": labels})
    assert set(out) == {"images", "labels"} and out["images"].shape == X.shape
    np.testing.assert_array_equal(np.asarray(out["labels"]), labels)
    with pytest.raises(ValueError, match="bounding box format"):
        M.RandomBrightness(0.3)({"images": X, "bounding_boxes": {"boxes": np.zeros((3, 1, 4))}})
    # MixUp and CutMix mix the labels with the images' transformation.
    onehot = np.eye(3, dtype=np.float32)
    for layer in (M.MixUp(seed=4), M.CutMix(seed=4)):
        t = layer.get_random_transformation(X)
        out = layer.transform_labels(onehot, t)
        np.testing.assert_allclose(out.numpy().sum(axis=1), 1.0, rtol=1e-6)
        res = type(layer)(seed=4)({"images": X, "labels": onehot})
        np.testing.assert_allclose(res["labels"].numpy(), out.numpy(), rtol=1e-6)
        np.testing.assert_allclose(res["images"].numpy(), layer.transform_images(X, t).numpy(), rtol=1e-6)
        with pytest.raises(NotImplementedError, match="bounding boxes"):
            type(layer)(bounding_box_format="xyxy")({"images": X, "bounding_boxes": {"boxes": np.zeros((3, 1, 4))}})


def test_bad_arguments_and_inputs_raise_clearly() -> None:
    with pytest.raises(ValueError, match="rank 3 or 4.*shape"):
        M.RandomContrast(0.5)(np.zeros((5, 6), np.float32))
    with pytest.raises(ValueError, match=r"rank 3 or 4.*\(1, 2, 5, 6, 3\)"):
        M.RandomHue(0.5)(np.zeros((1, 2, 5, 6, 3), np.float32))
    with pytest.raises(ValueError, match="channel size.*shape"):
        M.RandomGrayscale(1.0)(np.zeros((2, 5, 6, 2), np.float32))
    with pytest.raises(ValueError, match="3 channels"):
        M.RandomColorDegeneration(0.5)(tf.keras.Input((5, 6, 4)))
    with pytest.raises(ValueError, match="factor"):
        M.RandomContrast(1.5)
    with pytest.raises(ValueError, match="factor"):
        M.RandomHue((0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="factor"):
        M.RandomGrayscale(2.0)
    with pytest.raises(ValueError, match="factor"):
        M.RandomPosterization(9)
    with pytest.raises(ValueError, match="addition_factor"):
        M.Solarization(addition_factor="x")
    with pytest.raises(ValueError, match="value_range"):
        M.RandomBrightness(0.2, value_range=(0, 1, 2))
    with pytest.raises(ValueError, match="data_format"):
        M.RandomSaturation(0.5, data_format="nhwc")
    with pytest.raises(ValueError, match="does not take a `factor`"):
        M.AutoContrast(factor=0.5)
    with pytest.raises(ValueError, match="kernel_size must be an odd number"):
        M.RandomGaussianBlur(kernel_size=4)
    with pytest.raises(ValueError, match="sigma"):
        M.RandomGaussianBlur(sigma=2.0)
    with pytest.raises(ValueError, match="scale"):
        M.RandomErasing(scale=(0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="fill_value"):
        M.RandomErasing(fill_value=(1.0, 2.0))
    with pytest.raises(ValueError, match="bins"):
        M.Equalization(bins=1)
    with pytest.raises(ValueError, match="rank 3 or 4"):
        M.RandomErasing()(np.zeros((5, 6), np.float32))
