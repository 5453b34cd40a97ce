//! Forward kernels shared by the op families: typed element loops with
//! broadcasting, dispatched over dtypes by macros.
//!
//! Ops call these; nothing here knows about tapes.

use ndarray::{ArcArray, ArrayD, ArrayViewD, IxDyn, Zip};

mod arith;
mod awake;
pub(crate) mod complex;
pub(crate) mod decomp;
pub(crate) mod gemm;
mod handoff;
pub(crate) mod registered;
pub(crate) mod special;
pub(crate) mod sum;
pub(crate) mod uninit;

pub(crate) use arith::Arith;
pub use awake::keeper_jobs;
pub(crate) use complex::{complex_binary, complex_unary};

use crate::error::Result;
use crate::shape::broadcast_shapes;

/// Compute-bound elementwise work (transcendentals, gradient formulas, fused
/// loops, reductions) above this many elements is split across rayon
/// workers. Splitting is by element index, so results never depend on the
/// thread count.
pub const PAR_THRESHOLD: usize = 1 << 16;

/// The same for memory-bound passes (a load or two and a store per element:
/// arithmetic, comparisons, selects, copies, fills). Handing such a pass to
/// the pool costs more than it saves below about half a million elements
/// (`python3 benches/par_threshold.py` times both sides of this line).
pub const PAR_THRESHOLD_MEMORY: usize = 1 << 19;

/// What an elementwise kernel costs per element, which decides from what
/// size splitting it across the pool pays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// A load or two and a store: arithmetic, comparisons, selects.
    Memory,
    /// Transcendentals and special functions.
    Compute,
}

impl Pass {
    /// The size from which the pass is split across the pool.
    pub const fn threshold(self) -> usize {
        match self {
            Pass::Memory => PAR_THRESHOLD_MEMORY,
            Pass::Compute => PAR_THRESHOLD,
        }
    }
}

static EXTERNAL_PARALLEL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// When a thread last found the pool taken (microseconds since [`epoch`]).
static LAST_CONTENTION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How long after a contended request every thread runs its work inline.
const CONTENTION_WINDOW_US: u64 = 50_000;

thread_local! {
    /// This (non-pool) thread holds the pool: its nested requests are granted.
    static HOLDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// ... and a kept worker was awake when it took it ([`worker_awake`]).
    static WORKER_AWAKE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Held by the unit tests that need this thread granted the pool: run at
/// once, they would keep each other's requests contended.
#[cfg(test)]
pub(crate) static SECTION_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether this thread holds the pool and a worker kept awake between
/// sections was running when it took it: work it hands to the pool starts
/// within microseconds.
pub(crate) fn worker_awake() -> bool {
    HOLDING.with(std::cell::Cell::get) && WORKER_AWAKE.with(std::cell::Cell::get)
}

fn epoch_us() -> u64 {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    // Starts at 1 so that 0 (never contended) is always outside the window.
    EPOCH
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_micros() as u64
        + CONTENTION_WINDOW_US
        + 1
}

/// Permission to split work across the rayon pool, held for the duration of
/// a parallel section.
///
/// Work of at least `threshold` units may go parallel, but only one thread
/// from outside the pool holds the pool at a time, and once two threads have
/// wanted it at once (two Python threads each training their own model),
/// every thread runs its work inline for a while (`CONTENTION_WINDOW_US`):
/// one thread per core beats one thread on the pool's cores while the other
/// time-slices with it, and a training step splits poorly anyway. Code
/// already running on a pool worker (nested parallelism)
/// is always allowed. Either way the results are the same: every parallel
/// split here is deterministic.
struct ParallelSection {
    counted: bool,
    /// Dropped on the thread that took it (it clears a thread-local flag).
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for ParallelSection {
    fn drop(&mut self) {
        if self.counted {
            HOLDING.with(|h| h.set(false));
            EXTERNAL_PARALLEL.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
            WORKER_AWAKE.with(|w| w.set(false));
            awake::keep();
        }
    }
}

/// Sizes the pool the kernels split large work over (`n == 0`: rayon's
/// default, `RAYON_NUM_THREADS` or one thread per core). Only before the pool
/// first runs: afterwards it keeps its size and this returns `false`.
pub fn set_pool_threads(n: usize) -> bool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .is_ok()
}

/// The threads of the pool the kernels split large work over (starting it
/// if it has not run yet).
pub fn pool_threads() -> usize {
    rayon::current_num_threads()
}

/// How a chunked kernel ([`uninit::fill_chunked`]) runs its chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Split {
    /// All on the calling thread.
    Serial,
    /// Across the pool.
    Pool,
    /// Shared between the calling thread and the worker kept awake between
    /// parallel sections ([`awake`]), the caller taking chunks from the
    /// front and the worker from the back ([`share_items`]): for work too
    /// small to pay for the pool's hand-off and wake-ups, but not for one
    /// worker already spinning.
    Kept,
}

impl From<bool> for Split {
    fn from(par: bool) -> Split {
        if par {
            Split::Pool
        } else {
            Split::Serial
        }
    }
}

/// Elements from which a chunked kernel below its pool threshold shares
/// its chunks with a kept-awake worker ([`Split::Kept`]): a training step's
/// activations (a 128 x 256 batch) and their gradients.
pub(crate) const KEPT_MIN: usize = 1 << 14;

/// Whether work of `n` elements below its pool threshold is worth a
/// [`parallel_chunks`] section: large enough, on a thread outside the pool,
/// while a worker is kept awake.
pub(crate) fn worth_sharing(n: usize) -> bool {
    n >= KEPT_MIN && kept_worker_running()
}

/// Whether, on this thread (outside the pool), a section could find the
/// kept worker running ([`awake`]).
pub(crate) fn kept_worker_running() -> bool {
    rayon::current_thread_index().is_none() && awake::alive()
}

/// [`parallel`] for chunked kernels: `f(Split::Pool)` from `threshold`
/// elements when the pool is granted, `f(Split::Kept)` below it when the
/// work is [`worth_sharing`] and the section found the kept worker still
/// running, `f(Split::Serial)` otherwise.
pub(crate) fn parallel_chunks<R>(n: usize, threshold: usize, f: impl FnOnce(Split) -> R) -> R {
    if n >= threshold {
        return parallel(n, threshold, |granted| f(Split::from(granted)));
    }
    if !worth_sharing(n) {
        return f(Split::Serial);
    }
    parallel(n, 0, |granted| {
        f(if granted && worker_awake() {
            Split::Kept
        } else {
            Split::Serial
        })
    })
}

/// Runs `here` on this thread and `there` on the kept-awake worker at the
/// same time (call only when [`worker_awake`]), returning once both are
/// done; `there` runs here after `here` if the worker has not taken it by
/// then. The caller spins for `there` instead of blocking: a blocked
/// thread takes tens of microseconds to wake, and the worker starts at
/// once. A panic in either is raised here after both ended.
pub(crate) fn kept_join<R>(here: impl FnOnce() -> R, there: impl FnOnce() + Send) -> R {
    awake::MAILBOX.join(here, there)
}

