//! Strength from moves: how much each run's moves give away by the judge, on the same
//! positions, set against the games' ratings of the engines that played them, and the people
//! of each rating band placed on the engines' scale by what their own moves gave away.
//!
//! The measures of a run are the means over its positions of: the expected score its move gave
//! away ([`score_loss`], Lichess's win probability from the judge's centipawns), the same in
//! the positions still undecided (the judge's value within ±[`UNDECIDED_CP`]), the centipawns
//! lost, and the share of blunders. A measure is an instrument only if it orders the engines
//! as their games do: [`Validation`] gives each measure's rank correlation with the engines'
//! game ratings. The conversion is a line per band, `elo = a_band + β·ln(loss)`, one slope for
//! all bands and an intercept for each (a band's positions are easier or harder, which shifts
//! the line, not its slope), fitted by least squares to the rated engines; a band's people sit
//! where their own loss on that band's positions falls. Its error is measured two ways: each
//! rated engine predicted by the line fitted without it (leave one out), and a bootstrap over
//! positions (the same resampled positions for every run) and over the engines' game ratings.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};
use serde::Serialize;

use super::ScaleError;
use crate::eval::{BLUNDER_CP, OutcomeLine, score_loss};
use crate::stats::{bootstrap_interval, spearman, spearman_p_value, wilson};

/// A position is still undecided when the judge values it within this many centipawns of
/// equality (about 85 % to 15 % by Lichess's curve).
pub const UNDECIDED_CP: i32 = 500;
/// Fewer positions than this in a band leave it out of the fit and the table.
pub const MIN_BAND_POSITIONS: usize = 30;
/// A mean loss is floored here before its logarithm (an engine that never blunders in a band).
const LOSS_FLOOR: f64 = 1e-4;

/// What a run's moves are measured by.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// The mean expected score a move gives away.
    Score,
    /// The same, in positions the judge values within ±[`UNDECIDED_CP`].
    ScoreUndecided,
    /// The mean centipawns a move loses.
    Cp,
    /// The share of moves that lose [`BLUNDER_CP`] or more.
    Blunders,
}

impl Measure {
    /// Every measure, in the order reported.
    pub const ALL: [Measure; 4] = [
        Measure::Score,
        Measure::ScoreUndecided,
        Measure::Cp,
        Measure::Blunders,
    ];

    /// The measure of a move that lost `loss` centipawns where the best move is worth `value`;
    /// `None` where the measure does not count the position.
    fn of(self, value: i32, loss: i32) -> Option<f64> {
        match self {
            Measure::Score => Some(score_loss(value, loss)),
            Measure::ScoreUndecided => {
                (value.abs() <= UNDECIDED_CP).then(|| score_loss(value, loss))
            }
            Measure::Cp => Some(f64::from(loss.max(0))),
            Measure::Blunders => Some(f64::from(u8::from(loss >= BLUNDER_CP))),
        }
    }

    /// Its name as reports give it.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Score => "expected score lost",
            Measure::ScoreUndecided => "expected score lost, undecided positions",
            Measure::Cp => "centipawns lost",
            Measure::Blunders => "blunders",
        }
    }
}

/// A run's game rating, when it has one: the rating and its standard error.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GameElo {
    /// The rating its games give it.
    pub elo: f64,
    /// Its standard error.
    pub se: f64,
}

/// One run of `eval --outcomes --judge`: a label, its game rating if known, its lines.
#[derive(Clone, Debug)]
pub struct Run {
    /// What it is (an engine and its setting).
    pub label: String,
    /// Its rating from games, for the engines that place the line.
    pub game_elo: Option<GameElo>,
    /// Its outcome lines, judged.
    pub lines: Vec<OutcomeLine>,
}

/// One position as the instrument reads it: its band, the judge's value, the human's loss and
/// each run's.
struct Position {
    band: usize,
    value: i32,
    human: i32,
    runs: Vec<i32>,
}

