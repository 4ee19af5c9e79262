//! Writing a case base: cases stream to spill files while a build runs, and the final file is
//! assembled at the end into a temporary file renamed over the output, so an interrupted or
//! failed build never leaves a half-written case base.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use shakmaty::Color;
use xxhash_rust::xxh3::Xxh3;

use super::derive;
use super::format::{
    ALIGN, FORMAT_VERSION, HEADER_LEN, Header, TRAILER_LEN, TRAILER_MAGIC, align_up,
};
use super::index::{IndexEntry, build_directory, directory_bits};
use super::lists::{self, Chunks};
use super::patterns::PatternCount;
use super::policy::{self, Policy};
use super::record::{Bucket, CaseClock, CaseMeta, GAME_STRINGS, GameControl, GameRecord};
use super::spilled::{self, Spilled};
use super::{BuildInfo, CaseBaseError};
use crate::case::{Material, Planes};

/// Spill file for one array of records.
pub(crate) struct Spill {
    file: BufWriter<File>,
    len: u64,
}

impl Spill {
    pub(crate) fn new(dir: &Path) -> io::Result<Spill> {
        Ok(Spill {
            file: BufWriter::with_capacity(1 << 20, tempfile::tempfile_in(dir)?),
            len: 0,
        })
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.len += bytes.len() as u64;
        self.file.write_all(bytes)
    }

    /// The spill's file, flushed and rewound, to be read.
    pub(crate) fn into_reader(self) -> io::Result<File> {
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        Ok(file)
    }

    /// A second handle on the spill's file, flushed and rewound, to read it and still keep it.
    pub(crate) fn reopen(&mut self) -> io::Result<File> {
        self.file.flush()?;
        let mut file = self.file.get_ref().try_clone()?;
        file.rewind()?;
        Ok(file)
    }

    /// Empties the spill, giving its disk back.
    pub(crate) fn discard(&mut self) -> io::Result<()> {
        self.file.flush()?;
        self.file.get_ref().set_len(0)?;
        self.file.rewind()?;
        self.len = 0;
        Ok(())
    }

    /// The whole spill, read back.
    pub(crate) fn read_all<T: bytemuck::Pod>(mut self) -> io::Result<Vec<T>> {
        read_all(&mut self)
    }
}

/// One section of the file: in memory, or spilled to a temporary file.
pub(crate) enum Part<T> {
    Memory(Vec<T>),
    Disk(Spill),
}

impl<T: bytemuck::Pod> Part<T> {
    /// Its number of records.
    pub(crate) fn len(&self) -> u64 {
        match self {
            Part::Memory(v) => v.len() as u64,
            Part::Disk(s) => s.len / size_of::<T>() as u64,
        }
    }

    pub(crate) fn push(&mut self, records: &[T]) -> io::Result<()> {
        match self {
            Part::Memory(v) => {
                v.extend_from_slice(records);
                Ok(())
            }
            Part::Disk(s) => s.push(bytemuck::cast_slice(records)),
        }
    }

    fn put_into<W: Write>(self, sink: &mut Sink<W>) -> io::Result<()> {
        match self {
            Part::Memory(v) => sink.put(bytemuck::cast_slice(&v)),
            Part::Disk(s) => sink.copy(s.into_reader()?),
        }
    }
}

impl<T: bytemuck::Pod> Chunks<T> for Part<T> {
    fn each_chunk(
        &mut self,
        range: std::ops::Range<usize>,
        f: &mut dyn FnMut(usize, &[T]),
    ) -> io::Result<()> {
        match self {
            Part::Memory(v) => (&mut &v[..]).each_chunk(range, f),
            Part::Disk(spill) => {
                const CHUNK: usize = lists::ASSIGN_CHUNK;
                let size = size_of::<T>() as u64;
                let mut file = io::BufReader::with_capacity(1 << 20, spill.reopen()?);
                file.seek(io::SeekFrom::Start(range.start as u64 * size))?;
                // On the heap: 2 MB of boards would strain a thread's stack.
                let mut chunk: Vec<T> = Vec::new();
                chunk.resize(CHUNK, T::zeroed());
                let mut at = range.start;
                while at < range.end {
                    let n = CHUNK.min(range.end - at);
                    file.read_exact(bytemuck::cast_slice_mut(&mut chunk[..n]))?;
                    f(at, &chunk[..n]);
                    at += n;
                }
                Ok(())
            }
        }
    }
}

