//! `std::ops` operators on tensors: `&a + &b`, `&a * 2.0`, `-&a`, ...
//!
//! Every op can fail (shapes that do not broadcast, dtypes that differ), so
//! the operators return [`Result<Tensor>`](crate::Result), as candle's do:
//!
//! ```
//! use tapers::{Result, Tensor};
//! fn f(x: &Tensor) -> Result<Tensor> {
//!     let y = (x * x)?;
//!     (&(&y * 3.0)? - x)? / 2.0 // (3x^2 - x) / 2
//! }
//! let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
//! assert_eq!(f(&x).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 5.0]);
//! assert!((&x + &Tensor::from_vec(vec![1.0f32; 3], &[3]).unwrap()).is_err());
//! ```
//!
//! A plain number takes the tensor's dtype. Operators record on active tapes
//! exactly like the functions in [`ops`] they call.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::error::Result;
use crate::ops;
use crate::tensor::Tensor;

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $f:path) => {
        impl $trait<&Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                $f(self, rhs)
            }
        }
        impl $trait<Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                $f(&self, &rhs)
            }
        }
        impl $trait<f64> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: f64) -> Result<Tensor> {
                $f(self, &Tensor::scalar_of(self.dtype(), rhs))
            }
        }
        impl $trait<f64> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: f64) -> Result<Tensor> {
                $f(&self, &Tensor::scalar_of(self.dtype(), rhs))
            }
        }
        impl $trait<&Tensor> for f64 {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                $f(&Tensor::scalar_of(rhs.dtype(), self), rhs)
            }
        }
    };
}

binary_operator!(Add, add, ops::add);
binary_operator!(Sub, sub, ops::sub);
binary_operator!(Mul, mul, ops::mul);
binary_operator!(Div, div, ops::div);

impl Neg for &Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        ops::neg(self)
    }
}

impl Neg for Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        ops::neg(&self)
    }
}
