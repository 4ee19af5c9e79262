//! Fits the verifier's evaluation weights (`revise::evaluate::WEIGHTS`) to Stockfish's
//! evaluations of positions from analysed games (Lichess' `[%eval …]` comments): Texel's
//! method, with a strong engine's evaluation as the target instead of the game's result, which
//! says far more per position.
//!
//! The evaluation is linear in its weights once the game phase is known: each weight's
//! middlegame part counts `phase / 24` of its term, its endgame part `(24 − phase) / 24`, and
//! the piece-square tables are a fixed part. So a position becomes a vector of term counts, and
//! the fit minimises the mean squared difference of the two evaluations mapped to expected
//! scores, `σ(K·ours)` against `σ(K·Stockfish)`, by Adam from the weights in use. Only quiet
//! positions count (not in check, reached by a quiet move, left by a quiet move): the static
//! evaluation is what the search reads at its leaves, after the captures are resolved.

use precedent::pgn::{InputError, Selection, for_each_game};
use precedent::revise::evaluate::{N_TERMS, Terms, Weights, terms};
use rayon::prelude::*;
use shakmaty::{Board, Position};

use crate::fit::in_test_half;

/// Expected-score scale: 400 centipawns of advantage are 10 : 1 odds.
pub const K: f64 = std::f64::consts::LN_10 / 400.0;
/// Evaluations beyond this many centipawns are decided positions; they are left out.
pub const MAX_EVAL: i32 = 1000;

/// One position as the fit sees it: what multiplies each weight (term t's middlegame weight at
/// 2t, its endgame weight at 2t + 1), the fixed part (the piece-square tables), and
/// Stockfish's evaluation (White's side).
#[derive(Clone, Debug)]
pub struct Sample {
    x: [f32; 2 * N_TERMS],
    fixed: f32,
    target: f32,
}

#[derive(Default)]
struct Counts {
    coef: [f64; N_TERMS],
    fixed_mg: f64,
    fixed_eg: f64,
}

impl Terms for Counts {
    fn add(&mut self, t: usize, n100: i32) {
        self.coef[t] += f64::from(n100) / 100.0;
    }
    fn fixed(&mut self, mg: i32, eg: i32) {
        self.fixed_mg += f64::from(mg);
        self.fixed_eg += f64::from(eg);
    }
}

impl Sample {
    /// The sample of `board` with Stockfish's evaluation `target` (centipawns, White's side).
    pub fn new(board: &Board, target: i32) -> Sample {
        let mut counts = Counts::default();
        let phase = f64::from(terms(board, &mut counts));
        let (mg, eg) = (phase / 24.0, (24.0 - phase) / 24.0);
        let mut x = [0f32; 2 * N_TERMS];
        for (t, c) in counts.coef.iter().enumerate() {
            x[2 * t] = (c * mg) as f32;
            x[2 * t + 1] = (c * eg) as f32;
        }
        Sample {
            x,
            fixed: (counts.fixed_mg * mg + counts.fixed_eg * eg) as f32,
            target: target as f32,
        }
    }

    /// The evaluation with `w` (flattened weights) and the fixed part times `fixed`, White's
    /// side.
    pub fn evaluate(&self, w: &[f64; 2 * N_TERMS], fixed: f64) -> f64 {
        fixed * f64::from(self.fixed)
            + self
                .x
                .iter()
                .zip(w)
                .map(|(x, w)| f64::from(*x) * w)
                .sum::<f64>()
    }
}

/// The samples of a PGN input, and how they divide.
pub struct Samples {
    /// Positions to fit on.
    pub fit: Vec<Sample>,
    /// Positions of other games, to check that the fit generalises.
    pub check: Vec<Sample>,
    /// Games read with evaluations.
    pub games: u64,
}

