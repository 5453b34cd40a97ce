# Records TensorFlow 2.21's results for the tf.image functions in tapers/_image_extra.py: values (and
# gradients of sum(y * w) where TF has them) of rgb_to_hsv / hsv_to_rgb / YIQ / YUV conversions,
# adjust_hue, adjust_saturation, crop_and_resize (bilinear / nearest, image and box gradients),
# extract_patches, and the exact indices / scores of non_max_suppression, non_max_suppression_with_scores
# (soft-NMS) and non_max_suppression_overlaps, including ties and score thresholds. Inputs are stored
# with the outputs. Regenerate (from the repository root) with:
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_image_more_reference.py
# which writes tests/data/image_more_reference.json.
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).parent / "image_more_reference.json"
rng = np.random.RandomState(1234)


def arr(x: Any) -> Any:
    return np.asarray(x).tolist()


def weights(shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return np.cos(np.arange(n, dtype=np.float64)).reshape(shape)


def run_case(fn: Any, inputs: list[np.ndarray], grad_of: list[int]) -> dict[str, Any]:
    ts = [tf.constant(v) for v in inputs]
    with tf.GradientTape(persistent=True) as tape:
        for i in grad_of:
            tape.watch(ts[i])
        y = fn(*ts)
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * weights(tuple(y.shape)))
    rec: dict[str, Any] = {"out": arr(y.numpy().astype(np.float64)), "out_shape": list(y.shape),
                           "out_dtype": y.dtype.name, "grads": {}}
    for i in grad_of:
        g = tape.gradient(loss, ts[i])
        rec["grads"][str(i)] = None if g is None else arr(g.numpy().astype(np.float64))
    return rec


def img(shape: tuple[int, ...], dtype: str = "float32") -> np.ndarray:
    v = rng.uniform(0, 1, size=shape)
    if dtype == "uint8":
        return np.round(v * 255).astype(np.uint8)
    return v.astype(dtype)


cases: dict[str, Any] = {}


def add(name: str, fn_name: str, fn: Any, inputs: list[np.ndarray], grad_of: list[int], **kw: Any) -> None:
    rec = run_case(fn, inputs, grad_of)
    rec.update(fn=fn_name, kwargs=kw, inputs=[arr(v) for v in inputs], in_dtypes=[str(v.dtype) for v in inputs])
    cases[name] = rec


# ------------------------------------------------------------------ color
rgb = img((2, 3, 4, 3))
rgb[0, 0, 0] = [0.5, 0.5, 0.5]  # gray: hue 0, saturation 0
rgb[0, 0, 1] = [0.0, 0.0, 0.0]  # black
rgb[0, 0, 2] = [0.9, 0.2, 0.9]  # r == b max
rgb[0, 0, 3] = [0.2, 0.9, 0.9]  # g == b max
for fn_name in ("rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"):
    f = getattr(tf.image, fn_name)
    add(fn_name, fn_name, f, [rgb], [0])
    add(fn_name + "_f64_3d", fn_name, f, [rgb[1].astype(np.float64)], [0])
for d in (0.2, -0.7, 1.0, 0.0):
    add(f"adjust_hue_{d}", "adjust_hue", lambda x, d=d: tf.image.adjust_hue(x, d), [rgb], [], delta=d)
add("adjust_hue_uint8", "adjust_hue", lambda x: tf.image.adjust_hue(x, 0.3), [img((5, 4, 3), "uint8")], [], delta=0.3)
for s in (0.5, 2.0, 0.0):
    add(f"adjust_saturation_{s}", "adjust_saturation", lambda x, s=s: tf.image.adjust_saturation(x, s), [rgb], [],
        saturation_factor=s)
add("adjust_saturation_uint8", "adjust_saturation", lambda x: tf.image.adjust_saturation(x, 1.7),
    [img((5, 4, 3), "uint8")], [], saturation_factor=1.7)

# ------------------------------------------------------------------ crop_and_resize
image = img((2, 5, 6, 2))
boxes = np.array([[0.0, 0.0, 1.0, 1.0], [0.1, 0.2, 0.7, 0.9], [0.8, 0.9, 0.2, 0.1], [-0.2, 0.3, 0.6, 1.3],
                  [0.33, 0.41, 0.37, 0.43]], dtype=np.float32)
