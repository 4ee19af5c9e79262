//! Fits the verifier's evaluation as a whole, the weighted terms (`revise::evaluate::WEIGHTS`)
//! and the piece-square tables together, to Stockfish's evaluations of positions from analysed
//! games (Lichess' `[%eval …]` comments): Texel's method, with a strong engine's evaluation as
//! the target instead of the game's result, which says far more per position.
//!
//! The evaluation is linear in its parameters once the game phase is known: each weight's (and
//! table entry's) middlegame part counts `phase / 24` of its term, its endgame part
//! `(24 − phase) / 24`. So a position becomes a vector of term counts and a list of its pieces'
//! table entries, and the fit minimises the mean squared difference of the two evaluations
//! mapped to expected scores, `σ(K·ours)` against `σ(K·Stockfish)`, plus a pull of the tables
//! towards where they started (a table entry that few positions see stays put; material and the
//! tables' level are otherwise the same thing), by Adam from the evaluation in use. Only quiet
//! positions count (not in check, reached by a quiet move, left by a quiet move): the static
//! evaluation is what the search reads at its leaves, after the captures are resolved.
//!
//! Units: first the factor that best maps the evaluation in use onto Stockfish's is found
//! ([`EvalFit::scale`], Texel's K), then the parameters are fitted with it held, so that they
//! stay in our units: the search's margins and the move model's loss features are in them.

mod run;

pub use run::{EvalFitArgs, EvalFitError, EvalFitReport, run};

use precedent::pgn::{InputError, Selection, for_each_game};
use precedent::search::evaluate::{N_TERMS, TABLE_ENTRIES, Terms, Weights, table_entry, terms};
use rayon::prelude::*;
use shakmaty::{Board, Position};

use super::quiet::{self, K, quiet_eval};
use crate::positions::in_test_half;

/// Evaluations beyond this many centipawns are decided positions; they are left out.
pub const MAX_EVAL: i32 = 1000;

/// The fitted parameters: the terms' weights (term t's middlegame weight at 2t, endgame at
/// 2t + 1), then the table entries' (entry e's at 2·(2·N_TERMS/2 + e) …: see [`TABLE_AT`]).
pub const PARAMS: usize = 2 * N_TERMS + 2 * TABLE_ENTRIES;
/// Where the table entries start among the [`PARAMS`].
pub const TABLE_AT: usize = 2 * N_TERMS;

/// The evaluation's parameters as one vector.
pub type Params = [f64; PARAMS];

/// The tables of an evaluation, indexed as `evaluate::table_entry`.
pub type Tables = [(i32, i32); TABLE_ENTRIES];

/// One position as the fit sees it: what multiplies each term's weights, its pieces' table
/// entries (with their sign), the phase's shares, and Stockfish's evaluation (White's side).
#[derive(Clone, Debug)]
pub struct Sample {
    x: [f32; 2 * N_TERMS],
    pieces: [(u16, i8); 32],
    n_pieces: u8,
    mg: f32,
    eg: f32,
    target: f32,
}

#[derive(Default)]
struct Counts {
    coef: [f64; N_TERMS],
    pieces: Vec<(u16, i8)>,
}

impl Terms for Counts {
    fn add(&mut self, t: usize, n100: i32) {
        self.coef[t] += f64::from(n100) / 100.0;
    }
    fn piece(&mut self, color: usize, role: usize, square: usize) {
        let (e, sign) = table_entry(color, role, square);
        self.pieces.push((e as u16, sign as i8));
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
        let mut pieces = [(0u16, 0i8); 32];
        let n = counts.pieces.len().min(32);
        pieces[..n].copy_from_slice(&counts.pieces[..n]);
        Sample {
            x,
            pieces,
            n_pieces: n as u8,
            mg: mg as f32,
            eg: eg as f32,
            target: target as f32,
        }
    }

    fn pieces(&self) -> &[(u16, i8)] {
        &self.pieces[..usize::from(self.n_pieces)]
    }

