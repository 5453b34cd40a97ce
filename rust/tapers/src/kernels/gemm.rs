//! Matrix products: faer's kernels for floats, a blocked loop for integers,
//! and the scheduling that decides who computes what (faer's own split for
//! large products; two row halves, one on the calling thread, for
//! mid-sized ones). Every split is fixed by the shapes, so the bits never
//! depend on the thread count or on who ran a half.

use faer::{MatMut, MatRef, Par};
use ndarray::{ArcArray, Array3, ArrayD, Axis, IxDyn};
use rayon::prelude::*;

use super::uninit::{product, ChunkOut, Part, ProductFloat};
use super::Arith;

/// Work (multiply-adds) above which one product is split across threads:
/// below it, waking the pool costs more than it saves (measured in
/// `benches/`; the README's Performance section has the figures).
const PAR_FLOPS: usize = 1 << 22;

/// Plain products below this many multiply-adds run as two row halves
/// ([`row_halves`]); above it faer's own split of the whole product wins.
const HALVES_MAX_FLOPS: usize = 1 << 26;

/// Products from this many multiply-adds (and 32 rows) run as two row
/// halves. Below [`PAR_FLOPS`] the halves go to two threads only while a
/// worker is kept awake ([`super::kept_worker_running`]): an MLP's
/// 10-class layer (128x256x10) and its gradients.
const HALVES_MIN_FLOPS: usize = 1 << 17;

/// The float element types faer multiplies (f32, f64), as the kernels need them.
pub(crate) trait GemmFloat: ProductFloat + Send + Sync {}
impl<T: ProductFloat + Send + Sync> GemmFloat for T {}

/// `op(x)` as a faer view of a row-major slice: `rows x cols` is op(x)'s
/// shape, so a transposed operand is stored `cols x rows`.
fn op_view<T>(s: &[T], rows: usize, cols: usize, transposed: bool) -> MatRef<'_, T> {
    if transposed {
        MatRef::from_row_major_slice(s, cols, rows).transpose()
    } else {
        MatRef::from_row_major_slice(s, rows, cols)
    }
}

/// `(m, k)` of op(a) and `(k, n)` of op(b), for operands whose last two
/// dimensions are the matrices (at least two each; `ta`, `tb`: transposed).
pub(crate) fn product_dims(
    sa: &[usize],
    sb: &[usize],
    ta: bool,
    tb: bool,
) -> ((usize, usize), (usize, usize)) {
    let (ra, rb) = (sa.len(), sb.len());
    let lhs = (sa[ra - 2], sa[ra - 1]);
    let rhs = (sb[rb - 2], sb[rb - 1]);
    (
        if ta { (lhs.1, lhs.0) } else { lhs },
        if tb { (rhs.1, rhs.0) } else { rhs },
    )
}

