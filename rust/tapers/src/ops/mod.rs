//! Differentiable operations, one family per module. Each op is described
//! once in its family's file: its forward kernel, its description
//! ([`crate::op::Op`]: name, how it runs again, whether its rule carries
//! row dims, its pointwise derivative) and its gradient rule, written with
//! these same ops so that outer tapes record it (higher derivatives).
//!
//! Elementwise ops with a pointwise derivative declare it with
//! `pointwise!` (in `pointwise.rs`) and record with `record_pointwise`,
//! which builds their rule from that formula; other ops record with
//! `record` and a rule of their own.

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
mod complex;
mod conv;
mod decomp;
mod einsum;
mod grad;
mod half;
mod index;
mod linalg;
mod math;
mod matmul;
mod nn;
mod pointwise;
mod reduce;
mod scatter;
mod segment;
mod sort;

pub use arith::{add, add_n, div, floordiv, floormod, maximum, minimum, mul, neg, pow, sub};
pub use array::{
    broadcast_to, cast, concat, expand_dims, eye, fill, linspace, one_hot, ones_like, range,
    reshape, split, squeeze, stack, tile, transpose, unstack, where_, where_indices, zeros_like,
};
pub use compare::{
    equal, greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or,
    logical_xor, not_equal,
};
pub use complex::{angle, complex, complex_abs, conj, imag, real};
pub use conv::{avg_pool2d, conv2d, max_pool2d, patches, patches_adjoint, Padding, Window};
pub use decomp::{
    band_part, cholesky, cholesky_solve, det, eigh, eigvalsh, inv, logdet, lstsq, matrix_diag,
    matrix_diag_part, matrix_transpose, pinv, qr, slogdet, solve, svd, triangular_solve,
};
pub use grad::{custom_op, identity, stop_gradient};
pub use index::{
    gather, gather_nd, index_first, pad, scatter_add, slice_ranges, strided_slice, take, SliceItem,
};
pub(crate) use index::{scatter_add_from, scatter_add_with, take_from, take_traced};
pub use linalg::{einsum, norm, tensordot, trace, NormOrd};
pub use math::{
    abs, acos, asin, atan, atan2, cos, cosh, erf, exp, expm1, is_finite, is_inf, is_nan, log,
    log1p, reciprocal, relu, relu6, rsqrt, sigmoid, sign, sin, sinh, softplus, sqrt, square, tan,
    tanh,
};
pub use math::{
    acosh, asinh, atanh, bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, bessel_j0, bessel_j1,
    bessel_k0, bessel_k0e, bessel_k1, bessel_k1e, bessel_y0, bessel_y1, betainc, ceil, dawsn,
    digamma, div_no_nan, erfc, erfcinv, erfinv, expint, floor, fresnel_cos, fresnel_sin, igamma,
    igamma_grad_a, igammac, lbeta, lgamma, mul_no_nan, ndtri, nextafter, polygamma,
    reciprocal_no_nan, rint, round, softsign, spence, squared_difference, truncatediv, truncatemod,
    xdivy, xlog1py, xlogy, zeta,
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

pub use einsum::einsum_general;
pub use scatter::{
    boolean_mask, pad_mirror, repeat, reverse, roll, scatter_nd, tensor_scatter_nd_add,
    tensor_scatter_nd_update,
};
pub use segment::{
    cumulative_logsumexp, log_sigmoid, segment_sum, unsorted_segment_max, unsorted_segment_mean,
    unsorted_segment_sum,
};
pub use sort::{argsort, bincount, searchsorted, sort, top_k, unique, Bincount};

pub(crate) use pointwise::{elementwise, pointwise, record_pointwise, FUSE_MIN};
pub(crate) use reduce::SUM_CHUNK;

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
    let op = op_ref(op);
    record::trace_op(&op, inputs, outputs);
    record::record_op(op, &ins, outputs, make_rule);
}

/// Tells an active tracer about an op that no tape records (it has no
/// gradient: comparisons, `argmax`, integer casts), with how to run it again.
pub(crate) fn trace_only(
    name: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    again: impl Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
) {
    trace_untaped(name, inputs, out, again, false);
}

/// [`trace_only`] for an op whose output's shape depends on its inputs'
/// values (`tf.unique`'s distinct values, a bincount sized by the largest
/// value): see [`Op::shape_from_values`].
pub(crate) fn trace_only_sized_by_values(
    name: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    again: impl Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
) {
    trace_untaped(name, inputs, out, again, true);
}

fn trace_untaped(
    name: &'static str,
    inputs: &[&Tensor],
    out: &Tensor,
    again: impl Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
    sized_by_values: bool,
) {
    if record::is_tracing() {
        let op = OpRef::Shared(Arc::new(Untaped {
            name,
            again: Box::new(again),
            sized_by_values,
        }));
        record::trace_op(&op, inputs, &[out]);
    }
}