/// Runs `run(state, i, item)` for every item, with a `state` of its own per
/// thread made by `init`: this thread takes items from the front and the
/// kept-awake worker ([`Split::Kept`]; call only when [`worker_awake`]) from
/// the back, until they meet. Items laid out as a buffer's consecutive
/// chunks are then split as a row-halves product (`gemm::row_halves`)
/// splits its output, the caller's half first: a pass that reads what such
/// a product just wrote (a bias add, an activation, an update reading a
/// gradient) reads it from the cache of the core that wrote it.
pub(crate) fn share_items<I: Send, S>(
    items: Vec<I>,
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, usize, I) + Sync,
) {
    // Each item is moved out of its slot once (uncontended locks);
    // `[front, back)` is what no one has taken yet.
    let slots: Vec<parking_lot::Mutex<Option<I>>> = items
        .into_iter()
        .map(|i| parking_lot::Mutex::new(Some(i)))
        .collect();
    let left = parking_lot::Mutex::new((0usize, slots.len()));
    let take = |from_front: bool| {
        let mut state = init();
        loop {
            let i = {
                let mut l = left.lock();
                if l.0 >= l.1 {
                    break;
                }
                if from_front {
                    l.0 += 1;
                    l.0 - 1
                } else {
                    l.1 -= 1;
                    l.1
                }
            };
            let item = slots[i].lock().take().expect("each item is taken once");
            run(&mut state, i, item);
        }
    };
    kept_join(|| take(true), || take(false));
}

/// Runs `f` inside a parallel section: `f(true)` when `work >= threshold`
/// and the pool is free for this thread (the permission lasts until `f`
/// returns), `f(false)` otherwise, when `f` must run its work inline.
pub fn parallel<R>(work: usize, threshold: usize, f: impl FnOnce(bool) -> R) -> R {
    let section = parallel_section(work, threshold);
    let r = f(section.is_some());
    drop(section);
    r
}

/// A [`ParallelSection`] if `work >= threshold` and the pool is free for this thread.
fn parallel_section(work: usize, threshold: usize) -> Option<ParallelSection> {
    use std::sync::atomic::Ordering;
    if work < threshold || rayon::current_num_threads() < 2 {
        return None;
    }
    if rayon::current_thread_index().is_some() || HOLDING.with(std::cell::Cell::get) {
        return Some(ParallelSection {
            counted: false,
            _not_send: std::marker::PhantomData,
        });
    }
    let now = epoch_us();
    if EXTERNAL_PARALLEL.fetch_add(1, Ordering::AcqRel) > 0 {
        EXTERNAL_PARALLEL.fetch_sub(1, Ordering::AcqRel);
        LAST_CONTENTION.store(now, Ordering::Relaxed);
        return None;
    }
    if now.saturating_sub(LAST_CONTENTION.load(Ordering::Relaxed)) < CONTENTION_WINDOW_US {
        EXTERNAL_PARALLEL.fetch_sub(1, Ordering::AcqRel);
        return None;
    }
    HOLDING.with(|h| h.set(true));
    let awake = awake::keep();
    WORKER_AWAKE.with(|w| w.set(awake));
    Some(ParallelSection {
        counted: true,
        _not_send: std::marker::PhantomData,
    })
}

/// Runs `body` under pulp's runtime SIMD dispatch: the loops it inlines are
/// compiled for the best instruction set the CPU has (the wheels' baseline
/// x86-64 target has only SSE2). Nothing is contracted into fused
/// multiply-adds, so a loop gives the bits it gives without dispatch.
#[inline(always)]
pub(crate) fn simd<R>(body: impl FnOnce() -> R) -> R {
    struct Job<F>(F);
    impl<R, F: FnOnce() -> R> pulp::WithSimd for Job<F> {
        type Output = R;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) -> R {
            (self.0)()
        }
    }
    pulp::Arch::new().dispatch(Job(body))
}

/// Elements per chunk of an in-place update split across the pool.
const UPDATE_CHUNK: usize = 1 << 12;

/// `body` over matching chunks of equally long buffers, `muts` updated in
/// place and `reads` only read (an optimizer's variable and slots, its
/// gradient): under SIMD dispatch ([`simd`]), split across the pool from
/// `threshold` elements. An elementwise body gives the same bits at any
/// split.
pub(crate) fn update_in_chunks<T: Send + Sync, const M: usize, const R: usize>(
    muts: [&mut [T]; M],
    reads: [&[T]; R],
    threshold: usize,
    body: impl Fn(&mut [&mut [T]; M], [&[T]; R]) + Sync + Send,
) {
    use rayon::prelude::*;
    let n = muts.first().map_or(0, |s| s.len());
    debug_assert!(muts.iter().all(|s| s.len() == n) && reads.iter().all(|s| s.len() == n));
    parallel_chunks(n, threshold, move |split| {
        let mut muts = muts;
        if split == Split::Serial {
            return simd(|| body(&mut muts, reads));
        }
        let mut parts = muts.map(|s| s.chunks_mut(UPDATE_CHUNK));
        let chunks: Vec<_> = (0..n.div_ceil(UPDATE_CHUNK))
            .map(|c| {
                let lo = c * UPDATE_CHUNK;
                let hi = (lo + UPDATE_CHUNK).min(n);
                let m = std::array::from_fn(|j| parts[j].next().expect("same lengths"));
                (m, reads.map(|r| &r[lo..hi]))
            })
            .collect();
        if split == Split::Kept {
            share_items(chunks, || (), |_, _, (mut m, r)| simd(|| body(&mut m, r)));
        } else {
            chunks
                .into_par_iter()
                .for_each(|(mut m, r)| simd(|| body(&mut m, r)));
        }
    });
}

/// An owned, row-major copy of any view (broadcast, permuted or sliced).
///
/// ndarray's `to_owned`/`as_standard_layout` walk a non-contiguous view
/// element by element through dynamic-rank indexing. Here `Zip` writes a
/// prefilled row-major buffer along its innermost axis instead, in parallel
/// when large.
pub fn standard_owned<T: Copy + Send + Sync>(v: ArrayViewD<'_, T>) -> ArrayD<T> {
    if v.is_standard_layout() {
        return v.to_owned();
    }
    let Some(&first) = v.iter().next() else {
        return ArrayD::from_shape_vec(v.raw_dim(), Vec::new()).expect("no elements");
    };
    let mut out = ArrayD::from_elem(v.raw_dim(), first);
    let nd = v.ndim();
    if nd >= 2
        && v.strides()[nd - 2] == 1
        && v.shape()[nd - 1] > 1
        && v.shape()[nd - 2] > 1
        && transpose_tiled(v.view(), out.view_mut())
    {
        return out;
    }
    let z = Zip::from(&mut out).and(&v);
    parallel(v.len(), PAR_THRESHOLD_MEMORY, |par| {
        if par {
            z.par_for_each(|o, &x| *o = x);
        } else {
            z.for_each(|o, &x| *o = x);
        }
    });
    out
}

