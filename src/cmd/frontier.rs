//! `precedent frontier`: a level's ways to err, blunders against move-matching, from evidence.

use anyhow::Result;
use precedent_lab::frontier::{FrontierArgs, refuse_fixed_settings, run};
use precedent_lab::reasoner::ReasonerArgs;

use super::progress::Bars;

/// Arguments of `precedent frontier`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    frontier: FrontierArgs,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent frontier`.
pub fn run_cmd(args: Args) -> Result<()> {
    refuse_fixed_settings(&args.reasoner.given)?;
    let cfg = args.reasoner.config()?;
    let cb = args.reasoner.plain_casebase("frontier")?;
    let threads = super::threads_or_cores(args.frontier.threads);
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    let seed = args.reasoner.run_seed(&cfg);
    let report = run(&args.frontier, &cb, &cfg, seed, threads, &Bars)?;
    super::print(&report, args.json)
}
