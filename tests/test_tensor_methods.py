"""Tensor/Variable methods written in Python (get_shape, set_shape, ref, device, the Variable scatter family),
tf.TensorArray, partially known TensorShapes and small top-level names, against TensorFlow 2.21
(tests/data/make_tensor_methods_reference.py)."""

import json
import pathlib

import numpy as np
import pytest

import tapers as tf

REF = json.loads((pathlib.Path(__file__).parent / "data" / "tensor_methods_reference.json").read_text())


def _err(fn):
    with pytest.raises(Exception) as e:
        fn()
    return [type(e.value).__name__, str(e.value).split(" [Op:")[0]]


def test_shape_ref_and_device():
    t = tf.ones([2, 3])
    assert t.get_shape() == REF["get_shape"] and t.get_shape() is not None
    t.set_shape([None, 3])
    t.set_shape([2, 3])
    assert _err(lambda: t.set_shape([2, 4])) == REF["set_shape_error"]
    assert _err(lambda: tf.Variable([1.0, 2.0]).set_shape([3])) == REF["variable_set_shape_error"]
    assert t.device == tf.Variable(1.0).device == REF["device"]
    r = t.ref()
    assert r.deref() is t and r == t.ref() and hash(r) == hash(t.experimental_ref())
    assert r != tf.ones([2, 3]).ref()
    v = tf.Variable(2.0)
    assert {v.ref(): "v"}[v.ref()] == "v"
    with pytest.raises(TypeError):
        hash(t)  # tensors themselves stay unhashable, as in TensorFlow


@pytest.mark.parametrize(
    "method",
    ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max", "scatter_min"],
)
def test_variable_sparse_scatters_match_tensorflow(method):
    ref = REF["scatter"]
    case = ref["sparse"][method]
    v = tf.Variable(np.array(ref["base"], "float32"))
    out = getattr(v, method)(tf.IndexedSlices(tf.constant(ref["values"]), tf.constant(case["indices"])))
    assert out is v
    np.testing.assert_allclose(v.numpy(), case["result"], rtol=1e-6)


@pytest.mark.parametrize("method", ["scatter_nd_update", "scatter_nd_add", "scatter_nd_sub"])
def test_variable_nd_scatters_match_tensorflow(method):
    ref = REF["scatter"]
    v = tf.Variable(np.array(ref["base"], "float32"))
    if method == "scatter_nd_update":
        getattr(v, method)([[0, 1], [2, 0]], [5.0, 6.0])
    else:
        getattr(v, method)([[0, 1], [2, 0], [0, 1]], [5.0, 6.0, 7.0])
    np.testing.assert_allclose(v.numpy(), ref["nd"][method])
    w = tf.Variable(np.array(ref["base"], "float32"))
    np.testing.assert_allclose(w.sparse_read([3, 0]).numpy(), ref["sparse_read"])
    np.testing.assert_allclose(w.gather_nd([[1, 1], [0, 0]]).numpy(), ref["gather_nd"])


def test_scatter_errors_are_tensorflows_and_leave_the_variable():
    ref, ops = REF["scatter_errors"], REF["scatter_errors_ops"]
    base = np.array(REF["scatter"]["base"], "float32")
    vals = np.array(REF["scatter"]["values"], "float32")
    v = tf.Variable(base)
    cases = {
        "update_oob": lambda: v.scatter_update(tf.IndexedSlices(tf.constant(vals[:2]), tf.constant([1, 9]))),
        "mul_negative": lambda: v.scatter_mul(tf.IndexedSlices(tf.constant(vals[:1]), tf.constant([-1]))),
        "add_oob": lambda: v.scatter_add(tf.IndexedSlices(tf.constant(vals[:1]), tf.constant([4]))),
    }
    for key, fn in cases.items():
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            fn()
        assert [type(e.value).__name__, str(e.value).split(" [Op:")[0]] == ref[key], key
        assert f"[Op:{ops[key]}]" in str(e.value)
    assert v.numpy().tobytes() == base.tobytes()


def test_scatter_errors_leave_the_variable_and_trace_once():
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="9"):
        v.scatter_update(tf.IndexedSlices(tf.constant([1.0]), tf.constant([9])))
    with pytest.raises(tf.errors.InvalidArgumentError):
        v.scatter_mul(tf.IndexedSlices(tf.constant([2.0]), tf.constant([-1])))
    with pytest.raises(TypeError, match="IndexedSlices"):
        v.scatter_add(tf.constant([1.0]))
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]

    @tf.function
    def step(ids, vals):
        v.scatter_add(tf.IndexedSlices(vals, ids))
        return v.read_value()

    step(tf.constant([0, 2]), tf.constant([1.0, 1.0]))
    step(tf.constant([1, 1]), tf.constant([5.0, 5.0]))
    assert v.numpy().tolist() == [2.0, 12.0, 4.0]
    # An out-of-range index at replay: TF's message, nothing written, no retrace.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
        step(tf.constant([0, 3]), tf.constant([1.0, 1.0]))
    assert v.numpy().tolist() == [2.0, 12.0, 4.0]
    assert step.experimental_get_tracing_count() == 1


def test_scatter_is_an_assign_for_the_tape():
    # As TensorFlow: the assign has no gradient to the values written; reads after it see the variable.
    v = tf.Variable([1.0, 2.0, 3.0])
    u = tf.Variable([4.0, 5.0])
    with tf.GradientTape() as tape:
        v.scatter_update(tf.IndexedSlices(u * 2.0, tf.constant([0, 2])))
        y = tf.reduce_sum(v * tf.constant([1.0, 10.0, 100.0]))
    gu, gv = tape.gradient(y, [u, v])
    assert gu is None
    np.testing.assert_allclose(gv.numpy(), [1.0, 10.0, 100.0])


