//! The hooks a tracer receives (the tracer itself is `crate::graph`, above
//! every op): while one is active on a thread, every op run there is told to
//! it with its inputs and outputs, whether or not a tape records.
//!
//! The tracer lives in the same per-thread registry as the tapes (one
//! thread-local read tells an op whether anything records), and a
//! [`super::RecordingContext`] carries it to rayon workers with the tapes.

use std::sync::Arc;

use super::active::{has_tracer, with_tracer};
use super::Variable;
use crate::error::Result;
use crate::op::OpRef;
use crate::tensor::{Storage, Tensor};

/// A change to variables that a replay applies: `assign`, `assign_add`, an
/// optimizer's update. Replayed, it computes the new values from the
/// variables' values then and its inputs; the replay writes them back only
/// after every node succeeded.
pub trait Effect: Send + Sync {
    /// The name shown in errors (`"AssignVariableOp"`).
    fn name(&self) -> &'static str;

    /// The variables it writes, in the order [`Effect::apply`] returns their
    /// new values. None: a host effect (a print), run for what it does
    /// outside the graph's values, at its place in a replay.
    fn variables(&self) -> &[Variable];

    /// The new values of [`Effect::variables`] from their `current` values
    /// and the effect's `inputs`.
    fn apply(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Vec<Tensor>>;

    /// The same update as [`Effect::apply`], to be run later on the
    /// variables' own buffers: a replay that is the last to touch the
    /// variables defers it until every node succeeded and every guard held,
    /// then runs it with the values taken out of the variables (written in
    /// place when nothing else holds them, copied first otherwise, so a
    /// tensor the caller kept of an old value keeps it). Checks happen here,
    /// with [`Effect::apply`]'s errors; `None` when the effect has no such
    /// form for these values (the replay then calls [`Effect::apply`]).
    fn in_place(&self, _current: &[Tensor], _inputs: &[Tensor]) -> Result<Option<InPlace>> {
        Ok(None)
    }

    /// The same effect taking, in place of its one input, the two operands
    /// of the `Mul` that made it (`v.assign_sub(lr * g)`): a graph whose
    /// product feeds nothing else gives it those, and its in-place form
    /// multiplies element by element as it updates, with the product's bits,
    /// instead of making the product first. `None` for effects without it.
    fn scaled(&self) -> Option<Arc<dyn Effect>> {
        None
    }

    /// Whether input `at` is one the effect adds to or subtracts from its
    /// first variable element by element, scaled by one number at most
    /// (`v ± g`, `v ± c·g`; [`Linear`]). A graph whose gradient product
    /// feeds only such an input computes the product in row halves and
    /// updates the variable as each half is made (`graph::product_update`).
    fn linear_in(&self, _at: usize) -> bool {
        false
    }

    /// The per-element update of [`Effect::linear_in`]'s input `at`, given
    /// the variables' `current` values and the effect's `others` inputs (in
    /// order, without input `at`). `None` when these values have no such
    /// form: the replay then makes the input and runs the effect as traced.
    fn linear(&self, _at: usize, _current: &[Tensor], _others: &[Tensor]) -> Option<Linear> {
        None
    }
}

/// An update `v = v ± p` of one variable with `p` an input `g` itself or
/// `g` times a number ([`Effect::linear`]), each operation rounded as the
/// eager ops round it (a product, then a sum or difference).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linear {
    /// `Some((c, true))`: `p = c * g`; `Some((c, false))`: `p = g * c`;
    /// `None`: `p = g`. `c` is rounded to the variable's dtype (`as`), as
    /// an optimizer casts its learning rate.
    pub scale: Option<(f64, bool)>,
    /// `v + p` (true) or `v - p`.
    pub add: bool,
}

/// A deferred in-place update ([`Effect::in_place`]): `run` gets the
/// storages of the first `writes` of the effect's variables, updates them,
/// and says whether every one was written in place (no other holder of the
/// buffer, so no copy was made).
pub struct InPlace {
    /// How many of [`Effect::variables`] (from the first) it writes.
    pub writes: usize,
    /// The update; it must not fail once [`Effect::in_place`] returned it.
    pub run: InPlaceFn,
}

/// The update an [`InPlace`] runs.
pub type InPlaceFn = Box<dyn FnOnce(&mut [Storage]) -> Result<bool> + Send>;

/// What a tracer is told.
pub trait Tracer: Send + Sync {
    /// `outputs = op(inputs)` ran.
    fn op(&self, op: &OpRef, inputs: &[&Tensor], outputs: &[&Tensor]);
    /// `var` was read as `out`.
    fn read(&self, var: &Variable, out: &Tensor);
    /// An effect on variables ran with these inputs.
    fn effect(&self, effect: Arc<dyn Effect>, inputs: &[&Tensor]);
    /// An op ran that a replay cannot run again (its name).
    fn unreplayable(&self, name: &str);
    /// A variable was created.
    fn created(&self, var: &Variable);
    /// The caller read `t`'s value (a replay must see the same value).
    fn guard(&self, t: &Tensor);
}

/// Whether a tracer is active on this thread.
#[inline]
pub fn is_tracing() -> bool {
    has_tracer()
}

/// Tells the active tracer, if any, that `op` ran.
#[inline]
pub(crate) fn trace_op(op: &OpRef, inputs: &[&Tensor], outputs: &[&Tensor]) {
    with_tracer(|t| t.op(op, inputs, outputs));
}

/// Tells the active tracer, if any, that `var` was read as `out`.
pub(crate) fn trace_read(var: &Variable, out: &Tensor) {
    with_tracer(|t| t.read(var, out));
}

/// Tells the active tracer, if any, that an effect ran (built only then).
pub fn trace_effect(effect: impl FnOnce() -> Arc<dyn Effect>, inputs: &[&Tensor]) {
    with_tracer(|t| t.effect(effect(), inputs));
}

/// Tells the active tracer, if any, that an op it cannot replay ran.
pub fn trace_unreplayable(name: &str) {
    with_tracer(|t| t.unreplayable(name));
}

/// Tells the active tracer, if any, that a variable was created.
pub(crate) fn trace_created(var: &Variable) {
    with_tracer(|t| t.created(var));
}

/// Tells the active tracer, if any, that the caller read `t`'s value (a
/// binding calls it when Python turns a tensor into a Python value).
pub fn trace_guard(t: &Tensor) {
    with_tracer(|tr| tr.guard(t));
}

/// `assign`: the new value is the input.
pub(crate) struct Assign(pub [Variable; 1]);

impl Effect for Assign {
    fn name(&self) -> &'static str {
        "AssignVariableOp"
    }

    fn variables(&self) -> &[Variable] {
        &self.0
    }

    fn apply(&self, _current: &[Tensor], inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.0[0].check(&inputs[0])?;
        Ok(vec![inputs[0].clone()])
    }
}
