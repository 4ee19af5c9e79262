//! The case base: a flat array of (position, move) cases plus the table of games they came from.
//!
//! One representation on disk and in memory: a file is loaded by mapping it (or, for a
//! zstd-compressed file or the embedded default, by decompressing it once into an aligned buffer)
//! and checking its header, bounds and checksum. Nothing is parsed case by case.

pub(crate) mod build;
pub mod derive;
mod format;
pub mod index;
mod info;
pub mod lists;
pub(crate) mod pack;
pub(crate) mod patterns;
pub mod policy;
pub mod profile;
mod record;
mod replay;
mod spilled;
pub(crate) mod summary;
mod without;
mod write;

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;

use bytemuck::{Pod, Zeroable};
use memmap2::Mmap;
use rayon::prelude::*;
use shakmaty::{Color, Position};

use crate::case::CaseMove;
use crate::case::Planes;
use crate::pgn::{GameHeader, GameResult};
pub(crate) use format::FORMAT_VERSION;
use format::{
    ALIGN, HEADER_LEN, HEADER_LEN_V3, Header, MAGIC, OLDEST_VERSION, TRAILER_LEN, TRAILER_MAGIC,
    ZSTD_MAGIC, header_len,
};
use index::IndexEntry;
pub use info::{BuildInfo, BuildOptions, BuildStats, FIT_POSITIONS};
use patterns::{PatternCount, PatternTable};
use policy::PolicyTable;
pub use profile::Profile;
pub(crate) use record::position_key;
pub use record::{Bucket, CaseClock, CaseMeta, GameControl, GameRecord, NO_EP};
pub use replay::Replayed;
pub use without::Without;
pub use write::{CaseBaseWriter, MEMORY, Phase, parse_memory};

/// Why a case base could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CaseBaseError {
    /// The file could not be opened or read.
    #[error("{name}: cannot read case base: {source}")]
    Read {
        /// Name of the file (or `<embedded>`) the error is about.
        name: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The output could not be written.
    #[error("{name}: cannot write case base: {source}")]
    Write {
        /// Name of the file (or `<embedded>`) the error is about.
        name: String,
        /// The I/O error.
        source: io::Error,
    },
    /// The file does not start with the case-base magic bytes.
    #[error("{0}: not a Precedent case base (no PRECEDNT magic bytes at the start)")]
    NotACaseBase(String),
    /// The file has a format version this build does not read.
    #[error(
        "{name}: case-base format version {found} is not supported (this build reads versions {OLDEST_VERSION} to {FORMAT_VERSION}); rebuild it with `precedent build`"
    )]
    Version {
        /// Name of the file (or `<embedded>`) the error is about.
        name: String,
        /// The format version the file declares.
        found: u32,
    },
    /// The file ends early.
    #[error("{name}: truncated case base ({len} bytes): {what}")]
    Truncated {
        /// Name of the file (or `<embedded>`) the error is about.
        name: String,
        /// The file's length (bytes).
        len: u64,
        /// What is missing.
        what: String,
    },
    /// The checksum does not match the contents.
    #[error("{0}: damaged case base: checksum mismatch")]
    Checksum(String),
    /// A player file without a case: its names matched none of the games it was built from.
    #[error(
        "{name}: the player file of {player:?} holds no case (the name matched none of its games); rebuild it with `precedent build --player` and the name as the games spell it"
    )]
    EmptyPlayerFile {
        /// Name of the file.
        name: String,
        /// The player it was built for.
        player: String,
    },
    /// The header or a section is inconsistent.
    #[error("{name}: corrupt case base: {what}")]
    Corrupt {
        /// Name of the file (or `<embedded>`) the error is about.
        name: String,
        /// What is inconsistent.
        what: String,
    },
}

/// 64 bytes aligned to 64, the unit of an owned case-base buffer.
#[repr(C, align(64))]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Block([u8; ALIGN]);