/// Copies `v`, whose second-to-last axis is the contiguous one (a transposed
/// matrix or batch of them), into the row-major `out` in square tiles. A
/// row-by-row copy reads each output row's elements a whole column apart,
/// one cache line per element, and at power-of-two widths those lines all
/// fall in the same cache set. Each 64x64 tile (the best size measured in
/// `benches/`) is instead read as 64 contiguous column pieces into a small
/// buffer and written out as 64 contiguous row pieces, so every line is read
/// and written whole. Row blocks run in parallel when
/// large; each element is a plain copy, so the split cannot change the
/// result. Returns `false` (nothing written) when the matrices are not
/// transposes of contiguous memory.
fn transpose_tiled<T: Copy + Send + Sync>(
    v: ArrayViewD<'_, T>,
    mut out: ndarray::ArrayViewMutD<'_, T>,
) -> bool {
    use ndarray::Ix2;
    use rayon::prelude::*;
    const B: usize = 64;
    let nd = v.ndim();
    if nd > 2 {
        // One matrix at a time: recursion over the first axis ends at rank 2.
        // The matrices share their strides, so if they are not transposes of
        // contiguous memory the first call says so before writing anything.
        return v
            .outer_iter()
            .zip(out.outer_iter_mut())
            .all(|(sv, so)| transpose_tiled(sv, so));
    }
    let src = v.into_dimensionality::<Ix2>().expect("rank 2");
    let (m, n) = src.dim();
    let at = src.t();
    // `a` is the matrix in memory: n rows of m; output (i, j) is a[j * m + i].
    let (Some(a), Some(d)) = (at.as_slice(), out.as_slice_mut()) else {
        return false;
    };
    let block = |(blk, d): (usize, &mut [T])| {
        let i0 = blk * B;
        let rows = d.len() / n;
        let mut buf = [a[0]; B * B];
        for j0 in (0..n).step_by(B) {
            let cols = B.min(n - j0);
            for c in 0..cols {
                let j = j0 + c;
                for (r, &x) in a[j * m + i0..j * m + i0 + rows].iter().enumerate() {
                    buf[r * B + c] = x;
                }
            }
            for r in 0..rows {
                d[r * n + j0..r * n + j0 + cols].copy_from_slice(&buf[r * B..r * B + cols]);
            }
        }
    };
    parallel(m * n, PAR_THRESHOLD_MEMORY, |par| {
        if par {
            d.par_chunks_mut(B * n).enumerate().for_each(block);
        } else {
            d.chunks_mut(B * n).enumerate().for_each(block);
        }
    });
    true
}

/// Materializes `a` broadcast to `shape` (which the caller checked it
/// broadcasts to). The gradient of every full reduction is such a broadcast
/// of one element: that case is a fill.
pub fn broadcast_owned<T: Copy + Send + Sync>(
    a: &ArcArray<T, IxDyn>,
    shape: &[usize],
) -> ArrayD<T> {
    use rayon::prelude::*;
    let n: usize = shape.iter().product();
    if a.len() == 1 && n > 0 {
        let v = *a.iter().next().expect("one element");
        let mut out = Vec::with_capacity(n);
        parallel(n, PAR_THRESHOLD_MEMORY, |par| {
            if par {
                out.par_extend(rayon::iter::repeat_n(v, n));
            } else {
                out.resize(n, v);
            }
        });
        return ArrayD::from_shape_vec(IxDyn(shape), out).expect("same size");
    }
    // A column or a row repeated (the gradient of a `keepdims` reduction,
    // a bias row): stretches of one value or of consecutive elements, copied
    // as such instead of element by element through dynamic-rank indexing
    // (on this thread: from the pool's threshold the general copy below is
    // split across the pool).
    if n < PAR_THRESHOLD_MEMORY {
        if let Some(t) = Tiled::of(a, shape) {
            let mut out = Vec::with_capacity(n);
            let (mut pos, mut cur) = (0, t.cursor(0));
            while pos < n {
                let (y, r) = cur.seg();
                let seg = (n - pos).min(r);
                match y {
                    Seg::One(v) => out.extend(std::iter::repeat_n(v, seg)),
                    Seg::Run(q) => out.extend_from_slice(&q[..seg]),
                }
                cur.advance(seg);
                pos += seg;
            }
            return ArrayD::from_shape_vec(IxDyn(shape), out).expect("same size");
        }
    }
    standard_owned(a.broadcast(IxDyn(shape)).expect("shapes were checked"))
}

/// Runs `f` over `src` into `dst` inside pulp's runtime SIMD dispatch: the
/// loop is compiled once per instruction set (AVX2/FMA-era x86-64 among them)
/// and the best one the CPU has is picked, where the baseline x86-64 target
/// that wheels are built for only has SSE2.
struct SimdMap<'a, 'b, A, C, F> {
    src: &'a [A],
    dst: &'a mut crate::kernels::uninit::ChunkOut<'b, C>,
    f: &'a F,
}

impl<A: Copy, C, F: Fn(A) -> C> pulp::WithSimd for SimdMap<'_, '_, A, C, F> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let f = self.f;
        self.dst.extend(self.src.iter().map(|&x| f(x)));
    }
}

/// [`map`] for compute-bound kernels (transcendentals): contiguous inputs run
/// through pulp's runtime SIMD dispatch, in parallel chunks when large, each
/// output element written once (no zero-filled output first); cheap,
/// memory-bound kernels use [`map`].
pub fn map_simd<A, C>(a: &ArcArray<A, IxDyn>, f: impl Fn(A) -> C + Sync + Send) -> ArrayD<C>
where
    A: Copy + Send + Sync,
    C: Copy + Send + Sync,
{
    match a.as_slice().filter(|s| !s.is_empty()) {
        Some(s) => map_chunked(a, s, PAR_THRESHOLD, f),
        None => map(a, f),
    }
}

/// `f` over the contiguous elements `s` of `a` in chunks of 4K elements (input
/// and output chunk stay in L1/L2), under pulp's SIMD dispatch, in parallel
/// from `threshold` elements.
fn map_chunked<A, C>(
    a: &ArcArray<A, IxDyn>,
    s: &[A],
    threshold: usize,
    f: impl Fn(A) -> C + Sync + Send,
) -> ArrayD<C>
where
    A: Copy + Send + Sync,
    C: Copy + Send + Sync,
{
    let arch = pulp::Arch::new();
    const K: usize = 1 << 12;
    let work = vec![(); s.len().div_ceil(K)];
    let out = parallel_chunks(s.len(), threshold, |split| {
        crate::kernels::uninit::fill_chunked::<C, (), (), K>(
            s.len(),
            split,
            work,
            || (),
            |_, c, _, dst| {
                let src = &s[c * K..c * K + dst.len()];
                arch.dispatch(SimdMap { src, dst, f: &f })
            },
        )
    });
    ArrayD::from_shape_vec(a.raw_dim(), out).expect("same size")
}

/// Applies `f` (a compute-bound formula) to every element.
pub fn map<A, C>(a: &ArcArray<A, IxDyn>, f: impl Fn(A) -> C + Sync + Send) -> ArrayD<C>
where
    A: Copy + Send + Sync,
    C: Copy + Send + Sync,
{
    map_pass(a, Pass::Compute, f)
}

