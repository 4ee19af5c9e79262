//! `precedent go`: one decision, explained.

use anyhow::{Result, bail};
use precedent::position::{parse_fen, play_line};
use std::time::{Duration, Instant};

use precedent::adapt::reuse::NoLegalMove;
use precedent::engine::explain::explain;
use precedent::engine::{DecidedBy, Judgement, ThinkLimits, Thought, think};
use precedent::revise::Memory;
use precedent::revise::describe_value;
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
    let cb = args.reasoner.casebase()?;
    let limits = ThinkLimits {
        deadline: Some(Instant::now() + Duration::from_millis(args.movetime)),
        ..ThinkLimits::default()
    };
    let mut tt = Memory::default();
    let thought = match think(&cb, &game, &cfg, limits, CastlingMode::Standard, &mut tt) {
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
        println!("{}", serde_json::to_string(&json(&thought))?);
    } else {
        print_text(&thought, args.show);
    }
    Ok(())
}

/// The `--json` object.
fn json(t: &Thought) -> serde_json::Value {
    let d = &t.decision;
    serde_json::json!({
        "bestmove": t.bestmove,
        "score": t.score,
        "retrieved_move": d.bestmove,
        "score256": d.score256,
        "similarity": f64::from(d.score256) / 256.0,
        "case": d.top_case(),
        "ties": d.ties,
        "scanned": d.scanned,
        "total": d.total,
        "elapsed_ms": t.elapsed.as_secs_f64() * 1e3,
        "retrieval_ms": d.elapsed.as_secs_f64() * 1e3,
        "seed": d.seed,
        "fallback": d.fallback,
        "vote_share": d.winner().map(|w| w.share),
        "candidates": d.candidates,
        "revise": match &t.by {
            DecidedBy::Search(r) => Some(r),
            _ => None,
        },
        "decided_by": t.by.label(),
        "model": judgement(t).map(|j| {
            j.ranked()
                .into_iter()
                .map(|(i, p)| {
                    let (cases, search) = j.contributions(i);
                    serde_json::json!({
                        "move": j.evidence.moves[i].to_uci(CastlingMode::Standard).to_string(),
                        "probability": p,
                        "cases": cases,
                        "search": search,
                        "value": j.value(i).map(|v| v.0),
                    })
                })
                .collect::<Vec<_>>()
        }),
    })
}

/// The move model's judgement, when it decided.
fn judgement(t: &Thought) -> Option<&Judgement> {
    match &t.by {
        DecidedBy::Model { judgement, .. } => Some(judgement),
        _ => None,
    }
}

fn print_text(t: &Thought, show: usize) {
    let d = &t.decision;
    println!("bestmove {}", t.bestmove);
    for line in explain(t) {
        println!("{line}");
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
    if let Some(j) = judgement(t) {
        println!("model:");
        for (i, p) in j.ranked().into_iter().take(show) {
            let (cases, search) = j.contributions(i);
            let value = j.value(i).map_or("-".to_string(), |(v, e)| {
                format!("{}{}", if e { "" } else { "≤ " }, describe_value(v))
            });
            println!(
                "  {:<6} {:>5.1}%  cases {cases:+.2}  search {search:+.2} ({value})",
                j.evidence.moves[i].to_uci(CastlingMode::Standard),
                p * 100.0
            );
        }
    }
    match &t.by {
        DecidedBy::Search(r) => println!("score {}  pv {}", t.score.uci(), r.pv_uci.join(" ")),
        DecidedBy::Model { judgement: j, .. } => {
            let pv: Vec<String> = j
                .pv(j.chosen)
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect();
            println!("score {}  pv {}", t.score.uci(), pv.join(" "));
        }
        DecidedBy::Cases => println!(
            "score {} (the cases' expected result; revise off)",
            t.score.uci()
        ),
    }
}
