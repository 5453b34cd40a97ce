//! safetensors checkpoint files: the file format lives in the core
//! (`tapers::checkpoint`); this only converts names, tensors and metadata.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::prelude::*;

use crate::convert::{to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;

/// Writes `(name, tensor)` pairs and string metadata to a safetensors file.
#[pyfunction]
#[pyo3(signature = (path, items, metadata=None))]
pub fn save_safetensors(
    py: Python<'_>,
    path: PathBuf,
    items: Vec<(String, Bound<'_, PyAny>)>,
    metadata: Option<HashMap<String, String>>,
) -> PyResult<()> {
    let tensors = items
        .into_iter()
        .map(|(n, t)| Ok((n, to_tensor(&t, Want::Any)?)))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| tapers::checkpoint::save(&path, &tensors, metadata))
        .py()
}

/// What `load_safetensors` returns: `([(name, Tensor)], metadata)`.
type Loaded = (Vec<(String, Py<PyAny>)>, HashMap<String, String>);

/// Reads a safetensors file: `([(name, Tensor)], metadata)`.
#[pyfunction]
pub fn load_safetensors(py: Python<'_>, path: PathBuf) -> PyResult<Loaded> {
    let loaded = py.detach(|| tapers::checkpoint::load(&path)).py()?;
    let tensors = loaded
        .tensors
        .into_iter()
        .map(|(n, t)| Ok((n, PyTensor::wrap(py, t)?.into_any().unbind())))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((tensors, loaded.metadata))
}
