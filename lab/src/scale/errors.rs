//! How a run errs beside the people it is meant to play like: on the same positions, its
//! blunders (moves the judge rates [`BLUNDER_CP`] or more worse than its best) and the expected
//! score its moves give away ([`score_loss`]), against the humans' moves there, by phase of the
//! game. The targets of a level on its band's positions: blunders within
//! [`BLUNDER_TARGET_POINTS`] points of its people's, mean expected-score loss within
//! [`LOSS_TARGET_RATIO`] of theirs.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::run::Bootstrap;
use crate::eval::{BLUNDER_CP, OutcomeLine, phase, score_loss};
use crate::stats::{bootstrap_interval, paired_mean, wilson};

/// A run's blunder rate should lie within this many percentage points of its people's.
pub const BLUNDER_TARGET_POINTS: f64 = 1.5;
/// A run's mean expected-score loss should lie within this share of its people's.
pub const LOSS_TARGET_RATIO: f64 = 0.10;

/// One judged position as this report reads it.
struct Judged {
    phase: &'static str,
    value: i32,
    run: i32,
    human: i32,
}

/// A run's errors and its people's in one phase, on the same positions.
#[derive(Clone, Debug, Serialize)]
pub struct PhaseErrors {
    /// `plies 10-39`, `plies 40+` or `all`.
    pub phase: String,
    /// Positions judged.
    pub positions: usize,
    /// The run's blunder rate, with its 95 % (Wilson) interval.
    pub blunders: (f64, f64, f64),
    /// The people's blunder rate, with its interval.
    pub people_blunders: (f64, f64, f64),
    /// The run's rate minus the people's, in points, with its paired 95 % interval.
    pub blunders_delta: (f64, f64, f64),
    /// The run's mean expected-score loss.
    pub score_loss: f64,
    /// The people's.
    pub people_score_loss: f64,
    /// The run's over the people's, with a bootstrap 95 % interval over positions.
    pub loss_ratio: (f64, f64, f64),
    /// Whether both point estimates are within the targets.
    pub within: bool,
}

/// One run's report.
#[derive(Clone, Debug, Serialize)]
pub struct RunErrors {
    /// The run's label.
    pub run: String,
    /// The movers' ratings it was measured on (`all`, or a band such as `1400-1599`).
    pub band: String,
    /// By phase, then over all its positions.
    pub phases: Vec<PhaseErrors>,
}

/// The errors of a run's judged outcome lines, restricted to movers rated `band` (inclusive
/// bounds) when given; the bootstrap's draws for the ratio's interval.
/// `None` when no line in the band was judged.
pub fn errors_of(
    label: &str,
    lines: &[OutcomeLine],
    band: Option<(u16, u16)>,
    bootstrap: Bootstrap,
) -> Option<RunErrors> {
    let judged: Vec<Judged> = lines
        .iter()
        .filter(|l| band.is_none_or(|(lo, hi)| l.elo.is_some_and(|e| (lo..=hi).contains(&e))))
        .filter_map(|l| {
            Some(Judged {
                phase: phase(l.ply?),
                value: l.value?,
                run: l.loss?,
                human: l.human_loss?,
            })
        })
        .collect();
    if judged.is_empty() {
        return None;
    }
    let mut names: Vec<&'static str> = judged.iter().map(|j| j.phase).collect();
    names.sort_unstable();
    names.dedup();
    let (resamples, mut rng) = (bootstrap.resamples, StdRng::seed_from_u64(bootstrap.seed));
    let mut phases: Vec<PhaseErrors> = names
        .iter()
        .map(|&name| {
            let these: Vec<&Judged> = judged.iter().filter(|j| j.phase == name).collect();
            phase_errors(name, &these, resamples, &mut rng)
        })
        .collect();
    if names.len() > 1 {
        let all: Vec<&Judged> = judged.iter().collect();
        phases.push(phase_errors("all", &all, resamples, &mut rng));
    }
    Some(RunErrors {
        run: label.to_string(),
        band: band.map_or("all".into(), |(lo, hi)| format!("{lo}-{hi}")),
        phases,
    })
}

