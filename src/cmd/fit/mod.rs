//! `precedent fit`: the engine's numbers learnt from games, one subcommand each.

pub mod eval;
pub mod moves;
pub mod net;
pub mod time;

use anyhow::Result;
use precedent_lab::fit::eval::EvalFitArgs;
use precedent_lab::fit::net::NetFitArgs;
use precedent_lab::fit::time::TimeFitArgs;

/// Arguments of `precedent fit`: which fit.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    fit: Fit,
}

/// The fits.
#[derive(clap::Subcommand, Debug)]
enum Fit {
    /// Fit the move model's weights by maximum likelihood on held-out games.
    Moves(moves::Args),
    /// Fit the verifier's evaluation weights to Stockfish's evaluations of analysed games.
    Eval(EvalFitArgs),
    /// Train the search's network evaluation on analysed games.
    Net(NetFitArgs),
    /// Fit the human think-time model (HumanTime) on clocked games and measure it on held-out
    /// ones against two baselines.
    Time(TimeFitArgs),
}

/// Runs `precedent fit`'s subcommand.
pub fn run(args: Args) -> Result<()> {
    match args.fit {
        Fit::Moves(args) => moves::run(args),
        Fit::Eval(args) => eval::run(args),
        Fit::Net(args) => net::run(args),
        Fit::Time(args) => time::run(args),
    }
}
