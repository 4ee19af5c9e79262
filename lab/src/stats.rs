//! The statistics the commands' reports share: a rate with its 95 % interval, a paired
//! difference with its interval, rank correlation with its p-value, and the normal
//! distribution they rest on. Elo ratings, which only matches have, stay in [`crate::rating`].

use std::f64::consts::SQRT_2;

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The 95 % Wilson score interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (n, p) = (n as f64, k as f64 / n as f64);
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The 95 % percentile interval of bootstrap draws (sorted here), `None` without draws.
pub fn bootstrap_interval(draws: &mut [f64]) -> Option<(f64, f64)> {
    if draws.is_empty() {
        return None;
    }
    draws.sort_by(f64::total_cmp);
    let q = |p: f64| draws[((draws.len() - 1) as f64 * p).round() as usize];
    Some((q(0.025), q(0.975)))
}

/// A paired difference on the same positions: its mean and 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Mean of the per-position differences.
    pub delta: f64,
    /// Lower end of its 95 % interval.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
}

/// The paired difference of two success vectors on the same items: the mean of `a − b` and its
/// 95 % interval (normal approximation from the per-item differences).
pub fn paired_delta(a: &[bool], b: &[bool]) -> (f64, f64, f64) {
    let one = |x: &bool| f64::from(u8::from(*x));
    let p = paired_mean(
        &a.iter().map(one).collect::<Vec<_>>(),
        &b.iter().map(one).collect::<Vec<_>>(),
    );
    (p.delta, p.ci_low, p.ci_high)
}

/// The paired difference of two measurements of the same items: the mean of `a − b` and its
/// 95 % interval (normal approximation from the per-item differences).
pub fn paired_mean(a: &[f64], b: &[f64]) -> Paired {
    let n = a.len().min(b.len());
    if n == 0 {
        return Paired {
            delta: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
        };
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let mean = d.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let half = 1.959_963_984_540_054 * (var / n as f64).sqrt();
    Paired {
        delta: mean,
        ci_low: mean - half,
        ci_high: mean + half,
    }
}

/// Largest sample for which [`spearman_p_value`] enumerates all permutations (9! = 362 880).
const EXACT_MAX_N: usize = 9;

/// 1-based ranks, ties sharing the average of the ranks they span.
fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Centred ranks of `x` and `y` and the denominator `√(Σa²·Σb²)`, or `None` when Spearman's rho
/// is undefined.
fn centred_ranks(x: &[f64], y: &[f64]) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let n = x.len();
    if n != y.len() || n < 3 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let centre = |v: &[f64]| {
        let r = average_ranks(v);
        let m = mean(&r);
        r.into_iter().map(|q| q - m).collect::<Vec<f64>>()
    };
    let (a, b) = (centre(x), centre(y));
    let saa: f64 = a.iter().map(|q| q * q).sum();
    let sbb: f64 = b.iter().map(|q| q * q).sum();
    // Average ranks are multiples of 0.5, so a constant variable gives exactly 0 here.
    if saa <= 0.0 || sbb <= 0.0 {
        return None;
    }
    Some((a, b, (saa * sbb).sqrt()))
}

/// Spearman's rank correlation (average ranks for ties); `None` if fewer than 3 points, the
/// lengths differ, a value is not finite, or a variable is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let (a, b, denom) = centred_ranks(x, y)?;
    let s: f64 = a.iter().zip(&b).map(|(p, q)| p * q).sum();
    Some((s / denom).clamp(-1.0, 1.0))
}

