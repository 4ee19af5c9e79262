//! The move model: a probability for every legal move, from what the cases say and what the
//! search says.
//!
//! Each legal move gets a vector of features (its [`Evidence`]):
//! - **Reuse** (the case base): for every pattern family, the log of how much more (or less)
//!   often the case base's players played moves of this move's pattern than moves in general,
//!   estimated from the case base's pattern counts and shrunk towards the coarser family's
//!   estimate when the counts are few; for every family, the pattern's *strength*: the log of
//!   its Bradley–Terry strength, fitted when the case base is built so that the strengths of a
//!   move's eight patterns together explain which move of each case's position was played
//!   (Coulom's generalised Bradley–Terry model, fitted by minorisation–maximisation); the share
//!   of the nearest cases' votes the move received (the thesis' reuse step); and how often it
//!   was played in this exact position (position index, transpositions included).
//! - **Revise** (the search): how much worse the move looked than the best move after one,
//!   two, three and four plies and at the deepest completed iteration, in pawns, capped, with
//!   the square root and two hinges of the last one (humans are drawn to moves that look good
//!   shallowly, and forgive small losses far more than large ones); and whether it was the
//!   best move at those depths.
//!
//! The model is a conditional logit: `P(m) ∝ exp(w · x_m)` over the legal moves. Its weights
//! are fitted by maximum likelihood (the lab's `precedent fit moves`, `lab/src/fit/moves/logit.rs`) on
//! positions from games that are in neither the case base nor the test set. Everything learned from games (counts, votes, exact positions) is
//! in the case base; only the 29 weights are in the parameter file.

mod moves;
pub mod network;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, FromSetup, Move, Position};

use crate::casebase::patterns::{FAMILIES, Family, MoveContext, PatternTable, move_patterns};
use crate::casebase::{CaseBase, Without};
use crate::search::{Iteration, MATE_BOUND};

/// The features, in the order of every evidence vector: what the case base says (its pattern
/// families, the nearest cases' vote, the exact position, its policy), what the move is (its
/// piece, what it takes, where it goes, what stands there), and what the search says.
pub const FEATURES: [&str; N_FEATURES] = [
    "pattern_move",
    "pattern_to_ring",
    "pattern_from_ring",
    "pattern_tactic",
    "pattern_reply",
    "pattern_phase",
    "pattern_threat",
    "pattern_mobility",
    "strength_move",
    "strength_to_ring",
    "strength_from_ring",
    "strength_tactic",
    "strength_reply",
    "strength_phase",
    "strength_threat",
    "strength_mobility",
    "knn_vote",
    "exact",
    "policy",
    "capture_value",
    "gives_check",
    "recapture",
    "escape",
    "from_hanging",
    "to_attacked",
    "to_defended",
    "see",
    "advance",
    "rank",
    "distance",
    "piece_value",
    "castle",
    "promotion",
    "pawn",
    "knight",
    "bishop",
    "rook",
    "queen",
    "king",
    "loss_1",
    "loss_2",
    "loss_3",
    "loss_4",
    "loss_last",
    "sqrt_loss_last",
    "hinge_loss_last_50",
    "hinge_loss_last_150",
    "best_1",
    "best_2",
    "best_last",
];

/// Number of features.
pub const N_FEATURES: usize = 50;

/// Index of the policy feature, the last of the case base's.
pub(crate) const POLICY_FEATURE: usize = 2 * FAMILIES + 2;

/// Index of the first of the move's own features (what it is, not what the cases or the search
/// say of it).
pub const FIRST_MOVE_FEATURE: usize = POLICY_FEATURE + 1;

/// Index of the first search feature: the case base's and the move's own come before it.
pub const FIRST_SEARCH_FEATURE: usize = FIRST_MOVE_FEATURE + N_MOVE_FEATURES;

/// Number of the move's own features.
const N_MOVE_FEATURES: usize = 20;
const _: () = assert!(matches!(
    FEATURES[FIRST_SEARCH_FEATURE].as_bytes(),
    b"loss_1"
));
const _: () = assert!(matches!(
    FEATURES[FIRST_MOVE_FEATURE].as_bytes(),
    b"capture_value"
));

