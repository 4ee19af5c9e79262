//! `precedent fit-eval`.

use anyhow::{Result, bail};
use precedent::revise::evaluate::{WEIGHTS, tables, term};
use precedent_lab::evalfit::{FitSettings, Tables, agreement, collect, fit};

/// Arguments of `precedent fit-eval`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Analysed games (`[%eval …]` comments, as Lichess exports them): .pgn, .pgn.zst or -.
    /// Games of `fit`'s test half are left out, so that held-out measurements stay held out.
    #[arg(long, value_name = "FILE")]
    pgn: String,
    /// Most positions to read (one game in ten goes to the check set).
    #[arg(long, default_value_t = 1_000_000)]
    positions: usize,
    /// Plies skipped at the start of each game (the opening is book knowledge).
    #[arg(long, default_value_t = 12)]
    skip_plies: u32,
    /// Full passes of the optimiser.
    #[arg(long, default_value_t = 1200)]
    epochs: usize,
    /// The optimiser's step, in centipawns.
    #[arg(long, default_value_t = 2.0)]
    rate: f64,
    /// The pull of the piece-square tables towards their start (per squared pawn of distance,
    /// summed over the entries, added to the loss).
    #[arg(long, default_value_t = 1e-4)]
    pull: f64,
    /// Keep the piece-square tables as they are: fit the terms' weights only.
    #[arg(long)]
    terms_only: bool,
}

/// Reads the positions, fits and prints the weights and the tables (to paste over `WEIGHTS`
/// and the `MG_…`/`EG_…` tables in `engine/src/revise/evaluate.rs`) with the loss before and
/// after.
pub fn run(args: Args) -> Result<()> {
    let samples = collect(&args.pgn, args.skip_plies, args.positions)?;
    if samples.fit.is_empty() {
        bail!(
            "{}: no quiet position with a [%eval] comment in the games outside fit's test half",
            args.pgn
        );
    }
    eprintln!(
        "{} games, {} fitting positions, {} check positions",
        samples.games,
        samples.fit.len(),
        samples.check.len()
    );
    let how = FitSettings {
        epochs: args.epochs,
        rate: args.rate,
        pull: args.pull,
        tables: !args.terms_only,
        scale: None,
    };
    let start = tables();
    let fitted = fit(&samples, &WEIGHTS, &start, how);
    println!(
        "one centipawn of ours is {:.2} of Stockfish's (Texel's factor, held during the fit)",
        fitted.scale
    );
    println!(
        "loss (mean squared expected-score difference, Stockfish's units): fitting {:.6} -> {:.6}, check {:.6} -> {:.6}",
        fitted.before.0, fitted.after.0, fitted.before.1, fitted.after.1
    );
    println!(
        "same side favoured as Stockfish on check positions: {:.2} % -> {:.2} %",
        100.0 * agreement(&samples.check, &WEIGHTS, &start),
        100.0 * agreement(&samples.check, &fitted.weights, &fitted.tables)
    );
    println!("pub const WEIGHTS: Weights = [");
    for ((name, (mg, eg)), (old_mg, old_eg)) in term::NAMES.iter().zip(fitted.weights).zip(WEIGHTS)
    {
        println!("    ({mg}, {eg}), // {name} (was {old_mg}, {old_eg})");
    }
    println!("];");
    if !args.terms_only {
        print_tables(&fitted.tables);
    }
    Ok(())
}

/// The tables as `evaluate.rs` declares them: per role and phase, rank 8 first.
fn print_tables(t: &Tables) {
    const ROLES: [&str; 6] = ["PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING"];
    for (role, name) in ROLES.iter().enumerate() {
        for (phase, prefix) in ["MG", "EG"].iter().enumerate() {
            println!("#[rustfmt::skip]");
            println!("const {prefix}_{name}: [i16; 64] = [");
            for rank in 0..8 {
                let row: Vec<String> = (0..8)
                    .map(|file| {
                        let e = t[role * 64 + ((rank * 8 + file) ^ 56)];
                        format!("{:5}", if phase == 0 { e.0 } else { e.1 })
                    })
                    .collect();
                println!("    {},", row.join(","));
            }
            println!("];");
        }
    }
}
