//! Comparisons: bool results, never differentiated.
#![allow(clippy::bool_comparison)] // the same generic comparison serves bool tensors

use crate::error::Result;
use crate::kernels::compare_binary;
use crate::tensor::Tensor;

macro_rules! comparison {
    ($name:ident, $tf:literal, $doc:literal, |$x:ident, $y:ident| $body:expr) => {
        #[doc = $doc]
        pub fn $name(a: &Tensor, b: &Tensor) -> Result<Tensor> {
            compare_binary!($tf, a, b, |$x, $y| $body)
        }
    };
}

comparison!(
    equal,
    "Equal",
    "`a == b` elementwise, with broadcasting.",
    |x, y| x == y
);
comparison!(
    not_equal,
    "NotEqual",
    "`a != b` elementwise, with broadcasting.",
    |x, y| x != y
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
