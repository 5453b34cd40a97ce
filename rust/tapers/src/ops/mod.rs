//! Differentiable operations, one family per module. Each op is described
//! once in its family's file: its forward kernel, its description
//! ([`crate::op::Op`]: name, how it runs again, whether its rule carries
//! row dims, its pointwise derivative) and its gradient rule, written with
//! these same ops so that outer tapes record it (higher derivatives).
//!
//! Elementwise ops with a pointwise derivative declare it with
//! `pointwise!` (in `pointwise.rs`) and record with [`record_pointwise`],
//! which builds their rule from that formula; other ops record with
//! [`record`] and a rule of their own.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::{Op, OpRef};
use crate::record::{self, BackwardFn};
use crate::tensor::{Tensor, TensorId};

mod arith;
mod array;
mod compare;
mod conv;
mod grad;
mod index;
mod linalg;
mod math;
mod matmul;
mod nn;
mod pointwise;
mod reduce;

pub use arith::{add, add_n, div, floordiv, floormod, maximum, minimum, mul, neg, pow, sub};
pub use array::{
    broadcast_to, cast, concat, expand_dims, eye, fill, linspace, one_hot, ones_like, range,
    reshape, split, squeeze, stack, tile, transpose, unstack, where_, zeros_like,
};
pub use compare::{
    equal, greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or,
    logical_xor, not_equal,
};
pub use conv::{avg_pool2d, conv2d, max_pool2d, patches, patches_adjoint, Padding, Window};
pub use grad::{custom_op, identity, stop_gradient};
pub use index::{
    gather, gather_nd, index_first, pad, scatter_add, slice_ranges, strided_slice, take, SliceItem,
};
pub use linalg::{einsum, norm, tensordot, trace, NormOrd};
pub use math::{
    abs, acos, asin, atan, atan2, cos, cosh, erf, exp, expm1, is_finite, is_inf, is_nan, log,
    log1p, reciprocal, relu, relu6, rsqrt, sigmoid, sign, sin, sinh, softplus, sqrt, square, tan,
    tanh,
};
pub use matmul::{matmul, matmul_with, MatmulOptions};
pub use nn::{
    bias_add, dropout_with_mask, elu, gelu, l2_normalize, leaky_relu, log_softmax, selu,
    sigmoid_cross_entropy_with_logits, silu, softmax, softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
};
pub use reduce::{
    argmax, argmin, cumprod, cumsum, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
    reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance,
};

pub(crate) use pointwise::{pointwise, record_pointwise, FUSE_MIN};

/// The gradient-rule closure type every op builds.
pub(crate) fn rule<F>(f: F) -> Arc<dyn BackwardFn>
where
    F: Fn(&[Tensor], &[bool]) -> Result<Vec<Option<Tensor>>> + Send + Sync + 'static,
{
    Arc::new(f)
}

/// An op's description as a recorded entry holds it. Descriptions without
/// attributes are zero-sized and cost no allocation.
pub(crate) fn op_ref<O: Op>(op: O) -> OpRef {
    if std::mem::size_of::<O>() == 0 {
        // A zero-sized value: boxing and leaking it allocates nothing.
        OpRef::Static(Box::leak(Box::new(op)))
    } else {
        OpRef::Shared(Arc::new(op))
    }
}

/// Records `outputs = op(inputs)` on the active tapes that track an input,
/// with the gradient rule `make_rule` builds (called only if some tape
/// records).
#[inline]
pub(crate) fn record<O: Op>(
    op: O,
    inputs: &[&Tensor],
    outputs: &[&Tensor],
    make_rule: impl FnOnce() -> Arc<dyn BackwardFn>,
) {
    if !record::is_recording() {
        return;
    }
    let ins: SmallVec<[(TensorId, DType); 3]> =
        inputs.iter().map(|t| (t.id(), t.dtype())).collect();
    record::record_op(op_ref(op), &ins, outputs, make_rule);
}

/// The inputs of a replayed op, checked against the count it takes.
pub(crate) fn args<'a, const N: usize>(
    op: &'static str,
    inputs: &'a [Tensor],
) -> Result<&'a [Tensor; N]> {
    inputs.try_into().map_err(|_| {
        Error::invalid(format!(
            "{op} takes {N} input(s), but {} were given",
            inputs.len()
        ))
    })
}

