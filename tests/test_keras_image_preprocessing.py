"""tapers.keras' geometric image preprocessing layers against Keras 3.15
(tests/data/keras_image_preprocessing_reference.json, written by make_keras_image_preprocessing_reference.py).

tapers' random streams differ from Keras', so parity is checked on the recorded transformation: the
test feeds Keras' ``get_random_transformation`` dict to tapers' ``transform_images``. Also: exact
gradients (Keras' exact derivative and float64 finite differences), ``tapers.function``, training vs
inference, seeds, the statistics of the draws, configs, symbolic shapes and bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _keras_fixtures import fixed

import tapers as tf

keras = tf.keras
L = keras.layers

REF: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "keras_image_preprocessing_reference.json").read_text()
)
CASES = REF["cases"]
RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(autouse=True)
def _fresh_names() -> None:
    keras.backend.clear_session()


def to_tapers(v: Any) -> Any:
    """A recorded transformation back as tapers values (tensors keep Keras' dtypes)."""
    if isinstance(v, dict) and set(v) == {"value", "dtype", "shape"}:
        return tf.constant(np.asarray(v["value"], dtype=v["dtype"]).reshape(v["shape"]))
    if isinstance(v, dict):
        return {k: to_tapers(x) for k, x in v.items()}
    if isinstance(v, list):
        return tuple(to_tapers(x) for x in v)
    return v


def make(case: str, **extra: Any) -> tuple[Any, np.ndarray]:
    ref = CASES[case]
    return getattr(L, ref["class"])(**ref["kwargs"], **extra), fixed(tuple(ref["input_shape"]), ref["input_k"])


def normalized(cfg: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps({k: v for k, v in cfg.items() if k not in ("name", "dtype")}))
    return out


def apply(layer: Any, x: Any, t: Any) -> Any:
    return layer.transform_images(x, t, training=True)


# ----------------------------------------------------------------------------- parity with Keras


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_keras(case: str) -> None:
    ref = CASES[case]
    layer, x = make(case)
    t = to_tapers(ref["transformation"])
    y = apply(layer, tf.constant(x), t)
    assert type(layer).__name__ == ref["class"]
    assert layer.name == ref["name"]
    assert [[w.name, list(w.shape)] for w in layer.weights] == ref["weights"] == []
    assert sorted(layer.get_config()) == ref["config_keys"]
    assert normalized(layer.get_config()) == ref["config"]
    assert list(y.shape) == ref["output_shape"]
    assert y.dtype.name == ref["output_dtype"]
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=RTOL, atol=ATOL)
    inference = layer(x, training=False)
    np.testing.assert_allclose(inference.numpy(), ref["inference_output"], rtol=RTOL, atol=ATOL)
    if "symbolic_shape" in ref:
        assert list(layer.compute_output_shape((None, *x.shape[1:]))) == ref["symbolic_shape"]
        assert list(layer(keras.Input(shape=x.shape[1:])).shape) == ref["symbolic_shape"]


GRAD_CASES = sorted(c for c in CASES if CASES[c]["grad_tape"] is not None or "grad_exact" in CASES[c])


@pytest.mark.parametrize("case", GRAD_CASES)
def test_gradient_matches_keras(case: str) -> None:
    # The resampling layers compare with the exact derivative recorded from Keras' forward pass: TF's
    # registered gradient of ImageProjectiveTransformV3 (grad_tape) is an inverse-transform approximation.
    ref = CASES[case]
    layer, x = make(case)
    t = to_tapers(ref["transformation"])
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = apply(layer, xt, t)
        loss = tf.reduce_sum(y * fixed(tuple(y.shape), 9))
    g = tape.gradient(loss, xt)
    expected = ref.get("grad_exact", ref["grad_tape"])
    np.testing.assert_allclose(g.numpy(), expected, rtol=RTOL, atol=1e-5)


def test_keras_tape_gradient_of_resampling_is_an_approximation() -> None:
    # Documents the one intended divergence: tapers differentiates the resampling exactly.
    ref = CASES["random_rotation_reflect"]
    assert not np.allclose(ref["grad_tape"], ref["grad_exact"], atol=1e-3)
    ref = CASES["random_translation_constant"]
    assert "grad_exact" in ref


