//! Shapes and NumPy broadcasting.

use smallvec::SmallVec;

pub use crate::dims::{Dims, ShapeDisplay};
use crate::error::{Error, Result};

/// The NumPy broadcast of two shapes, or `IncompatibleShapes` naming both.
pub fn broadcast_shapes(op: &'static str, a: &[usize], b: &[usize]) -> Result<Dims> {
    if a == b {
        return Ok(a.iter().copied().collect());
    }
    let n = a.len().max(b.len());
    let mut out: Dims = SmallVec::with_capacity(n);
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        let d = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::IncompatibleShapes {
                op,
                lhs: ShapeDisplay::of(a),
                rhs: ShapeDisplay::of(b),
            });
        };
        out.push(d);
    }
    Ok(out)
}

/// The axes of `out` along which a tensor of shape `inp` was broadcast to reach `out`.
///
/// Summing a gradient of shape `out` over these axes (and reshaping) gives a
/// gradient of shape `inp`.
pub fn broadcast_reduction_axes(inp: &[usize], out: &[usize]) -> Vec<usize> {
    let lead = out.len() - inp.len();
    let mut axes: Vec<usize> = (0..lead).collect();
    for (i, &d) in inp.iter().enumerate() {
        if d == 1 && out[lead + i] != 1 {
            axes.push(lead + i);
        }
    }
    axes
}

/// Resolves a possibly negative axis against a rank.
pub fn normalize_axis(axis: isize, rank: usize) -> Result<usize> {
    let r = rank as isize;
    if axis < -r || axis >= r {
        return Err(Error::invalid(format!(
            "Invalid reduction dimension ({axis} for input with {rank} dimension(s)"
        )));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

/// Number of elements of a shape, or an error if it overflows `usize`.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(
            broadcast_shapes("Add", &[2, 1, 3], &[4, 1])
                .unwrap()
                .as_slice(),
            &[2, 4, 3]
        );
        assert_eq!(broadcast_shapes("Add", &[], &[5]).unwrap().as_slice(), &[5]);
        let err = broadcast_shapes("AddV2", &[2], &[3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Incompatible shapes: [2] vs. [3] [Op:AddV2]"
        );
    }

    #[test]
    fn reduction_axes_undo_broadcasting() {
        assert_eq!(broadcast_reduction_axes(&[3], &[2, 3]), vec![0]);
        assert_eq!(broadcast_reduction_axes(&[2, 1], &[2, 3]), vec![1]);
        assert_eq!(broadcast_reduction_axes(&[], &[2, 3]), vec![0, 1]);
    }

    #[test]
    fn axes_normalize() {
        assert_eq!(normalize_axis(-1, 3).unwrap(), 2);
        assert!(normalize_axis(3, 3).is_err());
        assert!(normalize_axis(-4, 3).is_err());
    }
}
