//! Pointwise local derivatives, written once per op.
//!
//! An elementwise op declares its derivative with [`pointwise!`]: one scalar
//! formula per input, over the output gradient `g` and the saved values `a`,
//! `b` (its inputs, or its output). The macro turns each formula into
//! * a chunk kernel (SIMD-dispatched), which the op's own gradient rule runs
//!   over whole tensors when nothing records it, and which the fused
//!   backward pass runs chunk by chunk, so both give the same bits;
//! * the same formula on tensors with the public ops ([`Expr`]), which the
//!   rule uses when an outer tape records it (higher derivatives) or when
//!   shapes differ (broadcast operands, a vectorized Jacobian's row dims).

use std::ops::{Add, Div, Mul, Neg, Sub};
use std::sync::Arc;

use smallvec::SmallVec;

use super::{op_ref, unbroadcast};
use crate::dtype::DType;
use crate::error::Result;
use crate::op::{Acc, Op, Pointwise, Saves};
use crate::record::{self, Fusable};
use crate::tensor::{Element, Storage, Tensor, TensorId};

/// Ops below this many elements are not worth fusing (nor is what fusion
/// needs kept when they are recorded).
pub(crate) const FUSE_MIN: usize = 1 << 16;

/// What a derivative formula computes with: a scalar (chunk kernels) or a
/// tensor expression (the public ops).
pub(crate) trait Value:
    Sized
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The constant `v` in this value's type.
    fn lit(&self, v: f64) -> Self;
    /// `g * (self > 0)` (TF's `ReluGrad`: NaN where `g` is infinite and `self`
    /// is not positive). On tensors, the result also depends on `self` with a
    /// zero derivative, so a second derivative through it is zeros, not `None`.
    fn times_positive(&self, g: impl Into<Self>) -> Self;
    /// `v` where `self` (an upstream gradient) is nonzero, 0 where it is 0:
    /// TF's `SqrtGrad`, `RsqrtGrad` and `ReciprocalGrad` give 0 for a zero
    /// upstream even where the local derivative is infinite.
    fn unless_zero(&self, v: impl Into<Self>) -> Self;
    /// `g` where `self order b` holds and 0 elsewhere (`kept`), or the
    /// reverse (`!kept`): TF's `MaximumGrad`/`MinimumGrad`, a select (an
    /// infinite `g` where it is not taken gives 0, not NaN).
    fn picked(&self, b: impl Into<Self>, g: impl Into<Self>, order: Order, kept: bool) -> Self;
}

/// The comparison behind [`Value::picked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// `a >= b` (maximum: the tie goes to `a`).
    Ge,
    /// `a <= b` (minimum).
    Le,
}

macro_rules! float_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            #[inline(always)]
            fn lit(&self, v: f64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn times_positive(&self, g: impl Into<$t>) -> $t {
                g.into() * if *self > 0.0 { 1.0 } else { 0.0 }
            }
            #[inline(always)]
            fn unless_zero(&self, v: impl Into<$t>) -> $t {
                if *self == 0.0 {
                    0.0
                } else {
                    v.into()
                }
            }
            #[inline(always)]
            fn picked(&self, b: impl Into<$t>, g: impl Into<$t>, order: Order, kept: bool) -> $t {
                let b = b.into();
                let holds = match order {
                    Order::Ge => *self >= b,
                    Order::Le => *self <= b,
                };
                if holds == kept {
                    g.into()
                } else {
                    0.0
                }
            }
        }
    )*};
}
float_value!(f32, f64);

/// What a derivative formula reads, found by running it on these: each
/// value is the set of formula arguments it was computed from (bit 0 `g`,
/// bit 1 `a`, bit 2 `b`), and every operation takes the union.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reads(pub(crate) u8);

macro_rules! reads_binary {
    ($($Trait:ident $method:ident;)*) => {$(
        impl $Trait for Reads {
            type Output = Reads;
            // The union of what both operands read, whatever the operation.
            #[allow(clippy::suspicious_arithmetic_impl)]
            fn $method(self, o: Reads) -> Reads {
                Reads(self.0 | o.0)
            }
        }
    )*};
}
reads_binary!(Add add; Sub sub; Mul mul; Div div;);

