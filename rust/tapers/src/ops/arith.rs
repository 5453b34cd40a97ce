//! Arithmetic: + - * / // % pow, negation, maximum and minimum, with broadcasting.

use smallvec::SmallVec;

pub(crate) use crate::kernels::Arith;

use super::{describe_op, elementwise, pointwise, record, record_pointwise, rule, unbroadcast};
use crate::error::{Error, Result};
use crate::kernels::{complex_binary, complex_unary, numeric_binary, numeric_unary};
use crate::ops;
use crate::ops::complex::conj_if_complex;
use crate::ops::pointwise::Order;
use crate::tensor::{Storage, Tensor};

/// Integer kernels cannot divide by zero: TF reports it as an invalid argument.
fn check_divisor(op: &'static str, b: &Tensor) -> Result<()> {
    use crate::dtype::Scalar;
    let zero = b.dtype().is_integer()
        && crate::with_real_storage!(b.storage(), q => q.iter().any(|v| v.to_num().is_zero()), _ => false);
    if zero {
        return Err(Error::invalid(format!(
            "Integer division by zero [Op:{op}]"
        )));
    }
    Ok(())
}

pointwise!(
    /// `d(a + b) = (g, g)`.
    AddLocal {
        arity: 2,
        saves: Nothing,
        through: [0, 1],
        0: |g, a, b| g,
        1: |g, a, b| g,
    }
);
describe_op!(AddV2, "AddV2", |[a, b]| add(a, b), rows: true, pointwise: AddLocal, elementwise: AddFwd, method: add);

pointwise!(
    /// `d(a - b) = (g, -g)`.
    SubLocal {
        arity: 2,
        saves: Nothing,
        through: [0],
        0: |g, a, b| g,
        1: |g, a, b| -g,
    }
);
describe_op!(Sub, "Sub", |[a, b]| sub(a, b), rows: true, pointwise: SubLocal, elementwise: SubFwd, method: sub);

pointwise!(
    /// `d(a * b) = (g b, g a)`.
    MulLocal {
        arity: 2,
        saves: Inputs,
        scales: [0 => 1, 1 => 0],
        0: |g, a, b| g * b,
        1: |g, a, b| g * a,
    }
);
describe_op!(Mul, "Mul", |[a, b]| mul(a, b), rows: true, pointwise: MulLocal, elementwise: MulFwd, method: mul);

pointwise!(
    /// `d(a / b) = (g / b, -g a / b^2)`.
    DivLocal {
        arity: 2,
        saves: Inputs,
        0: |g, a, b| g / b,
        1: |g, a, b| -(g * ((a / b) / b)),
    }
);
describe_op!(RealDiv, "RealDiv", |[a, b]| div(a, b), rows: true, pointwise: DivLocal, elementwise: DivFwd, method: div);

pointwise!(
    /// `d(-a) = -g`.
    NegLocal {
        arity: 1,
        saves: Nothing,
        0: |g, a, b| -g,
    }
);
describe_op!(Neg, "Neg", |[a]| neg(a), rows: true, pointwise: NegLocal, elementwise: NegFwd, method: neg);

elementwise!(
    /// `a + b` at one element.
    AddFwd<T: [Arith]>, |a, b| Arith::add(a, b)
);
elementwise!(
    /// `a - b` at one element.
    SubFwd<T: [Arith]>, |a, b| Arith::sub(a, b)
);
elementwise!(
    /// `a * b` at one element.
    MulFwd<T: [Arith]>, |a, b| Arith::mul(a, b)
);
elementwise!(
    /// `a / b` at one element (integer division by zero is refused before).
    DivFwd<T: [Arith]>, |a, b| Arith::div(a, b)
);
elementwise!(
    /// `-a` at one element.
    NegFwd<T: [Arith]>, |a| Arith::neg(a)
);

/// `a + b` with broadcasting.
pub fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = match complex_binary!("AddV2", a, b, |x, y| x + y) {
        Some(r) => r?,
        None => numeric_binary!(memory: "AddV2", a, b, |x, y| AddFwd::at(x, y))?,
    };
    record_pointwise(AddV2, &[a, b], &out);
    Ok(out)
}

/// `a - b` with broadcasting.
pub fn sub(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = match complex_binary!("Sub", a, b, |x, y| x - y) {
        Some(r) => r?,
        None => numeric_binary!(memory: "Sub", a, b, |x, y| SubFwd::at(x, y))?,
    };
    record_pointwise(Sub, &[a, b], &out);
    Ok(out)
}