/// The positions of `runs` (all on the same positions, judged), each in its band of the mover's
/// rating; the bands' lower ends. Positions without a rating are left out.
fn positions(runs: &[Run], band_width: u16) -> Result<(Vec<Position>, Vec<u16>), ScaleError> {
    let first = runs.first().ok_or(ScaleError::NoRuns)?;
    for r in &runs[1..] {
        if r.lines.len() != first.lines.len() {
            return Err(ScaleError::NotTheSamePositions {
                run: r.label.clone(),
                first: first.label.clone(),
                detail: format!("{} positions against {}", r.lines.len(), first.lines.len()),
            });
        }
        if let Some(i) = (0..r.lines.len()).find(|&i| {
            r.lines[i].fen != first.lines[i].fen || r.lines[i].human != first.lines[i].human
        }) {
            return Err(ScaleError::NotTheSamePositions {
                run: r.label.clone(),
                first: first.label.clone(),
                detail: format!("position {} differs", i + 1),
            });
        }
    }
    let width = band_width.max(1);
    let mut lows: Vec<u16> = first
        .lines
        .iter()
        .filter_map(|l| l.elo.map(|e| e / width * width))
        .collect();
    lows.sort_unstable();
    lows.dedup();
    let mut out = Vec::with_capacity(first.lines.len());
    for (i, l) in first.lines.iter().enumerate() {
        let Some(elo) = l.elo else { continue };
        let unjudged = |label: &str| ScaleError::NotJudged {
            run: label.to_string(),
            position: i + 1,
        };
        let value = l.value.ok_or_else(|| unjudged(&first.label))?;
        let human = l.human_loss.ok_or_else(|| unjudged(&first.label))?;
        let runs = runs
            .iter()
            .map(|r| r.lines[i].loss.ok_or_else(|| unjudged(&r.label)))
            .collect::<Result<Vec<i32>, ScaleError>>()?;
        let band = lows.binary_search(&(elo / width * width)).unwrap_or(0);
        out.push(Position {
            band,
            value,
            human,
            runs,
        });
    }
    Ok((out, lows))
}

/// Means of a measure over a band's positions (indices into `positions`): each run's, then the
/// people's; with how many positions counted.
fn band_means(
    positions: &[Position],
    picks: &[usize],
    measure: Measure,
    runs: usize,
) -> (Vec<f64>, f64, usize) {
    let mut sums = vec![0.0; runs + 1];
    let mut n = 0usize;
    for &i in picks {
        let p = &positions[i];
        // Every run and the people are measured on the same positions: a position the measure
        // leaves out (a decided one) is left out for all.
        let Some(h) = measure.of(p.value, p.human) else {
            continue;
        };
        n += 1;
        sums[runs] += h;
        for (s, &loss) in sums.iter_mut().zip(&p.runs) {
            *s += measure.of(p.value, loss).unwrap_or(0.0);
        }
    }
    let d = n.max(1) as f64;
    let mut means: Vec<f64> = sums.iter().map(|s| s / d).collect();
    let people = means.pop().unwrap_or(0.0);
    (means, people, n)
}

/// The line `elo = a[band] + beta·ln(loss)`, fitted to points (band, loss, elo).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// The common slope, Elo per unit of ln(loss) (negative: less loss, more Elo).
    pub beta: f64,
    /// Each band's intercept (`None` for a band without points).
    pub intercepts: Vec<Option<f64>>,
}

impl Line {
    /// Least squares with an intercept per band: the slope from the points centred in their
    /// bands. `None` without two distinct losses in some band.
    fn fit(points: &[(usize, f64, f64)], bands: usize) -> Option<Line> {
        let x = |l: f64| l.max(LOSS_FLOOR).ln();
        let mut sx = vec![0.0; bands];
        let mut sy = vec![0.0; bands];
        let mut n = vec![0.0; bands];
        for &(b, l, e) in points {
            sx[b] += x(l);
            sy[b] += e;
            n[b] += 1.0;
        }
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for &(b, l, e) in points {
            let dx = x(l) - sx[b] / n[b];
            sxy += dx * (e - sy[b] / n[b]);
            sxx += dx * dx;
        }
        if sxx <= 1e-12 {
            return None;
        }
        let beta = sxy / sxx;
        let intercepts = (0..bands)
            .map(|b| (n[b] > 0.0).then(|| (sy[b] - beta * sx[b]) / n[b]))
            .collect();
        Some(Line { beta, intercepts })
    }

