//! Optimizer update rules, fused and in place on the variables' buffers.
//!
//! The formulas are Keras 3's (`keras.optimizers.SGD`, `Adam`, `AdamW`,
//! `RMSprop`), applied elementwise in the variable's dtype (float16/bfloat16/
//! float32/float64/complex64/complex128, as Keras 3 on TF 2.21 trains them). Slots (momenta,
//! velocities) are variables too, so they can be saved and shared.

use std::sync::Arc;

use smallvec::SmallVec;

use ndarray::Zip;
use std::ops::{Add, Div, Mul, Sub};

use num_traits::{Float, One, Zero};

use crate::dtype::{bf16, c128, c64, f16};
use crate::error::{Error, Result};
use crate::kernels::{update_in_chunks, PAR_THRESHOLD, PAR_THRESHOLD_MEMORY};
use crate::shape::ShapeDisplay;
use crate::tensor::{Storage, Tensor};
use crate::variable::Variable;

/// One optimizer's hyperparameters (the learning rate is passed per step, so
/// schedules can change it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// Stochastic gradient descent, optionally with (Nesterov) momentum. Slots: `[momentum]` if momentum != 0.
    Sgd {
        /// Momentum factor (0 for none).
        momentum: f64,
        /// Nesterov momentum.
        nesterov: bool,
    },
    /// Adam. Slots: `[m, v]`, plus `[v_hat]` with amsgrad.
    Adam {
        /// First-moment decay.
        beta_1: f64,
        /// Second-moment decay.
        beta_2: f64,
        /// Added to the denominator.
        epsilon: f64,
        /// Keep the running maximum of `v`.
        amsgrad: bool,
    },
    /// RMSprop. Slots: `[velocity]`, then `[momentum]` if momentum > 0, then `[average_grad]` if centered.
    RmsProp {
        /// Decay of the squared-gradient average.
        rho: f64,
        /// Momentum factor (0 for none).
        momentum: f64,
        /// Added to the denominator.
        epsilon: f64,
        /// Divide by the centered second moment.
        centered: bool,
    },
}

impl Rule {
    /// How many slot variables the rule needs per variable.
    pub fn slots(&self) -> usize {
        match *self {
            Rule::Sgd { momentum, .. } => usize::from(momentum != 0.0),
            Rule::Adam { amsgrad, .. } => 2 + usize::from(amsgrad),
            Rule::RmsProp {
                momentum, centered, ..
            } => 1 + usize::from(momentum > 0.0) + usize::from(centered),
        }
    }
}

/// Swaps a variable's value out as uniquely owned storage, so updates can
/// write in place when nothing else shares the buffer (copy-on-write otherwise).
fn with_storages<R>(vars: &[&Variable], f: impl FnOnce(&mut [Storage]) -> Result<R>) -> Result<R> {
    // Lock in a fixed order (creation order) so concurrent steps never deadlock.
    let mut order: Vec<usize> = (0..vars.len()).collect();
    order.sort_by_key(|&i| vars[i].handle_id());
    let mut guards: Vec<_> = order.iter().map(|&i| (i, vars[i].lock_value())).collect();
    guards.sort_by_key(|(i, _)| *i);
    let mut storages: Vec<Storage> = guards.iter_mut().map(|(_, g)| g.take_storage()).collect();
    let r = f(&mut storages);
    for ((_, g), s) in guards.iter_mut().zip(storages) {
        g.put_storage(s);
    }
    r
}

fn check(rule: &Rule, var: &Variable, grad: &Tensor) -> Result<()> {
    if var.shape() != grad.shape() || var.dtype() != grad.dtype() {
        return Err(Error::invalid(format!(
            "gradient of shape {} and dtype {} does not match variable '{}' of shape {} and dtype {}",
            ShapeDisplay::of(grad.shape()),
            grad.dtype(),
            var.name(),
            ShapeDisplay::of(&var.shape()),
            var.dtype()
        )));
    }
    use crate::DType::{BF16, C128, C64, F16, F32, F64};
    let dtype = var.dtype();
    if !matches!(dtype, F32 | F64 | F16 | BF16 | C64 | C128) {
        return Err(Error::UnsupportedDType {
            op: "ApplyGradients",
            dtype,
            allowed: "float16, bfloat16, float32, float64, complex64, complex128",
        });
    }
    // Where Keras 3 on TF 2.21 fails on complex variables, fail as it does.
    if let Rule::Adam { amsgrad, .. } = *rule {
        if dtype == C128 {
            // Keras builds one factor of the update as complex64.
            return Err(Error::invalid(
                "cannot compute Mul as input #1(zero-based) was expected to be a complex128 tensor \
                 but is a complex64 tensor [Op:Mul]",
            ));
        }
        if amsgrad && dtype == C64 {
            return Err(Error::UnsupportedDType {
                op: "Maximum",
                dtype,
                allowed: "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64",
            });
        }
    }
    Ok(())
}

