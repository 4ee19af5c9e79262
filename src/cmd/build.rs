//! `precedent build`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;

use super::progress;
use precedent::casebase::{BuildConfig, BuildOptions, FIT_POSITIONS, build};
use precedent_lab::players::errors::{ERROR_FIT_NODES, ErrorFitter, judge_hook};
use precedent_lab::players::model::{FIT_DEPTH, fit_hook};

/// Arguments of `precedent build`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// PGN inputs: .pgn, .pgn.zst, or - for standard input.
    #[arg(required = true)]
    inputs: Vec<String>,
    /// Output case base (a name ending in .zst is written compressed).
    #[arg(short, long)]
    out: PathBuf,
    /// Only this player's moves become cases (repeatable for the spellings of one name, such
    /// as `Carlsen,M` and `Carlsen, Magnus`; case-insensitive): a player file, with the
    /// player's profile, each game counted once.
    #[arg(long = "player", value_name = "NAME")]
    players: Vec<String>,
    /// A player file of the inputs' most frequent player.
    #[arg(long, conflicts_with = "players")]
    main_player: bool,
    /// A player file: judge a sample of the player's moves (up to 400, from ply 10) with this
    /// UCI engine (e.g. /usr/games/stockfish) for the profile's blunder rate and mean loss.
    #[arg(long, value_name = "CMD")]
    judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12", requires = "judge")]
    judge_limit: String,
    /// A player file judged: the nodes of the bot's search a position when its errors are
    /// fitted to the player's (its blunder rate at their strength, on their judged positions,
    /// made theirs); 0 = no fit.
    #[arg(long, default_value_t = ERROR_FIT_NODES, value_name = "N", requires = "judge")]
    error_nodes: u64,
    /// A player file: the depth of the search a move when the embedded move model is fitted
    /// to a sample of the player's moves (the rating it reads for them, how much the search
    /// sways them); a fixed depth, so that two builds fit the same numbers; 0 = no fit.
    #[arg(long, default_value_t = FIT_DEPTH, value_name = "N")]
    fit_depth: u32,
    /// Only moves of this side.
    #[arg(long, value_parser = ["white", "black"])]
    side: Option<String>,
    /// Lowest rating of the mover (games without the rating tag are excluded).
    #[arg(long, value_name = "N")]
    min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    max_elo: Option<u16>,
    /// Skip the first N plies of every game.
    #[arg(long, value_name = "N", default_value_t = 0)]
    skip_plies: u32,
    /// Stop after N games have contributed cases.
    #[arg(long, value_name = "N")]
    max_games: Option<u64>,
    /// Stop once N cases are written (at the end of the game that reaches N).
    #[arg(long, value_name = "N")]
    max_cases: Option<u64>,
    /// At most about N cases per 200-point band of the mover's rating (800-999, 1000-1199, …),
    /// each band sampled evenly over the input by a hash of (game, side); reads the input twice.
    #[arg(long, value_name = "N")]
    band_cases: Option<u64>,
    /// Leave this percentage of games (chosen by a hash of each game) out of the case base, to
    /// evaluate on them later.
    #[arg(long, value_name = "PERCENT")]
    holdout: Option<u8>,
    /// Leave this percentage of games out, chosen by a hash of their moves alone (the same
    /// game under other tags is left out with it).
    #[arg(long, value_name = "PERCENT")]
    holdout_moves: Option<u8>,
    /// Store only move patterns legal in at least N of the cases' positions (rarer ones fall
    /// back on their coarser family): a smaller case base for a little less detail.
    #[arg(long, value_name = "N", default_value_t = 1)]
    min_pattern_count: u32,
    /// Derive no move patterns: a case base for retrieval and voting only (the move model
    /// finds nothing in it), built several times faster. For scale experiments.
    #[arg(long)]
    no_patterns: bool,
    /// Fit the pattern strengths and the policy on at most about N of the cases (every n-th
    /// case beyond): statistics, which a sample estimates; the fits' time grows with N, not
    /// with the case base.
    #[arg(long, value_name = "N", default_value_t = FIT_POSITIONS)]
    fit_positions: u64,
    /// Arrange the cases within about this much memory (e.g. 4G, 512M): more cases than it
    /// holds (about 7 M at 4G) are sorted in partitions spilled to disk beside the output, the
    /// same file written a little slower; that needs about 0.3 GB of free disk a million cases
    /// beyond the file, checked before the spill starts.
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = precedent::casebase::parse_memory)]
    memory: u64,
    /// Lists of the approximate index a side (retrieval then scans the lists nearest the
    /// position, `Probes` of them): `auto` gives about √boards from 8 M distinct boards up and
    /// none below; `none` gives none (every retrieval exact); a number gives that many.
    #[arg(long, value_name = "N|auto|none", default_value = "auto", value_parser = parse_lists)]
    lists: ListCount,
    /// Stop at the first broken game (illegal move, bad FEN, variant) instead of skipping it.
    #[arg(long)]
    strict: bool,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// Lists a side of the approximate index, as asked (`None`: `auto`).
#[derive(Clone, Copy, Debug)]
struct ListCount(Option<u64>);

