//! Special functions at one element: digamma, Hurwitz zeta and polygamma
//! ported from Cephes as Eigen has them (what TensorFlow's CPU kernels run),
//! erfc, lgamma and nextafter from `libm` (the musl ports), the inverse
//! normal CDF, the modified Bessel functions I0/I1 (and their exponentially
//! scaled forms) and the regularized incomplete beta function from the
//! `spec_math` crate (a Rust port of Cephes). float32 computes in float64 and
//! rounds once (TF's float32 kernels run Eigen's float versions, so the last
//! place can differ).

/// The special functions on both float widths.
pub(crate) trait Special: Copy {
    fn erfc(self) -> Self;
    fn lgamma(self) -> Self;
    fn digamma(self) -> Self;
    fn zeta(self, q: Self) -> Self;
    fn polygamma(self, x: Self) -> Self;
    fn ndtri(self) -> Self;
    fn erfinv(self) -> Self;
    fn bessel_i0(self) -> Self;
    fn bessel_i0e(self) -> Self;
    fn bessel_i1(self) -> Self;
    fn bessel_i1e(self) -> Self;
    fn nextafter(self, to: Self) -> Self;
}

/// `erfinv(x) = ndtri((x + 1) / 2) / sqrt(2)`, as Eigen computes it.
fn erfinv(x: f64) -> f64 {
    spec_math::cephes64::ndtri((x + 1.0) / 2.0) / std::f64::consts::SQRT_2
}

/// The regularized incomplete beta function `I_x(a, b)` (Cephes `incbet`):
/// NaN for `a <= 0`, `b <= 0`, `x` outside `[0, 1]` or any NaN.
pub(crate) fn betainc(a: f64, b: f64, x: f64) -> f64 {
    if a.is_nan() || b.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    spec_math::cephes64::incbet(a, b, x)
}

impl Special for f64 {
    fn erfc(self) -> f64 {
        libm::erfc(self)
    }
    fn lgamma(self) -> f64 {
        libm::lgamma(self)
    }
    fn digamma(self) -> f64 {
        digamma(self)
    }
    fn zeta(self, q: f64) -> f64 {
        zeta(self, q)
    }
    fn polygamma(self, x: f64) -> f64 {
        polygamma(self, x)
    }
    fn ndtri(self) -> f64 {
        spec_math::cephes64::ndtri(self)
    }
    fn erfinv(self) -> f64 {
        erfinv(self)
    }
    fn bessel_i0(self) -> f64 {
        spec_math::cephes64::i0(self)
    }
    fn bessel_i0e(self) -> f64 {
        spec_math::cephes64::i0e(self)
    }
    fn bessel_i1(self) -> f64 {
        spec_math::cephes64::i1(self)
    }
    fn bessel_i1e(self) -> f64 {
        spec_math::cephes64::i1e(self)
    }
    fn nextafter(self, to: f64) -> f64 {
        libm::nextafter(self, to)
    }
}

impl Special for f32 {
    fn erfc(self) -> f32 {
        libm::erfcf(self)
    }
    fn lgamma(self) -> f32 {
        libm::lgamma(self as f64) as f32
    }
    fn digamma(self) -> f32 {
        digamma(self as f64) as f32
    }
    fn zeta(self, q: f32) -> f32 {
        zeta(self as f64, q as f64) as f32
    }
    fn polygamma(self, x: f32) -> f32 {
        polygamma(self as f64, x as f64) as f32
    }
    fn ndtri(self) -> f32 {
        spec_math::cephes64::ndtri(self as f64) as f32
    }
    fn erfinv(self) -> f32 {
        erfinv(self as f64) as f32
    }
    fn bessel_i0(self) -> f32 {
        spec_math::cephes64::i0(self as f64) as f32
    }
    fn bessel_i0e(self) -> f32 {
        spec_math::cephes64::i0e(self as f64) as f32
    }
    fn bessel_i1(self) -> f32 {
        spec_math::cephes64::i1(self as f64) as f32
    }
    fn bessel_i1e(self) -> f32 {
        spec_math::cephes64::i1e(self as f64) as f32
    }
    fn nextafter(self, to: f32) -> f32 {
        libm::nextafterf(self, to)
    }
}

/// Cephes' `polevl`: `c[0] x^n + ... + c[n]`.
fn polevl(x: f64, c: &[f64]) -> f64 {
    c.iter().fold(0.0, |acc, &k| acc * x + k)
}

