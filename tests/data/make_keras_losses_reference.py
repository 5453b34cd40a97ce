# Generates keras_losses_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_keras_losses_reference.py > tests/data/keras_losses_reference.json
# Records Keras 3's losses (values and gradients with respect to y_pred), metrics over several
# update_state calls, initializer formulas (fans, limits, empirical statistics of a big draw) and
# activations (values and gradients at edge points). Inputs are recorded beside the outputs so the
# tests feed tapers exactly what Keras saw.
import json
import math
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np
import tensorflow as tf
from keras.src.initializers.random_initializers import compute_fans
from keras.src.trainers.compile_utils import get_metric

rng = np.random.default_rng(0)


def arr(x):
    return np.asarray(x).tolist()


def f32(a):
    return np.asarray(a, dtype=np.float32)


# ---------------------------------------------------------------- losses
REDUCTIONS = ["sum_over_batch_size", "sum", "none", None, "mean", "mean_with_sample_weight"]

y_reg_true = f32(rng.normal(size=(3, 4)))
y_reg_pred = f32(rng.normal(size=(3, 4)))
y_bin_true = f32([[0, 1, 1], [1, 0, 0.3]])
y_bin_prob = f32([[0.0, 1.0, 0.7], [0.2, 0.9, 0.5]])
y_bin_logit = f32([[-100.0, 100.0, 0.3], [-2.0, 30.0, 0.0]])
y_cat_true = f32([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
y_cat_prob = f32([[0.1, 0.9, 0.0], [0.3, 0.3, 0.3], [0.0, 0.5, 0.6]])
y_cat_logit = f32([[1.0, 2.0, -100.0], [0.5, 80.0, -3.0], [0.0, 0.0, 0.0]])
y_sparse = np.asarray([1, 2, 0], dtype=np.int32)

loss_cases = []


def add_loss(name, cls, kwargs, y_true, y_pred, sample_weight=None, call=True, fn=None, fn_kwargs=None):
    """Class form (``cls(**kwargs)(y_true, y_pred, sample_weight)``) or function form (``fn``)."""
    yp = tf.constant(y_pred)
    try:
        _run_loss(name, cls, kwargs, y_true, y_pred, sample_weight, fn, fn_kwargs, yp)
    except (ValueError, tf.errors.InvalidArgumentError) as e:
        loss_cases.append(
            {
                "name": name,
                "cls": cls,
                "fn": fn,
                "kwargs": kwargs,
                "fn_kwargs": fn_kwargs or {},
                "y_true": arr(y_true),
                "y_true_dtype": str(np.asarray(y_true).dtype),
                "y_pred": arr(y_pred),
                "sample_weight": None if sample_weight is None else arr(sample_weight),
                "error": type(e).__name__,
            }
        )


def _run_loss(name, cls, kwargs, y_true, y_pred, sample_weight, fn, fn_kwargs, yp):
    with tf.GradientTape() as tape:
        tape.watch(yp)
        if fn is not None:
            out = getattr(keras.losses, fn)(tf.constant(y_true), yp, **(fn_kwargs or {}))
        else:
            loss = getattr(keras.losses, cls)(**kwargs)
            sw = None if sample_weight is None else tf.constant(f32(sample_weight))
            out = loss(tf.constant(y_true), yp, sample_weight=sw)
        total = tf.reduce_sum(out)
    grad = tape.gradient(total, yp)
    case = {
        "name": name,
        "cls": cls,
        "fn": fn,
        "kwargs": kwargs,
        "fn_kwargs": fn_kwargs or {},
        "y_true": arr(y_true),
        "y_true_dtype": str(np.asarray(y_true).dtype),
        "y_pred": arr(y_pred),
        "sample_weight": None if sample_weight is None else arr(sample_weight),
        "value": arr(out.numpy()),
        "shape": list(out.shape),
        "grad": arr(grad.numpy()),
    }
    if fn is None:
        case["config"] = getattr(keras.losses, cls)(**kwargs).get_config()
    loss_cases.append(case)


for red in REDUCTIONS:
    for sw in [None, [0.5, 0.0, 2.0]]:
        tag = f"{red}_{'sw' if sw else 'nosw'}"
        add_loss(f"mse_{tag}", "MeanSquaredError", {"reduction": red}, y_reg_true, y_reg_pred, sw)
        add_loss(f"mae_{tag}", "MeanAbsoluteError", {"reduction": red}, y_reg_true, y_reg_pred, sw)
        add_loss(
            f"bce_prob_{tag}", "BinaryCrossentropy", {"reduction": red}, y_bin_true, y_bin_prob, sw[:2] if sw else None
        )
        add_loss(f"cce_prob_{tag}", "CategoricalCrossentropy", {"reduction": red}, y_cat_true, y_cat_prob, sw)
        add_loss(f"scce_prob_{tag}", "SparseCategoricalCrossentropy", {"reduction": red}, y_sparse, y_cat_prob, sw)

# sample weights of other ranks
add_loss("mse_sw_col", "MeanSquaredError", {}, y_reg_true, y_reg_pred, [[0.5], [1.0], [2.0]])
add_loss("mse_sw_scalar", "MeanSquaredError", {}, y_reg_true, y_reg_pred, 0.25)
add_loss(
    "bce_sw_mismatch", "BinaryCrossentropy", {"reduction": "none"}, y_bin_true, y_bin_prob, [[1, 2, 3], [0, 1, 0.5]]
)
# ranks that Keras squeezes or expands
add_loss("bce_sw_full", "BinaryCrossentropy", {"reduction": "none", "axis": 0}, y_bin_true, y_bin_prob, [1, 2, 3])
add_loss("mse_rank1", "MeanSquaredError", {}, f32([1.0, 2.0, 3.0]), f32([1.5, 1.0, 3.0]))
add_loss("mse_true_col", "MeanSquaredError", {"reduction": "none"}, f32([1.0, 2.0, 3.0]), f32([[1.5], [1.0], [3.0]]))
add_loss("mae_pred_col", "MeanAbsoluteError", {"reduction": "none"}, f32([[1.0], [2.0]]), f32([1.5, 1.0]))
add_loss(
    "mse_rank3",
    "MeanSquaredError",
    {"reduction": "none"},
    f32(rng.normal(size=(2, 3, 2))),
    f32(rng.normal(size=(2, 3, 2))),
)
# logits, label smoothing, axis
for ls in [0.0, 0.2]:
    add_loss(
        f"bce_logits_ls{ls}",
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": ls},
        y_bin_true,
        y_bin_logit,
    )
    add_loss(
        f"bce_prob_ls{ls}", "BinaryCrossentropy", {"label_smoothing": ls, "reduction": "none"}, y_bin_true, y_bin_prob
    )
    add_loss(
        f"cce_logits_ls{ls}",
        "CategoricalCrossentropy",
        {"from_logits": True, "label_smoothing": ls},
        y_cat_true,
        y_cat_logit,
    )
    add_loss(
        f"cce_prob_ls{ls}",
        "CategoricalCrossentropy",
        {"label_smoothing": ls, "reduction": "none"},
        y_cat_true,
        y_cat_prob,
    )
add_loss("bce_logits_none", "BinaryCrossentropy", {"from_logits": True, "reduction": None}, y_bin_true, y_bin_logit)
add_loss("bce_axis0", "BinaryCrossentropy", {"axis": 0, "reduction": "none"}, y_bin_true, y_bin_prob)
add_loss("cce_axis0_prob", "CategoricalCrossentropy", {"axis": 0, "reduction": "none"}, y_cat_true, y_cat_prob)
add_loss(
    "cce_axis0_logits",
    "CategoricalCrossentropy",
    {"axis": 0, "from_logits": True, "reduction": "none"},
    y_cat_true,
    y_cat_logit,
)
add_loss(
    "scce_logits", "SparseCategoricalCrossentropy", {"from_logits": True, "reduction": "none"}, y_sparse, y_cat_logit
)
add_loss(
    "scce_logits_sum", "SparseCategoricalCrossentropy", {"from_logits": True, "reduction": "sum"}, y_sparse, y_cat_logit
)
add_loss("scce_true_col", "SparseCategoricalCrossentropy", {"reduction": "none"}, y_sparse.reshape(3, 1), y_cat_prob)
add_loss("scce_float_labels", "SparseCategoricalCrossentropy", {}, y_sparse.astype(np.float32), y_cat_prob)
add_loss(
    "scce_ignore", "SparseCategoricalCrossentropy", {"ignore_class": 2, "from_logits": True}, y_sparse, y_cat_logit
)
add_loss(
    "scce_ignore_none", "SparseCategoricalCrossentropy", {"ignore_class": 2, "reduction": "none"}, y_sparse, y_cat_prob
)
add_loss(
    "scce_ignore_sum", "SparseCategoricalCrossentropy", {"ignore_class": 0, "reduction": "sum"}, y_sparse, y_cat_prob
)
add_loss(
    "scce_rank3",
    "SparseCategoricalCrossentropy",
    {"from_logits": True},
    np.asarray([[0, 1], [2, 2]], np.int32),
    f32(rng.normal(size=(2, 2, 3))),
)
# function forms: per-sample values
add_loss("fn_mse", None, {}, y_reg_true, y_reg_pred, fn="mean_squared_error")
add_loss("fn_mae", None, {}, y_reg_true, y_reg_pred, fn="mean_absolute_error")
add_loss("fn_bce", None, {}, y_bin_true, y_bin_prob, fn="binary_crossentropy")
add_loss(
    "fn_bce_logits_ls",
    None,
    {},
    y_bin_true,
    y_bin_logit,
    fn="binary_crossentropy",
    fn_kwargs={"from_logits": True, "label_smoothing": 0.1},
)
add_loss("fn_cce", None, {}, y_cat_true, y_cat_prob, fn="categorical_crossentropy")
add_loss(
    "fn_cce_logits", None, {}, y_cat_true, y_cat_logit, fn="categorical_crossentropy", fn_kwargs={"from_logits": True}
)
add_loss("fn_scce", None, {}, y_sparse, y_cat_prob, fn="sparse_categorical_crossentropy")
add_loss(
    "fn_scce_logits",
    None,
    {},
    y_sparse,
    y_cat_logit,
    fn="sparse_categorical_crossentropy",
    fn_kwargs={"from_logits": True},
)

# The other Keras losses: class forms (two reductions, with weights) and function forms.
rng2 = np.random.default_rng(1)
y_pos_true = f32(rng2.uniform(0.0, 3.0, size=(3, 4)))
y_pos_pred = f32(rng2.uniform(0.1, 3.0, size=(3, 4)))
y_dist_true = f32(rng2.dirichlet(np.ones(4), size=3))
y_dist_pred = f32(rng2.dirichlet(np.ones(4), size=3))
y_pm1 = f32(np.sign(rng2.normal(size=(3, 4))))
y_big_err = f32(y_reg_pred + np.array([[0.0, 2.5, -0.3, 1.5]], np.float32))
other_losses = [
    ("MeanAbsolutePercentageError", "mean_absolute_percentage_error", {}, y_pos_true, y_pos_pred),
    ("MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", {}, y_pos_true, y_pos_pred - 0.5),
    ("CosineSimilarity", "cosine_similarity", {}, y_reg_true, y_reg_pred),
    ("Huber", "huber", {}, y_reg_true, y_big_err),
    ("LogCosh", "log_cosh", {}, y_reg_true, y_big_err),
    ("KLDivergence", "kl_divergence", {}, y_dist_true, y_dist_pred),
    ("Poisson", "poisson", {}, y_pos_true, y_pos_pred),
    ("Hinge", "hinge", {}, y_bin_true[:, :2].round(), y_bin_logit[:, :2] / 50),
    ("Hinge", "hinge", {}, y_pm1, y_reg_pred),
    ("SquaredHinge", "squared_hinge", {}, y_pm1, y_reg_pred),
    ("CategoricalHinge", "categorical_hinge", {}, y_cat_true, y_cat_logit / 50),
]
for k, (cls, fn, kw, yt, yp) in enumerate(other_losses):
    add_loss(f"{fn}_{k}", cls, kw, yt, yp, [0.5, 2.0, 1.0][: len(yt)])
    add_loss(f"{fn}_{k}_sum", cls, {**kw, "reduction": "sum"}, yt, yp)
    add_loss(f"fn_{fn}_{k}", None, {}, yt, yp, fn=fn)
add_loss("huber_delta", "Huber", {"delta": 0.5}, y_reg_true, y_big_err)
add_loss("fn_huber_delta", None, {}, y_reg_true, y_big_err, fn="huber", fn_kwargs={"delta": 2.0})
add_loss("cosine_axis0", "CosineSimilarity", {"axis": 0, "reduction": "none"}, y_reg_true, y_reg_pred)

# Keras' activations remember their logits: a cross-entropy on a sigmoid/softmax output uses them.
activation_logit_cases = []
for cls, act, y_true, z in [
    ("BinaryCrossentropy", "sigmoid", y_bin_true, y_bin_logit),
    ("CategoricalCrossentropy", "softmax", y_cat_true, y_cat_logit),
    ("SparseCategoricalCrossentropy", "softmax", y_sparse, y_cat_logit),
]:
    zt = tf.constant(z)
    with tf.GradientTape() as tape:
        tape.watch(zt)
        p = getattr(keras.activations, act)(zt)
        out = getattr(keras.losses, cls)()(tf.constant(y_true), p)
    g = tape.gradient(out, zt)
    plain = getattr(keras.losses, cls)()(tf.constant(y_true), tf.constant(p.numpy()))
    activation_logit_cases.append(
        {
            "cls": cls,
            "activation": act,
            "y_true": arr(y_true),
            "z": arr(z),
            "value": float(out),
            "grad": arr(g.numpy()),
            "value_from_plain_probabilities": float(plain),
        }
    )

loss_get = {}
for ident in [
    "mse",
    "MSE",
    "mae",
    "mean_squared_error",
    "MeanSquaredError",
    "binary_crossentropy",
    "BinaryCrossentropy",
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "SparseCategoricalCrossentropy",
    "bce",
    "kld",
    "KLD",
    "mape",
    "msle",
    "huber",
    "Huber",
    "log_cosh",
    "LogCosh",
    "hinge",
    "CosineSimilarity",
    "categorical_hinge",
    "poisson",
]:
    obj = keras.losses.get(ident)
    loss_get[ident] = {
        "kind": "instance" if isinstance(obj, keras.losses.Loss) else "function",
        "name": getattr(obj, "name", None) or obj.__name__,
        "class": type(obj).__name__,
    }

# ---------------------------------------------------------------- metrics
metric_batches = {
    "regression": [
        (y_reg_true, y_reg_pred, None),
        (y_reg_true[:2] * 2, y_reg_pred[:2], [1.0, 3.0]),
        (y_reg_true[:1], y_reg_pred[:1] - 1, None),
    ],
    "binary": [
        (f32([[1], [0], [1], [0]]), f32([[0.6], [0.4], [0.3], [0.7]]), None),
        (f32([[1], [1]]), f32([[0.9], [0.55]]), [0.5, 2.0]),
        (f32([1, 0, 0]), f32([0.51, 0.49, 0.8]), None),
    ],
    "categorical": [
        (y_cat_true, y_cat_prob, None),
        (y_cat_true[:2], f32([[0.2, 0.7, 0.1], [0.6, 0.3, 0.1]]), [2.0, 1.0]),
    ],
    "sparse": [
        (y_sparse, y_cat_prob, None),
        (np.asarray([[2], [1]], np.int32), f32([[0.1, 0.2, 0.7], [0.8, 0.1, 0.1]]), [1.0, 0.5]),
        (f32([0, 1]), f32([[0.5, 0.4, 0.1], [0.3, 0.3, 0.4]]), None),
    ],
    "exact": [(f32([1, 2, 3, 4]), f32([0, 2, 3, 4]), None), (f32([[1, 2], [3, 4]]), f32([[1, 2], [0, 4]]), [1.0, 0.0])],
}
metric_specs = [
    ("Accuracy", {}, "exact"),
    ("BinaryAccuracy", {}, "binary"),
    ("BinaryAccuracy", {"threshold": 0.7}, "binary"),
    ("CategoricalAccuracy", {}, "categorical"),
    ("SparseCategoricalAccuracy", {}, "sparse"),
    ("MeanSquaredError", {}, "regression"),
    ("MeanAbsoluteError", {}, "regression"),
    ("BinaryCrossentropy", {}, "binary"),
    ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1}, "binary"),
    ("CategoricalCrossentropy", {}, "categorical"),
    ("SparseCategoricalCrossentropy", {}, "sparse"),
    ("SparseCategoricalCrossentropy", {"from_logits": True}, "sparse"),
    ("RootMeanSquaredError", {}, "regression"),
    ("MeanAbsolutePercentageError", {}, "regression"),
    ("MeanSquaredLogarithmicError", {}, "regression"),
    ("CosineSimilarity", {}, "regression"),
    ("LogCoshError", {}, "regression"),
    ("KLDivergence", {}, "categorical"),
    ("Poisson", {}, "binary"),
    ("Hinge", {}, "binary"),
    ("SquaredHinge", {}, "regression"),
    ("CategoricalHinge", {}, "categorical"),
]
metric_cases = []
for cls, kwargs, data in metric_specs:
    m = getattr(keras.metrics, cls)(**kwargs)
    results = []
    for yt, yp, sw in metric_batches[data]:
        m.update_state(tf.constant(yt), tf.constant(yp), sample_weight=None if sw is None else tf.constant(f32(sw)))
        results.append(float(m.result()))
    m.reset_state()
    metric_cases.append(
        {
            "cls": cls,
            "kwargs": kwargs,
            "data": data,
            "results": results,
            "after_reset": float(m.result()),
            "name": m.name,
            "variables": [v.name for v in m.variables],
            "config": m.get_config(),
        }
    )

