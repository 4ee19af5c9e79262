//! `precedent info`.

use std::path::PathBuf;

use anyhow::Result;
use precedent::casebase::{CaseBase, summarise};

/// Arguments of `precedent info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The case-base file.
    file: PathBuf,
    /// How many players to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent info`.
pub fn run(args: Args) -> Result<()> {
    let cb = CaseBase::open(&args.file)?;
    let s = summarise(&cb, args.top);
    if args.json {
        println!("{}", serde_json::to_string(&s)?);
        return Ok(());
    }
    print!("{s}");
    Ok(())
}
