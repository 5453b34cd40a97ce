//! Integer tensor arithmetic wraps on overflow, as TensorFlow's kernels do, in
//! every build profile (this test runs with overflow checks on): found by the
//! fuzz harness, where a debug build panicked instead.

use tapers::{ops, Tensor};

fn i32s(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

#[test]
fn integer_ops_wrap() {
    let max = Tensor::from_vec(vec![i32::MAX, i32::MIN], &[2]).unwrap();
    let one = Tensor::scalar(1i32);
    let two = Tensor::scalar(2i32);
    assert_eq!(
        i32s(&ops::add(&max, &one).unwrap()),
        vec![i32::MIN, i32::MIN + 1]
    );
    assert_eq!(
        i32s(&ops::sub(&max, &one).unwrap()),
        vec![i32::MAX - 1, i32::MAX]
    );
    assert_eq!(i32s(&ops::mul(&max, &two).unwrap()), vec![-2, 0]);
    assert_eq!(i32s(&ops::square(&max).unwrap()), vec![1, 0]);
    assert_eq!(i32s(&ops::neg(&max).unwrap()), vec![-i32::MAX, i32::MIN]);
    assert_eq!(i32s(&ops::pow(&max, &two).unwrap()), vec![1, 0]);
    let minus_one = Tensor::scalar(-1i32);
    assert_eq!(
        i32s(&ops::floordiv(&max, &minus_one).unwrap()),
        vec![-i32::MAX, i32::MIN]
    );
    assert_eq!(i32s(&ops::floormod(&max, &minus_one).unwrap()), vec![0, 0]);
    let big = Tensor::from_vec(vec![i64::MAX], &[1]).unwrap();
    assert_eq!(
        ops::pow(&Tensor::scalar(1i64), &big)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![1]
    );
}

#[test]
fn integer_reductions_wrap() {
    let x = Tensor::from_vec(vec![i32::MAX, 1, i32::MAX, 1], &[2, 2]).unwrap();
    assert_eq!(i32s(&ops::reduce_sum(&x, None, false).unwrap()), vec![0]);
    assert_eq!(
        i32s(&ops::reduce_sum(&x, Some(&[1]), true).unwrap()),
        vec![i32::MIN, i32::MIN]
    );
    let xt = ops::transpose(&x, None).unwrap();
    assert_eq!(
        i32s(&ops::reduce_sum(&xt, Some(&[0]), true).unwrap()),
        vec![i32::MIN, i32::MIN]
    );
    assert_eq!(
        i32s(&ops::add_n(&[x.clone(), x.clone()]).unwrap()),
        vec![-2, 2, -2, 2]
    );
    assert_eq!(
        i32s(&ops::cumsum(&x, 1, false, false).unwrap()),
        vec![i32::MAX, i32::MIN, i32::MAX, i32::MIN]
    );
    let m = ops::matmul(&x, &x).unwrap();
    // [[MAX*MAX + MAX, MAX + 1], ...] in two's complement.
    let want = i32::MAX.wrapping_mul(i32::MAX).wrapping_add(i32::MAX);
    assert_eq!(i32s(&m), vec![want, i32::MIN, want, i32::MIN]);
}