value_metric_cases = []
value_batches = [
    ([1.0, 3.0, 5.0, 7.0], None),
    ([2.0, 4.0], [1.0, 0.0]),
    ([[1.0, 2.0], [3.0, 4.0]], [0.5, 2.0]),
    ([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [2.0, 1.0]]),
    (10.0, None),
    (3.0, 2.0),
]
for cls in ["Mean", "Sum"]:
    m = getattr(keras.metrics, cls)()
    results = []
    for values, sw in value_batches:
        m.update_state(tf.constant(values), sample_weight=None if sw is None else tf.constant(sw))
        results.append(float(m.result()))
    value_metric_cases.append(
        {"cls": cls, "results": results, "name": m.name, "variables": [v.name for v in m.variables]}
    )

accuracy_resolution = []
for yt_shape, yp_shape in [((8, 1), (8, 1)), ((8,), (8, 5)), ((8, 1), (8, 5)), ((8, 5), (8, 5)), ((8,), (8,))]:
    for ident in ["accuracy", "acc"]:
        m = get_metric(ident, tf.zeros(yt_shape), tf.zeros(yp_shape))
        accuracy_resolution.append(
            {
                "identifier": ident,
                "y_true_shape": list(yt_shape),
                "y_pred_shape": list(yp_shape),
                "class": type(m).__name__,
                "name": m.name,
            }
        )
