//! Differentiable linear algebra: decompositions (Cholesky, QR, symmetric
//! eigen, SVD), solves, inverses and determinants, batched over leading
//! dims, in float32, float64, complex64 and complex128 (TensorFlow's complex
//! gradient convention: the rules below put conjugates where its
//! `linalg_grad.py` does, `adjoint` meaning the conjugate transpose).
//!
//! The factorizations run in faer (`kernels::decomp`); each op is described
//! once here with its gradient rule, ported from TensorFlow's
//! `linalg_grad.py` and written with the public ops (so an outer tape records
//! it). The band, diagonal and transpose helpers TensorFlow's rules use are
//! compositions of `where_`/`transpose`, as are the ops TensorFlow itself
//! composes (`pinv`, `logdet`, `lstsq` with `fast=True`).

use super::{args, describe_attr_op, record, rule};
use crate::dims::{tuple_string, ShapeDisplay};
use crate::dtype::{c128, c64, DType};
use crate::error::{Error, Result};
use crate::kernels::decomp::{self as kd, Failure};
use crate::op::Op;
use crate::ops;
use crate::tensor::Tensor;

/// Runs `$body` with `$T` bound to the element type of a float or complex
/// tensor; other dtypes are TensorFlow's "not in the list of allowed
/// values".
macro_rules! by_float {
    ($op:expr, $x:expr, |$T:ident| $body:expr) => {
        match $x.dtype() {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            DType::C64 => {
                type $T = c64;
                $body
            }
            DType::C128 => {
                type $T = c128;
                $body
            }
            d => {
                return Err(Error::UnsupportedDType {
                    op: $op,
                    dtype: d,
                    allowed: "double, float, complex64, complex128",
                })
            }
        }
    };
}

/// `(batch shape, batch count, rows, cols)` of a tensor of matrices, or
/// TensorFlow's rank error.
fn matrices(op: &str, x: &Tensor) -> Result<(Vec<usize>, usize, usize, usize)> {
    let r = x.rank();
    if r < 2 {
        return Err(Error::invalid(format!(
            "Input tensor 0 must have rank >= 2, got {r} [Op:{op}]"
        )));
    }
    let s = x.shape();
    Ok((
        s[..r - 2].to_vec(),
        s[..r - 2].iter().product(),
        s[r - 2],
        s[r - 1],
    ))
}

/// [`matrices`] of square matrices: `(batch shape, batch count, n)`.
fn square(op: &str, x: &Tensor) -> Result<(Vec<usize>, usize, usize)> {
    let (bs, b, m, n) = matrices(op, x)?;
    if m != n {
        return Err(Error::invalid(format!(
            "Input matrix must be square. [Op:{op}]"
        )));
    }
    Ok((bs, b, n))
}

fn shape_with(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    batch.iter().chain(tail).copied().collect()
}

fn failed(op: &str, f: Failure, singular: &str) -> Error {
    match f {
        Failure::Singular => Error::invalid(format!("{singular} [Op:{op}]")),
        Failure::NoConvergence => Error::invalid(format!(
            "{op} decomposition was not successful. The input might not be valid. [Op:{op}]"
        )),
    }
}

fn scalar(dtype: DType, v: f64) -> Tensor {
    Tensor::scalar_of(dtype, v)
}

fn mm(a: &Tensor, b: &Tensor, ta: bool, tb: bool) -> Result<Tensor> {
    ops::matmul_with(
        a,
        b,
        ops::MatmulOptions {
            transpose_a: ta,
            transpose_b: tb,
        },
    )
}

/// `mm` with `adjoint_a`/`adjoint_b` (TensorFlow's `matmul` flags): the
/// conjugate transposes, the transposes for real dtypes.
fn mma(a: &Tensor, b: &Tensor, adj_a: bool, adj_b: bool) -> Result<Tensor> {
    let a = if adj_a { ops::conj(a)? } else { a.clone() };
    let b = if adj_b { ops::conj(b)? } else { b.clone() };
    mm(&a, &b, adj_a, adj_b)
}

/// The conjugate transpose of each matrix (`tf.linalg.adjoint`).
fn adjoint(x: &Tensor) -> Result<Tensor> {
    ops::conj(&matrix_transpose(x)?)
}

// ---------------------------------------------------------------------------
// Band, diagonal and transpose helpers (compositions of recorded ops).

/// A constant `rows x cols` boolean mask.
fn mask(rows: usize, cols: usize, keep: impl Fn(usize, usize) -> bool) -> Result<Tensor> {
    let v: Vec<bool> = (0..rows * cols).map(|k| keep(k / cols, k % cols)).collect();
    Tensor::from_vec(v, &[rows, cols])
}

/// A constant `rows x cols` float matrix.
fn const_matrix(
    dtype: DType,
    rows: usize,
    cols: usize,
    f: impl Fn(usize, usize) -> f64,
) -> Result<Tensor> {
    let v: Vec<f64> = (0..rows * cols).map(|k| f(k / cols, k % cols)).collect();
    ops::cast(&Tensor::from_vec(v, &[rows, cols])?, dtype)
}

/// Swaps the last two axes (`tf.linalg.matrix_transpose`; real dtypes, so
/// also `tf.linalg.adjoint`).
pub fn matrix_transpose(x: &Tensor) -> Result<Tensor> {
    let r = x.rank();
    if r < 2 {
        return Err(Error::invalid(format!(
            "Argument `a` should be a (batch) matrix with rank >= 2.  Received shape: {}",
            tuple_string(x.shape())
        )));
    }
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    ops::transpose(x, Some(&perm))
}

/// Keeps a band of each matrix and zeroes the rest (`tf.linalg.band_part`):
/// `num_lower` subdiagonals and `num_upper` superdiagonals, a negative count
/// keeping that whole triangle.
pub fn band_part(x: &Tensor, num_lower: i64, num_upper: i64) -> Result<Tensor> {
    let r = x.rank();
    if r < 2 {
        return Err(Error::invalid(format!(
            "input must be at least 2-dim, received shape: {} [Op:MatrixBandPart]",
            ShapeDisplay::of(x.shape())
        )));
    }
    let (m, n) = (x.shape()[r - 2], x.shape()[r - 1]);
    if num_lower > m as i64 {
        return Err(Error::invalid(format!(
            "num_lower must be negative or less or equal to number of rows ({m}) got: {num_lower} [Op:MatrixBandPart]"
        )));
    }
    if num_upper > n as i64 {
        return Err(Error::invalid(format!(
            "num_upper must be negative or less or equal to number of columns ({n}) got: {num_upper} [Op:MatrixBandPart]"
        )));
    }
    let keep = mask(m, n, |i, j| {
        let (i, j) = (i as i64, j as i64);
        (num_lower < 0 || i - j <= num_lower) && (num_upper < 0 || j - i <= num_upper)
    })?;
    ops::where_(&keep, x, &scalar(x.dtype(), 0.0))
}