/// [`map`] for a memory-bound formula (a negation, a comparison with 0).
pub fn map_memory<A, C>(a: &ArcArray<A, IxDyn>, f: impl Fn(A) -> C + Sync + Send) -> ArrayD<C>
where
    A: Copy + Send + Sync,
    C: Copy + Send + Sync,
{
    map_pass(a, Pass::Memory, f)
}

fn map_pass<A, C>(a: &ArcArray<A, IxDyn>, pass: Pass, f: impl Fn(A) -> C + Sync + Send) -> ArrayD<C>
where
    A: Copy + Send + Sync,
    C: Copy + Send + Sync,
{
    // Large and contiguous: chunks written in place (ndarray's parallel
    // `map_collect` splits into pieces too small to vectorize).
    if let Some(s) = a
        .as_slice()
        .filter(|s| s.len() >= pass.threshold() || worth_sharing(s.len()))
    {
        return map_chunked(a, s, pass.threshold(), f);
    }
    parallel(a.len(), pass.threshold(), |par| {
        if par {
            Zip::from(a).par_map_collect(|&x| f(x))
        } else if let Some(s) = a.as_slice() {
            // Small and contiguous (scalars included): a plain loop, no Zip machinery.
            ArrayD::from_shape_vec(a.raw_dim(), s.iter().map(|&x| f(x)).collect())
                .expect("same size")
        } else {
            a.map(|&x| f(x))
        }
    })
}

/// Applies `f` (a compute-bound formula) to every pair of elements of `a`
/// and `b` broadcast together.
pub fn zip_map<A, B, C>(
    op: &'static str,
    a: &ArcArray<A, IxDyn>,
    b: &ArcArray<B, IxDyn>,
    f: impl Fn(A, B) -> C + Sync + Send,
) -> Result<ArrayD<C>>
where
    A: Copy + Send + Sync,
    B: Copy + Send + Sync,
    C: crate::tensor::Element,
{
    zip_map_pass(op, Pass::Compute, a, b, f)
}

/// [`zip_map`] for a memory-bound formula (arithmetic, comparisons).
pub fn zip_map_memory<A, B, C>(
    op: &'static str,
    a: &ArcArray<A, IxDyn>,
    b: &ArcArray<B, IxDyn>,
    f: impl Fn(A, B) -> C + Sync + Send,
) -> Result<ArrayD<C>>
where
    A: Copy + Send + Sync,
    B: Copy + Send + Sync,
    C: crate::tensor::Element,
{
    zip_map_pass(op, Pass::Memory, a, b, f)
}

fn zip_map_pass<A, B, C>(
    op: &'static str,
    pass: Pass,
    a: &ArcArray<A, IxDyn>,
    b: &ArcArray<B, IxDyn>,
    f: impl Fn(A, B) -> C + Sync + Send,
) -> Result<ArrayD<C>>
where
    A: Copy + Send + Sync,
    B: Copy + Send + Sync,
    C: crate::tensor::Element,
{
    if a.shape() == b.shape() && a.len() < pass.threshold() && !worth_sharing(a.len()) {
        if let (Some(p), Some(q)) = (a.as_slice(), b.as_slice()) {
            // Same shape, small, contiguous (scalars included): a plain loop.
            let v: Vec<C> = p.iter().zip(q).map(|(&x, &y)| f(x, y)).collect();
            return Ok(ArrayD::from_shape_vec(a.raw_dim(), v).expect("same size"));
        }
    }
    let shape = broadcast_shapes(op, a.shape(), b.shape())?;
    crate::tensor::check_alloc(&shape, C::DTYPE)?;
    if let (Some(p), Some(q)) = (Tiled::of(a, &shape), Tiled::of(b, &shape)) {
        return Ok(zip_tiled(&shape, pass, p, q, f));
    }
    let sh = IxDyn(&shape);
    // Broadcasting to the common shape cannot fail: `broadcast_shapes` checked it.
    let av = a.broadcast(sh.clone()).expect("shapes were checked");
    let bv = b.broadcast(sh).expect("shapes were checked");
    let z = Zip::from(av).and(bv);
    Ok(parallel(shape.iter().product(), pass.threshold(), |par| {
        if par {
            z.par_map_collect(|&x, &y| f(x, y))
        } else {
            z.map_collect(|&x, &y| f(x, y))
        }
    }))
}

/// An operand of a broadcast binary op read straight from its contiguous
/// memory: its shape, leading ones aside, is a run of the output's
/// dimensions followed by ones, so in the output's row-major order its
/// element `j` repeats `inner` times in a row (the product of the output
/// dimensions it is broadcast over at the end) and the whole repeats with
/// period `len * inner`. A scalar (`x * 0.01`) is one element repeated; a
/// bias row added to every row of a matrix has `inner == 1`; a per-row value
/// (`z - reduce_max(z, axis=1, keepdims=True)`) is a column with `inner` the
/// row length.
#[derive(Clone, Copy)]
struct Tiled<'a, T> {
    s: &'a [T],
    inner: usize,
}

/// A stretch of a [`Tiled`] operand: one repeated value, or consecutive
/// elements.
#[derive(Clone, Copy)]
enum Seg<'a, T> {
    One(T),
    Run(&'a [T]),
}

impl<'a, T: Copy> Tiled<'a, T> {
    /// Stretches shorter than this on average go through ndarray's `Zip`
    /// (loop overhead per stretch would cost more than it saves).
    const MIN_RUN: usize = 4;

    fn of(a: &'a ArcArray<T, IxDyn>, out: &[usize]) -> Option<Self> {
        let s = a.as_slice()?;
        let n: usize = out.iter().product();
        if s.len() == 1 {
            return Some(Tiled { s, inner: n.max(1) });
        }
        let dims = a.shape();
        let lead = dims.iter().take_while(|&&d| d == 1).count();
        let tail = &dims[lead..];
        if tail.len() > out.len() {
            return None;
        }
        let ones = tail.iter().rev().take_while(|&&d| d == 1).count();
        let core = &tail[..tail.len() - ones];
        let at = out.len() - tail.len();
        if out[at..at + core.len()] != *core {
            return None;
        }
        let inner: usize = out[at + core.len()..].iter().product();
        let long = if inner == 1 {
            s.len() >= Self::MIN_RUN || s.len() == n
        } else {
            inner >= Self::MIN_RUN
        };
        long.then_some(Tiled { s, inner })
    }

    /// A cursor at output position `pos` (the only divisions of a walk).
    /// An empty operand or output has no stretch to walk: its cursor is
    /// never read.
    #[inline(always)]
    fn cursor(self, pos: usize) -> Cursor<'a, T> {
        let (j, k) = if self.inner == 0 || self.s.is_empty() {
            (0, 0)
        } else {
            ((pos / self.inner) % self.s.len(), pos % self.inner)
        };
        Cursor { t: self, j, k }
    }
}

