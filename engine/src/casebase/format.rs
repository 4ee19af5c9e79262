//! The file layout of a case base, version 6. All integers little-endian.
//!
//! ```text
//! 0    magic "PRECEDNT"            8 bytes
//! 8    format version             u32
//! 12   packed                     u32   0; 1 in a file packed for distribution (see pack.rs)
//! 16   cases                      u64
//! 24   white-mover cases          u64   cases [0, w) had White to move, [w, cases) Black
//! 32   games                      u64
//! 40   boards offset              u64   boards × 32-byte Planes (mover's point of view), distinct
//! 48   metas offset               u64   cases × 12-byte CaseMeta, grouped by board
//! 56   games offset               u64   games × 24-byte GameRecord
//! 64   strings offset             u64
//! 72   strings length             u64
//! 80   build-info offset          u64   JSON (BuildInfo)
//! 88   build-info length          u64
//! 96   patterns offset            u64   patterns × 16-byte PatternCount, sorted by key
//! 104  patterns                   u64
//! 112  position-index offset      u64   entries × 16-byte IndexEntry, sorted by (key, move)
//! 120  position-index entries     u64
//! 128  pattern-strength offset    u64   patterns × f32, the fitted log-strength of each pattern
//! 136  boards                     u64   distinct boards (per side to move)
//! 144  white-mover boards         u64   boards [0, wb) had White to move, [wb, boards) Black
//! 152  occurrences offset         u64   (boards + 1) × u32: board i's cases are [o[i], o[i+1])
//! 160  buckets offset             u64   buckets × 16-byte Bucket, in board order
//! 168  buckets                    u64
//! 176  index-directory offset     u64   (2^bits + 1) × u32: entries whose key starts with p
//!                                       are [d[p], d[p+1]) of the position index
//! 184  index-directory bits       u64
//! 192  policy offset              u64   keys × u32 (sorted), then (aligned) keys × f32 scales,
//!                                       then (aligned) keys × width × i16 rows (see policy.rs)
//! 200  policy keys                u64
//! 208  policy width               u64   inputs a row (policy::INPUTS; 0 without a policy)
//! 216  clocks offset              u64   cases × 8-byte CaseClock, in case order (timed files)
//! 224  controls offset            u64   games × 8-byte GameControl (timed files)
//! 232  timed cases                u64   cases with a clock; 0: no clock sections
//! 240  lists offset               u64   the approximate index (see lists.rs), five parts, each
//!                                       aligned, each White's then Black's: centroids × 32-byte
//!                                       Planes; (lists + 1) × u32 starts into the side's
//!                                       members; lists × u32 cases a list; boards × u32 members
//!                                       (board indices, list by list); boards × 32-byte Planes,
//!                                       the members' boards copied in the same order
//! 248  lists                      u64   lists a side; 0: no approximate index
//! …    sections, each starting on a 64-byte boundary
//! end-16  xxh3-64 of every byte before it   u64
//! end-8   trailer magic "PRCDTEND"
//! ```
//!
//! Boards and metas are separate flat arrays so the scan streams 32 bytes a board. Each board is
//! stored once per side to move, however many cases (games) reached it; its cases follow one
//! another in the meta array, and the occurrence table says where they start. Splitting by the
//! side that moved lets the thesis' literal mode compare each segment with the query or its
//! mirror image without a per-case flag. Within a side, boards are sorted by material (and
//! within a material by their first case, which keeps a game's boards together): a bucket
//! is a run of boards with the same [`crate::case::Material`], so that a retrieval can bound
//! the similarity of a whole bucket before touching it (see [`crate::retrieve`]). The pattern
//! counts and the position index are derived from the cases alone (see module `patterns` and
//! [`super::index`]).
//!
//! Version history: 1 had no pattern counts, no position index, and two zero bytes where a case
//! now keeps the opponent's last move; 2 stored a board per case, unsorted, and looked positions
//! up by binary search; 3 had a 192-byte header and no policy (it is still read: its policy is
//! empty); 4 had no clocks (it is still read: the bytes of its clock fields are reserved zeros);
//! 5 had no lists (it is still read: its list fields were reserved zeros).