/// The main diagonal of each matrix (`tf.linalg.diag_part`): shape
/// `[..., min(m, n)]`.
pub fn matrix_diag_part(x: &Tensor) -> Result<Tensor> {
    let r = x.rank();
    if r < 2 {
        return Err(Error::invalid(format!(
            "input must be at least 2-dim, received shape: {} [Op:MatrixDiagPartV3]",
            ShapeDisplay::of(x.shape())
        )));
    }
    let k = x.shape()[r - 2].min(x.shape()[r - 1]);
    let mut ranges: Vec<(usize, usize)> = x.shape()[..r - 2].iter().map(|&d| (0, d)).collect();
    ranges.extend([(0, k), (0, k)]);
    let sq = ops::slice_ranges(x, &ranges)?;
    let picked = ops::where_(&mask(k, k, |i, j| i == j)?, &sq, &scalar(x.dtype(), 0.0))?;
    ops::reduce_sum(&picked, Some(&[-1]), false)
}

/// Square matrices with `d` on the diagonal (`tf.linalg.diag`): shape
/// `[..., k, k]` for `d` of shape `[..., k]`.
pub fn matrix_diag(d: &Tensor) -> Result<Tensor> {
    if d.rank() < 1 {
        return Err(Error::invalid(format!(
            "diagonal must be at least 1-dim, received shape: {} [Op:MatrixDiagV3]",
            ShapeDisplay::of(d.shape())
        )));
    }
    let k = d.shape()[d.rank() - 1];
    ops::where_(
        &mask(k, k, |i, j| i == j)?,
        &ops::expand_dims(d, -1)?,
        &scalar(d.dtype(), 0.0),
    )
}

/// TensorFlow's `_SafeReciprocal`: `x / (x^2 + 1e-20)`, zero at zero (the
/// broadening its eigen and SVD gradients use for degenerate values).
fn safe_reciprocal(x: &Tensor) -> Result<Tensor> {
    let den = ops::add(&ops::mul(x, x)?, &scalar(x.dtype(), 1e-20))?;
    ops::mul(x, &ops::reciprocal(&den)?)
}

/// `f[i, j] = safe_reciprocal(e[j] - e[i])` off the diagonal and 0 on it,
/// for the last axis of `e`. The diagonal is set (TensorFlow's `set_diag`),
/// not left to `safe_reciprocal(0) = 0`: the broadening's derivative at 0 is
/// 1e20, which a second derivative would otherwise carry.
fn pair_reciprocals(e: &Tensor) -> Result<Tensor> {
    let k = e.shape()[e.rank() - 1];
    let r = safe_reciprocal(&ops::sub(
        &ops::expand_dims(e, -2)?,
        &ops::expand_dims(e, -1)?,
    )?)?;
    ops::where_(&mask(k, k, |i, j| i != j)?, &r, &scalar(e.dtype(), 0.0))
}

/// `x` with its upper triangle zeroed and its diagonal halved (what
/// TensorFlow's Cholesky and eigen rules do with `band_part` and `set_diag`).
fn lower_half_diag(x: &Tensor) -> Result<Tensor> {
    let n = x.shape()[x.rank() - 1];
    let c = const_matrix(x.dtype(), n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    })?;
    ops::mul(&band_part(x, -1, 0)?, &c)
}

fn columns(x: &Tensor, start: usize, len: usize) -> Result<Tensor> {
    let r = x.rank();
    let mut ranges: Vec<(usize, usize)> = x.shape()[..r - 1].iter().map(|&d| (0, d)).collect();
    ranges.push((start, len));
    ops::slice_ranges(x, &ranges)
}

// ---------------------------------------------------------------------------
// Cholesky.

describe_attr_op!(Cholesky {}, "Cholesky", |_op, [x]| cholesky(x));

/// Lower Cholesky factor of each symmetric (Hermitian) positive-definite
/// matrix (`tf.linalg.cholesky`); only the lower triangle is read. As TensorFlow's
/// CPU kernel (2.21) does, a matrix that is not positive definite gives a
/// NaN lower triangle rather than an error.
pub fn cholesky(x: &Tensor) -> Result<Tensor> {
    let (_, b, n) = square("Cholesky", x)?;
    let out = by_float!("Cholesky", x, |T| Tensor::from_vec(
        kd::cholesky::<T>(&x.to_vec::<T>()?, b, n),
        x.shape()
    )?);
    record(Cholesky {}, &[x], &[&out], || {
        let l = out.clone();
        rule(move |g, _| {
            // TF's _CholeskyGrad: l^-H ((l^H g) * (tril(1) - eye/2)) l^-1, symmetrized.
            let n = l.shape()[l.rank() - 1];
            let batch = &l.shape()[..l.rank() - 2];
            let eye = ops::eye(n, n, batch, l.dtype())?;
            let l_inv = triangular_solve(&l, &eye, true, false)?;
            let middle = lower_half_diag(&mma(&l, &g[0], true, false)?)?;
            let ga = mm(&mma(&l_inv, &middle, true, false)?, &l_inv, false, false)?;
            let ga = ops::add(&ga, &adjoint(&ga)?)?;
            Ok(vec![Some(ops::mul(&ga, &scalar(l.dtype(), 0.5))?)])
        })
    });
    Ok(out)
}

// ---------------------------------------------------------------------------
// Triangular and general solves, inverse.

describe_attr_op!(
    MatrixTriangularSolve {
        lower: bool,
        adjoint: bool
    },
    "MatrixTriangularSolve",
    |op, [a, b]| triangular_solve(a, b, op.lower, op.adjoint)
);

