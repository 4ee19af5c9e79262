//! Retrieve: scan the whole case base for the cases most similar to a position.
//!
//! The scan streams the flat board array in blocks, in parallel with rayon. Each block's scores
//! are computed in a tight loop the compiler vectorises (with AVX-512 or AVX2 when the CPU has
//! them); only cases at or above the running k-th best score leave that loop. Ties at the cut
//! are broken by a per-case random key derived from the seed, so the result is a uniformly
//! random choice among tied cases, reproducible for a seed, and the same however the blocks were
//! shared between threads. The scan is anytime: past its deadline (or when told to stop) it
//! returns the best cases of the blocks it finished.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use shakmaty::Color;

use crate::board::{Planes, similarity};
use crate::casebase::CaseBase;

/// How the query is compared with the cases.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Both sides seen from the mover: a Black-to-move query is mirrored and meets cases stored
    /// the same way. The default.
    #[default]
    Normalised,
    /// The thesis, literally: boards compared as they stand, whoever is to move.
    Thesis,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s.to_ascii_lowercase().as_str() {
            "normalised" | "normalized" => Ok(Mode::Normalised),
            "thesis" => Ok(Mode::Thesis),
            _ => Err(format!("unknown mode {s:?} (normalised or thesis)")),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Normalised => "normalised",
            Mode::Thesis => "thesis",
        })
    }
}

/// Cases a block of the scan covers: the unit of parallel work and of deadline checks.
const BLOCK: usize = 1 << 14;
/// Cases scored per inner batch.
const BATCH: usize = 64;

/// One contiguous run of cases and the board they are compared with.
#[derive(Copy, Clone, Debug)]
pub struct Segment<'a> {
    /// The cases' boards.
    pub boards: &'a [Planes],
    /// Index of `boards[0]` in the case base.
    pub offset: usize,
    /// The query as these cases should see it.
    pub query: Planes,
}

/// The segments to scan for a position (`board` as it stands, `turn` to move).
pub fn segments<'a>(cb: &'a CaseBase, board: Planes, turn: Color, mode: Mode) -> Vec<Segment<'a>> {
    let boards = cb.boards();
    match mode {
        Mode::Normalised => {
            let query = if turn == Color::Black {
                board.mirrored()
            } else {
                board
            };
            vec![Segment {
                boards,
                offset: 0,
                query,
            }]
        }
        Mode::Thesis => {
            // Black-mover cases are stored mirrored; mirroring the query instead is the same
            // comparison, since similarity is invariant when both boards are mirrored.
            let w = cb.segment(Color::White);
            let b = cb.segment(Color::Black);
            vec![
                Segment {
                    boards: &boards[w.clone()],
                    offset: w.start,
                    query: board,
                },
                Segment {
                    boards: &boards[b.clone()],
                    offset: b.start,
                    query: board.mirrored(),
                },
            ]
        }
    }
}

/// Limits of one scan.
#[derive(Clone, Copy, Debug)]
pub struct ScanLimits<'a> {
    /// How many cases to return.
    pub k: usize,
    /// Seed of the tie-breaking keys.
    pub seed: u64,
    /// Stop scanning new blocks after this instant.
    pub deadline: Option<Instant>,
    /// Stop scanning new blocks once this is set.
    pub stop: Option<&'a AtomicBool>,
}

/// A retrieved case.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Index in the case base.
    pub index: usize,
    /// Similarity, 0..=256.
    pub score: u32,
    /// Random tie-breaking key: among equal scores, lower wins.
    pub key: u64,
}

impl Hit {
    /// Ordering key: better hits sort first.
    fn rank(&self) -> (std::cmp::Reverse<u32>, u64) {
        (std::cmp::Reverse(self.score), self.key)
    }
}

/// What a scan found.
#[derive(Clone, Debug, Default)]
pub struct Retrieved {
    /// The best cases, best first.
    pub hits: Vec<Hit>,
    /// Cases scanned.
    pub scanned: u64,
    /// Cases that would have been scanned without a deadline.
    pub total: u64,
    /// Highest similarity found.
    pub top_score: u32,
    /// Number of scanned cases sharing the highest similarity.
    pub ties_at_top: u64,
    /// Wall time of the scan.
    pub elapsed: Duration,
}

impl Retrieved {
    /// Whether every case was scanned.
    pub fn complete(&self) -> bool {
        self.scanned == self.total
    }
}

