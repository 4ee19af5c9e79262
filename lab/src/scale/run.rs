//! `precedent scale` as a command: `scale games` rates players from match PGNs against
//! anchors, `scale moves` reads strength from judged `eval --outcomes` runs; their arguments,
//! the files read, and the reports' text.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ScaleError;
use super::errors::{BLUNDER_TARGET_POINTS, LOSS_TARGET_RATIO, RunErrors, errors_of};
use super::games::{Anchor, Rated, rate, rate_pool, records_of};
use super::moves::{GameElo, Measure, Report, Run, Settings, measure};
use super::pools::{PoolPair, compare_pools};
use crate::eval::{BLUNDER_CP, read_outcomes};

/// Arguments of `precedent scale`.
#[derive(clap::Args, Debug, Clone)]
pub struct ScaleArgs {
    /// Which instrument.
    #[command(subcommand)]
    pub command: ScaleCommand,
}

/// The two instruments.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum ScaleCommand {
    /// Rate players from their games against anchors of known rating (match PGNs, as
    /// fastchess or cutechess-cli write them).
    Games(GamesArgs),
    /// Strength from moves: judged `eval --outcomes` runs on the same positions, a line from
    /// the expected score their moves gave away to their game ratings, and each rating band's
    /// people on it.
    Moves(MovesArgs),
    /// One person's ratings in two pools (bullet, blitz, rapid, classical): the difference
    /// between pools, from the players rated in both within a window of time.
    Pools(PoolsArgs),
    /// How judged runs err beside the people on their positions: blunders and expected score
    /// lost, by phase, each run on its band's movers if given one.
    Errors(ErrorsArgs),
}

/// The bootstrap over positions behind a report's intervals.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Bootstrap {
    /// Bootstrap resamples behind the intervals.
    #[arg(long, default_value_t = 1000)]
    pub resamples: usize,
    /// The bootstrap's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Arguments of `precedent scale errors`.
#[derive(clap::Args, Debug, Clone)]
pub struct ErrorsArgs {
    /// The runs, each LABEL=PATH, as for `scale moves` (positions may differ between runs).
    #[arg(required = true, value_name = "LABEL=PATH")]
    pub runs: Vec<String>,
    /// Measure a run on the movers of one band only, LABEL=LOW (the band LOW to
    /// LOW + band width − 1; repeatable, e.g. level1400=1400); other runs on all their movers.
    #[arg(long = "band", value_name = "LABEL=LOW")]
    pub bands: Vec<String>,
    /// Width of the band.
    #[arg(long, default_value_t = 200, value_name = "POINTS")]
    pub band_width: u16,
    /// The bootstrap behind the intervals.
    #[command(flatten)]
    pub bootstrap: Bootstrap,
}

/// Arguments of `precedent scale pools`.
#[derive(clap::Args, Debug, Clone)]
pub struct PoolsArgs {
    /// Games with ratings, dates and time controls (.pgn, .pgn.zst), e.g. Lichess exports.
    #[arg(required = true, value_name = "PGN")]
    pub pgns: Vec<PathBuf>,
    /// A player's two ratings count only when their games are at most this many days apart.
    #[arg(long, default_value_t = 365, value_name = "DAYS")]
    pub within_days: i64,
    /// Width of the bands of the faster pool's rating.
    #[arg(long, default_value_t = 400, value_name = "POINTS")]
    pub band_width: u16,
}

/// Arguments of `precedent scale games`.
#[derive(clap::Args, Debug, Clone)]
pub struct GamesArgs {
    /// Match PGNs (.pgn, .pgn.zst).
    #[arg(required = true, value_name = "PGN")]
    pub pgns: Vec<PathBuf>,
    /// An anchor: its name in the games and its rating, NAME=ELO or NAME=ELO±SE (repeatable;
    /// e.g. sf1350=1350, level1400=1365±34).
    #[arg(long = "anchor", required = true, value_name = "NAME=ELO[±SE]")]
    pub anchors: Vec<String>,
    /// Only this player (by default every player that met an anchor).
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
    /// Rate every player from all the games (anchors, players and their games against each
    /// other), the one `--anchor` fixing the scale, instead of each player from its games
    /// against fixed anchors.
    #[arg(long)]
    pub pool: bool,
}

