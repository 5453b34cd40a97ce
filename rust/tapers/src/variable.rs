//! The update methods of [`Variable`] that run ops (the variable itself lives
//! with recording, in `record`).

use std::sync::Arc;

use crate::dtype::DType;
use crate::error::Result;
use crate::ops;
use crate::record::{trace_effect, Effect, InPlace, Linear};
pub use crate::record::{ValueGuard, Variable};
use crate::tensor::{Storage, Tensor};

impl Variable {
    /// Adds `delta` to the value in one atomic step.
    pub fn assign_add(&self, delta: &Tensor) -> Result<()> {
        self.update(|v| ops::add(v, delta))?;
        trace_effect(|| Arc::new(Update::new(self, false)), &[delta]);
        Ok(())
    }

    /// Subtracts `delta` from the value in one atomic step.
    pub fn assign_sub(&self, delta: &Tensor) -> Result<()> {
        self.update(|v| ops::sub(v, delta))?;
        trace_effect(|| Arc::new(Update::new(self, true)), &[delta]);
        Ok(())
    }
}

/// `assign_add` / `assign_sub` as a traced graph replays them.
struct Update {
    var: [Variable; 1],
    sub: bool,
}

impl Update {
    fn new(var: &Variable, sub: bool) -> Update {
        Update {
            var: [var.clone()],
            sub,
        }
    }
}

impl Effect for Update {
    fn name(&self) -> &'static str {
        if self.sub {
            "AssignSubVariableOp"
        } else {
            "AssignAddVariableOp"
        }
    }

    fn variables(&self) -> &[Variable] {
        &self.var
    }

    fn apply(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let new = if self.sub {
            ops::sub(&current[0], &inputs[0])?
        } else {
            ops::add(&current[0], &inputs[0])?
        };
        if new.shape() != current[0].shape() || new.dtype() != current[0].dtype() {
            // The same error eager execution gives (the variable is unchanged).
            self.var[0].assign(&new)?;
        }
        Ok(vec![new])
    }

    fn in_place(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Option<InPlace>> {
        use crate::kernels::{tiles_onto, zip_in_place, Arith};
        let (v, d) = (&current[0], &inputs[0]);
        let fits = match (v.storage(), d.storage()) {
            (Storage::F32(_), Storage::F32(q)) => tiles_onto(q, v.shape()),
            (Storage::F64(_), Storage::F64(q)) => tiles_onto(q, v.shape()),
            _ => false,
        };
        if !fits {
            return Ok(None);
        }
        let (d, sub) = (d.clone(), self.sub);
        let run = move |st: &mut [Storage]| -> Result<bool> {
            // `Arith::sub`/`add`: the element function `ops::sub`/`add` use.
            Ok(match (&mut st[0], d.storage()) {
                (Storage::F32(a), Storage::F32(b)) if sub => zip_in_place(a, b, Arith::sub),
                (Storage::F32(a), Storage::F32(b)) => zip_in_place(a, b, Arith::add),
                (Storage::F64(a), Storage::F64(b)) if sub => zip_in_place(a, b, Arith::sub),
                (Storage::F64(a), Storage::F64(b)) => zip_in_place(a, b, Arith::add),
                _ => {
                    return Err(crate::error::Error::invalid(
                        "a variable's dtype changed during a replay",
                    ))
                }
            })
        };
        Ok(Some(InPlace {
            writes: 1,
            run: Box::new(run),
        }))
    }

    fn scaled(&self) -> Option<Arc<dyn Effect>> {
        Some(Arc::new(ScaledUpdate(Update {
            var: self.var.clone(),
            sub: self.sub,
        })))
    }

    fn linear_in(&self, at: usize) -> bool {
        at == 0
    }

    fn linear(&self, _at: usize, current: &[Tensor], _others: &[Tensor]) -> Option<Linear> {
        float_variable(current).then_some(Linear {
            scale: None,
            add: !self.sub,
        })
    }
}

/// Whether the (first) variable holds float32 or float64 values.
fn float_variable(current: &[Tensor]) -> bool {
    matches!(current[0].dtype(), DType::F32 | DType::F64)
}

/// [`Update`] of the product of its two inputs (`Mul`'s operands, in their
/// order): what a graph makes of `v.assign_sub(c * g)` when nothing else
/// reads the product ([`Effect::scaled`]).
struct ScaledUpdate(Update);

impl Effect for ScaledUpdate {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn variables(&self) -> &[Variable] {
        self.0.variables()
    }

    fn apply(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let product = ops::mul(&inputs[0], &inputs[1])?;
        self.0.apply(current, &[product])
    }

    fn in_place(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Option<InPlace>> {
        use crate::kernels::{tiles_onto, zip_in_place, Arith};
        let (v, a, b) = (&current[0], &inputs[0], &inputs[1]);
        // One rank-0 operand `c` and one `x` that tiles onto the variable
        // (the product has `x`'s shape: [`Update::in_place`]'s condition),
        // all of the variable's float dtype.
        let c_first = a.rank() == 0;
        let (c, x) = if c_first { (a, b) } else { (b, a) };
        let fits = c.rank() == 0
            && match (v.storage(), c.storage(), x.storage()) {
                (Storage::F32(_), Storage::F32(_), Storage::F32(q)) => tiles_onto(q, v.shape()),
                (Storage::F64(_), Storage::F64(_), Storage::F64(q)) => tiles_onto(q, v.shape()),
                _ => false,
            };
        if !fits {
            return Ok(None);
        }
        let (c, x, sub) = (c.clone(), x.clone(), self.0.sub);
        // Per element `v - c * x` (or `x * c`, in the traced order) with the
        // two roundings of `ops::mul` then `ops::sub`/`add`.
        fn step<T: Arith>(
            sub: bool,
            c_first: bool,
            c: T,
        ) -> impl Fn(T, T) -> T + Copy + Sync + Send {
            move |v, x| {
                let p = if c_first {
                    Arith::mul(c, x)
                } else {
                    Arith::mul(x, c)
                };
                if sub {
                    Arith::sub(v, p)
                } else {
                    Arith::add(v, p)
                }
            }
        }
        let run = move |st: &mut [Storage]| -> Result<bool> {
            Ok(match (&mut st[0], c.storage(), x.storage()) {
                (Storage::F32(v), Storage::F32(c), Storage::F32(x)) => {
                    let c = *c.iter().next().expect("one element");
                    zip_in_place(v, x, step(sub, c_first, c))
                }
                (Storage::F64(v), Storage::F64(c), Storage::F64(x)) => {
                    let c = *c.iter().next().expect("one element");
                    zip_in_place(v, x, step(sub, c_first, c))
                }
                _ => {
                    return Err(crate::error::Error::invalid(
                        "a variable's dtype changed during a replay",
                    ))
                }
            })
        };
        Ok(Some(InPlace {
            writes: 1,
            run: Box::new(run),
        }))
    }

    fn linear_in(&self, at: usize) -> bool {
        at < 2
    }

    /// `v ± c * g` (`g` second) or `v ± g * c` (`g` first), with `c` the
    /// other operand: one element of the variable's dtype.
    fn linear(&self, at: usize, current: &[Tensor], others: &[Tensor]) -> Option<Linear> {
        let c = others.first()?;
        if !float_variable(current) || c.rank() != 0 || c.dtype() != current[0].dtype() {
            return None;
        }
        Some(Linear {
            scale: Some((c.to_f64_scalar().ok()?, at == 1)),
            add: !self.0.sub,
        })
    }
}
