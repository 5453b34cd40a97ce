//! The autodiff engine: the backward pass over a snapshot of a tape's
//! entries (`backward`), fused regions of large elementwise ops (`fuse`),
//! Jacobians (`jacobian`), and explanations of missing gradients
//! (`inspect`). It reads recordings and runs gradient rules; it never
//! records on its own account (rules do, when an outer tape is active).

mod backward;
pub(crate) mod fuse;
pub(crate) mod inspect;
pub(crate) mod jacobian;

pub(crate) use backward::run_grads;
pub(crate) use backward::PassCounter;
pub use backward::{PassStats, Unconnected};
pub(crate) use inspect::explain_in;
pub use inspect::Explanation;

use std::sync::Arc;

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::error::Result;
use crate::ops;
use crate::record::Variable;
use crate::tensor::{Tensor, TensorId};

/// Something a gradient can be taken with respect to.
#[derive(Clone)]
pub enum Source {
    /// A tensor (watched explicitly, or an intermediate result).
    Tensor(Tensor),
    /// A variable (watched explicitly or by being read).
    Variable(Variable),
}

impl Source {
    pub(crate) fn id(&self) -> TensorId {
        match self {
            Source::Tensor(t) => t.id(),
            Source::Variable(v) => v.handle_id(),
        }
    }
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Source::Tensor(t) => t.dtype(),
            Source::Variable(v) => v.dtype(),
        }
    }
    pub(crate) fn zeros(&self) -> Result<Tensor> {
        match self {
            Source::Tensor(t) => Tensor::zeros(t.shape(), t.dtype()),
            Source::Variable(v) => Tensor::zeros(&v.shape(), v.dtype()),
        }
    }
}

impl From<&Tensor> for Source {
    fn from(t: &Tensor) -> Source {
        Source::Tensor(t.clone())
    }
}

impl From<&Variable> for Source {
    fn from(v: &Variable) -> Source {
        Source::Variable(v.clone())
    }
}

/// A sparse gradient, TensorFlow's `IndexedSlices`: row `k` of `values` is
/// the gradient of row `indices[k]` of a tensor of shape `dense_shape`
/// (rows may repeat; they add up when densified). A gather of a large
/// embedding table along axis 0 gets one, so its gradient costs the rows
/// read, not the table.
#[derive(Clone, Debug)]
pub struct IndexedSlices {
    /// The gradient rows: shape `[indices.len(), dense_shape[1..]...]`.
    pub values: Tensor,
    /// The row of the dense tensor each row of `values` belongs to.
    pub indices: Arc<Vec<usize>>,
    /// The dtype the indices are reported in (the user's: int32 or int64).
    pub index_dtype: DType,
    /// The shape of the dense tensor.
    pub dense_shape: Vec<usize>,
    /// The tensor `indices` were read from (the user's indices of a
    /// gather, any shape, row-major), when there is one. A traced step
    /// must read each call's rows, not this call's: the dense form and
    /// the indices tensor are then made from it.
    pub source: Option<Tensor>,
}

impl IndexedSlices {
    /// The dense tensor (rows summed where indices repeat), recorded on any
    /// active tape as TensorFlow's conversion is.
    pub fn to_dense(&self) -> Result<Tensor> {
        let idx = self.indices.clone();
        ops::scatter_add_from(
            &self.values,
            0,
            idx,
            self.dense_shape[0],
            self.source.as_ref(),
        )
    }

    /// The indices as a 1-D tensor of [`IndexedSlices::index_dtype`].
    pub fn indices_tensor(&self) -> Result<Tensor> {
        if let Some(s) = &self.source {
            return ops::reshape(s, &[-1]);
        }
        let n = self.indices.len();
        match self.index_dtype {
            DType::I32 => Tensor::from_vec(
                self.indices.iter().map(|&i| i as i32).collect::<Vec<i32>>(),
                &[n],
            ),
            _ => Tensor::from_vec(
                self.indices.iter().map(|&i| i as i64).collect::<Vec<i64>>(),
                &[n],
            ),
        }
    }

    /// TensorFlow's aggregation of sparse gradients: values and indices
    /// concatenated in the order given; int32 indices become int64 when
    /// they meet int64 ones.
    fn concat(parts: &[&IndexedSlices]) -> Result<IndexedSlices> {
        let values: Vec<Tensor> = parts.iter().map(|p| p.values.clone()).collect();
        let indices: Vec<usize> = parts
            .iter()
            .flat_map(|p| p.indices.iter().copied())
            .collect();
        let index_dtype = if parts.iter().all(|p| p.index_dtype == parts[0].index_dtype) {
            parts[0].index_dtype
        } else {
            DType::I64
        };
        // The concatenated sources when every part has one; otherwise a
        // trace must see these rows again at each call.
        let source = if parts.iter().all(|p| p.source.is_some()) {
            let flat: Vec<Tensor> = parts
                .iter()
                .map(|p| ops::cast(&p.indices_tensor()?, index_dtype))
                .collect::<Result<_>>()?;
            Some(ops::concat(&flat, 0)?)
        } else {
            for s in parts.iter().filter_map(|p| p.source.as_ref()) {
                crate::record::trace_guard(s);
            }
            None
        };
        Ok(IndexedSlices {
            values: ops::concat(&values, 0)?,
            indices: Arc::new(indices),
            index_dtype,
            dense_shape: parts[0].dense_shape.clone(),
            source,
        })
    }
}

/// A gradient as the backward pass delivers it: dense, or sparse rows.
#[derive(Clone, Debug)]
pub enum Gradient {
    /// A tensor of the source's shape.
    Dense(Tensor),
    /// Rows of it ([`IndexedSlices`]), boxed: the pass moves gradients
    /// around constantly, and nearly all of them are dense.
    Sparse(Box<IndexedSlices>),
}

// The pass moves gradients through its maps constantly: two words at most.
const _: () = assert!(std::mem::size_of::<Gradient>() <= 16);

impl Gradient {
    /// The dense tensor (a sparse gradient is converted).
    pub fn into_dense(self) -> Result<Tensor> {
        match self {
            Gradient::Dense(t) => Ok(t),
            Gradient::Sparse(s) => s.to_dense(),
        }
    }

    /// TensorFlow's aggregation (`AggregateIndexedSlicesGradients`): all
    /// sparse parts concatenate; any dense part makes the sum dense.
    pub(crate) fn sum(mut parts: SmallVec<[Gradient; 2]>) -> Result<Gradient> {
        match parts.as_slice() {
            [_] => return Ok(parts.pop().expect("one part")),
            [Gradient::Dense(a), Gradient::Dense(b)] => return ops::add(a, b).map(Gradient::Dense),
            _ => {}
        }
        if parts.iter().all(|p| matches!(p, Gradient::Sparse(_))) {
            let sparse: SmallVec<[&IndexedSlices; 4]> = parts
                .iter()
                .filter_map(|p| match p {
                    Gradient::Sparse(s) => Some(&**s),
                    Gradient::Dense(_) => None,
                })
                .collect();
            return IndexedSlices::concat(&sparse).map(|s| Gradient::Sparse(Box::new(s)));
        }
        let dense: SmallVec<[Tensor; 4]> = parts
            .into_iter()
            .map(Gradient::into_dense)
            .collect::<Result<_>>()?;
        match dense.as_slice() {
            [a, b] => ops::add(a, b),
            _ => ops::add_n(&dense),
        }
        .map(Gradient::Dense)
    }
}