/// Index of `loss_2`: the move's loss after two plies, in pawns.
pub(crate) const LOSS_2_FEATURE: usize = FIRST_SEARCH_FEATURE + 1;
const _: () = assert!(matches!(FEATURES[LOSS_2_FEATURE].as_bytes(), b"loss_2"));

/// Index of `loss_last`: the move's loss at the search's last iteration, in pawns.
pub const LOSS_LAST_FEATURE: usize = FIRST_SEARCH_FEATURE + 4;
const _: () = assert!(matches!(
    FEATURES[LOSS_LAST_FEATURE].as_bytes(),
    b"loss_last"
));

/// Index of the first pattern-strength feature.
pub(crate) const STRENGTH_FEATURE: usize = FAMILIES;
/// Index of the vote feature.
pub(crate) const KNN_FEATURE: usize = 2 * FAMILIES;
/// Index of the exact-position feature.
pub(crate) const EXACT_FEATURE: usize = 2 * FAMILIES + 1;

/// Value losses are capped here (centipawns): beyond it a move is simply bad.
pub(crate) const LOSS_CAP: i32 = 1000;

/// The features of every legal move of a position, and what the position itself is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    /// The legal moves, in the position's own orientation.
    pub moves: Vec<Move>,
    /// `features[j]` belongs to `moves[j]`, in [`FEATURES`] order.
    pub features: Vec<[f64; N_FEATURES]>,
    /// The position's context, which the network reads beside each move's features.
    pub context: Context,
}

/// What a position is, beside its moves: the same for all of them, so it changes the model's
/// probabilities only through the network, where it weighs the moves' features differently
/// (a player who is lost, in check, or in the endgame chooses differently).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Context {
    /// Plies played before the position.
    pub ply: u32,
    /// Legal moves.
    pub legal: usize,
    /// Whether the mover is in check.
    pub check: bool,
    /// The search's value of the position (its best move's, centipawns from the mover's side),
    /// if it completed an iteration.
    pub value: Option<i32>,
}

/// How pattern counts become features.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Smoothing {
    /// Pseudo-count of the shrinkage towards the parent family's estimate.
    pub alpha: f64,
}

impl Default for Smoothing {
    fn default() -> Smoothing {
        Smoothing { alpha: 3.0 }
    }
}

/// The model's weights, by feature name (missing names weigh 0), and its network.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// Feature weights.
    pub weights: BTreeMap<String, f64>,
    /// Pattern smoothing.
    pub smoothing: Smoothing,
    /// The network that adds to the linear score (`None`: the linear model alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<network::Network>,
}

impl ModelConfig {
    /// The weights as a vector in [`FEATURES`] order.
    pub fn vector(&self) -> [f64; N_FEATURES] {
        FEATURES.map(|name| self.weights.get(name).copied().unwrap_or(0.0))
    }

    /// A configuration with these weights (in [`FEATURES`] order): every feature has its
    /// weight, zero ones too, as a parameter file must list them.
    pub fn from_vector(w: &[f64], smoothing: Smoothing) -> ModelConfig {
        ModelConfig {
            weights: FEATURES
                .iter()
                .zip(w)
                .map(|(n, v)| (n.to_string(), *v))
                .collect(),
            smoothing,
            network: None,
        }
    }

    /// Whether nothing of it is given (no weight, smoothing or network set): a level that
    /// reads no model has none.
    pub fn is_unset(&self) -> bool {
        *self == ModelConfig::default()
    }

    /// Whether any weight is set (an empty model leaves the choice to the search and the vote).
    pub fn is_empty(&self) -> bool {
        self.weights.values().all(|w| *w == 0.0)
    }

    /// The score of each move of `evidence`: the linear score, plus the network's.
    pub fn scores(&self, evidence: &Evidence) -> Vec<f64> {
        let w = self.vector();
        let mut scores: Vec<f64> = evidence
            .features
            .iter()
            .map(|x| x.iter().zip(&w).map(|(a, b)| a * b).sum())
            .collect();
        if let Some(net) = &self.network {
            for (s, n) in scores.iter_mut().zip(net.scores(evidence)) {
                *s += n;
            }
        }
        scores
    }

