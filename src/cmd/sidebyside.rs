//! `precedent side-by-side`: runs of `eval --outcomes` on the same positions, compared.

use anyhow::Result;
use precedent_lab::sidebyside::{SideArgs, run as compare};

/// Arguments of `precedent side-by-side`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    side: SideArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent side-by-side`.
pub fn run(args: Args) -> Result<()> {
    let report = compare(&args.side)?;
    super::print(&report, args.json)
}
