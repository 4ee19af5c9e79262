//! `precedent bench`: how fast the retrieval scan runs, in cases per second.

mod run;
pub mod scale;

pub use run::{BenchArgs, BenchOutcome, SearchReport, bounded_queries, measure};

use std::time::{Duration, Instant};

use serde::Serialize;

use precedent::case::Planes;
use precedent::casebase::CaseBase;
use precedent::retrieve::{
    Mode, Retrieved, ScanLimits, Segment, kernel, scan, scan_bounded, scan_lists, segments,
};
use rayon::prelude::*;
use shakmaty::Color;

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// How many nearest cases the scan kept (top-k).
    pub k: usize,
    /// Full scans timed.
    pub scans: usize,
    /// Median time of one full scan (ms).
    pub median_ms: f64,
    /// Cases compared per second, at the median scan.
    pub cases_per_second: f64,
    /// Board bytes scanned per second (GB/s, 32 bytes a case).
    pub gigabytes_per_second: f64,
}

/// The whole measurement.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Boards in each scan.
    pub cases: u64,
    /// Threads the scan ran on.
    pub threads: usize,
    /// The scan's kernel ([`Kernel::name`]).
    pub kernel: &'static str,
    /// A plain read of the same boards on the same threads, in the same run (GB/s, median
    /// pass): what the memory allows.
    pub read_gigabytes_per_second: f64,
    /// The top-1 scan's GB/s over the read loop's: 1 is a scan at the memory's speed.
    pub read_share: f64,
    /// Cases per second of the top-1 scan (the thesis' retrieval).
    pub cases_per_second: f64,
    /// One row per configuration measured (top-1 and top-32).
    pub rows: Vec<BenchRow>,
    /// Full-scan time over bounded-scan time for the same queries (total time), when a case base
    /// with buckets was measured.
    pub speedup: Option<f64>,
    /// The comparison of the bounded scan with the full scan, when measured.
    pub bounded: Option<BoundedReport>,
}

/// The bounded scan ([`scan_bounded`]) against the full scan ([`scan`]) on the same queries.
#[derive(Clone, Debug, Serialize)]
pub struct BoundedReport {
    /// Queries timed (each once with each scan).
    pub queries: usize,
    /// Top-k.
    pub k: usize,
    /// Cases of the case base.
    pub cases: u64,
    /// Distinct boards scanned by a full scan.
    pub boards: u64,
    /// Material buckets.
    pub buckets: u64,
    /// Full scan: median and 99th-percentile time (ms).
    pub full_median_ms: f64,
    /// Full scan, 99th percentile (ms).
    pub full_p99_ms: f64,
    /// Bounded scan: median time (ms).
    pub bounded_median_ms: f64,
    /// Bounded scan, 99th percentile (ms).
    pub bounded_p99_ms: f64,
    /// Total full-scan time over total bounded-scan time.
    pub speedup: f64,
    /// Mean share of the cases the bounded scan scored.
    pub scanned_share: f64,
    /// Queries whose bounded top-k equals the full scan's (indices and scores): all of them,
    /// or the bound is wrong.
    pub identical: usize,
    /// Lists a side of the case base's approximate index (0: it has none).
    pub lists: usize,
    /// The approximate retrieval against the exact top-k, one row per number of lists probed
    /// (none without lists).
    pub approximate: Vec<ApproximateRow>,
}

/// The approximate retrieval ([`scan_lists`]) probing some lists a side, against the exact
/// top-k of the same queries.
#[derive(Clone, Debug, Serialize)]
pub struct ApproximateRow {
    /// Lists probed a side.
    pub probes: usize,
    /// Median time (ms).
    pub median_ms: f64,
    /// 99th percentile (ms).
    pub p99_ms: f64,
    /// Recall: the mean share of the returned cases at least as similar as the exact k-th best
    /// (ties count: any of them is as good a neighbour).
    pub recall: f64,
    /// The lowest recall of one query.
    pub worst_recall: f64,
    /// Share of the queries whose best case is as similar as the exact best.
    pub top1: f64,
    /// Mean share of the cases scored.
    pub scanned_share: f64,
}

