//! # tapers
//!
//! Reverse-mode automatic differentiation with TensorFlow's `GradientTape`
//! semantics, on immutable ndarray-backed tensors.
//!
//! * [`Tensor`]: immutable, cheaply clonable, `Send + Sync`, with the ops as
//!   methods (`x.matmul(&w)?.tanh()?.sum_all()?`).
//! * [`GradientTape`]: records ops run on the current thread while its guard
//!   lives; [`GradientTape::gradient`] runs the backward pass.
//! * [`Variable`]: shared mutable state, watched automatically when read.
//! * [`ops`]: the differentiable operations. Every gradient rule is written
//!   with these same ops, so nested tapes give higher derivatives.
//! * [`op`]: what an op is; every recorded entry carries its op's
//!   description.
//!
//! The layers and the path of one op through them are described in
//! `ARCHITECTURE.md` beside this crate's `Cargo.toml`.
//!
//! ```
//! use tapers::{GradientTape, Tensor};
//! # fn main() -> tapers::Result<()> {
//! let x = Tensor::scalar(3.0f64);
//! let outer = GradientTape::new();
//! let _o = outer.record()?;
//! outer.watch(&x);
//! let inner = GradientTape::new();
//! let y = {
//!     let _i = inner.record()?;
//!     inner.watch(&x);
//!     x.mul(&x)?.mul(&x)? // x^3
//! };
//! let dy = inner.gradient(&[y], &[(&x).into()])?[0].clone().unwrap(); // 3x^2
//! drop(_o);
//! let d2y = outer.gradient(&[dy], &[(&x).into()])?[0].clone().unwrap(); // 6x
//! assert_eq!(d2y.to_vec::<f64>()?, vec![18.0]);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]
// Unsafe code is refused everywhere in the core but in `kernels::uninit` (one
// `Vec::set_len` call, once per output, next to its proof, with tests that
// miri can run); the Python binding has one more block, next to its own
// proof.
#![deny(unsafe_code)]

// The layers, bottom to top; a module imports only from layers below it.
// Vocabulary:
mod dims;
pub mod dtype;
mod error;
mod shape;
// Storage and kernels (the only place that knows about cores):
pub mod kernels;
mod tensor;
// What an op is, and recording:
pub mod op;
mod record;
// The ops, one family per module, each op described once:
pub mod ops;
pub mod random;
// The engine:
mod autodiff;
// The handles users hold, and what is built on them:
pub mod checkpoint;
pub mod graph;
pub mod operators;
pub mod optim;
mod tape;
mod variable;

pub use autodiff::{Explanation, Gradient, IndexedSlices, PassStats, Source, Unconnected};
pub use dims::{tuple_string, Dims, ShapeDisplay};
pub use dtype::{DType, Num, Scalar, ToF64};
pub use error::{CallbackError, Error, ErrorKind, Result};
pub use record::{
    is_recording, record_op, BackwardFn, CutReason, Effect, Linear, RecordingContext,
};
pub use shape::{broadcast_shapes, normalize_axis};
pub use tape::{GradientTape, PausedGuard, PendingSpend, RecordingGuard, TapeStats};
pub use tensor::{Element, Storage, Tensor, TensorId};
pub use variable::{ValueGuard, Variable};

/// The README's Rust example runs as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
