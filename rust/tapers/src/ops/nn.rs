//! Neural-network functions: activations, softmax, losses, normalization,
//! dropout. All are compositions of differentiable ops, written the way TF
//! keeps them numerically stable.

use super::array::where_;
use super::{describe_attr_op, describe_op, record, rule};
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::normalize_axis;
use crate::tensor::Tensor;

fn c(t: &Tensor, v: f64) -> Tensor {
    Tensor::scalar_of(t.dtype(), v)
}

fn float_only(op: &'static str, t: &Tensor) -> Result<()> {
    if !t.dtype().is_floating() {
        return Err(Error::UnsupportedDType {
            op,
            dtype: t.dtype(),
            allowed: "float32, float64",
        });
    }
    Ok(())
}

describe_op!(Elu, "Elu", |[x]| elu(x));
describe_op!(Selu, "Selu", |[x]| selu(x));
describe_attr_op!(LeakyRelu { alpha: f64 }, "LeakyRelu", |op, [x]| leaky_relu(
    x, op.alpha
));

const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// Runs `f` with no tape recording on this thread: the forward value of an
/// op that records itself as one entry with its own rule.
fn unrecorded<R>(f: impl FnOnce() -> R) -> R {
    crate::record::RecordingContext::default().enter(f)
}

/// `x` where positive, `alpha * x` elsewhere (NaN stays NaN).
///
/// Its gradient is TF's `LeakyReluGrad`, `g` where `x > 0` and `alpha * g`
/// elsewhere (NaN included); that gradient's own derivative with respect to
/// `x` is zeros, as TF's.
pub fn leaky_relu(x: &Tensor, alpha: f64) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("LeakyRelu", &[x], |i| leaky_relu(&i[0], alpha)) {
        return r;
    }
    float_only("LeakyRelu", x)?;
    // TF's alpha is a float32 attribute, also for float64 features.
    let alpha = alpha as f32 as f64;
    let y = unrecorded(|| {
        let pos = ops::greater(x, &c(x, 0.0))?;
        where_(&pos, x, &ops::mul(x, &c(x, alpha))?)
    })?;
    record(LeakyRelu { alpha }, &[x], &[&y], || {
        let x = x.clone();
        rule(move |g, _| {
            let pos = ops::greater(&x, &c(&x, 0.0))?;
            let d = where_(&pos, &g[0], &ops::mul(&g[0], &c(&g[0], alpha))?)?;
            Ok(vec![Some(ops::grad::zero_dependence(&d, &x))])
        })
    });
    Ok(y)
}

/// Exponential linear unit: `x` where positive, `e^x - 1` elsewhere.
///
/// Its gradient is TF's `EluGrad`, written with the output `y`: `g (y + 1)`
/// where `y < 0`, `g` elsewhere (so 1 at 0 and at NaN); differentiating that
/// again goes through `y`, which gives TF's `EluGradGrad` (0 at 0).
pub fn elu(x: &Tensor) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("Elu", &[x], |i| elu(&i[0])) {
        return r;
    }
    float_only("Elu", x)?;
    // expm1 on min(x, 0) keeps the unused branch finite.
    let y = unrecorded(|| {
        let pos = ops::greater(x, &c(x, 0.0))?;
        where_(&pos, x, &ops::expm1(&ops::minimum(x, &c(x, 0.0))?)?)
    })?;
    record(Elu, &[x], &[&y], || {
        let y = y.clone();
        rule(move |g, _| {
            let neg = ops::less(&y, &c(&y, 0.0))?;
            let inner = ops::mul(&g[0], &ops::add(&y, &c(&y, 1.0))?)?;
            Ok(vec![Some(where_(&neg, &inner, &g[0])?)])
        })
    });
    Ok(y)
}

/// Scaled ELU with TF's constants.
///
/// Its gradient is TF's `SeluGrad`, written with the output `y`:
/// `g (y + scale alpha)` where `y < 0`, `g scale` elsewhere (0 and NaN
/// included); differentiating it again goes through `y` (TF's `SeluGradGrad`).
pub fn selu(x: &Tensor) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("Selu", &[x], |i| selu(&i[0])) {
        return r;
    }
    float_only("Selu", x)?;
    let y = unrecorded(|| {
        let pos = ops::greater(x, &c(x, 0.0))?;
        let neg = ops::mul(
            &ops::expm1(&ops::minimum(x, &c(x, 0.0))?)?,
            &c(x, SELU_ALPHA),
        )?;
        ops::mul(&where_(&pos, x, &neg)?, &c(x, SELU_SCALE))
    })?;
    record(Selu, &[x], &[&y], || {
        let y = y.clone();
        rule(move |g, _| {
            let neg = ops::less(&y, &c(&y, 0.0))?;
            let inner = ops::mul(&g[0], &ops::add(&y, &c(&y, SELU_SCALE * SELU_ALPHA))?)?;
            let outer = ops::mul(&g[0], &c(&g[0], SELU_SCALE))?;
            Ok(vec![Some(where_(&neg, &inner, &outer)?)])
        })
    });
    Ok(y)
}