def mask_for(shape: list[int], channels_first: bool, k: int) -> np.ndarray:
    """The reference script's integer segmentation masks (one channel) for an image shape."""
    ms = list(shape)
    ms[-3 if channels_first else -1] = 1
    return np.round((fixed(tuple(ms), k + 50) + 0.5) * 6).astype(np.int32)


MASK_CASES = sorted(c for c in CASES if CASES[c]["mask_output"] is not None)


@pytest.mark.parametrize("case", MASK_CASES)
def test_segmentation_masks_match_keras(case: str) -> None:
    ref = CASES[case]
    layer, x = make(case)
    masks = mask_for(ref["input_shape"], ref["kwargs"].get("data_format") == "channels_first", ref["input_k"])
    t = to_tapers(ref["transformation"])
    ym = layer.transform_segmentation_masks(tf.constant(masks), t, training=True)
    assert ym.dtype.name == ref["mask_dtype"]
    np.testing.assert_allclose(ym.numpy(), ref["mask_output"], rtol=RTOL, atol=ATOL)
    labels = np.arange(x.shape[0] if x.ndim == 4 else 1, dtype=np.int32)
    out = layer({"images": x, "segmentation_masks": masks, "labels": labels}, training=False)
    assert sorted(out) == ["images", "labels", "segmentation_masks"]
    np.testing.assert_array_equal(out["labels"].numpy(), labels)
    np.testing.assert_allclose(out["images"].numpy(), ref["inference_output"], rtol=RTOL, atol=ATOL)
    assert out["segmentation_masks"].dtype.name == ref["mask_inference_dtype"]
    np.testing.assert_allclose(out["segmentation_masks"].numpy(), ref["mask_inference"], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("cls", ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation", "RandomShear",
                                 "RandomPerspective", "RandomCrop"])
def test_dict_call_moves_masks_with_images(cls: str) -> None:
    # With nearest interpolation, images equal to the masks come out equal to the transformed masks.
    args = {"RandomCrop": (3, 4), "RandomRotation": (0.3,), "RandomZoom": (0.4,), "RandomTranslation": (0.3, 0.3),
            "RandomShear": (0.4, 0.4)}.get(cls, ())
    kwargs = {} if cls in ("RandomFlip", "RandomCrop") else {"interpolation": "nearest"}
    layer = getattr(L, cls)(*args, seed=3, **kwargs)
    masks = mask_for([4, 6, 7, 1], False, 1)
    out = layer({"images": masks.astype(np.float32), "segmentation_masks": masks})
    np.testing.assert_array_equal(out["images"].numpy(), out["segmentation_masks"].numpy().astype(np.float32))
    assert not np.array_equal(out["images"].numpy(), masks) or cls == "RandomPerspective"
    one = layer({"images": masks[0].astype(np.float32), "segmentation_masks": masks[0]})
    assert one["images"].shape == one["segmentation_masks"].shape
    np.testing.assert_array_equal(one["images"].numpy(), one["segmentation_masks"].numpy().astype(np.float32))


def test_integer_images_are_rounded_back_like_keras() -> None:
    ref = REF["resizing_uint8"]
    y = L.Resizing(3, 4)(np.asarray(ref["input"], np.uint8))
    assert y.dtype == tf.uint8
    # Rounding ties (x.5 after interpolation) may land on either side with float32 rounding differences.
    np.testing.assert_allclose(y.numpy().astype(np.int32), ref["output"], atol=1)
    assert np.mean(y.numpy() == np.asarray(ref["output"])) > 0.9


# ----------------------------------------------------------------------------- exact gradients