/// Positions `vals` an op computed from the values of `inputs` (a mask's
/// true entries, index rows' offsets into a tensor), as an int64 tensor a
/// traced graph computes again from `inputs` at each replay (`again`), for
/// the op's recorded pieces to read their positions from (the `from` of
/// `index::take_from`/`scatter_add_with`): the trace then needs no guard on
/// `inputs` while a tape records. Its length may depend on the values (a
/// replay with another count traces again, [`Op::shape_from_values`]).
/// `None` unless a tracer is active and a tape records: nothing else reads
/// it.
pub(crate) fn traced_positions(
    name: &'static str,
    inputs: &[&Tensor],
    vals: &[usize],
    again: impl Fn(&[Tensor]) -> Result<Vec<usize>> + Send + Sync + 'static,
) -> Option<Tensor> {
    if !(record::is_tracing() && record::tapes_recording()) {
        return None;
    }
    fn positions(v: &[usize]) -> Result<Tensor> {
        Tensor::from_vec(v.iter().map(|&p| p as i64).collect(), &[v.len()])
    }
    let t = positions(vals).ok()?;
    trace_untaped(name, inputs, &t, move |i| positions(&again(i)?), true);
    Some(t)
}

/// Tells an active tracer about an op whose recorded pieces hold values it
/// read from `data` (positions from an index tensor, a mask): replayed as
/// they were recorded, they would use the traced call's values. With no tape
/// recording, the tracer gets one op computing `out` again from `inputs`
/// (what reads `out` then reads the new values); when a tape records (its
/// gradient rule holds the positions too), the trace is guarded on `data`
/// instead, so a call with other values traces again.
pub(crate) fn trace_data_dependent(
    name: &'static str,
    inputs: &[&Tensor],
    data: &[&Tensor],
    out: &Tensor,
    again: impl Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
) {
    if !record::is_tracing() {
        return;
    }
    if record::tapes_recording() {
        for d in data {
            record::trace_guard(d);
        }
    } else {
        trace_untaped(name, inputs, out, again, false);
    }
}

/// The description of an op no tape records, for a traced graph.
struct Untaped {
    name: &'static str,
    #[allow(clippy::type_complexity)]
    again: Box<dyn Fn(&[Tensor]) -> Result<Tensor> + Send + Sync>,
    sized_by_values: bool,
}

impl Op for Untaped {
    fn name(&self) -> &'static str {
        self.name
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![(self.again)(inputs)?])
    }

    fn shape_from_values(&self) -> bool {
        self.sized_by_values
    }
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

/// A unit op's description under the name of its function (`ops::tanh`,
/// `Tensor::tanh`), registered by `describe_op!`'s `method:` form.
pub struct Named {
    /// The function's (and the method's) name.
    pub name: &'static str,
    /// What the op is.
    pub op: &'static dyn Op,
}

inventory::collect!(Named);

/// The description of the unit op whose function is `ops::<name>` (for
/// callers driven by names: the op table's checks, a graph loader).
pub fn by_name(name: &str) -> Option<&'static dyn Op> {
    inventory::iter::<Named>
        .into_iter()
        .find(|n| n.name == name)
        .map(|n| n.op)
}

/// Declares the description of an op without attributes: a unit struct
/// named after the op, its TensorFlow name, how it runs again on new inputs,
/// and, optionally, that its rule carries row dims, its pointwise
/// derivative, and the [`Tensor`] method that calls it (`x.tanh()`,
/// `a.mul(&b)`).
macro_rules! describe_op {
    (@desc $Name:ident, $tf:literal, [$($x:ident),*], $fwd:expr, [$($rows:expr)?], [$($pw:expr)?], [$($ew:expr)?]) => {
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

            $(fn fusion(&self) -> $crate::op::Fusion<'_> {
                $crate::op::Fusion::Map(&$ew)
            })?
        }
    };
    ($Name:ident, $tf:literal, |[$x:ident]| $fwd:expr
        $(, rows: $rows:expr)? $(, pointwise: $pw:expr)? $(, elementwise: $ew:expr)?, method: $method:ident) => {
        $crate::ops::describe_op!(@desc $Name, $tf, [$x], $fwd, [$($rows)?], [$($pw)?], [$($ew)?]);

        inventory::submit! {
            $crate::ops::Named { name: stringify!($method), op: &$Name }
        }

        impl Tensor {
            #[doc = concat!("`", $tf, "` of this tensor (see [`crate::ops::", stringify!($method), "`]).")]
            pub fn $method(&self) -> Result<Tensor> {
                let $x = self;
                $fwd
            }
        }
    };
    ($Name:ident, $tf:literal, |[$a:ident, $b:ident]| $fwd:expr
        $(, rows: $rows:expr)? $(, pointwise: $pw:expr)? $(, elementwise: $ew:expr)?, method: $method:ident) => {
        $crate::ops::describe_op!(@desc $Name, $tf, [$a, $b], $fwd, [$($rows)?], [$($pw)?], [$($ew)?]);

        inventory::submit! {
            $crate::ops::Named { name: stringify!($method), op: &$Name }
        }

        impl Tensor {
            #[doc = concat!("`", $tf, "` of this tensor and `other` (see [`crate::ops::", stringify!($method), "`]).")]
            pub fn $method(&self, other: &Tensor) -> Result<Tensor> {
                let ($a, $b) = (self, other);
                $fwd
            }
        }
    };
    ($Name:ident, $tf:literal, |[$($x:ident),*]| $fwd:expr $(, rows: $rows:expr)? $(, pointwise: $pw:expr)? $(, elementwise: $ew:expr)?) => {
        $crate::ops::describe_op!(@desc $Name, $tf, [$($x),*], $fwd, [$($rows)?], [$($pw)?], [$($ew)?]);
    };
}
pub(crate) use describe_op;

