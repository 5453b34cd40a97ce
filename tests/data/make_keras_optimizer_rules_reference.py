# Generates keras_optimizer_rules_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_keras_optimizer_rules_reference.py \
#       > tests/data/keras_optimizer_rules_reference.json
# Records the trajectories of Keras 3's Adagrad, Adamax, Nadam, Adadelta, Lion and Ftrl: one
# variable, fixed gradients, the variable after each step (float32 and float64, with and without
# weight decay, with a learning-rate schedule), the constructors' error messages and names.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np

rng = np.random.default_rng(3)
optimizers = keras.optimizers
x0 = rng.normal(size=(2, 3))
grads = [rng.normal(size=(2, 3)) for _ in range(5)]

CASES = {
    "Adagrad()": lambda: optimizers.Adagrad(learning_rate=0.1),
    "Adagrad(init=0.5,eps=1e-3)": lambda: optimizers.Adagrad(
        learning_rate=0.2, initial_accumulator_value=0.5, epsilon=1e-3
    ),
    "Adamax()": lambda: optimizers.Adamax(learning_rate=0.05),
    "Adamax(b=0.8,0.9)": lambda: optimizers.Adamax(learning_rate=0.05, beta_1=0.8, beta_2=0.9),
    "Nadam()": lambda: optimizers.Nadam(learning_rate=0.05),
    "Nadam(b=0.8,0.95)": lambda: optimizers.Nadam(learning_rate=0.05, beta_1=0.8, beta_2=0.95),
    "Adadelta()": lambda: optimizers.Adadelta(learning_rate=1.0),
    "Adadelta(rho=0.9)": lambda: optimizers.Adadelta(learning_rate=0.5, rho=0.9, epsilon=1e-4),
    "Lion()": lambda: optimizers.Lion(learning_rate=0.01),
    "Lion(b=0.5,0.9)": lambda: optimizers.Lion(learning_rate=0.02, beta_1=0.5, beta_2=0.9),
    "Ftrl()": lambda: optimizers.Ftrl(learning_rate=0.1),
    "Ftrl(l1,l2,shrink,beta)": lambda: optimizers.Ftrl(
        learning_rate=0.1,
        learning_rate_power=-0.7,
        initial_accumulator_value=0.2,
        l1_regularization_strength=0.01,
        l2_regularization_strength=0.02,
        l2_shrinkage_regularization_strength=0.03,
        beta=0.1,
    ),
    "Adagrad(wd)": lambda: optimizers.Adagrad(learning_rate=0.1, weight_decay=0.05),
    "Lion(wd)": lambda: optimizers.Lion(learning_rate=0.01, weight_decay=0.1),
    "Nadam(schedule)": lambda: optimizers.Nadam(learning_rate=optimizers.schedules.ExponentialDecay(0.05, 2, 0.5)),
    "Adamax(clipnorm)": lambda: optimizers.Adamax(learning_rate=0.05, clipnorm=0.5),
}


def trajectory(make, dtype):
    opt = make()
    v = keras.Variable(x0.astype(dtype))
    out = []
    for g in grads:
        opt.apply_gradients([(keras.ops.convert_to_tensor(g.astype(dtype)), v)])
        out.append(np.asarray(v.numpy(), np.float64).tolist())
    return out


def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


out = {
    "x0": x0.tolist(),
    "grads": [g.tolist() for g in grads],
    "trajectories": {
        name: {dt: trajectory(make, dt) for dt in ("float32", "float64")} for name, make in CASES.items()
    },
    "errors": {
        "Lion(beta_1=0)": err(lambda: optimizers.Lion(beta_1=0.0)),
        "Ftrl(initial_accumulator_value=-1)": err(lambda: optimizers.Ftrl(initial_accumulator_value=-1.0)),
        "Ftrl(learning_rate_power=0.5)": err(lambda: optimizers.Ftrl(learning_rate_power=0.5)),
        "Ftrl(l1_regularization_strength=-1)": err(lambda: optimizers.Ftrl(l1_regularization_strength=-1.0)),
        "Ftrl(l2_regularization_strength=-1)": err(lambda: optimizers.Ftrl(l2_regularization_strength=-1.0)),
        "Ftrl(l2_shrinkage_regularization_strength=-1)": err(
            lambda: optimizers.Ftrl(l2_shrinkage_regularization_strength=-1.0)
        ),
    },
    "defaults": {
        name: {k: v for k, v in getattr(optimizers, name)().get_config().items() if not isinstance(v, dict)}
        for name in ["Adagrad", "Adamax", "Nadam", "Adadelta", "Lion", "Ftrl"]
    },
    "get": {
        name: type(optimizers.get(name)).__name__ for name in ["adagrad", "adamax", "nadam", "adadelta", "lion", "ftrl"]
    },
}
json.dump(out, sys.stdout)
