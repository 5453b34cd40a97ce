//! Typed arguments of the op wrappers.
//!
//! Each type converts one kind of Python argument with PyO3's `FromPyObject`,
//! so a wrapper's signature says what it accepts (`shape: Shape`,
//! `axis: Option<Axes>`, `output_type: Option<OutputType>`) and every op
//! reports a bad value the same way: the message names the argument's role and
//! shows the value, and PyO3 adds a note naming the parameter it was reading.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use tapers::{ops, DType, Tensor};

use crate::convert::{parse_dtype, to_tensor, Want};
use crate::errors::IntoPyResult;
use crate::tensor::PyTensor;
use crate::variable::PyVariable;

fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr().map(|r| r.to_string()).unwrap_or_default()
}

/// The ints of an int, a sequence of ints, an integer Tensor or Variable, or a
/// shape object with `as_list()`; `what` names the argument in errors.
fn ints(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<isize>> {
    if let Ok(v) = obj.extract::<isize>() {
        return Ok(vec![v]);
    }
    if obj.is_instance_of::<PyTensor>() || obj.is_instance_of::<PyVariable>() {
        // Values that become attributes: a guard inside `tapers.function`.
        let t = crate::tensor::read_out(obj)?;
        if !t.dtype().is_integer() {
            return Err(PyTypeError::new_err(format!(
                "{what} must be integers, got a {} tensor",
                t.dtype()
            )));
        }
        let t = ops::cast(&t, DType::I64).py()?;
        return Ok(t
            .to_vec::<i64>()
            .py()?
            .into_iter()
            .map(|v| v as isize)
            .collect());
    }
    if let Ok(v) = obj.extract::<Vec<isize>>() {
        return Ok(v);
    }
    if obj.hasattr("as_list")? {
        if let Ok(v) = obj.call_method0("as_list")?.extract::<Vec<isize>>() {
            return Ok(v);
        }
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be an int or a list of ints, got {}",
        repr(obj)
    )))
}

/// `ints`, each at least 0; `err` builds the message for a negative entry.
fn counts(v: Vec<isize>, err: impl Fn(isize, &[isize]) -> PyErr) -> PyResult<Vec<usize>> {
    v.iter()
        .map(|&d| usize::try_from(d).map_err(|_| err(d, &v)))
        .collect()
}

/// TensorFlow's `InvalidArgumentError` with `msg`: what a negative or
/// out-of-range size argument raises (never `OverflowError`).
pub fn invalid(msg: String) -> PyErr {
    crate::errors::to_py(tapers::Error::InvalidArgument(msg))
}

/// A size argument (a depth, a number of rows, a count): any Python int,
/// checked by the wrapper against TensorFlow's rule with TensorFlow's message
/// ([`Size::at_least`]), so a negative value is `InvalidArgumentError`, not
/// `OverflowError`.
pub struct Size(pub isize);

impl FromPyObject<'_, '_> for Size {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "expected an int, got {}",
                repr(&obj)
            )));
        }
        match ints(&obj, "size")?.as_slice() {
            [v] => Ok(Size(*v)),
            v => Err(PyTypeError::new_err(format!("expected an int, got {v:?}"))),
        }
    }
}

impl Size {
    /// The value, if at least `min`; otherwise `InvalidArgumentError(msg(value))`.
    pub fn at_least(&self, min: isize, msg: impl FnOnce(isize) -> String) -> PyResult<usize> {
        if self.0 < min {
            return Err(invalid(msg(self.0)));
        }
        Ok(self.0 as usize)
    }
}

/// Axes to reduce or normalize over (`axis=`): an int or a list of ints,
/// negative counting from the end.
pub struct Axes(pub Vec<isize>);

impl FromPyObject<'_, '_> for Axes {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ints(&obj, "axis").map(Axes)
    }
}

/// One axis: an int, or a one-element list or tensor (TensorFlow takes both).
pub struct Axis(pub isize);

impl FromPyObject<'_, '_> for Axis {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match ints(&obj, "axis")?.as_slice() {
            [a] => Ok(Axis(*a)),
            v => Err(PyTypeError::new_err(format!(
                "axis must be a single integer, got {v:?}"
            ))),
        }
    }
}

/// A permutation of axes (`tf.transpose`'s `perm`); negative entries count
/// from the end.
pub struct Perm(pub Vec<isize>);