/// Gaussian error linear unit, exact (`approximate = false`, TF's default) or
/// with the tanh approximation.
pub fn gelu(x: &Tensor, approximate: bool) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("Gelu", &[x], |i| gelu(&i[0], approximate)) {
        return r;
    }
    float_only("Gelu", x)?;
    if approximate {
        let k = (2.0 / std::f64::consts::PI).sqrt();
        let cube = ops::mul(&ops::mul(x, x)?, x)?;
        let inner = ops::mul(&c(x, k), &ops::add(x, &ops::mul(&c(x, 0.044715), &cube)?)?)?;
        ops::mul(
            &ops::mul(&c(x, 0.5), x)?,
            &ops::add(&c(x, 1.0), &ops::tanh(&inner)?)?,
        )
    } else {
        let e = ops::erf(&ops::mul(x, &c(x, std::f64::consts::FRAC_1_SQRT_2))?)?;
        ops::mul(&ops::mul(&c(x, 0.5), x)?, &ops::add(&c(x, 1.0), &e)?)
    }
}

/// `x * sigmoid(beta * x)` (swish).
pub fn silu(x: &Tensor, beta: f64) -> Result<Tensor> {
    ops::mul(x, &ops::sigmoid(&ops::mul(x, &c(x, beta))?)?)
}

/// Softmax along `axis`, shifted by the (constant) max for stability.
pub fn softmax(logits: &Tensor, axis: isize) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("Softmax", &[logits], |i| softmax(&i[0], axis)) {
        return r;
    }
    float_only("Softmax", logits)?;
    normalize_axis(axis, logits.rank())?;
    let m = ops::stop_gradient(&ops::reduce_max(logits, Some(&[axis]), true)?);
    let e = ops::exp(&ops::sub(logits, &m)?)?;
    ops::div(&e, &ops::reduce_sum(&e, Some(&[axis]), true)?)
}

/// Log-softmax along `axis`, computed as `x - max - log(sum(exp(x - max)))`.
pub fn log_softmax(logits: &Tensor, axis: isize) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("LogSoftmax", &[logits], |i| log_softmax(&i[0], axis)) {
        return r;
    }
    float_only("LogSoftmax", logits)?;
    normalize_axis(axis, logits.rank())?;
    let m = ops::stop_gradient(&ops::reduce_max(logits, Some(&[axis]), true)?);
    let shifted = ops::sub(logits, &m)?;
    let lse = ops::log(&ops::reduce_sum(&ops::exp(&shifted)?, Some(&[axis]), true)?)?;
    ops::sub(&shifted, &lse)
}

/// `-sum(labels * log_softmax(logits), axis)`.
pub fn softmax_cross_entropy_with_logits(
    labels: &Tensor,
    logits: &Tensor,
    axis: isize,
) -> Result<Tensor> {
    if labels.shape() != logits.shape() {
        // TF broadcasts logits and labels of the same rank against each other.
        let err = || {
            Error::invalid(format!(
                "logits and labels must be broadcastable: logits_size={} labels_size={} [Op:SoftmaxCrossEntropyWithLogits]",
                crate::shape::ShapeDisplay::of(logits.shape()),
                crate::shape::ShapeDisplay::of(labels.shape())
            ))
        };
        if labels.rank() != logits.rank() {
            return Err(err());
        }
        let shape: Vec<usize> = match crate::shape::broadcast_shapes(
            "SoftmaxCrossEntropyWithLogits",
            labels.shape(),
            logits.shape(),
        ) {
            Ok(s) => s.to_vec(),
            Err(_) => return Err(err()),
        };
        return softmax_cross_entropy_with_logits(
            &ops::broadcast_to(labels, &shape)?,
            &ops::broadcast_to(logits, &shape)?,
            axis,
        );
    }
    let lsm = log_softmax(logits, axis)?;
    ops::neg(&ops::reduce_sum(
        &ops::mul(labels, &lsm)?,
        Some(&[axis]),
        false,
    )?)
}

