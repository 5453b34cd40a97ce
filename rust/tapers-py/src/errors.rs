//! The one place core errors become Python exceptions.
//!
//! Each `tapers::ErrorKind` maps to a class in `tapers.errors` (which also
//! subclasses the fitting builtin), or to the builtin TensorFlow raises.

use pyo3::exceptions::{
    PyKeyboardInterrupt, PyNotImplementedError, PyOSError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

use tapers::{CallbackError, Error, ErrorKind};

fn error_class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
) -> PyResult<Bound<'py, PyType>> {
    cell.get_or_try_init(py, || {
        let m = py.import("tapers.errors")?;
        Ok::<_, PyErr>(m.getattr(name)?.cast_into::<PyType>()?.unbind())
    })
    .map(|c| c.bind(py).clone())
}

/// A Python exception raised by a callback the core ran (a custom
/// gradient, a control-flow branch, a host effect): carried through the
/// core as the error's payload, and raised again as is by [`to_py`].
pub fn from_callback(e: PyErr) -> Error {
    Error::Callback(CallbackError {
        message: e.to_string(),
        payload: Some(std::sync::Arc::new(e)),
    })
}

/// Converts a core error to the Python exception TensorFlow would raise.
pub fn to_py(err: Error) -> PyErr {
    to_py_named(err, None)
}

/// `to_py` for the error of an op called with `name=`: as in TensorFlow's
/// eager mode, the message ends in ` name: <name>`. A Python exception raised
/// by a callback (a custom gradient) passes through unchanged.
pub fn to_py_named(err: Error, name: Option<&str>) -> PyErr {
    static INVALID: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static EXHAUSTED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static DATA_LOSS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static UNIMPLEMENTED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let msg = match name {
        Some(n) => format!("{err} name: {n}"),
        None => err.to_string(),
    };
    match err.kind() {
        ErrorKind::Runtime => PyRuntimeError::new_err(msg),
        ErrorKind::Value => PyValueError::new_err(msg),
        ErrorKind::Unimplemented => PyNotImplementedError::new_err(msg),
        ErrorKind::Cancelled => PyKeyboardInterrupt::new_err(msg),
        ErrorKind::Callback => {
            if let Error::Callback(cb) = &err {
                if let Some(payload) = &cb.payload {
                    if let Some(e) = payload.downcast_ref::<PyErr>() {
                        return Python::attach(|py| e.clone_ref(py));
                    }
                }
            }
            PyRuntimeError::new_err(msg)
        }
        ErrorKind::Io => PyOSError::new_err(msg),
        kind @ (ErrorKind::InvalidArgument
        | ErrorKind::ResourceExhausted
        | ErrorKind::NotFound
        | ErrorKind::DataLoss
        | ErrorKind::UnimplementedOp) => Python::attach(|py| {
            let (cell, name) = match kind {
                ErrorKind::UnimplementedOp => (&UNIMPLEMENTED, "UnimplementedError"),
                ErrorKind::InvalidArgument => (&INVALID, "InvalidArgumentError"),
                ErrorKind::ResourceExhausted => (&EXHAUSTED, "ResourceExhaustedError"),
                ErrorKind::NotFound => (&NOT_FOUND, "NotFoundError"),
                _ => (&DATA_LOSS, "DataLossError"),
            };
            match error_class(py, cell, name) {
                // OpError(node_def, op, message)
                Ok(cls) => PyErr::from_type(cls, (py.None(), py.None(), msg)),
                Err(e) => e,
            }
        }),
    }
}

/// `?`-friendly conversion of core results.
pub trait IntoPyResult<T> {
    /// Maps the error with [`to_py`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Error> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