/// `1 * x` is `x`, bit for bit: when one operand is known to be all ones
/// (a gradient seed, broadcast by a reduction's rule) and the other already
/// has the output's shape, the product shares the other's elements instead
/// of making a pass over them.
fn times_one(a: &Tensor, b: &Tensor) -> Option<Tensor> {
    if a.dtype() != b.dtype() || a.dtype() == crate::DType::Bool || a.shape() != b.shape() {
        return None;
    }
    if a.is_all_ones() {
        Some(b.alias())
    } else if b.is_all_ones() {
        Some(a.alias())
    } else {
        None
    }
}

/// `a * b` with broadcasting.
pub fn mul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = match times_one(a, b) {
        Some(t) => t,
        None => match complex_binary!("Mul", a, b, |x, y| x * y) {
            Some(r) => r?,
            None => numeric_binary!(memory: "Mul", a, b, |x, y| MulFwd::at(x, y))?,
        },
    };
    record_pointwise(Mul, &[a, b], &out);
    Ok(out)
}

/// `a / b` with broadcasting. Integer division truncates toward zero (TF `Div`);
/// integer division by zero is an error.
pub fn div(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    check_divisor("RealDiv", b)?;
    let out = match complex_binary!("RealDiv", a, b, |x, y| crate::kernels::complex::div(x, y)) {
        Some(r) => r?,
        None => numeric_binary!("RealDiv", a, b, |x, y| DivFwd::at(x, y))?,
    };
    record_pointwise(RealDiv, &[a, b], &out);
    Ok(out)
}

/// Floor division `a // b`, as Python's (TF `FloorDiv`). Not differentiable.
pub fn floordiv(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    check_divisor("FloorDiv", b)?;
    let out = numeric_binary!("FloorDiv", a, b, |x, y| Arith::floordiv(x, y))?;
    super::trace_only("FloorDiv", &[a, b], &out, |i| floordiv(&i[0], &i[1]));
    Ok(out)
}

describe_op!(FloorMod, "FloorMod", |[a, b]| floormod(a, b));

/// Floor modulo `a % b`, with the sign of `b` as in Python (TF `FloorMod`).
pub fn floormod(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    check_divisor("FloorMod", b)?;
    let out = numeric_binary!("FloorMod", a, b, |x, y| Arith::floormod(x, y))?;
    let rank = out.rank();
    record(FloorMod, &[a, b], &[&out], || {
        let (a, b) = (a.clone(), b.clone());
        rule(move |g, needs| {
            Ok(vec![
                if needs[0] {
                    Some(unbroadcast(&g[0], rank, a.shape())?)
                } else {
                    None
                },
                if needs[1] {
                    let q = floordiv(&a, &b)?;
                    Some(unbroadcast(&neg(&mul(&g[0], &q)?)?, rank, b.shape())?)
                } else {
                    None
                },
            ])
        })
    });
    Ok(out)
}

describe_op!(Pow, "Pow", |[a, b]| pow(a, b), method: pow);