    /// The same model with its network read at `rating` (the players imitated).
    pub fn at_rating(&self, rating: f64) -> ModelConfig {
        let mut model = self.clone();
        if let Some(net) = &mut model.network {
            net.rating = rating;
        }
        model
    }

    /// The same model with the search features' linear weights times `factor` (a level's or a
    /// player's search weight: how much the search's verdict sways their choice).
    pub fn with_search_weight(self, factor: f64) -> ModelConfig {
        self.scaled(&FEATURES[FIRST_SEARCH_FEATURE..], factor)
    }

    /// The same model with the case base's features' linear weights times `factor` (a player's
    /// cases weight: how much the crowd's habits sway their choice).
    pub fn with_cases_weight(self, factor: f64) -> ModelConfig {
        self.scaled(&FEATURES[..FIRST_MOVE_FEATURE], factor)
    }

    /// The weights of the features `names` times `factor`.
    fn scaled(mut self, names: &[&str], factor: f64) -> ModelConfig {
        if factor != 1.0 {
            for (name, w) in self.weights.iter_mut() {
                if names.contains(&name.as_str()) {
                    *w *= factor;
                }
            }
        }
        self
    }

    /// The probability of each move of `evidence`.
    pub fn probabilities(&self, evidence: &Evidence) -> Vec<f64> {
        softmax(&self.scores(evidence))
    }
}

/// The softmax of scores (stable: the largest is subtracted first): the model's probabilities,
/// and the lab's fitting of its weights.
pub fn softmax(scores: &[f64]) -> Vec<f64> {
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return vec![1.0 / scores.len().max(1) as f64; scores.len()];
    }
    let exp: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

/// Probabilities `p` at a temperature: ∝ p^(1/temperature), normalised (all zero when no move
/// has a positive probability). The [`softmax`] of ln(p)/temperature, which subtracts the most
/// probable move's score first, so that a cold temperature does not underflow: 0.4^1000 is 0
/// in floating point, (0.4/0.4)^1000 is 1.
pub fn tempered(p: &[f64], temperature: f64) -> Vec<f64> {
    if !p.iter().any(|q| *q > 0.0) {
        return vec![0.0; p.len()];
    }
    let scores: Vec<f64> = p.iter().map(|q| q.ln() / temperature).collect();
    softmax(&scores)
}

/// The index of the most probable move (the last of equals; 0 without moves): the move of the
/// `imitate` style.
pub fn most_probable(p: &[f64]) -> usize {
    p.iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i)
}

/// The position as the case base sees it: White to move (mirrored when Black is to move), and
/// for every legal move of `pos` the index of its image among the mirrored position's moves.
pub(crate) fn mover_view(pos: &Chess) -> Option<(Chess, Vec<Move>)> {
    let legal = pos.legal_moves();
    if pos.turn() == Color::White {
        return Some((pos.clone(), legal.into_iter().collect()));
    }
    let setup = pos.to_setup(shakmaty::EnPassantMode::Legal).into_mirrored();
    let mirrored = Chess::from_setup(setup, shakmaty::CastlingMode::Chess960).ok()?;
    let image: Vec<Move> = legal.iter().map(mirror_move).collect();
    Some((mirrored, image))
}

/// A move seen from the other side (ranks flipped).
fn mirror_move(m: &Move) -> Move {
    match *m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => Move::Normal {
            role,
            from: from.flip_vertical(),
            capture,
            to: to.flip_vertical(),
            promotion,
        },
        Move::EnPassant { from, to } => Move::EnPassant {
            from: from.flip_vertical(),
            to: to.flip_vertical(),
        },
        Move::Castle { king, rook } => Move::Castle {
            king: king.flip_vertical(),
            rook: rook.flip_vertical(),
        },
        Move::Put { role, to } => Move::Put {
            role,
            to: to.flip_vertical(),
        },
    }
}