/// Writes the case-base file: everything goes through the checksum, and optionally zstd.
struct Sink<W: Write> {
    inner: W,
    hasher: Xxh3,
    written: u64,
}

impl<W: Write> Sink<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hasher.update(bytes);
        self.written += bytes.len() as u64;
        self.inner.write_all(bytes)
    }

    fn pad_to(&mut self, offset: u64) -> io::Result<()> {
        let zeros = [0u8; ALIGN];
        while self.written < offset {
            let n = (offset - self.written).min(ALIGN as u64) as usize;
            self.put(&zeros[..n])?;
        }
        Ok(())
    }

    fn copy(&mut self, mut from: File) -> io::Result<()> {
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = from.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            self.put(&buf[..n])?;
        }
    }
}

/// What a case base derives from its cases, ready to be written.
struct Derived {
    cases: Merged,
    patterns: Part<PatternCount>,
    strengths: Part<f32>,
    index: Part<IndexEntry>,
    directory: Vec<u32>,
    dir_bits: u32,
    policy: Policy,
}

/// The parts of a case base, ready to be assembled into the final file.
struct Sections {
    header: Header,
    info_json: Vec<u8>,
    cases: Merged,
    games: Spill,
    strings: Spill,
    patterns: Part<PatternCount>,
    strengths: Part<f32>,
    index: Part<IndexEntry>,
    directory: Vec<u32>,
    policy: Policy,
    controls: Spill,
    lists: Option<(lists::Built, Part<Planes>)>,
}

impl Sections {
    /// Fills in the header: every section's count, and its offset (aligned, in file order);
    /// `games` in the game table, the position directory's `dir_bits`, `timed` cases with a
    /// clock (none: no clock sections).
    fn lay_out(&mut self, games: u64, dir_bits: u32, timed: u64) {
        let (cases, policy) = (&self.cases, &self.policy);
        let mut header = Header {
            version: FORMAT_VERSION,
            cases: cases.metas.len(),
            white_cases: cases.white_cases as u64,
            boards: cases.boards.len(),
            white_boards: cases.white_boards as u64,
            games,
            info_off: HEADER_LEN as u64,
            info_len: self.info_json.len() as u64,
            buckets: cases.buckets.len() as u64,
            patterns: self.patterns.len(),
            index_entries: self.index.len(),
            strings_len: self.strings.len,
            dir_bits: u64::from(dir_bits),
            ..Header::default()
        };
        let after = |off: u64, count: u64, size: u64| align_up(off + count * size);
        header.boards_off = after(header.info_off, header.info_len, 1);
        header.occ_off = after(header.boards_off, header.boards, 32);
        header.metas_off = after(header.occ_off, header.boards + 1, 4);
        header.buckets_off = after(header.metas_off, header.cases, 12);
        header.games_off = after(header.buckets_off, header.buckets, 16);
        header.strings_off = after(header.games_off, header.games, 24);
        header.patterns_off = after(header.strings_off, header.strings_len, 1);
        header.index_off = after(header.patterns_off, header.patterns, 16);
        header.dir_off = after(header.index_off, header.index_entries, 16);
        header.strengths_off = after(header.dir_off, self.directory.len() as u64, 4);
        header.policy_off = after(header.strengths_off, header.patterns, 4);
        header.policy_keys = policy.keys.len() as u64;
        header.policy_width = if policy.keys.is_empty() {
            0
        } else {
            policy::INPUTS as u64
        };
        if timed > 0 {
            let policy_end =
                header
                    .policy_parts()
                    .map_or(header.policy_off, |[_, _, (off, len)]| {
                        if policy.keys.is_empty() {
                            header.policy_off
                        } else {
                            off + len
                        }
                    });
            header.timed = timed;
            header.clocks_off = align_up(policy_end);
            header.controls_off = after(header.clocks_off, header.cases, 8);
        }
        if let Some((built, _)) = &self.lists {
            let end = header.declared_len().map_or(0, |n| n - TRAILER_LEN as u64);
            header.lists_off = align_up(end);
            header.lists = built.lists as u64;
        }
        self.header = header;
    }