/// Solves `op(a) x = b` for triangular `a` (`tf.linalg.triangular_solve`):
/// only `a`'s `lower` (or upper) triangle is read, `op` transposes when
/// `adjoint`; batch dims broadcast. A zero on the diagonal gives infinities,
/// as in TensorFlow.
pub fn triangular_solve(a: &Tensor, b: &Tensor, lower: bool, adjoint: bool) -> Result<Tensor> {
    const OP: &str = "MatrixTriangularSolve";
    crate::kernels::same_dtype(OP, a, b)?;
    let (ra, rb) = (a.rank(), b.rank());
    if ra < 2 || rb < 2 {
        return Err(Error::invalid(format!(
            "In[0] and In[1] must have rank >= 2: {} {} [Op:{OP}]",
            ShapeDisplay::of(a.shape()),
            ShapeDisplay::of(b.shape())
        )));
    }
    let (n0, n1) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    if n0 != n1 {
        return Err(Error::invalid(format!(
            "In[0] matrices in the last dimensions must be square ({n1} =/= {n0}) [Op:{OP}]"
        )));
    }
    let (n, k) = (b.shape()[rb - 2], b.shape()[rb - 1]);
    if n != n0 {
        return Err(Error::invalid(format!(
            "In[0] mismatch In[1] shape: {n0} vs. {n}: {} {} {} {} [Op:{OP}]",
            ShapeDisplay::of(a.shape()),
            ShapeDisplay::of(b.shape()),
            u8::from(lower),
            u8::from(adjoint)
        )));
    }
    let batch = crate::shape::broadcast_shapes(OP, &a.shape()[..ra - 2], &b.shape()[..rb - 2])
        .map_err(|_| {
            Error::invalid(format!(
                "In[0] and In[1] must have compatible batch dimensions: {} vs. {} [Op:{OP}]",
                ShapeDisplay::of(a.shape()),
                ShapeDisplay::of(b.shape())
            ))
        })?;
    // Broadcast batches are recorded as `BroadcastTo`, whose rule sums the
    // gradients back (what TensorFlow's rule does with its reduction axes).
    let a = if a.shape()[..ra - 2] == batch[..] {
        a.clone()
    } else {
        ops::broadcast_to(a, &shape_with(&batch, &[n, n]))?
    };
    let b = if b.shape()[..rb - 2] == batch[..] {
        b.clone()
    } else {
        ops::broadcast_to(b, &shape_with(&batch, &[n, k]))?
    };
    let count: usize = batch.iter().product();
    let out = by_float!(OP, a, |T| Tensor::from_vec(
        kd::triangular_solve::<T>(
            &a.to_vec::<T>()?,
            &b.to_vec::<T>()?,
            count,
            n,
            k,
            lower,
            adjoint
        ),
        &shape_with(&batch, &[n, k])
    )?);
    record(
        MatrixTriangularSolve { lower, adjoint },
        &[&a, &b],
        &[&out],
        || {
            let (a, c) = (a.clone(), out.clone());
            rule(move |g, needs| {
                let gb = triangular_solve(&a, &g[0], lower, !adjoint)?;
                let ga = if needs[0] {
                    let p = if adjoint {
                        mma(&c, &gb, false, true)?
                    } else {
                        mma(&gb, &c, false, true)?
                    };
                    let p = ops::neg(&p)?;
                    Some(if lower {
                        band_part(&p, -1, 0)?
                    } else {
                        band_part(&p, 0, -1)?
                    })
                } else {
                    None
                };
                Ok(vec![ga, Some(gb)])
            })
        },
    );
    Ok(out)
}

describe_attr_op!(
    MatrixSolve { adjoint: bool },
    "MatrixSolve",
    |op, [a, b]| solve(a, b, op.adjoint)
);

/// Solves `op(a) x = b` for square `a` (`tf.linalg.solve`, partial-pivoting
/// LU; `op` transposes when `adjoint`). As in TensorFlow, `a` and `b` have
/// the same rank and batch dims (no broadcasting), and a singular `a`
/// raises "Input matrix is not invertible.".
pub fn solve(a: &Tensor, b: &Tensor, adjoint: bool) -> Result<Tensor> {
    const OP: &str = "MatrixSolve";
    crate::kernels::same_dtype(OP, a, b)?;
    let (ra, rb) = (a.rank(), b.rank());
    if ra < 2 {
        return Err(Error::invalid(format!(
            "Input tensor 0 must have rank >= 2, got {ra} [Op:{OP}]"
        )));
    }
    if ra != rb {
        return Err(Error::invalid(format!(
            "All input tensors must have the same rank. [Op:{OP}]"
        )));
    }
    if a.shape()[..ra - 2] != b.shape()[..rb - 2] {
        return Err(Error::invalid(format!(
            "All input tensors must have the same outer dimensions. [Op:{OP}]"
        )));
    }
    let (n0, n) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    if n0 != n {
        return Err(Error::invalid(format!(
            "First input (lhs) must be a square matrix. [Op:{OP}]"
        )));
    }
    if b.shape()[rb - 2] != n {
        return Err(Error::invalid(format!(
            "Input matrix and rhs are incompatible. [Op:{OP}]"
        )));
    }
    let k = b.shape()[rb - 1];
    let count: usize = a.shape()[..ra - 2].iter().product();
    let out = by_float!(OP, a, |T| Tensor::from_vec(
        kd::solve::<T>(&a.to_vec::<T>()?, &b.to_vec::<T>()?, count, n, k, adjoint)
            .map_err(|f| failed(OP, f, "Input matrix is not invertible."))?,
        b.shape()
    )?);
    record(MatrixSolve { adjoint }, &[a, b], &[&out], || {
        let (a, c) = (a.clone(), out.clone());
        rule(move |g, needs| {
            let gb = solve(&a, &g[0], !adjoint)?;
            let ga = if needs[0] {
                Some(ops::neg(&if adjoint {
                    mma(&c, &gb, false, true)?
                } else {
                    mma(&gb, &c, false, true)?
                })?)
            } else {
                None
            };
            Ok(vec![ga, Some(gb)])
        })
    });
    Ok(out)
}

describe_attr_op!(
    MatrixInverse { adjoint: bool },
    "MatrixInverse",
    |op, [a]| inv(a, op.adjoint)
);

