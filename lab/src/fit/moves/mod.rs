//! `precedent fit moves`: learning the move model's weights by maximum likelihood.
//!
//! Positions are sampled from games outside the case base (the contamination guard of `eval`),
//! split by a hash of each game into a fitting half and a test half (bit 32 of the game key, as
//! `tune` splits). For every position the engine gathers the evidence of every legal move (the
//! same search and case-base lookups it makes when it plays), and the conditional logit is fitted
//! on the fitting half. The test half measures the fitted model: accuracy, top-3 accuracy and
//! log-likelihood, and, since the search does not depend on the case base, the same search
//! against a one-game case base's evidence (the cases ablation, Δcases). Feature families can be
//! dropped and the model refitted on the same evidence, to see what each adds.

pub mod logit;
pub mod network;
mod run;

pub use run::{FitArgs, FitReport, FitRunError, run};

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::eval::log_likelihood;
use crate::positions::Sample;
use crate::stats::{paired_delta, wilson};
use logit::{Example, FitError, Fitted, fit, fit_towards};
use precedent::casebase::{CaseBase, CaseBaseError, LastMove, MoveContext};
use precedent::model::network::Network;
use precedent::model::{
    Context, Evidence, FEATURES, LOSS_LAST_FEATURE, ModelConfig, N_FEATURES, Smoothing, evidence,
};
use precedent::player::Knowledge;
use precedent::position::{fen_of, parse_fen};
use precedent::retrieve::tie_key;
use precedent::reuse::reuse;
use precedent::search::{Evaluation, Iteration, Limits, Memory};
use precedent::think::{EngineConfig, Level, Style, judge_position};

/// What is gathered for one position: the position, the human's move, the nearest cases'
/// votes, and the search's values of every move at every iteration. The case base's other
/// features (patterns, exact positions) are computed from it when fitting, so a case base built
/// anew (other pattern families, another band) can be fitted without searching again.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Record {
    /// The position (FEN).
    pub fen: String,
    /// The move before it, as the move model reads it ([`LastMove`] bits; 0 = unknown).
    pub last: u16,
    /// The human's move (UCI).
    pub human: String,
    /// The mover's rating.
    pub elo: Option<u16>,
    /// Ply in the game.
    pub ply: u32,
    /// Whether it belongs to the test half.
    pub test: bool,
    /// The nearest cases' votes: (move, share of the votes).
    pub votes: Vec<(String, f64)>,
    /// The one-game case base's votes, for the ablation.
    pub ablated_votes: Option<Vec<(String, f64)>>,
    /// The root moves of the search, in the order of its values.
    pub root: Vec<String>,
    /// Each completed iteration: its depth and the root moves' (value, exact).
    pub iterations: Vec<(u32, Vec<(i32, bool)>)>,
}

/// One position's features: every legal move's, and the move the human played.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The position.
    pub position: Chess,
    /// Its legal moves, in the order of `features`.
    pub moves: Vec<Move>,
    /// Features of every legal move, with the case base ([`FEATURES`] order).
    pub features: Vec<[f64; N_FEATURES]>,
    /// The same moves' features with the one-game case base (the search part is the same).
    pub ablated: Option<Vec<[f64; N_FEATURES]>>,
    /// Index of the human's move.
    pub played: usize,
    /// The mover's rating.
    pub elo: Option<u16>,
    /// Ply in the game.
    pub ply: u32,
    /// Whether it belongs to the test half.
    pub test: bool,
    /// The position's context (the same with either case base).
    pub context: Context,
}

impl Item {
    /// The evidence as the engine would see it: with the case base, or the one-game case
    /// base's (`None` if not recorded).
    pub fn evidence(&self, ablated: bool) -> Option<Evidence> {
        let features = if ablated {
            self.ablated.clone()?
        } else {
            self.features.clone()
        };
        Some(Evidence {
            moves: self.moves.clone(),
            features,
            context: self.context,
        })
    }
}

