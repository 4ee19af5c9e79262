//! Measuring imitation: how often the engine plays the move a human played (move-matching
//! accuracy, the yardstick of Maia, KDD 2020), on positions sampled from held-out games; and
//! how many positions of an EPD test suite it solves.

mod judge;
mod run;

pub use judge::{
    BLUNDER_CP, JudgeCache, Judged, Losses, MATE_CAP, Verdict, judge, judge_each, judge_moves,
    judge_positions, judged_of, loss_stats, score_loss, win_probability,
};
pub use run::{Bars, DEFAULT_REVISE_MOVETIME_MS, EvalArgs, EvalRun};

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move};

use crate::Progress;
use crate::client::{ClientError, EngineProcess, Limit};
use crate::epd::{EpdRecord, solves};
use crate::positions::{Sample, SampleError, SampleStats};
use crate::stats::{Paired, paired_delta, paired_mean, wilson};
use precedent::pgn::InputError;
use precedent::player::Knowledge;
use precedent::position::{Game, fen_of};
use precedent::retrieve::tie_key;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{EngineConfig, Thought, think};

/// Why sampling failed.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The PGN input could not be opened or read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// An external engine (evaluated, or the judge) failed.
    #[error(transparent)]
    Engine(#[from] ClientError),
    /// A case base could not be loaded.
    #[error(transparent)]
    CaseBase(#[from] precedent::casebase::CaseBaseError),
    /// Any other failure, described.
    #[error("{0}")]
    Other(String),
}

/// The held-out split's errors are evaluation errors with the same text.
impl From<SampleError> for EvalError {
    fn from(e: SampleError) -> Self {
        match e {
            SampleError::Input(e) => EvalError::Input(e),
            too_few @ SampleError::TooFew(_) => EvalError::Other(too_few.to_string()),
        }
    }
}

/// The verdict on one position.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The engine played the expected (human) move.
    pub matched: bool,
    /// The engine's move (UCI), if it produced one.
    pub played: Option<Move>,
    /// An identical position (board, side, rights) was in the case base.
    pub exact: bool,
    /// Top similarity (0..=1) for the reasoner.
    pub top_similarity: Option<f64>,
    /// The move model's probability of the expected move (with the model only).
    pub expected_probability: Option<f64>,
    /// The expected move's rank among the model's moves, 0 = most probable (model only).
    pub expected_rank: Option<usize>,
}

/// Accuracy of a group of positions.
#[derive(Clone, Debug, Serialize)]
pub struct Accuracy {
    /// What the group is: a rating band (`1400-1599`), a phase (`plies 10-39`) or `all`.
    pub name: String,
    /// Positions in the group.
    pub positions: u64,
    /// Positions where the engine played the human's move.
    pub matches: u64,
    /// `matches / positions` (0..=1; 0 for an empty group).
    pub accuracy: f64,
    /// Lower end of the 95 % Wilson interval of `accuracy` (0..=1).
    pub ci_low: f64,
    /// Upper end of the 95 % Wilson interval of `accuracy` (0..=1).
    pub ci_high: f64,
}

impl Accuracy {
    fn new(name: String, positions: u64, matches: u64) -> Accuracy {
        let (ci_low, ci_high) = wilson(matches, positions);
        let accuracy = if positions == 0 {
            0.0
        } else {
            matches as f64 / positions as f64
        };
        Accuracy {
            name,
            positions,
            matches,
            accuracy,
            ci_low,
            ci_high,
        }
    }
}

/// Phase of a ply, as reported.
pub fn phase(ply: u32) -> &'static str {
    match ply {
        0..=9 => "plies 0-9",
        10..=39 => "plies 10-39",
        _ => "plies 40+",
    }
}

