//! Lists: the approximate index of a large case base, an inverted file (IVF) over its boards.
//!
//! Each side's boards are shared among `lists` centroids: a board joins the list of the centroid
//! most similar to it. A query then scores the centroids (a few thousand boards: a few
//! microseconds) and scans only the lists of the centroids most similar to it
//! ([`crate::retrieve::scan_lists`]). The result is approximate: a board similar to the query may
//! sit in a list whose centroid is not; how often, `precedent bench --casebase` measures
//! (the recall against the exact top k).
//!
//! The centroids are trained by k-means in the similarity's own terms, on a sample of the
//! side's boards (every n-th, about 40 a list): the sample's boards join their
//! most similar centroid, and each centroid then takes, square by square, the piece (or
//! emptiness) whose summed per-square score against its members' pieces there is highest.
//! Since the similarity is a sum over squares, that centroid is the board most similar to its
//! members in total, so each round raises the sample's summed similarity to its centroids (or
//! leaves it), as k-means does for squared distances. Every board is then assigned with the
//! scan's kernel, past 512 lists through groups of centroids (`Quantizer`); each
//! list's boards are copied together, so a query reads a list as one run of memory. Measured in
//! `docs/scaling.md` (lists in the engine). The lists are built once, with the case base, from [`LISTS_FROM`] boards up
//! (`build --lists` sets another count, or none); a file built without them is scanned exactly.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use shakmaty::Color;

use crate::case::kernel::{self, BATCH, ScoreFn};
use crate::case::{Planes, piece_score};

/// Most lists a side (a file declaring more is refused as damaged).
pub const MAX_LISTS: u64 = 1 << 16;

/// Distinct boards from which `build` gives a case base lists unless told otherwise: where the
/// exact scan's bounded form is chosen too ([`crate::retrieve`]'s `BOUNDED_FROM`), about 16 ms
/// of exact scanning on two threads; 1 to 4 ms with lists.
pub const LISTS_FROM: usize = 8_000_000;

/// Sampled boards a list, to train the centroids.
const SAMPLE_A_LIST: usize = 40;

/// Rounds of k-means.
const ROUNDS: usize = 6;

/// Boards assigned per parallel step of the final assignment (a 2 MB read).
pub(crate) const ASSIGN_CHUNK: usize = 1 << 16;

/// Lists a side of `boards` distinct boards gets by default: the power of two nearest √boards
/// (4,096 at 25 M), at least one; between 2^k and 2^(k+1), the larger from boards ≥ 2^(2k+1)
/// (where √boards is as far from both in ratio).
pub fn lists_for(boards: usize) -> usize {
    if boards < 2 {
        return 1;
    }
    // The largest power of two whose square is at most `boards`.
    let below = 1usize << ((usize::BITS - 1 - boards.leading_zeros()) / 2);
    if boards >= 2 * below * below {
        2 * below
    } else {
        below
    }
}

/// One side's lists, as the file stores them.
#[derive(Clone, Copy, Debug)]
pub struct Lists<'a> {
    /// The centroids.
    pub centroids: &'a [Planes],
    /// List `l`'s members are `members[starts[l]..starts[l + 1]]`.
    pub starts: &'a [u32],
    /// The cases of each list's boards.
    pub cases: &'a [u32],
    /// The side's boards (indices in the case base's board array), list by list.
    pub members: &'a [u32],
    /// The members' boards, in the same order: a list is scanned as one run of memory.
    pub boards: &'a [Planes],
}

impl<'a> Lists<'a> {
    /// Number of lists.
    pub fn len(&self) -> usize {
        self.centroids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.centroids.is_empty()
    }

