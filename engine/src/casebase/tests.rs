use std::io::Write;

use shakmaty::{Board, Chess, Color, Square};

use super::*;
use crate::case::CaseMove;
use crate::case::Planes;

fn sample_info() -> BuildInfo {
    BuildInfo {
        tool: "test".into(),
        sources: vec!["fixture.pgn".into()],
        ..BuildInfo::default()
    }
}

/// Writes a case base with one game and three cases (two White, one Black to move).
fn write_sample(path: &Path) {
    let mut w = CaseBaseWriter::create(path).expect("writer");
    let record = GameRecord {
        key: 7,
        white_elo: 1500,
        black_elo: 0,
        result: GameResult::Draw.to_byte(),
        ..GameRecord::default()
    };
    let g = w
        .add_game(
            record,
            [
                "Alice",
                "Bob",
                "2024.01.02",
                "Test",
                "https://example.org/1",
            ],
            GameControl::default(),
        )
        .expect("game");
    let start = Planes::from_board(&Board::new());
    let mv = CaseMove::new(Square::E2, Square::E4, None, false);
    let meta = CaseMeta {
        game: g,
        ply: 0,
        mv,
        rights: 15,
        ep: NO_EP,
        last: Default::default(),
    };
    w.add_case(Color::White, &start, &meta).expect("case");
    w.add_case(
        Color::Black,
        &start.mirrored(),
        &CaseMeta { ply: 1, ..meta },
    )
    .expect("case");
    w.add_case(Color::White, &start, &CaseMeta { ply: 2, ..meta })
        .expect("case");
    w.finish(&sample_info()).expect("finish");
}

fn load_err(bytes: &[u8]) -> String {
    match CaseBase::from_bytes("sample", bytes) {
        Ok(_) => panic!("a damaged case base was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn written_case_base_reads_back_with_white_movers_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let cb = CaseBase::open(&path).expect("open");
    assert_eq!(
        (cb.len(), cb.game_count(), cb.format_version()),
        (3, 1, FORMAT_VERSION)
    );
    assert_eq!(cb.segment(Color::White), 0..2);
    assert_eq!(cb.segment(Color::Black), 2..3);
    assert_eq!(
        cb.metas().iter().map(|m| m.ply).collect::<Vec<_>>(),
        vec![0, 2, 1]
    );
    // The two White cases share one board: stored once, with both cases.
    let start = Planes::from_board(&Board::new());
    assert_eq!(cb.boards(), &[start, start.mirrored()]);
    assert_eq!(cb.occurrences(), &[0, 2, 3]);
    assert_eq!((cb.board_of(1), cb.board_of(2)), (0, 1));
    assert_eq!(cb.case_board(2), start.mirrored());
    assert_eq!(cb.board_segment(Color::Black), 1..2);
    assert_eq!(cb.buckets().len(), 2, "one bucket a side");
    assert_eq!((cb.bucket_boards(0), cb.bucket_boards(1)), (0..1, 1..2));
    assert_eq!(cb.buckets()[0].material, start.material());
    let game = cb.game(0).expect("game 0");
    assert_eq!(
        (
            game.white.as_str(),
            game.black.as_str(),
            game.white_elo,
            game.black_elo
        ),
        ("Alice", "Bob", Some(1500), None)
    );
    assert_eq!(
        (game.site.as_str(), game.result.as_pgn()),
        ("https://example.org/1", "1/2-1/2")
    );
    assert_eq!(cb.game(1), None);
    assert_eq!(cb.mover_elo(0), Some(1500));
    assert_eq!(cb.mover_elo(2), None);
    assert_eq!(cb.info(), &sample_info());
}

#[test]
fn compressed_case_base_reads_back_identically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (plain, packed) = (dir.path().join("s.cb"), dir.path().join("s.cb.zst"));
    write_sample(&plain);
    write_sample(&packed);
    let a = CaseBase::open(&plain).expect("plain");
    let b = CaseBase::open(&packed).expect("compressed");
    assert_eq!(a.boards(), b.boards());
    assert_eq!(a.metas(), b.metas());
    let bytes = std::fs::read(&packed).expect("read");
    assert_eq!(
        CaseBase::from_bytes("embedded", &bytes)
            .expect("from bytes")
            .metas(),
        a.metas()
    );
}

#[test]
fn rejects_truncated_case_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let bytes = std::fs::read(&path).expect("read");
    for cut in [10, 100, 200, bytes.len() / 2, bytes.len() - 1] {
        let err = load_err(&bytes[..cut]);
        assert!(
            err.contains("truncated") || err.contains("trailer"),
            "cut at {cut}: {err}"
        );
    }
}

