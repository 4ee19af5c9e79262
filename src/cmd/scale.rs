//! `precedent scale`: the people's scale, from games (`scale games`) or from moves
//! (`scale moves`).

use anyhow::Result;
use precedent_lab::scale::{ScaleArgs, run as measure};

/// Arguments of `precedent scale`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    scale: ScaleArgs,
    /// Print one JSON object.
    #[arg(long, global = true)]
    json: bool,
}

/// Runs `precedent scale`.
pub fn run(args: Args) -> Result<()> {
    let report = measure(&args.scale)?;
    super::print(&report, args.json)
}
