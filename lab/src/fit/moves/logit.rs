//! Maximum-likelihood fitting of the move model's linear weights (`precedent fit moves`): a
//! conditional logit (softmax over each position's legal moves), fitted by Newton's method with
//! a small ridge penalty.
//!
//! For position `i` with legal moves `j` and features `x_ij`, `P(j | i) = exp(w·x_ij) / Σ_k
//! exp(w·x_ik)`. The log-likelihood of the moves played is concave in `w`; its gradient is
//! `Σ_i (x_i,played − E_i[x])` and its Hessian `−Σ_i Cov_i[x]`, so Newton's method converges in
//! a handful of steps from `w = 0`.

use nalgebra::{DMatrix, DVector};
use precedent::model::softmax;

/// One fitting example: the features of every legal move and which one was played.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Example {
    /// `features[j]` is the feature vector of legal move `j`.
    pub features: Vec<Vec<f64>>,
    /// Index of the move played.
    pub played: usize,
    /// A fixed score added to each move's (the network's, when the linear weights are fitted
    /// under it); empty: none.
    pub offsets: Vec<f64>,
}

/// What a fit found.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The weights, one per feature.
    pub weights: Vec<f64>,
    /// Their standard errors (from the inverse observed information).
    pub standard_errors: Vec<f64>,
    /// Mean log-likelihood of the played moves at the optimum (nats per position).
    pub mean_log_likelihood: f64,
    /// Newton steps taken.
    pub iterations: usize,
}

/// Why a fit failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// No usable example (every position needs two legal moves or more).
    #[error("no position with two or more legal moves to fit on")]
    NoData,
    /// Examples disagree on the number of features.
    #[error("example {0} has {1} features per move where {2} were expected")]
    Shape(usize, usize, usize),
    /// An example's offsets are not one per move.
    #[error("example {0} has {1} offsets for {2} moves")]
    Offsets(usize, usize, usize),
    /// The played index is not one of the position's moves.
    #[error("example {0}: the played move {1} is not among its {2} moves")]
    Played(usize, usize, usize),
}

/// Softmax probabilities of the moves of one position under `w`.
pub fn probabilities(features: &[Vec<f64>], w: &[f64]) -> Vec<f64> {
    probabilities_with(features, &[], w)
}

/// Softmax probabilities of the moves of one position under `w`, with each move's fixed
/// offset added to its score (`offsets` empty: none).
pub fn probabilities_with(features: &[Vec<f64>], offsets: &[f64], w: &[f64]) -> Vec<f64> {
    let scores: Vec<f64> = features
        .iter()
        .enumerate()
        .map(|(j, x)| {
            x.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() + offsets.get(j).unwrap_or(&0.0)
        })
        .collect();
    softmax(&scores)
}

impl Example {
    /// The probabilities of its moves under `w`.
    pub fn probabilities(&self, w: &[f64]) -> Vec<f64> {
        probabilities_with(&self.features, &self.offsets, w)
    }
}

/// Log-likelihood, gradient and Hessian of the penalised objective at `w` (the penalty pulls
/// towards `prior`).
fn evaluate(
    examples: &[Example],
    w: &[f64],
    ridge: f64,
    prior: &[f64],
) -> (f64, DVector<f64>, DMatrix<f64>) {
    let n = w.len();
    let mut ll = 0.0;
    let mut g: DVector<f64> = DVector::zeros(n);
    let mut h: DMatrix<f64> = DMatrix::zeros(n, n);
    for ex in examples {
        let p = ex.probabilities(w);
        ll += p[ex.played].max(1e-300).ln();
        let mut mean: DVector<f64> = DVector::zeros(n);
        for (x, pj) in ex.features.iter().zip(&p) {
            for (k, v) in x.iter().enumerate() {
                mean[k] += pj * v;
            }
        }
        for (k, v) in ex.features[ex.played].iter().enumerate() {
            g[k] += v - mean[k];
        }
        for (x, pj) in ex.features.iter().zip(&p) {
            if *pj < 1e-12 {
                continue;
            }
            for a in 0..n {
                let da = x[a] - mean[a];
                if da == 0.0 {
                    continue;
                }
                for b in a..n {
                    let v = pj * da * (x[b] - mean[b]);
                    h[(a, b)] -= v;
                }
            }
        }
    }
    for a in 0..n {
        for b in 0..a {
            h[(a, b)] = h[(b, a)];
        }
        h[(a, a)] -= ridge;
        g[a] -= ridge * (w[a] - prior[a]);
    }
    let penalty = 0.5
        * ridge
        * w.iter()
            .zip(prior)
            .map(|(x, p)| (x - p) * (x - p))
            .sum::<f64>();
    (ll - penalty, g, h)
}

/// Fits the weights by Newton's method with step halving, from zero. `ridge` is the L2 penalty
/// (in log-likelihood units per unit weight², over the whole sample); a small value such as 1.0
/// keeps features that never vary, or vary together, finite.
pub fn fit(examples: &[Example], features: usize, ridge: f64) -> Result<Fitted, FitError> {
    fit_towards(examples, &vec![0.0; features], ridge)
}

