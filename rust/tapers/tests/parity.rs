//! TensorFlow's answers at the edges, from Rust (issue 20). The full
//! differential fixture (TF 2.21's recorded outcomes) is replayed by
//! `tests/test_tf_parity.py`; these hold the core's side of the fixes
//! without Python.

use tapers::ops::{self, Padding};
use tapers::{ErrorKind, GradientTape, Tensor, Unconnected};

fn vec64(t: &Tensor) -> Vec<f64> {
    ops::cast(t, tapers::DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// First and second derivatives of `sum(f(x))` at `x` (nested tapes).
fn derivatives(f: impl Fn(&Tensor) -> Tensor, x: &[f64]) -> (Vec<f64>, Option<Vec<f64>>) {
    let x = Tensor::from_vec(x.to_vec(), &[x.len()]).unwrap();
    let outer = GradientTape::new();
    let (g1, s) = {
        let _o = outer.record().unwrap();
        outer.watch(&x);
        let inner = GradientTape::new();
        let y = {
            let _i = inner.record().unwrap();
            inner.watch(&x);
            ops::reduce_sum(&f(&x), None, false).unwrap()
        };
        let g1 = inner.gradient(&[y], &[(&x).into()]).unwrap()[0]
            .clone()
            .unwrap();
        let s = ops::reduce_sum(&g1, None, false).unwrap();
        (g1, s)
    };
    let g2 = outer.gradient(&[s], &[(&x).into()]).unwrap()[0].clone();
    (vec64(&g1), g2.map(|g| vec64(&g)))
}

#[test]
fn a_zero_upstream_through_sqrt_rsqrt_reciprocal_is_zero() {
    for f in [ops::sqrt, ops::rsqrt, ops::reciprocal] {
        let x = Tensor::from_vec(vec![0.0f32, 4.0], &[2]).unwrap();
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record().unwrap();
            tape.watch(&x);
            f(&x).unwrap()
        };
        let seed = Tensor::from_vec(vec![0.0f32, 1.0], &[2]).unwrap();
        let g = tape
            .gradient_with(&[y], &[(&x).into()], Some(&[seed]), Unconnected::None)
            .unwrap();
        let g = vec64(g[0].as_ref().unwrap());
        assert_eq!(g[0], 0.0, "a zero upstream gives 0, not NaN");
        assert!(g[1].is_finite() && g[1] != 0.0);
    }
}

#[test]
fn relu_keeps_nan_and_its_second_derivative_is_zeros() {
    let y = ops::relu(&Tensor::from_vec(vec![f64::NAN, -1.0, 2.0], &[3]).unwrap()).unwrap();
    let v = vec64(&y);
    assert!(v[0].is_nan() && v[1] == 0.0 && v[2] == 2.0);
    let y6 = ops::relu6(&Tensor::from_vec(vec![f64::NAN, 7.0], &[2]).unwrap()).unwrap();
    assert!(vec64(&y6)[0].is_nan());
    for f in [
        ops::relu as fn(&Tensor) -> tapers::Result<Tensor>,
        ops::relu6,
        |x: &Tensor| ops::leaky_relu(x, 0.2),
    ] {
        let (g1, g2) = derivatives(|x| f(x).unwrap(), &[-1.0, 2.0, 7.0]);
        assert_eq!(g1.len(), 3);
        assert_eq!(g2, Some(vec![0.0, 0.0, 0.0]), "zeros, not None");
    }
}

#[test]
fn elu_and_selu_at_zero_take_the_positive_branch() {
    let (g1, g2) = derivatives(|x| ops::elu(x).unwrap(), &[0.0, f64::NAN]);
    assert_eq!(g1, vec![1.0, 1.0]);
    assert_eq!(g2.unwrap()[0], 0.0);
    let (g1, g2) = derivatives(|x| ops::selu(x).unwrap(), &[0.0]);
    assert!((g1[0] - 1.050_700_987_355_480_5).abs() < 1e-15);
    assert_eq!(g2, Some(vec![0.0]));
}

#[test]
fn cumprod_gradient_divides_with_div_no_nan() {
    let (g1, g2) = derivatives(
        |x| ops::cumprod(x, 0, false, false).unwrap(),
        &[2.0, 0.0, 3.0],
    );
    assert_eq!(g1, vec![1.0, 0.0, 0.0]);
    assert!(g2.unwrap().iter().all(|v| v.is_finite()));
}

#[test]
fn argmax_skips_nan_and_max_pool_keeps_it() {
    let x = Tensor::from_vec(vec![1.0, f64::NAN, 0.0], &[3]).unwrap();
    assert_eq!(
        ops::argmax(&x, 0).unwrap().to_vec::<i64>().unwrap(),
        vec![0]
    );
    assert_eq!(
        ops::argmin(&x, 0).unwrap().to_vec::<i64>().unwrap(),
        vec![2]
    );
    let img = Tensor::from_vec(vec![f64::NAN, 1.0, 0.0, 2.0], &[1, 2, 2, 1]).unwrap();
    let p = ops::max_pool2d(&img, [2, 2], [1, 1], Padding::Valid).unwrap();
    assert!(vec64(&p)[0].is_nan());
}

#[test]
fn valid_windows_larger_than_the_input_are_errors() {
    let img = Tensor::from_vec(vec![1.0f32; 4], &[1, 2, 2, 1]).unwrap();
    let err = ops::max_pool2d(&img, [4, 4], [1, 1], Padding::Valid).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err
        .to_string()
        .contains("Computed output size would be negative: -1"));
    // Exactly one stride too large still gives an empty output, as TF's arithmetic does.
    let p = ops::avg_pool2d(&img, [3, 3], [1, 1], Padding::Valid).unwrap();
    assert_eq!(p.shape(), &[1, 0, 0, 1]);
}