    /// Writes the whole file to `inner` and returns it, flushed. Sections go in the order of
    /// their offsets.
    fn assemble<W: Write>(self, inner: W) -> io::Result<W> {
        let header = self.header;
        let mut sink = Sink {
            inner: BufWriter::with_capacity(1 << 20, inner),
            hasher: Xxh3::new(),
            written: 0,
        };
        sink.put(&header.encode())?;
        sink.put(&self.info_json)?;
        sink.pad_to(header.boards_off)?;
        self.cases.boards.put_into(&mut sink)?;
        sink.pad_to(header.occ_off)?;
        self.cases.occ.put_into(&mut sink)?;
        sink.pad_to(header.metas_off)?;
        self.cases.metas.put_into(&mut sink)?;
        sink.pad_to(header.buckets_off)?;
        sink.put(bytemuck::cast_slice(&self.cases.buckets))?;
        sink.pad_to(header.games_off)?;
        sink.copy(self.games.into_reader()?)?;
        sink.pad_to(header.strings_off)?;
        sink.copy(self.strings.into_reader()?)?;
        sink.pad_to(header.patterns_off)?;
        self.patterns.put_into(&mut sink)?;
        sink.pad_to(header.index_off)?;
        self.index.put_into(&mut sink)?;
        sink.pad_to(header.dir_off)?;
        sink.put(bytemuck::cast_slice(&self.directory))?;
        sink.pad_to(header.strengths_off)?;
        self.strengths.put_into(&mut sink)?;
        if let (Some([keys, scales, rows]), false) =
            (header.policy_parts(), self.policy.keys.is_empty())
        {
            sink.pad_to(keys.0)?;
            sink.put(bytemuck::cast_slice(&self.policy.keys))?;
            sink.pad_to(scales.0)?;
            sink.put(bytemuck::cast_slice(&self.policy.scales))?;
            sink.pad_to(rows.0)?;
            sink.put(bytemuck::cast_slice(&self.policy.rows))?;
        }
        if header.timed > 0 {
            sink.pad_to(header.clocks_off)?;
            self.cases.clocks.put_into(&mut sink)?;
            sink.pad_to(header.controls_off)?;
            sink.copy(self.controls.into_reader()?)?;
        }
        if let (Some((built, copies)), Some([centroids, starts, cases, members, boards])) =
            (self.lists, header.lists_parts())
        {
            sink.pad_to(centroids.0)?;
            sink.put(bytemuck::cast_slice(&built.centroids))?;
            sink.pad_to(starts.0)?;
            sink.put(bytemuck::cast_slice(&built.starts))?;
            sink.pad_to(cases.0)?;
            sink.put(bytemuck::cast_slice(&built.cases))?;
            sink.pad_to(members.0)?;
            sink.put(bytemuck::cast_slice(&built.members))?;
            sink.pad_to(boards.0)?;
            copies.put_into(&mut sink)?;
        }
        let digest = sink.hasher.digest();
        sink.inner.write_all(&digest.to_le_bytes())?;
        sink.inner.write_all(TRAILER_MAGIC)?;
        sink.inner.into_inner().map_err(|e| e.into_error())
    }
}

/// The case sections of the file, each in memory or on disk: the boards, the occurrences, the
/// records, the buckets, the clocks (empty when no case was timed).
pub(crate) struct Merged {
    pub boards: Part<Planes>,
    pub white_boards: usize,
    pub occ: Part<u32>,
    pub metas: Part<CaseMeta>,
    pub white_cases: usize,
    pub buckets: Vec<Bucket>,
    pub clocks: Part<CaseClock>,
}

impl From<Arranged> for Merged {
    fn from(a: Arranged) -> Merged {
        Merged {
            boards: Part::Memory(a.boards),
            white_boards: a.white_boards,
            occ: Part::Memory(a.occ),
            metas: Part::Memory(a.metas),
            white_cases: a.white_cases,
            buckets: a.buckets,
            clocks: Part::Memory(a.clocks),
        }
    }
}

/// The cases as the file stores them: per side to move (White's first), each distinct board
/// once, sorted by material, then by when it first occurred; each board's cases together, in the
/// order they were added; and the buckets of equal material.
pub struct Arranged {
    /// The distinct boards.
    pub boards: Vec<Planes>,
    /// How many of them had White to move (they come first).
    pub white_boards: usize,
    /// Board `i`'s cases are `occ[i]..occ[i + 1]`; one more entry at the end.
    pub occ: Vec<u32>,
    /// The cases' records.
    pub metas: Vec<CaseMeta>,
    /// How many cases had White to move (they come first).
    pub white_cases: usize,
    /// The runs of boards with equal material, in board order.
    pub buckets: Vec<Bucket>,
    /// Each case's board.
    pub board_of: Vec<u32>,
    /// Each case's clock, in the order of `metas` (empty when no case was timed).
    pub clocks: Vec<CaseClock>,
    /// Each board's first case, by its place in its side's cases as they were added.
    pub firsts: Vec<u32>,
}

