# Generates keras_regularizers_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_keras_regularizers_reference.py \
#       > tests/data/keras_regularizers_reference.json
# Records Keras 3's regularizers (penalties of fixed arrays), constraints (projections), the
# losses a layer lists with kernel/bias/activity regularizers, a short fit whose weights carry
# regularizers and constraints (loss history and final weights), error messages and the
# modules' public names. Inputs are recorded beside the outputs.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np

rng = np.random.default_rng(7)


def arr(x):
    return np.asarray(x).tolist()


out = {}
R, C = keras.regularizers, keras.constraints

# ---------------------------------------------------------------- regularizers
xs = {
    "float32": rng.normal(size=(3, 4)).astype(np.float32),
    "float64": rng.normal(size=(3, 4)).astype(np.float64),
}
regs = {
    "L1(0.3)": R.L1(0.3),
    "L2(0.2)": R.L2(0.2),
    "L1L2(0.1,0.05)": R.L1L2(0.1, 0.05),
    "L1L2()": R.L1L2(),
    "l1_l2()": R.l1_l2(),
    "get('l2')": R.get("l2"),
    "get('L1')": R.get("L1"),
    "Orthogonal(0.1,rows)": R.OrthogonalRegularizer(0.1, "rows"),
    "Orthogonal(0.2,columns)": R.OrthogonalRegularizer(0.2, "columns"),
}
def penalty(r, x):
    # None where Keras raises (OrthogonalRegularizer multiplies its float32 factor
    # with a float64 input and fails).
    try:
        return float(keras.ops.convert_to_numpy(r(keras.ops.convert_to_tensor(x))))
    except Exception:  # noqa: BLE001
        return None


out["regularizers"] = {
    "inputs": {k: arr(v) for k, v in xs.items()},
    "values": {name: {dt: penalty(r, x) for dt, x in xs.items()} for name, r in regs.items()},
    "configs": {name: r.get_config() for name, r in regs.items()},
}

# ---------------------------------------------------------------- constraints
w = (rng.normal(size=(4, 3)) * np.array([0.2, 1.0, 3.0])).astype(np.float32)
cons = {
    "MaxNorm(2.0)": C.MaxNorm(2.0),
    "MaxNorm(1.5,axis=1)": C.MaxNorm(1.5, axis=1),
    "MaxNorm(2,axis=[0,1])": C.MaxNorm(2, axis=[0, 1]),
    "MinMaxNorm(0.5,1.5,0.7)": C.MinMaxNorm(0.5, 1.5, 0.7),
    "MinMaxNorm(axis=1)": C.MinMaxNorm(axis=1),
    "NonNeg": C.NonNeg(),
    "UnitNorm": C.UnitNorm(),
    "UnitNorm(axis=1)": C.UnitNorm(axis=1),
    "get('max_norm')": C.get("max_norm"),
}
out["constraints"] = {
    "input": arr(w),
    "values": {name: arr(keras.ops.convert_to_numpy(c(keras.ops.convert_to_tensor(w)))) for name, c in cons.items()},
    "configs": {name: c.get_config() for name, c in cons.items()},
}

# ---------------------------------------------------------------- layer losses
x = rng.normal(size=(5, 4)).astype(np.float32)
k0 = rng.normal(size=(4, 3)).astype(np.float32)
b0 = rng.normal(size=(3,)).astype(np.float32)
dense = keras.layers.Dense(
    3,
    kernel_regularizer=R.L2(0.1),
    bias_regularizer=R.L1(0.2),
    activity_regularizer=R.L1L2(0.01, 0.02),
)
dense.build((None, 4))
dense.set_weights([k0, b0])
dense(x)
emb = keras.layers.Embedding(6, 2, embeddings_regularizer="l2")
emb.build()
e0 = rng.normal(size=(6, 2)).astype(np.float32)
emb.set_weights([e0])
emb(np.array([[1, 2], [3, 3]]))
conv = keras.layers.Conv2D(2, 2, kernel_regularizer=R.L1(0.05), activity_regularizer="l2")
c_in = rng.normal(size=(2, 3, 3, 1)).astype(np.float32)
conv.build((None, 3, 3, 1))
ck0 = rng.normal(size=(2, 2, 1, 2)).astype(np.float32)
conv.set_weights([ck0, np.zeros(2, np.float32)])
conv(c_in)
ln = keras.layers.LayerNormalization(gamma_regularizer=R.L2(0.3), beta_regularizer=R.L1(0.4))
ln.build((None, 4))
g0, be0 = rng.normal(size=(4,)).astype(np.float32), rng.normal(size=(4,)).astype(np.float32)
ln.set_weights([g0, be0])
ln(x)
out["layer_losses"] = {
    "x": arr(x),
    "dense": {"kernel": arr(k0), "bias": arr(b0), "losses": [float(v) for v in dense.losses]},
    "embedding": {"embeddings": arr(e0), "ids": [[1, 2], [3, 3]], "losses": [float(v) for v in emb.losses]},
    "conv": {"x": arr(c_in), "kernel": arr(ck0), "losses": [float(v) for v in conv.losses]},
    "layer_norm": {"gamma": arr(g0), "beta": arr(be0), "losses": [float(v) for v in ln.losses]},
}

# ---------------------------------------------------------------- fit
fx = rng.normal(size=(8, 4)).astype(np.float32)
fy = rng.normal(size=(8, 1)).astype(np.float32)
w1 = (rng.normal(size=(4, 3)) * 0.8).astype(np.float32)
b1 = np.array([0.1, -0.2, 0.05], np.float32)
w2 = rng.normal(size=(3, 1)).astype(np.float32)
b2 = np.zeros(1, np.float32)
model = keras.Sequential(
    [
        keras.Input((4,)),
        keras.layers.Dense(
            3,
            activation="tanh",
            kernel_regularizer=R.L2(0.05),
            kernel_constraint=C.MaxNorm(0.8),
            bias_constraint=C.NonNeg(),
            activity_regularizer=R.L1(0.01),
        ),
        keras.layers.Dense(1, kernel_regularizer="l1", kernel_constraint="unit_norm"),
    ]
)
model.set_weights([w1, b1, w2, b2])
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
hist = model.fit(fx, fy, epochs=3, batch_size=4, shuffle=False, verbose=0)
out["fit"] = {
    "x": arr(fx),
    "y": arr(fy),
    "initial": [arr(w1), arr(b1), arr(w2), arr(b2)],
    "loss": [float(v) for v in hist.history["loss"]],
    "final": [arr(v) for v in model.get_weights()],
}

# ---------------------------------------------------------------- errors
def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


out["errors"] = {
    "L1(-1)": err(lambda: R.L1(-1.0)),
    "L2(nan)": err(lambda: R.L2(float("nan"))),
    "L1L2(l2='a')": err(lambda: R.L1L2(l2="a")),
    "Orthogonal(mode='diag')": err(lambda: R.OrthogonalRegularizer(mode="diag")),
    "Orthogonal(rank 3)": err(lambda: R.OrthogonalRegularizer()(keras.ops.ones((2, 2, 2)))),
    "regularizers.get('nope')": err(lambda: R.get("nope")),
    "constraints.get(3)": err(lambda: C.get(3)),
}
out["names"] = {
    "regularizers": sorted(n for n in dir(R) if not n.startswith("_")),
    "constraints": sorted(n for n in dir(C) if not n.startswith("_")),
}
json.dump(out, sys.stdout)