#[test]
fn rejects_case_base_with_a_flipped_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let bytes = std::fs::read(&path).expect("read");
    for at in [20, 200, bytes.len() - 40] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        let err = load_err(&damaged);
        assert!(
            err.contains("checksum") || err.contains("corrupt"),
            "byte {at}: {err}"
        );
    }
}

#[test]
fn rejects_other_format_versions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let mut bytes = std::fs::read(&path).expect("read");
    bytes[8] = 99;
    assert!(load_err(&bytes).contains("version 99"));
}

#[test]
fn rejects_files_that_are_not_case_bases() {
    assert!(load_err(b"").contains("not a Precedent case base"));
    assert!(load_err(b"[Event \"x\"]\n1. e4 e5 *\n").contains("not a Precedent case base"));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("empty.cb");
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(b""))
        .expect("create");
    let err = CaseBase::open(&path)
        .expect_err("empty file accepted")
        .to_string();
    assert!(err.contains("not a Precedent case base"), "{err}");
    let missing = CaseBase::open(&dir.path().join("missing.cb"))
        .expect_err("missing file")
        .to_string();
    assert!(
        missing.contains("missing.cb") && missing.contains("cannot read"),
        "{missing}"
    );
}

/// Rewrites `bytes` with `edit` applied and the checksum re-sealed, as a hand-made file would be.
fn resealed(bytes: &[u8], edit: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    edit(&mut bytes);
    let end = bytes.len() - 16;
    let digest = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..end + 8].copy_from_slice(&digest.to_le_bytes());
    bytes
}

/// The header field at byte `at` of a case-base file.
fn header_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[test]
fn rejects_header_pointing_outside_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let bytes = std::fs::read(&path).expect("read");
    // Claim a billion cases and re-seal the checksum: bounds checks must still catch it.
    let bytes = resealed(&bytes, |b| {
        b[16..24].copy_from_slice(&1_000_000_000u64.to_le_bytes())
    });
    assert!(load_err(&bytes).contains("outside the file"));
}

#[test]
fn rejects_tables_that_would_answer_wrongly_without_failing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let bytes = std::fs::read(&path).expect("read");
    let u64_at = |at: usize| header_u64(&bytes, at);
    assert!(CaseBase::from_bytes("sample", &bytes).is_ok());
    // A bucket claiming another material would let bounded retrieval prune the best boards.
    let buckets = u64_at(160) as usize;
    let wrong_material = resealed(&bytes, |b| b[buckets + 4] += 1);
    assert!(
        load_err(&wrong_material).contains("outside its material bucket"),
        "{}",
        load_err(&wrong_material)
    );
    // A piece code 7 is no piece the similarity and the material agree on.
    let boards = u64_at(40) as usize;
    let code_seven = resealed(&bytes, |b| {
        for plane in 1..4 {
            b[boards + 8 * plane] |= 1 << 2; // c1 in r0, r1 and r2
        }
    });
    assert!(load_err(&code_seven).contains("malformed"));
    // A directory whose slots do not start where their keys do would miss positions: a case
    // base of 40 positions (one game's moves) has slots to shift.
    let many = dir.path().join("many.cb");
    let mut w = CaseBaseWriter::create(&many)
        .expect("writer")
        .without_patterns();
    let g = w
        .add_game(
            GameRecord::default(),
            ["a", "b", "", "", ""],
            GameControl::default(),
        )
        .expect("game");
    let mut pos = shakmaty::Chess::default();
    for ply in 0..40u16 {
        use shakmaty::Position;
        let legal = pos.legal_moves();
        let m = legal[usize::from(ply) * 7 % legal.len()];
        let white = pos.turn() == Color::White;
        let board = Planes::from_board(pos.board());
        let (from, to) = (m.from().expect("not a drop"), m.to());
        let mv = CaseMove::new(from, to, None, false);
        let meta = CaseMeta {
            game: g,
            ply,
            mv: if white { mv } else { mv.mirrored() },
            rights: 0,
            ep: NO_EP,
            last: Default::default(),
        };
        let board = if white { board } else { board.mirrored() };
        w.add_case(pos.turn(), &board, &meta).expect("case");
        pos.play_unchecked(m);
    }
    w.finish(&sample_info()).expect("finish");
    let bytes = std::fs::read(&many).expect("read");
    assert!(CaseBase::from_bytes("many", &bytes).is_ok());
    let (dir, bits) = (
        header_u64(&bytes, 176) as usize,
        header_u64(&bytes, 184) as u32,
    );
    assert!(bits >= 2, "{bits} directory bits");
    let shifted = resealed(&bytes, |b| {
        let slots = 1usize << bits;
        for p in 1..slots {
            b[dir + 4 * p..dir + 4 * p + 4].copy_from_slice(&0u32.to_le_bytes());
        }
    });
    let err = load_err(&shifted);
    assert!(err.contains("directory does not match its keys"), "{err}");
}