/// The recall of `found` against the exact top-k `exact`: the share of its cases scoring at
/// least the exact k-th best (1 when the exact scan found nothing).
fn recall(found: &Retrieved, exact: &Retrieved) -> f64 {
    let Some(cut) = exact.hits.last().map(|h| h.score) else {
        return 1.0;
    };
    let good = found.hits.iter().filter(|h| h.score >= cut).count();
    good as f64 / exact.hits.len() as f64
}

/// Times the full and the bounded scan of `cb` for each query (a board as it stands and the
/// side to move), interleaved, with `threads` threads; and if `cb` has lists, the approximate
/// retrieval probing each of `probes` lists a side.
pub fn bounded(
    cb: &CaseBase,
    queries: &[(Planes, Color)],
    k: usize,
    threads: usize,
    probes: &[usize],
) -> BoundedReport {
    let lists = cb.lists(Color::White).map_or(0, |l| l.len());
    let probes = if lists > 0 { probes } else { &[] };
    let run = || {
        let mut full = Vec::with_capacity(queries.len());
        let mut bounded = Vec::with_capacity(queries.len());
        let mut share = 0.0;
        let mut identical = 0;
        // Per number of probes: times, recalls, top-1 matches, scanned shares.
        let mut approx: Vec<(Vec<f64>, Vec<f64>, usize, f64)> =
            vec![(Vec::new(), Vec::new(), 0, 0.0); probes.len()];
        for (q, &(board, turn)) in queries.iter().enumerate() {
            let segs = segments(cb, board, turn, Mode::Normalised);
            let limits = ScanLimits {
                k,
                seed: q as u64,
                deadline: None,
                stop: None,
                probes: 0,
            };
            let t = Instant::now();
            let a = scan(&segs, &limits);
            full.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let b = scan_bounded(&segs, &limits);
            bounded.push(t.elapsed().as_secs_f64());
            share += b.scanned as f64 / b.total.max(1) as f64;
            if a.hits == b.hits && b.complete() {
                identical += 1;
            }
            for (&p, (times, recalls, top1, scanned)) in probes.iter().zip(&mut approx) {
                let limits = ScanLimits {
                    probes: p,
                    ..limits
                };
                let t = Instant::now();
                let c = scan_lists(&segs, &limits);
                times.push(t.elapsed().as_secs_f64());
                recalls.push(recall(&c, &a));
                *top1 += usize::from(c.top_score == a.top_score);
                *scanned += c.scanned as f64 / c.total.max(1) as f64;
            }
        }
        (full, bounded, share, identical, approx)
    };
    let (mut full, mut bounded, share, identical, approx) =
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        };
    let total = |t: &[f64]| t.iter().sum::<f64>();
    let speedup = total(&full) / total(&bounded).max(1e-12);
    full.sort_by(f64::total_cmp);
    bounded.sort_by(f64::total_cmp);
    let at = |t: &[f64], q: f64| {
        t.get(((t.len() as f64 - 1.0) * q).round() as usize)
            .map_or(0.0, |x| x * 1e3)
    };
    let n = queries.len().max(1) as f64;
    let approximate = probes
        .iter()
        .zip(approx)
        .map(|(&probes, (mut times, recalls, top1, scanned))| {
            times.sort_by(f64::total_cmp);
            ApproximateRow {
                probes,
                median_ms: at(&times, 0.5),
                p99_ms: at(&times, 0.99),
                recall: recalls.iter().sum::<f64>() / n,
                worst_recall: recalls.iter().copied().fold(1.0, f64::min),
                top1: top1 as f64 / n,
                scanned_share: scanned / n,
            }
        })
        .collect();
    BoundedReport {
        queries: queries.len(),
        k,
        cases: cb.len() as u64,
        boards: cb.boards().len() as u64,
        buckets: cb.buckets().len() as u64,
        full_median_ms: at(&full, 0.5),
        full_p99_ms: at(&full, 0.99),
        bounded_median_ms: at(&bounded, 0.5),
        bounded_p99_ms: at(&bounded, 0.99),
        speedup,
        scanned_share: share / queries.len().max(1) as f64,
        identical,
        lists,
        approximate,
    }
}

