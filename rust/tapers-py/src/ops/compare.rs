//! Comparisons and logic (the core's `ops/compare.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, export, unary, Exports};

binary!(
    equal => ops::equal, "Elementwise x == y (bool result).";
    not_equal => ops::not_equal, "Elementwise x != y (bool result).";
    less => ops::less, "Elementwise x < y (bool result).";
    less_equal => ops::less_equal, "Elementwise x <= y (bool result).";
    greater => ops::greater, "Elementwise x > y (bool result).";
    greater_equal => ops::greater_equal, "Elementwise x >= y (bool result).";
    logical_and => ops::logical_and, "Elementwise boolean AND (bool tensors only).";
    logical_or => ops::logical_or, "Elementwise boolean OR (bool tensors only).";
    logical_xor => ops::logical_xor, "Elementwise boolean XOR (bool tensors only).";
);

unary!(
    logical_not => ops::logical_not, "Elementwise boolean NOT (bool tensors only).";
);

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    export!(ex, [Math, Tf]: equal, not_equal, less, less_equal, greater, greater_equal);
    export!(ex, [Math, Tf]: logical_and, logical_or, logical_not);
    export!(ex, [Math]: logical_xor);
    Ok(())
}
