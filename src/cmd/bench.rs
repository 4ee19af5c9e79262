//! `precedent bench`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use precedent::board::Planes;
use precedent::casebase::CaseBase;
use precedent_lab::bench::{TablePolicy, bounded, repeat_boards, run as bench, search_bench};
use shakmaty::{Color, Position};

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
    /// Also compare the exact bounded retrieval with the full scan (reported as `speedup`) on
    /// positions sampled from the games of these PGNs that are not in the case base (held
    /// out); without it, on boards of the case base itself.
    #[arg(long, value_name = "PGN", num_args = 1.., conflicts_with_all = ["synthetic", "search"])]
    queries: Vec<String>,
    /// The scale benchmark: build a case base of N cases from the real positions of `--pool`
    /// and their variants (see `docs/scaling.md`), load it, and time exact top-k retrieval on
    /// held-out positions of `--queries` (required).
    #[arg(long, value_name = "N", requires_all = ["pool", "out", "queries"], conflicts_with_all = ["casebase", "synthetic"])]
    scale: Option<u64>,
    /// The pool of real positions for `--scale`: a case base built with `--holdout` from the
    /// games the queries come from (e.g. `build ../shared/data/*.pgn.zst --holdout 10
    /// --no-patterns`).
    #[arg(long, value_name = "FILE")]
    pool: Option<PathBuf>,
    /// Where `--scale` writes its case base.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Queries of the bounded comparison.
    #[arg(long, default_value_t = 1000)]
    query_count: usize,
    /// Top-k of the bounded comparison.
    #[arg(long, default_value_t = 64)]
    k: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent bench`.
pub fn run(args: Args) -> Result<()> {
    if let Some(depth) = args.search {
        return run_search(depth, args.hash, args.margin, args.json);
    }
    let threads = super::threads_or_cores(args.threads);
    if let (Some(n), Some(pool), Some(out)) = (args.scale, &args.pool, &args.out) {
        return run_scale(
            n,
            pool,
            out,
            &args.queries,
            args.query_count,
            args.k,
            threads,
            args.json,
        );
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
    let step = (cb.boards().len() / 97).max(1);
    let queries: Vec<_> = cb.boards().iter().step_by(step).copied().collect();
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!("--seconds must be a positive number");
    }
    let mut report = bench(
        &boards,
        &queries,
        threads,
        Duration::from_secs_f64(args.seconds),
    );
    if args.synthetic.is_none() {
        let positions = bounded_queries(&cb, &args.queries, args.query_count)?;
        let b = bounded(&cb, &positions, args.k, threads);
        report.speedup = Some(b.speedup);
        report.bounded = Some(b);
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        if let Some(b) = &report.bounded {
            println!(
                "{} cases, {} distinct boards, {} material buckets",
                b.cases, b.boards, b.buckets
            );
            println!(
                "top-{} over {} queries: full scan {:.2} ms median, {:.2} ms p99; bounded {:.2} ms median, {:.2} ms p99",
                b.k,
                b.queries,
                b.full_median_ms,
                b.full_p99_ms,
                b.bounded_median_ms,
                b.bounded_p99_ms
            );
            println!(
                "speedup {:.2}x; the bounded scan scored {:.1} % of the cases; same top-k as the full scan for {} of {} queries",
                b.speedup,
                b.scanned_share * 100.0,
                b.identical,
                b.queries
            );
        }
        // The raw scan treats every board as one case (a case base's distinct boards, or the
        // synthetic repetitions).
        println!(
            "raw scan of {} boards, {} threads",
            report.cases, report.threads
        );
        for r in &report.rows {
            println!(
                "top-{:<3} {:>8.2} ms/scan  {:>7.1} M boards/s  {:>5.1} GB/s  ({} scans)",
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

/// The queries of the bounded comparison: held-out positions of `pgns` (games not in the case
/// base, plies ≥ 10, `n` in all, shared evenly), or every n-th board of the case base.
fn bounded_queries(cb: &CaseBase, pgns: &[String], n: usize) -> Result<Vec<(Planes, Color)>> {
    if pgns.is_empty() {
        let step = (cb.boards().len() / n.max(1)).max(1);
        let white = cb.board_segment(Color::White).end;
        return Ok(cb
            .boards()
            .iter()
            .enumerate()
            .step_by(step)
            .take(n)
            .map(|(i, b)| {
                // Black-mover boards are stored mirrored: give them back as they stood.
                if i < white {
                    (*b, Color::White)
                } else {
                    (b.mirrored(), Color::Black)
                }
            })
            .collect());
    }
    let selection = precedent::pgn::Selection {
        skip_plies: 10,
        ..Default::default()
    };
    let exclude = precedent_lab::eval::casebase_keys(cb);
    let mut out = Vec::new();
    for (i, pgn) in pgns.iter().enumerate() {
        let want = n * (i + 1) / pgns.len() - n * i / pgns.len();
        let (samples, _) =
            precedent_lab::eval::sample_positions(pgn, &selection, want, 1, &exclude, &|_| true)?;
        if samples.is_empty() {
            bail!("{pgn}: no position outside the case base to query with");
        }
        out.extend(samples.iter().map(|s| {
            let pos = &s.game.position;
            (Planes::from_board(pos.board()), pos.turn())
        }));
    }
    Ok(out)
}

/// `bench --scale`.
#[allow(clippy::too_many_arguments)]
fn run_scale(
    n: u64,
    pool: &std::path::Path,
    out: &std::path::Path,
    queries: &[String],
    query_count: usize,
    k: usize,
    threads: usize,
    json: bool,
) -> Result<()> {
    let pool = CaseBase::open(pool)?;
    let positions = bounded_queries(&pool, queries, query_count)?;
    let report = precedent_lab::scale::run(&pool, n, out, &positions, k, threads)?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let b = &report.build;
    let r = &report.retrieval;
    println!(
        "{} cases ({} of the pool × {} variants), {} distinct boards, {} material buckets",
        b.cases, b.pool_cases, b.variants, report.distinct_boards, r.buckets
    );
    println!(
        "build {:.1} s ({:.2} M cases/s); {:.2} GB, {:.1} bytes a case; load {:.2} s; memory {:.0} MB resident, {:.0} MB peak",
        b.seconds,
        b.cases_per_second / 1e6,
        report.bytes as f64 / 1e9,
        report.bytes_per_case,
        report.load_seconds,
        report.rss_mb,
        report.peak_rss_mb
    );
    println!(
        "top-{} over {} held-out queries, {threads} threads: full scan {:.1} ms median, {:.1} ms p99; bounded {:.1} ms median, {:.1} ms p99; speedup {:.2}x ({:.1} % of the cases scored; {} of {} identical)",
        r.k,
        r.queries,
        r.full_median_ms,
        r.full_p99_ms,
        r.bounded_median_ms,
        r.bounded_p99_ms,
        r.speedup,
        r.scanned_share * 100.0,
        r.identical,
        r.queries
    );
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
