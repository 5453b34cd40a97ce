# Generates keras_optimizer_trajectories.json with TensorFlow 2.21 / Keras 3 (not run by the tests):
#   python tests/data/make_keras_reference.py > tests/data/keras_optimizer_trajectories.json
import json
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import keras
import numpy as np
import tensorflow as tf

np.set_printoptions(precision=9)
cfgs = {
    "sgd": lambda: keras.optimizers.SGD(0.1),
    "sgd_momentum": lambda: keras.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: keras.optimizers.Adam(0.1),
    "adam_amsgrad": lambda: keras.optimizers.Adam(0.1, amsgrad=True),
    "adamw": lambda: keras.optimizers.AdamW(0.1, weight_decay=0.05),
    "rmsprop": lambda: keras.optimizers.RMSprop(0.1),
    "rmsprop_centered_momentum": lambda: keras.optimizers.RMSprop(0.05, momentum=0.5, centered=True),
    "sgd_exp_decay": lambda: keras.optimizers.SGD(keras.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5)),
    "adam_cosine": lambda: keras.optimizers.Adam(keras.optimizers.schedules.CosineDecay(0.1, 8, alpha=0.1)),
    "sgd_clipnorm": lambda: keras.optimizers.SGD(0.1, clipnorm=1.0),
    "sgd_global_clipnorm": lambda: keras.optimizers.SGD(0.1, global_clipnorm=1.0),
    "sgd_clipvalue": lambda: keras.optimizers.SGD(0.1, clipvalue=0.5),
}
c = tf.constant([1.0, 2.0, 3.0])
out = {}
for name, mk in cfgs.items():
    opt = mk()
    v = tf.Variable([1.0, -2.0, 3.0])
    w = tf.Variable([[0.5, -0.25]])
    traj = []
    for _ in range(10):
        with tf.GradientTape() as t:
            loss = tf.reduce_sum(v * v * c) + tf.reduce_sum(tf.sin(w) * 3)
        gv, gw = t.gradient(loss, [v, w])
        opt.apply_gradients(zip([gv, gw], [v, w]))
        traj.append(v.numpy().tolist() + w.numpy().ravel().tolist())
    out[name] = traj
print(json.dumps(out))