/// The sort key of a material: its counts, four bits each (saturated), in index order. Two
/// materials past the saturation may share a key; they then form separate buckets with equal
/// keys, which is still correct.
pub(crate) fn material_key(m: &Material) -> u64 {
    m.iter().fold(0u64, |k, &c| (k << 4) | u64::from(c.min(15)))
}

/// The cases of one side to move as they were added: boards, records and (empty, or one a case)
/// clocks.
pub(crate) type Side = (Vec<Planes>, Vec<CaseMeta>, Vec<CaseClock>);

/// Sorts and deduplicates the cases of each side (`sides[0]` White's, `sides[1]` Black's); the
/// clocks follow their cases.
pub(crate) fn arrange(sides: [Side; 2]) -> Arranged {
    use rayon::slice::ParallelSliceMut;
    let total: usize = sides.iter().map(|(b, _, _)| b.len()).sum();
    let mut out = Arranged {
        boards: Vec::new(),
        white_boards: 0,
        occ: Vec::new(),
        metas: Vec::with_capacity(total),
        white_cases: sides[0].0.len(),
        buckets: Vec::new(),
        board_of: Vec::with_capacity(total),
        clocks: Vec::new(),
        firsts: Vec::new(),
    };
    for (side, (boards, metas, clocks)) in sides.into_iter().enumerate() {
        let mut keys: Vec<(u64, [u64; 4], u32)> = boards
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let planes = [b.white, b.r0, b.r1, b.r2];
                (material_key(&b.material()), planes, i as u32)
            })
            .collect();
        // Equal boards meet in this order, each one's cases in the order they were added.
        keys.par_sort_unstable();
        // The distinct boards as (material key, first case, its run of `keys`), then in the
        // order of their first case within a material: a game's positions between two captures
        // share a material, so its boards and cases stay neighbours, which the compressed
        // (embedded) file needs; any order within a bucket serves the retrieval.
        let mut distinct: Vec<(u64, u32, u32, u32)> = Vec::new();
        for (at, &(key, planes, i)) in keys.iter().enumerate() {
            if at == 0 || keys[at - 1].1 != planes {
                distinct.push((key, i, at as u32, at as u32));
            }
            distinct.last_mut().expect("pushed above").3 = at as u32 + 1;
        }
        distinct.par_sort_unstable();
        let mut last: Option<Material> = None;
        for (_, first, start, end) in distinct {
            let board = boards[first as usize];
            let material = board.material();
            if last != Some(material) {
                out.buckets.push(Bucket {
                    material,
                    first: out.boards.len() as u32,
                });
                last = Some(material);
            }
            out.occ.push(out.metas.len() as u32);
            out.boards.push(board);
            out.firsts.push(first);
            for &(_, _, i) in &keys[start as usize..end as usize] {
                out.board_of.push((out.boards.len() - 1) as u32);
                out.metas.push(metas[i as usize]);
                if let Some(&clock) = clocks.get(i as usize) {
                    out.clocks.push(clock);
                }
            }
        }
        if side == 0 {
            out.white_boards = out.boards.len();
        }
    }
    out.occ.push(out.metas.len() as u32);
    out
}

/// Streams cases and games into a new case-base file.
pub struct CaseBaseWriter {
    out: PathBuf,
    boards: [Spill; 2],
    metas: [Spill; 2],
    clocks: [Spill; 2],
    timed: u64,
    games: Spill,
    controls: Spill,
    strings: Spill,
    game_count: u64,
    derive: Derive,
    /// The budget of memory when the cases are arranged (bytes).
    memory: u64,
}

/// The memory a build arranges its cases in when it is not told: above it, they are sorted in
/// partitions spilled to disk.
pub const MEMORY: u64 = 4 << 30;

/// What a case base derives from its cases besides the position index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Derive {
    /// Pattern counts, their fitted strengths and the policy: what the move model reads.
    Everything,
    /// Pattern counts alone: a player's file, whose layer on the generic model reads the
    /// counts and the index, not the fits (the slow part of a build).
    Counts,
    /// Nothing but the index.
    Nothing,
}

/// A size in bytes: a number with K, M, G or T (powers of 1024), an optional B.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let t = t.strip_suffix(['B', 'b']).unwrap_or(t);
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, ' '),
    };
    let shift = match unit {
        ' ' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return Err(format!("{text:?}: a size is a number with K, M, G or T")),
    };
    let n: f64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: a size is a number with K, M, G or T"))?;
    if !n.is_finite() || n <= 0.0 {
        return Err(format!("{text:?}: a size must be above zero"));
    }
    Ok((n * (1u64 << shift) as f64) as u64)
}