impl FromPyObject<'_, '_> for Perm {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ints(&obj, "perm").map(Perm)
    }
}

impl Perm {
    /// The axes as indices into a tensor of rank `rank`.
    pub fn resolve(&self, rank: usize) -> PyResult<Vec<usize>> {
        self.0
            .iter()
            .map(|&v| {
                let a = if v < 0 { v + rank as isize } else { v };
                // TF's Transpose: InvalidArgumentError.
                usize::try_from(a).map_err(|_| {
                    invalid(format!("{a} is out of range [0 .. {rank}) [Op:Transpose]"))
                })
            })
            .collect()
    }
}

/// A shape: non-negative dimensions, from a list, a tuple, an integer
/// tensor or a `TensorShape`.
pub struct Shape(pub Vec<usize>);

impl FromPyObject<'_, '_> for Shape {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        // TF's InvalidArgumentError and message (Fill, BroadcastTo, the random ops).
        counts(ints(&obj, "shape")?, |d, _| {
            invalid(format!("Dimension {d} must be >= 0"))
        })
        .map(Shape)
    }
}

/// A shape to reshape to: one entry may be -1 (inferred from the rest).
pub struct NewShape(pub Vec<isize>);

impl FromPyObject<'_, '_> for NewShape {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ints(&obj, "shape").map(NewShape)
    }
}

/// Repetitions per axis (`tf.tile`'s `multiples`), each at least 0.
pub struct Multiples(pub Vec<usize>);

impl FromPyObject<'_, '_> for Multiples {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let v = ints(&obj, "multiples")?;
        if let Some((i, d)) = v.iter().enumerate().find(|(_, &d)| d < 0) {
            return Err(invalid(format!(
                "Expected multiples[{i}] >= 0, but got {d} [Op:Tile]"
            )));
        }
        Ok(Multiples(v.into_iter().map(|d| d as usize).collect()))
    }
}

/// `tf.split`'s `num_or_size_splits`: a number of equal pieces, or the size
/// of each piece (one may be -1, the rest of the axis).
pub enum Splits {
    Count(usize),
    Sizes(Vec<isize>),
}

impl FromPyObject<'_, '_> for Splits {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if let Ok(n) = obj.extract::<isize>() {
            if n < 1 {
                return Err(invalid(format!(
                    "Value for attr 'num_split' of {n} must be at least minimum 1"
                )));
            }
            return Ok(Splits::Count(n as usize));
        }
        ints(&obj, "num_or_size_splits").map(Splits::Sizes)
    }
}

/// `tf.tensordot`'s `axes`: `n` (the last `n` axes of `a` with the first `n`
/// of `b`) or a pair of axis lists.
pub enum ContractAxes {
    Last(usize),
    Lists(Vec<isize>, Vec<isize>),
}

impl FromPyObject<'_, '_> for ContractAxes {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if let Ok(n) = obj.extract::<usize>() {
            return Ok(ContractAxes::Last(n));
        }
        let pair: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        match pair.as_slice() {
            [a, b] => Ok(ContractAxes::Lists(ints(a, "axes")?, ints(b, "axes")?)),
            _ => Err(PyValueError::new_err(
                "tensordot: axes must be an int or a pair of lists",
            )),
        }
    }
}

/// `tf.pad`'s `paddings`: `[[before, after], ...]`, one pair per axis, from
/// nested lists or an integer tensor of shape `(rank, 2)`.
pub struct Paddings(pub Vec<(usize, usize)>);

impl Paddings {
    /// The shape of `t` padded by these amounts (saturating).
    pub fn padded_numel(&self, t: &Tensor) -> usize {
        t.shape()
            .iter()
            .zip(&self.0)
            .fold(1usize, |n, (&d, &(a, b))| {
                n.saturating_mul(d.saturating_add(a).saturating_add(b))
            })
    }
}

