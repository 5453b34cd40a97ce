//! Traced graphs (`tapers::graph`): a replay gives the bits eager execution
//! gives, reads and writes variables as the traced code did, and leaves
//! variables untouched when it fails.

use tapers::graph::{self, Tracing};
use tapers::optim::{apply_traced, Rule};
use tapers::{ops, DType, GradientTape, Tensor, Variable};

fn bits(t: &Tensor) -> Vec<u64> {
    ops::cast(t, DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

fn vals(n: usize, seed: f64, shape: &[usize]) -> Tensor {
    let v: Vec<f32> = (0..n)
        .map(|i| ((i as f64 * 0.731 + seed).sin() * 0.5) as f32)
        .collect();
    Tensor::from_vec(v, shape).unwrap()
}

#[test]
fn replay_runs_on_new_inputs_with_eager_bits() {
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let (x, y) = (&i[0], &i[1]);
        let z = x.tanh()?.mul(&x.neg()?.mul(x)?.exp()?)?.add(y)?;
        let m = ops::argmax(&z, 1)?;
        let hit = ops::equal(&m, &Tensor::from_vec(vec![0i64, 1], &[2])?)?;
        Ok(vec![ops::reduce_sum(&z, Some(&[1]), false)?, m, hit])
    };
    let (x0, y0) = (vals(6, 0.1, &[2, 3]), vals(6, 0.7, &[2, 3]));
    let (g, first) = graph::trace(&[x0.clone(), y0.clone()], f).unwrap();
    let eager0 = f(&[x0, y0]).unwrap();
    for (a, b) in first.iter().zip(&eager0) {
        assert_eq!(bits(a), bits(b));
    }
    for seed in [0.3, 1.9, 4.2] {
        let (x, y) = (vals(6, seed, &[2, 3]), vals(6, seed * 2.0, &[2, 3]));
        let again = g.run(&[x.clone(), y.clone()]).unwrap();
        let eager = f(&[x, y]).unwrap();
        assert_eq!(again.len(), 3);
        for (a, b) in again.iter().zip(&eager) {
            assert_eq!(a.dtype(), b.dtype());
            // argmax and equal are not taped ops: they replay, not constants.
            assert_eq!(bits(a), bits(b), "seed {seed}");
        }
    }
    let wrong = g.run(&[vals(4, 0.0, &[2, 2]), vals(6, 0.0, &[2, 3])]);
    assert!(format!("{}", wrong.unwrap_err()).contains("traced as float32 [2,3]"));
}

/// An MLP step: forward, gradient by a tape, optimizer updates and an
/// `assign_sub`, traced once; replays match eager steps bit for bit.
#[test]
fn training_step_replays_bitwise() {
    let make = || -> Vec<Variable> {
        vec![
            Variable::new(vals(12, 0.2, &[4, 3])),
            Variable::new(vals(3, 0.9, &[3])),
            Variable::new(vals(6, 1.3, &[3, 2])),
        ]
    };
    let rule = Rule::Sgd {
        momentum: 0.9,
        nesterov: false,
    };
    let step = |vars: &[Variable],
                slots: &[Vec<Variable>],
                iters: &Variable,
                x: &Tensor,
                y: &Tensor|
     -> tapers::Result<Tensor> {
        let tape = GradientTape::new();
        let loss = {
            let _r = tape.record()?;
            let h = ops::relu(&x.matmul(&vars[0].read())?.add(&vars[1].read())?)?;
            let out = h.matmul(&vars[2].read())?;
            ops::reduce_mean(&out.sub(y)?.square()?, None, false)?
        };
        let srcs: Vec<tapers::Source> = vars.iter().map(Into::into).collect();
        let grads = tape.gradient(std::slice::from_ref(&loss), &srcs)?;
        for ((v, g), s) in vars[..2].iter().zip(&grads).zip(slots) {
            apply_traced(
                &rule,
                v,
                g.as_ref().unwrap(),
                s,
                0.1,
                None,
                Some(iters),
                0.0,
            )?;
        }
        let g2 = grads[2].as_ref().unwrap();
        vars[2].assign_sub(&g2.mul(&Tensor::scalar(0.1f32))?)?;
        iters.assign_add(&Tensor::scalar(1i64))?;
        Ok(loss)
    };
    let state = || {
        let vars = make();
        let slots: Vec<Vec<Variable>> = vars[..2]
            .iter()
            .map(|v| vec![Variable::new(ops::zeros_like(&v.value()).unwrap())])
            .collect();
        (vars, slots, Variable::new(Tensor::scalar(0i64)))
    };
    let (ev, es, ei) = state();
    let (tv, ts, ti) = state();
    let batch = |k: usize| {
        (
            vals(20, k as f64, &[5, 4]),
            vals(10, k as f64 + 0.5, &[5, 2]),
        )
    };
    let (x, y) = batch(0);
    let tracing = Tracing::start(&[x.clone(), y.clone()]);
    let traced_loss = step(&tv, &ts, &ti, &x, &y).unwrap();
    let g = tracing.finish(std::slice::from_ref(&traced_loss));
    assert!(g.op_names().contains(&"ApplyGradients"));
    assert!(g.op_names().contains(&"AssignSubVariableOp"));
    assert!(g.op_names().contains(&"MatMul"));
    let eager_loss = step(&ev, &es, &ei, &x, &y).unwrap();
    assert_eq!(bits(&traced_loss), bits(&eager_loss));
    for k in 1..5 {
        let (x, y) = batch(k);
        let r = g.run(&[x.clone(), y.clone()]).unwrap();
        let e = step(&ev, &es, &ei, &x, &y).unwrap();
        assert_eq!(bits(&r[0]), bits(&e), "loss of step {k}");
        for (a, b) in tv
            .iter()
            .zip(&ev)
            .chain(ts.iter().flatten().zip(es.iter().flatten()))
        {
            assert_eq!(
                bits(&a.value()),
                bits(&b.value()),
                "variable after step {k}"
            );
        }
        assert_eq!(bits(&ti.value()), bits(&ei.value()));
    }
    assert_eq!(ti.value().to_vec::<i64>().unwrap(), vec![5]);
}

#[test]
fn failed_replay_leaves_variables_untouched() {
    let v = Variable::new(Tensor::scalar(10i64));
    let w = Variable::new(Tensor::scalar(1.0f64));
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        v.assign_sub(&Tensor::scalar(1i64))?;
        w.assign(&Tensor::scalar(5.0f64))?;
        // Reads see the writes made before them in the same call.
        let r = v.read();
        Ok(vec![ops::floordiv(&r, &i[0])?])
    };
    let (g, first) = graph::trace(&[Tensor::scalar(2i64)], f).unwrap();
    assert_eq!(first[0].to_vec::<i64>().unwrap(), vec![4]);
    assert_eq!(v.value().to_vec::<i64>().unwrap(), vec![9]);
    w.assign(&Tensor::scalar(1.0f64)).unwrap();
    let err = g.run(&[Tensor::scalar(0i64)]).unwrap_err();
    assert!(
        format!("{err}").contains("Integer division by zero"),
        "{err}"
    );
    assert_eq!(
        v.value().to_vec::<i64>().unwrap(),
        vec![9],
        "nothing written"
    );
    assert_eq!(
        w.value().to_vec::<f64>().unwrap(),
        vec![1.0],
        "nothing written"
    );
    let ok = g.run(&[Tensor::scalar(4i64)]).unwrap();
    assert_eq!(ok[0].to_vec::<i64>().unwrap(), vec![2]);
    assert_eq!(v.value().to_vec::<i64>().unwrap(), vec![8]);
    assert_eq!(w.value().to_vec::<f64>().unwrap(), vec![5.0]);
}