    /// Side `s`'s lists (0 White's, 1 Black's), `self` holding both sides' arrays as the file
    /// lays them out with `lists` a side, the side's boards being `boards` of the case base.
    pub(crate) fn side(&self, lists: usize, s: usize, boards: Range<usize>) -> Lists<'a> {
        Lists {
            centroids: &self.centroids[s * lists..(s + 1) * lists],
            starts: &self.starts[s * (lists + 1)..(s + 1) * (lists + 1)],
            cases: &self.cases[s * lists..(s + 1) * lists],
            members: &self.members[boards.clone()],
            boards: &self.boards[boards],
        }
    }

    /// The places (in [`Lists::members`] and [`Lists::boards`]) of list `l`'s boards.
    pub fn range(&self, l: usize) -> Range<usize> {
        self.starts[l] as usize..self.starts[l + 1] as usize
    }

    /// What is wrong with these lists of the side whose boards are `side` (`occ`: the case
    /// base's occurrence table), if anything: starts that do not run from 0 to the side's boards
    /// in order, a member outside the side or listed twice, a list's case count that is not its
    /// boards'. (A copied board that differs from its original would only be scored wrongly; the
    /// file's checksum guards against damage, these checks against a file rewritten by hand.)
    pub(crate) fn inconsistent(&self, side: Range<usize>, occ: &[u32]) -> Option<&'static str> {
        let n = side.len() as u64;
        if self.starts.first() != Some(&0)
            || self.starts.last().map(|&s| u64::from(s)) != Some(n)
            || !self.starts.windows(2).all(|w| w[0] <= w[1])
        {
            return Some("the lists' starts are inconsistent");
        }
        let (lo, hi) = (side.start as u32, side.end as u32);
        if !self.members.par_iter().all(|&m| (lo..hi).contains(&m)) {
            return Some("a list member lies outside its side's boards");
        }
        // Each board once: a board listed twice would vote twice.
        let seen: Vec<AtomicU64> = (0..side.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        let once = self.members.par_iter().all(|&m| {
            let i = m as usize - side.start;
            let bit = 1u64 << (i % 64);
            seen[i / 64].fetch_or(bit, Ordering::Relaxed) & bit == 0
        });
        if !once {
            return Some("a board is listed twice");
        }
        let counted = (0..self.len()).into_par_iter().all(|l| {
            let cases: u64 = self.members[self.range(l)]
                .iter()
                .map(|&m| u64::from(occ[m as usize + 1] - occ[m as usize]))
                .sum();
            cases == u64::from(self.cases[l])
        });
        if !counted {
            return Some("a list's case count is not its boards' cases");
        }
        None
    }
}

/// Both sides' lists, built: what the file's lists section holds, but the copied boards, which
/// go to the writer as they are made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Built {
    /// Lists a side.
    pub lists: usize,
    /// White's centroids, then Black's.
    pub centroids: Vec<Planes>,
    /// White's `lists + 1` starts, then Black's (each into its side's members).
    pub starts: Vec<u32>,
    /// The cases of each list (White's lists, then Black's).
    pub cases: Vec<u32>,
    /// White's members, then Black's (board indices).
    pub members: Vec<u32>,
}

/// Reads records of a section in order, in chunks: `f` gets each chunk and the index of its
/// first record. Implemented by a section held in memory and by one spilled to disk.
pub(crate) trait Chunks<T> {
    /// Calls `f` on the records `range`, in order, a chunk at a time.
    fn each_chunk(&mut self, range: Range<usize>, f: &mut dyn FnMut(usize, &[T]))
    -> io::Result<()>;
}

impl<T> Chunks<T> for &[T] {
    fn each_chunk(
        &mut self,
        range: Range<usize>,
        f: &mut dyn FnMut(usize, &[T]),
    ) -> io::Result<()> {
        for (i, chunk) in self[range.clone()].chunks(ASSIGN_CHUNK).enumerate() {
            f(range.start + i * ASSIGN_CHUNK, chunk);
        }
        Ok(())
    }
}

/// Boards copied in list order per pass over a side (256 MB).
const COPY_CHUNK: usize = 1 << 23;

