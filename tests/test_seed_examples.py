"""The three seed programs, run as written, print exactly what TensorFlow prints
(module name aside)."""

import subprocess
import sys
import textwrap


def run(src: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(src)], capture_output=True, text=True, check=True
    ).stdout


def test_example_1_gradient_of_square():
    out = run(
        """
        import tapers as tf

        x = tf.constant(3.0)

        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x

        res = tape.gradient(y, x)
        print(res)
        """
    )
    assert out == "tapers.Tensor(6.0, shape=(), dtype=float32)\n"


def test_example_2_two_sources():
    out = run(
        """
        import tapers as tf

        x = tf.constant(2.0)
        y = tf.constant(4.0)

        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = x * x + y * y

        res = tape.gradient(z, [x, y])
        print(res)
        """
    )
    assert out == (
        "[<tapers.Tensor: shape=(), dtype=float32, numpy=4.0>, <tapers.Tensor: shape=(), dtype=float32, numpy=8.0>]\n"
    )


def test_example_3_persistent_tape():
    out = run(
        """
        import tapers as tf

        x = tf.constant(3.0)

        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x

        res1 = tape.gradient(y, x)
        res2 = tape.gradient(y, x)
        print(res1)
        print(res2)
        del tape
        """
    )
    assert out == "tapers.Tensor(6.0, shape=(), dtype=float32)\n" * 2
