//! Matrix products run with the elementwise ops that read their output.
//!
//! Replayed op by op, an MLP layer `tf.maximum(x @ w + b, 0.0)` is three
//! passes: the product (two row halves, one per core: `kernels::gemm`),
//! then the bias add and the activation, each one more pass over the whole
//! output, split between the two threads again and reading what the other
//! core wrote; its backward pass multiplies `d @ w^T` by the activation's
//! derivative in a pass of its own. This pass finds a `MatMul` whose
//! output a chain of elementwise ops reads and replaces the product and the
//! chain by one node ([`ProductChain`]): each half of the product's rows is
//! computed as `MatMul` computes it, then passed block by block of rows,
//! by the thread that computed it and while it is in that core's cache,
//! through the members' chunk kernels (the per-element formulas their
//! eager forwards run), so the values are eager's bits. A value only the
//! chain reads (the product, usually) is never written.
//!
//! A member is an elementwise op ([`Fusion::Map`]) or a pointwise
//! gradient contribution ([`Fusion::Gradient`]) that reads a value of the
//! chain (the product or an earlier member's output, all of the product's
//! shape) and otherwise one-element values, tensors of the product's shape
//! made before it, or (elementwise ops only) rows of the product's width,
//! `[n]` or `[1, n]`: a bias. Members are taken in graph order, each the
//! next node to read a value of the chain; the node runs where the last
//! member ran. Only products that `MatMul` runs as two row halves are
//! fused (its bits are those of the halves). At replay, a node whose
//! inputs do not have the traced shapes, or that runs while a tape records
//! or a trace is active, runs its ops one by one.

use std::borrow::Cow;

use smallvec::SmallVec;

use super::fuse::{elements, kept_slots, runs_fused, slot_readers, Elem, Meta};
use super::{Graph, Node, Slot};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::gemm::{in_row_halves, product_dims, product_then, GemmFloat};
use crate::kernels::uninit::ChunkOut;
use crate::op::{Acc, Elementwise, Fusion, Op, OpRef, Pointwise};
use crate::tensor::Tensor;

/// Elements of a block of rows the members run on at a time (whole rows,
/// at least one): small enough that the chain's buffers stay in the first
/// cache level.
const BLOCK: usize = 1 << 10;

/// How a member reads one of its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operand {
    /// Value `i` of the chain: 0 the product, `j + 1` member `j`'s output.
    Value(usize),
    /// Input `i` of the node, with the product's shape.
    Whole(usize),
    /// Input `i` of the node, one row of the product's width (a bias).
    Row(usize),
    /// Input `i` of the node, one element.
    One(usize),
}

