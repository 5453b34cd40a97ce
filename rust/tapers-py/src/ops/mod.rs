//! The op functions (`tapers.exp`, `tapers.nn.softmax`, ...), one file per
//! family as in the core's `ops/`. Each wrapper takes typed arguments
//! (`crate::args`), runs its core op through `crate::call::call` (the GIL
//! policy and error mapping) and is published by its family's `register`.
//!
//! Where a function is published is said once, in `register`: TensorFlow has
//! many ops in several modules (`tf.exp` is `tf.math.exp`), and each line
//! `export!(ex, [Tf, Math]: exp, ...)` puts the same function object in each
//! listed module of `tapers._core` and in that module's `__all__`, from which
//! the Python modules (`tapers`, `tapers.math`, ...) take their names.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyList};

mod arith;
mod array;
mod compare;
mod complex;
mod conv;
mod create;
mod grad;
mod index;
mod linalg;
mod math;
mod nn;
mod random;
mod reduce;
mod scatter;
mod segment;
mod sort;

/// The `name` entry of every op's docstring (TensorFlow's ops all take it).
macro_rules! name_doc {
    () => {
        "name : str, optional
    Accepted for TensorFlow compatibility; tapers names no ops, so it is
    ignored except in the op's error messages, which end in ``name: ...`` as
    TensorFlow's eager errors do."
    };
}
pub(crate) use name_doc;

/// Defines unary elementwise wrappers, one line each with the modules that
/// publish it: `unary!(exports; [Math, Tf] exp => ops::exp, "Summary.";)`
/// also defines `exports(ex)`, which the file's `register` calls. The
/// parameter is `x`, or the name given after the exports' (TensorFlow's
/// activations name it `features`: `unary!(exports; features; ...)`).
macro_rules! unary {
    ($exports:ident; $([$($ns:ident),+] $name:ident => $f:path, $doc:literal;)*) => {
        $crate::ops::unary!($exports; x; $([$($ns),+] $name => $f, $doc;)*);
    };
    ($exports:ident; $x:ident; $([$($ns:ident),+] $name:ident => $f:path, $doc:literal;)*) => {
        /// Publishes this block's functions in the modules each line names.
        fn $exports(ex: &mut $crate::ops::Exports<'_>) -> pyo3::PyResult<()> {
            $($crate::ops::export!(ex, [$($ns),+]: $name);)*
            Ok(())
        }
        $(
        #[doc = concat!($doc, "

Parameters
----------
", stringify!($x), " : Tensor-like
    A Tensor, Variable, Python number, nested list or numpy array.
", $crate::ops::name_doc!(), "

Returns
-------
Tensor
    Same shape as ``", stringify!($x), "``. Recorded on active tapes, so it is differentiable
    where TensorFlow's op is.")]
        #[pyo3::pyfunction]
        #[pyo3(signature = ($x, name=None))]
        pub fn $name(
            py: pyo3::Python<'_>,
            $x: $crate::args::TensorArg,
            name: Option<$crate::args::Name>,
        ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
            let t = $x.0;
            $crate::call::call(py, name, $crate::call::Work::of(&[&t]), || $f(&t))
        }
    )*};
}
pub(crate) use unary;

/// Defines binary elementwise wrappers (NumPy broadcasting), one line each
/// with the modules that publish it and TensorFlow's argument names:
/// `binary!(exports; [Math, Tf] add(x, y) => ops::add, "Summary.";)` (and
/// `exports(ex)`, as for [`unary!`]).
macro_rules! binary {
    ($exports:ident; $([$($ns:ident),+] $name:ident($x:ident, $y:ident) => $f:path, $doc:literal;)*) => {
        /// Publishes this block's functions in the modules each line names.
        fn $exports(ex: &mut $crate::ops::Exports<'_>) -> pyo3::PyResult<()> {
            $($crate::ops::export!(ex, [$($ns),+]: $name);)*
            Ok(())
        }
        $(
        #[doc = concat!($doc, "

Parameters
----------
", stringify!($x), ", ", stringify!($y), " : Tensor-like
    Broadcast together with NumPy's rules. A Python number takes the other
    operand's dtype; two tensors of different dtypes are an error
    (``InvalidArgumentError``), as in TensorFlow.
", $crate::ops::name_doc!(), "

Returns
-------
Tensor
    The broadcast shape. Recorded on active tapes where TensorFlow's op is
    differentiable.")]
        #[pyo3::pyfunction]
        #[pyo3(signature = ($x, $y, name=None))]
        pub fn $name(
            py: pyo3::Python<'_>,
            $x: &pyo3::Bound<'_, pyo3::PyAny>,
            $y: &pyo3::Bound<'_, pyo3::PyAny>,
            name: Option<$crate::args::Name>,
        ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
            let (a, b) = $crate::convert::binary_operands($x, $y)?;
            $crate::call::call(py, name, $crate::call::Work::broadcast(&[&a, &b]), || $f(&a, &b))
        }
    )*};
}
pub(crate) use binary;

/// Publishes functions in modules of `tapers._core`:
/// `export!(ex, [Tf, Math]: exp, log)`. The function's `__module__` is the
/// first module listed.
macro_rules! export {
    ($ex:expr, [$($ns:ident),+]: $($f:path),+ $(,)?) => {{
        use $crate::ops::Ns::*;
        let to = [$($ns),+];
        $( $ex.function(pyo3::wrap_pyfunction!($f, $ex.module(to[0]))?, &to)?; )+
    }};
}
pub(crate) use export;

