//! `precedent bench`.

use anyhow::Result;
use precedent_lab::bench::{BenchArgs, BenchOutcome};

/// Arguments of `precedent bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    bench: BenchArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent bench`.
pub fn run(args: Args) -> Result<()> {
    let threads = super::threads_or_cores(args.bench.threads);
    let report: BenchOutcome = precedent_lab::bench::measure(&args.bench, threads)?;
    super::print(&report, args.json)
}