/// Cross-entropy with integer class labels: `labels` has the shape of
/// `logits` without its last axis.
pub fn sparse_softmax_cross_entropy_with_logits(
    labels: &Tensor,
    logits: &Tensor,
) -> Result<Tensor> {
    let r = logits.rank();
    if r == 0 || labels.shape() != &logits.shape()[..r - 1] {
        return Err(Error::invalid(format!(
            "logits and labels must have the same first dimension, got logits shape {} and labels shape {} [Op:SparseSoftmaxCrossEntropyWithLogits]",
            crate::shape::ShapeDisplay::of(logits.shape()),
            crate::shape::ShapeDisplay::of(labels.shape())
        )));
    }
    let n = logits.shape()[r - 1];
    let vals = ops::cast(labels, crate::DType::I64)?;
    if let Some(bad) = vals
        .to_vec::<i64>()?
        .into_iter()
        .find(|&v| v < 0 || v as usize >= n)
    {
        return Err(Error::invalid(format!(
            "Received a label value of {bad} which is outside the valid range of [0, {n}).  Label values: {} [Op:SparseSoftmaxCrossEntropyWithLogits]",
            vals.to_vec::<i64>()?.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ")
        )));
    }
    // The label's log-probability is selected, not multiplied by a one-hot
    // row: a -inf logit elsewhere (a masked class) would give 0 * -inf = NaN.
    let onehot = ops::cast(
        &ops::one_hot(labels, n, 1.0, 0.0, -1, crate::DType::I32)?,
        crate::DType::Bool,
    )?;
    let lsm = log_softmax(logits, -1)?;
    ops::neg(&ops::reduce_sum(
        &where_(&onehot, &lsm, &ops::zeros_like(&lsm)?)?,
        Some(&[-1]),
        false,
    )?)
}

/// `max(x, 0) - x * z + log(1 + exp(-|x|))`, TF's stable form.
pub fn sigmoid_cross_entropy_with_logits(labels: &Tensor, logits: &Tensor) -> Result<Tensor> {
    if labels.shape() != logits.shape() {
        return Err(Error::invalid(format!(
            "logits and labels must have the same shape ({} vs {})",
            crate::shape::ShapeDisplay::of(logits.shape()),
            crate::shape::ShapeDisplay::of(labels.shape())
        )));
    }
    let x = logits;
    let zero = ops::zeros_like(x)?;
    let relu = where_(&ops::greater_equal(x, &zero)?, x, &zero)?;
    let neg_abs = where_(&ops::greater_equal(x, &zero)?, &ops::neg(x)?, x)?;
    ops::add(
        &ops::sub(&relu, &ops::mul(x, labels)?)?,
        &ops::log1p(&ops::exp(&neg_abs)?)?,
    )
}

/// `x / sqrt(max(sum(x^2, axes), epsilon))`.
pub fn l2_normalize(x: &Tensor, axes: Option<&[isize]>, epsilon: f64) -> Result<Tensor> {
    float_only("L2Normalize", x)?;
    let sq = ops::reduce_sum(&ops::square(x)?, axes, true)?;
    ops::mul(x, &ops::rsqrt(&ops::maximum(&sq, &c(x, epsilon))?)?)
}

/// Adds a 1-D bias along the last axis (NHWC / channels-last).
pub fn bias_add(value: &Tensor, bias: &Tensor) -> Result<Tensor> {
    // TensorFlow's three checks, in its order and with its messages.
    if value.rank() < 2 {
        return Err(Error::invalid(format!(
            "Input tensor must be at least 2D: {} [Op:BiasAdd]",
            crate::shape::ShapeDisplay::of(value.shape())
        )));
    }
    if bias.rank() != 1 {
        return Err(Error::invalid(format!(
            "Biases must be 1D: {} [Op:BiasAdd]",
            crate::shape::ShapeDisplay::of(bias.shape())
        )));
    }
    if value.shape()[value.rank() - 1] != bias.shape()[0] {
        return Err(Error::invalid(format!(
            "Must provide as many biases as the last dimension of the input tensor: {} vs. {} [Op:BiasAdd]",
            crate::shape::ShapeDisplay::of(bias.shape()),
            crate::shape::ShapeDisplay::of(value.shape())
        )));
    }
    ops::add(value, bias)
}

/// Inverted dropout with a given keep mask (`true` keeps): `x * mask / (1 - rate)`.
pub fn dropout_with_mask(x: &Tensor, keep: &Tensor, rate: f64) -> Result<Tensor> {
    if !(0.0..1.0).contains(&rate) {
        return Err(Error::invalid(format!(
            "rate must be a scalar tensor or a float in the range [0, 1), got {rate}"
        )));
    }
    let scaled = ops::mul(x, &c(x, 1.0 / (1.0 - rate)))?;
    where_(keep, &scaled, &ops::zeros_like(x)?)
}