/// What `eval --pgn` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The engine evaluated, with its settings (case base, mode, k, p, weights; or the
    /// external command and limit).
    pub engine: String,
    /// Positions evaluated.
    pub positions: u64,
    /// Positions where the engine played the human's move.
    pub matches: u64,
    /// Move-matching accuracy, `matches / positions` (0..=1).
    pub accuracy: f64,
    /// Lower end of the 95 % Wilson interval of `accuracy` (0..=1).
    pub ci_low: f64,
    /// Upper end of the 95 % Wilson interval of `accuracy` (0..=1).
    pub ci_high: f64,
    /// Accuracy per 200-point band of the mover's rating, lowest first (rated movers only).
    pub by_band: Vec<Accuracy>,
    /// Accuracy per game phase (plies 0-9, 10-39, 40+).
    pub by_phase: Vec<Accuracy>,
    /// Share of positions where the human's move was among the engine's three most probable
    /// (with the move model only).
    pub top3: Option<f64>,
    /// Mean log-likelihood of the human's moves under the move model, nats per position (with
    /// the model only; probabilities are floored at 1e-6).
    pub mean_log_likelihood: Option<f64>,
    /// Standard error of that mean (its 95 % interval is ± 1.96 of these).
    pub log_likelihood_se: Option<f64>,
    /// Share of positions whose exact position was in the case base.
    pub exact_match_rate: Option<f64>,
    /// Mean of the best case's similarity (0..=1); `None` for an external engine.
    pub mean_top_similarity: Option<f64>,
    /// Wall-clock time of the evaluation (seconds).
    pub seconds: f64,
    /// How the positions were sampled.
    #[serde(flatten)]
    pub sampling: SampleStats,
    /// Move quality, with `--judge`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
    /// The cases ablation, with `--ablation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ablation: Option<Comparison>,
    /// The same positions with the case base of `--compare`.
    pub comparison: Option<Comparison>,
    /// The same positions in the default style (without the level), with `--against-default`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_default: Option<Comparison>,
    /// Another run's outcomes on the same positions, with `--paired-with`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Comparison>,
    /// The default style's move quality, with `--against-default` and `--judge`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_judged: Option<Judged>,
}

/// The same engine on the same positions with another case base (for the cases ablation, a
/// one-game case base), and the paired difference (own − other).
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The other case base: its name, or for the ablation the one game it holds.
    pub against: String,
    /// Positions compared (the same positions, in the same order, in both runs).
    pub positions: u64,
    /// Accuracy with the other case base (0..=1).
    pub accuracy: f64,
    /// Top-3 accuracy with it, model only.
    pub top3: Option<f64>,
    /// Mean log-likelihood with it, model only.
    pub mean_log_likelihood: Option<f64>,
    /// Own accuracy − the other's, on the same positions (Δcases in the ablation).
    pub delta: f64,
    /// Lower end of its 95 % interval (paired: from the per-position differences).
    pub delta_ci_low: f64,
    /// Upper end.
    pub delta_ci_high: f64,
    /// Positions where only the own case base matched the human.
    pub own_only: u64,
    /// Positions where only the other case base matched.
    pub other_only: u64,
    /// Own mean log-likelihood − the other's on the same positions, with its paired 95 %
    /// interval (model only, both runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_likelihood_delta: Option<Paired>,
}

/// The comparison from the same positions' outcomes with the own and the other case base:
/// `own[i]` and `one[i]` are outcomes of the same position. `None` when the two runs do not
/// have the same number of positions (they cannot be paired).
pub fn compare(against: String, own: &[Outcome], one: &[Outcome]) -> Option<Comparison> {
    if own.len() != one.len() {
        return None;
    }
    let a: Vec<bool> = own.iter().map(|o| o.matched).collect();
    let b: Vec<bool> = one.iter().map(|o| o.matched).collect();
    let (delta, lo, hi) = paired_delta(&a, &b);
    let n = one.len().max(1) as f64;
    let log_likelihood_delta = log_likelihoods(own)
        .zip(log_likelihoods(one))
        .filter(|(a, _)| !a.is_empty())
        .map(|(a, b)| paired_mean(&a, &b));
    Some(Comparison {
        against,
        positions: one.len() as u64,
        accuracy: b.iter().filter(|x| **x).count() as f64 / n,
        top3: top3(one),
        mean_log_likelihood: mean_log_likelihood(one),
        delta,
        delta_ci_low: lo,
        delta_ci_high: hi,
        own_only: a.iter().zip(&b).filter(|(x, y)| **x && !**y).count() as u64,
        other_only: a.iter().zip(&b).filter(|(x, y)| !**x && **y).count() as u64,
        log_likelihood_delta,
    })
}