/// Applies one step of `rule` to `var` with gradient `grad`.
///
/// `step` is the 1-based iteration (Adam's bias correction), `lr` the learning
/// rate, `weight_decay` Keras' decoupled decay (`var -= var * wd * lr` first).
pub fn apply(
    rule: &Rule,
    var: &Variable,
    grad: &Tensor,
    slots: &[Variable],
    lr: f64,
    step: u64,
    weight_decay: f64,
) -> Result<()> {
    check(rule, var, grad)?;
    if slots.len() != rule.slots() {
        return Err(Error::invalid(format!(
            "{rule:?} needs {} slots, got {}",
            rule.slots(),
            slots.len()
        )));
    }
    for s in slots {
        if s.shape() != var.shape() || s.dtype() != var.dtype() {
            return Err(Error::invalid(format!(
                "slot '{}' does not match variable '{}'",
                s.name(),
                var.name()
            )));
        }
    }
    let mut all: Vec<&Variable> = vec![var];
    all.extend(slots.iter());
    with_storages(&all, |st| {
        run_kernel(rule, st, grad, lr, step, weight_decay)
    })
}

fn run_kernel(
    rule: &Rule,
    st: &mut [Storage],
    grad: &Tensor,
    lr: f64,
    step: u64,
    wd: f64,
) -> Result<()> {
    match grad.storage() {
        Storage::F32(g) => kernel::<f32>(rule, st, g, lr, step, wd),
        Storage::F64(g) => kernel::<f64>(rule, st, g, lr, step, wd),
        Storage::F16(g) => kernel::<f16>(rule, st, g, lr, step, wd),
        Storage::BF16(g) => kernel::<bf16>(rule, st, g, lr, step, wd),
        Storage::C64(g) => kernel::<c64>(rule, st, g, lr, step, wd),
        Storage::C128(g) => kernel::<c128>(rule, st, g, lr, step, wd),
        _ => unreachable!("dtype checked"),
    }
}

/// The learning rate of an update: a number fixed when the step was
/// written, or a one-element real tensor the step computed (a schedule of
/// the iteration counter), which a traced graph computes again and reads at
/// each replay.
#[derive(Clone, Debug)]
pub enum LearningRate {
    /// A constant rate.
    Fixed(f64),
    /// A rate computed by the step.
    Tensor(Tensor),
}

impl From<f64> for LearningRate {
    fn from(v: f64) -> Self {
        LearningRate::Fixed(v)
    }
}

impl From<Tensor> for LearningRate {
    fn from(t: Tensor) -> Self {
        LearningRate::Tensor(t)
    }
}

/// The value of a learning rate given as a tensor: one real element.
fn rate_of(t: &Tensor) -> Result<f64> {
    let d = t.dtype();
    if d.is_complex() || d == crate::dtype::DType::Bool {
        return Err(Error::invalid(format!(
            "a learning rate must be a real number, got a {d} tensor"
        )));
    }
    t.to_f64_scalar().map_err(|_| {
        Error::invalid(format!(
            "a learning rate must be a scalar, got a tensor of shape {}",
            ShapeDisplay::of(t.shape())
        ))
    })
}

