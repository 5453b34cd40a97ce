//! Large outputs written once, without zero-filling them first.
//!
//! Safe Rust hands out only initialized memory, so a kernel that writes a
//! large output chunk by chunk in parallel would first have to zero it: one
//! more full pass over memory, a large share of a memory-bound elementwise
//! op's time. [`fill_chunked`] instead lets
//! each chunk write its slots through a [`ChunkOut`] cursor that counts what
//! it wrote, and only marks the vector's length once every chunk has
//! written all of its elements.
//!
//! This module holds most of the crate's `unsafe` (the rest is in
//! [`super::handoff`]): one `Vec::set_len` per
//! output (in [`fill_chunked_many`]; [`fill_chunked`] is its one-output
//! case), after a check that does not trust the kernels (see the proof at
//! the call); [`in_two_parts_each`]'s `set_len`; matrix products that
//! faer writes into unwritten memory ([`product`], [`Part::product`]: see
//! the proof in `write_product`); and the non-temporal
//! copy of [`ChunkOut::stream_from_slice`] (x86-64 only), with which
//! outputs far larger than the caches are written, and the store fence a
//! cursor that streamed issues when dropped. Its
//! tests pass under miri (tree borrows; rayon's pool outlives `main`, and
//! crossbeam's epoch GC trips stacked borrows; the non-temporal stores,
//! inline assembly, become plain copies of the same ranges there):
//! `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks"
//! cargo +nightly miri test -p tapers --lib uninit`.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

use faer::{MatRef, Par};
use rayon::prelude::*;
use smallvec::SmallVec;

use super::Split;

/// A chunk of an output being built: a write cursor over uninitialized
/// slots. Elements can only be appended, so the written prefix is always
/// initialized; `written` counts it.
pub(crate) struct ChunkOut<'a, C> {
    slots: &'a mut [MaybeUninit<C>],
    written: usize,
    /// Some slots were written with non-temporal stores: a store fence is
    /// owed before the chunk is handed over (see the `Drop` impl; only
    /// x86-64 streams).
    #[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))]
    streamed: bool,
}

impl<'a, C> ChunkOut<'a, C> {
    fn new(slots: &'a mut [MaybeUninit<C>]) -> Self {
        ChunkOut {
            slots,
            written: 0,
            streamed: false,
        }
    }
}

/// Non-temporal stores are not ordered with later stores (the one telling
/// another thread that this chunk is done) without a store fence: one per
/// chunk that streamed, when its cursor is dropped (before the chunk's
/// task ends), instead of one per copy. A fence waits until the
/// write-combining buffers have drained, so one after every few kilobytes
/// stalls the loop.
impl<C> Drop for ChunkOut<'_, C> {
    fn drop(&mut self) {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if self.streamed {
            // SAFETY: SSE is part of the x86-64 baseline; a fence touches
            // no memory.
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
    }
}

impl<C> ChunkOut<'_, C> {
    /// The number of elements this chunk must hold.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Appends values from `vals` until the chunk is full or `vals` ends.
    /// A zip over the remaining slots: vectorizes like a plain slice loop.
    #[inline(always)]
    pub(crate) fn extend(&mut self, vals: impl IntoIterator<Item = C>) {
        let mut k = 0;
        for (d, v) in self.slots[self.written..].iter_mut().zip(vals) {
            d.write(v);
            k += 1;
        }
        self.written += k;
    }

    /// Appends a copy of `vals` (or as much as fits): a slice loop, run
    /// under pulp's SIMD dispatch when long (compiled for the baseline, it
    /// copies 16 bytes at a time; `extend` over a `copied()` iterator
    /// stepped element by element).
    #[inline(always)]
    pub(crate) fn extend_from_slice(&mut self, vals: &[C])
    where
        C: Copy,
    {
        struct Copy<'a, C>(&'a mut [MaybeUninit<C>], &'a [C]);
        impl<C: std::marker::Copy> pulp::WithSimd for Copy<'_, C> {
            type Output = ();

            #[inline(always)]
            fn with_simd<S: pulp::Simd>(self, _simd: S) {
                for (d, &v) in self.0.iter_mut().zip(self.1) {
                    d.write(v);
                }
            }
        }
        let rest = &mut self.slots[self.written..];
        let k = rest.len().min(vals.len());
        let job = Copy(&mut rest[..k], &vals[..k]);
        if k < 64 {
            pulp::WithSimd::with_simd(job, pulp::Scalar::new())
        } else {
            pulp::Arch::new().dispatch(job)
        }
        self.written += k;
    }

    /// Appends a copy of `vals` (or as much as fits) as
    /// [`ChunkOut::extend_from_slice`] does, with non-temporal stores on
    /// x86-64: the bytes go to memory without the destination's cache lines
    /// being read first and without evicting what the loop works on. For
    /// outputs too large to be read back from cache (see [`streams`]); the
    /// values are the same either way.
    #[inline]
    pub(crate) fn stream_from_slice(&mut self, vals: &[C])
    where
        C: Plain,
    {
        #[cfg(target_arch = "x86_64")]
        {
            let rest = &mut self.slots[self.written..];
            let k = rest.len().min(vals.len());
            stream_copy(&mut rest[..k], &vals[..k]);
            self.written += k;
            self.streamed = true;
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.extend_from_slice(vals)
    }

    /// The unwritten rest of the chunk, for a kernel that computes values
    /// by index ([`Tail::fill`]).
    #[inline(always)]
    pub(crate) fn tail(&mut self) -> Tail<'_, C> {
        Tail {
            slots: &mut self.slots[self.written..],
            written: &mut self.written,
        }
    }
}