/// The inverse of each square matrix, of its transpose when `adjoint`
/// (`tf.linalg.inv`); a singular matrix raises "Input is not invertible.".
pub fn inv(a: &Tensor, adjoint: bool) -> Result<Tensor> {
    const OP: &str = "MatrixInverse";
    let (_, b, n) = square(OP, a)?;
    let out = by_float!(OP, a, |T| Tensor::from_vec(
        kd::inverse::<T>(&a.to_vec::<T>()?, b, n, adjoint).map_err(|f| failed(
            OP,
            f,
            "Input is not invertible."
        ))?,
        a.shape()
    )?);
    record(MatrixInverse { adjoint }, &[a], &[&out], || {
        let ainv = out.clone();
        rule(move |g, _| {
            let inner = mma(&g[0], &ainv, adjoint, !adjoint)?;
            Ok(vec![Some(ops::neg(&mma(&ainv, &inner, !adjoint, false)?)?)])
        })
    });
    Ok(out)
}

// ---------------------------------------------------------------------------
// Determinants.

describe_attr_op!(MatrixDeterminant {}, "MatrixDeterminant", |_op, [a]| det(a));

/// `g` (one value per matrix) times `inv(a)^H`, broadcast over each matrix:
/// the gradient TensorFlow gives determinants.
fn times_inverse_transpose(a: &Tensor, g: &Tensor) -> Result<Tensor> {
    let mut s: Vec<isize> = g.shape().iter().map(|&d| d as isize).collect();
    s.extend([1, 1]);
    ops::mul(&ops::reshape(g, &s)?, &inv(a, true)?)
}

/// The determinant of each square matrix (`tf.linalg.det`), from its LU
/// factorization. For complex matrices the gradient is TensorFlow's
/// `g * det * inv(a)^H`, which (unlike its other complex rules) lacks the
/// conjugate on `det` that the convention `dL/dx + i dL/dy` would give:
/// kept as TensorFlow computes it.
pub fn det(a: &Tensor) -> Result<Tensor> {
    const OP: &str = "MatrixDeterminant";
    let (bs, b, n) = square(OP, a)?;
    let out = by_float!(OP, a, |T| Tensor::from_vec(
        kd::determinants::<T>(&a.to_vec::<T>()?, b, n)
            .into_iter()
            .map(|(_, _, d)| d)
            .collect::<Vec<T>>(),
        &bs
    )?);
    record(MatrixDeterminant {}, &[a], &[&out], || {
        let (a, c) = (a.clone(), out.clone());
        rule(move |g, _| {
            Ok(vec![Some(times_inverse_transpose(
                &a,
                &ops::mul(&g[0], &c)?,
            )?)])
        })
    });
    Ok(out)
}

/// The description of `LogMatrixDeterminant` (two outputs: sign and
/// log|det|).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LogMatrixDeterminant;

impl Op for LogMatrixDeterminant {
    fn name(&self) -> &'static str {
        "LogMatrixDeterminant"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [a] = args("LogMatrixDeterminant", inputs)?;
        let (s, l) = slogdet(a)?;
        Ok(vec![s, l])
    }
}

/// Sign and log of the absolute determinant of each square matrix
/// (`tf.linalg.slogdet`): a singular matrix gives sign 0 and `-inf`. For
/// complex matrices both are complex, as in TensorFlow: the sign is
/// `det / |det|` and log|det| has a zero imaginary part. Only
/// the log's gradient flows (the sign's is zero), as in TensorFlow.
pub fn slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    const OP: &str = "LogMatrixDeterminant";
    let (bs, b, n) = square(OP, a)?;
    let (sign, log) = by_float!(OP, a, |T| {
        let (s, l): (Vec<T>, Vec<T>) = kd::determinants::<T>(&a.to_vec::<T>()?, b, n)
            .into_iter()
            .map(|(s, l, _)| (s, <T as kd::LaScalar>::of_real(l)))
            .unzip();
        (Tensor::from_vec(s, &bs)?, Tensor::from_vec(l, &bs)?)
    });
    record(LogMatrixDeterminant, &[a], &[&sign, &log], || {
        let a = a.clone();
        rule(move |g, _| Ok(vec![Some(times_inverse_transpose(&a, &g[1])?)]))
    });
    Ok((sign, log))
}

/// `log(det(a))` of symmetric (Hermitian) positive-definite matrices
/// through their Cholesky factors (`tf.linalg.logdet`):
/// `2 sum(log(real(diag(chol(a)))))`, in the real dtype (float64 for
/// complex128), as TensorFlow composes it.
pub fn logdet(a: &Tensor) -> Result<Tensor> {
    let l = cholesky(a)?;
    let d = ops::real(&matrix_diag_part(&l)?)?;
    let s = ops::reduce_sum(&ops::log(&d)?, Some(&[-1]), false)?;
    ops::mul(&s, &scalar(d.dtype(), 2.0))
}

// ---------------------------------------------------------------------------
// QR.

/// The description of `Qr` (two outputs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Qr {
    full_matrices: bool,
}

impl Op for Qr {
    fn name(&self) -> &'static str {
        "Qr"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [a] = args("Qr", inputs)?;
        let (q, r) = qr(a, self.full_matrices)?;
        Ok(vec![q, r])
    }
}

/// The solve TensorFlow's QR rule uses (its `_TriangularSolve`):
/// `x @ adjoint(inv(r))` for upper triangular `r`.
fn right_solve_upper(x: &Tensor, r: &Tensor) -> Result<Tensor> {
    adjoint(&triangular_solve(r, &adjoint(x)?, false, false)?)
}

/// TensorFlow's `_QrGradSquareAndDeepMatrices`, with its correction for
/// complex matrices.
fn qr_grad_deep(q: &Tensor, r: &Tensor, dq: &Tensor, dr: &Tensor) -> Result<Tensor> {
    let qdq = mma(q, dq, true, false)?;
    let qdq_ = ops::sub(&qdq, &adjoint(&qdq)?)?;
    let rdr = mma(r, dr, false, true)?;
    let rdr_ = ops::sub(&rdr, &adjoint(&rdr)?)?;
    let tril = band_part(&ops::add(&qdq_, &rdr_)?, -1, 0)?;
    let ga = mm(
        q,
        &ops::add(dr, &right_solve_upper(&tril, r)?)?,
        false,
        false,
    )?;
    let gb = right_solve_upper(&ops::sub(dq, &mm(q, &qdq, false, false)?)?, r)?;
    let ret = ops::add(&ga, &gb)?;
    if !q.dtype().is_complex() {
        return Ok(ret);
    }
    // diag(m) - real(diag(m)) = i imag(diag(m)), m = rdr - qdq^H.
    let m = ops::sub(&rdr, &adjoint(&qdq)?)?;
    let eyem = matrix_diag(&matrix_diag_part(&m)?)?;
    let correction = ops::sub(&eyem, &ops::cast(&ops::real(&eyem)?, q.dtype())?)?;
    ops::add(
        &ret,
        &right_solve_upper(&mma(q, &correction, false, true)?, r)?,
    )
}