/// What a member computes.
#[derive(Clone, Copy)]
enum Kind {
    Map(&'static dyn Elementwise),
    Gradient(&'static dyn Pointwise, usize),
}

#[derive(Clone)]
struct Member {
    op: OpRef,
    kind: Kind,
    operands: SmallVec<[Operand; 3]>,
}

/// A product and the chain of elementwise ops that read it, as one node
/// (see the module docs). Inputs: the product's two operands, then the
/// members' other inputs; outputs: the chain's values read outside it.
struct ProductChain {
    product: OpRef,
    transpose_a: bool,
    transpose_b: bool,
    dtype: DType,
    /// The product's rows and columns.
    m: usize,
    n: usize,
    input_shapes: Vec<SmallVec<[usize; 4]>>,
    members: Vec<Member>,
    /// The values the node outputs, in order.
    outputs: Vec<usize>,
}

/// Replaces each product and the chain of elementwise ops reading it by a
/// [`ProductChain`] node; returns how many.
pub(super) fn fuse_products(g: &mut Graph, meta: &[Option<Meta>]) -> usize {
    let readers = slot_readers(g);
    let pinned = kept_slots(g);
    let m = |s: Slot| meta.get(s as usize).and_then(Option::as_ref);
    let mut taken = vec![false; g.nodes.len()];
    // (position of the last member, the node replacing the chain)
    let mut fused: Vec<(usize, Node<Slot>)> = Vec::new();
    for p in 0..g.nodes.len() {
        let Node::Op {
            op,
            inputs,
            outputs,
        } = &g.nodes[p]
        else {
            continue;
        };
        let Fusion::Product {
            transpose_a,
            transpose_b,
        } = op.fusion()
        else {
            continue;
        };
        let ([a, b], [prod]) = (&inputs[..], &outputs[..]) else {
            continue;
        };
        let (Some(ma), Some(mb), Some(mp)) = (m(*a), m(*b), m(*prod)) else {
            continue;
        };
        let dtype = mp.dtype;
        if !matches!(dtype, DType::F32 | DType::F64)
            || ma.dtype != dtype
            || mb.dtype != dtype
            || ma.shape.len() != 2
            || mb.shape.len() != 2
            || mp.shape.len() != 2
        {
            continue;
        }
        let (rows, cols) = (mp.shape[0], mp.shape[1]);
        let ((_, k), _) = product_dims(&ma.shape, &mb.shape, transpose_a, transpose_b);
        if !in_row_halves(rows, cols, k, transpose_a) {
            continue;
        }
        let full: SmallVec<[usize; 4]> = mp.shape.clone();
        // The chain's values (slots) and the node's inputs past the operands.
        let mut values: Vec<Slot> = vec![*prod];
        let mut extra: Vec<Slot> = Vec::new();
        let mut members: Vec<Member> = Vec::new();
        let mut positions: Vec<usize> = Vec::new();
        let mut last = p;
        loop {
            let next = values
                .iter()
                .flat_map(|&v| readers[v as usize].iter().copied())
                .filter(|&r| r > last)
                .min();
            let Some(c) = next.filter(|&c| !taken[c]) else {
                break;
            };
            let Node::Op {
                op: cop,
                inputs: cins,
                outputs: couts,
            } = &g.nodes[c]
            else {
                break;
            };
            let same = |s: Slot| m(s).is_some_and(|x| x.dtype == dtype && x.shape == full);
            let ([out], true) = (&couts[..], same(couts[0])) else {
                break;
            };
            let (kind, rows_allowed) = match cop.fusion() {
                Fusion::Map(kern) if cins.len() == kern.arity() => (Kind::Map(kern), true),
                Fusion::Gradient { local, k } if cins.len() == 3 => {
                    (Kind::Gradient(local, k), false)
                }
                _ => break,
            };
            let mut operands: SmallVec<[Operand; 3]> = SmallVec::new();
            let mut extra_here = extra.clone();
            let input = |s: Slot, extra_here: &mut Vec<Slot>| {
                2 + extra_here.iter().position(|&e| e == s).unwrap_or_else(|| {
                    extra_here.push(s);
                    extra_here.len() - 1
                })
            };
            for &s in cins {
                if let Some(v) = values.iter().position(|&v| v == s) {
                    operands.push(Operand::Value(v));
                    continue;
                }
                let Some(x) = m(s).filter(|x| x.dtype == dtype) else {
                    break;
                };
                let row = x.shape[..] == [cols] || x.shape[..] == [1, cols];
                if x.numel() == 1 {
                    operands.push(Operand::One(input(s, &mut extra_here)));
                } else if x.shape == full {
                    operands.push(Operand::Whole(input(s, &mut extra_here)));
                } else if row && rows_allowed {
                    operands.push(Operand::Row(input(s, &mut extra_here)));
                } else {
                    break;
                }
            }
            if operands.len() != cins.len() {
                break;
            }
            extra = extra_here;
            members.push(Member {
                op: cop.clone(),
                kind,
                operands,
            });
            values.push(*out);
            positions.push(c);
            last = c;
        }
        if members.is_empty() {
            continue;
        }
        // A value is written when something outside the chain reads it.
        let outputs: Vec<usize> = values
            .iter()
            .enumerate()
            .filter(|(_, &v)| {
                pinned[v as usize] || readers[v as usize].iter().any(|r| !positions.contains(r))
            })
            .map(|(i, _)| i)
            .collect();
        let mut node_inputs: SmallVec<[Slot; 2]> = SmallVec::from_slice(&[*a, *b]);
        node_inputs.extend(extra.iter().copied());
        let input_shapes = node_inputs
            .iter()
            .map(|&s| m(s).map(|x| x.shape.clone()).unwrap_or_default())
            .collect();
        let chain = ProductChain {
            product: op.clone(),
            transpose_a,
            transpose_b,
            dtype,
            m: rows,
            n: cols,
            input_shapes,
            members,
            outputs: outputs.clone(),
        };
        taken[p] = true;
        for &c in &positions {
            taken[c] = true;
        }
        fused.push((
            last,
            Node::Op {
                op: OpRef::Shared(std::sync::Arc::new(chain)),
                inputs: node_inputs,
                outputs: outputs.iter().map(|&i| values[i]).collect(),
            },
        ));
    }
    let count = fused.len();
    if count == 0 {
        return 0;
    }
    let mut at: Vec<Option<Node<Slot>>> = vec![None; g.nodes.len()];
    for (pos, node) in fused {
        at[pos] = Some(node);
    }
    let old = std::mem::take(&mut g.nodes);
    for (i, (n, new)) in old.into_iter().zip(at).enumerate() {
        match new {
            Some(node) => g.nodes.push(node),
            None if !taken[i] => g.nodes.push(n),
            None => {}
        }
    }
    count
}

/// The element types a chain runs in.
trait ChainElem: Elem + GemmFloat + num_traits::Zero {}

impl<T: Elem + GemmFloat + num_traits::Zero> ChainElem for T {}

impl Op for ProductChain {
    fn name(&self) -> &'static str {
        "MatMulChain"
    }

    fn forward(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if !runs_fused(self.name(), inputs, &self.input_shapes, self.dtype)? {
            return self.op_by_op(inputs);
        }
        let fused = match self.dtype {
            DType::F32 => self.run::<f32>(inputs),
            DType::F64 => self.run::<f64>(inputs),
            _ => None,
        };
        match fused {
            Some(outs) => Ok(outs),
            None => self.op_by_op(inputs),
        }
    }
}

impl ProductChain {
    /// The product's and the members' own forwards, in order.
    fn op_by_op(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let one = |op: &OpRef, ins: &[Tensor]| -> Result<Tensor> {
            let mut outs = op.forward(ins)?;
            match (outs.pop(), outs.is_empty()) {
                (Some(t), true) => Ok(t),
                _ => Err(Error::invalid(format!(
                    "{} gave other than one output on replay",
                    op.name()
                ))),
            }
        };
        let mut vals = vec![one(&self.product, &inputs[..2])?];
        for member in &self.members {
            let ins: Vec<Tensor> = member
                .operands
                .iter()
                .map(|o| match *o {
                    Operand::Value(v) => vals[v].clone(),
                    Operand::Whole(i) | Operand::Row(i) | Operand::One(i) => inputs[i].clone(),
                })
                .collect();
            vals.push(one(&member.op, &ins)?);
        }
        Ok(self.outputs.iter().map(|&v| vals[v].clone()).collect())
    }

