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
//! This is the crate's only `unsafe`: one `Vec::set_len` per output (in
//! [`fill_chunked_many`]; [`fill_chunked`] is its one-output case), after a
//! check that does not trust the kernels (see the proof at the call). Its
//! tests pass under miri (tree borrows; rayon's pool outlives `main`, and
//! crossbeam's epoch GC trips stacked borrows):
//! `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks"
//! cargo +nightly miri test -p tapers --lib uninit`.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

use rayon::prelude::*;
use smallvec::SmallVec;

/// A chunk of an output being built: a write cursor over uninitialized
/// slots. Elements can only be appended, so the written prefix is always
/// initialized; `written` counts it.
pub(crate) struct ChunkOut<'a, C> {
    slots: &'a mut [MaybeUninit<C>],
    written: usize,
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
/// worker. `work` holds one item per chunk. Chunks run in parallel when
/// `par`; element values never depend on the split, so neither does the
/// result.
///
/// # Panics
///
/// If a chunk appends fewer elements than it holds (a kernel bug): the
/// partial vector is then dropped as empty, never read.
pub(crate) fn fill_chunked<C, W, S, const K: usize>(
    n: usize,
    par: bool,
    work: Vec<W>,
    init: impl Fn() -> S + Sync + Send,
    fill: impl Fn(&mut S, usize, W, &mut ChunkOut<'_, C>) + Sync + Send,
) -> Vec<C>
where
    C: Send,
    W: Send,
{
    fill_chunked_many::<C, W, S, K>(n, 1, par, work, init, |s, c, w, outs| {
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
    par: bool,
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
        let mut cursors: SmallVec<[ChunkOut<'_, C>; 2]> = slots
            .into_iter()
            .map(|slots| ChunkOut { slots, written: 0 })
            .collect();
        fill(state, c, w, &mut cursors);
        for chunk in &cursors {
            assert_eq!(
                chunk.written,
                chunk.slots.len(),
                "a chunk kernel left elements unwritten"
            );
        }
    };
    if par {
        per_chunk
            .into_par_iter()
            .zip(work)
            .enumerate()
            .for_each_init(init, one);
    } else {
        let mut state = init();
        per_chunk
            .into_iter()
            .zip(work)
            .enumerate()
            .for_each(|cw| one(&mut state, cw));
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
        // finished (its panics are re-raised here), and `per_chunk`'s
        // borrows of `outs` ended with that iteration.
        unsafe { o.set_len(n) };
    }
    outs
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
