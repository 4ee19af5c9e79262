//! `precedent fit time`: the human think-time model fitted on clocked games, and measured on
//! held-out ones against two baselines (an even share of the clock; a linear model of seconds
//! on the time left, the legal moves and the move number, as the maia-chess bots pace).
//!
//! Games are split as `precedent build --holdout 50` splits them: the held-out half is the test
//! set, so a case base built with `--holdout 50` from the same file holds only fitting games
//! and can give the test moves their nearest cases' times.

mod clocks;
mod probe;
mod run;

pub use clocks::{BANDS, BandCheck, ClockCheck};
pub use probe::ProbeCheck;
pub use run::{Charts, TimeFitArgs, TimeFitError, run};

use std::collections::BTreeMap;

use nalgebra::{DMatrix, DVector};
use precedent::casebase::{CaseBase, is_held_out};
use precedent::pgn::{Selection, for_each_game};
use precedent::reuse::{ReuseConfig, reuse};
use precedent::search::Limits;
use precedent::think::{
    CASES_FEATURE, ClockSituation, LOG_FLOOR, PACE_FEATURES, PaceModel, cases_time, features,
};
use rand::SeedableRng;
use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{CastlingMode, Chess, Move};

use crate::stats::spearman;

/// One timed move.
#[derive(Clone, Debug)]
struct Row {
    x: [f64; PACE_FEATURES.len()],
    /// Seconds taken.
    seconds: f64,
    /// The mover's clock before the move, seconds.
    left: f64,
    /// The game's starting clock, seconds.
    base: f64,
    increment: f64,
    fullmove: u32,
    legal: usize,
    /// The player-game: game number × 2 + side.
    group: u64,
    /// The time control, `base+increment`.
    control: String,
    /// Whether the nearest cases had clocks.
    cased: bool,
}

/// A game's timed moves before their features: position, move, the opponent's move, clocks.
struct Timed {
    pos: Chess,
    mv: Move,
    last: Option<Move>,
    clock: ClockSituation,
    seconds: f64,
    group: u64,
    control: String,
}

/// The fitting and the held-out games' timed moves; `probe` is offered each held-out game.
fn read_games(
    args: &TimeFitArgs,
    mut probe: Option<&mut probe::Sampler>,
) -> Result<(Vec<Timed>, Vec<Timed>), TimeFitError> {
    let (mut fit, mut test) = (Vec::new(), Vec::new());
    let mut games = 0u64;
    for_each_game::<TimeFitError>(&args.pgn, &Selection::default(), |outcome, visitor, _| {
        if outcome.is_err() {
            return Ok(true);
        }
        let game = visitor.game();
        let Some(tc) = game.header.time_control else {
            return Ok(true);
        };
        if tc.base < args.min_base || game.clocks.is_empty() {
            return Ok(true);
        }
        games += 1;
        let control = format!("{}+{}", tc.base, tc.increment);
        let held_out = is_held_out(game.key, 50);
        if let (true, Some(p)) = (held_out, probe.as_deref_mut()) {
            p.offer(game, &control);
        }
        let sink = if held_out { &mut test } else { &mut fit };
        let seconds = |ply: u32| {
            (ply >= 2)
                .then(|| game.move_clock(ply))
                .flatten()
                .map(|c| f64::from(c.spent) / 10.0)
        };
        for mover in &game.selected {
            let ply = mover.ply;
            let Some(clock) = game.move_clock(ply).filter(|_| ply >= 2) else {
                continue;
            };
            let their_left = game.clocks.get(ply as usize - 1).copied().flatten();
            sink.push(Timed {
                pos: mover.pos.clone(),
                mv: mover.mv,
                last: mover.last,
                clock: ClockSituation {
                    left: f64::from(clock.left) / 10.0,
                    their_left: their_left.map(|c| f64::from(c) / 10.0),
                    base: f64::from(tc.base),
                    increment: f64::from(tc.increment),
                    own_last: seconds(ply - 2),
                    their_last: seconds(ply - 1),
                },
                seconds: f64::from(clock.spent) / 10.0,
                group: game.number * 2 + u64::from(ply % 2),
                control: control.clone(),
            });
        }
        Ok(args.max_games.is_none_or(|m| games < m))
    })?;
    Ok((fit, test))
}