/// Where a case base's bytes live.
enum Backing {
    Mapped(Mmap),
    Owned { blocks: Vec<Block>, len: usize },
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => m,
            Backing::Owned { blocks, len } => &bytemuck::cast_slice(blocks)[..*len],
        }
    }

    /// Reads a whole (decompressed) case base into an aligned buffer. The magic bytes are
    /// checked as soon as they arrive, and nothing past the size the header declares is read,
    /// so a small compressed file cannot make the loader swallow gigabytes of garbage.
    ///
    /// `source_len` is the size of the input (compressed) when known: once the header is read,
    /// the buffer is reserved at once for the declared size if that is within
    /// [`MAX_EXPANSION`] times the input (no copy when growing, half the peak memory), and
    /// otherwise grows as data actually arrives.
    fn read_all(
        name: &str,
        mut reader: impl Read,
        source_len: Option<u64>,
    ) -> Result<Backing, CaseBaseError> {
        let corrupt = |what: String| CaseBaseError::Corrupt {
            name: name.to_string(),
            what,
        };
        let mut blocks = vec![Block::zeroed(); HEADER_LEN.div_ceil(ALIGN)];
        let mut len = 0usize;
        // The version-3 header first: it says which version, and so how long the header is.
        let mut limit = HEADER_LEN_V3;
        let mut header_seen = false;
        loop {
            if len == limit {
                if header_seen {
                    // One byte more than declared: the file is longer than its header says.
                    let mut probe = [0u8; 1];
                    match reader.read(&mut probe) {
                        Ok(0) => break,
                        Ok(_) => {
                            return Err(corrupt("data after the end the header declares".into()));
                        }
                        Err(e) => return Err(corrupt(format!("zstd stream: {e}"))),
                    }
                }
                let head: &[u8] = bytemuck::cast_slice(&blocks);
                if &head[..MAGIC.len()] != MAGIC {
                    return Err(CaseBaseError::NotACaseBase(name.to_string()));
                }
                let mut version = [0u8; 4];
                version.copy_from_slice(&head[8..12]);
                let needed = header_len(u32::from_le_bytes(version));
                if len < needed {
                    limit = needed;
                    continue;
                }
                let declared = Header::decode(&head[..needed])
                    .declared_len()
                    .ok_or_else(|| corrupt("section sizes overflow".into()))?;
                limit = usize::try_from(declared)
                    .map_err(|_| corrupt("declared size too large".into()))?;
                if limit < len {
                    return Err(corrupt(format!(
                        "declared size {limit} is smaller than the header"
                    )));
                }
                header_seen = true;
                let plausible = source_len
                    .and_then(|n| n.checked_mul(MAX_EXPANSION))
                    .is_some_and(|n| n >= declared);
                if plausible {
                    let total = limit.div_ceil(ALIGN);
                    blocks.reserve_exact(total.saturating_sub(blocks.len()));
                }

                if len >= limit {
                    continue;
                }
            }
            let want = (limit - len).min(1 << 24);
            let needed = (len + want).div_ceil(ALIGN);
            if needed > blocks.len() {
                blocks.resize(
                    needed.max(blocks.len() * 2).min(limit.div_ceil(ALIGN)),
                    Block::zeroed(),
                );
            }
            let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut blocks);
            match reader.read(&mut buf[len..len + want]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(corrupt(format!("zstd stream: {e}"))),
            }
        }
        if len < MAGIC.len() || &bytemuck::cast_slice::<Block, u8>(&blocks)[..MAGIC.len()] != MAGIC
        {
            return Err(CaseBaseError::NotACaseBase(name.to_string()));
        }
        blocks.truncate(len.div_ceil(ALIGN));
        blocks.shrink_to_fit();
        // A packed file (`precedent pack`) is restored here; the checksum then checks it.
        pack::unpack(&mut bytemuck::cast_slice_mut::<Block, u8>(&mut blocks)[..len])
            .map_err(|e| corrupt(format!("packed sections: {e}")))?;
        Ok(Backing::Owned { blocks, len })
    }
}

/// How many times its compressed size a case base may declare and still have its buffer
/// reserved at once (case bases compress 3–4×).
const MAX_EXPANSION: u64 = 64;

/// A loaded, validated case base.
pub struct CaseBase {
    name: String,
    backing: Backing,
    header: Header,
    info: BuildInfo,
}

