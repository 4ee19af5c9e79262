//! The player's layer on the generic model, fitted: what each test position's judgement said
//! (the generic model's probabilities, the player's evidence, the move they played) is kept as
//! evidence, and the few weights of [`PlayerWeights`] are chosen on it by a grid search, each
//! player's figure from weights fitted on the other players only.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::eval::EvalError;
use precedent::player::{Player, PlayerEvidence, PlayerWeights, layered};
use precedent::think::Thought;

/// One test position's evidence.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LayerEvidence {
    /// The player.
    pub player: String,
    /// Ply of the position.
    pub ply: u32,
    /// Index of the move the player played among the legal moves (`None`: not among them).
    pub human: Option<usize>,
    /// The generic model's probabilities, as the default style reads it.
    pub generic: Vec<f64>,
    /// The same as fitted to the player (their profile's rating and search weight, or the
    /// median of their ratings), when their profile has either.
    pub fitted: Option<Vec<f64>>,
    /// Per move: the log-share of the player's nearest cases' votes.
    pub knn: Vec<f64>,
    /// Per move: the player's pattern preference.
    pub patterns: Vec<f64>,
    /// Per move: times the player played it in this exact position.
    pub played: Vec<u32>,
}

impl LayerEvidence {
    /// The evidence of a thought of the player's engine; `None` when the move model did not
    /// judge (a single legal move, a search-only style).
    pub fn of(
        t: &Thought,
        player: &Player,
        ply: u32,
        human: shakmaty::Move,
        cfg: &precedent::think::EngineConfig,
    ) -> Option<LayerEvidence> {
        let j = t.by.judgement()?;
        let p = j.player.as_ref()?;
        // The features do not depend on the model's weights: both readings of the generic
        // model come from the same judgement.
        Some(LayerEvidence {
            player: player.profile().name.clone(),
            ply,
            human: j.evidence.moves.iter().position(|m| *m == human),
            generic: cfg.model.probabilities(&j.evidence),
            fitted: player
                .model(&cfg.model)
                .map(|m| m.probabilities(&j.evidence)),
            knn: p.evidence.knn.clone(),
            patterns: p.evidence.patterns.clone(),
            played: p.evidence.played.clone(),
        })
    }

    /// The layered probabilities under `w`.
    pub fn probabilities(&self, w: &PlayerWeights) -> Vec<f64> {
        let prior = match (&self.fitted, w.model) {
            (Some(p), true) => p,
            _ => &self.generic,
        };
        let e = PlayerEvidence {
            knn: self.knn.clone(),
            patterns: self.patterns.clone(),
            played: self.played.clone(),
            seen: self.played.iter().sum(),
        };
        layered(prior, &e, w)
    }
}

/// Writes evidence, a JSON object a line.
pub fn write(path: &Path, evidence: &[LayerEvidence]) -> Result<(), EvalError> {
    let mut text = String::new();
    for e in evidence {
        text.push_str(&serde_json::to_string(e).map_err(|e| EvalError::Other(e.to_string()))?);
        text.push('\n');
    }
    std::fs::write(path, text)
        .map_err(|e| EvalError::Other(format!("{}: cannot write: {e}", path.display())))
}

/// Reads evidence written by [`write`].
pub fn read(path: &Path) -> Result<Vec<LayerEvidence>, EvalError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EvalError::Other(format!("{}: cannot read: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| EvalError::Other(format!("{} line {}: {e}", path.display(), i + 1)))
        })
        .collect()
}

/// How weights do on evidence: the share of positions whose most probable move is the
/// player's, and the mean log-likelihood of the player's moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Score {
    /// Positions scored.
    pub positions: usize,
    /// Move-matching (0..=1).
    pub accuracy: f64,
    /// Mean log-likelihood, nats.
    pub log_likelihood: f64,
}

/// The score of `w` on `evidence`.
pub fn score(evidence: &[&LayerEvidence], w: &PlayerWeights) -> Score {
    let mut matched = 0usize;
    let mut ll = 0.0;
    for e in evidence {
        let p = e.probabilities(w);
        let best = precedent::model::most_probable(&p);
        if let Some(h) = e.human {
            matched += usize::from(best == h);
            ll += p[h].max(1e-6).ln();
        } else {
            ll += 1e-6f64.ln();
        }
    }
    let n = evidence.len().max(1) as f64;
    Score {
        positions: evidence.len(),
        accuracy: matched as f64 / n,
        log_likelihood: ll / n,
    }
}

