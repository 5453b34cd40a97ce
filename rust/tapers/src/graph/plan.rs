//! A graph's execution plan, computed once when the trace finishes.
//!
//! Liveness over the recorded order: each value a replay computes is
//! released right after the last node that reads it, unless it is an
//! output or a guard (read after every node ran). A replay then holds only
//! the values still to be read, not every value of the step: a training
//! step's forward activations go as soon as the backward pass has used
//! them, and the allocator hands their memory to the values computed next.
//!
//! The plan also counts what the trace already fused ([`PlanStats`]): a
//! backward pass that only a tracer saw records each fused elementwise
//! region as one `FusedElementwiseGrad` node and each pointwise gradient
//! as one `PointwiseGrad` node, which replay with eager's chunk kernels
//! (so with eager's bits) instead of one pass per op of their formulas.

use smallvec::SmallVec;

use super::{Graph, Node, Slot};

/// What a graph's plan does on each replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanStats {
    /// Nodes replayed (ops, variable reads and writes).
    pub nodes: usize,
    /// `FusedElementwiseGrad` nodes: fused backward regions, each one
    /// chunked pass over its elements.
    pub fused_regions: usize,
    /// `PointwiseGrad` nodes: gradient contributions of pointwise ops, each
    /// one pass of the op's chunk kernel.
    pub pointwise_grads: usize,
    /// `MatMulChain` nodes: matrix products run with the elementwise ops
    /// that read them (`graph::epilogue`).
    pub product_chains: usize,
    /// Values released right after their last reader (before the replay
    /// ends).
    pub released_early: usize,
    /// The most computed values alive at once during a replay (after each
    /// node's releases); without the plan, every computed value would be.
    pub peak_live: usize,
    /// Values a replay computes (outputs of ops and reads).
    pub computed: usize,
}

/// The plan: for each node, the slots its run is the last reader of, and
/// for each effect, which of its variables no later node reads or writes.
#[derive(Clone, Debug, Default)]
pub(super) struct Plan {
    release_after: Vec<SmallVec<[Slot; 2]>>,
    /// Per node: for an effect, per variable of it, whether it is the last
    /// node to touch that variable (its update can then be deferred to the
    /// end of the replay and run on the variable's own buffer).
    last_touch: Vec<SmallVec<[bool; 4]>>,
    stats: PlanStats,
}

impl Plan {
    /// Liveness over `g`'s nodes.
    pub(super) fn new(g: &Graph) -> Plan {
        let mut keep = vec![false; g.slots];
        for &s in &g.outputs {
            keep[s as usize] = true;
        }
        for (s, _) in &g.guards {
            keep[*s as usize] = true;
        }
        let mut last: Vec<Option<usize>> = vec![None; g.slots];
        let mut produced = vec![false; g.slots];
        let mut stats = PlanStats {
            nodes: g.nodes.len(),
            ..PlanStats::default()
        };
        for (i, n) in g.nodes.iter().enumerate() {
            let (ins, outs): (&[Slot], &[Slot]) = match n {
                Node::Op {
                    op,
                    inputs,
                    outputs,
                } => {
                    match op.name() {
                        "FusedElementwiseGrad" => stats.fused_regions += 1,
                        "PointwiseGrad" => stats.pointwise_grads += 1,
                        "MatMulChain" => stats.product_chains += 1,
                        _ => {}
                    }
                    (inputs, outputs)
                }
                Node::Read { output, .. } => (&[], std::slice::from_ref(output)),
                Node::Effect { inputs, .. } => (inputs, &[]),
            };
            for &s in ins {
                last[s as usize] = Some(i);
            }
            for &s in outs {
                produced[s as usize] = true;
                // A value no node reads is dropped right after it is made.
                last[s as usize] = last[s as usize].or(Some(i));
            }
        }
        let mut release_after: Vec<SmallVec<[Slot; 2]>> = vec![SmallVec::new(); g.nodes.len()];
        for (s, l) in last.iter().enumerate() {
            // Inputs and constants are held by the caller and the graph.
            if let (Some(i), true, false) = (l, produced[s], keep[s]) {
                release_after[*i].push(s as Slot);
                stats.released_early += 1;
            }
        }
        stats.computed = produced.iter().filter(|&&p| p).count();
        let mut live = 0usize;
        for (n, rel) in g.nodes.iter().zip(&release_after) {
            live += match n {
                Node::Op { outputs, .. } => outputs.len(),
                Node::Read { .. } => 1,
                Node::Effect { .. } => 0,
            };
            stats.peak_live = stats.peak_live.max(live);
            live -= rel.len();
        }
        // Backwards: an effect's variable is last touched there when no
        // later read or effect names its handle.
        // A control-flow op (`cond`, `while_loop`) reads the variables its
        // branches read when it runs: effects before one are not deferred.
        let mut seen = rustc_hash::FxHashSet::default();
        let mut control_later = false;
        let mut last_touch: Vec<SmallVec<[bool; 4]>> = vec![SmallVec::new(); g.nodes.len()];
        for (i, n) in g.nodes.iter().enumerate().rev() {
            match n {
                Node::Read { var, .. } => {
                    seen.insert(var.handle_id());
                }
                Node::Effect { effect, .. } => {
                    last_touch[i] = effect
                        .variables()
                        .iter()
                        .map(|v| !control_later && !seen.contains(&v.handle_id()))
                        .collect();
                    seen.extend(effect.variables().iter().map(|v| v.handle_id()));
                }
                Node::Op { op, .. } => {
                    control_later |= matches!(op.name(), "If" | "While");
                }
            }
        }
        Plan {
            release_after,
            last_touch,
            stats,
        }
    }

    /// Whether effect node `i` is the last node touching each of its first
    /// `writes` variables.
    pub(super) fn last_to_touch(&self, i: usize, writes: usize) -> bool {
        self.last_touch
            .get(i)
            .is_some_and(|l| l.len() >= writes && l[..writes].iter().all(|&b| b))
    }

    /// Releases the values node `i` was the last reader of.
    #[inline]
    pub(super) fn release<T>(&self, i: usize, vals: &mut [Option<T>]) {
        if let Some(rel) = self.release_after.get(i) {
            for &s in rel {
                vals[s as usize] = None;
            }
        }
    }

    pub(super) fn stats(&self) -> &PlanStats {
        &self.stats
    }
}
