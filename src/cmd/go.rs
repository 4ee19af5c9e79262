//! `precedent go`: one decision, explained.

use anyhow::{Result, bail};
use precedent::position::{parse_fen, play_line};
use std::time::{Duration, Instant};

use precedent::reuse::NoLegalMove;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{report, think, to_json};
use shakmaty::{CastlingMode, Chess};

use precedent_lab::reasoner::ReasonerArgs;

/// Arguments of `precedent go`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Start from the initial position.
    #[arg(long, conflicts_with = "fen", required_unless_present = "fen")]
    startpos: bool,
    /// Start from this FEN.
    #[arg(long)]
    fen: Option<String>,
    /// Moves to play first, in UCI notation.
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    moves: Vec<String>,
    /// Thinking time in milliseconds (retrieval, then the revise search).
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    movetime: u64,
    /// Number of candidates to list.
    #[arg(long, default_value_t = 5)]
    show: usize,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent go`.
pub fn run(args: Args) -> Result<()> {
    let start = match &args.fen {
        Some(fen) => parse_fen(fen)?,
        None => Chess::default(),
    };
    let game = play_line(start, &args.moves)?;
    let cfg = args.reasoner.config()?;
    if let Some(note) = cfg.unmodelled_style() {
        eprintln!("note: {note}");
    }
    if cfg.human_time {
        eprintln!(
            "note: --human-time acts under a clock (UCI `go wtime … btime …`, or `precedent uci \
             --human-time true`); `precedent go` thinks for --movetime"
        );
    }
    let cb = args.reasoner.casebase()?;
    let limits = Limits {
        deadline: Some(Instant::now() + Duration::from_millis(args.movetime)),
        ..Limits::default()
    };
    let mut tt = Memory::default();
    let thought = match think(
        cb.knowledge(),
        &game,
        &cfg,
        limits,
        CastlingMode::Standard,
        &mut tt,
    ) {
        Ok(t) => t,
        Err(e @ (NoLegalMove::Checkmate | NoLegalMove::Stalemate)) => {
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({ "bestmove": null, "reason": e.to_string() })
                );
            }
            bail!("{e}");
        }
    };
    if args.json {
        println!("{}", serde_json::to_string(&to_json(&thought))?);
    } else {
        for line in report(&thought, args.show) {
            println!("{line}");
        }
    }
    Ok(())
}
