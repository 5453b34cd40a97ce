//! Float sums in an order fixed by the elements alone.
//!
//! A running sum that adds one element after another is one chain of
//! dependent additions: each waits for the one before, so it runs at the
//! adder's latency, not its throughput, whatever the vector width. Here
//! [`LANES`] running sums take every `LANES`-th element (element `i` goes to
//! lane `i % LANES`, a remainder shorter than `LANES` to the first lanes),
//! and [`Lanes::total`] adds the lanes pairwise in a fixed tree. The lanes
//! are a plain array, so the loop vectorizes at any width (SSE2, AVX2,
//! AVX-512) with the same additions in the same order: the result is the
//! same on every CPU. The compiler never reorders float additions, so the
//! order written here is the order run.
//!
//! Sums are incremental: feeding a slice in pieces gives the bits of feeding
//! it whole, as long as every piece but the last is a multiple of `LANES`
//! long (a traced graph's fused loops feed chunks of a tensor as they are
//! computed, and get `reduce_sum`'s bits).

use std::ops::Add;

use num_traits::Zero;

/// Running sums per [`Lanes`]: four AVX-512 registers of f32 (eight of
/// f64), enough independent additions to keep the adders busy.
pub(crate) const LANES: usize = 64;

/// The running sums of a sum in progress.
#[derive(Clone, Copy)]
pub(crate) struct Lanes<T> {
    lanes: [T; LANES],
}

impl<T: Copy + Zero + Add<Output = T> + Send + Sync> Default for Lanes<T> {
    fn default() -> Self {
        Lanes {
            lanes: [T::zero(); LANES],
        }
    }
}

impl<T: Copy + Zero + Add<Output = T> + Send + Sync> Lanes<T> {
    /// Adds `xs`: element `i` to lane `i % LANES`. Every slice fed before
    /// the last must be a multiple of [`LANES`] long (checked in debug
    /// builds by the tests' callers, see the module doc).
    pub(crate) fn feed(&mut self, xs: &[T]) {
        struct Job<'a, T>(&'a mut [T; LANES], &'a [T]);
        impl<T: Copy + Add<Output = T>> pulp::WithSimd for Job<'_, T> {
            type Output = ();

            #[inline(always)]
            fn with_simd<S: pulp::Simd>(self, _simd: S) {
                let Job(lanes, xs) = self;
                let mut l = *lanes;
                let mut blocks = xs.chunks_exact(LANES);
                for b in &mut blocks {
                    for (s, &v) in l.iter_mut().zip(b) {
                        *s = *s + v;
                    }
                }
                for (s, &v) in l.iter_mut().zip(blocks.remainder()) {
                    *s = *s + v;
                }
                *lanes = l;
            }
        }
        if xs.len() < LANES {
            for (s, &v) in self.lanes.iter_mut().zip(xs) {
                *s = *s + v;
            }
        } else {
            pulp::Arch::new().dispatch(Job(&mut self.lanes, xs))
        }
    }

    /// The lanes added pairwise: lane `i` and lane `i + w` for `w` = 32,
    /// 16, ..., 1.
    pub(crate) fn total(&self) -> T {
        let mut l = self.lanes;
        let mut w = LANES / 2;
        while w > 0 {
            for i in 0..w {
                l[i] = l[i] + l[i + w];
            }
            w /= 2;
        }
        l[0]
    }
}

/// The sum of `xs` in the order of [`Lanes`].
pub(crate) fn sum<T: Copy + Zero + Add<Output = T> + Send + Sync>(xs: &[T]) -> T {
    let mut l = Lanes::default();
    l.feed(xs);
    l.total()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented order, written out element by element.
    fn reference(xs: &[f32]) -> f32 {
        let mut lanes = [0.0f32; LANES];
        for (i, &v) in xs.iter().enumerate() {
            lanes[i % LANES] += v;
        }
        let mut w = LANES / 2;
        while w > 0 {
            for i in 0..w {
                lanes[i] += lanes[i + w];
            }
            w /= 2;
        }
        lanes[0]
    }

    fn values(n: usize) -> Vec<f32> {
        // Magnitudes far apart, so that any other order rounds differently.
        (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 * 1.37e-3 + if i % 3 == 0 { 1e4 } else { 0.0 })
            .collect()
    }

    #[test]
    fn sums_in_the_documented_order() {
        for n in [0, 1, 5, 63, 64, 65, 127, 1000, 4096, 10_007] {
            let xs = values(n);
            assert_eq!(sum(&xs).to_bits(), reference(&xs).to_bits(), "n = {n}");
        }
    }

    #[test]
    fn feeding_in_pieces_gives_the_same_bits() {
        let xs = values(10_007);
        let whole = sum(&xs);
        for piece in [64, 128, 1024, 4096] {
            let mut l = Lanes::default();
            for c in xs.chunks(piece) {
                l.feed(c);
            }
            assert_eq!(l.total().to_bits(), whole.to_bits(), "pieces of {piece}");
        }
    }

    #[test]
    fn differs_from_a_running_sum_where_order_matters() {
        // The test values do round differently in another order: the tests
        // above would notice a changed order.
        let xs = values(4096);
        let running = xs.iter().fold(0.0f32, |a, &b| a + b);
        assert_ne!(running.to_bits(), sum(&xs).to_bits());
    }
}