#[test]
fn guards_fail_when_a_read_value_changes() {
    let v = Variable::new(Tensor::scalar(1.0f32));
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let r = v.read();
        let positive = ops::greater(&r, &Tensor::scalar(0.0f32))?;
        // What Python's `if v > 0:` does while tracing.
        graph::guard(&positive);
        let branch = if positive.to_vec::<bool>()?[0] {
            i[0].mul(&r)?
        } else {
            i[0].neg()?
        };
        v.assign_add(&Tensor::scalar(-1.0f32))?;
        Ok(vec![branch])
    };
    let (g, _) = graph::trace(&[Tensor::scalar(3.0f32)], f).unwrap();
    assert_eq!(g.num_guards(), 1);
    v.assign(&Tensor::scalar(2.0f32)).unwrap();
    let r = g.try_run(&[Tensor::scalar(3.0f32)]).unwrap().unwrap();
    assert_eq!(r[0].to_vec::<f32>().unwrap(), vec![6.0]);
    assert_eq!(v.value().to_vec::<f32>().unwrap(), vec![1.0]);
    v.assign(&Tensor::scalar(-2.0f32)).unwrap();
    assert!(g.try_run(&[Tensor::scalar(3.0f32)]).unwrap().is_none());
    assert_eq!(
        v.value().to_vec::<f32>().unwrap(),
        vec![-2.0],
        "a failed guard writes nothing"
    );
    assert!(g.run(&[Tensor::scalar(3.0f32)]).is_err());
}

/// `f(x)` and its first and second derivatives, by two nested tapes.
#[test]
fn a_shape_that_depends_on_values_is_checked_at_replay() {
    // The mask's count becomes a reshape's target and a divisor: a replay
    // whose mask has another count does not apply (and writes nothing); one
    // with the traced count runs on the new mask.
    let v = Variable::new(Tensor::scalar(0.0f32));
    let x = Tensor::from_vec((0..6).map(|i| i as f32).collect(), &[6]).unwrap();
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let kept = ops::boolean_mask(&x, &i[0], 0)?;
        let n = kept.shape()[0];
        let rows = ops::reshape(&kept, &[n as isize, 1])?;
        let mean = ops::reduce_sum(&rows, None, false)?.div(&Tensor::scalar(n as f32))?;
        v.assign(&mean)?;
        Ok(vec![mean])
    };
    let mask = |m: &[bool]| Tensor::from_vec(m.to_vec(), &[6]).unwrap();
    let traced = mask(&[true, true, false, false, false, false]);
    let (g, first) = graph::trace(std::slice::from_ref(&traced), f).unwrap();
    assert_eq!(first[0].to_vec::<f32>().unwrap(), vec![0.5]);
    let other = mask(&[false, false, false, false, true, true]);
    let r = g.try_run(std::slice::from_ref(&other)).unwrap().unwrap();
    assert_eq!(r[0].to_vec::<f32>().unwrap(), vec![4.5]);
    v.assign(&Tensor::scalar(-1.0f32)).unwrap();
    let three = mask(&[true, true, true, false, false, false]);
    assert!(g.try_run(std::slice::from_ref(&three)).unwrap().is_none());
    assert_eq!(v.value().to_vec::<f32>().unwrap(), vec![-1.0]);
    assert!(g.run(std::slice::from_ref(&three)).is_err());
}

