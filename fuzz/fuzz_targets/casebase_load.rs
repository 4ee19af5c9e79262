//! Loading a case base from untrusted bytes (`setoption name CaseBase`, `--casebase`), then
//! everything the engine reads from it, down to a decision on it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use precedent::casebase::CaseBase;
use precedent::reuse::{ReuseConfig, reuse};
use precedent::search::Limits;

use precedent::case::Planes;
use precedent::retrieve::{Mode, ScanLimits, scan, scan_bounded, scan_lists, segments};
use shakmaty::{CastlingMode, Chess, Color, Position};

const MAGIC: &[u8] = b"PRECEDNT";
const TRAILER_MAGIC: &[u8] = b"PRCDTEND";
/// The shortest header (format version 3; version 4's is 256 bytes).
const HEADER_LEN: usize = 192;
const TRAILER_LEN: usize = 16;

/// Rewrites the checksum trailer so mutations reach the header and bounds checks behind it.
fn fix_trailer(data: &[u8]) -> Vec<u8> {
    let mut bytes = data.to_vec();
    if bytes.len() >= HEADER_LEN + TRAILER_LEN && bytes.starts_with(MAGIC) {
        let body_end = bytes.len() - TRAILER_LEN;
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..body_end]);
        bytes[body_end..body_end + 8].copy_from_slice(&sum.to_le_bytes());
        bytes[body_end + 8..].copy_from_slice(TRAILER_MAGIC);
    }
    bytes
}

fn touch(cb: &CaseBase) {
    let n = cb.len();
    let _ = (cb.name(), cb.is_empty(), cb.format_version(), cb.info());
    let boards = cb.boards();
    let metas = cb.metas();
    let _ = cb.policy().len();
    assert!(boards.len() <= n, "boards() length");
    assert_eq!(cb.occurrences().len(), boards.len() + 1, "occurrences() length");
    assert_eq!(metas.len(), n, "metas() length");
    let games = cb.game_count();
    assert_eq!(cb.game_records().len(), games, "game_records() length");
    let mut acc = 0u64;
    for b in boards.iter().take(4096) {
        acc ^= b.occupied();
        let _ = b.mirrored();
        let _ = b.to_board();
    }
    for (i, m) in metas.iter().enumerate().take(4096) {
        acc ^= u64::from(m.game) ^ u64::from(m.ply);
        let _ = m.mv.uci();
        let _ = m.mv.mirrored().uci();
        let _ = cb.mover(i);
        let _ = cb.mover_elo(i);
    }
    std::hint::black_box(acc);
    for i in 0..games.min(4096) {
        let _ = cb.game(i as u32);
    }
    for i in [games, games + 1, u32::MAX as usize] {
        let _ = cb.game(i as u32);
    }
    for i in [n, n + 1, usize::MAX] {
        let _ = cb.mover_elo(i);
    }
    let (w, b) = (cb.segment(Color::White), cb.segment(Color::Black));
    assert!(w.end <= n && b.start == w.end && b.end == n, "segments {w:?} {b:?} of {n}");

    // What the engine does with a loaded case base: decide a move on it.
    if n <= 1 << 16 {
        let after_e4 = {
            let mut p = Chess::default();
            let m = p.legal_moves()[0];
            p.play_unchecked(m);
            p
        };
        for mode in [Mode::Normalised, Mode::Thesis] {
            let cfg = ReuseConfig {
                mode,
                seed: Some(1),
                ..ReuseConfig::default()
            };
            for pos in [&Chess::default(), &after_e4] {
                let _ = reuse(cb, pos, &cfg, Limits::default(), CastlingMode::Standard);
                // The bounded retrieval trusts the loaded buckets: it must agree with the scan.
                let segs = segments(cb, Planes::from_board(pos.board()), pos.turn(), mode);
                for k in [1, 64] {
                    let limits = ScanLimits { k, seed: 1, deadline: None, stop: None, probes: 0 };
                    assert_eq!(scan_bounded(&segs, &limits).hits, scan(&segs, &limits).hits);
                    // The lists (if any) were checked on loading: probing them must not fail
                    // (a resealed file may list a board twice or copy it wrongly: then the
                    // cases differ from the exact scan's, which the loader does not promise).
                    let all = ScanLimits { probes: usize::MAX, ..limits };
                    let _ = scan_lists(&segs, &all);
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(cb) = CaseBase::from_bytes("fuzz", data) {
        touch(&cb);
    }
    let fixed = fix_trailer(data);
    if fixed != data
        && let Ok(cb) = CaseBase::from_bytes("fuzz", &fixed)
    {
        touch(&cb);
    }
});
