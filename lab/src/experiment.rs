//! `precedent experiment`: the thesis' question, answered with statistics. Does a case base from
//! stronger players play stronger? One case base per rating band (or per player) is built from
//! the same games, the resulting engines play a round robin, and their Elo is set against the
//! rating of the players the cases came from.

use std::path::PathBuf;

use serde::Serialize;

use crate::Progress;
use crate::rating::{normal_cdf, spearman, spearman_p_value};
use crate::tournament::player::PlayerSpec;
use crate::tournament::{MatchConfig, MatchReport, Pairing, run as run_match};
use precedent::casebase::build::{BuildConfig, build};
use precedent::casebase::{BuildOptions, CaseBase};
use precedent::engine::config::EngineConfig;

/// One case base of the experiment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Its name as given (`1400-1799` or a player's name): the engine's name in the match.
    pub label: String,
    /// Lowest mover rating whose moves become cases (Elo); `None` = no lower bound.
    pub min_elo: Option<u16>,
    /// Highest mover rating whose moves become cases (Elo); `None` = no upper bound.
    pub max_elo: Option<u16>,
    /// Only this player's moves become cases; `None` = any player in the band.
    pub player: Option<String>,
}

/// Parses `1000-1399,1400-1799,2200-` (an open end is allowed on either side).
pub fn parse_bands(s: &str) -> Result<Vec<Group>, String> {
    s.split(',')
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            let b = b.trim();
            let (lo, hi) = b
                .split_once('-')
                .ok_or_else(|| format!("band {b:?}: expected LOW-HIGH, LOW- or -HIGH"))?;
            let num = |t: &str| -> Result<Option<u16>, String> {
                if t.trim().is_empty() {
                    Ok(None)
                } else {
                    t.trim()
                        .parse()
                        .map(Some)
                        .map_err(|_| format!("band {b:?}: {t:?} is not a rating"))
                }
            };
            let (min_elo, max_elo) = (num(lo)?, num(hi)?);
            if let (Some(l), Some(h)) = (min_elo, max_elo)
                && l > h
            {
                return Err(format!("band {b:?}: low end above high end"));
            }
            if min_elo.is_none() && max_elo.is_none() {
                return Err(format!("band {b:?}: give at least one end"));
            }
            Ok(Group {
                label: b.to_string(),
                min_elo,
                max_elo,
                player: None,
            })
        })
        .collect()
}

/// One group per player name.
pub fn player_groups(s: &str) -> Vec<Group> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| Group {
            label: p.to_string(),
            min_elo: None,
            max_elo: None,
            player: Some(p.to_string()),
        })
        .collect()
}

/// Everything the experiment needs.
#[derive(Clone, Debug)]
pub struct ExperimentConfig {
    /// PGN inputs every case base is built from (`-` = stdin).
    pub pgn: Vec<String>,
    /// The case bases to build, one engine each (at least two).
    pub groups: Vec<Group>,
    /// Where the case bases (and the PGN of the games) are written.
    pub out_dir: PathBuf,
    /// Plies skipped at the start of each game when building.
    pub skip_plies: u32,
    /// Build each case base from at most this many games.
    pub max_games: Option<u64>,
    /// The reasoner's settings, the same for every group's engine.
    pub reasoner: EngineConfig,
    /// The match settings; its players are replaced by the groups' engines.
    pub matches: MatchConfig,
    /// Where to write the SVG chart; `None` = no chart.
    pub svg: Option<PathBuf>,
}

/// One group's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct GroupResult {
    /// The group's label.
    pub name: String,
    /// Cases in its case base.
    pub cases: u64,
    /// Games its cases came from.
    pub source_games: u64,
    /// Mean rating of the movers of its cases (the x of the chart).
    pub mean_mover_elo: Option<f64>,
    /// Games its engine played in the round robin.
    pub games: u64,
    /// Points its engine scored (1 a win, ½ a draw).
    pub score: f64,
    /// Its engine's maximum-likelihood Elo over the round robin (mean of all engines = 0).
    pub elo: f64,
    /// Lower end of the 95 % confidence interval of `elo` (Elo).
    pub ci_low: f64,
    /// Upper end of the 95 % confidence interval of `elo` (Elo).
    pub ci_high: f64,
}

/// Elo gained per 100 rating points of the case base, from a weighted least-squares line.
#[derive(Clone, Debug, Serialize)]
pub struct Slope {
    /// Engine Elo gained per 100 points of mean mover rating.
    pub per_100: f64,
    /// Lower end of its 95 % confidence interval (Elo per 100 rating points).
    pub ci_low: f64,
    /// Upper end of its 95 % confidence interval (Elo per 100 rating points).
    pub ci_high: f64,
    /// Two-sided p-value of a zero slope (normal approximation).
    pub p_value: f64,
}

