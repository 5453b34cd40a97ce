"""Complex linear algebra programs run under TensorFlow (by make_complex_linalg_reference.py) and
tapers (by tests/test_complex_linalg.py): the same code, with ``tf`` either module.

Each case maps named complex input matrices to a list of outputs; a real loss
``sum_k real(sum(h_k(out_k) * conj(W_k)))`` is differentiated with respect to every input, where ``h_k`` is
the identity for outputs with a unique value and ``|x|^2`` for outputs defined only up to a phase per
column or row (eigenvectors, singular vectors, QR factors), so the loss and its gradient do not depend on
which phase a library picks. Outputs are compared directly ("plain") or by modulus ("abs2")."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

# name -> (input names, forward(tf, *inputs) -> outputs, mode per output)
Forward = Callable[..., list[Any]]


def _hermitian_pd(rng: np.random.Generator, n: int, batch: tuple[int, ...] = ()) -> np.ndarray:
    x = rng.standard_normal(batch + (n, n)) + 1j * rng.standard_normal(batch + (n, n))
    return x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)


def _general(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape) + 2.0 * np.eye(shape[-2], shape[-1])


def _hermitian(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
    return x + np.conj(x.T)


def inputs() -> dict[str, np.ndarray]:
    """The input matrices (complex128; cast to complex64 for the complex64 cases)."""
    rng = np.random.default_rng(20)
    return {
        "sq": _general(rng, (3, 3)),
        "sq_batch": _general(rng, (2, 3, 3)),
        "rhs": rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)),
        "rhs_batch": rng.standard_normal((2, 3, 2)) + 1j * rng.standard_normal((2, 3, 2)),
        "hpd": _hermitian_pd(rng, 3),
        "hpd_batch": _hermitian_pd(rng, 3, (2,)),
        "herm": _hermitian(rng, 3),
        "tall": _general(rng, (4, 3)),
        "wide": _general(rng, (3, 4)),
        "rhs4": rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2)),
        # Zeros on the diagonal: TF's substitution divides by them (C99 complex division: 1 / 0 is
        # inf + nan i).
        "zeros": np.zeros((2, 2), np.complex128),
        "ones": np.ones((2, 1), np.complex128),
    }


def _cases(tf: Any) -> dict[str, tuple[list[str], Forward, list[str]]]:
    la = tf.linalg
    return {
        "det": (["sq"], lambda a: [la.det(a)], ["plain"]),
        "det_batch": (["sq_batch"], lambda a: [la.det(a)], ["plain"]),
        "inv": (["sq"], lambda a: [la.inv(a)], ["plain"]),
        "inv_adjoint": (["sq_batch"], lambda a: [la.inv(a, adjoint=True)], ["plain"]),
        "solve": (["sq", "rhs"], lambda a, b: [la.solve(a, b)], ["plain"]),
        "solve_adjoint": (["sq_batch", "rhs_batch"], lambda a, b: [la.solve(a, b, adjoint=True)], ["plain"]),
        "triangular_solve_lower": (["sq", "rhs"], lambda a, b: [la.triangular_solve(a, b)], ["plain"]),
        "triangular_solve_lower_adjoint": (
            ["sq", "rhs"],
            lambda a, b: [la.triangular_solve(a, b, adjoint=True)],
            ["plain"],
        ),
        "triangular_solve_upper": (
            ["sq_batch", "rhs_batch"],
            lambda a, b: [la.triangular_solve(a, b, lower=False)],
            ["plain"],
        ),
        "triangular_solve_upper_adjoint": (
            ["sq", "rhs"],
            lambda a, b: [la.triangular_solve(a, b, lower=False, adjoint=True)],
            ["plain"],
        ),
        "triangular_solve_singular": (["zeros", "ones"], lambda a, b: [la.triangular_solve(a, b)], ["plain"]),
        "slogdet": (["sq_batch"], lambda a: list(la.slogdet(a)), ["plain", "plain"]),
        "logdet": (["hpd"], lambda a: [la.logdet(a)], ["plain"]),
        "cholesky": (["hpd"], lambda a: [la.cholesky(a)], ["plain"]),
        "cholesky_batch": (["hpd_batch"], lambda a: [la.cholesky(a)], ["plain"]),
        "eigh": (["herm"], lambda a: list(la.eigh(a)), ["plain", "abs2"]),
        "eigvalsh": (["hpd_batch"], lambda a: [la.eigvalsh(a)], ["plain"]),
        "qr_square": (["sq"], lambda a: list(la.qr(a)), ["abs2", "abs2"]),
        "qr_tall": (["tall"], lambda a: list(la.qr(a)), ["abs2", "abs2"]),
        "qr_wide": (["wide"], lambda a: list(la.qr(a)), ["abs2", "abs2"]),
        "qr_batch_full": (["sq_batch"], lambda a: list(la.qr(a, full_matrices=True)), ["abs2", "abs2"]),
        "svd_values": (["tall"], lambda a: [la.svd(a, compute_uv=False)], ["plain"]),
        "svd_square": (["sq"], lambda a: list(la.svd(a)), ["plain", "abs2", "abs2"]),
        "svd_tall": (["tall"], lambda a: list(la.svd(a)), ["plain", "abs2", "abs2"]),
        "svd_wide": (["wide"], lambda a: list(la.svd(a)), ["plain", "abs2", "abs2"]),
        "svd_wide_full": (["wide"], lambda a: list(la.svd(a, full_matrices=True)), ["plain", "abs2", "abs2"]),
        "svd_batch": (["sq_batch"], lambda a: list(la.svd(a)), ["plain", "abs2", "abs2"]),
        "lstsq_fast": (["tall", "rhs4"], lambda a, b: [la.lstsq(a, b)], ["plain"]),
        "lstsq_fast_l2": (["tall", "rhs4"], lambda a, b: [la.lstsq(a, b, l2_regularizer=0.5)], ["plain"]),
        "lstsq_min_norm": (["tall", "rhs4"], lambda a, b: [la.lstsq(a, b, fast=False)], ["plain"]),
    }


NAMES = list(_cases(type("Unused", (), {"linalg": None})).keys())
# Cases whose gradient TF refuses (lstsq with fast=False) or is not finite (a singular triangular
# solve): only values are compared.
NO_GRADIENT = {"lstsq_min_norm", "triangular_solve_singular"}
DTYPES = ["complex64", "complex128"]


def case(tf: Any, name: str) -> tuple[list[str], Forward, list[str]]:
    """The case ``name`` written with the module ``tf``."""
    return _cases(tf)[name]


def weights(shape: tuple[int, ...], is_complex: bool, seed: int) -> np.ndarray:
    """The loss weights ``W`` for an output of ``shape`` (deterministic per seed)."""
    rng = np.random.default_rng(1000 + seed)
    w = rng.standard_normal(shape)
    return w + 1j * rng.standard_normal(shape) if is_complex else w


def loss(tf: Any, outs: list[Any], modes: list[str], ws: list[np.ndarray]) -> Any:
    """``sum_k real(sum(h_k(out_k) * conj(W_k)))`` (``h_k``: identity or ``|x|^2`` by ``modes``)."""
    total = None
    for o, mode, w in zip(outs, modes, ws):
        if mode == "abs2":
            o = tf.math.real(o * tf.math.conj(o))
            w = np.real(w) if np.iscomplexobj(w) else w
        wt = tf.cast(tf.constant(np.conj(w)), o.dtype)
        term = tf.math.real(tf.reduce_sum(o * wt))
        total = term if total is None else total + term
    return total


# Error cases: (description, thunk(tf) raising) -> TF's exception class name is recorded.
def errors(tf: Any) -> dict[str, Callable[[], Any]]:
    """Bad inputs on complex dtypes, each raising TF's class."""
    c64 = tf.complex64
    z = tf.zeros([2, 2], c64)
    ones = tf.ones([2, 1], c64)
    rect = tf.ones([2, 3], c64)

    def svd_full_grad() -> Any:
        a = tf.constant(np.ones((2, 5)) + 0j + np.eye(2, 5))
        with tf.GradientTape() as t:
            t.watch(a)
            s, u, v = tf.linalg.svd(a, full_matrices=True)
            y = tf.math.real(tf.reduce_sum(u * tf.math.conj(u))) + tf.math.real(tf.reduce_sum(v))
        return t.gradient(y, a)

    def qr_full_grad() -> Any:
        a = tf.constant(np.ones((4, 2)) + 0j + np.eye(4, 2))
        with tf.GradientTape() as t:
            t.watch(a)
            q, r = tf.linalg.qr(a, full_matrices=True)
            y = tf.math.real(tf.reduce_sum(r))
        return t.gradient(y, a)

    def lstsq_grad() -> Any:
        a = tf.constant(np.eye(3, 2) + 0j)
        b = tf.constant(np.ones((3, 1)) + 0j)
        with tf.GradientTape() as t:
            t.watch(a)
            y = tf.math.real(tf.reduce_sum(tf.linalg.lstsq(a, b, fast=False)))
        return t.gradient(y, a)

    return {
        "inv_singular": lambda: tf.linalg.inv(z),
        "solve_singular": lambda: tf.linalg.solve(z, ones),
        "det_not_square": lambda: tf.linalg.det(rect),
        "inv_not_square": lambda: tf.linalg.inv(rect),
        "cholesky_not_square": lambda: tf.linalg.cholesky(rect),
        "eigh_not_square": lambda: tf.linalg.eigh(rect),
        "slogdet_not_square": lambda: tf.linalg.slogdet(rect),
        "solve_mixed_dtypes": lambda: tf.linalg.solve(tf.eye(2, dtype=c64), tf.ones([2, 1], tf.complex128)),
        "solve_incompatible": lambda: tf.linalg.solve(tf.eye(2, dtype=c64), tf.ones([3, 1], c64)),
        "triangular_solve_not_square": lambda: tf.linalg.triangular_solve(rect, ones),
        "pinv_complex": lambda: tf.linalg.pinv(tf.eye(2, dtype=c64)),
        "svd_full_matrices_gradient": svd_full_grad,
        "qr_full_matrices_deep_gradient": qr_full_grad,
        "lstsq_min_norm_gradient": lstsq_grad,
    }
