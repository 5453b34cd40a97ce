//! Core tape semantics, exercised from Rust without Python.

use std::sync::Arc;

use tapers::{
    ops, DType, Error, ErrorKind, GradientTape, RecordingContext, Source, Tensor, Unconnected,
    Variable,
};

fn scalar(v: f64) -> Tensor {
    Tensor::scalar(v)
}

fn value(t: &Tensor) -> f64 {
    t.to_f64_scalar().unwrap()
}

fn grad1(tape: &GradientTape, y: &Tensor, x: &Tensor) -> Option<Tensor> {
    tape.gradient(std::slice::from_ref(y), &[x.into()])
        .unwrap()
        .pop()
        .unwrap()
}

#[test]
fn gradient_of_square() {
    let x = Tensor::scalar(3.0f32);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        assert!(tape.watch(&x));
        ops::mul(&x, &x).unwrap()
    };
    let g = grad1(&tape, &y, &x).unwrap();
    assert_eq!(g.dtype(), DType::F32);
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![6.0]);
    // Non-persistent: spent.
    let err = tape.gradient(&[y], &[(&x).into()]).unwrap_err();
    assert!(matches!(err, Error::TapeSpent));
    assert_eq!(err.kind(), ErrorKind::Runtime);
}

#[test]
fn nothing_is_recorded_without_a_watched_input() {
    let x = scalar(2.0);
    let tape = GradientTape::new();
    let _r = tape.record().unwrap();
    let _y = ops::mul(&x, &x).unwrap();
    assert_eq!(tape.len(), 0);
    tape.watch(&x);
    let _z = ops::mul(&x, &x).unwrap();
    assert_eq!(tape.len(), 1);
}

#[test]
fn third_derivative_with_nested_tapes() {
    let x = scalar(3.0);
    let t3 = GradientTape::new();
    let t2 = GradientTape::new();
    let t1 = GradientTape::new();
    let r3 = t3.record().unwrap();
    t3.watch(&x);
    let r2 = t2.record().unwrap();
    t2.watch(&x);
    let y = {
        let _r1 = t1.record().unwrap();
        t1.watch(&x);
        ops::mul(&ops::mul(&x, &x).unwrap(), &x).unwrap()
    };
    let dy = grad1(&t1, &y, &x).unwrap();
    drop(r2);
    let d2y = grad1(&t2, &dy, &x).unwrap();
    drop(r3);
    let d3y = grad1(&t3, &d2y, &x).unwrap();
    assert_eq!((value(&dy), value(&d2y), value(&d3y)), (27.0, 18.0, 6.0));
}

#[test]
fn persistent_tape_and_output_gradients() {
    let x = scalar(2.0);
    let tape = GradientTape::with_options(true, true);
    let (z, w) = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        let z = ops::mul(&x, &scalar(5.0)).unwrap();
        let w = ops::mul(&z, &scalar(3.0)).unwrap();
        (z, w)
    };
    assert_eq!(value(&grad1(&tape, &w, &z).unwrap()), 3.0);
    assert_eq!(value(&grad1(&tape, &w, &x).unwrap()), 15.0);
    let g = tape
        .gradient_with(
            std::slice::from_ref(&w),
            &[(&x).into()],
            Some(&[scalar(2.0)]),
            Unconnected::None,
        )
        .unwrap();
    assert_eq!(value(g[0].as_ref().unwrap()), 30.0);
    // A list of targets is summed.
    let g = tape.gradient(&[w, z], &[(&x).into()]).unwrap();
    assert_eq!(value(g[0].as_ref().unwrap()), 20.0);
}

#[test]
fn unconnected_sources() {
    let (x, y) = (
        scalar(2.0),
        Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap(),
    );
    let tape = GradientTape::with_options(true, true);
    let z = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        ops::mul(&x, &x).unwrap()
    };
    assert!(grad1(&tape, &z, &y).is_none());
    let g = tape
        .gradient_with(&[z], &[(&y).into()], None, Unconnected::Zero)
        .unwrap();
    assert_eq!(
        g[0].as_ref().unwrap().to_vec::<f64>().unwrap(),
        vec![0.0, 0.0]
    );
}

#[test]
fn stop_recording_and_reset() {
    let x = scalar(3.0);
    let tape = GradientTape::with_options(true, true);
    let _r = tape.record().unwrap();
    tape.watch(&x);
    let paused = {
        let _p = tape.stop_recording().unwrap();
        ops::mul(&x, &x).unwrap()
    };
    let live = ops::mul(&x, &scalar(2.0)).unwrap();
    assert!(grad1(&tape, &paused, &x).is_none());
    assert_eq!(value(&grad1(&tape, &live, &x).unwrap()), 2.0);
    tape.reset().unwrap();
    assert_eq!(tape.len(), 0);
    assert!(grad1(&tape, &live, &x).is_none());
}