/// Builds `lists` lists a side (fewer for a side with fewer boards) over the boards `boards`
/// yields, White's `0..white` and Black's `white..total`, with `occ` the occurrence table;
/// `copies` gets the members' boards in list order (White's, then Black's), in pieces.
pub(crate) fn build(
    boards: &mut dyn Chunks<Planes>,
    occ: &mut dyn Chunks<u32>,
    (white, total): (usize, usize),
    lists: usize,
    copies: &mut dyn FnMut(&[Planes]) -> io::Result<()>,
) -> io::Result<Built> {
    let kernel = kernel::score_fn();
    let mut out = Built {
        lists,
        ..Built::default()
    };
    for side in [0..white, white..total] {
        let n = side.len();
        let sample = sample(boards, side.clone(), lists.saturating_mul(SAMPLE_A_LIST))?;
        let quantizer = Quantizer::new(kernel, train(kernel, &sample, lists.min(n)));
        let mut centroids = quantizer.centroids.clone();
        // A side with fewer boards than lists: each board is a centroid (the sample holds them
        // all) and joins its own; the extra lists (empty boards as centroids) stay empty.
        centroids.resize(lists, Planes::default());
        let mut of: Vec<u32> = Vec::with_capacity(n);
        boards.each_chunk(side.clone(), &mut |_, chunk| {
            of.par_extend(chunk.par_iter().map(|b| quantizer.nearest(kernel, b)));
        })?;
        // Counting sort of the side's boards by list, each list in board order.
        let starts = starts_of(of.iter().copied(), lists);
        let mut next = starts.clone();
        let mut members = vec![0u32; n];
        for (i, &l) in of.iter().enumerate() {
            members[next[l as usize] as usize] = (side.start + i) as u32;
            next[l as usize] += 1;
        }
        let mut cases = vec![0u32; lists];
        let mut last: Option<u32> = None;
        occ.each_chunk(side.start..side.end + 1, &mut |first, chunk| {
            for (i, &o) in chunk.iter().enumerate() {
                if let Some(before) = last {
                    cases[of[first + i - side.start - 1] as usize] += o - before;
                }
                last = Some(o);
            }
        })?;
        copy_in_list_order(boards, side, &of, &starts, copies)?;
        out.centroids.extend(centroids);
        out.starts.extend(starts);
        out.cases.extend(cases);
        out.members.extend(members);
    }
    Ok(out)
}

/// Hands `copies` the boards of `side` list by list (`of`: each one's list; `starts`: where
/// each list starts), reading the side once for each [`COPY_CHUNK`] boards copied.
fn copy_in_list_order(
    boards: &mut dyn Chunks<Planes>,
    side: Range<usize>,
    of: &[u32],
    starts: &[u32],
    copies: &mut dyn FnMut(&[Planes]) -> io::Result<()>,
) -> io::Result<()> {
    let lists = starts.len() - 1;
    let mut a = 0;
    while a < lists {
        // Lists a..b: as many as fit in a pass (at least one).
        let mut b = a + 1;
        while b < lists && (starts[b + 1] - starts[a]) as usize <= COPY_CHUNK {
            b += 1;
        }
        let base = starts[a] as usize;
        let mut buf = vec![Planes::default(); starts[b] as usize - base];
        let mut next: Vec<u32> = starts[a..b].to_vec();
        boards.each_chunk(side.clone(), &mut |first, chunk| {
            for (i, board) in chunk.iter().enumerate() {
                let l = of[first + i - side.start] as usize;
                if (a..b).contains(&l) {
                    buf[next[l - a] as usize - base] = *board;
                    next[l - a] += 1;
                }
            }
        })?;
        copies(&buf)?;
        a = b;
    }
    Ok(())
}

/// Where each of `lists` lists starts when items are sorted by list (`of`: each item's list),
/// one more entry at the end: a counting sort's offsets.
fn starts_of(of: impl Iterator<Item = u32>, lists: usize) -> Vec<u32> {
    let mut starts = vec![0u32; lists + 1];
    for l in of {
        starts[l as usize + 1] += 1;
    }
    for l in 0..lists {
        starts[l + 1] += starts[l];
    }
    starts
}

/// About `want` boards of `side`, every n-th.
fn sample(
    source: &mut dyn Chunks<Planes>,
    side: Range<usize>,
    want: usize,
) -> io::Result<Vec<Planes>> {
    let stride = (side.len() / want.max(1)).max(1);
    let mut out = Vec::with_capacity(side.len().min(want) + 1);
    let start = side.start;
    source.each_chunk(side, &mut |first, chunk| {
        let skip = (stride - (first - start) % stride) % stride;
        out.extend(chunk.iter().skip(skip).step_by(stride));
    })?;
    Ok(out)
}

/// The index of the centroid most similar to `board` (the first of equals).
fn nearest(kernel: ScoreFn, board: &Planes, centroids: &[Planes]) -> u32 {
    best_of(kernel, board, centroids).map_or(0, |(_, at)| at)
}

/// The score and index of the centroid most similar to `board` (the first of equals); `None`
/// without centroids.
fn best_of(kernel: ScoreFn, board: &Planes, centroids: &[Planes]) -> Option<(u16, u32)> {
    let mut scores = [0u16; BATCH];
    let mut best: Option<(u16, u32)> = None;
    for (c, chunk) in centroids.chunks(BATCH).enumerate() {
        kernel(board, chunk, &mut scores);
        for (i, &s) in scores[..chunk.len()].iter().enumerate() {
            if best.is_none_or(|(top, _)| s > top) {
                best = Some((s, (c * BATCH + i) as u32));
            }
        }
    }
    best
}

