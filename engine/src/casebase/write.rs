//! Writing a case base: cases stream to spill files while a build runs, and the final file is
//! assembled at the end into a temporary file renamed over the output, so an interrupted or
//! failed build never leaves a half-written case base.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use shakmaty::Color;
use xxhash_rust::xxh3::Xxh3;

use super::derive;
use super::format::{ALIGN, FORMAT_VERSION, HEADER_LEN, Header, TRAILER_MAGIC, align_up};
use super::index::IndexEntry;
use super::patterns::{PatternCount, PatternCounter};
use super::record::{CaseMeta, GAME_STRINGS, GameRecord};
use super::{BuildInfo, CaseBaseError};
use crate::board::Planes;

/// Spill file for one array of records.
struct Spill {
    file: BufWriter<File>,
    len: u64,
}

impl Spill {
    fn new(dir: &Path) -> io::Result<Spill> {
        Ok(Spill {
            file: BufWriter::with_capacity(1 << 20, tempfile::tempfile_in(dir)?),
            len: 0,
        })
    }

    fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.len += bytes.len() as u64;
        self.file.write_all(bytes)
    }

    fn into_reader(self) -> io::Result<File> {
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        Ok(file)
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

/// The spilled parts of a case base, ready to be assembled into the final file.
struct Sections {
    header: Header,
    info_json: Vec<u8>,
    boards: [Spill; 2],
    metas: [Spill; 2],
    games: Spill,
    strings: Spill,
    patterns: Vec<PatternCount>,
    strengths: Vec<f32>,
    index: Vec<IndexEntry>,
}

impl Sections {
    /// Writes the whole file to `inner` and returns it, flushed.
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
        for spill in self.boards {
            sink.copy(spill.into_reader()?)?;
        }
        sink.pad_to(header.metas_off)?;
        for spill in self.metas {
            sink.copy(spill.into_reader()?)?;
        }
        sink.pad_to(header.games_off)?;
        sink.copy(self.games.into_reader()?)?;
        sink.pad_to(header.strings_off)?;
        sink.copy(self.strings.into_reader()?)?;
        sink.pad_to(header.patterns_off)?;
        sink.put(bytemuck::cast_slice(&self.patterns))?;
        sink.pad_to(header.index_off)?;
        sink.put(bytemuck::cast_slice(&self.index))?;
        sink.pad_to(header.strengths_off)?;
        sink.put(bytemuck::cast_slice(&self.strengths))?;
        let digest = sink.hasher.digest();
        sink.inner.write_all(&digest.to_le_bytes())?;
        sink.inner.write_all(TRAILER_MAGIC)?;
        sink.inner.into_inner().map_err(|e| e.into_error())
    }
}

/// Streams cases and games into a new case-base file.
pub struct CaseBaseWriter {
    out: PathBuf,
    boards: [Spill; 2],
    metas: [Spill; 2],
    games: Spill,
    strings: Spill,
    game_count: u64,
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
            games: Spill::new(&dir).map_err(err)?,
            strings: Spill::new(&dir).map_err(err)?,
            game_count: 0,
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
    pub fn add_game(
        &mut self,
        mut record: GameRecord,
        strings: [&str; GAME_STRINGS],
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
        let res = self.games.push(bytemuck::bytes_of(&record));
        res.map_err(|e| self.err(e))?;
        self.game_count += 1;
        Ok(index)
    }

