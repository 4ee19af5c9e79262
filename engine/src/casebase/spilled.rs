//! Arranging more cases than the memory holds. The cases are split by their board into
//! partitions spilled to disk; each partition is sorted, deduplicated, counted and indexed in
//! memory alone, and the partitions' sorted streams are merged into the file's sections. The
//! file is the one the in-memory arrangement writes, byte for byte: a board's cases all fall in
//! one partition, so duplicates meet there; the merge takes the boards in the order the
//! in-memory sort gives them (material, then first occurrence); a position's index entries
//! are summed as they meet; and the fits' sample is every n-th case in the file's order, as
//! the in-memory fits take it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use bytemuck::{Pod, Zeroable};
use xxhash_rust::xxh3::xxh3_64;

use super::derive::{self, fit_held, held_by, sampled_keys};
use super::index::{Directory, IndexEntry, build_index, directory_bits};
use super::patterns::PatternCount;
use super::record::{Bucket, CaseClock, CaseMeta};
use super::write::{Merged, Part, PhaseClock, Side, Spill, arrange, material_key};
use crate::case::{Material, Planes};

/// Peak bytes of memory a case costs when all are arranged, counted and indexed in memory
/// (measured: 178 on 10 M and 20 M cases).
pub(crate) const MEMORY_BYTES_A_CASE: u64 = 180;

/// Bytes of memory a position of the fits' sample holds: its legal moves' patterns for the
/// strength fit, its inputs and moves for the policy (measured: the rapid file's spilled build
/// peaks at 2.6 GB with a sample of 2 M positions).
pub(crate) const FIT_BYTES_A_POSITION: u64 = 1500;

/// Peak bytes of memory a case costs while its partition is sorted, counted and indexed (its
/// record, the sort keys, the arranged arrays, the index pairs; measured, with a margin).
pub(crate) const PARTITION_BYTES_A_CASE: u64 = 256;

/// Bytes of disk a case needs beyond the spills already written while reading: its partition
/// record (56), its arranged stream (20, and 48 a board), its index run (16), the merged
/// sections (72) and their copy in the final file.
pub(crate) const DISK_BYTES_A_CASE: u64 = 56 + 68 + 16 + 72 + 72;

/// A case as it waits in its partition: board, record, clock, and its place in its side's
/// order (which keeps the first occurrence of each board).
#[repr(C)]
#[derive(Copy, Clone, Pod, Zeroable)]
struct Waiting {
    board: Planes,
    meta: CaseMeta,
    clock: CaseClock,
    seq: u32,
}

/// A distinct board of an arranged partition, followed in its stream by its cases.
#[repr(C)]
#[derive(Copy, Clone, Pod, Zeroable)]
struct BoardHead {
    board: Planes,
    key: u64,
    first: u32,
    cases: u32,
}

/// A case of an arranged partition.
#[repr(C)]
#[derive(Copy, Clone, Pod, Zeroable)]
struct CaseRecord {
    meta: CaseMeta,
    clock: CaseClock,
}

/// What the spilled arrangement gives the rest of the build.
pub(crate) struct Spilled {
    pub cases: Merged,
    /// The pattern counts, sorted by key (on disk).
    pub counts: Spill,
    pub index: Part<IndexEntry>,
    pub directory: Vec<u32>,
    pub dir_bits: u32,
    /// Every `stride`-th case in the file's order: its board and record (the fits' sample).
    pub sample: (Vec<Planes>, Vec<CaseMeta>),
}

/// How many partitions a side of `cases` cases needs to sort each in `budget` bytes.
pub(crate) fn partitions(cases: u64, budget: u64) -> usize {
    let per = (budget / PARTITION_BYTES_A_CASE).max(1);
    usize::try_from(cases.div_ceil(per).max(1)).unwrap_or(usize::MAX)
}

/// Fails unless the file system of `dir` has `needed` bytes free.
pub(crate) fn check_disk(dir: &Path, needed: u64) -> io::Result<()> {
    let stat = rustix::fs::statvfs(dir).map_err(io::Error::from)?;
    let free = stat.f_bavail.saturating_mul(stat.f_frsize);
    if free < needed {
        return Err(io::Error::other(format!(
            "not enough disk for a build larger than its memory: it needs about {} of \
             temporary files in {}, which has {} free (give --memory more, or free the disk)",
            size(needed),
            dir.display(),
            size(free)
        )));
    }
    Ok(())
}

