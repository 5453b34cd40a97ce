//! The tape's debugging views: explanations of `None` gradients, text and DOT.

use tapers::{ops, CutReason, DType, Explanation, GradientTape, Source, Tensor, Variable};

fn x() -> Tensor {
    Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap()
}

#[test]
fn every_reason_for_a_none_gradient() {
    let a = x();
    let unwatched = x();
    let ints = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let outside = ops::mul(&a, &a).unwrap();
    let tape = GradientTape::with_options(true, true);
    let (y, cut, via_int, other) = {
        let _r = tape.record().unwrap();
        tape.watch(&a);
        tape.watch(&ints);
        let b = x();
        tape.watch(&b);
        let y = ops::add(&ops::mul(&a, &a).unwrap(), &unwatched).unwrap();
        let cut = ops::exp(&ops::stop_gradient(&ops::sin(&a).unwrap())).unwrap();
        let as_int = ops::cast(&a, DType::I32).unwrap();
        let via_int = ops::mul(
            &ops::cast(&as_int, DType::F32).unwrap(),
            &Tensor::scalar(2.0f32),
        )
        .unwrap();
        (y, cut, via_int, ops::square(&b).unwrap())
    };
    let src = |t: &Tensor| Source::from(t);
    assert_eq!(
        tape.explain(std::slice::from_ref(&y), &src(&a)),
        Explanation::Connected
    );
    assert_eq!(
        tape.explain(std::slice::from_ref(&y), &src(&unwatched)),
        Explanation::SourceNotWatched
    );
    assert_eq!(
        tape.explain(std::slice::from_ref(&y), &src(&ints)),
        Explanation::SourceNotFloat(DType::I32)
    );
    assert_eq!(
        tape.explain(&[outside], &src(&a)),
        Explanation::TargetNotRecorded
    );
    assert_eq!(
        tape.explain(std::slice::from_ref(&cut), &src(&a)),
        Explanation::Cut {
            op: "StopGradient",
            reason: CutReason::StopGradient
        }
    );
    assert_eq!(
        tape.explain(std::slice::from_ref(&via_int), &src(&a)),
        Explanation::Cut {
            op: "Cast",
            reason: CutReason::NonFloat
        }
    );
    assert_eq!(
        tape.explain(std::slice::from_ref(&other), &src(&a)),
        Explanation::NotConnected
    );
    // Each explanation agrees with what gradient returns.
    for (t, connected) in [
        (&y, true),
        (&cut, false),
        (&via_int, false),
        (&other, false),
    ] {
        let g = tape.gradient(std::slice::from_ref(t), &[src(&a)]).unwrap();
        assert_eq!(g[0].is_some(), connected);
    }
    let text = tape.explain(&[cut], &src(&a)).to_string();
    assert!(text.contains("cut by StopGradient"), "{text}");
}

#[test]
fn a_spent_tape_remembers_why_sources_got_none() {
    let a = x();
    let v = Variable::new(x()).with_name("w");
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&a);
        ops::stop_gradient(&ops::mul(&a, &v.read()).unwrap())
    };
    let g = tape
        .gradient(
            std::slice::from_ref(&y),
            &[Source::from(&a), Source::from(&v)],
        )
        .unwrap();
    assert!(g.iter().all(Option::is_none));
    assert!(matches!(
        tape.explain(std::slice::from_ref(&y), &Source::from(&a)),
        Explanation::Cut { .. }
    ));
    assert!(matches!(
        tape.explain(&[y], &Source::from(&v)),
        Explanation::Cut { .. }
    ));
    let fresh = x();
    assert_eq!(
        tape.explain(std::slice::from_ref(&fresh), &Source::from(&fresh)),
        Explanation::NoRecording
    );
}

#[test]
fn describe_and_dot_list_the_recording() {
    let a = x();
    let v = Variable::new(x()).with_name("weights");
    let tape = GradientTape::with_options(true, true);
    {
        let _r = tape.record().unwrap();
        tape.watch(&a);
        let y = ops::mul(&a, &v.read()).unwrap();
        let _ = ops::reduce_sum(&ops::stop_gradient(&y), None, false).unwrap();
    }
    let text = tape.describe();
    assert!(
        text.starts_with("GradientTape (persistent): 2 ops"),
        "{text}"
    );
    assert!(text.contains("Variable 'weights'"), "{text}");
    assert!(text.contains("Mul("), "{text}");
    assert!(text.contains("float32 [2]"), "{text}");
    assert!(text.contains("cut by StopGradient"), "{text}");
    let dot = tape.to_dot();
    assert!(
        dot.starts_with("digraph tape {") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
    assert!(dot.contains("op1 [shape=box, label=\"#1 Mul\"]"), "{dot}");
    assert!(
        dot.contains("style=dashed, color=red, label=\"StopGradient\""),
        "{dot}"
    );
    assert!(GradientTape::new().describe().contains("no recording"));
}