impl Neg for Reads {
    type Output = Reads;
    fn neg(self) -> Reads {
        self
    }
}

impl Value for Reads {
    fn lit(&self, _v: f64) -> Reads {
        Reads(0)
    }

    fn times_positive(&self, g: impl Into<Reads>) -> Reads {
        Reads(self.0 | g.into().0)
    }

    fn unless_zero(&self, v: impl Into<Reads>) -> Reads {
        Reads(self.0 | v.into().0)
    }

    fn picked(
        &self,
        b: impl Into<Reads>,
        g: impl Into<Reads>,
        _order: Order,
        _kept: bool,
    ) -> Reads {
        Reads(self.0 | b.into().0 | g.into().0)
    }
}

/// A tensor in a derivative formula: each operator runs the public op
/// (recorded by active tapes); the first error is carried to the end.
#[derive(Clone)]
pub(crate) struct Expr(pub Result<Tensor>);

impl Expr {
    pub fn of(t: &Tensor) -> Expr {
        Expr(Ok(t.clone()))
    }

    fn apply(&self, other: &Expr, f: impl FnOnce(&Tensor, &Tensor) -> Result<Tensor>) -> Expr {
        Expr(match (&self.0, &other.0) {
            (Ok(a), Ok(b)) => f(a, b),
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
        })
    }
}

macro_rules! expr_binary {
    ($($Trait:ident $method:ident $op:path;)*) => {$(
        impl $Trait for Expr {
            type Output = Expr;
            fn $method(self, o: Expr) -> Expr {
                self.apply(&o, $op)
            }
        }
        impl $Trait<&Expr> for Expr {
            type Output = Expr;
            fn $method(self, o: &Expr) -> Expr {
                self.apply(o, $op)
            }
        }
        impl $Trait<Expr> for &Expr {
            type Output = Expr;
            fn $method(self, o: Expr) -> Expr {
                self.apply(&o, $op)
            }
        }
        impl $Trait<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, o: &Expr) -> Expr {
                self.apply(o, $op)
            }
        }
    )*};
}
expr_binary!(
    Add add super::add;
    Sub sub super::sub;
    Mul mul super::mul;
    Div div super::div;
);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr(self.0.and_then(|t| super::neg(&t)))
    }
}

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.clone().neg()
    }
}

impl Value for Expr {
    fn lit(&self, v: f64) -> Expr {
        Expr(
            self.0
                .as_ref()
                .map(|t| Tensor::scalar_of(t.dtype(), v))
                .map_err(Clone::clone),
        )
    }

    fn times_positive(&self, g: impl Into<Expr>) -> Expr {
        self.apply(&g.into(), |x, g| {
            let positive = super::greater(x, &Tensor::scalar_of(x.dtype(), 0.0))?;
            let d = super::mul(g, &super::cast(&positive, g.dtype())?)?;
            Ok(super::grad::zero_dependence(&d, x))
        })
    }

    fn unless_zero(&self, v: impl Into<Expr>) -> Expr {
        self.apply(&v.into(), |g, v| {
            let zero = super::equal(g, &Tensor::scalar_of(g.dtype(), 0.0))?;
            super::where_(&zero, &super::zeros_like(v)?, v)
        })
    }

    fn picked(&self, b: impl Into<Expr>, g: impl Into<Expr>, order: Order, kept: bool) -> Expr {
        let mask = self.apply(&b.into(), |a, b| match order {
            Order::Ge => super::greater_equal(a, b),
            Order::Le => super::less_equal(a, b),
        });
        mask.apply(&g.into(), |mask, g| {
            let zeros = super::zeros_like(g)?;
            if kept {
                super::where_(mask, g, &zeros)
            } else {
                super::where_(mask, &zeros, g)
            }
        })
    }
}

/// Chunks shorter than this skip the SIMD dispatch (scalars and tiny
/// tensors: the dispatch would cost more than the loop).
pub(crate) const SIMD_MIN: usize = 64;

/// A loop body to run under pulp's runtime SIMD dispatch. Implementors mark
/// `run` `#[inline(always)]`: the body then compiles inside pulp's
/// target-feature function, for the CPU's vector width (the wheel's baseline
/// is SSE2). A closure would not do: its body is a function of its own that
/// LLVM may leave out of line, compiled for the baseline.
pub(crate) trait Kernel {
    /// The loop.
    fn run(self);
}

