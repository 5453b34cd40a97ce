//! The gradient of a scalar function, and its second derivative, with nested
//! tapes: `cargo run -p tapers --example gradient`.

use tapers::{GradientTape, Tensor};

/// f(x) = x^3 - 2x
fn f(x: &Tensor) -> tapers::Result<Tensor> {
    let cube = x.mul(x)?.mul(x)?;
    cube.sub(&x.mul(&Tensor::scalar(2.0f64))?)
}

fn main() -> tapers::Result<()> {
    let x = Tensor::scalar(1.5f64);
    let outer = GradientTape::new();
    let inner = GradientTape::new();
    let outer_rec = outer.record()?;
    outer.watch(&x);
    let y = {
        let _rec = inner.record()?;
        inner.watch(&x);
        f(&x)?
    };
    let dy = inner
        .gradient(std::slice::from_ref(&y), &[(&x).into()])?
        .remove(0)
        .expect("connected");
    drop(outer_rec);
    let d2y = outer
        .gradient(std::slice::from_ref(&dy), &[(&x).into()])?
        .remove(0)
        .expect("connected");
    println!("f(1.5)   = {}", y.to_f64_scalar()?);
    println!("f'(1.5)  = {} (3x^2 - 2 = 4.75)", dy.to_f64_scalar()?);
    println!("f''(1.5) = {} (6x = 9)", d2y.to_f64_scalar()?);
    assert_eq!(dy.to_f64_scalar()?, 4.75);
    assert_eq!(d2y.to_f64_scalar()?, 9.0);
    Ok(())
}
