//! Which of the dtypes beyond float32/float64/int32/int64/bool each op has a
//! kernel for: TensorFlow 2.21's CPU kernels (checked against TF itself by
//! `tests/data/make_dtype_ops_reference.py`). The dispatch macros and the ops
//! with kernels of their own ask [`check`] before they compute on such a
//! dtype, so an op computes on exactly the dtypes TensorFlow computes on, and
//! raises TensorFlow's error otherwise:
//!
//! * a dtype outside the op's declared type list: `InvalidArgumentError`
//!   ("Value for attr 'T' of uint8 is not in the list of allowed values");
//! * a dtype the op declares but has no CPU kernel for (`MatMul` on uint8,
//!   `Reciprocal` on int8): `NotFoundError` ("Could not find device for node").
//!
//! float16 and bfloat16 compute in float32 and round each result once (the
//! macros' half arms, and `ops::half::via_f32` for ops with kernels of
//! their own), as TensorFlow's CPU kernels do. Complex dtypes are not listed
//! here: their support is added beside this table.

use crate::dtype::DType;
use crate::error::{Error, Result};

use DType::{BF16, F16, I16, I8, U16, U32, U64, U8};

/// Every new real dtype.
const REAL: &[DType] = &[U8, I8, I16, U16, U32, U64, F16, BF16];
/// The signed new dtypes.
const SIGNED: &[DType] = &[I8, I16, F16, BF16];
/// float16 and bfloat16.
const HALF: &[DType] = &[F16, BF16];

/// One op's kernels among the new dtypes: those it computes on, those its
/// declaration allows beyond them (no CPU kernel: `NotFoundError`), and
/// TensorFlow's list of allowed values (for the `InvalidArgumentError`).
struct Kernels {
    ops: &'static [&'static str],
    computes: &'static [DType],
    declared_only: &'static [DType],
    allowed: &'static str,
}

const ALL_REAL: &str = "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, \
                        uint32, uint64, int64";
const FLOAT: &str = "bfloat16, half, float, double";
const FLOAT_COMPLEX: &str = "bfloat16, half, float, double, complex64, complex128";
const SIGNED_NUM: &str = "bfloat16, half, float, double, int8, int16, int32, int64, \
                          complex64, complex128";