/// `a ** b` with broadcasting.
pub fn pow(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    use crate::dtype::Scalar;
    let negative = b.dtype().is_integer()
        && crate::with_real_storage!(b.storage(), q => q.iter().any(|v| v.to_num().re() < 0.0), _ => false);
    if negative && a.dtype() == b.dtype() {
        return Err(Error::invalid(
            "Integers to negative integer powers are not allowed [Op:Pow]",
        ));
    }
    // `x ** 2`, as TF users write squared errors: `square`'s kernel, the
    // bits `Arith::pow` gives every element with exponent 2, without a libm
    // call per element.
    use crate::dtype::DType;
    let square = matches!(a.dtype(), DType::F32 | DType::F64)
        && b.dtype() == a.dtype()
        && b.numel() == 1
        && b.rank() <= a.rank()
        && b.to_f64_scalar().is_ok_and(|v| v == 2.0);
    let out = if square {
        numeric_unary!("Pow", a, |v| ops::math::SquareFwd::at(v))?
    } else {
        match complex_binary!("Pow", a, b, |x, y| crate::kernels::complex::pow(x, y)) {
            Some(r) => r?,
            None => numeric_binary!("Pow", a, b, |x, y| Arith::pow(x, y))?,
        }
    };
    let rank = out.rank();
    record(Pow, &[a, b], &[&out], || {
        let (a, b, z) = (a.clone(), b.clone(), out.clone());
        rule(move |g, needs| {
            // Complex: the conjugates (TF's _PowGrad), real: the values.
            let (a, b, z) = (
                conj_if_complex(&a)?,
                conj_if_complex(&b)?,
                conj_if_complex(&z)?,
            );
            let ga = if needs[0] {
                // b * a^(b-1)
                let one = Tensor::ones(&[], b.dtype())?;
                let t = mul(&b, &pow(&a, &sub(&b, &one)?)?)?;
                Some(unbroadcast(&mul(&g[0], &t)?, rank, a.shape())?)
            } else {
                None
            };
            let gb = if needs[1] {
                // z * log(a) where a > 0 (complex: a != 0), else 0 (TF's
                // choice for the undefined branch).
                let zero = Tensor::zeros(&[], a.dtype())?;
                let pos = if a.dtype().is_complex() {
                    ops::not_equal(&a, &zero)?
                } else {
                    ops::greater(&a, &zero)?
                };
                let safe_a = ops::array::where_(&pos, &a, &Tensor::ones(&[], a.dtype())?)?;
                let log_a =
                    ops::array::where_(&pos, &ops::log(&safe_a)?, &ops::array::zeros_like(&a)?)?;
                Some(unbroadcast(
                    &mul(&g[0], &mul(&z, &log_a)?)?,
                    rank,
                    b.shape(),
                )?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        })
    });
    Ok(out)
}

/// `-a`.
pub fn neg(a: &Tensor) -> Result<Tensor> {
    let out = match complex_unary!(a, |x| -x) {
        Some(t) => t,
        None => numeric_unary!("Neg", a, |x| NegFwd::at(x))?,
    };
    record_pointwise(Neg, &[a], &out);
    Ok(out)
}

pointwise!(
    /// `d max(a, b) = (g where a >= b, g where not)`: the tie goes to `a`,
    /// a NaN `a` sends `g` to `b` (TF's `MaximumGrad`).
    MaximumLocal {
        arity: 2,
        saves: Inputs,
        0: |g, a, b| a.picked(b, g, Order::Ge, true),
        1: |g, a, b| a.picked(b, g, Order::Ge, false),
    }
);
describe_op!(Maximum, "Maximum", |[a, b]| maximum(a, b), rows: true, pointwise: MaximumLocal, elementwise: MaximumFwd, method: maximum);

pointwise!(
    /// `d min(a, b) = (g where a <= b, g where not)` (TF's `MinimumGrad`).
    MinimumLocal {
        arity: 2,
        saves: Inputs,
        0: |g, a, b| a.picked(b, g, Order::Le, true),
        1: |g, a, b| a.picked(b, g, Order::Le, false),
    }
);
describe_op!(Minimum, "Minimum", |[a, b]| minimum(a, b), rows: true, pointwise: MinimumLocal, elementwise: MinimumFwd, method: minimum);

elementwise!(
    /// `max(a, b)` at one element: a NaN `a` wins, then `a` at a tie.
    MaximumFwd<T: [Arith + PartialOrd]>, |a, b| if Arith::is_nan(a) || a >= b { a } else { b }
);
elementwise!(
    /// `min(a, b)` at one element: a NaN `a` wins, then `a` at a tie.
    MinimumFwd<T: [Arith + PartialOrd]>, |a, b| if Arith::is_nan(a) || a <= b { a } else { b }
);

/// Elementwise maximum; at a tie the gradient goes to `a` (as TF).
pub fn maximum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = numeric_binary!(memory: "Maximum", a, b, |x, y| MaximumFwd::at(x, y))?;
    record_pointwise(Maximum, &[a, b], &out);
    Ok(out)
}

/// Elementwise minimum; at a tie the gradient goes to `a` (as TF).
pub fn minimum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = numeric_binary!(memory: "Minimum", a, b, |x, y| MinimumFwd::at(x, y))?;
    record_pointwise(Minimum, &[a, b], &out);
    Ok(out)
}

/// The description of `AddN` (any number of inputs).
struct AddN;

impl crate::op::Op for AddN {
    fn name(&self) -> &'static str {
        "AddN"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![add_n(inputs)?])
    }

    fn carries_rows(&self) -> bool {
        true
    }

    fn fusion(&self) -> crate::op::Fusion<'_> {
        crate::op::Fusion::AddN
    }
}