#[test]
fn interrupted_writer_leaves_no_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("never.cb");
    {
        let mut w = CaseBaseWriter::create(&path).expect("writer");
        let start = Planes::from_board(&Board::new());
        w.add_case(Color::White, &start, &CaseMeta::default())
            .expect("case");
        // Dropped without finish(): a failed build.
    }
    assert!(!path.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("dir").count(),
        0,
        "temporary files left behind"
    );
}

#[test]
fn compressed_garbage_is_refused_without_decompressing_it_all() {
    // 64 MiB of zeros compress to a few kilobytes; the loader must stop at the first bytes.
    let zeros = vec![0u8; 64 << 20];
    let bomb = zstd::encode_all(&zeros[..], 3).expect("compress");
    assert!(bomb.len() < 100_000);
    let err = load_err(&bomb);
    assert!(err.contains("not a Precedent case base"), "{err}");
    // A valid case base followed by more data than its header declares.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let mut bytes = std::fs::read(&path).expect("read");
    bytes.extend(std::iter::repeat_n(0u8, 1 << 20));
    let packed = zstd::encode_all(&bytes[..], 3).expect("compress");
    assert!(
        load_err(&packed).contains("after the end"),
        "{}",
        load_err(&packed)
    );
}

#[test]
fn packed_case_bases_load_to_the_same_bytes_and_damage_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = dir.path().join("s.cb");
    write_sample(&plain);
    let bytes = std::fs::read(&plain).expect("read");
    let packed = pack::pack_and_compress(&bytes, 3, 1).expect("pack");
    let a = CaseBase::open(&plain).expect("plain");
    let b = CaseBase::from_bytes("packed", &packed).expect("packed loads");
    assert_eq!(a.boards(), b.boards());
    assert_eq!(a.metas(), b.metas());
    // Packing twice is refused; a packed file that was not compressed cannot be mapped.
    let mut twice = pack::decompressed(packed.clone()).expect("zstd");
    assert!(pack::is_packed(&twice));
    assert!(pack::pack(&mut twice).is_err());
    let raw = dir.path().join("packed.cb");
    std::fs::write(&raw, &twice).expect("write");
    let err = match CaseBase::open(&raw) {
        Ok(_) => panic!("a packed uncompressed file was mapped"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("packed"), "{err}");
    // A flipped byte in a packed section: the checksum of the unpacked file catches it.
    let h = header_u64(&twice, 48) as usize; // the case records
    let mut damaged = twice.clone();
    damaged[h + 1] ^= 0x04;
    let err = load_err(&damaged);
    assert!(err.contains("checksum"), "{err}");
    // Section offsets outside the file: a one-line error, not a panic.
    let mut outside = twice;
    outside[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
    let err = load_err(&outside);
    assert!(err.contains("outside") || err.contains("corrupt"), "{err}");
}

#[test]
fn the_embedded_case_base_packs_and_unpacks_exactly() {
    let original = pack::decompressed(EMBEDDED.to_vec()).expect("zstd");
    let mut unpacked = original.clone();
    pack::unpack(&mut unpacked).expect("unpack");
    assert!(!pack::is_packed(&unpacked));
    let again = pack::pack_and_compress(&unpacked, 1, 2).expect("pack");
    let a = CaseBase::from_bytes("again", &again).expect("loads");
    let b = CaseBase::embedded().expect("embedded");
    assert_eq!(a.boards(), b.boards());
    assert_eq!(a.metas(), b.metas());
    assert_eq!(a.position_index(), b.position_index());
    assert_eq!(a.pattern_strengths(), b.pattern_strengths());
}

#[test]
fn a_written_case_base_fits_a_policy_that_prefers_what_was_played() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let cb = CaseBase::open(&path).expect("open");
    let policy = cb.policy();
    // The start position's twenty moves (White's, and Black's seen from its side, the same).
    assert_eq!(policy.len(), 20);
    let pos = shakmaty::Chess::default();
    let mut inputs = Vec::new();
    policy::inputs(&pos, Default::default(), &mut inputs);
    let best = pos
        .legal_moves()
        .into_iter()
        .max_by(|a, b| {
            let s = |m: &shakmaty::Move| policy.score(policy::move_key(m), &inputs);
            s(a).total_cmp(&s(b))
        })
        .expect("moves");
    assert_eq!(best.to(), Square::E4, "e4 was played every time");
    // Written twice, the same bytes: the fit is seeded and ordered.
    let again = dir.path().join("t.cb");
    write_sample(&again);
    let (a, b) = (std::fs::read(&path), std::fs::read(&again));
    assert_eq!(a.expect("read"), b.expect("read"));
}