/// The experiment's answer.
#[derive(Clone, Debug, Serialize)]
pub struct ExperimentReport {
    /// One result per group, in the order given.
    pub players: Vec<GroupResult>,
    /// Spearman's rank correlation of engine Elo with mean mover rating; `None` when the
    /// groups cannot be ranked (fewer than three, a group without rated movers, ties).
    pub spearman: Option<f64>,
    /// Two-sided p-value of `spearman` (no association as the null hypothesis).
    pub p_value: Option<f64>,
    /// Weighted least-squares slope of Elo on rating; `None` when it cannot be fitted.
    pub slope: Option<Slope>,
    /// The answer to the question, in plain English.
    pub answer: String,
    /// Path of the SVG chart written, if any.
    pub svg: Option<String>,
    /// The full report of the round robin.
    #[serde(rename = "match")]
    pub match_report: MatchReport,
}

/// Why the experiment failed.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The setup cannot work (fewer than two groups, a group without cases, a chart error).
    #[error("{0}")]
    Config(String),
    /// A group's case base could not be built.
    #[error("building the case base of {group}: {source}")]
    Build {
        /// The group's label.
        group: String,
        /// Why the build failed.
        source: precedent::casebase::build::BuildError,
    },
    /// A built case base could not be opened.
    #[error(transparent)]
    CaseBase(#[from] precedent::casebase::CaseBaseError),
    /// The round robin could not run.
    #[error(transparent)]
    Match(#[from] crate::tournament::MatchError),
    /// The output directory or the chart could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The path that could not be written.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

fn mean_mover_elo(cb: &CaseBase) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u64);
    for i in 0..cb.len() {
        if let Some(e) = cb.mover_elo(i) {
            sum += f64::from(e);
            n += 1;
        }
    }
    (n > 0).then(|| sum / n as f64)
}

