use std::collections::BTreeSet;
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::*;
use crate::casebase::build::{BuildConfig, build};

/// The fixture's case base: 27 cases from 4 games (see tests/build_cli.rs for the games).
fn fixture_cb(dir: &Path) -> CaseBase {
    let out = dir.join("fx.cb");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/small.pgn");
    let config = BuildConfig {
        inputs: vec![fixture.display().to_string()],
        out: out.clone(),
        options: Default::default(),
        strict: false,
        judge: None,
        fit: None,
        fit_errors: None,
        memory: crate::casebase::MEMORY,
    };
    build(&config, &mut |_| {}).expect("fixture builds");
    CaseBase::open(&out).expect("fixture case base opens")
}

fn pos(fen: &str) -> Chess {
    let fen: Fen = fen.parse().expect("test FEN");
    fen.into_position(CastlingMode::Standard)
        .expect("legal test FEN")
}

fn config(k: usize, mode: Mode, seed: u64) -> ReuseConfig {
    ReuseConfig {
        k,
        mode,
        seed: Some(seed),
        ..ReuseConfig::default()
    }
}

#[test]
fn start_position_replays_one_of_the_exact_cases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = fixture_cb(dir.path());
    let mut seen = BTreeSet::new();
    for seed in 0..60 {
        let d = reuse(
            &cb,
            &Chess::default(),
            &config(1, Mode::Normalised, seed),
            Limits::default(),
            CastlingMode::Standard,
        )
        .expect("a move");
        let top = d.top_case().expect("a case");
        // Games 1–3 start from the initial position: three exact matches.
        assert_eq!((d.score256, d.ties, top.exact), (256, 3, true));
        assert_eq!(top.case_move, d.bestmove, "identical move wins");
        seen.insert(d.bestmove.clone());
    }
    // 1. e4 (games 1, 3) and 1. d4 (game 2): the tie is broken both ways.
    assert_eq!(
        seen,
        BTreeSet::from(["d2d4".to_string(), "e2e4".to_string()])
    );
}

#[test]
fn black_to_move_is_mirrored_to_the_movers_view() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = fixture_cb(dir.path());
    let after_e4 = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let d = reuse(
        &cb,
        &after_e4,
        &config(32, Mode::Normalised, 1),
        Limits::default(),
        CastlingMode::Standard,
    )
    .expect("a move");
    // Two exact cases (games 1 and 3: 1... e5 and 1... c5), reported in Black's orientation.
    let exact: BTreeSet<&str> = d
        .cases
        .iter()
        .filter(|c| c.exact)
        .map(|c| c.case_move.as_str())
        .collect();
    assert_eq!(exact, BTreeSet::from(["c7c5", "e7e5"]));
    assert!(
        d.bestmove == "e7e5" || d.bestmove == "c7c5",
        "{}",
        d.bestmove
    );
    assert!(d.cases.iter().all(|c| c.mover == "black" || !c.exact));
}

#[test]
fn thesis_mode_retrieves_cases_of_the_other_side() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = fixture_cb(dir.path());
    // The initial board with Black to move: in the thesis' literal mode the White-to-move
    // start cases match it perfectly; their 1. e4 / 1. d4 adapt to Black's nearest move.
    let black_first = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
    let d = reuse(
        &cb,
        &black_first,
        &config(1, Mode::Thesis, 3),
        Limits::default(),
        CastlingMode::Standard,
    )
    .expect("a move");
    let top = d.top_case().expect("a case");
    assert_eq!(
        (d.score256, top.mover.as_str(), top.exact),
        (256, "white", false)
    );
    // e2e4 → e7e5 (A = 5/14 + 1/14), d2d4 → d7d5 likewise.
    assert_eq!(
        d.bestmove,
        if top.case_move == "e2e4" {
            "e7e5"
        } else {
            "d7d5"
        }
    );
}

#[test]
fn votes_sum_to_one_share_and_favour_the_most_supported_move() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = fixture_cb(dir.path());
    let d = reuse(
        &cb,
        &Chess::default(),
        &config(27, Mode::Normalised, 5),
        Limits::default(),
        CastlingMode::Standard,
    )
    .expect("a move");
    let share: f64 = d.candidates.iter().map(|c| c.share).sum();
    assert!((share - 1.0).abs() < 1e-9);
    assert_eq!(d.cases.len(), 27);
    // Two exact 1. e4 cases against one 1. d4: e4 collects more weight.
    assert_eq!(d.bestmove, "e2e4");
    let e4 = d.winner().expect("winner");
    // Games 1 (draw) and 3 (Black won) vote e4 with equal weight: White scored 0.25.
    assert!(e4.expected.is_some());
}

#[test]
fn checkmate_and_stalemate_have_no_move() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = fixture_cb(dir.path());
    let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    let stale = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let cfg = config(4, Mode::Normalised, 0);
    let lim = Limits::default();
    assert_eq!(
        reuse(&cb, &mated, &cfg, lim, CastlingMode::Standard).err(),
        Some(NoLegalMove::Checkmate)
    );
    assert_eq!(
        reuse(&cb, &stale, &cfg, lim, CastlingMode::Standard).err(),
        Some(NoLegalMove::Stalemate)
    );
}

#[test]
fn expected_score_maps_to_centipawns_logistically() {
    assert_eq!(expected_to_cp(0.5), 0);
    assert_eq!(expected_to_cp(0.75), 191);
    assert_eq!(expected_to_cp(0.25), -191);
    assert_eq!(expected_to_cp(1.0), 798);
    assert_eq!(expected_to_cp(0.0), -798);
}
