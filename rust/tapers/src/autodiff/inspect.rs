//! Looking inside a tape: what it recorded (as text or Graphviz DOT), and why
//! a gradient came back `None`.
//!
//! Nothing here is on the hot path. The only recording-time cost is the table
//! of "cuts" (tensors computed from tracked ones by ops that pass no
//! gradient), which the tape keeps so that an explanation can name the op that
//! broke the path.

use std::collections::VecDeque;
use std::fmt::{self, Write as _};

use rustc_hash::FxHashSet;

use super::Source;
use crate::dims::ShapeDisplay;
use crate::dtype::DType;
use crate::record::{CutReason, Entry, Origin, TapeData};
use crate::tensor::{Tensor, TensorId};

/// Why the gradient of a target with respect to a source is (or is not) `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// A recorded path connects them: the gradient is a tensor.
    Connected,
    /// The tape holds no recording: never entered, or spent by `gradient`.
    NoRecording,
    /// The source is not floating point; only floats have gradients.
    SourceNotFloat(DType),
    /// The target is not floating point.
    TargetNotFloat(DType),
    /// The target was not computed while this tape recorded.
    TargetNotRecorded,
    /// The source was never watched (nor read, for a variable) while the tape
    /// recorded, so nothing computed from it was recorded.
    SourceNotWatched,
    /// A path exists, but an op on it passes no gradient.
    Cut {
        /// The op that broke the path.
        op: &'static str,
        /// Why it passes no gradient.
        reason: CutReason,
    },
    /// Both are on the tape, but no recorded op leads from the source to the target.
    NotConnected,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Explanation::Connected => f.write_str("connected: a recorded path leads from the source to the target"),
            Explanation::NoRecording => f.write_str(
                "the tape holds no recording (it was never entered, or a non-persistent tape was spent by gradient())",
            ),
            Explanation::SourceNotFloat(d) => write!(
                f,
                "the source has dtype {d}: only floating-point tensors have gradients"
            ),
            Explanation::TargetNotFloat(d) => write!(
                f,
                "the target has dtype {d}: only floating-point targets are differentiated"
            ),
            Explanation::TargetNotRecorded => f.write_str(
                "the target was computed outside this tape (before it was entered, after it exited, \
                 or inside stop_recording), so the tape knows nothing of how it was made",
            ),
            Explanation::SourceNotWatched => f.write_str(
                "the source was never watched: call tape.watch(source) inside the `with` block \
                 (variables are watched when read, unless watch_accessed_variables=False or trainable=False)",
            ),
            Explanation::Cut { op, reason: CutReason::StopGradient } => write!(
                f,
                "the path is cut by {op}: no gradient flows through it"
            ),
            Explanation::Cut { op, reason: CutReason::NonFloat } => write!(
                f,
                "the path goes through an integer or boolean value (made by {op}): no gradient flows through it"
            ),
            Explanation::NotConnected => {
                f.write_str("no recorded op leads from the source to the target")
            }
        }
    }
}