    /// The rating at mean loss `loss` on band `band`'s positions.
    fn at(&self, band: usize, loss: f64) -> Option<f64> {
        let a = self.intercepts.get(band).copied().flatten()?;
        Some(a + self.beta * loss.max(LOSS_FLOOR).ln())
    }

    /// The rating of a run from its losses on every band (the mean of each band's reading).
    fn rating(&self, losses: &[Option<f64>]) -> Option<f64> {
        let r: Vec<f64> = losses
            .iter()
            .enumerate()
            .filter_map(|(b, l)| l.and_then(|l| self.at(b, l)))
            .collect();
        (!r.is_empty()).then(|| r.iter().sum::<f64>() / r.len() as f64)
    }
}

/// A value with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The estimate.
    pub value: f64,
    /// Lower end of the 95 % interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// One run in the report.
#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    /// Its label.
    pub label: String,
    /// Its game rating, if given.
    pub game_elo: Option<GameElo>,
    /// Each measure over all its positions (the order of [`Measure::ALL`]).
    pub measures: Vec<f64>,
    /// Its expected score lost with a 95 % interval (normal, from the positions' spread).
    pub score_loss: Estimate,
    /// The rating its moves give it on the line (a rated run: by the line fitted without it),
    /// with the bootstrap's interval.
    pub rating: Option<Estimate>,
}

/// A band's people in the report.
#[derive(Clone, Debug, Serialize)]
pub struct BandRow {
    /// The band, as `1400-1599`.
    pub band: String,
    /// Positions in it (counted by the measure).
    pub positions: usize,
    /// Their measures over the band's positions (the order of [`Measure::ALL`]).
    pub measures: Vec<f64>,
    /// Their blunder rate's 95 % interval.
    pub blunders: (f64, f64),
    /// Their rating on the engines' scale, with the bootstrap's interval.
    pub rating: Option<Estimate>,
}

/// How well a measure orders the rated engines as their games do.
#[derive(Clone, Debug, Serialize)]
pub struct Validation {
    /// The measure.
    pub measure: Measure,
    /// Spearman's rank correlation of its negative with the game ratings (1: less loss, always
    /// stronger).
    pub spearman: Option<f64>,
    /// Its two-sided p-value.
    pub p_value: Option<f64>,
}

/// What `precedent scale moves` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The measure the line is fitted on.
    pub measure: Measure,
    /// Positions read (with a rated mover).
    pub positions: usize,
    /// Rated runs that place the line.
    pub rated: usize,
    /// Each measure's rank correlation with the game ratings.
    pub validation: Vec<Validation>,
    /// The fitted line.
    pub line: Line,
    /// The rated runs' errors, predicted by the line fitted without each: root mean square.
    pub loo_rmse: f64,
    /// The same, the mean (a bias of the line).
    pub loo_bias: f64,
    /// The runs.
    pub runs: Vec<RunRow>,
    /// The people of each band.
    pub bands: Vec<BandRow>,
    /// Bootstrap resamples behind the intervals.
    pub resamples: usize,
}

/// The settings of the instrument.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The measure the line is fitted on.
    pub measure: Measure,
    /// Width of the mover's rating bands.
    pub band_width: u16,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// The bootstrap's seed.
    pub seed: u64,
}

