//! `precedent go`: one decision, explained.

use anyhow::{Result, bail};
use precedent::position::{parse_fen, play_moves};
use precedent::reasoner::{DecideError, DecideLimits, Decision, decide};
use shakmaty::{CastlingMode, Chess};

use super::reasoner_args::ReasonerArgs;

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
    let pos = play_moves(start, &args.moves)?;
    let cfg = args.reasoner.config()?;
    let cb = args.reasoner.casebase()?;
    let decision = match decide(
        &cb,
        &pos,
        &cfg,
        DecideLimits::default(),
        CastlingMode::Standard,
    ) {
        Ok(d) => d,
        Err(e @ (DecideError::Checkmate | DecideError::Stalemate)) => {
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
        println!("{}", serde_json::to_string(&json(&decision))?);
    } else {
        print_text(&decision, args.show);
    }
    Ok(())
}

/// The `--json` object.
fn json(d: &Decision) -> serde_json::Value {
    serde_json::json!({
        "bestmove": d.bestmove,
        "score256": d.score256,
        "similarity": f64::from(d.score256) / 256.0,
        "case": d.top_case(),
        "ties": d.ties,
        "scanned": d.scanned,
        "total": d.total,
        "elapsed_ms": d.elapsed.as_secs_f64() * 1e3,
        "seed": d.seed,
        "fallback": d.fallback,
        "vote_share": d.winner().map(|w| w.share),
        "candidates": d.candidates,
    })
}

fn print_text(d: &Decision, show: usize) {
    println!("bestmove {}", d.bestmove);
    println!(
        "similarity {:.3} ({}/256), {} case(s) tie at the top; scanned {} of {} cases in {:.1} ms",
        f64::from(d.score256) / 256.0,
        d.score256,
        d.ties,
        d.scanned,
        d.total,
        d.elapsed.as_secs_f64() * 1e3
    );
    if let Some(c) = d.top_case() {
        let g = &c.game;
        let elo = |e: Option<u16>| e.map(|e| format!(" ({e})")).unwrap_or_default();
        println!(
            "nearest case: {} played {} (adapted here to {}){}",
            c.mover,
            c.case_move,
            c.adapted,
            if c.exact { ", exact match" } else { "" }
        );
        println!(
            "  from {}{} – {}{}, {}, {}, move {}{}",
            g.white,
            elo(g.white_elo),
            g.black,
            elo(g.black_elo),
            g.date,
            g.result,
            c.move_number(),
            if g.site.is_empty() {
                String::new()
            } else {
                format!(", {}", g.site)
            }
        );
    }
    if d.fallback {
        println!("no case could be retrieved: played the first legal move");
    }
    println!("votes:");
    for c in d.candidates.iter().take(show) {
        let exp = c
            .expected
            .map(|e| format!(", mover scored {:.0}%", e * 100.0))
            .unwrap_or_default();
        println!(
            "  {:<6} {:>5.1}%  ({} case(s){exp})",
            c.uci,
            c.share * 100.0,
            c.cases
        );
    }
}