fn with_two_derivatives(
    x: &Tensor,
    f: impl Fn(&Tensor) -> tapers::Result<Tensor>,
) -> tapers::Result<Vec<Tensor>> {
    let outer = GradientTape::new();
    let inner = GradientTape::new();
    let _o = outer.record()?;
    outer.watch(x);
    let y = {
        let _r = inner.record()?;
        inner.watch(x);
        f(x)?
    };
    let dy = inner
        .gradient(std::slice::from_ref(&y), &[x.into()])?
        .remove(0)
        .unwrap();
    drop(_o);
    let d2 = outer
        .gradient(std::slice::from_ref(&dy), &[x.into()])?
        .remove(0)
        .unwrap();
    Ok(vec![y, dy, d2])
}

#[test]
fn second_derivative_inside_a_trace() {
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let r = with_two_derivatives(&i[0], |x| x.mul(x)?.mul(x))?;
        Ok(r[1..].to_vec())
    };
    let (g, first) = graph::trace(&[Tensor::scalar(2.0f64)], f).unwrap();
    assert_eq!(first[0].to_f64_scalar().unwrap(), 12.0);
    let r = g.run(&[Tensor::scalar(3.0f64)]).unwrap();
    assert_eq!(r[0].to_f64_scalar().unwrap(), 27.0);
    assert_eq!(r[1].to_f64_scalar().unwrap(), 18.0);
}

/// A graph of one-element values (value and first and second derivatives of
/// a scalar function) replays on numbers, with eager's bits; one that reads
/// a variable does not.
#[test]
fn one_element_graphs_replay_on_numbers_with_eager_bits() {
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        with_two_derivatives(&i[0], |x| {
            let c = Tensor::scalar(0.25f32);
            x.tanh()?.mul(x)?.add(&ops::log1p(&x.mul(x)?)?)?.sub(&c)
        })
    };
    let (g, _) = graph::trace(&[Tensor::scalar(0.5f32)], f).unwrap();
    assert!(g.is_scalar(), "{:?}", g.op_names());
    for v in [0.5f32, -1.25, 3.0, 0.0, f32::NAN, f32::INFINITY] {
        let x = Tensor::scalar(v);
        let (got, want) = (g.run(std::slice::from_ref(&x)).unwrap(), f(&[x]).unwrap());
        for (a, b) in got.iter().zip(&want) {
            assert_eq!((a.shape(), a.dtype()), (b.shape(), b.dtype()));
            // Which of two NaN operands an addition returns depends on the
            // operand order the compiler chose for a loop: NaNs compare as NaN.
            let (p, q) = (a.to_f64_scalar().unwrap(), b.to_f64_scalar().unwrap());
            assert!(bits(a) == bits(b) || (p.is_nan() && q.is_nan()), "at {v}");
        }
    }
    let v = Variable::new(Tensor::scalar(2.0f32));
    let h = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> { Ok(vec![i[0].mul(&v.read())?]) };
    let (g, _) = graph::trace(&[Tensor::scalar(0.5f32)], h).unwrap();
    assert!(!g.is_scalar());
}

/// A random draw is a node holding its stream: each replay draws the next
/// values, the ones eager draws from a generator in the same state give.
#[test]
fn random_draws_replay_on_their_stream_and_created_variables_are_reported() {
    let gen = tapers::random::Generator::from_seed(3);
    let twin = tapers::random::Generator::from_seed(3);
    let (g, first) = graph::trace(&[], |_| {
        Ok(vec![
            gen.normal(&[2], 0.0, 1.0, DType::F32)?,
            gen.uniform(&[3], 0.0, 9.0, DType::I64)?,
            gen.permutation(4)?,
        ])
    })
    .unwrap();
    assert!(g.unreplayable().is_none());
    assert_eq!(
        g.op_names(),
        vec!["RandomStandardNormal", "RandomUniform", "RandomShuffle"]
    );
    let mut seen = vec![first];
    seen.push(g.run(&[]).unwrap());
    seen.push(g.run(&[]).unwrap());
    for got in &seen {
        let want = [
            twin.normal(&[2], 0.0, 1.0, DType::F32).unwrap(),
            twin.uniform(&[3], 0.0, 9.0, DType::I64).unwrap(),
            twin.permutation(4).unwrap(),
        ];
        for (a, b) in got.iter().zip(&want) {
            assert_eq!(bits(a), bits(b));
        }
    }
    assert_ne!(
        bits(&seen[1][0]),
        bits(&seen[2][0]),
        "each replay draws anew"
    );
    let (g, _) = graph::trace(&[], |_| {
        let v = Variable::new(Tensor::scalar(1.0f32));
        Ok(vec![v.read()])
    })
    .unwrap();
    assert_eq!(g.created_variables().len(), 1);
    assert!(g.unreplayable().is_none());
}