impl CaseBaseWriter {
    /// Prepares to write `out`; fails at once if its directory is not writable.
    pub fn create(out: &Path) -> Result<CaseBaseWriter, CaseBaseError> {
        let err = |source| CaseBaseError::Write {
            name: out.display().to_string(),
            source,
        };
        if out.is_dir() {
            return Err(err(io::Error::other("is a directory")));
        }
        let dir = out_dir(out);
        Ok(CaseBaseWriter {
            out: out.to_path_buf(),
            boards: [
                Spill::new(&dir).map_err(err)?,
                Spill::new(&dir).map_err(err)?,
            ],
            metas: [
                Spill::new(&dir).map_err(err)?,
                Spill::new(&dir).map_err(err)?,
            ],
            clocks: [
                Spill::new(&dir).map_err(err)?,
                Spill::new(&dir).map_err(err)?,
            ],
            timed: 0,
            games: Spill::new(&dir).map_err(err)?,
            controls: Spill::new(&dir).map_err(err)?,
            strings: Spill::new(&dir).map_err(err)?,
            game_count: 0,
            derive: Derive::Everything,
            memory: MEMORY,
        })
    }

    fn err(&self, source: io::Error) -> CaseBaseError {
        CaseBaseError::Write {
            name: self.out.display().to_string(),
            source,
        }
    }

    /// Adds a game to the game table and returns its index. Strings are white, black, date,
    /// event, site; each is cut to 255 bytes.
    pub(crate) fn add_game(
        &mut self,
        mut record: GameRecord,
        strings: [&str; GAME_STRINGS],
        control: GameControl,
    ) -> Result<u32, CaseBaseError> {
        let index = u32::try_from(self.game_count)
            .map_err(|_| self.err(io::Error::other("more than 4 294 967 295 games")))?;
        record.strings = self.strings.len;
        for s in strings {
            let s = truncate_utf8(s, 255);
            let res = self
                .strings
                .push(&[s.len() as u8])
                .and_then(|()| self.strings.push(s.as_bytes()));
            res.map_err(|e| self.err(e))?;
        }
        let res = self
            .games
            .push(bytemuck::bytes_of(&record))
            .and_then(|()| self.controls.push(bytemuck::bytes_of(&control)));
        res.map_err(|e| self.err(e))?;
        self.game_count += 1;
        Ok(index)
    }

    /// Adds game `game` of `from` (its record and strings), as [`Self::add_game`] does.
    pub fn copy_game(&mut self, from: &super::CaseBase, game: u32) -> Result<u32, CaseBaseError> {
        let header = from.game(game).ok_or_else(|| CaseBaseError::Corrupt {
            name: from.name().to_string(),
            what: format!("no game {game}"),
        })?;
        self.add_game(
            from.game_records()[game as usize],
            [
                &header.white,
                &header.black,
                &header.date,
                &header.event,
                &header.site,
            ],
            GameControl::of(header.time_control),
        )
    }

    /// Adds a case whose position had `mover` to move; `board` and `meta` are already in the
    /// mover's point of view.
    pub fn add_case(
        &mut self,
        mover: Color,
        board: &Planes,
        meta: &CaseMeta,
    ) -> Result<(), CaseBaseError> {
        self.add_timed_case(mover, board, meta, CaseClock::NONE)
    }

    /// Adds a case as [`Self::add_case`] does, with how long its player thought: a case base
    /// with at least one timed case stores a clock for every case.
    pub fn add_timed_case(
        &mut self,
        mover: Color,
        board: &Planes,
        meta: &CaseMeta,
        clock: CaseClock,
    ) -> Result<(), CaseBaseError> {
        let side = usize::from(mover == Color::Black);
        self.timed += u64::from(clock != CaseClock::NONE);
        let res = self.boards[side]
            .push(bytemuck::bytes_of(board))
            .and_then(|()| self.metas[side].push(bytemuck::bytes_of(meta)))
            .and_then(|()| self.clocks[side].push(bytemuck::bytes_of(&clock)));
        res.map_err(|e| self.err(e))
    }

    /// Number of White-to-move cases added so far.
    pub fn white_cases(&self) -> u64 {
        self.boards[0].len / 32
    }

    /// Number of cases added so far.
    pub fn cases(&self) -> u64 {
        (self.boards[0].len + self.boards[1].len) / 32
    }