/// Two-sided p-value for Spearman's rho under H0 (no association).
///
/// For n ≤ 9 it is exact: the share of all n! permutations of y's ranks (ties kept as average
/// ranks) whose |rho| is at least the observed one. For larger n it uses the t approximation
/// `t = r·√((n−2)/(1−r²))` with n−2 degrees of freedom (p = 0 when |r| = 1). `None` when
/// [`spearman`] is `None`.
pub fn spearman_p_value(x: &[f64], y: &[f64]) -> Option<f64> {
    let (a, mut b, _) = centred_ranks(x, y)?;
    let n = a.len();
    let dot = |b: &[f64]| a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>();
    if n <= EXACT_MAX_N {
        // Only the numerator of rho changes under a permutation, so compare numerators. Products
        // of half-integers sum exactly, but allow for rounding anyway.
        let observed = dot(&b).abs() - 1e-9;
        let mut hits: u64 = 0;
        let mut total: u64 = 0;
        let mut count = |b: &[f64]| {
            total += 1;
            if dot(b).abs() >= observed {
                hits += 1;
            }
        };
        // Heap's algorithm: every permutation once, one swap apart.
        let mut c = vec![0usize; n];
        count(&b);
        let mut i = 1;
        while i < n {
            if c[i] < i {
                if i % 2 == 0 {
                    b.swap(0, i);
                } else {
                    b.swap(c[i], i);
                }
                count(&b);
                c[i] += 1;
                i = 1;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        return Some(hits as f64 / total as f64);
    }
    let r = spearman(x, y)?;
    if r.abs() >= 1.0 {
        return Some(0.0);
    }
    let df = (n - 2) as f64;
    let t = r * (df / (1.0 - r * r)).sqrt();
    Some(student_t_two_sided(t, df))
}

/// `P(|T| ≥ |t|)` for Student's t with `df` degrees of freedom.
fn student_t_two_sided(t: f64, df: f64) -> f64 {
    match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * dist.sf(t.abs())).clamp(0.0, 1.0),
        Err(_) => f64::NAN,
    }
}

/// Standard normal CDF.
pub fn normal_cdf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    // statrs' erfc, as the standard normal's CDF: Φ(z) = ½·erfc(−z/√2).
    0.5 * statrs::function::erf::erfc(-z / SQRT_2)
}

/// The standard normal quantile (statrs' inverse CDF).
pub fn normal_quantile(p: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().inverse_cdf(p)
}

/// The 97.5 % quantile of Student's t with `df` degrees of freedom: the half-width, in
/// standard errors, of a 95 % interval of a mean of `df + 1` values (1.96, the normal's, for
/// none).
pub fn t_quantile_975(df: usize) -> f64 {
    match StudentsT::new(0.0, 1.0, df as f64) {
        Ok(t) if df > 0 => t.inverse_cdf(0.975),
        _ => normal_quantile(0.975),
    }
}

