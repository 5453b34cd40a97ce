# Generates keras_layers_reference.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   COLUMNS=80 /work/venv-tf/bin/python tests/data/make_keras_layers_reference.py \
#       > tests/data/keras_layers_reference.json
#
# Records what tests/test_keras_layers.py and tests/test_keras_models.py compare tapers with:
# tf.Module names and variable order, Keras layers' output shapes, weight paths, config keys and
# forward values with weights set from `fixed(shape, k)` below (initializers draw from different
# random streams in tapers, so every compared weight is set explicitly), BatchNormalization's
# moving statistics, summary() texts (80-column terminal), and fit/evaluate/predict numbers of
# small models trained with SGD from fixed weights without shuffling.
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("COLUMNS", "80")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

assert keras.__version__.startswith("3."), keras.__version__


def fixed(shape, k=0):
    """Deterministic weights/inputs shared with the tests: a scaled sine of the flat index."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (0.5 * np.sin(np.arange(n, dtype=np.float64) * 0.7 + k)).reshape(shape).astype(np.float32)


def set_fixed(model, k=0):
    for i, w in enumerate(model.weights):
        if "moving_variance" in w.path or w.path.endswith("gamma"):
            w.assign(1.0 + 0.1 * fixed(tuple(w.shape), k + i))
        elif "moving_mean" in w.path:
            w.assign(np.zeros(w.shape, np.float32))
        else:
            w.assign(fixed(tuple(w.shape), k + i))


def arr(x):
    return np.asarray(x, dtype=np.float64).tolist()


out = {"keras_version": keras.__version__, "tf_version": tf.__version__}

# ---------------------------------------------------------------- tf.Module


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(fixed((in_features, out_features), 1) + 0.3, name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class MySequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)
        self.extra = {"zeta": tf.Variable(1.0, name="zeta", trainable=False), "alpha": [Dense(2, 1, name="inner")]}
        self.counter = tf.Variable(0, name="counter", trainable=False)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


class MLPModule(tf.Module):
    pass


m = MySequentialModule(name="the_model")
with tf.name_scope("outer"):
    scoped = Dense(2, 2)
    plain = tf.Variable(1.0, name="v")
    with tf.name_scope("inner") as inner_scope:
        nested = tf.Variable(1.0)
out["module"] = {
    "variables": [v.name for v in m.variables],
    "trainable_variables": [v.name for v in m.trainable_variables],
    "non_trainable_variables": [v.name for v in m.non_trainable_variables],
    "submodules": [s.name for s in m.submodules],
    "default_names": [MLPModule().name, Dense(1, 1).name],
    "scoped_variables": [v.name for v in scoped.variables],
    "scoped_name_scope": scoped.name_scope.name,
    "plain": plain.name,
    "nested": nested.name,
    "inner_scope": inner_scope,
    "forward": arr(m(tf.constant(fixed((2, 3), 5)))),
}


class WithScope(tf.Module):
    def __init__(self):
        super().__init__(name="with_scope")
        self.v = None

    @tf.Module.with_name_scope
    def make(self):
        self.v = tf.Variable(1.0, name="made")
        return self.v


out["module"]["with_name_scope"] = WithScope().make().name

# Module regression with a tape (basic_training_loops): y = 3x + 2, SGD by hand.


class Linear(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


xs = tf.constant(fixed((64,), 3) * 4.0)
ys = xs * 3.0 + 2.0 + tf.constant(fixed((64,), 9) * 0.2)
lin = Linear()
losses = []
for _ in range(10):
    with tf.GradientTape() as t:
        loss = tf.reduce_mean(tf.square(ys - lin(xs)))
    dw, db = t.gradient(loss, [lin.w, lin.b])
    lin.w.assign_sub(0.1 * dw)
    lin.b.assign_sub(0.1 * db)
    losses.append(float(loss))
out["module"]["regression"] = {"losses": losses, "w": float(lin.w), "b": float(lin.b)}

# ---------------------------------------------------------------- layers

L = keras.layers
x2 = fixed((3, 4), 2)
x4 = fixed((2, 6, 6, 3), 4)
layer_cases = {
    "dense": (lambda: L.Dense(5, activation="relu"), x2),
    "dense_nobias": (lambda: L.Dense(3, use_bias=False), x2),
    "dense_3d": (lambda: L.Dense(2), fixed((2, 3, 4), 7)),
    "conv_valid": (lambda: L.Conv2D(4, 3), x4),
    "conv_same_strided": (lambda: L.Conv2D(2, (3, 2), strides=2, padding="same", activation="tanh"), x4),
    "maxpool": (lambda: L.MaxPooling2D(), x4),
    "maxpool_same": (lambda: L.MaxPooling2D(pool_size=3, strides=2, padding="same"), x4),
    "avgpool": (lambda: L.AveragePooling2D(pool_size=(2, 3)), x4),
    "avgpool_same": (lambda: L.AveragePooling2D(pool_size=3, strides=2, padding="same"), x4),
    "flatten": (lambda: L.Flatten(), x4),
    "reshape": (lambda: L.Reshape((-1, 2)), x2),
    "dropout_inference": (lambda: L.Dropout(0.5), x2),
    "batchnorm_inference": (lambda: L.BatchNormalization(), x2),
    "layernorm": (lambda: L.LayerNormalization(), x2),
    "layernorm_4d": (lambda: L.LayerNormalization(axis=[1, 2]), x4),
    "embedding": (lambda: L.Embedding(10, 3), np.array([[1, 2, 9], [0, 0, 4]], dtype=np.int32)),
    "activation_softmax": (lambda: L.Activation("softmax"), x2),
    "relu_options": (lambda: L.ReLU(max_value=0.3, negative_slope=0.1, threshold=0.05), x2),
}
layers_out = {}
for case, (make, x) in layer_cases.items():
    keras.backend.clear_session()
    layer = make()
    y0 = layer(x)
    set_fixed(layer, 1)
    y = layer(x)
    sym = layer.compute_output_shape((None, *x.shape[1:]))
    layers_out[case] = {
        "class": type(layer).__name__,
        "name": layer.name,
        "weights": [[w.path, list(w.shape), w.trainable] for w in layer.weights],
        "config_keys": sorted(layer.get_config()),
        "output_shape": list(y.shape),
        "symbolic_shape": list(sym),
        "output": arr(y),
    }
out["layers"] = layers_out

# BatchNormalization in training mode: output and moving statistics after one call.
keras.backend.clear_session()
bn = L.BatchNormalization(momentum=0.9)
xb = fixed((8, 3), 11) * 3 + 1
bn(xb)
set_fixed(bn, 2)
yt = bn(xb, training=True)
out["batchnorm_training"] = {
    "output": arr(yt),
    "moving_mean": arr(bn.moving_mean),
    "moving_variance": arr(bn.moving_variance),
    "inference_after": arr(bn(xb, training=False)),
    "trainable": [w.path for w in bn.trainable_weights],
    "non_trainable": [w.path for w in bn.non_trainable_weights],
}

# ---------------------------------------------------------------- models


def capture_summary(model):
    lines = []
    model.summary(print_fn=lambda s, **kw: lines.append(s))
    return "\n".join(lines)


keras.backend.clear_session()
seq = keras.Sequential([keras.Input(shape=(4,)), L.Dense(8, activation="relu"), L.Dense(3)])
seq_unbuilt = keras.Sequential([L.Dense(8), L.Dense(3)], name="lazy")
inp = keras.Input(shape=(6, 6, 3))
h = L.Conv2D(4, 3, activation="relu")(inp)
h = L.MaxPooling2D()(h)
h = L.Flatten()(h)
h = L.Dropout(0.2)(h)
fout = L.Dense(2, name="head")(h)
func = keras.Model(inp, fout, name="convnet")
bn_seq = keras.Sequential(
    [keras.Input(shape=(5,)), L.Dense(4), L.BatchNormalization(), L.ReLU(), L.Dense(1)], name="with_bn"
)
out["summary"] = {
    "sequential": capture_summary(seq),
    "sequential_unbuilt": capture_summary(seq_unbuilt),
    "functional": capture_summary(func),
    "with_bn": capture_summary(bn_seq),
}
out["model_weights"] = {
    "sequential": [w.path for w in seq.weights],
    "functional": [w.path for w in func.weights],
    "functional_layers": [layer.name for layer in func.layers],
    "with_bn_trainable": [w.path for w in bn_seq.trainable_weights],
    "with_bn_non_trainable": [w.path for w in bn_seq.non_trainable_weights],
}
set_fixed(func, 3)
out["functional_forward"] = arr(func(x4))

# A functional model with two inputs and two outputs: layer order, summary, forward values.
keras.backend.clear_session()
a = keras.Input(shape=(4,), name="a")
b = keras.Input(shape=(2,), name="b")
ha = L.Dense(3, name="da")(a)
hb = L.Dense(3, name="db")(b)
mo = L.Dense(1, name="out")(L.LayerNormalization()(ha))
multi = keras.Model(inputs=[a, b], outputs=[mo, hb], name="two_in")
set_fixed(multi, 17)
o1, o2 = multi([xr_ := fixed((20, 4), 21), xr_[:, :2]])
out["multi_input"] = {
    "layers": [layer.name for layer in multi.layers],
    "summary": capture_summary(multi),
    "out": arr(o1),
    "hb": arr(o2),
}

# Merging layers in a functional model.
keras.backend.clear_session()
ma = keras.Input(shape=(3,))
mb = keras.Input(shape=(3,))
cat = L.concatenate([ma, mb])
md = L.Dense(2)(cat)
summed = L.Add()([ma, mb])
prod = L.Multiply()([ma, mb])
avg = L.Average()([ma, mb, summed])
sub = L.Subtract()([ma, mb])
mx = L.Maximum()([ma, mb])
mn = L.Minimum()([ma, mb])
cat0 = L.Concatenate(axis=1)([ma, summed, mb])
merge = keras.Model([ma, mb], [md, summed, prod, avg, sub, mx, mn, cat0], name="merge")
set_fixed(merge, 19)
mxa, mxb = fixed((4, 3), 1), fixed((4, 3), 2)
out["merge"] = {
    "layers": [layer.name for layer in merge.layers],
    "summary": capture_summary(merge),
    "outputs": [arr(t) for t in merge([mxa, mxb])],
    "config_keys": {"add": sorted(L.Add().get_config()), "concatenate": sorted(L.Concatenate().get_config())},
}

# fit / evaluate / predict: regression with SGD, no shuffle, fixed weights.
xr = fixed((20, 4), 21)
yr = np.stack([xr.sum(1), xr[:, 0] - xr[:, 1], np.cos(xr[:, 2])], axis=1).astype(np.float32)
set_fixed(seq, 5)
seq.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
hist = seq.fit(xr, yr, batch_size=6, epochs=3, shuffle=False, verbose=0, validation_data=(xr[:7], yr[:7]))
out["fit_regression"] = {
    "history": {k: [float(v) for v in vals] for k, vals in hist.history.items()},
    "evaluate": [float(v) for v in seq.evaluate(xr, yr, batch_size=8, verbose=0)],
    "predict": arr(seq.predict(xr[:5], verbose=0)),
    "weights": [arr(w) for w in seq.weights],
}

# The same model trained by a custom loop over tf.data batches.
keras.backend.clear_session()
seq2 = keras.Sequential([keras.Input(shape=(4,)), L.Dense(8, activation="relu"), L.Dense(3)])
set_fixed(seq2, 5)
opt = keras.optimizers.SGD(0.1)
loss_fn = keras.losses.MeanSquaredError()
loop_losses = []
for _epoch in range(3):
    for xb_, yb_ in tf.data.Dataset.from_tensor_slices((xr, yr)).batch(6):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb_, seq2(xb_, training=True))
        grads = tape.gradient(loss, seq2.trainable_variables)
        opt.apply_gradients(zip(grads, seq2.trainable_variables))
        loop_losses.append(float(loss))
out["custom_loop"] = {"losses": loop_losses, "weights": [arr(w) for w in seq2.weights]}

# Classification: sparse categorical crossentropy from logits, accuracy, a BatchNormalization model.
keras.backend.clear_session()
xc = fixed((24, 5), 31) * 2
yc = (np.argmax(fixed((24, 3), 37), axis=1)).astype(np.int32)


class BNModel(keras.Model):
    def __init__(self):
        super().__init__(name="bn_model")
        self.d1 = L.Dense(6)
        self.bn = L.BatchNormalization()
        self.drop = L.Dropout(0.0)
        self.d2 = L.Dense(3)

    def call(self, x, training=False):
        h = self.d1(x)
        h = self.bn(h, training=training)
        h = keras.activations.relu(h)
        h = self.drop(h, training=training)
        return self.d2(h)


bnm = BNModel()
bnm(xc[:2])
set_fixed(bnm, 7)
bnm.compile(
    optimizer=keras.optimizers.SGD(0.05),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
hist = bnm.fit(xc, yc, batch_size=8, epochs=2, shuffle=False, verbose=0)
out["fit_bn_classifier"] = {
    "history": {k: [float(v) for v in vals] for k, vals in hist.history.items()},
    "weight_paths": [w.path for w in bnm.weights],
    "moving_mean": arr(bnm.bn.moving_mean),
    "moving_variance": arr(bnm.bn.moving_variance),
    "evaluate": [float(v) for v in bnm.evaluate(xc, yc, verbose=0)],
    "metrics_names": bnm.metrics_names,
    "summary": capture_summary(bnm),
}
adam_model = keras.Sequential([keras.Input(shape=(5,)), L.Dense(3)], name="adam_model")
adam_model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
adam_model.fit(xc, np.ones((24, 3), np.float32), epochs=1, verbose=0)
out["summary"]["adam_trained"] = capture_summary(adam_model)


# Custom train_step, as in Keras' "customizing what happens in fit" guide.
class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


keras.backend.clear_session()
ci = keras.Input(shape=(4,))
co = L.Dense(3)(L.Dense(5, activation="tanh")(ci))
cm = CustomModel(ci, co)
set_fixed(cm, 13)
cm.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
hist = cm.fit(xr, yr, batch_size=5, epochs=2, shuffle=False, verbose=0)
out["custom_train_step"] = {"history": {k: [float(v) for v in vals] for k, vals in hist.history.items()}}


# add_loss: a layer's penalty on its inputs joins the compiled loss in fit and evaluate.
class Penalty(keras.layers.Layer):
    def call(self, x):
        self.add_loss(0.01 * tf.reduce_sum(tf.square(x)))
        return x


keras.backend.clear_session()
pm = keras.Sequential([keras.Input(shape=(4,)), L.Dense(3), Penalty()])
set_fixed(pm, 23)
pm.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
hist = pm.fit(xr, yr, batch_size=10, epochs=2, shuffle=False, verbose=0)
out["add_loss"] = {
    "history": {k: [float(v) for v in vals] for k, vals in hist.history.items()},
    "evaluate": float(pm.evaluate(xr, yr, batch_size=20, verbose=0)),
    "losses_after_call": [float(v) for v in (pm(xr[:2]), pm.losses)[1]],
}

json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