#[test]
fn entering_twice_is_an_error() {
    let tape = GradientTape::new();
    let _r = tape.record().unwrap();
    let err = tape.push().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Value);
}

#[test]
fn variables_are_watched_when_read() {
    let v = Variable::new(scalar(2.0)).with_name("v");
    let frozen = Variable::new(scalar(5.0))
        .with_name("frozen")
        .trainable(false);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        ops::mul(&ops::mul(&v.read(), &v.read()).unwrap(), &frozen.read()).unwrap()
    };
    let watched = tape.watched_variables();
    assert_eq!(watched.len(), 1);
    assert!(watched[0].same_as(&v));
    let g = tape
        .gradient(&[y], &[Source::from(&v), Source::from(&frozen)])
        .unwrap();
    assert_eq!(value(g[0].as_ref().unwrap()), 20.0);
    assert!(g[1].is_none());
}

#[test]
fn variable_assign_checks_shape_and_dtype() {
    let v = Variable::new(Tensor::zeros(&[2], DType::F32).unwrap()).with_name("w");
    assert!(v.assign(&Tensor::zeros(&[3], DType::F32).unwrap()).is_err());
    assert!(v.assign(&Tensor::zeros(&[2], DType::F64).unwrap()).is_err());
    v.assign_add(&Tensor::ones(&[2], DType::F32).unwrap())
        .unwrap();
    assert_eq!(v.value().to_vec::<f32>().unwrap(), vec![1.0, 1.0]);
}

#[test]
fn custom_op_uses_the_given_rule() {
    let x = scalar(3.0);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        let fwd = ops::mul(&x, &x).unwrap();
        let rule: Arc<dyn tapers::BackwardFn> = Arc::new(|g: &[Tensor], _: &[bool]| {
            Ok(vec![Some(ops::mul(&g[0], &Tensor::scalar(100.0f64))?)])
        });
        ops::custom_op("Custom", std::slice::from_ref(&x), &[fwd], rule)
            .pop()
            .unwrap()
    };
    assert_eq!(value(&grad1(&tape, &y, &x).unwrap()), 100.0);
}

#[test]
fn each_thread_records_on_its_own_tape() {
    let handles: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let x = scalar(i as f64);
                let tape = GradientTape::new();
                let y = {
                    let _r = tape.record().unwrap();
                    tape.watch(&x);
                    ops::mul(&x, &x).unwrap()
                };
                value(&grad1(&tape, &y, &x).unwrap())
            })
        })
        .collect();
    let got: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(got, (0..8).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
}

#[test]
fn a_recording_context_carries_tapes_to_another_thread() {
    let x = scalar(4.0);
    let tape = GradientTape::new();
    let _r = tape.record().unwrap();
    tape.watch(&x);
    let ctx = RecordingContext::current();
    let x2 = x.clone();
    let y = std::thread::spawn(move || ctx.enter(|| ops::mul(&x2, &x2).unwrap()))
        .join()
        .unwrap();
    // Without the context, the same op on a plain thread is not recorded.
    let x3 = x.clone();
    let unrecorded = std::thread::spawn(move || ops::mul(&x3, &x3).unwrap())
        .join()
        .unwrap();
    drop(_r);
    let g = tape.gradient(&[y, unrecorded], &[(&x).into()]).unwrap();
    assert_eq!(value(g[0].as_ref().unwrap()), 8.0);
}

#[test]
fn an_installed_empty_context_records_nothing_until_the_previous_is_back() {
    let x = scalar(3.0);
    let tape = GradientTape::new();
    let _r = tape.record().unwrap();
    tape.watch(&x);
    let previous = RecordingContext::default().install();
    assert!(RecordingContext::current().is_empty());
    let lifted = ops::mul(&x, &x).unwrap();
    assert!(RecordingContext::default().install().is_empty());
    previous.install();
    assert!(!RecordingContext::current().is_empty());
    let recorded = ops::mul(&x, &x).unwrap();
    drop(_r);
    let g = tape.gradient(&[lifted, recorded], &[(&x).into()]).unwrap();
    // Only the product made after the scope reaches `x`.
    assert_eq!(value(g[0].as_ref().unwrap()), 6.0);
}