/// A number of bytes for people: "3.2 GB", "450 KB".
pub(crate) fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1_000_000 => format!("{:.0} KB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.0} MB", b / 1e6),
        _ => format!("{:.1} GB", b / 1e9),
    }
}

/// The side's cases from the writer's spills (boards, records, clocks, in the order they were
/// added), split by board into `parts` partitions.
pub(crate) fn split(
    dir: &Path,
    boards: File,
    metas: File,
    clocks: File,
    parts: usize,
) -> io::Result<Vec<Spill>> {
    let mut out = (0..parts)
        .map(|_| Spill::new(dir))
        .collect::<io::Result<Vec<_>>>()?;
    let [mut boards, mut metas, mut clocks] =
        [boards, metas, clocks].map(|f| BufReader::with_capacity(1 << 20, f));
    let mut seq = 0u32;
    while let Some(board) = read_one::<Planes>(&mut boards)? {
        let (Some(meta), Some(clock)) = (
            read_one::<CaseMeta>(&mut metas)?,
            read_one::<CaseClock>(&mut clocks)?,
        ) else {
            return Err(io::Error::other("the spilled cases end early"));
        };
        let hash = u128::from(xxh3_64(bytemuck::bytes_of(&board)));
        let p = ((hash * parts as u128) >> 64) as usize;
        let waiting = Waiting {
            board,
            meta,
            clock,
            seq,
        };
        out[p].push(bytemuck::bytes_of(&waiting))?;
        seq = seq.wrapping_add(1);
    }
    Ok(out)
}

/// One partition, sorted and deduplicated, counted and indexed: its boards with their cases
/// (a stream in the file's order), its pattern counts, its index entries.
struct Arranged {
    stream: Spill,
    counts: Spill,
    index: Spill,
}

fn arrange_part(dir: &Path, part: Spill, patterns: bool) -> io::Result<Arranged> {
    let waiting: Vec<Waiting> = part.read_all()?;
    let seqs: Vec<u32> = waiting.iter().map(|w| w.seq).collect();
    let side: Side = (
        waiting.iter().map(|w| w.board).collect(),
        waiting.iter().map(|w| w.meta).collect(),
        waiting.iter().map(|w| w.clock).collect(),
    );
    drop(waiting);
    let arranged = arrange([side, Side::default()]);
    let (counter, pairs) = derive::derive(
        &arranged.boards,
        &arranged.board_of,
        &arranged.metas,
        patterns,
    );
    let mut index = Spill::new(dir)?;
    index.push(bytemuck::cast_slice(&build_index(pairs)))?;
    let mut counts = Spill::new(dir)?;
    counts.push(bytemuck::cast_slice(&counter.finish()))?;
    let mut stream = Spill::new(dir)?;
    for (b, board) in arranged.boards.iter().enumerate() {
        let (lo, hi) = (arranged.occ[b] as usize, arranged.occ[b + 1] as usize);
        let head = BoardHead {
            board: *board,
            key: material_key(&board.material()),
            first: seqs[arranged.firsts[b] as usize],
            cases: (hi - lo) as u32,
        };
        stream.push(bytemuck::bytes_of(&head))?;
        for c in lo..hi {
            let record = CaseRecord {
                meta: arranged.metas[c],
                clock: arranged.clocks[c],
            };
            stream.push(bytemuck::bytes_of(&record))?;
        }
    }
    Ok(Arranged {
        stream,
        counts,
        index,
    })
}

/// Arranges both sides' partitions (`sides[0]` White's) and merges them: the file's case
/// sections, the pattern counts (when `patterns`), the index and its directory, and every
/// `stride`-th case. `timed`: whether the clocks are stored.
pub(crate) fn arrange_spilled(
    dir: &Path,
    sides: [Vec<Spill>; 2],
    patterns: bool,
    timed: bool,
    stride: usize,
    clock: &mut PhaseClock<'_>,
) -> io::Result<Spilled> {
    clock.start("sort, patterns and index");
    let mut counts = Vec::new();
    let mut runs = Vec::new();
    let mut streams: [Vec<Spill>; 2] = Default::default();
    for (side, parts) in sides.into_iter().enumerate() {
        for part in parts {
            let arranged = arrange_part(dir, part, patterns)?;
            counts.push(arranged.counts);
            runs.push(arranged.index);
            streams[side].push(arranged.stream);
        }
    }
    let mut merged = Merged {
        boards: Part::Disk(Spill::new(dir)?),
        white_boards: 0,
        occ: Part::Disk(Spill::new(dir)?),
        metas: Part::Disk(Spill::new(dir)?),
        white_cases: 0,
        buckets: Vec::new(),
        clocks: if timed {
            Part::Disk(Spill::new(dir)?)
        } else {
            Part::Memory(Vec::new())
        },
    };
    clock.start("merge");
    let mut sample = (Vec::new(), Vec::new());
    let mut at = Counts::default();
    for (side, streams) in streams.into_iter().enumerate() {
        merge_side(streams, &mut merged, &mut at, &mut sample, stride, timed)?;
        if side == 0 {
            merged.white_boards = at.boards as usize;
            merged.white_cases = at.cases as usize;
        }
    }
    merged.occ.push(&[at.cases as u32])?;
    let (index, directory, dir_bits) = merge_index(dir, runs)?;
    Ok(Spilled {
        cases: merged,
        counts: merge_counts(dir, counts)?,
        index,
        directory,
        dir_bits,
        sample,
    })
}

