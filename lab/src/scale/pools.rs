//! One person's ratings in two pools: Lichess rates bullet, blitz, rapid and classical apart,
//! so the same player holds a rating in each. From the players who played in two pools, each
//! with their two ratings nearest in time (within a window), the difference between the pools,
//! by band of the first pool's rating.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use precedent::pgn::{Selection, Speed, for_each_game};
use serde::Serialize;
use shakmaty::Color;

use super::ScaleError;
use crate::stats::t_quantile_975;

/// A day number from a PGN date `YYYY.MM.DD` (days since year 0, months of 31 days: only
/// differences of a few hundred days are compared); `None` for an unknown date.
fn day_of(date: &str) -> Option<i64> {
    let mut parts = date.split('.');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some(y * 372 + (m - 1) * 31 + d)
}

/// Each player's ratings by pool: (day, rating) of every game.
type Ratings = HashMap<String, BTreeMap<Speed, Vec<(i64, u16)>>>;

/// Every rated player's ratings, by pool, in the games of `pgns` (names compared without
/// case).
fn ratings(pgns: &[impl AsRef<Path>]) -> Result<Ratings, ScaleError> {
    let mut by: Ratings = HashMap::new();
    let nobody = Selection {
        players: vec![String::from("\0")],
        ..Selection::default()
    };
    for pgn in pgns {
        let name = pgn.as_ref().display().to_string();
        for_each_game::<ScaleError>(&name, &nobody, |_, visitor, _| {
            let h = &visitor.game().header;
            let Some(day) = day_of(&h.date) else {
                return Ok(true);
            };
            let speed = Speed::of_control(h.time_control);
            for side in [Color::White, Color::Black] {
                if let Some(elo) = h.elo(side) {
                    by.entry(h.player(side).to_lowercase())
                        .or_default()
                        .entry(speed)
                        .or_default()
                        .push((day, elo));
                }
            }
            Ok(true)
        })?;
    }
    Ok(by)
}

/// The two ratings of `a` and `b` (each in order of day) nearest in time, and how many days
/// apart.
fn nearest(a: &[(i64, u16)], b: &[(i64, u16)]) -> Option<(u16, u16, i64)> {
    let (mut i, mut j) = (0, 0);
    let mut best: Option<(u16, u16, i64)> = None;
    while i < a.len() && j < b.len() {
        let gap = (a[i].0 - b[j].0).abs();
        if best.is_none_or(|x| gap < x.2) {
            best = Some((a[i].1, b[j].1, gap));
        }
        if a[i].0 < b[j].0 {
            i += 1;
        } else {
            j += 1;
        }
    }
    best
}

/// The difference between two pools in one band of the first pool's rating.
#[derive(Clone, Debug, Serialize)]
pub struct PoolBand {
    /// The band of the first pool's rating, as `1600-1999`.
    pub band: String,
    /// Players in it.
    pub players: usize,
    /// The mean of (second pool's rating − first's).
    pub mean: f64,
    /// Lower end of its 95 % interval (Student's t).
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// The median difference.
    pub median: f64,
}

/// Two pools compared.
#[derive(Clone, Debug, Serialize)]
pub struct PoolPair {
    /// The first pool.
    pub from: String,
    /// The second.
    pub to: String,
    /// Players with ratings in both, within the window.
    pub players: usize,
    /// By band of the first pool's rating.
    pub bands: Vec<PoolBand>,
    /// All of them.
    pub all: Option<PoolBand>,
}

/// The difference of `diffs` as a band's row.
fn band_row(band: String, diffs: &mut [f64]) -> Option<PoolBand> {
    let n = diffs.len();
    if n == 0 {
        return None;
    }
    diffs.sort_by(f64::total_cmp);
    let mean = diffs.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let half = t_quantile_975(n.saturating_sub(1)) * (var / n as f64).sqrt();
    let median = if n % 2 == 1 {
        diffs[n / 2]
    } else {
        (diffs[n / 2 - 1] + diffs[n / 2]) / 2.0
    };
    Some(PoolBand {
        band,
        players: n,
        mean,
        ci_low: mean - half,
        ci_high: mean + half,
        median,
    })
}

