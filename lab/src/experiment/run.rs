//! `precedent experiment` as a command: its configuration and errors, the case bases built per
//! group, the stages of the round robin, and what is read from their games.

use std::path::PathBuf;

use crate::Progress;
use crate::rating::{Anchor, Played, crosstable, fit_elo, pairwise, record_of};
use crate::stats::{spearman, spearman_p_value};
use crate::tournament::player::PlayerSpec;
use crate::tournament::{MatchConfig, MatchReport, Pairing, PairwiseNamed, run as run_match};
use precedent::casebase::{BuildConfig, BuildOptions, CaseBase, build};
use precedent::think::EngineConfig;

use super::{
    Conclusion, ExperimentReport, Group, GroupResult, Slope, answer, chart, decide, games_needed,
    stage_alpha, weighted_slope,
};

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
    /// Build each case base from at most about this many cases (equal-size case bases).
    pub max_cases: Option<u64>,
    /// The reasoner's settings, the same for every group's engine.
    pub reasoner: EngineConfig,
    /// The match settings; its players are replaced by the groups' engines.
    pub matches: MatchConfig,
    /// Where to write the SVG chart; `None` = no chart.
    pub svg: Option<PathBuf>,
    /// Stages of the round robin (each `matches.games_per_pair` games a pair): after each the
    /// answer is tested, and the experiment stops once it is decided. 1 = one fixed round robin.
    pub stages: usize,
    /// The smallest effect that matters, in Elo per 100 rating points: an effect whose interval
    /// lies within ±this is "absent". 0 = never decide for absence.
    pub min_effect: f64,
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
        source: precedent::casebase::BuildError,
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
    let (players, built) = build_groups(cfg, progress)?;
    let (
        report,
        Analysis {
            results,
            rho,
            p,
            slope,
        },
        decision,
        played_stages,
    ) = play_stages(cfg, &players, &built, progress)?;
    let stages = cfg.stages.max(1);
    let games_per_pair = played_stages * cfg.matches.games_per_pair.div_ceil(2) * 2;
    let needed = slope.as_ref().and_then(|s| games_needed(s, games_per_pair));
    let total_games = report.games.len() as u64;
    let mut answer = answer(results.len(), rho, p, slope.as_ref(), total_games);
    if stages > 1 || cfg.min_effect > 0.0 {
        answer.push(' ');
        answer.push_str(&sequential_text(
            decision,
            played_stages,
            stages,
            games_per_pair,
            needed,
            cfg.min_effect,
        ));
    }
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
        decision,
        stages: played_stages,
        games_per_pair,
        games_per_pair_needed: needed,
        svg,
        match_report: report,
    })
}

/// The case base of each group, built from the input: the players of the experiment, and each
/// one's (cases, games, mean mover rating).
fn build_groups(
    cfg: &ExperimentConfig,
    progress: &dyn Progress,
) -> Result<(Vec<PlayerSpec>, Vec<Built>), ExperimentError> {
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
            max_cases: cfg.max_cases,
            ..BuildOptions::default()
        };
        progress.note(&format!("building {} …", file.display()));
        let summary = build(
            &BuildConfig {
                inputs: cfg.pgn.clone(),
                out: file.clone(),
                options,
                strict: false,
                judge: None,
                fit: None,
                fit_errors: None,
                memory: precedent::casebase::MEMORY,
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
            config: Box::new(cfg.reasoner.clone()),
        });
    }
    Ok((players, built))
}

/// Plays the round robin in up to `cfg.stages` stages, stopping once the sequential test
/// decides: the merged report, its analysis, the decision and the stages played.
fn play_stages(
    cfg: &ExperimentConfig,
    players: &[PlayerSpec],
    built: &[Built],
    progress: &dyn Progress,
) -> Result<(MatchReport, Analysis, Conclusion, usize), ExperimentError> {
    let stages = cfg.stages.max(1);
    let mut report: Option<MatchReport> = None;
    let mut decision = Conclusion::Undecided;
    let mut played_stages = 0;
    let mut analysis = None;
    for stage in 0..stages {
        let pgn_out = cfg.matches.pgn_out.as_ref().map(|p| {
            if stage == 0 {
                p.clone()
            } else {
                let stem = p.file_stem().unwrap_or_default().to_string_lossy();
                p.with_file_name(format!("{stem}-{}.pgn", stage + 1))
            }
        });
        let matches = MatchConfig {
            players: players.to_vec(),
            pairing: Pairing::RoundRobin,
            anchor: None,
            seed: cfg.matches.seed.wrapping_add(stage as u64),
            pgn_out,
            ..cfg.matches.clone()
        };
        if stages > 1 {
            progress.note(&format!("stage {} of {stages}", stage + 1));
        }
        let r = run_match(&matches, progress)?;
        let merged = match report.take() {
            Some(before) => merge(before, r),
            None => r,
        };
        played_stages = stage + 1;
        let a = analyse(&merged, built);
        decision = decide(a.slope.as_ref(), stages, cfg.min_effect);
        report = Some(merged);
        analysis = Some(a);
        if stages > 1 && decision != Conclusion::Undecided {
            break;
        }
    }
    match (report, analysis) {
        (Some(report), Some(analysis)) => Ok((report, analysis, decision, played_stages)),
        _ => Err(ExperimentError::Config("no stage was played".into())),
    }
}