/// `n` boards made by cycling through `source` (mirrored on odd laps, so that repeated laps
/// are not byte-identical).
pub fn repeat_boards(source: &[Planes], n: usize) -> Vec<Planes> {
    if source.is_empty() {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let b = source[i % source.len()];
            if (i / source.len()) % 2 == 1 {
                b.mirrored()
            } else {
                b
            }
        })
        .collect()
}

/// Boards a read-loop task covers (as many as a block of the scan).
const READ_CHUNK: usize = 1 << 14;

/// Reads every byte of `boards` on the current rayon pool, as the scan does but with no work
/// beyond a running XOR (which the compiler vectorises): the speed the memory allows a scan.
fn read_all(boards: &[Planes]) -> u64 {
    boards
        .par_chunks(READ_CHUNK)
        .map(|chunk| {
            chunk
                .iter()
                .fold(0u64, |x, p| x ^ p.white ^ p.r0 ^ p.r1 ^ p.r2)
        })
        .reduce(|| 0, |a, b| a ^ b)
}

/// Seconds of one pass of the read loop over `boards`.
fn read_pass(boards: &[Planes]) -> f64 {
    let t = Instant::now();
    std::hint::black_box(read_all(std::hint::black_box(boards)));
    t.elapsed().as_secs_f64()
}

/// The median of `times` (sorted in place).
fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Times full scans of `boards` with each queries in turn, for top-1 and top-32, for at least
/// `min_time` each, each scan followed by a pass of a read loop over the same boards (so that
/// both see the same machine as its speed drifts); reports the median scan and the median read.
pub fn run(
    boards: &[Planes],
    queries: &[Planes],
    threads: usize,
    min_time: Duration,
) -> BenchReport {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let mut reads = Vec::new();
    let measure = |k: usize| {
        let mut times = Vec::new();
        let started = Instant::now();
        let mut q = 0;
        while times.len() < 3 || (started.elapsed() < min_time && times.len() < 1000) {
            let segs = [Segment::plain(boards, 0, queries[q % queries.len()])];
            let t = Instant::now();
            let r = scan(
                &segs,
                &ScanLimits {
                    k,
                    seed: q as u64,
                    deadline: None,
                    stop: None,
                    probes: 0,
                },
            );
            times.push(t.elapsed().as_secs_f64());
            std::hint::black_box(r);
            reads.push(read_pass(boards));
            q += 1;
        }
        let median = median(&mut times);
        let cps = boards.len() as f64 / median;
        BenchRow {
            k,
            scans: times.len(),
            median_ms: median * 1e3,
            cases_per_second: cps,
            gigabytes_per_second: cps * 32.0 / 1e9,
        }
    };
    let rows: Vec<BenchRow> = match &pool {
        Ok(pool) => pool.install(|| [1, 32].map(measure).to_vec()),
        Err(_) => [1, 32].map(measure).to_vec(),
    };
    let read = boards.len() as f64 * 32.0 / 1e9 / median(&mut reads);
    BenchReport {
        cases: boards.len() as u64,
        threads,
        kernel: precedent::choice::Choice::word(kernel()),
        read_gigabytes_per_second: read,
        read_share: rows[0].gigabytes_per_second / read,
        cases_per_second: rows[0].cases_per_second,
        rows,
        speedup: None,
        bounded: None,
    }
}