    /// Adds a case whose position had `mover` to move; `board` and `meta` are already in the
    /// mover's point of view.
    pub fn add_case(
        &mut self,
        mover: Color,
        board: &Planes,
        meta: &CaseMeta,
    ) -> Result<(), CaseBaseError> {
        let side = usize::from(mover == Color::Black);
        let res = self.boards[side]
            .push(bytemuck::bytes_of(board))
            .and_then(|()| self.metas[side].push(bytemuck::bytes_of(meta)));
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

    /// Derives the pattern counts and the position index from every case added, assembles the
    /// file and renames it over the output. A name ending in `.zst` is written zstd-compressed
    /// (what the embedded default case base uses).
    pub fn finish(mut self, info: &BuildInfo) -> Result<(), CaseBaseError> {
        let out = self.out.clone();
        let err = |source| CaseBaseError::Write {
            name: out.display().to_string(),
            source,
        };
        let (patterns, strengths, index) = self.derive().map_err(err)?;
        // Pruned after the strength fit, which needs every pattern of every legal move.
        let min = info.options.min_pattern_count;
        let (patterns, strengths): (Vec<PatternCount>, Vec<f32>) = patterns
            .into_iter()
            .zip(strengths)
            .filter(|(p, _)| p.available >= min)
            .unzip();
        let info_json = serde_json::to_vec(info).map_err(|e| err(io::Error::other(e)))?;
        let white = self.boards[0].len / 32;
        let cases = white + self.boards[1].len / 32;
        let mut header = Header {
            version: FORMAT_VERSION,
            cases,
            white_cases: white,
            games: self.game_count,
            info_off: HEADER_LEN as u64,
            info_len: info_json.len() as u64,
            ..Header::default()
        };
        header.boards_off = align_up(header.info_off + header.info_len);
        header.metas_off = align_up(header.boards_off + cases * 32);
        header.games_off = align_up(header.metas_off + cases * 12);
        header.strings_off = align_up(header.games_off + self.game_count * 24);
        header.strings_len = self.strings.len;
        header.patterns_off = align_up(header.strings_off + header.strings_len);
        header.patterns = patterns.len() as u64;
        header.index_off = align_up(header.patterns_off + header.patterns * 16);
        header.index_entries = index.len() as u64;
        header.strengths_off = align_up(header.index_off + header.index_entries * 16);

        let compress = out.extension().is_some_and(|e| e == "zst");
        let tmp = tempfile::Builder::new()
            .prefix(".precedent-build-")
            .tempfile_in(out_dir(&out))
            .map_err(err)?;
        let file = tmp.as_file().try_clone().map_err(err)?;
        let sections = Sections {
            header,
            info_json,
            boards: self.boards,
            metas: self.metas,
            games: self.games,
            strings: self.strings,
            patterns,
            strengths,
            index,
        };
        if compress {
            let mut enc = zstd::Encoder::new(file, 19).map_err(err)?;
            enc.long_distance_matching(true).map_err(err)?;
            enc.multithread(2).map_err(err)?;
            sections
                .assemble(enc)
                .and_then(|enc| enc.finish())
                .map_err(err)?;
        } else {
            sections.assemble(file).map_err(err)?;
        }
        tmp.as_file().sync_all().map_err(err)?;
        // A temporary file is private (0600); a case base is an ordinary, shareable file.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let perms = std::fs::Permissions::from_mode(0o644);
            tmp.as_file().set_permissions(perms).map_err(err)?;
        }
        tmp.persist(&out).map_err(|e| err(e.error))?;
        Ok(())
    }
}

impl CaseBaseWriter {
    /// The pattern counts and position index of the cases spilled so far, read back a run at a
    /// time.
    fn derive(&mut self) -> io::Result<(Vec<PatternCount>, Vec<f32>, Vec<IndexEntry>)> {
        let mut counter = PatternCounter::new();
        let mut pairs = Vec::new();
        self.for_each_run(|boards, metas| {
            let (c, p) = derive::derive(boards, metas);
            counter.absorb(c);
            pairs.extend(p);
        })?;
        let (patterns, index) = derive::finish(counter, pairs);
        // The strengths need every case again, with the finished counts.
        let cases = ((self.boards[0].len + self.boards[1].len) / 32) as usize;
        let mut fitter = derive::StrengthFit::new(&patterns, cases);
        self.for_each_run(|boards, metas| fitter.add(boards, metas))?;
        let strengths = fitter.fit();
        Ok((patterns, strengths, index))
    }

    /// Calls `f` with every case spilled so far (White's, then Black's), a run of boards and
    /// their records at a time.
    fn for_each_run(&mut self, mut f: impl FnMut(&[Planes], &[CaseMeta])) -> io::Result<()> {
        const RUN: usize = 1 << 20;
        let (mut boards, mut metas): (Vec<Planes>, Vec<CaseMeta>) = (Vec::new(), Vec::new());
        for side in 0..2 {
            let total = (self.boards[side].len / 32) as usize;
            let mut done = 0usize;
            // Boards and metas are read in the same runs, one spill after the other.
            while done < total {
                let n = (total - done).min(RUN);
                boards.clear();
                metas.clear();
                read_range(&mut self.boards[side], done, n, &mut boards)?;
                read_range(&mut self.metas[side], done, n, &mut metas)?;
                f(&boards, &metas);
                done += n;
            }
        }
        Ok(())
    }
}

/// Reads records `start..start + n` of a spill into `out`, leaving the spill ready to append
/// or assemble.
fn read_range<T: bytemuck::Pod>(
    spill: &mut Spill,
    start: usize,
    n: usize,
    out: &mut Vec<T>,
) -> io::Result<()> {
    spill.file.flush()?;
    let size = size_of::<T>();
    let file = spill.file.get_mut();
    file.seek(io::SeekFrom::Start((start * size) as u64))?;
    out.resize(n, T::zeroed());
    file.read_exact(bytemuck::cast_slice_mut(out))?;
    file.seek(io::SeekFrom::End(0))?;
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