/// Float products via faer: strided views (transposes are free), one call per
/// batch, threads split the output (never the reduction), so results do not
/// depend on the thread count.
pub(crate) fn kernel_float<T>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    batch: &[usize],
    m: usize,
    n: usize,
) -> ArcArray<T, IxDyn>
where
    T: GemmFloat,
{
    // faer multiplies a transposed (column-major) left operand markedly
    // slower than a row-major one. A row-major copy of it costs m*k element
    // moves against m*n*k multiply-adds, so it pays only for wide products;
    // at MLP shapes (narrow n) the copy loses.
    let ((_, k), _) = product_dims(a.shape(), b.shape(), ta, tb);
    if copies_transposed_lhs(ta, n, m * n * k) {
        let r = a.ndim();
        let mut perm: Vec<usize> = (0..r).collect();
        perm.swap(r - 2, r - 1);
        let at = crate::kernels::standard_owned(a.view().permuted_axes(IxDyn(&perm))).into_shared();
        return kernel_float(&at, b, false, tb, batch, m, n);
    }
    let mut shape = batch.to_vec();
    shape.extend([m, n]);
    let nb: usize = batch.iter().product();
    if m * n == 0 {
        return ArrayD::from_shape_vec(IxDyn(&shape), vec![T::zero(); nb * m * n])
            .expect("sizes match")
            .into_shared();
    }
    let work = nb * m * n * k;
    if nb == 1 && a.ndim() == 2 && b.ndim() == 2 && in_row_halves(m, n, k, ta) {
        return with_halves_section(work, |parallel| {
            let (out, _) = super::uninit::in_two_parts(m * n, m / 2 * n, |top, bottom| {
                row_halves(a, b, ta, tb, m, n, k, (top, bottom), parallel)
            });
            ArrayD::from_shape_vec(IxDyn(&shape), out)
                .expect("sizes match")
                .into_shared()
        });
    }
    // The section (if granted) lasts the whole product.
    super::parallel(work, PAR_FLOPS, move |granted| {
        let par = |flops: usize| {
            if granted && flops >= PAR_FLOPS {
                Par::rayon(0)
            } else {
                Par::Seq
            }
        };
        // A batched `a` against a plain matrix `b`: one tall product, no copies of `b`.
        if b.ndim() == 2 && !ta && a.is_standard_layout() && a.shape()[..a.ndim() - 2] == *batch {
            let av =
                MatRef::from_row_major_slice(a.as_slice().expect("standard layout"), nb * m, k);
            let b2 = b.as_standard_layout();
            let bv = op_view(b2.as_slice().expect("standard layout"), k, n, tb);
            let out = product(av, bv, par(work));
            return ArrayD::from_shape_vec(IxDyn(&shape), out)
                .expect("sizes match")
                .into_shared();
        }
        // A plain matrix `a` against a batch of column vectors (a vectorized
        // Jacobian's row products): out[i] = op(a) @ b[i] for all i is one
        // product, [nb, k] @ op(a)^T, whose [nb, m] result is already `out`'s layout.
        if a.ndim() == 2
            && n == 1
            && nb > 1
            && b.is_standard_layout()
            && b.shape()[..b.ndim() - 2] == *batch
        {
            let bv = MatRef::from_row_major_slice(b.as_slice().expect("standard layout"), nb, k);
            let a2 = a.as_standard_layout();
            // op(a)^T: a's storage read as it is when `a` is transposed.
            let at = op_view(a2.as_slice().expect("standard layout"), k, m, !ta);
            let out = product(bv, at, par(nb * m * k));
            return ArrayD::from_shape_vec(IxDyn(&shape), out)
                .expect("sizes match")
                .into_shared();
        }
        let a3 = as_batched(a, batch);
        let b3 = as_batched(b, batch);
        let (asl, bsl) = (
            a3.as_slice().expect("standard layout"),
            b3.as_slice().expect("standard layout"),
        );
        if nb == 1 {
            let out = product(op_view(asl, m, k, ta), op_view(bsl, k, n, tb), par(work));
            return ArrayD::from_shape_vec(IxDyn(&shape), out)
                .expect("sizes match")
                .into_shared();
        }
        let mut out = vec![T::zero(); nb * m * n];
        let one = |i: usize, dst: &mut [T], p: Par| {
            let av = op_view(&asl[i * m * k..(i + 1) * m * k], m, k, ta);
            let bv = op_view(&bsl[i * k * n..(i + 1) * k * n], k, n, tb);
            super::uninit::in_k_slices(MatMut::from_row_major_slice_mut(dst, m, n), av, bv, p);
        };
        if nb > 1 && m * n * k < PAR_FLOPS && granted {
            out.par_chunks_mut(m * n)
                .enumerate()
                .for_each(|(i, dst)| one(i, dst, Par::Seq));
        } else {
            for (i, dst) in out.chunks_mut(m * n).enumerate() {
                one(i, dst, par(m * n * k));
            }
        }
        ArrayD::from_shape_vec(IxDyn(&shape), out)
            .expect("sizes match")
            .into_shared()
    })
}

/// Whether a 2-D `m x k @ k x n` product (`ta`: of a transposed left
/// operand) runs as two row halves ([`row_halves`]): mid-sized plain
/// products (an MLP layer's, 128x784x256) and transposed left operands
/// below the copy's width (weight gradients, `x^T @ d`, at any size).
pub(crate) fn in_row_halves(m: usize, n: usize, k: usize, ta: bool) -> bool {
    let work = m * n * k;
    m >= 32
        && work >= HALVES_MIN_FLOPS
        && (ta || work < HALVES_MAX_FLOPS)
        && !copies_transposed_lhs(ta, n, work)
}

