//! Matrix decompositions and solves through faer, one matrix of a batch at a
//! time. Inputs and outputs are row-major buffers holding `batch` matrices
//! back to back; the ops in `ops::decomp` check shapes and dtypes, record the
//! entries and own the error messages (a kernel only says which matrix
//! failed and how).

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, MatRef, Side};

/// The float element types the decompositions run on (f32, f64).
pub(crate) trait LaFloat:
    faer::traits::RealField + crate::tensor::Element + num_traits::Float + Copy
{
}
impl<T> LaFloat for T where
    T: faer::traits::RealField + crate::tensor::Element + num_traits::Float + Copy
{
}

/// The element types the decompositions run on: the real floats and
/// complex64/complex128 (`R` is the real type of a complex one).
pub(crate) trait LaScalar:
    faer::traits::ComplexField + crate::tensor::Element + num_traits::NumAssign + Copy
{
    /// The real type (itself for f32/f64).
    type R: LaFloat;
    /// `r + 0i`.
    fn of_real(r: Self::R) -> Self;
    /// faer's real type is this one's `R` (the same type, by name).
    fn of_faer_real(r: <Self as faer::traits::ComplexField>::Real) -> Self::R;
    /// The complex conjugate (the value itself when real).
    fn conjugate(self) -> Self;
    /// `|x|`.
    fn modulus(self) -> Self::R;
    /// The real part.
    fn real_part(self) -> Self::R;
    /// `self / d` with C99's rule for a zero complex divisor (Annex G, what
    /// TensorFlow's kernels get from the C++ library): `(a + bi) / 0` is
    /// `(inf * a) + (inf * b)i`, so `1 / 0` gives `inf + nan i`.
    fn div_c99(self, d: Self) -> Self;
}

macro_rules! la_real {
    ($t:ty) => {
        impl LaScalar for $t {
            type R = $t;
            fn of_real(r: $t) -> $t {
                r
            }
            fn of_faer_real(r: $t) -> $t {
                r
            }
            fn conjugate(self) -> $t {
                self
            }
            fn modulus(self) -> $t {
                self.abs()
            }
            fn real_part(self) -> $t {
                self
            }
            fn div_c99(self, d: $t) -> $t {
                self / d
            }
        }
    };
}
la_real!(f32);
la_real!(f64);

macro_rules! la_complex {
    ($t:ty) => {
        impl LaScalar for num_complex::Complex<$t> {
            type R = $t;
            fn of_real(r: $t) -> Self {
                num_complex::Complex::new(r, 0.0)
            }
            fn of_faer_real(r: $t) -> $t {
                r
            }
            fn conjugate(self) -> Self {
                self.conj()
            }
            fn modulus(self) -> $t {
                self.norm()
            }
            fn real_part(self) -> $t {
                self.re
            }
            fn div_c99(self, d: Self) -> Self {
                if d.re == 0.0 && d.im == 0.0 {
                    let inf = <$t>::INFINITY.copysign(d.re);
                    num_complex::Complex::new(inf * self.re, inf * self.im)
                } else {
                    self / d
                }
            }
        }
    };
}
la_complex!(f32);
la_complex!(f64);

/// Why a kernel gave up on one matrix of the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// An LU pivot is exactly zero: the matrix is singular.
    Singular,
    /// The iterative algorithm (eigen, SVD) did not converge.
    NoConvergence,
}

/// Runs faer's factorizations sequentially. Its solvers take their
/// parallelism from a process-wide setting, whose default (rayon) splits work
/// in ways that change the last bits with the thread count; tapers' results
/// must not. (The products in `kernels::gemm` pass their own `Par` and are
/// not affected.)
fn sequential() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| faer::set_global_parallelism(faer::Par::Seq));
}

fn cast<T: LaFloat>(v: f64) -> T {
    <T as num_traits::NumCast>::from(v).expect("a float converts to f32/f64")
}

fn view<T>(s: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
    sequential();
    MatRef::from_row_major_slice(s, rows, cols)
}

fn zero<T: LaScalar>() -> T {
    <T as num_traits::Zero>::zero()
}

/// The conjugate transpose of `m`, owned (the transpose when real).
fn conj_transpose<T: LaScalar>(m: MatRef<'_, T>) -> Mat<T> {
    Mat::from_fn(m.ncols(), m.nrows(), |i, j| m[(j, i)].conjugate())
}