/// Runs `k` inside pulp's runtime SIMD dispatch.
#[inline(always)]
pub(crate) fn simd<K: Kernel>(k: K) {
    struct Job<K>(K);
    impl<K: Kernel> pulp::WithSimd for Job<K> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) {
            self.0.run()
        }
    }
    pulp::Arch::new().dispatch(Job(k))
}

/// Declares a pointwise local derivative: a unit struct implementing
/// [`Pointwise`] from one formula per input (`k: |g, a, b| formula`, where
/// `a`, `b` are the saved values: the inputs, or the output as `a`). Inputs
/// listed in `through` receive the gradient unchanged; `scales: [k => j]`
/// says input `k`'s formula is `g` times saved value `j` (a product's).
macro_rules! pointwise {
    (
        $(#[$m:meta])*
        $Name:ident {
            arity: $n:literal,
            saves: $saves:ident,
            $(through: [$($t:literal),*],)?
            $(scales: [$($sk:literal => $sj:literal),*],)?
            $($k:literal: |$g:ident, $a:ident, $b:ident| $f:expr),+ $(,)?
        }
    ) => {
        $(#[$m])*
        pub(crate) struct $Name;

        impl $Name {
            #[inline(always)]
            #[allow(unused_variables)]
            fn chunk<T>(k: usize, g: &[T], v: [&[T]; 2], acc: $crate::op::Acc<'_, T>)
            where
                T: $crate::ops::pointwise::Value + Copy,
            {
                let n = g.len();
                let (g, a, b) = (g, &v[0][..n], &v[1][..n]);
                match k {
                    $($k => acc.add(n, |i| {
                        let ($g, $a, $b) = (g[i], a[i], b[i]);
                        $f
                    }),)+
                    _ => {}
                }
            }

            #[inline(always)]
            #[allow(unused_variables)]
            fn scalar<T>(k: usize, g: T, v: [T; 2]) -> T
            where
                T: $crate::ops::pointwise::Value + Copy,
            {
                match k {
                    $($k => {
                        let ($g, $a, $b) = (g, v[0], v[1]);
                        $f
                    })+
                    _ => g,
                }
            }
        }

        impl $crate::op::Pointwise for $Name {
            fn arity(&self) -> usize {
                $n
            }

            fn saves(&self) -> $crate::op::Saves {
                $crate::op::Saves::$saves
            }

            fn passes_through(&self, k: usize) -> bool {
                [$($($t),*)?].contains(&k)
            }

            fn scales(&self, k: usize) -> Option<usize> {
                let pairs: &[(usize, usize)] = &[$($(($sk, $sj)),*)?];
                pairs.iter().find(|p| p.0 == k).map(|p| p.1)
            }

            #[allow(unused_variables)]
            fn reads(&self, k: usize) -> [bool; 2] {
                #[allow(unused_imports)]
                use $crate::ops::pointwise::{Reads, Value as _};
                let r: Reads = match k {
                    $($k => {
                        let ($g, $a, $b) = (Reads(1), Reads(2), Reads(4));
                        $f
                    })+
                    _ => Reads(0),
                };
                [r.0 & 2 != 0, r.0 & 4 != 0]
            }

            fn chunk_f32(&self, k: usize, g: &[f32], v: [&[f32]; 2], acc: $crate::op::Acc<'_, f32>) {
                if g.len() < $crate::ops::pointwise::SIMD_MIN {
                    Self::chunk(k, g, v, acc)
                } else {
                    struct Job<'a>(usize, &'a [f32], [&'a [f32]; 2], $crate::op::Acc<'a, f32>);
                    impl $crate::ops::pointwise::Kernel for Job<'_> {
                        #[inline(always)]
                        fn run(self) {
                            $Name::chunk(self.0, self.1, self.2, self.3)
                        }
                    }
                    $crate::ops::pointwise::simd(Job(k, g, v, acc))
                }
            }

            fn chunk_f64(&self, k: usize, g: &[f64], v: [&[f64]; 2], acc: $crate::op::Acc<'_, f64>) {
                if g.len() < $crate::ops::pointwise::SIMD_MIN {
                    Self::chunk(k, g, v, acc)
                } else {
                    struct Job<'a>(usize, &'a [f64], [&'a [f64]; 2], $crate::op::Acc<'a, f64>);
                    impl $crate::ops::pointwise::Kernel for Job<'_> {
                        #[inline(always)]
                        fn run(self) {
                            $Name::chunk(self.0, self.1, self.2, self.3)
                        }
                    }
                    $crate::ops::pointwise::simd(Job(k, g, v, acc))
                }
            }

            #[allow(unused_variables)]
            fn scalar_f32(&self, k: usize, g: f32, v: [f32; 2]) -> f32 {
                Self::scalar(k, g, v)
            }

            #[allow(unused_variables)]
            fn scalar_f64(&self, k: usize, g: f64, v: [f64; 2]) -> f64 {
                Self::scalar(k, g, v)
            }

            #[allow(unused_variables)]
            fn tensors(&self, k: usize, g: &Tensor, v: [&Tensor; 2]) -> $crate::error::Result<Tensor> {
                #[allow(unused_imports)]
                use $crate::ops::pointwise::{Expr, Value as _};
                let (eg, ea, eb) = (Expr::of(g), Expr::of(v[0]), Expr::of(v[1]));
                match k {
                    $($k => {
                        let ($g, $a, $b) = (&eg, &ea, &eb);
                        Expr::from($f).0
                    })+
                    _ => Err($crate::error::Error::invalid(format!(
                        "{} has no input {k}",
                        stringify!($Name)
                    ))),
                }
            }
        }
    };
}
pub(crate) use pointwise;

impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}

