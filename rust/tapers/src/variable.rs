//! Variables: named, shared, mutable slots holding an immutable tensor.
//!
//! A variable's value is swapped atomically under a lock: a reader gets either
//! the old tensor or the new one, never a mix. Reading records a
//! `ReadVariableOp` from the variable's handle id to a fresh tensor, so a tape
//! that watches the handle differentiates through every read.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::ShapeDisplay;
use crate::tape;
use crate::tensor::{Storage, Tensor, TensorId};

struct VarInner {
    handle: TensorId,
    /// Opaque slot for a binding's own handle object (set once).
    binding: OnceLock<Box<dyn Any + Send + Sync>>,
    name: String,
    trainable: bool,
    value: RwLock<Tensor>,
}

/// A mutable, shareable tensor slot, as `tf.Variable`.
///
/// ```
/// use tapers::{ops, GradientTape, Tensor, Variable};
/// let w = Variable::new(Tensor::scalar(2.0f32), "w", true);
/// let tape = GradientTape::new();
/// let y = {
///     let _rec = tape.record().unwrap();
///     let v = w.read();
///     ops::mul(&v, &v).unwrap()
/// };
/// let g = tape.gradient(&[y], &[(&w).into()]).unwrap();
/// assert_eq!(g[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![4.0]);
/// ```
#[derive(Clone)]
pub struct Variable(Arc<VarInner>);

impl Variable {
    /// A variable holding `initial`.
    pub fn new(initial: Tensor, name: impl Into<String>, trainable: bool) -> Variable {
        Variable(Arc::new(VarInner {
            handle: TensorId::fresh(),
            binding: OnceLock::new(),
            name: name.into(),
            trainable,
            // The stored value is never recorded on any tape: reads alias it.
            value: RwLock::new(initial),
        }))
    }

    /// The id tapes use for this variable (stable for its lifetime; ids are
    /// handed out in creation order).
    pub fn handle_id(&self) -> TensorId {
        self.0.handle
    }

    /// A slot where a language binding keeps its own object for this variable
    /// (for example a weak reference to the Python object), so the same
    /// variable maps back to the same foreign object.
    pub fn binding_slot(&self) -> &OnceLock<Box<dyn Any + Send + Sync>> {
        &self.0.binding
    }

    /// Whether two handles refer to the same variable.
    pub fn same_as(&self, other: &Variable) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The name given at creation.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Whether reads are watched automatically by tapes that ask for it.
    pub fn trainable(&self) -> bool {
        self.0.trainable
    }

    /// The dtype (fixed at creation).
    pub fn dtype(&self) -> DType {
        self.0.value.read().dtype()
    }

    /// The shape (fixed at creation).
    pub fn shape(&self) -> Vec<usize> {
        self.0.value.read().shape().to_vec()
    }

    /// The current value, without recording anything.
    pub fn value(&self) -> Tensor {
        self.0.value.read().clone()
    }

    /// Reads the value as a new tensor, recorded on active tapes (and watched
    /// by those that watch accessed variables).
    pub fn read(&self) -> Tensor {
        tape::variable_accessed(self);
        let current = self.value();
        let out = current.alias();
        tape::record_op(
            "ReadVariableOp",
            &[(self.0.handle, current.dtype())],
            &[&out],
            || std::sync::Arc::new(|g: &[Tensor], _: &[bool]| Ok(vec![Some(g[0].clone())])),
        );
        out
    }

    fn check(&self, value: &Tensor) -> Result<()> {
        let cur = self.0.value.read();
        if cur.shape() != value.shape() {
            return Err(Error::VariableMismatch(format!(
                "Cannot assign value to variable ' {}:0': Shape mismatch.The variable shape {}, and the assigned value shape {} are incompatible.",
                self.0.name,
                crate::shape::tuple_string(cur.shape()),
                crate::shape::tuple_string(value.shape())
            )));
        }
        if cur.dtype() != value.dtype() {
            return Err(Error::VariableMismatch(format!(
                "Tensor conversion requested dtype {} for Tensor with dtype {} (assigning to variable '{}' of shape {})",
                cur.dtype(),
                value.dtype(),
                self.0.name,
                ShapeDisplay::of(cur.shape())
            )));
        }
        Ok(())
    }

    /// Locks the value for an in-place update; readers wait until the guard drops.
    pub fn lock_value(&self) -> ValueGuard<'_> {
        ValueGuard {
            slot: self.0.value.write(),
        }
    }

    /// Replaces the value. Shape and dtype must match; on error the variable is unchanged.
    pub fn assign(&self, value: &Tensor) -> Result<()> {
        self.check(value)?;
        *self.0.value.write() = value.clone();
        Ok(())
    }

    /// Applies `f` to the current value and stores the result, atomically with
    /// respect to other updates of this variable.
    pub fn update(&self, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<()> {
        let mut slot = self.0.value.write();
        let new = {
            // Updates are not differentiated (as in TF).
            let _paused = tape::RecordingContext::default();
            _paused.enter(|| f(&slot))?
        };
        if new.shape() != slot.shape() || new.dtype() != slot.dtype() {
            drop(slot);
            return self.check(&new);
        }
        *slot = new;
        Ok(())
    }

    /// Adds `delta` to the value in one atomic step.
    pub fn assign_add(&self, delta: &Tensor) -> Result<()> {
        self.update(|v| ops::add(v, delta))
    }

    /// Subtracts `delta` from the value in one atomic step.
    pub fn assign_sub(&self, delta: &Tensor) -> Result<()> {
        self.update(|v| ops::sub(v, delta))
    }
}

/// Exclusive access to a variable's value, for in-place updates.
pub struct ValueGuard<'a> {
    slot: parking_lot::RwLockWriteGuard<'a, Tensor>,
}

impl ValueGuard<'_> {
    /// Takes the value's storage out (uniquely owned if nothing else holds the tensor).
    pub fn take_storage(&mut self) -> Storage {
        // The placeholder must not share the buffer, or the update would copy.
        // Nobody can observe it: the write lock is held until `put_storage`.
        std::mem::replace(&mut *self.slot, Tensor::scalar(false)).into_storage()
    }

    /// Puts (updated) storage back as the variable's value.
    pub fn put_storage(&mut self, s: Storage) {
        *self.slot = Tensor::from_storage(s);
    }
}

impl std::fmt::Debug for Variable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variable({:?}, {:?})", self.0.name, self.value())
    }
}
