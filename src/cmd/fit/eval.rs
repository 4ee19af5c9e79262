//! `precedent fit eval`.

use anyhow::Result;
use precedent_lab::fit::eval::{EvalFitArgs, run as fit_eval};

/// Runs `precedent fit eval`: prints the fitted weights and tables as Rust.
pub fn run(args: EvalFitArgs) -> Result<()> {
    let report = fit_eval(&args, |games, fitting, check| {
        eprintln!("{games} games, {fitting} fitting positions, {check} check positions");
    })?;
    print!("{report}");
    Ok(())
}