/// Elements per chunk of the op-by-op kernels (as the fused pass's).
const CHUNK: usize = 1 << 12;

/// Input `k`'s gradient contribution in one pass of the chunk kernel, when
/// `g` and the saved values all have `g`'s shape (or are scalars) and one
/// float dtype; `None` otherwise.
fn one_pass(p: &dyn Pointwise, k: usize, g: &Tensor, v: [&Tensor; 2]) -> Option<Tensor> {
    let fits = |t: &Tensor| (t.shape() == g.shape() || t.rank() == 0) && t.dtype() == g.dtype();
    if !(fits(v[0]) && fits(v[1])) {
        return None;
    }
    if g.numel() == 1 {
        return one_element(p, k, g, v);
    }
    fn run<'a, T: Element + Copy + Send + Sync + Add<Output = T>>(
        g: &'a Tensor,
        v: [&'a Tensor; 2],
        chunk: impl Fn(&[T], [&[T]; 2], Acc<'_, T>) + Sync + Send,
    ) -> Option<Tensor> {
        fn slice<T: Element + Copy>(t: &Tensor) -> Option<std::borrow::Cow<'_, [T]>> {
            let a = T::unwrap(t.storage())?;
            Some(match a.as_slice() {
                Some(s) => std::borrow::Cow::Borrowed(s),
                None => std::borrow::Cow::Owned(a.iter().copied().collect()),
            })
        }
        let n = g.numel();
        let gs = slice::<T>(g)?;
        // A scalar operand: one chunk's worth of copies.
        let widen = |t: &'a Tensor| -> Option<std::borrow::Cow<'a, [T]>> {
            let s = slice::<T>(t)?;
            Some(if s.len() == 1 && n > 1 {
                std::borrow::Cow::Owned(vec![s[0]; CHUNK.min(n)])
            } else {
                s
            })
        };
        let (a, b) = (widen(v[0])?, widen(v[1])?);
        let out = if n <= CHUNK {
            // One chunk (scalars included): no scratch buffer, no pool.
            let mut out = Vec::with_capacity(n);
            let mut filled = false;
            chunk(
                &gs,
                [&a[..n.min(a.len())], &b[..n.min(b.len())]],
                Acc::new(&mut out, &mut filled),
            );
            out
        } else {
            crate::kernels::parallel_chunks(n, crate::kernels::PAR_THRESHOLD, |split| {
                crate::kernels::uninit::fill_chunked::<T, (), Vec<T>, CHUNK>(
                    n,
                    split,
                    vec![(); n.div_ceil(CHUNK)],
                    || Vec::with_capacity(CHUNK),
                    |buf, c, (), dst| {
                        let lo = c * CHUNK;
                        let hi = lo + dst.len();
                        let part = |s: &[T]| -> std::ops::Range<usize> {
                            if s.len() == n {
                                lo..hi
                            } else {
                                0..hi - lo
                            }
                        };
                        let mut filled = false;
                        chunk(
                            &gs[lo..hi],
                            [&a[part(&a)], &b[part(&b)]],
                            Acc::new(buf, &mut filled),
                        );
                        dst.extend_from_slice(buf);
                    },
                )
            })
        };
        Some(Tensor::from_array(
            ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(g.shape()), out).expect("sizes match"),
        ))
    }
    match g.storage() {
        Storage::F32(_) => run::<f32>(g, v, |g, v, acc| p.chunk_f32(k, g, v, acc)),
        Storage::F64(_) => run::<f64>(g, v, |g, v, acc| p.chunk_f64(k, g, v, acc)),
        _ => None,
    }
}

