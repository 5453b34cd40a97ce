//! A fuzz harness over the public API: bytes become a random op graph that is
//! recorded on (possibly nested, possibly persistent) tapes and differentiated.
//!
//! Shared by `tests/fuzz_graph.rs` (a bounded run under `cargo test`) and the
//! cargo-fuzz target in `fuzz/` (coverage-guided, run by `scripts/fuzz.sh`).
//! Invalid combinations are welcome: every call must either succeed or return
//! an `Err` whose message is not empty. What it asserts:
//!
//! * no panic, anywhere (ops, gradients, jacobians);
//! * a gradient, when there is one, has its source's shape and dtype;
//! * a persistent tape gives bitwise the same gradient twice;
//! * a failed `gradient` call leaves a non-persistent tape usable.

use tapers::ops::{self, SliceItem};
use tapers::{DType, GradientTape, Source, Tensor, Unconnected, Variable};

/// Reads the fuzz input; past the end it yields zeros, so every input is a
/// complete program.
struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n.max(1)
    }
    /// An axis in -4..4: sometimes out of range on purpose.
    fn axis(&mut self) -> isize {
        (self.byte() % 8) as isize - 4
    }
    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }
    fn shape(&mut self, max_rank: usize) -> Vec<usize> {
        let rank = self.below(max_rank + 1);
        (0..rank).map(|_| self.below(4)).collect()
    }
    fn pick<'t>(&mut self, pool: &'t [Tensor]) -> &'t Tensor {
        &pool[self.below(pool.len())]
    }
}

fn dtype_of(b: u8) -> DType {
    match b % 5 {
        0 | 1 => DType::F32,
        2 | 3 => DType::F64,
        _ => DType::I32,
    }
}

fn input(bytes: &mut Bytes, dtype: DType) -> Tensor {
    let shape = bytes.shape(3);
    let n: usize = shape.iter().product();
    let values: Vec<f64> = (0..n).map(|_| (bytes.byte() as i8) as f64 / 16.0).collect();
    let t = Tensor::from_vec(values, &shape).expect("shape matches");
    ops::cast(&t, dtype).expect("casts between numeric dtypes succeed")
}

/// Applies one op drawn from the input to tensors of the pool.
fn apply(bytes: &mut Bytes, pool: &[Tensor]) -> tapers::Result<Vec<Tensor>> {
    let a = bytes.pick(pool).clone();
    let b = bytes.pick(pool).clone();
    // Products square sizes (an outer product of outer products...): keep the
    // operands small so each program stays fast. Huge outputs are still
    // reachable through shapes alone, and must fail cleanly (check_alloc).
    if a.numel() > 1024 || b.numel() > 1024 {
        return Ok(vec![]);
    }
    let one = |r: tapers::Result<Tensor>| r.map(|t| vec![t]);
    let axes = |bytes: &mut Bytes| -> Option<Vec<isize>> {
        if bytes.flag() {
            None
        } else {
            Some(vec![bytes.axis()])
        }
    };
    match bytes.below(44) {
        0 => one(ops::add(&a, &b)),
        1 => one(ops::sub(&a, &b)),
        2 => one(ops::mul(&a, &b)),
        3 => one(ops::div(&a, &b)),
        4 => one(ops::pow(&a, &b)),
        5 => one(ops::maximum(&a, &b)),
        6 => one(ops::minimum(&a, &b)),
        7 => one(ops::neg(&a)),
        8 => one(ops::exp(&a)),
        9 => one(ops::log(&a)),
        10 => one(ops::sqrt(&a)),
        11 => one(ops::square(&a)),
        12 => one(ops::sin(&a)),
        13 => one(ops::tanh(&a)),
        14 => one(ops::sigmoid(&a)),
        15 => one(ops::abs(&a)),
        16 => one(ops::relu(&a)),
        17 => one(ops::reduce_sum(&a, axes(bytes).as_deref(), bytes.flag())),
        18 => one(ops::reduce_mean(&a, axes(bytes).as_deref(), bytes.flag())),
        19 => one(ops::reduce_max(&a, axes(bytes).as_deref(), bytes.flag())),
        20 => one(ops::reduce_prod(&a, axes(bytes).as_deref(), bytes.flag())),
        21 => one(ops::reduce_logsumexp(
            &a,
            axes(bytes).as_deref(),
            bytes.flag(),
        )),
        22 => {
            let mut shape: Vec<isize> = bytes.shape(3).iter().map(|&d| d as isize).collect();
            if !shape.is_empty() && bytes.flag() {
                let i = bytes.below(shape.len());
                shape[i] = -1;
            }
            one(ops::reshape(&a, &shape))
        }
        23 => {
            let mut perm: Vec<usize> = (0..a.rank()).collect();
            perm.rotate_left(bytes.below(a.rank().max(1)));
            if bytes.byte() % 8 == 0 {
                perm.push(0); // invalid on purpose
            }
            one(ops::transpose(&a, Some(&perm)))
        }
        24 => one(ops::expand_dims(&a, bytes.axis())),
        25 => one(ops::squeeze(&a, axes(bytes).as_deref())),
        26 => one(ops::concat(&[a, b], bytes.axis())),
        27 => one(ops::stack(&[a, b], bytes.axis())),
        28 => {
            let m: Vec<usize> = (0..a.rank()).map(|_| bytes.below(3)).collect();
            one(ops::tile(&a, &m))
        }
        29 => {
            let r: Vec<(usize, usize)> = a
                .shape()
                .iter()
                .map(|&d| {
                    let lo = bytes.below(d + 1);
                    (lo, lo + bytes.below(d + 2 - lo))
                })
                .collect();
            one(ops::slice_ranges(&a, &r))
        }
        30 => {
            let p: Vec<(usize, usize)> = (0..a.rank())
                .map(|_| (bytes.below(2), bytes.below(2)))
                .collect();
            one(ops::pad(&a, &p, 0.5))
        }
        31 => one(ops::matmul_with(
            &a,
            &b,
            ops::MatmulOptions {
                transpose_a: bytes.flag(),
                transpose_b: bytes.flag(),
            },
        )),
        32 => one(ops::softmax(&a, bytes.axis())),
        33 => one(ops::cumsum(&a, bytes.axis(), bytes.flag(), bytes.flag())),
        34 => one(ops::cast(&a, dtype_of(bytes.byte()))),
        35 => {
            let cond = ops::greater(&a, &b)?;
            one(ops::where_(&cond, &a, &b))
        }
        36 => Ok(vec![ops::stop_gradient(&a)]),
        37 => {
            let shape = bytes.shape(3);
            one(ops::broadcast_to(&a, &shape))
        }
        38 => {
            let n = bytes.below(4);
            let idx: Vec<i32> = (0..n).map(|_| bytes.below(4) as i32).collect();
            let idx = Tensor::from_vec(idx, &[n])?;
            one(ops::gather(&a, &idx, bytes.axis(), 0))
        }
        39 => one(ops::tensordot(&a, &b, &[bytes.axis()], &[bytes.axis()])),
        40 => one(ops::l2_normalize(&a, axes(bytes).as_deref(), 1e-12)),
        41 => one(ops::add_n(&[a, b])),
        42 => {
            let d = a.shape().first().copied().unwrap_or(0);
            let k = bytes.below(d + 1);
            ops::split(&a, &[k, d.saturating_sub(k) + bytes.below(2)], 0)
        }
        _ => ops::unstack(&a, bytes.axis()),
    }
}

