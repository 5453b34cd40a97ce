//! What the engine reports about a tape's last backward passes.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::tape::PyTape;

#[pymethods]
impl PyTape {
    /// What the backward passes of the last ``gradient``/``jacobian`` call on
    /// this tape did (a tapers extension, not in TensorFlow): a dict with
    /// ``passes`` (backward passes run), ``row_passes`` (of those, vectorized
    /// Jacobian passes carrying many rows), ``rules`` (gradient rules run),
    /// ``fused_regions`` and ``fused_ops`` (large elementwise regions run as
    /// one fused rule, and the recorded ops they held), ``sparse_gathers``
    /// (gathers of rows whose gradient stayed an ``IndexedSlices``).
    fn last_pass_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.tape.last_pass_stats();
        let d = PyDict::new(py);
        d.set_item("passes", s.passes)?;
        d.set_item("row_passes", s.row_passes)?;
        d.set_item("rules", s.rules)?;
        d.set_item("fused_regions", s.fused_regions)?;
        d.set_item("fused_ops", s.fused_ops)?;
        d.set_item("sparse_gathers", s.sparse_gathers)?;
        Ok(d)
    }
}
