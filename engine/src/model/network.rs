//! The move model's network: a small neural network that adds to each move's linear score what
//! the linear model cannot say, how the features weigh each other. A move's inputs are its
//! features, the case base's features as gaps to the position's best move (the network sees one
//! move at a time, the gap tells it how the move stands among the others), and the position's
//! context, the imitated players' rating among it (as Maia-2 takes the rating as an input
//! rather than fitting a network per band). One hidden layer of rectified units; the softmax over
//! the legal moves is the linear model's. Fitted by `precedent fit moves` with the linear weights held
//! (the lab's `fit::network`).

use serde::{Deserialize, Serialize};

use super::{Evidence, N_FEATURES, POLICY_FEATURE};

/// Features whose gap to the position's best is an input: the case base's.
const N_GAPS: usize = POLICY_FEATURE + 1;
/// The position's context: rating, ply, value, its size, legal moves, check.
const N_CONTEXT: usize = 6;
/// Inputs of the network for one move.
pub const N_INPUTS: usize = N_FEATURES + N_GAPS + N_CONTEXT;

/// The rating the context is centred on, and its scale (rating points a unit).
const RATING_CENTRE: f64 = 1600.0;
const RATING_SCALE: f64 = 400.0;

/// A fitted network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Network {
    /// The rating of the players it imitates: a level's band plays its own.
    pub rating: f64,
    /// Per input, subtracted before scaling (the fitting sample's mean).
    pub shift: Vec<f64>,
    /// Per input, the divisor (the fitting sample's standard deviation).
    pub scale: Vec<f64>,
    /// Per hidden unit, its weights on the scaled inputs.
    pub hidden: Vec<Vec<f64>>,
    /// Per hidden unit, its bias.
    pub bias: Vec<f64>,
    /// Per hidden unit, its weight in the move's score.
    pub output: Vec<f64>,
}

impl Network {
    /// Whether the shapes fit this build's inputs; the error says what does not.
    pub fn check(&self) -> Result<(), String> {
        let units = self.hidden.len();
        if self.shift.len() != N_INPUTS || self.scale.len() != N_INPUTS {
            return Err(format!(
                "the network has {} inputs where this build has {N_INPUTS}; refit it with `precedent fit moves`",
                self.shift.len()
            ));
        }
        if let Some(row) = self.hidden.iter().find(|r| r.len() != N_INPUTS) {
            return Err(format!(
                "a hidden unit of the network has {} weights where there are {N_INPUTS} inputs",
                row.len()
            ));
        }
        if self.bias.len() != units || self.output.len() != units {
            return Err(format!(
                "the network has {units} hidden units but {} biases and {} output weights",
                self.bias.len(),
                self.output.len()
            ));
        }
        let all = self
            .shift
            .iter()
            .chain(&self.scale)
            .chain(self.hidden.iter().flatten())
            .chain(&self.bias)
            .chain(&self.output)
            .chain(std::iter::once(&self.rating));
        if all.clone().any(|v| !v.is_finite()) || self.scale.iter().any(|s| *s <= 0.0) {
            return Err("the network has a weight that is not finite, or a scale ≤ 0".into());
        }
        Ok(())
    }

    /// The network's score of every move of `evidence`.
    pub fn scores(&self, evidence: &Evidence) -> Vec<f64> {
        inputs(evidence, self.rating)
            .iter()
            .map(|x| self.score(x))
            .collect()
    }

    /// The score of one move's raw inputs.
    pub fn score(&self, x: &[f64; N_INPUTS]) -> f64 {
        let z: Vec<f64> = x
            .iter()
            .zip(self.shift.iter().zip(&self.scale))
            .map(|(v, (m, s))| (v - m) / s)
            .collect();
        self.hidden
            .iter()
            .zip(self.bias.iter().zip(&self.output))
            .map(|(row, (b, o))| {
                let a = row.iter().zip(&z).map(|(w, v)| w * v).sum::<f64>() + b;
                o * a.max(0.0)
            })
            .sum()
    }
}

/// Every move's raw inputs: its features, the case base's features less the position's largest,
/// and the context (`rating`, the players imitated).
pub fn inputs(evidence: &Evidence, rating: f64) -> Vec<[f64; N_INPUTS]> {
    let mut best = [f64::NEG_INFINITY; N_GAPS];
    for x in &evidence.features {
        for (b, v) in best.iter_mut().zip(x) {
            *b = b.max(*v);
        }
    }
    let c = &evidence.context;
    let value = f64::from(c.value.unwrap_or(0).clamp(-1500, 1500)) / 400.0;
    let context = [
        (rating - RATING_CENTRE) / RATING_SCALE,
        f64::from(c.ply.min(120)) / 60.0,
        value,
        value.abs(),
        c.legal as f64 / 40.0,
        f64::from(u8::from(c.check)),
    ];
    evidence
        .features
        .iter()
        .map(|x| {
            let mut v = [0.0; N_INPUTS];
            v[..N_FEATURES].copy_from_slice(x);
            for k in 0..N_GAPS {
                v[N_FEATURES + k] = x[k] - best[k];
            }
            v[N_FEATURES + N_GAPS..].copy_from_slice(&context);
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Context;

    fn network(units: usize) -> Network {
        Network {
            rating: 1600.0,
            shift: vec![0.0; N_INPUTS],
            scale: vec![1.0; N_INPUTS],
            hidden: vec![vec![0.0; N_INPUTS]; units],
            bias: vec![0.0; units],
            output: vec![0.0; units],
        }
    }

    #[test]
    fn gaps_and_context_reach_the_inputs() {
        let mut a = [0.0; N_FEATURES];
        let mut b = [0.0; N_FEATURES];
        a[0] = 2.0;
        b[0] = -1.0;
        let e = Evidence {
            moves: Vec::new(),
            features: vec![a, b],
            context: Context {
                ply: 30,
                legal: 2,
                check: true,
                value: Some(-800),
            },
        };
        let x = inputs(&e, 2000.0);
        assert_eq!(x[0][N_FEATURES], 0.0, "the best move's gap is 0");
        assert_eq!(x[1][N_FEATURES], -3.0);
        let ctx = &x[0][N_FEATURES + N_GAPS..];
        assert_eq!(ctx, &[1.0, 0.5, -2.0, 2.0, 0.05, 1.0]);
    }

    #[test]
    fn a_unit_adds_its_rectified_sum() {
        let mut n = network(2);
        n.hidden[0][0] = 1.0;
        n.output[0] = 2.0;
        n.hidden[1][0] = -1.0;
        n.output[1] = 5.0;
        let mut x = [0.0; N_INPUTS];
        x[0] = 1.5;
        // Unit 0: 1.5 → 3.0; unit 1: -1.5 → rectified to 0.
        assert_eq!(n.score(&x), 3.0);
        assert!(n.check().is_ok());
        n.bias.pop();
        assert!(n.check().unwrap_err().contains("biases"));
        let mut n = network(1);
        n.shift.pop();
        assert!(n.check().unwrap_err().contains("inputs"));
    }
}
