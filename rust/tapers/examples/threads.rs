//! Several threads, each recording on its own tape, sharing one Variable that
//! they all update: `cargo run -p tapers --example threads`.

use std::thread;

use tapers::{ops, DType, GradientTape, Tensor, Variable};

fn main() -> tapers::Result<()> {
    let shared = Variable::new(Tensor::zeros(&[4], DType::F64)?).with_name("shared");
    let results: Vec<f64> = thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|k| {
                let shared = &shared;
                s.spawn(move || -> tapers::Result<f64> {
                    let x = Tensor::full(&[4], k as f64 + 1.0)?;
                    let mut last = 0.0;
                    for _ in 0..100 {
                        let tape = GradientTape::new();
                        let y = {
                            let _rec = tape.record()?;
                            tape.watch(&x);
                            ops::reduce_sum(
                                &ops::mul(&ops::mul(&x, &x)?, &shared.read())?,
                                None,
                                false,
                            )?
                        };
                        // d/dx sum(x^2 * s) = 2 x s; d/ds = x^2.
                        let g = tape.gradient(&[y], &[(&x).into(), shared.into()])?;
                        last = g[1].as_ref().expect("connected").to_vec::<f64>()?[0];
                        shared.assign_add(&Tensor::full(&[4], 1.0f64)?)?;
                    }
                    Ok(last)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread panicked"))
            .collect::<tapers::Result<Vec<f64>>>()
    })?;
    println!("d/dshared seen by each thread: {results:?}");
    println!(
        "shared after 4 x 100 updates: {:?}",
        shared.value().to_vec::<f64>()?
    );
    assert_eq!(shared.value().to_vec::<f64>()?, vec![400.0; 4]);
    for (k, r) in results.iter().enumerate() {
        assert_eq!(*r, ((k + 1) * (k + 1)) as f64);
    }
    Ok(())
}
