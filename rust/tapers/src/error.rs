//! The one error type of the crate.
//!
//! Every fallible public function returns [`Result`]. Each variant corresponds to
//! one TensorFlow error class, so a binding can map variants to exceptions in one
//! place (see `Error::kind`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::dims::ShapeDisplay;
use crate::dtype::DType;

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in tapers.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Two shapes that must agree (or broadcast) do not.
    #[error("Incompatible shapes: {lhs} vs. {rhs} [Op:{op}]")]
    IncompatibleShapes {
        /// Name of the operation.
        op: &'static str,
        /// Shape of the first operand.
        lhs: ShapeDisplay,
        /// Shape of the second operand.
        rhs: ShapeDisplay,
    },
    /// Two operands have different dtypes; tapers never promotes implicitly.
    #[error("cannot compute {op} as input #{index}(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}]", expected.kernel_name(), actual.kernel_name())]
    DTypeMismatch {
        /// Name of the operation.
        op: &'static str,
        /// Zero-based index of the offending input.
        index: usize,
        /// The dtype the op expected (that of input #0).
        expected: DType,
        /// The dtype it received.
        actual: DType,
    },
    /// The op has no kernel for this dtype.
    #[error("Value for attr 'T' of {dtype} is not in the list of allowed values for {op}: {allowed} [Op:{op}]")]
    UnsupportedDType {
        /// Name of the operation.
        op: &'static str,
        /// The dtype it received.
        dtype: DType,
        /// Human-readable list of accepted dtypes.
        allowed: &'static str,
    },
    /// Any other invalid argument (bad axis, bad reshape, wrong number of values...).
    #[error("{0}")]
    InvalidArgument(String),
    /// A value that cannot be stored in a variable (wrong shape or dtype); TF raises `ValueError`.
    #[error("{0}")]
    VariableMismatch(String),
    /// A plain `ValueError` from an op (TF's `lstsq` gradient with `fast=False`).
    #[error("{0}")]
    Value(String),
    /// Something TensorFlow refuses with `NotImplementedError` (the QR and SVD
    /// gradients' unsupported shapes).
    #[error("{0}")]
    Unimplemented(String),
    /// An op whose kernel refuses its input (TF's `UnimplementedError`, as
    /// `Tile` on uint16).
    #[error("{0}")]
    UnimplementedOp(String),
    /// A traced graph does not apply to this call: a value the caller read
    /// while tracing differs now, or a result whose shape depends on values
    /// (`tf.where`'s) has another shape, here or in a `cond` branch or loop
    /// body the graph runs. Nothing was written; the caller traces again
    /// (`Graph::try_run` in the graph layer reports it as `Ok(None)`).
    #[error("a value read while tracing (or the shape of a value-dependent result such as tf.where's) differs in this call: the graph no longer applies (trace again)")]
    StaleGraph,
    /// A non-persistent tape was asked for a second set of gradients.
    #[error("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)")]
    TapeSpent,
    /// A tape was entered, exited or reset in the wrong state (TF raises `ValueError`).
    #[error("{0}")]
    TapeState(String),
    /// `stop_recording` on a tape that holds no recording (TF raises `RuntimeError`).
    #[error("Trying to stop recording a tape which is not recording.")]
    NotRecording,
    /// A user callback (for example a custom gradient) failed.
    #[error("{0}")]
    Callback(CallbackError),
    /// A file or entry that does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A file whose contents are corrupt or truncated.
    #[error("{0}")]
    DataLoss(String),
    /// An operating-system I/O failure.
    #[error("{0}")]
    Io(String),
    /// The backward pass was cancelled through its flag (for example by a
    /// keyboard interrupt in the Python binding).
    #[error("the backward pass was cancelled")]
    Cancelled,
    /// An allocation that cannot be satisfied.
    #[error("OOM when allocating tensor with shape {shape} and type {dtype}")]
    ResourceExhausted {
        /// Requested shape.
        shape: ShapeDisplay,
        /// Requested dtype.
        dtype: DType,
    },
}

/// The TensorFlow error class a variant belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `InvalidArgumentError` (a `ValueError`).
    InvalidArgument,
    /// A plain `RuntimeError`, as TF raises for a spent tape.
    Runtime,
    /// A plain `ValueError`, as TF raises for entering/exiting a tape wrongly.
    Value,
    /// `NotImplementedError`.
    Unimplemented,
    /// `UnimplementedError` (an `OpError` and a `NotImplementedError`).
    UnimplementedOp,
    /// `ResourceExhaustedError` (a `MemoryError`).
    ResourceExhausted,
    /// An error raised by user code, passed through.
    Callback,
    /// Work stopped on request (Python: `KeyboardInterrupt`).
    Cancelled,
    /// `NotFoundError` (a `LookupError`).
    NotFound,
    /// `DataLossError`: a corrupt or truncated file.
    DataLoss,
    /// `OSError`.
    Io,
}

impl Error {
    /// The TensorFlow error class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::IncompatibleShapes { .. }
            | Error::DTypeMismatch { .. }
            | Error::UnsupportedDType { .. }
            | Error::InvalidArgument(_)
            | Error::StaleGraph => ErrorKind::InvalidArgument,
            Error::TapeSpent | Error::NotRecording => ErrorKind::Runtime,
            Error::TapeState(_) | Error::VariableMismatch(_) | Error::Value(_) => ErrorKind::Value,
            Error::Unimplemented(_) => ErrorKind::Unimplemented,
            Error::UnimplementedOp(_) => ErrorKind::UnimplementedOp,
            Error::ResourceExhausted { .. } => ErrorKind::ResourceExhausted,
            Error::Callback(_) => ErrorKind::Callback,
            Error::Cancelled => ErrorKind::Cancelled,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::DataLoss(_) => ErrorKind::DataLoss,
            Error::Io(_) => ErrorKind::Io,
        }
    }

    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }
}

/// An error raised by user code called from inside tapers (a custom gradient).
///
/// The payload lets a binding carry its own exception object through the core and
/// re-raise it unchanged.
#[derive(Clone)]
pub struct CallbackError {
    /// Human-readable message.
    pub message: String,
    /// The original error object, if the caller wants it back.
    pub payload: Option<Arc<dyn Any + Send + Sync>>,
}

impl CallbackError {
    /// A callback error with a message and no payload.
    pub fn new(message: impl Into<String>) -> Self {
        CallbackError {
            message: message.into(),
            payload: None,
        }
    }
}

impl fmt::Debug for CallbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallbackError")
            .field("message", &self.message)
            .finish()
    }
}

impl fmt::Display for CallbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
