//! What an op is: the description every recorded entry carries.
//!
//! Each op describes itself once, in its family's file under `ops/`:
//! * its name (TensorFlow's, as printed in errors and explanations);
//! * how to run it again on new inputs with the same attributes
//!   ([`Op::forward`]): what a traced graph replays;
//! * whether its gradient rule stays correct when every gradient carries
//!   extra leading "row" dims ([`Op::carries_rows`]): a Jacobian then takes
//!   one backward pass for many rows;
//! * for a same-shape elementwise op, its local derivative
//!   ([`Op::pointwise`]): one scalar formula per input that serves both the
//!   op's own gradient rule and the fused backward pass.
//!
//! The gradient rule itself is built when the op is recorded (a closure
//! written with the public ops, capturing exactly the tensors it needs), so
//! an outer tape records it and higher derivatives follow.

use std::sync::Arc;

use crate::error::Result;
use crate::kernels::uninit::Tail;
use crate::tensor::Tensor;

/// An op's description (see the module docs).
pub trait Op: Send + Sync + 'static {
    /// TensorFlow's name for the op (`"Tanh"`, `"MatMul"`).
    fn name(&self) -> &'static str;

    /// Runs the op on `inputs` with this op's attributes, recording it on the
    /// active tapes as the original call did.
    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>>;

    /// Whether the op's gradient rule stays correct when the gradients it
    /// receives (and returns) carry extra leading dims: rules built from
    /// broadcasting elementwise ops, batched products and reductions that
    /// keep those dims in front.
    fn carries_rows(&self) -> bool {
        false
    }

    /// The local derivative of a same-shape elementwise op.
    fn pointwise(&self) -> Option<&'static dyn Pointwise> {
        None
    }

    /// For a gather of rows along axis 0 whose gradient TensorFlow keeps
    /// sparse (`IndexedSlices`): the rows taken, the size of axis 0 and the
    /// dtype of the user's indices. The backward pass then hands the output
    /// gradient on as the values of a sparse gradient instead of running the
    /// dense rule, so an embedding step never allocates the whole table.
    fn sparse_rows(&self) -> Option<SparseRows> {
        None
    }

    /// What a traced graph may fuse this op into (see [`Fusion`]): the
    /// forward kernel of a same-shape elementwise op, a sum, or a fused
    /// backward region.
    fn fusion(&self) -> Fusion<'_> {
        Fusion::None
    }

    /// Whether running the op does something besides making its outputs (a
    /// control op whose branch prints): a traced graph keeps it even when
    /// nothing reads its outputs.
    fn has_effects(&self) -> bool {
        false
    }

    /// Whether its outputs' shapes depend on its inputs' values, not only
    /// on their shapes (`tf.where`, `tf.boolean_mask`, `tf.unique`). A
    /// traced graph is built for the shapes its trace saw (later ops, and
    /// Python reading `.shape`, used them), so a replay checks these
    /// outputs' shapes and, when one differs, does not apply: the caller
    /// traces again, as after a failed guard.
    fn shape_from_values(&self) -> bool {
        false
    }
}

