//! `precedent tune`: the reasoner's numbers learned by a self-adaptive evolution strategy.

use anyhow::Result;
use precedent_lab::reasoner::ReasonerArgs;
use precedent_lab::tune::{TuneArgs, run};

use super::progress::Bars;

/// Arguments of `precedent tune`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    tune: TuneArgs,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent tune`.
pub fn run_cmd(args: Args) -> Result<()> {
    let base = args.reasoner.config()?;
    let cb = args.reasoner.plain_casebase("tune")?;
    let report = run(&args.tune, &cb, &base, args.reasoner.run_seed(&base), &Bars)?;
    super::print(&report, args.json)
}