/// One position's outcome as `eval --outcomes` writes it (a JSON object a line), so that runs of
/// different binaries or settings on the same positions can be paired (`eval --paired-with`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutcomeLine {
    /// The position (FEN).
    pub fen: String,
    /// The human's move (UCI).
    pub human: String,
    /// The engine's move (UCI), if it gave one.
    pub played: Option<String>,
    /// Whether it was the human's.
    pub matched: bool,
    /// The move model's probability of the human's move (model only).
    pub probability: Option<f64>,
    /// The human's move's rank among the model's moves, 0 = most probable (model only).
    pub rank: Option<usize>,
    /// The judge's loss of the engine's move, centipawns (with `--judge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<i32>,
    /// The judge's loss of the human's move, centipawns (with `--judge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_loss: Option<i32>,
    /// The judge's value of the position to the mover, centipawns (with `--judge`): with a
    /// loss, the expected score the move gave away ([`score_loss`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i32>,
    /// The mover's rating, when the game gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<u16>,
    /// The position's ply in its game (0 = before the first move).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
}

/// The outcome lines of `outcomes`, each on the sample of the same index.
pub fn outcome_lines(samples: &[Sample], outcomes: &[Outcome]) -> Vec<OutcomeLine> {
    let uci = |m: &Move| m.to_uci(CastlingMode::Standard).to_string();
    samples
        .iter()
        .zip(outcomes)
        .map(|(s, o)| OutcomeLine {
            fen: fen_of(&s.game.position),
            human: uci(&s.human),
            played: o.played.as_ref().map(uci),
            matched: o.matched,
            probability: o.expected_probability,
            rank: o.expected_rank,
            loss: None,
            human_loss: None,
            value: None,
            elo: s.elo,
            ply: Some(s.ply),
        })
        .collect()
}

/// Writes outcome lines to `path`.
pub fn write_outcomes(path: &std::path::Path, lines: &[OutcomeLine]) -> Result<(), EvalError> {
    let mut text = String::new();
    for l in lines {
        let json = serde_json::to_string(l).map_err(|e| EvalError::Other(e.to_string()))?;
        text.push_str(&json);
        text.push('\n');
    }
    std::fs::write(path, text)
        .map_err(|e| EvalError::Other(format!("{}: cannot write outcomes: {e}", path.display())))
}

/// Reads the outcome lines of `path` (as [`write_outcomes`] writes them); a line that does not
/// parse is an error naming the file and the line.
pub fn read_outcomes(path: &std::path::Path) -> Result<Vec<OutcomeLine>, EvalError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EvalError::Other(format!("{}: cannot read outcomes: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                EvalError::Other(format!(
                    "{} line {}: not an outcome line: {e}",
                    path.display(),
                    i + 1
                ))
            })
        })
        .collect()
}

