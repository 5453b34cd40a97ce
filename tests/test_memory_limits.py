"""Requests for more memory than the machine can back raise ``ResourceExhaustedError`` before touching any.

The allocator reserves address space without committing memory, so a 64 GiB ``tf.ones`` used to pass the
reservation probe and then be killed by the kernel's OOM killer while being filled. Each case runs in a
subprocess (a failure would kill the process), once as it is and once under an address-space limit
(``RLIMIT_AS``); the subprocess also checks that requests within the limit still work.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import resource, sys
    limit = int(sys.argv[1])
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import tapers as tf

    def raises(f):
        try:
            f()
        except tf.errors.ResourceExhaustedError as e:
            assert isinstance(e, MemoryError)
            return str(e)
        raise AssertionError("no ResourceExhaustedError")

    print(raises(lambda: tf.ones((1 << 34,))))
    print(raises(lambda: tf.ones((1 << 40,))))
    print(raises(lambda: tf.zeros((1 << 20, 1 << 20)) + 1.0))
    print(raises(lambda: tf.random.normal((1 << 35,))))
    if limit:
        # Beyond the address-space limit but well within physical memory.
        print(raises(lambda: tf.ones((limit // 4 + (1 << 24),))))
    # What fits still works, and the process is intact afterwards.
    x = tf.ones((1 << 24,))
    assert float(tf.reduce_sum(x)) == float(1 << 24)
    print("ok")
    """
)


@pytest.mark.parametrize("limit", [0, 3 << 30], ids=["no_limit", "rlimit_as_3GiB"])
def test_unbackable_requests_raise_resource_exhausted(limit: int) -> None:
    env = dict(os.environ)
    env["RAYON_NUM_THREADS"] = "1"
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(limit)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().splitlines()
    assert lines[-1] == "ok"
    assert all(line.startswith("OOM when allocating tensor with shape") for line in lines[:-1]), lines