impl std::fmt::Debug for CaseBase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaseBase")
            .field("name", &self.name)
            .field("cases", &self.header.cases)
            .field("games", &self.header.games)
            .finish()
    }
}

impl CaseBase {
    /// Opens a case-base file: memory-mapped if plain, decompressed once if zstd-compressed.
    pub fn open(path: &Path) -> Result<CaseBase, CaseBaseError> {
        let name = path.display().to_string();
        let read_err = |source| CaseBaseError::Read {
            name: name.clone(),
            source,
        };
        let file = File::open(path).map_err(read_err)?;
        let len = file.metadata().map_err(read_err)?.len();
        if path.is_dir() {
            return Err(read_err(io::Error::other("is a directory")));
        }
        let mut first = [0u8; 4];
        let compressed = len >= 4 && {
            (&file).read_exact(&mut first).map_err(read_err)?;
            first == ZSTD_MAGIC
        };
        let backing = if compressed {
            let file = File::open(path).map_err(read_err)?;
            let decoder = zstd::Decoder::new(file).map_err(read_err)?;
            Backing::read_all(&name, decoder, Some(len))?
        } else if len == 0 {
            return Err(CaseBaseError::NotACaseBase(name));
        } else {
            // SAFETY: the map is read-only; a case base is not modified while an engine uses it
            // (builds write a new file and rename it into place, which leaves this map intact).
            let map = unsafe { Mmap::map(&file) }.map_err(read_err)?;
            Backing::Mapped(map)
        };
        CaseBase::from_backing(name, backing)
    }