/// [`apply`], told to an active tracer (`crate::graph`) as an update its
/// replays run again. `step` is fixed, or, with `counter` (the optimizer's
/// `iterations`, an integer scalar variable), the counter's value plus one
/// at the time of each call. A learning rate given as a tensor is an input
/// of the traced update, read at each replay.
#[allow(clippy::too_many_arguments)]
pub fn apply_traced(
    rule: &Rule,
    var: &Variable,
    grad: &Tensor,
    slots: &[Variable],
    lr: impl Into<LearningRate>,
    step: Option<u64>,
    counter: Option<&Variable>,
    weight_decay: f64,
) -> Result<()> {
    let lr = lr.into();
    let (rate, fixed_lr) = match &lr {
        LearningRate::Fixed(v) => (*v, Some(*v)),
        LearningRate::Tensor(t) => (rate_of(t)?, None),
    };
    let step = match (step, counter) {
        (Some(s), _) => s,
        (None, Some(c)) => counter_step(&c.value())?,
        (None, None) => {
            return Err(Error::invalid(
                "an optimizer step needs a step or a counter",
            ))
        }
    };
    apply(rule, var, grad, slots, rate, step, weight_decay)?;
    let inputs: SmallVec<[&Tensor; 2]> = match &lr {
        LearningRate::Fixed(_) => smallvec::smallvec![grad],
        LearningRate::Tensor(t) => smallvec::smallvec![grad, t],
    };
    crate::record::trace_effect(
        || {
            let mut vars = vec![var.clone()];
            vars.extend(slots.iter().cloned());
            let fixed = counter.is_none().then_some(step);
            if let Some(c) = counter {
                vars.push(c.clone());
            }
            Arc::new(Update {
                rule: *rule,
                vars,
                lr: fixed_lr,
                fixed,
                weight_decay,
            })
        },
        &inputs,
    );
    Ok(())
}

/// The 1-based step after a counter holding `c` completed steps.
fn counter_step(c: &Tensor) -> Result<u64> {
    let n = c.to_f64_scalar()?;
    if n < 0.0 || n.fract() != 0.0 {
        return Err(Error::invalid(format!("an iteration counter holds {n}")));
    }
    Ok(n as u64 + 1)
}

/// An optimizer update as a traced graph replays it: variables are the
/// updated variable, its slots, then the counter when the step comes from it.
struct Update {
    rule: Rule,
    vars: Vec<Variable>,
    /// A constant rate; `None`: the rate is the effect's second input.
    lr: Option<f64>,
    fixed: Option<u64>,
    weight_decay: f64,
}

impl Update {
    fn rate(&self, inputs: &[Tensor]) -> Result<f64> {
        match (self.lr, inputs.get(1)) {
            (Some(v), _) => Ok(v),
            (None, Some(t)) => rate_of(t),
            (None, None) => Err(Error::invalid(
                "ApplyGradients was traced with a learning rate input, none was given",
            )),
        }
    }
}

impl crate::record::Effect for Update {
    fn name(&self) -> &'static str {
        "ApplyGradients"
    }

    fn variables(&self) -> &[Variable] {
        &self.vars
    }

    fn apply(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let grad = &inputs[0];
        check(&self.rule, &self.vars[0], grad)?;
        let n = 1 + self.rule.slots();
        let step = match self.fixed {
            Some(s) => s,
            None => counter_step(&current[n])?,
        };
        // Copies of the current values (the kernel writes in place).
        let mut st: Vec<Storage> = current[..n]
            .iter()
            .map(|t| t.clone().into_storage())
            .collect();
        run_kernel(
            &self.rule,
            &mut st,
            grad,
            self.rate(inputs)?,
            step,
            self.weight_decay,
        )?;
        let mut out: Vec<Tensor> = st.into_iter().map(Tensor::from_storage).collect();
        out.extend(current[n..].iter().cloned());
        Ok(out)
    }

    fn in_place(
        &self,
        current: &[Tensor],
        inputs: &[Tensor],
    ) -> Result<Option<crate::record::InPlace>> {
        let grad = inputs[0].clone();
        check(&self.rule, &self.vars[0], &grad)?;
        let n = 1 + self.rule.slots();
        let step = match self.fixed {
            Some(s) => s,
            None => counter_step(&current[n])?,
        };
        let (rule, lr, wd) = (self.rule, self.rate(inputs)?, self.weight_decay);
        // The kernel eager `apply` runs, on the variables' own buffers.
        let run = move |st: &mut [Storage]| -> Result<bool> {
            let unique = st.iter().all(|s| match s {
                Storage::F32(a) => a.is_unique(),
                Storage::F64(a) => a.is_unique(),
                Storage::F16(a) => a.is_unique(),
                Storage::BF16(a) => a.is_unique(),
                Storage::C64(a) => a.is_unique(),
                Storage::C128(a) => a.is_unique(),
                _ => false,
            });
            run_kernel(&rule, st, &grad, lr, step, wd)?;
            Ok(unique)
        };
        Ok(Some(crate::record::InPlace {
            writes: n,
            run: Box::new(run),
        }))
    }

    /// Plain SGD (no momentum, no weight decay): `v - g * lr`.
    fn linear_in(&self, at: usize) -> bool {
        let plain = matches!(self.rule, Rule::Sgd { momentum, .. } if momentum == 0.0);
        at == 0 && plain && self.weight_decay == 0.0
    }

    fn linear(
        &self,
        at: usize,
        current: &[Tensor],
        others: &[Tensor],
    ) -> Option<crate::record::Linear> {
        let float = matches!(current[0].dtype(), crate::DType::F32 | crate::DType::F64);
        if !self.linear_in(at) || !float {
            return None;
        }
        // A counter the step cannot come from: the traced form says so.
        if self.fixed.is_none() {
            counter_step(current.get(1)?).ok()?;
        }
        let lr = match self.lr {
            Some(v) => v,
            None => rate_of(others.first()?).ok()?,
        };
        // The update rounds it to the variable's dtype, as `Elem::lr` does.
        Some(crate::record::Linear {
            scale: Some((lr, false)),
            add: false,
        })
    }
}