#[test]
fn captured_constants_and_dead_nodes() {
    let c = vals(3, 0.4, &[3]);
    let (g, _) = graph::trace(&[vals(3, 0.0, &[3])], |i| {
        let _unused = i[0].exp()?;
        Ok(vec![i[0].add(&c)?, c.clone()])
    })
    .unwrap();
    assert_eq!(g.op_names(), vec!["AddV2"], "the unused exp is dropped");
    let x = vals(3, 2.0, &[3]);
    let r = g.run(std::slice::from_ref(&x)).unwrap();
    assert_eq!(bits(&r[0]), bits(&x.add(&c).unwrap()));
    assert_eq!(bits(&r[1]), bits(&c));
}

/// A variable declared as an input is replaced by the variable a replay is
/// given (`tf.function` traces Variable arguments by shape and dtype).
#[test]
fn variable_inputs_are_substituted() {
    let v1 = Variable::new(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap());
    let v2 = Variable::new(Tensor::from_vec(vec![10.0f32, 20.0], &[2]).unwrap());
    let x = Tensor::from_vec(vec![0.5f32, 0.25], &[2]).unwrap();
    let t = Tracing::start_with(std::slice::from_ref(&x), std::slice::from_ref(&v1));
    v1.assign_add(&x).unwrap();
    let out = v1.read().mul(&x).unwrap();
    let g = t.finish(&[out]);
    let r = g
        .try_run_with(std::slice::from_ref(&x), std::slice::from_ref(&v2))
        .unwrap()
        .unwrap();
    assert_eq!(v2.value().to_vec::<f32>().unwrap(), vec![10.5, 20.25]);
    assert_eq!(
        v1.value().to_vec::<f32>().unwrap(),
        vec![1.5, 2.25],
        "only the trace wrote v1"
    );
    assert_eq!(r[0].to_vec::<f32>().unwrap(), vec![5.25, 5.0625]);
    let v3 = Variable::new(Tensor::scalar(1.0f32));
    assert!(g.try_run_with(std::slice::from_ref(&x), &[v3]).is_err());
}

/// `cond` in a graph chooses its branch at replay from the predicate's
/// value (no guard), with eager's bits.
#[test]
fn cond_chooses_at_replay() {
    let zero = Tensor::scalar(0.0f64);
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let x = &i[0];
        let p = ops::greater(&ops::reduce_sum(x, None, false)?, &zero)?;
        graph::cond_fn(
            &p,
            || Ok(vec![x.mul(x)?.tanh()?]),
            || Ok(vec![x.neg()?.exp()?]),
        )
    };
    let x0 = Tensor::from_vec(vec![0.5f64, 1.0], &[2]).unwrap();
    let (g, _) = graph::trace(&[x0], f).unwrap();
    assert!(g.op_names().contains(&"If"), "{:?}", g.op_names());
    assert_eq!(g.num_guards(), 0);
    for v in [[0.3f64, 0.2], [-1.0, 0.1], [2.0, -0.5], [-0.2, -0.3]] {
        let x = Tensor::from_vec(v.to_vec(), &[2]).unwrap();
        let want = if v[0] + v[1] > 0.0 {
            x.mul(&x).unwrap().tanh().unwrap()
        } else {
            x.neg().unwrap().exp().unwrap()
        };
        let got = g.run(&[x]).unwrap();
        assert_eq!(bits(&got[0]), bits(&want), "{v:?}");
    }
}

/// A tape inside the traced code differentiates through `cond`: the replay
/// runs the gradient of the branch the predicate picks then.
#[test]
fn cond_gradient_inside_the_graph_follows_the_replayed_branch() {
    let w = Variable::new(Tensor::from_vec(vec![1.5f64, -0.5], &[2]).unwrap());
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let x = &i[0];
        let outer = GradientTape::new();
        let inner = GradientTape::new();
        let (y, dy) = {
            let _o = outer.record()?;
            outer.watch(x);
            let y = {
                let _r = inner.record()?;
                inner.watch(x);
                let p = ops::greater(x, &Tensor::scalar(0.0f64))?;
                let wv = w.read();
                graph::cond_fn(
                    &p,
                    || {
                        Ok(vec![ops::reduce_sum(
                            &x.mul(x)?.mul(x)?.mul(&wv)?,
                            None,
                            false,
                        )?])
                    },
                    || Ok(vec![ops::reduce_sum(&x.sin()?.mul(&wv)?, None, false)?]),
                )?
                .remove(0)
            };
            let dy = inner
                .gradient(std::slice::from_ref(&y), &[x.into()])?
                .remove(0)
                .unwrap();
            (y, dy)
        };
        let d2 = outer
            .gradient(std::slice::from_ref(&dy), &[x.into()])?
            .remove(0)
            .unwrap();
        Ok(vec![y, dy, d2])
    };
    let (g, _) = graph::trace(&[Tensor::scalar(2.0f64)], f).unwrap();
    for x in [1.25f64, -0.75, 3.0, -2.0] {
        let got = g.run(&[Tensor::scalar(x)]).unwrap();
        let eager = f(&[Tensor::scalar(x)]).unwrap();
        let wsum = 1.0f64;
        let (y, dy, d2) = if x > 0.0 {
            (x * x * x * wsum, 3.0 * x * x * wsum, 6.0 * x * wsum)
        } else {
            (x.sin() * wsum, x.cos() * wsum, -x.sin() * wsum)
        };
        for (k, want) in [y, dy, d2].iter().enumerate() {
            let v = got[k].to_vec::<f64>().unwrap()[0];
            assert!((v - want).abs() < 1e-12, "x {x} output {k}: {v} vs {want}");
            assert_eq!(bits(&got[k]), bits(&eager[k]), "x {x} output {k}");
        }
    }
}