/// A walk over a [`Tiled`] operand, stretch by stretch: a loop over a
/// `[rows, 10] - [rows, 1]` broadcast takes ten elements per stretch, so the
/// position arithmetic must cost a few additions, not divisions.
struct Cursor<'a, T> {
    t: Tiled<'a, T>,
    /// Index into `t.s` of the current element or run.
    j: usize,
    /// Position within the current element's `inner` repeats.
    k: usize,
}

impl<'a, T: Copy> Cursor<'a, T> {
    /// The operand from the cursor on, and for how many elements that
    /// stretch holds.
    #[inline(always)]
    fn seg(&self) -> (Seg<'a, T>, usize) {
        let s = self.t.s;
        if self.t.inner == 1 {
            (Seg::Run(&s[self.j..]), s.len() - self.j)
        } else {
            (Seg::One(s[self.j]), self.t.inner - self.k)
        }
    }

    /// Moves on by `n` elements, at most to the end of the current stretch.
    #[inline(always)]
    fn advance(&mut self, n: usize) {
        let len = self.t.s.len();
        if self.t.inner == 1 {
            self.j += n;
        } else {
            self.k += n;
            if self.k == self.t.inner {
                self.k = 0;
                self.j += 1;
            }
        }
        if self.j == len {
            self.j = 0;
        }
    }
}

/// Whether `a` broadcast to `shape` is `shape` and reads as a [`Tiled`]
/// operand, so that [`zip_in_place`] can apply it to an array of `shape`.
pub(crate) fn tiles_onto<T: Copy>(a: &ArcArray<T, IxDyn>, shape: &[usize]) -> bool {
    a.ndim() <= shape.len() && Tiled::of(a, shape).is_some()
}

/// `dst[i] = f(dst[i], src broadcast[i])` over `dst`'s own buffer (copied
/// first if another array shares it: `ArcArray`'s copy-on-write), with the
/// elements [`zip_map`] would give for `f(dst, src)`. `src` must tile onto
/// `dst`'s shape ([`tiles_onto`]). Returns whether the buffer was written in
/// place (unshared).
pub(crate) fn zip_in_place<T: Copy + Send + Sync>(
    dst: &mut ArcArray<T, IxDyn>,
    src: &ArcArray<T, IxDyn>,
    f: impl Fn(T, T) -> T + Copy + Sync + Send,
) -> bool {
    use rayon::prelude::*;
    const K: usize = 1 << 12;
    let unique = dst.is_unique();
    if !dst.is_standard_layout() {
        *dst = standard_owned(dst.view()).into_shared();
    }
    let shape = dst.shape().to_vec();
    let t = Tiled::of(src, &shape).expect("the caller checked that src tiles onto dst");
    let d = dst.as_slice_mut().expect("standard layout");
    let n = d.len();
    // `move`: a copy of `f` of its own, so that what `f` captures stays in
    // registers instead of being read back through a reference at every
    // element (which also keeps the loop from vectorizing).
    let body = move |(c, chunk): (usize, &mut [T])| {
        let (mut at, mut cur) = (0, t.cursor(c * K));
        while at < chunk.len() {
            let (y, r) = cur.seg();
            let seg = (chunk.len() - at).min(r);
            let out = &mut chunk[at..at + seg];
            match y {
                Seg::One(y) => out.iter_mut().for_each(|x| *x = f(*x, y)),
                Seg::Run(q) => out
                    .iter_mut()
                    .zip(&q[..seg])
                    .for_each(|(x, &y)| *x = f(*x, y)),
            }
            cur.advance(seg);
            at += seg;
        }
    };
    parallel_chunks(n, PAR_THRESHOLD_MEMORY, |split| match split {
        Split::Pool => d
            .par_chunks_mut(K)
            .enumerate()
            .for_each(|c| simd(|| body(c))),
        Split::Kept => share_items(
            d.chunks_mut(K).collect(),
            || (),
            |_, c, chunk| simd(|| body((c, chunk))),
        ),
        Split::Serial => simd(|| d.chunks_mut(K).enumerate().for_each(body)),
    });
    unique
}

/// [`zip_map`] over [`Tiled`] operands: each output chunk is walked in
/// stretches within which both operands are contiguous or one repeated
/// value, so the loop is a plain slice loop instead of `Zip`'s per-element
/// indexing of broadcast views. Each element is `f` of the same pair as
/// through `Zip`, so the values are the same bits.
fn zip_tiled<A, B, C>(
    shape: &[usize],
    pass: Pass,
    a: Tiled<'_, A>,
    b: Tiled<'_, B>,
    f: impl Fn(A, B) -> C + Sync + Send,
) -> ArrayD<C>
where
    A: Copy + Send + Sync,
    B: Copy + Send + Sync,
    C: Send,
{
    const K: usize = 1 << 12;
    let n: usize = shape.iter().product();
    let work = vec![(); n.div_ceil(K)];
    let out = parallel_chunks(n, pass.threshold(), |split| {
        crate::kernels::uninit::fill_chunked::<C, (), (), K>(
            n,
            split,
            work,
            || (),
            |_, c, _, dst| {
                simd(|| {
                    let (mut pos, end) = (c * K, c * K + dst.len());
                    let (mut ca, mut cb) = (a.cursor(pos), b.cursor(pos));
                    while pos < end {
                        let ((x, ra), (y, rb)) = (ca.seg(), cb.seg());
                        let seg = (end - pos).min(ra).min(rb);
                        match (x, y) {
                            (Seg::Run(p), Seg::Run(q)) => {
                                dst.extend(p[..seg].iter().zip(&q[..seg]).map(|(&x, &y)| f(x, y)))
                            }
                            (Seg::One(x), Seg::Run(q)) => {
                                dst.extend(q[..seg].iter().map(|&y| f(x, y)))
                            }
                            (Seg::Run(p), Seg::One(y)) => {
                                dst.extend(p[..seg].iter().map(|&x| f(x, y)))
                            }
                            (Seg::One(x), Seg::One(y)) => dst.extend((0..seg).map(|_| f(x, y))),
                        }
                        ca.advance(seg);
                        cb.advance(seg);
                        pos += seg;
                    }
                })
            },
        )
    });
    ArrayD::from_shape_vec(IxDyn(shape), out).expect("same size")
}

