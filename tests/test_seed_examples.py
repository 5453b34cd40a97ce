"""The three seed programs, run as written, print exactly what TensorFlow prints
(module name aside). `tests/test_wheel.py` runs the same programs against the
built wheel in a fresh virtual environment."""

import subprocess
import sys
import textwrap

import pytest

SEEDS = {
    "gradient_of_square": (
        """
        import tapers as tf

        x = tf.constant(3.0)

        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x

        res = tape.gradient(y, x)
        print(res)
        """,
        "tapers.Tensor(6.0, shape=(), dtype=float32)\n",
    ),
    "two_sources": (
        """
        import tapers as tf

        x = tf.constant(2.0)
        y = tf.constant(4.0)

        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = x * x + y * y

        res = tape.gradient(z, [x, y])
        print(res)
        """,
        "[<tapers.Tensor: shape=(), dtype=float32, numpy=4.0>, <tapers.Tensor: shape=(), dtype=float32, numpy=8.0>]\n",
    ),
    "persistent_tape": (
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
        """,
        "tapers.Tensor(6.0, shape=(), dtype=float32)\n" * 2,
    ),
}


def run(src: str, python: str = sys.executable, cwd: str | None = None) -> str:
    return subprocess.run(
        [python, "-c", textwrap.dedent(src)], capture_output=True, text=True, check=True, cwd=cwd
    ).stdout


@pytest.mark.parametrize("name", list(SEEDS))
def test_seed_example(name):
    src, expected = SEEDS[name]
    assert run(src) == expected