fn push<T: Copy>(out: &mut Vec<T>, m: MatRef<'_, T>) {
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.push(m[(i, j)]);
        }
    }
}

/// Lower Cholesky factors of `batch` `n x n` matrices (only their lower
/// triangles are read). A matrix that is not positive definite gets a NaN
/// lower triangle, as TensorFlow's CPU kernel returns.
pub(crate) fn cholesky<T: LaScalar>(x: &[T], batch: usize, n: usize) -> Vec<T> {
    let mut out = vec![zero::<T>(); batch * n * n];
    for b in 0..batch {
        let o = &mut out[b * n * n..(b + 1) * n * n];
        match view(&x[b * n * n..(b + 1) * n * n], n, n).llt(Side::Lower) {
            Ok(llt) => {
                let l = llt.L();
                for i in 0..n {
                    for j in 0..=i {
                        o[i * n + j] = l[(i, j)];
                    }
                }
            }
            Err(_) => {
                for i in 0..n {
                    for j in 0..=i {
                        o[i * n + j] = T::of_real(<T::R as num_traits::Float>::nan());
                    }
                }
            }
        }
    }
    out
}

/// Solves `op(a) x = b` for triangular `a` (`batch` matrices `n x n`, only
/// the `lower` or upper triangle read; `op` is the conjugate transpose when
/// `adjoint`) and `b` of `n x k`.
pub(crate) fn triangular_solve<T: LaScalar>(
    a: &[T],
    b: &[T],
    batch: usize,
    n: usize,
    k: usize,
    lower: bool,
    adjoint: bool,
) -> Vec<T> {
    let mut out = Vec::with_capacity(batch * n * k);
    for i in 0..batch {
        let am = view(&a[i * n * n..(i + 1) * n * n], n, n);
        let mut x = view(&b[i * n * k..(i + 1) * n * k], n, k).to_owned();
        let owned;
        let (m, lower) = if adjoint {
            owned = conj_transpose(am);
            (owned.as_ref(), !lower)
        } else {
            (am, lower)
        };
        if (0..n).any(|d| m[(d, d)] == zero::<T>()) {
            // faer divides by a reciprocal (0 * inf = NaN); plain substitution
            // gives the infinities TensorFlow's kernel returns.
            substitute(m, &mut x, lower);
        } else if lower {
            m.solve_lower_triangular_in_place(x.as_mut());
        } else {
            m.solve_upper_triangular_in_place(x.as_mut());
        }
        push(&mut out, x.as_ref());
    }
    out
}

