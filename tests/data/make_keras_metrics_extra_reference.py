# Generates keras_metrics_extra_reference.json with TensorFlow 2.21 / Keras 3.15 (not run by the tests):
#   TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_metrics_extra_reference.py
# Records Keras 3's AUC (curves, summation methods, thresholds, multi_label, label_weights, from_logits),
# PrecisionAtRecall / RecallAtPrecision / SensitivityAtSpecificity / SpecificityAtSensitivity, FBetaScore /
# F1Score, R2Score, IoU / MeanIoU / BinaryIoU / OneHotIoU / OneHotMeanIoU, PearsonCorrelation /
# ConcordanceCorrelation: the result after each of three batches without and with sample weights (per row,
# per element), the state variables' names and shapes, get_config() (without name/dtype) and error messages.
# Each case is a Python expression over `M` (keras.metrics here, tapers.keras.metrics in the test) plus the
# name of the data it is fed; the inputs are recorded beside the outputs.
import json
import os
from pathlib import Path

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras  # noqa: E402
import numpy as np  # noqa: E402

M = keras.metrics
rng = np.random.default_rng(23)
B = 3  # batches


def arr(x):
    return np.asarray(x).tolist()


def probs(shape):
    p = rng.uniform(size=shape).astype(np.float32)
    flat = p.reshape(-1)
    # Values on threshold / bucket edges and the ends of [0, 1].
    flat[:6] = [0.0, 1.0, 0.5, 0.25, 0.75, 0.1]
    return p


def batch(i):
    yb = rng.integers(0, 2, size=(6, 4)).astype(np.float32)
    onehot = np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=6)]
    reg_true = rng.normal(size=(6, 3)).astype(np.float32)
    labels = rng.integers(0, 4, size=(6, 5)).astype(np.int32)
    labels[0, 0], labels[1, 1] = -1, 4  # out of range: left out of the confusion matrix
    return {
        "y_bin": yb,
        "p_bin": probs((6, 4)),
        "logits": rng.normal(scale=2.0, size=(6, 4)).astype(np.float32),
        "onehot": onehot,
        "scores": rng.uniform(size=(6, 4)).astype(np.float32),
        "reg_true": reg_true,
        "reg_pred": (reg_true + rng.normal(scale=0.5, size=(6, 3))).astype(np.float32),
        "labels": labels,
        "label_pred": rng.integers(0, 4, size=(6, 5)).astype(np.int32),
        "corr_true": rng.normal(size=(6, 5)).astype(np.float32),
        "corr_pred": rng.normal(size=(6, 5)).astype(np.float32),
        "w_rows": rng.uniform(0.5, 3.0, size=(6,)).astype(np.float32),
        "w_elems4": rng.uniform(0.5, 3.0, size=(6, 4)).astype(np.float32),
        "w_elems3": rng.uniform(0.5, 3.0, size=(6, 3)).astype(np.float32),
        "w_elems5": rng.uniform(0.5, 3.0, size=(6, 5)).astype(np.float32),
    }


batches = [batch(i) for i in range(B)]

# data kind -> (y_true key, y_pred key, per-element weight key)
KINDS = {
    "binary": ("y_bin", "p_bin", "w_elems4"),
    "logits": ("y_bin", "logits", "w_elems4"),
    "multiclass": ("onehot", "scores", "w_elems4"),
    "multilabel": ("y_bin", "p_bin", "w_elems4"),
    "regression": ("reg_true", "reg_pred", "w_elems3"),
    "sparse": ("labels", "label_pred", "w_elems5"),
    "binary_iou": ("y_bin", "p_bin", "w_elems4"),
    "onehot": ("onehot", "scores", "w_elems4"),
    "onehot_sparse_pred": ("onehot", "label_pred_col", "w_elems4"),
    "correlation": ("corr_true", "corr_pred", "w_elems5"),
}
for b in batches:
    b["label_pred_col"] = b["label_pred"][:, 0].copy()