/// The tie-breaking key of case `index` under `seed` (SplitMix64 of both).
#[inline]
pub fn tie_key(seed: u64, index: usize) -> u64 {
    let mut z = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The k best hits of part of a scan.
#[derive(Clone, Debug)]
struct TopK {
    k: usize,
    seed: u64,
    hits: Vec<Hit>,
    /// Position of the worst hit in `hits` once full.
    worst: usize,
    /// Scores below this cannot enter.
    threshold: u32,
    top_score: u32,
    ties_at_top: u64,
    scanned: u64,
}

impl TopK {
    fn new(k: usize, seed: u64) -> TopK {
        TopK {
            k,
            seed,
            hits: Vec::with_capacity(k),
            worst: 0,
            threshold: 0,
            top_score: 0,
            ties_at_top: 0,
            scanned: 0,
        }
    }

    fn offer(&mut self, index: usize, score: u32) {
        match score.cmp(&self.top_score) {
            std::cmp::Ordering::Greater => {
                self.top_score = score;
                self.ties_at_top = 1;
            }
            std::cmp::Ordering::Equal => self.ties_at_top += 1,
            std::cmp::Ordering::Less => {}
        }
        if self.k == 0 {
            return;
        }
        let hit = Hit {
            index,
            score,
            key: tie_key(self.seed, index),
        };
        if self.hits.len() < self.k {
            self.hits.push(hit);
            if self.hits.len() == self.k {
                self.find_worst();
            }
        } else if hit.rank() < self.hits[self.worst].rank() {
            self.hits[self.worst] = hit;
            self.find_worst();
        }
    }

    fn find_worst(&mut self) {
        let (i, worst) = self
            .hits
            .iter()
            .enumerate()
            .max_by_key(|(_, h)| h.rank())
            .expect("k > 0 hits");
        self.worst = i;
        self.threshold = worst.score;
    }

    fn merge(mut self, other: TopK) -> TopK {
        let (top, ties) = match self.top_score.cmp(&other.top_score) {
            std::cmp::Ordering::Greater => (self.top_score, self.ties_at_top),
            std::cmp::Ordering::Less => (other.top_score, other.ties_at_top),
            std::cmp::Ordering::Equal => (self.top_score, self.ties_at_top + other.ties_at_top),
        };
        self.hits.extend(other.hits);
        self.hits.sort_unstable_by_key(Hit::rank);
        self.hits.truncate(self.k);
        if self.hits.len() == self.k && self.k > 0 {
            self.find_worst();
        }
        self.top_score = top;
        self.ties_at_top = ties;
        self.scanned += other.scanned;
        self
    }

    fn scan(&mut self, kernel: Kernel, query: &Planes, boards: &[Planes], offset: usize) {
        let mut scores = [0u16; BATCH];
        for (b, batch) in boards.chunks(BATCH).enumerate() {
            kernel(query, batch, &mut scores);
            let base = offset + b * BATCH;
            let threshold = self.threshold as u16;
            for (i, &s) in scores[..batch.len()].iter().enumerate() {
                if s >= threshold {
                    self.offer(base + i, u32::from(s));
                }
            }
        }
        self.scanned += boards.len() as u64;
    }
}

/// Scores a batch of boards against a query.
type Kernel = fn(&Planes, &[Planes], &mut [u16; BATCH]);

#[inline(always)]
fn score_batch_generic(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    for (o, b) in out.iter_mut().zip(boards) {
        *o = similarity(query, b) as u16;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vpopcntdq,popcnt")]
fn score_batch_avx512(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    score_batch_generic(query, boards, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn score_batch_avx2(query: &Planes, boards: &[Planes], out: &mut [u16; BATCH]) {
    score_batch_generic(query, boards, out)
}

/// The fastest kernel this CPU runs, chosen once.
fn kernel() -> Kernel {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    *KERNEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512vpopcntdq")
            {
                // SAFETY: the features the function enables were just detected.
                return |q, b, o| unsafe { score_batch_avx512(q, b, o) };
            }
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt") {
                // SAFETY: as above.
                return |q, b, o| unsafe { score_batch_avx2(q, b, o) };
            }
        }
        score_batch_generic
    })
}

/// Scans `segments` and returns the `k` most similar cases.
pub fn scan(segments: &[Segment<'_>], limits: &ScanLimits<'_>) -> Retrieved {
    let started = Instant::now();
    let kernel = kernel();
    let blocks: Vec<(usize, usize)> = segments
        .iter()
        .enumerate()
        .flat_map(|(s, seg)| (0..seg.boards.len().div_ceil(BLOCK)).map(move |b| (s, b)))
        .collect();
    let expired = || {
        limits.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || limits.deadline.is_some_and(|d| Instant::now() >= d)
    };
    let top = blocks
        .par_iter()
        .enumerate()
        .fold(
            || TopK::new(limits.k, limits.seed),
            |mut top, (n, &(s, b))| {
                // The first block always runs, so every scan returns something.
                if n == 0 || !expired() {
                    let seg = &segments[s];
                    let start = b * BLOCK;
                    let end = (start + BLOCK).min(seg.boards.len());
                    top.scan(
                        kernel,
                        &seg.query,
                        &seg.boards[start..end],
                        seg.offset + start,
                    );
                }
                top
            },
        )
        .reduce(|| TopK::new(limits.k, limits.seed), TopK::merge);
    let mut hits = top.hits;
    hits.sort_unstable_by_key(Hit::rank);
    Retrieved {
        hits,
        scanned: top.scanned,
        total: segments.iter().map(|s| s.boards.len() as u64).sum(),
        top_score: top.top_score,
        ties_at_top: top.ties_at_top,
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests;
