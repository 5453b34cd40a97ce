//! Shapes as values: how they are stored and printed. The vocabulary below
//! the error type (which prints shapes) and the broadcasting rules.

use std::fmt;

use smallvec::SmallVec;

/// A shape as stored in tape entries: up to four dimensions inline.
pub type Dims = SmallVec<[usize; 4]>;

/// A shape printed the way TensorFlow prints it in error messages: `[2,3]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeDisplay(pub Dims);

impl ShapeDisplay {
    /// Wraps a shape for display.
    pub fn of(shape: &[usize]) -> Self {
        ShapeDisplay(shape.iter().copied().collect())
    }
}

impl fmt::Display for ShapeDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// A shape as a Python tuple: `()`, `(3,)`, `(2, 3)` (TensorFlow's `TensorShape` str).
pub fn tuple_string(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