/// [`one_pass`] for a one-element `g`: the chunk kernel's formula on the
/// stack, no buffers.
fn one_element(p: &dyn Pointwise, k: usize, g: &Tensor, v: [&Tensor; 2]) -> Option<Tensor> {
    fn first<T: Element + Copy>(t: &Tensor) -> Option<T> {
        T::unwrap(t.storage())?.first().copied()
    }
    let shape = ndarray::IxDyn(g.shape());
    Some(match g.storage() {
        Storage::F32(_) => {
            let r = p.scalar_f32(k, first(g)?, [first(v[0])?, first(v[1])?]);
            Tensor::from_array(ndarray::ArrayD::from_elem(shape, r))
        }
        Storage::F64(_) => {
            let r = p.scalar_f64(k, first(g)?, [first(v[0])?, first(v[1])?]);
            Tensor::from_array(ndarray::ArrayD::from_elem(shape, r))
        }
        _ => return None,
    })
}

/// Input `k`'s gradient contribution `g * d out / d input_k` (before any
/// unbroadcasting): one pass of the chunk kernel when nothing records and
/// shapes agree, the formula on tensors otherwise. A seed known to be all
/// ones also takes the tensor form, where `1 * v` shares `v`'s elements.
pub(crate) fn contribution(
    p: &'static dyn Pointwise,
    k: usize,
    g: &Tensor,
    v: [&Tensor; 2],
) -> Result<Tensor> {
    if p.passes_through(k) {
        return Ok(g.clone());
    }
    if g.dtype().is_complex() {
        // TensorFlow's convention: `g * conj(f'(z))`. The formulas are real
        // rational functions of the saved values, so `conj(f'(z))` is the
        // same formula on the conjugated values (`Mul`: `g * conj(b)`).
        if p.saves() == Saves::Nothing {
            return p.tensors(k, g, v);
        }
        let (a, b) = (super::conj(v[0])?, super::conj(v[1])?);
        return p.tensors(k, g, [&a, &b]);
    }
    if !g.is_all_ones() && !record::tapes_recording() {
        if let Some(t) = one_pass(p, k, g, v) {
            if record::is_tracing() {
                // A trace keeps the pass as one node, replayed with this
                // kernel. A saved value the formula does not read is not an
                // input (`g` stands in), so the node does not depend on it.
                let op = crate::op::OpRef::Shared(Arc::new(Contribution { p, k }));
                let r = p.reads(k);
                let (a, b) = (if r[0] { v[0] } else { g }, if r[1] { v[1] } else { g });
                record::trace_op(&op, &[g, a, b], &[&t]);
            }
            return Ok(t);
        }
    }
    p.tensors(k, g, v)
}

/// Input `k`'s gradient contribution through a pointwise op, as one traced
/// op: a graph (`crate::graph`) replays the chunk kernel eager's rule runs,
/// not the formula's public ops one pass each.
struct Contribution {
    p: &'static dyn Pointwise,
    k: usize,
}

impl Op for Contribution {
    fn name(&self) -> &'static str {
        "PointwiseGrad"
    }

    fn fusion(&self) -> crate::op::Fusion<'_> {
        crate::op::Fusion::Gradient {
            local: self.p,
            k: self.k,
        }
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        match inputs {
            [g, a, b] => Ok(vec![contribution(self.p, self.k, g, [a, b])?]),
            _ => Err(crate::error::Error::invalid(format!(
                "PointwiseGrad takes 3 inputs (gradient and two saved values), {} were given",
                inputs.len()
            ))),
        }
    }
}

