//! `precedent fit`: the move model's weights, by maximum likelihood on held-out games.

use anyhow::Result;
use precedent_lab::fit::{FitArgs, run};
use precedent_lab::reasoner::ReasonerArgs;

use super::progress::Bars;

/// Arguments of `precedent fit`.
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

/// Runs `precedent fit`.
pub fn run_cmd(args: Args) -> Result<()> {
    let cfg = args.reasoner.config()?;
    let cb = args.reasoner.plain_casebase("fit")?;
    let report = run(&args.fit, &cb, &cfg, args.reasoner.run_seed(&cfg), &Bars)?;
    super::print(&report, args.json)
}