#[test]
fn a_version_3_case_base_still_loads_without_a_policy() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/v3-small.cb"
    ));
    let cb = CaseBase::open(path).expect("a version-3 file loads");
    assert_eq!((cb.format_version(), cb.len()), (3, 27));
    assert!(cb.policy().is_empty());
    let info = summary::summarise(&cb, 3);
    assert_eq!(info.policy_moves, 0);
    assert!(
        info.to_string()
            .contains("policy         none (format version 3")
    );
    // Packed and compressed, it still loads to the same cases.
    let bytes = std::fs::read(path).expect("read");
    let packed = pack::pack_and_compress(&bytes, 3, 1).expect("pack");
    let b = CaseBase::from_bytes("packed v3", &packed).expect("packed v3 loads");
    assert_eq!(b.metas(), cb.metas());
}

#[test]
fn a_policy_of_another_width_or_out_of_order_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.cb");
    write_sample(&path);
    let bytes = std::fs::read(&path).expect("read");
    // Another width: the file no longer ends where its header says.
    let width = resealed(&bytes, |b| b[208..216].copy_from_slice(&7u64.to_le_bytes()));
    assert!(
        load_err(&width).contains("corrupt case base"),
        "{}",
        load_err(&width)
    );
    let off = header_u64(&bytes, 192) as usize;
    let swapped = resealed(&bytes, |b| {
        let (first, second) = (b[off..off + 4].to_vec(), b[off + 4..off + 8].to_vec());
        b[off..off + 4].copy_from_slice(&second);
        b[off + 4..off + 8].copy_from_slice(&first);
    });
    assert!(
        load_err(&swapped).contains("policy"),
        "{}",
        load_err(&swapped)
    );
    let outside = resealed(&bytes, |b| {
        b[200..208].copy_from_slice(&1_000_000u64.to_le_bytes());
    });
    assert!(
        load_err(&outside).contains("policy"),
        "{}",
        load_err(&outside)
    );
}

/// Builds a case base from PGN text, in `dir`.
fn built_from(dir: &Path, pgn: &str) -> CaseBase {
    built_with(dir, pgn, BuildOptions::default())
}

