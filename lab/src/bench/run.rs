//! `precedent bench` as a workflow: its arguments, the scan, scale and search benchmarks they
//! choose, and the reports' text.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use precedent::case::Planes;
use precedent::casebase::CaseBase;
use precedent::reuse::PROBES;
use serde::Serialize;
use shakmaty::{Color, Position};

use super::scale::ScaleReport;
use super::{
    BenchReport, SearchBenchRow, SearchSpec, TablePolicy, bounded, repeat_boards,
    run as scan_bench, search_bench,
};
use crate::eval::EvalError;
use crate::positions::{casebase_keys, sample_positions};

/// Which benchmark `bench` runs, and on what.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct BenchArgs {
    /// Case base to scan (default: the embedded one).
    #[arg(long, conflicts_with = "synthetic")]
    pub casebase: Option<PathBuf>,
    /// Scan N cases made by repeating the embedded case base's boards instead.
    #[arg(long, value_name = "N")]
    pub synthetic: Option<usize>,
    /// Threads for the scan (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seconds to spend on each measurement.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Benchmark the revise search instead: every position of six real games searched to
    /// this depth, with a fresh table per move and with a persistent one (`--hash` MB).
    #[arg(long, value_name = "DEPTH", conflicts_with_all = ["casebase", "synthetic"])]
    pub search: Option<u32>,
    /// Size of the persistent table for `--search`, in MB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// With `--search`: give every root move an exact value within this many centipawns of the
    /// best (what the move model's analysis does), instead of proving the others worse.
    #[arg(long, value_name = "CP")]
    pub margin: Option<i32>,
    /// With `--search`: evaluate with the hand-made evaluation instead of the network.
    #[arg(long)]
    pub classic_eval: bool,
    /// With `--search`: search with the `best` style's root (aspiration windows, every move
    /// proved worse than the best) instead of the move model's.
    #[arg(long, conflicts_with = "margin")]
    pub best_root: bool,
    /// Also compare the exact bounded retrieval with the full scan (reported as `speedup`) on
    /// positions sampled from the games of these PGNs that are not in the case base (held
    /// out); without it, on boards of the case base itself.
    #[arg(long, value_name = "PGN", num_args = 1.., conflicts_with_all = ["synthetic", "search"])]
    pub queries: Vec<String>,
    /// The scale benchmark: build a case base of N cases from the real positions of `--pool`
    /// and their variants (see `docs/scaling.md`), load it, and time exact top-k retrieval on
    /// held-out positions of `--queries` (required).
    #[arg(long, value_name = "N", requires_all = ["pool", "out", "queries"], conflicts_with_all = ["casebase", "synthetic"])]
    pub scale: Option<u64>,
    /// The pool of real positions for `--scale`: a case base built with `--holdout` from the
    /// games the queries come from (e.g. `build ../shared/data/*.pgn.zst --holdout 10
    /// --no-patterns`).
    #[arg(long, value_name = "FILE")]
    pub pool: Option<PathBuf>,
    /// Where `--scale` writes its case base.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// `--scale` derives the move patterns and fits the strengths and the policy (on the
    /// default sample), as `build` does: the whole build's time and memory at that size.
    #[arg(long, requires = "scale")]
    pub patterns: bool,
    /// `--scale` arranges the cases within about this much memory (as `build --memory`):
    /// more are sorted in partitions spilled to disk beside `--out`.
    #[arg(long, value_name = "SIZE", requires = "scale", default_value = "4G", value_parser = precedent::casebase::parse_memory)]
    pub memory: u64,
    /// Queries of the bounded comparison.
    #[arg(long, default_value_t = 1000)]
    pub query_count: usize,
    /// Top-k of the bounded comparison.
    #[arg(long, default_value_t = 64)]
    pub k: usize,
    /// In a case base with lists, also time the approximate retrieval probing each of these
    /// numbers of lists a side, and measure its recall against the exact top-k.
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', default_values_t = [PROBES / 4, PROBES, PROBES * 4])]
    pub probes: Vec<usize>,
}

