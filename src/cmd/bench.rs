//! `precedent bench`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use precedent::casebase::CaseBase;
use precedent_lab::bench::{TablePolicy, repeat_boards, run as bench, search_bench};

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
    /// Benchmark the revise search instead: every position of six real games searched to
    /// this depth, with a fresh table per move and with a persistent one (`--hash` MB).
    #[arg(long, value_name = "DEPTH", conflicts_with_all = ["casebase", "synthetic"])]
    search: Option<u32>,
    /// Size of the persistent table for `--search`, in MB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// With `--search`: give every root move an exact value within this many centipawns of the
    /// best (what the move model's analysis does), instead of proving the others worse.
    #[arg(long, value_name = "CP")]
    margin: Option<i32>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent bench`.
pub fn run(args: Args) -> Result<()> {
    if let Some(depth) = args.search {
        return run_search(depth, args.hash, args.margin, args.json);
    }
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

/// `bench --search`: nodes and time to a fixed depth, fresh table per move against a persistent
/// one.
fn run_search(depth: u32, hash: usize, margin: Option<i32>, json: bool) -> Result<()> {
    if !(1..=64).contains(&depth) {
        bail!("--search {depth}: the depth must be 1 to 64");
    }
    if !(1..=precedent::revise::tt::MAX_MB).contains(&hash) {
        bail!(
            "--hash {hash}: must be 1 to {} MB",
            precedent::revise::tt::MAX_MB
        );
    }
    let rows = [
        search_bench(depth, TablePolicy::FreshEveryMove, margin),
        search_bench(depth, TablePolicy::Persistent(hash), margin),
    ];
    if json {
        println!("{}", serde_json::to_string(&rows)?);
        return Ok(());
    }
    println!(
        "{} positions of 6 games, each searched to depth {depth}",
        rows[0].positions
    );
    for r in &rows {
        let policy = match r.policy {
            TablePolicy::FreshEveryMove => "fresh 4 MB table every move".to_string(),
            TablePolicy::Persistent(mb) => format!("persistent {mb} MB table"),
        };
        println!(
            "{policy:<30} {:>12} nodes  {:>8.2} s  {:>6.0} knps",
            r.nodes,
            r.seconds,
            r.nodes as f64 / r.seconds / 1e3
        );
    }
    let saved = 1.0 - rows[1].nodes as f64 / rows[0].nodes.max(1) as f64;
    let faster = rows[0].seconds / rows[1].seconds;
    println!(
        "persistent: {:.1} % fewer nodes, {faster:.2}x the speed to the same depth",
        saved * 100.0
    );
    Ok(())
}