/// QR decomposition of each matrix (`tf.linalg.qr`, Householder): `q` is
/// `m x k` and `r` `k x n` (`k = min(m, n)`), or `m x m` and `m x n` when
/// `full_matrices`. The signs of `r`'s diagonal (and of `q`'s columns) are
/// faer's, which may differ from TensorFlow's. Differentiable as TensorFlow
/// defines it; like TensorFlow, the gradient raises for `m > n` with
/// `full_matrices`.
pub fn qr(a: &Tensor, full_matrices: bool) -> Result<(Tensor, Tensor)> {
    const OP: &str = "Qr";
    let (bs, b, m, n) = matrices(OP, a)?;
    let k = m.min(n);
    let (qc, rr) = if full_matrices { (m, m) } else { (k, k) };
    let (q, r) = by_float!(OP, a, |T| {
        let (q, r) = kd::qr::<T>(&a.to_vec::<T>()?, b, m, n, full_matrices);
        (
            Tensor::from_vec(q, &shape_with(&bs, &[m, qc]))?,
            Tensor::from_vec(r, &shape_with(&bs, &[rr, n]))?,
        )
    });
    record(Qr { full_matrices }, &[a], &[&q, &r], || {
        let (a, q, r) = (a.clone(), q.clone(), r.clone());
        rule(move |g, _| {
            let (dq, dr) = (&g[0], &g[1]);
            if m > n && full_matrices {
                return Err(Error::Unimplemented(format!(
                    "QrGrad not implemented when nrows > ncols and full_matrices is true. Received r.shape={} with nrows={m}and ncols={n}.",
                    tuple_string(r.shape())
                )));
            }
            if m >= n {
                return Ok(vec![Some(qr_grad_deep(&q, &r, dq, dr)?)]);
            }
            // Wide: a = [x, y], r = [u, v]; reduce to the square case.
            let y = columns(&a, m, n - m)?;
            let u = columns(&r, 0, m)?;
            let dv = columns(dr, m, n - m)?;
            let du = columns(dr, 0, m)?;
            let dy = mm(&q, &dv, false, false)?;
            let dx = qr_grad_deep(&q, &u, &ops::add(dq, &mma(&y, &dv, false, true)?)?, &du)?;
            Ok(vec![Some(ops::concat(&[dx, dy], -1)?)])
        })
    });
    Ok((q, r))
}

// ---------------------------------------------------------------------------
// Symmetric eigendecomposition.

/// The description of `SelfAdjointEigV2` (outputs: eigenvalues, and the
/// eigenvectors when `compute_v`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SelfAdjointEigV2 {
    compute_v: bool,
}

impl Op for SelfAdjointEigV2 {
    fn name(&self) -> &'static str {
        "SelfAdjointEigV2"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [a] = args("SelfAdjointEigV2", inputs)?;
        if self.compute_v {
            let (e, v) = eigh(a)?;
            Ok(vec![e, v])
        } else {
            Ok(vec![eigvalsh(a)?])
        }
    }
}

fn self_adjoint_eig(a: &Tensor, compute_v: bool) -> Result<(Tensor, Option<Tensor>)> {
    const OP: &str = "SelfAdjointEigV2";
    let (bs, b, n) = square(OP, a)?;
    let (e, v) = by_float!(OP, a, |T| {
        let (e, v) =
            kd::eigh::<T>(&a.to_vec::<T>()?, b, n, compute_v).map_err(|f| failed(OP, f, ""))?;
        (
            Tensor::from_vec(e, &shape_with(&bs, &[n]))?,
            if compute_v {
                Some(Tensor::from_vec(v, a.shape())?)
            } else {
                None
            },
        )
    });
    let outs: Vec<&Tensor> = std::iter::once(&e).chain(v.as_ref()).collect();
    record(SelfAdjointEigV2 { compute_v }, &[a], &outs, || {
        let (a, e, v) = (a.clone(), e.clone(), v.clone());
        rule(move |g, _| {
            let ge = &g[0];
            let inner = match &v {
                Some(v) => {
                    let f = pair_reciprocals(&e)?;
                    let vgv = mma(v, &g[1], true, false)?;
                    let mid = ops::add(&matrix_diag(ge)?, &ops::mul(&f, &vgv)?)?;
                    mm(v, &mma(&mid, v, false, true)?, false, false)?
                }
                None => {
                    // TensorFlow recomputes the vectors (a differentiable call).
                    let (_, v) = eigh(&a)?;
                    mm(&v, &mma(&matrix_diag(ge)?, &v, false, true)?, false, false)?
                }
            };
            // The op reads only the lower triangle: symmetrize, keep it.
            let sym = ops::add(&inner, &adjoint(&inner)?)?;
            Ok(vec![Some(lower_half_diag(&sym)?)])
        })
    });
    Ok((e, v))
}

/// Eigenvalues (ascending) and eigenvectors (columns) of each symmetric
/// (Hermitian) matrix, of which only the lower triangle is read
/// (`tf.linalg.eigh`). For complex matrices the eigenvalues are real values
/// in the complex dtype, as TensorFlow returns them.
/// Each eigenvector's sign is faer's. The gradient is TensorFlow's, with its
/// broadening of `1 / (e_j - e_i)` (finite, not infinite, at repeated
/// eigenvalues).
pub fn eigh(a: &Tensor) -> Result<(Tensor, Tensor)> {
    let (e, v) = self_adjoint_eig(a, true)?;
    Ok((e, v.expect("vectors computed")))
}

/// Eigenvalues (ascending) of each symmetric matrix (`tf.linalg.eigvalsh`).
pub fn eigvalsh(a: &Tensor) -> Result<Tensor> {
    Ok(self_adjoint_eig(a, false)?.0)
}

// ---------------------------------------------------------------------------
// SVD.

/// The description of `Svd` (outputs: `s`, and `u`, `v` when `compute_uv`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Svd {
    full_matrices: bool,
    compute_uv: bool,
}

