# Generates keras_confusion_metrics_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_keras_confusion_metrics_reference.py \
#       > tests/data/keras_confusion_metrics_reference.json
# Records Keras 3's TruePositives/FalsePositives/TrueNegatives/FalseNegatives, Precision, Recall
# (thresholds, top_k, class_id, sample weights, two batches) and the top-k accuracies: results,
# configs and error messages. Inputs are recorded beside the outputs.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np

rng = np.random.default_rng(11)
M = keras.metrics


def arr(x):
    return np.asarray(x).tolist()


batches = [
    {
        "y_true": rng.integers(0, 2, size=(6, 4)).astype(np.float32),
        "y_pred": rng.uniform(size=(6, 4)).astype(np.float32),
        "w_rows": rng.uniform(0.5, 2.0, size=(6,)).astype(np.float32),
        "w_elems": rng.uniform(0.5, 2.0, size=(6, 4)).astype(np.float32),
    }
    for _ in range(2)
]
column = {
    "y_true": rng.integers(0, 2, size=(8, 1)).astype(np.float32),
    "y_pred": rng.uniform(size=(8,)).astype(np.float32),
}

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
WEIGHTS = ["none", "rows", "elems"]


def run(make, weights):
    m = make()
    for b in batches:
        y_true, y_pred = b["y_true"], b["y_pred"]
        if "TopK" in type(m).__name__:
            # One-hot labels: each row's largest label.
            y_true = np.eye(4, dtype=np.float32)[np.argmax(b["y_true"] + np.arange(4) * 1e-3, axis=1)]
        sw = {"none": None, "rows": b["w_rows"], "elems": b["w_elems"]}[weights]
        if "TopK" in type(m).__name__ and weights == "elems":
            return None
        try:
            m.update_state(y_true, y_pred, sample_weight=sw)
        except Exception:  # noqa: BLE001 - Keras cannot (class_id with per-element weights): not compared
            return None
    return arr(keras.ops.convert_to_numpy(m.result()))


out = {
    "batches": [{k: arr(v) for k, v in b.items()} for b in batches],
    "column": {k: arr(v) for k, v in column.items()},
    "results": {name: {w: run(make, w) for w in WEIGHTS} for name, make in CASES.items()},
    "configs": {
        name: {k: v for k, v in make().get_config().items() if k not in ("name", "dtype")}
        for name, make in CASES.items()
    },
}
col = {}
for name in ["TruePositives()", "Precision()", "Recall([0.1,0.5,0.9])"]:
    m = CASES[name]()
    m.update_state(column["y_true"], column["y_pred"])
    col[name] = arr(keras.ops.convert_to_numpy(m.result()))
out["column_results"] = col

sparse_true = np.array([0, 3, 1, 2, 2], np.int32)
sparse_pred = rng.uniform(size=(5, 4)).astype(np.float32)
sorted_ids = np.argsort(-sparse_pred, axis=1).astype(np.int32)
seq_pred = rng.uniform(size=(2, 3, 4)).astype(np.float32)
seq_true = rng.integers(0, 4, size=(2, 3)).astype(np.int32)
out["sparse_top_k"] = {
    "y_true": arr(sparse_true),
    "y_pred": arr(sparse_pred),
    "sorted_ids": arr(sorted_ids),
    "seq_true": arr(seq_true),
    "seq_pred": arr(seq_pred),
    "k1": arr(M.sparse_top_k_categorical_accuracy(sparse_true, sparse_pred, k=1)),
    "k2": arr(M.sparse_top_k_categorical_accuracy(sparse_true, sparse_pred, k=2)),
    "sorted_k2": arr(M.sparse_top_k_categorical_accuracy(sparse_true, sorted_ids, k=2, from_sorted_ids=True)),
    "seq_k2": arr(M.sparse_top_k_categorical_accuracy(seq_true, seq_pred, k=2)),
    "dense_seq_k1": arr(M.top_k_categorical_accuracy(np.eye(4, dtype=np.float32)[seq_true], seq_pred, k=1)),
    "metric_k3": arr(M.SparseTopKCategoricalAccuracy(k=3)(sparse_true, sparse_pred)),
}


def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


out["errors"] = {
    "Precision(thresholds=1.5)": err(lambda: M.Precision(thresholds=1.5)),
    "Recall(thresholds=[0.5,-0.1])": err(lambda: M.Recall(thresholds=[0.5, -0.1])),
    "Precision(class_id=1) on 1-D": err(lambda: M.Precision(class_id=1).update_state([1.0, 0.0], [0.6, 0.4])),
}
out["names"] = sorted(
    n
    for n in [
        "FalseNegatives", "FalsePositives", "Precision", "Recall", "SparseTopKCategoricalAccuracy",
        "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "sparse_top_k_categorical_accuracy",
        "top_k_categorical_accuracy",
    ]
    if hasattr(M, n)
)
json.dump(out, sys.stdout)
