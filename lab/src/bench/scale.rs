//! The scale benchmark (`precedent bench --scale N`): a case base of N cases made from real
//! positions, and what it costs to build, hold and query.
//!
//! The real positions are a pool case base (every game of the inputs but a held-out 10 %, built
//! without move patterns). A pool holds a few million cases; larger case bases are made of
//! *variants* of its cases, each a documented transformation that keeps a position's
//! material and shape statistics but makes it a different board:
//!
//! | variant bit | transformation |
//! |---|---|
//! | 0 | the board mirrored left to right (files a↔h), with the move, castling sides and en-passant file |
//! | 1 | knights and bishops exchanged |
//! | 2 | rooks and queens exchanged |
//! | 3 | the colours of the pieces exchanged (the ranks are not flipped) |
//!
//! Variant 0 is the pool itself; variants 1–15 follow, each over the whole pool, until N cases are
//! written (at most 16 × the pool's cases: a larger N writes that many and says so in the report's
//! case count). The queries are positions
//! of the held-out games, which no variant of any case comes from.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use shakmaty::{Color, Square};

use precedent::case::CaseMove;
use precedent::case::Planes;
use precedent::casebase::{
    BuildInfo, BuildStats, CaseBase, CaseBaseError, CaseBaseWriter, CaseMeta, NO_EP, Phase,
};

use super::{BoundedReport, bounded};

/// Number of distinct variants of a case.
pub const VARIANTS: u64 = 16;

/// Variant `v` of a board (see the module documentation).
pub fn variant_board(board: Planes, v: u64) -> Planes {
    let mut b = board;
    if v & 1 != 0 {
        // Reversing all 64 bits reverses the bytes (ranks) and the bits in each (files);
        // swapping the bytes back leaves the files mirrored.
        let flip = |x: u64| x.reverse_bits().swap_bytes();
        b = Planes {
            white: flip(b.white),
            r0: flip(b.r0),
            r1: flip(b.r1),
            r2: flip(b.r2),
        };
    }
    // Role codes: knight 2 and bishop 3 differ in bit 0, as do rook 4 and queen 5.
    if v & 2 != 0 {
        b.r0 ^= b.r1 & !b.r2;
    }
    if v & 4 != 0 {
        b.r0 ^= b.r2 & !b.r1;
    }
    if v & 8 != 0 {
        b.white = b.occupied() & !b.white;
    }
    b
}

/// Variant `v` of a case's record: files mirrored with the board (the move, the castling sides
/// and the en-passant file); piece exchanges leave the record as it is.
pub fn variant_meta(meta: CaseMeta, v: u64) -> CaseMeta {
    if v & 1 == 0 {
        return meta;
    }
    let mirror = |sq: Square| Square::from_coords(sq.file().flip_horizontal(), sq.rank());
    let mv = meta.mv;
    let rights = meta.rights;
    CaseMeta {
        mv: CaseMove::new(
            mirror(mv.from()),
            mirror(mv.to()),
            mv.promotion(),
            mv.is_castle(),
        ),
        // Bits: own short, own long, their short, their long.
        rights: (rights & 0b1010) >> 1 | (rights & 0b0101) << 1,
        ep: if meta.ep == NO_EP { NO_EP } else { 7 - meta.ep },
        ..meta
    }
}

/// What building the scaled case base measured.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleBuild {
    /// Cases written (pool cases × variants, cut at N).
    pub cases: u64,
    /// Cases of the pool.
    pub pool_cases: u64,
    /// Variants used (1 = the pool alone).
    pub variants: u64,
    /// Seconds from the first case written to the file in place (sorting, deduplication,
    /// buckets, position index, writing).
    pub seconds: f64,
    /// Cases per second of that build.
    pub cases_per_second: f64,
    /// How long each phase of writing the file took (`sort`, `patterns and index`, …).
    pub phases: Vec<Phase>,
    /// Peak resident memory of the process when the file is in place (MB): the build's, with
    /// the pool's pages it read (the scans after it map the new file, whose pages count too).
    pub peak_rss_mb: f64,
}

/// How the scaled case base is written.
#[derive(Clone, Copy, Debug)]
pub struct Scaling {
    /// With the move patterns and their fits (else without).
    pub patterns: bool,
    /// The memory its cases are arranged in (bytes; more are spilled to disk).
    pub memory: u64,
}