/// Lists from which a board is assigned through groups of centroids ([`Quantizer`]): below, all
/// centroids are scored.
const GROUPED_FROM: usize = 512;

/// Groups of centroids whose centroids a board is compared with, of about √lists groups.
const GROUPS_PROBED: usize = 8;

/// Finds a board's list: its most similar centroid, among all of them when there are few; with
/// many, among the centroids of the [`GROUPS_PROBED`] groups (clusters of centroids, trained
/// like the lists) whose own centroids are most similar to the board: at 8,192 lists, 128
/// groups and about 8 × 64 of their centroids, some 640 comparisons instead of 8,192. That is itself approximate (a board may miss a slightly more
/// similar centroid in another group); the recall `bench` measures includes it.
struct Quantizer {
    /// The centroids, grouped: group `g`'s are `centroids[starts[g]..starts[g + 1]]`.
    centroids: Vec<Planes>,
    /// The groups' own centroids (none: every centroid is scored).
    groups: Vec<Planes>,
    /// Where each group's centroids start, one more entry at the end.
    starts: Vec<u32>,
}

impl Quantizer {
    /// Groups `centroids` (reordered group by group) if they are many.
    fn new(kernel: ScoreFn, centroids: Vec<Planes>) -> Quantizer {
        if centroids.len() < GROUPED_FROM {
            return Quantizer {
                starts: vec![0, centroids.len() as u32],
                centroids,
                groups: Vec::new(),
            };
        }
        let groups = train(kernel, &centroids, lists_for(centroids.len()));
        let mut of: Vec<(u32, Planes)> = centroids
            .par_iter()
            .map(|c| (nearest(kernel, c, &groups), *c))
            .collect();
        of.sort_by_key(|&(g, _)| g);
        let starts = starts_of(of.iter().map(|&(g, _)| g), groups.len());
        Quantizer {
            centroids: of.into_iter().map(|(_, c)| c).collect(),
            groups,
            starts,
        }
    }

    /// The index (in `centroids`) of the centroid `board` joins.
    fn nearest(&self, kernel: ScoreFn, board: &Planes) -> u32 {
        if self.groups.is_empty() {
            return nearest(kernel, board, &self.centroids);
        }
        // The most similar groups, best first.
        let mut best: [(u16, u32); GROUPS_PROBED] = [(0, u32::MAX); GROUPS_PROBED];
        let mut scores = [0u16; BATCH];
        for (c, chunk) in self.groups.chunks(BATCH).enumerate() {
            kernel(board, chunk, &mut scores);
            for (i, &s) in scores[..chunk.len()].iter().enumerate() {
                if best[GROUPS_PROBED - 1].1 == u32::MAX || s > best[GROUPS_PROBED - 1].0 {
                    let mut at = GROUPS_PROBED - 1;
                    while at > 0 && (best[at - 1].1 == u32::MAX || s > best[at - 1].0) {
                        best[at] = best[at - 1];
                        at -= 1;
                    }
                    best[at] = (s, (c * BATCH + i) as u32);
                }
            }
        }
        // The best centroid of the probed groups (the lowest index of equals).
        let mut found: Option<(u16, u32)> = None;
        for &(_, g) in best.iter().filter(|(_, g)| *g != u32::MAX) {
            let range = self.starts[g as usize] as usize..self.starts[g as usize + 1] as usize;
            if let Some((s, i)) = best_of(kernel, board, &self.centroids[range.clone()]) {
                let at = range.start as u32 + i;
                if found.is_none_or(|(top, was)| s > top || (s == top && at < was)) {
                    found = Some((s, at));
                }
            }
        }
        // The probed groups were all empty (k-means can leave a group without centroids).
        found.map_or_else(|| nearest(kernel, board, &self.centroids), |(_, at)| at)
    }
}