    /// The fused run; `None` when the product does not run as row halves.
    fn run<T: ChainElem>(&self, inputs: &[Tensor]) -> Option<Vec<Tensor>> {
        let n = self.n;
        let block_rows = (BLOCK / n).max(1);
        let block = block_rows * n;
        // The members' inputs (the product's operands, 0 and 1, stay as
        // they are: a strided one would be copied here for nothing).
        let ext: Vec<Cow<'_, [T]>> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i < 2 {
                    Cow::Borrowed(&[][..])
                } else {
                    elements::<T>(t)
                }
            })
            .collect();
        // Rows and one-element gradient operands repeated over a block.
        let repeated: Vec<Vec<T>> = ext
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let row = self
                    .members
                    .iter()
                    .any(|mb| mb.operands.contains(&Operand::Row(i)));
                let one_grad = self.members.iter().any(|mb| {
                    matches!(mb.kind, Kind::Gradient(..)) && mb.operands.contains(&Operand::One(i))
                });
                if row {
                    // A row of `n` elements, `block_rows` times (slice copies).
                    e.repeat(block_rows)
                } else if one_grad {
                    vec![e[0]; block]
                } else {
                    Vec::new()
                }
            })
            .collect();
        let epilogue = |r0: usize, p: &[T], outs: &mut [ChunkOut<'_, T>]| {
            let mut bufs: Vec<Vec<T>> = (0..self.members.len())
                .map(|_| Vec::with_capacity(block))
                .collect();
            for lo in (0..p.len()).step_by(block) {
                let hi = (lo + block).min(p.len());
                let len = hi - lo;
                let at = r0 * n + lo;
                for (j, member) in self.members.iter().enumerate() {
                    let (done, rest) = bufs.split_at_mut(j);
                    let view = |o: Operand, grad: bool| -> &[T] {
                        match o {
                            Operand::Value(0) => &p[lo..hi],
                            Operand::Value(v) => &done[v - 1][..],
                            Operand::Whole(i) => &ext[i][at..at + len],
                            Operand::Row(i) => &repeated[i][..len],
                            Operand::One(i) if grad => &repeated[i][..len],
                            Operand::One(i) => &ext[i][..1],
                        }
                    };
                    let out = &mut rest[0];
                    let ops = &member.operands;
                    match member.kind {
                        Kind::Map(kern) => {
                            let x = view(ops[0], false);
                            let y = ops.get(1).map_or(x, |&o| view(o, false));
                            T::map(kern, [x, y], out);
                        }
                        Kind::Gradient(local, k) => {
                            let mut filled = false;
                            T::chunk(
                                local,
                                k,
                                view(ops[0], true),
                                [view(ops[1], true), view(ops[2], true)],
                                Acc::new(out, &mut filled),
                            );
                        }
                    }
                }
                for (o, &v) in outs.iter_mut().zip(&self.outputs) {
                    o.extend_from_slice(if v == 0 { &p[lo..hi] } else { &bufs[v - 1] });
                }
            }
        };
        let (a, b) = (
            T::unwrap(inputs[0].storage())?,
            T::unwrap(inputs[1].storage())?,
        );
        let vecs = product_then(
            a,
            b,
            self.transpose_a,
            self.transpose_b,
            self.outputs.len(),
            &epilogue,
        )?;
        Some(
            vecs.into_iter()
                .map(|v| {
                    Tensor::from_array(
                        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[self.m, self.n]), v)
                            .expect("sizes match"),
                    )
                })
                .collect(),
        )
    }
}
