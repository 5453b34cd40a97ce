# Generates data_reference.json with TensorFlow 2.21 (not run by the tests):
#   /work/venv-tf/bin/python tests/data/make_data_reference.py > tests/data/data_reference.json
#
# Each program below is TensorFlow code, run here with `tf` = tensorflow and by
# tests/test_data.py / tests/test_small_api.py with `tf` = tapers, unchanged. For each
# program the fixture keeps its source, what it printed (stdout and stderr, captured at the
# file-descriptor level because tf.print writes from C++), the exception it raised (class
# name and message) if any, and the value of a variable `result` if it set one (nested
# lists of numbers, compared with a tolerance). The tests replace `tf.` with `tapers.` in
# TensorFlow's text before comparing.
import json
import os
import sys
import tempfile

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.get_logger().setLevel("ERROR")
tf.autograph.set_verbosity(0)

PROGRAMS: dict[str, str] = {}


def program(name: str, source: str) -> None:
    PROGRAMS[name] = source.strip("\n") + "\n"


# ---------------------------------------------------------------- tf.data
program(
    "slices_ints",
    """
ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
print(ds)
for e in ds:
    print(e)
print(len(ds), ds.cardinality())
print(list(ds.as_numpy_iterator()))
""",
)
program(
    "slices_tuple_batch",
    """
x = np.arange(12, dtype=np.float32).reshape(6, 2)
y = np.array([0, 1, 0, 1, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((x, y))
print(ds.element_spec)
for a, b in ds.take(2):
    print(a, b)
b = ds.batch(4)
print(b)
for xb, yb in b:
    print(xb.shape, yb.numpy())
d = ds.batch(4, drop_remainder=True)
print(d.element_spec, d.cardinality().numpy(), b.cardinality().numpy(), len(d))
""",
)
program(
    "slices_dict",
    """
ds = tf.data.Dataset.from_tensor_slices({"a": np.arange(4), "b": np.ones((4, 2), np.float32)})
print(ds)
for e in ds.batch(3):
    print(e)
for e in ds.take(1):
    print(sorted(e.keys()), e["a"].dtype, e["b"].shape)
""",
)
program(
    "slices_nested_spec",
    """
ds = tf.data.Dataset.from_tensor_slices(((np.zeros((3, 2)), np.ones(3)), {"k": [1, 2, 3]}))
print(ds.element_spec)
print(ds.batch(2).element_spec)
print(ds.batch(2, drop_remainder=True).element_spec)
for (a, b), d in ds.take(1):
    print(a, b, d)
""",
)
program(
    "slices_float_list",
    """
ds = tf.data.Dataset.from_tensor_slices([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
print(ds)
print(list(ds.as_numpy_iterator()))
print(tf.data.Dataset.from_tensor_slices(tf.constant([True, False])).element_spec)
""",
)
program(
    "from_tensors",
    """
ds = tf.data.Dataset.from_tensors([[1, 2], [3, 4]])
print(ds, ds.cardinality())
print(list(ds.as_numpy_iterator()))
ds = tf.data.Dataset.from_tensors((1.5, {"x": [1, 2]}))
print(ds.element_spec)
for e in ds:
    print(e)
""",
)
program(
    "range",
    """
print(tf.data.Dataset.range(5))
print(list(tf.data.Dataset.range(5).as_numpy_iterator()))
print(list(tf.data.Dataset.range(2, 10, 3).as_numpy_iterator()))
print(list(tf.data.Dataset.range(5, 0, -2).as_numpy_iterator()))
print(list(tf.data.Dataset.range(0).as_numpy_iterator()), tf.data.Dataset.range(0).cardinality().numpy())
print(tf.data.Dataset.range(3, output_type=tf.int32))
print(tf.data.Dataset.range(2, 10, 3).cardinality().numpy(), tf.data.Dataset.range(5, 0, -2).cardinality().numpy())
""",
)
program(
    "zip",
    """
a = tf.data.Dataset.range(3)
b = tf.data.Dataset.range(3, 6)
c = tf.data.Dataset.range(6, 8)
ds = tf.data.Dataset.zip((a, b))
print(ds)
print(list(ds.as_numpy_iterator()))
print(list(tf.data.Dataset.zip((a, (b, c))).as_numpy_iterator()))
print(tf.data.Dataset.zip((a, (b, c))).cardinality().numpy())
print(list(tf.data.Dataset.zip(a, b).as_numpy_iterator()))
z = tf.data.Dataset.zip({"x": a, "y": c})
print(z.element_spec)
for e in z:
    print(e["x"].numpy(), e["y"].numpy())
print(tf.data.Dataset.zip((a, b.repeat())).cardinality().numpy())
print(tf.data.Dataset.zip((a.repeat(), b.repeat())).cardinality().numpy())
print(tf.data.Dataset.zip((a.filter(lambda v: v > 0), b)).cardinality().numpy())
""",
)
program(
    "map",
    """
ds = tf.data.Dataset.range(5).map(lambda x: x * 2)
print(ds)
print(list(ds.as_numpy_iterator()))
x = np.arange(6, dtype=np.float32).reshape(3, 2)
y = np.array([1, 2, 3], np.int32)
pairs = tf.data.Dataset.from_tensor_slices((x, y)).map(lambda a, b: (a * 2.0, b + 1))
print(pairs)
print(list(pairs.as_numpy_iterator()))
d = tf.data.Dataset.from_tensor_slices({"a": y, "b": y * 10}).map(lambda e: e["a"] + e["b"])
print(list(d.as_numpy_iterator()))
d = tf.data.Dataset.range(3).map(lambda v: {"v": v, "sq": v * v})
print(d.element_spec)
print(list(d.as_numpy_iterator()))
p = tf.data.Dataset.range(20).map(lambda v: v * v, num_parallel_calls=4)
print(p)
print(list(p.as_numpy_iterator()))
q = tf.data.Dataset.range(10).map(lambda v: v + 1, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
print(list(q.as_numpy_iterator()), q.cardinality().numpy())
m = tf.data.Dataset.range(6).batch(2).map(lambda v: tf.cast(v, tf.float32) / 2.0)
print(m)
print(list(m.as_numpy_iterator()))
s = tf.data.Dataset.range(3).map(lambda v: (v, tf.cast(v, tf.float64) * 1.5))
print(s.element_spec)
""",
)
program(
    "filter",
    """
ds = tf.data.Dataset.range(10).filter(lambda x: x % 2 == 0)
print(ds)
print(list(ds.as_numpy_iterator()), ds.cardinality().numpy())
pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [5, 6, 7, 8])).filter(lambda a, b: a + b > 9)
print(list(pairs.as_numpy_iterator()))
print(tf.data.Dataset.range(3).repeat().filter(lambda x: x > 0).cardinality().numpy())
""",
)
program(
    "repeat_take_skip",
    """
ds = tf.data.Dataset.range(3)
r = ds.repeat(2)
print(r, list(r.as_numpy_iterator()), r.cardinality().numpy())
print(ds.repeat().cardinality().numpy(), ds.repeat(-1).cardinality().numpy(), ds.repeat(0).cardinality().numpy())
t = ds.repeat().take(7)
print(t, list(t.as_numpy_iterator()), t.cardinality().numpy())
print(list(ds.take(-1).as_numpy_iterator()), ds.take(-1).cardinality().numpy(), ds.take(10).cardinality().numpy())
print(list(ds.take(0).as_numpy_iterator()), ds.take(0).cardinality().numpy())
s = tf.data.Dataset.range(10).skip(7)
print(s, list(s.as_numpy_iterator()), s.cardinality().numpy())
print(ds.skip(20).cardinality().numpy(), list(ds.skip(-1).as_numpy_iterator()), ds.skip(-1).cardinality().numpy())
print(ds.repeat().skip(2).cardinality().numpy(), ds.filter(lambda x: x > 0).take(2).cardinality().numpy())
print(ds.filter(lambda x: x > 0).repeat(2).cardinality().numpy(), ds.take(2).repeat(3).cardinality().numpy())
""",
)
program(
    "shard",
    """
ds = tf.data.Dataset.range(10)
for i in range(3):
    s = ds.shard(3, i)
    print(list(s.as_numpy_iterator()), s.cardinality().numpy())
print(ds.shard(3, 1))
print(ds.repeat().shard(2, 0).cardinality().numpy())
""",
)
program(
    "enumerate",
    """
ds = tf.data.Dataset.from_tensor_slices([10, 20, 30]).enumerate(start=5)
print(ds)
print(list(ds.as_numpy_iterator()))
for i, v in tf.data.Dataset.from_tensor_slices([1.5, 2.5]).enumerate():
    print(i, v)
print(ds.cardinality().numpy())
""",
)
program(
    "batch_unbatch",
    """
ds = tf.data.Dataset.range(7).batch(3)
print(ds)
print(list(ds.as_numpy_iterator()), ds.cardinality().numpy())
d = tf.data.Dataset.range(7).batch(3, drop_remainder=True)
print(d, list(d.as_numpy_iterator()), d.cardinality().numpy())
u = ds.unbatch()
print(u, list(u.as_numpy_iterator()), u.cardinality().numpy())
u2 = d.unbatch()
print(u2.cardinality().numpy())
m = tf.data.Dataset.from_tensors(np.arange(6, dtype=np.float32).reshape(3, 2)).unbatch()
print(m, list(m.as_numpy_iterator()))
p = tf.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4) * 2)).batch(3)
print(list(p.as_numpy_iterator()))
print(list(p.unbatch().as_numpy_iterator()))
print(tf.data.Dataset.range(3).repeat().batch(2).cardinality().numpy())
print(tf.data.Dataset.range(6).batch(2).batch(2).element_spec)
""",
)
program(
    "cache_prefetch",
    """
ds = tf.data.Dataset.range(5).map(lambda x: x + 1).cache()
print(ds)
print(list(ds.as_numpy_iterator()))
print(list(ds.as_numpy_iterator()), ds.cardinality().numpy())
p = tf.data.Dataset.range(5).prefetch(2)
print(p, list(p.as_numpy_iterator()), p.cardinality().numpy())
a = tf.data.Dataset.range(5).prefetch(tf.data.AUTOTUNE)
print(list(a.as_numpy_iterator()))
""",
)
program(
    "shuffle",
    """
ds = tf.data.Dataset.range(10).shuffle(10, seed=1)
print(ds)
print(sorted(ds.as_numpy_iterator()), ds.cardinality().numpy())
s = tf.data.Dataset.range(10).shuffle(3, seed=2, reshuffle_each_iteration=False)
print(sorted(s.as_numpy_iterator()), s.cardinality().numpy())
b = tf.data.Dataset.range(10).shuffle(100).batch(4)
print(b.element_spec, b.cardinality().numpy())
""",
)
program(
    "constants",
    """
print(tf.data.AUTOTUNE, tf.data.experimental.AUTOTUNE)
print(tf.data.experimental.INFINITE_CARDINALITY, tf.data.experimental.UNKNOWN_CARDINALITY)
print(tf.data.experimental.cardinality(tf.data.Dataset.range(4)))
""",
)
program(
    "pipeline",
    """
x = np.linspace(-1, 1, 20, dtype=np.float32).reshape(10, 2)
y = (x[:, 0] > 0).astype(np.int32)
ds = tf.data.Dataset.from_tensor_slices((x, y))
ds = ds.map(lambda a, b: (a * 2.0, b), num_parallel_calls=tf.data.AUTOTUNE).batch(4).prefetch(tf.data.AUTOTUNE)
print(ds)
for epoch in range(2):
    for xb, yb in ds:
        print(epoch, xb.numpy().tolist(), yb.numpy().tolist())
total = 0
for xb, yb in ds:
    total += int(tf.reduce_sum(yb))
print(total)
""",
)
program(
    "train_linear",
    """
x = np.linspace(0.0, 1.0, 32, dtype=np.float32)[:, None]
y = 3.0 * x + 1.0
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(32, seed=0)
ds = ds.map(lambda a, b: (a, b + 0.0), num_parallel_calls=tf.data.AUTOTUNE).batch(32).prefetch(tf.data.AUTOTUNE)
w = tf.Variable([[0.0]])
b = tf.Variable([0.0])
for epoch in range(60):
    for xb, yb in ds:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((xb @ w + b - yb) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
print(ds)
print(round(float(w[0, 0]), 2), round(float(b[0]), 2))
result = {"w": w.numpy(), "b": b.numpy(), "loss": loss}
""",
)
program(
    "from_generator",
    """
def gen():
    for i in range(4):
        yield np.full([i % 2 + 1], i, np.float32), i


sig = (tf.TensorSpec(shape=(None,), dtype=tf.float32), tf.TensorSpec(shape=(), dtype=tf.int32))
ds = tf.data.Dataset.from_generator(gen, output_signature=sig)
print(ds)
print(list(ds.as_numpy_iterator()), ds.cardinality().numpy())
print(list(ds.as_numpy_iterator())[-1])
g = tf.data.Dataset.from_generator(lambda n: range(n), output_types=tf.int64, output_shapes=(), args=(3,))
print(g.element_spec, list(g.as_numpy_iterator()))
h = tf.data.Dataset.from_generator(lambda: iter([{"a": 1.5}, {"a": 2.5}]), output_types={"a": tf.float64})
print(h.element_spec, list(h.as_numpy_iterator()))
print(list(tf.data.Dataset.from_generator(gen, output_signature=sig).map(lambda a, b: b * 2).as_numpy_iterator()))
""",
)
program(
    "err_from_generator_shape",
    """
ds = tf.data.Dataset.from_generator(lambda: iter([[1.0, 2.0, 3.0]]),
                                    output_signature=tf.TensorSpec(shape=(2,), dtype=tf.float32))
list(ds)
""",
)
program(
    "concatenate",
    """
a = tf.data.Dataset.range(1, 4)
b = tf.data.Dataset.range(4, 8)
c = a.concatenate(b)
print(c, list(c.as_numpy_iterator()), c.cardinality().numpy())
print(a.concatenate(b.repeat()).cardinality().numpy(), a.filter(lambda x: x > 1).concatenate(b).cardinality().numpy())
x = tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), np.float32)).batch(2, drop_remainder=True)
y = tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), np.float32)).batch(3, drop_remainder=True)
print(x.concatenate(y).element_spec)
""",
)
program("err_concatenate_dtype", "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensor_slices([1.0]))")
program(
    "flat_map_interleave",
    """
ds = tf.data.Dataset.range(1, 4).flat_map(lambda n: tf.data.Dataset.range(n).map(lambda i: i * 10 + n))
print(ds, list(ds.as_numpy_iterator()), ds.cardinality().numpy())
f = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(tf.data.Dataset.from_tensor_slices)
print(f, list(f.as_numpy_iterator()))
src = tf.data.Dataset.range(1, 6)
for cycle, block in [(2, 1), (2, 2), (3, 1), (1, 3)]:
    it = src.interleave(lambda n: tf.data.Dataset.from_tensors(n).repeat(n), cycle_length=cycle, block_length=block)
    print(cycle, block, list(it.as_numpy_iterator()))
p = src.interleave(lambda n: tf.data.Dataset.range(n), cycle_length=2, num_parallel_calls=2)
print(p, p.cardinality().numpy(), list(p.as_numpy_iterator()))
""",
)
program(
    "take_while_single",
    """
t = tf.data.Dataset.range(10).take_while(lambda x: x < 4)
print(t, list(t.as_numpy_iterator()), t.cardinality().numpy())
print(tf.data.Dataset.from_tensors((1, 2.5)).get_single_element())
print(tf.data.Dataset.range(5).batch(5).get_single_element())
""",
)
program("err_single_empty", "tf.data.Dataset.range(0).get_single_element()")
program("err_single_many", "tf.data.Dataset.range(2).get_single_element()")
program(
    "padded_batch",
    """
ds = tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([n], n))
p = ds.padded_batch(2)
print(p)
for b in p:
    print(b.numpy().tolist())
q = ds.padded_batch(2, padded_shapes=[6], padding_values=tf.constant(-1, tf.int64), drop_remainder=True)
print(q.element_spec, q.cardinality().numpy(), [b.numpy().tolist() for b in q])
pairs = tf.data.Dataset.range(1, 4).map(lambda n: (tf.fill([n], n), tf.fill([2, n], 1.5)))
r = pairs.padded_batch(3)
print(r.element_spec)
for a, b in r:
    print(a.numpy().tolist(), b.numpy().tolist())
s = pairs.padded_batch(2, padded_shapes=([None], [2, 4]), padding_values=(tf.constant(0, tf.int64), 9.0))
print(s.element_spec, [(a.numpy().tolist(), b.numpy().tolist()) for a, b in s])
""",
)
program(
    "err_padded_batch_small",
    """
list(tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n)).padded_batch(2, [1]))
""",
)
program(
    "options",
    """
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
options.deterministic = False
ds = tf.data.Dataset.range(4).with_options(options)
print(ds, list(ds.as_numpy_iterator()), ds.cardinality().numpy())
o = ds.map(lambda x: x + 1).options()
print(o.deterministic, o.experimental_distribute.auto_shard_policy, o.threading.private_threadpool_size)
more = tf.data.Options()
more.threading.private_threadpool_size = 4
more.deterministic = True
m = ds.batch(2).with_options(more).options()
print(m.deterministic, m.threading.private_threadpool_size, m.experimental_distribute.auto_shard_policy)
print(tf.data.Options() == tf.data.Options(), o == tf.data.Options(), int(tf.data.experimental.AutoShardPolicy.OFF))
z = tf.data.Dataset.zip((ds, tf.data.Dataset.range(2).with_options(more)))
print(z.options().threading.private_threadpool_size, z.options().experimental_distribute.auto_shard_policy)
""",
)
program("err_options_unknown", "tf.data.Options().no_such_option = 1")
program("err_options_type", "tf.data.Options().deterministic = 1")
program("err_options_frozen", "tf.data.Dataset.range(2).options().deterministic = True")
program(
    "window",
    """
ds = tf.data.Dataset.range(7)
w = ds.window(3)
print(w)
print([list(x.as_numpy_iterator()) for x in w], w.cardinality().numpy())
cases = [(3, 1, 1, True), (3, 2, 2, False), (2, 4, 1, False), (3, 2, 1, True), (4, 1, 2, True)]
for size, shift, stride, drop in cases:
    v = ds.window(size, shift, stride, drop)
    print(size, shift, stride, drop, [list(x.as_numpy_iterator()) for x in v], v.cardinality().numpy())
b = ds.window(4, shift=2, drop_remainder=True).flat_map(lambda x: x.batch(4))
print(b, list(b.as_numpy_iterator()))
pairs = tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 1.5)).window(2)
print(pairs.element_spec)
for a, c in pairs.take(1):
    print(a, list(a.as_numpy_iterator()), list(c.as_numpy_iterator()))
z = pairs.flat_map(lambda a, c: tf.data.Dataset.zip((a.batch(2), c.batch(2))))
print(list(z.as_numpy_iterator()))
print(ds.repeat().window(3).take(2).cardinality().numpy())
""",
)
program("err_window_size", "tf.data.Dataset.range(3).window(0)")
program(
    "iter_next",
    """
it = iter(tf.data.Dataset.range(2))
print(next(it))
print(next(it))
try:
    next(it)
except StopIteration:
    print("stop")
print(next(iter(tf.data.Dataset.from_tensor_slices(np.eye(2)))))
print(next(tf.data.Dataset.range(3).as_numpy_iterator()))
""",
)
program("err_len_infinite", "len(tf.data.Dataset.range(3).repeat())")
program("err_len_unknown", "len(tf.data.Dataset.range(3).filter(lambda x: x > 0))")
program("err_shard_index", "tf.data.Dataset.range(3).shard(2, 2)")
program("err_slices_mismatch", "tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))")
program("err_slices_scalar", "tf.data.Dataset.from_tensor_slices(1)")
program("err_batch_zero", "list(tf.data.Dataset.range(3).batch(0))")
program("err_filter_not_bool", "list(tf.data.Dataset.range(3).filter(lambda x: x))")
program("err_zip_not_dataset", "tf.data.Dataset.zip((tf.data.Dataset.range(2), [1, 2]))")
program("err_shard_zero", "tf.data.Dataset.range(3).shard(0, 0)")

