//! Looking inside a tape: explanations of `None` gradients, listings.

use super::GradientTape;
use crate::autodiff::{self, Explanation, Source};
use crate::tensor::Tensor;

impl GradientTape {
    /// Why the gradient of `targets` (summed) with respect to `source` is, or
    /// is not, `None`.
    ///
    /// On a live recording this inspects it; on a non-persistent tape already
    /// spent by `gradient`, it returns what that call found for `source` (the
    /// tape computes explanations then, only for sources that got `None`).
    ///
    /// ```
    /// use tapers::{ops, Explanation, GradientTape, Tensor};
    /// let x = Tensor::scalar(2.0f32);
    /// let tape = GradientTape::with_options(true, true);
    /// let y = {
    ///     let _r = tape.record().unwrap();
    ///     tape.watch(&x);
    ///     ops::mul(&ops::stop_gradient(&x), &x).unwrap()
    /// };
    /// let z = {
    ///     let _r = tape.record().unwrap();
    ///     ops::stop_gradient(&y)
    /// };
    /// assert_eq!(tape.explain(&[y], &(&x).into()), Explanation::Connected);
    /// assert!(matches!(tape.explain(&[z], &(&x).into()), Explanation::Cut { op: "StopGradient", .. }));
    /// ```
    pub fn explain(&self, targets: &[Tensor], source: &Source) -> Explanation {
        self.with_data(|data| match data {
            Some(d) => autodiff::explain_in(d, &d.entries, targets, source),
            None => self
                .spent_explanation(source.id())
                .unwrap_or(Explanation::NoRecording),
        })
    }

    /// A plain-text listing of the recording: one line per op, with its
    /// inputs, outputs, dtypes and shapes, then the watched tensors and
    /// variables, and the connections that pass no gradient.
    pub fn describe(&self) -> String {
        let kind = if self.persistent() {
            "persistent"
        } else {
            "non-persistent"
        };
        self.with_data(|d| autodiff::inspect::describe(d, kind))
    }

    /// The recording as a Graphviz DOT digraph: ellipses for tensors (watched
    /// ones filled), boxes for ops, dashed edges where no gradient flows.
    pub fn to_dot(&self) -> String {
        self.with_data(autodiff::inspect::to_dot)
    }
}
