//! PyO3 bindings for the `tapers` core: the `tapers._core` extension module.
//! Thin by design: argument conversion, GIL release, and error mapping
//! (all in `errors.rs`); every computation lives in the core crate.

use pyo3::prelude::*;

mod checkpoint;
mod convert;
mod errors;
mod interrupt;
mod nn;
mod ops;
mod optimizers;
mod random;
mod tape;
mod tensor;
mod variable;

/// mimalloc keeps freed large buffers in the process for reuse, so a training
/// loop does not pay the kernel's page faults for every fresh tensor buffer
/// (glibc hands large blocks back to the OS and maps them again).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    interrupt::init(m.py())?;
    m.add_class::<tensor::PyTensor>()?;
    m.add_class::<variable::PyVariable>()?;
    m.add_class::<tape::PyTape>()?;
    m.add_function(wrap_pyfunction!(tape::record_custom, m)?)?;
    m.add_function(wrap_pyfunction!(checkpoint::save_safetensors, m)?)?;
    m.add_function(wrap_pyfunction!(checkpoint::load_safetensors, m)?)?;
    m.add_class::<random::PyGenerator>()?;
    m.add_function(wrap_pyfunction!(optimizers::optimizer_step, m)?)?;
    m.add_function(wrap_pyfunction!(optimizers::optimizer_slots, m)?)?;
    ops::register(m)?;
    nn::register(m)?;
    Ok(())
}