#[test]
fn integer_means_do_not_wrap_and_empty_ones_are_zero() {
    let x = Tensor::from_vec(vec![3i32 << 29, 3 << 29], &[2]).unwrap();
    let m = ops::reduce_mean(&x, None, false).unwrap();
    assert_eq!(m.to_vec::<i32>().unwrap(), vec![1_610_612_736]);
    let e = Tensor::from_vec(Vec::<i32>::new(), &[0]).unwrap();
    assert_eq!(
        ops::reduce_mean(&e, None, false)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![0]
    );
    let b = Tensor::from_vec(vec![3i64], &[1]).unwrap();
    let e = Tensor::from_vec(vec![(1i64 << 32) + 1], &[1]).unwrap();
    // 3^(2^32 + 1) mod 2^64, as TF's int64 pow wraps.
    assert_eq!(
        ops::pow(&b, &e).unwrap().to_vec::<i64>().unwrap(),
        vec![7_473_929_035_676_909_571]
    );
}

#[test]
fn abs_of_negative_zero_trace_and_masked_sparse_cross_entropy() {
    let a = ops::abs(&Tensor::from_vec(vec![-0.0f64], &[1]).unwrap()).unwrap();
    assert!(vec64(&a)[0].is_sign_positive());
    let m = Tensor::from_vec(vec![1.0, f64::INFINITY, f64::NAN, 2.0], &[2, 2]).unwrap();
    assert_eq!(vec64(&ops::trace(&m).unwrap()), vec![3.0]);
    let labels = Tensor::from_vec(vec![0i32], &[1]).unwrap();
    let logits = Tensor::from_vec(vec![-4.228f32, f32::NEG_INFINITY], &[1, 2]).unwrap();
    let loss = ops::sparse_softmax_cross_entropy_with_logits(&labels, &logits).unwrap();
    assert_eq!(vec64(&loss), vec![0.0]);
}

#[test]
fn requests_beyond_memory_are_resource_exhausted_and_beyond_int64_invalid() {
    // 2^50 floats (4 PiB): more than any machine this runs on can back.
    let err = Tensor::zeros(&[1 << 50], tapers::DType::F32).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ResourceExhausted);
    let err = Tensor::zeros(&[1 << 62, 1 << 62], tapers::DType::F32).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
}
