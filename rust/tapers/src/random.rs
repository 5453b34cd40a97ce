//! Seeded random tensors: a small, lockable PCG64 stream per generator.
//!
//! Streams are reproducible across runs and platforms for a given seed; they
//! are not TensorFlow's streams (no framework shares those).

use parking_lot::Mutex;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Normal, StandardNormal};
use rand_pcg::Pcg64;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::tensor::Tensor;

/// A random stream. Shareable between threads (draws are serialized).
pub struct Generator {
    rng: Mutex<Pcg64>,
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
            allowed: "float32, float64",
        });
    }
    Ok(())
}

impl Generator {
    /// A generator whose stream is determined by `seed`.
    pub fn from_seed(seed: u64) -> Generator {
        Generator {
            rng: Mutex::new(Pcg64::seed_from_u64(seed)),
        }
    }

    /// A generator seeded from the operating system's entropy.
    pub fn from_entropy() -> Generator {
        Generator::from_seed(rand::random())
    }

    /// Normal samples with the given mean and standard deviation.
    pub fn normal(&self, shape: &[usize], mean: f64, stddev: f64, dtype: DType) -> Result<Tensor> {
        float_dtype("RandomStandardNormal", dtype)?;
        crate::record::trace_unreplayable("RandomStandardNormal");
        let n = count(shape, dtype)?;
        let dist = Normal::new(mean, stddev).map_err(|e| Error::invalid(format!("normal: {e}")))?;
        let mut rng = self.rng.lock();
        let v: Vec<f64> = (0..n).map(|_| dist.sample(&mut *rng)).collect();
        ops::cast(&Tensor::from_vec(v, shape)?, dtype)
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
        crate::record::trace_unreplayable("TruncatedNormal");
        let n = count(shape, dtype)?;
        let mut rng = self.rng.lock();
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

    /// Uniform samples in `[minval, maxval)`; integer dtypes draw integers.
    pub fn uniform(
        &self,
        shape: &[usize],
        minval: f64,
        maxval: f64,
        dtype: DType,
    ) -> Result<Tensor> {
        crate::record::trace_unreplayable("RandomUniform");
        let n = count(shape, dtype)?;
        if maxval <= minval && !(dtype.is_floating() && maxval == minval) {
            return Err(Error::invalid(format!(
                "Need minval < maxval, got {minval} >= {maxval} [Op:RandomUniform]"
            )));
        }
        let mut rng = self.rng.lock();
        match dtype {
            DType::F32 | DType::F64 => {
                let v: Vec<f64> = (0..n)
                    .map(|_| minval + (maxval - minval) * rng.random::<f64>())
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
                allowed: "float32, float64, int32, int64",
            }),
        }
    }

    /// A bool mask where each element is `true` with probability `keep`.
    pub fn bernoulli(&self, shape: &[usize], keep: f64) -> Result<Tensor> {
        crate::record::trace_unreplayable("RandomBernoulli");
        let n = count(shape, DType::Bool)?;
        let mut rng = self.rng.lock();
        let v: Vec<bool> = (0..n).map(|_| rng.random::<f64>() < keep).collect();
        Tensor::from_vec(v, shape)
    }

    /// A random permutation of `0..n` (int64), for shuffling.
    pub fn permutation(&self, n: usize) -> Result<Tensor> {
        crate::record::trace_unreplayable("RandomShuffle");
        let mut v: Vec<i64> = (0..n as i64).collect();
        let mut rng = self.rng.lock();
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            v.swap(i, j);
        }
        Tensor::from_vec(v, &[n])
    }
}
