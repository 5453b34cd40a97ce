//! Convolution and pooling (NHWC), built on one linear primitive: patch
//! extraction (im2col) and its adjoint. A convolution is patches @ filter, a
//! pooling is a reduction over each patch; gradients of any order follow
//! because `patches` and `patches_adjoint` are each other's gradient.

use ndarray::{ArcArray, Array4, IxDyn};

use super::{describe_attr_op, record, rule};
use crate::error::{Error, Result};
use crate::ops;
use crate::shape::ShapeDisplay;
use crate::tensor::{Storage, Tensor};

/// TensorFlow's padding schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Padding {
    /// Output size `ceil(in / stride)`, zero padding split evenly (extra after).
    Same,
    /// No padding: windows stay inside the input.
    Valid,
}

/// Window geometry over the spatial dims of an NHWC tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Kernel height and width.
    pub size: [usize; 2],
    /// Strides along height and width.
    pub strides: [usize; 2],
    /// Dilations along height and width.
    pub dilations: [usize; 2],
    /// Padding scheme.
    pub padding: Padding,
}

#[derive(Debug, Clone, Copy)]
struct Geom {
    n: usize,
    h: usize,
    w: usize,
    c: usize,
    kh: usize,
    kw: usize,
    sh: usize,
    sw: usize,
    dh: usize,
    dw: usize,
    top: usize,
    left: usize,
    oh: usize,
    ow: usize,
}

fn out_dim(
    input: usize,
    k: usize,
    stride: usize,
    dil: usize,
    padding: Padding,
) -> Result<(usize, usize)> {
    let eff = (k - 1) * dil + 1;
    Ok(match padding {
        Padding::Same => {
            let out = input.div_ceil(stride);
            let total = ((out.saturating_sub(1)) * stride + eff).saturating_sub(input);
            (out, total / 2)
        }
        Padding::Valid => {
            // TF's rule (C++ division truncates toward zero): a window larger
            // than the input by a stride or more is an error, not an empty output.
            let out = (input as i128 - eff as i128) / stride as i128 + 1;
            if out < 0 {
                return Err(Error::invalid(format!(
                    "Computed output size would be negative: {out} [input_size: {input}, effective_filter_size: {eff}, stride: {stride}]"
                )));
            }
            (out as usize, 0)
        }
    })
}

fn geometry(shape: &[usize], win: &Window) -> Result<Geom> {
    if shape.len() != 4 {
        return Err(Error::invalid(format!(
            "input must be 4-dimensional (NHWC), got shape {}",
            ShapeDisplay::of(shape)
        )));
    }
    if win.size.contains(&0) || win.strides.contains(&0) || win.dilations.contains(&0) {
        return Err(Error::invalid(format!(
            "window sizes, strides and dilations must be positive, got {:?}, {:?}, {:?}",
            win.size, win.strides, win.dilations
        )));
    }
    let (oh, top) = out_dim(
        shape[1],
        win.size[0],
        win.strides[0],
        win.dilations[0],
        win.padding,
    )?;
    let (ow, left) = out_dim(
        shape[2],
        win.size[1],
        win.strides[1],
        win.dilations[1],
        win.padding,
    )?;
    Ok(Geom {
        n: shape[0],
        h: shape[1],
        w: shape[2],
        c: shape[3],
        kh: win.size[0],
        kw: win.size[1],
        sh: win.strides[0],
        sw: win.strides[1],
        dh: win.dilations[0],
        dw: win.dilations[1],
        top,
        left,
        oh,
        ow,
    })
}

impl Geom {
    /// The input position of window tap (i, j) at output (y, x), if inside.
    #[inline]
    fn source(&self, y: usize, x: usize, i: usize, j: usize) -> Option<(usize, usize)> {
        let ih = (y * self.sh + i * self.dh).checked_sub(self.top)?;
        let iw = (x * self.sw + j * self.dw).checked_sub(self.left)?;
        (ih < self.h && iw < self.w).then_some((ih, iw))
    }
}

fn extract<T: Copy>(a: &ArcArray<T, IxDyn>, g: &Geom, fill: T) -> ArcArray<T, IxDyn> {
    let x = a
        .view()
        .into_dimensionality::<ndarray::Ix4>()
        .expect("rank checked");
    let k = g.kh * g.kw * g.c;
    let mut out = Array4::from_elem((g.n, g.oh, g.ow, k), fill);
    for b in 0..g.n {
        for y in 0..g.oh {
            for xx in 0..g.ow {
                for i in 0..g.kh {
                    for j in 0..g.kw {
                        if let Some((ih, iw)) = g.source(y, xx, i, j) {
                            let base = (i * g.kw + j) * g.c;
                            for ch in 0..g.c {
                                out[[b, y, xx, base + ch]] = x[[b, ih, iw, ch]];
                            }
                        }
                    }
                }
            }
        }
    }
    out.into_dyn().into_shared()
}

