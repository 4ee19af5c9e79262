//! `precedent fit moves`: the move model's weights, by maximum likelihood on held-out games.

use anyhow::Result;
use precedent_lab::fit::moves::{FitArgs, run as fit_moves};
use precedent_lab::reasoner::ReasonerArgs;

use crate::cmd::progress::Bars;

/// Arguments of `precedent fit moves`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    fit: FitArgs,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent fit moves`.
pub fn run(args: Args) -> Result<()> {
    let cfg = args.reasoner.config()?;
    let cb = args.reasoner.plain_casebase("fit moves")?;
    let report = fit_moves(&args.fit, &cb, &cfg, args.reasoner.run_seed(&cfg), &Bars)?;
    crate::cmd::print(&report, args.json)
}