/// Every run's and every band's means of `measure`, for the positions `picks` of each band.
fn all_means(
    positions: &[Position],
    picks: &[Vec<usize>],
    measure: Measure,
    runs: usize,
) -> (Vec<Vec<Option<f64>>>, Vec<Option<f64>>) {
    let mut by_run = vec![vec![None; picks.len()]; runs];
    let mut people = vec![None; picks.len()];
    for (b, p) in picks.iter().enumerate() {
        let (means, human, n) = band_means(positions, p, measure, runs);
        if n < MIN_BAND_POSITIONS {
            continue;
        }
        for (r, m) in means.into_iter().enumerate() {
            by_run[r][b] = Some(m);
        }
        people[b] = Some(human);
    }
    (by_run, people)
}

/// The line through the rated runs (`elos`, by run; `None` for a run left out).
fn fit_line(by_run: &[Vec<Option<f64>>], elos: &[Option<f64>]) -> Option<Line> {
    let bands = by_run.first().map_or(0, Vec::len);
    let points: Vec<(usize, f64, f64)> = by_run
        .iter()
        .zip(elos)
        .filter_map(|(losses, e)| e.map(|e| (losses, e)))
        .flat_map(|(losses, e)| {
            losses
                .iter()
                .enumerate()
                .filter_map(move |(b, l)| l.map(|l| (b, l, e)))
        })
        .collect();
    Line::fit(&points, bands)
}