FD_LAYERS = {
    "Resizing": lambda: L.Resizing(3, 7, dtype="float64"),
    "Resizing_bicubic_pad": lambda: L.Resizing(4, 4, interpolation="bicubic", pad_to_aspect_ratio=True,
                                               dtype="float64"),
    "Resizing_area": lambda: L.Resizing(3, 3, interpolation="area", dtype="float64"),
    "CenterCrop": lambda: L.CenterCrop(3, 2, dtype="float64"),
    "CenterCrop_smaller": lambda: L.CenterCrop(6, 3, dtype="float64"),
    "RandomCrop": lambda: L.RandomCrop(2, 3, seed=1, dtype="float64"),
    "RandomFlip": lambda: L.RandomFlip(seed=1, dtype="float64"),
    "RandomRotation": lambda: L.RandomRotation(0.3, seed=1, dtype="float64"),
    "RandomRotation_constant_nearest": lambda: L.RandomRotation(0.3, fill_mode="constant", fill_value=0.5,
                                                                interpolation="nearest", seed=2, dtype="float64"),
    "RandomZoom": lambda: L.RandomZoom(0.5, 0.3, fill_mode="wrap", seed=1, dtype="float64"),
    "RandomTranslation": lambda: L.RandomTranslation(0.4, 0.4, fill_mode="nearest", seed=1, dtype="float64"),
    "RandomShear": lambda: L.RandomShear(0.5, 0.5, seed=1, dtype="float64"),
    "RandomPerspective": lambda: L.RandomPerspective(scale=0.8, seed=1, dtype="float64"),
}


@pytest.mark.parametrize("name", sorted(FD_LAYERS))
def test_finite_difference_gradient_float64(name: str) -> None:
    layer = FD_LAYERS[name]()
    x = fixed((2, 4, 5, 2), 3).astype(np.float64)
    t = layer.get_random_transformation(tf.constant(x), training=True, seed=7)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer.transform_images(xt, t, training=True)
        v = fixed(tuple(y.shape), 5).astype(np.float64)
        loss = tf.reduce_sum(y * v)
    g = tape.gradient(loss, xt).numpy()
    # Resizing (and CenterCrop of a smaller image, which resizes) computes in float32 (tf.image.resize
    # does), but every layer is linear in the images, so a large step keeps the central difference
    # exact up to float32 rounding.
    resizes = name.startswith("Resizing") or name == "CenterCrop_smaller"
    eps = 0.5 if resizes else 1e-4
    tol = 1e-5 if resizes else 1e-8
    fd = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = eps
        d = d.reshape(x.shape)
        up = np.sum(layer.transform_images(tf.constant(x + d), t, training=True).numpy() * v)
        down = np.sum(layer.transform_images(tf.constant(x - d), t, training=True).numpy() * v)
        fd.flat[i] = (up - down) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=tol, atol=tol)


# ----------------------------------------------------------------------------- tapers.function


@pytest.mark.parametrize(
    "case",
    ["resizing_crop", "center_crop_smaller", "random_crop", "random_flip", "random_rotation_reflect",
     "random_zoom_wh_wrap", "random_translation_nearest", "random_shear_constant", "random_perspective_some"],
)
def test_function_matches_eager_on_recorded_transformation(case: str) -> None:
    layer, x = make(case)
    t = to_tapers(CASES[case]["transformation"])
    f = tf.function(lambda images: layer.transform_images(images, t, training=True))
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), CASES[case]["output"], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("cls", ["RandomCrop", "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation",
                                 "RandomShear", "RandomPerspective"])
def test_seeded_layer_in_function_draws_like_eager(cls: str) -> None:
    args = {"RandomCrop": (3, 4), "RandomRotation": (0.3,), "RandomZoom": (0.4,), "RandomTranslation": (0.3, 0.3),
            "RandomShear": (0.4, 0.4)}.get(cls, ())
    x = fixed((3, 6, 7, 2), 1)
    eager = getattr(L, cls)(*args, seed=11)
    traced = getattr(L, cls)(*args, seed=11)
    f = tf.function(lambda images: traced(images, training=True))
    for _ in range(2):  # the stream advances in both
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), eager(x, training=True).numpy(), rtol=RTOL, atol=ATOL)


def test_unseeded_layer_in_function_draws_fresh_values_each_call() -> None:
    x = fixed((4, 6, 7, 2), 3)
    layer = L.RandomRotation(0.3)
    f = tf.function(lambda images: layer(images, training=True))
    a, b = f(tf.constant(x)).numpy(), f(tf.constant(x)).numpy()
    assert not np.allclose(a, b)
    g = tf.function(lambda images: layer(images, training=False))
    np.testing.assert_array_equal(g(tf.constant(x)).numpy(), x)


# ----------------------------------------------------------------------------- training, seeds, statistics


@pytest.mark.parametrize("cls", ["RandomCrop", "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation",
                                 "RandomShear", "RandomPerspective"])