/// The grid the weights are chosen from.
fn grid() -> Vec<PlayerWeights> {
    let mut out = Vec::new();
    let steps = [0.0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0];
    for model in [false, true] {
        for knn in steps {
            for patterns in steps {
                for book_prior in [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0] {
                    out.push(PlayerWeights {
                        knn,
                        patterns,
                        book_prior,
                        model,
                        ..PlayerWeights::default()
                    });
                }
            }
        }
    }
    out
}

/// The weights of the grid with the best move-matching on `evidence` (log-likelihood breaking
/// ties), and their score.
pub fn fit(evidence: &[&LayerEvidence]) -> (PlayerWeights, Score) {
    use rayon::prelude::*;
    grid()
        .into_par_iter()
        .map(|w| (w, score(evidence, &w)))
        .reduce(
            || (PlayerWeights::default(), Score::default()),
            |a, b| {
                let better = b.1.accuracy > a.1.accuracy
                    || (b.1.accuracy == a.1.accuracy && b.1.log_likelihood > a.1.log_likelihood);
                if better || a.1.positions == 0 { b } else { a }
            },
        )
}

/// A player's score under the weights fitted on the others.
#[derive(Clone, Debug, Serialize)]
pub struct HeldOut {
    /// The player.
    pub player: String,
    /// The weights fitted on the others.
    pub weights: PlayerWeights,
    /// The player's score under them.
    pub fitted: Score,
    /// The player's score under the generic model alone.
    pub generic: Score,
    /// Under the generic model as fitted to the player, nothing else of theirs.
    pub model_only: Score,
}

/// Each player's score under weights fitted on every other player's evidence.
pub fn leave_one_out(evidence: &[LayerEvidence]) -> Vec<HeldOut> {
    let mut players: Vec<&str> = evidence.iter().map(|e| e.player.as_str()).collect();
    players.sort_unstable();
    players.dedup();
    players
        .iter()
        .map(|name| {
            let others: Vec<&LayerEvidence> =
                evidence.iter().filter(|e| e.player != *name).collect();
            let own: Vec<&LayerEvidence> = evidence.iter().filter(|e| e.player == *name).collect();
            let (w, _) = fit(&others);
            let generic = PlayerWeights {
                knn: 0.0,
                patterns: 0.0,
                book_prior: 1e9,
                model: false,
                ..PlayerWeights::default()
            };
            let model_only = PlayerWeights {
                model: true,
                ..generic
            };
            HeldOut {
                player: name.to_string(),
                weights: w,
                fitted: score(&own, &w),
                generic: score(&own, &generic),
                model_only: score(&own, &model_only),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(player: &str, human: usize, played: Vec<u32>) -> LayerEvidence {
        LayerEvidence {
            player: player.into(),
            ply: 12,
            human: Some(human),
            generic: vec![0.6, 0.3, 0.1],
            fitted: None,
            knn: vec![0.0; 3],
            patterns: vec![0.0; 3],
            played,
        }
    }

    #[test]
    fn the_fit_learns_to_trust_the_players_own_moves_when_they_repeat_them() {
        // The player plays the move they played here before, which the generic model ranks
        // second: only weights that let one game outweigh the prior match them.
        let evidence: Vec<LayerEvidence> = (0..20)
            .map(|i| position(if i % 2 == 0 { "a" } else { "b" }, 1, vec![0, 1, 0]))
            .collect();
        let all: Vec<&LayerEvidence> = evidence.iter().collect();
        let (w, s) = fit(&all);
        assert_eq!(s.accuracy, 1.0, "{w:?}");
        assert!(w.book_prior < 1.0 / 0.3, "{w:?}");
        let out = leave_one_out(&evidence);
        assert_eq!(out.len(), 2);
        for h in out {
            assert_eq!(h.fitted.accuracy, 1.0);
            assert_eq!(h.generic.accuracy, 0.0);
        }
    }
}