def test_tensor_array_matches_tensorflow():
    ref = REF["tensor_array"]
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0])
    ta = ta.write(2, [5.0, 6.0])
    assert ta.stack().numpy().tolist() == ref["stack"]
    assert int(ta.size()) == ref["size"] and ta.size().dtype == tf.int32
    assert ta.element_shape == ref["element_shape"]
    assert ta.read(1).numpy().tolist() == ref["read_unwritten"]
    assert _err(lambda: ta.write(3, [1.0, 1.0])) == ref["write_oob"]
    assert _err(lambda: ta.write(1, [1.0, 1.0, 1.0])) == ref["write_bad_shape"]
    d = tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(4, 7)
    assert (int(d.size()), d.stack().numpy().tolist()) == (ref["dynamic"]["size"], ref["dynamic"]["stack"])
    u = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert int(u.size()) == ref["unstack"]["size"]
    assert u.gather([2, 0]).numpy().tolist() == ref["unstack"]["gather"]
    assert u.concat().numpy().tolist() == ref["unstack"]["concat"]
    assert tf.TensorArray(tf.float32, size=4).scatter([3, 1], [[1.0], [2.0]]).stack().numpy().tolist() == ref["scatter"]
    assert list(tf.TensorArray(tf.float32, size=0).stack().shape) == ref["empty_shape"]
    assert list(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack().shape) == ref["empty_with_shape"]
    sp = tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 2])
    assert sp.read(1).numpy().tolist() == ref["split_read1"]


def test_tensor_array_gradient_and_function():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        a = tf.TensorArray(tf.float32, size=2)
        a = a.write(0, x * 2.0)
        a = a.write(1, x * x)
        y = tf.reduce_sum(a.stack() * tf.constant([[1.0], [3.0]]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), REF["tensor_array"]["grad"])

    @tf.function
    def cumulative(xs):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        total = tf.constant(0.0)
        for i in range(4):
            total = total + xs[i]
            ta = ta.write(i, total)
        return ta.stack()

    a = cumulative(tf.constant([1.0, 2.0, 3.0, 4.0]))
    b = cumulative(tf.constant([0.5, 0.5, 0.5, 0.5]))
    assert a.numpy().tolist() == [1.0, 3.0, 6.0, 10.0] and b.numpy().tolist() == [0.5, 1.0, 1.5, 2.0]
    assert cumulative.experimental_get_tracing_count() == 1


def test_tensor_array_errors():
    with pytest.raises(ValueError, match="not fully defined"):
        tf.TensorArray(tf.float32, size=2).read(0)
    with pytest.raises(tf.errors.OutOfRangeError, match="Tried to read from index 5"):
        tf.TensorArray(tf.float32, size=2).read(5)
    with pytest.raises(ValueError, match="do not sum"):
        tf.TensorArray(tf.float32, size=2).split([1.0, 2.0], [2, 2])
    with pytest.raises(ValueError, match="rank >= 1"):
        tf.TensorArray(tf.float32, size=2).unstack(1.0)
    with pytest.raises(ValueError, match="non-negative"):
        tf.TensorArray(tf.float32, size=-1)


def test_partially_known_tensor_shapes():
    a = tf.TensorShape([None, 3])
    assert str(a) == "(None, 3)" and repr(a) == "TensorShape([None, 3])"
    assert a.is_compatible_with([2, None]) and not a.is_compatible_with([2, 4]) and not a.is_compatible_with([3])
    assert a.merge_with([2, None]) == [2, 3] and a.concatenate([4]) == [None, 3, 4]
    assert not a.is_fully_defined() and a.num_elements() is None
    with pytest.raises(ValueError, match=r"Shapes \(None, 3\) and \(2, 4\) are not compatible"):
        a.merge_with([2, 4])
    with pytest.raises(ValueError, match="no unknown rank"):
        tf.TensorShape(None)


def test_small_top_level_names():
    assert tf.type_spec_from_value(tf.ones([2, 3], tf.int32)) == tf.TensorSpec([2, 3], tf.int32)
    np.testing.assert_allclose(tf.constant_initializer(3.0)((2,)).numpy(), REF["constant_initializer"])
    assert tf.zeros_initializer()((2,), tf.float32).numpy().tolist() == [0.0, 0.0]
    assert tf.ones_initializer()((1,)).numpy().tolist() == [1.0]
    assert tf.random_normal_initializer(seed=1)((3,)).shape == (3,)
    assert tf.random_uniform_initializer(-1.0, 1.0, seed=1)((3,)).shape == (3,)
    enums = REF["enums"]
    assert [m.name for m in tf.VariableAggregation] == enums["agg"]
    assert [m.value for m in tf.VariableAggregation] == enums["agg_values"]
    assert [m.name for m in tf.VariableSynchronization] == enums["sync"]
    assert [m.value for m in tf.VariableSynchronization] == enums["sync_values"]
    v = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN, synchronization=tf.VariableSynchronization.AUTO)
    assert float(v) == 1.0
    assert tf.AggregationMethod.DEFAULT == tf.AggregationMethod.ADD_N
    assert tf.guarantee_const(tf.constant(2.0)).numpy() == 2.0
    assert tf.losses.MeanSquaredError is tf.keras.losses.MeanSquaredError
    assert tf.metrics.Mean is tf.keras.metrics.Mean and tf.initializers.Zeros is tf.keras.initializers.Zeros
    assert not tf.is_symbolic_tensor(tf.ones([1]))
    assert not tf.inside_function()

    @tf.function
    def f(x):
        return x + (1.0 if tf.inside_function() else 100.0)

    assert float(f(tf.constant(1.0))) == 2.0