/// What `bench` measured.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum BenchOutcome {
    /// The retrieval scan (and the bounded retrieval against it).
    Scan(BenchReport),
    /// The scale benchmark.
    Scale {
        /// Its report.
        #[serde(flatten)]
        report: ScaleReport,
        /// Threads of the retrieval.
        #[serde(skip)]
        threads: usize,
    },
    /// The search to a fixed depth, with a fresh table per move and a persistent one.
    Search(SearchReport),
}

/// `bench --search`: the two table policies to the same depth.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct SearchReport {
    /// A fresh table every move, then the persistent table.
    pub rows: [SearchBenchRow; 2],
    /// The depth searched.
    #[serde(skip)]
    pub depth: u32,
    /// Whether the `best` style's root searched (otherwise the move model's).
    #[serde(skip)]
    pub best_root: bool,
}

/// Runs the benchmark `args` choose on `threads` threads.
pub fn measure(args: &BenchArgs, threads: usize) -> Result<BenchOutcome, EvalError> {
    if let Some(depth) = args.search {
        let spec = SearchSpec {
            depth,
            margin: args.margin,
            classic: args.classic_eval,
            best_root: args.best_root,
        };
        return search(spec, args.hash).map(BenchOutcome::Search);
    }
    if let (Some(n), Some(pool), Some(out)) = (args.scale, &args.pool, &args.out) {
        let pool = CaseBase::open(pool)?;
        let positions = bounded_queries(&pool, &args.queries, args.query_count)?;
        let report = super::scale::run(
            &pool,
            n,
            out,
            super::scale::Scaling {
                patterns: args.patterns,
                memory: args.memory,
            },
            super::scale::Timing {
                queries: &positions,
                k: args.k,
                threads,
                probes: &args.probes,
            },
        )
        .map_err(|e| EvalError::Other(e.to_string()))?;
        return Ok(BenchOutcome::Scale { report, threads });
    }
    let cb = match &args.casebase {
        Some(path) => CaseBase::open(path)?,
        None => CaseBase::embedded()?,
    };
    if cb.is_empty() {
        return Err(EvalError::Other(format!(
            "{}: the case base has no cases to scan",
            cb.name()
        )));
    }
    let boards = match args.synthetic {
        Some(n) => repeat_boards(cb.boards(), n),
        None => cb.boards().to_vec(),
    };
    // Queries: real positions spread over the case base.
    let step = (cb.boards().len() / 97).max(1);
    let queries: Vec<_> = cb.boards().iter().step_by(step).copied().collect();
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(EvalError::Other(
            "--seconds must be a positive number".into(),
        ));
    }
    let seconds = Duration::from_secs_f64(args.seconds);
    let mut report = scan_bench(&boards, &queries, threads, seconds);
    if args.synthetic.is_none() {
        let positions = bounded_queries(&cb, &args.queries, args.query_count)?;
        let b = bounded(&cb, &positions, args.k, threads, &args.probes);
        report.speedup = Some(b.speedup);
        report.bounded = Some(b);
    }
    Ok(BenchOutcome::Scan(report))
}

/// The queries of the bounded comparison: held-out positions of `pgns` (games not in the case
/// base, plies ≥ 10, `n` in all, shared evenly), or every n-th board of the case base.
pub fn bounded_queries(
    cb: &CaseBase,
    pgns: &[String],
    n: usize,
) -> Result<Vec<(Planes, Color)>, EvalError> {
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
    let exclude = casebase_keys(cb);
    let mut out = Vec::new();
    for (i, pgn) in pgns.iter().enumerate() {
        let want = n * (i + 1) / pgns.len() - n * i / pgns.len();
        let (samples, _) = sample_positions(pgn, &selection, want, 1, &exclude, &|_| true)?;
        if samples.is_empty() {
            return Err(EvalError::Other(format!(
                "{pgn}: no position outside the case base to query with"
            )));
        }
        out.extend(samples.iter().map(|s| {
            let pos = &s.game.position;
            (Planes::from_board(pos.board()), pos.turn())
        }));
    }
    Ok(out)
}