/// `while_loop` in a graph iterates at replay as many times as its
/// condition says then; a tape inside the graph differentiates through it,
/// and a variable read in the body is read when the graph runs.
#[test]
fn while_loop_iterates_at_replay_and_differentiates() {
    let w = Variable::new(Tensor::scalar(1.1f64));
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let x = &i[0];
        let tape = GradientTape::new();
        let out = {
            let _r = tape.record()?;
            tape.watch(x);
            graph::while_loop_fn(
                |v| ops::less(&v[1], &Tensor::scalar(10.0f64)),
                |v| {
                    Ok(vec![
                        v[0].add(&Tensor::scalar(1i32))?,
                        v[1].mul(&w.read())?.add(&v[1])?,
                    ])
                },
                &[Tensor::scalar(0i32), x.clone()],
                None,
            )?
        };
        // Zeros where no iteration ran (w unread), as TensorFlow's compiled loop.
        let grads = tape.gradient_with(
            &[out[1].clone()],
            &[x.into(), (&w).into()],
            None,
            tapers::Unconnected::Zero,
        )?;
        Ok(vec![
            out[0].clone(),
            out[1].clone(),
            grads[0].clone().unwrap(),
            grads[1].clone().unwrap(),
        ])
    };
    let (g, first) = graph::trace(&[Tensor::scalar(1.0f64)], f).unwrap();
    assert_eq!(first[0].to_vec::<i32>().unwrap(), vec![4]);
    assert!(g.op_names().contains(&"While") && g.op_names().contains(&"WhileGrad"));
    for (x, wv) in [(1.0f64, 1.1f64), (0.01, 1.1), (4.0, 0.5), (20.0, 0.5)] {
        w.assign(&Tensor::scalar(wv)).unwrap();
        let got = g.run(&[Tensor::scalar(x)]).unwrap();
        let eager = f(&[Tensor::scalar(x)]).unwrap();
        // By hand: n iterations of v <- v (1 + w).
        let (mut n, mut v) = (0, x);
        while v < 10.0 {
            v *= 1.0 + wv;
            n += 1;
        }
        assert_eq!(got[0].to_vec::<i32>().unwrap(), vec![n], "x {x}");
        let dx = (1.0 + wv).powi(n);
        let dw = n as f64 * x * (1.0 + wv).powi(n - 1);
        for (k, want) in [(1, v), (2, dx), (3, dw)] {
            let got_v = got[k].to_vec::<f64>().unwrap()[0];
            assert!(
                (got_v - want).abs() < 1e-9 * want.abs().max(1.0),
                "x {x} out {k}: {got_v} vs {want}"
            );
            assert_eq!(bits(&got[k]), bits(&eager[k]), "x {x} out {k}");
        }
    }
}

/// Outside a trace, `cond` and `while_loop` run their ops one by one: a
/// tape records them as eager code, and a failed branch is an error.
#[test]
fn control_flow_outside_a_trace_is_eager() {
    let x = Tensor::scalar(0.5f64);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        let p = ops::less(&x, &Tensor::scalar(1.0f64)).unwrap();
        graph::cond_fn(&p, || Ok(vec![x.exp()?]), || Ok(vec![x.clone()]))
            .unwrap()
            .remove(0)
    };
    let g = tape
        .gradient(std::slice::from_ref(&y), &[(&x).into()])
        .unwrap()
        .remove(0)
        .unwrap();
    assert_eq!(bits(&g), bits(&x.exp().unwrap()));
    let bad = graph::cond_fn(
        &Tensor::from_vec(vec![true, false], &[2]).unwrap(),
        || Ok(vec![x.clone()]),
        || Ok(vec![x.clone()]),
    );
    assert!(format!("{}", bad.unwrap_err()).contains("must be a scalar"));
    let mismatch = graph::cond_fn(
        &Tensor::scalar(true),
        || Ok(vec![x.clone()]),
        || Ok(vec![Tensor::scalar(1i32)]),
    );
    assert!(format!("{}", mismatch.unwrap_err()).contains("same number, type"));
    let grows = graph::while_loop_fn(
        |v| {
            ops::less(
                &ops::reduce_sum(&v[0], None, false)?,
                &Tensor::scalar(5.0f64),
            )
        },
        |v| Ok(vec![ops::concat(&[v[0].clone(), v[0].clone()], 0)?]),
        &[Tensor::from_vec(vec![1.0f64], &[1]).unwrap()],
        None,
    );
    assert!(format!("{}", grows.unwrap_err()).contains("shape_invariants"));
}