    /// The evaluation with parameters `w`, White's side.
    pub fn evaluate(&self, w: &Params) -> f64 {
        let terms: f64 = self.x.iter().zip(w).map(|(x, w)| f64::from(*x) * w).sum();
        let (mg, eg) = (f64::from(self.mg), f64::from(self.eg));
        let tables: f64 = self
            .pieces()
            .iter()
            .map(|&(e, sign)| {
                let at = TABLE_AT + 2 * usize::from(e);
                f64::from(sign) * (mg * w[at] + eg * w[at + 1])
            })
            .sum();
        terms + tables
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
            let Some(eval) = quiet_eval(m, &game.evals, MAX_EVAL) else {
                continue;
            };
            let sample = Sample::new(m.pos.board(), eval);
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
    quiet::sigmoid(K * v)
}

/// The mean squared difference of the expected scores, our evaluation times `scale` against
/// Stockfish's.
pub fn loss(samples: &[Sample], w: &Params, scale: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .par_iter()
        .map(|s| (sigmoid(scale * s.evaluate(w)) - sigmoid(f64::from(s.target))).powi(2))
        .sum();
    sum / samples.len() as f64
}

/// The factor in [0.25, 4] that minimises the loss of `w` (golden-section search).
fn best_scale(samples: &[Sample], w: &Params) -> f64 {
    let (mut lo, mut hi) = (0.25f64, 4.0f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if loss(samples, w, a) <= loss(samples, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// The loss' gradient in the parameters.
fn gradient(samples: &[Sample], w: &Params, scale: f64) -> Vec<f64> {
    let n = samples.len().max(1) as f64;
    let mut g = samples
        .par_iter()
        .fold(
            || vec![0f64; PARAMS],
            |mut g, s| {
                let p = sigmoid(scale * s.evaluate(w));
                let d = 2.0 * (p - sigmoid(f64::from(s.target))) * p * (1.0 - p) * K * scale;
                for (gi, x) in g.iter_mut().zip(&s.x) {
                    *gi += d * f64::from(*x);
                }
                let (mg, eg) = (d * f64::from(s.mg), d * f64::from(s.eg));
                for &(e, sign) in s.pieces() {
                    let at = TABLE_AT + 2 * usize::from(e);
                    g[at] += f64::from(sign) * mg;
                    g[at + 1] += f64::from(sign) * eg;
                }
                g
            },
        )
        .reduce(
            || vec![0f64; PARAMS],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        );
    g.iter_mut().for_each(|v| *v /= n);
    g
}

/// The parameters of `weights` and `tables` as one vector.
pub fn flatten(weights: &Weights, tables: &Tables) -> Params {
    let mut f = [0f64; PARAMS];
    for (t, (mg, eg)) in weights.iter().enumerate() {
        f[2 * t] = f64::from(*mg);
        f[2 * t + 1] = f64::from(*eg);
    }
    for (e, (mg, eg)) in tables.iter().enumerate() {
        f[TABLE_AT + 2 * e] = f64::from(*mg);
        f[TABLE_AT + 2 * e + 1] = f64::from(*eg);
    }
    f
}

/// The weights and tables of a parameter vector, rounded to centipawns.
pub fn unflatten(f: &Params) -> (Weights, Tables) {
    let mut w = [(0, 0); N_TERMS];
    for (t, pair) in w.iter_mut().enumerate() {
        *pair = (f[2 * t].round() as i32, f[2 * t + 1].round() as i32);
    }
    let mut tables = [(0, 0); TABLE_ENTRIES];
    for (e, pair) in tables.iter_mut().enumerate() {
        *pair = (
            f[TABLE_AT + 2 * e].round() as i32,
            f[TABLE_AT + 2 * e + 1].round() as i32,
        );
    }
    (w, tables)
}

/// What a fit found.
#[derive(Clone, Debug)]
pub struct EvalFit {
    /// The fitted weights, in our units.
    pub weights: Weights,
    /// The fitted tables, in our units.
    pub tables: Tables,
    /// Stockfish's centipawns per centipawn of ours: the factor that best maps the starting
    /// evaluation onto Stockfish's, held during the fit.
    pub scale: f64,
    /// Loss of the starting evaluation on the fitting and the check positions.
    pub before: (f64, f64),
    /// Loss of the fitted evaluation on both.
    pub after: (f64, f64),
}

/// How the fit runs.
#[derive(Clone, Copy, Debug)]
pub struct FitSettings {
    /// Full passes of Adam.
    pub epochs: usize,
    /// Adam's step, centipawns.
    pub rate: f64,
    /// The pull of each table entry towards its start: this times the squared distance in
    /// pawns (hundreds of centipawns), summed over the entries, is added to the loss.
    pub pull: f64,
    /// Fit the tables too (otherwise only the terms' weights move).
    pub tables: bool,
    /// The units' factor ([`EvalFit::scale`]); `None`: fitted first.
    pub scale: Option<f64>,
}

/// Fits the evaluation from `weights` and `tables` by Adam to Stockfish's evaluations, in our
/// units ([`EvalFit::scale`]).
pub fn fit(samples: &Samples, weights: &Weights, tables: &Tables, how: FitSettings) -> EvalFit {
    let w0 = flatten(weights, tables);
    let scale = how.scale.unwrap_or_else(|| best_scale(&samples.fit, &w0));
    let mut params = w0;
    let (mut m, mut v) = (vec![0f64; PARAMS], vec![0f64; PARAMS]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12);
    let moving = if how.tables { PARAMS } else { TABLE_AT };
    for step in 1..=how.epochs {
        let mut g = gradient(&samples.fit, &params, scale);
        for i in TABLE_AT..PARAMS {
            g[i] += 2.0 * how.pull * (params[i] - w0[i]) / 1e4;
        }
        for i in 0..moving {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(step as i32));
            let vh = v[i] / (1.0 - b2.powi(step as i32));
            params[i] -= how.rate * mh / (vh.sqrt() + eps);
        }
    }
    let (weights, tables) = unflatten(&params);
    EvalFit {
        weights,
        tables,
        scale,
        before: (
            loss(&samples.fit, &w0, scale),
            loss(&samples.check, &w0, scale),
        ),
        after: (
            loss(&samples.fit, &params, scale),
            loss(&samples.check, &params, scale),
        ),
    }
}

/// The side a sample's evaluation favours agrees with Stockfish's this often (a plain
/// reading of the loss).
pub fn agreement(samples: &[Sample], weights: &Weights, tables: &Tables) -> f64 {
    let f = flatten(weights, tables);
    let agree = samples
        .iter()
        .filter(|s| (s.evaluate(&f) >= 0.0) == (s.target >= 0.0))
        .count();
    agree as f64 / samples.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use precedent::position::parse_fen;
    use precedent::search::evaluate::{WEIGHTS, evaluate_with, tables};

    #[test]
    fn a_sample_reproduces_the_evaluation() {
        let w = flatten(&WEIGHTS, &tables());
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "3rr1k1/3b1ppp/2nq4/6NQ/8/8/3B1PPP/3RR1K1 w - - 0 1",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4k3/p7/3P4/8/8/8/8/4K3 w - - 0 1",
        ] {
            let board = parse_fen(fen).expect("fen").board().clone();
            let exact = evaluate_with(&board, &WEIGHTS);
            let linear = Sample::new(&board, 0).evaluate(&w);
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
        let how = FitSettings {
            epochs: 300,
            rate: 1.0,
            pull: 0.0,
            tables: false,
            scale: Some(1.0),
        };
        let fitted = fit(&samples, &WEIGHTS, &tables(), how);
        assert!(fitted.after.0 < fitted.before.0, "{:?}", fitted.before);
        assert!(
            fitted.weights[0].1 > WEIGHTS[0].1,
            "{:?}",
            fitted.weights[0]
        );
    }

    #[test]
    fn the_fit_moves_a_table_entry_towards_the_targets() {
        // A knight on d5 that Stockfish likes 60 cp more than our tables do, in otherwise
        // different positions: its entry rises, the entries of squares no sample holds stay.
        let boards: Vec<Board> = [
            "4k3/p7/8/3N4/8/8/PP6/4K3 w - - 0 1",
            "4k3/1p6/8/3N4/8/8/1PP5/4K3 w - - 0 1",
            "4k3/pp6/8/3N4/8/8/PPP5/4K3 w - - 0 1",
            "4k3/pp6/8/3N4/8/8/PPP5/4K3 b - - 0 1",
        ]
        .iter()
        .map(|f| parse_fen(f).expect("fen").board().clone())
        .collect();
        let samples = Samples {
            fit: boards
                .iter()
                .map(|b| Sample::new(b, evaluate_with(b, &WEIGHTS) + 60))
                .collect(),
            check: Vec::new(),
            games: 4,
        };
        let how = FitSettings {
            epochs: 200,
            rate: 1.0,
            pull: 0.0,
            tables: true,
            scale: Some(1.0),
        };
        let start = tables();
        let fitted = fit(&samples, &WEIGHTS, &start, how);
        assert!(fitted.after.0 < fitted.before.0);
        let d5 = precedent::search::evaluate::table_entry(0, 1, 35).0;
        assert!(fitted.tables[d5].0 + fitted.tables[d5].1 > start[d5].0 + start[d5].1);
        let h1_knight = precedent::search::evaluate::table_entry(0, 1, 7).0;
        assert_eq!(fitted.tables[h1_knight], start[h1_knight]);
    }
}
