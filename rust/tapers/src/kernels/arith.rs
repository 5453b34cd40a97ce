//! Element arithmetic shared by every kernel that adds or multiplies.

use num_traits::Float;

/// Element arithmetic whose meaning differs between floats and integers.
///
/// Integer `+ - *` wrap on overflow, as TensorFlow's kernels do (and as a
/// release build would): never a panic, whatever the build profile. Every
/// kernel that adds elements (reductions, add_n, scatter, conv, integer
/// matmul) goes through `add` and the sums below.
pub(crate) trait Arith: Copy + Send + Sync + num_traits::Zero {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn floordiv(self, o: Self) -> Self;
    fn floormod(self, o: Self) -> Self;
    fn pow(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn is_nan(self) -> bool;
    /// The sum of a slice, in an order fixed by the slice alone.
    fn sum_slice(c: &[Self]) -> Self {
        c.iter().fold(Self::zero(), |acc, &v| Arith::add(acc, v))
    }
    /// The sum of one contiguous lane, as [`Arith::sum_axis`] sums each
    /// lane of a row-major array's last axis (same order, same bits).
    fn sum_lane(c: &[Self]) -> Self {
        c.iter().fold(Self::zero(), |acc, &v| Arith::add(acc, v))
    }
    /// The sum along one axis.
    fn sum_axis(a: ndarray::ArrayViewD<'_, Self>, ax: ndarray::Axis) -> ndarray::ArrayD<Self> {
        a.fold_axis(ax, Self::zero(), |acc, &v| Arith::add(*acc, v))
    }
}

macro_rules! float_arith {
    ($t:ty) => {
        impl Arith for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn floordiv(self, o: Self) -> Self {
                (self / o).floor()
            }
            fn floormod(self, o: Self) -> Self {
                let r = self % o;
                if r != 0.0 && ((r < 0.0) != (o < 0.0)) {
                    r + o
                } else {
                    r
                }
            }
            fn pow(self, o: Self) -> Self {
                // Exponents 1 and 2 exactly: `x` and the correctly rounded
                // `x * x` (what numpy gives), which libm's `powf` misses in
                // about one element in a thousand; `ops::pow` runs the
                // square kernel for a scalar 2.
                if o == 2.0 {
                    self * self
                } else if o == 1.0 {
                    self
                } else {
                    Float::powf(self, o)
                }
            }
            fn neg(self) -> Self {
                -self
            }
            fn is_nan(self) -> bool {
                Float::is_nan(self)
            }
            // Many running sums in a fixed order (`kernels::sum`): the same
            // bits at every vector width.
            fn sum_slice(c: &[Self]) -> Self {
                super::sum::sum(c)
            }
            fn sum_lane(c: &[Self]) -> Self {
                // What ndarray's `sum_axis` runs on each lane of the
                // contiguous axis (its eightfold unrolled fold).
                ndarray::ArrayView1::from(c).sum()
            }
            fn sum_axis(
                a: ndarray::ArrayViewD<'_, Self>,
                ax: ndarray::Axis,
            ) -> ndarray::ArrayD<Self> {
                a.sum_axis(ax)
            }
        }
    };
}
float_arith!(f32);
float_arith!(f64);

macro_rules! int_arith {
    ($t:ty) => {
        // `< 0` is never true for the unsigned types: one body serves both.
        #[allow(unused_comparisons, clippy::unnecessary_cast)]
        impl Arith for $t {
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div(self, o: Self) -> Self {
                if o == 0 {
                    0
                } else {
                    self.wrapping_div(o)
                }
            }
            fn floordiv(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                let q = self.wrapping_div(o);
                // wrapping: MIN / -1 overflows, as in TF's kernels.
                if (self.wrapping_rem(o) != 0) && ((self < 0) != (o < 0)) {
                    q.wrapping_sub(1)
                } else {
                    q
                }
            }
            fn floormod(self, o: Self) -> Self {
                if o == 0 {
                    return 0;
                }
                let r = self.wrapping_rem(o);
                if r != 0 && ((r < 0) != (o < 0)) {
                    r.wrapping_add(o)
                } else {
                    r
                }
            }
            fn pow(self, o: Self) -> Self {
                // Negative exponents are rejected before the kernel runs.
                // Squaring and multiplying, wrapping, over the whole exponent
                // (TF's int64 pow with an exponent >= 2^32 included).
                let (mut base, mut e, mut acc): (Self, u64, Self) = (self, o.max(0) as u64, 1);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            fn is_nan(self) -> bool {
                false
            }
        }
    };
}
int_arith!(i32);
int_arith!(i64);
int_arith!(i8);
int_arith!(i16);
int_arith!(u8);
int_arith!(u16);
int_arith!(u32);
int_arith!(u64);