/// The features of each timed move (the nearest cases' times from `cb` when given).
fn rows(timed: &[Timed], cb: Option<&CaseBase>) -> Vec<Row> {
    let cfg = ReuseConfig::default();
    timed
        .par_iter()
        .map(|t| {
            let cases = cb.and_then(|cb| {
                let decision =
                    reuse(cb, &t.pos, &cfg, Limits::default(), CastlingMode::Standard).ok()?;
                let clocks = decision.cases.iter().filter_map(|c| cb.case_clock(c.index));
                cases_time(clocks, t.clock.left)
            });
            let x = features(&t.pos, &t.mv, t.last.as_ref(), &t.clock, cases);
            Row {
                x,
                seconds: t.seconds,
                left: t.clock.left,
                base: t.clock.base,
                increment: t.clock.increment,
                fullmove: shakmaty::Position::fullmoves(&t.pos).get(),
                legal: shakmaty::Position::legal_moves(&t.pos).len(),
                group: t.group,
                control: t.control.clone(),
                cased: cases.is_some(),
            }
        })
        .collect()
}

/// Ridge least squares: the weights minimising |Xw − y|² + λ|w|² (the bias unpenalised).
fn least_squares(xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> Vec<f64> {
    weighted_least_squares(xs, ys, &vec![1.0; ys.len()], lambda)
}

/// Weighted ridge least squares: the weights minimising Σ cᵢ(xᵢ·w − yᵢ)² + λ Σcᵢ |w|² (the bias
/// unpenalised), `c` one weight a row.
fn weighted_least_squares(xs: &[Vec<f64>], ys: &[f64], c: &[f64], lambda: f64) -> Vec<f64> {
    let n = xs.first().map_or(0, Vec::len);
    let mut xtx = DMatrix::<f64>::zeros(n, n);
    let mut xty = DVector::<f64>::zeros(n);
    for ((x, y), c) in xs.iter().zip(ys).zip(c) {
        for i in 0..n {
            xty[i] += c * x[i] * y;
            for j in 0..n {
                xtx[(i, j)] += c * x[i] * x[j];
            }
        }
    }
    let total: f64 = c.iter().sum();
    for i in 1..n {
        xtx[(i, i)] += lambda * total;
    }
    // A feature that never varies (a column of zeros) gets weight 0 from the ridge term.
    xtx[(0, 0)] += 1e-9;
    let chol = xtx
        .cholesky()
        .expect("ridge makes the system positive definite");
    chol.solve(&xty).iter().copied().collect()
}

/// Quantiles of the residuals kept with a model, the shape of people's spread.
const RESIDUAL_QUANTILES: usize = 40;

/// Each row's weight in the fit: 1 / (moves of its time control)^`balance`, scaled to a mean
/// of 1 (`balance` 0: every move alike; 1: every time control alike).
fn control_weights(rows: &[Row], balance: f64) -> Vec<f64> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        *counts.entry(r.control.as_str()).or_default() += 1;
    }
    let raw: Vec<f64> = rows
        .iter()
        .map(|r| (counts[r.control.as_str()] as f64).powf(-balance))
        .collect();
    let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
    raw.iter().map(|w| w / mean).collect()
}