fn bits(t: &Tensor) -> Vec<u64> {
    let v = t
        .to_vec::<f64>()
        .or_else(|_| ops::cast(t, DType::F64).and_then(|c| c.to_vec::<f64>()));
    v.expect("cast to f64")
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

/// Each Jacobian row (vectorized or not) against its own backward pass
/// seeded with that row's one-hot seed.
fn check_jacobian_rows(
    tape: &GradientTape,
    target: &Tensor,
    sources: &[Source],
    j: &[Option<Tensor>],
) {
    if !target.dtype().is_floating() {
        return;
    }
    let n = target.numel();
    for row in 0..n {
        let mut hot = vec![0.0f64; n];
        hot[row] = 1.0;
        let seed = Tensor::from_vec(hot, target.shape()).expect("seed");
        let seed = ops::cast(&seed, target.dtype()).expect("cast");
        let Ok(g) = tape.gradient_with(
            std::slice::from_ref(target),
            sources,
            Some(std::slice::from_ref(&seed)),
            Unconnected::None,
        ) else {
            continue;
        };
        for (js, g) in j.iter().zip(&g) {
            let (Some(js), Some(g)) = (js, g) else {
                assert!(
                    g.is_none() || js.is_some(),
                    "a connected row in an unconnected jacobian"
                );
                continue;
            };
            let per = g.numel();
            let jv = &values(js)[row * per..(row + 1) * per];
            for (a, b) in jv.iter().zip(values(g)) {
                let same = a == &b
                    || (a.is_nan() && b.is_nan())
                    || (a - b).abs() <= 1e-4 * (1.0 + a.abs() + b.abs());
                assert!(same, "jacobian row {row}: {a} vs gradient {b}");
            }
        }
    }
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>()
        .or_else(|_| ops::cast(t, DType::F64).and_then(|c| c.to_vec::<f64>()))
        .expect("cast to f64")
}

fn check_grads(sources: &[Source], grads: &[Option<Tensor>], shapes: &[Vec<usize>]) {
    assert_eq!(grads.len(), sources.len());
    for ((s, g), shape) in sources.iter().zip(grads).zip(shapes) {
        if let Some(g) = g {
            let dtype = match s {
                Source::Tensor(t) => t.dtype(),
                Source::Variable(v) => v.dtype(),
            };
            assert_eq!(g.shape(), &shape[..], "gradient shape");
            assert_eq!(g.dtype(), dtype, "gradient dtype");
        }
    }
}

/// Runs one program. Panics (the fuzz finding) on a broken invariant.
pub fn run(data: &[u8]) {
    let mut bytes = Bytes { data, pos: 0 };
    let flags = bytes.byte();
    let persistent = flags & 1 != 0;
    let nested = flags & 2 != 0;
    let dtype = dtype_of(flags >> 2);
    let n_inputs = 1 + bytes.below(3);
    let inputs: Vec<Tensor> = (0..n_inputs).map(|_| input(&mut bytes, dtype)).collect();
    let var = (flags & 64 != 0).then(|| Variable::new(inputs[0].clone()).with_name("v"));

    let outer = GradientTape::with_options(true, true);
    let tape = GradientTape::with_options(persistent, flags & 128 == 0);
    let mut pool = inputs.clone();
    {
        let _o = nested.then(|| outer.record().expect("fresh tape"));
        if nested {
            for t in &inputs {
                outer.watch(t);
            }
        }
        let _r = tape.record().expect("fresh tape");
        for t in &inputs {
            if bytes.byte() % 4 != 0 {
                tape.watch(t);
            }
        }
        if let Some(v) = &var {
            pool.push(v.read());
        }
        for _ in 0..bytes.below(24) {
            match apply(&mut bytes, &pool) {
                Ok(out) => pool.extend(out),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        drop(_r);

        let target = pool.last().expect("pool has the inputs").clone();
        let mut sources: Vec<Source> = inputs.iter().map(Source::from).collect();
        if let Some(v) = &var {
            sources.push(v.into());
        }
        let shapes: Vec<Vec<usize>> = sources
            .iter()
            .map(|s| match s {
                Source::Tensor(t) => t.shape().to_vec(),
                Source::Variable(v) => v.shape(),
            })
            .collect();

        // A seed of the wrong shape fails and must leave the tape usable.
        let wrong = Tensor::zeros(&[target.numel() + 1], target.dtype()).expect("small");
        assert!(tape
            .gradient_with(
                std::slice::from_ref(&target),
                &sources,
                Some(&[wrong]),
                Unconnected::None
            )
            .is_err());

        let unconnected = if bytes.flag() {
            Unconnected::Zero
        } else {
            Unconnected::None
        };
        let grads =
            match tape.gradient_with(std::slice::from_ref(&target), &sources, None, unconnected) {
                Ok(g) => g,
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    return;
                }
            };
        check_grads(&sources, &grads, &shapes);
        if unconnected == Unconnected::Zero {
            assert!(grads.iter().all(Option::is_some));
        }

        if persistent {
            let again = tape
                .gradient(std::slice::from_ref(&target), &sources)
                .expect("a persistent tape differentiates twice");
            for (g1, g2) in grads.iter().zip(&again) {
                if unconnected == Unconnected::None {
                    assert_eq!(g1.is_some(), g2.is_some());
                }
                if let (Some(g1), Some(g2)) = (g1, g2) {
                    assert_eq!(bits(g1), bits(g2), "persistent gradients differ");
                }
            }
            if target.numel() <= 16 {
                if let Ok(j) = tape.jacobian(&target, &sources, Unconnected::None, None) {
                    for (js, shape) in j.iter().zip(&shapes) {
                        if let Some(js) = js {
                            let mut want = target.shape().to_vec();
                            want.extend(shape);
                            assert_eq!(js.shape(), &want[..], "jacobian shape");
                        }
                    }
                    check_jacobian_rows(&tape, &target, &sources, &j);
                }
            }
        } else {
            assert!(
                tape.gradient(std::slice::from_ref(&target), &sources)
                    .is_err(),
                "spent"
            );
        }

        if nested {
            drop(_o);
            let firsts: Vec<Tensor> = grads.into_iter().flatten().collect();
            if let Ok(second) = outer.gradient(&firsts, &sources[..inputs.len()]) {
                check_grads(&sources[..inputs.len()], &second, &shapes[..inputs.len()]);
            }
        }
    }
    // Strided slices on the last value: indexing edge cases.
    let last = pool.last().expect("nonempty");
    let items: Vec<SliceItem> = (0..bytes.below(3))
        .map(|_| match bytes.below(4) {
            0 => SliceItem::Index(bytes.axis()),
            1 => SliceItem::NewAxis,
            2 => SliceItem::Ellipsis,
            _ => SliceItem::Range {
                start: bytes.flag().then(|| bytes.axis()),
                stop: bytes.flag().then(|| bytes.axis()),
                step: (bytes.axis()).min(3),
            },
        })
        .collect();
    if let Err(e) = ops::strided_slice(last, &items) {
        assert!(!e.to_string().is_empty());
    }
}