/// Reads `--lists`: `auto`, `none` or a count from 1 to [`precedent::casebase::lists::MAX_LISTS`].
fn parse_lists(text: &str) -> Result<ListCount, String> {
    use precedent::casebase::lists::MAX_LISTS;
    match text {
        "auto" => Ok(ListCount(None)),
        "none" => Ok(ListCount(Some(0))),
        _ => match text.parse::<u64>() {
            Ok(n) if (1..=MAX_LISTS).contains(&n) => Ok(ListCount(Some(n))),
            _ => Err(format!(
                "`{text}`: give auto, none or a count from 1 to {MAX_LISTS}"
            )),
        },
    }
}

/// Runs `precedent build`.
pub fn run(args: Args) -> Result<()> {
    let judge = match &args.judge {
        Some(command) => {
            anyhow::ensure!(
                !args.players.is_empty() || args.main_player,
                "--judge judges a player's moves: give --player or --main-player"
            );
            Some(judge_hook(
                command.clone(),
                args.judge_limit.parse()?,
                super::threads_or_cores(None),
            ))
        }
        None => None,
    };
    let player_file = !args.players.is_empty() || args.main_player;
    let generic = if player_file && (args.fit_depth > 0 || args.judge.is_some()) {
        Some(Arc::new(precedent::casebase::CaseBase::embedded()?))
    } else {
        None
    };
    let fit = match &generic {
        Some(g) if args.fit_depth > 0 => Some(fit_hook(
            Arc::clone(g),
            precedent::think::EngineConfig::default(),
            args.fit_depth,
        )),
        _ => None,
    };
    let fit_errors = match (&generic, &args.judge) {
        (Some(g), Some(command)) if args.error_nodes > 0 => Some(
            ErrorFitter {
                generic: Arc::clone(g),
                cfg: precedent::think::EngineConfig::default(),
                judge: command.clone(),
                limit: args.judge_limit.parse()?,
                nodes: args.error_nodes,
                threads: super::threads_or_cores(None),
            }
            .hook(),
        ),
        _ => None,
    };
    let config = BuildConfig {
        inputs: args.inputs,
        out: args.out,
        options: BuildOptions {
            players: args.players,
            side: args.side,
            min_elo: args.min_elo,
            max_elo: args.max_elo,
            skip_plies: args.skip_plies,
            max_games: args.max_games,
            holdout: args.holdout,
            holdout_moves: args.holdout_moves,
            main_player: args.main_player,
            min_pattern_count: args.min_pattern_count,
            max_cases: args.max_cases,
            band_cases: args.band_cases,
            no_patterns: args.no_patterns,
            fit_positions: args.fit_positions,
            lists: args.lists.0,
        },
        strict: args.strict,
        judge,
        fit,
        fit_errors,
        memory: args.memory,
    };
    let sizes = input_sizes(&config.inputs);
    let bar = build_bar(sizes.as_deref());
    let summary = build(&config, &mut |p| {
        let secs = p.elapsed.as_secs_f64().max(1e-3);
        let counts = format!(
            "{} games, {} cases ({:.0} cases/s)",
            p.games_read,
            p.cases,
            p.cases as f64 / secs
        );
        match p.phase {
            Some(phase) => {
                // The input is read: the rest has no bytes to count.
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                );
                bar.set_message(format!("{counts}; {phase}"));
            }
            None => {
                bar.set_message(format!("{counts}; reading {}", p.input));
                if let (Some(len), Some(sizes)) = (bar.length(), &sizes) {
                    let done = input_offset(&config.inputs, sizes, p.input);
                    bar.set_position((done + p.bytes_read).min(len));
                }
            }
        }
    });
    bar.finish_and_clear();
    let summary = summary?;
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        let skipped: Vec<String> = summary
            .games_skipped
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        eprintln!(
            "{}: {} cases ({} White to move, {} Black) from {} of {} games in {:.2} s ({:.0} cases/s)",
            summary.output,
            summary.cases,
            summary.white_cases,
            summary.black_cases,
            summary.games_used,
            summary.games_read,
            summary.seconds,
            summary.cases_per_second
        );
        if !skipped.is_empty() {
            eprintln!("skipped: {}", skipped.join(", "));
        }
        let phases: Vec<String> = summary
            .phases
            .iter()
            .map(|p| format!("{} {:.1} s", p.name, p.seconds))
            .collect();
        eprintln!("phases: {}", phases.join(", "));
    }
    Ok(())
}

/// Each input's size in bytes, when every input is a file whose size is known (not stdin).
fn input_sizes(inputs: &[String]) -> Option<Vec<u64>> {
    inputs
        .iter()
        .map(|name| {
            (name != "-")
                .then(|| std::fs::metadata(name).ok().map(|m| m.len()))
                .flatten()
        })
        .collect()
}

/// The build's progress: a bar over the inputs' bytes when their sizes are known, a spinner
/// otherwise.
fn build_bar(sizes: Option<&[u64]>) -> indicatif::ProgressBar {
    match sizes {
        Some(sizes) => {
            let bar = progress::bar(sizes.iter().sum(), "");
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {bytes}/{total_bytes} {msg} ({elapsed}, about {eta} left)",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(std::time::Duration::from_millis(250));
            bar
        }
        None => progress::spinner(),
    }
}

/// The bytes of the inputs (of sizes `sizes`) before `current` (the first input of that name).
fn input_offset(inputs: &[String], sizes: &[u64], current: &str) -> u64 {
    inputs
        .iter()
        .zip(sizes)
        .take_while(|(name, _)| *name != current)
        .map(|(_, size)| size)
        .sum()
}