/// Forward (`lower`) or back substitution, dividing by each diagonal
/// element: for the singular systems where infinities are the answer.
fn substitute<T: LaScalar>(m: MatRef<'_, T>, x: &mut Mat<T>, lower: bool) {
    let n = m.nrows();
    let rows: Vec<usize> = if lower {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    for c in 0..x.ncols() {
        for &i in &rows {
            let mut acc = x[(i, c)];
            let others: Box<dyn Iterator<Item = usize>> = if lower {
                Box::new(0..i)
            } else {
                Box::new(i + 1..n)
            };
            for j in others {
                acc -= m[(i, j)] * x[(j, c)];
            }
            x[(i, c)] = acc.div_c99(m[(i, i)]);
        }
    }
}

/// Whether an LU factorization has an exactly zero pivot.
fn singular<T: LaScalar>(lu: &faer::linalg::solvers::PartialPivLu<T>) -> bool {
    let u = lu.U();
    (0..u.nrows().min(u.ncols())).any(|i| u[(i, i)] == zero::<T>())
}

/// Solves `op(a) x = b` for general square `a` (partial-pivoting LU), `op`
/// the conjugate transpose when `adjoint`.
pub(crate) fn solve<T: LaScalar>(
    a: &[T],
    b: &[T],
    batch: usize,
    n: usize,
    k: usize,
    adjoint: bool,
) -> Result<Vec<T>, Failure> {
    let mut out = Vec::with_capacity(batch * n * k);
    for i in 0..batch {
        let lu = view(&a[i * n * n..(i + 1) * n * n], n, n).partial_piv_lu();
        if singular(&lu) {
            return Err(Failure::Singular);
        }
        let mut x = view(&b[i * n * k..(i + 1) * n * k], n, k).to_owned();
        if adjoint {
            lu.solve_adjoint_in_place(x.as_mut());
        } else {
            lu.solve_in_place(x.as_mut());
        }
        push(&mut out, x.as_ref());
    }
    Ok(out)
}

/// Inverses of `batch` `n x n` matrices (of their conjugate transposes when
/// `adjoint`).
pub(crate) fn inverse<T: LaScalar>(
    a: &[T],
    batch: usize,
    n: usize,
    adjoint: bool,
) -> Result<Vec<T>, Failure> {
    let mut out = Vec::with_capacity(batch * n * n);
    for i in 0..batch {
        let lu = view(&a[i * n * n..(i + 1) * n * n], n, n).partial_piv_lu();
        if singular(&lu) {
            return Err(Failure::Singular);
        }
        let inv = lu.inverse();
        if adjoint {
            push(&mut out, conj_transpose(inv.as_ref()).as_ref());
        } else {
            push(&mut out, inv.as_ref());
        }
    }
    Ok(out)
}

/// The sign (+1 or -1) of a permutation given as its forward array.
fn parity(fwd: &[usize]) -> i32 {
    let mut seen = vec![false; fwd.len()];
    let mut sign = 1;
    for start in 0..fwd.len() {
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut j = start;
        while !seen[j] {
            seen[j] = true;
            j = fwd[j];
            len += 1;
        }
        if len % 2 == 0 {
            sign = -sign;
        }
    }
    sign
}

/// `(sign, log|det|, det)` of each of `batch` `n x n` matrices from its LU
/// factorization; a singular matrix has sign 0, log|det| = -inf and det 0.
/// The sign of a complex determinant is `det / |det|` (a unit complex
/// number, as TensorFlow gives it); log|det| is real.
pub(crate) fn determinants<T: LaScalar>(a: &[T], batch: usize, n: usize) -> Vec<(T, T::R, T)> {
    let one = <T as num_traits::One>::one();
    (0..batch)
        .map(|i| {
            if n == 0 {
                return (one, <T::R as num_traits::Zero>::zero(), one);
            }
            let lu = view(&a[i * n * n..(i + 1) * n * n], n, n).partial_piv_lu();
            let u = lu.U();
            let mut sign = T::of_real(cast::<T::R>(parity(lu.P().arrays().0) as f64));
            let (mut log, mut det) = (<T::R as num_traits::Zero>::zero(), sign);
            for j in 0..n {
                let d = u[(j, j)];
                det *= d;
                if d == zero::<T>() {
                    sign = zero::<T>();
                } else {
                    let r = d.modulus();
                    // `d / |d|`: exactly +-1 for a real `d`.
                    sign *= d / T::of_real(r);
                    log += num_traits::Float::ln(r);
                }
            }
            if sign == zero::<T>() {
                log = <T::R as num_traits::Float>::neg_infinity();
            }
            (sign, log, det)
        })
        .collect()
}

/// QR factors of `batch` `m x n` matrices: `q` is `m x m` and `r` `m x n`
/// when `full`, else `m x k` and `k x n` (`k = min(m, n)`).
pub(crate) fn qr<T: LaScalar>(
    a: &[T],
    batch: usize,
    m: usize,
    n: usize,
    full: bool,
) -> (Vec<T>, Vec<T>) {
    let (mut q, mut r) = (Vec::new(), Vec::new());
    for i in 0..batch {
        let f = view(&a[i * m * n..(i + 1) * m * n], m, n).qr();
        if full {
            push(&mut q, f.compute_Q().as_ref());
            // faer keeps `min(m, n)` rows of `r`; the full factor's others are zero.
            let thin = f.thin_R();
            for i in 0..m {
                for j in 0..n {
                    r.push(if i < thin.nrows() {
                        thin[(i, j)]
                    } else {
                        zero::<T>()
                    });
                }
            }
        } else {
            push(&mut q, f.compute_thin_Q().as_ref());
            push(&mut r, f.thin_R());
        }
    }
    (q, r)
}

/// Eigenvalues (ascending; real, stored as `T`) and, when `vectors`,
/// eigenvectors (as columns) of `batch` self-adjoint `n x n` matrices, of
/// which the lower triangle is read.
pub(crate) fn eigh<T: LaScalar>(
    a: &[T],
    batch: usize,
    n: usize,
    vectors: bool,
) -> Result<(Vec<T>, Vec<T>), Failure> {
    let (mut e, mut v) = (Vec::with_capacity(batch * n), Vec::new());
    for i in 0..batch {
        let x = view(&a[i * n * n..(i + 1) * n * n], n, n);
        if vectors {
            let d = x
                .self_adjoint_eigen(Side::Lower)
                .map_err(|_| Failure::NoConvergence)?;
            let s = d.S().column_vector();
            e.extend((0..n).map(|j| T::of_real(s[j].real_part())));
            push(&mut v, d.U());
        } else {
            e.extend(
                x.self_adjoint_eigenvalues(Side::Lower)
                    .map_err(|_| Failure::NoConvergence)?
                    .into_iter()
                    .map(|r| T::of_real(T::of_faer_real(r))),
            );
        }
    }
    Ok((e, v))
}

/// Singular values (descending, real) and, when `vectors`, the left and
/// right singular vectors (`u`: `m x m` when `full`, else `m x k`; `v`:
/// `n x n` or `n x k`) of `batch` `m x n` matrices.
#[allow(clippy::type_complexity)]
pub(crate) fn svd<T: LaScalar>(
    a: &[T],
    batch: usize,
    m: usize,
    n: usize,
    full: bool,
    vectors: bool,
) -> Result<(Vec<T::R>, Vec<T>, Vec<T>), Failure> {
    let k = m.min(n);
    let (mut s, mut u, mut v) = (Vec::with_capacity(batch * k), Vec::new(), Vec::new());
    for i in 0..batch {
        let x = view(&a[i * m * n..(i + 1) * m * n], m, n);
        if !vectors {
            s.extend(
                x.singular_values()
                    .map_err(|_| Failure::NoConvergence)?
                    .into_iter()
                    .map(T::of_faer_real),
            );
            continue;
        }
        let d = if full { x.svd() } else { x.thin_svd() }.map_err(|_| Failure::NoConvergence)?;
        let sv = d.S().column_vector();
        s.extend((0..k).map(|j| sv[j].real_part()));
        push(&mut u, d.U());
        push(&mut v, d.V());
    }
    Ok((s, u, v))
}

/// Minimum-norm least-squares solutions of `a x = b` (`a`: `m x n`, `b`:
/// `m x k`), through the SVD with singular values below
/// `eps * max(m, n) * s_max` treated as zero (the rank decision of Eigen's
/// complete orthogonal decomposition, which TensorFlow's `fast=False` uses).
pub(crate) fn lstsq_min_norm<T: LaScalar>(
    a: &[T],
    b: &[T],
    batch: usize,
    (m, n, k): (usize, usize, usize),
) -> Result<Vec<T>, Failure> {
    let r = m.min(n);
    let mut out = Vec::with_capacity(batch * n * k);
    for i in 0..batch {
        let x = view(&a[i * m * n..(i + 1) * m * n], m, n);
        let rhs = view(&b[i * m * k..(i + 1) * m * k], m, k);
        let d = x.thin_svd().map_err(|_| Failure::NoConvergence)?;
        let (u, v, s) = (d.U(), d.V(), d.S().column_vector());
        let s: Vec<T::R> = (0..r).map(|p| s[p].real_part()).collect();
        let smax = if r > 0 {
            s[0]
        } else {
            <T::R as num_traits::Zero>::zero()
        };
        let tol = <T::R as num_traits::Float>::epsilon() * cast::<T::R>(m.max(n) as f64) * smax;
        // t = S^+ U^H b (r x k), then x = V t.
        let mut t: Mat<T> = Mat::zeros(r, k);
        for p in 0..r {
            if s[p] > tol {
                for c in 0..k {
                    let mut acc = zero::<T>();
                    for q in 0..m {
                        acc += u[(q, p)].conjugate() * rhs[(q, c)];
                    }
                    t[(p, c)] = acc / T::of_real(s[p]);
                }
            }
        }
        for row in 0..n {
            for c in 0..k {
                let mut acc = zero::<T>();
                for p in 0..r {
                    acc += v[(row, p)] * t[(p, c)];
                }
                out.push(acc);
            }
        }
    }
    Ok(out)
}
