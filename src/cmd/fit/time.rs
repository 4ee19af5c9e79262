//! `precedent fit time`.

use anyhow::{Context, Result};
use precedent_lab::fit::time::{TimeFitArgs, run as fit_time};

/// Runs `precedent fit time`: prints the measurements and the fitted `[pace]` table, and writes
/// the chart when asked.
pub fn run(args: TimeFitArgs) -> Result<()> {
    if let Some(path) = &args.chart {
        crate::cmd::ensure_writable("--chart", path)?;
    }
    let (report, chart) = fit_time(&args, |fit, test| {
        eprintln!("{fit} timed moves to fit, {test} held out");
    })?;
    print!("{report}");
    if let (Some(path), Some(svg)) = (&args.chart, chart) {
        std::fs::write(path, svg).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}