impl Op for Svd {
    fn name(&self) -> &'static str {
        "Svd"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let [a] = args("Svd", inputs)?;
        let (s, u, v) = svd(a, self.full_matrices, self.compute_uv)?;
        Ok(std::iter::once(s).chain(u).chain(v).collect())
    }
}

/// TensorFlow's `_SvdGrad` for `compute_uv=True` (with its third term for
/// complex matrices). `s` and `gs` are real; they are cast to `u`'s dtype.
#[allow(clippy::too_many_arguments)]
fn svd_grad(
    shape: &[usize],
    s: &Tensor,
    u: &Tensor,
    v: &Tensor,
    gs: &Tensor,
    gu: &Tensor,
    gv: &Tensor,
    full: bool,
) -> Result<Tensor> {
    let r = shape.len();
    let (mut m, mut n) = (shape[r - 2], shape[r - 1]);
    let (mut u, mut v, mut gu, mut gv) = (u, v, gu, gv);
    let use_adjoint = m > n;
    if use_adjoint {
        // The gradient of a^H = v s u^H, conjugate-transposed at the end.
        std::mem::swap(&mut m, &mut n);
        std::mem::swap(&mut u, &mut v);
        std::mem::swap(&mut gu, &mut gv);
    }
    if full && n - m > 1 {
        return Err(Error::Unimplemented(format!(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. Received: m={m} and n={n} with shape={}.",
            tuple_string(shape)
        )));
    }
    let dtype = u.dtype();
    let s = ops::cast(s, dtype)?;
    let gs = ops::cast(gs, dtype)?;
    let s_mat = matrix_diag(&s)?;
    let f = pair_reciprocals(&ops::mul(&s, &s)?)?;
    let s_inv = matrix_diag(&safe_reciprocal(&s)?)?;
    let v1 = columns(v, 0, m)?;
    let gv1 = columns(gv, 0, m)?;
    let v_gv = mma(&v1, &gv1, true, false)?;
    let f_u = ops::mul(&f, &mma(u, gu, true, false)?)?;
    let f_v = ops::mul(&f, &v_gv)?;
    let term1_nouv = ops::add_n(&[
        matrix_diag(&gs)?,
        mm(&ops::add(&f_u, &adjoint(&f_u)?)?, &s_mat, false, false)?,
        mm(&s_mat, &ops::add(&f_v, &adjoint(&f_v)?)?, false, false)?,
    ])?;
    let term1 = mm(u, &mma(&term1_nouv, &v1, false, true)?, false, false)?;
    let mut ga = if m == n {
        term1
    } else {
        let gv1t = adjoint(&gv1)?;
        let mut term2_nous = ops::sub(
            &gv1t,
            &mma(&mm(&gv1t, &v1, false, false)?, &v1, false, true)?,
        )?;
        if full {
            let v2 = columns(v, m, n - m)?;
            let gv2 = columns(gv, m, n - m)?;
            term2_nous = ops::sub(
                &term2_nous,
                &mma(&mma(&v1, &gv2, true, false)?, &v2, false, true)?,
            )?;
        }
        let term2 = mm(&mm(u, &s_inv, false, false)?, &term2_nous, false, false)?;
        ops::add(&term1, &term2)?
    };
    if dtype.is_complex() {
        // l = eye * v_gv; term3 = u (s^-1 (l^H - l)) v1^H / 2.
        let l = matrix_diag(&matrix_diag_part(&v_gv)?)?;
        let term3_nouv = mm(&s_inv, &ops::sub(&adjoint(&l)?, &l)?, false, false)?;
        let term3 = mm(u, &mma(&term3_nouv, &v1, false, true)?, false, false)?;
        ga = ops::add(&ga, &ops::mul(&term3, &scalar(dtype, 0.5))?)?;
    }
    if use_adjoint {
        adjoint(&ga)
    } else {
        Ok(ga)
    }
}

/// Singular value decomposition of each matrix (`tf.linalg.svd`), in
/// TensorFlow's order: `s` (descending; real, float64 for complex128), and,
/// when `compute_uv`, `u` and `v` with `a = u diag(s) v^H` (`m x k` and `n x k`, or `m x m` and `n x n`
/// with `full_matrices`). Each singular pair's sign is faer's. The gradient
/// is TensorFlow's, including its refusal (`NotImplementedError`) for
/// `full_matrices` with `|m - n| > 1` and its broadening of repeated or zero
/// singular values.
pub fn svd(
    a: &Tensor,
    full_matrices: bool,
    compute_uv: bool,
) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
    const OP: &str = "Svd";
    let (bs, b, m, n) = matrices(OP, a)?;
    let k = m.min(n);
    let (uc, vc) = if full_matrices { (m, n) } else { (k, k) };
    let (s, u, v) = by_float!(OP, a, |T| {
        let (s, u, v) = kd::svd::<T>(&a.to_vec::<T>()?, b, m, n, full_matrices, compute_uv)
            .map_err(|f| failed(OP, f, ""))?;
        let s = Tensor::from_vec(s, &shape_with(&bs, &[k]))?;
        if compute_uv {
            (
                s,
                Some(Tensor::from_vec(u, &shape_with(&bs, &[m, uc]))?),
                Some(Tensor::from_vec(v, &shape_with(&bs, &[n, vc]))?),
            )
        } else {
            (s, None, None)
        }
    });
    let outs: Vec<&Tensor> = std::iter::once(&s)
        .chain(u.as_ref())
        .chain(v.as_ref())
        .collect();
    let desc = Svd {
        full_matrices,
        compute_uv,
    };
    record(desc, &[a], &outs, || {
        let (a, s, u, v) = (a.clone(), s.clone(), u.clone(), v.clone());
        rule(move |g, _| {
            let ga = match (&u, &v) {
                (Some(u), Some(v)) => {
                    svd_grad(a.shape(), &s, u, v, &g[0], &g[1], &g[2], full_matrices)?
                }
                _ => {
                    // TensorFlow recomputes the vectors (a differentiable call).
                    let (_, u, v) = svd(&a, false, true)?;
                    let (u, v) = (u.expect("computed"), v.expect("computed"));
                    let gs = ops::cast(&g[0], u.dtype())?;
                    mm(&u, &mma(&matrix_diag(&gs)?, &v, false, true)?, false, false)?
                }
            };
            Ok(vec![Some(ga)])
        })
    });
    Ok((s, u, v))
}

