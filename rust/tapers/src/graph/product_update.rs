//! Weight updates run with the gradient products they read.
//!
//! A training step's weight gradient is a matrix product (`x^T @ d`), read
//! only by the weight's update (`v.assign_sub(lr * g)`, plain SGD). Replayed
//! node by node, the product writes the whole gradient and the update,
//! deferred to the end of the replay, reads it back from memory. This pass
//! replaces such a product and its update by one effect
//! ([`ProductUpdate`]): at the end of the replay, each row half of the
//! product is computed as `MatMul` computes it (so the gradient's bits) and
//! folded into the same rows of the variable's own buffer by the thread
//! that computed it, while the half is in that core's cache, with the
//! update's per-element formula ([`Linear`]), so the variable gets eager's
//! bits. The update stays deferred: it runs after every node succeeded and
//! every guard held, and a product cannot fail once started.
//!
//! At replay the effect runs as the two nodes it replaced (the product's
//! forward, then the update) when the values do not fit (another shape or
//! dtype, an update without a per-element form for them) or when a tape
//! records or a trace is active, so that they see the product.

use std::sync::Arc;

use ndarray::{ArcArray, IxDyn};

use smallvec::{smallvec, SmallVec};

use super::fuse::Meta;
use super::{drop_nodes, Feeds, Graph, Node, Slot};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::gemm::{halves_dims, product_update, GemmFloat};
use crate::kernels::{standard_owned, Arith};
use crate::op::{Fusion, OpRef};
use crate::record::{Effect, InPlace, Linear};
use crate::tensor::{Storage, Tensor};
use crate::variable::Variable;

thread_local! {
    /// Updates this thread ran with their products ([`ProductUpdate::fused`]),
    /// for [`super::UpdateStats::with_products`].
    static FUSED_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many updates this thread has run with their products so far (a
/// replay runs its deferred updates on the calling thread).
pub(super) fn fused_runs() -> usize {
    FUSED_RUNS.get()
}

/// An update of a variable by a gradient product (see the module docs).
/// Inputs: the product's two operands, then the update's other inputs.
struct ProductUpdate {
    update: Arc<dyn Effect>,
    /// Which of the update's inputs the product is.
    at: usize,
    product: OpRef,
    transposed: (bool, bool),
}

/// Replaces each matrix product read only by an update that adds it to
/// (or subtracts it from) a variable ([`Effect::linear_in`]) and the update
/// by one [`ProductUpdate`] at the update's place; returns how many.
pub(super) fn fuse_product_updates(g: &mut Graph, meta: &[Option<Meta>]) -> usize {
    let feeds = Feeds::of(g);
    let m = |s: Slot| meta.get(s as usize).and_then(Option::as_ref);
    let mut dropped = vec![false; g.nodes.len()];
    let mut count = 0;
    for e in 0..g.nodes.len() {
        let Node::Effect { effect, inputs } = &g.nodes[e] else {
            continue;
        };
        if effect.variables().is_empty() {
            continue;
        }
        let found = inputs.iter().enumerate().find_map(|(at, &d)| {
            let (p, op, operands) = feeds.sole_source(g, e, d)?;
            let Fusion::Product {
                transpose_a,
                transpose_b,
            } = op.fusion()
            else {
                return None;
            };
            let [a, b] = operands[..] else {
                return None;
            };
            let (ma, mb, md) = (m(a)?, m(b)?, m(d)?);
            let fits = matches!(md.dtype, DType::F32 | DType::F64)
                && ma.dtype == md.dtype
                && mb.dtype == md.dtype
                && halves_dims(&ma.shape, &mb.shape, transpose_a, transpose_b).is_some();
            (fits && effect.linear_in(at))
                .then(|| (at, p, op.clone(), [a, b], (transpose_a, transpose_b)))
        });
        let Some((at, p, product, [a, b], transposed)) = found else {
            continue;
        };
        let mut new_inputs: SmallVec<[Slot; 1]> = smallvec![a, b];
        new_inputs.extend(
            inputs
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != at)
                .map(|(_, &s)| s),
        );
        g.nodes[e] = Node::Effect {
            effect: Arc::new(ProductUpdate {
                update: effect.clone(),
                at,
                product,
                transposed,
            }),
            inputs: new_inputs,
        };
        dropped[p] = true;
        count += 1;
    }
    drop_nodes(g, &dropped);
    count
}

impl Effect for ProductUpdate {
    fn name(&self) -> &'static str {
        self.update.name()
    }

    fn variables(&self) -> &[Variable] {
        self.update.variables()
    }

    fn apply(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        self.update.apply(current, &self.update_inputs(inputs)?)
    }

    fn in_place(&self, current: &[Tensor], inputs: &[Tensor]) -> Result<Option<InPlace>> {
        if let Some(fused) = self.fused(current, inputs) {
            return Ok(Some(fused));
        }
        // (When the update has no in-place form either, `apply` makes the
        // product again: only for values a trace of this graph never saw.)
        self.update.in_place(current, &self.update_inputs(inputs)?)
    }
}

