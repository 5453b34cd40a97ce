//! Comparisons and logic (the core's `ops/compare.rs`).

use pyo3::prelude::*;

use tapers::ops;

use super::{binary, unary, Exports};

binary!(
    exports_binary;
    [Math, Tf] equal(x, y) => ops::equal, "Elementwise x == y (bool result).";
    [Math, Tf] not_equal(x, y) => ops::not_equal, "Elementwise x != y (bool result).";
    [Math, Tf] less(x, y) => ops::less, "Elementwise x < y (bool result).";
    [Math, Tf] less_equal(x, y) => ops::less_equal, "Elementwise x <= y (bool result).";
    [Math, Tf] greater(x, y) => ops::greater, "Elementwise x > y (bool result).";
    [Math, Tf] greater_equal(x, y) => ops::greater_equal, "Elementwise x >= y (bool result).";
    [Math, Tf] logical_and(x, y) => ops::logical_and, "Elementwise boolean AND (bool tensors only).";
    [Math, Tf] logical_or(x, y) => ops::logical_or, "Elementwise boolean OR (bool tensors only).";
    [Math] logical_xor(x, y) => ops::logical_xor, "Elementwise boolean XOR (bool tensors only).";
);

unary!(
    exports_unary;
    [Math, Tf] logical_not => ops::logical_not, "Elementwise boolean NOT (bool tensors only).";
);

pub fn register(ex: &mut Exports<'_>) -> PyResult<()> {
    exports_binary(ex)?;
    exports_unary(ex)?;
    Ok(())
}
