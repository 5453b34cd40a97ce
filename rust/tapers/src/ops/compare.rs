//! Comparisons: bool results, never differentiated.
#![allow(clippy::bool_comparison)] // the same generic comparison serves bool tensors

use crate::error::Result;
use crate::kernels::{compare_binary, complex_binary};
use crate::tensor::Tensor;

macro_rules! comparison {
    ($name:ident, $tf:literal, $doc:literal, |$x:ident, $y:ident| $body:expr $(, $complex:ident)?) => {
        #[doc = $doc]
        pub fn $name(a: &Tensor, b: &Tensor) -> Result<Tensor> {
            // `complex`: the comparison also runs on complex tensors (TF's
            // Equal, NotEqual); ordering comparisons reject them.
            let c: Option<Result<Tensor>> = None
                $(.or_else(|| { let _ = stringify!($complex); complex_binary!($tf, a, b, |$x, $y| $body) }))?;
            let out = match c {
                Some(r) => r?,
                None => compare_binary!($tf, a, b, |$x, $y| $body)?,
            };
            super::trace_only($tf, &[a, b], &out, |i| $name(&i[0], &i[1]));
            Ok(out)
        }
    };
}

comparison!(
    equal,
    "Equal",
    "`a == b` elementwise, with broadcasting.",
    |x, y| x == y,
    complex
);
comparison!(
    not_equal,
    "NotEqual",
    "`a != b` elementwise, with broadcasting.",
    |x, y| x != y,
    complex
);
comparison!(
    less,
    "Less",
    "`a < b` elementwise, with broadcasting.",
    |x, y| x < y
);
comparison!(
    less_equal,
    "LessEqual",
    "`a <= b` elementwise, with broadcasting.",
    |x, y| x <= y
);
comparison!(
    greater,
    "Greater",
    "`a > b` elementwise, with broadcasting.",
    |x, y| x > y
);
comparison!(
    greater_equal,
    "GreaterEqual",
    "`a >= b` elementwise, with broadcasting.",
    |x, y| x >= y
);

fn bools<'a>(
    op: &'static str,
    t: &'a Tensor,
) -> Result<&'a ndarray::ArcArray<bool, ndarray::IxDyn>> {
    t.array::<bool>()
        .map_err(|_| crate::Error::UnsupportedDType {
            op,
            dtype: t.dtype(),
            allowed: "bool",
        })
}

/// Elementwise `a && b` on bool tensors, with broadcasting.
pub fn logical_and(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (p, q) = (bools("LogicalAnd", a)?, bools("LogicalAnd", b)?);
    let out = crate::kernels::zip_map_memory("LogicalAnd", p, q, |x, y| x && y)
        .map(Tensor::from_array)?;
    super::trace_only("LogicalAnd", &[a, b], &out, |i| logical_and(&i[0], &i[1]));
    Ok(out)
}

/// Elementwise `a || b` on bool tensors, with broadcasting.
pub fn logical_or(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (p, q) = (bools("LogicalOr", a)?, bools("LogicalOr", b)?);
    let out =
        crate::kernels::zip_map_memory("LogicalOr", p, q, |x, y| x || y).map(Tensor::from_array)?;
    super::trace_only("LogicalOr", &[a, b], &out, |i| logical_or(&i[0], &i[1]));
    Ok(out)
}

/// Elementwise `!a` on a bool tensor.
pub fn logical_not(a: &Tensor) -> Result<Tensor> {
    let out = Tensor::from_array(crate::kernels::map_memory(
        bools("LogicalNot", a)?,
        |x: bool| !x,
    ));
    super::trace_only("LogicalNot", &[a], &out, |i| logical_not(&i[0]));
    Ok(out)
}

/// Elementwise exclusive or on bool tensors, with broadcasting.
pub fn logical_xor(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (p, q) = (bools("LogicalXor", a)?, bools("LogicalXor", b)?);
    let out = crate::kernels::zip_map_memory("LogicalXor", p, q, |x, y| x != y)
        .map(Tensor::from_array)?;
    super::trace_only("LogicalXor", &[a, b], &out, |i| logical_xor(&i[0], &i[1]));
    Ok(out)
}