def test_random_layers_are_identity_in_inference_and_random_in_training(cls: str) -> None:
    args = {"RandomCrop": (3, 4), "RandomRotation": (0.3,), "RandomZoom": (0.4,), "RandomTranslation": (0.3, 0.3),
            "RandomShear": (0.4, 0.4)}.get(cls, ())
    x = fixed((8, 6, 7, 2), 2)
    layer = getattr(L, cls)(*args)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), x)  # Keras 3.15: RandomCrop too
    assert layer.get_random_transformation(x, training=False) is None or cls == "RandomCrop"
    # Seeded, so the two draws are fixed: RandomCrop has only 16 offsets for this shape, and unseeded
    # draws would coincide in one run of 16.
    seeded = getattr(L, cls)(*args, seed=7)
    a, b = seeded(x).numpy(), seeded(x).numpy()  # called directly: training=True, as Keras' default
    assert a.shape == b.shape
    assert not np.array_equal(a, b)
    model = keras.Sequential([keras.Input((6, 7, 2)), getattr(L, cls)(*args)])
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)


def test_seed_makes_layers_agree() -> None:
    x = fixed((16, 6, 7, 2), 1)
    for make_layer in (lambda s: L.RandomRotation(0.4, seed=s), lambda s: L.RandomFlip(seed=s),
                       lambda s: L.RandomCrop(3, 3, seed=s), lambda s: L.RandomPerspective(seed=s)):
        a, b, c = make_layer(5), make_layer(5), make_layer(6)
        ya, yb, yc = a(x).numpy(), b(x).numpy(), c(x).numpy()
        np.testing.assert_array_equal(ya, yb)
        assert not np.array_equal(ya, yc)
    layer = L.RandomZoom(0.3, seed=3)
    t1 = layer.get_random_transformation(x, seed=9)
    t2 = layer.get_random_transformation(x, seed=9)
    np.testing.assert_array_equal(t1["height_zoom"].numpy(), t2["height_zoom"].numpy())


def test_set_seed_makes_unseeded_layers_reproducible() -> None:
    x = fixed((4, 6, 7, 2), 1)
    tf.random.set_seed(123)
    a = L.RandomTranslation(0.3, 0.3)(x).numpy()
    tf.random.set_seed(123)
    b = L.RandomTranslation(0.3, 0.3)(x).numpy()
    np.testing.assert_array_equal(a, b)


def test_statistics_of_the_draws() -> None:
    x = np.zeros((4000, 3, 4, 1), np.float32)
    t = L.RandomRotation((-0.1, 0.25), seed=1).get_random_transformation(x)
    angle = t["angle"].numpy()
    assert angle.shape == (4000,) and t["rotation_matrix"].shape == (4000, 8)
    assert -36.0 <= angle.min() < -34.0 and 88.0 < angle.max() < 90.0
    assert abs(angle.mean() - 27.0) < 2.0
    flips = L.RandomFlip(seed=1).get_random_transformation(x)["flips"].numpy()
    assert flips.shape == (4000, 1, 1, 1) and abs(flips.mean() - 0.5) < 0.03
    t = L.RandomZoom((-0.5, 0.2), (0.1, 0.3), seed=2).get_random_transformation(x)
    hz, wz = t["height_zoom"].numpy(), t["width_zoom"].numpy()
    assert hz.shape == (4000, 1) and 0.5 <= hz.min() < 0.52 and 1.18 < hz.max() <= 1.2
    assert 1.1 <= wz.min() and wz.max() <= 1.3 and abs(np.corrcoef(hz[:, 0], wz[:, 0])[0, 1]) < 0.05
    t = L.RandomZoom(0.3, seed=2).get_random_transformation(x)
    np.testing.assert_array_equal(t["height_zoom"].numpy(), t["width_zoom"].numpy())
    tr = L.RandomTranslation(0.5, (0.0, 0.25), seed=3).get_random_transformation(x)["translations"].numpy()
    assert -1.5 <= tr[:, 1].min() < -1.4 and 1.4 < tr[:, 1].max() <= 1.5  # height 3
    assert 0.0 <= tr[:, 0].min() < 0.02 and 0.98 < tr[:, 0].max() <= 1.0  # width 4
    sh = L.RandomShear(0.4, 0.2, seed=4).get_random_transformation(x)["shear_factor"].numpy()
    assert np.abs(sh[:, 0]).max() <= 0.4 and np.abs(sh[:, 1]).max() <= 0.2 and abs(sh.mean()) < 0.02
    p = L.RandomPerspective(factor=(0.2, 0.6), scale=0.5, seed=5).get_random_transformation(x)
    assert abs(p["apply_perspective"].numpy().mean() - 0.4) < 0.03
    moved = (p["end_points"] - p["start_points"]).numpy() / np.maximum(p["start_points"].numpy(), 1e-9)
    assert np.abs(moved[p["start_points"].numpy() > 0]).max() <= 0.25
    crops = [L.RandomCrop(2, 3, seed=s).get_random_transformation(x) for s in range(60)]
    starts = {(int(h.numpy()), int(w.numpy())) for h, w in crops}
    assert starts == {(h, w) for h in range(2) for w in range(2)}