/// Reads quiet positions with Stockfish's evaluation from the games of `pgn` that are not in
/// `fit`'s test half (so that every held-out measurement stays held out), from ply
/// `skip_plies` on, stopping after the game that brings them to `max`. One game in ten goes to
/// the check set.
pub fn collect(pgn: &str, skip_plies: u32, max: usize) -> Result<Samples, InputError> {
    let selection = Selection {
        skip_plies,
        ..Selection::default()
    };
    let mut samples = Samples {
        fit: Vec::new(),
        check: Vec::new(),
        games: 0,
    };
    for_each_game::<InputError>(pgn, &selection, |outcome, visitor, _| {
        let game = visitor.game();
        if outcome.is_err() || in_test_half(game.key) || game.evals.is_empty() {
            return Ok(true);
        }
        samples.games += 1;
        let check = game.key % 10 == 0;
        for m in &game.selected {
            let Some(Some(eval)) = (m.ply as usize)
                .checked_sub(1)
                .and_then(|p| game.evals.get(p))
            else {
                continue;
            };
            let quiet = |mv: &shakmaty::Move| !(mv.is_capture() || mv.is_promotion());
            let quiet_before = m.last.as_ref().is_none_or(quiet);
            if eval.abs() > MAX_EVAL || m.pos.is_check() || !quiet_before || !quiet(&m.mv) {
                continue;
            }
            let sample = Sample::new(m.pos.board(), *eval);
            if check {
                samples.check.push(sample);
            } else {
                samples.fit.push(sample);
            }
        }
        Ok(samples.fit.len() + samples.check.len() < max)
    })?;
    Ok(samples)
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-K * v).exp())
}

/// The mean squared difference of the expected scores (the fixed part times `fixed`).
pub fn loss(samples: &[Sample], w: &[f64; 2 * N_TERMS], fixed: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .par_iter()
        .map(|s| (sigmoid(s.evaluate(w, fixed)) - sigmoid(f64::from(s.target))).powi(2))
        .sum();
    sum / samples.len() as f64
}

/// The loss' gradient in the weights and, last, in the factor on the fixed part.
fn gradient(samples: &[Sample], w: &[f64; 2 * N_TERMS], fixed: f64) -> [f64; 2 * N_TERMS + 1] {
    let n = samples.len().max(1) as f64;
    let mut g = samples
        .par_iter()
        .fold(
            || [0f64; 2 * N_TERMS + 1],
            |mut g, s| {
                let p = sigmoid(s.evaluate(w, fixed));
                let d = 2.0 * (p - sigmoid(f64::from(s.target))) * p * (1.0 - p) * K;
                for (gi, x) in g.iter_mut().zip(&s.x) {
                    *gi += d * f64::from(*x);
                }
                g[2 * N_TERMS] += d * f64::from(s.fixed);
                g
            },
        )
        .reduce(
            || [0f64; 2 * N_TERMS + 1],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        );
    g.iter_mut().for_each(|v| *v /= n);
    g
}

fn flatten(w: &Weights) -> [f64; 2 * N_TERMS] {
    let mut f = [0f64; 2 * N_TERMS];
    for (t, (mg, eg)) in w.iter().enumerate() {
        f[2 * t] = f64::from(*mg);
        f[2 * t + 1] = f64::from(*eg);
    }
    f
}

fn rounded(f: &[f64; 2 * N_TERMS]) -> Weights {
    let mut w = [(0, 0); N_TERMS];
    for (t, pair) in w.iter_mut().enumerate() {
        *pair = (f[2 * t].round() as i32, f[2 * t + 1].round() as i32);
    }
    w
}

/// What a fit found.
pub struct EvalFit {
    /// The fitted weights.
    pub weights: Weights,
    /// Stockfish's centipawns per centipawn of ours: the factor fitted on the fixed part (the
    /// piece-square tables, which stay as they are). The fit is made in Stockfish's units and
    /// the weights are divided by it, so that the evaluation keeps its units (the search's
    /// margins and the move model's loss features are in them): the printed weights with the
    /// tables are the fitted model divided by `scale`.
    pub scale: f64,
    /// Loss of the starting weights on the fitting and the check positions.
    pub before: (f64, f64),
    /// Loss of the fitted model (in Stockfish's units: the fitted weights and factor) on both.
    pub after: (f64, f64),
}

