//! Variables: named, shared, mutable slots holding an immutable tensor.
//! They live with recording because tapes watch them and record their reads.
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
use crate::op::{Op, OpRef};
use crate::shape::ShapeDisplay;
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
/// let w = Variable::new(Tensor::scalar(2.0f32)).with_name("w");
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
    /// A trainable variable named `"Variable"` (TensorFlow's default name)
    /// holding `initial`; see [`Variable::with_name`] and
    /// [`Variable::trainable`].
    pub fn new(initial: Tensor) -> Variable {
        Variable::with_options(initial, "Variable".to_string(), true)
    }

    fn with_options(initial: Tensor, name: String, trainable: bool) -> Variable {
        let v = Variable(Arc::new(VarInner {
            handle: TensorId::fresh(),
            binding: OnceLock::new(),
            name,
            trainable,
            // The stored value is never recorded on any tape: reads alias it.
            value: RwLock::new(initial),
        }));
        super::trace_created(&v);
        v
    }

    /// This variable under another name. Meant for construction
    /// (`Variable::new(t).with_name("w")`); on a variable that is already
    /// shared, the result is a new variable and the clones keep the old one.
    pub fn with_name(mut self, name: impl Into<String>) -> Variable {
        match Arc::get_mut(&mut self.0) {
            Some(inner) => {
                inner.name = name.into();
                self
            }
            None => Variable::with_options(self.value(), name.into(), self.is_trainable()),
        }
    }

    /// This variable, trainable or not (tapes watch only trainable variables
    /// they see read). Shared variables behave as in [`Variable::with_name`].
    pub fn trainable(mut self, trainable: bool) -> Variable {
        match Arc::get_mut(&mut self.0) {
            Some(inner) => {
                inner.trainable = trainable;
                self
            }
            None => Variable::with_options(self.value(), self.name().to_string(), trainable),
        }
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
    pub fn is_trainable(&self) -> bool {
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
        super::variable_accessed(self);
        let current = self.value();
        let out = current.alias();
        if super::is_recording() {
            super::record_op(
                OpRef::Shared(Arc::new(ReadVariable(self.clone()))),
                &[(self.0.handle, current.dtype())],
                &[&out],
                || Arc::new(|g: &[Tensor], _: &[bool]| Ok(vec![Some(g[0].clone())])),
            );
            super::trace_read(self, &out);
        }
        out
    }

    pub(super) fn check(&self, value: &Tensor) -> Result<()> {
        let cur = self.0.value.read();
        if cur.shape() != value.shape() {
            return Err(Error::VariableMismatch(format!(
                "Cannot assign value to variable ' {}:0': Shape mismatch.The variable shape {}, and the assigned value shape {} are incompatible.",
                self.0.name,
                crate::dims::tuple_string(cur.shape()),
                crate::dims::tuple_string(value.shape())
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
        super::trace_effect(|| Arc::new(super::Assign([self.clone()])), &[value]);
        Ok(())
    }

    /// Applies `f` to the current value and stores the result, atomically with
    /// respect to other updates of this variable.
    pub fn update(&self, f: impl FnOnce(&Tensor) -> Result<Tensor>) -> Result<()> {
        let mut slot = self.0.value.write();
        let new = {
            // Updates are not differentiated (as in TF).
            let _paused = super::RecordingContext::default();
            _paused.enter(|| f(&slot))?
        };
        if new.shape() != slot.shape() || new.dtype() != slot.dtype() {
            drop(slot);
            return self.check(&new);
        }
        *slot = new;
        Ok(())
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

/// A read of a variable: replayed, it reads the variable's value then.
struct ReadVariable(Variable);

impl Op for ReadVariable {
    fn name(&self) -> &'static str {
        "ReadVariableOp"
    }

    fn forward(&self, _inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![self.0.read()])
    }

    fn carries_rows(&self) -> bool {
        true
    }
}
