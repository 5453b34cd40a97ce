//! Seeded random tensors: a small, lockable PCG64 stream per generator.
//!
//! Streams are reproducible across runs and platforms for a given seed; they
//! are not TensorFlow's streams (no framework shares those).

use std::sync::Arc;

use parking_lot::Mutex;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Normal, StandardNormal};
use rand_pcg::Pcg64;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op::{Op, OpRef};
use crate::ops;
use crate::record::RecordingContext;
use crate::tensor::Tensor;

/// A random stream. Shareable between threads (draws are serialized).
///
/// Inside a trace (`crate::graph`), a draw is recorded as a node that holds
/// the stream: each replay draws the next values from it, as TensorFlow's
/// stateful random ops advance their state at every call of a function.
pub struct Generator {
    rng: Arc<Mutex<Pcg64>>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Generator")
    }
}

fn count(shape: &[usize], dtype: DType) -> Result<usize> {
    crate::tensor::check_alloc(shape, dtype)
}

fn float_dtype(op: &'static str, dtype: DType) -> Result<()> {
    if !dtype.is_floating() {
        return Err(Error::UnsupportedDType {
            op,
            dtype,
            allowed: "half, bfloat16, float32, float64",
        });
    }
    Ok(())
}

/// What a draw samples.
#[derive(Clone, Copy, Debug)]
enum Draw {
    Normal { mean: f64, stddev: f64 },
    Truncated { mean: f64, stddev: f64 },
    Uniform { minval: f64, maxval: f64 },
    Bernoulli { keep: f64 },
    Permutation,
}

impl Draw {
    fn name(self) -> &'static str {
        match self {
            Draw::Normal { .. } => "RandomStandardNormal",
            Draw::Truncated { .. } => "TruncatedNormal",
            Draw::Uniform { .. } => "RandomUniform",
            Draw::Bernoulli { .. } => "RandomBernoulli",
            Draw::Permutation => "RandomShuffle",
        }
    }

    /// Samples from `rng` (nothing records: the caller records the draw).
    fn sample(self, rng: &Mutex<Pcg64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
        match self {
            Draw::Normal { mean, stddev } => {
                let n = count(shape, dtype)?;
                let dist = Normal::new(mean, stddev)
                    .map_err(|e| Error::invalid(format!("normal: {e}")))?;
                let mut rng = rng.lock();
                let v: Vec<f64> = (0..n).map(|_| dist.sample(&mut *rng)).collect();
                ops::cast(&Tensor::from_vec(v, shape)?, dtype)
            }
            Draw::Truncated { mean, stddev } => {
                let n = count(shape, dtype)?;
                let mut rng = rng.lock();
                let v: Vec<f64> = (0..n)
                    .map(|_| loop {
                        let z: f64 = StandardNormal.sample(&mut *rng);
                        if z.abs() <= 2.0 {
                            break mean + stddev * z;
                        }
                    })
                    .collect();
                ops::cast(&Tensor::from_vec(v, shape)?, dtype)
            }
            Draw::Uniform { minval, maxval } => {
                let n = count(shape, dtype)?;
                if maxval <= minval && !(dtype.is_floating() && maxval == minval) {
                    return Err(Error::invalid(format!(
                        "Need minval < maxval, got {minval} >= {maxval} [Op:RandomUniform]"
                    )));
                }
                let mut rng = rng.lock();
                match dtype {
                    DType::F16 | DType::BF16 | DType::F32 | DType::F64 => {
                        // Half types draw as many random bits as their mantissa
                        // holds (as TF's kernels), so a fraction never rounds up
                        // to 1 when cast.
                        let steps = match dtype {
                            DType::F16 => Some(1024.0),
                            DType::BF16 => Some(128.0),
                            _ => None,
                        };
                        let v: Vec<f64> = (0..n)
                            .map(|_| {
                                let u = rng.random::<f64>();
                                let u = steps.map_or(u, |s: f64| (u * s).floor() / s);
                                minval + (maxval - minval) * u
                            })
                            .collect();
                        ops::cast(&Tensor::from_vec(v, shape)?, dtype)
                    }
                    DType::I32 | DType::I64 => {
                        let (lo, hi) = (minval as i64, maxval as i64);
                        let v: Vec<i64> = (0..n).map(|_| rng.random_range(lo..hi)).collect();
                        ops::cast(&Tensor::from_vec(v, shape)?, dtype)
                    }
                    _ => Err(Error::UnsupportedDType {
                        op: "RandomUniform",
                        dtype,
                        allowed: "half, bfloat16, float32, float64, int32, int64",
                    }),
                }
            }
            Draw::Bernoulli { keep } => {
                let n = count(shape, DType::Bool)?;
                let mut rng = rng.lock();
                let v: Vec<bool> = (0..n).map(|_| rng.random::<f64>() < keep).collect();
                Tensor::from_vec(v, shape)
            }
            Draw::Permutation => {
                let n = shape[0];
                let mut v: Vec<i64> = (0..n as i64).collect();
                let mut rng = rng.lock();
                for i in (1..n).rev() {
                    let j = rng.random_range(0..=i);
                    v.swap(i, j);
                }
                Tensor::from_vec(v, &[n])
            }
        }
    }
}