#[test]
fn clocked_games_build_case_bases_that_remember_each_moves_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = "[Event \"a\"]\n[White \"w\"]\n[Black \"b\"]\n[TimeControl \"180+2\"]\n\n\
        1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Nf3 { [%clk 0:02:51] } \
        2... Nc6 { [%clk 0:03:01.5] } 3. Bb5 { [%clk 0:02:30] } 1-0\n\n\
        [Event \"b\"]\n[White \"x\"]\n[Black \"y\"]\n\n1. d4 d5 2. c4 *\n";
    let cb = built_from(dir.path(), pgn);
    assert_eq!((cb.format_version(), cb.len(), cb.timed_cases()), (6, 8, 5));
    let tc = cb.time_control(0).expect("the first game's time control");
    assert_eq!((tc.base, tc.increment), (180, 2));
    assert_eq!(cb.time_control(1), None);
    // Each case's clock, found by its game and ply: (left, spent) in tenths of a second.
    type Seen = (u32, u16, Option<(u32, u32)>);
    let mut seen: Vec<Seen> = (0..cb.len())
        .map(|i| {
            let meta = cb.metas()[i];
            let clock = cb.case_clock(i).map(|c| (c.left, c.spent));
            (meta.game, meta.ply, clock)
        })
        .collect();
    seen.sort();
    let want = [
        (0, 0, Some((1800, 0))),
        (0, 1, Some((1800, 0))),
        (0, 2, Some((1800, 110))),
        (0, 3, Some((1800, 5))),
        (0, 4, Some((1710, 230))),
        (1, 0, None),
        (1, 1, None),
        (1, 2, None),
    ];
    assert_eq!(seen, want);
    let header = cb.game(0).expect("game 0");
    assert_eq!(header.time_control, Some(tc));
    let info = summary::summarise(&cb, 3).to_string();
    assert!(
        info.contains("clocks         5 of 8 cases timed (time controls: 180+2 5)"),
        "{info}"
    );
    // The cases ablation's one-game case base keeps its game's clocks.
    let one = cb.one_game(0).expect("one game");
    assert_eq!((one.len(), one.timed_cases()), (5, 5));
    assert_eq!(one.time_control(0), Some(tc));
    // A header claiming more timed cases than cases is refused.
    let bytes = std::fs::read(dir.path().join("games.cb")).expect("read");
    let damaged = resealed(&bytes, |b| b[232..240].copy_from_slice(&9u64.to_le_bytes()));
    assert!(
        load_err(&damaged).contains("9 timed cases of 8"),
        "{}",
        load_err(&damaged)
    );
    let outside = resealed(&bytes, |b| {
        b[216..224].copy_from_slice(&1_000_000u64.to_le_bytes());
    });
    assert!(
        load_err(&outside).contains("clock section"),
        "{}",
        load_err(&outside)
    );
}

#[test]
fn games_without_clocks_and_old_case_bases_have_no_clock_sections() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = built_from(dir.path(), "[Event \"b\"]\n\n1. d4 d5 2. c4 *\n");
    assert_eq!((cb.format_version(), cb.timed_cases()), (6, 0));
    assert!(cb.clocks().is_empty() && cb.case_clock(0).is_none());
    let info = summary::summarise(&cb, 3).to_string();
    assert!(info.contains("clocks         none (its games"), "{info}");
    let embedded = CaseBase::embedded().expect("the embedded case base");
    assert_eq!((embedded.format_version(), embedded.timed_cases()), (4, 0));
    assert!(embedded.clocks().is_empty());
}

#[test]
fn lists_whose_member_leaves_its_side_or_whose_count_is_absurd_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = BuildOptions {
        lists: Some(2),
        ..BuildOptions::default()
    };
    let pgn = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 *\n";
    let cb = built_with(dir.path(), pgn, options);
    assert_eq!(cb.lists(Color::Black).map(|l| l.len()), Some(2));
    assert!(
        summary::summarise(&cb, 3)
            .to_string()
            .contains("lists          2 a side")
    );
    let bytes = std::fs::read(dir.path().join("games.cb")).expect("read");
    let header = format::Header::decode(&bytes[..format::HEADER_LEN]);
    let [.., members, _] = header.lists_parts().expect("parts");
    let at = members.0 as usize;
    let outside = resealed(&bytes, |b| {
        b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes())
    });
    let err = load_err(&outside);
    assert!(
        err.contains("a list member lies outside its side's boards (white)"),
        "{err}"
    );
    let absurd = resealed(&bytes, |b| {
        b[248..256].copy_from_slice(&(1u64 << 40).to_le_bytes())
    });
    assert!(
        load_err(&absurd).contains("1099511627776 lists a side"),
        "{}",
        load_err(&absurd)
    );
    // A section that runs past the file's end, a board listed twice: refused.
    let past = resealed(&bytes, |b| {
        let end = (b.len() - 16 - 64) as u64;
        b[240..248].copy_from_slice(&end.to_le_bytes());
    });
    assert!(
        load_err(&past).contains("section lies outside the file"),
        "{}",
        load_err(&past)
    );
    let twice = resealed(&bytes, |b| {
        let first: [u8; 4] = b[at..at + 4].try_into().expect("4 bytes");
        b[at + 4..at + 8].copy_from_slice(&first);
    });
    assert!(
        load_err(&twice).contains("a board is listed twice"),
        "{}",
        load_err(&twice)
    );
    // Without lists, nothing is listed.
    let plain = built_with(dir.path(), pgn, BuildOptions::default());
    assert!(plain.lists(Color::White).is_none());
}

