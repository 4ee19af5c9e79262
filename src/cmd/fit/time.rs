//! `precedent fit time`.

use anyhow::{Context, Result};
use precedent_lab::fit::time::{TimeFitArgs, run as fit_time};

/// Runs `precedent fit time`: prints the measurements and the fitted `[pace]` table, and writes
/// the chart when asked.
pub fn run(args: TimeFitArgs) -> Result<()> {
    for (flag, path) in [
        ("--chart", &args.chart),
        ("--clock-chart", &args.clock_chart),
    ] {
        if let Some(path) = path {
            crate::cmd::ensure_writable(flag, path)?;
        }
    }
    let (report, charts) = fit_time(
        &args,
        |fit, test| eprintln!("{fit} timed moves to fit, {test} held out"),
        |c| {
            eprintln!(
                "probed {} positions at {}: engine median {:.1} s, people's {:.1} s",
                c.positions, c.control, c.engine.0, c.people.0
            )
        },
    )?;
    print!("{report}");
    for (path, svg) in [
        (&args.chart, charts.control),
        (&args.clock_chart, charts.by_clock),
    ] {
        if let (Some(path), Some(svg)) = (path, svg) {
            std::fs::write(path, svg)
                .with_context(|| format!("{}: cannot write", path.display()))?;
        }
    }
    Ok(())
}
