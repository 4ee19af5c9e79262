//! Retrieve: scan the whole case base for the cases most similar to a position.
//!
//! The scan streams the flat board array in blocks, in parallel with rayon. Each block's scores
//! are computed by the fastest kernel the CPU runs (AVX-512, AVX2 or portable: [`Kernel`]);
//! only cases at or above the running k-th best score leave that loop. Ties at the cut
//! are broken by a per-case random key derived from the seed, so the result is a uniformly
//! random choice among tied cases, reproducible for a seed, and the same however the blocks were
//! shared between threads. The scan is anytime: past its deadline (or when told to stop) it
//! returns the best cases of the blocks it finished.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use shakmaty::Color;

use crate::case::kernel::{self, BATCH, ScoreFn};
use crate::case::{MaterialQuery, Planes};
use crate::casebase::lists::Lists;
use crate::casebase::{Bucket, CaseBase};

pub use crate::case::kernel::{
    KERNEL_VARIABLE, Kernel, kernel, kernel_from_environment, use_kernel,
};

/// How the query is compared with the cases.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Both sides seen from the mover: a Black-to-move query is mirrored and meets cases stored
    /// the same way. The default.
    #[default]
    Normalised,
    /// The thesis, literally: boards compared as they stand, whoever is to move.
    Thesis,
}

crate::choice::choice!(Mode, "mode", [Normalised => "normalised", Thesis => "thesis"]);

/// Cases a block of the scan covers: the unit of parallel work and of deadline checks.
const BLOCK: usize = 1 << 14;

/// One contiguous run of boards, their cases, and the board they are compared with.
#[derive(Copy, Clone, Debug)]
pub struct Segment<'a> {
    /// The boards.
    pub boards: &'a [Planes],
    /// Index of `boards[0]` in the case base's board array.
    pub offset: usize,
    /// Board `offset + i`'s cases are `occ[offset + i]..occ[offset + i + 1]` (the case base's
    /// whole occurrence table); `None`: one case a board, case index = board index.
    pub occ: Option<&'a [u32]>,
    /// The material buckets covering these boards (`first` in the case base's board indices),
    /// for [`scan_bounded`]; empty: the segment is one bucket that cannot be bounded.
    pub buckets: &'a [Bucket],
    /// The query as these boards should see it.
    pub query: Planes,
    /// The approximate index's lists of these boards, if the case base has them: what
    /// [`scan_lists`] probes.
    pub lists: Option<Lists<'a>>,
}

