//! `precedent who`: which player's file explains a set of games best.

use anyhow::Result;
use precedent_lab::reasoner::ReasonerArgs;
use precedent_lab::who::{WhoArgs, run as rank};

use super::progress::Bars;

/// Arguments of `precedent who`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    who: WhoArgs,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent who`.
pub fn run(args: Args) -> Result<()> {
    let cfg = args.reasoner.config()?;
    let generic = args
        .reasoner
        .plain_casebase("who (the generic case base)")?;
    let report = rank(&args.who, &generic, &cfg, &Bars)?;
    super::print(&report, args.json)
}