/// The comparison of `own` with another run's outcome lines on the same positions (`name` names
/// the other run). An error when the two runs are not on the same positions, in the same order:
/// it names the first position that differs.
pub fn pair(name: &str, own: &[OutcomeLine], other: &[OutcomeLine]) -> Result<Comparison, String> {
    if own.len() != other.len() {
        return Err(format!(
            "{name}: {} positions, this run {}: not the same sample (same --pgn, filters, \
             --positions and --seed?)",
            other.len(),
            own.len()
        ));
    }
    if let Some(i) =
        (0..own.len()).find(|&i| own[i].fen != other[i].fen || own[i].human != other[i].human)
    {
        return Err(format!(
            "{name}: position {} is {} {}, this run's {} {}: not the same sample",
            i + 1,
            other[i].fen,
            other[i].human,
            own[i].fen,
            own[i].human
        ));
    }
    let outcomes = |lines: &[OutcomeLine]| -> Vec<Outcome> {
        lines
            .iter()
            .map(|l| Outcome {
                matched: l.matched,
                played: None,
                exact: false,
                top_similarity: None,
                expected_probability: l.probability,
                expected_rank: l.rank,
            })
            .collect()
    };
    compare(name.to_string(), &outcomes(own), &outcomes(other))
        .ok_or_else(|| format!("{name}: the runs cannot be paired"))
}

/// Share of outcomes whose expected move ranked in the top three, if every outcome has a rank.
pub fn top3(outcomes: &[Outcome]) -> Option<f64> {
    let ranks: Option<Vec<usize>> = outcomes.iter().map(|o| o.expected_rank).collect();
    let ranks = ranks.filter(|r| !r.is_empty())?;
    Some(ranks.iter().filter(|r| **r < 3).count() as f64 / ranks.len() as f64)
}

/// The log-likelihood of a move of probability `p` (nats), `p` floored at 1e-6 so that one move
/// the model ruled out does not dominate a mean.
pub fn log_likelihood(p: f64) -> f64 {
    p.max(1e-6).ln()
}

/// Each outcome's log-likelihood of the expected move, if every outcome has a probability.
fn log_likelihoods(outcomes: &[Outcome]) -> Option<Vec<f64>> {
    outcomes
        .iter()
        .map(|o| o.expected_probability.map(log_likelihood))
        .collect()
}

/// Mean log-likelihood of the expected moves, if every outcome has a probability.
pub fn mean_log_likelihood(outcomes: &[Outcome]) -> Option<f64> {
    let ll = log_likelihoods(outcomes).filter(|l| !l.is_empty())?;
    Some(ll.iter().sum::<f64>() / ll.len() as f64)
}

/// Standard error of [`mean_log_likelihood`], if every outcome has a probability and there are
/// at least two.
pub fn log_likelihood_se(outcomes: &[Outcome]) -> Option<f64> {
    let ll = log_likelihoods(outcomes)?;
    let n = ll.len() as f64;
    if ll.len() < 2 {
        return None;
    }
    let mean = ll.iter().sum::<f64>() / n;
    let var = ll.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((var / n).sqrt())
}

/// Summarises outcomes, with accuracy per `band_width`-point band of the mover's rating.
pub fn report(
    engine: String,
    samples: &[Sample],
    outcomes: &[Outcome],
    stats: SampleStats,
    seconds: f64,
    band_width: u16,
) -> Report {
    let band_width = band_width.max(1);
    let n = outcomes.len() as u64;
    let matches = outcomes.iter().filter(|o| o.matched).count() as u64;
    let mut bands: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
    let mut phases: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for (s, o) in samples.iter().zip(outcomes) {
        if let Some(elo) = s.elo {
            let b = bands.entry(elo / band_width * band_width).or_default();
            b.0 += 1;
            b.1 += u64::from(o.matched);
        }
        let p = phases.entry(phase(s.ply)).or_default();
        p.0 += 1;
        p.1 += u64::from(o.matched);
    }
    let sims: Vec<f64> = outcomes.iter().filter_map(|o| o.top_similarity).collect();
    let all = Accuracy::new("all".into(), n, matches);
    let phase_order = ["plies 0-9", "plies 10-39", "plies 40+"];
    Report {
        engine,
        positions: n,
        matches,
        accuracy: all.accuracy,
        ci_low: all.ci_low,
        ci_high: all.ci_high,
        by_band: bands
            .into_iter()
            .map(|(b, (n, m))| Accuracy::new(format!("{}-{}", b, b + band_width - 1), n, m))
            .collect(),
        by_phase: phase_order
            .iter()
            .filter_map(|p| {
                phases
                    .get(p)
                    .map(|&(n, m)| Accuracy::new(p.to_string(), n, m))
            })
            .collect(),
        top3: top3(outcomes),
        mean_log_likelihood: mean_log_likelihood(outcomes),
        log_likelihood_se: log_likelihood_se(outcomes),
        exact_match_rate: (!sims.is_empty())
            .then(|| outcomes.iter().filter(|o| o.exact).count() as f64 / sims.len() as f64),
        mean_top_similarity: (!sims.is_empty())
            .then(|| sims.iter().sum::<f64>() / sims.len() as f64),
        seconds,
        sampling: stats,
        judged: None,
        ablation: None,
        comparison: None,
        against_default: None,
        paired: None,
        default_judged: None,
    }
}