metric_get = {}
for ident in [
    "mse",
    "mae",
    "Accuracy",
    "binary_accuracy",
    "sparse_categorical_accuracy",
    "CategoricalAccuracy",
    "Mean",
    "binary_crossentropy",
    "mape",
    "msle",
    "RootMeanSquaredError",
    "root_mean_squared_error",
    "log_cosh_error",
    "kl_divergence",
    "cosine_similarity",
    "Hinge",
    "poisson",
    "Sum",
]:
    obj = keras.metrics.get(ident)
    metric_get[ident] = {
        "kind": "instance" if isinstance(obj, keras.metrics.Metric) else "function",
        "name": getattr(obj, "name", None) or obj.__name__,
        "class": type(obj).__name__,
    }

# ---------------------------------------------------------------- initializers
init_cases = []
for cls, kwargs, shape in [
    ("GlorotUniform", {}, (300, 200)),
    ("GlorotUniform", {}, (3, 3, 32, 64)),
    ("GlorotNormal", {}, (300, 200)),
    ("GlorotNormal", {}, (5, 40, 60)),
    ("HeUniform", {}, (400, 100)),
    ("HeNormal", {}, (3, 3, 16, 32)),
    ("HeNormal", {}, (500,)),
    ("LecunUniform", {}, (250, 120)),
    ("LecunNormal", {}, (250, 120)),
    ("RandomNormal", {}, (200, 200)),
    ("RandomNormal", {"mean": 1.0, "stddev": 2.0}, (200, 200)),
    ("RandomUniform", {}, (200, 200)),
    ("RandomUniform", {"minval": -3.0, "maxval": 1.0}, (200, 200)),
    ("TruncatedNormal", {}, (200, 200)),
    ("TruncatedNormal", {"mean": 0.5, "stddev": 0.2}, (200, 200)),
    ("VarianceScaling", {"scale": 3.0, "mode": "fan_out", "distribution": "untruncated_normal"}, (100, 300)),
    ("VarianceScaling", {"scale": 0.5, "mode": "fan_avg", "distribution": "uniform"}, (7, 100, 300)),
    ("VarianceScaling", {"scale": 2.0, "mode": "fan_in", "distribution": "normal"}, (2, 2, 80, 40)),
    ("GlorotUniform", {}, ()),
    ("HeUniform", {}, (1, 1)),
]:
    init = getattr(keras.initializers, cls)(seed=1, **kwargs)
    x = init(shape, dtype="float32").numpy().astype(np.float64)
    again = init(shape, dtype="float32").numpy()
    fan_in, fan_out = compute_fans(shape)
    init_cases.append(
        {
            "cls": cls,
            "kwargs": kwargs,
            "shape": list(shape),
            "fan_in": fan_in,
            "fan_out": fan_out,
            "mean": float(x.mean()),
            "std": float(x.std()),
            "min": float(x.min()),
            "max": float(x.max()),
            "size": int(x.size),
            "same_values_on_second_call": bool(np.array_equal(x, again)),
            "config": init.get_config(),
        }
    )