/// The Moore-Penrose pseudo-inverse of each matrix through its SVD
/// (`tf.linalg.pinv`, TensorFlow's composition): singular values at or
/// below `rcond * max(s)` count as zero; `rcond` defaults to
/// `10 * max(m, n) * eps`.
pub fn pinv(a: &Tensor, rcond: Option<f64>) -> Result<Tensor> {
    let (_, _, m, n) = matrices("Svd", a)?;
    let eps = match a.dtype() {
        DType::F32 => f32::EPSILON as f64,
        _ => f64::EPSILON,
    };
    let rcond = rcond.unwrap_or(10.0 * m.max(n) as f64 * eps);
    let (s, u, v) = svd(a, false, true)?;
    let (u, v) = (u.expect("computed"), v.expect("computed"));
    let cutoff = ops::mul(
        &ops::reduce_max(&s, Some(&[-1]), true)?,
        &scalar(a.dtype(), rcond),
    )?;
    let kept = ops::where_(
        &ops::greater(&s, &cutoff)?,
        &s,
        &scalar(a.dtype(), f64::INFINITY),
    )?;
    mm(
        &ops::div(&v, &ops::expand_dims(&kept, -2)?)?,
        &u,
        false,
        true,
    )
}

// ---------------------------------------------------------------------------
// Least squares.

describe_attr_op!(MatrixSolveLs {}, "MatrixSolveLs", |_op, [a, b]| lstsq(
    a, b, 0.0, false
));

/// `(A^H A + l2 I)` or `(A A^H + l2 I)`'s Cholesky factor
/// (TensorFlow's `_RegularizedGramianCholesky`).
fn gramian_cholesky(a: &Tensor, l2: f64, first_kind: bool) -> Result<Tensor> {
    let g = mma(a, a, first_kind, !first_kind)?;
    let g = if l2 != 0.0 {
        let d = g.shape()[g.rank() - 1];
        ops::add(
            &g,
            &ops::mul(&ops::eye(d, d, &[], a.dtype())?, &scalar(a.dtype(), l2))?,
        )?
    } else {
        g
    };
    cholesky(&g)
}

/// `(L L^H)^-1 rhs` from a Cholesky factor (TensorFlow's `cholesky_solve`).
pub fn cholesky_solve(chol: &Tensor, rhs: &Tensor) -> Result<Tensor> {
    let y = triangular_solve(chol, rhs, true, false)?;
    triangular_solve(chol, &y, true, true)
}

