//! Opening PGN inputs: a path (plain or zstd-compressed) or `-` for stdin, with a byte counter
//! for progress and a flag that tells a failing source from a malformed game.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

/// An input that could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened.
    #[error("{name}: cannot open: {source}")]
    Open {
        /// The input's path as given.
        name: String,
        /// The I/O error.
        source: io::Error,
    },
    /// Reading or decompressing failed part-way (a truncated or corrupt `.zst`, an I/O error).
    #[error("{name}: read error after {offset} bytes: {source}")]
    Read {
        /// The input's path as given (`-` = stdin).
        name: String,
        /// Raw bytes read before the failure (compressed bytes, for `.zst`).
        offset: u64,
        /// The I/O or decompression error.
        source: io::Error,
    },
}

/// Shared counters of an input: raw bytes consumed and whether the source failed.
#[derive(Clone, Default)]
pub struct InputState {
    bytes: Rc<Cell<u64>>,
    failed: Rc<Cell<bool>>,
}

impl InputState {
    /// Raw (compressed, for `.zst`) bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.get()
    }

    /// Whether the underlying source returned an error (as opposed to a PGN syntax problem).
    pub fn failed(&self) -> bool {
        self.failed.get()
    }
}

/// Counts the raw bytes a source delivers.
struct Counting<R> {
    inner: R,
    state: InputState,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.state.bytes.set(self.state.bytes.get() + n as u64);
        Ok(n)
    }
}

/// Marks the state as failed when the (decompressed) source errors.
struct Guarded<R> {
    inner: R,
    state: InputState,
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner
            .read(buf)
            .inspect_err(|_| self.state.failed.set(true))
    }
}

/// An opened input.
pub struct Input {
    /// The name as given (`-` for stdin).
    pub name: String,
    /// Size in bytes, when known (files).
    pub size: Option<u64>,
    /// The decompressed PGN text.
    pub reader: Box<dyn Read>,
    /// Progress and failure state.
    pub state: InputState,
}

/// Opens `name`: `-` is stdin; a name ending in `.zst` (or a file starting with the zstd magic)
/// is decompressed on the fly.
pub fn open_input(name: &str) -> Result<Input, InputError> {
    let open_err = |source| InputError::Open {
        name: name.to_string(),
        source,
    };
    let state = InputState::default();
    let (raw, size): (Box<dyn Read>, Option<u64>) = if name == "-" {
        (Box::new(io::stdin().lock()), None)
    } else {
        let path = Path::new(name);
        if path.is_dir() {
            return Err(open_err(io::Error::other("is a directory")));
        }
        let file = File::open(path).map_err(open_err)?;
        let size = file.metadata().ok().map(|m| m.len());
        (Box::new(file), size)
    };
    let mut counted = BufReader::with_capacity(
        1 << 16,
        Counting {
            inner: raw,
            state: state.clone(),
        },
    );
    let compressed = name.ends_with(".zst") || {
        let head = io::BufRead::fill_buf(&mut counted).map_err(open_err)?;
        head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
    };
    let reader: Box<dyn Read> = if compressed {
        // zstd's default window limit (128 MiB) decodes Lichess dumps and refuses frames that
        // would make the decoder allocate gigabytes.
        Box::new(zstd::Decoder::with_buffer(counted).map_err(open_err)?)
    } else {
        Box::new(counted)
    };
    let reader = Box::new(Guarded {
        inner: reader,
        state: state.clone(),
    });
    Ok(Input {
        name: name.to_string(),
        size,
        reader,
        state,
    })
}