#[test]
fn tensors_tapes_and_variables_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tensor>();
    assert_send_sync::<GradientTape>();
    assert_send_sync::<Variable>();
    assert_send_sync::<Error>();
}

#[test]
fn shared_variable_updates_from_threads() {
    let v = Variable::new(Tensor::zeros(&[16], DType::F64).unwrap()).with_name("acc");
    let one = Tensor::ones(&[16], DType::F64).unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..1000 {
                    v.assign_add(&one).unwrap();
                }
            });
        }
    });
    assert_eq!(v.value().to_vec::<f64>().unwrap(), vec![8000.0; 16]);
}

#[test]
fn errors_name_shapes_and_dtypes() {
    let a = Tensor::zeros(&[2], DType::F32).unwrap();
    let b = Tensor::zeros(&[3], DType::F32).unwrap();
    let e = ops::add(&a, &b).unwrap_err();
    assert_eq!(e.to_string(), "Incompatible shapes: [2] vs. [3] [Op:AddV2]");
    let c = Tensor::zeros(&[2], DType::F64).unwrap();
    let e = ops::mul(&a, &c).unwrap_err();
    assert!(
        e.to_string()
            .contains("expected to be a float tensor but is a double tensor"),
        "{e}"
    );
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn a_failed_gradient_leaves_the_tape_usable() {
    let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        ops::mul(&x, &x).unwrap()
    };
    let bad = Tensor::zeros(&[3], DType::F32).unwrap();
    assert!(tape
        .gradient_with(
            std::slice::from_ref(&y),
            &[(&x).into()],
            Some(&[bad]),
            Unconnected::None
        )
        .is_err());
    let g = grad1(&tape, &y, &x).unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn a_pending_spend_spends_only_when_committed() {
    let v = Variable::new(Tensor::scalar(3.0f64)).with_name("v");
    let unconnected = scalar(1.0);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&unconnected);
        ops::mul(&v.read(), &v.read()).unwrap()
    };
    let sources = [Source::from(&v), Source::from(&unconnected)];
    let pass = || {
        tape.gradient_pending(
            std::slice::from_ref(&y),
            &sources,
            None,
            Unconnected::None,
            None,
        )
        .unwrap()
    };
    // Dropped: the recording is back, whole.
    let ops = tape.len();
    let (g, spend) = pass();
    assert_eq!(value(g[0].as_ref().unwrap()), 6.0);
    assert_eq!(tape.len(), 0);
    drop(spend);
    assert_eq!(tape.len(), ops);
    // Committed: spent, answering for what the pass saw.
    let (_, spend) = pass();
    spend.commit();
    assert!(matches!(
        tape.gradient(std::slice::from_ref(&y), &sources),
        Err(Error::TapeSpent)
    ));
    assert_eq!(tape.watched_variables().len(), 1);
    assert_eq!(
        tape.explain(std::slice::from_ref(&y), &sources[1]),
        tapers::Explanation::NotConnected
    );
    // Entered again while a pass was pending: dropping it keeps the new recording.
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&unconnected);
        ops::mul(&unconnected, &unconnected).unwrap()
    };
    let (_, spend) = tape
        .gradient_pending(
            &[y],
            &[(&unconnected).into()],
            None,
            Unconnected::None,
            None,
        )
        .unwrap();
    let z = {
        let _r = tape.record().unwrap();
        tape.watch(&unconnected);
        ops::add(&unconnected, &unconnected).unwrap()
    };
    drop(spend);
    assert_eq!(tape.len(), 1);
    assert_eq!(value(&grad1(&tape, &z, &unconnected).unwrap()), 2.0);
}

#[test]
fn long_chains_do_not_recurse() {
    let x = scalar(1.0);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        let c = scalar(1.0);
        let mut y = x.clone();
        for _ in 0..100_000 {
            y = ops::add(&y, &c).unwrap();
        }
        y
    };
    assert_eq!(value(&y), 100_001.0);
    assert_eq!(value(&grad1(&tape, &y, &x).unwrap()), 1.0);
}