/// Whether [`kernel_float`] multiplies a copy of a transposed left
/// operand made row-major (wide products only: see there).
fn copies_transposed_lhs(ta: bool, n: usize, work: usize) -> bool {
    ta && n >= 512 && work >= PAR_FLOPS
}

/// Runs `halves(parallel)` in the parallel section a row-halves product of
/// `work` multiply-adds gets: the pool from [`PAR_FLOPS`], below it the
/// kept worker only while it runs ([`super::kept_worker_running`]).
fn with_halves_section<R>(work: usize, halves: impl FnOnce(bool) -> R) -> R {
    if work >= PAR_FLOPS {
        return super::parallel(work, PAR_FLOPS, halves);
    }
    if !super::kept_worker_running() {
        return halves(false);
    }
    super::parallel(work, 0, |granted| halves(granted && super::worker_awake()))
}

/// Per row block of a product: `(first row, the block's rows of the
/// product, row-major, one cursor per output)`; it appends the block's
/// rows of every output ([`product_then`]).
pub(crate) type RowEpilogue<'e, T> = dyn Fn(usize, &[T], &mut [ChunkOut<'_, T>]) + Sync + 'e;

/// The 2-D product `op(a) @ op(b)` passed row block by row block through
/// `epilogue`, which writes `outputs` tensors of the product's shape:
/// each half of the rows is computed as [`row_halves`] computes it (the
/// same faer calls, so the product's bits are `MatMul`'s) and handed to
/// `epilogue` by the thread that computed it, while it is in that core's
/// cache. `None` (nothing computed) when `MatMul` would not run the
/// product as row halves: a caller then runs the ops one by one.
pub(crate) fn product_then<T: GemmFloat + num_traits::Zero>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    outputs: usize,
    epilogue: &RowEpilogue<'_, T>,
) -> Option<Vec<Vec<T>>> {
    let (m, n, k) = halves_dims(a.shape(), b.shape(), ta, tb)?;
    let (a, b) = (as_batched(a, &[]), as_batched(b, &[]));
    let mid = m / 2;
    let half = |parts: Vec<Part<'_, T>>, r0: usize, len: usize| {
        let (av, bv) = rows(&a, &b, (ta, tb), (m, n, k), (r0, len));
        let block = product(av, bv, Par::Seq);
        super::uninit::write_parts(parts, |outs| epilogue(r0, &block, outs));
    };
    let (outs, ()) = with_halves_section(m * n * k, |parallel| {
        super::uninit::in_two_parts_each(outputs, m * n, mid * n, |tops, bottoms| {
            both_halves(parallel, (tops, bottoms), (mid, m), half)
        })
    });
    Some(outs)
}

/// `half(top, 0, mid)` and `half(bottom, mid, m - mid)`: side by side in a
/// `parallel` section (a rayon::join on a pool worker, the bottom half to
/// the kept worker's mailbox otherwise), one after the other without one.
fn both_halves<P: Send>(
    parallel: bool,
    (top, bottom): (P, P),
    (mid, m): (usize, usize),
    half: impl Fn(P, usize, usize) + Sync,
) {
    if parallel && rayon::current_thread_index().is_some() {
        rayon::join(|| half(top, 0, mid), || half(bottom, mid, m - mid));
    } else if parallel && super::worker_awake() {
        super::kept_join(|| half(top, 0, mid), || half(bottom, mid, m - mid));
    } else {
        half(top, 0, mid);
        half(bottom, mid, m - mid);
    }
}