/// The modules of `tapers._core`, each re-exported by the Python module of
/// the same TensorFlow name (`_core.math` by `tapers.math`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ns {
    /// `tapers._core` itself, re-exported by `tapers` (TensorFlow's `tf.`).
    Tf,
    Math,
    Nn,
    Linalg,
    Random,
    /// `tf.math.special`, re-exported by `tapers.math.special`.
    Special,
}

impl Ns {
    /// In declaration order: `ns as usize` indexes `Exports`' vectors.
    const ALL: [Ns; 6] = [
        Ns::Tf,
        Ns::Math,
        Ns::Nn,
        Ns::Linalg,
        Ns::Random,
        Ns::Special,
    ];

    /// The submodule's attribute name (None for the root).
    fn submodule(self) -> Option<&'static str> {
        match self {
            Ns::Tf => None,
            Ns::Math => Some("math"),
            Ns::Nn => Some("nn"),
            Ns::Linalg => Some("linalg"),
            Ns::Random => Some("random"),
            Ns::Special => Some("special"),
        }
    }
}

/// The modules being filled, and the public names of each (its `__all__`).
pub struct Exports<'py> {
    modules: Vec<Bound<'py, PyModule>>,
    names: Vec<Vec<String>>,
}

impl<'py> Exports<'py> {
    /// Makes the submodules of `root` (`tapers._core`), named as their full
    /// dotted path so their functions' `__module__` says where they live.
    pub fn new(root: &Bound<'py, PyModule>) -> PyResult<Self> {
        let base = root.name()?;
        let modules = Ns::ALL
            .iter()
            .map(|ns| match ns.submodule() {
                None => Ok(root.clone()),
                Some(sub) => PyModule::new(root.py(), &format!("{base}.{sub}")),
            })
            .collect::<PyResult<_>>()?;
        Ok(Exports {
            modules,
            names: vec![Vec::new(); Ns::ALL.len()],
        })
    }

    /// The module of `ns`.
    pub fn module(&self, ns: Ns) -> &Bound<'py, PyModule> {
        &self.modules[ns as usize]
    }

    /// Publishes `obj` as `name` in each of `to`. (`setattr`, not PyO3's
    /// `add`, which would also append to `__all__`: `finish` writes that.)
    fn publish(&mut self, name: &str, obj: &Bound<'py, PyAny>, to: &[Ns]) -> PyResult<()> {
        for &ns in to {
            let names = &mut self.names[ns as usize];
            if names.iter().any(|n| n == name) {
                return Err(PyRuntimeError::new_err(format!(
                    "tapers._core: two functions published as {name:?} in {ns:?}"
                )));
            }
            names.push(name.to_owned());
            self.module(ns).setattr(name, obj)?;
        }
        Ok(())
    }

    /// Publishes a function under its Python name.
    pub fn function(&mut self, f: Bound<'py, PyCFunction>, to: &[Ns]) -> PyResult<()> {
        let name: String = f.getattr("__name__")?.extract()?;
        self.publish(&name, f.as_any(), to)
    }

    /// Publishes a class under its Python name.
    pub fn class<T: pyo3::PyTypeInfo>(&mut self, to: &[Ns]) -> PyResult<()> {
        let cls = self.module(to[0]).py().get_type::<T>();
        let name: String = cls.name()?.extract()?;
        self.publish(&name, cls.as_any(), to)
    }

    /// Adds a binding internal (what the Python layer calls, not a public
    /// name): its name must start with an underscore, and it stays out of
    /// `__all__`.
    pub fn internal(&self, ns: Ns, name: &str, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        debug_assert!(name.starts_with('_'), "internal names start with '_'");
        self.module(ns).setattr(name, obj)
    }

    /// Writes each module's `__all__` (sorted) and attaches the submodules to
    /// the root, also in `sys.modules`, so `import tapers._core.math` works as
    /// well as attribute access: PyO3's guide notes that its submodules are
    /// not packages, and the import system finds them only in `sys.modules`.
    pub fn finish(self) -> PyResult<()> {
        let root = &self.modules[Ns::Tf as usize];
        let py = root.py();
        let sys_modules = py.import("sys")?.getattr("modules")?;
        for (ns, (module, mut names)) in Ns::ALL.iter().zip(self.modules.iter().zip(self.names)) {
            names.sort();
            module.setattr("__all__", PyList::new(py, names)?)?;
            if let Some(sub) = ns.submodule() {
                root.setattr(sub, module)?;
                sys_modules.set_item(module.name()?, module)?;
            }
        }
        Ok(())
    }
}

/// Publishes every op family.
pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    arith::register(ex)?;
    compare::register(ex)?;
    complex::register(ex)?;
    math::register(ex)?;
    reduce::register(ex)?;
    create::register(ex)?;
    array::register(ex)?;
    index::register(ex)?;
    grad::register(ex)?;
    linalg::register(ex)?;
    nn::register(ex)?;
    conv::register(ex)?;
    random::register(ex)?;
    sort::register(ex)?;
    segment::register(ex)?;
    scatter::register(ex)?;
    Ok(())
}
