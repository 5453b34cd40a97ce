//! Finite-difference checks of gradient rules in float64, from Rust.
//!
//! The elementwise and unary ops come from `tests/data/op_table.json`, the
//! table the Python suite (`tests/test_op_table.py`) reads too: every row's
//! core function is checked in float64 against central differences, on
//! every shape the row lists, and at its edge points (exact values and
//! gradients in both float widths). A row this file cannot map is a failure.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;
use tapers::{ops, DType, GradientTape, Result, Tensor};

/// The core function a table row names, applied to the row's inputs and
/// params: ops with attributes (params), and ops declared without a `method:`
/// name, are mapped here; unit ops are looked up in the core's registry of
/// descriptions (`ops::by_name`), so a new elementwise op needs no line here.
fn call_core(name: &str, p: &Params, x: &[Tensor]) -> Result<Tensor> {
    match name {
        "identity" => Ok(ops::identity(&x[0])),
        "log_sigmoid" => ops::log_sigmoid(&x[0]),
        "elu" => ops::elu(&x[0]),
        "selu" => ops::selu(&x[0]),
        "floordiv" => ops::floordiv(&x[0], &x[1]),
        "floormod" => ops::floormod(&x[0], &x[1]),
        "floor" => ops::floor(&x[0]),
        "ceil" => ops::ceil(&x[0]),
        "round" => ops::round(&x[0]),
        "rint" => ops::rint(&x[0]),
        "reciprocal_no_nan" => ops::reciprocal_no_nan(&x[0]),
        "truncatediv" => ops::truncatediv(&x[0], &x[1]),
        "truncatemod" => ops::truncatemod(&x[0], &x[1]),
        "bias_add" => ops::bias_add(&x[0], &x[1]),
        "sigmoid_cross_entropy_with_logits" => ops::sigmoid_cross_entropy_with_logits(&x[0], &x[1]),
        "leaky_relu" => ops::leaky_relu(&x[0], p.f64("alpha")),
        "gelu" => ops::gelu(&x[0], p.bool("approximate")),
        "silu" => ops::silu(&x[0], p.f64("beta")),
        "softmax" => ops::softmax(&x[0], p.int("axis")),
        "log_softmax" => ops::log_softmax(&x[0], p.int("axis")),
        "l2_normalize" => ops::l2_normalize(&x[0], Some(&[p.int("axis")]), p.f64("epsilon")),
        "cumsum" => ops::cumsum(&x[0], p.int("axis"), p.bool("exclusive"), p.bool("reverse")),
        "cumprod" => ops::cumprod(&x[0], p.int("axis"), p.bool("exclusive"), p.bool("reverse")),
        "softmax_cross_entropy_with_logits" => {
            ops::softmax_cross_entropy_with_logits(&x[0], &x[1], p.int("axis"))
        }
        // Unit ops: their description, found by function name, runs again.
        other => match ops::by_name(other) {
            Some(op) => Ok(op.forward(x)?.remove(0)),
            None => panic!(
                "op table row names core op `{other}`: no `ops::by_name` entry and no mapping here"
            ),
        },
    }
}

/// A row's `params`, read as the core function's arguments.
struct Params<'a> {
    row: &'a str,
    map: Option<&'a serde_json::Map<String, Value>>,
}

impl Params<'_> {
    fn get(&self, key: &str) -> &Value {
        self.map
            .and_then(|m| m.get(key))
            .unwrap_or_else(|| panic!("{}: params has no `{key}`", self.row))
    }
    fn f64(&self, key: &str) -> f64 {
        self.get(key).as_f64().unwrap()
    }
    fn int(&self, key: &str) -> isize {
        self.get(key).as_i64().unwrap() as isize
    }
    fn bool(&self, key: &str) -> bool {
        self.get(key).as_bool().unwrap()
    }
}

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/op_table.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// A number of the table: JSON numbers, or "inf", "-inf" and "nan".
fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("not a number: {s}")),
        _ => v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")),
    }
}

/// A nested JSON list as row-major values and a shape.
fn nested(v: &Value) -> (Vec<f64>, Vec<usize>) {
    match v {
        Value::Array(items) => {
            let mut data = Vec::new();
            let mut inner = Vec::new();
            for item in items {
                let (d, s) = nested(item);
                data.extend(d);
                inner = s;
            }
            (data, [vec![items.len()], inner].concat())
        }
        _ => (vec![number(v)], vec![]),
    }
}

fn shape(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

/// Deterministic uniform numbers in [0, 1) (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The intervals of a domain: a name from the table's `domains`, or "(lo,hi)".
fn intervals(table: &Value, domain: &str) -> Vec<(f64, f64)> {
    if let Some(spans) = table["domains"].get(domain) {
        return spans
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (number(&s[0]), number(&s[1])))
            .collect();
    }
    let bounds = domain
        .strip_prefix('(')
        .and_then(|d| d.strip_suffix(')'))
        .and_then(|d| d.split_once(','))
        .unwrap_or_else(|| panic!("domain {domain} is neither a name nor (lo,hi)"));
    vec![(bounds.0.parse().unwrap(), bounds.1.parse().unwrap())]
}