/// `(m, n, k)` of the 2-D product `op(a) @ op(b)` of operands shaped `sa`
/// and `sb` when `MatMul` runs it as two row halves ([`in_row_halves`]).
pub(crate) fn halves_dims(
    sa: &[usize],
    sb: &[usize],
    ta: bool,
    tb: bool,
) -> Option<(usize, usize, usize)> {
    if sa.len() != 2 || sb.len() != 2 {
        return None;
    }
    let ((m, k), (k2, n)) = product_dims(sa, sb, ta, tb);
    (k == k2 && in_row_halves(m, n, k, ta)).then_some((m, n, k))
}

/// `dst[i] = f(dst[i], p[i])` for the 2-D product `p = op(a) @ op(b)` and a
/// row-major `dst` of its size: each half of `p`'s rows is computed as
/// [`row_halves`] computes it (the same faer calls, so `MatMul`'s bits) and
/// folded into the same rows of `dst` by the thread that computed it,
/// while it is in that core's cache; `p` is never written whole. Returns
/// `false`, having done nothing, when `MatMul` would not run the product
/// as row halves ([`halves_dims`]) or `dst` is not of its size.
pub(crate) fn product_update<T: GemmFloat>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    (ta, tb): (bool, bool),
    dst: &mut [T],
    f: impl Fn(T, T) -> T + Copy + Send + Sync,
) -> bool {
    let Some((m, n, k)) = halves_dims(a.shape(), b.shape(), ta, tb) else {
        return false;
    };
    if dst.len() != m * n {
        return false;
    }
    let (a, b) = (as_batched(a, &[]), as_batched(b, &[]));
    let mid = m / 2;
    let (top, bottom) = dst.split_at_mut(mid * n);
    let half = |d: &mut [T], r0: usize, len: usize| {
        let (av, bv) = rows(&a, &b, (ta, tb), (m, n, k), (r0, len));
        let p = product(av, bv, Par::Seq);
        super::simd(|| d.iter_mut().zip(&p).for_each(|(v, &p)| *v = f(*v, p)));
    };
    with_halves_section(m * n * k, |parallel| {
        both_halves(parallel, (top, bottom), (mid, m), half)
    });
    true
}

/// Rows `r0..r0 + len` of op(a), and op(b): the operands of one row block
/// of a product of row-major `a` and `b` (`m x k @ k x n` after `ta`, `tb`).
fn rows<'v, T: faer::traits::ComplexField>(
    a: &'v ArcArray<T, ndarray::Ix3>,
    b: &'v ArcArray<T, ndarray::Ix3>,
    (ta, tb): (bool, bool),
    (m, n, k): (usize, usize, usize),
    (r0, len): (usize, usize),
) -> (MatRef<'v, T>, MatRef<'v, T>) {
    let av = op_view(a.as_slice().expect("standard layout"), m, k, ta);
    let bv = op_view(b.as_slice().expect("standard layout"), k, n, tb);
    (av.subrows(r0, len), bv)
}