const_cases = []
for cls, kwargs, shape, dtype in [
    ("Zeros", {}, (2, 3), "float32"),
    ("Ones", {}, (4,), "float64"),
    ("Constant", {"value": 2.5}, (2, 2), "float32"),
    ("Identity", {"gain": 3.0}, (2, 3), "float32"),
    ("Identity", {}, (3, 3), "float64"),
]:
    init = getattr(keras.initializers, cls)(**kwargs)
    out = init(shape, dtype=dtype)
    const_cases.append(
        {
            "cls": cls,
            "kwargs": kwargs,
            "shape": list(shape),
            "dtype": dtype,
            "value": arr(out.numpy()),
            "config": init.get_config(),
        }
    )
init_get = {}
for ident in [
    "glorot_uniform",
    "GlorotUniform",
    "he_normal",
    "zeros",
    "zero",
    "ones",
    "one",
    "normal",
    "uniform",
    "random_normal",
    "truncated_normal",
    "lecun_uniform",
    "identity",
    "orthogonal",
]:
    init_get[ident] = type(keras.initializers.get(ident)).__name__

# ---------------------------------------------------------------- activations
xs = f32([-100.0, -20.0, -6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 20.0, 100.0])
x2 = f32([[-1.0, 0.0, 3.0, 50.0], [2.0, 2.0, -80.0, 0.5], [0.1, -0.2, 0.3, -0.4]])
act_specs = [
    ("relu", {}),
    ("relu", {"negative_slope": 0.1}),
    ("relu", {"max_value": 4.0}),
    ("relu", {"threshold": 0.5}),
    ("relu", {"max_value": 6.0}),
    ("relu", {"negative_slope": 0.1, "max_value": 4.0, "threshold": 0.5}),
    ("relu", {"negative_slope": 0.3, "threshold": -1.0}),
    ("relu", {"negative_slope": 0.2, "max_value": 2.0}),
    ("sigmoid", {}),
    ("tanh", {}),
    ("elu", {}),
    ("elu", {"alpha": 0.5}),
    ("selu", {}),
    ("gelu", {}),
    ("gelu", {"approximate": True}),
    ("silu", {}),
    ("swish", {}),
    ("softplus", {}),
    ("softsign", {}),
    ("exponential", {}),
    ("linear", {}),
    ("leaky_relu", {}),
    ("leaky_relu", {"negative_slope": 0.05}),
    ("relu6", {}),
    ("hard_sigmoid", {}),
    ("hard_silu", {}),
    ("mish", {}),
    ("log_sigmoid", {}),
    ("celu", {}),
    ("softmax", {}),
    ("softmax", {"axis": 0}),
    ("log_softmax", {}),
    ("log_softmax", {"axis": 0}),
    ("hard_shrink", {}),
    ("hard_shrink", {"threshold": 1.0}),
    ("hard_tanh", {}),
    ("soft_shrink", {}),
    ("soft_shrink", {"threshold": 1.0}),
    ("sparse_plus", {}),
    ("sparse_sigmoid", {}),
    ("squareplus", {}),
    ("squareplus", {"b": 1.0}),
    ("tanh_shrink", {}),
    ("threshold", {"threshold": 0.5, "default_value": -2.0}),
    ("glu", {}),
    ("glu", {"axis": 0}),
    ("sparsemax", {}),
    ("sparsemax", {"axis": 0}),
]
# 2-D only: glu halves an axis (x2's are 3 and 4 long: axis 0 is odd, so glu's axis-0 case uses x4).
x4 = f32([[-1.0, 0.0, 3.0, 50.0], [2.0, 2.0, -80.0, 0.5], [0.1, -0.2, 0.3, -0.4], [1.5, -2.5, 0.25, 4.0]])
act_inputs = {"softmax": [xs, x2], "log_softmax": [xs, x2], "sparsemax": [xs, x2, x4], "glu": [x4]}
act_cases = []
for name, kwargs in act_specs:
    fn = getattr(keras.activations, name)
    inputs = act_inputs.get(name, [xs])
    if name == "sparsemax" and kwargs.get("axis") == 0:
        inputs = [x2, x4]
    for x in inputs:
        for dtype in ["float32", "float64"]:
            xt = tf.constant(x.astype(dtype))
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = fn(xt, **kwargs)
                # Weights of y's shape (glu halves an axis).
                w = tf.constant(np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape).astype(dtype))
                s = tf.reduce_sum(y * w)
            g = tape.gradient(s, xt)
            act_cases.append(
                {
                    "name": name,
                    "kwargs": kwargs,
                    "dtype": dtype,
                    "x": arr(x),
                    "value": arr(y.numpy()),
                    "grad": arr(g.numpy()),
                }
            )
