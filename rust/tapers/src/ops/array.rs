//! Shape and dtype manipulation: reshape, transpose, broadcast_to, cast, where.

use ndarray::IxDyn;

use super::{record, rule, unbroadcast};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::zip3_map;
use crate::shape::{broadcast_shapes, checked_numel, ShapeDisplay};
use crate::tensor::{Storage, Tensor};
use crate::{map_storage, with_storage};

/// Resolves a TF-style shape with at most one `-1` against a number of elements.
fn resolve_shape(numel: usize, shape: &[isize]) -> Result<Vec<usize>> {
    let mut unknown = None;
    let mut known = 1usize;
    for (i, &d) in shape.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                return Err(Error::invalid(
                    "Only one input size may be -1, not both 0 and 1 [Op:Reshape]".to_string(),
                ));
            }
            unknown = Some(i);
        } else if d < 0 {
            return Err(Error::invalid(format!(
                "Size {i} must be non-negative, not {d} [Op:Reshape]"
            )));
        } else {
            known = known
                .checked_mul(d as usize)
                .ok_or_else(|| Error::invalid("reshape: shape too large"))?;
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    match unknown {
        Some(i) => {
            if known == 0 || numel % known != 0 {
                return Err(Error::invalid(format!(
                    "Input to reshape is a tensor with {numel} values, but the requested shape requires a multiple of {known} [Op:Reshape]"
                )));
            }
            out[i] = numel / known;
        }
        None if known != numel => {
            return Err(Error::invalid(format!(
                "Input to reshape is a tensor with {numel} values, but the requested shape has {known} [Op:Reshape]"
            )))
        }
        None => {}
    }
    Ok(out)
}

/// Reshapes (row-major); one dimension may be `-1`.
pub fn reshape(x: &Tensor, shape: &[isize]) -> Result<Tensor> {
    let target = resolve_shape(x.numel(), shape)?;
    if target.as_slice() == x.shape() && !crate::tape::is_recording() {
        return Ok(x.clone());
    }
    let out = Tensor::from_storage(map_storage!(x.storage(), a => {
        if a.is_standard_layout() {
            a.clone().into_shape_with_order(IxDyn(&target)).expect("element counts match")
        } else {
            a.as_standard_layout().into_owned().into_shared().into_shape_with_order(IxDyn(&target)).expect("element counts match")
        }
    }));
    record("Reshape", &[x], &out, || {
        let back: Vec<isize> = x.shape().iter().map(|&d| d as isize).collect();
        rule(move |g, _| Ok(vec![Some(reshape(&g[0], &back)?)]))
    });
    Ok(out)
}

/// Permutes dimensions; `None` reverses them (TF's default).
pub fn transpose(x: &Tensor, perm: Option<&[usize]>) -> Result<Tensor> {
    let rank = x.rank();
    let perm: Vec<usize> = match perm {
        Some(p) => p.to_vec(),
        None => (0..rank).rev().collect(),
    };
    let mut seen = vec![false; rank];
    if perm.len() != rank
        || perm
            .iter()
            .any(|&p| p >= rank || std::mem::replace(&mut seen[p], true))
    {
        return Err(Error::invalid(format!(
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {} (perm {:?} is not a permutation of 0..{rank}) [Op:Transpose]",
            perm.len(),
            perm
        )));
    }
    let out = Tensor::from_storage(map_storage!(x.storage(), a => {
        a.view().permuted_axes(IxDyn(&perm)).as_standard_layout().into_owned().into_shared()
    }));
    record("Transpose", &[x], &out, || {
        let mut inv = vec![0; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i;
        }
        rule(move |g, _| Ok(vec![Some(transpose(&g[0], Some(&inv))?)]))
    });
    Ok(out)
}

/// Broadcasts to a shape (NumPy rules); the gradient sums back.
pub fn broadcast_to(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let b = broadcast_shapes("BroadcastTo", x.shape(), shape)?;
    if b.as_slice() != shape {
        return Err(Error::IncompatibleShapes {
            op: "BroadcastTo",
            lhs: ShapeDisplay::of(x.shape()),
            rhs: ShapeDisplay::of(shape),
        });
    }
    checked_numel(shape).ok_or_else(|| crate::tensor::too_large(shape, x.dtype()))?;
    let out = Tensor::from_storage(map_storage!(x.storage(), a => {
        a.broadcast(IxDyn(shape)).expect("checked").to_owned().into_shared()
    }));
    record("BroadcastTo", &[x], &out, || {
        let s = x.shape().to_vec();
        rule(move |g, _| Ok(vec![Some(unbroadcast(&g[0], &s)?)]))
    });
    Ok(out)
}