/// Writes `cases` cases made from the pool's cases and their variants to `out`.
pub fn build_scaled(
    pool: &CaseBase,
    cases: u64,
    out: &Path,
    how: Scaling,
) -> Result<ScaleBuild, CaseBaseError> {
    let started = Instant::now();
    let mut writer = CaseBaseWriter::create(out)?.with_memory(how.memory);
    if !how.patterns {
        writer = writer.without_patterns();
    }
    for g in 0..pool.game_count() as u32 {
        writer.copy_game(pool, g)?;
    }
    let occ = pool.occurrences();
    let metas = pool.metas();
    let mut written = 0u64;
    let mut variants = 0u64;
    let size = pool.len() as u64;
    for v in 0..VARIANTS {
        if written == cases || size == 0 {
            break;
        }
        variants = v + 1;
        // The pool's cases are sorted by material: a pass that needs fewer than all of them
        // takes evenly spaced ones, a sample of every material.
        let want = (cases - written).min(size);
        for (b, &board) in pool.boards().iter().enumerate() {
            let board = variant_board(board, v);
            let first = occ[b] as usize;
            for (case, &meta) in (first..).zip(&metas[first..occ[b + 1] as usize]) {
                let i = case as u64;
                if (i + 1) * want / size == i * want / size {
                    continue;
                }
                let meta = variant_meta(meta, v);
                writer.add_case(pool.mover(case), &board, &meta)?;
                written += 1;
            }
        }
    }
    let info = BuildInfo {
        tool: format!("precedent {} (bench --scale)", env!("CARGO_PKG_VERSION")),
        sources: vec![format!(
            "{} and {} variants (bench --scale)",
            pool.name(),
            variants
        )],
        stats: BuildStats {
            games_read: pool.game_count() as u64,
            games_used: pool.game_count() as u64,
            cases: written,
            ..BuildStats::default()
        },
        ..BuildInfo::default()
    };
    let phases = writer.finish_timed(&info, &mut |_| {})?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(ScaleBuild {
        cases: written,
        pool_cases: pool.len() as u64,
        variants,
        seconds,
        cases_per_second: written as f64 / seconds.max(1e-9),
        phases,
        peak_rss_mb: memory_mb().1,
    })
}

/// The whole scale measurement.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleReport {
    /// The scaled case base.
    pub file: PathBuf,
    /// How it was built.
    pub build: ScaleBuild,
    /// Distinct boards stored.
    pub distinct_boards: u64,
    /// Size of the file, bytes.
    pub bytes: u64,
    /// Bytes of case base per case written.
    pub bytes_per_case: f64,
    /// Seconds to open and validate it (map, checksum, tables).
    pub load_seconds: f64,
    /// Resident memory after loading and one full scan (MB): the case base is mapped.
    pub rss_mb: f64,
    /// Peak resident memory of the process so far (MB), the build included.
    pub peak_rss_mb: f64,
    /// Full scan against bounded retrieval on the held-out queries.
    pub retrieval: BoundedReport,
}

/// Resident and peak resident memory of this process, in MB (`/proc/self/status`; 0 where
/// that is not available).
pub fn memory_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// How the scaled case base's retrieval is timed.
#[derive(Clone, Copy, Debug)]
pub struct Timing<'a> {
    /// The queries: a board as it stands and the side to move.
    pub queries: &'a [(Planes, Color)],
    /// Top-k.
    pub k: usize,
    /// Threads of the retrieval.
    pub threads: usize,
    /// Lists probed a side by the approximate retrieval, if the file has lists (one timing
    /// each).
    pub probes: &'a [usize],
}

/// Builds the scaled case base from `pool`, loads it, and times exact top-k retrieval (and the
/// approximate one if it has lists) as `timing` says.
pub fn run(
    pool: &CaseBase,
    cases: u64,
    out: &Path,
    how: Scaling,
    timing: Timing<'_>,
) -> Result<ScaleReport, CaseBaseError> {
    let Timing {
        queries,
        k,
        threads,
        probes,
    } = timing;
    let build = build_scaled(pool, cases, out, how)?;
    let started = Instant::now();
    let cb = CaseBase::open(out)?;
    let load_seconds = started.elapsed().as_secs_f64();
    let retrieval = bounded(&cb, queries, k, threads, probes);
    let (rss_mb, peak_rss_mb) = memory_mb();
    Ok(ScaleReport {
        file: out.to_path_buf(),
        distinct_boards: cb.boards().len() as u64,
        bytes: cb.byte_len() as u64,
        bytes_per_case: cb.byte_len() as f64 / build.cases.max(1) as f64,
        build,
        load_seconds,
        rss_mb,
        peak_rss_mb,
        retrieval,
    })
}