/// Walks back from `targets` to `source`; `through_cuts` also follows the
/// connections that pass no gradient. Returns whether the source was reached,
/// and the first cut crossed on the way.
fn search(
    data: &TapeData,
    entries: &[Entry],
    targets: &[TensorId],
    source: TensorId,
    through_cuts: bool,
) -> (bool, Option<(&'static str, CutReason)>) {
    let mut seen: FxHashSet<TensorId> = FxHashSet::default();
    let mut queue: VecDeque<(TensorId, Option<(&'static str, CutReason)>)> =
        targets.iter().map(|&t| (t, None)).collect();
    while let Some((id, cut)) = queue.pop_front() {
        if id == source {
            return (true, cut);
        }
        if !seen.insert(id) {
            continue;
        }
        if let Some(Origin::Entry(i)) = data.tracked.get(&id) {
            for inp in &entries[*i as usize].inputs {
                queue.push_back((inp.id, cut));
            }
        }
        if through_cuts {
            if let Some(c) = data.cuts.get(&id) {
                for &from in &c.from {
                    queue.push_back((from, cut.or(Some((c.op, c.reason)))));
                }
            }
        }
    }
    (false, None)
}

/// The explanation for one source, given the recording.
pub(crate) fn explain_in(
    data: &TapeData,
    entries: &[Entry],
    targets: &[Tensor],
    source: &Source,
) -> Explanation {
    if !source.dtype().is_differentiable() {
        return Explanation::SourceNotFloat(source.dtype());
    }
    let sid = source.id();
    if let Some(t) = targets.iter().find(|t| !t.dtype().is_differentiable()) {
        return Explanation::TargetNotFloat(t.dtype());
    }
    if targets.iter().any(|t| t.id() == sid) {
        return Explanation::Connected;
    }
    // An unwatched source comes first: with nothing watched, ops on it are
    // not recorded either, so the target also looks "computed outside", but
    // watching the source is the fix.
    if !data.tracked.contains_key(&sid) {
        return Explanation::SourceNotWatched;
    }
    let ids: Vec<TensorId> = targets.iter().map(Tensor::id).collect();
    if !ids
        .iter()
        .any(|id| data.tracked.contains_key(id) || data.cuts.contains_key(id))
    {
        return Explanation::TargetNotRecorded;
    }
    if search(data, entries, &ids, sid, false).0 {
        return Explanation::Connected;
    }
    match search(data, entries, &ids, sid, true) {
        (true, Some((op, reason))) => Explanation::Cut { op, reason },
        _ => Explanation::NotConnected,
    }
}

/// The ids a tape watches directly, in creation order.
fn watched_ids(d: &TapeData) -> Vec<TensorId> {
    let mut ids: Vec<TensorId> = d
        .tracked
        .iter()
        .filter(|(_, o)| **o == Origin::Watched)
        .map(|(id, _)| *id)
        .collect();
    ids.sort();
    ids
}

fn short(id: TensorId) -> String {
    format!("t{}", id.as_u64())
}

/// A plain-text listing of the recording: one line per op, with its
/// inputs, outputs, dtypes and shapes, then the watched tensors and
/// variables, and the connections that pass no gradient.
pub(crate) fn describe(data: Option<&TapeData>, kind: &str) -> String {
    {
        let mut s = String::new();
        let Some(d) = data else {
            let _ = writeln!(
                s,
                "GradientTape ({}): no recording (never entered, or spent)",
                kind
            );
            return s;
        };
        let _ = writeln!(s, "GradientTape ({}): {} ops", kind, d.entries.len());
        let watched = watched_ids(d);
        let names: Vec<String> = watched
            .iter()
            .map(|id| match d.variables.get(id) {
                Some(v) => format!("{} (Variable '{}')", short(*id), v.name()),
                None => short(*id),
            })
            .collect();
        let _ = writeln!(s, "  watched: {}", names.join(", "));
        for (i, e) in d.entries.iter().enumerate() {
            let ins: Vec<String> = e
                .inputs
                .iter()
                .map(|inp| match inp.origin {
                    Origin::Untracked => format!("{} (constant)", short(inp.id)),
                    _ => short(inp.id),
                })
                .collect();
            let outs: Vec<String> = e
                .outputs
                .iter()
                .map(|o| {
                    format!(
                        "{}: {} {}",
                        short(o.id),
                        o.dtype,
                        ShapeDisplay::of(&o.shape)
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "  #{i} {}({}) -> {}",
                e.name(),
                ins.join(", "),
                outs.join(", ")
            );
        }
        let mut cuts: Vec<_> = d.cuts.iter().collect();
        cuts.sort_by_key(|(id, _)| **id);
        for (id, c) in cuts {
            let from: Vec<String> = c.from.iter().map(|f| short(*f)).collect();
            let _ = writeln!(
                s,
                "  no gradient: {} from {} (cut by {})",
                short(*id),
                from.join(", "),
                c.op
            );
        }
        s
    }
}

/// The recording as a Graphviz DOT digraph: ellipses for tensors (watched
/// ones filled), boxes for ops, dashed edges where no gradient flows.
pub(crate) fn to_dot(data: Option<&TapeData>) -> String {
    {
        let mut s =
            String::from("digraph tape {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n");
        let Some(d) = data else {
            s.push_str("  empty [shape=plaintext, label=\"no recording\"];\n}\n");
            return s;
        };
        let watched = watched_ids(d);
        for id in watched {
            let label = match d.variables.get(&id) {
                Some(v) => format!("{}\\nVariable '{}'", short(id), v.name().replace('"', "'")),
                None => format!("{}\\nwatched", short(id)),
            };
            let _ = writeln!(
                s,
                "  {} [shape=ellipse, style=filled, fillcolor=lightblue, label=\"{label}\"];",
                short(id)
            );
        }
        for (i, e) in d.entries.iter().enumerate() {
            let _ = writeln!(s, "  op{i} [shape=box, label=\"#{i} {}\"];", e.name());
            for inp in &e.inputs {
                let style = if inp.origin == Origin::Untracked {
                    " [style=dotted]"
                } else {
                    ""
                };
                let _ = writeln!(s, "  {} -> op{i}{style};", short(inp.id));
            }
            for o in &e.outputs {
                let _ = writeln!(
                    s,
                    "  {} [shape=ellipse, label=\"{}\\n{} {}\"];\n  op{i} -> {};",
                    short(o.id),
                    short(o.id),
                    o.dtype,
                    ShapeDisplay::of(&o.shape),
                    short(o.id)
                );
            }
        }
        let mut cuts: Vec<_> = d.cuts.iter().collect();
        cuts.sort_by_key(|(id, _)| **id);
        for (id, c) in cuts {
            let _ = writeln!(
                s,
                "  {} [shape=ellipse, style=dashed, label=\"{}\"];",
                short(*id),
                short(*id)
            );
            for f in &c.from {
                let _ = writeln!(
                    s,
                    "  {} -> {} [style=dashed, color=red, label=\"{}\"];",
                    short(*f),
                    short(*id),
                    c.op
                );
            }
        }
        s.push_str("}\n");
        s
    }
}