/// `lists` centroids for `sample` (its first boards spread evenly, then [`ROUNDS`] of k-means);
/// none for an empty sample.
fn train(kernel: ScoreFn, sample: &[Planes], lists: usize) -> Vec<Planes> {
    let lists = lists.min(sample.len());
    if lists == 0 {
        return Vec::new();
    }
    let step = sample.len() / lists;
    let mut centroids: Vec<Planes> = (0..lists).map(|l| sample[l * step]).collect();
    let table = code_scores();
    let mut counts = vec![[[0u32; 16]; 64]; lists];
    for _ in 0..ROUNDS {
        let of: Vec<u32> = sample
            .par_iter()
            .map(|b| nearest(kernel, b, &centroids))
            .collect();
        // How often each code stands on each square among each list's members.
        counts.iter_mut().for_each(|c| *c = [[0u32; 16]; 64]);
        for (board, &l) in sample.iter().zip(&of) {
            let codes = codes(board);
            for (sq, &c) in codes.iter().enumerate() {
                counts[l as usize][sq][c as usize] += 1;
            }
        }
        centroids
            .par_iter_mut()
            .zip(&counts)
            .filter(|(_, count)| count[0].iter().any(|&n| n > 0))
            .for_each(|(centroid, count)| *centroid = median(count, &table));
    }
    centroids
}

/// The codes that stand for a square's content: empty, Black's six pieces, White's six.
const CODES: [u8; 13] = [0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14];

/// A square's 4-bit code in `board`: its role (0 empty) and 8 for a white piece.
fn codes(board: &Planes) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (sq, code) in out.iter_mut().enumerate() {
        let bit = |plane: u64| ((plane >> sq) & 1) as u8;
        *code = bit(board.r0) | bit(board.r1) << 1 | bit(board.r2) << 2 | bit(board.white) << 3;
    }
    out
}

/// The per-square score of two codes (of [`CODES`]; 0 for any other).
fn code_scores() -> [[u32; 16]; 16] {
    let piece = |code: u8| {
        let role = shakmaty::Role::try_from(code & 7).ok()?;
        Some(shakmaty::Piece {
            color: Color::from_white(code & 8 != 0),
            role,
        })
    };
    let mut table = [[0u32; 16]; 16];
    for &a in &CODES {
        for &b in &CODES {
            table[a as usize][b as usize] = piece_score(piece(a), piece(b));
        }
    }
    table
}