fn accumulate<T: super::arith::Arith>(a: &ArcArray<T, IxDyn>, g: &Geom) -> ArcArray<T, IxDyn> {
    let p = a
        .view()
        .into_dimensionality::<ndarray::Ix4>()
        .expect("rank checked");
    let mut out = Array4::<T>::zeros((g.n, g.h, g.w, g.c));
    for b in 0..g.n {
        for y in 0..g.oh {
            for xx in 0..g.ow {
                for i in 0..g.kh {
                    for j in 0..g.kw {
                        if let Some((ih, iw)) = g.source(y, xx, i, j) {
                            let base = (i * g.kw + j) * g.c;
                            for ch in 0..g.c {
                                let d = &mut out[[b, ih, iw, ch]];
                                *d = super::arith::Arith::add(*d, p[[b, y, xx, base + ch]]);
                            }
                        }
                    }
                }
            }
        }
    }
    out.into_dyn().into_shared()
}

describe_attr_op!(
    ExtractImagePatches {
        win: Window,
        fill: f64
    },
    "ExtractImagePatches",
    |op, [x]| patches(x, &op.win, op.fill)
);
describe_attr_op!(
    ExtractImagePatchesGrad { input_shape: Vec<usize>, win: Window },
    "ExtractImagePatchesGrad",
    |op, [p]| patches_adjoint(p, &op.input_shape, &op.win)
);

/// Image patches: `[N, OH, OW, kh*kw*C]`, each patch flattened in (row, col,
/// channel) order; positions outside the input read `fill`.
pub fn patches(x: &Tensor, win: &Window, fill: f64) -> Result<Tensor> {
    let g = geometry(x.shape(), win)?;
    let out = Tensor::from_storage(match x.storage() {
        Storage::F32(a) => Storage::F32(extract(a, &g, fill as f32)),
        Storage::F64(a) => Storage::F64(extract(a, &g, fill)),
        Storage::I32(a) => Storage::I32(extract(a, &g, fill as i32)),
        Storage::I64(a) => Storage::I64(extract(a, &g, fill as i64)),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "ExtractImagePatches",
                dtype: x.dtype(),
                allowed: "numeric",
            })
        }
    });
    let op = ExtractImagePatches { win: *win, fill };
    record(op, &[x], &[&out], || {
        let (shape, win) = (x.shape().to_vec(), *win);
        rule(move |gr, _| Ok(vec![Some(patches_adjoint(&gr[0], &shape, &win)?)]))
    });
    Ok(out)
}

/// The adjoint of [`patches`]: sums each patch entry back into its input
/// position (an input of shape `input_shape`).
pub fn patches_adjoint(p: &Tensor, input_shape: &[usize], win: &Window) -> Result<Tensor> {
    let g = geometry(input_shape, win)?;
    if p.shape() != [g.n, g.oh, g.ow, g.kh * g.kw * g.c] {
        return Err(Error::invalid(format!(
            "patches gradient of shape {} does not fit input shape {}",
            ShapeDisplay::of(p.shape()),
            ShapeDisplay::of(input_shape)
        )));
    }
    let out = Tensor::from_storage(match p.storage() {
        Storage::F32(a) => Storage::F32(accumulate(a, &g)),
        Storage::F64(a) => Storage::F64(accumulate(a, &g)),
        Storage::I32(a) => Storage::I32(accumulate(a, &g)),
        Storage::I64(a) => Storage::I64(accumulate(a, &g)),
        _ => {
            return Err(Error::UnsupportedDType {
                op: "ExtractImagePatchesGrad",
                dtype: p.dtype(),
                allowed: "numeric",
            })
        }
    });
    let op = ExtractImagePatchesGrad {
        input_shape: input_shape.to_vec(),
        win: *win,
    };
    record(op, &[p], &[&out], || {
        let win = *win;
        rule(move |gr, _| Ok(vec![Some(patches(&gr[0], &win, 0.0)?)]))
    });
    Ok(out)
}

/// 2-D convolution, NHWC input and `[kh, kw, in, out]` filters (as `tf.nn.conv2d`).
pub fn conv2d(
    input: &Tensor,
    filters: &Tensor,
    strides: [usize; 2],
    padding: Padding,
    dilations: [usize; 2],
) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("Conv2D", &[input, filters], |w| {
        conv2d(&w[0], &w[1], strides, padding, dilations)
    }) {
        return r;
    }
    let (s, f) = (input.shape(), filters.shape());
    if f.len() != 4 || s.len() != 4 || f[2] != s[3] {
        return Err(Error::invalid(format!(
            "input depth must be evenly divisible by filter depth: input {} vs filter {} [Op:Conv2D]",
            ShapeDisplay::of(s),
            ShapeDisplay::of(f)
        )));
    }
    let win = Window {
        size: [f[0], f[1]],
        strides,
        dilations,
        padding,
    };
    let p = patches(input, &win, 0.0)?;
    let (n, oh, ow) = (p.shape()[0], p.shape()[1], p.shape()[2]);
    let k = (f[0] * f[1] * f[2]) as isize;
    let p2 = ops::reshape(&p, &[(n * oh * ow) as isize, k])?;
    let w2 = ops::reshape(filters, &[k, f[3] as isize])?;
    ops::reshape(
        &ops::matmul(&p2, &w2)?,
        &[n as isize, oh as isize, ow as isize, f[3] as isize],
    )
}