/// Records an elementwise op described by `op`, whose description has a
/// pointwise derivative: its gradient rule applies that derivative to each
/// input that wants a gradient and sums broadcast dims back. Large
/// same-shape float ops also keep what a fused backward pass needs.
pub(crate) fn record_pointwise<O: Op + Clone>(op: O, inputs: &[&Tensor], out: &Tensor) {
    if !record::is_recording() {
        return;
    }
    let p = op
        .pointwise()
        .expect("record_pointwise is only called for ops with a pointwise derivative");
    // What the derivative reads, taken only when some tape records.
    let saved = || -> [Option<Tensor>; 2] {
        match p.saves() {
            Saves::Nothing => [None, None],
            Saves::Inputs => [
                inputs.first().map(|t| (*t).clone()),
                inputs.get(1).map(|t| (*t).clone()),
            ],
            Saves::Output => [Some(out.clone()), None],
        }
    };
    let mut ins: SmallVec<[(TensorId, DType); 3]> = SmallVec::new();
    for t in inputs {
        ins.push((t.id(), t.dtype()));
    }
    let fusable = || {
        let ok = out.numel() >= FUSE_MIN
            && matches!(out.dtype(), DType::F32 | DType::F64)
            && inputs
                .iter()
                .all(|t| (t.shape() == out.shape() || t.rank() == 0) && t.dtype() == out.dtype());
        ok.then(|| Fusable::Pointwise {
            local: p,
            saved: saved().into_iter().flatten().collect(),
            scalars: [
                inputs.first().is_some_and(|t| t.rank() == 0),
                inputs.get(1).is_some_and(|t| t.rank() == 0),
            ],
        })
    };
    let rule_op = op.clone();
    let make_rule = || -> Arc<dyn crate::record::BackwardFn> {
        // Input shapes are kept only when some input was broadcast.
        let shape = out.shape();
        let broadcast = inputs.iter().any(|t| t.shape() != shape);
        Arc::new(PointwiseRule {
            op: rule_op,
            saved: saved(),
            broadcast: broadcast.then(|| {
                Box::new(Broadcast {
                    out_rank: out.rank(),
                    shapes: inputs
                        .iter()
                        .map(|t| t.shape().iter().copied().collect())
                        .collect(),
                })
            }),
        })
    };
    let op = op_ref(op);
    record::trace_op(&op, inputs, &[out]);
    record::record_entry(op, &ins, &[out], make_rule, fusable);
}

/// The gradient rule of an op with a pointwise derivative: each wanted
/// input's contribution, summed back over the dims it was broadcast along.
struct PointwiseRule<O> {
    /// The op (zero-sized for every pointwise op): its derivative.
    op: O,
    /// The values the derivative reads.
    saved: [Option<Tensor>; 2],
    /// How to sum contributions back, when some input was broadcast.
    broadcast: Option<Box<Broadcast>>,
}

/// The shapes a broadcasting op's contributions are summed back to.
struct Broadcast {
    out_rank: usize,
    shapes: SmallVec<[crate::dims::Dims; 2]>,
}

impl<O: Op> crate::record::BackwardFn for PointwiseRule<O> {
    fn backward(&self, grads: &[Tensor], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
        let p = self.op.pointwise().expect("a pointwise op");
        let g = &grads[0];
        let v = match &self.saved {
            [None, _] => [g, g],
            [Some(a), None] => [a, a],
            [Some(a), Some(b)] => [a, b],
        };
        let mut out = Vec::with_capacity(p.arity());
        for k in 0..p.arity() {
            if !needs.get(k).copied().unwrap_or(false) {
                out.push(None);
                continue;
            }
            let c = contribution(p, k, g, v)?;
            out.push(Some(match &self.broadcast {
                Some(b) => unbroadcast(&c, b.out_rank, &b.shapes[k])?,
                None => c,
            }));
        }
        Ok(out)
    }
}

/// A unary forward formula (see [`elementwise!`]).
pub(crate) trait Unary<T> {
    /// The formula at one element.
    fn at(a: T) -> T;
}