/// The board that, square by square, holds the code of highest summed score against the codes
/// `count` tallies there (the first of equals, in [`CODES`] order).
fn median(count: &[[u32; 16]; 64], table: &[[u32; 16]; 16]) -> Planes {
    let mut out = Planes::default();
    for (sq, tally) in count.iter().enumerate() {
        let gain = |c: u8| -> u64 {
            tally
                .iter()
                .zip(&table[c as usize])
                .map(|(&n, &s)| u64::from(n) * u64::from(s))
                .sum()
        };
        let mut best = CODES[0];
        let mut best_gain = gain(best);
        for &c in &CODES[1..] {
            let g = gain(c);
            if g > best_gain {
                (best, best_gain) = (c, g);
            }
        }
        let bit = 1u64 << sq;
        let set = |plane: &mut u64, on: bool| {
            if on {
                *plane |= bit;
            }
        };
        set(&mut out.r0, best & 1 != 0);
        set(&mut out.r1, best & 2 != 0);
        set(&mut out.r2, best & 4 != 0);
        set(&mut out.white, best & 8 != 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::case::similarity;
    use crate::retrieve::tests::random_planes;

    #[test]
    fn lists_for_takes_the_power_of_two_nearest_the_root() {
        assert_eq!(
            [0, 1, 3, 100, 1_000_000, 25_000_000, 50_000_000].map(lists_for),
            [1, 1, 2, 8, 1024, 4096, 8192]
        );
    }

    #[test]
    fn a_centroid_is_the_board_most_similar_to_its_members_in_total() {
        let mut rng = StdRng::seed_from_u64(3);
        let table = code_scores();
        for pieces in [2, 10, 24] {
            let members: Vec<Planes> = (0..5).map(|_| random_planes(&mut rng, pieces)).collect();
            let mut count = [[0u32; 16]; 64];
            for m in &members {
                for (sq, &c) in codes(m).iter().enumerate() {
                    count[sq][c as usize] += 1;
                }
            }
            let centroid = median(&count, &table);
            let total = |b: &Planes| members.iter().map(|m| similarity(b, m)).sum::<u32>();
            // No member, and no other board, does better.
            for other in members.iter().chain([&random_planes(&mut rng, pieces)]) {
                assert!(total(&centroid) >= total(other));
            }
            assert_eq!(
                codes(&centroid)
                    .iter()
                    .filter(|c| !CODES.contains(c))
                    .count(),
                0
            );
        }
    }

    #[test]
    fn every_board_joins_one_list_of_its_side_and_its_nearest_centroid() {
        let mut rng = StdRng::seed_from_u64(5);
        let boards: Vec<Planes> = (0..3_000)
            .map(|i| random_planes(&mut rng, 4 + i % 20))
            .collect();
        let white = 1_700;
        let occ: Vec<u32> = (0..=boards.len() as u32).map(|i| 2 * i).collect();
        let mut copied = Vec::new();
        let built = build(
            &mut &boards[..],
            &mut &occ[..],
            (white, boards.len()),
            16,
            &mut |c| {
                copied.extend_from_slice(c);
                Ok(())
            },
        )
        .expect("in memory");
        assert_eq!((built.lists, built.centroids.len()), (16, 32));
        let kernel = kernel::score_fn();
        for (s, side) in [0..white, white..boards.len()].into_iter().enumerate() {
            let both = Lists {
                centroids: &built.centroids,
                starts: &built.starts,
                cases: &built.cases,
                members: &built.members,
                boards: &copied,
            };
            let lists = both.side(16, s, side.clone());
            assert_eq!(lists.inconsistent(side.clone(), &occ), None);
            for l in 0..16 {
                assert_eq!(lists.cases[l] as usize, 2 * lists.range(l).len());
            }
            for (m, b) in lists.members.iter().zip(lists.boards) {
                assert_eq!(boards[*m as usize], *b);
            }
            let mut seen: Vec<u32> = lists.members.to_vec();
            seen.sort_unstable();
            assert_eq!(seen, side.clone().map(|b| b as u32).collect::<Vec<_>>());
            for l in 0..16 {
                for &m in &lists.members[lists.range(l)] {
                    let best = nearest(kernel, &boards[m as usize], lists.centroids);
                    assert_eq!(best as usize, l);
                }
            }
        }
    }

    #[test]
    fn through_groups_every_centroid_as_a_board_finds_itself() {
        let mut rng = StdRng::seed_from_u64(4);
        let sample: Vec<Planes> = (0..30_000)
            .map(|i| random_planes(&mut rng, 2 + i % 28))
            .collect();
        let kernel = kernel::score_fn();
        let quantizer = Quantizer::new(kernel, train(kernel, &sample, 600));
        assert!(!quantizer.groups.is_empty());
        assert_eq!(quantizer.centroids.len(), 600);
        for c in &quantizer.centroids {
            let found = quantizer.centroids[quantizer.nearest(kernel, c) as usize];
            assert_eq!(similarity(c, &found), 256);
        }
        // Others join a centroid nearly as similar as their nearest.
        let (mut own, mut best) = (0u64, 0u64);
        for b in sample.iter().step_by(97) {
            own += u64::from(similarity(
                b,
                &quantizer.centroids[quantizer.nearest(kernel, b) as usize],
            ));
            best += u64::from(similarity(
                b,
                &quantizer.centroids[nearest(kernel, b, &quantizer.centroids) as usize],
            ));
        }
        assert!(own * 100 >= best * 97, "{own} against {best}");
    }

    #[test]
    fn a_board_whose_nearest_groups_are_empty_joins_its_nearest_centroid() {
        let mut rng = StdRng::seed_from_u64(6);
        let board = random_planes(&mut rng, 12);
        let centroids: Vec<Planes> = (0..20).map(|_| random_planes(&mut rng, 20)).collect();
        // Eight groups identical to the board hold no centroid; the ninth holds them all.
        let mut groups = vec![board; GROUPS_PROBED];
        groups.push(random_planes(&mut rng, 2));
        let mut starts = vec![0u32; GROUPS_PROBED + 1];
        starts.push(centroids.len() as u32);
        let quantizer = Quantizer {
            centroids: centroids.clone(),
            groups,
            starts,
        };
        let kernel = kernel::score_fn();
        assert_eq!(
            quantizer.nearest(kernel, &board),
            nearest(kernel, &board, &centroids)
        );
    }

    #[test]
    fn a_side_with_fewer_boards_than_lists_leaves_the_rest_empty() {
        let mut rng = StdRng::seed_from_u64(8);
        let boards: Vec<Planes> = (0..5).map(|_| random_planes(&mut rng, 12)).collect();
        let occ: Vec<u32> = (0..=5).collect();
        let built =
            build(&mut &boards[..], &mut &occ[..], (5, 5), 8, &mut |_| Ok(())).expect("in memory");
        assert_eq!(built.starts[8], 5);
        assert_eq!(&built.starts[9..], &[0; 9]);
        assert_eq!(built.members.len(), 5);
    }
}