/// Weighted least squares of Elo on rating (weights 1/se²), slope per 100 rating points.
pub fn weighted_slope(x: &[f64], y: &[f64], se: &[f64]) -> Option<Slope> {
    let w: Vec<f64> = se
        .iter()
        .map(|s| {
            if *s > 0.0 && s.is_finite() {
                1.0 / (s * s)
            } else {
                0.0
            }
        })
        .collect();
    let sw: f64 = w.iter().sum();
    if x.len() < 3 || sw <= 0.0 {
        return None;
    }
    let mx = x.iter().zip(&w).map(|(x, w)| x * w).sum::<f64>() / sw;
    let my = y.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>() / sw;
    let sxx: f64 = x.iter().zip(&w).map(|(x, w)| w * (x - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = x
        .iter()
        .zip(y)
        .zip(&w)
        .map(|((x, y), w)| w * (x - mx) * (y - my))
        .sum();
    let slope = sxy / sxx;
    let se_slope = (1.0 / sxx).sqrt();
    let z = slope / se_slope;
    Some(Slope {
        per_100: slope * 100.0,
        ci_low: (slope - 1.96 * se_slope) * 100.0,
        ci_high: (slope + 1.96 * se_slope) * 100.0,
        p_value: 2.0 * (1.0 - normal_cdf(z.abs())),
    })
}

/// The plain-language answer.
pub fn answer(
    n: usize,
    rho: Option<f64>,
    p: Option<f64>,
    slope: Option<&Slope>,
    games: u64,
) -> String {
    let (Some(rho), Some(p)) = (rho, p) else {
        return format!(
            "No answer: the {n} case bases could not be ranked (fewer than three, or equal ratings)."
        );
    };
    let slope_text = slope
        .map(|s| format!(" Elo changes by {:+.0} per 100 rating points of the case base's players (95% CI {:+.0} to {:+.0}, p = {:.3}).", s.per_100, s.ci_low, s.ci_high, s.p_value))
        .unwrap_or_default();
    let floor = if n <= 4 {
        // With n items the smallest two-sided exact p-value is 2/n!.
        let fact: f64 = (1..=n).map(|k| k as f64).product();
        format!(
            " With only {n} case bases the rank test cannot reach p < {:.3}; more bands give it power.",
            2.0 / fact
        )
    } else {
        String::new()
    };
    if p < 0.05 && rho > 0.0 {
        format!(
            "Yes: over {games} games, the stronger the players a case base comes from, the stronger Precedent plays with it (Spearman ρ = {rho:.2}, p = {p:.3}).{slope_text}"
        )
    } else if p < 0.05 {
        format!(
            "No, the reverse: over {games} games, case bases from stronger players made Precedent play weaker (Spearman ρ = {rho:.2}, p = {p:.3}).{slope_text}"
        )
    } else {
        format!(
            "Not shown: over {games} games, the ordering of the case bases by their players' rating does not significantly predict their Elo (Spearman ρ = {rho:.2}, p = {p:.3}).{slope_text}{floor}"
        )
    }
}

/// Runs the experiment; case-base builds and the match report to `progress`.
pub fn run(
    cfg: &ExperimentConfig,
    progress: &dyn Progress,
) -> Result<ExperimentReport, ExperimentError> {
    if cfg.groups.len() < 2 {
        return Err(ExperimentError::Config(
            "an experiment needs at least two bands or players".into(),
        ));
    }
    std::fs::create_dir_all(&cfg.out_dir).map_err(|source| ExperimentError::Write {
        path: cfg.out_dir.display().to_string(),
        source,
    })?;
    let mut players = Vec::new();
    let mut built = Vec::new();
    for g in &cfg.groups {
        let file = cfg.out_dir.join(format!("{}.cb", sanitize(&g.label)));
        let options = BuildOptions {
            players: g.player.iter().cloned().collect(),
            min_elo: g.min_elo,
            max_elo: g.max_elo,
            skip_plies: cfg.skip_plies,
            max_games: cfg.max_games,
            ..BuildOptions::default()
        };
        progress.note(&format!("building {} …", file.display()));
        let summary = build(
            &BuildConfig {
                inputs: cfg.pgn.clone(),
                out: file.clone(),
                options,
                strict: false,
            },
            &mut |_| {},
        )
        .map_err(|source| ExperimentError::Build {
            group: g.label.clone(),
            source,
        })?;
        if summary.cases == 0 {
            return Err(ExperimentError::Config(format!(
                "{}: no case for this group in the input",
                g.label
            )));
        }
        let cb = CaseBase::open(&file)?;
        built.push((summary.cases, summary.games_used, mean_mover_elo(&cb)));
        players.push(PlayerSpec::Precedent {
            name: g.label.clone(),
            casebase: Some(file),
            config: cfg.reasoner.clone(),
        });
    }
    let matches = MatchConfig {
        players,
        pairing: Pairing::RoundRobin,
        anchor: None,
        ..cfg.matches.clone()
    };
    let report = run_match(&matches, progress)?;
    let results: Vec<GroupResult> = report
        .players
        .iter()
        .zip(&built)
        .map(|(p, (cases, games, mean))| GroupResult {
            name: p.name.clone(),
            cases: *cases,
            source_games: *games,
            mean_mover_elo: *mean,
            games: p.games,
            score: p.score,
            elo: p.elo,
            ci_low: p.ci_low,
            ci_high: p.ci_high,
        })
        .collect();
    let xs: Vec<f64> = results
        .iter()
        .map(|r| r.mean_mover_elo.unwrap_or(f64::NAN))
        .collect();
    let ys: Vec<f64> = results.iter().map(|r| r.elo).collect();
    let ses: Vec<f64> = results
        .iter()
        .map(|r| (r.ci_high - r.ci_low) / (2.0 * 1.96))
        .collect();
    let usable = xs.iter().all(|x| x.is_finite());
    let (rho, p) = if usable {
        (spearman(&xs, &ys), spearman_p_value(&xs, &ys))
    } else {
        (None, None)
    };
    let slope = if usable {
        weighted_slope(&xs, &ys, &ses)
    } else {
        None
    };
    let total_games = report.games.len() as u64;
    let answer = answer(results.len(), rho, p, slope.as_ref(), total_games);
    let svg = match &cfg.svg {
        Some(path) => {
            let text = chart(&results, &answer).map_err(ExperimentError::Config)?;
            std::fs::write(path, text).map_err(|source| ExperimentError::Write {
                path: path.display().to_string(),
                source,
            })?;
            Some(path.display().to_string())
        }
        None => None,
    };
    Ok(ExperimentReport {
        players: results,
        spearman: rho,
        p_value: p,
        slope,
        answer,
        svg,
        match_report: report,
    })
}

fn sanitize(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// An SVG chart of Elo (with 95 % intervals) against the mean rating of each case base's
/// players, with the answer as its caption.
pub fn chart(results: &[GroupResult], caption: &str) -> Result<String, String> {
    use plotters::prelude::*;

    let pts: Vec<(f64, &GroupResult)> = results
        .iter()
        .filter_map(|r| r.mean_mover_elo.map(|x| (x, r)))
        .collect();
    let (mut x0, mut x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), (x, _)| {
        (a.min(*x), b.max(*x))
    });
    let (mut y0, mut y1) = results.iter().fold((f64::MAX, f64::MIN), |(a, b), r| {
        (a.min(r.ci_low), b.max(r.ci_high))
    });
    if !(x0.is_finite() && x1.is_finite() && x1 > x0) {
        (x0, x1) = (x0.min(1000.0), x0.max(1000.0) + 100.0);
    }
    if !(y0.is_finite() && y1.is_finite() && y1 > y0) {
        (y0, y1) = (-100.0, 100.0);
    }
    // Room around the points for the labels.
    let (dx, dy) = ((x1 - x0) * 0.08, (y1 - y0) * 0.08);
    let (x0, x1, y0, y1) = (x0 - dx, x1 + dx, y0 - dy, y1 + dy);
    let blue = RGBColor(0x1f, 0x5f, 0xa8);
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut svg, (720, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (plot, foot) = root.split_vertically(390);
        let mut chart = ChartBuilder::on(&plot)
            .caption(
                "Precedent's Elo by the rating of its case base's players",
                ("sans-serif", 15),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("mean rating of the players whose moves are the cases")
            .y_desc("Elo (round robin, mean = 0), 95% interval")
            .draw()
            .map_err(|e| err(&e))?;
        if y0 < 0.0 && y1 > 0.0 {
            chart
                .draw_series(LineSeries::new([(x0, 0.0), (x1, 0.0)], BLACK.mix(0.4)))
                .map_err(|e| err(&e))?;
        }
        for (x, r) in &pts {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(*x, r.ci_low), (*x, r.ci_high)],
                    blue.stroke_width(2),
                )))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Circle::new((*x, r.elo), 4, blue.filled())))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Text::new(
                    r.name.clone(),
                    (*x, r.elo),
                    ("sans-serif", 12).into_font(),
                )))
                .map_err(|e| err(&e))?;
        }
        // The caption, wrapped to the width of the chart.
        let mut lines = vec![String::new()];
        for word in caption.split_whitespace() {
            let line = lines.last_mut().expect("one line at least");
            if line.len() + word.len() > 105 {
                lines.push(word.to_string());
            } else {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(word);
            }
        }
        for (i, line) in lines.iter().enumerate() {
            foot.draw_text(
                line,
                &("sans-serif", 11).into_font().color(&BLACK),
                (70, 10 + 14 * i as i32),
            )
            .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bands_with_open_ends() {
        let b = parse_bands("1000-1399, 1400-1799,2200-,-999").expect("bands");
        assert_eq!(b.len(), 4);
        assert_eq!((b[0].min_elo, b[0].max_elo), (Some(1000), Some(1399)));
        assert_eq!((b[2].min_elo, b[2].max_elo), (Some(2200), None));
        assert_eq!((b[3].min_elo, b[3].max_elo), (None, Some(999)));
        for bad in ["1800", "1800-1400", "-", "a-b"] {
            assert!(parse_bands(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn weighted_slope_recovers_a_line() {
        let x = [1200.0, 1600.0, 2000.0, 2400.0];
        let y = [-90.0, -30.0, 30.0, 90.0];
        let s = weighted_slope(&x, &y, &[20.0; 4]).expect("slope");
        assert!((s.per_100 - 15.0).abs() < 1e-9, "{s:?}");
        assert!(s.ci_low < 15.0 && s.ci_high > 15.0 && s.p_value < 1e-6);
        assert!(weighted_slope(&x[..2], &y[..2], &[1.0; 2]).is_none());
    }

    #[test]
    fn answer_says_yes_no_or_not_shown() {
        assert!(answer(6, Some(0.94), Some(0.005), None, 600).starts_with("Yes"));
        assert!(answer(6, Some(-0.94), Some(0.005), None, 600).starts_with("No, the reverse"));
        let weak = answer(4, Some(0.8), Some(0.33), None, 100);
        assert!(
            weak.starts_with("Not shown") && weak.contains("cannot reach p < 0.083"),
            "{weak}"
        );
    }

    #[test]
    fn chart_is_an_svg_with_a_point_per_group() {
        let r = |name: &str, x: f64, elo: f64| GroupResult {
            name: name.into(),
            cases: 1,
            source_games: 1,
            mean_mover_elo: Some(x),
            games: 10,
            score: 5.0,
            elo,
            ci_low: elo - 50.0,
            ci_high: elo + 50.0,
        };
        let svg = chart(
            &[r("a<b", 1200.0, -40.0), r("c", 1800.0, 40.0)],
            "caption & more",
        )
        .expect("chart");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("a&lt;b") && svg.contains("caption &amp; more"));
    }
}