/// A binary forward formula (see [`elementwise!`]).
pub(crate) trait Binary<T> {
    /// The formula at one pair of elements.
    fn at(a: T, b: T) -> T;
}

/// `out` becomes `F(a)` for each element of `a` (SIMD-dispatched when long).
/// `out` is overwritten in place: a fused loop hands the same buffer back
/// chunk after chunk, so it is resized (filled) only when its length
/// changes, and the loop is a plain slice zip that vectorizes.
#[inline(always)]
pub(crate) fn map1<T: Copy, F: Unary<T>>(a: &[T], out: &mut Vec<T>) {
    struct Job<'a, T, F>(&'a [T], &'a mut [T], std::marker::PhantomData<F>);
    impl<T: Copy, F: Unary<T>> Kernel for Job<'_, T, F> {
        #[inline(always)]
        fn run(self) {
            for (o, &v) in self.1.iter_mut().zip(self.0) {
                *o = F::at(v);
            }
        }
    }
    let Some(&first) = a.first() else {
        out.clear();
        return;
    };
    out.resize(a.len(), first);
    let job = Job::<T, F>(a, out, std::marker::PhantomData);
    if a.len() < SIMD_MIN {
        job.run()
    } else {
        simd(job)
    }
}

/// `out` becomes `F(a, b)` for each pair of elements; an input of one
/// element is broadcast (SIMD-dispatched when long; `out` is overwritten as
/// in [`map1`]).
#[inline(always)]
pub(crate) fn map2<T: Copy, F: Binary<T>>(a: &[T], b: &[T], out: &mut Vec<T>) {
    struct Job<'a, T, F>(&'a [T], &'a [T], &'a mut [T], std::marker::PhantomData<F>);
    impl<T: Copy, F: Binary<T>> Kernel for Job<'_, T, F> {
        #[inline(always)]
        fn run(self) {
            let Job(a, b, out, _) = self;
            match (a.len(), b.len()) {
                (1, n) if n != 1 => {
                    let a = a[0];
                    for (o, &y) in out.iter_mut().zip(b) {
                        *o = F::at(a, y);
                    }
                }
                (n, 1) if n != 1 => {
                    let b = b[0];
                    for (o, &x) in out.iter_mut().zip(a) {
                        *o = F::at(x, b);
                    }
                }
                _ => {
                    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                        *o = F::at(x, y);
                    }
                }
            }
        }
    }
    let n = a.len().max(b.len());
    if a.is_empty() || b.is_empty() {
        out.clear();
        return;
    }
    out.resize(n, a[0]);
    let job = Job::<T, F>(a, b, out, std::marker::PhantomData);
    if n < SIMD_MIN {
        job.run()
    } else {
        simd(job)
    }
}