    /// Loads a case base from bytes (plain or zstd-compressed), e.g. the embedded default.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<CaseBase, CaseBaseError> {
        let backing = if bytes.starts_with(&ZSTD_MAGIC) {
            let decoder = zstd::Decoder::new(bytes).map_err(|e| CaseBaseError::Corrupt {
                name: name.to_string(),
                what: format!("zstd stream: {e}"),
            })?;
            Backing::read_all(name, decoder, Some(bytes.len() as u64))?
        } else {
            Backing::read_all(name, bytes, Some(bytes.len() as u64))?
        };
        CaseBase::from_backing(name.to_string(), backing)
    }

    fn from_backing(name: String, backing: Backing) -> Result<CaseBase, CaseBaseError> {
        let (header, head_len, body_end) = read_header(&name, backing.bytes())?;
        check_sections(&name, &header, head_len, body_end)?;
        let bytes = backing.bytes();
        let corrupt = |what: String| CaseBaseError::Corrupt {
            name: name.clone(),
            what,
        };
        let info_bytes =
            &bytes[header.info_off as usize..(header.info_off + header.info_len) as usize];
        let info: BuildInfo = serde_json::from_slice(info_bytes)
            .map_err(|e| corrupt(format!("build information: {e}")))?;
        let cb = CaseBase {
            name: name.clone(),
            backing,
            header,
            info,
        };
        cb.check_tables()?;
        Ok(cb)
    }

    /// Checks the tables the scan, the buckets and the lookups trust.
    fn check_tables(&self) -> Result<(), CaseBaseError> {
        let corrupt = |what: String| CaseBaseError::Corrupt {
            name: self.name.clone(),
            what,
        };
        // The scan, the buckets and the lookups trust these tables: one out of order would
        // answer wrongly (or index out of bounds), not fail.
        let occ = self.occurrences();
        let boundaries = [
            (0, 0),
            (self.header.white_boards, self.header.white_cases),
            (self.header.boards, self.header.cases),
        ];
        if !occ.windows(2).all(|w| w[0] < w[1])
            || boundaries
                .iter()
                .any(|&(b, c)| u64::from(occ[b as usize]) != c)
        {
            return Err(corrupt("the occurrence table is inconsistent".into()));
        }
        let buckets = self.buckets();
        let starts_side =
            |b: u64| b == self.header.boards || buckets.iter().any(|k| u64::from(k.first) == b);
        if !buckets.windows(2).all(|w| w[0].first < w[1].first)
            || buckets
                .last()
                .is_some_and(|k| u64::from(k.first) >= self.header.boards)
            || !starts_side(0)
            || !starts_side(self.header.white_boards)
        {
            return Err(corrupt("the material buckets are inconsistent".into()));
        }
        // Bounded retrieval trusts each bucket's material to be its boards' (a wrong one would
        // prune the best cases silently), and the material to describe the board, so every board
        // must be a real encoding (no piece code 7, no colour on an empty square) of its bucket's
        // material. About 1.5 s at 100 M cases on two cores; the checksum catches damage, this
        // a file rewritten by hand.
        let boards = self.boards();
        let bucket_ok = |i: usize| {
            boards[self.bucket_boards(i)].iter().all(|b| {
                b.white & !b.occupied() == 0
                    && b.r0 & b.r1 & b.r2 == 0
                    && b.material() == buckets[i].material
            })
        };
        if !(0..buckets.len()).into_par_iter().all(bucket_ok) {
            return Err(corrupt(
                "a board is malformed or outside its material bucket".into(),
            ));
        }
        if let Some(what) = self.lists_inconsistent() {
            return Err(corrupt(what));
        }
        let dir = self.index_directory();
        if dir.first() != Some(&0)
            || dir.last().map(|&d| u64::from(d)) != Some(self.header.index_entries)
            || !dir.windows(2).all(|w| w[0] <= w[1])
        {
            return Err(corrupt(
                "the position-index directory is inconsistent".into(),
            ));
        }
        let table = self.policy_parts();
        if !table.0.windows(2).all(|w| w[0] < w[1])
            || !table.1.iter().all(|s| s.is_finite() && *s > 0.0)
        {
            return Err(corrupt(
                "the policy's keys are out of order or a scale is not positive".into(),
            ));
        }
        if !self
            .pattern_counts()
            .windows(2)
            .all(|w| w[0].key < w[1].key)
        {
            return Err(corrupt("pattern counts are not in key order".into()));
        }
        if !self
            .position_index()
            .windows(2)
            .all(|w| (w[0].key, w[0].mv.0) < (w[1].key, w[1].mv.0))
        {
            return Err(corrupt("the position index is not in key order".into()));
        }
        // Each slot of the directory must start where its keys start, or lookups miss entries.
        let bits = self.header.dir_bits as u32;
        let index = self.position_index();
        if !(0..dir.len() - 1).into_par_iter().all(|p| {
            let (start, end) = (dir[p] as usize, dir[p + 1] as usize);
            index[start..end]
                .iter()
                .all(|e| index::slot_of(e.key, bits) == p)
        }) {
            return Err(corrupt(
                "the position-index directory does not match its keys".into(),
            ));
        }
        Ok(())
    }

    fn section<T: Pod>(&self, off: u64, count: u64) -> &[T] {
        let size = std::mem::size_of::<T>();
        let start = off as usize;
        // Bounds and alignment were checked when the case base was loaded.
        bytemuck::cast_slice(&self.backing.bytes()[start..start + count as usize * size])
    }

    /// Name the case base was loaded under (its path, or `<embedded>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of cases.
    pub fn len(&self) -> usize {
        self.header.cases as usize
    }

    /// Whether the case base holds no case.
    pub fn is_empty(&self) -> bool {
        self.header.cases == 0
    }

    /// Size of the case base's bytes (uncompressed), header to trailer.
    pub fn byte_len(&self) -> usize {
        self.backing.bytes().len()
    }

    /// Number of games in the game table.
    pub fn game_count(&self) -> usize {
        self.header.games as usize
    }

    /// Format version of the file.
    pub fn format_version(&self) -> u32 {
        self.header.version
    }

    /// How the case base was built.
    pub fn info(&self) -> &BuildInfo {
        &self.info
    }

    /// The distinct boards (per side to move), in the mover's point of view: the array the
    /// similarity scan runs over. Board `i`'s cases are `occurrences()[i]..occurrences()[i + 1]`.
    pub fn boards(&self) -> &[Planes] {
        self.section(self.header.boards_off, self.header.boards)
    }

    /// Where each board's cases start in [`CaseBase::metas`], one more entry at the end.
    pub fn occurrences(&self) -> &[u32] {
        self.section(self.header.occ_off, self.header.boards + 1)
    }

    /// Everything else about each case, grouped by board.
    pub fn metas(&self) -> &[CaseMeta] {
        self.section(self.header.metas_off, self.header.cases)
    }

    /// The index of case `case`'s board in [`CaseBase::boards`].
    pub(crate) fn board_of(&self, case: usize) -> usize {
        self.occurrences().partition_point(|&o| o as usize <= case) - 1
    }

    /// The board of case `case`.
    pub fn case_board(&self, case: usize) -> Planes {
        self.boards()[self.board_of(case)]
    }

    /// The runs of boards of equal material, in board order (see [`Bucket`]).
    pub fn buckets(&self) -> &[Bucket] {
        self.section(self.header.buckets_off, self.header.buckets)
    }

    /// The boards of bucket `i`.
    pub(crate) fn bucket_boards(&self, i: usize) -> Range<usize> {
        let buckets = self.buckets();
        let start = buckets[i].first as usize;
        let side_end = if start < self.header.white_boards as usize {
            self.header.white_boards as usize
        } else {
            self.header.boards as usize
        };
        let end = buckets
            .get(i + 1)
            .map_or(side_end, |b| (b.first as usize).min(side_end));
        start..end
    }

    /// Indices of the distinct boards on which `side` was to move.
    pub fn board_segment(&self, side: Color) -> Range<usize> {
        let w = self.header.white_boards as usize;
        match side {
            Color::White => 0..w,
            Color::Black => w..self.boards().len(),
        }
    }

    /// The approximate index's lists of the boards on which `side` was to move, if the file
    /// has them (see [`lists`]).
    pub fn lists(&self, side: Color) -> Option<lists::Lists<'_>> {
        let n = self.header.lists as usize;
        if n == 0 {
            return None;
        }
        let [centroids, starts, cases, members, copies] = self.header.lists_parts()?;
        let both = lists::Lists {
            centroids: self.section(centroids.0, 2 * n as u64),
            starts: self.section(starts.0, 2 * (n as u64 + 1)),
            cases: self.section(cases.0, 2 * n as u64),
            members: self.section(members.0, self.header.boards),
            boards: self.section(copies.0, self.header.boards),
        };
        Some(both.side(
            n,
            usize::from(side == Color::Black),
            self.board_segment(side),
        ))
    }

    /// What is wrong with the lists, if anything.
    fn lists_inconsistent(&self) -> Option<String> {
        [Color::White, Color::Black].into_iter().find_map(|side| {
            let lists = self.lists(side)?;
            let what = lists.inconsistent(self.board_segment(side), self.occurrences())?;
            Some(format!("{what} ({side})"))
        })
    }

    /// The position index's directory (see [`index::moves_at`]).
    pub(crate) fn index_directory(&self) -> &[u32] {
        let entries = self.header.dir_entries().unwrap_or(0);
        self.section(self.header.dir_off, entries)
    }

    /// The game table.
    pub fn game_records(&self) -> &[GameRecord] {
        self.section(self.header.games_off, self.header.games)
    }

    /// The pattern counts, sorted by key.
    pub(crate) fn pattern_counts(&self) -> &[PatternCount] {
        self.section(self.header.patterns_off, self.header.patterns)
    }

    /// The fitted log-strength of each pattern, parallel to [`CaseBase::pattern_counts`].
    pub(crate) fn pattern_strengths(&self) -> &[f32] {
        self.section(self.header.strengths_off, self.header.patterns)
    }

    /// The pattern counts and strengths, for lookups.
    pub fn patterns(&self) -> PatternTable<'_> {
        PatternTable::new(self.pattern_counts(), self.pattern_strengths())
    }

    /// Each case's clock ([`CaseClock`]), in case order; empty in a case base built from games
    /// without clocks.
    pub fn clocks(&self) -> &[CaseClock] {
        self.section(self.header.clocks_off, self.header.clock_count())
    }

    /// How long the player of case `index` thought and the clock they had, when known.
    pub fn case_clock(&self, index: usize) -> Option<crate::pgn::MoveClock> {
        self.clocks().get(index)?.get()
    }

    /// How many cases have a clock.
    pub fn timed_cases(&self) -> u64 {
        self.header.timed
    }

    /// The time control of game `index`, when known.
    pub fn time_control(&self, index: u32) -> Option<crate::pgn::TimeControl> {
        let controls: &[GameControl] =
            self.section(self.header.controls_off, self.header.control_count());
        controls.get(index as usize)?.get()
    }

    /// The policy's sections: keys, scales, rows (empty without a policy).
    fn policy_parts(&self) -> (&[u32], &[f32], &[i16]) {
        let n = self.header.policy_keys;
        match self.header.policy_parts() {
            Some([k, s, r]) if n > 0 => (
                self.section(k.0, n),
                self.section(s.0, n),
                self.section(r.0, n * self.header.policy_width),
            ),
            _ => (&[], &[], &[]),
        }
    }

    /// The fitted policy ([`policy`]), empty in a case base without one (version 3, or built
    /// without patterns).
    pub fn policy(&self) -> PolicyTable<'_> {
        let (keys, scales, rows) = self.policy_parts();
        PolicyTable::new(keys, scales, rows)
    }

    /// The position index, sorted by (position key, move).
    pub(crate) fn position_index(&self) -> &[IndexEntry] {
        self.section(self.header.index_off, self.header.index_entries)
    }

    /// A case base of only the cases of game `game` (with the pattern counts and position index
    /// those cases give): the baseline of the cases ablation, where everything learned from
    /// games but one game's worth is gone. It lives in a temporary file, removed at once (the
    /// map stays valid).
    pub fn one_game(&self, game: u32) -> Result<CaseBase, CaseBaseError> {
        let dir = tempfile::tempdir().map_err(|source| CaseBaseError::Write {
            name: "a temporary directory".into(),
            source,
        })?;
        let path = dir.path().join("one-game.cb");
        let mut writer = CaseBaseWriter::create(&path)?;
        let index = writer.copy_game(self, game)?;
        let mut cases = 0;
        let (occ, metas) = (self.occurrences(), self.metas());
        for (b, board) in self.boards().iter().enumerate() {
            let first = occ[b] as usize;
            for (case, &meta) in (first..).zip(&metas[first..occ[b + 1] as usize]) {
                if meta.game == game {
                    let meta = CaseMeta {
                        game: index,
                        ..meta
                    };
                    let clock = self.clocks().get(case).copied();
                    let clock = clock.unwrap_or(CaseClock::NONE);
                    writer.add_timed_case(self.mover(case), board, &meta, clock)?;
                    cases += 1;
                }
            }
        }
        let info = BuildInfo {
            tool: format!("precedent {}", env!("CARGO_PKG_VERSION")),
            sources: vec![format!("{}, game {game}", self.name)],
            stats: BuildStats {
                games_read: 1,
                games_used: 1,
                cases,
                ..BuildStats::default()
            },
            ..BuildInfo::default()
        };
        writer.finish(&info)?;
        let mut one = CaseBase::open(&path)?;
        one.name = format!("{} (game {game} only)", self.name);
        Ok(one)
    }

    /// The moves played in the position `pos` (White to move: the mover's point of view) and
    /// how often, from the position index.
    pub(crate) fn exact_moves(&self, pos: &shakmaty::Chess) -> Vec<(CaseMove, u32)> {
        self.exact_moves_without(pos, None)
    }

    /// [`CaseBase::exact_moves`] without the moves `without` leaves out.
    pub(crate) fn exact_moves_without(
        &self,
        pos: &shakmaty::Chess,
        without: Option<&Without>,
    ) -> Vec<(CaseMove, u32)> {
        let board = Planes::from_board(pos.board());
        let (rights, ep) = position_key(pos);
        let key = index::position_hash(&board, rights, ep);
        let mut moves: Vec<(CaseMove, u32)> =
            index::moves_at(self.position_index(), self.index_directory(), key)
                .iter()
                .map(|e| (e.mv, e.count))
                .collect();
        if let Some(w) = without {
            w.subtract(key, &mut moves);
        }
        moves
    }

    /// Indices of the cases in which `side` was to move.
    pub fn segment(&self, side: Color) -> Range<usize> {
        let w = self.header.white_cases as usize;
        match side {
            Color::White => 0..w,
            Color::Black => w..self.len(),
        }
    }

    /// The side that was to move in case `index`.
    pub fn mover(&self, index: usize) -> Color {
        Color::from_white(index < self.header.white_cases as usize)
    }

    /// The descriptive fields of a game; `None` if the index or its strings are out of range.
    pub fn game(&self, index: u32) -> Option<GameHeader> {
        let rec = self.game_records().get(index as usize)?;
        let pool = {
            let start = self.header.strings_off as usize;
            &self.backing.bytes()[start..start + self.header.strings_len as usize]
        };
        let mut at = usize::try_from(rec.strings).ok()?;
        let mut strings: [String; record::GAME_STRINGS] = Default::default();
        for s in &mut strings {
            let n = usize::from(*pool.get(at)?);
            let raw = pool.get(at + 1..at + 1 + n)?;
            *s = String::from_utf8_lossy(raw).into_owned();
            at += 1 + n;
        }
        let [white, black, date, event, site] = strings;
        let elo = |e: u16| (e != 0).then_some(e);
        Some(GameHeader {
            event,
            site,
            date,
            round: String::new(),
            white,
            black,
            white_elo: elo(rec.white_elo),
            black_elo: elo(rec.black_elo),
            result: GameResult::from_byte(rec.result),
            time_control: self.time_control(index),
        })
    }

    /// The rating of the player who moved in case `index`, if known.
    pub fn mover_elo(&self, index: usize) -> Option<u16> {
        let rec = self
            .game_records()
            .get(self.metas().get(index)?.game as usize)?;
        let elo = match self.mover(index) {
            Color::White => rec.white_elo,
            Color::Black => rec.black_elo,
        };
        (elo != 0).then_some(elo)
    }
}

