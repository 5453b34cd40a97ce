"""Writes tests/data/linalg_reference.json: TensorFlow's answers for tapers.linalg.

Run under a scratch venv that has TensorFlow (never imported by the test suite):

    /work/venv-tf/bin/python tests/data/make_linalg_reference.py

Each case is a small program in TensorFlow's API (``call``, a Python expression over
the inputs), what to compare of its result (``values``: expressions over ``out``,
choosing gauge-invariant views such as ``abs(u)`` where TensorFlow's factors are
unique only up to signs), and optionally a loss whose gradient (and a second
derivative) with respect to the inputs is recorded. ``run_case`` runs one case
against a module with TensorFlow's API; tests/test_linalg.py imports it from this
file and runs the same programs with ``tapers`` in place of ``tensorflow``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).with_name("linalg_reference.json")


def normalized_message(msg: str) -> str:
    """An error message without TensorFlow's eager node prefix and ``name:`` suffix."""
    msg = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", msg)
    return re.sub(r"\s*name: [^\n]*$", "", msg).strip()


def _np(t: Any) -> Any:
    a = np.asarray(t)
    return a.astype(np.float64).tolist() if a.dtype.kind in "fc" else a.tolist()


def run_case(tf: Any, case: dict[str, Any]) -> dict[str, Any]:
    """Runs one case with ``tf`` (tensorflow or tapers); returns its values, gradients or error."""
    dtype = getattr(tf, case.get("dtype", "float64"))
    inputs = {k: tf.constant(np.array(v), dtype=dtype) for k, v in case["inputs"].items()}
    weights = {k: tf.constant(np.array(v), dtype=dtype) for k, v in case.get("weights", {}).items()}
    ns: dict[str, Any] = {"tf": tf, "np": np, **weights}
    result: dict[str, Any] = {}
    try:
        out = eval(case["call"], {**ns, **inputs})  # noqa: S307 (the cases are this file's own)
        vals = eval(case.get("values", "[out]"), {**ns, **inputs, "out": out})  # noqa: S307
        result["values"] = [_np(v) for v in vals]
    except Exception as e:  # noqa: BLE001 (the class and message are the answer)
        result["error"] = [type(e).__name__, normalized_message(str(e))]
        return result
    if "loss" not in case:
        return result
    names = case.get("wrt", list(inputs))
    xs = [inputs[k] for k in names]
    try:
        with tf.GradientTape() as outer:
            outer.watch(xs)
            with tf.GradientTape() as tape:
                tape.watch(xs)
                local = {**ns, **dict(zip(names, xs)), **{k: v for k, v in inputs.items() if k not in names}}
                out = eval(case["call"], local)  # noqa: S307
                loss = eval(case["loss"], {**local, "out": out})  # noqa: S307
            grads = tape.gradient(loss, xs)
            if case.get("second"):
                # A second derivative: the gradient of <g, sin(x)>-weighted sums of the first.
                s = tf.add_n([tf.reduce_sum(g * tf.sin(x)) for g, x in zip(grads, xs)])
        result["grads"] = [_np(g) for g in grads]
        if case.get("second"):
            result["grads2"] = [_np(g) for g in outer.gradient(s, xs)]
    except Exception as e:  # noqa: BLE001
        result["grad_error"] = [type(e).__name__, normalized_message(str(e))]
    return result