/// Declares an elementwise op's forward formula once: a unit struct with
/// `Name::at(a)` (or `Name::at(a, b)`), which the op's eager kernel calls
/// per element, and an [`crate::op::Elementwise`] implementation running the
/// same formula over chunks, which a traced graph's fusion pass runs. The
/// bound in brackets is what the formula needs of the element type.
macro_rules! elementwise {
    ($(#[$m:meta])* $Name:ident<T: [$($b:tt)+]>, |$a:ident| $f:expr) => {
        $(#[$m])*
        pub(crate) struct $Name;

        impl<T: $($b)+> $crate::ops::pointwise::Unary<T> for $Name {
            #[inline(always)]
            fn at($a: T) -> T {
                $f
            }
        }

        impl $Name {
            /// The formula at one element.
            #[inline(always)]
            pub(crate) fn at<T>(a: T) -> T
            where
                Self: $crate::ops::pointwise::Unary<T>,
            {
                <Self as $crate::ops::pointwise::Unary<T>>::at(a)
            }
        }

        impl $crate::op::Elementwise for $Name {
            fn arity(&self) -> usize {
                1
            }

            fn chunk_f32(&self, ins: [&[f32]; 2], out: &mut Vec<f32>) {
                $crate::ops::pointwise::map1::<f32, Self>(ins[0], out)
            }

            fn chunk_f64(&self, ins: [&[f64]; 2], out: &mut Vec<f64>) {
                $crate::ops::pointwise::map1::<f64, Self>(ins[0], out)
            }
        }
    };
    ($(#[$m:meta])* $Name:ident<T: [$($b:tt)+]>, |$a:ident, $bb:ident| $f:expr) => {
        $(#[$m])*
        pub(crate) struct $Name;

        impl<T: $($b)+> $crate::ops::pointwise::Binary<T> for $Name {
            #[inline(always)]
            fn at($a: T, $bb: T) -> T {
                $f
            }
        }

        impl $Name {
            /// The formula at one pair of elements.
            #[inline(always)]
            pub(crate) fn at<T>(a: T, b: T) -> T
            where
                Self: $crate::ops::pointwise::Binary<T>,
            {
                <Self as $crate::ops::pointwise::Binary<T>>::at(a, b)
            }
        }

        impl $crate::op::Elementwise for $Name {
            fn arity(&self) -> usize {
                2
            }

            fn chunk_f32(&self, ins: [&[f32]; 2], out: &mut Vec<f32>) {
                $crate::ops::pointwise::map2::<f32, Self>(ins[0], ins[1], out)
            }

            fn chunk_f64(&self, ins: [&[f64]; 2], out: &mut Vec<f64>) {
                $crate::ops::pointwise::map2::<f64, Self>(ins[0], ins[1], out)
            }
        }
    };
}
pub(crate) use elementwise;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Acc;
    use crate::ops::arith::{AddFwd, AddLocal, DivLocal, MulLocal, NegFwd};
    use crate::ops::math::TanhLocal;

    #[test]
    fn reads_names_the_saved_values_each_formula_uses() {
        // d(a / b): the numerator's gradient g / b ignores a.
        assert_eq!(DivLocal.reads(0), [false, true]);
        assert_eq!(DivLocal.reads(1), [true, true]);
        assert_eq!(MulLocal.reads(0), [false, true]);
        assert_eq!(MulLocal.reads(1), [true, false]);
        assert_eq!(AddLocal.reads(0), [false, false]);
        // Saves the output as `a`.
        assert_eq!(TanhLocal.reads(0), [true, false]);
    }

    #[test]
    fn map_kernels_overwrite_a_reused_buffer_of_any_length() {
        let a: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..100).map(|i| 2.0 * i as f32).collect();
        // Longer, shorter and empty buffers: the result is exactly the map.
        for start in [vec![7.0f32; 300], vec![7.0; 3], vec![]] {
            let mut out = start.clone();
            map1::<f32, NegFwd>(&a, &mut out);
            assert_eq!(out, a.iter().map(|v| -v).collect::<Vec<_>>());
            let mut out = start.clone();
            map2::<f32, AddFwd>(&a, &b, &mut out);
            assert_eq!(out, (0..100).map(|i| 3.0 * i as f32).collect::<Vec<_>>());
            let mut out = start.clone();
            map2::<f32, AddFwd>(&[1.0], &b[..10], &mut out);
            assert_eq!(out, b[..10].iter().map(|v| v + 1.0).collect::<Vec<_>>());
            let mut out = start;
            map2::<f32, AddFwd>(&a[..5], &[1.0], &mut out);
            assert_eq!(out, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        }
        let mut out = vec![1.0f32; 4];
        map1::<f32, NegFwd>(&[], &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn accumulator_sets_then_adds_on_a_reused_buffer() {
        for start in [vec![9.0f64; 50], vec![9.0; 2], vec![]] {
            let (mut buf, mut filled) = (start, false);
            Acc::new(&mut buf, &mut filled).add(8, |i| i as f64);
            assert!(filled);
            Acc::new(&mut buf, &mut filled).add_slice(&[1.0; 8]);
            Acc::new(&mut buf, &mut filled).add(8, |i| 10.0 * i as f64);
            assert_eq!(
                buf,
                (0..8).map(|i| 1.0 + 11.0 * i as f64).collect::<Vec<_>>()
            );
        }
        let (mut buf, mut filled) = (vec![3.0f32; 5], false);
        Acc::new(&mut buf, &mut filled).add_slice(&[1.0, 2.0]);
        assert_eq!(buf, vec![1.0, 2.0]);
        let (mut buf, mut filled) = (vec![3.0f32; 5], false);
        Acc::new(&mut buf, &mut filled).add(0, |_| 1.0);
        assert!(buf.is_empty() && filled);
    }
}
