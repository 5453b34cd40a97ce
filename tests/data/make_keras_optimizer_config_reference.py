"""Records Keras 3's ``get_config()`` of each built-in optimizer tapers has (non-default hyperparameters),
into keras_optimizer_config_reference.json next to this file.

Regenerate (scratch venv with TensorFlow 2.21 + Keras 3):
    TF_CPP_MIN_LOG_LEVEL=3 /tmp/tfvenv/bin/python tests/data/make_keras_optimizer_config_reference.py
"""

import json
import os

import keras

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_optimizer_config_reference.json")

CASES = {
    "SGD": dict(learning_rate=0.1, momentum=0.9, nesterov=True, clipnorm=1.0),
    "Adam": dict(learning_rate=0.002, beta_1=0.8, amsgrad=True, weight_decay=0.01),
    "AdamW": dict(learning_rate=0.003, weight_decay=0.05, global_clipnorm=2.0),
    "RMSprop": dict(learning_rate=0.01, rho=0.8, momentum=0.5, centered=True, clipvalue=0.5),
    "Adagrad": dict(learning_rate=0.05, initial_accumulator_value=0.2),
    "Adamax": dict(learning_rate=0.004, beta_2=0.99),
    "Nadam": dict(learning_rate=0.005, epsilon=1e-6),
    "Adadelta": dict(learning_rate=0.5, rho=0.9),
    "Lion": dict(learning_rate=0.0003, beta_1=0.95),
    "Ftrl": dict(learning_rate=0.02, l1_regularization_strength=0.1, beta=0.5),
}
out = {}
for name, kw in CASES.items():
    opt = getattr(keras.optimizers, name)(**kw)
    out[name] = {"kwargs": kw, "config": opt.get_config()}
S = keras.optimizers.schedules
SCHEDULES = {
    "ExponentialDecay": (S.ExponentialDecay, dict(initial_learning_rate=0.1, decay_steps=7, decay_rate=0.5,
                                                  staircase=True)),
    "CosineDecay": (S.CosineDecay, dict(initial_learning_rate=0.1, decay_steps=20, alpha=0.1, warmup_target=0.2,
                                        warmup_steps=5)),
    "PiecewiseConstantDecay": (S.PiecewiseConstantDecay, dict(boundaries=[10, 20], values=[1.0, 0.5, 0.1])),
    "PolynomialDecay": (S.PolynomialDecay, dict(initial_learning_rate=0.1, decay_steps=30, power=2.0)),
    "PolynomialDecay_cycle": (S.PolynomialDecay, dict(initial_learning_rate=0.1, decay_steps=30, power=0.5,
                                                      cycle=True)),
    "InverseTimeDecay": (S.InverseTimeDecay, dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5)),
    "InverseTimeDecay_stair": (S.InverseTimeDecay, dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5,
                                                        staircase=True)),
    "CosineDecayRestarts": (S.CosineDecayRestarts, dict(initial_learning_rate=0.1, first_decay_steps=10)),
    "CosineDecayRestarts_t1": (S.CosineDecayRestarts, dict(initial_learning_rate=0.1, first_decay_steps=10, t_mul=1.0,
                                                           m_mul=0.5, alpha=0.1)),
}
STEPS = [0, 1, 5, 9, 10, 11, 20, 21, 29, 30, 31, 45, 75, 150]
out["schedules"] = {}
for key, (cls, kw) in SCHEDULES.items():
    sched = cls(**kw)
    out["schedules"][key] = {"class": cls.__name__, "kwargs": kw, "values": [float(sched(s)) for s in STEPS],
                             "config": sched.get_config(), "serialized": keras.optimizers.schedules.serialize(sched)}
out["schedule_steps"] = STEPS
opt = keras.optimizers.SGD(learning_rate=S.ExponentialDecay(0.1, 7, 0.5))
out["optimizer_with_schedule"] = opt.get_config()["learning_rate"]
with open(OUT, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("wrote", OUT)