/// A wide graph, big enough for the parallel scheduler, differentiated on one
/// thread and on four: bitwise identical.
#[test]
fn gradients_are_bitwise_identical_across_thread_counts() {
    let n = 1 << 17;
    let v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 997.0 - 0.5)
        .collect();
    let x = Tensor::from_vec(v, &[n]).unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let tape = GradientTape::new();
            let y = {
                let _r = tape.record().unwrap();
                tape.watch(&x);
                // Sixteen branches that share x, each a few ops deep.
                let mut acc = ops::zeros_like(&x).unwrap();
                for k in 0..16 {
                    let c = Tensor::scalar(0.1f32 * (k as f32 + 1.0));
                    let b = ops::tanh(&ops::mul(&x, &c).unwrap()).unwrap();
                    let b = ops::mul(
                        &ops::exp(&ops::neg(&ops::square(&b).unwrap()).unwrap()).unwrap(),
                        &b,
                    )
                    .unwrap();
                    acc = ops::add(&acc, &b).unwrap();
                }
                ops::reduce_sum(&acc, None, false).unwrap()
            };
            let g = tape.gradient(&[y], &[(&x).into()]).unwrap()[0]
                .clone()
                .unwrap();
            g.to_vec::<f32>().unwrap()
        })
    };
    let one = run(1);
    let four = run(4);
    assert!(one
        .iter()
        .zip(&four)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    assert!(one.iter().any(|&g| g != 0.0));
}

#[test]
fn a_tape_exited_on_another_thread_stops_recording_everywhere() {
    let x = scalar(2.0);
    let tape = GradientTape::with_options(true, true);
    tape.push().unwrap();
    tape.watch(&x);
    let y = ops::mul(&x, &x).unwrap();
    let t2 = tape.clone();
    std::thread::spawn(move || t2.pop().unwrap())
        .join()
        .unwrap();
    assert!(!tape.is_recording());
    let z = ops::mul(&x, &x).unwrap();
    assert_eq!(tape.len(), 1);
    assert_eq!(value(&grad1(&tape, &y, &x).unwrap()), 4.0);
    assert!(grad1(&tape, &z, &x).is_none());
    tape.push().unwrap();
    let w = ops::mul(&x, &scalar(3.0)).unwrap();
    tape.pop().unwrap();
    assert_eq!(value(&grad1(&tape, &w, &x).unwrap()), 3.0);
}

#[test]
fn product_with_a_seed_of_ones_shares_the_other_factor() {
    // d/da sum(a * b) = ones * b: the reduction's broadcast seed is known to be
    // all ones, so the product rule hands back b's elements without a pass,
    // bit for bit (signed zeros, infinities and NaN included).
    let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let b = Tensor::from_vec(vec![-0.0f32, f32::INFINITY, f32::NAN, 0.5], &[4]).unwrap();
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&a);
        ops::reduce_sum(&ops::mul(&a, &b).unwrap(), None, false).unwrap()
    };
    let g = grad1(&tape, &y, &a).expect("connected");
    let (gv, bv) = (g.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
    assert_eq!(
        gv.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        bv.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(
        g.array::<f32>().unwrap().as_ptr(),
        b.array::<f32>().unwrap().as_ptr(),
        "no copy"
    );
    assert_ne!(g.id(), b.id(), "a distinct tensor on tapes");
    // A seed that is not all ones still multiplies.
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&a);
        ops::mul(&a, &b).unwrap()
    };
    let two = Tensor::full(&[4], 2.0f32).unwrap();
    let g = tape
        .gradient_with(
            std::slice::from_ref(&y),
            &[(&a).into()],
            Some(&[two]),
            Unconnected::None,
        )
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap()[3], 1.0);
}

/// Large same-shape elementwise regions run fused in the backward pass;
/// under an outer recording tape every rule is recorded op by op instead.
/// Both give the same bits when all of a leaf's gradient comes from the region.
#[test]
fn fused_elementwise_backward_matches_the_op_by_op_pass() {
    let n = 1 << 17;
    let xs: Vec<f32> = (0..n).map(|i| ((i as f32) * 0.37).sin() * 2.0).collect();
    let x = Tensor::from_vec(xs.clone(), &[n]).unwrap();
    let run = || {
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record().unwrap();
            tape.watch(&x);
            let sq = ops::mul(&ops::neg(&x).unwrap(), &x).unwrap();
            let p = ops::mul(&ops::tanh(&x).unwrap(), &ops::exp(&sq).unwrap()).unwrap();
            let q = ops::div(
                &ops::sigmoid(&p).unwrap(),
                &ops::add(&ops::square(&x).unwrap(), &ops::ones_like(&x).unwrap()).unwrap(),
            )
            .unwrap();
            ops::reduce_sum(&ops::sub(&q, &x).unwrap(), None, false).unwrap()
        };
        grad1(&tape, &y, &x).unwrap().to_vec::<f32>().unwrap()
    };
    let fused = run();
    let outer = GradientTape::new();
    let plain = {
        let _o = outer.record().unwrap();
        run()
    };
    assert_eq!(fused.len(), n);
    assert!(fused
        .iter()
        .zip(&plain)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    // And against the derivative, computed directly.
    for (i, &v) in xs.iter().enumerate().step_by(997) {
        let v = v as f64;
        let (t, e) = (v.tanh(), (-v * v).exp());
        let p = t * e;
        let dp = (1.0 - t * t) * e + t * e * (-2.0 * v);
        let s = 1.0 / (1.0 + (-p).exp());
        let d = 1.0 + v * v;
        let want = s * (1.0 - s) * dp / d - s * 2.0 * v / (d * d) - 1.0;
        assert!(
            (fused[i] as f64 - want).abs() < 1e-5,
            "element {i}: {} vs {want}",
            fused[i]
        );
    }
}