/// A host effect (one that writes no variable, as the binding's print)
/// logs the values it is given each time a replay runs it.
struct Log(std::sync::Arc<std::sync::Mutex<Vec<f64>>>);

impl tapers::Effect for Log {
    fn name(&self) -> &'static str {
        "PrintV2"
    }
    fn variables(&self) -> &[Variable] {
        &[]
    }
    fn apply(&self, _current: &[Tensor], inputs: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
        self.0
            .lock()
            .unwrap()
            .push(ops::cast(&inputs[0], DType::F64)?.to_vec::<f64>()?[0]);
        Ok(Vec::new())
    }
}

/// Host effects replay where they were traced: in the step at each run, in
/// the branch a `cond` takes, at each iteration of a `while_loop` (kept
/// when only its gradient is used), and not in the runs its gradient makes.
#[test]
fn host_effects_run_where_traced_and_not_in_gradient_runs() {
    use std::sync::{Arc, Mutex};
    let log = Arc::new(Mutex::new(Vec::new()));
    let effect = |t: &Tensor| {
        graph::effect(Arc::new(Log(log.clone())), &[t]);
    };
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let x = &i[0];
        effect(x);
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record()?;
            tape.watch(x);
            let c = graph::cond_fn(
                &ops::greater(x, &Tensor::scalar(0.0f64))?,
                || {
                    let d = x.mul(&Tensor::scalar(10.0f64))?;
                    effect(&d);
                    Ok(vec![d])
                },
                || Ok(vec![x.neg()?]),
            )?;
            graph::while_loop_fn(
                |v| ops::less(&v[0], &Tensor::scalar(2i32)),
                |v| {
                    effect(&v[1]);
                    Ok(vec![v[0].add(&Tensor::scalar(1i32))?, v[1].mul(&c[0])?])
                },
                &[Tensor::scalar(0i32), Tensor::scalar(1.0f64)],
                None,
            )?[1]
                .clone()
        };
        // Only the gradient is an output: the loop stays for its effects.
        Ok(vec![tape.gradient(&[y], &[x.into()])?[0].clone().unwrap()])
    };
    let (g, _) = graph::trace(&[Tensor::scalar(2.0f64)], f).unwrap();
    assert!(g.has_effects());
    log.lock().unwrap().clear();
    let got = g.run(&[Tensor::scalar(3.0f64)]).unwrap();
    // x = 3: the step's effect, the taken branch's (30), the loop body's
    // at its two iterations (1, then 30); d(x*10)^2/dx = 200 x.
    assert_eq!(*log.lock().unwrap(), vec![3.0, 30.0, 1.0, 30.0]);
    assert_eq!(got[0].to_vec::<f64>().unwrap(), vec![600.0]);
    log.lock().unwrap().clear();
    g.run(&[Tensor::scalar(-1.0f64)]).unwrap();
    assert_eq!(*log.lock().unwrap(), vec![-1.0, 1.0, 1.0]);
}

/// A gather under a tape reads each replay's indices: its gradient's pieces
/// read the rows from the index tensor, so the trace needs no guard, and a
/// replay with other ids gives eager's bits (repeated rows included).
#[test]
fn a_gather_under_a_tape_replays_with_each_calls_indices() {
    let table = Variable::new(vals(40, 0.3, &[10, 4]));
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record()?;
            let rows = ops::gather(&table.read(), &i[0], 0, 0)?;
            ops::reduce_sum(&rows.tanh()?.mul(&i[1])?, None, false)?
        };
        let g = tape.gradient(std::slice::from_ref(&y), &[(&table).into()])?;
        Ok(vec![y, g[0].clone().expect("connected")])
    };
    let ids = |v: &[i32]| Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
    let w = vals(12, 0.8, &[3, 4]);
    let (g, _) = graph::trace(&[ids(&[1, 2, 3]), w.clone()], f).unwrap();
    assert_eq!(g.num_guards(), 0);
    // One gather and one scatter: the pieces with this trace's rows, told to
    // the tracer first, are dead once the same values are defined again.
    let names = g.op_names();
    let count = |n: &str| names.iter().filter(|&&m| m == n).count();
    assert_eq!(
        (count("GatherV2"), count("ScatterAdd")),
        (1, 1),
        "{names:?}"
    );
    for v in [[4, 4, 0], [9, 1, 9], [1, 2, 3]] {
        let want = f(&[ids(&v), w.clone()]).unwrap();
        let got = g.run(&[ids(&v), w.clone()]).unwrap();
        for (a, b) in got.iter().zip(&want) {
            assert_eq!(bits(a), bits(b), "{v:?}");
        }
    }
    // An index out of range fails the replay with eager's error.
    let err = g.run(&[ids(&[0, 10, 1]), w]).unwrap_err();
    assert!(
        err.to_string()
            .contains("indices[1] = 10 is not in [0, 10)"),
        "{err}"
    );
}