impl<'a> Segment<'a> {
    /// A segment of boards that are one case each, without buckets.
    pub fn plain(boards: &'a [Planes], offset: usize, query: Planes) -> Segment<'a> {
        Segment {
            boards,
            offset,
            occ: None,
            buckets: &[],
            query,
            lists: None,
        }
    }

    /// The cases of boards `start..end` (indices within the segment).
    #[inline]
    fn cases(&self, start: usize, end: usize) -> Range<usize> {
        match self.occ {
            Some(occ) => occ[self.offset + start] as usize..occ[self.offset + end] as usize,
            None => self.offset + start..self.offset + end,
        }
    }

    /// Cases in the segment.
    fn case_count(&self) -> u64 {
        self.cases(0, self.boards.len()).len() as u64
    }
}

/// The segments to scan for a position (`board` as it stands, `turn` to move).
pub fn segments<'a>(cb: &'a CaseBase, board: Planes, turn: Color, mode: Mode) -> Vec<Segment<'a>> {
    let boards = cb.boards();
    let occ = cb.occurrences();
    let buckets = cb.buckets();
    let side = |range: Range<usize>, query: Planes, lists: Option<Lists<'a>>| {
        // The buckets of a side: those starting inside its boards.
        let lo = buckets.partition_point(|b| (b.first as usize) < range.start);
        let hi = buckets.partition_point(|b| (b.first as usize) < range.end);
        Segment {
            boards: &boards[range.clone()],
            offset: range.start,
            occ: Some(occ),
            buckets: &buckets[lo..hi],
            query,
            lists,
        }
    };
    let (white, black) = (cb.lists(Color::White), cb.lists(Color::Black));
    match mode {
        Mode::Normalised => {
            let query = if turn == Color::Black {
                board.mirrored()
            } else {
                board
            };
            let w = cb.board_segment(Color::White);
            let b = cb.board_segment(Color::Black);
            vec![side(w, query, white), side(b, query, black)]
        }
        Mode::Thesis => {
            // Black-mover cases are stored mirrored; mirroring the query instead is the same
            // comparison, since similarity is invariant when both boards are mirrored.
            vec![
                side(cb.board_segment(Color::White), board, white),
                side(cb.board_segment(Color::Black), board.mirrored(), black),
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
    /// Lists of the approximate index scanned a side when the case base has them
    /// ([`scan_lists`]); 0: the exact scan, always.
    pub probes: usize,
}

impl ScanLimits<'_> {
    /// Whether the scan should start no new block: told to stop, or past the deadline.
    fn expired(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
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
    /// Cases left out because their bucket's bound showed none could be among the best
    /// ([`scan_bounded`]; 0 for a full scan).
    pub pruned: u64,
    /// Cases that would have been scanned without a deadline or a bound.
    pub total: u64,
    /// Lists of the approximate index scanned ([`scan_lists`]; 0 for an exact scan).
    pub lists: u64,
    /// Highest similarity found.
    pub top_score: u32,
    /// Number of scanned cases sharing the highest similarity.
    pub ties_at_top: u64,
    /// Wall time of the scan.
    pub elapsed: Duration,
}

impl Retrieved {
    /// Whether every case was scanned or shown not to matter: the hits are the exact top k.
    pub fn complete(&self) -> bool {
        self.scanned + self.pruned == self.total
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
    /// Lists scanned ([`TopK::scan_list`]).
    lists: u64,
}

impl TopK {
    fn new(k: usize, seed: u64) -> TopK {
        TopK::above(k, seed, 0)
    }

    /// A top k that ignores scores below `floor` (known not to matter).
    fn above(k: usize, seed: u64, floor: u32) -> TopK {
        TopK {
            k,
            seed,
            hits: Vec::with_capacity(k),
            worst: 0,
            threshold: floor,
            top_score: 0,
            ties_at_top: 0,
            scanned: 0,
            lists: 0,
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
        self.lists += other.lists;
        self
    }

    /// What the scan found: its hits, best first, `pruned` cases left out by a bound, the time
    /// since `started`.
    fn finish(self, pruned: u64, segments: &[Segment<'_>], started: Instant) -> Retrieved {
        let mut hits = self.hits;
        hits.sort_unstable_by_key(Hit::rank);
        Retrieved {
            hits,
            scanned: self.scanned,
            pruned,
            total: segments.iter().map(Segment::case_count).sum(),
            lists: self.lists,
            top_score: self.top_score,
            ties_at_top: self.ties_at_top,
            elapsed: started.elapsed(),
        }
    }

    /// Scores boards `range` of `seg` and offers the cases of those that can enter.
    fn scan(&mut self, kernel: ScoreFn, seg: &Segment<'_>, range: Range<usize>) {
        let start = range.start;
        self.offer_boards(kernel, seg, &seg.boards[range.clone()], |i| start + i);
        self.scanned += seg.cases(range.start, range.end).len() as u64;
    }

    /// Scores list `l` of `lists` (of `seg`'s boards) and offers the cases of the boards that
    /// can enter.
    fn scan_list(&mut self, kernel: ScoreFn, seg: &Segment<'_>, lists: &Lists<'_>, l: usize) {
        let range = lists.range(l);
        let members = &lists.members[range.clone()];
        // Members were checked to lie within their side when the file was opened.
        self.offer_boards(kernel, seg, &lists.boards[range], |i| {
            members[i] as usize - seg.offset
        });
        self.scanned += u64::from(lists.cases[l]);
        self.lists += 1;
    }

    /// Scores `boards` against `seg`'s query and offers the cases of those that can enter,
    /// `board(i)` being the index in `seg` of `boards[i]`.
    #[inline(always)]
    fn offer_boards(
        &mut self,
        kernel: ScoreFn,
        seg: &Segment<'_>,
        boards: &[Planes],
        board: impl Fn(usize) -> usize,
    ) {
        let mut scores = [0u16; BATCH];
        for (b, batch) in boards.chunks(BATCH).enumerate() {
            kernel(&seg.query, batch, &mut scores);
            // Most batches hold no board that can enter: one vectorised maximum rules them out.
            let best = scores[..batch.len()].iter().fold(0, |m, &s| m.max(s));
            if u32::from(best) < self.threshold {
                continue;
            }
            for (i, &s) in scores[..batch.len()].iter().enumerate() {
                if u32::from(s) >= self.threshold {
                    let at = board(b * BATCH + i);
                    for case in seg.cases(at, at + 1) {
                        self.offer(case, u32::from(s));
                    }
                }
            }
        }
    }
}

/// Scans `segments` and returns the `k` most similar cases.
pub fn scan(segments: &[Segment<'_>], limits: &ScanLimits<'_>) -> Retrieved {
    scan_using(kernel::score_fn(), segments, limits)
}

/// [`scan`] with a given kernel.
fn scan_using(kernel: ScoreFn, segments: &[Segment<'_>], limits: &ScanLimits<'_>) -> Retrieved {
    let started = Instant::now();
    let blocks: Vec<(usize, usize)> = segments
        .iter()
        .enumerate()
        .flat_map(|(s, seg)| (0..seg.boards.len().div_ceil(BLOCK)).map(move |b| (s, b)))
        .collect();
    let top = blocks
        .par_iter()
        .enumerate()
        .fold(
            || TopK::new(limits.k, limits.seed),
            |mut top, (n, &(s, b))| {
                // The first block always runs, so every scan returns something.
                if n == 0 || !limits.expired() {
                    let seg = &segments[s];
                    let start = b * BLOCK;
                    let end = (start + BLOCK).min(seg.boards.len());
                    top.scan(kernel, seg, start..end);
                }
                top
            },
        )
        .reduce(|| TopK::new(limits.k, limits.seed), TopK::merge);
    top.finish(0, segments, started)
}

/// Distinct boards from which [`scan_bounded`] is faster than [`scan`] on two threads: measured
/// 0.65× its speed at 0.9 M boards, 0.77× at 1.6 M, 1.02× at 6.3 M, 1.12× at 8.5 M and 1.22× at
/// 79 M (`docs/scaling.md`). Below, pruning a quarter of the buckets does not pay for visiting them in
/// bound order.
pub(crate) const BOUNDED_FROM: usize = 8_000_000;

/// The `k` best cases: approximately by [`scan_lists`] if the case base has lists and
/// `limits.probes` is not 0, else exactly by whichever of [`scan`] and [`scan_bounded`] is
/// faster for this size of case base; both return the same cases when they finish (past a
/// deadline each returns the best of the boards it reached, which differ).
pub fn retrieve(segments: &[Segment<'_>], limits: &ScanLimits<'_>) -> Retrieved {
    let boards: usize = segments.iter().map(|s| s.boards.len()).sum();
    if limits.probes > 0 && segments.iter().all(|s| s.lists.is_some()) {
        scan_lists(segments, limits)
    } else if boards >= BOUNDED_FROM {
        scan_bounded(segments, limits)
    } else {
        scan(segments, limits)
    }
}

/// Boards the bounded scan visits best bound first before it knows a floor worth pruning with (or
/// an eighth of the boards, if fewer).
const FIRST_ROUND: usize = 1 << 16;

/// The same `k` best cases as [`scan`] (same scores, same tie-breaking), without scanning the
/// buckets whose material shows that none of their boards can be among them.
///
/// Each bucket's [`crate::case::planes::material_bound`] against the query is computed. First the buckets of the
/// highest bounds are scanned, best first, until they hold 65,536 boards or an eighth of them
/// (and k cases): their k-th best score is a floor no case below it can reach. Then every other bucket whose
/// bound reaches that floor is scanned in parallel, adjacent ones as one run (which buckets are
/// scanned is decided with that first floor; within a run each thread's cut rises as it finds
/// better cases). A case scoring exactly the k-th best may still enter on its tie-breaking key,
/// so buckets whose bound equals the floor are scanned. A segment without
/// buckets is one bucket of bound 256. Anytime like [`scan`]: past the deadline it returns the
/// best cases of what it finished, which began with the most promising buckets.
pub fn scan_bounded(segments: &[Segment<'_>], limits: &ScanLimits<'_>) -> Retrieved {
    scan_bounded_using(kernel::score_fn(), segments, limits)
}

/// A run of adjacent boards of one segment: (segment index, boards within the segment).
type Run = (u32, Range<usize>);

/// [`scan_bounded`] with a given kernel.
fn scan_bounded_using(
    kernel: ScoreFn,
    segments: &[Segment<'_>],
    limits: &ScanLimits<'_>,
) -> Retrieved {
    let started = Instant::now();
    let (units, bounds) = buckets_with_bounds(segments);
    let cases_of =
        |(s, boards): &Run| segments[*s as usize].cases(boards.start, boards.end).len() as u64;
    // Scores below this cannot enter the top k: its k-th best once it holds k (with k = 0, only
    // the statistics of the top score are kept, so the top score itself).
    let floor = |top: &TopK| match limits.k {
        0 => top.top_score,
        k if top.hits.len() == k => top.threshold,
        _ => 0,
    };

    // 1. The highest bounds first, until a floor.
    let mut done = vec![false; units.len()];
    let mut first: Vec<Run> = Vec::new();
    let (mut size, mut held) = (0usize, 0u64);
    let first_round = FIRST_ROUND.min(segments.iter().map(|s| s.boards.len()).sum::<usize>() / 8);
    for u in highest_bound_first(&bounds) {
        let u = u as usize;
        if size >= first_round && held >= limits.k as u64 {
            break;
        }
        first.push(units[u].clone());
        size += units[u].1.len();
        held += cases_of(&units[u]);
        done[u] = true;
    }
    let mut top = TopK::new(limits.k, limits.seed)
        .merge(scan_runs(kernel, segments, limits, &first, 0, true));

    // 2. Every other bucket whose bound reaches the floor, adjacent ones joined into one run.
    let mut pruned = 0u64;
    if !(limits.expired() && top.scanned > 0) {
        let f = floor(&top);
        let mut runs: Vec<Run> = Vec::new();
        for (u, unit) in units.iter().enumerate() {
            if done[u] {
                continue;
            }
            if u32::from(bounds[u]) < f {
                pruned += cases_of(unit);
                continue;
            }
            match runs.last_mut() {
                Some((s, r)) if *s == unit.0 && r.end == unit.1.start => r.end = unit.1.end,
                _ => runs.push(unit.clone()),
            }
        }
        top = top.merge(scan_runs(kernel, segments, limits, &runs, f, false));
    }
    top.finish(pruned, segments, started)
}

/// Every bucket of `segments` as a run of boards, with its material bound against the query (a
/// segment without buckets is one run of bound 256).
fn buckets_with_bounds(segments: &[Segment<'_>]) -> (Vec<Run>, Vec<u16>) {
    let mut units: Vec<Run> = Vec::new();
    let mut bounds: Vec<u16> = Vec::new();
    for (s, seg) in segments.iter().enumerate() {
        if seg.buckets.is_empty() {
            units.push((s as u32, 0..seg.boards.len()));
            bounds.push(crate::case::MAX_SCORE as u16);
            continue;
        }
        let material = MaterialQuery::new(&seg.query.material());
        let end = seg.offset + seg.boards.len();
        units.reserve(seg.buckets.len());
        bounds.reserve(seg.buckets.len());
        for (i, bucket) in seg.buckets.iter().enumerate() {
            let first = bucket.first as usize - seg.offset;
            let last = seg.buckets.get(i + 1).map_or(end, |b| b.first as usize) - seg.offset;
            units.push((s as u32, first..last));
            bounds.push(material.bound(&bucket.material) as u16);
        }
    }
    (units, bounds)
}

/// The indices of `bounds`, highest bound first, equal bounds in index order (a counting sort).
fn highest_bound_first(bounds: &[u16]) -> Vec<u32> {
    const MAX: usize = crate::case::MAX_SCORE as usize;
    let mut at = vec![0u32; MAX + 2];
    for &b in bounds {
        at[MAX - b as usize + 1] += 1;
    }
    for i in 1..at.len() {
        at[i] += at[i - 1];
    }
    let mut order = vec![0u32; bounds.len()];
    for (u, &b) in bounds.iter().enumerate() {
        let slot = &mut at[MAX - b as usize];
        order[*slot as usize] = u as u32;
        *slot += 1;
    }
    order
}

/// The best cases of `runs`, scanned in blocks in parallel, each thread's cut starting at
/// `floor`; past the deadline no new block starts, except the first one when `always`.
fn scan_runs(
    kernel: ScoreFn,
    segments: &[Segment<'_>],
    limits: &ScanLimits<'_>,
    runs: &[Run],
    floor: u32,
    always: bool,
) -> TopK {
    let blocks: Vec<Run> = runs
        .iter()
        .flat_map(|(s, r)| {
            r.clone()
                .step_by(BLOCK)
                .map(move |b| (*s, b..(b + BLOCK).min(r.end)))
        })
        .collect();
    blocks
        .par_iter()
        .enumerate()
        .fold(
            || TopK::above(limits.k, limits.seed, floor),
            |mut part, (n, (s, boards))| {
                if (always && n == 0) || !limits.expired() {
                    part.scan(kernel, &segments[*s as usize], boards.clone());
                }
                part
            },
        )
        .reduce(|| TopK::above(limits.k, limits.seed, floor), TopK::merge)
}

/// The best cases among the boards of the `limits.probes` lists of each segment whose centroids
/// are most similar to its query (the segment's lists, [`Segment::lists`]; a segment without
/// lists is scanned whole): approximate, since a board similar to the query may lie in a list
/// whose centroid is not; `bench --casebase` measures its recall. Lists are scanned in
/// parallel; past the deadline no new list starts (the list of the most similar centroid
/// always runs). Ties are broken as by [`scan`].
pub fn scan_lists(segments: &[Segment<'_>], limits: &ScanLimits<'_>) -> Retrieved {
    scan_lists_using(kernel::score_fn(), segments, limits)
}

/// [`scan_lists`] with a given kernel.
fn scan_lists_using(
    kernel: ScoreFn,
    segments: &[Segment<'_>],
    limits: &ScanLimits<'_>,
) -> Retrieved {
    let started = Instant::now();
    // (centroid's score, segment, list), best first, `probes` a segment; a segment without
    // lists is one "list" of all its boards, u32::MAX.
    let mut probed: Vec<(std::cmp::Reverse<u16>, u32, u32)> = Vec::new();
    let mut scores = [0u16; BATCH];
    for (s, seg) in segments.iter().enumerate() {
        let Some(lists) = &seg.lists else {
            probed.push((std::cmp::Reverse(u16::MAX), s as u32, u32::MAX));
            continue;
        };
        let mut mine: Vec<(std::cmp::Reverse<u16>, u32, u32)> = Vec::with_capacity(lists.len());
        for (c, chunk) in lists.centroids.chunks(BATCH).enumerate() {
            kernel(&seg.query, chunk, &mut scores);
            for (i, &score) in scores[..chunk.len()].iter().enumerate() {
                mine.push((std::cmp::Reverse(score), s as u32, (c * BATCH + i) as u32));
            }
        }
        let probes = limits.probes.min(mine.len());
        if probes < mine.len() {
            mine.select_nth_unstable(probes);
            mine.truncate(probes);
        }
        probed.extend(mine);
    }
    probed.sort_unstable();
    let top = probed
        .par_iter()
        .enumerate()
        .fold(
            || TopK::new(limits.k, limits.seed),
            |mut top, (n, &(_, s, l))| {
                if n == 0 || !limits.expired() {
                    let seg = &segments[s as usize];
                    match &seg.lists {
                        Some(lists) if l != u32::MAX => {
                            top.scan_list(kernel, seg, lists, l as usize)
                        }
                        _ => top.scan(kernel, seg, 0..seg.boards.len()),
                    }
                }
                top
            },
        )
        .reduce(|| TopK::new(limits.k, limits.seed), TopK::merge);
    top.finish(0, segments, started)
}

#[cfg(test)]
pub(crate) mod tests;
