//! `precedent fit-eval`.

use anyhow::{Result, bail};
use precedent::revise::evaluate::{WEIGHTS, term};
use precedent_lab::evalfit::{agreement, collect, fit};

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
}

/// Reads the positions, fits and prints the weights (to paste over `WEIGHTS` in
/// `engine/src/revise/evaluate.rs`) with the loss before and after.
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
    let fitted = fit(&samples, &WEIGHTS, args.epochs, args.rate);
    println!(
        "one centipawn of ours is {:.2} of Stockfish's (the factor fitted on the piece-square tables)",
        fitted.scale
    );
    println!(
        "loss (mean squared expected-score difference, Stockfish's units): fitting {:.6} -> {:.6}, check {:.6} -> {:.6}",
        fitted.before.0, fitted.after.0, fitted.before.1, fitted.after.1
    );
    println!(
        "same side favoured as Stockfish on check positions: {:.2} % -> {:.2} %",
        100.0 * agreement(&samples.check, &WEIGHTS),
        100.0 * agreement(&samples.check, &fitted.weights)
    );
    println!("pub const WEIGHTS: Weights = [");
    for ((name, (mg, eg)), (old_mg, old_eg)) in term::NAMES.iter().zip(fitted.weights).zip(WEIGHTS)
    {
        println!("    ({mg}, {eg}), // {name} (was {old_mg}, {old_eg})");
    }
    println!("];");
    Ok(())
}