/// Boards and cases merged so far.
#[derive(Default)]
struct Counts {
    boards: u64,
    cases: u64,
}

/// Merges one side's arranged partitions into `out`, in the order of material, then first
/// occurrence.
fn merge_side(
    streams: Vec<Spill>,
    out: &mut Merged,
    at: &mut Counts,
    sample: &mut (Vec<Planes>, Vec<CaseMeta>),
    stride: usize,
    timed: bool,
) -> io::Result<()> {
    let mut readers = readers(streams)?;
    // Each partition's next board, and the heap of their (material, first occurrence).
    let mut heads = vec![BoardHead::zeroed(); readers.len()];
    let mut heap = BinaryHeap::new();
    for (p, r) in readers.iter_mut().enumerate() {
        if let Some(head) = read_one::<BoardHead>(r)? {
            heads[p] = head;
            heap.push(Reverse((head.key, head.first, p)));
        }
    }
    let mut last: Option<Material> = None;
    while let Some(Reverse((_, _, p))) = heap.pop() {
        let head = heads[p];
        let material = head.board.material();
        if last != Some(material) {
            out.buckets.push(Bucket {
                material,
                first: at.boards as u32,
            });
            last = Some(material);
        }
        out.occ.push(&[at.cases as u32])?;
        out.boards.push(&[head.board])?;
        at.boards += 1;
        for _ in 0..head.cases {
            let record: CaseRecord = read_one(&mut readers[p])?
                .ok_or_else(|| io::Error::other("a spilled partition ends early"))?;
            out.metas.push(&[record.meta])?;
            if timed {
                out.clocks.push(&[record.clock])?;
            }
            if (at.cases as usize).is_multiple_of(stride) {
                sample.0.push(head.board);
                sample.1.push(record.meta);
            }
            at.cases += 1;
        }
        if let Some(next) = read_one::<BoardHead>(&mut readers[p])? {
            heads[p] = next;
            heap.push(Reverse((next.key, next.first, p)));
        }
    }
    Ok(())
}

/// Merges the partitions' sorted index runs into one, summing a position's moves met in
/// several runs (a board in the mover's view occurs with either side to move), and builds the
/// directory, whose size depends on the number of entries, by reading the merged run again.
fn merge_index(dir: &Path, runs: Vec<Spill>) -> io::Result<(Part<IndexEntry>, Vec<u32>, u32)> {
    let (mut merged, entries) = merge_runs(
        dir,
        runs,
        |e: &IndexEntry| (e.key, e.mv.0),
        |e, other| e.count = e.count.saturating_add(other.count),
    )?;
    let bits = directory_bits(usize::try_from(entries).unwrap_or(usize::MAX));
    let mut directory = Directory::new(bits);
    let mut reader = BufReader::with_capacity(1 << 20, merged.reopen()?);
    while let Some(e) = read_one::<IndexEntry>(&mut reader)? {
        directory.push(e.key);
    }
    Ok((Part::Disk(merged), directory.finish(), bits))
}

/// Merges the partitions' sorted pattern counts into one sorted table, adding the counts of a
/// pattern met in several.
fn merge_counts(dir: &Path, runs: Vec<Spill>) -> io::Result<Spill> {
    let add = |e: &mut PatternCount, other: &PatternCount| {
        e.played = e.played.saturating_add(other.played);
        e.available = e.available.saturating_add(other.available);
    };
    merge_runs(dir, runs, |e: &PatternCount| e.key, add).map(|(merged, _)| merged)
}