/// Builds a case base from PGN text with these options, in `dir`.
fn built_with(dir: &Path, pgn: &str, options: BuildOptions) -> CaseBase {
    let input = dir.join("games.pgn");
    std::fs::write(&input, pgn).expect("write pgn");
    let out = dir.join("games.cb");
    let config = build::BuildConfig {
        inputs: vec![input.display().to_string()],
        out: out.clone(),
        options,
        strict: true,
        judge: None,
        fit: None,
        fit_errors: None,
        memory: super::MEMORY,
    };
    build::build(&config, &mut |_| {}).expect("build");
    CaseBase::open(&out).expect("open")
}

#[test]
fn a_game_replays_from_its_cases_and_each_case_stands_as_in_its_game() {
    // Castling both ways, en passant by White, a promotion by Black.
    let moves = "e4 d5 e5 f5 exf6 Nxf6 Nf3 e6 Bb5+ c6 O-O Bd6 d4 Qc7 Ba4 O-O Bg5 b5 Bb3 a5 \
        a4 bxa4 Bc4 Ra6 Nc3 Rb6 Qd2 Rxb2 Rfb1 Rxb1+ Rxb1 a3 h3 a2 Kh1 a1=Q";
    let mut pos = Chess::default();
    let mut want = Vec::new();
    for san in moves.split_whitespace() {
        let m = san
            .parse::<shakmaty::san::San>()
            .expect("san")
            .to_move(&pos)
            .expect("legal");
        want.push(m);
        pos.play_unchecked(m);
    }
    let pgn = format!(
        "[Event \"t\"]\n[White \"Alpha\"]\n[Black \"Beta\"]\n[Result \"0-1\"]\n\n{moves} 0-1\n\n"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let generic = built_with(dir.path(), &pgn, BuildOptions::default());
    let replayed = generic.replay(0);
    assert_eq!(replayed.moves, want);
    assert!(replayed.complete);
    // Every case's position is the game's before its move, its move the game's.
    let mut pos = Chess::default();
    for (ply, m) in want.iter().enumerate() {
        let case = generic
            .game_cases(0)
            .into_iter()
            .find(|&i| usize::from(generic.metas()[i].ply) == ply)
            .expect("a case a ply");
        let (at, played) = generic.case_position(case).expect("position");
        assert_eq!(at.board(), pos.board(), "ply {ply}");
        assert_eq!(at.turn(), pos.turn(), "ply {ply}");
        assert_eq!(
            at.castles().castling_rights(),
            pos.castles().castling_rights()
        );
        assert_eq!(played, *m, "ply {ply}");
        pos.play_unchecked(*m);
    }
    // A player's file has only their plies; the opponent's are bridged.
    for name in ["alpha", "beta"] {
        let options = BuildOptions {
            players: vec![name.into()],
            ..BuildOptions::default()
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let theirs = built_with(dir.path(), &pgn, options);
        let replayed = theirs.replay(0);
        assert!(replayed.complete, "{name}");
        // Black's file ends with its last move, White's with White's last.
        let n = if name == "alpha" {
            want.len() - 1
        } else {
            want.len()
        };
        assert_eq!(replayed.moves, want[..n], "{name}");
    }
    // No such game: nothing.
    assert_eq!(generic.replay(7), Replayed::default());
}

/// `games` games of random legal moves from the start (seeded), half of them with a clock on
/// every move, as PGN.
fn random_games(games: usize, plies: usize) -> String {
    use shakmaty::Position;
    use shakmaty::san::San;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut pgn = String::new();
    for g in 0..games {
        let timed = g % 2 == 0;
        pgn += &format!("[Event \"r{g}\"]\n[White \"w{g}\"]\n[Black \"b{g}\"]\n");
        if timed {
            pgn += "[TimeControl \"300+3\"]\n";
        }
        pgn += "\n";
        let mut pos = Chess::default();
        for ply in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // The first moves from a few choices, so that openings repeat across games.
            let choices = if ply < 4 {
                legal.len().min(3)
            } else {
                legal.len()
            };
            let m = legal[(state % choices as u64) as usize];
            if ply % 2 == 0 {
                pgn += &format!("{}. ", ply / 2 + 1);
            }
            pgn += &San::from_move(&pos, m).to_string();
            if timed {
                pgn += &format!(" {{ [%clk 0:04:{:02}] }}", 59 - ply % 60);
            }
            pgn += " ";
            pos.play_unchecked(m);
        }
        pgn += "*\n\n";
    }
    pgn
}

#[test]
fn a_build_larger_than_its_memory_writes_the_same_file_through_the_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("games.pgn");
    std::fs::write(&input, random_games(60, 70)).expect("write pgn");
    let built = |name: &str, memory: u64, no_patterns: bool| {
        let out = dir.path().join(name);
        let config = build::BuildConfig {
            inputs: vec![input.display().to_string()],
            out: out.clone(),
            options: BuildOptions {
                fit_positions: 20,
                no_patterns,
                // The approximate index too, in one of the two.
                lists: Some(if no_patterns { 16 } else { 0 }),
                ..BuildOptions::default()
            },
            strict: true,
            judge: None,
            fit: None,
            fit_errors: None,
            memory,
        };
        let summary = build::build(&config, &mut |_| {}).expect("build");
        let names: Vec<&str> = summary.phases.iter().map(|p| p.name).collect();
        (std::fs::read(&out).expect("built"), names)
    };
    for no_patterns in [false, true] {
        let (in_memory, phases) = built("memory.cb", MEMORY, no_patterns);
        assert!(!phases.contains(&"split"), "{phases:?}");
        // 2,000 cases a side in 16 KB a partition: many partitions, every board in one.
        let (on_disk, phases) = built("disk.cb", 32 << 10, no_patterns);
        assert!(
            phases.contains(&"split")
                && phases.contains(&"merge")
                && phases.contains(&"lists") == no_patterns,
            "{phases:?}"
        );
        assert!(
            in_memory == on_disk,
            "the files differ (no patterns: {no_patterns})"
        );
    }
    let cb = CaseBase::open(&dir.path().join("disk.cb")).expect("opens");
    assert!(cb.timed_cases() > 1000 && cb.timed_cases() < cb.len() as u64);
    assert!(cb.boards().len() < cb.len(), "no board repeats");
    // Its lists hold each board of their side once, copied beside its index, and its cases.
    for side in [Color::White, Color::Black] {
        let lists = cb.lists(side).expect("lists");
        assert_eq!(lists.len(), 16);
        let mut members = lists.members.to_vec();
        members.sort_unstable();
        let segment: Vec<u32> = cb.board_segment(side).map(|b| b as u32).collect();
        assert_eq!(members, segment);
        let occ = cb.occurrences();
        for l in 0..16 {
            let range = lists.range(l);
            let cases: u32 = lists.members[range.clone()]
                .iter()
                .map(|&m| occ[m as usize + 1] - occ[m as usize])
                .sum();
            assert_eq!(cases, lists.cases[l]);
            for (&m, b) in lists.members[range.clone()]
                .iter()
                .zip(&lists.boards[range])
            {
                assert_eq!(cb.boards()[m as usize], *b);
            }
        }
    }
    // Nothing is left beside the outputs.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["disk.cb", "games.pgn", "memory.cb"]);
}
