//! `precedent match`.

use anyhow::Result;
use precedent_lab::tournament::{MatchArgs, run};

/// Arguments of `precedent match`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    args: MatchArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent match`.
pub fn run_cmd(args: Args) -> Result<()> {
    let report = run(&args.args.config()?, &super::progress::Bar::new("games"))?;
    super::print(&report, args.json)
}
