//! Large outputs written once, without zero-filling them first.
//!
//! Safe Rust hands out only initialized memory, so a kernel that writes a
//! 16 MB output chunk by chunk in parallel would first have to zero it: one
//! more full pass over memory (~0.5-1 ms per 16 MB on this kind of machine,
//! a tenth of an elementwise op's budget). [`fill_chunked`] instead lets
//! each chunk write its slots through a [`ChunkOut`] cursor that counts what
//! it wrote, and only marks the vector's length once every chunk has
//! written all of its elements.
//!
//! This is the crate's only `unsafe`: one `Vec::set_len`, after a check that
//! does not trust the kernels (see the proof at the call). Its tests pass
//! under miri (tree borrows; rayon's pool outlives `main`, and crossbeam's
//! epoch GC trips stacked borrows):
//! `MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks"
//! cargo +nightly miri test -p tapers --lib uninit`.
#![allow(unsafe_code)]

use std::mem::MaybeUninit;

use rayon::prelude::*;

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
    assert_eq!(work.len(), n.div_ceil(K), "one work item per chunk");
    let mut out: Vec<C> = Vec::with_capacity(n);
    let one = |state: &mut S, (c, (slots, w)): (usize, (&mut [MaybeUninit<C>], W))| {
        let mut chunk = ChunkOut { slots, written: 0 };
        fill(state, c, w, &mut chunk);
        assert_eq!(
            chunk.written,
            chunk.slots.len(),
            "a chunk kernel left elements unwritten"
        );
    };
    let slots = &mut out.spare_capacity_mut()[..n];
    if par {
        slots
            .par_chunks_mut(K)
            .zip(work)
            .enumerate()
            .for_each_init(init, one);
    } else {
        let mut state = init();
        slots
            .chunks_mut(K)
            .zip(work)
            .enumerate()
            .for_each(|cw| one(&mut state, cw));
    }
    // SAFETY: `set_len(n)` needs the first `n` slots initialized and
    // `n <= capacity` (`with_capacity(n)`). The slots `[0, n)` are split by
    // `chunks_mut(K)` into disjoint chunks covering all of them, one per
    // work item (asserted above: `work.len() == n.div_ceil(K)`, and `zip`
    // stops at the shorter side, so every chunk is visited). Each chunk's
    // `ChunkOut` only writes slots in order from its start (`extend` zips
    // the unwritten suffix), so its first `written` slots are initialized,
    // and `one` asserts `written == slots.len()` after the kernel ran. A
    // failed assert (or any panic in a kernel) unwinds out of this function
    // before this line, dropping `out` with length 0: nothing uninitialized
    // is ever read or dropped. Rayon's `for_each_init` returns only after
    // every chunk finished (its panics are re-raised here).
    unsafe { out.set_len(n) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
