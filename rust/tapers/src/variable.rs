//! The update methods of [`Variable`] that run ops (the variable itself lives
//! with recording, in `record`).

use crate::error::Result;
use crate::ops;
pub use crate::record::{ValueGuard, Variable};
use crate::tensor::Tensor;

impl Variable {
    /// Adds `delta` to the value in one atomic step.
    pub fn assign_add(&self, delta: &Tensor) -> Result<()> {
        self.update(|v| ops::add(v, delta))
    }

    /// Subtracts `delta` from the value in one atomic step.
    pub fn assign_sub(&self, delta: &Tensor) -> Result<()> {
        self.update(|v| ops::sub(v, delta))
    }
}