/// The network whose scores examples carry as fixed offsets, and the rating it reads: a fixed
/// one (the default style's, a level's band), or each position's mover's (`None`).
#[derive(Clone, Copy)]
pub struct Offsets<'a> {
    /// The network.
    pub network: &'a Network,
    /// The rating it is read at; `None`: each position's mover's (the network's own without).
    pub rating: Option<f64>,
}

impl Offsets<'_> {
    /// The network's score of each move of `it` (with the one-game case base's features when
    /// `ablated`).
    fn of(&self, it: &Item, ablated: bool) -> Option<Vec<f64>> {
        let e = it.evidence(ablated)?;
        let rating = self
            .rating
            .or(it.elo.map(f64::from))
            .unwrap_or(self.network.rating);
        let mut net = self.network.clone();
        net.rating = rating;
        Some(net.scores(&e))
    }
}

thread_local! {
    static FIT_TT: std::cell::RefCell<Memory> =
        std::cell::RefCell::new(Memory::new(4));
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// The legal move of `pos` a UCI text names, if it names one.
pub(crate) fn parse_move(pos: &Chess, text: &str) -> Option<Move> {
    UciMove::from_ascii(text.as_bytes()).ok()?.to_move(pos).ok()
}

/// Searches `samples` (in parallel, each with `movetime` of thinking and an empty table) and
/// records what the features are made of; the one-game case base's votes too when given.
/// `done` is called per position. Positions with a single legal move are left out.
pub fn gather(
    cb: &CaseBase,
    one_game: Option<&CaseBase>,
    samples: &[(Sample, bool)],
    cfg: &EngineConfig,
    movetime: Duration,
    seed: u64,
    done: &(dyn Fn() + Sync),
) -> Vec<Record> {
    samples
        .par_iter()
        .enumerate()
        .filter_map(|(i, (s, test))| {
            let mut cfg = cfg.clone();
            cfg.reuse.seed = Some(tie_key(seed, i));
            let limits = Limits {
                deadline: Some(Instant::now() + movetime),
                ..Limits::default()
            };
            let judged = FIT_TT.with_borrow_mut(|tt| {
                tt.clear();
                judge_position(
                    Knowledge::of(cb),
                    &s.game,
                    &cfg,
                    limits,
                    CastlingMode::Standard,
                    tt,
                )
            });
            done();
            let (decision, j) = judged.ok()?;
            if j.evidence.moves.len() < 2 {
                return None;
            }
            let pos = &s.game.position;
            let votes = |d: &precedent::reuse::Decision| {
                d.votes()
                    .iter()
                    .map(|(m, v)| (uci(m), *v))
                    .collect::<Vec<_>>()
            };
            let ablated_votes = one_game.and_then(|one| {
                reuse(
                    one,
                    pos,
                    &cfg.reuse,
                    Limits::default(),
                    CastlingMode::Standard,
                )
                .ok()
                .map(|d| votes(&d))
            });
            Some(Record {
                fen: fen_of(pos),
                last: LastMove::of(s.game.last_move.as_ref(), pos.turn()).0,
                human: uci(&s.human),
                elo: s.elo,
                ply: s.ply,
                test: *test,
                votes: votes(&decision),
                ablated_votes,
                root: j.root.iter().map(uci).collect(),
                iterations: j
                    .search
                    .map(|r| {
                        r.iterations
                            .into_iter()
                            .map(|it| (it.depth, it.values))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The features of a record with case base `cb` (and the one-game case base's, when given and
/// recorded). `None` for a record that does not replay (a damaged file).
pub fn features(
    cb: &CaseBase,
    one_game: Option<&CaseBase>,
    r: &Record,
    smoothing: Smoothing,
) -> Option<Item> {
    let pos = parse_fen(&r.fen).ok()?;
    let human = parse_move(&pos, &r.human)?;
    let ctx = MoveContext {
        ply: r.ply,
        last: LastMove(r.last),
    };
    let root: Option<Vec<Move>> = r.root.iter().map(|t| parse_move(&pos, t)).collect();
    let root = root?;
    let iterations: Vec<Iteration> = r
        .iterations
        .iter()
        .map(|(depth, values)| Iteration {
            depth: *depth,
            values: values.clone(),
        })
        .collect();
    if iterations.iter().any(|it| it.values.len() != root.len()) {
        return None;
    }
    let search = (!iterations.is_empty()).then_some((root.as_slice(), iterations.as_slice()));
    let votes = |v: &[(String, f64)]| -> Vec<(Move, f64)> {
        v.iter()
            .filter_map(|(t, share)| Some((parse_move(&pos, t)?, *share)))
            .collect()
    };
    let own = evidence(
        cb,
        None,
        &pos,
        ctx,
        Some(&votes(&r.votes)),
        search,
        smoothing,
    );
    let played = own.moves.iter().position(|m| *m == human)?;
    let ablated = match (one_game, &r.ablated_votes) {
        (Some(one), Some(v)) => {
            let e = evidence(one, None, &pos, ctx, Some(&votes(v)), search, smoothing);
            (e.moves == own.moves).then_some(e.features)
        }
        _ => None,
    };
    Some(Item {
        position: pos,
        moves: own.moves,
        features: own.features,
        ablated,
        played,
        elo: r.elo,
        ply: r.ply,
        test: r.test,
        context: own.context,
    })
}

/// The one-game case base (`cb`'s first game) that the ablation votes of `records` were
/// gathered with, to compute their features; `None` when no record holds them or `cb` has no
/// game.
pub fn one_game_for(cb: &CaseBase, records: &[Record]) -> Result<Option<CaseBase>, CaseBaseError> {
    if records.iter().any(|r| r.ablated_votes.is_some()) && cb.game_count() > 0 {
        cb.one_game(0).map(Some)
    } else {
        Ok(None)
    }
}

/// Saves gathered records, one JSON object a line.
pub fn save(path: &Path, records: &[Record]) -> io::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    for r in records {
        serde_json::to_writer(&mut w, r)?;
        w.write_all(b"\n")?;
    }
    w.flush()
}

/// Loads records saved by [`save`]; an error names the file (and the line).
pub fn load(path: &Path) -> io::Result<Vec<Record>> {
    let file = std::fs::File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let r = BufReader::new(file);
    r.lines()
        .enumerate()
        .filter(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(|(i, l)| {
            let at = |e: &dyn std::fmt::Display| format!("{}: line {}: {e}", path.display(), i + 1);
            let l = l.map_err(|e| io::Error::new(e.kind(), at(&e)))?;
            serde_json::from_str(&l).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, at(&e)))
        })
        .collect()
}

/// The records of several evidence files, in order. A position that a later file samples again
/// (the same board, move, mover's rating and half) is read once, so that gathers with other
/// seeds add to the first without counting a position twice.
pub fn load_all(paths: &[std::path::PathBuf]) -> io::Result<Vec<Record>> {
    let mut seen = std::collections::HashSet::new();
    let mut records = Vec::new();
    for path in paths {
        let mut here = Vec::new();
        for r in load(path)? {
            let key = (r.fen.clone(), r.human.clone(), r.elo, r.test);
            if !seen.contains(&key) {
                here.push(key);
                records.push(r);
            }
        }
        seen.extend(here);
    }
    Ok(records)
}

/// The examples of `items` with only the features in `keep` (others set to zero), from the
/// ablated evidence when `ablated`, with the network's scores as offsets when given.
pub fn examples(
    items: &[&Item],
    keep: &[bool; N_FEATURES],
    ablated: bool,
    offsets: Option<Offsets<'_>>,
) -> Vec<Example> {
    items
        .par_iter()
        .filter_map(|it| {
            let features = if ablated {
                it.ablated.as_ref()?
            } else {
                &it.features
            };
            Some(Example {
                features: features
                    .iter()
                    .map(|x| {
                        x.iter()
                            .zip(keep)
                            .map(|(v, k)| if *k { *v } else { 0.0 })
                            .collect()
                    })
                    .collect(),
                played: it.played,
                offsets: match offsets {
                    Some(o) => o.of(it, ablated)?,
                    None => Vec::new(),
                },
            })
        })
        .collect()
}

/// How a model does on a set of positions.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Scores {
    /// Positions.
    pub positions: u64,
    /// Positions where the most probable move is the human's.
    pub matches: u64,
    /// `matches / positions`.
    pub accuracy: f64,
    /// 95 % Wilson interval of `accuracy`.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Share with the human's move among the three most probable.
    pub top3: f64,
    /// Mean log-likelihood of the human's move, nats.
    pub mean_log_likelihood: f64,
    /// Per position: whether the most probable move was the human's (for paired comparisons).
    #[serde(skip)]
    pub hits: Vec<bool>,
}

/// Scores weights `w` on examples.
pub fn score(examples: &[Example], w: &[f64]) -> Scores {
    let mut s = Scores::default();
    let mut ll = 0.0;
    let mut top3 = 0;
    for e in examples {
        let p = e.probabilities(w);
        let mine = p[e.played];
        let better = p.iter().filter(|q| **q > mine).count();
        // Ties are broken against the human's move: a uniform model does not "match".
        let ties = p.iter().filter(|q| **q == mine).count();
        let hit = better == 0 && ties == 1;
        s.hits.push(hit);
        s.matches += u64::from(hit);
        top3 += usize::from(better + ties <= 3);
        ll += log_likelihood(mine);
    }
    s.positions = examples.len() as u64;
    let n = s.positions.max(1) as f64;
    s.accuracy = s.matches as f64 / n;
    (s.ci_low, s.ci_high) = wilson(s.matches, s.positions);
    s.top3 = top3 as f64 / n;
    s.mean_log_likelihood = ll / n;
    s
}

/// One fitted variant and how it does on the test half.
#[derive(Clone, Debug, Serialize)]
pub struct Variant {
    /// What was fitted (`all`, `without pattern_tactic`, `search only` …).
    pub name: String,
    /// The weights by feature.
    pub weights: Vec<(String, f64, f64)>,
    /// In-sample mean log-likelihood.
    pub fit_log_likelihood: f64,
    /// On the test half.
    pub test: Scores,
    /// On the test half with the one-game case base's evidence (same weights).
    pub ablated: Option<Scores>,
    /// Δcases on the test half: accuracy own − one game, with its paired 95 % interval.
    pub delta_cases: Option<(f64, f64, f64)>,
}

/// Fits the features in `keep` on the fitting items and scores them on the test items.
pub fn variant(
    name: &str,
    fit_items: &[&Item],
    test_items: &[&Item],
    keep: &[bool; N_FEATURES],
    ridge: f64,
) -> Result<(Variant, Fitted), FitError> {
    let train = examples(fit_items, keep, false, None);
    let fitted = fit(&train, N_FEATURES, ridge)?;
    let (variant, _) = scored(name, test_items, keep, &fitted, None);
    Ok((variant, fitted))
}

/// How weights `fitted` (with the network's offsets, when given) do on the test items, and
/// with the one-game case base's features (Δcases); the test's scores beside.
pub fn scored(
    name: &str,
    test_items: &[&Item],
    keep: &[bool; N_FEATURES],
    fitted: &Fitted,
    offsets: Option<Offsets<'_>>,
) -> (Variant, Scores) {
    let test = score(&examples(test_items, keep, false, offsets), &fitted.weights);
    let ablated_examples = examples(test_items, keep, true, offsets);
    let ablated = (ablated_examples.len() == test_items.len() && !ablated_examples.is_empty())
        .then(|| score(&ablated_examples, &fitted.weights));
    let delta_cases = ablated.as_ref().map(|a| paired_delta(&test.hits, &a.hits));
    let weights = FEATURES
        .iter()
        .zip(&fitted.weights)
        .zip(&fitted.standard_errors)
        .filter(|((_, w), _)| **w != 0.0)
        .map(|((n, w), se)| (n.to_string(), *w, *se))
        .collect();
    let scores = test.clone();
    (
        Variant {
            name: name.to_string(),
            weights,
            fit_log_likelihood: fitted.mean_log_likelihood,
            test,
            ablated,
            delta_cases,
        },
        scores,
    )
}

/// A blunder, for the temperature of a level: a move that the search (at the fit's thinking
/// time) found at least this many pawns worse than the best.
pub const BLUNDER_PAWNS: f64 = 2.0;

/// The mean of `value` over the humans' moves of `examples`, and its expectation for a player
/// drawing moves from the model with `weights` (and the examples' offsets) at `temperature`
/// (∝ P^(1/T)).
fn human_and_drawn(
    examples: &[Example],
    weights: &[f64],
    temperature: f64,
    value: impl Fn(&[f64]) -> f64 + Sync,
) -> (f64, f64) {
    let n = examples.len().max(1) as f64;
    let human = examples
        .iter()
        .map(|e| value(&e.features[e.played]))
        .sum::<f64>()
        / n;
    let model: f64 = examples
        .par_iter()
        .map(|e| {
            let p = precedent::model::tempered(&e.probabilities(weights), temperature);
            p.iter()
                .zip(&e.features)
                .map(|(q, x)| q * value(x))
                .sum::<f64>()
        })
        .sum::<f64>()
        / n;
    (human, model)
}

/// How often the humans of `examples` blundered, and how often a player drawing moves from the
/// model with `weights` at `temperature` (∝ P^(1/T)) would, in expectation, by the same measure.
pub fn blunder_rates(examples: &[Example], weights: &[f64], temperature: f64) -> (f64, f64) {
    let k = LOSS_LAST_FEATURE;
    human_and_drawn(examples, weights, temperature, |x| {
        if x[k] >= BLUNDER_PAWNS { 1.0 } else { 0.0 }
    })
}

/// The humans' mean loss on `examples` (the search's last-iteration loss of the move played, in
/// pawns, capped), and the expected mean loss of a player drawing from the model at
/// `temperature`.
pub fn mean_losses(examples: &[Example], weights: &[f64], temperature: f64) -> (f64, f64) {
    let k = LOSS_LAST_FEATURE;
    human_and_drawn(examples, weights, temperature, |x| x[k])
}

/// The temperature at which drawing from the model loses as much, on average, as the humans
/// of `items` (bisection on log T within 0.05–5; the nearer end when it cannot be met). The
/// mean loss, not the blunder rate, is matched: blunders are rare enough (1–2 % by the fit's
/// search) that a band's thousand positions hold too few of them to set a temperature.
pub fn calibrate_temperature(examples: &[Example], weights: &[f64]) -> f64 {
    let (lo_t, hi_t) = (0.05f64, 5.0f64);
    let (target, _) = mean_losses(examples, weights, 1.0);
    let rate = |t: f64| mean_losses(examples, weights, t).1;
    if rate(lo_t) >= target {
        return lo_t;
    }
    if rate(hi_t) <= target {
        return hi_t;
    }
    let (mut lo, mut hi) = (lo_t.ln(), hi_t.ln());
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if rate(mid.exp()) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// One level's model: fitted on a rating band's positions, shrunk towards the model of all
/// bands, with the temperature that makes its draws blunder like the band's players.
#[derive(Clone, Debug, Serialize)]
pub struct LevelFit {
    /// Lowest mover rating of the band.
    pub min_rating: u16,
    /// Highest mover rating of the band.
    pub max_rating: u16,
    /// Positions fitted on.
    pub fit_positions: usize,
    /// The band's model on the band's test positions.
    pub test: Scores,
    /// The model of all bands on the same positions.
    pub generic: Scores,
    /// The calibrated temperature.
    pub temperature: f64,
    /// The humans' blunder rate on the fit positions (by the search's losses).
    pub human_blunders: f64,
    /// The model's expected blunder rate there at `temperature`.
    pub model_blunders: f64,
    /// The band's weights, in [`FEATURES`] order.
    #[serde(skip)]
    pub weights: Vec<f64>,
}

impl LevelFit {
    /// The level to play: its Elo the band's middle, its search weighed as fitted, read with
    /// the evaluation it was fitted on (`eval`; `auto`: the network), with the model's network
    /// at the band's middle rating.
    pub fn level(&self, smoothing: Smoothing, eval: Evaluation) -> Level {
        Level {
            elo: (u32::from(self.min_rating) + u32::from(self.max_rating)).div_ceil(2) as u16,
            // A fitted level is not yet measured among people.
            people: None,
            min_rating: self.min_rating,
            max_rating: self.max_rating,
            style: Style::Human,
            temperature: self.temperature,
            search_weight: 1.0,
            errors: None,
            evaluation: (eval != Evaluation::Auto).then_some(eval),
            share_network: true,
            depth: None,
            tolerance: None,
            rating: None,
            model: ModelConfig::from_vector(&self.weights, smoothing),
        }
    }
}

/// Fits one level on the items of a band; `generic` are the weights of all bands (the prior),
/// `network` the model's network, read at the band's middle rating.
pub fn fit_level(
    band: (u16, u16),
    fit_items: &[&Item],
    test_items: &[&Item],
    generic: &[f64],
    ridge: f64,
    network: Option<&Network>,
) -> Result<LevelFit, FitError> {
    let all = [true; N_FEATURES];
    let offsets = network.map(|network| Offsets {
        network,
        rating: Some((f64::from(band.0) + f64::from(band.1)) / 2.0),
    });
    let train = examples(fit_items, &all, false, offsets);
    let fitted = fit_towards(&train, generic, ridge)?;
    let test_examples = examples(test_items, &all, false, offsets);
    let temperature = calibrate_temperature(&train, &fitted.weights);
    let (human_blunders, model_blunders) = blunder_rates(&train, &fitted.weights, temperature);
    Ok(LevelFit {
        min_rating: band.0,
        max_rating: band.1,
        fit_positions: fit_items.len(),
        test: score(&test_examples, &fitted.weights),
        generic: score(&test_examples, generic),
        temperature,
        human_blunders,
        model_blunders,
        weights: fitted.weights,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fitted_level_reads_the_evaluation_it_was_fitted_on() {
        let fit = LevelFit {
            min_rating: 2200,
            max_rating: 2399,
            fit_positions: 1,
            test: Scores::default(),
            generic: Scores::default(),
            temperature: 1.0,
            human_blunders: 0.0,
            model_blunders: 0.0,
            weights: vec![0.0; N_FEATURES],
        };
        let smoothing = EngineConfig::default().model.smoothing;
        let level = fit.level(smoothing, Evaluation::Network);
        assert_eq!(
            (level.elo, level.evaluation),
            (2300, Some(Evaluation::Network))
        );
        assert_eq!(
            fit.level(smoothing, Evaluation::Classic).evaluation,
            Some(Evaluation::Classic)
        );
        // `auto` is the move model's evaluation already: nothing to record.
        assert_eq!(fit.level(smoothing, Evaluation::Auto).evaluation, None);
    }

    #[test]
    fn records_round_trip() {
        let r = Record {
            fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
            last: LastMove::new(shakmaty::Square::E4, None).0,
            human: "e7e5".into(),
            elo: Some(1500),
            ply: 1,
            test: true,
            votes: vec![("e7e5".into(), 0.75), ("c7c5".into(), 0.25)],
            ablated_votes: None,
            root: vec!["e7e5".into(), "c7c5".into()],
            iterations: vec![(1, vec![(-20, true), (-35, false)])],
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("e.jsonl");
        save(&path, &[r.clone(), r.clone()]).expect("save");
        assert_eq!(load(&path).expect("load"), vec![r.clone(), r]);
        std::fs::write(&path, b"garbage\n").expect("write");
        assert!(load(&path).expect_err("bad").to_string().contains("line 1"));
    }

    #[test]
    fn scoring_breaks_ties_against_the_human_move() {
        let e = Example {
            features: vec![vec![1.0], vec![1.0], vec![0.0]],
            played: 0,
            ..Example::default()
        };
        let s = score(std::slice::from_ref(&e), &[1.0]);
        assert_eq!((s.matches, s.top3), (0, 1.0));
        let s = score(&[e], &[-1.0]);
        assert_eq!(s.matches, 0);
    }
}