/// Arithmetic mean; 0 for an empty slice.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables_and_approach_the_normal() {
        assert!((t_quantile_975(18) - 2.101).abs() < 1e-3);
        assert!((t_quantile_975(9) - 2.262).abs() < 1e-3);
        assert!((t_quantile_975(1000) - 1.962).abs() < 1e-3);
    }

    #[test]
    fn wilson_interval_matches_known_values() {
        // Reference values: the roots of Wilson's quadratic (p̂ − p)² = z²·p(1 − p)/n, solved
        // separately.
        let (lo, hi) = wilson(50, 100);
        assert!(
            (lo - 0.403_8).abs() < 1e-4 && (hi - 0.596_2).abs() < 1e-4,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && (hi - 0.277_5).abs() < 1e-4, "{lo} {hi}");
        let (lo, hi) = wilson(81, 263);
        assert!(
            (lo - 0.255_29).abs() < 1e-5 && (hi - 0.366_21).abs() < 1e-5,
            "{lo} {hi}"
        );

        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn normal_cdf_matches_reference_values() {
        assert_eq!(normal_cdf(0.0), 0.5);
        assert!((normal_cdf(1.959964) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-3.0) - 0.001_349_898).abs() < 1e-6);
        assert!((normal_cdf(1.0) - 0.841_344_746).abs() < 1e-7);
        assert!((normal_cdf(2.5) + normal_cdf(-2.5) - 1.0).abs() < 1e-15);
        // Values from Python's math.erfc; statrs' erfc is good to about 1e-10 relative in the
        // far tail (the hand-written Cody erfc this replaced met 1e-13), ample for p-values.
        assert!((normal_cdf(-0.5) - 0.308_537_538_725_986_9).abs() < 1e-15);
        assert!((normal_cdf(-4.0) / 3.167_124_183_311_996_5e-5 - 1.0).abs() < 1e-9);
        assert!((normal_cdf(-8.0) / 6.220_960_574_271_819e-16 - 1.0).abs() < 1e-9);
        assert_eq!(normal_cdf(-40.0), 0.0);
        assert_eq!(normal_cdf(40.0), 1.0);
        assert!(normal_cdf(f64::NAN).is_nan());
    }

    #[test]
    fn spearman_of_monotone_reversed_and_tied_data() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(spearman(&x, &[2.0, 4.0, 8.0, 16.0, 100.0]), Some(1.0));
        assert_eq!(spearman(&x, &[5.0, 4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        let r = spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 1.0, 2.0, 2.0]).unwrap_or(f64::NAN);
        assert!((r - 0.894_427_191).abs() < 1e-6, "{r}");
    }

    #[test]
    fn spearman_is_none_when_undefined() {
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[4.0, 4.0, 4.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(spearman_p_value(&[1.0, 2.0, 3.0], &[4.0, 4.0, 4.0]), None);
    }

    #[test]
    fn exact_p_value_for_four_perfectly_correlated_points_is_two_in_24() {
        let p = spearman_p_value(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]);
        assert_eq!(p, Some(2.0 / 24.0));
        let p = spearman_p_value(&[1.0, 2.0, 3.0, 4.0], &[40.0, 30.0, 20.0, 10.0]);
        assert_eq!(p, Some(2.0 / 24.0));
    }

    #[test]
    fn exact_p_value_counts_permutations_at_least_as_extreme() {
        // n = 5, rho = 0.9 (one adjacent swap): |rho| ≥ 0.9 for identity, reversal and the 4+4
        // single adjacent swaps of each, i.e. 10 of 120.
        let p = spearman_p_value(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 3.0, 4.0, 5.0]);
        assert_eq!(p, Some(10.0 / 120.0));
        // n = 9 enumerates 9! permutations; no association gives p = 1.
        let x: Vec<f64> = (0..9).map(f64::from).collect();
        let y = [4.0, 0.0, 8.0, 1.0, 7.0, 2.0, 6.0, 3.0, 5.0];
        let r = spearman(&x, &y).unwrap_or(f64::NAN);
        let p = spearman_p_value(&x, &y).unwrap_or(f64::NAN);
        assert!((0.0..=1.0).contains(&p));
        assert!(r.abs() < 0.2 && p > 0.5, "r {r} p {p}");
    }

    #[test]
    fn t_approximation_p_value_matches_independent_python_for_n_20() {
        // Reference: /tmp script, Spearman with average ranks and the two-sided t tail from
        // Simpson integration of the t density (200 000 panels), independent of the
        // incomplete-beta route used here.
        let x: Vec<f64> = (1..=20).map(f64::from).collect();
        let y = [
            7.0, 3.0, 8.0, 1.0, 19.0, 2.0, 17.0, 4.0, 6.0, 10.0, 12.0, 20.0, 11.0, 15.0, 13.0, 9.0,
            14.0, 5.0, 18.0, 16.0,
        ];
        let r = spearman(&x, &y).unwrap_or(f64::NAN);
        assert!((r - 0.454_135_338_345_864_67).abs() < 1e-12, "{r}");
        let p = spearman_p_value(&x, &y).unwrap_or(f64::NAN);
        assert!((p - 0.044_279_104_162_885_94).abs() < 1e-3, "{p}");
        assert!((p - 0.044_279_104_162_885_94).abs() < 1e-8, "{p}");

        // Strong correlation, with a tie in y.
        let y = [
            3.1, 1.2, 4.8, 2.0, 6.5, 5.5, 4.8, 9.0, 7.7, 12.0, 8.8, 10.1, 15.2, 11.0, 9.5, 14.4,
            18.0, 13.3, 16.1, 12.7,
        ];
        let r = spearman(&x, &y).unwrap_or(f64::NAN);
        assert!((r - 0.904_099_349_382_251).abs() < 1e-12, "{r}");
        let p = spearman_p_value(&x, &y).unwrap_or(f64::NAN);
        assert!((p - 4.580_617_130_045_539e-8).abs() < 1e-12, "{p}");
    }

    #[test]
    fn student_t_tail_matches_textbook_critical_values() {
        // t(0.975; 18) = 2.100922, t(0.995; 10) = 3.169273.
        assert!((student_t_two_sided(2.100_922, 18.0) - 0.05).abs() < 1e-6);
        assert!((student_t_two_sided(3.169_273, 10.0) - 0.01).abs() < 1e-6);
        assert_eq!(student_t_two_sided(0.0, 5.0), 1.0);
    }

    #[test]
    fn normal_quantiles_invert_the_cdf() {
        for p in [0.001, 0.025, 0.3, 0.5, 0.9, 0.975, 0.9999] {
            let z = normal_quantile(p);
            assert!((normal_cdf(z) - p).abs() < 1e-6, "{p}: {z}");
        }
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-5);
    }
}
