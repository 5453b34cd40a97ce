"""AUC, PrecisionAtRecall / RecallAtPrecision / SensitivityAtSpecificity / SpecificityAtSensitivity,
FBetaScore / F1Score, R2Score, the IoU family and the correlation metrics against Keras 3 (fixtures from
``tests/data/make_keras_metrics_extra_reference.py``): results after each of three batches with and without
sample weights, state variables, configs, errors; updates inside ``tapers.function``; reset; fit."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import tapers as tf
from tapers import keras

REF = json.loads((Path(__file__).parent / "data" / "keras_metrics_extra_reference.json").read_text())
M = keras.metrics
NAMES = sorted(REF["cases"])


def _make(name):
    return eval(REF["cases"][name]["expr"], {"M": M})


def _batches():
    out = []
    for b in REF["batches"]:
        arrays = {}
        for k, v in b.items():
            dtype = np.int32 if k.startswith("label") else np.float32
            arrays[k] = np.array(v, dtype)
        out.append(arrays)
    return out


def _feed(kind, b, weights):
    yt, yp, we = REF["kinds"][kind]
    return b[yt], b[yp], {"none": None, "rows": b["w_rows"], "elems": b[we]}[weights]


def _run(name, weights, step=None):
    m = _make(name)
    kind = REF["cases"][name]["kind"]
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # IoU's int dtype with float weights warns, as Keras does
        for b in _batches():
            y_true, y_pred, sw = _feed(kind, b, weights)
            if step is None:
                m.update_state(y_true, y_pred, sample_weight=sw)
            else:
                step(m, tf.constant(y_true), tf.constant(y_pred), None if sw is None else tf.constant(sw))
            results.append(np.asarray(m.result().numpy()))
    return m, results


def test_the_fixture_covers_every_case():
    assert set(REF["results"]) == set(REF["cases"]) and len(NAMES) >= 50


@pytest.mark.parametrize("weights", ["none", "rows", "elems"])
@pytest.mark.parametrize("name", NAMES)
def test_results_are_keras(name, weights):
    want = REF["results"][name][weights]
    if want is None:
        pytest.skip("Keras cannot take these sample weights for this metric")
    _, got = _run(name, weights)
    for g, w in zip(got, want):
        # The bucketed counts are float32 sums in another order than Keras' segment_sum; AUC's
        # log/ratio terms amplify that to a few ulps.
        np.testing.assert_allclose(g, np.array(w, np.float32), rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("name", NAMES)
def test_variables_are_keras(name):
    m = _make(name)
    y_true, y_pred, _ = _feed(REF["cases"][name]["kind"], _batches()[0], "none")
    m.update_state(y_true, y_pred)
    got = [[v.name.split(":")[0], list(v.shape), v.dtype.name] for v in m.variables]
    assert got == REF["variables"][name]


@pytest.mark.parametrize("name", NAMES)
def test_configs_names_and_roundtrip_are_keras(name):
    m = _make(name)
    config = m.get_config()
    assert {k: v for k, v in config.items() if k != "name"} == REF["configs"][name]
    assert m.name.rstrip("_0123456789") == REF["names"][name]
    again = type(m).from_config(config)
    assert again.get_config() == config
    assert m._direction == "up"


def test_the_error_cases_are_the_fixture_s():
    assert set(_ERRORS) == set(REF["errors"])


@pytest.mark.parametrize("name", sorted(REF["errors"]))
def test_errors_are_keras(name):
    kind, message = REF["errors"][name]
    with pytest.raises(Exception) as e:
        eval(_ERRORS[name], {"M": M, "np": np})
    assert (type(e.value).__name__, str(e.value)) == (kind, message)


_ERRORS = {
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


def test_mismatched_shapes_raise_clear_errors():
    f = M.F1Score()
    f.update_state(np.eye(3, dtype=np.float32), np.eye(3, dtype=np.float32))
    with pytest.raises(ValueError, match=r"y_pred.shape=\(3, 4\)"):
        f.update_state(np.eye(3, dtype=np.float32), np.ones((3, 4), np.float32))
    r = M.R2Score()
    with pytest.raises(ValueError, match=r"y_pred.shape=\(2, 3\) and y_true.shape=\(2, 2\)"):
        r.update_state(np.ones((2, 2), np.float32), np.ones((2, 3), np.float32))
    a = M.AUC(multi_label=True, num_labels=3)
    with pytest.raises(ValueError, match=r"built for 3 labels; got y_pred of shape \(2, 4\)"):
        a.update_state(np.ones((2, 4), np.float32), np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="same number of labels; got 4 and 3"):
        M.MeanIoU(3).update_state([0, 1, 2, 1], [0, 1, 2])


@pytest.mark.parametrize(
    "name",
    ["AUC()", "AUC(PR)", "AUC(multi_label,PR,num_labels)", "AUC(thresholds uneven)", "AUC(from_logits)",
     "PrecisionAtRecall(0.4,class_id=2)", "SpecificityAtSensitivity(0.9,n=50)", "F1Score(weighted,0.4)",
     "R2Score(num_regressors=2)", "MeanIoU(4)", "OneHotIoU(4,[0,1,3])", "PearsonCorrelation()"],
)  # fmt: skip
def test_a_compiled_update_gives_the_eager_values(name):
    weights = "rows" if REF["results"][name]["rows"] is not None else "elems"

    @tf.function
    def step(m, y_true, y_pred, sw):
        m.update_state(y_true, y_pred, sample_weight=sw)

    # Lazily built state (F1Score, R2Score, AUC(multi_label)) is created by an eager first batch.
    _, eager = _run(name, weights)
    m = _make(name)
    kind = REF["cases"][name]["kind"]
    batches = _batches()
    y_true, y_pred, sw = _feed(kind, batches[0], weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.update_state(y_true, y_pred, sample_weight=sw)
        for b in batches[1:]:
            y_true, y_pred, sw = _feed(kind, b, weights)
            step(m, tf.constant(y_true), tf.constant(y_pred), tf.constant(sw))
    np.testing.assert_allclose(m.result().numpy(), eager[-1], rtol=1e-6, atol=1e-7)

    @tf.function
    def result(m):
        return m.result()

    np.testing.assert_allclose(result(m).numpy(), eager[-1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["AUC()", "F1Score(micro)", "R2Score(None)", "MeanIoU(4)", "ConcordanceCorrelation()"])
def test_reset_state_starts_over(name):
    m, results = _run(name, "none")
    m.reset_state()
    assert all(not np.any(v.numpy()) for v in m.variables)
    y_true, y_pred, _ = _feed(REF["cases"][name]["kind"], _batches()[0], "none")
    m.update_state(y_true, y_pred)
    np.testing.assert_allclose(m.result().numpy(), results[0], rtol=1e-6, atol=1e-7)


def test_functions_and_docstring_examples_are_keras():
    ref = REF["functions"]
    b = _batches()[0]
    np.testing.assert_allclose(M.pearson_correlation(b["corr_true"], b["corr_pred"]).numpy(),
                               ref["pearson_correlation"], rtol=1e-5, atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(M.pearson_correlation(b["corr_true"], b["corr_pred"], axis=0).numpy(),
                               ref["pearson_correlation_axis0"], rtol=1e-5, atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(M.concordance_correlation(b["corr_true"], b["corr_pred"]).numpy(),
                               ref["concordance_correlation"], rtol=1e-5, atol=1e-6)  # fmt: skip
    for expr, sw, plain, weighted in ref["docs"].values():
        m = eval(expr, {"M": M})
        m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
        assert float(m.result()) == pytest.approx(plain, abs=1e-6)
        m.reset_state()
        m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8], sample_weight=sw)
        assert float(m.result()) == pytest.approx(weighted, abs=1e-6)
    np.testing.assert_allclose(M.AUC(num_thresholds=4).thresholds, ref["auc_thresholds"], rtol=1e-12)


def test_r2_adjusted_falls_back_with_a_warning():
    b = _batches()[0]
    m = M.R2Score(num_regressors=20)
    m.update_state(b["reg_true"], b["reg_pred"])
    with pytest.warns(UserWarning, match="More independent predictors"):
        got = float(m.result())
    assert got == pytest.approx(REF["functions"]["r2_fallback"], rel=1e-5)


def test_iou_with_float_weights_and_int_state_warns_and_truncates():
    m = M.MeanIoU(3)
    with pytest.warns(UserWarning, match="weight as `float`"):
        m.update_state([0, 1, 2, 1], [0, 2, 2, 1], sample_weight=np.array([0.5, 1.5, 2.0, 1.0], np.float32))
    np.testing.assert_array_equal(m.total_cm.numpy(), [[0, 0, 0], [0, 1, 1], [0, 0, 2]])
    assert m.total_cm.dtype.name == "int64" and m.result().dtype.name == "float32"


def test_lookup_and_export():
    for name in REF["cases"]:
        assert type(_make(name)).__name__ in M.__all__
    assert {"pearson_correlation", "concordance_correlation"} <= set(M.__all__)
    assert isinstance(M.get("AUC"), M.AUC) and isinstance(M.get("auc"), M.AUC)
    assert isinstance(M.get("r2_score"), M.R2Score)
    ser = M.serialize(M.AUC(curve="PR", name="prauc"))
    again = M.deserialize(ser)
    assert isinstance(again, M.AUC) and again.curve == "PR" and again.name == "prauc"


def test_fit_logs_auc_and_f1():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype(np.float32)
    y = (x[:, :1] + 0.3 * x[:, 1:2] > 0).astype(np.float32)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy",
                  metrics=[M.AUC(name="auc"), M.F1Score(threshold=0.5, name="f1")])  # fmt: skip
    hist = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert {"loss", "auc", "f1"} <= set(hist.history)
    a = M.AUC()
    a.update_state(y, model.predict(x, verbose=0))
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["auc"] == pytest.approx(float(a.result()), rel=1e-5)


def test_updates_traced_with_an_unknown_batch_size_match_eager():
    def metrics():
        f1, r2 = M.F1Score(threshold=0.5), M.R2Score()
        for m in (f1, r2):  # the state of these two is built from the first batch's shape
            m.update_state(np.zeros((1, 4), np.float32), np.zeros((1, 4), np.float32))
            m.reset_state()
        return [M.AUC(), M.AUC(multi_label=True, num_labels=4, curve="PR"), M.PrecisionAtRecall(0.5),
                M.MeanIoU(2), f1, r2]  # fmt: skip

    def update(ms, a, b):
        for m in ms:
            if isinstance(m, M.MeanIoU):
                m.update_state(tf.cast(a > 0.5, "int32"), tf.cast(b > 0.5, "int32"))
            else:
                m.update_state(a, b)

    compiled, eager = metrics(), metrics()
    spec = tf.TensorSpec([None, 4], tf.float32)
    step = tf.function(lambda a, b: update(compiled, a, b), input_signature=[spec, spec])
    b = _batches()
    for n, batch in zip((6, 3, 5), b):
        y, p = batch["y_bin"][:n], batch["p_bin"][:n]
        step(tf.constant(y), tf.constant(p))
        update(eager, tf.constant(y), tf.constant(p))
    for c, e in zip(compiled, eager):
        np.testing.assert_allclose(c.result().numpy(), e.result().numpy(), rtol=1e-6, atol=1e-7)