box_ind = np.array([0, 1, 0, 1, 1], dtype=np.int32)
for method in ("bilinear", "nearest"):
    for crop in ((3, 4), (1, 1), (4, 1)):
        for ev in (0.0, -1.5):
            add(f"crop_and_resize_{method}_{crop[0]}x{crop[1]}_{ev}", "crop_and_resize",
                lambda im, bx, bi, method=method, crop=crop, ev=ev: tf.image.crop_and_resize(
                    im, bx, bi, list(crop), method=method, extrapolation_value=ev),
                [image, boxes, box_ind], [0, 1], crop_size=list(crop), method=method, extrapolation_value=ev)
add("crop_and_resize_uint8", "crop_and_resize", lambda im, bx, bi: tf.image.crop_and_resize(im, bx, bi, [3, 3]),
    [img((2, 5, 6, 2), "uint8"), boxes, box_ind], [], crop_size=[3, 3], method="bilinear", extrapolation_value=0.0)

# ------------------------------------------------------------------ extract_patches
pimg = img((2, 7, 8, 3))
for sizes, strides, rates, padding in (([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
                                       ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
                                       ([1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 1, 1], "VALID"),
                                       ([1, 2, 3, 1], [1, 3, 2, 1], [1, 2, 2, 1], "SAME"),
                                       ([1, 8, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")):
    add(f"extract_patches_{sizes[1]}{sizes[2]}_{strides[1]}{strides[2]}_{rates[1]}{rates[2]}_{padding}",
        "extract_patches",
        lambda x, a=sizes, b=strides, c=rates, p=padding: tf.image.extract_patches(x, a, b, c, p),
        [pimg], [0], sizes=sizes, strides=strides, rates=rates, padding=padding)
add("extract_patches_int32", "extract_patches",
    lambda x: tf.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    [np.arange(2 * 3 * 4 * 1, dtype=np.int32).reshape(2, 3, 4, 1)], [], sizes=[1, 2, 2, 1], strides=[1, 1, 1, 1],
    rates=[1, 1, 1, 1], padding="SAME")

# ------------------------------------------------------------------ draw_bounding_boxes
dboxes = np.array([[[0.1, 0.1, 0.6, 0.7], [-0.2, 0.3, 0.5, 1.4], [0.5, 0.5, 0.2, 0.9], [0.0, 0.0, 1.0, 1.0]],
                   [[0.33, 0.2, 0.9, 0.45], [1.2, 0.1, 1.5, 0.4], [-0.5, -0.5, 1.5, 1.5], [0.2, 0.2, 0.2, 0.2]]],
                  np.float32)
for depth, colors in ((3, [[1.0, 0.0, 0.0, 1.0], [0.0, 0.5, 1.0, 1.0], [0.2, 0.3, 0.4, 1.0]]), (1, []), (4, []),
                      (3, [])):
    add(f"draw_bounding_boxes_{depth}_{len(colors)}", "draw_bounding_boxes",
        lambda im, bx, c=colors: tf.image.draw_bounding_boxes(
            im, bx, tf.constant(c, tf.float32) if c else tf.zeros([0, 4])),
        [img((2, 7, 9, depth)), dboxes], [], colors=colors)

# ------------------------------------------------------------------ extract_glimpse
gimg = img((3, 6, 7, 2))
for gsize, offs, centered, normalized in (
        ([3, 4], [[0.0, 0.0], [0.5, -0.3], [-0.9, 0.8]], True, True),
        ([2, 3], [[0.2, 0.3], [0.9, 0.1], [0.55, 0.61]], False, True),
        ([4, 3], [[1.0, 1.0], [3.0, 5.5], [-1.5, 2.2]], False, False),
        ([3, 3], [[0.0, 0.0], [1.4, -2.6], [-3.0, 2.0]], True, False),
        ([6, 7], [[0.0, 0.0], [0.1, 0.0], [0.0, -0.1]], True, True)):
    add(f"extract_glimpse_{gsize[0]}{gsize[1]}_{centered}_{normalized}", "extract_glimpse",
        lambda im, o, gsize=gsize, c=centered, n=normalized: tf.image.extract_glimpse(
            im, gsize, o, centered=c, normalized=n, noise="zero"),
        [gimg, np.array(offs, np.float32)], [], size=gsize, centered=centered, normalized=normalized)

# ------------------------------------------------------------------ sobel_edges, resize_with_pad
add("sobel_edges", "sobel_edges", tf.image.sobel_edges, [img((2, 5, 6, 2))], [0])
add("sobel_edges_f64", "sobel_edges", tf.image.sobel_edges, [img((1, 4, 3, 1), "float64")], [0])
for shape, th, tw, method in (((2, 5, 8, 2), 6, 6, "bilinear"), ((7, 4, 3), 10, 9, "nearest"),
                              ((2, 6, 6, 1), 9, 4, "bicubic"), ((3, 5, 2), 3, 5, "area")):
    add(f"resize_with_pad_{len(shape)}_{th}x{tw}_{method}", "resize_with_pad",
        lambda x, th=th, tw=tw, m=method: tf.image.resize_with_pad(x, th, tw, method=m), [img(shape)],
        [0] if method not in ("nearest", "area") else [], target_height=th, target_width=tw, method=method)

# ------------------------------------------------------------------ ssim
s1 = img((2, 16, 14, 3))
s2 = np.clip(s1 + rng.normal(0, 0.1, s1.shape), 0, 1).astype(np.float32)
add("ssim", "ssim", lambda a, b: tf.image.ssim(a, b, 1.0), [s1, s2], [0, 1], max_val=1.0)
add("ssim_small_filter", "ssim", lambda a, b: tf.image.ssim(a, b, 2.0, filter_size=5, filter_sigma=0.8, k1=0.02),
    [s1[0], s2[0]], [0, 1], max_val=2.0, filter_size=5, filter_sigma=0.8, k1=0.02)
add("ssim_map", "ssim", lambda a, b: tf.image.ssim(a, b, 1.0, filter_size=7, return_index_map=True), [s1, s2], [0],
    max_val=1.0, filter_size=7, return_index_map=True)
u1, u2 = img((1, 12, 12, 1), "uint8"), img((1, 12, 12, 1), "uint8")
add("ssim_uint8", "ssim", lambda a, b: tf.image.ssim(a, b, 255), [u1, u2], [], max_val=255)
m1 = img((2, 27, 30, 2))
m2 = np.clip(m1 + rng.normal(0, 0.15, m1.shape), 0, 1).astype(np.float32)
add("ssim_multiscale", "ssim_multiscale",
    lambda a, b: tf.image.ssim_multiscale(a, b, 1.0, power_factors=(0.2, 0.5, 0.3), filter_size=5),
    [m1, m2], [0, 1], max_val=1.0, power_factors=[0.2, 0.5, 0.3], filter_size=5)
add("ssim_multiscale_3d", "ssim_multiscale",
    lambda a, b: tf.image.ssim_multiscale(a, b, 1.0, power_factors=(0.3, 0.7), filter_size=3, filter_sigma=0.7),
    [m1[0, :9, :8], m2[0, :9, :8]], [0], max_val=1.0, power_factors=[0.3, 0.7], filter_size=3, filter_sigma=0.7)

# ------------------------------------------------------------------ non-max suppression
nms: dict[str, Any] = {}


def rand_boxes(n: int, seed: int) -> np.ndarray:
    r = np.random.RandomState(seed)
    y = r.uniform(0, 10, n)
    x = r.uniform(0, 10, n)
    h = r.uniform(0.5, 4, n)
    w = r.uniform(0.5, 4, n)
    b = np.stack([y, x, y + h, x + w], axis=1)
    flip = r.rand(n) < 0.3
    b[flip] = b[flip][:, [2, 3, 0, 1]]  # corners in the other order
    return b.astype(np.float32)


box_sets = {
    "rand40": (rand_boxes(40, 0), np.random.RandomState(1).uniform(0, 1, 40).astype(np.float32)),
    "ties": (np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                       [0, 100, 1, 101], [5, 5, 5, 6], [0, 0, 1, 1]], np.float32),
             np.array([0.9, 0.9, 0.75, 0.9, 0.95, 0.3, 0.99, 0.9], np.float32)),
    "rand60q": (rand_boxes(60, 3), np.round(np.random.RandomState(4).uniform(0, 1, 60) * 8).astype(np.float32) / 8),
}
for set_name, (b, s) in box_sets.items():
    for max_out, iou, sthr in ((100, 0.5, float("-inf")), (5, 0.5, float("-inf")), (100, 0.3, 0.4),
                               (100, 0.0, float("-inf")), (100, 1.0, 0.5), (0, 0.5, float("-inf")),
                               (100, 0.7, 0.99)):
        idx = tf.image.non_max_suppression(b, s, max_out, iou, sthr)
        nms[f"nms_{set_name}_{max_out}_{iou}_{sthr}"] = dict(
            fn="non_max_suppression", boxes=arr(b), scores=arr(s), max_output_size=max_out, iou_threshold=iou,
            score_threshold=sthr if np.isfinite(sthr) else "-inf", indices=arr(idx.numpy()))
    for sigma, iou, sthr in ((0.5, 1.0, float("-inf")), (0.5, 1.0, 0.1), (0.2, 0.6, 0.05), (0.0, 0.5, 0.2),
                             (1.0, 0.5, float("-inf"))):
        idx, sc = tf.image.non_max_suppression_with_scores(b, s, 30, iou, sthr, soft_nms_sigma=sigma)
        nms[f"soft_{set_name}_{sigma}_{iou}_{sthr}"] = dict(
            fn="non_max_suppression_with_scores", boxes=arr(b), scores=arr(s), max_output_size=30,
            iou_threshold=iou, score_threshold=sthr if np.isfinite(sthr) else "-inf", soft_nms_sigma=sigma,
            indices=arr(idx.numpy()), out_scores=arr(sc.numpy().astype(np.float64)))
ov = np.random.RandomState(7).uniform(0, 1, (12, 12)).astype(np.float32)
ov_scores = np.round(np.random.RandomState(8).uniform(0, 1, 12) * 4).astype(np.float32) / 4
for thr, sthr in ((0.5, float("-inf")), (0.2, 0.3), (0.9, float("-inf"))):
    idx = tf.image.non_max_suppression_overlaps(ov, ov_scores, 10, thr, sthr)
    nms[f"overlaps_{thr}_{sthr}"] = dict(fn="non_max_suppression_overlaps", overlaps=arr(ov), scores=arr(ov_scores),
                                         max_output_size=10, overlap_threshold=thr,
                                         score_threshold=sthr if np.isfinite(sthr) else "-inf",
                                         indices=arr(idx.numpy()))

for set_name, (b, s) in box_sets.items():
    for max_out, iou, sthr, pad, tile, srt, canon in ((20, 0.5, float("-inf"), False, 512, False, False),
                                                     (20, 0.5, float("-inf"), True, 4, False, False),
                                                     (7, 0.3, 0.4, True, 3, False, False),
                                                     (70, 0.6, 0.2, False, 8, False, True),
                                                     (10, 0.5, float("-inf"), False, 5, True, False),
                                                     (0, 0.5, float("-inf"), True, 512, False, False)):
        bb = b
        if srt:  # sorted input: give TF the boxes in descending score order
            order = np.argsort(-s, kind="stable")
            bb, ss = b[order], s[order]
        else:
            ss = s
        idx, nv = tf.image.non_max_suppression_padded(tf.constant(bb), tf.constant(ss), max_out, iou, sthr,
                                                      pad_to_max_output_size=pad, sorted_input=srt,
                                                      canonicalized_coordinates=canon, tile_size=tile)
        nms[f"padded_{set_name}_{max_out}_{iou}_{sthr}_{pad}_{tile}_{srt}_{canon}"] = dict(
            fn="non_max_suppression_padded", boxes=arr(bb), scores=arr(ss), max_output_size=max_out,
            iou_threshold=iou, score_threshold=sthr if np.isfinite(sthr) else "-inf", pad=pad, tile_size=tile,
            sorted_input=srt, canonicalized_coordinates=canon, indices=arr(idx.numpy()), valid=int(nv))
bb = np.stack([rand_boxes(30, 11), rand_boxes(30, 12), rand_boxes(30, 13), rand_boxes(30, 14)]).reshape(2, 2, 30, 4)
ss = np.random.RandomState(15).uniform(0, 1, (2, 2, 30)).astype(np.float32)
idx, nv = tf.image.non_max_suppression_padded(tf.constant(bb), tf.constant(ss), 12, 0.4, 0.1,
                                              pad_to_max_output_size=True, tile_size=8)
nms["padded_batched"] = dict(fn="non_max_suppression_padded", boxes=arr(bb), scores=arr(ss), max_output_size=12,
                             iou_threshold=0.4, score_threshold=0.1, pad=True, tile_size=8, sorted_input=False,
                             canonicalized_coordinates=False, indices=arr(idx.numpy()), valid=arr(nv.numpy()))

r = np.random.RandomState(21)
for q, pad_pc, clip, per_class, total, iou, sthr in ((1, False, True, 5, 8, 0.5, float("-inf")),
                                                    (3, False, False, 4, 20, 0.4, 0.3),
                                                    (3, True, True, 2, 20, 0.5, 0.1),
                                                    (1, True, False, 10, 4, 0.0, float("-inf"))):
    cb = np.stack([rand_boxes(25 * q, 30 + k).reshape(25, q, 4) / 12.0 for k in range(2)]).astype(np.float32)
    cs = r.uniform(0, 1, (2, 25, 3)).astype(np.float32)
    res = tf.image.combined_non_max_suppression(cb, cs, per_class, total, iou, sthr, pad_per_class=pad_pc,
                                                clip_boxes=clip)
    nms[f"combined_{q}_{pad_pc}_{clip}_{per_class}_{total}_{iou}_{sthr}"] = dict(
        fn="combined_non_max_suppression", boxes=arr(cb), scores=arr(cs), per_class=per_class, total=total,
        iou_threshold=iou, score_threshold=sthr if np.isfinite(sthr) else "-inf", pad_per_class=pad_pc,
        clip_boxes=clip, out=[arr(v.numpy().astype(np.float64)) for v in res])
# Tied scores (quarters): TF orders ties by libstdc++'s priority_queue / std::sort moves; > 16 results
# per image exercise std::sort's introsort partitioning, not only its insertion sort.
for k in range(8):
    n = 12 + 5 * k
    q = 1 if k % 2 else 3
    cb = r.uniform(0, 1, (2, n, q, 4)).astype(np.float32)
    cs = (np.round(r.uniform(0, 1, (2, n, 3)) * 4) / 4).astype(np.float32)
    per_class, total = 3 + k, 8 + 4 * k
    res = tf.image.combined_non_max_suppression(cb, cs, per_class, total, 0.5, 0.1, pad_per_class=bool(k % 3 == 0))
    nms[f"combined_ties_{k}"] = dict(
        fn="combined_non_max_suppression", boxes=arr(cb), scores=arr(cs), per_class=per_class, total=total,
        iou_threshold=0.5, score_threshold=0.1, pad_per_class=bool(k % 3 == 0), clip_boxes=True,
        out=[arr(v.numpy().astype(np.float64)) for v in res])

# ------------------------------------------------------------------ sample_distorted_bounding_box
# Random: TF's draws are not reproducible elsewhere, so record the statistics of 400 stateless crops.
sample_stats: dict[str, Any] = {}
SAMPLE_CONFIGS = {
    "default": dict(image_size=[100, 80, 3], boxes=[[[0.1, 0.2, 0.5, 0.6]]], kw={}),
    "covered": dict(image_size=[60, 90, 3], boxes=[[[0.1, 0.1, 0.3, 0.4], [0.5, 0.5, 0.9, 0.95]]],
                    kw=dict(min_object_covered=0.7, aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.6],
                            max_attempts=50)),
    "hard": dict(image_size=[40, 40, 1], boxes=[[[0.0, 0.0, 1.0, 1.0]]],
                 kw=dict(min_object_covered=0.95, area_range=[0.05, 0.5], max_attempts=10)),
}


def crop_stats(crops: np.ndarray, hw: list[int]) -> dict[str, float]:
    h, w = crops[:, 2] - crops[:, 0], crops[:, 3] - crops[:, 1]
    return dict(area=float(np.mean(h * w / (hw[0] * hw[1]))), aspect=float(np.mean(w / h)),
                full=float(np.mean((h == hw[0]) & (w == hw[1]))), y0=float(np.mean(crops[:, 0] / hw[0])),
                x0=float(np.mean(crops[:, 1] / hw[1])))


for cname, cfg in SAMPLE_CONFIGS.items():
    crops = []
    for i in range(400):
        begin, size, _ = tf.image.stateless_sample_distorted_bounding_box(
            cfg["image_size"], tf.constant(cfg["boxes"], tf.float32), seed=[i, 17], **cfg["kw"])
        crops.append([begin[0], begin[1], begin[0] + size[0], begin[1] + size[1]])
    sample_stats[cname] = dict(cfg, stats=crop_stats(np.array(crops, np.float64), cfg["image_size"]))

OUT.write_text(json.dumps({"tensorflow": tf.__version__, "cases": cases, "nms": nms,
                           "sample_distorted_bounding_box": sample_stats}))
print(f"wrote {OUT} ({len(cases)} cases, {len(nms)} nms cases)")