/// The index ops whose gradients hold positions read from an index tensor
/// or mask (`gather_nd`, batched `gather`, `boolean_mask`, the segment sums,
/// `scatter_nd`, `tensor_scatter_nd_add`) trace under a tape with no guard:
/// their recorded pieces read positions the replay computes from that
/// call's indices, so a replay with other indices gives eager's bits.
#[test]
fn index_ops_under_a_tape_replay_with_each_calls_indices() {
    type IndexOp = fn(&Tensor, &Tensor) -> tapers::Result<Tensor>;
    let i32s = |v: &[i32], shape: &[usize]| Tensor::from_vec(v.to_vec(), shape).unwrap();
    let mask = |v: &[bool]| Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
    let cases: Vec<(&str, IndexOp, Vec<Tensor>)> = vec![
        (
            "gather_nd",
            |x, i| ops::gather_nd(x, i),
            vec![
                i32s(&[0, 1, 5, 3, 2, 0], &[3, 2]),
                i32s(&[5, 3, 5, 3, 0, 0], &[3, 2]),
                i32s(&[1, 0, 4, 2, 3, 3], &[3, 2]),
            ],
        ),
        (
            "gather with batch dims",
            |x, i| ops::gather(x, i, 1, 1),
            vec![
                i32s(&[0, 1, 3, 2, 2, 2, 1, 0, 3, 3, 0, 1], &[6, 2]),
                i32s(&[3, 3, 0, 0, 1, 2, 2, 1, 0, 3, 3, 0], &[6, 2]),
            ],
        ),
        (
            "boolean_mask",
            |x, m| ops::boolean_mask(x, m, 0),
            vec![
                mask(&[true, false, true, false, false, true]),
                mask(&[false, true, true, true, false, false]),
                mask(&[true, false, false, false, true, true]),
            ],
        ),
        (
            "unsorted_segment_sum",
            |x, i| ops::unsorted_segment_sum(x, i, 3),
            vec![
                // One dropped (negative) id in each: the same count of rows.
                i32s(&[0, 1, 2, 0, -1, 2], &[6]),
                i32s(&[2, 2, 2, 0, -1, 1], &[6]),
                i32s(&[1, -1, 0, 0, 1, 1], &[6]),
            ],
        ),
        (
            "unsorted_segment_max",
            |x, i| ops::unsorted_segment_max(x, i, 3),
            vec![
                i32s(&[0, 1, 2, 0, 1, 2], &[6]),
                i32s(&[2, 2, -1, 0, 2, 1], &[6]),
            ],
        ),
        (
            "scatter_nd",
            |x, i| ops::scatter_nd(i, x, &[9, 4]),
            vec![
                i32s(&[0, 1, 2, 3, 4, 5], &[6, 1]),
                i32s(&[8, 8, 0, 3, 3, 7], &[6, 1]),
            ],
        ),
        (
            "tensor_scatter_nd_add",
            |x, i| ops::tensor_scatter_nd_add(&ops::reshape(x, &[6, 4])?, i, &ops::neg(x)?),
            vec![
                i32s(&[0, 1, 2, 3, 4, 5], &[6, 1]),
                i32s(&[5, 5, 1, 1, 0, 2], &[6, 1]),
            ],
        ),
    ];
    for (name, op, indices) in cases {
        let table = Variable::new(vals(24, 0.3, &[6, 4]));
        let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
            let tape = GradientTape::new();
            let y = {
                let _r = tape.record()?;
                let picked = op(&table.read(), &i[0])?;
                ops::reduce_sum(&picked.tanh()?.mul(&picked)?, None, false)?
            };
            let g = tape.gradient(std::slice::from_ref(&y), &[(&table).into()])?;
            let g = g[0].clone().expect("connected");
            Ok(vec![y, g])
        };
        let (g, _) = graph::trace(&indices[..1], f).unwrap();
        assert_eq!(g.num_guards(), 0, "{name}");
        for i in &indices {
            let want = f(std::slice::from_ref(i)).unwrap();
            let got = g.run(std::slice::from_ref(i)).unwrap();
            for (a, b) in got.iter().zip(&want) {
                assert_eq!(bits(a), bits(b), "{name}: {:?}", i.to_vec::<i64>());
            }
        }
    }
}

/// A `cond` branch whose value-dependent shape changes makes the whole
/// graph not apply (`try_run` gives `None`, `run` the typed error), as one
/// in the graph itself does: the caller traces again.
#[test]
fn a_changed_shape_inside_a_branch_makes_the_graph_not_apply() {
    let f = |i: &[Tensor]| -> tapers::Result<Vec<Tensor>> {
        let m = i[0].clone();
        graph::cond_fn(
            &Tensor::scalar(true),
            || {
                let rows = ops::where_indices(&m)?;
                Ok(vec![ops::cast(
                    &ops::reduce_sum(&rows, None, false)?,
                    DType::F64,
                )?])
            },
            || Ok(vec![Tensor::scalar(0.0f64)]),
        )
    };
    let mask = |v: &[bool]| Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
    let (g, _) = graph::trace(&[mask(&[true, false, true])], f).unwrap();
    // The same count replays with the new positions; another does not apply.
    let got = g.run(&[mask(&[false, true, true])]).unwrap();
    assert_eq!(got[0].to_vec::<f64>().unwrap(), vec![3.0]);
    assert!(g.try_run(&[mask(&[true, true, true])]).unwrap().is_none());
    let err = g.run(&[mask(&[true, false, false])]).unwrap_err();
    assert!(matches!(err, tapers::Error::StaleGraph), "{err}");
}

