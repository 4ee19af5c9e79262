//! `precedent build`.

use std::path::PathBuf;

use anyhow::Result;

use super::progress;
use precedent::casebase::{BuildConfig, BuildOptions, build};

/// Arguments of `precedent build`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// PGN inputs: .pgn, .pgn.zst, or - for standard input.
    #[arg(required = true)]
    inputs: Vec<String>,
    /// Output case base (a name ending in .zst is written compressed).
    #[arg(short, long)]
    out: PathBuf,
    /// Only this player's moves become cases (repeatable; case-insensitive).
    #[arg(long = "player", value_name = "NAME")]
    players: Vec<String>,
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
    /// Store only move patterns legal in at least N of the cases' positions (rarer ones fall
    /// back on their coarser family): a smaller case base for a little less detail.
    #[arg(long, value_name = "N", default_value_t = 1)]
    min_pattern_count: u32,
    /// Derive no move patterns: a case base for retrieval and voting only (the move model
    /// finds nothing in it), built several times faster. For scale experiments.
    #[arg(long)]
    no_patterns: bool,
    /// Stop at the first broken game (illegal move, bad FEN, variant) instead of skipping it.
    #[arg(long)]
    strict: bool,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent build`.
pub fn run(args: Args) -> Result<()> {
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
            min_pattern_count: args.min_pattern_count,
            max_cases: args.max_cases,
            band_cases: args.band_cases,
            no_patterns: args.no_patterns,
        },
        strict: args.strict,
    };
    let bar = progress::spinner();
    let summary = build(&config, &mut |p| {
        let secs = p.elapsed.as_secs_f64().max(1e-3);
        bar.set_message(format!(
            "{}: {} games ({:.0}/s), {} cases, {:.1} MB read ({:.1} MB/s)",
            p.input,
            p.games_read,
            p.games_read as f64 / secs,
            p.cases,
            p.bytes_read as f64 / 1e6,
            p.bytes_read as f64 / 1e6 / secs,
        ));
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
    }
    Ok(())
}
