"""Records TensorFlow 2.21 / Keras 3's values and gradients for the losses in
python/tapers/keras/_losses_extra.py and for ``tf.nn.ctc_loss``.

What it records (into keras_losses_extra_reference.json next to this file): for each loss class and
option set, the reduced loss on fixed inputs (with and without sample weights), the per-sample values
(``reduction=None``), the gradient of the reduced loss with respect to ``y_pred``, and ``get_config()``;
for ``tf.nn.ctc_loss``, per-sequence losses and the gradient of their sum with respect to the logits
for several layouts, lengths, blank indices and an impossible alignment.

Regenerate (scratch venv with TensorFlow 2.21 + Keras 3):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_losses_extra_reference.py
"""

import json
import os

import keras
import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_losses_extra_reference.json")


def fixed(shape, k):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n, dtype="float64") * 0.37 + k) * 0.5).reshape(shape).astype("float32")


rng = np.random.default_rng(7)
B, C = 4, 3
probs = tf.nn.softmax(fixed((B, C), 1.0) * 3).numpy()
onehot = np.eye(C, dtype="float32")[[0, 2, 1, 2]]
binary_true = (fixed((B, C), 2.0) > 0).astype("float32")
binary_pred = 1.0 / (1.0 + np.exp(-fixed((B, C), 3.0) * 4))
seg_true = (fixed((2, 5, 5, 1), 4.0) > 0).astype("float32")
seg_pred = 1.0 / (1.0 + np.exp(-fixed((2, 5, 5, 1), 5.0) * 3))
emb = fixed((6, 4), 6.0)
emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
emb_labels = np.array([0, 1, 0, 2, 1, 0])
sparse = np.array([0, 2, 1, 2])
sw = np.array([0.5, 1.0, 2.0, 0.0], "float32")

CASES = [
    ("BinaryFocalCrossentropy", {}, binary_true, binary_pred, sw),
    ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5}, binary_true, binary_pred,
     sw),
    ("BinaryFocalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, binary_true, fixed((B, C), 3.0) * 4, sw),
    ("CategoricalFocalCrossentropy", {}, onehot, probs, sw),
    ("CategoricalFocalCrossentropy", {"from_logits": True, "label_smoothing": 0.2, "gamma": 3.0, "alpha": 0.5}, onehot,
     fixed((B, C), 1.0) * 3, sw),
    ("Dice", {}, seg_true, seg_pred, None),
    ("Dice", {"axis": (1, 2, 3)}, seg_true, seg_pred, np.array([1.0, 0.5], "float32")),
    ("Tversky", {}, seg_true, seg_pred, None),
    ("Tversky", {"alpha": 0.7, "beta": 0.3, "axis": (1, 2, 3)}, seg_true, seg_pred, np.array([1.0, 0.5], "float32")),
    ("Circle", {}, emb_labels, emb, None),
    ("Circle", {"gamma": 10.0, "margin": 0.25, "remove_diagonal": False}, emb_labels, emb, None),
    ("CategoricalGeneralizedCrossEntropy", {}, sparse, probs, None),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.2}, sparse, probs, sw),
]

out = {"losses": []}
for cls, kw, yt, yp, w in CASES:
    loss = getattr(keras.losses, cls)(**kw)
    ypv = tf.Variable(yp.astype("float32"))
    with tf.GradientTape() as tape:
        value = loss(yt, ypv)
    grad = tape.gradient(value, ypv)
    per = getattr(keras.losses, cls)(reduction=None, **kw)(yt, yp)
    rec = {"class": cls, "kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
           "y_true": np.asarray(yt).tolist(), "y_pred": np.asarray(yp).tolist(), "value": float(value),
           "per_sample": np.asarray(per).tolist(), "grad": grad.numpy().tolist(),
           "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in loss.get_config().items()}}
    if w is not None:
        rec["sample_weight"] = w.tolist()
        rec["weighted"] = float(loss(yt, yp, sample_weight=w))
    out["losses"].append(rec)

funcs = {}
funcs["binary_focal_crossentropy"] = keras.losses.binary_focal_crossentropy(binary_true, binary_pred).numpy().tolist()
funcs["categorical_focal_crossentropy"] = keras.losses.categorical_focal_crossentropy(onehot, probs).numpy().tolist()
funcs["dice"] = float(keras.losses.dice(seg_true, seg_pred))
funcs["tversky"] = float(keras.losses.tversky(seg_true, seg_pred, 0.6, 0.4))
funcs["metrics.binary_focal_crossentropy"] = keras.metrics.binary_focal_crossentropy(
    binary_true, binary_pred, gamma=1.0).numpy().tolist()
out["functions"] = funcs

# tf.nn.ctc_loss
ctc = []
T, N, K = 7, 3, 5
logits = fixed((T, N, K), 8.0) * 4
labels = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 4, 1]], "int32")
for name, kw in [
    ("time_major", dict(label_length=[3, 2, 4], logit_length=[7, 6, 7])),
    ("batch_major", dict(label_length=[3, 2, 4], logit_length=[7, 7, 5], logits_time_major=False)),
    ("blank_last", dict(label_length=[3, 2, 3], logit_length=[7, 7, 7], blank_index=-1)),
    ("blank_2", dict(label_length=[1, 2, 0], logit_length=[7, 3, 4], blank_index=2)),
    ("impossible", dict(label_length=[3, 2, 4], logit_length=[7, 2, 6])),
]:
    lg = logits if kw.get("logits_time_major", True) else np.transpose(logits, (1, 0, 2)).copy()
    lab = labels.copy()
    if name == "blank_2":
        lab = np.array([[1, 0, 0, 0], [3, 1, 0, 0], [0, 0, 0, 0]], "int32")
    if name == "blank_last":
        lab = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [0, 2, 3, 0]], "int32")
    v = tf.Variable(lg)
    with tf.GradientTape() as tape:
        losses = tf.nn.ctc_loss(lab, v, **kw)
        total = tf.reduce_sum(tf.where(tf.math.is_finite(losses), losses, tf.zeros_like(losses)))
    g = tape.gradient(total, v)
    ctc.append({"name": name, "labels": lab.tolist(), "logits": lg.tolist(),
                "kwargs": {k: v2 for k, v2 in kw.items()},
                "loss": [float(x) if np.isfinite(x) else str(x) for x in losses.numpy()],
                "grad": np.nan_to_num(g.numpy(), nan=0.0).tolist(), "grad_has_nan": bool(np.isnan(g.numpy()).any())})
out["ctc_loss"] = ctc

# keras.losses.CTC (batch-major logits, labels padded with 0 = blank)
y_true = np.array([[1, 2, 0], [3, 3, 1], [2, 0, 0]], "int32")
y_pred = fixed((3, 6, 4), 9.0) * 3
v = tf.Variable(y_pred)
with tf.GradientTape() as tape:
    value = keras.losses.CTC()(y_true, v)
out["keras_ctc"] = {"y_true": y_true.tolist(), "y_pred": y_pred.tolist(), "value": float(value),
                    "per_sample": keras.losses.ctc(y_true, y_pred).numpy().tolist(),
                    "grad": tape.gradient(value, v).numpy().tolist()}

with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