/// The case-base features of one move's keys, per family: the log-ratio of the smoothed play
/// rate of its pattern to the base rate (each family shrunk towards its parent), and the
/// pattern's fitted log-strength.
fn pattern_features(
    table: &PatternTable<'_>,
    keys: &[u64; FAMILIES],
    base: f64,
    alpha: f64,
) -> ([f64; FAMILIES], [f64; FAMILIES]) {
    let mut rate = [base; FAMILIES];
    let mut strength = [0.0; FAMILIES];
    // Parents come before their children in Family::ALL.
    for f in Family::ALL {
        let prior = f.parent().map_or(base, |p| rate[p.index()]);
        let (played, available, s) = table.lookup(keys[f.index()]);
        rate[f.index()] = (f64::from(played) + alpha * prior) / (f64::from(available) + alpha);
        strength[f.index()] = f64::from(s);
    }
    (rate.map(|r| (r.max(1e-9) / base).ln()), strength)
}

/// The search's value losses of each move: (loss after 1, 2, 3, 4 plies, at the last
/// iteration), capped at [`LOSS_CAP`], `None` when the search completed no iteration; a depth
/// not reached reads as the last one. `iterations` hold the values of `moves` in order.
fn losses(iterations: &[Iteration], n: usize) -> Option<Vec<[i32; 5]>> {
    let last = iterations.last()?;
    let clamp = |v: i32| v.clamp(-MATE_BOUND, MATE_BOUND);
    // The iterations read (depths 1-4, a depth not reached reading as the last one, and the
    // last), each with its best exact value.
    let read: [(&Iteration, i32); 5] = [1, 2, 3, 4, usize::MAX].map(|d| {
        let it = iterations.get(d.min(iterations.len()) - 1).unwrap_or(last);
        let best = it.values.iter().filter(|v| v.1).map(|v| v.0).max();
        (it, clamp(best.unwrap_or(0)))
    });
    Some(
        (0..n)
            .map(|j| read.map(|(it, best)| (best - clamp(it.values[j].0)).clamp(0, LOSS_CAP)))
            .collect(),
    )
}

/// The base rate of a case base's patterns: one move played per position among its legal
/// moves (about 1/30 in practice, the fallback for a case base without counts).
pub(crate) fn base_rate(table: &PatternTable<'_>) -> f64 {
    let (played, available) = table.totals(Family::Move);
    if available > 0 && played > 0 {
        played as f64 / available as f64
    } else {
        1.0 / 30.0
    }
}