/// Weight gradients that are matrix products read only by their updates
/// (`v.assign_sub(c * g)`, plain SGD) run with them: each half of the
/// product is folded into the variable's rows as it is made. The values
/// are eager's bits, the updates are written in place, and a replay that
/// fails after them writes nothing.
#[test]
fn weight_updates_run_with_their_gradient_products() {
    // Products large enough for MatMul's row halves: x^T @ d is 48x64 over
    // a batch of 64, h^T @ d2 64x40.
    let make = || {
        (
            Variable::new(vals(48 * 64, 0.2, &[48, 64])),
            Variable::new(vals(64 * 40, 0.9, &[64, 40])),
            Variable::new(vals(64 * 40, 1.7, &[64, 40])),
            Variable::new(Tensor::scalar(0i64)),
        )
    };
    let sgd = Rule::Sgd {
        momentum: 0.0,
        nesterov: false,
    };
    let step = |(w0, w1, w2, iters): &(Variable, Variable, Variable, Variable),
                i: &[Tensor]|
     -> tapers::Result<Vec<Tensor>> {
        let (x, y) = (&i[0], &i[1]);
        let tape = GradientTape::new();
        let loss = {
            let _r = tape.record()?;
            let h = ops::relu(&x.matmul(&w0.read())?)?;
            let out = h.matmul(&w1.read())?.add(&h.matmul(&w2.read())?)?;
            ops::reduce_mean(&out.sub(y)?.square()?, None, false)?
        };
        let srcs: Vec<tapers::Source> = [w0, w1, w2].into_iter().map(Into::into).collect();
        let g = tape.gradient(std::slice::from_ref(&loss), &srcs)?;
        let g: Vec<&Tensor> = g.iter().map(|g| g.as_ref().unwrap()).collect();
        // The three forms: `c * g`, an optimizer's `g * lr`, `g` itself.
        w0.assign_sub(&Tensor::scalar(0.1f32).mul(g[0])?)?;
        apply_traced(&sgd, w1, g[1], &[], 0.05, None, Some(iters), 0.0)?;
        w2.assign_sub(g[2])?;
        iters.assign_add(&Tensor::scalar(1i64))?;
        // An integer division after the updates (fails on a zero divisor).
        Ok(vec![loss, ops::floordiv(&Tensor::scalar(7i64), &i[2])?])
    };
    let (eager, traced) = (make(), make());
    let batch = |k: usize| {
        [
            vals(64 * 48, k as f64, &[64, 48]),
            vals(64 * 40, k as f64 + 0.5, &[64, 40]),
            Tensor::scalar(1i64),
        ]
    };
    let first = batch(0);
    let tracing = Tracing::start(&first);
    let outs = step(&traced, &first).unwrap();
    let g = tracing.finish(&outs);
    step(&eager, &first).unwrap();
    assert_eq!(g.product_updates(), 3, "{:?}", g.op_names());
    let value_bits = |s: &(Variable, Variable, Variable, Variable)| {
        [&s.0, &s.1, &s.2, &s.3].map(|v| bits(&v.value()))
    };
    for k in 1..5 {
        let r = g.run(&batch(k)).unwrap();
        let e = step(&eager, &batch(k)).unwrap();
        assert_eq!(bits(&r[0]), bits(&e[0]), "loss of step {k}");
        assert_eq!(value_bits(&traced), value_bits(&eager), "step {k}");
        let stats = g.update_stats();
        assert_eq!((stats.in_place, stats.with_products), (3, 3), "step {k}");
    }
    let before = value_bits(&traced);
    let mut bad = batch(5);
    bad[2] = Tensor::scalar(0i64);
    let err = g.run(&bad).unwrap_err();
    assert!(format!("{err}").contains("division by zero"), "{err}");
    assert_eq!(value_bits(&traced), before, "nothing written");
    // A kept old value keeps its bits: the update writes a copy.
    let kept = traced.0.value();
    let kept_bits = bits(&kept);
    g.run(&batch(6)).unwrap();
    step(&eager, &batch(6)).unwrap();
    assert_eq!(bits(&kept), kept_bits);
    assert_eq!(value_bits(&traced), value_bits(&eager));
    assert_eq!(g.update_stats().copied, 1);
    assert_eq!(g.update_stats().with_products, 3);
    // Under a tape, the product runs as its own op (the tape sees it).
    let tape = GradientTape::new();
    {
        let _r = tape.record().unwrap();
        g.run(&batch(7)).unwrap();
    }
    assert_eq!(g.update_stats().with_products, 0);
    step(&eager, &batch(7)).unwrap();
    assert_eq!(value_bits(&traced), value_bits(&eager));
}
