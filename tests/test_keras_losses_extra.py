"""Keras 3's focal, Dice/Tversky, Circle, generalized cross-entropy and CTC losses, and ``tf.nn.ctc_loss``,
against TensorFlow 2.21 / Keras 3 (tests/data/make_keras_losses_extra_reference.py), plus float64
finite-difference gradients and bad inputs."""

import json
import math
import pathlib

import numpy as np
import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "keras_losses_extra_reference.json").read_text())
L = tf.keras.losses


def _kwargs(kw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}


def _y_true(rec):
    yt = np.array(rec["y_true"])
    return yt.astype("int32") if yt.dtype.kind == "i" else yt.astype("float32")


@pytest.mark.parametrize("i", range(len(REF["losses"])), ids=[f"{r['class']}-{j}" for j, r in enumerate(REF["losses"])])
def test_loss_matches_keras(i):
    rec = REF["losses"][i]
    cls = getattr(L, rec["class"])
    kw = _kwargs(rec["kwargs"])
    yt, yp = _y_true(rec), np.array(rec["y_pred"], "float32")
    loss = cls(**kw)
    v = tf.Variable(yp)
    with tf.GradientTape() as tape:
        value = loss(yt, v)
    np.testing.assert_allclose(float(value), rec["value"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(value, v).numpy(), np.array(rec["grad"]), rtol=1e-4, atol=1e-6)
    per = cls(reduction=None, **kw)(yt, yp)
    np.testing.assert_allclose(per.numpy(), np.array(rec["per_sample"]), rtol=2e-5, atol=1e-6)
    if "weighted" in rec:
        w = np.array(rec["sample_weight"], "float32")
        np.testing.assert_allclose(float(loss(yt, yp, sample_weight=w)), rec["weighted"], rtol=2e-5, atol=1e-6)
    cfg = {k: (list(v) if isinstance(v, tuple) else v) for k, v in loss.get_config().items()}
    assert cfg == rec["config"]
    again = cls.from_config(loss.get_config())
    np.testing.assert_allclose(float(again(yt, yp)), rec["value"], rtol=2e-5, atol=1e-6)


def test_functions_match_keras():
    f = REF["functions"]
    rec = {}
    for r in REF["losses"]:  # each class's first (default-option) case
        rec.setdefault(r["class"], r)
    bf, cf, dc = rec["BinaryFocalCrossentropy"], rec["CategoricalFocalCrossentropy"], rec["Dice"]
    np.testing.assert_allclose(
        L.binary_focal_crossentropy(_y_true(bf), np.array(bf["y_pred"], "float32")).numpy(),
        f["binary_focal_crossentropy"], rtol=2e-5)
    np.testing.assert_allclose(
        L.categorical_focal_crossentropy(_y_true(cf), np.array(cf["y_pred"], "float32")).numpy(),
        f["categorical_focal_crossentropy"], rtol=2e-5)
    yt, yp = _y_true(dc), np.array(dc["y_pred"], "float32")
    np.testing.assert_allclose(float(L.dice(yt, yp)), f["dice"], rtol=2e-5)
    np.testing.assert_allclose(float(L.tversky(yt, yp, 0.6, 0.4)), f["tversky"], rtol=2e-5)
    np.testing.assert_allclose(
        tf.keras.metrics.binary_focal_crossentropy(_y_true(bf), np.array(bf["y_pred"], "float32"), gamma=1.0).numpy(),
        f["metrics.binary_focal_crossentropy"], rtol=2e-5)


def test_lookup_by_name_and_compile():
    assert isinstance(L.get("BinaryFocalCrossentropy"), L.BinaryFocalCrossentropy)
    assert L.get("dice") is L.dice
    assert isinstance(L.deserialize(L.serialize(L.Tversky(alpha=0.2))), L.Tversky)
    with pytest.raises(ValueError, match=r"q must be in the interval \(0, 1\)"):
        L.CategoricalGeneralizedCrossEntropy(q=1.0)


def _fd_check(fn, x, eps=1e-6, rtol=1e-5, atol=1e-7):
    x = np.asarray(x, "float64")
    v = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = fn(v)
    g = tape.gradient(y, v).numpy()
    num = np.zeros_like(x)
    flat = x.reshape(-1)
    for k in range(flat.size):
        hi, lo = flat.copy(), flat.copy()
        hi[k] += eps
        lo[k] -= eps
        up, down = float(fn(tf.constant(hi.reshape(x.shape)))), float(fn(tf.constant(lo.reshape(x.shape))))
        num.reshape(-1)[k] = (up - down) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=rtol, atol=atol)


def test_float64_finite_difference_gradients():
    rng = np.random.default_rng(3)
    yt = (rng.random((3, 4)) > 0.5).astype("float64")
    p = rng.uniform(0.1, 0.9, (3, 4))
    onehot = np.eye(4)[[0, 3, 1]]
    for loss in (
        L.BinaryFocalCrossentropy(apply_class_balancing=True, dtype="float64"),
        L.BinaryFocalCrossentropy(from_logits=True, gamma=1.5, dtype="float64"),
        L.Dice(dtype="float64"),
        L.Tversky(alpha=0.3, beta=0.7, dtype="float64"),
    ):
        _fd_check(lambda v, loss=loss: loss(yt, v), p)
    cf = L.CategoricalFocalCrossentropy(from_logits=True, dtype="float64")
    _fd_check(lambda v: cf(onehot, v), rng.normal(size=(3, 4)))
    gce = L.CategoricalGeneralizedCrossEntropy(q=0.3, dtype="float64")
    _fd_check(lambda v: gce(np.array([0, 3, 1]), v), p)
    emb = rng.normal(size=(5, 3))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    circle = L.Circle(gamma=4.0, dtype="float64")
    _fd_check(lambda v: circle(np.array([0, 1, 0, 1, 2]), v), emb, rtol=1e-4)