/// Element types copied byte by byte with [`ChunkOut::stream_from_slice`]:
/// every byte of a value is initialized (no padding), and any bytes copied
/// from one are that same value.
pub(crate) trait Plain: Copy {}
impl Plain for f32 {}
impl Plain for f64 {}

/// Outputs of at least this many bytes are written with non-temporal stores
/// where a kernel can ([`streams`]): far larger than the caches, they would
/// only be read back from memory, and a plain store first reads each line.
const STREAM_MIN_BYTES: usize = 8 << 20;

/// Whether an output of `n` elements of `T` is written with
/// [`ChunkOut::stream_from_slice`].
pub(crate) fn streams<T>(n: usize) -> bool {
    n.saturating_mul(std::mem::size_of::<T>()) >= STREAM_MIN_BYTES
}

/// Copies `src` into `dst` (the same length) with non-temporal stores
/// where `dst` is aligned to the store's width (32 bytes with AVX, 16
/// without), plain copies at the unaligned ends. The caller owes a store
/// fence before the bytes are handed to another thread ([`ChunkOut`]'s
/// `Drop`).
#[cfg(target_arch = "x86_64")]
fn stream_copy<C: Plain>(dst: &mut [MaybeUninit<C>], src: &[C]) {
    assert_eq!(dst.len(), src.len(), "a copy of the same length");
    let bytes = std::mem::size_of_val(src);
    let d = dst.as_mut_ptr().cast::<u8>();
    let s = src.as_ptr().cast::<u8>();
    let wide = std::arch::is_x86_feature_detected!("avx");
    let width = if wide { 32 } else { 16 };
    let head = d.align_offset(width).min(bytes);
    let body = (bytes - head) / width * width;
    // SAFETY: `dst` and `src` are distinct borrows (one `&mut`), so they
    // do not overlap, and both span `bytes` bytes (equal lengths, asserted,
    // of one element type). The plain copies cover `[0, head)` and
    // `[head + body, bytes)`, and the streaming copy `[head, head + body)`
    // (`head + body <= bytes`), all within both. Its stores start at `d +
    // head`, aligned to `width` (`align_offset` made it so; when it could
    // not, `head` is `bytes` and `body` is 0), as the non-temporal stores
    // require; its loads take any alignment. AVX is used only when
    // detected at run time; SSE2 is part of the x86-64 baseline. The bytes
    // read are initialized (`C: Plain` has no padding), and writing a
    // value's bytes into `MaybeUninit` slots leaves those slots holding the
    // same values (`Plain`), byte for byte as `extend_from_slice` would.
    unsafe {
        std::ptr::copy_nonoverlapping(s, d, head);
        // Miri runs neither non-temporal store (inline assembly): a plain
        // copy of the same range there, so it still checks every bound.
        #[cfg(miri)]
        std::ptr::copy_nonoverlapping(s.add(head), d.add(head), body);
        #[cfg(not(miri))]
        if wide {
            stream_body_32(d.add(head), s.add(head), body);
        } else {
            stream_body_16(d.add(head), s.add(head), body);
        }
        let end = head + body;
        std::ptr::copy_nonoverlapping(s.add(end), d.add(end), bytes - end);
    }
}

/// `body` bytes (a multiple of 32) from `s` to the 32-byte aligned `d`,
/// with 32-byte non-temporal stores (AVX).
///
/// # Safety
///
/// The CPU has AVX; `s` and `d` are valid for `body` bytes of reads and
/// writes, do not overlap, and `d` is 32-byte aligned.
#[cfg_attr(miri, allow(dead_code))]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn stream_body_32(d: *mut u8, s: *const u8, body: usize) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256};
    let mut at = 0;
    while at < body {
        // SAFETY: `at + 32 <= body` (a multiple of 32), within both
        // ranges; `d + at` keeps `d`'s 32-byte alignment.
        unsafe {
            let v = _mm256_loadu_si256(s.add(at).cast::<__m256i>());
            _mm256_stream_si256(d.add(at).cast::<__m256i>(), v);
        }
        at += 32;
    }
}

/// `body` bytes (a multiple of 16) from `s` to the 16-byte aligned `d`,
/// with 16-byte non-temporal stores (SSE2).
///
/// # Safety
///
/// `s` and `d` are valid for `body` bytes of reads and writes, do not
/// overlap, and `d` is 16-byte aligned.
#[cfg_attr(miri, allow(dead_code))]
#[cfg(target_arch = "x86_64")]
unsafe fn stream_body_16(d: *mut u8, s: *const u8, body: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    let mut at = 0;
    while at < body {
        // SAFETY: `at + 16 <= body` (a multiple of 16), within both
        // ranges; `d + at` keeps `d`'s 16-byte alignment.
        unsafe {
            let v = _mm_loadu_si128(s.add(at).cast::<__m128i>());
            _mm_stream_si128(d.add(at).cast::<__m128i>(), v);
        }
        at += 16;
    }
}