/// The default case base, compiled into the binary (see `casebases/README.md`).
static EMBEDDED: &[u8] = include_bytes!("../../../casebases/default.cb.zst");

impl CaseBase {
    /// Loads the embedded default case base (decompressing it, about 45 MB).
    pub fn embedded() -> Result<CaseBase, CaseBaseError> {
        CaseBase::from_bytes("<embedded>", EMBEDDED)
    }
}

#[cfg(test)]
mod tests;
pub use build::{
    BuildConfig, BuildError, FitErrors, FitModel, Judge, build, is_held_out, main_player,
    nearest_names, player_names,
};
pub use pack::{decompressed, pack_and_compress};
pub use patterns::{LastMove, MoveContext};
pub use summary::summarise;

/// The header of a case-base file, checked (magic, version, length, trailer, checksum), with
/// its length and where the body ends.
fn read_header(name: &str, bytes: &[u8]) -> Result<(Header, usize, usize), CaseBaseError> {
    let name = name.to_string();
    let len = bytes.len() as u64;
    let corrupt = |what: String| CaseBaseError::Corrupt {
        name: name.clone(),
        what,
    };
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(CaseBaseError::NotACaseBase(name));
    }
    if bytes.len() < HEADER_LEN_V3 + TRAILER_LEN {
        return Err(CaseBaseError::Truncated {
            name,
            len,
            what: "shorter than the header".into(),
        });
    }
    let mut version = [0u8; 4];
    version.copy_from_slice(&bytes[8..12]);
    let version = u32::from_le_bytes(version);
    if !(OLDEST_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(CaseBaseError::Version {
            name,
            found: version,
        });
    }
    let head_len = header_len(version);
    if bytes.len() < head_len + TRAILER_LEN {
        return Err(CaseBaseError::Truncated {
            name,
            len,
            what: "shorter than the header".into(),
        });
    }
    let header = Header::decode(&bytes[..head_len]);
    if pack::is_packed(bytes) {
        return Err(corrupt(
            "packed sections in an uncompressed file (`precedent pack` writes zstd)".into(),
        ));
    }
    let body_end = bytes.len() - TRAILER_LEN;
    if &bytes[body_end + 8..] != TRAILER_MAGIC {
        return Err(CaseBaseError::Truncated {
            name,
            len,
            what: "the end-of-file trailer is missing".into(),
        });
    }
    let mut stored = [0u8; 8];
    stored.copy_from_slice(&bytes[body_end..body_end + 8]);
    if xxhash_rust::xxh3::xxh3_64(&bytes[..body_end]) != u64::from_le_bytes(stored) {
        return Err(CaseBaseError::Checksum(name));
    }
    Ok((header, head_len, body_end))
}