/// Least-squares solutions of `a x = b` (`tf.linalg.lstsq`, TensorFlow's
/// `matrix_solve_ls`). With `fast`, the regularized normal equations through
/// Cholesky, as TensorFlow composes them (differentiable through those ops);
/// otherwise the minimum-norm solution (SVD here, a complete orthogonal
/// decomposition in TensorFlow), where `l2_regularizer` is ignored and, as in
/// TensorFlow, the gradient raises `ValueError`.
pub fn lstsq(a: &Tensor, b: &Tensor, l2_regularizer: f64, fast: bool) -> Result<Tensor> {
    const OP: &str = "MatrixSolveLs";
    crate::kernels::same_dtype(OP, a, b)?;
    let (bs, count, m, n) = matrices(OP, a)?;
    let (_, _, mb, k) = matrices(OP, b)?;
    if mb != m || b.shape()[..b.rank() - 2] != bs[..] {
        return Err(Error::invalid(format!(
            "Input matrix and rhs are incompatible: shapes {} and {} [Op:{OP}]",
            ShapeDisplay::of(a.shape()),
            ShapeDisplay::of(b.shape())
        )));
    }
    if a.dtype() == DType::C128 && l2_regularizer != 0.0 {
        // TensorFlow's Python wrapper refuses it before any kernel runs.
        return Err(Error::Unimplemented(
            "matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due to poor accuracy."
                .to_string(),
        ));
    }
    if fast {
        return if m >= n {
            cholesky_solve(
                &gramian_cholesky(a, l2_regularizer, true)?,
                &mma(a, b, true, false)?,
            )
        } else {
            mma(
                a,
                &cholesky_solve(&gramian_cholesky(a, l2_regularizer, false)?, b)?,
                true,
                false,
            )
        };
    }
    let out = by_float!(OP, a, |T| Tensor::from_vec(
        kd::lstsq_min_norm::<T>(&a.to_vec::<T>()?, &b.to_vec::<T>()?, count, (m, n, k))
            .map_err(|f| failed(OP, f, ""))?,
        &shape_with(&bs, &[n, k])
    )?);
    record(MatrixSolveLs {}, &[a, b], &[&out], || {
        rule(|_, _| {
            Err(Error::Value(
                "Gradient not defined for fast=False".to_string(),
            ))
        })
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::ops;
    use crate::{GradientTape, Tensor, TensorId};

    fn matrix(rows: usize, cols: usize, seed: f64) -> Tensor {
        let v: Vec<f64> = (0..rows * cols)
            .map(|i| (i as f64 * 0.61 + seed).sin() + if i % (cols + 1) == 0 { 3.0 } else { 0.0 })
            .collect();
        Tensor::from_vec(v, &[rows, cols]).unwrap()
    }

    /// Every entry these ops record runs again from its description (what a
    /// traced graph replays) and gives the recorded outputs bit for bit.
    #[test]
    fn descriptions_replay_their_entries() {
        let sq = matrix(3, 3, 0.2);
        let spd = ops::add(
            &ops::matmul(&sq, &ops::matrix_transpose(&sq).unwrap()).unwrap(),
            &ops::eye(3, 3, &[], crate::DType::F64).unwrap(),
        )
        .unwrap();
        let tall = matrix(4, 3, 0.7);
        let rhs = matrix(3, 2, 1.1);
        let rhs4 = matrix(4, 2, 0.3);
        let mut known: HashMap<TensorId, Tensor> = HashMap::new();
        for t in [&sq, &spd, &tall, &rhs, &rhs4] {
            known.insert(t.id(), t.clone());
        }
        let tape = GradientTape::with_options(true, true);
        {
            let _r = tape.record().unwrap();
            for t in [&sq, &spd, &tall, &rhs] {
                tape.watch(t);
            }
            let (s, u, v) = ops::svd(&tall, false, true).unwrap();
            let (q, r) = ops::qr(&tall, true).unwrap();
            let (e, ev) = ops::eigh(&spd).unwrap();
            let (sign, logabs) = ops::slogdet(&sq).unwrap();
            let mut outs = vec![s, u.unwrap(), v.unwrap(), q, r, e, ev, sign, logabs];
            outs.push(ops::svd(&tall, true, false).unwrap().0);
            outs.push(ops::eigvalsh(&spd).unwrap());
            outs.push(ops::cholesky(&spd).unwrap());
            outs.push(ops::inv(&sq, true).unwrap());
            outs.push(ops::det(&sq).unwrap());
            outs.push(ops::solve(&sq, &rhs, true).unwrap());
            outs.push(ops::triangular_solve(&sq, &rhs, false, true).unwrap());
            outs.push(ops::lstsq(&tall, &rhs4, 0.0, false).unwrap());
            for t in outs {
                known.insert(t.id(), t);
            }
        }
        let entries = tape.with_data(|d| d.expect("recording").entries.clone());
        let names: Vec<&str> = entries.iter().map(|e| e.name()).collect();
        for want in [
            "Svd",
            "Qr",
            "SelfAdjointEigV2",
            "LogMatrixDeterminant",
            "Cholesky",
            "MatrixInverse",
            "MatrixDeterminant",
            "MatrixSolve",
            "MatrixTriangularSolve",
            "MatrixSolveLs",
        ] {
            assert!(names.contains(&want), "{want} not recorded: {names:?}");
        }
        for e in &entries {
            let inputs: Vec<Tensor> = e
                .inputs
                .iter()
                .map(|i| known.get(&i.id).cloned().expect("input kept"))
                .collect();
            let again = e.op.forward(&inputs).unwrap();
            assert_eq!(again.len(), e.outputs.len(), "{}", e.name());
            for (a, o) in again.iter().zip(&e.outputs) {
                let want = known.get(&o.id).expect("output kept");
                assert_eq!(a.shape(), want.shape(), "{}", e.name());
                assert_eq!(
                    a.to_vec::<f64>().unwrap(),
                    want.to_vec::<f64>().unwrap(),
                    "{} replays to other values",
                    e.name()
                );
            }
        }
    }

    fn complex_matrix(rows: usize, cols: usize, seed: f64) -> Tensor {
        let re = matrix(rows, cols, seed);
        let im = matrix(rows, cols, seed + 0.5);
        ops::complex(&re, &im).unwrap()
    }

    /// The values of a complex128 or float64 tensor, as complex128.
    fn as_c128(t: &Tensor) -> Vec<crate::dtype::c128> {
        t.to_vec::<crate::dtype::c128>().unwrap_or_else(|_| {
            let re = t.to_vec::<f64>().unwrap();
            re.into_iter()
                .map(|x| crate::dtype::c128::new(x, 0.0))
                .collect()
        })
    }

    /// Complex entries replay from their descriptions bit for bit too, and
    /// keep TensorFlow's output dtypes (real singular values, complex
    /// eigenvalues and slogdet outputs).
    #[test]
    fn complex_entries_replay() {
        let sq = complex_matrix(3, 3, 0.2);
        let herm = ops::add(
            &ops::matmul(
                &sq,
                &ops::conj(&ops::matrix_transpose(&sq).unwrap()).unwrap(),
            )
            .unwrap(),
            &ops::cast(
                &ops::eye(3, 3, &[], crate::DType::F64).unwrap(),
                crate::DType::C128,
            )
            .unwrap(),
        )
        .unwrap();
        let tall = complex_matrix(4, 3, 0.7);
        let rhs = complex_matrix(3, 2, 1.1);
        let mut known: HashMap<TensorId, Tensor> = HashMap::new();
        for t in [&sq, &herm, &tall, &rhs] {
            known.insert(t.id(), t.clone());
        }
        let tape = GradientTape::with_options(true, true);
        {
            let _r = tape.record().unwrap();
            for t in [&sq, &herm, &tall, &rhs] {
                tape.watch(t);
            }
            let (s, u, v) = ops::svd(&tall, false, true).unwrap();
            assert_eq!(s.dtype(), crate::DType::F64);
            let (q, r) = ops::qr(&tall, false).unwrap();
            let (e, ev) = ops::eigh(&herm).unwrap();
            assert_eq!(e.dtype(), crate::DType::C128);
            let (sign, logabs) = ops::slogdet(&sq).unwrap();
            assert_eq!(logabs.dtype(), crate::DType::C128);
            let mut outs = vec![s, u.unwrap(), v.unwrap(), q, r, e, ev, sign, logabs];
            outs.push(ops::cholesky(&herm).unwrap());
            outs.push(ops::inv(&sq, true).unwrap());
            outs.push(ops::det(&sq).unwrap());
            outs.push(ops::solve(&sq, &rhs, true).unwrap());
            outs.push(ops::triangular_solve(&sq, &rhs, true, true).unwrap());
            for t in outs {
                known.insert(t.id(), t);
            }
        }
        let entries = tape.with_data(|d| d.expect("recording").entries.clone());
        let mut replayed = 0;
        for e in &entries {
            let Some(inputs) = e
                .inputs
                .iter()
                .map(|i| known.get(&i.id).cloned())
                .collect::<Option<Vec<Tensor>>>()
            else {
                continue; // an internal op of a composition (conj of a product)
            };
            let again = e.op.forward(&inputs).unwrap();
            for (a, o) in again.iter().zip(&e.outputs) {
                let Some(want) = known.get(&o.id) else {
                    continue;
                };
                assert_eq!(a.dtype(), want.dtype(), "{}", e.name());
                assert_eq!(
                    as_c128(a),
                    as_c128(want),
                    "{} replays to other values",
                    e.name()
                );
                replayed += 1;
            }
        }
        assert!(replayed >= 14, "replayed {replayed} outputs");
    }

    /// The gradient of `log|det a|` is `inv(a)^T`, through slogdet's rule.
    #[test]
    fn slogdet_gradient_is_the_inverse_transpose() {
        let a = matrix(3, 3, 0.4);
        let tape = GradientTape::new();
        let logabs = {
            let _r = tape.record().unwrap();
            tape.watch(&a);
            ops::slogdet(&a).unwrap().1
        };
        let g = tape
            .gradient(&[logabs], &[crate::Source::from(&a)])
            .unwrap()
            .remove(0)
            .unwrap();
        let want = ops::matrix_transpose(&ops::inv(&a, false).unwrap()).unwrap();
        for (x, y) in g
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .zip(want.to_vec::<f64>().unwrap())
        {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
    }
}
