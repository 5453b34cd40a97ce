//! Times the `y = x * x` record-and-gradient loop and a 100-op chain in pure
//! Rust (no Python): `cargo run --release --example scalar_loop`.

use std::time::Instant;

use tapers::{ops, GradientTape, Tensor};

fn main() -> tapers::Result<()> {
    let x = Tensor::scalar(3.0f32);
    let n = 200_000;
    let t0 = Instant::now();
    for _ in 0..n {
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record()?;
            tape.watch(&x);
            ops::mul(&x, &x)?
        };
        let g = tape.gradient(&[y], &[(&x).into()])?;
        assert!(g[0].is_some());
    }
    println!(
        "y = x * x record + gradient: {:.2} us",
        t0.elapsed().as_secs_f64() / n as f64 * 1e6
    );

    let t0 = Instant::now();
    for _ in 0..n {
        let _ = ops::mul(&x, &x)?;
    }
    println!(
        "untaped scalar mul: {:.0} ns",
        t0.elapsed().as_secs_f64() / n as f64 * 1e9
    );

    let c = Tensor::scalar(1.0f32);
    let rounds = 2_000;
    let t0 = Instant::now();
    for _ in 0..rounds {
        let tape = GradientTape::new();
        let y = {
            let _r = tape.record()?;
            tape.watch(&x);
            let mut y = x.clone();
            for _ in 0..100 {
                y = ops::mul(&y, &c)?;
            }
            y
        };
        tape.gradient(&[y], &[(&x).into()])?;
    }
    println!(
        "100-op chain, per op (record + gradient): {:.0} ns",
        t0.elapsed().as_secs_f64() / (rounds * 100) as f64 * 1e9
    );
    Ok(())
}
