"""tapers.Module, tapers.name_scope and checkpoints of modules, against TensorFlow's answers
(tests/data/keras_layers_reference.json, written by make_keras_layers_reference.py)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from _keras_fixtures import REF, fixed

import tapers as tf

MOD = REF["module"]


class Dense(tf.Module):
    def __init__(self, in_features: int, out_features: int, name: str | None = None) -> None:
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(fixed((in_features, out_features), 1) + 0.3, name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class MySequentialModule(tf.Module):
    def __init__(self, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)
        self.extra = {"zeta": tf.Variable(1.0, name="zeta", trainable=False), "alpha": [Dense(2, 1, name="inner")]}
        self.counter = tf.Variable(0, name="counter", trainable=False)

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        return self.dense_2(self.dense_1(x))


class MLPModule(tf.Module):
    pass


def test_variables_and_submodules_in_tensorflow_order() -> None:
    m = MySequentialModule(name="the_model")
    assert m.name == "the_model"
    assert [v.name for v in m.variables] == MOD["variables"]
    assert [v.name for v in m.trainable_variables] == MOD["trainable_variables"]
    assert [v.name for v in m.non_trainable_variables] == MOD["non_trainable_variables"]
    assert [s.name for s in m.submodules] == MOD["submodules"]
    assert isinstance(m.variables, tuple)
    np.testing.assert_allclose(m(tf.constant(fixed((2, 3), 5))).numpy(), MOD["forward"], rtol=1e-6, atol=1e-7)


def test_default_names_and_scopes() -> None:
    assert [MLPModule().name, Dense(1, 1).name] == MOD["default_names"]
    with tf.name_scope("outer"):
        scoped = Dense(2, 2)
        plain = tf.Variable(1.0, name="v")
        with tf.name_scope("inner") as inner_scope:
            nested = tf.Variable(1.0)
    assert [v.name for v in scoped.variables] == MOD["scoped_variables"]
    assert scoped.name_scope.name == MOD["scoped_name_scope"]
    assert plain.name == MOD["plain"]
    assert nested.name == MOD["nested"]
    assert inner_scope == MOD["inner_scope"]
    # Outside every scope, names are plain again.
    assert tf.Variable(1.0, name="after").name == "after:0"


def test_with_name_scope() -> None:
    class WithScope(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="with_scope")
            self.v = None

        @tf.Module.with_name_scope
        def make(self) -> tf.Variable:
            self.v = tf.Variable(1.0, name="made")
            return self.v

    assert WithScope().make().name == MOD["with_name_scope"]


def test_name_scope_rules() -> None:
    with tf.name_scope("a") as a:
        with tf.name_scope("b") as b:
            with tf.name_scope("abs/") as c:
                v = tf.Variable(1.0, name="x")
            with tf.name_scope("") as root:
                r = tf.Variable(1.0, name="r")
    assert (a, b, c, root) == ("a/", "a/b/", "abs/", "")
    assert v.name == "abs/x:0" and r.name == "r:0"
    with pytest.raises(ValueError, match="must be a string"):
        tf.name_scope(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="bad name")


def test_name_scope_is_per_thread_and_restored_after_errors() -> None:
    seen: list[str] = []
    with tf.name_scope("main"):
        t = threading.Thread(target=lambda: seen.append(tf.Variable(1.0, name="t").name))
        t.start()
        t.join()
    assert seen == ["t:0"]
    with pytest.raises(RuntimeError):
        with tf.name_scope("boom"):
            raise RuntimeError("x")
    assert tf.Variable(1.0, name="ok").name == "ok:0"


def test_module_regression_with_a_tape_matches_tensorflow() -> None:
    class Linear(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x: tf.Tensor) -> tf.Tensor:
            return self.w * x + self.b

    xs = tf.constant(fixed((64,), 3) * 4.0)
    ys = xs * 3.0 + 2.0 + tf.constant(fixed((64,), 9) * 0.2)
    lin = Linear()
    assert lin.name == "linear"
    losses = []
    for _ in range(10):
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(ys - lin(xs)))
        dw, db = t.gradient(loss, [lin.w, lin.b])
        lin.w.assign_sub(0.1 * dw)
        lin.b.assign_sub(0.1 * db)
        losses.append(float(loss))
    ref = MOD["regression"]
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-5)
    np.testing.assert_allclose([float(lin.w), float(lin.b)], [ref["w"], ref["b"]], rtol=1e-5)


def test_shared_and_cyclic_references_are_listed_once() -> None:
    a = Dense(2, 2, name="a")

    class Holder(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = a
            self.second = [a, {"again": a}]
            self.me = self  # a cycle

    h = Holder()
    assert len(h.variables) == 2
    assert h.submodules == (a,)
    assert [p for p, _ in h._flatten(predicate=lambda v: isinstance(v, tf.Variable), with_path=True)][:2] == [
        ("first", "b"),
        ("first", "w"),
    ]


def test_checkpoint_round_trip_of_a_module(tmp_path) -> None:
    m = MySequentialModule(name="m")
    opt = tf.optimizers.Adam(0.1)
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(m(tf.constant(fixed((2, 3), 5))))
    grads = t.gradient(loss, m.trainable_variables)
    opt.apply_gradients([(g, v) for g, v in zip(grads, m.trainable_variables) if g is not None])
    ckpt = tf.train.Checkpoint(model=m, optimizer=opt)
    path = ckpt.save(tmp_path / "m.safetensors")
    names = dict(tf.train.list_variables(path))
    assert names["model/dense_1/w"] == [3, 3]
    assert names["model/extra/alpha/0/b"] == [1]
    assert names["model/extra/zeta"] == []
    assert "model/counter" in names and "optimizer/iterations" in names
    assert [n for n, _ in tf.train.list_variables(path)] == sorted(names)
    np.testing.assert_array_equal(tf.train.load_variable(path, "model/dense_2/w"), m.dense_2.w.numpy())
    before = [v.numpy().copy() for v in m.variables]
    for v in m.trainable_variables:
        v.assign(tf.zeros_like(v))
    status = tf.train.Checkpoint(model=m, optimizer=opt).restore(path)
    status.assert_consumed()
    for v, b in zip(m.variables, before):
        np.testing.assert_array_equal(v.numpy(), b)
    with pytest.raises(tf.errors.NotFoundError, match="no_such"):
        tf.train.load_variable(path, "no_such")


def test_checkpoint_restore_into_a_fresh_module_and_mismatch(tmp_path) -> None:
    m = MySequentialModule(name="m")
    m.dense_1.w.assign(tf.ones([3, 3]) * 7.0)
    path = tf.train.Checkpoint(model=m).write(tmp_path / "a.safetensors")
    fresh = MySequentialModule(name="m")
    tf.train.Checkpoint(model=fresh).restore(path).assert_consumed()
    np.testing.assert_array_equal(fresh.dense_1.w.numpy(), np.full((3, 3), 7.0, np.float32))

    class Other(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.dense_1 = Dense(4, 3)

    other = Other()
    old = other.dense_1.w.numpy().copy()
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"model/dense_1/w"):
        tf.train.Checkpoint(model=other).restore(path)
    np.testing.assert_array_equal(other.dense_1.w.numpy(), old)