thread_local! {
    /// Each evaluation thread's transposition table (4 MB, the size the search used to allocate
    /// for every move).
    static EVAL_TT: std::cell::RefCell<Memory> =
        std::cell::RefCell::new(Memory::new(4));
}

/// What the reasoner may spend on each position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Budget {
    /// No limit: the whole case base is scanned and the search stops at its own depth cap.
    #[default]
    Unlimited,
    /// A time (as UCI `go movetime`): how deep the search gets depends on the machine and its
    /// load, so two runs of the same seed may differ by a few moves.
    Movetime(Duration),
    /// A search depth (as UCI `go depth`) and no clock: the same moves on every run.
    Depth(u32),
}

impl Budget {
    /// The budget a command's flags ask for: `depth`, else `movetime_ms`, else `default_ms`
    /// when the revise search is on (it needs a limit), else none (pure retrieval scans the
    /// whole case base regardless). `eval` and `tune` choose with it, each with its default.
    pub fn from_flags(
        depth: Option<u32>,
        movetime_ms: Option<u64>,
        revise: bool,
        default_ms: u64,
    ) -> Budget {
        match (depth, movetime_ms) {
            (Some(d), _) => Budget::Depth(d),
            (None, Some(ms)) => Budget::Movetime(Duration::from_millis(ms)),
            (None, None) if revise => Budget::Movetime(Duration::from_millis(default_ms)),
            (None, None) => Budget::Unlimited,
        }
    }

    fn limits(self) -> Limits<'static> {
        match self {
            Budget::Unlimited => Limits::default(),
            Budget::Movetime(t) => Limits {
                deadline: Some(Instant::now() + t),
                ..Limits::default()
            },
            Budget::Depth(d) => Limits {
                max_depth: Some(d),
                ..Limits::default()
            },
        }
    }
}

/// The reasoner's move for each position, in parallel; seeded per position. `done` is called
/// after each position (for a progress display).
pub fn run_reasoner(
    cb: Knowledge<'_>,
    positions: &[(Game, Option<Move>)],
    cfg: &EngineConfig,
    budget: Budget,
    seed: u64,
    done: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    run_reasoner_keeping(cb, positions, cfg, budget, seed, done, &|_, _| ())
        .into_iter()
        .map(|(o, _)| o)
        .collect()
}