/// An element type the update rules run on: the arithmetic of the
/// variable's dtype as TF's CPU kernels do it (float16/bfloat16 compute each
/// operation in float32 and round, as Eigen's half types and `half`'s do).
trait Elem:
    Copy
    + Send
    + Sync
    + 'static
    + Zero
    + One
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    fn get(s: &mut Storage) -> &mut ndarray::ArcArray<Self, ndarray::IxDyn>;
    /// A hyperparameter in this dtype. Keras casts the float32 learning
    /// rate and Python floats (float32 tensors first) to the variable's dtype.
    fn of(v: f64) -> Self;
    /// The learning rate in this dtype: Keras keeps it in a float32
    /// variable, cast to the variable's dtype (complex128 sees a float32 value).
    fn lr(v: f64) -> Self {
        Self::of(v)
    }
    fn sqrt(self) -> Self;
    fn pow(self, t: Self) -> Self;
    /// Only for the real types (AMSGrad on complex is refused in `check`).
    fn max(self, o: Self) -> Self;
}

macro_rules! real_elem {
    ($t:ty, $v:ident, $of:expr) => {
        impl Elem for $t {
            fn get(s: &mut Storage) -> &mut ndarray::ArcArray<$t, ndarray::IxDyn> {
                match s {
                    Storage::$v(a) => a,
                    _ => unreachable!("dtype checked"),
                }
            }
            fn of(v: f64) -> $t {
                $of(v)
            }
            fn sqrt(self) -> $t {
                Float::sqrt(self)
            }
            fn pow(self, t: $t) -> $t {
                Float::powf(self, t)
            }
            fn max(self, o: $t) -> $t {
                Float::max(self, o)
            }
        }
    };
}
real_elem!(f32, F32, |v: f64| v as f32);
real_elem!(f64, F64, |v: f64| v);
real_elem!(f16, F16, |v: f64| f16::from_f32(v as f32));
real_elem!(bf16, BF16, |v: f64| bf16::from_f32(v as f32));

macro_rules! complex_elem {
    ($t:ty, $v:ident, $of:expr) => {
        complex_elem!($t, $v, $of, $of);
    };
    ($t:ty, $v:ident, $of:expr, $lr:expr) => {
        impl Elem for $t {
            fn get(s: &mut Storage) -> &mut ndarray::ArcArray<$t, ndarray::IxDyn> {
                match s {
                    Storage::$v(a) => a,
                    _ => unreachable!("dtype checked"),
                }
            }
            fn of(v: f64) -> $t {
                $of(v)
            }
            fn lr(v: f64) -> $t {
                $lr(v)
            }
            fn sqrt(self) -> $t {
                num_complex::Complex::sqrt(self)
            }
            fn pow(self, t: $t) -> $t {
                num_complex::Complex::powc(self, t)
            }
            fn max(self, _o: $t) -> $t {
                unreachable!("AMSGrad on complex variables is refused in check")
            }
        }
    };
}
complex_elem!(c64, C64, |v: f64| c64::new(v as f32, 0.0));
complex_elem!(c128, C128, |v: f64| c128::new(v, 0.0), |v: f64| c128::new(
    f64::from(v as f32),
    0.0
));