def cases() -> list[dict[str, Any]]:
    """The programs, with fixed random inputs: well-conditioned, distinct singular/eigen values."""
    rng = np.random.default_rng(20)

    def mat(*shape: int) -> list[Any]:
        return (rng.standard_normal(shape)).round(6).tolist()

    def spd(*batch: int, n: int = 3) -> list[Any]:
        a = rng.standard_normal((*batch, n, n))
        return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).round(6).tolist()

    def sym(*batch: int, n: int = 3) -> list[Any]:
        a = rng.standard_normal((*batch, n, n))
        return ((a + np.swapaxes(a, -1, -2)) / 2 + np.diag(np.arange(n) * 1.5)).round(6).tolist()

    def well(*batch: int, n: int = 3) -> list[Any]:
        return (rng.standard_normal((*batch, n, n)) + 3 * np.eye(n)).round(6).tolist()

    def lower(*batch: int, n: int = 3) -> list[Any]:
        a = np.tril(rng.standard_normal((*batch, n, n))) + 2 * np.eye(n)
        return a.round(6).tolist()

    def w(*shape: int) -> list[Any]:
        return rng.uniform(0.5, 1.5, shape).round(4).tolist()

    c: list[dict[str, Any]] = []

    def add(name: str, call: str, inputs: dict[str, Any], **kw: Any) -> None:
        c.append({"name": name, "call": call, "inputs": inputs, **kw})

    # SVD: values up to the signs of singular pairs; losses invariant to them.
    svd_vals = (
        "[out[0], tf.abs(out[1]), tf.abs(out[2]),"
        " tf.matmul(out[1][..., :, :K] * out[0][..., None, :], out[2][..., :, :K], transpose_b=True)]"
    )
    svd_loss = (
        "tf.reduce_sum(ws * out[0]) + tf.reduce_sum(wu * out[1] * out[1]) + tf.reduce_sum(wv * out[2] * out[2])"
        " + tf.reduce_sum(wp * tf.matmul(out[1][..., :, :k] * c, out[2][..., :, :k], transpose_b=True))"
    )
    for shape, full in [((4, 3), False), ((3, 4), False), ((2, 3, 3), False), ((4, 3), True), ((3, 4), True)]:
        m, n = shape[-2:]
        k = min(m, n)
        uc, vc = (m, n) if full else (k, k)
        batch = shape[:-2]
        add(
            f"svd {shape} full={full}",
            f"tf.linalg.svd(x, full_matrices={full})",
            {"x": mat(*shape)},
            values=svd_vals.replace("K", str(k)),
            loss=svd_loss.replace("[..., :, :k]", f"[..., :, :{k}]"),
            weights={
                "ws": w(*batch, k),
                "wu": w(*batch, m, uc),
                "wv": w(*batch, n, vc),
                "wp": w(*batch, m, n),
                "c": w(k),
            },
            second=True,
        )
    add(
        "svd compute_uv=False",
        "tf.linalg.svd(x, compute_uv=False)",
        {"x": mat(2, 4, 3)},
        loss="tf.reduce_sum(ws * out)",
        weights={"ws": w(2, 3)},
        second=True,
    )
    add("svd float32", "tf.linalg.svd(x)[0]", {"x": mat(3, 5)}, dtype="float32")
    add(
        "svd full 5x3 gradient refused",
        "tf.linalg.svd(x, full_matrices=True)",
        {"x": mat(5, 3)},
        values="[out[0]]",
        loss="tf.reduce_sum(out[0])",
    )
    add("svd rank 1", "tf.linalg.svd(x)", {"x": mat(3)})
    add(
        "svd repeated singular values",
        "tf.linalg.svd(x)",
        {"x": np.diag([2.0, 2.0, 1.0]).tolist()},
        values="[out[0]]",
        loss="tf.reduce_sum(out[0]) + tf.reduce_sum(tf.matmul(out[1], out[2], transpose_b=True))",
    )

    # QR: values up to the signs of r's rows (and q's columns).
    qr_loss = "tf.reduce_sum(wq * out[0] * out[0]) + tf.reduce_sum(wr * out[1] * out[1])"
    for shape, full in [((4, 3), False), ((3, 3), False), ((2, 3, 3), False), ((3, 5), False), ((3, 5), True)]:
        m, n = shape[-2:]
        k = min(m, n)
        qc, rr = (m, m) if full else (k, k)
        batch = shape[:-2]
        add(
            f"qr {shape} full={full}",
            f"tf.linalg.qr(x, full_matrices={full})",
            {"x": mat(*shape)},
            values="[tf.abs(out[0]), tf.abs(out[1]), tf.matmul(out[0], out[1])]",
            loss=qr_loss,
            weights={"wq": w(*batch, m, qc), "wr": w(*batch, rr, n)},
            second=True,
        )
    add(
        "qr full 4x3 gradient refused",
        "tf.linalg.qr(x, full_matrices=True)",
        {"x": mat(4, 3)},
        values="[tf.matmul(out[0], out[1])]",
        loss="tf.reduce_sum(out[1] * out[1])",
    )
    add("qr rank 1", "tf.linalg.qr(x)", {"x": mat(3)})

    # Cholesky.
    add(
        "cholesky",
        "tf.linalg.cholesky(x)",
        {"x": spd(2)},
        loss="tf.reduce_sum(wl * out)",
        weights={"wl": w(2, 3, 3)},
        second=True,
    )
    add("cholesky float32", "tf.linalg.cholesky(x)", {"x": spd()}, dtype="float32")
    add(
        "cholesky not positive definite",
        "tf.linalg.band_part(tf.linalg.cholesky(x), -1, 0)",
        {"x": [[1.0, 2.0], [2.0, 1.0]]},
    )
    add("cholesky not square", "tf.linalg.cholesky(x)", {"x": mat(2, 3)})
    add("cholesky rank 1", "tf.linalg.cholesky(x)", {"x": mat(3)})
    add(
        "cholesky_solve",
        "tf.linalg.cholesky_solve(tf.linalg.cholesky(a), b)",
        {"a": spd(), "b": mat(3, 2)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(3, 2)},
    )

    # Inverse, determinants.
    add(
        "inv",
        "tf.linalg.inv(x)",
        {"x": well(2)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 3, 3)},
        second=True,
    )
    add(
        "inv adjoint",
        "tf.linalg.inv(x, adjoint=True)",
        {"x": well()},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(3, 3)},
    )
    add("inv singular", "tf.linalg.inv(x)", {"x": [[1.0, 2.0], [2.0, 4.0]]})
    add("inv not square", "tf.linalg.inv(x)", {"x": mat(2, 3)})
    add("det", "tf.linalg.det(x)", {"x": well(2)}, loss="tf.reduce_sum(wo * out)", weights={"wo": w(2)}, second=True)
    add("det singular", "tf.linalg.det(x)", {"x": [[1.0, 2.0], [2.0, 4.0]]})
    add("det 2x0 not square", "tf.linalg.det(x)", {"x": np.zeros((2, 0, 0)).tolist()})
    add("det not square", "tf.linalg.det(x)", {"x": mat(2, 3)})
    add(
        "slogdet",
        "tf.linalg.slogdet(x)",
        {"x": [well(n=3)[0:3], (-np.array(well(n=3))).tolist()]},
        loss="tf.reduce_sum(wo * out[1]) + tf.reduce_sum(out[0])",
        weights={"wo": w(2)},
        second=True,
    )
    add("slogdet singular", "tf.linalg.slogdet(x)", {"x": [[1.0, 2.0], [2.0, 4.0]]})
    add("logdet", "tf.linalg.logdet(x)", {"x": spd(2)}, loss="tf.reduce_sum(wo * out)", weights={"wo": w(2)})

    # Solves.
    for adj in (False, True):
        add(
            f"solve adjoint={adj}",
            f"tf.linalg.solve(a, b, adjoint={adj})",
            {"a": well(2), "b": mat(2, 3, 2)},
            loss="tf.reduce_sum(wo * out)",
            weights={"wo": w(2, 3, 2)},
            second=True,
        )
    add("solve singular", "tf.linalg.solve(a, b)", {"a": [[1.0, 2.0], [2.0, 4.0]], "b": mat(2, 1)})
    add("solve not square", "tf.linalg.solve(a, b)", {"a": mat(2, 3), "b": mat(2, 1)})
    add("solve rows", "tf.linalg.solve(a, b)", {"a": well(), "b": mat(2, 1)})
    add("solve ranks", "tf.linalg.solve(a, b)", {"a": well(2), "b": mat(3, 1)})
    add("solve batch", "tf.linalg.solve(a, b)", {"a": well(2), "b": mat(3, 3, 1)})
    for lo in (True, False):
        for adj in (False, True):
            a = lower(2) if lo else np.swapaxes(np.array(lower(2)), -1, -2).tolist()
            add(
                f"triangular_solve lower={lo} adjoint={adj}",
                f"tf.linalg.triangular_solve(a, b, lower={lo}, adjoint={adj})",
                {
                    "a": (
                        np.array(a)
                        + np.triu(np.ones((3, 3)), 1) * 7 * (1 if lo else 0)
                        + np.tril(np.ones((3, 3)), -1) * 7 * (0 if lo else 1)
                    ).tolist(),
                    "b": mat(2, 3, 2),
                },
                loss="tf.reduce_sum(wo * out)",
                weights={"wo": w(2, 3, 2)},
                second=True,
            )
    add(
        "triangular_solve broadcast",
        "tf.linalg.triangular_solve(a, b)",
        {"a": lower(n=3), "b": mat(2, 3, 2)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 3, 2)},
    )
    add("triangular_solve not square", "tf.linalg.triangular_solve(a, b)", {"a": mat(2, 3), "b": mat(2, 1)})
    add("triangular_solve rows", "tf.linalg.triangular_solve(a, b)", {"a": lower(), "b": mat(2, 1)})
    add(
        "triangular_solve zero diagonal",
        "tf.linalg.triangular_solve(a, b)",
        {"a": [[2.0, 0.0], [1.0, 0.0]], "b": [[1.0], [1.0]]},
    )

    # Least squares.
    add(
        "lstsq tall",
        "tf.linalg.lstsq(a, b)",
        {"a": mat(5, 3), "b": mat(5, 2)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(3, 2)},
        second=True,
    )
    add(
        "lstsq wide",
        "tf.linalg.lstsq(a, b)",
        {"a": mat(2, 3, 4), "b": mat(2, 3, 2)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 4, 2)},
    )
    add(
        "lstsq l2",
        "tf.linalg.lstsq(a, b, l2_regularizer=0.5)",
        {"a": mat(4, 3), "b": mat(4, 1)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(3, 1)},
    )
    add(
        "lstsq fast=False",
        "tf.linalg.lstsq(a, b, fast=False)",
        {"a": mat(5, 3), "b": mat(5, 2)},
        loss="tf.reduce_sum(out)",
    )
    add(
        "lstsq fast=False rank deficient",
        "tf.linalg.lstsq(a, b, l2_regularizer=1.0, fast=False)",
        {"a": [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], "b": [[1.0], [1.0], [2.0]]},
    )

    # Symmetric eigen: values up to eigenvector signs.
    eig_loss = (
        "tf.reduce_sum(we * out[0]) + tf.reduce_sum(wv * out[1] * out[1])"
        " + tf.reduce_sum(wp * tf.matmul(out[1] * c, out[1], transpose_b=True))"
    )
    add(
        "eigh",
        "tf.linalg.eigh(x)",
        {"x": sym(2)},
        values="[out[0], tf.abs(out[1])]",
        loss=eig_loss,
        weights={"we": w(2, 3), "wv": w(2, 3, 3), "wp": w(2, 3, 3), "c": w(3)},
        second=True,
    )
    add(
        "eigh reads the lower triangle",
        "tf.linalg.eigh(x)",
        {"x": (np.tril(np.array(sym())) + np.triu(np.ones((3, 3)), 1) * 5).tolist()},
        values="[out[0], tf.abs(out[1])]",
        loss=eig_loss,
        weights={"we": w(3), "wv": w(3, 3), "wp": w(3, 3), "c": w(3)},
    )
    add(
        "eigvalsh",
        "tf.linalg.eigvalsh(x)",
        {"x": sym(2)},
        loss="tf.reduce_sum(we * out)",
        weights={"we": w(2, 3)},
        second=True,
    )
    add(
        "eigh repeated eigenvalues",
        "tf.linalg.eigh(x)",
        {"x": np.diag([1.0, 1.0, 2.0]).tolist()},
        values="[out[0]]",
        loss="tf.reduce_sum(out[0]) + tf.reduce_sum(tf.matmul(out[1], out[1], transpose_b=True))",
    )
    add("eigh not square", "tf.linalg.eigh(x)", {"x": mat(2, 3)})
    add("eigh float32", "tf.linalg.eigvalsh(x)", {"x": sym()}, dtype="float32")

    # Pseudo-inverse.
    add(
        "pinv",
        "tf.linalg.pinv(x)",
        {"x": mat(2, 4, 3)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 3, 4)},
        second=True,
    )
    add("pinv rank deficient", "tf.linalg.pinv(x)", {"x": [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]})
    add("pinv rcond", "tf.linalg.pinv(x, rcond=0.5)", {"x": np.diag([4.0, 1.0, 3.0]).tolist()})
    add("pinv rank 1", "tf.linalg.pinv(x)", {"x": mat(3)})

    # Matrix helpers.
    add("diag", "tf.linalg.diag(x)", {"x": mat(2, 3)}, loss="tf.reduce_sum(wo * out)", weights={"wo": w(2, 3, 3)})
    add("diag scalar", "tf.linalg.diag(x)", {"x": 1.0})
    add(
        "diag_part",
        "tf.linalg.diag_part(x)",
        {"x": mat(2, 3, 4)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 3)},
    )
    add("diag_part rank 1", "tf.linalg.diag_part(x)", {"x": mat(3)})
    for lo, up in [(-1, 0), (0, -1), (1, 0), (0, 0), (1, 2), (-1, -1)]:
        add(
            f"band_part {lo} {up}",
            f"tf.linalg.band_part(x, {lo}, {up})",
            {"x": mat(2, 3, 4)},
            loss="tf.reduce_sum(wo * out)",
            weights={"wo": w(2, 3, 4)},
        )
    add("band_part too many", "tf.linalg.band_part(x, 4, 0)", {"x": mat(3, 4)})
    add("band_part nan outside", "tf.linalg.band_part(x, 0, 0)", {"x": [[1.0, float("nan")], [float("inf"), 2.0]]})
    add(
        "matrix_transpose",
        "tf.linalg.matrix_transpose(x)",
        {"x": mat(2, 3, 4)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 4, 3)},
    )
    add("adjoint", "tf.linalg.adjoint(x)", {"x": mat(3, 2)})
    add("matrix_transpose rank 1", "tf.linalg.matrix_transpose(x)", {"x": mat(3)})
    add(
        "matvec",
        "tf.linalg.matvec(a, b)",
        {"a": mat(2, 3, 4), "b": mat(4)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 3)},
    )
    add(
        "matvec transpose_a",
        "tf.linalg.matvec(a, b, transpose_a=True)",
        {"a": mat(3, 4), "b": mat(2, 3)},
        loss="tf.reduce_sum(wo * out)",
        weights={"wo": w(2, 4)},
    )
    add("matvec mismatch", "tf.linalg.matvec(a, b)", {"a": mat(3, 4), "b": mat(3)})
    add(
        "normalize",
        "tf.linalg.normalize(x)",
        {"x": mat(2, 3)},
        values="list(out)",
        loss="tf.reduce_sum(wo * out[0]) + out[1][0, 0]",
        weights={"wo": w(2, 3)},
    )
    add(
        "normalize ord=1 axis=1",
        "tf.linalg.normalize(x, ord=1, axis=1)",
        {"x": mat(2, 3)},
        values="list(out)",
        loss="tf.reduce_sum(wo * out[0])",
        weights={"wo": w(2, 3)},
    )
    add("normalize bad ord", "tf.linalg.normalize(x, ord=-1)", {"x": mat(2, 3)})
    add("global_norm", "tf.linalg.global_norm([a, None, b])", {"a": mat(2, 3), "b": mat(4)}, loss="out")
    add("global_norm not a list", "tf.linalg.global_norm(a)", {"a": mat(2, 3)})
    add("trace", "tf.linalg.trace(x)", {"x": mat(2, 3, 3)}, loss="tf.reduce_sum(out)")
    return c


def main() -> None:
    """Runs every case under TensorFlow and writes the fixture."""
    import tensorflow as tf

    out = []
    for case in cases():
        out.append({**case, "tf": run_case(tf, case)})
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "cases": out}, indent=None) + "\n")
    print(f"wrote {len(out)} cases to {OUT}")


if __name__ == "__main__":
    main()