/// What the sequential test concluded, in words.
fn sequential_text(
    decision: Conclusion,
    played: usize,
    stages: usize,
    games_per_pair: usize,
    needed: Option<f64>,
    min_effect: f64,
) -> String {
    let alpha = stage_alpha(stages);
    let need = needed.map_or(String::new(), |n| {
        format!(" To detect the slope seen, a fixed round robin needs about {n:.0} games a pair.")
    });
    match decision {
        Conclusion::Effect => format!(
            "Decided after stage {played} of {stages} ({games_per_pair} games a pair): the slope is significant at the stage-corrected level {alpha:.4} (5 % over {stages} looks).{need}"
        ),
        Conclusion::Absent => format!(
            "Decided after stage {played} of {stages} ({games_per_pair} games a pair): no effect of ±{min_effect:.0} Elo per 100 rating points or more (the {:.1} % interval of the slope lies within it).{need}",
            100.0 * (1.0 - alpha)
        ),
        Conclusion::Undecided => format!(
            "Undecided after {played} stages ({games_per_pair} games a pair): neither a slope (at level {alpha:.4}) nor its absence (within ±{min_effect:.0} Elo per 100 rating points) is shown.{need}"
        ),
    }
}

/// The groups' results and the tests on them, from a (merged) round robin.
struct Analysis {
    results: Vec<GroupResult>,
    rho: Option<f64>,
    p: Option<f64>,
    slope: Option<Slope>,
}

/// A group's case base: (cases, games, mean mover rating).
type Built = (u64, u64, Option<f64>);

fn analyse(report: &MatchReport, built: &[Built]) -> Analysis {
    let results: Vec<GroupResult> = report
        .players
        .iter()
        .zip(built)
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
    Analysis {
        results,
        rho,
        p,
        slope,
    }
}

/// Two round robins of the same players as one: games, terminations and failures together,
/// ratings refitted over all the games.
fn merge(mut a: MatchReport, b: MatchReport) -> MatchReport {
    let n = a.players.len();
    let index = |name: &str| a.players.iter().position(|p| p.name == name);
    a.games.extend(b.games);
    let played: Vec<Played> = a
        .games
        .iter()
        .filter_map(|g| {
            let score = match g.result.as_str() {
                "1-0" => 1.0,
                "0-1" => 0.0,
                _ => 0.5,
            };
            Some(Played {
                white: index(&g.white)?,
                black: index(&g.black)?,
                score,
            })
        })
        .collect();
    let fit = fit_elo(n, &played, &Anchor::Mean);
    a.crosstable = crosstable(n, &played);
    for (i, (row, other)) in a.players.iter_mut().zip(&b.players).enumerate() {
        let (wins, draws, losses) = record_of(i, &played);
        row.games = a.crosstable.total_games[i];
        row.score = a.crosstable.total_points[i];
        (row.wins, row.draws, row.losses) = (wins, draws, losses);
        (row.elo, row.ci_low, row.ci_high) = (fit.elo[i], fit.ci_low[i], fit.ci_high[i]);
        row.failures += other.failures;
        for (k, v) in &other.forfeits {
            *row.forfeits.entry(k.clone()).or_default() += v;
        }
        row.times.merge(&other.times);
        row.memory.extend(other.memory.iter().cloned());
    }
    a.pairwise = pairwise(n, &played)
        .into_iter()
        .map(|p| PairwiseNamed {
            a_name: a.players[p.a].name.clone(),
            b_name: a.players[p.b].name.clone(),
            record: p,
        })
        .collect();
    for (k, v) in b.terminations {
        *a.terminations.entry(k).or_default() += v;
    }
    a.failures.extend(b.failures);
    a.seconds += b.seconds;
    a
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