impl FromPyObject<'_, '_> for Paddings {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let rows: Option<Vec<Vec<isize>>> =
            if obj.is_instance_of::<PyTensor>() || obj.is_instance_of::<PyVariable>() {
                let flat = ints(&obj, "paddings")?;
                Some(flat.chunks(2).map(<[isize]>::to_vec).collect())
            } else {
                obj.extract().ok()
            };
        let bad = |r: &[Vec<isize>]| {
            PyValueError::new_err(format!(
                "paddings must be [[before, after], ...] of non-negative ints, got {r:?}"
            ))
        };
        let Some(r) = &rows else {
            return Err(PyTypeError::new_err(format!(
                "paddings must be [[before, after], ...] of non-negative ints, got {}",
                repr(&obj)
            )));
        };
        r.iter()
            .map(|p| match p.as_slice() {
                [a, b] if *a >= 0 && *b >= 0 => Ok((*a as usize, *b as usize)),
                // TF's class and message for a negative amount.
                [a, b] => Err(invalid(format!(
                    "Paddings must be non-negative: {a} {b} [Op:Pad]"
                ))),
                _ => Err(bad(r)),
            })
            .collect::<PyResult<_>>()
            .map(Paddings)
    }
}

/// A dtype: a `tapers` dtype, its name, or anything numpy reads as one.
pub struct DTypeArg(pub DType);

impl FromPyObject<'_, '_> for DTypeArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        parse_dtype(&obj).map(DTypeArg)
    }
}

/// An optional dtype argument, or `default` when it is None.
pub fn dtype_or(d: Option<DTypeArg>, default: DType) -> DType {
    d.map_or(default, |d| d.0)
}

fn index_dtype(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<DType> {
    match parse_dtype(obj)? {
        d @ (DType::I32 | DType::I64) => Ok(d),
        d => Err(PyTypeError::new_err(format!(
            "{what} must be int32 or int64, got {}",
            d.name()
        ))),
    }
}

/// `tf.argmax`'s `output_type`: int32 or int64.
pub struct OutputType(pub DType);

impl FromPyObject<'_, '_> for OutputType {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        index_dtype(&obj, "output_type").map(OutputType)
    }
}

/// `tf.shape`'s `out_type`: int32 or int64.
pub struct OutType(pub DType);

impl FromPyObject<'_, '_> for OutType {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        index_dtype(&obj, "out_type").map(OutType)
    }
}

/// A 2-D window parameter of the NHWC ops: an int, a pair, or `[1, h, w, 1]`,
/// each at least 1; `what` names it in errors.
fn window(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<[usize; 2]> {
    let v = ints(obj, what)?;
    // TF's kernels refuse a zero or negative window with InvalidArgumentError.
    let u = |x: isize| match usize::try_from(x) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(invalid(format!("{what} must be positive, got {v:?}"))),
    };
    match v.as_slice() {
        [a] => Ok([u(*a)?, u(*a)?]),
        [a, b] | [1, a, b, 1] => Ok([u(*a)?, u(*b)?]),
        _ => Err(PyValueError::new_err(format!(
            "{what} must be an int, a pair, or [1, h, w, 1]; got {v:?}"
        ))),
    }
}

/// The window size of a pooling op (`ksize`).
pub struct KSize(pub [usize; 2]);

impl FromPyObject<'_, '_> for KSize {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        window(&obj, "ksize").map(KSize)
    }
}

/// The step between windows (`strides`).
pub struct Strides(pub [usize; 2]);

impl FromPyObject<'_, '_> for Strides {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        window(&obj, "strides").map(Strides)
    }
}

/// The spacing of a filter's taps (`dilations`).
pub struct Dilations(pub [usize; 2]);

impl FromPyObject<'_, '_> for Dilations {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        window(&obj, "dilations").map(Dilations)
    }
}

/// `padding="SAME"` or `"VALID"` (any case).
pub struct Padding(pub ops::Padding);

impl FromPyObject<'_, '_> for Padding {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let p: String = obj.extract()?;
        match p.to_ascii_uppercase().as_str() {
            "SAME" => Ok(Padding(ops::Padding::Same)),
            "VALID" => Ok(Padding(ops::Padding::Valid)),
            _ => Err(PyValueError::new_err(format!(
                "padding must be 'SAME' or 'VALID', got {p:?}"
            ))),
        }
    }
}

/// `data_format` of the image ops: tapers has channels-last `"NHWC"` only.
pub struct Nhwc;

impl FromPyObject<'_, '_> for Nhwc {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match obj.extract::<String>()?.as_str() {
            "NHWC" => Ok(Nhwc),
            f => Err(PyValueError::new_err(format!(
                "tapers supports data_format='NHWC' only, got {f:?}"
            ))),
        }
    }
}