def test_unbatched_call_draws_one_transformation() -> None:
    x = fixed((6, 7, 2), 1)
    layer = L.RandomRotation(0.3, seed=4)
    t = layer.get_random_transformation(x)
    assert t["rotation_matrix"].shape == (8,) and t["batch_size"] == 1
    y = layer.transform_images(x, t)
    assert y.shape == (6, 7, 2)
    np.testing.assert_allclose(y.numpy(), layer.transform_images(x[None], t)[0].numpy(), rtol=RTOL, atol=ATOL)
    y = L.RandomRotation(0.3, seed=4)(x)
    assert y.shape == (6, 7, 2)
    ref = L.RandomRotation(0.3, seed=4)(x[None])[0]
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=RTOL, atol=ATOL)


# ----------------------------------------------------------------------------- config, shapes, errors


@pytest.mark.parametrize("case", sorted(CASES))
def test_config_round_trip(case: str) -> None:
    layer, x = make(case)
    clone = type(layer).from_config(layer.get_config())
    assert normalized(clone.get_config()) == normalized(layer.get_config())
    t = to_tapers(CASES[case]["transformation"])
    np.testing.assert_array_equal(apply(clone, tf.constant(x), t).numpy(), apply(layer, tf.constant(x), t).numpy())


def test_symbolic_shapes_and_models() -> None:
    inputs = keras.Input((None, None, 3))
    assert L.RandomRotation(0.1)(inputs).shape == (None, None, None, 3)
    assert L.Resizing(8, 9)(inputs).shape == (None, 8, 9, 3)
    assert L.CenterCrop(2, 3, data_format="channels_first")(keras.Input((3, 10, 10))).shape == (None, 3, 2, 3)
    inputs = keras.Input((10, 12, 3))
    h = L.RandomFlip()(inputs)
    h = L.RandomCrop(8, 8)(h)
    out = L.Resizing(4, 4)(h)
    model = keras.Model(inputs, out)
    assert model.outputs[0].shape == (None, 4, 4, 3)
    y = model(fixed((2, 10, 12, 3), 1), training=True)
    assert y.shape == (2, 4, 4, 3)


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"rank 3 .* or 4 .*data.shape=\(6, 7\)"):
        L.RandomFlip()(fixed((6, 7), 1))
    with pytest.raises(ValueError, match=r"rank 3 .* or 4"):
        L.Resizing(2, 2)(fixed((1, 1, 6, 7, 2), 1))
    with pytest.raises(ValueError, match="factor"):
        L.RandomRotation(1.5)
    with pytest.raises(ValueError, match="height_factor"):
        L.RandomZoom(-1.0)
    with pytest.raises(ValueError, match="width_factor"):
        L.RandomTranslation(0.2, (0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="x_factor"):
        L.RandomShear(-0.2)
    with pytest.raises(ValueError, match="scale"):
        L.RandomPerspective(scale=2.0)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        L.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(NotImplementedError, match="interpolation"):
        L.RandomZoom(0.1, interpolation="bicubic")
    with pytest.raises(ValueError, match="data_format"):
        L.RandomFlip(data_format="NHWC")
    with pytest.raises(ValueError, match="unknown mode"):
        L.RandomFlip(mode="diagonal")
    with pytest.raises(ValueError, match="lanczos3.*not implemented"):
        L.Resizing(2, 2, interpolation="lanczos3")
    with pytest.raises(ValueError, match="interpolation"):
        L.Resizing(2, 2, interpolation="cubic")
    with pytest.raises(ValueError, match="antialias"):
        L.Resizing(2, 2, antialias=True)
    with pytest.raises(ValueError, match="Only one of"):
        L.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="fill_mode"):
        L.Resizing(2, 2, fill_mode="reflect")
    with pytest.raises(ValueError, match="positive"):
        L.CenterCrop(0, 2)
    layer = L.RandomRotation(0.2)
    t = layer.get_random_transformation(fixed((3, 6, 7, 2), 1))
    with pytest.raises(ValueError, match=r"shape .*\(3, 8\)"):
        layer.transform_images(fixed((2, 6, 7, 2), 1), t)
    with pytest.raises(NotImplementedError, match="bounding_boxes"):
        L.RandomFlip()({"images": fixed((2, 6, 7, 2), 1), "bounding_boxes": {"boxes": np.zeros((2, 1, 4))}})
    with pytest.raises(ValueError, match="'images' key"):
        L.RandomFlip()({"masks": fixed((2, 6, 7, 2), 1)})