/// The unwritten slots of a [`ChunkOut`], borrowed from it: appending here
/// advances the chunk's count of written elements.
pub(crate) struct Tail<'a, C> {
    slots: &'a mut [MaybeUninit<C>],
    written: &'a mut usize,
}

impl<C> Tail<'_, C> {
    /// Appends `f(i)` for `i < n` (or as many as fit): an index loop over
    /// the slots, which vectorizes like the loops of `Acc::add` (in `op`).
    #[inline(always)]
    pub(crate) fn fill(self, n: usize, f: impl Fn(usize) -> C) {
        let k = n.min(self.slots.len());
        for (i, d) in self.slots[..k].iter_mut().enumerate() {
            d.write(f(i));
        }
        *self.written += k;
    }
}

/// Builds a vector of `n` elements, `K` at a time: `fill(state, c, work[c],
/// out)` must append exactly `out.len()` elements (elements `c * K ..` of the
/// result; the last chunk is shorter), with `state` made by `init` once per
/// worker. `work` holds one item per chunk. Chunks run as `split` says
/// (`par: bool` converts: `true` is the pool); element values never depend
/// on the split, so neither does the result.
///
/// # Panics
///
/// If a chunk appends fewer elements than it holds (a kernel bug): the
/// partial vector is then dropped as empty, never read.
pub(crate) fn fill_chunked<C, W, S, const K: usize>(
    n: usize,
    split: impl Into<Split>,
    work: Vec<W>,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fn(&mut S, usize, W, &mut ChunkOut<'_, C>) + Sync + Send,
) -> Vec<C>
where
    C: Send,
    W: Send,
{
    fill_chunked_many::<C, W, S, K>(n, 1, split, work, init, |s, c, w, outs| {
        fill(s, c, w, &mut outs[0])
    })
    .pop()
    .expect("one output")
}

/// [`fill_chunked`] for `outputs` vectors of `n` elements built side by
/// side: chunk `c` gets one cursor per output (`outs[j]` for output `j`),
/// each of which must be filled.
///
/// # Panics
///
/// As [`fill_chunked`], if any chunk leaves any output short; every output
/// is then dropped as empty.
pub(crate) fn fill_chunked_many<C, W, S, const K: usize>(
    n: usize,
    outputs: usize,
    split: impl Into<Split>,
    work: Vec<W>,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fn(&mut S, usize, W, &mut [ChunkOut<'_, C>]) + Sync + Send,
) -> Vec<Vec<C>>
where
    C: Send,
    W: Send,
{
    let chunks = n.div_ceil(K);
    assert_eq!(work.len(), chunks, "one work item per chunk");
    let mut outs: Vec<Vec<C>> = (0..outputs).map(|_| Vec::with_capacity(n)).collect();
    // Chunk `c`'s slots in every output, in output order.
    type Slots<'a, C> = SmallVec<[&'a mut [MaybeUninit<C>]; 2]>;
    let mut per_chunk: Vec<Slots<'_, C>> = (0..chunks).map(|_| SmallVec::new()).collect();
    for o in outs.iter_mut() {
        for (c, slots) in o.spare_capacity_mut()[..n].chunks_mut(K).enumerate() {
            per_chunk[c].push(slots);
        }
    }
    let one = |state: &mut S, (c, (slots, w)): (usize, (Slots<'_, C>, W))| {
        let mut cursors: SmallVec<[ChunkOut<'_, C>; 2]> =
            slots.into_iter().map(ChunkOut::new).collect();
        fill(state, c, w, &mut cursors);
        for chunk in &cursors {
            assert_eq!(
                chunk.written,
                chunk.slots.len(),
                "a chunk kernel left elements unwritten"
            );
        }
    };
    match split.into() {
        Split::Pool => per_chunk
            .into_par_iter()
            .zip(work)
            .enumerate()
            .for_each_init(init, one),
        Split::Serial => {
            let mut state = init();
            per_chunk
                .into_iter()
                .zip(work)
                .enumerate()
                .for_each(|cw| one(&mut state, cw));
        }
        Split::Kept => super::share_items(
            per_chunk.into_iter().zip(work).collect(),
            init,
            |state, c, cw| {
                #[cfg(test)]
                if rayon::current_thread_index().is_some() {
                    KEPT_CHUNKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                one(state, (c, cw))
            },
        ),
    }
    for o in outs.iter_mut() {
        // SAFETY: `set_len(n)` needs the first `n` slots initialized and
        // `n <= capacity` (`with_capacity(n)`). Each output's slots `[0, n)`
        // are split by `chunks_mut(K)` into disjoint chunks covering all of
        // them; chunk `c` of every output went into `per_chunk[c]`, and
        // there is one work item per chunk (asserted above; `zip` stops at
        // the shorter side, so every chunk is visited). Each `ChunkOut` only
        // writes its slots in order from their start (`extend`,
        // `extend_from_slice` and `tail().fill` write a prefix of the
        // unwritten suffix and count exactly what they wrote), so its first
        // `written` slots are initialized,
        // and `one` asserts `written == slots.len()` for every output's
        // cursor after the kernel ran. A failed assert (or any panic in a
        // kernel) unwinds out of this function before this line, dropping
        // every output with length 0: nothing uninitialized is ever read or
        // dropped. Rayon's `for_each_init` returns only after every chunk
        // finished (its panics are re-raised here), as does `share_items`
        // (each chunk index is taken by exactly one of its two loops, which
        // stop only once every index was taken, and it returns when both
        // loops have ended), and `per_chunk`'s borrows of `outs` ended with
        // that iteration.
        unsafe { o.set_len(n) };
    }
    outs
}

/// Chunks of [`Split::Kept`] runs that a pool worker took (unit tests).
#[cfg(test)]
pub(crate) static KEPT_CHUNKS: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// One part of a vector built by [`in_two_parts`], written by the thread
/// that takes it: a copy, or a matrix product (or, untaken, zero-filled).
pub(crate) struct Part<'a, T> {
    slots: &'a mut [MaybeUninit<T>],
    filled: &'a mut bool,
}

impl<T> Part<'_, T> {
    /// The part written with a copy of `vals` (as long as the part).
    pub(crate) fn copied(self, vals: &[T])
    where
        T: Copy,
    {
        assert_eq!(vals.len(), self.slots.len(), "a copy fills the part");
        for (d, &v) in self.slots.iter_mut().zip(vals) {
            d.write(v);
        }
        *self.filled = true;
    }

    /// The part written with the row-major product `lhs @ rhs` (as long as
    /// the part), without zero-filling it first where faer allows
    /// ([`write_product`]).
    pub(crate) fn product(self, lhs: MatRef<'_, T>, rhs: MatRef<'_, T>, par: Par)
    where
        T: ProductFloat,
    {
        write_product(self.slots, lhs, rhs, par);
        *self.filled = true;
    }
}

/// The element types whose products faer writes (f32, f64 and complex).
pub(crate) trait ProductFloat:
    faer::traits::ComplexField + Copy + num_traits::Zero + num_traits::One + 'static
{
}
impl<T> ProductFloat for T where
    T: faer::traits::ComplexField + Copy + num_traits::Zero + num_traits::One + 'static
{
}

/// Whether faer's `matmul` of an `m x n x k` product of `T` writes its
/// output only through raw pointers, never reading it or forming a
/// reference to it: the real types it multiplies with its gemm kernels
/// (`m`, `n`, `k` all at least 2; a vector or rank-one product takes paths
/// that assign through references).
fn writes_unread<T: 'static>(m: usize, n: usize, k: usize) -> bool {
    use std::any::TypeId;
    let real = TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>();
    real && m >= 2 && n >= 2 && k >= 2
}

/// Writes the product `lhs @ rhs` into `slots`, row-major: every slot
/// (`lhs.nrows() * rhs.ncols()` of them). Where [`writes_unread`] holds,
/// faer writes straight into the uninitialized slots; otherwise they are
/// zero-filled first.
fn write_product<T: ProductFloat>(
    slots: &mut [MaybeUninit<T>],
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    par: Par,
) {
    let (m, n, k) = (lhs.nrows(), rhs.ncols(), lhs.ncols());
    assert!(
        rhs.nrows() == k && slots.len() == m * n,
        "a {m}x{k} @ {}x{n} product fills {} slots",
        rhs.nrows(),
        slots.len()
    );
    if !writes_unread::<T>(m, n, k) {
        for d in slots.iter_mut() {
            d.write(T::zero());
        }
    }
    // SAFETY: `MatMut::from_raw_parts_mut`'s conditions: the `m x n`
    // row-major view (row stride `n`, column stride 1) addresses exactly
    // the `m * n` slots of one allocation (`slots`, checked above), through
    // a non-null pointer aligned for `T` (a slice's, `MaybeUninit<T>` having
    // `T`'s layout); element `(i, j)` is slot `i * n + j` with `j < n`, so
    // no slot is addressed twice, and nothing else touches `slots` while the
    // view lives (its unique borrow). The values may be uninitialized as
    // long as they are written before being read or referenced (faer's
    // words): either they were zero-filled just above, or [`writes_unread`]
    // holds: [`in_k_slices`]' first call, `matmul` with `Accum::Replace`,
    // does not read them (its documentation), and for f32/f64 with `m`, `n`
    // and its slice of k at least 2 (a slice of a sliced k has at least 256) it
    // goes straight to its gemm kernels (nano-gemm's, private-gemm-x86's,
    // or the gemm crate's with `read_dst = false`), which store through raw
    // pointers; faer writes products into its own uninitialized scratch
    // matrices (`temp_mat_uninit`) the same way. Replace writes every
    // element, so all slots are initialized when it returns, before the
    // later slices' `Accum::Add` calls read them; a panic leaves them to
    // the caller as uninitialized.
    let dst = unsafe {
        faer::MatMut::from_raw_parts_mut(slots.as_mut_ptr().cast::<T>(), m, n, n as isize, 1)
    };
    in_k_slices(dst, lhs, rhs, par);
}

/// f32 products whose reduction is longer than this run in slices of k.
const K_SLICES_ABOVE: usize = 512;

/// The longest slice of k an f32 product runs in, above [`K_SLICES_ABOVE`].
const K_SLICE: usize = 392;

/// Outputs of at most this many elements (256 KB of f32) are sliced: each
/// slice after the first reads and writes the whole output again, cheap
/// while it stays in cache, not for a large product's.
const K_SLICED_OUTPUT_MAX: usize = 1 << 16;

/// How many near-equal slices of its `k` an `m x n x k` product of `T` is
/// computed in.
///
/// faer blocks the reduction of an f32 product at 512 itself; with a
/// longer k (an MLP's first layer, 784 inputs) its packed operand no longer
/// stays in a 512 KB L2 cache, and one row half of a 128x784 @ 784x256
/// product ran 6-7% slower than the same half as two products over k's two
/// halves, summed (README, Performance). f64 showed no such gain and keeps
/// faer's blocking.
pub(crate) fn k_slices<T: 'static>(m: usize, n: usize, k: usize) -> usize {
    let f32 = std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>();
    if f32 && k > K_SLICES_ABOVE && m * n <= K_SLICED_OUTPUT_MAX {
        k.div_ceil(K_SLICE)
    } else {
        1
    }
}

/// `dst = lhs @ rhs`, computed as [`k_slices`] products over consecutive
/// slices of k, each added to `dst` in order (the first replaces what
/// `dst` held, which it does not read). The slices depend on the call's
/// shapes only, never on threads: a product split into row halves has the
/// same bits whoever computes each half.
pub(crate) fn in_k_slices<T: ProductFloat>(
    mut dst: faer::MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    par: Par,
) {
    let k = lhs.ncols();
    let parts = k_slices::<T>(dst.nrows(), dst.ncols(), k);
    for p in 0..parts {
        let (k0, k1) = (k * p / parts, k * (p + 1) / parts);
        let accum = if p == 0 {
            faer::Accum::Replace
        } else {
            faer::Accum::Add
        };
        faer::linalg::matmul::matmul(
            dst.as_mut(),
            accum,
            lhs.subcols(k0, k1 - k0),
            rhs.subrows(k0, k1 - k0),
            T::one(),
            par,
        );
    }
}

/// The row-major product `lhs @ rhs` in a new vector, written without
/// zero-filling it first where faer allows ([`write_product`]).
pub(crate) fn product<T: ProductFloat>(lhs: MatRef<'_, T>, rhs: MatRef<'_, T>, par: Par) -> Vec<T> {
    let n = lhs.nrows() * rhs.ncols();
    let mut v: Vec<T> = Vec::with_capacity(n);
    write_product(&mut v.spare_capacity_mut()[..n], lhs, rhs, par);
    // SAFETY: `n <= capacity` (`with_capacity(n)`), and `write_product`
    // wrote all `n` slots when it returns (a panic unwinds before this
    // line and drops `v` with length 0).
    unsafe { v.set_len(n) };
    v
}

/// A vector of `n` elements whose parts `[0, mid)` and `[mid, n)` `f` gets
/// unwritten, to write on the threads that then compute into them (in
/// parallel, each part landing in its own core's cache) instead of one
/// thread zeroing it all first. A part `f` did not take is zero-filled
/// after it returns. Returns the vector and what `f` returned.
pub(crate) fn in_two_parts<T: num_traits::Zero, R>(
    n: usize,
    mid: usize,
    f: impl FnOnce(Part<'_, T>, Part<'_, T>) -> R,
) -> (Vec<T>, R) {
    let (mut vs, r) = in_two_parts_each(1, n, mid, |tops, bottoms| {
        let (top, bottom) = (tops.into_iter().next(), bottoms.into_iter().next());
        f(top.expect("one part"), bottom.expect("one part"))
    });
    (vs.pop().expect("one vector"), r)
}

/// [`in_two_parts`] for `count` vectors of `n` elements at once, split at
/// the same `mid`: `f` gets the top parts and the bottom parts, vector by
/// vector (for a kernel that writes several outputs row block by row
/// block, [`write_parts`]).
pub(crate) fn in_two_parts_each<T: num_traits::Zero, R>(
    count: usize,
    n: usize,
    mid: usize,
    f: impl FnOnce(Vec<Part<'_, T>>, Vec<Part<'_, T>>) -> R,
) -> (Vec<Vec<T>>, R) {
    assert!(mid <= n, "the split {mid} lies within the {n} elements");
    let mut vs: Vec<Vec<T>> = (0..count).map(|_| Vec::with_capacity(n)).collect();
    let mut flags = vec![(false, false); count];
    let r = {
        let (mut tops, mut bottoms) = (Vec::with_capacity(count), Vec::with_capacity(count));
        for (v, (top_filled, bottom_filled)) in vs.iter_mut().zip(flags.iter_mut()) {
            let (top, bottom) = v.spare_capacity_mut()[..n].split_at_mut(mid);
            tops.push(Part {
                slots: top,
                filled: top_filled,
            });
            bottoms.push(Part {
                slots: bottom,
                filled: bottom_filled,
            });
        }
        f(tops, bottoms)
    };
    for (v, &(top_filled, bottom_filled)) in vs.iter_mut().zip(&flags) {
        let rest = v.spare_capacity_mut();
        for (range, filled) in [(0..mid, top_filled), (mid..n, bottom_filled)] {
            if !filled {
                rest[range].iter_mut().for_each(|d| {
                    d.write(T::zero());
                });
            }
        }
        // SAFETY: `n <= capacity` (`with_capacity(n)`), and slots `[0, n)`
        // are initialized: `[0, mid)` and `[mid, n)` were each either
        // written whole by a `Part` method or [`write_parts`] (each sets its
        // flag only after every slot of its part was written) or, flag
        // unset, zero-filled just above. A panic in `f` unwinds before this
        // loop and drops every vector with length 0.
        unsafe { v.set_len(n) };
    }
    (vs, r)
}

/// Writes `parts` at once through one cursor each: `f` must append exactly
/// each part's length to its cursor (a kernel computing several outputs
/// block by block). Each part counts as written only when its cursor is
/// full.
///
/// # Panics
/// If `f` leaves a cursor short (a kernel bug): its vector is then dropped
/// as empty by [`in_two_parts_each`], never read.
pub(crate) fn write_parts<T>(parts: Vec<Part<'_, T>>, f: impl FnOnce(&mut [ChunkOut<'_, T>])) {
    let (mut outs, mut flags): (Vec<ChunkOut<'_, T>>, Vec<&mut bool>) = parts
        .into_iter()
        .map(|p| (ChunkOut::new(p.slots), p.filled))
        .unzip();
    f(&mut outs);
    for (o, flag) in outs.iter().zip(flags.iter_mut()) {
        assert_eq!(o.written, o.len(), "a kernel fills each part it writes");
        **flag = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `product` (faer writing unwritten memory where `writes_unread`
    /// holds, zero-filled memory otherwise) gives the bits of faer's
    /// product into zeros, for degenerate, small and kernel-sized shapes,
    /// row- and column-major operands, f32 and f64; so do the two parts of
    /// `in_two_parts`.
    fn products_match_faer_into_zeros<T>(cast: impl Fn(f64) -> T)
    where
        T: ProductFloat + PartialEq + std::fmt::Debug,
    {
        for (m, n, k) in [
            (0, 3, 2),
            (3, 0, 2),
            (3, 2, 0),
            (1, 5, 7),
            (5, 1, 7),
            (5, 7, 1),
            (2, 2, 2),
            (17, 9, 33),
            (64, 48, 70),
        ] {
            for (ta, tb) in [(false, false), (true, true)] {
                let a: Vec<T> = (0..m * k)
                    .map(|i| cast(((i * 37) % 23) as f64 / 7.0 - 1.5))
                    .collect();
                let b: Vec<T> = (0..k * n)
                    .map(|i| cast(((i * 11) % 19) as f64 / 5.0 - 1.8))
                    .collect();
                fn view<T>(s: &[T], r: usize, c: usize, t: bool) -> MatRef<'_, T> {
                    if t {
                        MatRef::from_column_major_slice(s, r, c)
                    } else {
                        MatRef::from_row_major_slice(s, r, c)
                    }
                }
                let (lhs, rhs) = (view(&a, m, k, ta), view(&b, k, n, tb));
                let mut want = vec![T::zero(); m * n];
                faer::linalg::matmul::matmul(
                    faer::MatMut::from_row_major_slice_mut(&mut want, m, n),
                    faer::Accum::Replace,
                    lhs,
                    rhs,
                    T::one(),
                    Par::Seq,
                );
                assert_eq!(product(lhs, rhs, Par::Seq), want, "{m}x{k} @ {k}x{n}");
                let mid = m / 2;
                let (got, ()) = in_two_parts(m * n, mid * n, |top, bottom| {
                    top.product(lhs.subrows(0, mid), rhs, Par::Seq);
                    bottom.product(lhs.subrows(mid, m - mid), rhs, Par::Seq);
                });
                assert_eq!(got, want, "halves of {m}x{k} @ {k}x{n}");
            }
        }
    }

    #[test]
    fn products_written_unzeroed_are_faers_products() {
        products_match_faer_into_zeros::<f32>(|x| x as f32);
        products_match_faer_into_zeros::<f64>(|x| x);
    }

    #[test]
    fn long_f32_reductions_run_in_slices_of_k() {
        assert_eq!(k_slices::<f32>(64, 256, 512), 1);
        assert_eq!(k_slices::<f32>(64, 256, 784), 2);
        assert_eq!(k_slices::<f32>(64, 256, 1024), 3);
        assert_eq!(k_slices::<f64>(64, 256, 784), 1);
        // A large output is not read and written again per slice.
        assert_eq!(k_slices::<f32>(1024, 1024, 1024), 1);
        // Kept small for miri: a small output is sliced too.
        let (m, n, k) = (4, 3, 784);
        let a: Vec<f32> = (0..m * k)
            .map(|i| ((i * 37) % 23) as f32 / 7.0 - 1.5)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 11) % 19) as f32 / 5.0 - 1.8)
            .collect();
        let lhs = MatRef::from_row_major_slice(&a, m, k);
        let rhs = MatRef::from_row_major_slice(&b, k, n);
        // Two products over k's halves, the second added to the first.
        let mut want = vec![0f32; m * n];
        for (p, accum) in [(0, faer::Accum::Replace), (1, faer::Accum::Add)] {
            faer::linalg::matmul::matmul(
                faer::MatMut::from_row_major_slice_mut(&mut want, m, n),
                accum,
                lhs.subcols(p * k / 2, k / 2),
                rhs.subrows(p * k / 2, k / 2),
                1.0,
                Par::Seq,
            );
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&product(lhs, rhs, Par::Seq)), bits(&want));
        let (got, ()) = in_two_parts(m * n, 2 * n, |top, bottom| {
            top.product(lhs.subrows(0, 2), rhs, Par::Seq);
            bottom.product(lhs.subrows(2, m - 2), rhs, Par::Seq);
        });
        assert_eq!(bits(&got), bits(&want), "row parts");
    }

    #[test]
    #[should_panic(expected = "product fills")]
    fn a_product_of_the_wrong_size_for_its_part_panics_before_writing() {
        let a = [1.0f32; 6];
        let lhs = MatRef::from_row_major_slice(&a, 2, 3);
        let rhs = MatRef::from_row_major_slice(&a, 3, 2);
        let _ = in_two_parts::<f32, ()>(5, 2, |top, _| top.product(lhs, rhs, Par::Seq));
    }

    #[test]
    fn untaken_parts_are_zeros_whichever_parts_were_taken_and_where() {
        for (n, mid) in [(0usize, 0usize), (5, 0), (5, 5), (9, 4), (4096 + 3, 2048)] {
            for take in 0..4u32 {
                let (v, r) = in_two_parts::<f32, usize>(n, mid, |top, bottom| {
                    let mut seen = 0;
                    if take & 1 == 1 {
                        top.copied(&(0..mid).map(|i| i as f32).collect::<Vec<_>>());
                        seen += 1;
                    }
                    if take & 2 == 2 {
                        // The other part on another thread.
                        std::thread::scope(|s| {
                            s.spawn(|| bottom.copied(&vec![-1.0; n - mid]));
                        });
                        seen += 1;
                    }
                    seen
                });
                assert_eq!(r, take.count_ones() as usize);
                assert_eq!(v.len(), n);
                for (i, &x) in v.iter().enumerate() {
                    let want = match (i < mid, take & 1 == 1, take & 2 == 2) {
                        (true, true, _) => i as f32,
                        (false, _, true) => -1.0,
                        _ => 0.0,
                    };
                    assert_eq!(
                        x.to_bits(),
                        want.to_bits(),
                        "n={n} mid={mid} take={take} i={i}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_tail_fill_appends_after_what_was_written_and_counts_what_fit() {
        for n in [0usize, 5, 12, 4096 + 1] {
            let work = vec![(); n.div_ceil(8)];
            let v = fill_chunked::<String, (), (), 8>(
                n,
                false,
                work,
                || (),
                |_, c, (), out| {
                    let len = out.len();
                    out.extend((0..len.min(3)).map(|i| format!("{c}.{i}")));
                    // Asks for more than is left: only what fits is written.
                    out.tail().fill(len + 4, |i| format!("{c}.{}", i + 3));
                },
            );
            let want: Vec<String> = (0..n).map(|i| format!("{}.{}", i / 8, i % 8)).collect();
            assert_eq!(v, want, "n = {n}");
        }
    }

    #[test]
    fn fills_every_element_in_order_serial_and_parallel() {
        for par in [false, true] {
            for n in [0usize, 1, 7, 8, 9, 1000, 4096 + 3] {
                let work: Vec<usize> = (0..n.div_ceil(8)).collect();
                let v = fill_chunked::<u64, usize, u32, 8>(
                    n,
                    par,
                    work,
                    || 0,
                    |calls, c, w, out| {
                        assert_eq!(c, w);
                        *calls += 1;
                        let base = (c * 8) as u64;
                        // Written in two pieces: the cursor carries on.
                        let half = out.len() / 2;
                        out.extend((0..half as u64).map(|i| base + i));
                        out.extend((half as u64..8).map(|i| base + i));
                    },
                );
                assert_eq!(v, (0..n as u64).collect::<Vec<_>>(), "n = {n}");
            }
        }
    }

    #[test]
    fn a_streamed_copy_appends_the_same_values_at_every_alignment_and_length() {
        // Every start offset (mod 16 bytes) within the output, lengths
        // around the 16-byte body, appended after a plain piece and before
        // one: the cursor counts what the copy wrote, and values keep their
        // bits (a NaN payload, -0.0) as a plain copy's.
        let vals: Vec<f32> = (0..67)
            .map(|i| match i {
                3 => f32::from_bits(0x7fc0_1234),
                4 => -0.0,
                _ => i as f32 * 0.5 - 7.0,
            })
            .collect();
        for skip in 0..6usize {
            for len in [0usize, 1, 3, 4, 5, 8, 17, 33, 64, 67] {
                let n = skip + len + 2;
                let v = fill_chunked::<f32, (), (), 128>(
                    n,
                    false,
                    vec![(); 1],
                    || (),
                    |_, _, _, out| {
                        out.extend_from_slice(&vals[..skip]);
                        out.stream_from_slice(&vals[..len]);
                        // More than fits: only what is left is taken.
                        out.stream_from_slice(&[1.5, 2.5, 3.5]);
                    },
                );
                let want: Vec<u32> = vals[..skip]
                    .iter()
                    .chain(&vals[..len])
                    .chain(&[1.5, 2.5])
                    .map(|x| x.to_bits())
                    .collect();
                let got: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "skip = {skip}, len = {len}");
            }
        }
        // Float64 as well, in parallel chunks.
        let vals: Vec<f64> = (0..1000).map(|i| i as f64 / 3.0).collect();
        let v = fill_chunked::<f64, (), (), 96>(
            vals.len(),
            true,
            vec![(); vals.len().div_ceil(96)],
            || (),
            |_, c, _, out| out.stream_from_slice(&vals[c * 96..]),
        );
        assert_eq!(v, vals);
    }

    #[test]
    fn outputs_far_larger_than_the_caches_stream() {
        assert!(!streams::<f32>(1 << 20));
        assert!(streams::<f32>(2 << 20));
        assert!(streams::<f64>(1 << 20));
        assert!(!streams::<f64>(1 << 19));
        assert!(streams::<f32>(usize::MAX));
    }

    #[test]
    fn owned_values_are_kept_and_dropped_once() {
        // Heap-owning elements: a double drop or a read of an unwritten
        // slot would show under miri or as a wrong string.
        let v = fill_chunked::<String, (), (), 3>(
            10,
            true,
            vec![(); 4],
            || (),
            |_, c, _, out| {
                let n = out.len();
                out.extend((0..n).map(|i| format!("{}", c * 3 + i)));
            },
        );
        assert_eq!(v.join(","), "0,1,2,3,4,5,6,7,8,9");
    }

    #[test]
    fn a_short_chunk_panics_instead_of_exposing_uninitialized_memory() {
        for par in [false, true] {
            let r = std::panic::catch_unwind(|| {
                fill_chunked::<String, (), (), 4>(
                    10,
                    par,
                    vec![(); 3],
                    || (),
                    |_, _, _, out| out.extend([String::from("x")]),
                )
            });
            assert!(r.is_err(), "par = {par}");
        }
    }

    #[test]
    #[should_panic(expected = "one work item per chunk")]
    fn work_must_cover_every_chunk() {
        fill_chunked::<u8, (), (), 4>(10, false, vec![(); 2], || (), |_, _, _, _| {});
    }

    #[test]
    fn several_outputs_are_filled_side_by_side() {
        for par in [false, true] {
            for n in [0usize, 1, 5, 8, 9, 37] {
                for outputs in [0usize, 1, 2, 3] {
                    let v = fill_chunked_many::<String, (), (), 4>(
                        n,
                        outputs,
                        par,
                        vec![(); n.div_ceil(4)],
                        || (),
                        |_, c, _, outs| {
                            assert_eq!(outs.len(), outputs);
                            for (j, out) in outs.iter_mut().enumerate() {
                                let len = out.len();
                                out.extend((0..len).map(|i| format!("{j}:{}", c * 4 + i)));
                            }
                        },
                    );
                    assert_eq!(v.len(), outputs);
                    for (j, o) in v.iter().enumerate() {
                        let want: Vec<String> = (0..n).map(|i| format!("{j}:{i}")).collect();
                        assert_eq!(*o, want, "n = {n}, outputs = {outputs}, par = {par}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_short_output_of_several_panics() {
        for par in [false, true] {
            let r = std::panic::catch_unwind(|| {
                fill_chunked_many::<String, (), (), 4>(
                    10,
                    2,
                    par,
                    vec![(); 3],
                    || (),
                    |_, _, _, outs| {
                        // The first output is filled, the second left short.
                        let n = outs[0].len();
                        outs[0].extend((0..n).map(|i| i.to_string()));
                        outs[1].extend([String::from("x")]);
                    },
                )
            });
            assert!(r.is_err(), "par = {par}");
        }
    }

    /// Several vectors split at one row: parts written through
    /// `write_parts` hold what their cursors got, parts left alone are
    /// zeros, and a cursor left short panics without exposing its vector.
    #[test]
    fn parts_of_several_vectors_are_written_or_zeroed() {
        let (vs, ()) = in_two_parts_each::<f64, ()>(2, 7, 3, |tops, bottoms| {
            write_parts(tops, |outs| {
                outs[0].extend_from_slice(&[1.0, 2.0, 3.0]);
                outs[1].extend([4.0, 5.0, 6.0]);
            });
            drop(bottoms);
        });
        assert_eq!(vs[0], vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(vs[1], vec![4.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0]);
        let r = std::panic::catch_unwind(|| {
            in_two_parts_each::<f64, ()>(2, 4, 2, |tops, _| {
                write_parts(tops, |outs| {
                    outs[0].extend([1.0, 2.0]);
                    outs[1].extend([3.0]);
                })
            })
        });
        assert!(r.is_err());
    }
}