CASES = {
    # AUC
    "AUC()": ("M.AUC()", "binary"),
    "AUC(PR)": ("M.AUC(curve='PR')", "binary"),
    "AUC(PR,minoring)": ("M.AUC(curve='PR', summation_method='minoring')", "binary"),
    "AUC(PR,majoring)": ("M.AUC(curve='PR', summation_method='majoring')", "binary"),
    "AUC(ROC,minoring)": ("M.AUC(summation_method='minoring')", "binary"),
    "AUC(ROC,majoring)": ("M.AUC(summation_method='majoring')", "binary"),
    "AUC(PRGAIN)": ("M.AUC(curve='PRGAIN')", "binary"),
    "AUC(num_thresholds=7)": ("M.AUC(num_thresholds=7)", "binary"),
    "AUC(num_thresholds=2)": ("M.AUC(num_thresholds=2)", "binary"),
    "AUC(thresholds uneven)": ("M.AUC(thresholds=[0.9, 0.1, 0.5, 0.3])", "binary"),
    "AUC(thresholds even,PR)": ("M.AUC(thresholds=[0.25, 0.5, 0.75], curve='PR')", "binary"),
    "AUC(multi_label)": ("M.AUC(multi_label=True)", "multilabel"),
    "AUC(multi_label,PR,num_labels)": ("M.AUC(multi_label=True, num_labels=4, curve='PR')", "multilabel"),
    "AUC(multi_label,label_weights)": (
        "M.AUC(multi_label=True, label_weights=[0.5, 1.0, 2.0, 0.0], num_thresholds=9)", "multilabel"),
    "AUC(multi_label,uneven)": ("M.AUC(multi_label=True, thresholds=[0.2, 0.45, 0.8])", "multilabel"),
    "AUC(label_weights)": ("M.AUC(label_weights=[1.0, 2.0, 0.5, 1.5])", "binary"),
    "AUC(from_logits)": ("M.AUC(from_logits=True)", "logits"),
    "AUC(from_logits,PR,uneven)": ("M.AUC(from_logits=True, curve='PR', thresholds=[0.3, 0.6, 0.65])", "logits"),
    # X at Y
    "PrecisionAtRecall(0.5)": ("M.PrecisionAtRecall(0.5)", "binary"),
    "PrecisionAtRecall(0.8,n=1)": ("M.PrecisionAtRecall(0.8, num_thresholds=1)", "binary"),
    "PrecisionAtRecall(0.4,class_id=2)": ("M.PrecisionAtRecall(0.4, class_id=2)", "binary"),
    "RecallAtPrecision(0.6)": ("M.RecallAtPrecision(0.6)", "binary"),
    "RecallAtPrecision(0.75,n=11)": ("M.RecallAtPrecision(0.75, num_thresholds=11)", "binary"),
    "SensitivityAtSpecificity(0.5)": ("M.SensitivityAtSpecificity(0.5)", "binary"),
    "SensitivityAtSpecificity(0.7,class_id=1)": ("M.SensitivityAtSpecificity(0.7, class_id=1)", "binary"),
    "SpecificityAtSensitivity(0.5)": ("M.SpecificityAtSensitivity(0.5)", "binary"),
    "SpecificityAtSensitivity(0.9,n=50)": ("M.SpecificityAtSensitivity(0.9, num_thresholds=50)", "binary"),
    # F scores
    "F1Score()": ("M.F1Score()", "multiclass"),
    "F1Score(micro)": ("M.F1Score(average='micro')", "multiclass"),
    "F1Score(macro,0.5)": ("M.F1Score(average='macro', threshold=0.5)", "multilabel"),
    "F1Score(weighted,0.4)": ("M.F1Score(average='weighted', threshold=0.4)", "multilabel"),
    "F1Score(micro,0.6)": ("M.F1Score(average='micro', threshold=0.6)", "multilabel"),
    "FBetaScore(2,macro)": ("M.FBetaScore(beta=2.0, average='macro')", "multiclass"),
    "FBetaScore(0.5,0.3)": ("M.FBetaScore(beta=0.5, threshold=0.3)", "multilabel"),
    "FBetaScore(weighted)": ("M.FBetaScore(average='weighted')", "multiclass"),
    # R2
    "R2Score()": ("M.R2Score()", "regression"),
    "R2Score(None)": ("M.R2Score(class_aggregation=None)", "regression"),
    "R2Score(variance_weighted)": ("M.R2Score(class_aggregation='variance_weighted_average')", "regression"),
    "R2Score(num_regressors=2)": ("M.R2Score(num_regressors=2)", "regression"),
    # IoU
    "IoU(4,[0,2])": ("M.IoU(4, [0, 2])", "sparse"),
    "IoU(4,[1,3],ignore=0)": ("M.IoU(4, [1, 3], ignore_class=0)", "sparse"),
    "IoU(4,[0,3],float32)": ("M.IoU(4, [0, 3], dtype='float32')", "sparse"),
    "MeanIoU(4)": ("M.MeanIoU(4)", "sparse"),
    "MeanIoU(4,float32,ignore=2)": ("M.MeanIoU(4, dtype='float32', ignore_class=2)", "sparse"),
    "MeanIoU(4,dense)": ("M.MeanIoU(4, sparse_y_true=False, sparse_y_pred=False, dtype='float32')", "onehot"),
    "BinaryIoU()": ("M.BinaryIoU()", "binary_iou"),
    "BinaryIoU([1],0.3,float32)": ("M.BinaryIoU(target_class_ids=[1], threshold=0.3, dtype='float32')", "binary_iou"),
    "OneHotIoU(4,[0,1,3])": ("M.OneHotIoU(4, [0, 1, 3], dtype='float32')", "onehot"),
    "OneHotMeanIoU(4)": ("M.OneHotMeanIoU(4)", "onehot"),
    "OneHotMeanIoU(4,sparse_pred)": ("M.OneHotMeanIoU(4, sparse_y_pred=True, dtype='float32')", "onehot_sparse_pred"),
    # float64 state
    "AUC(PR,float64)": ("M.AUC(curve='PR', dtype='float64')", "binary"),
    "SensitivityAtSpecificity(0.6,float64)": ("M.SensitivityAtSpecificity(0.6, dtype='float64')", "binary"),
    "FBetaScore(2,0.5,float64)": ("M.FBetaScore(beta=2.0, threshold=0.5, dtype='float64')", "multilabel"),
    "R2Score(float64)": ("M.R2Score(dtype='float64')", "regression"),
    "MeanIoU(4,float64)": ("M.MeanIoU(4, dtype='float64')", "sparse"),
    "PearsonCorrelation(float64)": ("M.PearsonCorrelation(dtype='float64')", "correlation"),
    # correlations
    "PearsonCorrelation()": ("M.PearsonCorrelation()", "correlation"),
    "PearsonCorrelation(axis=0)": ("M.PearsonCorrelation(axis=0)", "correlation"),
    "ConcordanceCorrelation()": ("M.ConcordanceCorrelation()", "correlation"),
    "ConcordanceCorrelation(axis=0)": ("M.ConcordanceCorrelation(axis=0)", "correlation"),
}  # fmt: skip
WEIGHTS = ["none", "rows", "elems"]