fn sample(spans: &[(f64, f64)], n: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let (lo, hi) = spans[(rng.next() * spans.len() as f64) as usize];
            lo + (hi - lo) * rng.next()
        })
        .collect()
}

fn tensors(values: &[Vec<f64>], shapes: &[Vec<usize>], dtype: DType) -> Vec<Tensor> {
    values
        .iter()
        .zip(shapes)
        .map(|(v, s)| match dtype {
            DType::F32 => Tensor::from_vec(v.iter().map(|&e| e as f32).collect(), s),
            _ => Tensor::from_vec(v.clone(), s),
        })
        .map(Result::unwrap)
        .collect()
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    ops::cast(t, DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// `f` recorded on a tape watching `xs`, and the gradients of `sum(f(xs) * w)`
/// (`w` all ones when `None`).
fn value_and_gradients(
    f: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: &[Tensor],
    w: Option<&Tensor>,
) -> (Tensor, Vec<Option<Tensor>>) {
    let tape = GradientTape::new();
    let (out, y) = {
        let _r = tape.record().unwrap();
        for x in xs {
            tape.watch(x);
        }
        let out = f(xs).unwrap();
        let weighted = match w {
            Some(w) => ops::mul(&out, w).unwrap(),
            None => out.clone(),
        };
        (out, ops::reduce_sum(&weighted, None, false).unwrap())
    };
    let sources: Vec<_> = xs.iter().map(Into::into).collect();
    (out, tape.gradient(&[y], &sources).unwrap())
}

/// Central differences of `sum(f(xs) * w)` against the tape's gradient, in
/// float64, with the table's tolerances (those of the Python check).
fn check_fd(
    id: &str,
    f: &dyn Fn(&[Tensor]) -> Result<Tensor>,
    xs: Vec<Vec<f64>>,
    shapes: &[Vec<usize>],
    tol: (f64, f64),
    rng: &mut Rng,
) {
    let inputs = tensors(&xs, shapes, DType::F64);
    let out_shape = f(&inputs).unwrap().shape().to_vec();
    let n: usize = out_shape.iter().product();
    let w = Tensor::from_vec(sample(&[(0.5, 1.5)], n, rng), &out_shape).unwrap();
    let (_, grads) = value_and_gradients(f, &inputs, Some(&w));
    let scalar = |xs: &[Vec<f64>]| {
        let y = ops::mul(&f(&tensors(xs, shapes, DType::F64)).unwrap(), &w).unwrap();
        ops::reduce_sum(&y, None, false)
            .unwrap()
            .to_f64_scalar()
            .unwrap()
    };
    let eps = 1e-6;
    let (rtol, atol) = tol;
    for (k, g) in grads.iter().enumerate() {
        let g = g
            .as_ref()
            .unwrap_or_else(|| panic!("{id}: no gradient for input {k}"));
        assert_eq!(g.dtype(), DType::F64, "{id}: gradient dtype");
        assert_eq!(g.shape(), &shapes[k][..], "{id}: gradient shape");
        let g = g.to_vec::<f64>().unwrap();
        for i in 0..xs[k].len() {
            let at = |d: f64| {
                let mut moved = xs.clone();
                moved[k][i] += d;
                scalar(&moved)
            };
            let num = (at(eps) - at(-eps)) / (2.0 * eps);
            assert!(
                (num - g[i]).abs() <= atol + rtol * num.abs(),
                "{id} {shapes:?}: input {k} element {i}: analytic {} vs numeric {num}",
                g[i]
            );
        }
    }
}

/// Exact values and gradients (of `sum(output)`) at a row's edge points.
fn check_edge(id: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, edge: &Value, dtype: DType) {
    let why = edge["why"].as_str().unwrap_or("");
    let (values, shapes): (Vec<_>, Vec<_>) =
        edge["at"].as_array().unwrap().iter().map(nested).unzip();
    let xs = tensors(&values, &shapes, dtype);
    let (out, grads) = value_and_gradients(f, &xs, None);
    // The expected numbers rounded to the dtype, as the op computes them.
    let round = |v: Vec<f64>| -> Vec<f64> {
        match dtype {
            DType::F32 => v.into_iter().map(|e| e as f32 as f64).collect(),
            _ => v,
        }
    };
    let same = |got: &[f64], want: &[f64]| {
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    };
    if !edge["value"].is_null() {
        let want = round(nested(&edge["value"]).0);
        let got = as_f64(&out);
        assert!(
            same(&got, &want),
            "{id} {dtype:?} ({why}): value {got:?}, want {want:?}"
        );
    }
    if let Some(want) = edge["grad"].as_array() {
        assert_eq!(grads.len(), want.len(), "{id}: one gradient per input");
        for (k, (g, w)) in grads.iter().zip(want).enumerate() {
            let g = g
                .as_ref()
                .unwrap_or_else(|| panic!("{id} ({why}): no gradient for input {k}"));
            assert_eq!(g.dtype(), dtype, "{id}: gradient dtype");
            let (got, want) = (as_f64(g), round(nested(w).0));
            assert!(
                same(&got, &want),
                "{id} {dtype:?} ({why}): input {k} gradient {got:?}, want {want:?}"
            );
        }
    }
}

/// Every case of one row: finite differences on each shape (or no gradient
/// for a row marked `"grad": "none"`), then the edges.
fn check_row(table: &Value, row: &Value) {
    let id = row["id"].as_str().unwrap();
    let core = row["core"].as_str().unwrap();
    let params = Params {
        row: id,
        map: row["params"].as_object(),
    };
    let f = |x: &[Tensor]| call_core(core, &params, x);
    let domains: Vec<_> = row["domain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| intervals(table, d.as_str().unwrap()))
        .collect();
    let defaults = &table["defaults"];
    let cases = row.get("shapes").unwrap_or(if domains.len() == 1 {
        &defaults["unary_shapes"]
    } else {
        &defaults["binary_shapes"]
    });
    let tol = (
        number(&defaults["grad_rtol"]),
        number(&defaults["grad_atol"]),
    );
    let differentiable = match row.get("grad").and_then(Value::as_str) {
        None | Some("fd") => true,
        Some("none") => false,
        Some(other) => panic!("{id}: grad is \"fd\" or \"none\", not {other}"),
    };
    // Seeded by the row's id (FNV-1a), so other rows do not move its points.
    let mut rng = Rng(id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }));
    for case in cases.as_array().unwrap() {
        let shapes: Vec<_> = case.as_array().unwrap().iter().map(shape).collect();
        assert_eq!(shapes.len(), domains.len(), "{id}: one shape per input");
        let xs: Vec<_> = shapes
            .iter()
            .zip(&domains)
            .map(|(s, d)| sample(d, s.iter().product(), &mut rng))
            .collect();
        if differentiable {
            check_fd(id, &f, xs, &shapes, tol, &mut rng);
        } else {
            let (_, grads) = value_and_gradients(&f, &tensors(&xs, &shapes, DType::F64), None);
            assert!(
                grads.iter().all(Option::is_none),
                "{id}: not differentiable, yet has a gradient"
            );
        }
    }
    for edge in row["edges"].as_array().into_iter().flatten() {
        for dtype in [DType::F32, DType::F64] {
            check_edge(id, &f, edge, dtype);
        }
    }
}

#[test]
fn every_op_of_the_table() {
    let table = table();
    let rows = table["ops"].as_array().unwrap();
    assert!(rows.len() > 40, "the table lists every elementwise op");
    // Each row on its own, so that one report names every failing row.
    let failed: Vec<&str> = rows
        .iter()
        .filter(|row| catch_unwind(AssertUnwindSafe(|| check_row(&table, row))).is_err())
        .map(|row| row["id"].as_str().unwrap_or("?"))
        .collect();
    assert!(
        failed.is_empty(),
        "failing rows (messages above): {failed:?}"
    );
}

#[test]
fn matmul_reduce_reshape_transpose() {
    let w = Tensor::from_vec((0..12).map(|i| (i as f64 - 5.0) / 7.0).collect(), &[3, 4]).unwrap();
    let x = vec![0.3, -1.2, 0.7, 1.9, -0.4, 0.1];
    let mut rng = Rng(0);
    let tol = (1e-5, 1e-7);
    let mut check = |name: &str, f: &dyn Fn(&[Tensor]) -> Result<Tensor>, shape: &[usize]| {
        check_fd(name, f, vec![x.clone()], &[shape.to_vec()], tol, &mut rng)
    };
    check("tanh(x @ w)", &|t| t[0].matmul(&w)?.tanh(), &[2, 3]);
    check(
        "w^T @ x",
        &|t| ops::matmul_with(&w, &t[0], ops::MatmulOptions::transpose_a()),
        &[3, 2],
    );
    check(
        "mean(x * x, axis 0)",
        &|t| ops::reduce_mean(&ops::mul(&t[0], &t[0])?, Some(&[0]), true),
        &[2, 3],
    );
    check(
        "x^T * reshape(x)",
        &|t| {
            ops::mul(
                &ops::transpose(&t[0], None)?,
                &ops::reshape(&t[0], &[3, 2])?,
            )
        },
        &[2, 3],
    );
}
