//! Element types.

use std::fmt;

/// The element type of a tensor. Names follow TensorFlow (`float32`, `int64`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit IEEE float, the default for Python floats.
    F32,
    /// 64-bit IEEE float.
    F64,
    /// 32-bit signed integer, the default for Python ints.
    I32,
    /// 64-bit signed integer.
    I64,
    /// Boolean.
    Bool,
}

impl DType {
    /// TensorFlow's name for the dtype, e.g. `"float32"`.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Bool => "bool",
        }
    }

    /// The name TensorFlow's kernels use in error messages (`float`, `double`, ...).
    pub fn kernel_name(self) -> &'static str {
        match self {
            DType::F32 => "float",
            DType::F64 => "double",
            other => other.name(),
        }
    }

    /// Parses a TensorFlow/numpy dtype name (`"float32"`, `"double"`, ...).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "float32" | "float" => DType::F32,
            "float64" | "double" => DType::F64,
            "int32" => DType::I32,
            "int64" => DType::I64,
            "bool" => DType::Bool,
            _ => return None,
        })
    }

    /// Whether tensors of this dtype can carry gradients (and be watched).
    pub fn is_floating(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// Whether the dtype is a signed integer.
    pub fn is_integer(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }

    /// Size of one element in bytes.
    pub fn size_of(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
            DType::Bool => 1,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // TF error messages say "float"/"double" in kernels; we print the public name.
        f.write_str(self.name())
    }
}

/// Lossy conversion to f64, used for scalar extraction and printing.
pub trait ToF64: Copy {
    /// The value as an f64.
    fn to_f64(self) -> f64;
}
impl ToF64 for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl ToF64 for f64 {
    fn to_f64(self) -> f64 {
        self
    }
}
impl ToF64 for i32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl ToF64 for i64 {
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl ToF64 for bool {
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
}