/// The digamma function `psi(x) = d ln Gamma(x) / dx` (Cephes `psi`, as
/// Eigen's `digamma_impl`): NaN at 0, the negative integers and -inf.
pub(crate) fn digamma(mut x: f64) -> f64 {
    const A: [f64; 7] = [
        8.333_333_333_333_333e-2,
        -2.109_279_609_279_609_3e-2,
        7.575_757_575_757_576e-3,
        -4.166_666_666_666_667e-3,
        3.968_253_968_253_968e-3,
        -8.333_333_333_333_333e-3,
        8.333_333_333_333_333e-2,
    ];
    let mut negative = false;
    let mut nz = 0.0;
    if x <= 0.0 {
        negative = true;
        let q = x;
        let mut p = q.floor();
        if p == q {
            return f64::NAN;
        }
        // Remove the zeros of tan(pi x) by subtracting the nearest integer.
        nz = q - p;
        if nz != 0.5 {
            if nz > 0.5 {
                p += 1.0;
                nz = q - p;
            }
            nz = std::f64::consts::PI / (std::f64::consts::PI * nz).tan();
        } else {
            nz = 0.0;
        }
        x = 1.0 - x;
    }
    // psi(x + 1) = psi(x) + 1 / x up to 10, then the asymptotic series.
    let mut s = x;
    let mut w = 0.0;
    while s < 10.0 {
        w += 1.0 / s;
        s += 1.0;
    }
    let y = if s < 1.0e17 {
        let z = 1.0 / (s * s);
        z * polevl(z, &A)
    } else {
        0.0
    };
    let y = s.ln() - (0.5 / s) - y - w;
    if negative {
        y - nz
    } else {
        y
    }
}

/// The Hurwitz zeta function `sum_k (k + q)^-x` (Cephes `zeta`, as Eigen's
/// `zeta_impl`): infinite at `x == 1`, NaN for `x < 1`.
pub(crate) fn zeta(x: f64, q: f64) -> f64 {
    // Euler-Maclaurin summation coefficients: (2k)! / B_2k.
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1_209_600.0,
        47_900_160.0,
        -1.892_437_580_318_379_2e9,
        7.472_424_96e10,
        -2.950_130_727_918_164e12,
        1.164_678_281_435_006_7e14,
        -4.597_978_722_407_473e15,
        1.815_210_540_194_354_7e17,
        -7.166_165_256_175_667e18,
    ];
    const MACHEP: f64 = 1.110_223_024_625_156_5e-16;
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            // x is at least 1 here, so it fits an i64 when it is an integer
            // of interest (larger ones are even).
            if x == x.floor() && (x >= 9.0e15 || (x as i64) % 2 == 0) {
                return f64::INFINITY;
            }
            return f64::NAN;
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    let mut s = q.powf(-x);
    let mut a = q;
    let mut b = 0.0;
    for _ in 0..9 {
        a += 1.0;
        b = a.powf(-x);
        s += b;
        if (b / s).abs() < MACHEP {
            return s;
        }
    }
    if b == 0.0 {
        return s;
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    let mut a = 1.0;
    let mut k = 0.0;
    for coef in A {
        a *= x + k;
        b /= w;
        let t = a * b / coef;
        s += t;
        if (t / s).abs() < MACHEP {
            return s;
        }
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    s
}

/// The polygamma function `psi^(n)(x)` (Eigen's `polygamma_impl`): digamma
/// for `n == 0`, `(-1)^(n+1) n! zeta(n + 1, x)` for a positive integer `n`,
/// NaN for any other `n`.
pub(crate) fn polygamma(n: f64, x: f64) -> f64 {
    if n.floor() != n || n < 0.0 {
        return f64::NAN;
    }
    if n == 0.0 {
        return digamma(x);
    }
    let nplus = n + 1.0;
    let factorial = libm::lgamma(nplus).exp();
    let sign = if (nplus as i64) % 2 == 0 { 1.0 } else { -1.0 };
    sign * factorial * zeta(nplus, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + euler).abs() < 1e-15);
        assert!(digamma(0.0).is_nan() && digamma(-2.0).is_nan());
        assert!((zeta(2.0, 1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-15);
        assert_eq!(zeta(1.0, 1.0), f64::INFINITY);
        assert!(zeta(0.5, 1.0).is_nan());
        // psi'(1) = pi^2 / 6.
        assert!((polygamma(1.0, 1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-14);
        assert!(polygamma(1.5, 2.0).is_nan());
    }
}