/// Applies `f` to every triple of elements broadcast together.
pub fn zip3_map<A, B, C, D>(
    op: &'static str,
    pass: Pass,
    a: &ArcArray<A, IxDyn>,
    b: &ArcArray<B, IxDyn>,
    c: &ArcArray<C, IxDyn>,
    f: impl Fn(A, B, C) -> D + Sync + Send,
) -> Result<ArrayD<D>>
where
    A: Copy + Send + Sync,
    B: Copy + Send + Sync,
    C: Copy + Send + Sync,
    D: crate::tensor::Element,
{
    let ab = broadcast_shapes(op, a.shape(), b.shape())?;
    let shape = broadcast_shapes(op, &ab, c.shape())?;
    crate::tensor::check_alloc(&shape, D::DTYPE)?;
    let n: usize = shape.iter().product();
    if n >= pass.threshold() || worth_sharing(n) {
        if let (Some(p), Some(q), Some(r)) = (
            Whole::of(a, &shape),
            Whole::of(b, &shape),
            Whole::of(c, &shape),
        ) {
            return Ok(zip3_chunked(&shape, pass, p, q, r, f));
        }
    }
    let sh = IxDyn(&shape);
    let av = a.broadcast(sh.clone()).expect("shapes were checked");
    let bv = b.broadcast(sh.clone()).expect("shapes were checked");
    let cv = c.broadcast(sh).expect("shapes were checked");
    let z = Zip::from(av).and(bv).and(cv);
    Ok(parallel(shape.iter().product(), pass.threshold(), |par| {
        if par {
            z.par_map_collect(|&x, &y, &w| f(x, y, w))
        } else {
            z.map_collect(|&x, &y, &w| f(x, y, w))
        }
    }))
}

/// An operand of [`zip3_map`] read straight from memory: all of the
/// output's elements in row-major order, or one element for all of them.
enum Whole<'a, T> {
    All(&'a [T]),
    One(T),
}

impl<'a, T: Copy> Whole<'a, T> {
    fn of(a: &'a ArcArray<T, IxDyn>, shape: &[usize]) -> Option<Self> {
        match a.as_slice() {
            Some(s) if a.shape() == shape => Some(Whole::All(s)),
            Some(&[v]) => Some(Whole::One(v)),
            _ => None,
        }
    }

    /// Elements `lo..lo + len` (`copies`: at least `len` copies of a one
    /// element operand).
    fn at<'b>(&'b self, lo: usize, len: usize, copies: &'b [T]) -> &'b [T] {
        match self {
            Whole::All(s) => &s[lo..lo + len],
            Whole::One(_) => &copies[..len],
        }
    }

    fn copies(&self, len: usize) -> Vec<T> {
        match self {
            Whole::All(_) => Vec::new(),
            Whole::One(v) => vec![*v; len],
        }
    }
}

/// [`zip3_map`] over contiguous or one-element operands: 4K-element chunks
/// written in place under pulp's SIMD dispatch, in parallel when large.
fn zip3_chunked<A, B, C, D>(
    shape: &[usize],
    pass: Pass,
    a: Whole<'_, A>,
    b: Whole<'_, B>,
    c: Whole<'_, C>,
    f: impl Fn(A, B, C) -> D + Sync + Send,
) -> ArrayD<D>
where
    A: Copy + Send + Sync,
    B: Copy + Send + Sync,
    C: Copy + Send + Sync,
    D: crate::tensor::Element,
{
    const K: usize = 1 << 12;
    struct Job<'a, 'b, A, B, C, D, F> {
        a: &'a [A],
        b: &'a [B],
        c: &'a [C],
        dst: &'a mut crate::kernels::uninit::ChunkOut<'b, D>,
        f: &'a F,
    }
    impl<A: Copy, B: Copy, C: Copy, D, F: Fn(A, B, C) -> D> pulp::WithSimd
        for Job<'_, '_, A, B, C, D, F>
    {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) {
            let f = self.f;
            let vals = self.a.iter().zip(self.b).zip(self.c);
            self.dst.extend(vals.map(|((&x, &y), &z)| f(x, y, z)));
        }
    }
    let n: usize = shape.iter().product();
    let copies = (a.copies(K.min(n)), b.copies(K.min(n)), c.copies(K.min(n)));
    let arch = pulp::Arch::new();
    let out = parallel_chunks(n, pass.threshold(), |split| {
        crate::kernels::uninit::fill_chunked::<D, (), (), K>(
            n,
            split,
            vec![(); n.div_ceil(K)],
            || (),
            |_, k, _, dst| {
                let (lo, len) = (k * K, dst.len());
                arch.dispatch(Job {
                    a: a.at(lo, len, &copies.0),
                    b: b.at(lo, len, &copies.1),
                    c: c.at(lo, len, &copies.2),
                    dst,
                    f: &f,
                })
            },
        )
    });
    ArrayD::from_shape_vec(IxDyn(shape), out).expect("same size")
}

/// float16 and bfloat16: stored in 16 bits, computed in float32 (each result
/// rounded once, as TensorFlow's CPU kernels do).
pub(crate) trait Half: crate::tensor::Element {
    /// The value as float32 (exact).
    fn widen(self) -> f32;
    /// `v` rounded to nearest even.
    fn narrow(v: f32) -> Self;
}

impl Half for crate::dtype::f16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(v: f32) -> Self {
        Self::from_f32(v)
    }
}

impl Half for crate::dtype::bf16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(v: f32) -> Self {
        Self::from_f32(v)
    }
}

/// What a half kernel's float32 result becomes: a float is rounded to the
/// half type `H`, a bool (a comparison, `is_nan`) stays a bool.
pub(crate) trait Narrow<H> {
    /// The element type of the result.
    type Out;
    /// The result as stored.
    fn narrow(self) -> Self::Out;
}

impl<H: Half> Narrow<H> for f32 {
    type Out = H;
    #[inline(always)]
    fn narrow(self) -> H {
        H::narrow(self)
    }
}

impl<H: Half> Narrow<H> for bool {
    type Out = bool;
    #[inline(always)]
    fn narrow(self) -> bool {
        self
    }
}

/// The match of a unary dispatch: one arm per listed dtype running `$body`
/// on its elements, one per half dtype running it in float32 and rounding.
/// Which dtypes an op computes on is decided before (`registered::check`).
macro_rules! unary_arms {
    ($op:expr, $t:expr, $map:ident, |$x:ident| $body:expr,
     [$($v:ident: $ty:ty),*], $allowed:expr) => {{
        let t: &$crate::Tensor = $t;
        $crate::kernels::registered::check($op, t.dtype()).and_then(|_| match t.storage() {
            $($crate::Storage::$v(a) => Ok($crate::Tensor::from_array($crate::kernels::$map(
                a,
                |$x: $ty| $body,
            ))),)*
            $crate::Storage::F16(a) => Ok($crate::Tensor::from_array($crate::kernels::$map(
                a,
                |h: $crate::dtype::f16| {
                    let $x: f32 = $crate::kernels::Half::widen(h);
                    $crate::kernels::Narrow::<$crate::dtype::f16>::narrow($body)
                },
            ))),
            $crate::Storage::BF16(a) => Ok($crate::Tensor::from_array($crate::kernels::$map(
                a,
                |h: $crate::dtype::bf16| {
                    let $x: f32 = $crate::kernels::Half::widen(h);
                    $crate::kernels::Narrow::<$crate::dtype::bf16>::narrow($body)
                },
            ))),
            _ => Err($crate::Error::UnsupportedDType {
                op: $op,
                dtype: t.dtype(),
                allowed: $allowed,
            }),
        })
    }};
}
pub(crate) use unary_arms;