/// The pacing model fitted on `rows`; `with_cases`: the `cases` feature is used (else its
/// weight is 0); `balance`: how far the time controls are weighted alike
/// ([`control_weights`]).
fn fit_model(rows: &[Row], with_cases: bool, balance: f64) -> PaceModel {
    let used: Vec<usize> = (0..PACE_FEATURES.len())
        .filter(|&i| with_cases || i != CASES_FEATURE)
        .collect();
    let xs: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| used.iter().map(|&i| r.x[i]).collect())
        .collect();
    let ys: Vec<f64> = rows.iter().map(|r| (r.seconds + LOG_FLOOR).ln()).collect();
    let c = control_weights(rows, balance);
    let w = weighted_least_squares(&xs, &ys, &c, 1e-4);
    let mut full = vec![0.0; PACE_FEATURES.len()];
    for (k, &i) in used.iter().enumerate() {
        full[i] = w[k];
    }
    let model = PaceModel::from_vector(&full, 0.0);
    let mut residuals: Vec<(f64, f64)> = rows
        .iter()
        .zip(&ys)
        .zip(&c)
        .map(|((r, y), c)| (y - model.log_seconds(&r.x), *c))
        .collect();
    let total: f64 = c.iter().sum();
    let sigma = (residuals.iter().map(|(e, c)| c * e * e).sum::<f64>() / total).sqrt();
    residuals.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The weighted quantiles: the residual where the running weight passes p of the total.
    let mut quantiles = Vec::with_capacity(RESIDUAL_QUANTILES);
    let mut running = 0.0;
    let mut at = residuals.iter();
    for i in 0..RESIDUAL_QUANTILES {
        let p = (i as f64 + 0.5) / RESIDUAL_QUANTILES as f64;
        let mut last = f64::NAN;
        for &(e, c) in at.by_ref() {
            running += c;
            last = e;
            if running >= p * total {
                break;
            }
        }
        quantiles.push(if last.is_nan() {
            residuals.last().map_or(0.0, |r| r.0)
        } else {
            last
        });
    }
    PaceModel {
        sigma,
        residuals: quantiles,
        scales: fitted_scales(rows),
        ..model
    }
}

/// Fewest fitting moves of a time control for its scale to count as fitted.
const SCALE_MOVES: usize = 100;

/// The smallest and largest scale ([`ClockSituation::scale`]) of the time controls with at
/// least [`SCALE_MOVES`] fitting moves.
fn fitted_scales(rows: &[Row]) -> Option<[f64; 2]> {
    let mut counts: BTreeMap<&str, (usize, f64)> = BTreeMap::new();
    for r in rows {
        let scale = (r.base + 40.0 * r.increment).max(1.0);
        counts.entry(r.control.as_str()).or_insert((0, scale)).0 += 1;
    }
    let scales = counts.values().filter(|c| c.0 >= SCALE_MOVES).map(|c| c.1);
    let lo = scales.clone().fold(f64::INFINITY, f64::min);
    let hi = scales.fold(0.0, f64::max);
    (lo <= hi).then_some([lo, hi])
}

/// The maia-style baseline: seconds = a + b·left + c·legal moves + d·move number.
fn linear_baseline(rows: &[Row]) -> impl Fn(&Row) -> f64 {
    let x = |r: &Row| vec![1.0, r.left, r.legal as f64, f64::from(r.fullmove)];
    let xs: Vec<Vec<f64>> = rows.iter().map(x).collect();
    let ys: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
    let w = least_squares(&xs, &ys, 0.0);
    move |r: &Row| {
        x(r).iter()
            .zip(&w)
            .map(|(a, b)| a * b)
            .sum::<f64>()
            .max(0.0)
    }
}

/// An even share of the clock: the time left over the moves still to come (40 less the moves
/// played, at least 10), plus the increment.
fn even_share(r: &Row) -> f64 {
    r.left / (40.0 - f64::from(r.fullmove)).max(10.0) + r.increment
}

/// How a predictor's times compare with people's on the same moves.
#[derive(Clone, Debug, Serialize)]
pub struct Measure {
    /// The predictor.
    pub name: String,
    /// Mean within-game (player-game) Spearman correlation of predicted and actual seconds,
    /// over player-games of at least 10 timed moves.
    pub rank_correlation: f64,
    /// Its 95 % interval (normal, over player-games).
    pub rank_interval: (f64, f64),
    /// Player-games measured.
    pub games: usize,
    /// Median over the moves of (predicted + 0.5 s) / (actual + 0.5 s): clocks record whole
    /// seconds, so a move "in 0 s" took under one.
    pub median_ratio: f64,
    /// Share of moves predicted under 2 s, read as a whole-second clock records them (people:
    /// [`PaceReport::human_fast`]).
    pub fast: f64,
    /// Share of moves predicted over 20 % of the clock left.
    pub long: f64,
    /// Median predicted seconds of the moves made with under 10 s left (time trouble).
    pub trouble_median: f64,
    /// Mean absolute error in log(seconds + 0.5).
    pub log_error: f64,
}