# ----------------------------------------------------------------------------- Pipeline


def test_pipeline_matches_keras() -> None:
    ref = REF["pipeline"]
    pipe = L.Pipeline([L.Resizing(5, 6), L.CenterCrop(4, 4)])
    x = fixed((2, 6, 7, 2), 12)
    y = pipe(x)
    assert pipe.name == ref["name"]
    cfg = pipe.get_config()
    assert sorted(cfg) == ref["config_keys"]
    assert [sorted(e) for e in cfg["layers"]] == ref["layer_entries"]
    assert [e["class_name"] for e in cfg["layers"]] == ref["layer_classes"]
    assert [e["module"] for e in cfg["layers"]] == ref["layer_modules"]
    assert [w.name for w in pipe.weights] == ref["weights"]
    np.testing.assert_allclose(y.numpy(), ref["output"], rtol=RTOL, atol=ATOL)
    assert list(pipe(keras.Input((6, 7, 2))).shape) == ref["symbolic_shape"]
    assert pipe.compute_output_shape((None, 6, 7, 2)) == (None, 4, 4, 2)
    clone = L.Pipeline.from_config(cfg)
    assert [type(layer).__name__ for layer in clone.layers] == ["Resizing", "CenterCrop"]
    np.testing.assert_allclose(clone(x).numpy(), y.numpy(), rtol=0, atol=0)
    rnd = L.Pipeline([L.RandomFlip(), L.RandomRotation(0.2), L.Resizing(3, 3)])
    np.testing.assert_allclose(rnd(x, training=False).numpy(), ref["random_inference"], rtol=RTOL, atol=ATOL)


def test_pipeline_passes_training_and_works_in_function_and_tape() -> None:
    x = fixed((3, 6, 7, 2), 1)
    a = L.Pipeline([L.RandomFlip(seed=3), L.RandomTranslation(0.3, 0.3, seed=4), L.Resizing(4, 4)])
    b = L.Pipeline([L.RandomFlip(seed=3), L.RandomTranslation(0.3, 0.3, seed=4), L.Resizing(4, 4)])
    f = tf.function(lambda images: b(images, training=True))
    ya = a(x)  # training defaults to True, as Keras
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), ya.numpy(), rtol=RTOL, atol=ATOL)
    assert not np.allclose(ya.numpy(), L.Resizing(4, 4)(x).numpy())
    model = keras.Sequential([keras.Input((6, 7, 2)), L.Pipeline([L.RandomRotation(0.3), L.Resizing(4, 4)])])
    np.testing.assert_allclose(model.predict(x, verbose=0), L.Resizing(4, 4)(x).numpy(), rtol=RTOL, atol=ATOL)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(a(xt) ** 2)
    assert tape.gradient(loss, xt).shape == x.shape
    with pytest.raises(ValueError, match="layers"):
        L.Pipeline.from_config({"name": "p"})
    with pytest.raises(ValueError, match="only takes Keras layers"):
        L.Pipeline([lambda t: t])