/// `op(a) @ op(b)` for 2-D operands, written into `out`'s two parts (rows
/// `[0, m / 2)` and the rest of the row-major m x n result) as two row
/// halves, each one sequential product (faer, in slices of a long k:
/// [`super::uninit::in_k_slices`]), so the result is the same bits
/// whoever computes which half and whatever the thread count. Each part is
/// written by the thread that computes it, without being zero-filled first
/// ([`Part::product`]).
///
/// With a parallel section, the calling thread computes the top half while
/// a pool worker computes the bottom one into a buffer of its own, copied
/// in afterwards. If no worker has started on it by the time the top half is
/// done, the caller computes it too. An idle worker can take long to wake,
/// and a caller outside the pool that hands the whole product to the pool
/// (rayon::join, faer's own split) waits for that wake-up and then for its
/// own; here the caller never waits for a worker that has not started.
/// When a worker kept awake between sections is running
/// ([`super::worker_awake`]), the bottom half is handed to it through its
/// mailbox ([`super::kept_join`]) and written in place while the caller
/// computes the top one; the caller then spins until it is done (that
/// worker starts at once; a blocking wait would put the caller to sleep),
/// or computes the bottom half too if the worker has not taken it. On a
/// pool worker (a parallel backward
/// pass) the halves are a rayon::join, whose caller takes back what is not
/// stolen.
///
/// Returns whether a worker computed the bottom half (for tests).
#[allow(clippy::too_many_arguments)]
fn row_halves<T>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    m: usize,
    n: usize,
    k: usize,
    out: (Part<'_, T>, Part<'_, T>),
    parallel: bool,
) -> bool
where
    T: GemmFloat,
{
    // Row-major operands the worker can own (clones unless a copy is needed).
    let (a, b) = (as_batched(a, &[]), as_batched(b, &[]));
    let mid = m / 2;
    let (flags, dims) = ((ta, tb), (m, n, k));
    let (top_rows, bottom_rows) = ((0, mid), (mid, m - mid));
    let part = |dst: Part<'_, T>, r: (usize, usize)| {
        let (av, bv) = rows(&a, &b, flags, dims, r);
        dst.product(av, bv, Par::Seq);
    };
    let (top, bottom) = out;
    if !parallel {
        part(top, top_rows);
        part(bottom, bottom_rows);
        false
    } else if rayon::current_thread_index().is_some() {
        rayon::join(|| part(top, top_rows), || part(bottom, bottom_rows));
        false
    } else if super::worker_awake() {
        // A kept worker is running: it writes the bottom half in place (no
        // buffer of its own to copy in), or the caller does after its own
        // half if the worker has not started it by then.
        #[cfg(test)]
        IN_PLACE.with(|c| c.set(c.get() + 1));
        super::kept_join(|| part(top, top_rows), || part(bottom, bottom_rows));
        true
    } else {
        let handoff = std::sync::Arc::new(Handoff::<T>::default());
        {
            let (a, b, handoff) = (a.clone(), b.clone(), handoff.clone());
            rayon::spawn(move || {
                if handoff.claim() {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let (av, bv) = rows(&a, &b, flags, dims, bottom_rows);
                        product(av, bv, Par::Seq)
                    }));
                    handoff.deliver(r);
                }
            });
        }
        part(top, top_rows);
        if handoff.claim() {
            part(bottom, bottom_rows);
            false
        } else {
            match handoff.wait() {
                Ok(v) => bottom.copied(&v),
                Err(panic) => std::panic::resume_unwind(panic),
            }
            true
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Products this thread computed with a kept worker writing their
    /// bottom half in place (unit tests).
    static IN_PLACE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One piece of work offered to a pool worker: whoever claims it first
/// computes it; the worker delivers its result here.
struct Handoff<T> {
    claimed: std::sync::atomic::AtomicBool,
    done: std::sync::atomic::AtomicBool,
    result: parking_lot::Mutex<Option<std::thread::Result<Vec<T>>>>,
}

impl<T> Default for Handoff<T> {
    fn default() -> Self {
        Handoff {
            claimed: std::sync::atomic::AtomicBool::new(false),
            done: std::sync::atomic::AtomicBool::new(false),
            result: parking_lot::Mutex::new(None),
        }
    }
}

impl<T> Handoff<T> {
    /// True for the first caller only.
    fn claim(&self) -> bool {
        !self.claimed.swap(true, std::sync::atomic::Ordering::AcqRel)
    }

    fn deliver(&self, r: std::thread::Result<Vec<T>>) {
        *self.result.lock() = Some(r);
        self.done.store(true, std::sync::atomic::Ordering::Release);
    }

    /// The worker's result, once it has delivered (it is running: it
    /// claimed the work). The wait is about the time the caller's own half
    /// took, so it spins, yielding the core now and then.
    fn wait(&self) -> std::thread::Result<Vec<T>> {
        let mut spins = 0u32;
        while !self.done.load(std::sync::atomic::Ordering::Acquire) {
            spins += 1;
            if spins % 4096 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        self.result.lock().take().expect("delivered")
    }
}

fn as_batched<T: Copy + Send + Sync>(
    a: &ArcArray<T, IxDyn>,
    batch: &[usize],
) -> ArcArray<T, ndarray::Ix3> {
    let r = a.ndim();
    let (rows, cols) = (a.shape()[r - 2], a.shape()[r - 1]);
    let nb: usize = batch.iter().product();
    let mut full: Vec<usize> = batch.to_vec();
    full.extend([rows, cols]);
    let owned = if a.shape() == full.as_slice() && a.is_standard_layout() {
        a.clone()
    } else {
        crate::kernels::standard_owned(a.broadcast(IxDyn(&full)).expect("batch dims were checked"))
            .into_shared()
    };
    owned
        .into_shape_with_order((nb, rows, cols))
        .expect("element counts match")
}

/// Integer matmul: a plain loop with wrapping arithmetic (TF's integer
/// kernels wrap on overflow; ndarray's would panic in a debug build).
pub(crate) fn kernel_int<T: Arith>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    batch: &[usize],
    m: usize,
    n: usize,
) -> ArcArray<T, IxDyn> {
    let a3 = as_batched(a, batch);
    let b3 = as_batched(b, batch);
    let nb = a3.shape()[0];
    let ((_, k), _) = product_dims(a3.shape(), b3.shape(), ta, tb);
    let mut out = Array3::<T>::zeros((nb, m, n));
    for i in 0..nb {
        let av = a3.index_axis(Axis(0), i);
        let bv = b3.index_axis(Axis(0), i);
        let av = if ta { av.reversed_axes() } else { av };
        let bv = if tb { bv.reversed_axes() } else { bv };
        let mut o = out.index_axis_mut(Axis(0), i);
        for r in 0..m {
            for p in 0..k {
                let x = av[[r, p]];
                for c in 0..n {
                    let d = &mut o[[r, c]];
                    *d = Arith::add(*d, Arith::mul(x, bv[[p, c]]));
                }
            }
        }
    }
    let mut shape = batch.to_vec();
    shape.extend([m, n]);
    out.into_shape_with_order(IxDyn(&shape))
        .expect("element counts match")
        .into_shared()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    fn operands(
        m: usize,
        k: usize,
        n: usize,
        ta: bool,
        tb: bool,
    ) -> (ArcArray<f32, IxDyn>, ArcArray<f32, IxDyn>) {
        let fill = |r: usize, c: usize, s: usize| {
            let v: Vec<f32> = (0..r * c)
                .map(|i| ((i * s) % 997) as f32 / 499.0 - 1.0)
                .collect();
            ArrayD::from_shape_vec(IxDyn(&[r, c]), v)
                .unwrap()
                .into_shared()
        };
        let a = if ta {
            fill(k, m, 7919)
        } else {
            fill(m, k, 7919)
        };
        let b = if tb {
            fill(n, k, 104729)
        } else {
            fill(k, n, 104729)
        };
        (a, b)
    }

    fn halves(
        a: &ArcArray<f32, IxDyn>,
        b: &ArcArray<f32, IxDyn>,
        f: (bool, bool),
        d: (usize, usize, usize),
        parallel: bool,
    ) -> (Vec<f32>, bool) {
        let (m, k, n) = d;
        super::super::uninit::in_two_parts(m * n, m / 2 * n, |top, bottom| {
            row_halves(a, b, f.0, f.1, m, n, k, (top, bottom), parallel)
        })
    }

    /// Whoever computes the bottom half (a worker, or the caller taking it
    /// back), the bits are those of the one-thread split, and they match a
    /// float64 reference.
    #[test]
    fn row_halves_give_the_same_bits_whoever_computes_them() {
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            let d = (129, 784, 256);
            let (a, b) = operands(d.0, d.1, d.2, ta, tb);
            let (alone, _) = halves(&a, &b, (ta, tb), d, false);
            let a64 = a
                .mapv(f64::from)
                .into_dimensionality::<ndarray::Ix2>()
                .unwrap();
            let b64 = b
                .mapv(f64::from)
                .into_dimensionality::<ndarray::Ix2>()
                .unwrap();
            let a64 = if ta { a64.t().to_owned() } else { a64 };
            let b64 = if tb { b64.t().to_owned() } else { b64 };
            let want = a64.dot(&b64);
            for (got, want) in alone.iter().zip(want.iter()) {
                assert!(
                    (f64::from(*got) - want).abs() <= 1e-3 * (1.0 + want.abs()),
                    "{got} vs {want}"
                );
            }
            // A worker takes the bottom half at least once in a few tries.
            let mut seen_worker = false;
            for _ in 0..200 {
                let (out, by_worker) = halves(&a, &b, (ta, tb), d, true);
                assert!(out == alone, "ta={ta} tb={tb} by_worker={by_worker}");
                seen_worker |= by_worker;
                if seen_worker {
                    break;
                }
            }
            assert!(seen_worker || rayon::current_num_threads() < 2);
        }
    }

    /// Inside a section taken while the kept worker was awake, the bottom
    /// half is written in place by the pool, with the one-thread split's bits
    /// (tests run concurrently: sections are retried until granted so).
    #[test]
    fn with_a_worker_awake_the_bottom_half_is_written_in_place() {
        if rayon::current_num_threads() < 2 {
            return;
        }
        let _alone = super::super::SECTION_TESTS
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let d = (129, 784, 256);
        let (a, b) = operands(d.0, d.1, d.2, true, false);
        let (alone, _) = halves(&a, &b, (true, false), d, false);
        let start = std::time::Instant::now();
        let mut done = false;
        while !done && start.elapsed() < std::time::Duration::from_secs(20) {
            super::super::parallel(usize::MAX, 1, |granted| {
                if granted && super::super::worker_awake() {
                    let before = super::IN_PLACE.with(std::cell::Cell::get);
                    let (out, by_worker) = halves(&a, &b, (true, false), d, true);
                    assert!(by_worker && out == alone);
                    assert!(super::IN_PLACE.with(std::cell::Cell::get) > before);
                    done = true;
                }
            });
        }
        assert!(done, "no section found the kept worker awake in 20 s");
    }

    /// A product below the pool's threshold (an MLP's 10-class layer) is
    /// split in row halves too, the bottom one written by the kept worker
    /// when it is running, with the bits of the halves on one thread.
    #[test]
    fn small_products_share_their_halves_with_a_kept_worker() {
        if rayon::current_num_threads() < 2 {
            return;
        }
        let _alone = super::super::SECTION_TESTS
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for (ta, tb, d) in [
            (false, false, (128, 256, 10)),
            (true, false, (256, 128, 10)),
        ] {
            assert!(d.0 * d.1 * d.2 >= HALVES_MIN_FLOPS && d.0 * d.1 * d.2 < PAR_FLOPS);
            let (a, b) = operands(d.0, d.1, d.2, ta, tb);
            let (alone, _) = halves(&a, &b, (ta, tb), d, false);
            let start = std::time::Instant::now();
            let mut done = false;
            while !done && start.elapsed() < std::time::Duration::from_secs(20) {
                // A section wakes the keeper; the product then takes its own.
                super::super::parallel(usize::MAX, 1, |_| ());
                let before = super::IN_PLACE.with(std::cell::Cell::get);
                let out = kernel_float(&a, &b, ta, tb, &[], d.0, d.2);
                assert!(out.as_slice().unwrap() == alone.as_slice(), "ta={ta}");
                done = super::IN_PLACE.with(std::cell::Cell::get) > before;
            }
            assert!(done, "no product found the kept worker running in 20 s");
        }
    }

    /// With every pool worker busy, the caller computes both halves itself
    /// and does not wait for a worker; the offered half, run later, is a no-op.
    #[test]
    fn row_halves_take_back_the_half_no_worker_started() {
        let workers = rayon::current_num_threads();
        let started = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(AtomicBool::new(false));
        for _ in 0..workers {
            let (started, release) = (started.clone(), release.clone());
            rayon::spawn(move || {
                started.fetch_add(1, Ordering::SeqCst);
                while !release.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
            });
        }
        while started.load(Ordering::SeqCst) < workers {
            std::thread::yield_now();
        }
        let d = (64, 128, 96);
        let (a, b) = operands(d.0, d.1, d.2, true, false);
        let (alone, _) = halves(&a, &b, (true, false), d, false);
        let (out, by_worker) = halves(&a, &b, (true, false), d, true);
        release.store(true, Ordering::SeqCst);
        assert!(!by_worker);
        assert!(out == alone);
    }
}