/// Every pair of pools in the games of `pgns` that some player played both of, each player's
/// two ratings nearest in time and at most `within_days` apart, by `band_width` bands of the
/// first pool (the faster) rating.
pub fn compare_pools(
    pgns: &[impl AsRef<Path>],
    within_days: i64,
    band_width: u16,
) -> Result<Vec<PoolPair>, ScaleError> {
    let mut by = ratings(pgns)?;
    for list in by.values_mut().flat_map(|pools| pools.values_mut()) {
        list.sort_unstable();
    }
    let speeds = [Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical];
    let width = band_width.max(1);
    let mut out = Vec::new();
    for (i, &from) in speeds.iter().enumerate() {
        for &to in &speeds[i + 1..] {
            let mut pairs: Vec<(u16, f64)> = Vec::new();
            for pools in by.values() {
                let (Some(a), Some(b)) = (pools.get(&from), pools.get(&to)) else {
                    continue;
                };
                if let Some((ra, rb, gap)) = nearest(a, b)
                    && gap <= within_days
                {
                    pairs.push((ra, f64::from(rb) - f64::from(ra)));
                }
            }
            if pairs.is_empty() {
                continue;
            }
            let mut bands: BTreeMap<u16, Vec<f64>> = BTreeMap::new();
            for &(ra, d) in &pairs {
                bands.entry(ra / width * width).or_default().push(d);
            }
            let mut all: Vec<f64> = pairs.iter().map(|p| p.1).collect();
            out.push(PoolPair {
                from: from.to_string(),
                to: to.to_string(),
                players: pairs.len(),
                bands: bands
                    .into_iter()
                    .filter_map(|(lo, mut d)| band_row(format!("{lo}-{}", lo + width - 1), &mut d))
                    .collect(),
                all: band_row("all".into(), &mut all),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_players_two_ratings_nearest_in_time_give_the_pools_difference() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = |w: &str, we: u16, b: &str, be: u16, date: &str, tc: &str| {
            format!(
                "[Date \"{date}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[WhiteElo \"{we}\"]\n\
                 [BlackElo \"{be}\"]\n[TimeControl \"{tc}\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n"
            )
        };
        let text = [
            // Ann: bullet 1500 in January, blitz 1600 in February and 1900 three years on.
            game("Ann", 1500, "x", 1500, "2020.01.10", "60+0"),
            game("ann", 1600, "y", 1500, "2020.02.10", "180+0"),
            game("y", 1500, "ANN", 1900, "2023.02.10", "180+0"),
            // Bob: bullet 1700, blitz 1650 a week later.
            game("Bob", 1700, "z", 1500, "2021.05.01", "30+0"),
            game("z", 1500, "Bob", 1650, "2021.05.08", "300+3"),
            // Cy: bullet and blitz four years apart: outside the window.
            game("Cy", 1200, "z", 1500, "2015.05.01", "60+0"),
            game("Cy", 1800, "z", 1500, "2019.05.01", "180+0"),
            // Di: bullet, then rapid, then blitz: each pair of pools is counted.
            game("Di", 1300, "w", 1500, "2022.01.01", "60+0"),
            game("Di", 1400, "w", 1500, "2022.01.02", "600+0"),
            game("Di", 1350, "w", 1500, "2022.01.03", "180+0"),
        ]
        .concat();
        let path = dir.path().join("p.pgn");
        std::fs::write(&path, text).expect("write");
        let pairs = compare_pools(&[&path], 365, 200).expect("read");
        let bb = pairs
            .iter()
            .find(|p| p.from == "bullet" && p.to == "blitz")
            .expect("bullet and blitz");
        // Ann +100, Bob −50, Di +50, z and w +0 (z: bullet and blitz on Bob's and Cy's days;
        // w: Di's opponent); x and y played one pool each; Cy's two are four years apart.
        assert_eq!(bb.players, 5, "{bb:?}");
        let all = bb.all.as_ref().expect("all");
        assert!((all.mean - 20.0).abs() < 1e-9, "{all:?}");
        assert_eq!(all.median, 0.0);
        let bands: Vec<&str> = bb.bands.iter().map(|b| b.band.as_str()).collect();
        assert_eq!(bands, ["1200-1399", "1400-1599", "1600-1799"]);
        // Di also has rapid (w too, +0): bullet to rapid +100, blitz to rapid +50.
        let rapid = |from: &str| {
            let p = pairs
                .iter()
                .find(|p| p.from == from && p.to == "rapid")
                .expect("pair");
            (p.players, p.all.as_ref().expect("all").mean)
        };
        assert_eq!(rapid("bullet"), (2, 50.0));
        assert_eq!(rapid("blitz"), (2, 25.0));
        assert_eq!(day_of("2020.13.01"), None);
        assert_eq!(day_of("????.??.??"), None);
    }
}
