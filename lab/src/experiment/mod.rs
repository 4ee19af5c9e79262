//! `precedent experiment`: the thesis' question, answered with statistics. Does a case base from
//! stronger players play stronger? One case base per rating band (or per player) is built from
//! the same games, the resulting engines play a round robin, and their Elo is set against the
//! rating of the players the cases came from.

mod run;

pub use run::{ExperimentConfig, ExperimentError, run};

use serde::Serialize;

use crate::positions::parse_bands;
use crate::stats::{normal_cdf, normal_quantile};
use crate::tournament::MatchReport;

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

/// One group per band of `1000-1399,1400-1799,2200-` (an open end is allowed on either side).
pub fn band_groups(s: &str) -> Result<Vec<Group>, String> {
    Ok(parse_bands(s)?
        .into_iter()
        .map(|b| Group {
            label: b.label,
            min_elo: b.min_elo,
            max_elo: b.max_elo,
            player: None,
        })
        .collect())
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
    /// Its standard error (Elo per 100 rating points).
    pub se: f64,
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
    /// How the sequential test ended: `effect` (slope significantly different from zero),
    /// `absent` (slope within ±min_effect), or `undecided`.
    pub decision: Conclusion,
    /// Stages played.
    pub stages: usize,
    /// Games per pair played.
    pub games_per_pair: usize,
    /// Games per pair a fixed round robin would need to detect the slope seen (two-sided 5 %,
    /// power 80 %), when there is a slope.
    pub games_per_pair_needed: Option<f64>,
    /// Path of the SVG chart written, if any.
    pub svg: Option<String>,
    /// The full report of the round robin.
    #[serde(rename = "match")]
    pub match_report: MatchReport,
}

/// How the sequential test ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    /// The slope of Elo on rating differs from zero (at the stage-corrected level).
    Effect,
    /// The slope's interval lies within ±min_effect: no effect that matters.
    Absent,
    /// Neither, after the last stage.
    Undecided,
}

impl std::fmt::Display for ExperimentReport {
    /// The report as `precedent experiment` prints it: the match, then the case bases.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.match_report)?;
        writeln!(
            f,
            "{:<16} {:>9} {:>11} {:>8} {:>8}  95% interval",
            "case base", "cases", "mean elo", "games", "Elo"
        )?;
        for p in &self.players {
            writeln!(
                f,
                "{:<16} {:>9} {:>11} {:>8} {:>8.0}  [{:.0}, {:.0}]",
                p.name,
                p.cases,
                p.mean_mover_elo.map_or("-".into(), |e| format!("{e:.0}")),
                p.games,
                p.elo,
                p.ci_low,
                p.ci_high
            )?;
        }
        if let (Some(rho), Some(pv)) = (self.spearman, self.p_value) {
            writeln!(
                f,
                "Spearman rank correlation of rating and Elo: {rho:.3} (two-sided p = {pv:.4})"
            )?;
        }
        writeln!(f, "{}", self.answer)?;
        if let Some(svg) = &self.svg {
            writeln!(f, "chart: {svg}")?;
        }
        Ok(())
    }
}

/// The significance level of one look when `stages` looks share 5 % (Bonferroni: valid
/// however the stages fall, a little conservative).
pub fn stage_alpha(stages: usize) -> f64 {
    0.05 / stages.max(1) as f64
}

/// The decision after a look at `slope` with `stages` looks in all.
pub fn decide(slope: Option<&Slope>, stages: usize, min_effect: f64) -> Conclusion {
    let Some(s) = slope else {
        return Conclusion::Undecided;
    };
    let alpha = stage_alpha(stages);
    if s.p_value < alpha {
        return Conclusion::Effect;
    }
    // The (1 − alpha) interval.
    let se = s.se;
    let z = normal_quantile(1.0 - alpha / 2.0);
    if min_effect > 0.0
        && se.is_finite()
        && s.per_100 - z * se > -min_effect
        && s.per_100 + z * se < min_effect
    {
        return Conclusion::Absent;
    }
    Conclusion::Undecided
}

/// Games per pair a fixed design needs to find `slope` at two-sided 5 % with 80 % power, from
/// its standard error after `games_per_pair` games (the error shrinks as 1/√games).
pub fn games_needed(slope: &Slope, games_per_pair: usize) -> Option<f64> {
    let se = slope.se;
    if slope.per_100 == 0.0 || !se.is_finite() || se <= 0.0 {
        return None;
    }
    let ratio = (1.96 + 0.8416) * se / slope.per_100.abs();
    Some(games_per_pair as f64 * ratio * ratio)
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
        se: se_slope * 100.0,
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

    fn slope(per_100: f64, se: f64, p_value: f64) -> Slope {
        Slope {
            per_100,
            ci_low: per_100 - 1.96 * se,
            ci_high: per_100 + 1.96 * se,
            se,
            p_value,
        }
    }

    #[test]
    fn the_sequential_test_decides_for_an_effect_for_its_absence_or_not_at_all() {
        // Five looks share 5 %: p = 0.02 is not enough, p = 0.005 is.
        assert_eq!(stage_alpha(5), 0.01);
        assert_eq!(
            decide(Some(&slope(30.0, 12.0, 0.02)), 5, 10.0),
            Conclusion::Undecided
        );
        assert_eq!(
            decide(Some(&slope(30.0, 9.0, 0.005)), 5, 10.0),
            Conclusion::Effect
        );
        assert_eq!(
            decide(Some(&slope(30.0, 12.0, 0.02)), 1, 10.0),
            Conclusion::Effect
        );
        // A slope near zero, known to ±2.5 at 99 %: no effect of 10 Elo per 100 points.
        assert_eq!(
            decide(Some(&slope(1.0, 1.0, 0.3)), 5, 10.0),
            Conclusion::Absent
        );
        // The same slope known to ±8: neither.
        assert_eq!(
            decide(Some(&slope(1.0, 4.0, 0.8)), 5, 10.0),
            Conclusion::Undecided
        );
        // Without a smallest effect that matters, absence is never decided.
        assert_eq!(
            decide(Some(&slope(1.0, 1.0, 0.3)), 5, 0.0),
            Conclusion::Undecided
        );
        assert_eq!(decide(None, 5, 10.0), Conclusion::Undecided);
    }

    #[test]
    fn games_needed_scale_with_the_square_of_the_error_over_the_effect() {
        // z = 1: (1.96 + 0.84)² ≈ 7.85 times the games played.
        let n = games_needed(&slope(10.0, 10.0, 0.3), 20).expect("needed");
        assert!((n - 20.0 * 7.849).abs() < 0.1, "{n}");
        assert!(games_needed(&slope(0.0, 10.0, 1.0), 20).is_none());
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
