//! The check by clock: for each time control of the held-out games, people's seconds a move
//! against the pacing model's, by move-number band, and the model's rank correlation; with a
//! chart of one line a control.

use std::collections::BTreeMap;

use precedent::think::PaceModel;
use rand::SeedableRng;
use serde::Serialize;

use super::{Row, TimeFitError, as_recorded, rank_correlation};

/// The move-number bands of the check: 1–10, 11–25, 26–40, 41 and later.
pub const BANDS: [(u32, u32); 4] = [(1, 10), (11, 25), (26, 40), (41, u32::MAX)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_second_median_interpolates_within_its_second() {
        assert_eq!(whole_second_median(&[3.0, 3.0, 3.0, 3.0]), 3.0);
        // Half the times below 3 s and a quarter at 3: the median sits at the bottom of 3's
        // second.
        assert_eq!(whole_second_median(&[1.0, 2.0, 3.0, 5.0]), 2.5);
        // One of five below 6 s, three at 6: 5.5 + (2.5 − 1) / 3 = 6.0.
        assert!((whole_second_median(&[0.0, 6.0, 6.0, 6.0, 9.0]) - 6.0).abs() < 1e-12);
        assert!(whole_second_median(&[]).is_nan());
    }
}

/// Fewest held-out moves of a control for it to be checked.
const MIN_MOVES: usize = 100;

/// The median of times in whole seconds, interpolated as grouped data (a time recorded as k
/// seconds spread evenly over k − 0.5..k + 0.5), so that medians of a few seconds compare by
/// more than whole steps; NaN without times.
pub fn whole_second_median(times: &[f64]) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    let mut v: Vec<f64> = times.iter().map(|t| t.round()).collect();
    v.sort_by(f64::total_cmp);
    let k = v[v.len() / 2];
    let below = v.partition_point(|&t| t < k) as f64;
    let at = (v.partition_point(|&t| t <= k) as f64 - below).max(1.0);
    (k - 0.5 + (v.len() as f64 / 2.0 - below) / at).max(0.0)
}

/// People against the model in one move-number band of one control.
#[derive(Clone, Debug, Serialize)]
pub struct BandCheck {
    /// The band's first and last move number (`u32::MAX`: no end).
    pub band: (u32, u32),
    /// Held-out moves in the band.
    pub moves: usize,
    /// People's median ([`whole_second_median`]) and mean seconds.
    pub people: (f64, f64),
    /// The median and mean of the model's drawn times (what `HumanTime` plays), read as a
    /// whole-second clock records them, as people's are (the median as people's).
    pub drawn: (f64, f64),
    /// The median of the model's median prediction (seconds, not rounded).
    pub predicted: f64,
}

impl BandCheck {
    /// The drawn median over people's (`None` when people's is 0 s).
    pub fn ratio(&self) -> Option<f64> {
        (self.people.0 > 0.0).then(|| self.drawn.0 / self.people.0)
    }
}

/// The check of one time control.
#[derive(Clone, Debug, Serialize)]
pub struct ClockCheck {
    /// The control, `base+increment`.
    pub control: String,
    /// Its starting clock, seconds (`u32::MAX` for the long controls together).
    pub base: u32,
    /// Held-out player-games and moves.
    pub games: usize,
    /// Held-out moves.
    pub moves: usize,
    /// By move-number band ([`BANDS`]; a band without moves is left out).
    pub bands: Vec<BandCheck>,
    /// The model's median prediction: mean within-game rank correlation with people's times,
    /// and its 95 % interval, over player-games of at least 10 timed moves.
    pub rank: (f64, (f64, f64)),
    /// Player-games in the rank correlation.
    pub ranked_games: usize,
}

/// Starting clocks from which games are also checked together, seconds (5 minutes).
pub const LONG: u32 = 300;

/// The check of every control with at least [`MIN_MOVES`] held-out moves, shortest first, then
/// of every game of at least [`LONG`] seconds together (`300+ all`).
pub fn check(rows: &[Row], model: &PaceModel, seed: u64) -> Vec<ClockCheck> {
    let mut groups: BTreeMap<(u32, u32), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        groups
            .entry((r.base as u32, r.increment as u32))
            .or_default()
            .push(r);
    }
    let long: Vec<&Row> = rows.iter().filter(|r| r.base >= f64::from(LONG)).collect();
    let mut named: Vec<(String, u32, Vec<&Row>)> = groups
        .into_iter()
        .map(|((base, inc), rows)| (format!("{base}+{inc}"), base, rows))
        .collect();
    named.push((format!("{LONG}+ all"), u32::MAX, long));
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    named
        .into_iter()
        .filter(|(_, _, rows)| rows.len() >= MIN_MOVES)
        .map(|(control, base, rows)| {
            let drawn: Vec<f64> = rows
                .iter()
                .enumerate()
                .map(|(i, r)| as_recorded(model.sample_seconds(&r.x, &mut rng), i))
                .collect();
            let predicted: Vec<f64> = rows.iter().map(|r| model.median_seconds(&r.x)).collect();
            let bands = BANDS
                .iter()
                .filter_map(|&band| band_check(&rows, &drawn, &predicted, band))
                .collect();
            let owned: Vec<Row> = rows.iter().map(|r| (*r).clone()).collect();
            let (rank, interval, ranked_games) = rank_correlation(&owned, &predicted);
            let games: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.group).collect();
            ClockCheck {
                control,
                base,
                games: games.len(),
                moves: rows.len(),
                bands,
                rank: (rank, interval),
                ranked_games,
            }
        })
        .collect()
}