/// What `fit time` found.
#[derive(Clone, Debug, Serialize)]
pub struct PaceReport {
    /// Timed moves fitted on.
    pub fit_moves: usize,
    /// Timed moves measured (the held-out half).
    pub test_moves: usize,
    /// People's share of moves under 2 s.
    pub human_fast: f64,
    /// People's share of moves over 20 % of the clock left.
    pub human_long: f64,
    /// People's median seconds with under 10 s left.
    pub human_trouble_median: f64,
    /// Moves made with under 10 s left.
    pub trouble_moves: usize,
    /// Held-out moves whose nearest cases had clocks (0 without a case base).
    pub cased: usize,
    /// Each predictor on the held-out moves, then on the chart's time control alone; the first
    /// entry of each list is people themselves (their times as the prediction).
    pub measures: BTreeMap<String, Vec<Measure>>,
    /// The fitted model without the cases' times.
    pub model: PaceModel,
    /// The model with the cases' times, when a case base with clocks was given.
    pub model_with_cases: Option<PaceModel>,
    /// The engine's times in `--match-pgn`, when given.
    pub in_match: Option<MatchTimes>,
    /// The check by clock: each time control of the held-out games, people against the model.
    pub by_clock: Vec<ClockCheck>,
    /// The engine probe (`--probe-engine`): the engine's times beside people's, a control.
    pub probe: Vec<ProbeCheck>,
}

/// A player's move times in a match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchTimes {
    /// Timed moves (book moves left out).
    pub moves: usize,
    /// Median seconds.
    pub median: f64,
    /// Mean seconds.
    pub mean: f64,
    /// Share of moves under 2 s.
    pub fast: f64,
    /// The longest move, seconds.
    pub longest: f64,
}

impl MatchTimes {
    fn of(played: &[(u32, f64)]) -> MatchTimes {
        let times: Vec<f64> = played.iter().map(|p| p.1).collect();
        let n = times.len().max(1) as f64;
        MatchTimes {
            moves: times.len(),
            median: median(times.clone()),
            mean: times.iter().sum::<f64>() / n,
            fast: times.iter().filter(|&&t| t < 2.0).count() as f64 / n,
            longest: times.iter().copied().fold(0.0, f64::max),
        }
    }
}