/// The match of a binary dispatch with broadcasting (see [`unary_arms!`]).
macro_rules! binary_arms {
    ($op:expr, $zip:ident, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr,
     [$($v:ident: $ty:ty),*], $allowed:expr) => {{
        let (a, b): (&$crate::Tensor, &$crate::Tensor) = ($a, $b);
        $crate::kernels::same_dtype($op, a, b)
            .and_then(|_| $crate::kernels::registered::check($op, a.dtype()))
            .and_then(|_| match (a.storage(), b.storage()) {
                $(($crate::Storage::$v(p), $crate::Storage::$v(q)) => {
                    $crate::kernels::$zip($op, p, q, |$x: $ty, $y: $ty| $body)
                        .map($crate::Tensor::from_array)
                })*
                ($crate::Storage::F16(p), $crate::Storage::F16(q)) => {
                    $crate::kernels::$zip($op, p, q, |p: $crate::dtype::f16, q: $crate::dtype::f16| {
                        let ($x, $y): (f32, f32) =
                            ($crate::kernels::Half::widen(p), $crate::kernels::Half::widen(q));
                        $crate::kernels::Narrow::<$crate::dtype::f16>::narrow($body)
                    })
                    .map($crate::Tensor::from_array)
                }
                ($crate::Storage::BF16(p), $crate::Storage::BF16(q)) => {
                    $crate::kernels::$zip($op, p, q, |p: $crate::dtype::bf16, q: $crate::dtype::bf16| {
                        let ($x, $y): (f32, f32) =
                            ($crate::kernels::Half::widen(p), $crate::kernels::Half::widen(q));
                        $crate::kernels::Narrow::<$crate::dtype::bf16>::narrow($body)
                    })
                    .map($crate::Tensor::from_array)
                }
                _ => Err($crate::Error::UnsupportedDType {
                    op: $op,
                    dtype: a.dtype(),
                    allowed: $allowed,
                }),
            })
    }};
}
pub(crate) use binary_arms;

/// Dispatches a unary float kernel: `float_unary!(op, tensor, |x| expr)`
/// (float16/bfloat16 compute in float32). Other dtypes give `UnsupportedDType`.
macro_rules! float_unary {
    ($op:expr, $t:expr, |$x:ident| $body:expr) => {
        $crate::kernels::float_unary!($op, $t, map, |$x| $body)
    };
    ($op:expr, $t:expr, $map:ident, |$x:ident| $body:expr) => {
        $crate::kernels::unary_arms!($op, $t, $map, |$x| $body, [F32: f32, F64: f64],
            "float32, float64")
    };
}
pub(crate) use float_unary;

/// Dispatches a unary kernel over every real numeric (non-bool) dtype the op
/// has a kernel for (`registered::check`).
macro_rules! numeric_unary {
    ($op:expr, $t:expr, |$x:ident| $body:expr) => {
        $crate::kernels::unary_arms!($op, $t, map_memory, |$x| $body,
            [F32: f32, F64: f64, I32: i32, I64: i64, U8: u8, I8: i8, I16: i16, U16: u16,
             U32: u32, U64: u64],
            "float32, float64, int32, int64")
    };
}
pub(crate) use numeric_unary;

/// Checks two tensors share a dtype, naming both if not.
pub(crate) fn same_dtype(op: &'static str, a: &crate::Tensor, b: &crate::Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(crate::Error::DTypeMismatch {
            op,
            index: 1,
            expected: a.dtype(),
            actual: b.dtype(),
        });
    }
    Ok(())
}

/// Dispatches a binary kernel over numeric dtypes with broadcasting:
/// `numeric_binary!(op, a, b, |x, y| expr)` producing the same dtype.
macro_rules! numeric_binary {
    (memory: $op:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::kernels::binary_arms!($op, zip_map_memory, $a, $b, |$x, $y| $body,
            [F32: f32, F64: f64, I32: i32, I64: i64, U8: u8, I8: i8, I16: i16, U16: u16,
             U32: u32, U64: u64],
            "float32, float64, int32, int64")
    };
    ($op:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::kernels::binary_arms!($op, zip_map, $a, $b, |$x, $y| $body,
            [F32: f32, F64: f64, I32: i32, I64: i64, U8: u8, I8: i8, I16: i16, U16: u16,
             U32: u32, U64: u64],
            "float32, float64, int32, int64")
    };
}
pub(crate) use numeric_binary;

/// Like `numeric_binary!` but the closure returns `bool` (comparisons); bool inputs allowed.
macro_rules! compare_binary {
    ($op:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::kernels::binary_arms!($op, zip_map_memory, $a, $b, |$x, $y| $body,
            [F32: f32, F64: f64, I32: i32, I64: i64, Bool: bool, U8: u8, I8: i8, I16: i16,
             U16: u16, U32: u32, U64: u64],
            "float32, float64, int32, int64, bool")
    };
}
pub(crate) use compare_binary;