/// Sums tensors of one shape and dtype in a single pass (TF's `AddN`). Each
/// element is added in the order given, so the result equals the chain of
/// pairwise [`add`]s bit for bit.
pub fn add_n(parts: &[Tensor]) -> Result<Tensor> {
    let refs: Vec<&Tensor> = parts.iter().collect();
    if let Some(r) = super::half::via_f32("AddN", &refs, add_n) {
        return r;
    }
    let first = parts
        .first()
        .ok_or_else(|| Error::invalid("add_n needs at least one tensor"))?;
    if parts
        .iter()
        .any(|p| p.shape() != first.shape() || p.dtype() != first.dtype())
    {
        // Mixed shapes broadcast like a chain of adds.
        return parts[1..]
            .iter()
            .try_fold(first.clone(), |acc, p| add(&acc, p));
    }
    if parts.len() == 1 {
        return Ok(ops::identity(first));
    }
    fn sum<T: Arith>(
        arrays: Vec<&ndarray::ArcArray<T, ndarray::IxDyn>>,
    ) -> ndarray::ArcArray<T, ndarray::IxDyn> {
        let shape = arrays[0].raw_dim();
        let views: Vec<_> = arrays.iter().map(|a| a.as_standard_layout()).collect();
        let slices: Vec<&[T]> = views
            .iter()
            .map(|v| v.as_slice().expect("standard layout"))
            .collect();
        // Every element sums its parts in list order, so any split of the
        // elements across threads gives the same bits. The first two parts
        // fill the output in one pass; the rest are added in place.
        crate::kernels::parallel(
            slices[0].len(),
            crate::kernels::PAR_THRESHOLD_MEMORY,
            |par| sum_into(&slices, shape, par),
        )
    }
    /// [`sum`]'s passes, split across the pool when `par`.
    fn sum_into<T: Arith>(
        slices: &[&[T]],
        shape: ndarray::IxDyn,
        par: bool,
    ) -> ndarray::ArcArray<T, ndarray::IxDyn> {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 14;
        let (a, b) = (slices[0], slices[1]);
        let mut out: Vec<T> = Vec::with_capacity(a.len());
        if par {
            out.par_extend(
                a.par_iter()
                    .zip(b.par_iter())
                    .with_min_len(CHUNK)
                    .map(|(&x, &y)| Arith::add(x, y)),
            );
        } else {
            out.extend(a.iter().zip(b).map(|(&x, &y)| Arith::add(x, y)));
        }
        let add_chunk = |(c, dst): (usize, &mut [T])| {
            for s in &slices[2..] {
                for (d, &v) in dst.iter_mut().zip(&s[c * CHUNK..]) {
                    *d = Arith::add(*d, v);
                }
            }
        };
        if slices.len() > 2 {
            if par {
                out.par_chunks_mut(CHUNK).enumerate().for_each(add_chunk);
            } else {
                out.chunks_mut(CHUNK).enumerate().for_each(add_chunk);
            }
        }
        ndarray::ArrayD::from_shape_vec(shape, out)
            .expect("same size")
            .into_shared()
    }
    macro_rules! go {
        ($v:ident) => {
            Storage::$v(sum(parts
                .iter()
                .map(|p| match p.storage() {
                    Storage::$v(a) => a,
                    _ => unreachable!("dtypes checked equal"),
                })
                .collect()))
        };
    }
    let out = Tensor::from_storage(match first.storage() {
        Storage::F32(_) => go!(F32),
        Storage::F64(_) => go!(F64),
        Storage::I32(_) => go!(I32),
        Storage::I64(_) => go!(I64),
        Storage::U8(_) => go!(U8),
        Storage::I8(_) => go!(I8),
        Storage::I16(_) => go!(I16),
        Storage::U16(_) => go!(U16),
        Storage::U32(_) => go!(U32),
        Storage::U64(_) => go!(U64),
        Storage::C64(_) => go!(C64),
        Storage::C128(_) => go!(C128),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "AddN",
                dtype: first.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    let n = parts.len();
    let ins: SmallVec<[&Tensor; 4]> = parts.iter().collect();
    record(AddN, &ins, &[&out], || {
        rule(move |g, _| Ok(vec![Some(g[0].clone()); n]))
    });
    Ok(out)
}
