//! Indexing along the first axis (`t[i]`, iteration), differentiable both ways.

use ndarray::{Axis, IxDyn};

use super::{record, rule};
use crate::error::{Error, Result};
use crate::map_storage;
use crate::tensor::{Storage, Tensor};

fn check_index(x_shape: &[usize], index: isize) -> Result<usize> {
    let n = *x_shape.first().ok_or_else(|| {
        Error::invalid(
            "Index out of range using input dim 0; input has only 0 dims [Op:StridedSlice]",
        )
    })? as isize;
    let i = if index < 0 { index + n } else { index };
    if i < 0 || i >= n {
        return Err(Error::invalid(format!(
            "slice index {index} of dimension 0 out of bounds. [Op:StridedSlice] name: strided_slice/"
        )));
    }
    Ok(i as usize)
}

/// `x[index]`: the sub-tensor at `index` along axis 0 (negative counts from the end).
pub fn index_first(x: &Tensor, index: isize) -> Result<Tensor> {
    let i = check_index(x.shape(), index)?;
    let out = Tensor::from_storage(
        map_storage!(x.storage(), a => a.index_axis(Axis(0), i).to_owned().into_shared()),
    );
    record("StridedSlice", &[x], &out, || {
        let n = x.shape()[0];
        rule(move |g, _| Ok(vec![Some(embed_first(&g[0], i, n)?)]))
    });
    Ok(out)
}

/// The inverse of [`index_first`]: a tensor of `n` slices along a new axis 0,
/// zero everywhere but slice `index`, which is `x`.
pub fn embed_first(x: &Tensor, index: usize, n: usize) -> Result<Tensor> {
    if index >= n {
        return Err(Error::invalid(format!(
            "embed index {index} out of range for {n} slices"
        )));
    }
    let mut shape = vec![n];
    shape.extend_from_slice(x.shape());
    fn embed<T: Clone + num_traits::Zero>(
        a: &ndarray::ArcArray<T, IxDyn>,
        shape: &[usize],
        index: usize,
    ) -> ndarray::ArcArray<T, IxDyn> {
        let mut out = ndarray::ArrayD::<T>::zeros(IxDyn(shape));
        out.index_axis_mut(Axis(0), index).assign(a);
        out.into_shared()
    }
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(embed(a, &shape, index)),
        Storage::F64(a) => Storage::F64(embed(a, &shape, index)),
        Storage::I32(a) => Storage::I32(embed(a, &shape, index)),
        Storage::I64(a) => Storage::I64(embed(a, &shape, index)),
        Storage::Bool(a) => {
            let mut o = ndarray::ArrayD::<bool>::from_elem(IxDyn(&shape), false);
            o.index_axis_mut(Axis(0), index).assign(a);
            Storage::Bool(o.into_shared())
        }
    });
    record("EmbedFirst", &[x], &out, || {
        rule(move |g, _| Ok(vec![Some(index_first(&g[0], index as isize)?)]))
    });
    Ok(out)
}