def feed(kind, b, weights):
    yt_key, yp_key, we_key = KINDS[kind]
    sw = {"none": None, "rows": b["w_rows"], "elems": b[we_key]}[weights]
    return b[yt_key], b[yp_key], sw


def run(expr, kind, weights):
    m = eval(expr)
    out = []
    for b in batches:
        y_true, y_pred, sw = feed(kind, b, weights)
        try:
            m.update_state(y_true, y_pred, sample_weight=sw)
        except Exception:  # noqa: BLE001 - Keras cannot take these weights here: not compared
            return None
        out.append(arr(keras.ops.convert_to_numpy(m.result())))
    return out


def variables(expr, kind):
    m = eval(expr)
    y_true, y_pred, _ = feed(kind, batches[0], "none")
    m.update_state(y_true, y_pred)
    return [[v.path.split("/")[-1], list(v.shape), str(v.dtype)] for v in m.variables]


def config(expr):
    return {k: arr(v) if hasattr(v, "shape") else v for k, v in eval(expr).get_config().items() if k != "name"}


ERRORS = {
    "AUC(num_thresholds=1)": "M.AUC(num_thresholds=1)",
    "AUC(curve=XY)": "M.AUC(curve='XY')",
    "AUC(summation_method=mid)": "M.AUC(summation_method='mid')",
    "AUC(num_labels without multi_label)": "M.AUC(num_labels=3)",
    "AUC(multi_label) on 1-D": "M.AUC(multi_label=True).update_state(np.array([1.0, 0.0]), np.array([0.6, 0.4]))",
    "PrecisionAtRecall(1.5)": "M.PrecisionAtRecall(1.5)",
    "RecallAtPrecision(-0.1)": "M.RecallAtPrecision(-0.1)",
    "SensitivityAtSpecificity(2)": "M.SensitivityAtSpecificity(2)",
    "SpecificityAtSensitivity(0.5,n=0)": "M.SpecificityAtSensitivity(0.5, num_thresholds=0)",
    "PrecisionAtRecall(class_id) on 1-D": "M.PrecisionAtRecall(0.5, class_id=1).update_state([1.0, 0.0], [0.6, 0.4])",
    "F1Score(average=sum)": "M.F1Score(average='sum')",
    "FBetaScore(beta=1)": "M.FBetaScore(beta=1)",
    "FBetaScore(beta=-1.0)": "M.FBetaScore(beta=-1.0)",
    "F1Score(threshold=1)": "M.F1Score(threshold=1)",
    "F1Score(threshold=1.5)": "M.F1Score(threshold=1.5)",
    "F1Score on 1-D": "M.F1Score().update_state([1.0, 0.0], [0.6, 0.4])",
    "R2Score(class_aggregation=x)": "M.R2Score(class_aggregation='x')",
    "R2Score(num_regressors=-1)": "M.R2Score(num_regressors=-1)",
    "R2Score on 1-D": "M.R2Score().update_state([1.0, 0.0, 2.0], [0.6, 0.4, 1.0])",
    "IoU(target 4 of 4)": "M.IoU(4, [1, 4])",
}


