//! Element types.

use std::fmt;

pub use half::{bf16, f16};
pub use num_complex::{Complex32 as c64, Complex64 as c128};

/// Declares [`DType`] and its name tables from one list, so a dtype is
/// described once: variant, TensorFlow name, kernel name (TF's C++ type name,
/// used in its error messages), and element size in bytes.
macro_rules! dtypes {
    ($($(#[$doc:meta])* $v:ident = $name:literal, $kernel:literal, $size:literal;)*) => {
        /// The element type of a tensor. Names follow TensorFlow (`float32`, `int64`, ...).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum DType {
            $($(#[$doc])* $v,)*
        }

        impl DType {
            /// Every dtype, in declaration order.
            pub const ALL: &'static [DType] = &[$(DType::$v),*];

            /// TensorFlow's name for the dtype, e.g. `"float32"`.
            pub fn name(self) -> &'static str {
                match self {
                    $(DType::$v => $name,)*
                }
            }

            /// The name TensorFlow's kernels use in error messages (`float`, `double`, `half`, ...).
            pub fn kernel_name(self) -> &'static str {
                match self {
                    $(DType::$v => $kernel,)*
                }
            }

            /// Size of one element in bytes.
            pub fn size_of(self) -> usize {
                match self {
                    $(DType::$v => $size,)*
                }
            }
        }
    };
}

dtypes! {
    /// 32-bit IEEE float, the default for Python floats.
    F32 = "float32", "float", 4;
    /// 64-bit IEEE float.
    F64 = "float64", "double", 8;
    /// 32-bit signed integer, the default for Python ints.
    I32 = "int32", "int32", 4;
    /// 64-bit signed integer.
    I64 = "int64", "int64", 8;
    /// Boolean.
    Bool = "bool", "bool", 1;
    /// 8-bit unsigned integer (image data).
    U8 = "uint8", "uint8", 1;
    /// 8-bit signed integer.
    I8 = "int8", "int8", 1;
    /// 16-bit signed integer.
    I16 = "int16", "int16", 2;
    /// 16-bit unsigned integer.
    U16 = "uint16", "uint16", 2;
    /// 32-bit unsigned integer.
    U32 = "uint32", "uint32", 4;
    /// 64-bit unsigned integer.
    U64 = "uint64", "uint64", 8;
    /// 16-bit IEEE half-precision float.
    F16 = "float16", "half", 2;
    /// bfloat16: float32's exponent with an 8-bit significand.
    BF16 = "bfloat16", "bfloat16", 2;
    /// Complex number of two float32.
    C64 = "complex64", "complex64", 8;
    /// Complex number of two float64.
    C128 = "complex128", "complex128", 16;
}

impl DType {
    /// Parses a TensorFlow/numpy dtype name (`"float32"`, `"double"`, `"half"`, ...).
    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "float" => DType::F32,
            "double" => DType::F64,
            "half" => DType::F16,
            _ => return DType::ALL.iter().copied().find(|d| d.name() == name),
        })
    }

    /// Whether tensors of this dtype can carry gradients (and be watched):
    /// the real floats (float16 and bfloat16 compute in float32 and round, as
    /// TensorFlow's CPU kernels do).
    pub fn is_floating(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether the dtype is float16 or bfloat16 (stored in 16 bits, computed in float32).
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// Whether tensors of this dtype carry gradients on tapes (are watched, seeded,
    /// differentiated): the floating dtypes and complex64/complex128 (whose
    /// gradients follow TensorFlow's conjugate convention).
    pub fn is_differentiable(self) -> bool {
        self.is_floating() || self.is_complex()
    }

    /// Whether the dtype is a real floating-point type (float16, bfloat16, float32, float64).
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// Whether the dtype is an integer (signed or unsigned).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::I8
                | DType::I16
                | DType::I32
                | DType::I64
                | DType::U8
                | DType::U16
                | DType::U32
                | DType::U64
        )
    }

    /// Whether the dtype is complex64 or complex128.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The real dtype of a complex one (complex64 → float32); others are their own.
    pub fn real_dtype(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // TF error messages say "float"/"double" in kernels; we print the public name.
        f.write_str(self.name())
    }
}

/// A scalar of any dtype, wide enough to hold each exactly: the go-between of
/// casts (`Int` for every integer, `Float` for every real float, `Complex`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer or bool (0/1).
    Int(i128),
    /// A real float.
    Float(f64),
    /// A complex number (real, imaginary).
    Complex(f64, f64),
}

