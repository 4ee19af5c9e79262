//! `precedent uci` (and `precedent` with no arguments): the UCI engine.

use std::path::PathBuf;

use anyhow::Result;
use precedent::casebase::CaseBase;

/// Arguments of `precedent uci`.
#[derive(clap::Args, Debug, Default)]
pub struct Args {
    /// Case-base file (default: the embedded one).
    #[arg(long, value_name = "FILE")]
    casebase: Option<PathBuf>,
}

/// Runs the UCI protocol on stdin/stdout.
pub fn run(args: Args) -> Result<()> {
    // A case base named on the command line is loaded first: a wrong path is an error at once.
    let cb = match &args.casebase {
        Some(path) => Some(CaseBase::open(path)?),
        None => None,
    };
    precedent::uci::run(cb);
    Ok(())
}