def error(expr):
    try:
        eval(expr)
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


# A few one-off values: the correlation functions, the X-at-Y docstring examples, R2's fallback.
def functions():
    b = batches[0]
    m = M.R2Score(num_regressors=20)
    m.update_state(b["reg_true"], b["reg_pred"])
    fallback = float(m.result())
    docs = {}
    for name, expr, sw in [
        ("SensitivityAtSpecificity", "M.SensitivityAtSpecificity(0.5)", [1, 1, 2, 2, 1]),
        ("SpecificityAtSensitivity", "M.SpecificityAtSensitivity(0.5)", [1, 1, 2, 2, 2]),
        ("PrecisionAtRecall", "M.PrecisionAtRecall(0.5)", [2, 2, 2, 1, 1]),
        ("RecallAtPrecision", "M.RecallAtPrecision(0.5)", [2, 2, 2, 1, 1]),
    ]:
        m = eval(expr)
        m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
        plain = float(m.result())
        m.reset_state()
        m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8], sample_weight=sw)
        docs[name] = [expr, sw, plain, float(m.result())]
    return {
        "pearson_correlation": arr(M.pearson_correlation(b["corr_true"], b["corr_pred"])),
        "pearson_correlation_axis0": arr(M.pearson_correlation(b["corr_true"], b["corr_pred"], axis=0)),
        "concordance_correlation": arr(M.concordance_correlation(b["corr_true"], b["corr_pred"])),
        "r2_fallback": fallback,
        "docs": docs,
        "auc_thresholds": [float(t) for t in M.AUC(num_thresholds=4).thresholds],
    }


out = {
    "kinds": KINDS,
    "batches": [{k: arr(v) for k, v in b.items()} for b in batches],
    "cases": {name: {"expr": e, "kind": k} for name, (e, k) in CASES.items()},
    "results": {name: {w: run(e, k, w) for w in WEIGHTS} for name, (e, k) in CASES.items()},
    "variables": {name: variables(e, k) for name, (e, k) in CASES.items()},
    "configs": {name: config(e) for name, (e, _) in CASES.items()},
    "names": {name: eval(e).name.rstrip("_0123456789") for name, (e, _) in CASES.items()},
    "errors": {name: error(e) for name, e in ERRORS.items()},
    "functions": functions(),
}
(Path(__file__).parent / "keras_metrics_extra_reference.json").write_text(json.dumps(out, indent=1) + "\n")