/// The instrument on `runs`.
pub fn measure(runs: &[Run], settings: Settings) -> Result<Report, ScaleError> {
    let (positions, lows) = positions(runs, settings.band_width)?;
    let bands = lows.len();
    let mut picks: Vec<Vec<usize>> = vec![Vec::new(); bands];
    for (i, p) in positions.iter().enumerate() {
        picks[p.band].push(i);
    }
    let n_runs = runs.len();
    let elos: Vec<Option<f64>> = runs.iter().map(|r| r.game_elo.map(|g| g.elo)).collect();
    let rated = elos.iter().filter(|e| e.is_some()).count();
    if rated < 3 {
        return Err(ScaleError::TooFewRated(rated));
    }
    // Each measure over all positions, for the validation and the table.
    let everything: Vec<usize> = (0..positions.len()).collect();
    let overall: Vec<(Vec<f64>, f64, usize)> = Measure::ALL
        .iter()
        .map(|&m| band_means(&positions, &everything, m, n_runs))
        .collect();
    let validation = Measure::ALL
        .iter()
        .zip(&overall)
        .map(|(&m, (means, _, _))| {
            let (x, y): (Vec<f64>, Vec<f64>) = means
                .iter()
                .zip(&elos)
                .filter_map(|(l, e)| e.map(|e| (-l, e)))
                .unzip();
            Validation {
                measure: m,
                spearman: spearman(&x, &y),
                p_value: spearman_p_value(&x, &y),
            }
        })
        .collect();
    let (by_run, people) = all_means(&positions, &picks, settings.measure, n_runs);
    let line = fit_line(&by_run, &elos).ok_or(ScaleError::NoLine)?;
    // Leave one out: each rated run predicted by the line without it.
    let loo: Vec<Option<f64>> = (0..n_runs)
        .map(|r| {
            elos[r]?;
            let mut without = elos.clone();
            without[r] = None;
            fit_line(&by_run, &without)?.rating(&by_run[r])
        })
        .collect();
    let errors: Vec<f64> = loo
        .iter()
        .zip(&elos)
        .filter_map(|(p, e)| Some(p.as_ref()? - e.as_ref()?))
        .collect();
    let k = errors.len().max(1) as f64;
    let loo_rmse = (errors.iter().map(|e| e * e).sum::<f64>() / k).sqrt();
    let loo_bias = errors.iter().sum::<f64>() / k;
    // The bootstrap: positions resampled within their bands (the same for every run), the
    // rated runs' game ratings drawn about theirs.
    let mut rng = StdRng::seed_from_u64(settings.seed);
    let mut run_draws: Vec<Vec<f64>> = vec![Vec::new(); n_runs];
    let mut band_draws: Vec<Vec<f64>> = vec![Vec::new(); bands];
    for _ in 0..settings.resamples {
        let resampled: Vec<Vec<usize>> = picks
            .iter()
            .map(|p| {
                (0..p.len())
                    .map(|_| p[rng.random_range(0..p.len())])
                    .collect()
            })
            .collect();
        let drawn: Vec<Option<f64>> = runs
            .iter()
            .map(|r| {
                r.game_elo
                    .map(|g| match Normal::new(g.elo, g.se.max(1e-9)) {
                        Ok(n) => n.sample(&mut rng),
                        Err(_) => g.elo,
                    })
            })
            .collect();
        let (by_run_b, people_b) = all_means(&positions, &resampled, settings.measure, n_runs);
        for r in 0..n_runs {
            let mut elos_b = drawn.clone();
            if elos_b[r].is_some() {
                elos_b[r] = None;
            }
            if let Some(v) = fit_line(&by_run_b, &elos_b).and_then(|l| l.rating(&by_run_b[r])) {
                run_draws[r].push(v);
            }
        }
        if let Some(l) = fit_line(&by_run_b, &drawn) {
            for (b, p) in people_b.iter().enumerate() {
                if let Some(v) = p.and_then(|p| l.at(b, p)) {
                    band_draws[b].push(v);
                }
            }
        }
    }
    let estimate = |value: Option<f64>, draws: &mut Vec<f64>| {
        let value = value?;
        let (low, high) = bootstrap_interval(draws).unwrap_or((value, value));
        Some(Estimate { value, low, high })
    };
    let score = &overall[0];
    let run_rows = runs
        .iter()
        .enumerate()
        .map(|(r, run)| {
            let own = if run.game_elo.is_some() {
                loo[r]
            } else {
                line.rating(&by_run[r])
            };
            RunRow {
                label: run.label.clone(),
                game_elo: run.game_elo,
                measures: overall.iter().map(|(m, _, _)| m[r]).collect(),
                score_loss: spread(&positions, |p| score_loss(p.value, p.runs[r]), score.0[r]),
                rating: estimate(own, &mut run_draws[r]),
            }
        })
        .collect();
    let width = settings.band_width.max(1);
    let band_rows = (0..bands)
        .filter(|&b| people[b].is_some())
        .map(|b| {
            let measures: Vec<f64> = Measure::ALL
                .iter()
                .map(|&m| band_means(&positions, &picks[b], m, n_runs).1)
                .collect();
            let n = picks[b].len();
            let blunders = picks[b]
                .iter()
                .filter(|&&i| positions[i].human >= BLUNDER_CP)
                .count();
            BandRow {
                band: format!("{}-{}", lows[b], lows[b] + width - 1),
                positions: n,
                measures,
                blunders: wilson(blunders as u64, n as u64),
                rating: estimate(people[b].and_then(|p| line.at(b, p)), &mut band_draws[b]),
            }
        })
        .collect();
    Ok(Report {
        measure: settings.measure,
        positions: positions.len(),
        rated,
        validation,
        line,
        loo_rmse,
        loo_bias,
        runs: run_rows,
        bands: band_rows,
        resamples: settings.resamples,
    })
}