# --------------------------------------------------------------------------- tf.nn.ctc_loss


@pytest.mark.parametrize("i", range(len(REF["ctc_loss"])), ids=[c["name"] for c in REF["ctc_loss"]])
def test_ctc_loss_matches_tensorflow(i):
    rec = REF["ctc_loss"][i]
    kw = dict(rec["kwargs"])
    v = tf.Variable(np.array(rec["logits"], "float32"))
    with tf.GradientTape() as tape:
        losses = tf.nn.ctc_loss(np.array(rec["labels"], "int32"), v, **kw)
        total = tf.reduce_sum(tf.where(tf.math.is_finite(losses), losses, tf.zeros_like(losses)))
    got = losses.numpy()
    want = np.array([float(x) for x in rec["loss"]])
    # TensorFlow stands in log(1e-307) for log(0), so an alignment that cannot exist gets a large finite
    # loss there (about 707 plus a path score); tapers returns inf. Both agree on every possible alignment.
    possible = want < 500
    np.testing.assert_allclose(got[possible], want[possible], rtol=2e-5)
    assert np.all(np.isinf(got[~possible]))
    g = tape.gradient(total, v).numpy()
    batch_axis = 1 if kw.get("logits_time_major", True) else 0
    sel = np.flatnonzero(possible)
    np.testing.assert_allclose(
        np.take(g, sel, axis=batch_axis), np.take(np.array(rec["grad"]), sel, axis=batch_axis), rtol=1e-4, atol=2e-6)
    if (~possible).any():  # the impossible rows get no gradient
        assert np.all(np.take(g, np.flatnonzero(~possible), axis=batch_axis) == 0)


def test_keras_ctc_loss_matches_keras():
    rec = REF["keras_ctc"]
    yt, yp = np.array(rec["y_true"], "int32"), np.array(rec["y_pred"], "float32")
    v = tf.Variable(yp)
    with tf.GradientTape() as tape:
        value = L.CTC()(yt, v)
    np.testing.assert_allclose(float(value), rec["value"], rtol=2e-5)
    np.testing.assert_allclose(tape.gradient(value, v).numpy(), np.array(rec["grad"]), rtol=1e-4, atol=2e-6)
    np.testing.assert_allclose(L.ctc(yt, yp).numpy(), rec["per_sample"], rtol=2e-5)


def test_ctc_loss_brute_force_and_float64_gradient():
    # The likelihood is the sum over every path of length T that collapses to the labels.
    rng = np.random.default_rng(1)
    T, K = 4, 3
    logits = rng.normal(size=(T, 1, K))
    labels = np.array([[1, 1]])
    logp = logits[:, 0] - np.log(np.exp(logits[:, 0]).sum(-1, keepdims=True))
    total = 0.0
    for path in np.ndindex(*(K,) * T):
        collapsed = [c for j, c in enumerate(path) if c != 0 and (j == 0 or c != path[j - 1])]
        if collapsed == [1, 1]:
            total += math.exp(sum(logp[t, c] for t, c in enumerate(path)))
    got = tf.nn.ctc_loss(labels, tf.constant(logits), [2], [T])
    np.testing.assert_allclose(got.numpy(), [-math.log(total)], rtol=1e-10)
    _fd_check(lambda v: tf.reduce_sum(tf.nn.ctc_loss(labels, v, [2], [T])), logits, rtol=1e-6)


def test_ctc_loss_in_function_and_errors():
    rng = np.random.default_rng(2)
    logits = rng.normal(size=(5, 2, 4)).astype("float32")
    labels = np.array([[1, 2], [3, 0]], "int32")

    @tf.function
    def f(lg, lab):
        return tf.nn.ctc_loss(lab, lg, [2, 1], [5, 4])

    eager = tf.nn.ctc_loss(labels, logits, [2, 1], [5, 4]).numpy()
    assert f(logits, labels).numpy().tobytes() == eager.tobytes()
    other = np.array([[2, 1], [1, 0]], "int32")
    assert f(logits, other).numpy().tobytes() == tf.nn.ctc_loss(other, logits, [2, 1], [5, 4]).numpy().tobytes()
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"rank 3 .*\(5, 2\)"):
        tf.nn.ctc_loss(labels, logits[:, :, 0], [2, 1], [5, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"batch 2, got shape \(3, 2\)"):
        tf.nn.ctc_loss(np.zeros((3, 2), "int32"), logits, [2, 1], [5, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"label_length must have shape \(2,\)"):
        tf.nn.ctc_loss(labels, logits, [2], [5, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="blank_index 7 is out of range for 4 classes"):
        tf.nn.ctc_loss(labels, logits, [2, 1], [5, 4], blank_index=7)
    with pytest.raises(TypeError, match="floating point"):
        tf.nn.ctc_loss(labels, logits.astype("int32"), [2, 1], [5, 4])
    with pytest.raises(ValueError, match="y_true.shape"):
        L.ctc(np.zeros((2,), "int32"), logits)