/// `tf.nn.bias_add`'s `data_format`: channels last (`"NHWC"` or `"N...C"`).
pub struct ChannelsLast;

impl FromPyObject<'_, '_> for ChannelsLast {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        match obj.extract::<String>()?.as_str() {
            "NHWC" | "N...C" => Ok(ChannelsLast),
            f => Err(PyValueError::new_err(format!(
                "tapers.nn.bias_add supports channels-last data only, got {f:?}"
            ))),
        }
    }
}

/// `tf.norm`'s `ord`: a vector norm. A number is remembered as written, since
/// over a pair of axes TensorFlow reads 1, 2 and inf as matrix norms.
pub struct Ord {
    pub ord: ops::NormOrd,
    pub number: Option<String>,
    /// `"fro"`: TensorFlow accepts it over a pair of axes only.
    pub matrix_only: bool,
}

impl FromPyObject<'_, '_> for Ord {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        if let Ok(s) = obj.cast::<PyString>() {
            return match s.to_cow()?.as_ref() {
                s @ ("euclidean" | "fro") => Ok(Ord {
                    ord: ops::NormOrd::Euclidean,
                    number: None,
                    matrix_only: s == "fro",
                }),
                s => Err(PyValueError::new_err(format!(
                    "'ord' must be a supported vector norm, got {s}"
                ))),
            };
        }
        let p: f64 = obj.extract()?;
        let ord = if p == 1.0 {
            ops::NormOrd::One
        } else if p == 2.0 {
            ops::NormOrd::Euclidean
        } else if p.is_infinite() && p > 0.0 {
            ops::NormOrd::Inf
        } else if p > 0.0 {
            ops::NormOrd::P(p)
        } else {
            return Err(PyValueError::new_err(format!(
                "'ord' must be a supported vector norm, got {p}"
            )));
        };
        Ok(Ord {
            ord,
            number: Some(obj.str()?.to_string()),
            matrix_only: false,
        })
    }
}

/// A tensor-like argument: a Tensor, a Variable (read, as an op input), a
/// Python number or nested list, or a numpy array.
pub struct TensorArg(pub Tensor);

impl FromPyObject<'_, '_> for TensorArg {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        to_tensor(&obj, Want::Any).map(TensorArg)
    }
}

/// A sequence of tensor-likes; Python numbers among them take the dtype of
/// the first Tensor or Variable (as a binary op's operand does).
pub struct Tensors(pub Vec<Tensor>);

impl FromPyObject<'_, '_> for Tensors {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        let hint = items
            .iter()
            .find(|v| v.is_instance_of::<PyTensor>() || v.is_instance_of::<PyVariable>())
            .map(|v| to_tensor(v, Want::Any))
            .transpose()?
            .map(|t| t.dtype());
        items
            .iter()
            .map(|v| to_tensor(v, hint.map_or(Want::Any, Want::Hint)))
            .collect::<PyResult<_>>()
            .map(Tensors)
    }
}

/// TensorFlow's `name=`: tapers names no ops, so it only labels the op's
/// errors, as TensorFlow's eager errors end in `name: ...`. Any value is
/// accepted (its `str`).
pub struct Name(pub String);

impl Name {
    /// The `name` among `**kwargs` (`tf.einsum` takes its options that way).
    pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Option<Name>> {
        match kwargs.map(|k| k.get_item("name")).transpose()?.flatten() {
            Some(n) if !n.is_none() => Ok(Some(Name(n.str()?.to_string()))),
            _ => Ok(None),
        }
    }
}

impl FromPyObject<'_, '_> for Name {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        Ok(Name(obj.str()?.to_string()))
    }
}

/// Integer arguments that are neither axes nor shapes (`tf.roll`'s `shift`,
/// `tf.repeat`'s `repeats`): an int, a list of ints or an integer tensor.
pub struct IntList(pub Vec<isize>);

impl FromPyObject<'_, '_> for IntList {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        ints(&obj, "the values").map(IntList)
    }
}

/// `tf.unique`'s `out_idx` and `tf.searchsorted`'s `out_type`: int32 or int64.
pub struct IndexType(pub DType);

impl FromPyObject<'_, '_> for IndexType {
    type Error = PyErr;
    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        index_dtype(&obj, "the index type").map(IndexType)
    }
}