/// Opening and middle-game moves (50 plies each) of six rated rapid games from lichess.org
/// (CC0): the fixed position set of the search benchmark. Consecutive positions of real games,
/// because what a persistent table is for is reusing the previous move's search.
pub const BENCH_GAMES: [&str; 6] = [
    // https://lichess.org/IY86j7ih
    "d2d4 d7d5 g1f3 g8f6 b1c3 b8c6 c1g5 e7e6 e2e3 f8d6 f1b5 c8d7 e1g1 h7h6 g5f6 d8f6 e3e4 d5e4 \
     c3e4 f6e7 e4d6 e7d6 c2c3 e8g8 f1e1 a7a6 b5d3 f7f5 g2g3 d7e8 f3e5 a8d8 e5c6 e8c6 d3c4 c6d5 \
     c4d5 d6d5 e1e5 d5c6 d1e2 f8f6 a1e1 d8d6 h2h4 f5f4 e2e4 f4g3 f2g3 c6e4",
    // https://lichess.org/yhXntYkE
    "e2e4 c7c5 d2d3 d7d5 e4d5 g8f6 c2c4 e7e6 d5e6 c8e6 g2g3 b8c6 f1g2 e6f5 g1e2 d8d3 d1d3 f5d3 \
     b2b3 f8e7 c1b2 c6b4 b1a3 e8g8 e2f4 d3e4 e1g1 e4g2 g1g2 g7g5 f4e2 b4d3 b2c3 f6e4 a1d1 e4c3 \
     e2c3 d3b4 c3d5 b4d5 c4d5 f8d8 a3b5 d8d7 d5d6 e7f8 d1d5 a7a6 b5c7 a8c8",
    // https://lichess.org/Qtc6qmAF
    "e2e4 d7d5 e4d5 d8d5 b1c3 d5d8 f1e2 g8f6 e2f3 e7e6 d2d4 c7c6 c1f4 f8b4 d1d3 f6d5 f3d5 b4c3 \
     d3c3 e6d5 e1c1 e8g8 g1f3 c8g4 d1e1 f8e8 h2h3 g4f3 g2f3 b8d7 e1g1 b7b6 c3d2 c6c5 f4h6 g7g6 \
     h6g5 d7f6 h3h4 d8d6 g5f6 d6f6 h4h5 e8e6 h5g6 f7g6 d2h6 f6g7 h6h3 a8e8",
    // https://lichess.org/30Tl6fw1
    "e2e4 e7e5 g1f3 b8c6 c2c3 h7h6 d2d4 e5d4 c3d4 f8b4 b1c3 b4c3 b2c3 g8f6 d4d5 c6e7 d5d6 c7d6 \
     f1d3 e8g8 c1a3 d8a5 a3b4 a5d8 b4d6 f8e8 e4e5 f6d5 d1c2 g7g6 e1g1 b7b6 d6e7 d8e7 d3g6 f7g6 \
     c2g6 e7g7 g6e8 g8h7 c3c4 d7d6 c4d5 c8h3 f3g5 g7g5 e8f7 h7h8 f7f6 g5f6",
    // https://lichess.org/SO0T9jnQ
    "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 b1c3 f8c5 d2d3 e8g8 c1g5 h7h6 g5h4 c5e7 e1g1 f6g4 h4g3 d7d6 \
     h2h3 g4f6 f3h4 f6e4 c3e4 e7h4 d1h5 h4g3 f2g3 c8e6 g3g4 d6d5 e4c5 d5c4 c5b7 d8e7 d3c4 e6c4 \
     f1f2 c6d8 b7a5 c4a6 f2f5 e7c5 g1h2 c5a5 f5e5 a5d2 a1e1 d2c2 g4g5 h6g5",
    // https://lichess.org/43xgwnXY
    "d2d4 g8f6 c2c4 d7d5 c4d5 f6d5 e2e4 d5b6 g1f3 e7e6 b1c3 c8d7 f1e2 c7c5 e1g1 c5d4 d1d4 b8c6 \
     d4e3 c6b4 e2d1 a8c8 a2a3 f8c5 e3f4 b4d3 f4g4 e8g8 d1c2 d3c1 a1c1 e6e5 g4g3 d8f6 g3e5 f6e5 \
     f3e5 d7e6 f1d1 a7a5 c3b5 b6c4 e5c4 e6c4 c2a4 c4e2 d1d5 b7b6 b5a7 c8d8",
];

