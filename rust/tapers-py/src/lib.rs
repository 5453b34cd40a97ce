//! PyO3 bindings for the `tapers` core: the `tapers._core` extension module.
//! Thin by design: typed argument conversion (`args.rs`), one call helper
//! for the GIL policy (`call.rs`), and error mapping (`errors.rs`); every
//! computation lives in the core crate.
//!
//! `tapers._core` holds what `tapers` re-exports (its `__all__`), with the
//! submodules `math`, `nn`, `linalg` and `random` for TensorFlow's
//! namespaces; names starting with `_` are internals the Python layer calls.

use pyo3::prelude::*;

mod args;
mod call;
mod checkpoint;
mod control;
mod convert;
mod errors;
mod function;
mod host;
mod interrupt;
mod ops;
mod optimizers;
mod tape;
mod tape_stats;
mod tensor;
mod variable;

use ops::{Exports, Ns};

/// mimalloc keeps freed large buffers in the process for reuse, so a training
/// loop does not pay the kernel's page faults for every fresh tensor buffer
/// (glibc hands large blocks back to the OS and maps them again).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    interrupt::init(m.py())?;
    let mut ex = Exports::new(m)?;
    ex.class::<tensor::PyTensor>(&[Ns::Tf])?;
    ex.class::<variable::PyVariable>(&[Ns::Tf])?;
    ops::register(&mut ex)?;
    // The Rust half of `tapers.GradientTape` and the helpers of the Python
    // layer: internals, so underscored here (tape.rs keeps its own names).
    let py = m.py();
    ex.internal(
        Ns::Tf,
        "_GradientTape",
        py.get_type::<tape::PyTape>().as_any(),
    )?;
    ex.internal(
        Ns::Tf,
        "_InitScope",
        py.get_type::<tape::PyInitScope>().as_any(),
    )?;
    ex.internal(
        Ns::Tf,
        "_Tracing",
        py.get_type::<function::PyTracing>().as_any(),
    )?;
    ex.internal(
        Ns::Tf,
        "_Graph",
        py.get_type::<function::PyGraph>().as_any(),
    )?;
    ex.internal(
        Ns::Tf,
        "_FunctionBase",
        py.get_type::<function::PyFunctionBase>().as_any(),
    )?;
    ex.internal(
        Ns::Tf,
        "_Branch",
        py.get_type::<control::PyBranch>().as_any(),
    )?;
    let internals = [
        wrap_pyfunction!(tape::record_custom, m)?,
        wrap_pyfunction!(checkpoint::save_safetensors, m)?,
        wrap_pyfunction!(checkpoint::load_safetensors, m)?,
        wrap_pyfunction!(optimizers::optimizer_step, m)?,
        wrap_pyfunction!(optimizers::optimizer_slots, m)?,
        wrap_pyfunction!(variable::set_name_scope, m)?,
        wrap_pyfunction!(variable::get_name_scope, m)?,
        wrap_pyfunction!(function::trace_start, m)?,
        wrap_pyfunction!(function::set_run_functions_eagerly, m)?,
        wrap_pyfunction!(function::set_intra_op_threads, m)?,
        wrap_pyfunction!(function::intra_op_threads, m)?,
        wrap_pyfunction!(function::run_functions_eagerly, m)?,
        wrap_pyfunction!(host::trace_print, m)?,
        wrap_pyfunction!(host::trace_assert, m)?,
        wrap_pyfunction!(function::is_tracing, m)?,
        wrap_pyfunction!(function::replays_at_once, m)?,
        wrap_pyfunction!(control::trace_branch, m)?,
        wrap_pyfunction!(control::cond, m)?,
        wrap_pyfunction!(control::while_loop, m)?,
    ];
    for f in internals {
        let name: String = f.getattr("__name__")?.extract()?;
        ex.internal(Ns::Tf, &format!("_{name}"), f.as_any())?;
    }
    ex.finish()
}