/// A recorded draw: replayed, it draws the next values from its stream.
struct RandomOp {
    rng: Arc<Mutex<Pcg64>>,
    draw: Draw,
    shape: Vec<usize>,
    dtype: DType,
}

impl Op for RandomOp {
    fn name(&self) -> &'static str {
        self.draw.name()
    }

    fn forward(&self, _inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![run(&self.rng, self.draw, &self.shape, self.dtype)?])
    }
}

/// Draws; inside a trace, the draw is one node (the ops it is made of are
/// not traced) that a replay runs again on the same stream.
fn run(rng: &Arc<Mutex<Pcg64>>, draw: Draw, shape: &[usize], dtype: DType) -> Result<Tensor> {
    if !crate::record::is_tracing() {
        return draw.sample(rng, shape, dtype);
    }
    let out = RecordingContext::default().enter(|| draw.sample(rng, shape, dtype))?;
    let op = OpRef::Shared(Arc::new(RandomOp {
        rng: rng.clone(),
        draw,
        shape: shape.to_vec(),
        dtype,
    }));
    crate::record::trace_op(&op, &[], &[&out]);
    Ok(out)
}

impl Generator {
    /// A generator whose stream is determined by `seed`.
    pub fn from_seed(seed: u64) -> Generator {
        Generator {
            rng: Arc::new(Mutex::new(Pcg64::seed_from_u64(seed))),
        }
    }

    /// A generator seeded from the operating system's entropy.
    pub fn from_entropy() -> Generator {
        Generator::from_seed(rand::random())
    }

    /// Normal samples with the given mean and standard deviation.
    pub fn normal(&self, shape: &[usize], mean: f64, stddev: f64, dtype: DType) -> Result<Tensor> {
        float_dtype("RandomStandardNormal", dtype)?;
        run(&self.rng, Draw::Normal { mean, stddev }, shape, dtype)
    }

    /// Normal samples, redrawn until within two standard deviations of the mean.
    pub fn truncated_normal(
        &self,
        shape: &[usize],
        mean: f64,
        stddev: f64,
        dtype: DType,
    ) -> Result<Tensor> {
        float_dtype("TruncatedNormal", dtype)?;
        run(&self.rng, Draw::Truncated { mean, stddev }, shape, dtype)
    }

    /// Uniform samples in `[minval, maxval)`; integer dtypes draw integers.
    pub fn uniform(
        &self,
        shape: &[usize],
        minval: f64,
        maxval: f64,
        dtype: DType,
    ) -> Result<Tensor> {
        run(&self.rng, Draw::Uniform { minval, maxval }, shape, dtype)
    }

    /// A bool mask where each element is `true` with probability `keep`.
    pub fn bernoulli(&self, shape: &[usize], keep: f64) -> Result<Tensor> {
        run(&self.rng, Draw::Bernoulli { keep }, shape, DType::Bool)
    }

    /// A random permutation of `0..n` (int64), for shuffling.
    pub fn permutation(&self, n: usize) -> Result<Tensor> {
        run(&self.rng, Draw::Permutation, &[n], DType::I64)
    }
}