act_serialize = {
    n: keras.activations.serialize(keras.activations.get(n))
    for n in ["relu", "swish", "silu", "sigmoid", "softmax", "linear", "gelu", "hard_sigmoid", "leaky_relu"]
}
act_get_none = keras.activations.serialize(keras.activations.get(None))

# tf.keras' short names of the per-sample functions (KLD, mse, logcosh, ...): alias -> function name.
short_names = {
    mod: {
        n: getattr(getattr(tf.keras, mod), n).__name__
        for n in [
            "KLD",
            "MAE",
            "MAPE",
            "MSE",
            "MSLE",
            "kld",
            "kullback_leibler_divergence",
            "logcosh",
            "mae",
            "mape",
            "mse",
            "msle",
        ]
        if hasattr(getattr(tf.keras, mod), n)
    }
    for mod in ["losses", "metrics"]
}

# tf.keras.initializers' other names of the classes: name -> class name.
initializer_names = {
    n: getattr(tf.keras.initializers, n).__name__
    for n in dir(tf.keras.initializers)
    if not n.startswith("_")
    and isinstance(getattr(tf.keras.initializers, n), type)
    and getattr(tf.keras.initializers, n).__name__ != n
}

out = {
    "short_names": short_names,
    "initializer_names": initializer_names,
    "versions": {"keras": keras.__version__, "tensorflow": tf.__version__},
    "epsilon": keras.config.epsilon(),
    "losses": loss_cases,
    "activation_logits": activation_logit_cases,
    "loss_get": loss_get,
    "metric_batches": {
        k: [[arr(a), arr(b), None if s is None else arr(s)] for a, b, s in v] for k, v in metric_batches.items()
    },
    "metrics": metric_cases,
    "value_batches": [[arr(v), None if s is None else arr(s)] for v, s in value_batches],
    "value_metrics": value_metric_cases,
    "accuracy_resolution": accuracy_resolution,
    "metric_get": metric_get,
    "initializers": init_cases,
    "constant_initializers": const_cases,
    "initializer_get": init_get,
    "activations": act_cases,
    "activation_serialize": act_serialize,
    "activation_get_none": act_get_none,
    "truncated_normal_correction": 0.87962566103423978,
    "math_check": math.sqrt(6.0 / 500.0),
}
json.dump(out, sys.stdout)
