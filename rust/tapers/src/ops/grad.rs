//! Gradient plumbing ops: identity, stop_gradient, and user-defined gradients.

use std::sync::Arc;

use smallvec::SmallVec;

use super::{describe_op, record, rule};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::{Op, OpRef};
use crate::record::{self as recording, BackwardFn};
use crate::tensor::{Tensor, TensorId};

describe_op!(Identity, "Identity", |[x]| Ok::<_, Error>(identity(x)), rows: true);

/// A new tensor equal to `x`, through which gradients pass unchanged.
pub fn identity(x: &Tensor) -> Tensor {
    let out = x.alias();
    record(Identity, &[x], &[&out], || {
        rule(|g, _| Ok(vec![Some(g[0].clone())]))
    });
    out
}

describe_op!(ZeroDependence, "ZeroDependence", |[t, on]| {
    zero_dependence_checked(t, on)
});

fn zero_dependence_checked(t: &Tensor, on: &Tensor) -> Result<Tensor> {
    Ok(zero_dependence(t, on))
}

/// `t` (a new alias), recorded as depending on `on` too, with a zero
/// derivative. A gradient rule whose result is piecewise constant in a saved
/// input (`ReluGrad`'s mask, `MaxPoolGrad`'s argmax) returns its result
/// through this, so that a second derivative with respect to that input is a
/// zero tensor, as TensorFlow's `ReluGradGrad`-style rules give, rather than
/// `None`. Nothing is recorded, and nothing allocated, when no tape records.
pub(crate) fn zero_dependence(t: &Tensor, on: &Tensor) -> Tensor {
    if !recording::is_recording() {
        return t.clone();
    }
    let out = t.alias();
    record(ZeroDependence, &[t, on], &[&out], || {
        let (shape, dtype) = (on.shape().to_vec(), on.dtype());
        rule(move |g, needs| {
            let zeros = if needs.get(1).copied().unwrap_or(false) {
                Some(Tensor::zeros(&shape, dtype)?)
            } else {
                None
            };
            Ok(vec![Some(g[0].clone()), zeros])
        })
    });
    out
}

/// A new tensor equal to `x` through which no gradient flows.
pub fn stop_gradient(x: &Tensor) -> Tensor {
    // Never recorded as an op: to every tape the result is a constant. Tapes
    // that track `x` note the cut, to explain the `None` gradient it causes.
    let out = x.alias();
    if recording::is_recording() {
        super::trace_only("StopGradient", &[x], &out, |i| Ok(stop_gradient(&i[0])));
        recording::record_cut(
            "StopGradient",
            recording::CutReason::StopGradient,
            &[x.id()],
            out.id(),
        );
    }
    out
}

/// Records a user-defined op: `outputs` are returned as fresh aliases that the
/// tapes see as computed from `inputs` by an op whose gradient rule is `rule`.
///
/// This is `tf.custom_gradient`'s core: compute the forward value however you
/// like, then call this with the rule.
pub fn custom_op(
    name: &'static str,
    inputs: &[Tensor],
    outputs: &[Tensor],
    rule: Arc<dyn BackwardFn>,
) -> Vec<Tensor> {
    let outs: Vec<Tensor> = outputs.iter().map(Tensor::alias).collect();
    if recording::is_recording() {
        let ins: SmallVec<[(TensorId, DType); 3]> =
            inputs.iter().map(|t| (t.id(), t.dtype())).collect();
        let refs: Vec<&Tensor> = outs.iter().collect();
        recording::trace_unreplayable(name);
        recording::record_op(
            OpRef::Shared(Arc::new(Custom { name })),
            &ins,
            &refs,
            || rule,
        );
    }
    outs
}

/// The description of a user-defined op: its forward is the caller's code
/// (often Python), which the core cannot run again.
struct Custom {
    name: &'static str,
}

impl Op for Custom {
    fn name(&self) -> &'static str {
        self.name
    }

    fn forward(&self, _inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Err(Error::invalid(format!(
            "{} is a custom op: its forward computation is the caller's and cannot be run again by tapers",
            self.name
        )))
    }
}