/// First bytes of every case-base file.
pub const MAGIC: &[u8; 8] = b"PRECEDNT";
/// Last bytes of every case-base file.
pub const TRAILER_MAGIC: &[u8; 8] = b"PRCDTEND";
/// The version this build writes (and the newest it reads).
pub(crate) const FORMAT_VERSION: u32 = 6;
/// The oldest version this build reads.
pub(crate) const OLDEST_VERSION: u32 = 3;
/// Size of the fixed header of version 3, which starts every header.
pub const HEADER_LEN_V3: usize = 192;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 256;

/// Size of the header of a file of format `version`.
pub fn header_len(version: u32) -> usize {
    if version <= 3 {
        HEADER_LEN_V3
    } else {
        HEADER_LEN
    }
}
/// Size of the trailer (checksum + magic).
pub const TRAILER_LEN: usize = 16;
/// Alignment of every section.
pub(crate) const ALIGN: usize = 64;
/// First bytes of a zstd frame, to recognise a compressed case base.
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The fixed header, decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub cases: u64,
    pub white_cases: u64,
    pub games: u64,
    pub boards_off: u64,
    pub metas_off: u64,
    pub games_off: u64,
    pub strings_off: u64,
    pub strings_len: u64,
    pub info_off: u64,
    pub info_len: u64,
    pub patterns_off: u64,
    pub patterns: u64,
    pub index_off: u64,
    pub index_entries: u64,
    pub strengths_off: u64,
    pub boards: u64,
    pub white_boards: u64,
    pub occ_off: u64,
    pub buckets_off: u64,
    pub buckets: u64,
    pub dir_off: u64,
    pub dir_bits: u64,
    pub policy_off: u64,
    pub policy_keys: u64,
    pub policy_width: u64,
    pub clocks_off: u64,
    pub controls_off: u64,
    pub timed: u64,
    pub lists_off: u64,
    pub lists: u64,
}