/// Fits the weights from `start`, and a factor on the fixed part from 1, by Adam (`epochs` full
/// passes, step `rate` centipawns for the weights and `rate` / 100 for the factor) to
/// Stockfish's evaluations, then expresses the weights in our units ([`EvalFit::scale`]).
pub fn fit(samples: &Samples, start: &Weights, epochs: usize, rate: f64) -> EvalFit {
    const P: usize = 2 * N_TERMS + 1;
    let w0 = flatten(start);
    let mut params = [0f64; P];
    params[..2 * N_TERMS].copy_from_slice(&w0);
    params[2 * N_TERMS] = 1.0;
    let (mut m, mut v) = ([0f64; P], [0f64; P]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12);
    let split = |p: &[f64; P]| -> ([f64; 2 * N_TERMS], f64) {
        let mut w = [0f64; 2 * N_TERMS];
        w.copy_from_slice(&p[..2 * N_TERMS]);
        (w, p[2 * N_TERMS])
    };
    for step in 1..=epochs {
        let (w, fixed) = split(&params);
        let g = gradient(&samples.fit, &w, fixed);
        for i in 0..P {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(step as i32));
            let vh = v[i] / (1.0 - b2.powi(step as i32));
            let step_size = if i == 2 * N_TERMS { rate / 100.0 } else { rate };
            params[i] -= step_size * mh / (vh.sqrt() + eps);
        }
    }
    let (w, scale) = split(&params);
    EvalFit {
        weights: rounded(&w.map(|x| x / scale)),
        scale,
        before: (loss(&samples.fit, &w0, 1.0), loss(&samples.check, &w0, 1.0)),
        after: (
            loss(&samples.fit, &w, scale),
            loss(&samples.check, &w, scale),
        ),
    }
}

/// The side a sample's evaluation favours agrees with Stockfish's this often (a plain
/// reading of the loss).
pub fn agreement(samples: &[Sample], w: &Weights) -> f64 {
    let f = flatten(w);
    let agree = samples
        .iter()
        .filter(|s| (s.evaluate(&f, 1.0) >= 0.0) == (s.target >= 0.0))
        .count();
    agree as f64 / samples.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use precedent::position::parse_fen;
    use precedent::revise::evaluate::{WEIGHTS, evaluate_with};

    #[test]
    fn a_sample_reproduces_the_evaluation() {
        let w = flatten(&WEIGHTS);
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "3rr1k1/3b1ppp/2nq4/6NQ/8/8/3B1PPP/3RR1K1 w - - 0 1",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4k3/p7/3P4/8/8/8/8/4K3 w - - 0 1",
        ] {
            let board = parse_fen(fen).expect("fen").board().clone();
            let exact = evaluate_with(&board, &WEIGHTS);
            let linear = Sample::new(&board, 0).evaluate(&w, 1.0);
            assert!(
                (linear - f64::from(exact)).abs() <= 1.0,
                "{fen}: {linear} {exact}"
            );
        }
    }

    #[test]
    fn the_fit_moves_a_weight_towards_the_targets() {
        // Positions a pawn up for White (no passed pawn, whose terms would share the gain) that
        // Stockfish calls two pawns up: the fitted pawn is worth more than the start's, and
        // the loss falls.
        let boards: Vec<Board> = [
            "4k3/p7/8/8/8/8/PP6/4K3 w - - 0 1",
            "4k3/1p6/8/8/8/8/1PP5/4K3 w - - 0 1",
            "4k3/pp6/8/8/8/8/PPP5/4K3 w - - 0 1",
        ]
        .iter()
        .map(|f| parse_fen(f).expect("fen").board().clone())
        .collect();
        let samples = Samples {
            fit: boards
                .iter()
                .map(|b| {
                    let now = evaluate_with(b, &WEIGHTS);
                    Sample::new(b, now + 100)
                })
                .collect(),
            check: Vec::new(),
            games: 3,
        };
        let fitted = fit(&samples, &WEIGHTS, 300, 1.0);
        assert!(fitted.after.0 < fitted.before.0, "{:?}", fitted.before);
        assert!(
            fitted.weights[0].1 > WEIGHTS[0].1,
            "{:?}",
            fitted.weights[0]
        );
    }
}
