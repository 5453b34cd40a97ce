"""tapers.image's HSV/YIQ/YUV conversions, hue/saturation, stateless random adjustments, crop_and_resize,
extract_patches and non-max suppression against TensorFlow 2.21 (tests/data/image_more_reference.json,
written by make_image_more_reference.py): values, dtypes, gradients where TF has them, exact NMS indices;
plus float64 finite-difference gradients, tapers.function, seeded/statistical checks and bad inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapers as tf

REF: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "image_more_reference.json").read_text())
CASES = REF["cases"]
NMS = REF["nms"]


def weights(shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return np.cos(np.arange(n, dtype=np.float64)).reshape(shape)


def call(ref: dict[str, Any], *xs: Any) -> Any:
    fn, kw = ref["fn"], ref["kwargs"]
    if fn == "adjust_hue":
        return tf.image.adjust_hue(xs[0], kw["delta"])
    if fn == "adjust_saturation":
        return tf.image.adjust_saturation(xs[0], kw["saturation_factor"])
    if fn == "crop_and_resize":
        return tf.image.crop_and_resize(*xs, kw["crop_size"], method=kw["method"],
                                        extrapolation_value=kw["extrapolation_value"])
    if fn == "draw_bounding_boxes":
        return tf.image.draw_bounding_boxes(xs[0], xs[1], kw["colors"] or None)
    if fn == "extract_glimpse":
        return tf.image.extract_glimpse(xs[0], kw["size"], xs[1], centered=kw["centered"], normalized=kw["normalized"],
                                        noise="zero")
    if fn == "resize_with_pad":
        return tf.image.resize_with_pad(xs[0], kw["target_height"], kw["target_width"], method=kw["method"])
    if fn == "ssim_multiscale":
        return tf.image.ssim_multiscale(xs[0], xs[1], **kw)
    if fn == "ssim":
        return tf.image.ssim(xs[0], xs[1], **kw)
    if fn == "extract_patches":
        return tf.image.extract_patches(xs[0], kw["sizes"], kw["strides"], kw["rates"], kw["padding"])
    return getattr(tf.image, fn)(*xs)


# The HSV kernels of adjust_hue/adjust_saturation differ from the composition of rgb_to_hsv and
# hsv_to_rgb by float32 rounding (TF's AdjustHue works on hue sextants): a few ulps.
TOL = {"adjust_hue": 2e-6, "adjust_saturation": 2e-6}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tf(case: str) -> None:
    ref = CASES[case]
    xs = [tf.constant(np.array(v, dtype=d)) for v, d in zip(ref["inputs"], ref["in_dtypes"])]
    with tf.GradientTape(persistent=True) as tape:
        for i in ref["grads"]:
            tape.watch(xs[int(i)])
        y = call(ref, *xs)
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * weights(tuple(y.shape)))
    assert list(y.shape) == ref["out_shape"]
    assert y.dtype.name == ref["out_dtype"]
    want = np.array(ref["out"]).reshape(ref["out_shape"])
    if y.dtype.is_integer:
        got = y.numpy().astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=0, atol=1)  # float -> int truncation may move one ulp
        assert np.mean(got == want) > 0.95
    else:
        tol = TOL.get(ref["fn"], 1e-5)
        np.testing.assert_allclose(y.numpy(), want, rtol=tol, atol=tol)
    for i, g_want in ref["grads"].items():
        g = tape.gradient(loss, xs[int(i)])
        if g_want is None:  # TF registers no gradient (hsv_to_rgb); tapers' composite one is FD-checked
            continue
        np.testing.assert_allclose(g.numpy(), np.array(g_want), rtol=1e-4, atol=2e-5)


def _fd_check(fn: Any, x0: np.ndarray, eps: float = 1e-6, tol: float = 1e-6) -> None:
    x = tf.constant(x0)
    shape = tuple(fn(x).shape)
    w = weights(shape)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(fn(x) * w)
    g = tape.gradient(loss, x).numpy()
    num = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        xp, xm = x0.copy(), x0.copy()
        xp[i] += eps
        xm[i] -= eps
        num[i] = (float(tf.reduce_sum(fn(tf.constant(xp)) * w)) - float(tf.reduce_sum(fn(tf.constant(xm)) * w))) / (
            2 * eps)
    np.testing.assert_allclose(g, num, rtol=tol, atol=tol)


def _rgb64(shape: tuple[int, ...], seed: int) -> np.ndarray:
    # distinct, well separated channels so no max/min/hue branch switches within the FD step
    r = np.random.RandomState(seed)
    x = r.uniform(0.1, 0.9, size=shape)
    return x


@pytest.mark.parametrize("fn", ["rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"])
def test_color_fd_gradients(fn: str) -> None:
    _fd_check(getattr(tf.image, fn), _rgb64((2, 3, 3), 0))


def test_hsv_roundtrip_and_known_values() -> None:
    x = np.random.RandomState(3).uniform(0, 1, (4, 5, 3)).astype(np.float32)
    back = tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)).numpy()
    np.testing.assert_allclose(back, x, atol=1e-6)
    hsv = tf.image.rgb_to_hsv(tf.constant([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])).numpy()
    np.testing.assert_allclose(hsv, [[0, 1, 1], [1 / 3, 1, 1], [2 / 3, 1, 1]], atol=1e-7)


def test_adjust_hue_saturation_gradients_fd() -> None:
    # TF has no gradient for AdjustHue/AdjustSaturation; tapers' composite ops have one (computed in float32).
    x0 = _rgb64((2, 2, 3), 5).astype(np.float32)
    for fn in (lambda x: tf.image.adjust_hue(x, 0.15), lambda x: tf.image.adjust_saturation(x, 0.6)):
        x = tf.constant(x0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(fn(x) * weights((2, 2, 3)))
        g = tape.gradient(loss, x).numpy()
        eps = 1e-3
        num = np.zeros_like(x0)
        for i in np.ndindex(x0.shape):
            xp, xm = x0.copy(), x0.copy()
            xp[i] += eps
            xm[i] -= eps
            num[i] = (float(tf.reduce_sum(fn(xp) * weights((2, 2, 3))))
                      - float(tf.reduce_sum(fn(xm) * weights((2, 2, 3))))) / (2 * eps)
        np.testing.assert_allclose(g, num, rtol=2e-2, atol=2e-3)


def test_crop_and_resize_fd_gradients() -> None:
    r = np.random.RandomState(2)
    image = r.uniform(0, 1, (2, 5, 6, 2))
    boxes = np.array([[0.11, 0.23, 0.71, 0.93], [0.83, 0.91, 0.21, 0.13], [-0.2, 0.3, 0.6, 1.3]])
    bi = np.array([0, 1, 1], np.int32)

    def f_img(x: Any) -> Any:
        return tf.image.crop_and_resize(tf.cast(x, tf.float32), boxes.astype(np.float32), bi, [3, 4])

    # crop_and_resize computes in float32 (as TF): a float32-sized step and tolerance
    _fd_check(lambda x: tf.cast(f_img(x), tf.float64), image, eps=1e-3, tol=2e-3)

    def f_box(b: Any) -> Any:
        return tf.cast(tf.image.crop_and_resize(image.astype(np.float32), tf.cast(b, tf.float32), bi, [3, 4]),
                       tf.float64)

    _fd_check(f_box, boxes, eps=1e-4, tol=5e-3)


def test_extract_patches_fd_gradient_float64() -> None:
    x = np.random.RandomState(1).uniform(size=(1, 5, 4, 2))
    _fd_check(lambda t: tf.image.extract_patches(t, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"), x)


def test_extract_patches_empty_output() -> None:
    y = tf.image.extract_patches(tf.zeros([1, 2, 2, 1]), [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    assert list(y.shape) == [1, 0, 0, 9]


def test_inside_function() -> None:
    ref = CASES["crop_and_resize_bilinear_3x4_-1.5"]
    xs = [tf.constant(np.array(v, dtype=d)) for v, d in zip(ref["inputs"], ref["in_dtypes"])]

    @tf.function
    def f(im: Any, bx: Any, bi: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(bx)
            y = tf.image.crop_and_resize(im, bx, bi, [3, 4], extrapolation_value=-1.5)
            loss = tf.reduce_sum(tf.cast(y, tf.float64) * weights((5, 3, 4, 2)))
        return y, tape.gradient(loss, bx), tf.image.adjust_hue(tf.image.rgb_to_hsv(im[..., :1] * tf.ones([3])), 0.3)

    y, gb, _ = f(*xs)
    np.testing.assert_allclose(y.numpy(), np.array(ref["out"]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), np.array(ref["grads"]["1"]), rtol=1e-4, atol=2e-5)
    nms = NMS["nms_rand40_5_0.5_-inf"]

    @tf.function
    def g(b: Any, s: Any) -> Any:
        return tf.image.non_max_suppression(b, s, 5, 0.5)

    np.testing.assert_array_equal(g(np.array(nms["boxes"], np.float32), np.array(nms["scores"], np.float32)).numpy(),
                                  nms["indices"])


def _thr(v: Any) -> float:
    return float("-inf") if v == "-inf" else float(v)


@pytest.mark.parametrize("case", sorted(NMS))
def test_nms_matches_tf(case: str) -> None:
    ref = NMS[case]
    s = np.array(ref["scores"], np.float32)
    if ref["fn"] == "non_max_suppression":
        idx = tf.image.non_max_suppression(np.array(ref["boxes"], np.float32), s, ref["max_output_size"],
                                           ref["iou_threshold"], _thr(ref["score_threshold"]))
    elif ref["fn"] == "non_max_suppression_overlaps":
        idx = tf.image.non_max_suppression_overlaps(np.array(ref["overlaps"], np.float32), s,
                                                    ref["max_output_size"], ref["overlap_threshold"],
                                                    _thr(ref["score_threshold"]))
    elif ref["fn"] == "combined_non_max_suppression":
        res = tf.image.combined_non_max_suppression(
            np.array(ref["boxes"], np.float32), np.array(ref["scores"], np.float32), ref["per_class"], ref["total"],
            ref["iou_threshold"], _thr(ref["score_threshold"]), pad_per_class=ref["pad_per_class"],
            clip_boxes=ref["clip_boxes"])
        assert [t.dtype.name for t in res] == ["float32", "float32", "float32", "int32"]
        for got, want in zip(res, ref["out"]):
            np.testing.assert_array_equal(got.numpy(), np.array(want).reshape(got.shape))
            assert list(got.shape) == list(np.array(want).shape)
        return
    elif ref["fn"] == "non_max_suppression_padded":
        idx, nv = tf.image.non_max_suppression_padded(
            np.array(ref["boxes"], np.float32), s, ref["max_output_size"], ref["iou_threshold"],
            _thr(ref["score_threshold"]), pad_to_max_output_size=ref["pad"], sorted_input=ref["sorted_input"],
            canonicalized_coordinates=ref["canonicalized_coordinates"], tile_size=ref["tile_size"])
        assert nv.dtype == tf.int32
        np.testing.assert_array_equal(nv.numpy(), np.array(ref["valid"]))
        assert list(idx.shape) == list(np.array(ref["indices"], np.int32).shape)
    else:
        idx, sc = tf.image.non_max_suppression_with_scores(np.array(ref["boxes"], np.float32), s,
                                                           ref["max_output_size"], ref["iou_threshold"],
                                                           _thr(ref["score_threshold"]), ref["soft_nms_sigma"])
        assert sc.dtype == tf.float32
        np.testing.assert_allclose(sc.numpy(), np.array(ref["out_scores"]), rtol=1e-6, atol=1e-7)
    assert idx.dtype == tf.int32
    np.testing.assert_array_equal(idx.numpy().reshape(-1), np.array(ref["indices"], np.int32).reshape(-1))


def test_nms_empty_input() -> None:
    idx = tf.image.non_max_suppression(tf.zeros([0, 4]), tf.zeros([0]), 3)
    assert list(idx.shape) == [0] and idx.dtype == tf.int32


# ------------------------------------------------------------------------------------------ random

def test_random_hue_saturation_statistics() -> None:
    x = tf.constant(np.random.RandomState(0).uniform(0, 1, (4, 4, 3)).astype(np.float32))
    hsv = tf.image.rgb_to_hsv(x).numpy()
    tf.random.set_seed(5)
    deltas = []
    for _ in range(40):
        y = tf.image.random_hue(x, 0.2)
        dh = (tf.image.rgb_to_hsv(y).numpy()[..., 0] - hsv[..., 0] + 0.5) % 1.0 - 0.5
        deltas.append(float(np.median(dh)))
        sat = tf.image.random_saturation(x, 0.5, 0.8)
        ratio = tf.image.rgb_to_hsv(sat).numpy()[..., 1] / hsv[..., 1]
        assert 0.5 - 1e-4 <= float(np.median(ratio)) <= 0.8 + 1e-4
    assert min(deltas) >= -0.2 - 1e-4 and max(deltas) <= 0.2 + 1e-4
    assert np.std(deltas) > 0.05  # not constant


@pytest.mark.parametrize("fn,args", [
    (tf.image.stateless_random_hue, (0.3,)), (tf.image.stateless_random_saturation, (0.2, 1.5)),
    (tf.image.stateless_random_brightness, (0.3,)), (tf.image.stateless_random_contrast, (0.2, 1.8)),
    (tf.image.stateless_random_flip_left_right, ()), (tf.image.stateless_random_flip_up_down, ()),
])
def test_stateless_deterministic_and_seed_dependent(fn: Any, args: tuple[Any, ...]) -> None:
    x = tf.constant(np.random.RandomState(0).uniform(0, 1, (6, 3, 4, 3)).astype(np.float32))
    a = fn(x, *args, seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, fn(x, *args, seed=[1, 2]).numpy())
    outs = [fn(x, *args, seed=[s, 7]).numpy() for s in range(6)]
    assert any(not np.array_equal(outs[0], o) for o in outs[1:])
    assert a.shape == (6, 3, 4, 3) and a.dtype == np.float32


def test_stateless_flip_per_image() -> None:
    x = tf.constant(np.arange(40 * 2 * 2, dtype=np.float32).reshape(40, 2, 2, 1))
    y = tf.image.stateless_random_flip_left_right(x, seed=[3, 4]).numpy()
    flipped = np.array([np.array_equal(y[i], x.numpy()[i, :, ::-1]) for i in range(40)])
    same = np.array([np.array_equal(y[i], x.numpy()[i]) for i in range(40)])
    assert np.all(flipped | same) and 8 < flipped.sum() < 32


def test_stateless_random_crop() -> None:
    x = tf.reshape(tf.range(5 * 6 * 2), [5, 6, 2])
    a = tf.image.stateless_random_crop(x, [3, 2, 2], seed=[1, 1]).numpy()
    np.testing.assert_array_equal(a, tf.image.stateless_random_crop(x, [3, 2, 2], seed=[1, 1]).numpy())
    r0, c0 = divmod(int(a[0, 0, 0]) // 2, 6)
    np.testing.assert_array_equal(a, x.numpy()[r0:r0 + 3, c0:c0 + 2])
    offsets = {int(tf.image.stateless_random_crop(x, [3, 2, 2], seed=[s, 0])[0, 0, 0]) for s in range(30)}
    assert len(offsets) > 5
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.stateless_random_crop(x, [6, 2, 2], seed=[1, 1])


# ------------------------------------------------------------------------------------------ bad inputs

def test_bad_inputs() -> None:
    rgb = tf.zeros([2, 2, 3])
    with pytest.raises(TypeError, match="int32"):
        tf.image.rgb_to_hsv(tf.zeros([2, 2, 3], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="3 channels"):
        tf.image.rgb_to_yiq(tf.zeros([2, 2, 4]))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        tf.image.adjust_hue(rgb, 1.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="3 channels"):
        tf.image.adjust_saturation(tf.zeros([2, 2, 1]), 0.5)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        tf.image.random_hue(rgb, 0.6)
    with pytest.raises(ValueError, match="non-negative"):
        tf.image.stateless_random_hue(rgb, -0.1, seed=[1, 2])
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_saturation(rgb, 0.5, 0.5)
    with pytest.raises(ValueError, match="lower must be non-negative"):
        tf.image.stateless_random_saturation(rgb, -0.5, 0.5, seed=[1, 2])
    img = tf.zeros([2, 4, 4, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-D"):
        tf.image.crop_and_resize(rgb, [[0, 0, 1, 1.0]], [0], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[num_boxes, 4\]"):
        tf.image.crop_and_resize(img, [[0, 0, 1.0]], [0], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside"):
        tf.image.crop_and_resize(img, [[0, 0, 1, 1.0]], [2], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
        tf.image.crop_and_resize(img, [[0, 0, 1, 1.0]], [0], [0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="incompatible"):
        tf.image.crop_and_resize(img, [[0, 0, 1, 1.0]], [0, 1], [2, 2])
    with pytest.raises(ValueError, match="method"):
        tf.image.crop_and_resize(img, [[0, 0, 1, 1.0]], [0], [2, 2], method="bicubic")
    with pytest.raises(ValueError, match="sizes"):
        tf.image.extract_patches(img, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="padding"):
        tf.image.extract_patches(img, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="4-D"):
        tf.image.extract_patches(rgb, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    boxes, scores = tf.zeros([3, 4]), tf.zeros([3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"scores must be 1-D"):
        tf.image.non_max_suppression(boxes, tf.zeros([2]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="iou_threshold must be in"):
        tf.image.non_max_suppression(boxes, scores, 2, iou_threshold=1.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.image.non_max_suppression(boxes, scores, -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="soft_nms_sigma"):
        tf.image.non_max_suppression_with_scores(boxes, scores, 2, soft_nms_sigma=-1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        tf.image.non_max_suppression_overlaps(tf.zeros([3, 2]), scores, 2)
    with pytest.raises(TypeError, match="floating"):
        tf.image.non_max_suppression(tf.zeros([3, 4], tf.int32), scores, 2)


def test_nms_padded_and_combined_bad_inputs_and_function() -> None:
    with pytest.raises(ValueError, match="must be True for batched input"):
        tf.image.non_max_suppression_padded(tf.zeros([2, 3, 4]), tf.zeros([2, 3]), 2)
    with pytest.raises(ValueError, match="scores must have shape"):
        tf.image.non_max_suppression_padded(tf.zeros([3, 4]), tf.zeros([2]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="third dimension of boxes"):
        tf.image.combined_non_max_suppression(tf.zeros([1, 3, 2, 4]), tf.zeros([1, 3, 3]), 2, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="max_total_size"):
        tf.image.combined_non_max_suppression(tf.zeros([1, 3, 1, 4]), tf.zeros([1, 3, 3]), 2, 0)
    with pytest.raises(TypeError, match="float32"):
        tf.image.combined_non_max_suppression(tf.zeros([1, 3, 1, 4], tf.float64), tf.zeros([1, 3, 3]), 2, 4)
    ref = NMS["combined_ties_5"]

    @tf.function
    def f(b: Any, s: Any) -> Any:
        res = tf.image.combined_non_max_suppression(b, s, ref["per_class"], ref["total"], 0.5, 0.1,
                                                    pad_per_class=ref["pad_per_class"])
        return res.nmsed_scores, res.valid_detections

    sc, valid = f(np.array(ref["boxes"], np.float32), np.array(ref["scores"], np.float32))
    np.testing.assert_array_equal(sc.numpy(), np.array(ref["out"][1]))
    np.testing.assert_array_equal(valid.numpy(), np.array(ref["out"][3]))


@pytest.mark.parametrize("cname", sorted(REF["sample_distorted_bounding_box"]))
def test_sample_distorted_bounding_box_statistics(cname: str) -> None:
    cfg = REF["sample_distorted_bounding_box"][cname]
    hw = cfg["image_size"]
    boxes = np.array(cfg["boxes"], np.float32)
    crops = []
    for i in range(400):
        begin, size, bbox = tf.image.stateless_sample_distorted_bounding_box(hw, boxes, seed=[i, 17], **cfg["kw"])
        b, sz = begin.numpy(), size.numpy()
        assert b.dtype == np.int32 and bbox.dtype == tf.float32 and list(bbox.shape) == [1, 1, 4]
        assert b[2] == 0 and sz[2] == -1 and b[0] + sz[0] <= hw[0] and b[1] + sz[1] <= hw[1] and min(sz[:2]) > 0
        np.testing.assert_allclose(bbox.numpy().reshape(4), [b[0] / hw[0], b[1] / hw[1], (b[0] + sz[0]) / hw[0],
                                                             (b[1] + sz[1]) / hw[1]], rtol=1e-6)
        crops.append([b[0], b[1], b[0] + sz[0], b[1] + sz[1]])
    crops_np = np.array(crops, np.float64)
    h, w = crops_np[:, 2] - crops_np[:, 0], crops_np[:, 3] - crops_np[:, 1]
    full = (h == hw[0]) & (w == hw[1])
    kw = cfg["kw"]
    lo, hi = kw.get("area_range", [0.05, 1.0])
    rel = h * w / (hw[0] * hw[1])
    assert np.all(full | ((rel >= lo - 0.02) & (rel <= hi + 1e-6)))  # TF's integer rounding of the sides
    # the constraint: a non-fallback crop covers enough of some box
    covered = np.zeros(len(crops_np), bool)
    for bx in boxes.reshape(-1, 4):
        r = np.array([int(bx[0] * hw[0]), int(bx[1] * hw[1]), int(bx[2] * hw[0]), int(bx[3] * hw[1])], np.float64)
        ih = np.maximum(np.minimum(crops_np[:, 2], r[2]) - np.maximum(crops_np[:, 0], r[0]), 0)
        iw = np.maximum(np.minimum(crops_np[:, 3], r[3]) - np.maximum(crops_np[:, 1], r[1]), 0)
        covered |= ih * iw / ((r[2] - r[0]) * (r[3] - r[1])) >= kw.get("min_object_covered", 0.1) - 1e-6
    assert np.all(full | covered)
    want = cfg["stats"]
    got = {"area": float(np.mean(rel)), "aspect": float(np.mean(w / h)), "full": float(np.mean(full)),
           "y0": float(np.mean(crops_np[:, 0] / hw[0])), "x0": float(np.mean(crops_np[:, 1] / hw[1]))}
    for k in want:  # 400 samples each: a few standard errors
        assert abs(got[k] - want[k]) < 0.06 + 0.1 * abs(want[k]), (k, got, want)
    a = [t.numpy() for t in tf.image.stateless_sample_distorted_bounding_box(hw, boxes, seed=[3, 4], **kw)]
    b2 = [t.numpy() for t in tf.image.stateless_sample_distorted_bounding_box(hw, boxes, seed=[3, 4], **kw)]
    for x, y in zip(a, b2):
        np.testing.assert_array_equal(x, y)


def test_sample_distorted_bounding_box_stateful_and_errors() -> None:
    tf.random.set_seed(3)
    outs = {tuple(tf.image.sample_distorted_bounding_box([50, 50, 3], [[[0.2, 0.2, 0.8, 0.8]]])[0].numpy())
            for _ in range(20)}
    assert len(outs) > 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes"):
        tf.image.sample_distorted_bounding_box([50, 50, 3], tf.zeros([1, 0, 4]))
    b, s, _ = tf.image.sample_distorted_bounding_box([50, 50, 3], tf.zeros([1, 0, 4]),
                                                     use_image_if_no_bounding_boxes=True)
    assert b.shape == [3] and s.numpy()[2] == -1
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"in \[0.0, 1.0\]"):
        tf.image.stateless_sample_distorted_bounding_box([50, 50, 3], [[[0.2, 0.2, 1.8, 0.8]]], seed=[1, 2])
    with pytest.raises(ValueError, match="image_size"):
        tf.image.sample_distorted_bounding_box([50, 50], [[[0.2, 0.2, 0.8, 0.8]]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="area_range"):
        tf.image.sample_distorted_bounding_box([50, 50, 3], [[[0.2, 0.2, 0.8, 0.8]]], area_range=[0.5, 0.1])


def test_draw_bounding_boxes_bad_inputs() -> None:
    with pytest.raises(TypeError, match="float32 or float16"):
        tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 3], tf.int32), [[[0, 0, 1, 1.0]]], None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Channel depth"):
        tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 2]), [[[0, 0, 1, 1.0]]], None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="boxes must be"):
        tf.image.draw_bounding_boxes(tf.zeros([2, 4, 4, 3]), [[[0, 0, 1, 1.0]]], None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="color"):
        tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 3]), [[[0, 0, 1, 1.0]]], [[1.0, 0.0]])


def test_extract_glimpse_noise_gradient_and_errors() -> None:
    x = np.random.RandomState(4).uniform(0.2, 0.7, (2, 5, 6, 1)).astype(np.float32)
    offs = np.array([[-0.9, -0.9], [0.0, 0.0]], np.float32)
    zero = tf.image.extract_glimpse(x, [4, 4], offs, noise="zero").numpy()
    outside = zero[0] == 0
    assert outside.any()
    for noise, lo, hi in (("uniform", 0.2, 0.7), ("gaussian", -10.0, 10.0)):
        g = tf.image.extract_glimpse(x, [4, 4], offs, noise=noise).numpy()
        keep = ~np.broadcast_to(outside, g.shape) | (np.arange(2) == 1)[:, None, None, None]
        np.testing.assert_array_equal(g[keep], zero[keep])
        assert np.all((g[0][outside] >= lo) & (g[0][outside] <= hi))
        assert len(np.unique(g[0][outside])) > 1  # noise, not a constant
    _fd_check(lambda t: tf.image.extract_glimpse(t, [3, 4], offs, noise="zero"), x.astype(np.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[batch_size, 2\]"):
        tf.image.extract_glimpse(x, [3, 3], [[0.0, 0.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="noise"):
        tf.image.extract_glimpse(x, [3, 3], offs, noise="salt")
    with pytest.raises(tf.errors.InvalidArgumentError, match="4-dimensional"):
        tf.image.extract_glimpse(x[0], [3, 3], offs)
    with pytest.raises(tf.errors.InvalidArgumentError, match="size"):
        tf.image.extract_glimpse(x, [0, 3], offs)


def test_sobel_resize_with_pad_fd_and_errors() -> None:
    _fd_check(tf.image.sobel_edges, np.random.RandomState(6).uniform(size=(1, 3, 4, 2)))
    with pytest.raises(ValueError, match="4-D"):
        tf.image.sobel_edges(tf.zeros([3, 4, 1]))
    with pytest.raises(TypeError, match="float"):
        tf.image.sobel_edges(tf.zeros([1, 3, 4, 1], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="REFLECT"):
        tf.image.sobel_edges(tf.zeros([1, 1, 4, 1]))
    with pytest.raises(ValueError, match="target_width must be > 0"):
        tf.image.resize_with_pad(tf.zeros([4, 4, 1]), 3, 0)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize_with_pad(tf.zeros([4, 4]), 3, 3)
    y = tf.image.resize_with_pad(tf.ones([1, 2, 4, 1]), 4, 4)
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], [[0] * 4, [1] * 4, [1] * 4, [0] * 4])


def test_ssim_identity_gradient_and_errors() -> None:
    a = np.random.RandomState(8).uniform(size=(2, 11, 12, 2)).astype(np.float32)
    np.testing.assert_allclose(tf.image.ssim(a, a, 1.0).numpy(), [1.0, 1.0], rtol=1e-6)
    b = np.random.RandomState(9).uniform(size=(1, 7, 7, 1))
    # ssim computes in float32 (as TF, which converts float64 images): a float32-sized step and tolerance
    _fd_check(lambda t: tf.cast(tf.image.ssim(tf.cast(t, tf.float32), b.astype(np.float32) * 0.5 + 0.2, 1.0,
                                              filter_size=5), tf.float64),
              b, eps=1e-3, tol=2e-3)
    with pytest.raises(ValueError, match="same shape"):
        tf.image.ssim(tf.zeros([12, 12, 1]), tf.zeros([12, 11, 1]), 1.0)
    with pytest.raises(TypeError, match="same dtype"):
        tf.image.ssim(tf.zeros([12, 12, 1]), tf.zeros([12, 12, 1], tf.float64), 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="filter_size"):
        tf.image.ssim(tf.zeros([8, 12, 1]), tf.zeros([8, 12, 1]), 1.0)


def test_ssim_multiscale_identity_and_errors() -> None:
    a = np.random.RandomState(10).uniform(size=(1, 20, 20, 1)).astype(np.float32)
    np.testing.assert_allclose(tf.image.ssim_multiscale(a, a, 1.0, power_factors=(0.5, 0.5), filter_size=5).numpy(),
                               [1.0], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="filter_size"):
        tf.image.ssim_multiscale(a, a, 1.0, filter_size=5)  # the 5th scale is 2x2
    with pytest.raises(ValueError, match="same shape"):
        tf.image.ssim_multiscale(a, a[:, :10], 1.0)