fn windows(
    input: &Tensor,
    ksize: [usize; 2],
    strides: [usize; 2],
    padding: Padding,
    fill: f64,
) -> Result<(Tensor, Window)> {
    let win = Window {
        size: ksize,
        strides,
        dilations: [1, 1],
        padding,
    };
    let p = patches(input, &win, fill)?;
    let s = p.shape();
    let w = ops::reshape(
        &p,
        &[
            s[0] as isize,
            s[1] as isize,
            s[2] as isize,
            (ksize[0] * ksize[1]) as isize,
            input.shape()[3] as isize,
        ],
    )?;
    Ok((w, win))
}

describe_attr_op!(
    MaxPool {
        ksize: [usize; 2],
        strides: [usize; 2],
        padding: Padding
    },
    "MaxPool",
    |op, [x]| max_pool2d(x, op.ksize, op.strides, op.padding)
);

/// Max pooling (NHWC). The gradient goes to the first maximum of each window,
/// as TF's `MaxPoolGrad`; a NaN in a window is its maximum (it propagates, as
/// in `reduce_max`; TF's kernel drops it). The gradient's own derivative with
/// respect to the input is zeros (TF's `MaxPoolGradGrad` gives zeros there).
pub fn max_pool2d(
    input: &Tensor,
    ksize: [usize; 2],
    strides: [usize; 2],
    padding: Padding,
) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("MaxPool", &[input], |w| {
        max_pool2d(&w[0], ksize, strides, padding)
    }) {
        return r;
    }
    // The narrow integers in int64 (exact; integers are never watched).
    if let Some(r) =
        super::half::via_i64("MaxPool", input, |w| max_pool2d(w, ksize, strides, padding))
    {
        return r;
    }
    if matches!(input.dtype(), crate::DType::Bool) || input.dtype().is_complex() {
        return Err(Error::UnsupportedDType {
            op: "MaxPool",
            dtype: input.dtype(),
            allowed:
                "half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8",
        });
    }
    let (y, mask, win) = crate::record::RecordingContext::default().enter(|| {
        let (w, win) = windows(input, ksize, strides, padding, f64::NEG_INFINITY)?;
        let first = super::reduce::argmax_nan_first(&w, 3)?;
        let mask = ops::cast(
            &ops::one_hot(&first, ksize[0] * ksize[1], 1.0, 0.0, 3, crate::DType::I32)?,
            crate::DType::Bool,
        )?;
        let y = ops::reduce_sum(
            &ops::where_(&mask, &w, &ops::zeros_like(&w)?)?,
            Some(&[3]),
            false,
        )?;
        Ok::<_, Error>((y, mask, win))
    })?;
    let op = MaxPool {
        ksize,
        strides,
        padding,
    };
    record(op, &[input], &[&y], || {
        let x = input.clone();
        rule(move |g, _| {
            // Each window's gradient to its selected tap, summed back into the input.
            let s = mask.shape().to_vec();
            let ge = ops::expand_dims(&g[0], 3)?;
            let sel = ops::where_(&mask, &ge, &ops::zeros_like(&ge)?)?;
            let p = ops::reshape(
                &sel,
                &[
                    s[0] as isize,
                    s[1] as isize,
                    s[2] as isize,
                    (s[3] * s[4]) as isize,
                ],
            )?;
            let d = patches_adjoint(&p, x.shape(), &win)?;
            Ok(vec![Some(super::grad::zero_dependence(&d, &x))])
        })
    });
    Ok(y)
}

/// Average pooling (NHWC); padded positions are not counted (as TF).
pub fn avg_pool2d(
    input: &Tensor,
    ksize: [usize; 2],
    strides: [usize; 2],
    padding: Padding,
) -> Result<Tensor> {
    if let Some(r) = super::half::via_f32("AvgPool", &[input], |w| {
        avg_pool2d(&w[0], ksize, strides, padding)
    }) {
        return r;
    }
    let (w, win) = windows(input, ksize, strides, padding, 0.0)?;
    let sum = ops::reduce_sum(&w, Some(&[3]), false)?;
    let s = input.shape();
    let ones = Tensor::ones(&[1, s[1], s[2], 1], input.dtype())?;
    let counts = ops::reduce_sum(&patches(&ones, &win, 0.0)?, Some(&[3]), true)?;
    ops::div(&sum, &counts)
}