    /// Stores the cases without deriving their pattern counts and strengths (the position index
    /// is still built): for benchmarks of the case base itself. Such a case base retrieves and
    /// votes, but its move model has no patterns to use.
    pub fn without_patterns(mut self) -> CaseBaseWriter {
        self.derive = Derive::Nothing;
        self
    }

    /// Arranges the cases within about `bytes` of memory: more cases than it holds are sorted
    /// in partitions spilled beside the output and merged (the same file, written slower).
    pub fn with_memory(mut self, bytes: u64) -> CaseBaseWriter {
        self.memory = bytes;
        self
    }

    /// Derives the pattern counts but fits neither their strengths nor a policy: a player's
    /// file, which the player's layer reads for its counts and its index alone.
    pub fn counts_only(mut self) -> CaseBaseWriter {
        if self.derive == Derive::Everything {
            self.derive = Derive::Counts;
        }
        self
    }

    /// Sorts and deduplicates the cases, derives the pattern counts and the position index,
    /// assembles the file and renames it over the output. A name ending in `.zst` is written
    /// zstd-compressed (what the embedded default case base uses).
    pub fn finish(self, info: &BuildInfo) -> Result<(), CaseBaseError> {
        self.finish_timed(info, &mut |_| {}).map(|_| ())
    }