/// Converts elements to another dtype (floats truncate toward zero into
/// integers; nonzero is `true`). Differentiable between float dtypes only.
pub fn cast(x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    macro_rules! conv {
        ($a:expr, $t:ty, |$v:ident| $e:expr) => {
            $a.map(|&$v| $e).into_shared()
        };
    }
    let s = with_storage!(x.storage(), a => {
        match dtype {
            DType::F32 => Storage::F32(conv!(a, f32, |v| crate::kernels::ToF64::to_f64(v) as f32)),
            DType::F64 => Storage::F64(conv!(a, f64, |v| crate::kernels::ToF64::to_f64(v))),
            DType::I32 => Storage::I32(conv!(a, i32, |v| crate::kernels::ToF64::to_f64(v) as i32)),
            DType::I64 => Storage::I64(conv!(a, i64, |v| crate::kernels::ToF64::to_f64(v) as i64)),
            DType::Bool => Storage::Bool(conv!(a, bool, |v| crate::kernels::ToF64::to_f64(v) != 0.0)),
        }
    });
    let out = Tensor::from_storage(s);
    if x.dtype().is_floating() && dtype.is_floating() {
        record("Cast", &[x], &out, || {
            let src = x.dtype();
            rule(move |g, _| Ok(vec![Some(cast(&g[0], src)?)]))
        });
    }
    Ok(out)
}

/// Picks `a` where `cond` is true and `b` elsewhere, with broadcasting.
pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let c = cond.array::<bool>().map_err(|_| Error::UnsupportedDType {
        op: "SelectV2",
        dtype: cond.dtype(),
        allowed: "bool (condition)",
    })?;
    crate::kernels::same_dtype("SelectV2", a, b)?;
    let out = match (a.storage(), b.storage()) {
        (Storage::F32(p), Storage::F32(q)) => Tensor::from_array(zip3_map(
            "SelectV2",
            c,
            p,
            q,
            |c, x, y| if c { x } else { y },
        )?),
        (Storage::F64(p), Storage::F64(q)) => Tensor::from_array(zip3_map(
            "SelectV2",
            c,
            p,
            q,
            |c, x, y| if c { x } else { y },
        )?),
        (Storage::I32(p), Storage::I32(q)) => Tensor::from_array(zip3_map(
            "SelectV2",
            c,
            p,
            q,
            |c, x, y| if c { x } else { y },
        )?),
        (Storage::I64(p), Storage::I64(q)) => Tensor::from_array(zip3_map(
            "SelectV2",
            c,
            p,
            q,
            |c, x, y| if c { x } else { y },
        )?),
        (Storage::Bool(p), Storage::Bool(q)) => Tensor::from_array(zip3_map(
            "SelectV2",
            c,
            p,
            q,
            |c, x, y| if c { x } else { y },
        )?),
        _ => unreachable!("dtypes checked equal"),
    };
    record("SelectV2", &[cond, a, b], &out, || {
        let (cond, sa, sb) = (cond.clone(), a.shape().to_vec(), b.shape().to_vec());
        rule(move |g, needs| {
            let z = zeros_like(&g[0])?;
            Ok(vec![
                None,
                if needs[1] {
                    Some(unbroadcast(&where_(&cond, &g[0], &z)?, &sa)?)
                } else {
                    None
                },
                if needs[2] {
                    Some(unbroadcast(&where_(&cond, &z, &g[0])?, &sb)?)
                } else {
                    None
                },
            ])
        })
    });
    Ok(out)
}

/// Zeros with the shape and dtype of `x` (not recorded: constant).
pub fn zeros_like(x: &Tensor) -> Result<Tensor> {
    Tensor::zeros(x.shape(), x.dtype())
}

/// Ones with the shape and dtype of `x` (not recorded: constant).
pub fn ones_like(x: &Tensor) -> Result<Tensor> {
    Tensor::ones(x.shape(), x.dtype())
}