/// Declares the description of an op with attributes: a struct of them, its
/// TensorFlow name, and how it runs again (`|op, [inputs]| call`).
macro_rules! describe_attr_op {
    (
        $Name:ident { $($f:ident: $t:ty),* $(,)? }, $tf:literal,
        |$s:ident, [$($x:ident),*]| $fwd:expr $(, rows: $rows:expr)?
        $(, fusion: |$fs:ident| $fu:expr)?
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

            $(fn fusion(&self) -> $crate::op::Fusion<'_> {
                let $fs = self;
                $fu
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use crate::ops::{self, MatmulOptions, Padding, Window};
    use crate::{DType, GradientTape, Tensor, TensorId, Variable};

    /// Every recorded entry's description runs again on the recorded inputs
    /// (what a traced graph will replay) and gives the recorded outputs, bit
    /// for bit: the descriptions hold the right attributes.
    #[test]
    fn every_description_replays_its_entry() {
        let v = |n: usize, s: f64| -> Vec<f64> {
            (0..n).map(|i| (i as f64 * 0.37 + s).sin()).collect()
        };
        let x = Tensor::from_vec(v(6, 0.1), &[2, 3]).unwrap();
        let y = Tensor::from_vec(v(6, 0.9), &[2, 3]).unwrap();
        let w = Tensor::from_vec(v(6, 0.4), &[3, 2]).unwrap();
        let img = Tensor::from_vec(v(32, 0.2), &[1, 4, 4, 2]).unwrap();
        let var = Variable::new(y.clone()).with_name("v");
        let cond = ops::greater(&x, &y).unwrap();
        let mut known: HashMap<TensorId, Tensor> = HashMap::new();
        for t in [&x, &y, &w, &img, &cond] {
            known.insert(t.id(), t.clone());
        }
        let tape = GradientTape::with_options(true, true);
        {
            let _r = tape.record().unwrap();
            tape.watch(&x);
            tape.watch(&w);
            tape.watch(&img);
            let r = var.read();
            let (ax, ay) = (x.abs().unwrap(), y.abs().unwrap());
            known.insert(ay.id(), ay.clone());
            let pos = ax.add(&ay).unwrap();
            let outs: Vec<Tensor> = vec![
                r.clone(),
                ax,
                pos.clone(),
                x.tanh().unwrap(),
                x.exp().unwrap(),
                pos.log().unwrap(),
                pos.sqrt().unwrap(),
                x.square().unwrap(),
                x.sigmoid().unwrap(),
                x.relu().unwrap(),
                x.relu6().unwrap(),
                x.sin().unwrap(),
                x.cos().unwrap(),
                x.sign().unwrap(),
                ops::expm1(&x).unwrap(),
                ops::softplus(&x).unwrap(),
                x.sub(&r).unwrap(),
                x.mul(&r).unwrap(),
                x.div(&pos).unwrap(),
                pos.pow(&x).unwrap(),
                x.maximum(&r).unwrap(),
                x.minimum(&r).unwrap(),
                ops::floormod(&x, &pos).unwrap(),
                x.atan2(&r).unwrap(),
                x.neg().unwrap(),
                x.matmul(&w).unwrap(),
                ops::matmul_with(&x, &x, MatmulOptions::transpose_b()).unwrap(),
                ops::matmul_with(&x, &x, MatmulOptions::transpose_a()).unwrap(),
                x.reshape(&[3, -1]).unwrap(),
                x.transpose(None).unwrap(),
                ops::broadcast_to(&x, &[4, 2, 3]).unwrap(),
                x.cast(DType::F32).unwrap(),
                ops::where_(&cond, &x, &r).unwrap(),
                ops::concat(&[x.clone(), r.clone()], 1).unwrap(),
                ops::reduce_sum(&x, Some(&[1]), true).unwrap(),
                ops::reduce_max(&x, Some(&[0]), false).unwrap(),
                ops::reduce_min(&x, None, false).unwrap(),
                ops::reduce_prod(&x, Some(&[-1]), false).unwrap(),
                ops::cumsum(&x, 1, true, false).unwrap(),
                ops::cumprod(&x, 0, false, true).unwrap(),
                ops::slice_ranges(&x, &[(1, 1), (0, 2)]).unwrap(),
                ops::pad(&x, &[(1, 0), (0, 2)], 0.5).unwrap(),
                ops::take(&x, 1, Arc::new(vec![2, 0, 2])).unwrap(),
                ops::scatter_add(&x, 1, Arc::new(vec![1, 0, 1]), 4).unwrap(),
                ops::identity(&x),
                ops::elu(&x).unwrap(),
                ops::selu(&x).unwrap(),
                ops::leaky_relu(&x, 0.25).unwrap(),
                ops::max_pool2d(&img, [2, 2], [1, 2], Padding::Same).unwrap(),
                ops::add_n(&[x.clone(), r.clone(), x.clone()]).unwrap(),
                ops::patches(
                    &img,
                    &Window {
                        size: [2, 2],
                        strides: [1, 2],
                        dilations: [1, 1],
                        padding: Padding::Same,
                    },
                    0.0,
                )
                .unwrap(),
            ];
            for t in outs {
                known.insert(t.id(), t);
            }
        }
        let entries = tape.with_data(|d| d.expect("recording").entries.clone());
        let mut replayed = 0;
        let mut pointwise = 0;
        for e in &entries {
            let inputs: Vec<Tensor> = if e.name() == "ReadVariableOp" {
                Vec::new()
            } else {
                e.inputs
                    .iter()
                    .map(|i| {
                        known
                            .get(&i.id)
                            .cloned()
                            .unwrap_or_else(|| panic!("{}: input not kept", e.name()))
                    })
                    .collect()
            };
            if let Some(p) = e.op.pointwise() {
                scalar_form_matches_chunks(e.name(), p);
                pointwise += 1;
            }
            let again = e.op.forward(&inputs).unwrap();
            assert_eq!(again.len(), e.outputs.len(), "{}", e.name());
            for (a, o) in again.iter().zip(&e.outputs) {
                // An intermediate the test did not keep (`abs(x)` inside
                // `pos`): its replay stands in for it downstream.
                let Some(want) = known.get(&o.id) else {
                    known.insert(o.id, a.clone());
                    continue;
                };
                let bits = |t: &Tensor| -> Vec<u64> {
                    ops::cast(t, DType::F64)
                        .unwrap()
                        .to_vec::<f64>()
                        .unwrap()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect()
                };
                assert_eq!(a.shape(), want.shape(), "{}", e.name());
                assert_eq!(a.dtype(), want.dtype(), "{}", e.name());
                assert_eq!(bits(a), bits(want), "{} replays to other values", e.name());
            }
            replayed += 1;
        }
        assert_eq!(replayed, 51, "every op above was recorded once");
        assert!(
            pointwise >= 10,
            "{pointwise} pointwise descriptions checked"
        );
    }

    /// A pointwise derivative's one-element form (what a scalar's gradient
    /// runs) gives the chunk kernel's bits, in float32 and float64.
    fn scalar_form_matches_chunks(name: &str, p: &dyn crate::op::Pointwise) {
        use crate::op::Acc;
        let vals = [0.3, -1.7, 2.5, 0.0, 1e-3, -0.25, 7.0];
        for k in 0..p.arity() {
            for (i, &g) in vals.iter().enumerate() {
                let (a, b) = (vals[(i + 2) % vals.len()], vals[(i + 5) % vals.len()]);
                let (mut buf, mut filled) = (Vec::new(), false);
                p.chunk_f64(k, &[g], [&[a], &[b]], Acc::new(&mut buf, &mut filled));
                let want = if filled { buf[0] } else { g };
                let got = p.scalar_f64(k, g, [a, b]);
                assert_eq!(got.to_bits(), want.to_bits(), "{name} input {k} f64");
                let (g, a, b) = (g as f32, a as f32, b as f32);
                let (mut buf, mut filled) = (Vec::new(), false);
                p.chunk_f32(k, &[g], [&[a], &[b]], Acc::new(&mut buf, &mut filled));
                let want = if filled { buf[0] } else { g };
                let got = p.scalar_f32(k, g, [a, b]);
                assert_eq!(got.to_bits(), want.to_bits(), "{name} input {k} f32");
            }
        }
    }
}