/// Arguments of `precedent scale moves`.
#[derive(clap::Args, Debug, Clone)]
pub struct MovesArgs {
    /// The runs, each LABEL=PATH: an `eval --outcomes --judge` file, or a folder whose .jsonl
    /// files are read in the order of their names' numbers (one file a band: 800.jsonl,
    /// 1000.jsonl, ...). Every run on the same positions.
    #[arg(required = true, value_name = "LABEL=PATH")]
    pub runs: Vec<String>,
    /// A run's game rating, LABEL=ELO or LABEL=ELO±SE (repeatable): the rated runs place the
    /// line; at least 3.
    #[arg(long = "elo", value_name = "LABEL=ELO[±SE]")]
    pub elos: Vec<String>,
    /// What the line is fitted on.
    #[arg(long, value_enum, default_value = "score")]
    pub measure: Measure,
    /// Width of the mover's rating bands.
    #[arg(long, default_value_t = 200, value_name = "POINTS")]
    pub band_width: u16,
    /// The bootstrap behind the intervals.
    #[command(flatten)]
    pub bootstrap: Bootstrap,
}

/// What `precedent scale` reports.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ScaleReport {
    /// Players rated from their games.
    Games(Vec<Rated>),
    /// The moves' instrument.
    Moves(Box<Report>),
    /// Pools compared.
    Pools(Vec<PoolPair>),
    /// Runs' errors beside their people's.
    Errors(Vec<RunErrors>),
}

/// Runs `precedent scale`.
pub fn run(args: &ScaleArgs) -> Result<ScaleReport, ScaleError> {
    match &args.command {
        ScaleCommand::Games(a) => games(a).map(ScaleReport::Games),
        ScaleCommand::Moves(a) => moves(a).map(|r| ScaleReport::Moves(Box::new(r))),
        ScaleCommand::Pools(a) => {
            compare_pools(&a.pgns, a.within_days, a.band_width).map(ScaleReport::Pools)
        }
        ScaleCommand::Errors(a) => errors(a).map(ScaleReport::Errors),
    }
}

fn errors(args: &ErrorsArgs) -> Result<Vec<RunErrors>, ScaleError> {
    let runs = read_runs(&args.runs)?;
    let mut bands = Vec::new();
    for spec in &args.bands {
        let (label, low) = spec
            .split_once('=')
            .and_then(|(l, v)| Some((l, v.trim().parse::<u16>().ok()?)))
            .ok_or_else(|| ScaleError::BadBand(spec.clone()))?;
        if !runs.iter().any(|r| r.label == label) {
            return Err(ScaleError::UnknownRun(spec.clone()));
        }
        let high = low.saturating_add(args.band_width.max(1) - 1);
        bands.push((label.to_string(), (low, high)));
    }
    runs.iter()
        .map(|r| {
            let band = bands.iter().find(|(l, _)| *l == r.label).map(|b| b.1);
            errors_of(&r.label, &r.lines, band, args.bootstrap).ok_or_else(|| {
                ScaleError::NoneJudged {
                    run: r.label.clone(),
                    band: band.map_or("any".into(), |(lo, hi)| format!("{lo}-{hi}")),
                }
            })
        })
        .collect()
}

/// The runs named by LABEL=PATH specs, each with its outcome lines.
fn read_runs(specs: &[String]) -> Result<Vec<Run>, ScaleError> {
    let mut runs = Vec::new();
    for spec in specs {
        let (label, path) = spec
            .split_once('=')
            .filter(|(l, p)| !l.is_empty() && !p.is_empty())
            .ok_or_else(|| ScaleError::BadRun(spec.clone()))?;
        let mut lines = Vec::new();
        for file in outcome_files(Path::new(path))? {
            lines.extend(read_outcomes(&file)?);
        }
        runs.push(Run {
            label: label.to_string(),
            game_elo: None,
            lines,
        });
    }
    Ok(runs)
}