/// Fits the weights as [`fit`] does, but shrunk towards `prior` instead of zero (and starting
/// from it): a band's model fitted on few positions, pulled towards the model of all bands.
pub fn fit_towards(examples: &[Example], prior: &[f64], ridge: f64) -> Result<Fitted, FitError> {
    let features = prior.len();
    for (i, ex) in examples.iter().enumerate() {
        if ex.played >= ex.features.len() {
            return Err(FitError::Played(i, ex.played, ex.features.len()));
        }
        if let Some(x) = ex.features.iter().find(|x| x.len() != features) {
            return Err(FitError::Shape(i, x.len(), features));
        }
        if !ex.offsets.is_empty() && ex.offsets.len() != ex.features.len() {
            return Err(FitError::Offsets(i, ex.offsets.len(), ex.features.len()));
        }
    }
    let usable: Vec<Example> = examples
        .iter()
        .filter(|e| e.features.len() >= 2)
        .cloned()
        .collect();
    if usable.is_empty() {
        return Err(FitError::NoData);
    }
    let mut w = prior.to_vec();
    let (mut f, mut g, mut h) = evaluate(&usable, &w, ridge, prior);
    let mut iterations = 0;
    for _ in 0..50 {
        iterations += 1;
        let info = -h.clone();
        let Some(chol) = info.cholesky() else { break };
        let step = chol.solve(&g);
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let trial: Vec<f64> = w.iter().zip(step.iter()).map(|(a, s)| a + t * s).collect();
            let (ft, gt, ht) = evaluate(&usable, &trial, ridge, prior);
            if ft >= f - 1e-12 * f.abs().max(1.0) {
                improved = true;
                w = trial;
                (f, g, h) = (ft, gt, ht);
                break;
            }
            t *= 0.5;
        }
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs())) * t;
        if !improved || largest < 1e-7 {
            break;
        }
    }
    let standard_errors = match (-h).try_inverse() {
        Some(inv) => (0..features).map(|k| inv[(k, k)].max(0.0).sqrt()).collect(),
        None => vec![f64::INFINITY; features],
    };
    let ll: f64 = usable
        .iter()
        .map(|e| e.probabilities(&w)[e.played].max(1e-300).ln())
        .sum();
    Ok(Fitted {
        weights: w,
        standard_errors,
        mean_log_likelihood: ll / usable.len() as f64,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Positions of 5–30 moves with two features each, the played move drawn from the model
    /// with the given weights.
    fn synthetic(w: &[f64], n: usize, seed: u64) -> Vec<Example> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let moves = rng.random_range(5..30);
                let features: Vec<Vec<f64>> = (0..moves)
                    .map(|_| (0..w.len()).map(|_| rng.random_range(-1.0..1.0)).collect())
                    .collect();
                let p = probabilities(&features, w);
                let u: f64 = rng.random();
                let mut acc = 0.0;
                let played = p
                    .iter()
                    .position(|q| {
                        acc += q;
                        acc >= u
                    })
                    .unwrap_or(moves - 1);
                Example {
                    features,
                    played,
                    offsets: Vec::new(),
                }
            })
            .collect()
    }

    #[test]
    fn probabilities_sum_to_one_and_follow_the_scores() {
        let features = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![2.0, 2.0]];
        let p = probabilities(&features, &[0.5, -1.0]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // Scores 0.5, -1, -1: the first is most likely, the other two equal.
        assert!(p[0] > p[1] && (p[1] - p[2]).abs() < 1e-12);
        // Huge scores do not overflow.
        let p = softmax(&[1e6, 1e6 - 1.0]);
        assert!((p[0] - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn a_fit_towards_a_prior_moves_from_it_as_far_as_the_data_and_the_ridge_allow() {
        let truth = [1.5, -0.8, 0.3];
        let data = synthetic(&truth, 400, 11);
        let prior = [0.0, 0.0, 2.0];
        let loose = fit_towards(&data, &prior, 1e-3).expect("loose");
        let tight = fit_towards(&data, &prior, 1e6).expect("tight");
        for k in 0..3 {
            assert!(
                (tight.weights[k] - prior[k]).abs() < 0.01,
                "{:?}",
                tight.weights
            );
            assert!(
                (loose.weights[k] - truth[k]).abs() < 0.5,
                "{:?}",
                loose.weights
            );
        }
    }

    #[test]
    fn the_fit_recovers_known_weights() {
        let truth = [1.5, -0.8, 0.3];
        let data = synthetic(&truth, 4000, 7);
        let fitted = fit(&data, 3, 1e-3).expect("fit");
        for (k, (w, t)) in fitted.weights.iter().zip(&truth).enumerate() {
            let se = fitted.standard_errors[k];
            assert!(
                (w - t).abs() < 4.0 * se && se < 0.1,
                "weight {k}: {w} vs {t} (se {se})"
            );
        }
        assert!(fitted.iterations < 20, "{}", fitted.iterations);
        // The truth is at least as likely on its own data as uniform guessing.
        let uniform: f64 = data
            .iter()
            .map(|e| -(e.features.len() as f64).ln())
            .sum::<f64>()
            / data.len() as f64;
        assert!(fitted.mean_log_likelihood > uniform);
    }

    #[test]
    fn bad_examples_are_refused() {
        let ex = Example {
            features: vec![vec![1.0], vec![2.0]],
            played: 2,
            ..Example::default()
        };
        assert_eq!(fit(&[ex], 1, 1.0), Err(FitError::Played(0, 2, 2)));
        let ex = Example {
            features: vec![vec![1.0], vec![2.0, 3.0]],
            played: 0,
            ..Example::default()
        };
        assert!(matches!(fit(&[ex], 1, 1.0), Err(FitError::Shape(0, 2, 1))));
        let lone = Example {
            features: vec![vec![1.0]],
            played: 0,
            ..Example::default()
        };
        assert_eq!(fit(&[lone], 1, 1.0), Err(FitError::NoData));
    }
}
