//! # tapers
//!
//! Reverse-mode automatic differentiation with TensorFlow's `GradientTape`
//! semantics, on immutable ndarray-backed tensors.
//!
//! * [`Tensor`]: immutable, cheaply clonable, `Send + Sync`.
//! * [`GradientTape`]: records ops run on the current thread while its guard
//!   lives; [`GradientTape::gradient`] runs the backward pass.
//! * [`Variable`]: shared mutable state, watched automatically when read.
//! * [`ops`]: the differentiable operations. Every gradient rule is written
//!   with these same ops, so nested tapes give higher derivatives.
//!
//! ```
//! use tapers::{ops, GradientTape, Tensor};
//! let x = Tensor::scalar(3.0f64);
//! let outer = GradientTape::new();
//! let _o = outer.record().unwrap();
//! outer.watch(&x);
//! let inner = GradientTape::new();
//! let y = {
//!     let _i = inner.record().unwrap();
//!     inner.watch(&x);
//!     ops::mul(&ops::mul(&x, &x).unwrap(), &x).unwrap() // x^3
//! };
//! let dy = inner.gradient(&[y], &[(&x).into()]).unwrap()[0].clone().unwrap(); // 3x^2
//! drop(_o);
//! let d2y = outer.gradient(&[dy], &[(&x).into()]).unwrap()[0].clone().unwrap(); // 6x
//! assert_eq!(d2y.to_vec::<f64>().unwrap(), vec![18.0]);
//! ```
#![deny(missing_docs)]
// Unsafe code is refused everywhere in the core but in `uninit` (one
// `Vec::set_len` call, once per output, next to its proof, with tests that
// miri can run); the Python binding has one more block, next to its own
// proof.
#![deny(unsafe_code)]

mod backward;
pub mod checkpoint;
mod dtype;
mod error;
mod fuse;
mod inspect;
mod jacobian;
pub mod kernels;
pub mod operators;
pub mod ops;
pub mod optim;
pub mod random;
mod shape;
mod tape;
mod tensor;
mod uninit;
mod variable;

pub use backward::Unconnected;
pub use dtype::DType;
pub use error::{CallbackError, Error, ErrorKind, Result};
pub use inspect::Explanation;
pub use shape::{broadcast_shapes, normalize_axis, tuple_string, Dims, ShapeDisplay};
pub use tape::{
    record_op, BackwardFn, CutReason, GradientTape, PausedGuard, PendingSpend, RecordingContext,
    RecordingGuard, Source,
};
pub use tensor::{Element, Storage, Tensor, TensorId};
pub use variable::Variable;