fn kernel<T: Elem>(
    rule: &Rule,
    st: &mut [Storage],
    g: &ndarray::ArcArray<T, ndarray::IxDyn>,
    lr: f64,
    step: u64,
    wd: f64,
) -> Result<()> {
    let (var_s, slot_s) = st.split_first_mut().expect("variable first");
    let var = T::get(var_s);
    let lr_t = T::lr(lr);
    if wd != 0.0 {
        // Keras: variable - variable * wd * lr, in that order.
        let wd_t = T::of(wd);
        let f = move |v: &mut T| *v = *v - *v * wd_t * lr_t;
        match var.as_slice_mut() {
            Some(v) => update_in_chunks([v], [], PAR_THRESHOLD_MEMORY, move |[v], []| {
                v.iter_mut().for_each(f)
            }),
            None => var.map_inplace(f),
        }
    }
    let mut slots: Vec<&mut ndarray::ArcArray<T, ndarray::IxDyn>> =
        slot_s.iter_mut().map(T::get).collect();
    match *rule {
        Rule::Sgd { momentum, nesterov } => {
            if momentum == 0.0 {
                let f = move |v: &mut T, &g: &T| *v = *v - g * lr_t;
                // Contiguous buffers (the usual case): slice loops under SIMD
                // dispatch, split across the pool when large; `Zip`
                // otherwise. Same formula, same bits.
                let done = match (var.as_slice_mut(), g.as_slice()) {
                    (Some(v), Some(gs)) => {
                        update_in_chunks([v], [gs], PAR_THRESHOLD_MEMORY, move |[v], [g]| {
                            v.iter_mut().zip(g.iter()).for_each(|(v, g)| f(v, g))
                        });
                        true
                    }
                    _ => false,
                };
                if !done {
                    Zip::from(var.view_mut()).and(g).for_each(f);
                }
            } else {
                let mo = T::of(momentum);
                let m = &mut slots[0];
                let f = move |v: &mut T, m: &mut T, &g: &T| {
                    *m = *m * mo - g * lr_t;
                    *v = if nesterov {
                        *v + (*m * mo - g * lr_t)
                    } else {
                        *v + *m
                    };
                };
                let done = match (var.as_slice_mut(), m.as_slice_mut(), g.as_slice()) {
                    (Some(v), Some(ms), Some(gs)) => {
                        update_in_chunks(
                            [v, ms],
                            [gs],
                            PAR_THRESHOLD_MEMORY,
                            move |[v, m], [g]| {
                                v.iter_mut()
                                    .zip(m.iter_mut())
                                    .zip(g.iter())
                                    .for_each(|((v, m), g)| f(v, m, g))
                            },
                        );
                        true
                    }
                    _ => false,
                };
                if !done {
                    Zip::from(var.view_mut())
                        .and(m.view_mut())
                        .and(g)
                        .for_each(f);
                }
            }
        }
        Rule::Adam {
            beta_1,
            beta_2,
            epsilon,
            amsgrad,
        } => {
            let (b1, b2, eps) = (T::of(beta_1), T::of(beta_2), T::of(epsilon));
            let t = T::of(step as f64);
            let alpha = lr_t * T::sqrt(T::one() - b2.pow(t)) / (T::one() - b1.pow(t));
            // Keras computes 1 - beta in double precision before the cast.
            let (one_b1, one_b2) = (T::of(1.0 - beta_1), T::of(1.0 - beta_2));
            let (ms, rest) = slots.split_at_mut(1);
            let (vs, hat) = rest.split_at_mut(1);
            let step_m = move |m: &mut T, g: T| *m = *m + (g - *m) * one_b1;
            let step_s = move |s: &mut T, g: T| *s = *s + (g * g - *s) * one_b2;
            let step_v = move |v: &mut T, m: T, s: T| *v = *v - (m * alpha) / (T::sqrt(s) + eps);
            // Contiguous buffers (the usual case): slice loops under SIMD
            // dispatch, split across the pool when large; `Zip` otherwise.
            // Same formulas, same bits.
            let contiguous = (
                var.as_slice_mut(),
                ms[0].as_slice_mut(),
                vs[0].as_slice_mut(),
                g.as_slice(),
            );
            if let (Some(v), Some(m), Some(s), Some(gs)) = contiguous {
                if amsgrad {
                    if let Some(h) = hat[0].as_slice_mut() {
                        update_in_chunks(
                            [v, m, s, h],
                            [gs],
                            PAR_THRESHOLD,
                            move |[v, m, s, h], [g]| {
                                let vms = v.iter_mut().zip(m.iter_mut()).zip(s.iter_mut());
                                for (((v, m), s), (h, &g)) in vms.zip(h.iter_mut().zip(g.iter())) {
                                    step_m(m, g);
                                    step_s(s, g);
                                    *h = T::max(*h, *s);
                                    step_v(v, *m, *h);
                                }
                            },
                        );
                        return Ok(());
                    }
                } else {
                    update_in_chunks([v, m, s], [gs], PAR_THRESHOLD, move |[v, m, s], [g]| {
                        let vms = v.iter_mut().zip(m.iter_mut()).zip(s.iter_mut());
                        for (((v, m), s), &g) in vms.zip(g.iter()) {
                            step_m(m, g);
                            step_s(s, g);
                            step_v(v, *m, *s);
                        }
                    });
                    return Ok(());
                }
            }
            let z = Zip::from(var.view_mut())
                .and(ms[0].view_mut())
                .and(vs[0].view_mut())
                .and(g);
            if amsgrad {
                z.and(hat[0].view_mut()).for_each(|v, m, s, &g, h| {
                    step_m(m, g);
                    step_s(s, g);
                    *h = T::max(*h, *s);
                    step_v(v, *m, *h);
                });
            } else {
                z.for_each(|v, m, s, &g| {
                    step_m(m, g);
                    step_s(s, g);
                    step_v(v, *m, *s);
                });
            }
        }
        Rule::RmsProp {
            rho,
            momentum,
            epsilon,
            centered,
        } => {
            let (r, eps) = (T::of(rho), T::of(epsilon));
            let one_r = T::of(1.0 - rho);
            let mo = T::of(momentum);
            let mut it = slots.iter_mut();
            let vel = it.next().expect("velocity slot");
            let mom = if momentum > 0.0 { it.next() } else { None };
            let avg = if centered { it.next() } else { None };
            // Per element: the velocity (and average), the increment, then
            // the momentum branch.
            let step_s = move |s: &mut T, g: T| *s = r * *s + one_r * (g * g);
            let step_a = move |a: &mut T, g: T| *a = r * *a + one_r * g;
            let inc_centered = move |s: T, a: T, g: T| lr_t * g / T::sqrt(s - a * a + eps);
            let inc_plain = move |s: T, g: T| lr_t * g / T::sqrt(s + eps);
            let step_v = move |v: &mut T, m: Option<&mut T>, i: T| match m {
                Some(m) => {
                    *m = mo * *m + i;
                    *v = *v - *m;
                }
                None => *v = *v - i,
            };
            // Contiguous buffers (the usual case): one pass under SIMD
            // dispatch, split across the pool when large. Same formulas,
            // same bits.
            let contiguous = (
                var.as_slice_mut(),
                vel.as_slice_mut(),
                g.as_slice(),
                mom.is_none() || mom.as_ref().is_some_and(|m| m.is_standard_layout()),
                avg.is_none() || avg.as_ref().is_some_and(|a| a.is_standard_layout()),
            );
            if let (Some(v), Some(vel), Some(gs), true, true) = contiguous {
                // Standard layout (checked above): a slice.
                let m = mom.map(|m| m.as_slice_mut().expect("standard layout"));
                let a = avg.map(|a| a.as_slice_mut().expect("standard layout"));
                match (m, a) {
                    (Some(m), Some(a)) => update_in_chunks(
                        [v, vel, m, a],
                        [gs],
                        PAR_THRESHOLD,
                        move |[v, s, m, a], [g]| {
                            let vsm = v.iter_mut().zip(s.iter_mut()).zip(m.iter_mut());
                            for (((v, s), m), (a, &g)) in vsm.zip(a.iter_mut().zip(g.iter())) {
                                step_s(s, g);
                                step_a(a, g);
                                step_v(v, Some(m), inc_centered(*s, *a, g));
                            }
                        },
                    ),
                    (Some(m), None) => {
                        update_in_chunks([v, vel, m], [gs], PAR_THRESHOLD, move |[v, s, m], [g]| {
                            let vsm = v.iter_mut().zip(s.iter_mut()).zip(m.iter_mut());
                            for (((v, s), m), &g) in vsm.zip(g.iter()) {
                                step_s(s, g);
                                step_v(v, Some(m), inc_plain(*s, g));
                            }
                        })
                    }
                    (None, Some(a)) => {
                        update_in_chunks([v, vel, a], [gs], PAR_THRESHOLD, move |[v, s, a], [g]| {
                            let vsa = v.iter_mut().zip(s.iter_mut()).zip(a.iter_mut());
                            for (((v, s), a), &g) in vsa.zip(g.iter()) {
                                step_s(s, g);
                                step_a(a, g);
                                step_v(v, None, inc_centered(*s, *a, g));
                            }
                        })
                    }
                    (None, None) => {
                        update_in_chunks([v, vel], [gs], PAR_THRESHOLD, move |[v, s], [g]| {
                            for ((v, s), &g) in v.iter_mut().zip(s.iter_mut()).zip(g.iter()) {
                                step_s(s, g);
                                step_v(v, None, inc_plain(*s, g));
                            }
                        })
                    }
                }
                return Ok(());
            }
            let mut inc = ndarray::ArrayD::<T>::zeros(g.raw_dim());
            match avg {
                Some(avg) => Zip::from(vel.view_mut())
                    .and(avg.view_mut())
                    .and(g)
                    .and(inc.view_mut())
                    .for_each(|s, a, &g, i| {
                        step_s(s, g);
                        step_a(a, g);
                        *i = inc_centered(*s, *a, g);
                    }),
                None => Zip::from(vel.view_mut())
                    .and(g)
                    .and(inc.view_mut())
                    .for_each(|s, &g, i| {
                        step_s(s, g);
                        *i = inc_plain(*s, g);
                    }),
            }
            match mom {
                Some(m) => Zip::from(var.view_mut())
                    .and(m.view_mut())
                    .and(&inc)
                    .for_each(|v, m, &i| step_v(v, Some(m), i)),
                None => Zip::from(var.view_mut())
                    .and(&inc)
                    .for_each(|v, &i| step_v(v, None, i)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes around the pool's split (a partial last chunk) and below it.
    const SIZES: [usize; 3] = [1000, (1 << 16) + 37, (1 << 19) + 5];

    fn vals(n: usize, seed: u64) -> Vec<f32> {
        (0..n)
            .map(|i| (((i as u64 * 2_654_435_761 + seed) % 1999) as f32 - 999.0) / 311.0)
            .collect()
    }

    fn var(v: &[f32]) -> Variable {
        Variable::new(Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap())
    }

    fn bits(v: &Variable) -> Vec<u32> {
        v.value()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    }

    fn same(v: &Variable, want: &[f32]) {
        let w: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
        assert!(bits(v) == w, "differs from the per-element formula");
    }

    /// Chunked, dispatched and split updates give the per-element formula's
    /// bits at every size (Keras' formulas, written out one element at a time).
    #[test]
    fn updates_are_the_per_element_formulas_at_every_size() {
        let (lr, b1, b2, eps) = (0.01f32, 0.9f32, 0.999f32, 1e-7f32);
        for n in SIZES {
            let (w0, g0) = (vals(n, 1), vals(n, 7));
            let grad = Tensor::from_vec(g0.clone(), &[n]).unwrap();
            // SGD.
            let v = var(&w0);
            let sgd = Rule::Sgd {
                momentum: 0.0,
                nesterov: false,
            };
            apply(&sgd, &v, &grad, &[], lr.into(), 1, 0.0).unwrap();
            let want: Vec<f32> = w0
                .iter()
                .zip(&g0)
                .map(|(w, g)| w - g * (lr as f64) as f32)
                .collect();
            same(&v, &want);
            // SGD with Nesterov momentum, two steps.
            let (v, m) = (var(&w0), var(&vec![0.0; n]));
            let nes = Rule::Sgd {
                momentum: 0.9,
                nesterov: true,
            };
            let (mut wv, mut mv) = (w0.clone(), vec![0.0f32; n]);
            for step in 1..=2 {
                apply(
                    &nes,
                    &v,
                    &grad,
                    std::slice::from_ref(&m),
                    lr.into(),
                    step,
                    0.0,
                )
                .unwrap();
                for i in 0..n {
                    mv[i] = mv[i] * 0.9 - g0[i] * lr;
                    wv[i] += mv[i] * 0.9 - g0[i] * lr;
                }
            }
            same(&v, &wv);
            same(&m, &mv);
            // Adam and AMSGrad, two steps.
            for amsgrad in [false, true] {
                let rule = Rule::Adam {
                    beta_1: b1.into(),
                    beta_2: b2.into(),
                    epsilon: eps.into(),
                    amsgrad,
                };
                let slots: Vec<Variable> = (0..rule.slots()).map(|_| var(&vec![0.0; n])).collect();
                let v = var(&w0);
                let (mut wv, mut mv, mut sv, mut hv) = (
                    w0.clone(),
                    vec![0.0f32; n],
                    vec![0.0f32; n],
                    vec![0.0f32; n],
                );
                for step in 1..=2u64 {
                    apply(&rule, &v, &grad, &slots, lr.into(), step, 0.0).unwrap();
                    let t = step as f32;
                    let alpha = lr * (1.0 - b2.powf(t)).sqrt() / (1.0 - b1.powf(t));
                    let (o1, o2) = ((1.0 - f64::from(b1)) as f32, (1.0 - f64::from(b2)) as f32);
                    for i in 0..n {
                        let g = g0[i];
                        mv[i] += (g - mv[i]) * o1;
                        sv[i] += (g * g - sv[i]) * o2;
                        hv[i] = hv[i].max(sv[i]);
                        let d = if amsgrad { hv[i] } else { sv[i] };
                        wv[i] -= (mv[i] * alpha) / (d.sqrt() + eps);
                    }
                }
                same(&v, &wv);
                same(&slots[0], &mv);
                same(&slots[1], &sv);
            }
            // RMSprop with and without momentum and centering, two steps.
            let (rho, mo) = (0.9f32, 0.5f32);
            for (momentum, centered) in [(0.0, false), (0.5, false), (0.0, true), (0.5, true)] {
                let rule = Rule::RmsProp {
                    rho: rho.into(),
                    momentum,
                    epsilon: eps.into(),
                    centered,
                };
                let slots: Vec<Variable> = (0..rule.slots()).map(|_| var(&vec![0.0; n])).collect();
                let v = var(&w0);
                let (mut wv, mut sv, mut mv, mut av) = (
                    w0.clone(),
                    vec![0.0f32; n],
                    vec![0.0f32; n],
                    vec![0.0f32; n],
                );
                let one_r = (1.0 - f64::from(rho)) as f32;
                for step in 1..=2u64 {
                    apply(&rule, &v, &grad, &slots, lr.into(), step, 0.0).unwrap();
                    for i in 0..n {
                        let g = g0[i];
                        sv[i] = rho * sv[i] + one_r * (g * g);
                        av[i] = rho * av[i] + one_r * g;
                        let inc = if centered {
                            lr * g / (sv[i] - av[i] * av[i] + eps).sqrt()
                        } else {
                            lr * g / (sv[i] + eps).sqrt()
                        };
                        if momentum > 0.0 {
                            mv[i] = mo * mv[i] + inc;
                            wv[i] -= mv[i];
                        } else {
                            wv[i] -= inc;
                        }
                    }
                }
                same(&v, &wv);
                same(&slots[0], &sv);
                if centered {
                    same(slots.last().unwrap(), &av);
                }
            }
            // Decoupled weight decay first, then the rule.
            let v = var(&w0);
            apply(&sgd, &v, &grad, &[], lr.into(), 1, 0.004).unwrap();
            let wd = (0.004f64) as f32;
            let want: Vec<f32> = w0
                .iter()
                .zip(&g0)
                .map(|(&w, g)| {
                    let w = w - w * wd * lr;
                    w - g * lr
                })
                .collect();
            same(&v, &want);
        }
    }
}