/// A seed that does not match its target is an error, not a panic, when the
/// region it enters is fused (the Rust API does not check seeds up front).
#[test]
fn fused_region_refuses_a_mismatched_seed() {
    let n = 1 << 17;
    let x = Tensor::from_vec(vec![0.5f32; n], &[n]).unwrap();
    let tape = GradientTape::with_options(true, true);
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        ops::mul(&ops::tanh(&x).unwrap(), &x).unwrap()
    };
    for bad in [
        Tensor::from_vec(vec![1.0f64; n], &[n]).unwrap(),
        Tensor::from_vec(vec![1.0f32; 5], &[5]).unwrap(),
    ] {
        let r = tape.gradient_with(
            std::slice::from_ref(&y),
            &[(&x).into()],
            Some(std::slice::from_ref(&bad)),
            Unconnected::None,
        );
        assert!(r.is_err());
    }
    // The tape still differentiates with a proper seed.
    let g = grad1(&tape, &y, &x).unwrap().to_vec::<f32>().unwrap();
    let t = 0.5f32.tanh();
    assert!((g[0] - ((1.0 - t * t) * 0.5 + t)).abs() < 1e-6);
}

#[test]
fn many_sources_and_long_tapes_take_the_same_path_as_few() {
    // Up to 32 sources are kept in a list and small tapes' flags inline;
    // past either size the pass switches representation. Same answers.
    for (n_sources, n_ops) in [(1, 1), (8, 3), (32, 40), (33, 40), (100, 70)] {
        let xs: Vec<Tensor> = (0..n_sources).map(|i| scalar(i as f64 + 1.0)).collect();
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record().unwrap();
            for x in &xs {
                tape.watch(x);
            }
            // y = sum_i x_i^2, then n_ops - 1 more multiplications by 1.
            let mut y = ops::add_n(
                &xs.iter()
                    .map(|x| ops::mul(x, x).unwrap())
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            for _ in 1..n_ops {
                y = ops::mul(&y, &scalar(1.0)).unwrap();
            }
            y
        };
        // Every source twice, plus one never watched.
        let stranger = scalar(7.0);
        let mut sources: Vec<Source> = xs.iter().map(Source::from).collect();
        sources.extend(xs.iter().map(Source::from));
        sources.push((&stranger).into());
        let g = tape.gradient(&[y], &sources).unwrap();
        for (k, gk) in g.iter().enumerate() {
            match k.checked_sub(2 * n_sources) {
                Some(_) => assert!(gk.is_none()),
                None => assert_eq!(
                    value(gk.as_ref().unwrap()),
                    2.0 * ((k % n_sources) as f64 + 1.0)
                ),
            }
        }
    }
}

#[test]
fn scalar_seeds_share_elements_but_not_identity() {
    // `ones(&[])` hands out one shared element buffer per dtype; each call
    // is still a tensor of its own (tapes tell them apart by id).
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool] {
        let a = Tensor::ones(&[], dtype).unwrap();
        let b = Tensor::ones(&[], dtype).unwrap();
        assert_ne!(a.id(), b.id());
        assert_eq!((a.dtype(), a.shape()), (dtype, &[][..]));
        assert_eq!(a.to_f64_scalar().unwrap(), 1.0);
    }
    // d x / d x through the shared seed, twice: both 1, distinct tensors.
    let x = scalar(5.0);
    let tape = GradientTape::with_options(true, true);
    drop(tape.record().unwrap());
    let g1 = grad1(&tape, &x, &x).unwrap();
    let g2 = grad1(&tape, &x, &x).unwrap();
    assert_eq!((value(&g1), value(&g2)), (1.0, 1.0));
    assert_ne!(g1.id(), g2.id());
}