fn games(args: &GamesArgs) -> Result<Vec<Rated>, ScaleError> {
    let anchors = args
        .anchors
        .iter()
        .map(|a| a.parse())
        .collect::<Result<Vec<Anchor>, ScaleError>>()?;
    if args.pool {
        let [anchor] = anchors.as_slice() else {
            return Err(ScaleError::PoolAnchor(anchors.len()));
        };
        let rated: Vec<Rated> = rate_pool(&args.pgns, anchor)?
            .into_iter()
            .filter(|r| args.player.as_ref().is_none_or(|want| *want == r.player))
            .collect();
        return Ok(rated);
    }
    let by_player = records_of(&args.pgns, &anchors)?;
    let rated: Vec<Rated> = by_player
        .into_iter()
        .filter(|(p, _)| args.player.as_ref().is_none_or(|want| want == p))
        .filter_map(|(p, records)| rate(&p, records))
        .collect();
    if rated.is_empty() {
        let names: Vec<&str> = anchors.iter().map(|a| a.name.as_str()).collect();
        return Err(ScaleError::NoGames(names.join(", ")));
    }
    Ok(rated)
}

/// The number at the start of a file's name (`1000.jsonl` → 1000), for the bands' order.
fn leading_number(p: &Path) -> Option<u64> {
    let stem = p.file_stem()?.to_str()?;
    let digits: String = stem.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The outcome files of `path`: itself, or a folder's .jsonl files by their names' numbers.
fn outcome_files(path: &Path) -> Result<Vec<PathBuf>, ScaleError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let read = std::fs::read_dir(path).map_err(|e| {
        crate::eval::EvalError::Other(format!("{}: cannot read the folder: {e}", path.display()))
    })?;
    let mut files: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort_by_key(|p| (leading_number(p), p.clone()));
    if files.is_empty() {
        return Err(ScaleError::EmptyFolder(path.display().to_string()));
    }
    Ok(files)
}

fn moves(args: &MovesArgs) -> Result<Report, ScaleError> {
    let mut runs = read_runs(&args.runs)?;
    for e in &args.elos {
        let a: Anchor = e.parse()?;
        let run = runs
            .iter_mut()
            .find(|r| r.label == a.name)
            .ok_or_else(|| ScaleError::UnknownRun(e.clone()))?;
        run.game_elo = Some(GameElo {
            elo: a.elo,
            se: a.se,
        });
    }
    measure(
        &runs,
        Settings {
            measure: args.measure,
            band_width: args.band_width,
            resamples: args.bootstrap.resamples,
            seed: args.bootstrap.seed,
        },
    )
}

impl fmt::Display for ScaleReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScaleReport::Games(rated) => fmt_games(rated, f),
            ScaleReport::Moves(r) => fmt_moves(r, f),
            ScaleReport::Pools(p) => fmt_pools(p, f),
            ScaleReport::Errors(e) => fmt_errors(e, f),
        }
    }
}

fn fmt_games(rated: &[Rated], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    for r in rated {
        writeln!(
            f,
            "{}: {:.0} (95% {:.0}–{:.0}, se {:.0}) from {} games",
            r.player, r.elo, r.ci_low, r.ci_high, r.se, r.games
        )?;
        for x in r.records.iter().filter(|x| x.games() > 0) {
            writeln!(
                f,
                "  against {} ({:.0}{}): +{} ={} −{}, {:.1}%",
                x.anchor,
                x.anchor_elo,
                if x.anchor_se > 0.0 {
                    format!("±{:.0}", x.anchor_se)
                } else {
                    String::new()
                },
                x.wins,
                x.draws,
                x.losses,
                100.0 * x.score()
            )?;
        }
    }
    Ok(())
}

fn fmt_errors(runs: &[RunErrors], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(
        f,
        "targets: blunders (loss ≥ {BLUNDER_CP} cp) within ±{BLUNDER_TARGET_POINTS} points of the people's, \
         mean expected score lost within ±{:.0} % of theirs",
        100.0 * LOSS_TARGET_RATIO
    )?;
    for r in runs {
        writeln!(f, "{}, movers rated {}:", r.run, r.band)?;
        for p in &r.phases {
            writeln!(
                f,
                "  {:>11} {:>5} positions  blunders {:.1}% (people {:.1}%): {:+.1} points ({:+.1}..{:+.1})  \
                 score lost {:.2}% (people {:.2}%): ×{:.2} ({:.2}–{:.2})  {}",
                p.phase,
                p.positions,
                100.0 * p.blunders.0,
                100.0 * p.people_blunders.0,
                p.blunders_delta.0,
                p.blunders_delta.1,
                p.blunders_delta.2,
                100.0 * p.score_loss,
                100.0 * p.people_score_loss,
                p.loss_ratio.0,
                p.loss_ratio.1,
                p.loss_ratio.2,
                if p.within { "within" } else { "outside" }
            )?;
        }
    }
    Ok(())
}

