//! Matrix products: 2-D and batched (batch dims broadcast), with transpose flags.

use faer::linalg::matmul::matmul as faer_matmul;
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{ArcArray, Array3, ArrayD, Axis, IxDyn};
use rayon::prelude::*;

use super::arith::Arith;
use super::{record, rule, unbroadcast};
use crate::error::{Error, Result};
use crate::kernels::same_dtype;
use crate::shape::{broadcast_shapes, ShapeDisplay};
use crate::tensor::{Storage, Tensor};

/// Work (multiply-adds) above which one product is split across threads:
/// below about 4M, waking the pool costs more than it saves (faer 0.24 on
/// 2 cores: 128^3 takes 47 us alone and 100 us split; 160^3 breaks even).
const PAR_FLOPS: usize = 1 << 22;

/// Float products via faer: strided views (transposes are free), one call per
/// batch, threads split the output (never the reduction), so results do not
/// depend on the thread count.
fn kernel_float<T>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    batch: &[usize],
    m: usize,
    n: usize,
) -> ArcArray<T, IxDyn>
where
    T: faer::traits::ComplexField + Copy + num_traits::Zero + num_traits::One + Send + Sync,
{
    // faer multiplies a transposed (column-major) left operand at about
    // two thirds of its row-major speed (1024^3: 95-111 against 146-172
    // GFLOP/s). A row-major copy of it costs m*k element moves against
    // m*n*k multiply-adds, so it pays only for wide products; at MLP shapes
    // (n = 256) the copy loses (784x128x256: 80-86 GFLOP/s with the copy,
    // 119-139 without).
    let k = if ta {
        a.shape()[a.ndim() - 2]
    } else {
        a.shape()[a.ndim() - 1]
    };
    if ta && n >= 512 && m * n * k >= PAR_FLOPS {
        let r = a.ndim();
        let mut perm: Vec<usize> = (0..r).collect();
        perm.swap(r - 2, r - 1);
        let at = crate::kernels::standard_owned(a.view().permuted_axes(IxDyn(&perm))).into_shared();
        return kernel_float(&at, b, false, tb, batch, m, n);
    }
    let mut shape = batch.to_vec();
    shape.extend([m, n]);
    let nb: usize = batch.iter().product();
    let mut out = vec![T::zero(); nb * m * n];
    if m * n == 0 {
        return ArrayD::from_shape_vec(IxDyn(&shape), out)
            .expect("sizes match")
            .into_shared();
    }
    // The section (if granted) lasts the whole product.
    let section = crate::kernels::parallel_section(nb * m * n * k, PAR_FLOPS);
    let par = |flops: usize| {
        if section.is_some() && flops >= PAR_FLOPS {
            Par::rayon(0)
        } else {
            Par::Seq
        }
    };
    // A batched `a` against a plain matrix `b`: one tall product, no copies of `b`.
    if b.ndim() == 2 && !ta && a.is_standard_layout() && a.shape()[..a.ndim() - 2] == *batch {
        let av = MatRef::from_row_major_slice(a.as_slice().expect("standard layout"), nb * m, k);
        let b2 = b.as_standard_layout();
        let bs = b2.as_slice().expect("standard layout");
        let bv = if tb {
            MatRef::from_row_major_slice(bs, n, k).transpose()
        } else {
            MatRef::from_row_major_slice(bs, k, n)
        };
        faer_matmul(
            MatMut::from_row_major_slice_mut(&mut out, nb * m, n),
            Accum::Replace,
            av,
            bv,
            T::one(),
            par(nb * m * n * k),
        );
        return ArrayD::from_shape_vec(IxDyn(&shape), out)
            .expect("sizes match")
            .into_shared();
    }
    // A plain matrix `a` against a batch of column vectors (a vectorized
    // Jacobian's row products): out[i] = op(a) @ b[i] for all i is one
    // product, [nb, k] @ op(a)^T, whose [nb, m] result is already `out`'s layout.
    if a.ndim() == 2
        && n == 1
        && nb > 1
        && b.is_standard_layout()
        && b.shape()[..b.ndim() - 2] == *batch
    {
        let bv = MatRef::from_row_major_slice(b.as_slice().expect("standard layout"), nb, k);
        let a2 = a.as_standard_layout();
        let asl = a2.as_slice().expect("standard layout");
        let at = if ta {
            MatRef::from_row_major_slice(asl, k, m)
        } else {
            MatRef::from_row_major_slice(asl, m, k).transpose()
        };
        faer_matmul(
            MatMut::from_row_major_slice_mut(&mut out, nb, m),
            Accum::Replace,
            bv,
            at,
            T::one(),
            par(nb * m * k),
        );
        return ArrayD::from_shape_vec(IxDyn(&shape), out)
            .expect("sizes match")
            .into_shared();
    }
    // A transposed left operand (a weight gradient, `x^T @ d`) below the
    // copy's width: the output's two row halves as two sequential products,
    // side by side when a section is granted. In an MLP training step this
    // beat faer's own split of the whole product (3-15% per step in 3 of 4
    // process pairs, fewer steps in none); the halves are the same whatever
    // the thread count, so the result is too.
    if nb == 1 && ta && m >= 64 && m * n * k >= PAR_FLOPS && a.ndim() == 2 && b.ndim() == 2 {
        let a2 = a.as_standard_layout();
        let b2 = b.as_standard_layout();
        let av = MatRef::from_row_major_slice(a2.as_slice().expect("standard"), k, m).transpose();
        let bs = b2.as_slice().expect("standard");
        let bv = if tb {
            MatRef::from_row_major_slice(bs, n, k).transpose()
        } else {
            MatRef::from_row_major_slice(bs, k, n)
        };
        let mid = m / 2;
        let (top, bot) = MatMut::from_row_major_slice_mut(&mut out, m, n).split_at_row_mut(mid);
        let run = |d: MatMut<'_, T>, a: MatRef<'_, T>| {
            faer_matmul(d, Accum::Replace, a, bv, T::one(), Par::Seq)
        };
        if section.is_some() {
            rayon::join(
                || run(top, av.subrows(0, mid)),
                || run(bot, av.subrows(mid, m - mid)),
            );
        } else {
            run(top, av.subrows(0, mid));
            run(bot, av.subrows(mid, m - mid));
        }
        return ArrayD::from_shape_vec(IxDyn(&shape), out)
            .expect("sizes match")
            .into_shared();
    }
    let a3 = as_batched(a, batch);
    let b3 = as_batched(b, batch);
    let (ra, ca) = (a3.shape()[1], a3.shape()[2]);
    let (rb, cb) = (b3.shape()[1], b3.shape()[2]);
    let (asl, bsl) = (
        a3.as_slice().expect("standard layout"),
        b3.as_slice().expect("standard layout"),
    );
    let one = |i: usize, dst: &mut [T], p: Par| {
        let av = MatRef::from_row_major_slice(&asl[i * ra * ca..(i + 1) * ra * ca], ra, ca);
        let bv = MatRef::from_row_major_slice(&bsl[i * rb * cb..(i + 1) * rb * cb], rb, cb);
        let av = if ta { av.transpose() } else { av };
        let bv = if tb { bv.transpose() } else { bv };
        faer_matmul(
            MatMut::from_row_major_slice_mut(dst, m, n),
            Accum::Replace,
            av,
            bv,
            T::one(),
            p,
        );
    };
    if nb > 1 && m * n * k < PAR_FLOPS && section.is_some() {
        out.par_chunks_mut(m * n)
            .enumerate()
            .for_each(|(i, dst)| one(i, dst, Par::Seq));
    } else {
        for (i, dst) in out.chunks_mut(m * n).enumerate() {
            one(i, dst, par(m * n * k));
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out)
        .expect("sizes match")
        .into_shared()
}

fn as_batched<T: Copy + Send + Sync>(
    a: &ArcArray<T, IxDyn>,
    batch: &[usize],
) -> ArcArray<T, ndarray::Ix3> {
    let r = a.ndim();
    let (rows, cols) = (a.shape()[r - 2], a.shape()[r - 1]);
    let nb: usize = batch.iter().product();
    let mut full: Vec<usize> = batch.to_vec();
    full.extend([rows, cols]);
    let owned = if a.shape() == full.as_slice() && a.is_standard_layout() {
        a.clone()
    } else {
        crate::kernels::standard_owned(a.broadcast(IxDyn(&full)).expect("batch dims were checked"))
            .into_shared()
    };
    owned
        .into_shape_with_order((nb, rows, cols))
        .expect("element counts match")
}

/// Integer matmul: a plain loop with wrapping arithmetic (TF's integer
/// kernels wrap on overflow; ndarray's would panic in a debug build).
fn kernel_int<T: Arith>(
    a: &ArcArray<T, IxDyn>,
    b: &ArcArray<T, IxDyn>,
    ta: bool,
    tb: bool,
    batch: &[usize],
    m: usize,
    n: usize,
) -> ArcArray<T, IxDyn> {
    let a3 = as_batched(a, batch);
    let b3 = as_batched(b, batch);
    let nb = a3.shape()[0];
    let k = if ta { a3.shape()[1] } else { a3.shape()[2] };
    let mut out = Array3::<T>::zeros((nb, m, n));
    for i in 0..nb {
        let av = a3.index_axis(Axis(0), i);
        let bv = b3.index_axis(Axis(0), i);
        let av = if ta { av.reversed_axes() } else { av };
        let bv = if tb { bv.reversed_axes() } else { bv };
        let mut o = out.index_axis_mut(Axis(0), i);
        for r in 0..m {
            for p in 0..k {
                let x = av[[r, p]];
                for c in 0..n {
                    let d = &mut o[[r, c]];
                    *d = Arith::add(*d, Arith::mul(x, bv[[p, c]]));
                }
            }
        }
    }
    let mut shape = batch.to_vec();
    shape.extend([m, n]);
    out.into_shape_with_order(IxDyn(&shape))
        .expect("element counts match")
        .into_shared()
}

/// Matrix product of the last two dims, `op(a) @ op(b)` where `op` transposes
/// when the flag is set. Leading (batch) dims broadcast.
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Tensor> {
    same_dtype("MatMul", a, b)?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() < 2 || sb.len() < 2 {
        return Err(Error::invalid(format!(
            "In[0] and In[1] must have rank >= 2, got shapes {} and {} [Op:MatMul]",
            ShapeDisplay::of(sa),
            ShapeDisplay::of(sb)
        )));
    }
    let (ra, rb) = (sa.len(), sb.len());
    let (m, k1) = if transpose_a {
        (sa[ra - 1], sa[ra - 2])
    } else {
        (sa[ra - 2], sa[ra - 1])
    };
    let (k2, n) = if transpose_b {
        (sb[rb - 1], sb[rb - 2])
    } else {
        (sb[rb - 2], sb[rb - 1])
    };
    let mismatch = || {
        Error::invalid(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} [Op:MatMul]",
            ShapeDisplay::of(sa),
            ShapeDisplay::of(sb)
        ))
    };
    if k1 != k2 {
        return Err(mismatch());
    }
    let batch = broadcast_shapes("MatMul", &sa[..ra - 2], &sb[..rb - 2]).map_err(|_| mismatch())?;
    let mut out_shape = batch.clone();
    out_shape.extend([m, n]);
    crate::tensor::check_alloc(&out_shape, a.dtype())?;
    let out = Tensor::from_storage(match (a.storage(), b.storage()) {
        (Storage::F32(p), Storage::F32(q)) => {
            Storage::F32(kernel_float(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::F64(p), Storage::F64(q)) => {
            Storage::F64(kernel_float(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::I32(p), Storage::I32(q)) => {
            Storage::I32(kernel_int(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        (Storage::I64(p), Storage::I64(q)) => {
            Storage::I64(kernel_int(p, q, transpose_a, transpose_b, &batch, m, n))
        }
        _ => {
            return Err(Error::UnsupportedDType {
                op: "MatMul",
                dtype: a.dtype(),
                allowed: "float32, float64, int32, int64",
            })
        }
    });
    record("MatMul", &[a, b], &out, || {
        let (a, b) = (a.clone(), b.clone());
        let (ta, tb) = (transpose_a, transpose_b);
        rule(move |g, needs| {
            let g = &g[0];
            // TensorFlow's _MatMulGrad, case by case.
            let ga = if needs[0] {
                let r = match (ta, tb) {
                    (false, false) => matmul(g, &b, false, true)?,
                    (false, true) => matmul(g, &b, false, false)?,
                    (true, false) => matmul(&b, g, false, true)?,
                    (true, true) => matmul(&b, g, true, true)?,
                };
                Some(unbroadcast(&r, a.shape())?)
            } else {
                None
            };
            let gb = if needs[1] {
                let r = match (ta, tb) {
                    (false, false) => matmul(&a, g, true, false)?,
                    (false, true) => matmul(g, &a, true, false)?,
                    (true, false) => matmul(&a, g, false, false)?,
                    (true, true) => matmul(g, &a, true, true)?,
                };
                Some(unbroadcast(&r, b.shape())?)
            } else {
                None
            };
            Ok(vec![ga, gb])
        })
    });
    Ok(out)
}