/// What [`Op::fusion`] reports: how a graph's fusion pass may run the op
/// inside one chunked loop with its neighbours.
pub enum Fusion<'a> {
    /// Not fusable.
    None,
    /// A float elementwise op whose per-element formula is `kernel` (the
    /// same code its eager forward runs); its inputs may be broadcast
    /// one-element tensors.
    Map(&'static dyn Elementwise),
    /// A sum over `axes` axes (normalized, sorted, distinct): a sum of every
    /// element when that is the input's rank.
    Sum {
        /// How many axes are reduced.
        axes: usize,
    },
    /// A fused backward region recorded by a trace (`autodiff::fuse`),
    /// downcast by the graph's fusion pass.
    Region(&'a (dyn std::any::Any + Send + Sync)),
    /// A pointwise op's gradient contribution for its input `k`
    /// (`g * d out / d input_k` per element, [`Pointwise::scalar_f32`]),
    /// from the inputs `[g, a, b]`: the gradient and the two values the
    /// derivative reads. Replayed on its own, or on numbers in a graph of
    /// one-element values.
    Gradient {
        /// The op's local derivative.
        local: &'static dyn Pointwise,
        /// Which input's contribution.
        k: usize,
    },
    /// A sum of any number of inputs, element by element in input order
    /// (`AddN`, as a chain of pairwise adds gives).
    AddN,
    /// A matrix product with its transpose flags (`MatMul`): a graph may
    /// run the elementwise ops that read its output on each half of its
    /// rows as the half is computed.
    Product {
        /// Whether the left operand is transposed.
        transpose_a: bool,
        /// Whether the right operand is transposed.
        transpose_b: bool,
    },
}

/// The per-element forward formula of a float elementwise op, over one
/// chunk: `out` gets `f(a[i], b[i])` for each element (unused inputs of
/// unary ops are ignored). An input of one element is broadcast.
///
/// Implementations are generated by `ops::elementwise!` from the one scalar
/// formula the op's eager forward also runs, so a fused loop and eager give
/// the same bits.
pub trait Elementwise: Send + Sync {
    /// The op's number of inputs (1 or 2).
    fn arity(&self) -> usize;

    /// The formula over one float32 chunk; `out` is overwritten with it.
    fn chunk_f32(&self, ins: [&[f32]; 2], out: &mut Vec<f32>);

    /// [`Elementwise::chunk_f32`] in float64.
    fn chunk_f64(&self, ins: [&[f64]; 2], out: &mut Vec<f64>);
}

/// What [`Op::sparse_rows`] reports: rows `idx` of a tensor with `n` rows,
/// indexed by the user with integers of `index_dtype`.
#[derive(Clone, Debug)]
pub struct SparseRows {
    /// The rows taken, in order (repeats allowed).
    pub idx: Arc<Vec<usize>>,
    /// The size of axis 0 of the gathered tensor.
    pub n: usize,
    /// The dtype of the user's indices (int32 or int64).
    pub index_dtype: crate::dtype::DType,
    /// The user's index tensor `idx` was read from, when there is one: a
    /// traced step reads each call's rows from it (the autodiff layer's
    /// `IndexedSlices::source`).
    pub source: Option<Tensor>,
}

/// A recorded op's description: a `static` for ops without attributes,
/// shared otherwise.
#[derive(Clone)]
pub enum OpRef {
    /// An op without attributes (or with attributes fixed at compile time).
    Static(&'static dyn Op),
    /// An op carrying attributes of this call.
    Shared(Arc<dyn Op>),
}

impl std::ops::Deref for OpRef {
    type Target = dyn Op;

    fn deref(&self) -> &(dyn Op + 'static) {
        match self {
            OpRef::Static(op) => *op,
            OpRef::Shared(op) => &**op,
        }
    }
}

impl std::fmt::Debug for OpRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which tensors a local derivative reads (saved when the op is recorded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saves {
    /// None: the derivative is a constant (`+`, `-`).
    Nothing,
    /// The op's inputs, as `v[0]`, `v[1]`.
    Inputs,
    /// The op's output, as `v[0]`.
    Output,
}

/// The local derivative of a same-shape elementwise op: for each input `k`,
/// the contribution `g * d out / d input_k` as a scalar formula of the
/// output gradient `g` and the saved values `v`.
///
/// Implementations are generated by `ops::pointwise!` from one formula per
/// input, which gives the chunk kernels (run by the op's own rule and by the
/// fused backward pass, so both give the same bits) and the same formula on
/// tensors with the public ops (what an outer tape records).
pub trait Pointwise: Send + Sync {
    /// The op's number of inputs.
    fn arity(&self) -> usize;

    /// What the formula reads.
    fn saves(&self) -> Saves;

    /// Whether input `k`'s contribution is `g` itself (no pass needed).
    fn passes_through(&self, k: usize) -> bool;

    /// `Some(j)` when input `k`'s contribution is `g * v[j]` (a product's):
    /// where `g` is known to be all ones that is exactly `v[j]`.
    fn scales(&self, k: usize) -> Option<usize>;

    /// Which saved values (`v[0]`, `v[1]`) input `k`'s formula reads: a
    /// traced contribution takes only those as inputs, so it does not wait
    /// for a value its formula ignores (`x / y`'s gradient for `x` reads
    /// `y` alone).
    fn reads(&self, k: usize) -> [bool; 2];

    /// Input `k`'s contribution over one chunk, accumulated into `acc`.
    /// `v` holds the saved values of the chunk (unused ones are `g`).
    fn chunk_f32(&self, k: usize, g: &[f32], v: [&[f32]; 2], acc: Acc<'_, f32>);

    /// [`Pointwise::chunk_f32`] in float64.
    fn chunk_f64(&self, k: usize, g: &[f64], v: [&[f64]; 2], acc: Acc<'_, f64>);

    /// Input `k`'s contribution at one element (what the chunk kernel
    /// computes per element, for one-element tensors).
    fn scalar_f32(&self, k: usize, g: f32, v: [f32; 2]) -> f32;

    /// [`Pointwise::scalar_f32`] in float64.
    fn scalar_f64(&self, k: usize, g: f64, v: [f64; 2]) -> f64;

    /// Input `k`'s contribution on whole tensors, with the public
    /// (broadcasting, recorded) ops.
    fn tensors(&self, k: usize, g: &Tensor, v: [&Tensor; 2]) -> Result<Tensor>;
}

/// Where a chunk's contributions to one gradient go: the first one is
/// stored, later ones are added (in the order they arrive); or, for a
/// gradient's last contribution, straight into the output.
pub struct Acc<'a, T> {
    to: To<'a, T>,
    /// The gradient so far when it is not in the destination (a value read
    /// in place, or a buffer when writing the output): the contribution is
    /// written as `base + f(i)`, the sum copying `base` first would give.
    base: Option<&'a [T]>,
}

enum To<'a, T> {
    /// A chunk buffer, which holds a contribution when `filled`.
    Buf {
        buf: &'a mut Vec<T>,
        filled: &'a mut bool,
    },
    /// The unwritten rest of an output's chunk.
    Out(Tail<'a, T>),
}

impl<'a, T: Copy + std::ops::Add<Output = T>> Acc<'a, T> {
    /// An accumulator over `buf`, which holds a contribution when `filled`.
    pub fn new(buf: &'a mut Vec<T>, filled: &'a mut bool) -> Self {
        Acc {
            to: To::Buf { buf, filled },
            base: None,
        }
    }

    /// An accumulator whose gradient so far is `base` (read, not copied):
    /// `buf` receives `base` plus the contribution.
    pub(crate) fn onto(buf: &'a mut Vec<T>, filled: &'a mut bool, base: &'a [T]) -> Self {
        Acc {
            to: To::Buf { buf, filled },
            base: Some(base),
        }
    }

    /// The last contribution, appended to an output chunk: `base` (the
    /// gradient so far, if any) plus the contribution, with no chunk
    /// buffer between.
    pub(crate) fn out(tail: Tail<'a, T>, base: Option<&'a [T]>) -> Self {
        Acc {
            to: To::Out(tail),
            base,
        }
    }

    /// Adds `f(i)` for each element `i < n` of the chunk. Index loops over
    /// the buffer (its length set first, reused chunk after chunk): they
    /// vectorize once inlined into a SIMD-dispatched kernel, where a
    /// `Vec::extend` through iterator adapters did not.
    #[inline(always)]
    pub fn add(self, n: usize, f: impl Fn(usize) -> T) {
        match self.to {
            To::Out(tail) => match self.base {
                Some(base) => {
                    let base = &base[..n];
                    tail.fill(n, |i| base[i] + f(i))
                }
                None => tail.fill(n, f),
            },
            To::Buf { buf, filled } => {
                if *filled {
                    for (i, d) in buf[..n].iter_mut().enumerate() {
                        *d = *d + f(i);
                    }
                    return;
                }
                if n == 0 {
                    buf.clear();
                } else if let Some(base) = self.base {
                    let base = &base[..n];
                    buf.resize(n, base[0]);
                    for (i, (d, &b)) in buf.iter_mut().zip(base).enumerate() {
                        *d = b + f(i);
                    }
                } else {
                    buf.resize(n, f(0));
                    for (i, d) in buf.iter_mut().enumerate() {
                        *d = f(i);
                    }
                }
                *filled = true;
            }
        }
    }

    /// Adds `vals` (the whole chunk's values).
    #[inline(always)]
    pub fn add_slice(self, vals: &[T]) {
        match self.to {
            To::Out(tail) => match self.base {
                Some(base) => {
                    let n = vals.len().min(base.len());
                    let (base, vals) = (&base[..n], &vals[..n]);
                    tail.fill(n, |i| base[i] + vals[i])
                }
                None => tail.fill(vals.len(), |i| vals[i]),
            },
            To::Buf { buf, filled } => {
                if *filled {
                    for (d, &v) in buf.iter_mut().zip(vals) {
                        *d = *d + v;
                    }
                } else if let Some(base) = self.base {
                    buf.clear();
                    buf.extend(base.iter().zip(vals).map(|(&b, &v)| b + v));
                    *filled = true;
                } else {
                    buf.clear();
                    buf.extend_from_slice(vals);
                    *filled = true;
                }
            }
        }
    }
}