/// Checks the header's counts and that every section lies inside the body, aligned.
fn check_sections(
    name: &str,
    header: &Header,
    head_len: usize,
    body_end: usize,
) -> Result<(), CaseBaseError> {
    let corrupt = |what: String| CaseBaseError::Corrupt {
        name: name.to_string(),
        what,
    };
    if header.white_cases > header.cases {
        return Err(corrupt(format!(
            "{} white-mover cases of {}",
            header.white_cases, header.cases
        )));
    }
    if header.cases > u64::from(u32::MAX) || header.games > u64::from(u32::MAX) {
        return Err(corrupt("case or game count out of range".into()));
    }
    if header.boards > header.cases
        || header.white_boards > header.boards
        || header.white_boards > header.white_cases
        || header.boards - header.white_boards > header.cases - header.white_cases
    {
        return Err(corrupt(format!(
            "{} boards ({} White's) for {} cases ({} White's)",
            header.boards, header.white_boards, header.cases, header.white_cases
        )));
    }
    let dir_entries = header
        .dir_entries()
        .ok_or_else(|| corrupt(format!("index directory of {} bits", header.dir_bits)))?;
    let section = |what: &str, off: u64, count: u64, size: u64| -> Result<(), CaseBaseError> {
        let end = count.checked_mul(size).and_then(|n| n.checked_add(off));
        match end {
            Some(end) if off >= head_len as u64 && end <= body_end as u64 => {
                if size > 1 && !off.is_multiple_of(ALIGN as u64) {
                    Err(corrupt(format!("{what} section is not aligned")))
                } else {
                    Ok(())
                }
            }
            _ => Err(corrupt(format!("{what} section lies outside the file"))),
        }
    };
    section("boards", header.boards_off, header.boards, 32)?;
    section("occurrence", header.occ_off, header.boards + 1, 4)?;
    section("case", header.metas_off, header.cases, 12)?;
    section("bucket", header.buckets_off, header.buckets, 16)?;
    section("index-directory", header.dir_off, dir_entries, 4)?;
    section("game", header.games_off, header.games, 24)?;
    section("string", header.strings_off, header.strings_len, 1)?;
    section("build-info", header.info_off, header.info_len, 1)?;
    section("pattern", header.patterns_off, header.patterns, 16)?;
    section("position-index", header.index_off, header.index_entries, 16)?;
    section("pattern-strength", header.strengths_off, header.patterns, 4)?;
    if header.policy_keys > 0 {
        if header.policy_width != policy::INPUTS as u64 {
            return Err(corrupt(format!(
                "a policy of {} inputs a move (this build reads {})",
                header.policy_width,
                policy::INPUTS
            )));
        }
        let parts = header
            .policy_parts()
            .ok_or_else(|| corrupt("policy sizes overflow".into()))?;
        for ((off, bytes), what) in
            parts
                .into_iter()
                .zip(["policy key", "policy scale", "policy row"])
        {
            section(what, off, bytes / 2, 2)?;
        }
    }
    if header.timed > header.cases {
        return Err(corrupt(format!(
            "{} timed cases of {}",
            header.timed, header.cases
        )));
    }
    if header.timed > 0 {
        section("clock", header.clocks_off, header.clock_count(), 8)?;
        let games = header.control_count();
        section("time-control", header.controls_off, games, 8)?;
    }
    if header.lists > 0 {
        if header.lists > lists::MAX_LISTS {
            return Err(corrupt(format!("{} lists a side", header.lists)));
        }
        let parts = header
            .lists_parts()
            .ok_or_else(|| corrupt("list sizes overflow".into()))?;
        let names = [
            "centroid",
            "list start",
            "list case",
            "list member",
            "listed board",
        ];
        for ((off, bytes), what) in parts.into_iter().zip(names) {
            section(what, off, bytes / 4, 4)?;
        }
    }
    Ok(())
}