impl ProductUpdate {
    /// The update's own inputs: the product, made by its op, among the others.
    fn update_inputs(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let mut made = self.product.forward(&inputs[..2])?;
        let (Some(p), true) = (made.pop(), made.is_empty()) else {
            return Err(Error::invalid(format!(
                "{} gave other than one output on replay",
                self.product.name()
            )));
        };
        let mut ins = inputs[2..].to_vec();
        ins.insert(self.at, p);
        Ok(ins)
    }

    /// The product folded into the variable half by half, when the values
    /// fit: the traced shapes, the variable's float dtype, and a
    /// per-element form of the update for them.
    fn fused(&self, current: &[Tensor], inputs: &[Tensor]) -> Option<InPlace> {
        if super::observed() {
            return None;
        }
        let (v, a, b) = (&current[0], &inputs[0], &inputs[1]);
        let (ta, tb) = self.transposed;
        let (m, n, _) = halves_dims(a.shape(), b.shape(), ta, tb)?;
        let dtype = v.dtype();
        if v.shape() != [m, n] || a.dtype() != dtype || b.dtype() != dtype {
            return None;
        }
        let linear = self.update.linear(self.at, current, &inputs[2..])?;
        let (a, b, flags) = (a.clone(), b.clone(), self.transposed);
        let run = move |st: &mut [Storage]| -> Result<bool> {
            FUSED_RUNS.set(FUSED_RUNS.get() + 1);
            match (&mut st[0], a.storage(), b.storage()) {
                (Storage::F32(v), Storage::F32(a), Storage::F32(b)) => {
                    let c = linear.scale.map_or(0.0, |(c, _)| c as f32);
                    Ok(update(v, (a, b), flags, linear, c))
                }
                (Storage::F64(v), Storage::F64(a), Storage::F64(b)) => {
                    let c = linear.scale.map_or(0.0, |(c, _)| c);
                    Ok(update(v, (a, b), flags, linear, c))
                }
                _ => Err(Error::invalid("a variable's dtype changed during a replay")),
            }
        };
        Some(InPlace {
            writes: 1,
            run: Box::new(run),
        })
    }
}

/// `v = v ± p` (or `± c·p`, `± p·c`) over `v`'s own buffer (copied first if
/// another array shares it), `p` the product of `a` and `b`, whose shape
/// [`ProductUpdate::fused`] checked. Returns whether `v` was written in place.
fn update<T: GemmFloat + Arith>(
    v: &mut ArcArray<T, IxDyn>,
    (a, b): (&ArcArray<T, IxDyn>, &ArcArray<T, IxDyn>),
    flags: (bool, bool),
    linear: Linear,
    c: T,
) -> bool {
    let unique = v.is_unique();
    if !v.is_standard_layout() {
        *v = standard_owned(v.view()).into_shared();
    }
    let d = v.as_slice_mut().expect("standard layout");
    // One monomorphic loop per form: `Arith`'s operations, as the eager
    // ops (`ops::mul`, then `ops::sub`/`add`) and optimizers round them.
    let ran = match (linear.scale.map(|(_, c_first)| c_first), linear.add) {
        (None, true) => product_update(a, b, flags, d, |v, g| Arith::add(v, g)),
        (None, false) => product_update(a, b, flags, d, |v, g| Arith::sub(v, g)),
        (Some(true), true) => {
            product_update(a, b, flags, d, move |v, g| Arith::add(v, Arith::mul(c, g)))
        }
        (Some(true), false) => {
            product_update(a, b, flags, d, move |v, g| Arith::sub(v, Arith::mul(c, g)))
        }
        (Some(false), true) => {
            product_update(a, b, flags, d, move |v, g| Arith::add(v, Arith::mul(g, c)))
        }
        (Some(false), false) => {
            product_update(a, b, flags, d, move |v, g| Arith::sub(v, Arith::mul(g, c)))
        }
    };
    assert!(ran, "the product's shape was checked before the update");
    unique
}