# ---------------------------------------------------------------- small APIs
program(
    "tensor_spec",
    """
s = tf.TensorSpec(shape=(None, 2), dtype=tf.float32, name="x")
print(s)
print(repr(s), s.shape, s.dtype, s.name)
print(s.is_compatible_with(tf.constant([[1.0, 2.0]])), s.is_compatible_with(tf.constant([1.0, 2.0])))
print(s.is_compatible_with(tf.constant([[1, 2]])), s.is_compatible_with(tf.TensorSpec((3, 2), tf.float32)))
print(s == tf.TensorSpec((None, 2), tf.float32, name="x"), s == tf.TensorSpec((None, 2), tf.float32))
print(tf.TensorSpec([]), tf.TensorSpec(None, tf.int64))
print(tf.TensorSpec(None, tf.int64).is_compatible_with(tf.constant([[1]], dtype=tf.int64)))
print(tf.TensorSpec.from_tensor(tf.constant([1, 2])))
print(tf.TensorSpec([2, 3], "float64").shape.as_list(), tf.TensorSpec([None]).shape.rank)
print(tf.TensorSpec(None).shape.rank, tf.TensorSpec((1, None)).shape.is_fully_defined())
""",
)
program(
    "device",
    """
with tf.device("CPU:0"):
    x = tf.constant(1.0) + 1
print(x)
for name in ["/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0", "/cpu:0", "cpu:0", "/CPU:0", None, ""]:
    with tf.device(name):
        pass
with tf.device("GPU:0"):
    print("gpu", tf.constant(2.0) * 2)
print(tf.config.list_physical_devices())
print(tf.config.list_physical_devices("GPU"), tf.config.list_logical_devices("GPU"))
print(tf.config.list_physical_devices("CPU"), tf.config.list_logical_devices())
d = tf.config.list_physical_devices("CPU")[0]
print(d.name, d.device_type)
""",
)
program("err_device_unknown", 'tf.device("foo").__enter__()')
program("err_device_bad_type", 'tf.device("/device:XYZ:0").__enter__()')
program("err_device_int", "tf.device(3).__enter__()")
program(
    "tf_print",
    """
tf.print(tf.constant([1, 2, 3]), output_stream=sys.stdout)
tf.print("loss:", tf.constant(0.5), "step", 3, output_stream=sys.stdout)
tf.print(tf.range(10), output_stream=sys.stdout)
tf.print(tf.reshape(tf.range(20), (4, 5)), output_stream=sys.stdout)
tf.print(tf.reshape(tf.range(8), (2, 2, 2)), output_stream=sys.stdout)
tf.print(tf.range(10), summarize=-1, output_stream=sys.stdout)
tf.print(tf.range(10), summarize=2, output_stream=sys.stdout)
tf.print("a", "b", sep=",", end="!\\n", output_stream=sys.stdout)
tf.print({"a": tf.constant(1.5), "b": [1, 2]}, output_stream=sys.stdout)
tf.print(tf.constant([1.5, 2.25]), tf.constant(True), output_stream=sys.stdout)
tf.print(tf.Variable([1.0, 2.0]), output_stream=sys.stdout)
tf.print(tf.constant([[1.0]], dtype=tf.float64), output_stream=sys.stdout)
tf.print(tf.zeros((0,)), output_stream=sys.stdout)
tf.print(tf.reshape(tf.range(100), (10, 10)), output_stream=sys.stdout)
tf.print(tf.reshape(tf.range(56), (7, 2, 4)), summarize=1, output_stream=sys.stdout)
tf.print(tf.reshape(tf.range(6.0), (2, 3)) / 4, output_stream=sys.stdout)
tf.print(tf.constant(0.1), tf.constant(1.0), tf.constant(-2.5e-8), tf.constant(123456789.0), output_stream=sys.stdout)
tf.print(tf.constant([0.1, 1e-8, 123456789.0, 1.0 / 3.0]), output_stream=sys.stdout)
tf.print(tf.constant([1.0 / 3.0], tf.float64), tf.constant(1e20, tf.float64), output_stream=sys.stdout)
tf.print(tf.constant([True, False]), tf.constant([-1, 7], tf.int64), output_stream=sys.stdout)
tf.print(tf.constant(float("nan")), tf.constant(float("inf")), tf.constant(-float("inf")), output_stream=sys.stdout)
tf.print(1.5, [1, tf.constant(2)], (3, "x"), None, output_stream=sys.stdout)
tf.print()
tf.print("to stderr", tf.constant([4, 5]))
""",
)
program(
    "map_fn",
    """
print(tf.map_fn(lambda x: x * x, tf.constant([1.0, 2.0, 3.0])))
print(tf.map_fn(lambda x: tf.reduce_sum(x), tf.constant([[1, 2], [3, 4]])))
a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
print(tf.map_fn(lambda t: t[0] * t[1], (a, b), fn_output_signature=tf.float32))
print(tf.map_fn(lambda x: (x, -x), tf.constant([1, 2]), fn_output_signature=(tf.int32, tf.int32)))
print(tf.map_fn(lambda x: tf.cast(x, tf.float64), tf.constant([1, 2]), fn_output_signature=tf.float64))
print(tf.map_fn(lambda x: {"a": x * 2}, tf.constant([1, 2]), fn_output_signature={"a": tf.int32}))
d = {"p": tf.constant([1, 2]), "q": tf.constant([10, 20])}
print(tf.map_fn(lambda d: d["p"] + d["q"], d, fn_output_signature=tf.int32))
print(tf.map_fn(lambda x: x, np.array([1.5, 2.5])))
print(tf.map_fn(lambda x: x[::-1], tf.reshape(tf.range(6), (3, 2))))
print(tf.map_fn(lambda x: x, tf.zeros((0, 2))))
spec = tf.TensorSpec([2], tf.float32)
print(tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([[1, 2]]), fn_output_signature=spec))
print(tf.map_fn(lambda x: x, tf.zeros((0, 2)), fn_output_signature=spec))
x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.reduce_sum(tf.map_fn(lambda v: v ** 3, x))
print(t.gradient(y, x))
w = tf.Variable(2.0)
with tf.GradientTape() as t:
    y = tf.reduce_sum(tf.map_fn(lambda v: v * w, x))
print(t.gradient(y, w))
""",
)
program("err_map_fn_dtype", "tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2]))")
program("err_map_fn_scalar", "tf.map_fn(lambda x: x, tf.constant(1.0))")
program(
    "vectorized_map",
    """
print(tf.vectorized_map(lambda x: x * 2, tf.constant([[1, 2], [3, 4]])))
w = tf.constant([[1.0], [2.0]])
print(tf.vectorized_map(lambda x: tf.linalg.matmul(x[None], w)[0], tf.constant([[1.0, 1.0], [2.0, 3.0]])))
print(tf.vectorized_map(lambda t: t[0] + t[1], (tf.constant([1, 2]), tf.constant([10, 20]))))
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.reduce_sum(tf.vectorized_map(lambda r: tf.reduce_sum(r * r), x))
print(t.gradient(y, x))
""",
)
program(
    "meshgrid",
    """
x = tf.constant([1, 2, 3])
y = tf.constant([4, 5])
X, Y = tf.meshgrid(x, y)
print(X)
print(Y)
X, Y = tf.meshgrid(x, y, indexing="ij")
print(X)
print(Y)
a, b, c = tf.meshgrid(tf.range(2), tf.range(3), tf.range(4))
print(a.shape, b.shape, c.shape)
a, b, c = tf.meshgrid(tf.range(2), tf.range(3), tf.range(4), indexing="ij")
print(a.shape, b.shape, c.shape)
print(tf.meshgrid(tf.constant([1.5, 2.5])))
print(tf.meshgrid())
xf = tf.constant([1.0, 2.0, 3.0])
yf = tf.constant([4.0, 5.0])
with tf.GradientTape(persistent=True) as t:
    t.watch([xf, yf])
    X, Y = tf.meshgrid(xf, yf)
    z = tf.reduce_sum(X * Y * Y)
print(t.gradient(z, [xf, yf]))
print(t.gradient(X, xf), t.gradient(Y, yf))
xs = np.linspace(-1.0, 1.0, 3)
print(tf.meshgrid(xs, xs[:2])[0])
""",
)
program("err_meshgrid_indexing", "tf.meshgrid(tf.constant([1]), indexing='foo')")
program(
    "fwd_basic",
    """
x = tf.constant(2.0)
v = tf.constant(1.0)
with tf.autodiff.ForwardAccumulator(x, v) as acc:
    y = x ** 3
    z = tf.sin(x) * x
print(acc.jvp(y), acc.jvp(z))
print(acc.jvp(x), acc.jvp(tf.constant(5.0)))
print(acc.jvp(tf.constant(5.0), unconnected_gradients=tf.UnconnectedGradients.ZERO))
print(acc.jvp(tf.constant([5.0, 6.0]), unconnected_gradients="zero"))
result = {"y": acc.jvp(y), "z": acc.jvp(z)}
""",
)
program(
    "fwd_vector",
    """
x = tf.constant([1.0, 2.0, 3.0])
v = tf.constant([1.0, 0.0, -1.0])
with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
    y = tf.reduce_sum(tf.square(x) * tf.exp(x * 0.1))
    w = tf.linalg.matmul(tf.reshape(x, (1, 3)), tf.ones((3, 2)))
    s = tf.nn.softmax(x)
result = {"y": acc.jvp(y), "w": acc.jvp(w), "s": acc.jvp(s)}
a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
b = tf.constant(0.5)
with tf.autodiff.ForwardAccumulator([a, b], [tf.ones((2, 2)), tf.constant(2.0)]) as acc:
    out = tf.reduce_sum(tf.tanh(a * b))
result["multi"] = acc.jvp(out)
print([None if j is None else round(float(j), 4) for j in acc.jvp([out, a * 2.0])])
""",
)
program(
    "fwd_variables",
    """
layer_w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
layer_b = tf.Variable([0.5, -0.5])
x = tf.constant([[1.0, -1.0]])
tangents = [tf.ones_like(layer_w), tf.constant([1.0, 2.0])]
with tf.autodiff.ForwardAccumulator([layer_w, layer_b], tangents) as acc:
    loss = tf.reduce_sum(tf.nn.relu(x @ layer_w + layer_b) ** 2)
result = {"loss_jvp": acc.jvp(loss)}
print(acc.jvp(loss))
""",
)
program(
    "fwd_jvp_of_gradient",
    """
primal = tf.constant(1.1)
tangent = tf.constant(1.0)
with tf.autodiff.ForwardAccumulator(primal, tangent) as acc:
    with tf.GradientTape() as tape:
        tape.watch(primal)
        primal_out = primal ** tf.constant(3.5)
    backward = tape.gradient(primal_out, primal)
result = {"second": acc.jvp(backward)}
x = tf.constant([1.0, 2.0])
v = tf.constant([1.0, 0.5])
with tf.autodiff.ForwardAccumulator(x, v) as acc:
    with tf.GradientTape() as tape:
        tape.watch(x)
        f = tf.reduce_sum(x ** 3) + x[0] * x[1]
    g = tape.gradient(f, x)
result["hvp"] = acc.jvp(g)
""",
)
program(
    "fwd_gradient_of_jvp",
    """
primal = tf.constant(1.1)
tangent = tf.constant(1.0)
with tf.GradientTape() as tape:
    tape.watch(primal)
    with tf.autodiff.ForwardAccumulator(primal, tangent) as acc:
        primal_out = primal ** tf.constant(3.5)
    jvp = acc.jvp(primal_out)
result = {"second": tape.gradient(jvp, primal), "jvp": jvp}
w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    with tf.autodiff.ForwardAccumulator(w, tf.constant([1.0, -1.0])) as acc:
        out = tf.reduce_sum(tf.sin(w) * w)
    j = acc.jvp(out)
result["var"] = tape.gradient(j, w)
""",
)
program(
    "fwd_forward_over_forward",
    """
x = tf.constant(3.0)
with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as outer:
    with tf.autodiff.ForwardAccumulator(x, tf.constant(2.0)) as inner:
        y = x ** 3 + tf.sin(x)
    j = inner.jvp(y)
result = {"inner": j, "outer": outer.jvp(j), "y": outer.jvp(y)}
""",
)
program(
    "copy_pickle",
    """
import copy
import pickle
t = tf.constant([1.0, 2.0])
print(copy.copy(t) is t, copy.deepcopy(t) is t)
v = tf.Variable([1.0, 2.0], name="w", trainable=False)
print(copy.copy(v) is v)
d = copy.deepcopy(v)
print(d is v, d.name, d.trainable, d.numpy())
d.assign([5.0, 6.0])
print(v.numpy(), d.numpy())
t2 = pickle.loads(pickle.dumps(t))
print(t2, t2 is t)
s = pickle.loads(pickle.dumps(tf.constant(3, dtype=tf.int64)))
print(s)
v2 = pickle.loads(pickle.dumps(v))
print(v2.name, v2.trainable, v2.numpy(), v2.dtype)
c = copy.deepcopy({"t": t, "v": v, "l": [t, v]})
print(c["t"] is t, c["v"] is v, c["l"][0] is t, c["l"][1] is c["v"])
print(copy.deepcopy(tf.TensorSpec((None, 3), tf.int32, "s")))
print(pickle.loads(pickle.dumps(tf.TensorSpec((None, 3), tf.int32, "s"))))
""",
)


