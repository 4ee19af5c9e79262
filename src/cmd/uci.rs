//! `precedent uci` (and `precedent` with no arguments): the UCI engine.

use anyhow::Result;
use precedent_lab::reasoner::ReasonerArgs;

/// Arguments of `precedent uci`: the case base and the reasoner's settings to start from (a GUI's
/// `setoption` changes them as it would the defaults; `--elo N` starts with `UCI_LimitStrength`
/// at `UCI_Elo` N).
#[derive(clap::Args, Debug, Default)]
pub struct Args {
    #[command(flatten)]
    reasoner: ReasonerArgs,
}

/// Runs the UCI protocol on stdin/stdout.
pub fn run(args: Args) -> Result<()> {
    // A case base or settings named on the command line are checked first: a wrong path or
    // value is an error at once.
    let cb = match &args.reasoner.casebase {
        Some(_) => Some(args.reasoner.casebase()?),
        None => None,
    };
    let reasoner = args.reasoner.config()?;
    if let Some(note) = reasoner.unmodelled_style() {
        eprintln!("note: {note}");
    }
    precedent::uci::run(cb, reasoner);
    Ok(())
}
