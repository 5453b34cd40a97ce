//! `std::ops` operators record on tapes like the functions they call.

use tapers::{DType, GradientTape, Tensor};

#[test]
fn operators_compute_and_differentiate() {
    let x = Tensor::scalar(3.0f64);
    let tape = GradientTape::new();
    let y = {
        let _r = tape.record().unwrap();
        tape.watch(&x);
        // y = (x*x + 2x - 1) / 2 - (-x)
        let a = (&x * &x).unwrap();
        let b = (&(&a + &(2.0 * &x).unwrap()).unwrap() - 1.0).unwrap();
        (&(b / 2.0).unwrap() - &(-&x).unwrap()).unwrap()
    };
    assert_eq!(y.to_f64_scalar().unwrap(), (9.0 + 6.0 - 1.0) / 2.0 + 3.0);
    let g = tape.gradient(&[y], &[(&x).into()]).unwrap();
    // dy/dx = (2x + 2) / 2 + 1 = 5 at x = 3
    assert_eq!(g[0].as_ref().unwrap().to_f64_scalar().unwrap(), 5.0);
}

#[test]
fn operators_report_errors_and_keep_dtypes() {
    let i = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let doubled = (&i * 2.0).unwrap();
    assert_eq!(doubled.dtype(), DType::I32);
    assert_eq!(doubled.to_vec::<i32>().unwrap(), vec![2, 4]);
    let f = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let err = (&i + &f).unwrap_err().to_string();
    assert!(err.contains("int32") && err.contains("float"), "{err}");
    let three = Tensor::from_vec(vec![1.0f32; 3], &[3]).unwrap();
    assert!((f + three).is_err());
}