/// `bench --search`: nodes and time to a fixed depth, fresh table per move against a
/// persistent one.
fn search(spec: SearchSpec, hash: usize) -> Result<SearchReport, EvalError> {
    let depth = spec.depth;
    if !(1..=64).contains(&depth) {
        return Err(EvalError::Other(format!(
            "--search {depth}: the depth must be 1 to 64"
        )));
    }
    let max = precedent::search::MAX_HASH_MB;
    if !(1..=max).contains(&hash) {
        return Err(EvalError::Other(format!(
            "--hash {hash}: must be 1 to {max} MB"
        )));
    }
    let rows = [
        search_bench(spec, TablePolicy::FreshEveryMove),
        search_bench(spec, TablePolicy::Persistent(hash)),
    ];
    Ok(SearchReport {
        rows,
        depth,
        best_root: spec.best_root,
    })
}

impl fmt::Display for BenchOutcome {
    /// The report as `precedent bench` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchOutcome::Scan(r) => fmt_scan(f, r),
            BenchOutcome::Scale { report, threads } => fmt_scale(f, report, *threads),
            BenchOutcome::Search(r) => fmt_search(f, r),
        }
    }
}

fn fmt_scan(f: &mut fmt::Formatter<'_>, report: &BenchReport) -> fmt::Result {
    if let Some(b) = &report.bounded {
        writeln!(
            f,
            "{} cases, {} distinct boards, {} material buckets",
            b.cases, b.boards, b.buckets
        )?;
        writeln!(
            f,
            "top-{} over {} queries: full scan {:.2} ms median, {:.2} ms p99; bounded {:.2} ms median, {:.2} ms p99",
            b.k, b.queries, b.full_median_ms, b.full_p99_ms, b.bounded_median_ms, b.bounded_p99_ms
        )?;
        writeln!(
            f,
            "speedup {:.2}x; the bounded scan scored {:.1} % of the cases; same top-k as the full scan for {} of {} queries",
            b.speedup,
            b.scanned_share * 100.0,
            b.identical,
            b.queries
        )?;
        fmt_approximate(f, b)?;
    }
    // The raw scan treats every board as one case (a case base's distinct boards, or the
    // synthetic repetitions).
    writeln!(
        f,
        "raw scan of {} boards, {} threads, {} kernel; read loop {:.1} GB/s",
        report.cases, report.threads, report.kernel, report.read_gigabytes_per_second
    )?;
    for r in &report.rows {
        writeln!(
            f,
            "top-{:<3} {:>8.2} ms/scan  {:>7.1} M boards/s  {:>5.1} GB/s  {:>4.0} % of the read loop  ({} scans)",
            r.k,
            r.median_ms,
            r.cases_per_second / 1e6,
            r.gigabytes_per_second,
            100.0 * r.gigabytes_per_second / report.read_gigabytes_per_second,
            r.scans
        )?;
    }
    Ok(())
}

/// The approximate retrieval's rows, if the case base has lists.
fn fmt_approximate(f: &mut fmt::Formatter<'_>, b: &super::BoundedReport) -> fmt::Result {
    if b.lists > 0 {
        writeln!(f, "approximate retrieval, {} lists a side:", b.lists)?;
    }
    for r in &b.approximate {
        writeln!(
            f,
            "  {:>5} probed: {:>7.2} ms median, {:>7.2} ms p99; recall {:.3} (worst {:.3}), top-1 {:.3}; {:.1} % of the cases scored",
            r.probes,
            r.median_ms,
            r.p99_ms,
            r.recall,
            r.worst_recall,
            r.top1,
            r.scanned_share * 100.0
        )?;
    }
    Ok(())
}