/// Conversions of an element type to and from [`Num`], with TensorFlow's cast
/// rules on CPU: integers wrap, floats truncate toward zero into integers
/// (saturating out of range, NaN to 0), complex to real keeps the real part, anything
/// to bool is `!= 0` (complex: its real part).
pub trait Scalar: Copy {
    /// The value, exactly.
    fn to_num(self) -> Num;
    /// The value of `n` in this type, by TensorFlow's cast rules.
    fn from_num(n: Num) -> Self;
}

impl Num {
    /// The real part as f64 (integers converted, complex's imaginary dropped).
    pub fn re(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) | Num::Complex(f, _) => f,
        }
    }

    /// Whether the value is zero.
    pub fn is_zero(self) -> bool {
        match self {
            Num::Int(i) => i == 0,
            Num::Float(f) => f == 0.0,
            Num::Complex(re, im) => re == 0.0 && im == 0.0,
        }
    }
}

/// Lossy conversion to f64, used for scalar extraction and printing.
pub trait ToF64: Copy {
    /// The value as an f64 (complex: the real part).
    fn to_f64(self) -> f64;
}
impl<T: Scalar> ToF64 for T {
    fn to_f64(self) -> f64 {
        self.to_num().re()
    }
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn to_num(self) -> Num {
                Num::Int(self as i128)
            }
            fn from_num(n: Num) -> Self {
                match n {
                    // Integers wrap.
                    Num::Int(i) => i as $t,
                    // Floats (and complex's real part) truncate toward zero and
                    // saturate (NaN gives 0): TensorFlow's results for values out
                    // of range differ by source dtype and element position, so
                    // tapers keeps one rule (README, known differences).
                    Num::Float(f) | Num::Complex(f, _) => f as $t,
                }
            }
        }
    )*};
}
int_scalar!(i8, i16, i32, u8, u16, i64, u32, u64);

macro_rules! float_scalar {
    ($($t:ty: $from:expr, $to:expr);*) => {$(
        impl Scalar for $t {
            fn to_num(self) -> Num {
                Num::Float($to(self))
            }
            fn from_num(n: Num) -> Self {
                match n {
                    Num::Int(i) => $from(Wide::Int(i)),
                    Num::Float(f) | Num::Complex(f, _) => $from(Wide::Float(f)),
                }
            }
        }
    )*};
}

/// The source of a conversion to a float type.
enum Wide {
    Int(i128),
    Float(f64),
}

impl Wide {
    /// As f32, rounded once (Rust's `as` rounds to nearest even).
    fn f32(self) -> f32 {
        match self {
            Wide::Int(i) => i as f32,
            Wide::Float(f) => f as f32,
        }
    }
}

// float16 and bfloat16 are made from a float32 (Eigen's conversions, which
// TensorFlow's casts use: `half(double)` rounds to float first).
float_scalar!(
    f32: Wide::f32, |v: f32| v as f64;
    f64: |w: Wide| match w { Wide::Int(i) => i as f64, Wide::Float(f) => f }, |v: f64| v;
    f16: |w: Wide| f16::from_f32(w.f32()), f16::to_f64;
    bf16: |w: Wide| bf16::from_f32(w.f32()), bf16::to_f64
);

macro_rules! complex_scalar {
    ($($t:ty: $f:ty),*) => {$(
        impl Scalar for num_complex::Complex<$t> {
            fn to_num(self) -> Num {
                Num::Complex(self.re as f64, self.im as f64)
            }
            fn from_num(n: Num) -> Self {
                match n {
                    Num::Int(i) => num_complex::Complex::new(i as $t, 0.0),
                    Num::Float(f) => num_complex::Complex::new(f as $t, 0.0),
                    Num::Complex(re, im) => num_complex::Complex::new(re as $t, im as $t),
                }
            }
        }
    )*};
}
complex_scalar!(f32: f32, f64: f64);

impl Scalar for bool {
    fn to_num(self) -> Num {
        Num::Int(self as i128)
    }
    /// Nonzero is `true`; a complex number by its real part (as TF's cast).
    fn from_num(n: Num) -> Self {
        match n {
            Num::Int(i) => i != 0,
            Num::Float(f) | Num::Complex(f, _) => f != 0.0,
        }
    }
}
