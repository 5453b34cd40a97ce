"""Threshold metrics (TruePositives ... Recall) and top-k accuracies against Keras 3
(fixtures from ``tests/data/make_keras_confusion_metrics_reference.py``): results over
two batches with thresholds, top_k, class_id and sample weights; configs; errors; and
the metrics in ``compile``/``fit`` and inside ``tapers.function``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from tapers import keras

REF = json.loads((Path(__file__).parent / "data" / "keras_confusion_metrics_reference.json").read_text())
M = keras.metrics

CASES = {
    "TruePositives()": lambda: M.TruePositives(),
    "FalsePositives([0,0.3,0.8,1])": lambda: M.FalsePositives(thresholds=[0.0, 0.3, 0.8, 1.0]),
    "TrueNegatives(0.25)": lambda: M.TrueNegatives(thresholds=0.25),
    "FalseNegatives(even)": lambda: M.FalseNegatives(thresholds=[0.0, 0.25, 0.5, 0.75, 1.0]),
    "Precision()": lambda: M.Precision(),
    "Precision([0.2,0.7])": lambda: M.Precision(thresholds=[0.2, 0.7]),
    "Precision(top_k=2)": lambda: M.Precision(top_k=2),
    "Precision(class_id=1)": lambda: M.Precision(class_id=1),
    "Precision(top_k=2,class_id=3)": lambda: M.Precision(top_k=2, class_id=3),
    "Recall()": lambda: M.Recall(),
    "Recall([0.1,0.5,0.9])": lambda: M.Recall(thresholds=[0.1, 0.5, 0.9]),
    "Recall(top_k=1)": lambda: M.Recall(top_k=1),
    "Recall(class_id=0,thresholds=0.3)": lambda: M.Recall(class_id=0, thresholds=0.3),
    "TopKCategoricalAccuracy(k=1)": lambda: M.TopKCategoricalAccuracy(k=1),
    "TopKCategoricalAccuracy(k=2)": lambda: M.TopKCategoricalAccuracy(k=2),
}


def _batches():
    return [{k: np.array(v, np.float32) for k, v in b.items()} for b in REF["batches"]]


def _run(make, weights, step=None):
    m = make()
    for b in _batches():
        y_true, y_pred = b["y_true"], b["y_pred"]
        if "TopK" in type(m).__name__:
            y_true = np.eye(4, dtype=np.float32)[np.argmax(b["y_true"] + np.arange(4) * 1e-3, axis=1)]
        sw = {"none": None, "rows": b["w_rows"], "elems": b["w_elems"]}[weights]
        if step is None:
            m.update_state(y_true, y_pred, sample_weight=sw)
        else:
            step(m, tf.constant(y_true), tf.constant(y_pred), None if sw is None else tf.constant(sw))
    return np.asarray(m.result().numpy())


def test_the_fixture_covers_every_case():
    assert set(REF["results"]) == set(CASES)


@pytest.mark.parametrize("weights", ["none", "rows", "elems"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_results_are_keras(name, weights):
    want = REF["results"][name][weights]
    if want is None:
        pytest.skip("Keras cannot run this combination (class_id or one-hot labels with per-element weights)")
    np.testing.assert_allclose(_run(CASES[name], weights), want, rtol=1e-6, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_configs_are_keras(name):
    got = {k: v for k, v in CASES[name]().get_config().items() if k not in ("name", "dtype")}
    assert got == REF["configs"][name]


def test_a_column_of_labels_aligns_with_flat_predictions():
    col = REF["column"]
    for name, want in REF["column_results"].items():
        m = CASES[name]()
        m.update_state(np.array(col["y_true"], np.float32), np.array(col["y_pred"], np.float32))
        np.testing.assert_allclose(m.result().numpy(), want, rtol=1e-6)


def test_top_k_accuracy_functions_are_keras():
    ref = REF["sparse_top_k"]
    yt, yp = np.array(ref["y_true"], np.int32), np.array(ref["y_pred"], np.float32)
    np.testing.assert_array_equal(M.sparse_top_k_categorical_accuracy(yt, yp, k=1).numpy(), ref["k1"])
    np.testing.assert_array_equal(M.sparse_top_k_categorical_accuracy(yt, yp, k=2).numpy(), ref["k2"])
    ids = np.array(ref["sorted_ids"], np.int32)
    got = M.sparse_top_k_categorical_accuracy(yt, ids, k=2, from_sorted_ids=True)
    np.testing.assert_array_equal(got.numpy(), ref["sorted_k2"])
    st, sp = np.array(ref["seq_true"], np.int32), np.array(ref["seq_pred"], np.float32)
    np.testing.assert_array_equal(M.sparse_top_k_categorical_accuracy(st, sp, k=2).numpy(), ref["seq_k2"])
    onehot = np.eye(4, dtype=np.float32)[st]
    np.testing.assert_array_equal(M.top_k_categorical_accuracy(onehot, sp, k=1).numpy(), ref["dense_seq_k1"])
    np.testing.assert_allclose(M.SparseTopKCategoricalAccuracy(k=3)(yt, yp).numpy(), ref["metric_k3"])


ERRORS = {
    "Precision(thresholds=1.5)": lambda: M.Precision(thresholds=1.5),
    "Recall(thresholds=[0.5,-0.1])": lambda: M.Recall(thresholds=[0.5, -0.1]),
    "Precision(class_id=1) on 1-D": lambda: M.Precision(class_id=1).update_state([1.0, 0.0], [0.6, 0.4]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_are_keras(case):
    kind, message = REF["errors"][case]
    with pytest.raises(ValueError) as e:
        ERRORS[case]()
    assert (type(e.value).__name__, str(e.value)) == (kind, message)


def test_names_directions_and_lookup():
    assert all(hasattr(M, n) for n in REF["names"])
    for cls, name in [(M.Precision, "precision"), (M.Recall, "recall"), (M.TruePositives, "true_positives")]:
        assert cls().name.startswith(name)
        assert isinstance(M.get(name), cls)
    assert M.Precision()._direction == "up" and M.TopKCategoricalAccuracy()._direction == "up"


@pytest.mark.parametrize("name", ["Precision(top_k=2)", "Recall([0.1,0.5,0.9])", "FalseNegatives(even)"])
def test_a_compiled_update_gives_the_eager_values(name):
    @tf.function
    def step(m, y_true, y_pred, sw):
        m.update_state(y_true, y_pred, sample_weight=sw)

    eager = _run(CASES[name], "rows")
    compiled = _run(CASES[name], "rows", step=step)
    np.testing.assert_array_equal(compiled, eager)


def test_fit_logs_precision_and_recall():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    metrics = [M.Precision(name="prec"), M.Recall(name="rec")]
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=metrics)
    hist = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert {"loss", "prec", "rec"} <= set(hist.history)
    p = M.Precision()
    p.update_state(y, model.predict(x, verbose=0))
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["prec"] == pytest.approx(float(p.result()), rel=1e-6)