/// A board as a 768-bit binary code (twelve 64-bit planes, bit = square) whose Hamming
/// distance to another board's code is `2 × (256 − similarity)`: top-k similarity is k-nearest
/// neighbours in Hamming space, which vector engines index (docs/scaling.md).
///
/// Per square, 6 bits say the piece type (one-hot; none for an empty square) and 6 the colour
/// (white 000000, black 111111, empty 111000). Two different types differ in 2 type bits, an
/// empty square and a piece in 1; the colours differ in 6 bits, an empty square and either colour
/// in 3. So a square costs 0 (same piece, both empty), 2 (same colour, other type: 4 − 3 = 1),
/// 4 (one empty: 4 − 2), 6 (same type, other colour: 4 − 1) or 8 (neither: 4 − 0) bits, twice its
/// shortfall from the score 4.
pub fn binary_code(board: Planes) -> [u64; 12] {
    let occupied = board.occupied();
    let black = occupied & !board.white;
    let mut code = [0u64; 12];
    for role in 1..=6u64 {
        let pick = |plane: u64, bit: u64| if role & bit != 0 { plane } else { !plane };
        code[role as usize - 1] =
            occupied & pick(board.r0, 1) & pick(board.r1, 2) & pick(board.r2, 4);
    }
    code[6..9].fill(!board.white);
    code[9..12].fill(black);
    code
}

/// Hamming distance of two [`binary_code`]s.
pub fn hamming(a: &[u64; 12], b: &[u64; 12]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Board, Role};

    #[test]
    fn hamming_distance_of_the_codes_is_twice_the_shortfall_of_the_similarity() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let mut random_board = |pieces: usize| {
            let mut board = Board::empty();
            for _ in 0..pieces {
                let sq = Square::new(rng.random_range(0..64));
                let role = Role::ALL[rng.random_range(0..6)];
                let color = Color::from_white(rng.random_bool(0.5));
                board.set_piece_at(sq, shakmaty::Piece { color, role });
            }
            board
        };
        let mut boards = vec![Board::new(), Board::empty()];
        boards.extend((0..300).map(|i| random_board(i % 40)));
        for a in &boards {
            let (pa, ca) = (Planes::from_board(a), binary_code(Planes::from_board(a)));
            for b in boards.iter().step_by(7) {
                let pb = Planes::from_board(b);
                let sim = precedent::case::similarity_naive(a, b);
                assert_eq!(sim, precedent::case::similarity(&pa, &pb));
                assert_eq!(hamming(&ca, &binary_code(pb)), 2 * (256 - sim));
            }
        }
    }

    #[test]
    fn variants_are_distinct_boards_with_the_same_number_of_pieces() {
        let board = Planes::from_board(&Board::new());
        let after = Planes::from_board(
            &"rnbqkb1r/pppp1ppp/5n2/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR"
                .parse::<shakmaty::fen::Fen>()
                .expect("fen")
                .into_setup()
                .board,
        );
        let mut seen = std::collections::HashSet::new();
        for v in 0..VARIANTS {
            let b = variant_board(after, v);
            assert_eq!(b.occupied().count_ones(), after.occupied().count_ones());
            assert!(seen.insert(b), "variant {v} repeats another");
        }
        // The start position is symmetric: mirroring alone changes nothing but the king/queen
        // files; exchanging rooks and queens changes it.
        assert_ne!(variant_board(board, 4), board);
        assert_eq!(
            variant_board(variant_board(after, 15), 15),
            after,
            "an involution"
        );
        let knights = variant_board(board, 2).to_board();
        assert_eq!(
            knights.by_role(Role::Bishop),
            Board::new().by_role(Role::Knight)
        );
    }

    #[test]
    fn mirrored_records_mirror_the_move_and_the_castling_sides() {
        let meta = CaseMeta {
            mv: CaseMove::new(Square::E1, Square::G1, None, true),
            rights: 0b0001,
            ep: 2,
            ..CaseMeta::default()
        };
        let m = variant_meta(meta, 1);
        assert_eq!((m.mv.from(), m.mv.to()), (Square::D1, Square::B1));
        assert_eq!((m.rights, m.ep), (0b0010, 5));
        assert_eq!(variant_meta(meta, 14), meta);
    }
}