fn fmt_pools(pairs: &[PoolPair], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if pairs.is_empty() {
        return writeln!(f, "no player is rated in two pools within the window");
    }
    for p in pairs {
        writeln!(
            f,
            "{} rating − {} rating, {} players rated in both:",
            p.to, p.from, p.players
        )?;
        for b in p.bands.iter().chain(&p.all) {
            writeln!(
                f,
                "  {} {:>10}: {:>4} players, mean {:+.0} (95% {:+.0}..{:+.0}), median {:+.0}",
                p.from, b.band, b.players, b.mean, b.ci_low, b.ci_high, b.median
            )?;
        }
    }
    Ok(())
}

fn fmt_moves(r: &Report, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(
        f,
        "{} positions, {} runs ({} with a game rating); the line on {}: elo = a(band) {:+.0}·ln(loss)",
        r.positions,
        r.runs.len(),
        r.rated,
        r.measure.name(),
        r.line.beta
    )?;
    writeln!(
        f,
        "how each measure orders the rated runs (Spearman's rho with their game rating):"
    )?;
    for v in &r.validation {
        writeln!(
            f,
            "  {:45} {}  (p {})",
            v.measure.name(),
            v.spearman.map_or("–".into(), |x| format!("{x:+.3}")),
            v.p_value.map_or("–".into(), |x| format!("{x:.2e}"))
        )?;
    }
    writeln!(
        f,
        "the rated runs, each from the line without it: error {:.0} Elo root mean square, {:+.0} mean",
        r.loo_rmse, r.loo_bias
    )?;
    let width = r
        .runs
        .iter()
        .map(|x| x.label.len())
        .max()
        .unwrap_or(3)
        .max(6);
    writeln!(
        f,
        "{:width$}  {:>12}  {:>22}  {:>10}  {:>7}  {:>9}  {:>22}",
        "run",
        "game Elo",
        "score lost (95%)",
        "undecided",
        "cp",
        "blunders",
        "from its moves (95%)"
    )?;
    for x in &r.runs {
        writeln!(
            f,
            "{:width$}  {:>12}  {:>22}  {:>9.2}%  {:>7.1}  {:>8.1}%  {:>22}",
            x.label,
            x.game_elo
                .map_or("–".into(), |g| format!("{:.0}±{:.0}", g.elo, 1.96 * g.se)),
            format!(
                "{:.2}% ({:.2}–{:.2})",
                100.0 * x.score_loss.value,
                100.0 * x.score_loss.low,
                100.0 * x.score_loss.high
            ),
            100.0 * x.measures[1],
            x.measures[2],
            100.0 * x.measures[3],
            x.rating.map_or("–".into(), |e| format!(
                "{:.0} ({:.0}–{:.0})",
                e.value, e.low, e.high
            ))
        )?;
    }
    writeln!(f, "people, by band of their rating:")?;
    for b in &r.bands {
        writeln!(
            f,
            "  {:>9}  {:>4} positions  score lost {:.2}%, undecided {:.2}%, {:.0} cp, blunders {:.1}% ({:.1}–{:.1}): {}",
            b.band,
            b.positions,
            100.0 * b.measures[0],
            100.0 * b.measures[1],
            b.measures[2],
            100.0 * b.measures[3],
            100.0 * b.blunders.0,
            100.0 * b.blunders.1,
            b.rating.map_or("–".into(), |e| format!(
                "{:.0} ({:.0}–{:.0})",
                e.value, e.low, e.high
            ))
        )?;
    }
    writeln!(
        f,
        "intervals: {} bootstrap resamples of the positions and the game ratings",
        r.resamples
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folders_files_are_read_in_the_order_of_their_bands() {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["1000.jsonl", "800.jsonl", "2200.jsonl", "notes.txt"] {
            std::fs::write(dir.path().join(name), "").expect("write");
        }
        let files = outcome_files(dir.path()).expect("files");
        let names: Vec<String> = files
            .iter()
            .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["800.jsonl", "1000.jsonl", "2200.jsonl"]);
        let empty = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            outcome_files(empty.path()),
            Err(ScaleError::EmptyFolder(_))
        ));
    }
}