/// A mean with its 95 % normal interval from the spread of `each` over the positions.
fn spread(positions: &[Position], each: impl Fn(&Position) -> f64, mean: f64) -> Estimate {
    let n = positions.len().max(2) as f64;
    let var = positions
        .iter()
        .map(|p| (each(p) - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    let half = 1.96 * (var / n).sqrt();
    Estimate {
        value: mean,
        low: mean - half,
        high: mean + half,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run on `n` positions of two bands whose moves lose `loss(i)` centipawns at value 0,
    /// the humans' losing `human(i)`.
    fn run(label: &str, elo: Option<f64>, n: usize, loss: impl Fn(usize) -> i32) -> Run {
        Run {
            label: label.into(),
            game_elo: elo.map(|elo| GameElo { elo, se: 10.0 }),
            lines: (0..n)
                .map(|i| OutcomeLine {
                    fen: format!("fen{i}"),
                    human: "e2e4".into(),
                    played: Some("e2e4".into()),
                    matched: true,
                    probability: None,
                    rank: None,
                    loss: Some(loss(i)),
                    human_loss: Some(if i % 2 == 0 { 120 } else { 60 }),
                    value: Some(0),
                    elo: Some(if i % 2 == 0 { 1000 } else { 1800 }),
                    ply: Some(20),
                })
                .collect(),
        }
    }

    /// Engines whose loss halves every 200 Elo: a share `2^(-(elo-1100)/200)` of their moves
    /// losing 200 cp and the rest nothing (so that the expected score lost halves too).
    fn engines() -> Vec<Run> {
        [1100.0, 1300.0, 1500.0, 1700.0, 1900.0, 2100.0]
            .iter()
            .map(|&elo| {
                let share = 0.25 * 2f64.powf(-(elo - 1500.0) / 200.0);
                // Every 1/share-th position loses 200 cp, in both bands alike.
                let every = (1.0 / share).round().max(1.0) as usize;
                run(&format!("e{elo}"), Some(elo), 400, move |i| {
                    if (i / 2) % every == 0 { 200 } else { 0 }
                })
            })
            .collect()
    }

    #[test]
    fn the_line_orders_the_engines_and_places_the_people_where_their_loss_falls() {
        let runs = engines();
        let settings = Settings {
            measure: Measure::Score,
            band_width: 200,
            resamples: 50,
            seed: 1,
        };
        let r = measure(&runs, settings).expect("report");
        assert_eq!(r.positions, 400);
        assert_eq!(r.bands.len(), 2);
        let score = &r.validation[0];
        assert_eq!(score.measure, Measure::Score);
        assert!(
            (score.spearman.expect("rho") - 1.0).abs() < 1e-9,
            "{score:?}"
        );
        // Loss halving every 200 Elo: a slope of -200 / ln 2 (about -289), up to rounding.
        assert!((r.line.beta + 288.5).abs() < 40.0, "{:?}", r.line);
        assert!(r.loo_rmse < 60.0, "{}", r.loo_rmse);
        // The people of band 1000 lose 120 cp every move, those of band 1800 60: more
        // expected score lost, a lower rating.
        let (low, high) = (&r.bands[0], &r.bands[1]);
        assert_eq!(
            (low.band.as_str(), high.band.as_str()),
            ("1000-1199", "1800-1999")
        );
        let (lr, hr) = (
            low.rating.expect("rating").value,
            high.rating.expect("rating").value,
        );
        assert!(lr < hr, "{lr} {hr}");
        let e = high.rating.expect("rating");
        assert!(e.low <= e.value && e.value <= e.high, "{e:?}");
        // An unrated run is placed by the line: one that plays as e1500 reads about 1500.
        let mut with = engines();
        let like = with[2].lines.clone();
        with.push(Run {
            label: "x".into(),
            game_elo: None,
            lines: like,
        });
        let r = measure(&with, settings).expect("report");
        let x = r.runs.last().expect("x").rating.expect("placed").value;
        assert!((x - 1500.0).abs() < 60.0, "{x}");
    }

    #[test]
    fn runs_on_other_positions_or_unjudged_are_refused_naming_the_run() {
        let mut runs = engines();
        runs[3].lines[7].fen = "other".into();
        let settings = Settings {
            measure: Measure::Score,
            band_width: 200,
            resamples: 0,
            seed: 1,
        };
        let e = measure(&runs, settings).expect_err("refused").to_string();
        assert!(e.contains("e1700") && e.contains("position 8"), "{e}");
        let mut runs = engines();
        runs[1].lines[4].loss = None;
        let e = measure(&runs, settings).expect_err("refused").to_string();
        assert!(e.contains("e1300") && e.contains("position 5"), "{e}");
        let runs: Vec<Run> = engines()
            .into_iter()
            .map(|mut r| {
                r.game_elo = None;
                r
            })
            .take(2)
            .collect();
        assert!(matches!(
            measure(&runs, settings),
            Err(ScaleError::TooFewRated(0))
        ));
    }
}