    /// [`Self::finish`], announcing each phase to `starting` as it starts and returning how
    /// long each took.
    pub fn finish_timed(
        mut self,
        info: &BuildInfo,
        starting: &mut dyn FnMut(&'static str),
    ) -> Result<Vec<Phase>, CaseBaseError> {
        let mut clock = PhaseClock::new(starting);
        let out = self.out.clone();
        let err = |source| CaseBaseError::Write {
            name: out.display().to_string(),
            source,
        };
        if self.cases() > u64::from(u32::MAX) {
            return Err(err(io::Error::other("more than 4 294 967 295 cases")));
        }
        let fit = usize::try_from(info.options.fit_positions).unwrap_or(usize::MAX);
        let min = info.options.min_pattern_count;
        let derived = if self.fits_in_memory(fit) {
            self.derive_in_memory(fit, min, &mut clock)
        } else {
            self.derive_spilled(fit, min, &mut clock)
        }
        .map_err(err)?;
        let mut cases = derived.cases;
        let lists = self
            .lists(&mut cases, info.options.lists, &mut clock)
            .map_err(err)?;
        let info_json = serde_json::to_vec(info).map_err(|e| err(io::Error::other(e)))?;
        let mut sections = Sections {
            header: Header::default(),
            info_json,
            cases,
            games: self.games,
            strings: self.strings,
            patterns: derived.patterns,
            strengths: derived.strengths,
            index: derived.index,
            directory: derived.directory,
            policy: derived.policy,
            controls: self.controls,
            lists,
        };
        sections.lay_out(self.game_count, derived.dir_bits, self.timed);
        clock.start("write");
        write_over(&out, sections).map_err(err)?;
        Ok(clock.stop())
    }

    /// The approximate index's lists over the arranged boards: `asked` lists a side, or by
    /// default [`lists::lists_for`] the larger side's boards from [`lists::LISTS_FROM`] boards
    /// up; `None` for none.
    fn lists(
        &self,
        cases: &mut Merged,
        asked: Option<u64>,
        clock: &mut PhaseClock<'_>,
    ) -> io::Result<Option<(lists::Built, Part<Planes>)>> {
        let boards = cases.boards.len() as usize;
        let white = cases.white_boards;
        let count = match asked {
            Some(n) => n.min(lists::MAX_LISTS) as usize,
            None if boards >= lists::LISTS_FROM => lists::lists_for(white.max(boards - white)),
            None => 0,
        };
        if count == 0 {
            return Ok(None);
        }
        clock.start("lists");
        // The copies go to disk even from an in-memory build: its budget did not plan 32 more
        // bytes a board.
        let mut copies = Part::Disk(Spill::new(&out_dir(&self.out))?);
        let built = lists::build(
            &mut cases.boards,
            &mut cases.occ,
            (white, boards),
            count,
            &mut |c| copies.push(c),
        )?;
        Ok(Some((built, copies)))
    }

    /// Arranges, counts, indexes and fits in memory; the patterns legal in fewer than `min`
    /// positions are left out after the fit (which needs them all).
    fn derive_in_memory(
        &mut self,
        fit: usize,
        min: u32,
        clock: &mut PhaseClock<'_>,
    ) -> io::Result<Derived> {
        clock.start("sort");
        let cases = arrange(self.read_sides()?);
        clock.start("patterns and index");
        let patterns = self.derive != Derive::Nothing;
        let (counter, pairs) =
            derive::derive(&cases.boards, &cases.board_of, &cases.metas, patterns);
        let (table, index) = derive::finish(counter, pairs);
        let (strengths, policy) = fit_all(
            &table,
            self.derive,
            (&cases.boards, &cases.board_of, &cases.metas),
            fit,
            clock,
        );
        let (patterns, strengths): (Vec<PatternCount>, Vec<f32>) = table
            .into_iter()
            .zip(strengths)
            .filter(|(p, _)| p.available >= min)
            .unzip();
        let dir_bits = directory_bits(index.len());
        let directory = build_directory(&index, dir_bits);
        Ok(Derived {
            cases: Merged::from(cases),
            patterns: Part::Memory(patterns),
            strengths: Part::Memory(strengths),
            index: Part::Memory(index),
            directory,
            dir_bits,
            policy,
        })
    }

    /// What [`Self::derive_in_memory`] gives, through partitions spilled to disk: the cases,
    /// the counts and the index merged on disk, the fits on the sample the merge took.
    fn derive_spilled(
        &mut self,
        fit: usize,
        min: u32,
        clock: &mut PhaseClock<'_>,
    ) -> io::Result<Derived> {
        let spilled = self.spill(fit, clock)?;
        let (boards, metas) = spilled.sample;
        let everything = self.derive == Derive::Everything;
        if everything {
            clock.start("pattern strengths");
        }
        let dir = out_dir(&self.out);
        let (patterns, strengths) =
            spilled::strengths_spilled(&dir, spilled.counts, (&boards, &metas), everything, min)?;
        let policy = if everything {
            clock.start("policy");
            let board_of: Vec<u32> = (0..boards.len() as u32).collect();
            policy::fit(&boards, &board_of, &metas, metas.len())
        } else {
            Policy::default()
        };
        Ok(Derived {
            cases: spilled.cases,
            patterns,
            strengths,
            index: spilled.index,
            directory: spilled.directory,
            dir_bits: spilled.dir_bits,
            policy,
        })
    }

    /// Whether the cases can be arranged in memory within the budget, beside the fits' sample
    /// of about `fit` positions.
    fn fits_in_memory(&self, fit: usize) -> bool {
        let cases = self.cases();
        cases.saturating_mul(spilled::MEMORY_BYTES_A_CASE) + self.fits_bytes(fit) <= self.memory
    }

    /// What the fits' sample of about `fit` positions holds in memory.
    fn fits_bytes(&self, fit: usize) -> u64 {
        if self.derive != Derive::Everything {
            return 0;
        }
        self.cases()
            .min(fit as u64)
            .saturating_mul(spilled::FIT_BYTES_A_POSITION)
    }

    /// Arranges the cases in partitions spilled beside the output, after checking that the
    /// fits' sample fits the budget and that the disk has room.
    fn spill(&mut self, fit: usize, clock: &mut PhaseClock<'_>) -> io::Result<Spilled> {
        let fits = self.fits_bytes(fit);
        if fits > self.memory {
            return Err(io::Error::other(format!(
                "--memory {} is too small for the fits' sample of {} positions (about {}): give \
                 --memory more, or --fit-positions fewer",
                spilled::size(self.memory),
                self.cases().min(fit as u64),
                spilled::size(fits)
            )));
        }
        let dir = out_dir(&self.out);
        spilled::check_disk(&dir, self.cases() * spilled::DISK_BYTES_A_CASE)?;
        let stride =
            usize::try_from(self.cases().div_ceil(fit.max(1) as u64).max(1)).unwrap_or(usize::MAX);
        clock.start("split");
        let mut sides: [Vec<Spill>; 2] = Default::default();
        for (side, parts) in sides.iter_mut().enumerate() {
            let cases = self.boards[side].len / size_of::<Planes>() as u64;
            *parts = spilled::split(
                &dir,
                self.boards[side].reopen()?,
                self.metas[side].reopen()?,
                self.clocks[side].reopen()?,
                spilled::partitions(cases, self.memory / 2),
            )?;
            // The side's cases are in its partitions now: their first spills give the disk back.
            for spill in [&mut self.boards, &mut self.metas, &mut self.clocks] {
                spill[side].discard()?;
            }
        }
        let patterns = self.derive != Derive::Nothing;
        spilled::arrange_spilled(&dir, sides, patterns, self.timed > 0, stride, clock)
    }

    /// Reads back the spilled cases of each side (White's first): boards, records, and the
    /// clocks when any case was timed.
    fn read_sides(&mut self) -> io::Result<[Side; 2]> {
        let mut sides: [Side; 2] = Default::default();
        for (side, (boards, metas, clocks)) in sides.iter_mut().enumerate() {
            *boards = read_all(&mut self.boards[side])?;
            *metas = read_all(&mut self.metas[side])?;
            if self.timed > 0 {
                *clocks = read_all(&mut self.clocks[side])?;
            }
        }
        Ok(sides)
    }
}

/// The strengths of the patterns of `table` and the policy, fitted on about `positions` of the
/// cases (every n-th; case `i` has the record `metas[i]` and the board `boards[board_of[i]]`),
/// as far as `derive` asks (strengths of 0 and no policy when not fitted).
fn fit_all(
    table: &[PatternCount],
    derive: Derive,
    (boards, board_of, metas): (&[Planes], &[u32], &[CaseMeta]),
    positions: usize,
    clock: &mut PhaseClock<'_>,
) -> (Vec<f32>, Policy) {
    if derive != Derive::Everything {
        return (vec![0.0; table.len()], Policy::default());
    }
    clock.start("pattern strengths");
    let strengths = derive::fit_strengths(table, boards, board_of, metas, positions);
    clock.start("policy");
    let policy = policy::fit(boards, board_of, metas, positions);
    (strengths, policy)
}

/// How long one phase of a build took.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Phase {
    /// What the phase does (`read`, `sort`, `patterns and index`, `pattern strengths`,
    /// `policy`, `write`).
    pub name: &'static str,
    /// Its wall-clock time.
    pub seconds: f64,
}