static TABLE: &[Kernels] = &[
    Kernels {
        ops: &[
            "AddV2",
            "AddN",
            "Sub",
            "Mul",
            "RealDiv",
            "FloorDiv",
            "FloorMod",
            "Maximum",
            "Minimum",
            "Equal",
            "NotEqual",
            "Less",
            "LessEqual",
            "Greater",
            "GreaterEqual",
            "Square",
            "Relu",
            "Relu6",
            "Sum",
            "Prod",
            "Max",
            "Min",
            "Mean",
            "ArgMax",
            "ArgMin",
            "Cumsum",
            "Cumprod",
        ],
        computes: REAL,
        declared_only: &[],
        allowed: ALL_REAL,
    },
    Kernels {
        ops: &["Neg", "Sign"],
        computes: SIGNED,
        declared_only: &[],
        allowed: SIGNED_NUM,
    },
    Kernels {
        ops: &["Abs"],
        computes: SIGNED,
        declared_only: &[],
        allowed: "bfloat16, half, float, double, int8, int16, int32, int64",
    },
    Kernels {
        ops: &["Pow"],
        computes: SIGNED,
        declared_only: &[],
        allowed: SIGNED_NUM,
    },
    Kernels {
        ops: &["Reciprocal"],
        computes: HALF,
        declared_only: &[I8, I16],
        allowed: SIGNED_NUM,
    },
    Kernels {
        ops: &["MatMul", "BatchMatMulV2"],
        computes: HALF,
        declared_only: &[U8, U16, U32, U64],
        allowed: "bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, \
                  complex64, complex128",
    },
    Kernels {
        ops: &[
            "Exp", "Log", "Sqrt", "Rsqrt", "Tanh", "Sigmoid", "Sin", "Cos", "Expm1", "Log1p",
        ],
        computes: HALF,
        declared_only: &[],
        allowed: FLOAT_COMPLEX,
    },
    Kernels {
        ops: &[
            "IsNan", "IsFinite", "IsInf", "Erf", "Atan2", "Asin", "Acos", "Atan", "Tan", "Sinh",
            "Cosh",
        ],
        computes: HALF,
        declared_only: &[],
        allowed: FLOAT,
    },
    Kernels {
        ops: &[
            "Softplus",
            "Elu",
            "Selu",
            "Gelu",
            "Softmax",
            "LogSoftmax",
            "LeakyRelu",
        ],
        computes: HALF,
        declared_only: &[],
        allowed: "half, bfloat16, float, double",
    },
    Kernels {
        // Convolution and pooling: halves through float32 (`ops::conv`).
        ops: &["Conv2D", "AvgPool"],
        computes: HALF,
        declared_only: &[],
        allowed: "half, bfloat16, float, double, int32",
    },
    Kernels {
        // Max pooling on the narrow integers runs in int64 (`ops::conv`).
        ops: &["MaxPool"],
        computes: &[U8, I8, I16, U16, F16, BF16],
        declared_only: &[],
        allowed: "half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8",
    },
    Kernels {
        ops: &["SquaredDifference"],
        computes: HALF,
        declared_only: &[],
        allowed: "bfloat16, half, float, double, int32, int64, complex64, complex128",
    },
    // Issue 20's ops (tests/data/make_math_ops_reference.py).
    Kernels {
        ops: &["Floor", "Ceil", "Erfc"],
        computes: HALF,
        declared_only: &[],
        allowed: FLOAT,
    },
    Kernels {
        ops: &["Round", "TruncateDiv"],
        computes: REAL,
        declared_only: &[],
        allowed: ALL_REAL,
    },
    Kernels {
        ops: &["Rint"],
        computes: &[],
        declared_only: HALF,
        allowed: FLOAT,
    },
    Kernels {
        ops: &["Lgamma", "Digamma"],
        computes: &[F16],
        declared_only: &[BF16],
        allowed: FLOAT,
    },
    Kernels {
        ops: &["Asinh", "Acosh", "Atanh", "MulNoNan"],
        computes: HALF,
        declared_only: &[],
        allowed: FLOAT_COMPLEX,
    },
    Kernels {
        ops: &["Xlogy", "Xlog1py", "Xdivy"],
        computes: HALF,
        declared_only: &[],
        allowed: "half, bfloat16, float, double, complex64, complex128",
    },
    Kernels {
        ops: &["DivNoNan"],
        computes: HALF,
        declared_only: &[],
        allowed: "half, float, bfloat16, double, complex64, complex128",
    },
    Kernels {
        ops: &["Softsign"],
        computes: HALF,
        declared_only: &[],
        allowed: "half, bfloat16, float, double",
    },
    Kernels {
        ops: &["TruncateMod"],
        computes: &[],
        declared_only: HALF,
        allowed: "int32, int64, bfloat16, half, float, double",
    },
    Kernels {
        ops: &["Polygamma", "Zeta", "Betainc"],
        computes: &[],
        declared_only: &[],
        allowed: "float, double",
    },
    Kernels {
        ops: &["NextAfter"],
        computes: &[],
        declared_only: &[],
        allowed: "double, float",
    },
    Kernels {
        ops: &["Ndtri", "Erfinv"],
        computes: &[],
        declared_only: HALF,
        allowed: FLOAT,
    },
    Kernels {
        ops: &[
            "BesselI0",
            "BesselI0e",
            "BesselI1",
            "BesselI1e",
            "BesselJ0",
            "BesselJ1",
            "BesselY0",
            "BesselY1",
            "BesselK0",
            "BesselK0e",
            "BesselK1",
            "BesselK1e",
        ],
        computes: &[F16],
        declared_only: &[BF16],
        allowed: FLOAT,
    },
    Kernels {
        ops: &[
            "Dawsn",
            "Expint",
            "FresnelCos",
            "FresnelSin",
            "Spence",
            "Igamma",
            "Igammac",
        ],
        computes: &[],
        declared_only: HALF,
        allowed: FLOAT,
    },
    Kernels {
        ops: &["IgammaGradA"],
        computes: &[],
        declared_only: &[],
        allowed: "float, double",
    },
];

/// Whether `dtype` is one the table speaks for (the new real dtypes).
#[inline]
pub(crate) fn listed(dtype: DType) -> bool {
    // `REAL` as a match: every elementwise op asks, float32 included.
    let listed = matches!(dtype, U8 | I8 | I16 | U16 | U32 | U64 | F16 | BF16);
    debug_assert_eq!(listed, REAL.contains(&dtype));
    listed
}

/// Checks that `op` has a kernel for `dtype` (see the module docs). The
/// dtypes float32, float64, int32, int64, bool and the complex ones pass:
/// each op's own dispatch decides about them.
pub(crate) fn check(op: &'static str, dtype: DType) -> Result<()> {
    if !listed(dtype) {
        return Ok(());
    }
    let entry = TABLE.iter().find(|k| k.ops.contains(&op));
    if let Some(k) = entry {
        if k.computes.contains(&dtype) {
            return Ok(());
        }
        if k.declared_only.contains(&dtype) {
            return Err(Error::NotFound(format!(
                "Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_{}]\n\
                 All kernels registered for op {op} on CPU exclude {} [Op:{op}]",
                dtype.name().to_uppercase(),
                dtype.name()
            )));
        }
    }
    Err(Error::UnsupportedDType {
        op,
        dtype,
        allowed: entry.map_or(
            "float32, float64, int32, int64 (no kernel for this dtype)",
            |k| k.allowed,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn computes(op: &'static str, dtype: DType) -> bool {
        check(op, dtype).is_ok()
    }

    #[test]
    fn the_table_answers_as_tensorflow() {
        assert!(computes("AddV2", U64));
        assert!(computes("Exp", BF16));
        assert!(!computes("Exp", U8));
        assert!(matches!(check("MatMul", U8), Err(Error::NotFound(_))));
        assert!(matches!(
            check("MatMul", I8),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            check("Neg", U32),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(
            computes("Neg", DType::I32),
            "old dtypes are not the table's"
        );
        assert!(!computes("NoSuchOp", F16));
    }
}