/// People and the model in one band; `None` when the band has no move.
fn band_check(
    rows: &[&Row],
    drawn: &[f64],
    predicted: &[f64],
    (first, last): (u32, u32),
) -> Option<BandCheck> {
    let at: Vec<usize> = (0..rows.len())
        .filter(|&i| (first..=last).contains(&rows[i].fullmove))
        .collect();
    if at.is_empty() {
        return None;
    }
    let pick = |v: &dyn Fn(usize) -> f64| at.iter().map(|&i| v(i)).collect::<Vec<f64>>();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let people = pick(&|i| rows[i].seconds);
    let drawn = pick(&|i| drawn[i]);
    Some(BandCheck {
        band: (first, last),
        moves: at.len(),
        people: (whole_second_median(&people), mean(&people)),
        drawn: (whole_second_median(&drawn), mean(&drawn)),
        predicted: super::median(pick(&|i| predicted[i])),
    })
}

/// The band's label: `1–10`, `41+`.
pub fn band_label((first, last): (u32, u32)) -> String {
    if last == u32::MAX {
        format!("{first}+")
    } else {
        format!("{first}–{last}")
    }
}

/// Writes the check as text, one line a control and band.
pub fn write(f: &mut std::fmt::Formatter<'_>, checks: &[ClockCheck]) -> std::fmt::Result {
    writeln!(
        f,
        "by clock (held-out games; seconds a move, people against HumanTime's drawn times):"
    )?;
    writeln!(
        f,
        "  {:<9} {:>6} {:>22} {:>6} {:>7} {:>15} {:>15} {:>7} {:>6}",
        "control",
        "games",
        "rank corr. (95 %)",
        "moves",
        "band",
        "people med/mean",
        "drawn med/mean",
        "median",
        "ratio"
    )?;
    for c in checks {
        for (i, b) in c.bands.iter().enumerate() {
            let head = if i == 0 {
                format!(
                    "  {:<9} {:>6} {:>6.3} ({:.3}..{:.3})",
                    c.control, c.games, c.rank.0, c.rank.1.0, c.rank.1.1
                )
            } else {
                format!("  {:<9} {:>6} {:>22}", "", "", "")
            };
            writeln!(
                f,
                "{head} {:>6} {:>7} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>6}",
                b.moves,
                band_label(b.band),
                b.people.0,
                b.people.1,
                b.drawn.0,
                b.drawn.1,
                b.predicted,
                b.ratio().map_or("–".into(), |r| format!("{r:.2}"))
            )?;
        }
    }
    Ok(())
}

/// Seconds a move by move number, one line a control: people's median (solid) and the
/// model's drawn times' median (dashed), on a log scale; moves in 5-move bins.
pub fn chart(rows: &[Row], model: &PaceModel, seed: u64) -> Result<String, TimeFitError> {
    use plotters::prelude::*;
    const BIN: u32 = 5;
    const MOVES: u32 = 60;
    let checks = check(rows, model, seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut lines = Vec::new();
    for c in checks.iter().filter(|c| c.base != u32::MAX) {
        let mut bins: BTreeMap<u32, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
        for r in rows.iter().filter(|r| {
            format!("{}+{}", r.base as u32, r.increment as u32) == c.control && r.fullmove <= MOVES
        }) {
            let bin = bins.entry((r.fullmove - 1) / BIN).or_default();
            bin.0.push(r.seconds);
            let i = bin.1.len();
            bin.1
                .push(as_recorded(model.sample_seconds(&r.x, &mut rng), i));
        }
        let line = |k: usize| -> Vec<(f64, f64)> {
            bins.iter()
                .filter(|(_, v)| v.0.len() >= 20)
                .map(|(b, v)| {
                    let values = if k == 0 { v.0.clone() } else { v.1.clone() };
                    let at = f64::from(b * BIN) + f64::from(BIN + 1) / 2.0;
                    (at, whole_second_median(&values) + 0.5)
                })
                .collect()
        };
        lines.push((c.control.clone(), line(0), line(1)));
    }
    let top = lines
        .iter()
        .flat_map(|l| l.1.iter().chain(&l.2))
        .map(|p| p.1)
        .fold(2.0f64, f64::max)
        * 1.3;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 460)).into_drawing_area();
        let err = |e: &dyn std::fmt::Display| TimeFitError::Other(format!("chart: {e}"));
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut c = ChartBuilder::on(&root)
            .caption(
                "Median seconds a move by move number, each time control (held-out games)",
                ("sans-serif", 17),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(1f64..f64::from(MOVES), (0.4f64..top).log_scale())
            .map_err(|e| err(&e))?;
        c.configure_mesh()
            .x_desc("move number")
            .y_desc("median seconds + 0.5 (log)")
            .draw()
            .map_err(|e| err(&e))?;
        for (i, (control, people, drawn)) in lines.into_iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            c.draw_series(LineSeries::new(people, colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(format!("{control}: people (solid), HumanTime (dashed)"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour));
            c.draw_series(DashedLineSeries::new(drawn, 6, 4, colour.stroke_width(2)))
                .map_err(|e| err(&e))?;
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}
