//! `precedent bench`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use precedent::bench::{repeat_boards, run as bench};
use precedent::casebase::CaseBase;

/// Arguments of `precedent bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Case base to scan (default: the embedded one).
    #[arg(long, conflicts_with = "synthetic")]
    casebase: Option<PathBuf>,
    /// Scan N cases made by repeating the embedded case base's boards instead.
    #[arg(long, value_name = "N")]
    synthetic: Option<usize>,
    /// Threads for the scan (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Seconds to spend on each measurement.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent bench`.
pub fn run(args: Args) -> Result<()> {
    let cb = match &args.casebase {
        Some(path) => CaseBase::open(path)?,
        None => CaseBase::embedded()?,
    };
    if cb.is_empty() {
        bail!("{}: the case base has no cases to scan", cb.name());
    }
    let boards = match args.synthetic {
        Some(n) => repeat_boards(cb.boards(), n),
        None => cb.boards().to_vec(),
    };
    // Queries: real positions spread over the case base.
    let step = (cb.len() / 97).max(1);
    let queries: Vec<_> = cb.boards().iter().step_by(step).copied().collect();
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!("--seconds must be a positive number");
    }
    let report = bench(
        &boards,
        &queries,
        threads,
        Duration::from_secs_f64(args.seconds),
    );
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("{} cases, {} threads", report.cases, report.threads);
        for r in &report.rows {
            println!(
                "top-{:<3} {:>8.2} ms/scan  {:>7.1} M cases/s  {:>5.1} GB/s  ({} scans)",
                r.k,
                r.median_ms,
                r.cases_per_second / 1e6,
                r.gigabytes_per_second,
                r.scans
            );
        }
    }
    Ok(())
}
