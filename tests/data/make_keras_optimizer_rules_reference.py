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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras_optimizer_rules_programs import cases  # noqa: E402

rng = np.random.default_rng(3)
optimizers = keras.optimizers
x0 = rng.normal(size=(2, 3))
grads = [rng.normal(size=(2, 3)) for _ in range(5)]

CASES = cases(optimizers)


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
