//! `precedent bench`: how fast the retrieval scan runs, in cases per second.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::board::Planes;
use crate::retrieve::{ScanLimits, Segment, scan};

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub k: usize,
    pub scans: usize,
    pub median_ms: f64,
    pub cases_per_second: f64,
    pub gigabytes_per_second: f64,
}

/// The whole measurement.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub cases: u64,
    pub threads: usize,
    /// Cases per second of the top-1 scan (the thesis' retrieval).
    pub cases_per_second: f64,
    pub rows: Vec<BenchRow>,
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

/// Times full scans of `boards` with each queries in turn, for top-1 and top-32, for at least
/// `min_time` each; reports the median scan.
pub fn run(
    boards: &[Planes],
    queries: &[Planes],
    threads: usize,
    min_time: Duration,
) -> BenchReport {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let measure = |k: usize| {
        let mut times = Vec::new();
        let started = Instant::now();
        let mut q = 0;
        while times.len() < 3 || (started.elapsed() < min_time && times.len() < 1000) {
            let segs = [Segment {
                boards,
                offset: 0,
                query: queries[q % queries.len()],
            }];
            let t = Instant::now();
            let r = scan(
                &segs,
                &ScanLimits {
                    k,
                    seed: q as u64,
                    deadline: None,
                    stop: None,
                },
            );
            times.push(t.elapsed().as_secs_f64());
            std::hint::black_box(r);
            q += 1;
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
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
    BenchReport {
        cases: boards.len() as u64,
        threads,
        cases_per_second: rows[0].cases_per_second,
        rows,
    }
}