/// Merges runs of records sorted by `key` into one spill and its number of records, records of
/// equal keys made one by `add`.
fn merge_runs<T: Pod, K: Ord + Copy>(
    dir: &Path,
    runs: Vec<Spill>,
    key: impl Fn(&T) -> K,
    add: impl Fn(&mut T, &T),
) -> io::Result<(Spill, u64)> {
    let mut readers = readers(runs)?;
    // Each run's next record, and the heap of their keys.
    let mut heads = vec![T::zeroed(); readers.len()];
    let mut heap = BinaryHeap::new();
    for (p, r) in readers.iter_mut().enumerate() {
        if let Some(e) = read_one::<T>(r)? {
            heads[p] = e;
            heap.push(Reverse((key(&e), p)));
        }
    }
    let mut merged = Spill::new(dir)?;
    let mut records = 0u64;
    let mut pending: Option<T> = None;
    while let Some(Reverse((k, p))) = heap.pop() {
        match &mut pending {
            Some(e) if key(e) == k => add(e, &heads[p]),
            _ => {
                if let Some(e) = pending.replace(heads[p]) {
                    merged.push(bytemuck::bytes_of(&e))?;
                    records += 1;
                }
            }
        }
        if let Some(e) = read_one::<T>(&mut readers[p])? {
            heads[p] = e;
            heap.push(Reverse((key(&e), p)));
        }
    }
    if let Some(e) = pending {
        merged.push(bytemuck::bytes_of(&e))?;
        records += 1;
    }
    Ok((merged, records))
}

/// The spills, each flushed, rewound and buffered to be read.
fn readers(runs: Vec<Spill>) -> io::Result<Vec<BufReader<File>>> {
    runs.into_iter()
        .map(|s| {
            s.into_reader()
                .map(|f| BufReader::with_capacity(1 << 20, f))
        })
        .collect()
}

/// The pattern counts on disk with their strengths, as the file stores them: the strengths
/// fitted on the sample (when `fit`) over the patterns it holds, 0 for the others; the
/// patterns legal in fewer than `min` positions left out (after the fit, which needs them all).
pub(crate) fn strengths_spilled(
    dir: &Path,
    mut counts: Spill,
    (boards, metas): (&[Planes], &[CaseMeta]),
    fit: bool,
    min: u32,
) -> io::Result<(Part<PatternCount>, Part<f32>)> {
    let (at, fitted) = if fit {
        let board_of: Vec<u32> = (0..boards.len() as u32).collect();
        let keys = sampled_keys(boards, &board_of, metas, metas.len());
        let mut error = None;
        let (held, at) = held_by(Each::new(counts.reopen()?, &mut error), &keys);
        if let Some(e) = error {
            return Err(e);
        }
        drop(keys);
        let fitted = fit_held(&held, boards, &board_of, metas, metas.len());
        (at, fitted)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut patterns = Part::Disk(Spill::new(dir)?);
    let mut strengths = Part::Disk(Spill::new(dir)?);
    let mut next = at.iter().zip(&fitted).peekable();
    let mut error = None;
    for (i, e) in Each::<PatternCount>::new(counts.into_reader()?, &mut error).enumerate() {
        let strength = match next.next_if(|(a, _)| **a == i as u64) {
            Some((_, s)) => *s,
            None => 0.0,
        };
        if e.available >= min {
            patterns.push(&[e])?;
            strengths.push(&[strength])?;
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok((patterns, strengths)),
    }
}

/// The records of a file as an iterator; a read error ends it and is kept in `error`.
struct Each<'e, T> {
    reader: BufReader<File>,
    error: &'e mut Option<io::Error>,
    _of: std::marker::PhantomData<T>,
}

impl<'e, T: Pod> Each<'e, T> {
    fn new(file: File, error: &'e mut Option<io::Error>) -> Each<'e, T> {
        Each {
            reader: BufReader::with_capacity(1 << 20, file),
            error,
            _of: std::marker::PhantomData,
        }
    }
}

impl<T: Pod> Iterator for Each<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match read_one(&mut self.reader) {
            Ok(v) => v,
            Err(e) => {
                *self.error = Some(e);
                None
            }
        }
    }
}

/// The next record of `reader`, or `None` at its end; a record cut short is an error.
fn read_one<T: Pod>(reader: &mut impl Read) -> io::Result<Option<T>> {
    let mut value = T::zeroed();
    let bytes = bytemuck::bytes_of_mut(&mut value);
    let mut got = 0;
    while got < bytes.len() {
        match reader.read(&mut bytes[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::Error::other("a spilled record is cut short")),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(value))
}