def _capture(fd: int):
    saved = os.dup(fd)
    tmp = tempfile.TemporaryFile(mode="w+b")
    os.dup2(tmp.fileno(), fd)
    return saved, tmp


def _release(fd: int, saved: int, tmp) -> str:
    os.dup2(saved, fd)
    os.close(saved)
    tmp.seek(0)
    return tmp.read().decode()


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if x is None:
        return None
    return np.asarray(x).tolist()


def run(source: str) -> dict:
    ns = {"tf": tf, "np": np, "sys": sys}
    sys.stdout.flush()
    sys.stderr.flush()
    out_saved, out_tmp = _capture(1)
    err_saved, err_tmp = _capture(2)
    error = None
    try:
        exec(compile(source, "<program>", "exec"), ns)
    except Exception as e:  # noqa: BLE001 - the fixture records whatever TF raises
        error = [type(e).__name__, str(e)]
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        stdout = _release(1, out_saved, out_tmp)
        stderr = _release(2, err_saved, err_tmp)
    rec = {"source": source, "stdout": stdout, "stderr": stderr, "error": error}
    if "result" in ns:
        rec["result"] = _jsonable(ns["result"])
    return rec


if __name__ == "__main__":
    out = {"tensorflow": tf.__version__, "numpy": np.__version__, "programs": {}}
    for name, source in PROGRAMS.items():
        out["programs"][name] = run(source)
    print(json.dumps(out, indent=1))