/// The (move number, seconds) of every timed move `player` made in a match PGN whose comments
/// end with the move's seconds (`{+0.35/17 1.496s}`, as fastchess and cutechess-cli write them);
/// `{book}` moves and moves without a time are left out.
fn match_times(pgn: &str, player: &str) -> Vec<(u32, f64)> {
    let mut out = Vec::new();
    for game in pgn.split("[Event ").skip(1) {
        let tag = |name: &str| {
            let at = game.find(&format!("[{name} \""))? + name.len() + 3;
            let end = game[at..].find('"')?;
            Some(&game[at..at + end])
        };
        let side = match (tag("White"), tag("Black")) {
            (Some(w), _) if w == player => 0,
            (_, Some(b)) if b == player => 1,
            _ => continue,
        };
        // Plies counted from White's first move of the game (a FEN start sets where).
        let plies = tag("FEN").map_or(0, |fen| {
            let mut fields = fen.split_whitespace().skip(1);
            let black = fields.next() == Some("b");
            let number: u32 = fields.nth(3).and_then(|n| n.parse().ok()).unwrap_or(1);
            2 * number.saturating_sub(1) + u32::from(black)
        });
        let comments = game.split('{').skip(1).filter_map(|c| c.split('}').next());
        for (ply, comment) in (plies..).zip(comments) {
            if ply % 2 != side {
                continue;
            }
            let seconds = comment
                .split([' ', ','])
                .filter_map(|t| t.strip_suffix('s')?.parse::<f64>().ok())
                .next_back();
            if let Some(seconds) = seconds {
                out.push((ply / 2 + 1, seconds));
            }
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What a clock showing whole seconds records for a move of `seconds`: the seconds it ticked
/// over, with the clock's fraction of a second at the start drawn from move number `i`.
fn as_recorded(seconds: f64, i: usize) -> f64 {
    let phase = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11;
    let phase = phase as f64 / (1u64 << 53) as f64;
    (seconds - phase).ceil().max(0.0)
}

/// Measures `predicted` (one a row of `rows`) against the rows' seconds; `is_people`: the
/// prediction is people's own recorded times.
fn measure(name: &str, rows: &[Row], predicted: &[f64], is_people: bool) -> Measure {
    let (mean, rank_interval, games) = rank_correlation(rows, predicted);
    // People's times are whole seconds as a clock records them; a predicted time is read the
    // same way (with a phase of the clock drawn for each move) before it is counted.
    let recorded: Vec<f64> = predicted
        .iter()
        .enumerate()
        .map(|(i, &t)| as_recorded(t, i))
        .collect();
    let recorded = if is_people {
        predicted.to_vec()
    } else {
        recorded
    };
    let share = |f: &dyn Fn(&Row, f64) -> bool| {
        rows.iter()
            .zip(&recorded)
            .filter(|(r, p)| f(r, **p))
            .count() as f64
            / rows.len().max(1) as f64
    };
    let ratios: Vec<f64> = rows
        .iter()
        .zip(predicted)
        .map(|(r, p)| (p + LOG_FLOOR) / (r.seconds + LOG_FLOOR))
        .collect();
    let trouble: Vec<f64> = rows
        .iter()
        .zip(predicted)
        .filter(|(r, _)| r.left < 10.0)
        .map(|(_, p)| *p)
        .collect();
    let log_error = rows
        .iter()
        .zip(predicted)
        .map(|(r, p)| ((p + LOG_FLOOR).ln() - (r.seconds + LOG_FLOOR).ln()).abs())
        .sum::<f64>()
        / rows.len().max(1) as f64;
    Measure {
        name: name.to_string(),
        rank_correlation: mean,
        rank_interval,
        games,
        median_ratio: median(ratios),
        fast: share(&|_, p| p < 2.0),
        long: share(&|r, p| p > 0.2 * r.left),
        trouble_median: median(trouble),
        log_error,
    }
}

/// The mean within-game (player-game) Spearman correlation of `predicted` with the rows'
/// seconds, its 95 % interval (normal, over player-games) and the player-games counted: those of
/// at least 10 timed moves.
fn rank_correlation(rows: &[Row], predicted: &[f64]) -> (f64, (f64, f64), usize) {
    let mut groups: BTreeMap<u64, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (r, p) in rows.iter().zip(predicted) {
        let g = groups.entry(r.group).or_default();
        g.0.push(*p);
        g.1.push(r.seconds);
    }
    let rhos: Vec<f64> = groups
        .values()
        .filter(|(p, _)| p.len() >= 10)
        .filter_map(|(p, a)| spearman(p, a))
        .collect();
    let n = rhos.len().max(1) as f64;
    let mean = rhos.iter().sum::<f64>() / n;
    let sd = (rhos.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
    let half = 1.96 * sd / n.sqrt();
    (mean, (mean - half, mean + half), rhos.len())
}

/// Every predictor's times on `rows`, by name.
fn predictions(
    rows: &[Row],
    model: &PaceModel,
    with_cases: Option<&PaceModel>,
    baseline: &dyn Fn(&Row) -> f64,
    seed: u64,
) -> Vec<(String, Vec<f64>)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = vec![
        (
            "even share".to_string(),
            rows.iter().map(even_share).collect(),
        ),
        (
            "linear (maia-style)".to_string(),
            rows.iter().map(baseline).collect(),
        ),
        (
            "pacing model, median".to_string(),
            rows.iter().map(|r| model.median_seconds(&r.x)).collect(),
        ),
        (
            "pacing model, drawn".to_string(),
            rows.iter()
                .map(|r| model.sample_seconds(&r.x, &mut rng))
                .collect(),
        ),
    ];
    if let Some(m) = with_cases {
        out.push((
            "with the cases' times, median".to_string(),
            rows.iter().map(|r| m.median_seconds(&r.x)).collect(),
        ));
        out.push((
            "with the cases' times, drawn".to_string(),
            rows.iter()
                .map(|r| m.sample_seconds(&r.x, &mut rng))
                .collect(),
        ));
    }
    out
}

/// Seconds by move number on `rows` (one time control): people's mean, the model's drawn times'
/// mean and its median's mean, as an SVG.
fn chart(
    rows: &[Row],
    model: &PaceModel,
    control: &str,
    played: Option<&[(u32, f64)]>,
    seed: u64,
) -> Result<String, TimeFitError> {
    use plotters::prelude::*;
    const MOVES: u32 = 60;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut sums = vec![[0.0f64; 3]; MOVES as usize + 1];
    let mut counts = vec![0u32; MOVES as usize + 1];
    for r in rows.iter().filter(|r| r.fullmove <= MOVES) {
        let at = r.fullmove as usize;
        sums[at][0] += r.seconds;
        sums[at][1] += model.sample_seconds(&r.x, &mut rng);
        sums[at][2] += even_share(r);
        counts[at] += 1;
    }
    let series = |k: usize| -> Vec<(f64, f64)> {
        (1..=MOVES as usize)
            .filter(|&m| counts[m] >= 20)
            .map(|m| (m as f64, sums[m][k] / f64::from(counts[m])))
            .collect()
    };
    let mut in_match = vec![(0.0f64, 0u32); MOVES as usize + 1];
    for &(number, seconds) in played.unwrap_or(&[]) {
        if let Some(slot) = in_match.get_mut(number as usize) {
            slot.0 += seconds;
            slot.1 += 1;
        }
    }
    let in_match: Vec<(f64, f64)> = (1..=MOVES as usize)
        .filter(|&m| in_match[m].1 >= 5)
        .map(|m| (m as f64, in_match[m].0 / f64::from(in_match[m].1)))
        .collect();
    let lines = [series(0), series(1), series(2), in_match];
    let top = lines.iter().flatten().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 420)).into_drawing_area();
        let err = |e: &dyn std::fmt::Display| TimeFitError::Other(format!("chart: {e}"));
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut c = ChartBuilder::on(&root)
            .caption(
                format!("Seconds a move by move number, {control} (held-out games)"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(1f64..f64::from(MOVES), 0f64..top)
            .map_err(|e| err(&e))?;
        c.configure_mesh()
            .x_desc("move number")
            .y_desc("mean seconds")
            .draw()
            .map_err(|e| err(&e))?;
        let styles = [
            ("people", BLACK),
            ("HumanTime (pacing model, drawn)", RED),
            ("even share of the clock", BLUE),
            ("Precedent with HumanTime, in the match", GREEN),
        ];
        for ((label, colour), line) in styles.into_iter().zip(lines) {
            if line.is_empty() {
                continue;
            }
            c.draw_series(LineSeries::new(line, colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour));
        }
        c.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_second_clock_records_the_seconds_it_ticked_over() {
        let n = 100_000;
        let mean = |t: f64| (0..n).map(|i| as_recorded(t, i)).sum::<f64>() / n as f64;
        for t in [0.0, 0.3, 1.5, 7.25] {
            assert!((mean(t) - t).abs() < 0.01, "{t}: {}", mean(t));
        }
        assert!((0..n).all(|i| (as_recorded(1.5, i) - 1.5).abs() <= 0.5));
    }

    #[test]
    fn a_match_pgns_move_times_are_read_for_one_player() {
        let pgn = "[Event \"x\"]\n[White \"sf\"]\n[Black \"p\"]\n\n\
            1. e4 {book} e5 {book} 2. Nf3 {+0.57/25 22.999s} Nc6 {-0.13/15 1.496s}\n\
            3. Bb5 {+0.84/22 8.992s} a6 {-0.14/15 0.5s, Black resigns} 1-0\n\n\
            [Event \"y\"]\n[White \"p\"]\n[Black \"sf\"]\n\n1. d4 {+0.1/3 2.25s} 1-0\n";
        assert_eq!(match_times(pgn, "p"), vec![(2, 1.496), (3, 0.5), (1, 2.25)]);
        assert_eq!(match_times(pgn, "nobody"), vec![]);
    }

    #[test]
    fn least_squares_recovers_a_linear_rule() {
        let xs: Vec<Vec<f64>> = (0..50)
            .map(|i| vec![1.0, f64::from(i), f64::from(i % 7)])
            .collect();
        let ys: Vec<f64> = xs.iter().map(|x| 2.0 + 0.5 * x[1] - 1.5 * x[2]).collect();
        let w = least_squares(&xs, &ys, 0.0);
        for (got, want) in w.iter().zip([2.0, 0.5, -1.5]) {
            assert!((got - want).abs() < 1e-6, "{w:?}");
        }
    }
}