/// How the search benchmark keeps its transposition table.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TablePolicy {
    /// A fresh 4 MB table for every move (what the engine did before `Hash` was honoured).
    FreshEveryMove,
    /// One table of the given size (MB) kept through each game, cleared between games.
    Persistent(usize),
}

/// One search-benchmark run.
#[derive(Clone, Debug, Serialize)]
pub struct SearchBenchRow {
    /// The table policy.
    pub policy: TablePolicy,
    /// Positions searched.
    pub positions: usize,
    /// Depth each search reached (all of them: the limit is the depth).
    pub depth: u32,
    /// Nodes over all positions.
    pub nodes: u64,
    /// Seconds over all positions.
    pub seconds: f64,
}

/// What the search benchmark searches with.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchSpec {
    /// The depth every position is searched to.
    pub depth: u32,
    /// Give every root move an exact value within this many centipawns of the best (the move
    /// model's analysis) instead of proving the others worse.
    pub margin: Option<i32>,
    /// The hand-made evaluation instead of the network.
    pub classic: bool,
    /// The `best` style's root (aspiration windows, every move) instead of the move model's.
    pub best_root: bool,
}

/// Searches every position of [`BENCH_GAMES`] as `spec` says, one game after another, keeping
/// the table as `policy` says.
pub fn search_bench(spec: SearchSpec, policy: TablePolicy) -> SearchBenchRow {
    use precedent::position::play_moves;
    use precedent::revise::Memory;
    use precedent::search::{Limits, Searcher, Setup};
    use shakmaty::{Chess, Position};

    let mut persistent = match policy {
        TablePolicy::Persistent(mb) => Some(Memory::new(mb)),
        TablePolicy::FreshEveryMove => None,
    };
    let (mut nodes, mut positions) = (0, 0);
    let started = Instant::now();
    for game in BENCH_GAMES {
        let moves: Vec<String> = game.split_whitespace().map(str::to_string).collect();
        if let Some(tt) = persistent.as_mut() {
            tt.clear();
        }
        for ply in 0..moves.len() {
            let Ok(pos) = play_moves(Chess::default(), &moves[..ply]) else {
                break;
            };
            let root: Vec<_> = pos.legal_moves().into_iter().collect();
            let mut fresh;
            let tt = match persistent.as_mut() {
                Some(tt) => tt,
                None => {
                    fresh = Memory::new(4);
                    &mut fresh
                }
            };
            let setup = Setup {
                network: !spec.classic,
                ..Setup::default()
            };
            let limits = Limits {
                max_depth: Some(spec.depth),
                ..Limits::default()
            };
            // With a margin, every move gets an exact value within it (the move model's search).
            let (exact, tolerance) = spec.margin.map_or((0, 0), |m| (root.len(), m));
            let tolerance = |depth: u32| {
                if spec.margin.is_some() && depth <= precedent::revise::WIDE_DEPTHS {
                    precedent::revise::WIDE_MARGIN
                } else {
                    tolerance
                }
            };
            let mut searcher = Searcher::new(setup, limits, tt);
            let result = if spec.best_root {
                searcher.search_best(&pos, &root)
            } else {
                searcher.search_root(&pos, &root, exact, tolerance)
            };
            if let Some(r) = result {
                nodes += r.nodes;
            }
            positions += 1;
        }
    }
    SearchBenchRow {
        policy,
        positions,
        depth: spec.depth,
        nodes,
        seconds: started.elapsed().as_secs_f64(),
    }
}