fn phase_errors(name: &str, these: &[&Judged], resamples: usize, rng: &mut StdRng) -> PhaseErrors {
    let n = these.len();
    let blunder = |loss: i32| f64::from(u8::from(loss >= BLUNDER_CP));
    let run_b: Vec<f64> = these.iter().map(|j| blunder(j.run)).collect();
    let people_b: Vec<f64> = these.iter().map(|j| blunder(j.human)).collect();
    let rate = |v: &[f64]| {
        let k = v.iter().sum::<f64>() as u64;
        let (lo, hi) = wilson(k, n as u64);
        (k as f64 / n as f64, lo, hi)
    };
    let d = paired_mean(&run_b, &people_b);
    let run_s: Vec<f64> = these.iter().map(|j| score_loss(j.value, j.run)).collect();
    let people_s: Vec<f64> = these.iter().map(|j| score_loss(j.value, j.human)).collect();
    let ratio_of = |picks: &mut dyn Iterator<Item = usize>| {
        let (mut a, mut b) = (0.0, 0.0);
        for i in picks {
            a += run_s[i];
            b += people_s[i];
        }
        if b > 0.0 { a / b } else { f64::NAN }
    };
    let ratio = ratio_of(&mut (0..n));
    let mut draws: Vec<f64> = (0..resamples)
        .map(|_| ratio_of(&mut (0..n).map(|_| rng.random_range(0..n))))
        .filter(|r| r.is_finite())
        .collect();
    let (low, high) = bootstrap_interval(&mut draws).unwrap_or((ratio, ratio));
    let points = 100.0 * d.delta;
    PhaseErrors {
        phase: name.to_string(),
        positions: n,
        blunders: rate(&run_b),
        people_blunders: rate(&people_b),
        blunders_delta: (points, 100.0 * d.ci_low, 100.0 * d.ci_high),
        score_loss: run_s.iter().sum::<f64>() / n as f64,
        people_score_loss: people_s.iter().sum::<f64>() / n as f64,
        loss_ratio: (ratio, low, high),
        within: points.abs() <= BLUNDER_TARGET_POINTS && (ratio - 1.0).abs() <= LOSS_TARGET_RATIO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(resamples: usize) -> Bootstrap {
        Bootstrap { resamples, seed: 1 }
    }

    fn line(elo: u16, ply: u32, run: i32, human: i32) -> OutcomeLine {
        OutcomeLine {
            fen: String::new(),
            human: "e2e4".into(),
            played: Some("d2d4".into()),
            matched: false,
            probability: None,
            rank: None,
            loss: Some(run),
            human_loss: Some(human),
            value: Some(0),
            elo: Some(elo),
            ply: Some(ply),
        }
    }

    #[test]
    fn a_run_that_blunders_as_its_people_is_within_and_one_that_never_does_is_not() {
        // 100 middlegame positions of 1400s: the people blunder in 10, the run in 10 others.
        let mut lines: Vec<OutcomeLine> = (0..100)
            .map(|i| {
                let human = if i < 10 { 300 } else { 20 };
                let run = if (10..20).contains(&i) { 300 } else { 20 };
                line(1450, 20, run, human)
            })
            .collect();
        // Out of the band: never counted.
        lines.push(line(2000, 20, 900, 0));
        let r = errors_of("as-people", &lines, Some((1400, 1599)), draws(200)).expect("judged");
        assert_eq!(r.band, "1400-1599");
        assert_eq!(r.phases.len(), 1);
        let p = &r.phases[0];
        assert_eq!((p.phase.as_str(), p.positions), ("plies 10-39", 100));
        assert!((p.blunders.0 - 0.10).abs() < 1e-9 && (p.people_blunders.0 - 0.10).abs() < 1e-9);
        assert!(p.blunders_delta.0.abs() < 1e-9 && p.blunders_delta.1 < 0.0);
        assert!((p.loss_ratio.0 - 1.0).abs() < 1e-9, "{:?}", p.loss_ratio);
        assert!(p.loss_ratio.1 < 1.0 && p.loss_ratio.2 > 1.0);
        assert!(p.within);

        // A run that never blunders, in the middlegame and the endgame: 10 points under.
        let careful: Vec<OutcomeLine> = (0..200)
            .map(|i| {
                line(
                    1450,
                    if i < 100 { 20 } else { 60 },
                    20,
                    if i % 10 == 0 { 300 } else { 20 },
                )
            })
            .collect();
        let r = errors_of("careful", &careful, None, draws(200)).expect("judged");
        let names: Vec<&str> = r.phases.iter().map(|p| p.phase.as_str()).collect();
        assert_eq!(names, ["plies 10-39", "plies 40+", "all"]);
        assert_eq!(r.phases[2].positions, 200);
        assert!((r.phases[2].blunders_delta.0 + 10.0).abs() < 1e-9);
        assert!(r.phases.iter().all(|p| !p.within && p.loss_ratio.0 < 0.5));
        assert!(errors_of("none", &careful, Some((800, 999)), draws(10)).is_none());
    }
}