/// Times the phases of a build, one after another, announcing each as it starts.
pub(crate) struct PhaseClock<'a> {
    starting: &'a mut dyn FnMut(&'static str),
    current: Option<(&'static str, std::time::Instant)>,
    done: Vec<Phase>,
}

impl<'a> PhaseClock<'a> {
    pub(crate) fn new(starting: &'a mut dyn FnMut(&'static str)) -> PhaseClock<'a> {
        PhaseClock {
            starting,
            current: None,
            done: Vec::new(),
        }
    }

    /// Ends the current phase, if any, and starts `name`.
    pub(crate) fn start(&mut self, name: &'static str) {
        self.end();
        (self.starting)(name);
        self.current = Some((name, std::time::Instant::now()));
    }

    fn end(&mut self) {
        if let Some((name, at)) = self.current.take() {
            self.done.push(Phase {
                name,
                seconds: at.elapsed().as_secs_f64(),
            });
        }
    }

    /// Ends the current phase; every phase's time.
    pub(crate) fn stop(mut self) -> Vec<Phase> {
        self.end();
        self.done
    }
}

/// Reads a whole spill back.
fn read_all<T: bytemuck::Pod>(spill: &mut Spill) -> io::Result<Vec<T>> {
    spill.file.flush()?;
    let n = (spill.len / size_of::<T>() as u64) as usize;
    let file = spill.file.get_mut();
    file.rewind()?;
    let mut out = vec![T::zeroed(); n];
    file.read_exact(bytemuck::cast_slice_mut(&mut out))?;
    Ok(out)
}

/// Writes `sections` to a temporary file beside `out` (zstd-compressed for a name ending in
/// `.zst`) and renames it over `out` once complete.
fn write_over(out: &Path, sections: Sections) -> io::Result<()> {
    let compress = out.extension().is_some_and(|e| e == "zst");
    let tmp = tempfile::Builder::new()
        .prefix(".precedent-build-")
        .tempfile_in(out_dir(out))?;
    let file = tmp.as_file().try_clone()?;
    if compress {
        let mut enc = zstd::Encoder::new(file, 19)?;
        enc.long_distance_matching(true)?;
        enc.multithread(2)?;
        sections.assemble(enc).and_then(|enc| enc.finish())?;
    } else {
        sections.assemble(file)?;
    }
    tmp.as_file().sync_all()?;
    // A temporary file is private (0600); a case base is an ordinary, shareable file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let perms = std::fs::Permissions::from_mode(0o644);
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.persist(out).map_err(|e| e.error)?;
    Ok(())
}

fn out_dir(out: &Path) -> PathBuf {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