/// Gathers the evidence for every legal move of `pos`: the case base's patterns and exact
/// positions (less the moves `without` leaves out), the nearest cases' votes (`votes`: each voted move's share), and the search's
/// iterations (`search`: the
/// root moves in the order their values are given, and the iterations).
pub fn evidence(
    cb: &CaseBase,
    without: Option<&Without>,
    pos: &Chess,
    ctx: MoveContext,
    votes: Option<&[(Move, f64)]>,
    search: Option<(&[Move], &[Iteration])>,
    smoothing: Smoothing,
) -> Evidence {
    let Some((view, images)) = mover_view(pos) else {
        return Evidence::default();
    };
    let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut patterns = Vec::with_capacity(legal.len());
    move_patterns(&view, ctx, &mut patterns);
    let table = cb.patterns();
    let base = base_rate(&table);
    let exact = cb.exact_moves_without(&view, without);
    let exact_total: u32 = exact.iter().map(|e| e.1).sum();
    let policy = cb.policy();
    let mut inputs = Vec::new();
    if !policy.is_empty() {
        crate::casebase::policy::inputs(&view, ctx.last, &mut inputs);
    }
    let search_losses = search.and_then(|(moves, its)| {
        let l = losses(its, moves.len())?;
        Some((moves, l))
    });
    let mut features = Vec::with_capacity(legal.len());
    for (m, image) in legal.iter().zip(&images) {
        let mut x = [0.0; N_FEATURES];
        if let Some((_, keys)) = patterns.iter().find(|(pm, _)| pm == image) {
            let (ratios, strengths) = pattern_features(&table, keys, base, smoothing.alpha);
            x[..FAMILIES].copy_from_slice(&ratios);
            x[STRENGTH_FEATURE..STRENGTH_FEATURE + FAMILIES].copy_from_slice(&strengths);
        }
        if !policy.is_empty() {
            let key = crate::casebase::policy::move_key(image);
            x[POLICY_FEATURE] = f64::from(policy.score(key, &inputs));
        }
        x[FIRST_MOVE_FEATURE..FIRST_SEARCH_FEATURE]
            .copy_from_slice(&moves::describe(&view, image, ctx.last));
        if let Some(v) = votes {
            let share = v.iter().find(|c| c.0 == *m).map_or(0.0, |c| c.1);
            x[KNN_FEATURE] = (share + 0.01).ln() - 0.01f64.ln();
        }
        if exact_total > 0 {
            let code = crate::case::CaseMove::from_move(*image, Color::White);
            let n = exact.iter().find(|e| Some(e.0) == code).map_or(0, |e| e.1);
            x[EXACT_FEATURE] = ((f64::from(n) + 0.5) / (f64::from(exact_total) + 1.0)).ln()
                - (0.5 / (f64::from(exact_total) + 1.0)).ln();
        }
        if let Some((moves, l)) = &search_losses
            && let Some(j) = moves.iter().position(|r| r == m)
        {
            let [l1, l2, l3, l4, last] = l[j].map(|v| f64::from(v) / 100.0);
            let s = FIRST_SEARCH_FEATURE;
            x[s] = l1;
            x[s + 1] = l2;
            x[s + 2] = l3;
            x[s + 3] = l4;
            x[s + 4] = last;
            x[s + 5] = last.sqrt();
            x[s + 6] = (last - 0.5).max(0.0);
            x[s + 7] = (last - 1.5).max(0.0);
            x[s + 8] = f64::from(u8::from(l[j][0] == 0));
            x[s + 9] = f64::from(u8::from(l[j][1] == 0));
            x[s + 10] = f64::from(u8::from(l[j][4] == 0));
        }
        features.push(x);
    }
    let value = search.and_then(|(_, its)| {
        let last = its.last()?;
        last.values.iter().filter(|v| v.1).map(|v| v.0).max()
    });
    Evidence {
        context: Context {
            ply: ctx.ply,
            legal: legal.len(),
            check: pos.is_check(),
            value,
        },
        moves: legal,
        features,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_names_are_unique_and_counted() {
        let mut names = FEATURES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), N_FEATURES);
        assert!(FEATURES[FIRST_SEARCH_FEATURE].starts_with("loss"));
    }

    #[test]
    fn weights_round_trip_through_names() {
        let w: Vec<f64> = (0..N_FEATURES).map(|i| i as f64 * 0.5).collect();
        let cfg = ModelConfig::from_vector(&w, Smoothing::default());
        assert_eq!(cfg.vector().to_vec(), w);
        assert!(!cfg.is_empty() && ModelConfig::default().is_empty());
    }

    #[test]
    fn tempered_probabilities_sharpen_and_flatten_without_underflow() {
        let p = [0.3, 0.4, 0.3];
        let same = tempered(&p, 1.0);
        assert!(same.iter().zip(&p).all(|(a, b)| (a - b).abs() < 1e-12));
        // At 0.001 every 0.3^1000 and 0.4^1000 underflows; relative to the top they do not.
        let cold = tempered(&p, 0.001);
        assert!(
            cold[1] == 1.0 && cold[0] < 1e-100 && cold[2] < 1e-100,
            "{cold:?}"
        );
        let hot = tempered(&p, 1000.0);
        assert!(hot.iter().all(|q| (q - 1.0 / 3.0).abs() < 1e-3), "{hot:?}");
        assert_eq!(tempered(&[0.0, 0.0], 0.5), [0.0, 0.0]);
    }

    #[test]
    fn mirrored_moves_map_back() {
        let pos = crate::position::parse_fen(
            "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 8",
        )
        .expect("fen");
        let (view, images) = mover_view(&pos).expect("mirrors");
        assert_eq!(view.turn(), Color::White);
        let legal_view = view.legal_moves();
        assert_eq!(images.len(), legal_view.len());
        for image in &images {
            assert!(legal_view.contains(image), "{image:?}");
        }
    }
}