impl Header {
    /// Encodes the header into its 256 bytes (the current version's).
    pub(crate) fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&self.version.to_le_bytes());
        let fields = [
            self.cases,
            self.white_cases,
            self.games,
            self.boards_off,
            self.metas_off,
            self.games_off,
            self.strings_off,
            self.strings_len,
            self.info_off,
            self.info_len,
            self.patterns_off,
            self.patterns,
            self.index_off,
            self.index_entries,
            self.strengths_off,
            self.boards,
            self.white_boards,
            self.occ_off,
            self.buckets_off,
            self.buckets,
            self.dir_off,
            self.dir_bits,
            self.policy_off,
            self.policy_keys,
            self.policy_width,
            self.clocks_off,
            self.controls_off,
            self.timed,
            self.lists_off,
            self.lists,
        ];
        for (i, v) in fields.iter().enumerate() {
            out[16 + 8 * i..24 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Decodes the fixed header; the caller has checked the magic and that `bytes` hold the
    /// header of its version ([`header_len`]); the fields a version 3 header lacks are 0.
    pub fn decode(bytes: &[u8]) -> Header {
        let mut v = [0u8; 4];
        v.copy_from_slice(&bytes[8..12]);
        let version = u32::from_le_bytes(v);
        let len = header_len(version).min(bytes.len());
        let u64_at = |at: usize| {
            if at + 8 > len {
                return 0;
            }
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(b)
        };
        Header {
            version,
            cases: u64_at(16),
            white_cases: u64_at(24),
            games: u64_at(32),
            boards_off: u64_at(40),
            metas_off: u64_at(48),
            games_off: u64_at(56),
            strings_off: u64_at(64),
            strings_len: u64_at(72),
            info_off: u64_at(80),
            info_len: u64_at(88),
            patterns_off: u64_at(96),
            patterns: u64_at(104),
            index_off: u64_at(112),
            index_entries: u64_at(120),
            strengths_off: u64_at(128),
            boards: u64_at(136),
            white_boards: u64_at(144),
            occ_off: u64_at(152),
            buckets_off: u64_at(160),
            buckets: u64_at(168),
            dir_off: u64_at(176),
            dir_bits: u64_at(184),
            policy_off: u64_at(192),
            policy_keys: u64_at(200),
            policy_width: u64_at(208),
            clocks_off: u64_at(216),
            controls_off: u64_at(224),
            timed: u64_at(232),
            // Reserved (zero) before version 6.
            lists_off: if version >= 6 { u64_at(240) } else { 0 },
            lists: if version >= 6 { u64_at(248) } else { 0 },
        }
    }
}

impl Header {
    /// The file size the header implies: the end of its last section plus the trailer.
    pub(crate) fn declared_len(&self) -> Option<u64> {
        let end = |off: u64, count: u64, size: u64| count.checked_mul(size)?.checked_add(off);
        let ends = [
            end(self.info_off, self.info_len, 1)?,
            end(self.boards_off, self.boards, 32)?,
            end(self.occ_off, self.boards.checked_add(1)?, 4)?,
            end(self.buckets_off, self.buckets, 16)?,
            end(self.dir_off, self.dir_entries()?, 4)?,
            end(self.metas_off, self.cases, 12)?,
            end(self.games_off, self.games, 24)?,
            end(self.strings_off, self.strings_len, 1)?,
            end(self.patterns_off, self.patterns, 16)?,
            end(self.index_off, self.index_entries, 16)?,
            end(self.strengths_off, self.patterns, 4)?,
            self.policy_end()?,
            end(self.clocks_off, self.clock_count(), 8)?,
            end(self.controls_off, self.control_count(), 8)?,
            self.lists_end()?,
            header_len(self.version) as u64,
        ];
        ends.into_iter().max()?.checked_add(TRAILER_LEN as u64)
    }
}

impl Header {
    /// Where the policy's keys, scales and rows lie (three ranges of byte offsets), `None` if
    /// the sizes overflow.
    pub(crate) fn policy_parts(&self) -> Option<[(u64, u64); 3]> {
        let keys = (self.policy_off, self.policy_keys.checked_mul(4)?);
        let scales_off = keys
            .0
            .checked_add(keys.1)?
            .checked_next_multiple_of(ALIGN as u64)?;
        let scales = (scales_off, self.policy_keys.checked_mul(4)?);
        let rows_off = scales
            .0
            .checked_add(scales.1)?
            .checked_next_multiple_of(ALIGN as u64)?;
        let rows = (
            rows_off,
            self.policy_keys
                .checked_mul(self.policy_width)?
                .checked_mul(2)?,
        );
        Some([keys, scales, rows])
    }

    /// The end of the policy's last part (its offset when it has no keys).
    fn policy_end(&self) -> Option<u64> {
        if self.policy_keys == 0 {
            return Some(self.policy_off);
        }
        let [_, _, (off, len)] = self.policy_parts()?;
        off.checked_add(len)
    }

    /// Where the lists' five parts lie (centroids, starts, case counts, members, boards: byte
    /// ranges), `None` if the sizes overflow.
    pub(crate) fn lists_parts(&self) -> Option<[(u64, u64); 5]> {
        let sides = self.lists.checked_mul(2)?;
        let sizes = [
            sides.checked_mul(32)?,
            sides.checked_add(2)?.checked_mul(4)?,
            sides.checked_mul(4)?,
            self.boards.checked_mul(4)?,
            self.boards.checked_mul(32)?,
        ];
        let mut parts = [(0, 0); 5];
        let mut off = self.lists_off;
        for (part, size) in parts.iter_mut().zip(sizes) {
            *part = (off, size);
            off = align_checked(off.checked_add(size)?)?;
        }
        Some(parts)
    }

    /// The end of the lists' last part (their offset when there are none).
    fn lists_end(&self) -> Option<u64> {
        if self.lists == 0 {
            return Some(self.lists_off);
        }
        let [.., (off, len)] = self.lists_parts()?;
        off.checked_add(len)
    }

    /// Clock records: one a case in a timed file, none otherwise.
    pub(crate) fn clock_count(&self) -> u64 {
        if self.timed > 0 { self.cases } else { 0 }
    }

    /// Time-control records: one a game in a timed file, none otherwise.
    pub(crate) fn control_count(&self) -> u64 {
        if self.timed > 0 { self.games } else { 0 }
    }

    /// Entries of the index directory: 2^bits + 1 (`None` if the bits are out of range).
    pub(crate) fn dir_entries(&self) -> Option<u64> {
        (self.dir_bits <= MAX_DIR_BITS).then(|| (1u64 << self.dir_bits) + 1)
    }
}

/// Most bits of the index directory (a directory of 2^32 entries would index 4 G positions).
pub(crate) const MAX_DIR_BITS: u64 = 32;

/// Rounds up to the section alignment, `None` past `u64::MAX`.
fn align_checked(n: u64) -> Option<u64> {
    n.checked_next_multiple_of(ALIGN as u64)
}

/// Rounds up to the section alignment.
pub(crate) fn align_up(n: u64) -> u64 {
    n.div_ceil(ALIGN as u64) * ALIGN as u64
}