/// [`run_reasoner`], keeping what `keep` takes of each position's thought (given the
/// position's index; `None` where the reasoner had no move).
pub fn run_reasoner_keeping<T: Send>(
    cb: Knowledge<'_>,
    positions: &[(Game, Option<Move>)],
    cfg: &EngineConfig,
    budget: Budget,
    seed: u64,
    done: &(dyn Fn(&Outcome) + Sync),
    keep: &(dyn Fn(usize, &Thought) -> T + Sync),
) -> Vec<(Outcome, Option<T>)> {
    positions
        .par_iter()
        .enumerate()
        .map(|(i, (game, expected))| {
            let mut cfg = cfg.clone();
            cfg.reuse.seed = Some(tie_key(seed, i));
            let limits = budget.limits();
            // Every position starts from an empty table, so that its result does not depend on
            // which positions the same thread searched before.
            let thought = EVAL_TT.with(|cell| {
                // The thread's table is in use when rayon ran this position on a thread that
                // waits inside another's parallel scan: then a table of its own, as empty.
                let mut shared = cell.try_borrow_mut().ok();
                let mut own = None;
                let tt = match shared.as_deref_mut() {
                    Some(tt) => {
                        tt.clear();
                        tt
                    }
                    None => own.insert(Memory::new(4)),
                };
                think(cb, game, &cfg, limits, CastlingMode::Standard, tt)
            });
            let (o, kept) = match thought {
                Ok(t) => {
                    let judgement = t.by.judgement();
                    let model = judgement.and_then(|j| {
                        let e = (*expected)?;
                        let at = j.evidence.moves.iter().position(|m| *m == e)?;
                        let rank = j.ranked().iter().position(|(i, _)| *i == at)?;
                        Some((j.probabilities[at], rank))
                    });
                    let o = Outcome {
                        matched: expected.is_some_and(|e| e == t.mv),
                        played: Some(t.mv),
                        exact: t.decision.cases.iter().any(|c| c.exact),
                        top_similarity: Some(f64::from(t.decision.score256) / 256.0),
                        expected_probability: model.map(|m| m.0),
                        expected_rank: model.map(|m| m.1),
                    };
                    (o, Some(keep(i, &t)))
                }
                Err(_) => (Outcome::default(), None),
            };
            done(&o);
            (o, kept)
        })
        .collect()
}