fn fmt_scale(f: &mut fmt::Formatter<'_>, report: &ScaleReport, threads: usize) -> fmt::Result {
    let b = &report.build;
    let r = &report.retrieval;
    writeln!(
        f,
        "{} cases ({} of the pool × {} variants), {} distinct boards, {} material buckets",
        b.cases, b.pool_cases, b.variants, report.distinct_boards, r.buckets
    )?;
    writeln!(
        f,
        "build {:.1} s ({:.2} M cases/s, {:.0} MB peak); {:.2} GB, {:.1} bytes a case; load {:.2} s; memory {:.0} MB resident, {:.0} MB peak",
        b.seconds,
        b.cases_per_second / 1e6,
        b.peak_rss_mb,
        report.bytes as f64 / 1e9,
        report.bytes_per_case,
        report.load_seconds,
        report.rss_mb,
        report.peak_rss_mb
    )?;
    if !b.phases.is_empty() {
        let phases: Vec<String> = b
            .phases
            .iter()
            .map(|p| format!("{} {:.1} s", p.name, p.seconds))
            .collect();
        writeln!(f, "build phases: {}", phases.join(", "))?;
    }
    writeln!(
        f,
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
    )?;
    fmt_approximate(f, r)
}

fn fmt_search(f: &mut fmt::Formatter<'_>, report: &SearchReport) -> fmt::Result {
    let rows = &report.rows;
    writeln!(
        f,
        "{} positions of 6 games, each searched to depth {}{}",
        rows[0].positions,
        report.depth,
        if report.best_root {
            " from the `best` style's root"
        } else {
            ""
        }
    )?;
    for r in rows {
        let policy = match r.policy {
            TablePolicy::FreshEveryMove => "fresh 4 MB table every move".to_string(),
            TablePolicy::Persistent(mb) => format!("persistent {mb} MB table"),
        };
        writeln!(
            f,
            "{policy:<30} {:>12} nodes  {:>8.2} s  {:>6.0} knps",
            r.nodes,
            r.seconds,
            r.nodes as f64 / r.seconds / 1e3
        )?;
    }
    let saved = 1.0 - rows[1].nodes as f64 / rows[0].nodes.max(1) as f64;
    let faster = rows[0].seconds / rows[1].seconds;
    writeln!(
        f,
        "persistent: {:.1} % fewer nodes, {faster:.2}x the speed to the same depth",
        saved * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_benchmark_counts_the_same_nodes_every_time() {
        let args = BenchArgs {
            search: Some(3),
            hash: 16,
            ..BenchArgs::default()
        };
        let (BenchOutcome::Search(a), BenchOutcome::Search(b)) = (
            measure(&args, 1).expect("bench"),
            measure(&args, 1).expect("again"),
        ) else {
            panic!("a search report");
        };
        assert_eq!(a.rows[0].nodes, b.rows[0].nodes);
        assert!(a.rows[0].nodes > 0 && a.rows[0].positions > 0);
        let model_nodes = a.rows[0].nodes;
        let text = BenchOutcome::Search(a).to_string();
        assert!(text.contains("searched to depth 3"), "{text}");
        let best = BenchArgs {
            best_root: true,
            ..args.clone()
        };
        let BenchOutcome::Search(b) = measure(&best, 1).expect("best root") else {
            panic!("a search report");
        };
        assert!(b.rows[0].nodes > 0 && b.rows[0].nodes != model_nodes);
        let text = BenchOutcome::Search(b).to_string();
        assert!(text.contains("from the `best` style's root"), "{text}");
        assert!(
            measure(
                &BenchArgs {
                    search: Some(0),
                    ..args.clone()
                },
                1
            )
            .is_err()
        );
        assert!(measure(&BenchArgs { hash: 0, ..args }, 1).is_err());
    }

    #[test]
    fn the_scan_benchmark_compares_the_bounded_retrieval_with_the_full_scan() {
        let args = BenchArgs {
            seconds: 0.05,
            query_count: 5,
            k: 8,
            ..BenchArgs::default()
        };
        let BenchOutcome::Scan(r) = measure(&args, 1).expect("bench") else {
            panic!("a scan report");
        };
        let b = r.bounded.as_ref().expect("bounded");
        assert_eq!(b.identical, b.queries, "the bounded retrieval is exact");
        assert!(BenchOutcome::Scan(r).to_string().contains("raw scan of"));
        let bad = BenchArgs {
            seconds: 0.0,
            ..args
        };
        assert!(measure(&bad, 1).is_err());
    }
}