/// Declares the description of an op without attributes: a unit struct
/// named after the op, its TensorFlow name, how it runs again on new inputs,
/// and, optionally, that its rule carries row dims, its pointwise
/// derivative, and the [`Tensor`] method that calls it (`x.tanh()`,
/// `a.mul(&b)`).
macro_rules! describe_op {
    (@desc $Name:ident, $tf:literal, [$($x:ident),*], $fwd:expr, [$($rows:expr)?], [$($pw:expr)?]) => {
        #[doc = concat!("The description of `", $tf, "`.")]
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $Name;

        impl $crate::op::Op for $Name {
            fn name(&self) -> &'static str {
                $tf
            }

            fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
                let [$($x),*] = $crate::ops::args($tf, inputs)?;
                Ok(vec![$fwd?])
            }

            $(fn carries_rows(&self) -> bool {
                $rows
            })?

            $(fn pointwise(&self) -> Option<&'static dyn $crate::op::Pointwise> {
                Some(&$pw)
            })?
        }
    };
    ($Name:ident, $tf:literal, |[$x:ident]| $fwd:expr
        $(, rows: $rows:expr)? $(, pointwise: $pw:expr)?, method: $method:ident) => {
        $crate::ops::describe_op!(@desc $Name, $tf, [$x], $fwd, [$($rows)?], [$($pw)?]);

        impl Tensor {
            #[doc = concat!("`", $tf, "` of this tensor (see [`crate::ops::", stringify!($method), "`]).")]
            pub fn $method(&self) -> Result<Tensor> {
                let $x = self;
                $fwd
            }
        }
    };
    ($Name:ident, $tf:literal, |[$a:ident, $b:ident]| $fwd:expr
        $(, rows: $rows:expr)? $(, pointwise: $pw:expr)?, method: $method:ident) => {
        $crate::ops::describe_op!(@desc $Name, $tf, [$a, $b], $fwd, [$($rows)?], [$($pw)?]);

        impl Tensor {
            #[doc = concat!("`", $tf, "` of this tensor and `other` (see [`crate::ops::", stringify!($method), "`]).")]
            pub fn $method(&self, other: &Tensor) -> Result<Tensor> {
                let ($a, $b) = (self, other);
                $fwd
            }
        }
    };
    ($Name:ident, $tf:literal, |[$($x:ident),*]| $fwd:expr $(, rows: $rows:expr)? $(, pointwise: $pw:expr)?) => {
        $crate::ops::describe_op!(@desc $Name, $tf, [$($x),*], $fwd, [$($rows)?], [$($pw)?]);
    };
}
pub(crate) use describe_op;

/// Declares the description of an op with attributes: a struct of them, its
/// TensorFlow name, and how it runs again (`|op, [inputs]| call`).
macro_rules! describe_attr_op {
    (
        $Name:ident { $($f:ident: $t:ty),* $(,)? }, $tf:literal,
        |$s:ident, [$($x:ident),*]| $fwd:expr $(, rows: $rows:expr)?
    ) => {
        #[doc = concat!("The description of `", $tf, "` with its attributes.")]
        pub(crate) struct $Name {
            $($f: $t),*
        }

        impl $crate::op::Op for $Name {
            fn name(&self) -> &'static str {
                $tf
            }

            fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
                let $s = self;
                let [$($x),*] = $crate::ops::args($tf, inputs)?;
                Ok(vec![$fwd?])
            }

            $(fn carries_rows(&self) -> bool {
                $rows
            })?
        }
    };
}
pub(crate) use describe_attr_op;

/// The rank of the leading "row" dims a gradient carries beyond the output
/// (of rank `out_rank`) it is the gradient of: nonzero only in a vectorized
/// Jacobian pass, which stacks many passes' gradients along them.
pub(crate) fn row_rank(g: &Tensor, out_rank: usize) -> usize {
    g.rank().saturating_sub(out_rank)
}

/// `shape` behind the row dims `g` carries beyond an output of rank
/// `out_rank`: where a rule reshapes or broadcasts its gradient.
pub(crate) fn rows_then(g: &Tensor, out_rank: usize, shape: &[usize]) -> Vec<isize> {
    let lead = row_rank(g, out_rank);
    g.shape()[..lead]
        .iter()
        .chain(shape)
        .map(|&d| d as isize)
        .collect()
}

/// Sums `g`, the gradient of an output of rank `out_rank`, down to `shape`,
/// undoing NumPy broadcasting (and keeping any leading row dims `g` carries
/// beyond that rank).
pub(crate) fn unbroadcast(g: &Tensor, out_rank: usize, shape: &[usize]) -> Result<Tensor> {
    let lead = row_rank(g, out_rank);
    if g.shape()[lead..] == *shape {
        return Ok(g.clone());
    }
    let (rows, inner) = g.shape().split_at(lead);
    if inner.len() < shape.len() {
        return Err(Error::invalid(format!(
            "a gradient of shape {} cannot be reduced to {}",
            crate::dims::ShapeDisplay::of(g.shape()),
            crate::dims::ShapeDisplay::of(shape)
        )));
    }
    let axes: Vec<isize> = crate::shape::broadcast_reduction_axes(shape, inner)
        .into_iter()
        .map(|a| (a + lead) as isize)
        .collect();
    let s = reduce_sum(g, Some(&axes), false)?;
    let full: Vec<isize> = rows.iter().chain(shape).map(|&d| d as isize).collect();
    reshape(&s, &full)
}