/// Dispatches a binary float kernel with broadcasting: `float_binary!(op, a, b, |x, y| expr)`.
macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        $crate::kernels::binary_arms!($op, zip_map, $a, $b, |$x, $y| $body, [F32: f32, F64: f64],
            "float32, float64")
    };
}
pub(crate) use float_binary;

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array, Axis};

    fn check(v: ArrayViewD<'_, f64>) {
        let got = standard_owned(v.view());
        assert!(got.is_standard_layout());
        assert_eq!(
            got,
            v.to_owned(),
            "shape {:?} strides {:?}",
            v.shape(),
            v.strides()
        );
    }

    #[test]
    fn transposes_copy_exactly_in_tiles_and_in_fallbacks() {
        for (m, n) in [(1, 5), (5, 1), (2, 3), (64, 64), (70, 130), (300, 257)] {
            let a = Array::from_shape_fn((m, n), |(i, j)| (i * 1000 + j) as f64).into_dyn();
            check(a.t().into_dyn());
        }
        // Batches of transposed matrices (tiled one by one), also with the
        // batch stride larger than a matrix (each matrix still contiguous).
        let b = Array::from_shape_fn((3, 70, 90), |(k, i, j)| (k * 100_000 + i * 1000 + j) as f64);
        check(b.view().permuted_axes([0, 2, 1]).into_dyn());
        check(
            b.slice(s![.., ..50, ..])
                .permuted_axes([0, 2, 1])
                .into_dyn(),
        );
        // Matrices that are not transposes of contiguous memory: Zip copy.
        let c = Array::from_shape_fn((80, 90), |(i, j)| (i * 1000 + j) as f64);
        check(c.slice(s![..;2, ..]).t().into_dyn());
        check(
            c.view()
                .insert_axis(Axis(0))
                .permuted_axes([2, 0, 1])
                .into_dyn(),
        );
    }

    /// Each item runs once; the calling thread's items are a prefix and the
    /// other thread's the rest (the split a row-halves product makes).
    #[test]
    fn items_shared_from_both_ends_split_into_a_prefix_and_a_suffix() {
        for n in [0usize, 1, 2, 7, 64, 301] {
            let me = std::thread::current().id();
            let seen = std::sync::Mutex::new(Vec::new());
            share_items(
                (0..n).collect(),
                || (),
                |_, _, i| {
                    seen.lock()
                        .unwrap()
                        .push((i, std::thread::current().id() == me));
                },
            );
            let mut seen = seen.into_inner().unwrap();
            seen.sort_unstable();
            assert_eq!(
                seen.iter().map(|s| s.0).collect::<Vec<_>>(),
                (0..n).collect::<Vec<_>>()
            );
            let mine = seen.iter().take_while(|s| s.1).count();
            assert!(seen[mine..].iter().all(|s| !s.1), "n = {n}: {seen:?}");
        }
    }

    /// Broadcasts read as stretches (a column, a row, a block under leading
    /// axes) give ndarray's broadcast element for element; short stretches
    /// and non-contiguous inputs take the general copy.
    #[test]
    fn broadcasts_copied_by_stretches_are_ndarrays_broadcasts() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[3, 1], &[3, 5]),
            (&[128, 1], &[128, 10]),
            (&[1, 5], &[4, 5]),
            (&[5], &[2, 3, 5]),
            (&[2, 1, 3], &[2, 4, 3]),
            (&[2, 3, 1], &[2, 3, 2]),
            (&[1, 1], &[0, 3]),
            (&[3, 1], &[3, 0]),
            (&[0, 1], &[0, 4]),
            (&[4], &[4]),
        ];
        for &(from, to) in cases {
            let n: usize = from.iter().product();
            let a = Array::from_shape_fn(n, |i| i as f32 * 1.5 - 2.0)
                .into_shape_with_order(IxDyn(from))
                .unwrap()
                .into_shared();
            let want = a.broadcast(IxDyn(to)).unwrap().to_owned();
            assert_eq!(broadcast_owned(&a, to), want, "{from:?} -> {to:?}");
        }
        let t = Array::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64)
            .into_dyn()
            .into_shared();
        let col = t.slice(s![.., 1..2]).to_owned().into_dyn().into_shared();
        let want = col.broadcast(IxDyn(&[3, 6])).unwrap().to_owned();
        assert_eq!(broadcast_owned(&col, &[3, 6]), want);
        let strided = t.clone().reversed_axes();
        let want = strided.broadcast(IxDyn(&[2, 4, 3])).unwrap().to_owned();
        assert_eq!(broadcast_owned(&strided, &[2, 4, 3]), want);
    }

    /// Broadcast operands walked stretch by stretch (a column, a row, a
    /// scalar, repeated blocks; chunks of 4096 that start inside a row or a
    /// column's repeats) give `f` of the pairs ndarray's broadcast gives.
    #[test]
    fn tiled_operands_pair_the_elements_ndarray_pairs() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[128, 10], &[128, 1]),
            (&[1000, 10], &[1000, 1]),
            (&[1000, 1], &[1000, 10]),
            (&[3, 4101], &[4101]),
            (&[700, 13], &[13]),
            (&[2, 700, 13], &[700, 1]),
            (&[9000], &[1]),
            (&[1], &[5, 7]),
            (&[0, 10], &[0, 1]),
            (&[3, 0], &[3, 1]),
            (&[3, 0], &[0]),
            (&[0], &[1]),
        ];
        for &(sa, sb) in cases {
            let arr = |shape: &[usize], k: f64| {
                let n: usize = shape.iter().product();
                Array::from_shape_fn(n, |i| i as f64 * k + 0.5)
                    .into_shape_with_order(IxDyn(shape))
                    .unwrap()
                    .into_shared()
            };
            let (a, b) = (arr(sa, 1.0), arr(sb, 1e-3));
            let got = zip_map("Test", &a, &b, |x, y| x * 3.0 - y).unwrap();
            let shape = broadcast_shapes("Test", sa, sb).unwrap();
            let sh = IxDyn(&shape);
            let mut want = ArrayD::<f64>::zeros(sh.clone());
            Zip::from(&mut want)
                .and(&a.broadcast(sh.clone()).unwrap())
                .and(&b.broadcast(sh).unwrap())
                .for_each(|w, &x, &y| *w = x * 3.0 - y);
            assert_eq!(got, want, "{sa:?} with {sb:?}");
        }
    }

    /// A panic in the half run on the pool ends the join (re-raised here)
    /// instead of leaving the caller spinning for it.
    #[test]
    fn a_kept_join_whose_pool_half_panics_raises_it_and_returns() {
        let r = std::panic::catch_unwind(|| kept_join(|| 1, || panic!("the pool half failed")));
        assert!(r.is_err());
        assert_eq!(kept_join(|| 2, || ()), 2);
    }

    /// Mid-sized elementwise work taken while the kept worker is awake is
    /// shared with it: a pool worker runs chunks of it, and the values are
    /// those of the one-thread loop (tests run concurrently: sections are
    /// retried until granted so).
    #[test]
    fn mid_sized_elementwise_work_is_shared_with_the_kept_worker() {
        if rayon::current_num_threads() < 2 {
            return;
        }
        let _alone = SECTION_TESTS.lock().unwrap_or_else(|e| e.into_inner());
        let n = 3 * KEPT_MIN + 5;
        assert!(n < PAR_THRESHOLD_MEMORY);
        let a = Array::from_shape_fn(n, |i| (i as f32).sin())
            .into_dyn()
            .into_shared();
        let b = Array::from_shape_fn(n, |i| (i as f32).cos())
            .into_dyn()
            .into_shared();
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x * y + 1.0).collect();
        let start = std::time::Instant::now();
        let mut shared = false;
        while !shared && start.elapsed() < std::time::Duration::from_secs(20) {
            parallel(usize::MAX, 1, |granted| {
                if granted && worker_awake() {
                    let taken = || uninit::KEPT_CHUNKS.load(std::sync::atomic::Ordering::Relaxed);
                    let before = taken();
                    let got = zip_map_memory("Mul", &a, &b, |x, y| x * y + 1.0).unwrap();
                    assert_eq!(got.as_slice().unwrap(), &want[..]);
                    let got = map_memory(&a, |x| -x);
                    assert!(got
                        .iter()
                        .zip(&a)
                        .all(|(y, x)| y.to_bits() == (-x).to_bits()));
                    // An in-place update (an optimizer's step) and a
                    // broadcast one (a deferred `assign_sub`).
                    let mut v: Vec<f32> = a.iter().copied().collect();
                    let g = b.as_slice().unwrap();
                    update_in_chunks([&mut v[..]], [g], PAR_THRESHOLD_MEMORY, |[v], [g]| {
                        v.iter_mut().zip(g.iter()).for_each(|(v, g)| *v -= 0.5 * g)
                    });
                    assert!(v
                        .iter()
                        .zip(a.iter().zip(g))
                        .all(|(v, (x, y))| *v == x - 0.5 * y));
                    let mut d = a.clone();
                    let two = ndarray::arr0(2.0f32).into_dyn().into_shared();
                    zip_in_place(&mut d, &two, |x, y| x * y);
                    assert!(d.iter().zip(&a).all(|(d, x)| *d == x * 2.0));
                    shared = taken() > before;
                }
            });
        }
        assert!(
            shared,
            "no mid-sized pass shared its chunks with the kept worker in 20 s"
        );
    }
}