/// An external engine's move for each position: `threads` engine processes share the work.
pub fn run_engine(
    command: &str,
    options: &[(String, String)],
    limit: Limit,
    positions: &[(Game, Option<Move>)],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<Outcome>, EvalError> {
    progress.start(positions.len() as u64);
    let chunk = positions.len().div_ceil(threads.max(1)).max(1);
    let timeout = Duration::from_secs(60);
    let results: Result<Vec<Vec<Outcome>>, EvalError> = positions
        .par_chunks(chunk)
        .map(|part| {
            let mut engine = EngineProcess::start(command, options, Duration::from_secs(10))?;
            let mut out = Vec::with_capacity(part.len());
            for (game, expected) in part {
                let pos = &game.position;
                engine.new_game(Duration::from_secs(10))?;
                let r = engine.go(&format!("fen {}", fen_of(pos)), &limit.go_args(), timeout)?;
                let played = UciMove::from_ascii(r.bestmove.as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(pos).ok());
                out.push(Outcome {
                    matched: played.is_some() && played == *expected,
                    played,
                    ..Outcome::default()
                });
                progress.advance(1);
            }
            engine.quit();
            Ok(out)
        })
        .collect();
    progress.finish();
    Ok(results?.into_iter().flatten().collect())
}

/// What `eval --epd` reports.
#[derive(Clone, Debug, Serialize)]
pub struct EpdReport {
    /// The suite's file, as given.
    #[serde(skip)]
    pub suite: String,
    /// The engine evaluated, with its settings.
    pub engine: String,
    /// Positions in the suite.
    pub total: u64,
    /// Positions the engine's move solved (one of `bm`, if any, and none of `am`).
    pub solved: u64,
    /// `solved / total` (0..=1).
    pub solved_rate: f64,
    /// STS points scored and the maximum, when the suite has points.
    pub points: Option<u64>,
    /// Most points the suite allows (its best move in every position).
    pub max_points: Option<u64>,
    /// The unsolved positions, by EPD `id` (or `line N` without one).
    pub unsolved: Vec<String>,
    /// Wall-clock time of the evaluation (seconds).
    pub seconds: f64,
}

/// Scores an EPD suite from the moves played.
pub fn epd_report(
    engine: String,
    records: &[EpdRecord],
    outcomes: &[Outcome],
    seconds: f64,
) -> EpdReport {
    let mut solved = 0;
    let mut unsolved = Vec::new();
    let (mut points, mut max_points) = (0u64, 0u64);
    for (r, o) in records.iter().zip(outcomes) {
        let ok = o.played.as_ref().is_some_and(|m| solves(r, m));
        if ok {
            solved += 1;
        } else {
            unsolved.push(r.id.clone().unwrap_or_else(|| format!("line {}", r.line)));
        }
        if let Some(best) = r.points.iter().map(|p| p.1).max() {
            max_points += u64::from(best);
            if let Some(m) = &o.played {
                points += r
                    .points
                    .iter()
                    .find(|p| p.0 == *m)
                    .map_or(0, |p| u64::from(p.1));
            }
        }
    }
    let total = records.len() as u64;
    EpdReport {
        suite: String::new(),
        engine,
        total,
        solved,
        solved_rate: if total == 0 {
            0.0
        } else {
            solved as f64 / total as f64
        },
        points: (max_points > 0).then_some(points),
        max_points: (max_points > 0).then_some(max_points),
        unsolved,
        seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depth_beats_a_time_which_beats_the_default_which_needs_the_search() {
        let ms = Duration::from_millis;
        assert_eq!(
            Budget::from_flags(Some(6), Some(50), true, 100),
            Budget::Depth(6)
        );
        assert_eq!(
            Budget::from_flags(Some(6), None, false, 100),
            Budget::Depth(6)
        );
        assert_eq!(
            Budget::from_flags(None, Some(50), false, 100),
            Budget::Movetime(ms(50))
        );
        assert_eq!(
            Budget::from_flags(None, None, true, 20),
            Budget::Movetime(ms(20))
        );
        assert_eq!(Budget::from_flags(None, None, false, 20), Budget::Unlimited);
    }

    #[test]
    fn the_log_likelihood_has_the_standard_error_of_its_mean() {
        let outcome = |p: Option<f64>| Outcome {
            matched: false,
            played: None,
            exact: false,
            top_similarity: None,
            expected_probability: p,
            expected_rank: None,
        };
        // ln values −1 and −3: mean −2, sample variance 2, standard error √(2/2) = 1.
        let e = std::f64::consts::E;
        let two = [outcome(Some(1.0 / e)), outcome(Some(1.0 / (e * e * e)))];
        assert!((mean_log_likelihood(&two).expect("mean") + 2.0).abs() < 1e-9);
        assert!((log_likelihood_se(&two).expect("se") - 1.0).abs() < 1e-9);
        // One outcome has no spread; an outcome without the model has no likelihood.
        assert_eq!(log_likelihood_se(&two[..1]), None);
        assert_eq!(log_likelihood_se(&[two[0].clone(), outcome(None)]), None);
    }

    fn outcome(matched: bool) -> Outcome {
        Outcome {
            matched,
            played: None,
            exact: false,
            top_similarity: None,
            expected_probability: None,
            expected_rank: None,
        }
    }

    #[test]
    fn the_ablation_pairs_positions() {
        let own: Vec<Outcome> = (0..100).map(|i| outcome(i < 50)).collect();
        // The same successes on the same positions: no difference, and no uncertainty about
        // it (an unpaired comparison of two 50 % samples of 100 would give about ±14 pp).
        let a = compare("g".into(), &own, &own).expect("paired");
        assert_eq!(a.positions, 100);
        assert_eq!((a.delta, a.delta_ci_low, a.delta_ci_high), (0.0, 0.0, 0.0));
        // The one-game base misses 10 of the own base's successes and gains none: Δ = 10 pp,
        // with the interval of the per-position differences (sd = sqrt(9/99)).
        let one: Vec<Outcome> = (0..100).map(|i| outcome(i < 40)).collect();
        let a = compare("g".into(), &own, &one).expect("paired");
        let half = 1.959_963_984_540_054 * (9.0f64 / 99.0 / 100.0).sqrt();
        assert!((a.delta - 0.1).abs() < 1e-12);
        assert!((a.delta_ci_low - (0.1 - half)).abs() < 1e-12, "{a:?}");
        assert!((a.delta_ci_high - (0.1 + half)).abs() < 1e-12, "{a:?}");
        assert_eq!((a.own_only, a.other_only), (10, 0));
        assert!((a.accuracy - 0.4).abs() < 1e-12);
        // Runs over different numbers of positions cannot be paired.
        assert!(compare("g".into(), &own, &one[..99]).is_none());
    }

    #[test]
    fn the_log_likelihood_is_paired_position_by_position() {
        let with = |p: f64| Outcome {
            expected_probability: Some(p),
            ..outcome(false)
        };
        // Every position's probability halves: Δ = ln 2 exactly, with no spread at all, where
        // the two means' own intervals (probabilities 0.1 to 0.9) are wide.
        let own: Vec<Outcome> = (1..10).map(|i| with(f64::from(i) / 10.0)).collect();
        let other: Vec<Outcome> = (1..10).map(|i| with(f64::from(i) / 20.0)).collect();
        let d = compare("g".into(), &own, &other)
            .expect("paired")
            .log_likelihood_delta
            .expect("both have probabilities");
        assert!((d.delta - 2f64.ln()).abs() < 1e-12, "{d:?}");
        assert!((d.ci_high - d.ci_low).abs() < 1e-9, "{d:?}");
        assert!(log_likelihood_se(&own).expect("se") > 0.1);
        // Without the model's probabilities there is nothing to pair.
        let bare: Vec<Outcome> = (1..10).map(|_| outcome(true)).collect();
        let c = compare("g".into(), &own, &bare).expect("paired");
        assert_eq!(c.log_likelihood_delta, None);
    }

    #[test]
    fn outcome_files_pair_only_the_same_positions_and_name_a_bad_line() {
        let line = |fen: &str, human: &str, matched: bool, p: f64| OutcomeLine {
            fen: fen.into(),
            human: human.into(),
            played: Some("e2e4".into()),
            matched,
            probability: Some(p),
            rank: Some(usize::from(!matched)),
            loss: None,
            human_loss: None,
            value: None,
            elo: None,
            ply: None,
        };
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let own = vec![
            line(start, "e2e4", true, 0.5),
            line(start, "d2d4", false, 0.2),
        ];
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("o.jsonl");
        write_outcomes(&path, &own).expect("write");
        let back = read_outcomes(&path).expect("read");
        assert_eq!(back, own);
        let worse = vec![
            line(start, "e2e4", false, 0.25),
            line(start, "d2d4", false, 0.1),
        ];
        let c = pair("other", &own, &worse).expect("paired");
        assert!((c.delta - 0.5).abs() < 1e-12 && c.own_only == 1, "{c:?}");
        let d = c.log_likelihood_delta.expect("probabilities");
        assert!((d.delta - 2f64.ln()).abs() < 1e-12, "{d:?}");
        // Another sample: refused, naming the position.
        let moved = vec![
            line(start, "e2e4", true, 0.5),
            line(start, "c2c4", false, 0.2),
        ];
        let e = pair("other", &own, &moved).expect_err("not the same sample");
        assert!(e.contains("position 2") && e.contains("c2c4"), "{e}");
        assert!(pair("other", &own, &own[..1]).is_err());
        // A damaged file: the line is named.
        std::fs::write(&path, "{\"fen\": 3}\n").expect("write");
        let e = read_outcomes(&path).expect_err("damaged").to_string();
        assert!(e.contains("o.jsonl line 1: not an outcome line"), "{e}");
        let e = read_outcomes(&dir.path().join("missing")).expect_err("missing");
        assert!(e.to_string().contains("cannot read outcomes"), "{e}");
    }

    #[test]
    fn phases_split_at_10_and_40() {
        assert_eq!(
            (phase(0), phase(9), phase(10), phase(39), phase(40)),
            (
                "plies 0-9",
                "plies 0-9",
                "plies 10-39",
                "plies 10-39",
                "plies 40+"
            )
        );
    }
}
