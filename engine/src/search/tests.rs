use super::*;
use crate::position::parse_fen;
use crate::search::evaluate::evaluate;
use shakmaty::{CastlingMode, Color};

/// The positions of `games` random games of at most `plies` plies from the start, every
/// position reached (the last included), drawn by a fixed xorshift generator from `seed` (the
/// same positions on every machine). With `capture_one_in` = n > 0 a capture, when there is
/// one, is played one move in n (drawn first), so that the games thin out to endings.
pub(crate) fn random_positions(
    mut seed: u64,
    games: usize,
    plies: usize,
    capture_one_in: u64,
) -> Vec<Chess> {
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut pos = Chess::default();
        for _ in 0..plies {
            positions.push(pos.clone());
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if capture_one_in > 0 && !captures.is_empty() && next() % capture_one_in == 0 {
                *captures[next() as usize % captures.len()]
            } else {
                moves[next() as usize % moves.len()]
            };
            pos.play_unchecked(m);
        }
    }
    positions
}

fn uci(m: &Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

fn find(pos: &Chess, text: &str) -> Move {
    pos.legal_moves()
        .into_iter()
        .find(|m| uci(m) == text)
        .unwrap_or_else(|| panic!("{text} is not legal"))
}

fn limits(depth: u32) -> Limits<'static> {
    Limits {
        max_depth: Some(depth),
        ..Limits::default()
    }
}

/// The hand-made evaluation, or the network.
fn evaluated(network: bool) -> Setup<'static> {
    Setup {
        network,
        ..Setup::default()
    }
}

/// The move model's root over every move, nothing exact but the best, with the hand-made
/// evaluation.
fn best(fen: &str, depth: u32) -> (String, i32) {
    root_model(fen, depth, false)
}

/// The `best` style's root, with the hand-made evaluation.
fn best_root(fen: &str, depth: u32) -> (String, i32) {
    root_best(fen, depth, false)
}

/// [`best`] with the network evaluation.
fn best_net(fen: &str, depth: u32) -> (String, i32) {
    root_model(fen, depth, true)
}

/// [`best_root`] with the network evaluation.
fn best_root_net(fen: &str, depth: u32) -> (String, i32) {
    root_best(fen, depth, true)
}

/// A search of a position to a depth: its best move and value.
type RootSearch = fn(&str, u32) -> (String, i32);

/// Each root under each evaluation, as the tests of what any search must find run them.
const SEARCHES: [RootSearch; 4] = [best, best_root, best_net, best_root_net];

fn root_model(fen: &str, depth: u32, network: bool) -> (String, i32) {
    let pos = parse_fen(fen).expect("fen");
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut memory = Memory::new(1);
    let mut s = Searcher::new(evaluated(network), limits(depth), &mut memory);
    let r = s.search_root(&pos, &moves, 0, |_| 0).expect("a result");
    assert_eq!(
        s.sums_checked > 0,
        network,
        "network evaluations checked: {fen}"
    );
    (uci(&r.best.mv), r.best.value)
}

fn root_best(fen: &str, depth: u32, network: bool) -> (String, i32) {
    let pos = parse_fen(fen).expect("fen");
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut memory = Memory::new(1);
    let mut s = Searcher::new(evaluated(network), limits(depth), &mut memory);
    let r = s.search_best(&pos, &moves).expect("a result");
    assert_eq!(
        s.sums_checked > 0,
        network,
        "network evaluations checked: {fen}"
    );
    (uci(&r.best.mv), r.best.value)
}

#[test]
fn the_searchs_network_sums_equal_a_refresh_through_every_kind_of_move() {
    // Castling both ways, en passant, promotions with and without capture, null moves (pieces
    // on the board), captures and checks: every network evaluation of these searches compares
    // the sums kept move by move with a sum of the whole board (Searcher::static_eval).
    for fen in [
        "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
        "4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1",
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "2r3k1/1P3p1p/6p1/8/8/8/5PPP/R5K1 w - - 0 1",
    ] {
        let (m, _) = root_model(fen, 7, true);
        assert!(!m.is_empty());
        let (m, _) = root_best(fen, 7, true);
        assert!(!m.is_empty());
    }
}

#[test]
fn finds_mate_in_one() {
    for search in SEARCHES {
        let (m, v) = search("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 2);
        assert_eq!(m, "d1d8");
        assert_eq!(mate_in(v), Some(1));
    }
}

#[test]
fn finds_mate_in_two() {
    // Kc6 and Rh1 against Ka8: 1. Rh8+? Ka7 escapes; 1. Kc7! Ka7 2. Ra1# (or 1. Kb6 Kb8
    // 2. Rh8#).
    for search in SEARCHES {
        let (m, v) = search("k7/8/2K5/8/8/8/8/7R w - - 0 1", 5);
        assert_eq!(mate_in(v), Some(2), "{m} {v}");
        assert!(m == "c6c7" || m == "c6b6", "{m}");
    }
}

#[test]
fn pruned_search_still_finds_quiet_and_endgame_solutions() {
    // Win at Chess positions whose key move is quiet or in a sparse endgame, where wrong
    // null-move pruning, futility or reductions would hide it: WAC.003 (Rg3, a quiet rook
    // lift), WAC.006 (Rb7, rook ending), WAC.008 (Rf7, a quiet rook move).
    for (fen, bm) in [
        (
            "r4q1k/p2bR1rp/2p2Q1N/5p2/5p2/2P5/PP3PPP/R5K1 w - - 0 1",
            "e7f7",
        ),
        (
            "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
            "e3g3",
        ),
        ("7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1", "b6b7"),
    ] {
        for search in SEARCHES {
            let (m, v) = search(fen, 10);
            assert_eq!(m, bm, "{fen}: {m} ({v})");
        }
    }
}

#[test]
fn a_return_to_a_position_of_the_game_is_a_draw() {
    // Black, a rook down, has shuffled its king g8-h8-g8 while White's went g1-f1-g1: Kh8
    // now returns to a position of the game. With the game's history that is a draw
    // (0); without it, the lost position it is.
    let game = crate::position::play_line(
        parse_fen("6k1/8/8/8/8/8/5PPP/R5K1 b - - 0 1").expect("fen"),
        &["g8h8", "g1f1", "h8g8", "f1g1"],
    )
    .expect("legal");
    assert_eq!(
        game.history.len(),
        4,
        "no capture or pawn move since the start"
    );
    let back = find(&game.position, "g8h8");
    let value = |history: &[u64]| {
        let mut memory = Memory::new(1);
        let setup = Setup {
            history,
            ..Setup::default()
        };
        let mut s = Searcher::new(setup, limits(4), &mut memory);
        let r = s.search_root(&game.position, &[back], 1, |_| 0);
        r.expect("result").values[0].value
    };
    assert!(value(&[]) < -300, "without the history: {}", value(&[]));
    assert_eq!(value(&game.history), 0);
}

#[test]
fn quiescence_resolves_a_hanging_piece_exchange() {
    // White to move: Qxd5?? loses the queen to e6xd5; the quiet search sees it.
    let pos = parse_fen("4k3/8/4p3/3n4/8/8/3Q4/4K3 w - - 0 1").expect("fen");
    let mut memory = Memory::new(1);
    let mut s = Searcher::new(Setup::default(), limits(1), &mut memory);
    let qxd5 = find(&pos, "d2d5");
    let r = s.search_root(&pos, &[qxd5], 1, |_| 10_000).expect("result");
    // After Qxd5 exd5 White has a bare king against king and pawn (about -100); the
    // capture alone would have looked like +900.
    assert!(r.values[0].value < 0, "value {}", r.values[0].value);
    // Stand pat: the position itself is worth about a queen minus a knight and a pawn.
    let mut s = Searcher::new(Setup::default(), Limits::default(), &mut memory);
    assert!(s.quiesce(&pos, key(&pos), -INF, INF, 0) > 400);
}

#[test]
fn a_node_whose_first_moves_are_mated_does_not_return_a_mate_score() {
    // White to move, a knight and a bishop for a rook, with its back rank open to Re1#. The
    // table's move (Nb3) and the six moves history puts next all leave Re1# on; the others
    // (Kf1, a pawn move making room for the king, Bb4 covering e1) do not. At a depth-2
    // non-PV node whose window lies just below the evaluation (so that neither side's reverse
    // futility cuts and Black's quiet replies do not refute), the seven mated moves are
    // searched and late-move pruning would skip the rest: the node used to answer "mated", a
    // bound the position does not deserve, which the parent reads as a mate it gives. (Fails
    // without the guard, and on the search before the search package.)
    let pos = parse_fen("4r1k1/5ppp/8/N7/8/B7/5PPP/6K1 w - - 0 1").expect("fen");
    let hash = key(&pos);
    let mut memory = Memory::new(1);
    memory.tt.new_search();
    for (i, u) in ["a5b7", "a5c6", "a5c4", "a3c5", "a3d6", "a3b2"]
        .iter()
        .enumerate()
    {
        let m = find(&pos, u);
        for _ in 0..50 - 5 * i {
            memory
                .histories
                .update_quiet(Color::White, &m, [None, None], 1000);
        }
    }
    // Black tries Re1 early (a quiet check can come after late-move pruning's count).
    let mut after = pos.clone();
    after.play_unchecked(find(&pos, "a5b3"));
    let re1 = find(&after, "e8e1");
    for _ in 0..50 {
        memory
            .histories
            .update_quiet(Color::Black, &re1, [None, None], 1000);
    }
    let mut s = Searcher::new(Setup::default(), limits(8), &mut memory);
    s.tt.store(hash, Some(find(&pos, "a5b3")), 0, None, 0, Bound::Upper);
    s.start_iteration(&pos, 0);
    let alpha = evaluate(&pos) - 50;
    let v = s.negamax(&pos, hash, 2, 1, alpha, alpha + 1, true);
    assert!(v > -MATE_BOUND, "a false mate score: {v}");
}

#[test]
fn a_root_move_that_fails_low_on_its_second_look_is_not_exact() {
    // The model's root: the first move (Kd1) sets the best; Qxd5 is probed with a null window
    // at it. A stale table entry for the position after Qxd5 says Black is lost there, so the
    // probe fails high; the second look, with the window open, finds the queen lost: a value
    // at or below the best that is an upper bound, not the move's exact value. (Fails on the
    // search before the fix, which marked it exact at the best value.)
    let pos = parse_fen("4k3/8/4p3/3n4/8/8/3Q4/4K3 w - - 0 1").expect("fen");
    let (kd1, qxd5) = (find(&pos, "e1d1"), find(&pos, "d2d5"));
    let mut after = pos.clone();
    after.play_unchecked(qxd5);
    let mut memory = Memory::new(1);
    let mut s = Searcher::new(Setup::default(), limits(2), &mut memory);
    s.tt.store(key(&after), None, -1000, None, 60, Bound::Upper);
    let r = s.search_root(&pos, &[kd1, qxd5], 1, |_| 0).expect("result");
    let q = &r.values[1];
    assert!(q.value <= r.values[0].value, "{r:#?}");
    assert!(!q.exact, "{q:?}");
    assert_eq!(r.best.mv, kd1);
}

#[test]
fn multipv_gives_distinct_exact_lines_best_first() {
    let pos = parse_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
        .expect("fen");
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut memory = Memory::new(4);
    let four = Limits {
        multipv: 4,
        ..limits(6)
    };
    let mut s = Searcher::new(Setup::default(), four, &mut memory);
    let r = s.search_best(&pos, &moves).expect("result");
    assert_eq!(r.values.len(), 4);
    let mut seen: Vec<Move> = r.values.iter().map(|l| l.mv).collect();
    seen.dedup();
    assert_eq!(seen.len(), 4);
    assert!(
        r.values.windows(2).all(|w| w[0].value >= w[1].value),
        "{r:#?}"
    );
    assert_eq!(r.best, r.values[0]);
    // The single best line agrees with the first of four.
    let mut memory = Memory::new(4);
    let mut s = Searcher::new(Setup::default(), limits(6), &mut memory);
    let one = s.search_best(&pos, &moves).expect("result");
    assert!(
        (one.best.value - r.best.value).abs() <= 30,
        "{} {}",
        one.best.value,
        r.best.value
    );
}

#[test]
fn an_interrupted_search_still_answers_with_its_last_iteration() {
    let pos = Chess::default();
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut memory = Memory::new(4);
    let mut s = Searcher::new(
        Setup::default(),
        Limits {
            max_nodes: Some(20_000),
            ..Limits::default()
        },
        &mut memory,
    );
    let r = s
        .search_best(&pos, &moves)
        .expect("depth 1 finishes within 20,000 nodes");
    assert!(r.depth >= 3, "{}", r.depth);
    assert!(moves.contains(&r.best.mv));
    assert!(r.best.value.abs() < 100, "{}", r.best.value);
}

#[test]
fn a_candidate_is_checked_against_a_floor() {
    // Qg5 keeps the queen; Qxd5 loses it. After the search, "worth at least the best?".
    let pos = parse_fen("4k3/8/4p3/3n4/8/8/3Q4/4K3 w - - 0 1").expect("fen");
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut memory = Memory::new(1);
    let mut s = Searcher::new(Setup::default(), limits(5), &mut memory);
    let r = s.search_best(&pos, &moves).expect("result");
    let (ok, _) = s
        .at_least(&pos, find(&pos, "d2d5"), r.depth, r.best.value)
        .expect("not stopped");
    assert!(!ok);
    let (ok, pv) = s
        .at_least(&pos, r.best.mv, r.depth, r.best.value)
        .expect("not stopped");
    assert!(ok, "the best move reaches its own value");
    assert_eq!(pv[0], r.best.mv);
}

#[test]
fn a_principal_variation_ends_where_it_returns_to_a_position_of_the_game() {
    // The shuffling kings of the repetition test: Black, a rook down, can return to a
    // position of the game with Kh8, a draw. Whatever lines the search shows, none goes on past
    // such a return (a GUI would have ended the game there).
    let game = crate::position::play_line(
        parse_fen("6k1/8/8/8/8/8/5PPP/R5K1 b - - 0 1").expect("fen"),
        &["g8h8", "g1f1", "h8g8", "f1g1"],
    )
    .expect("legal");
    let moves: Vec<Move> = game.position.legal_moves().into_iter().collect();
    // The table kept from the game's earlier moves knows the positions the shuffle went
    // through (and their moves), when they were not yet repetitions.
    let mut memory = Memory::new(1);
    let start = parse_fen("6k1/8/8/8/8/8/5PPP/R5K1 b - - 0 1").expect("fen");
    let first: Vec<Move> = start.legal_moves().into_iter().collect();
    let lines = Limits {
        multipv: 4,
        ..limits(6)
    };
    Searcher::new(Setup::default(), lines, &mut memory).search_best(&start, &first);
    let setup = Setup {
        history: &game.history,
        ..Setup::default()
    };
    let mut s = Searcher::new(setup, lines, &mut memory);
    let r = s.search_best(&game.position, &moves).expect("result");
    for line in &r.values {
        let mut p = game.position.clone();
        for (i, m) in line.pv.iter().enumerate() {
            p.play_unchecked(*m);
            let repeated = game.history.contains(&key(&p));
            assert!(
                !repeated || i + 1 == line.pv.len(),
                "the line goes on after a return to the game: {:?}",
                line.pv.iter().map(uci).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn a_principal_variation_ends_at_the_fifty_move_rule() {
    // King and rook against king with the clock at 98 half-moves: no capture or pawn move can
    // reset it, so the game ends after two more plies, and so must every reported line (GUIs
    // warn of a line that goes on, and some refuse it). The table already knows the line from
    // the same position searched with a fresh clock (the clock is not in the key), as the
    // engine's table, kept from move to move, does.
    let fresh = parse_fen("8/8/4k3/8/8/4K3/8/R7 w - - 0 80").expect("fen");
    let late = parse_fen("8/8/4k3/8/8/4K3/8/R7 w - - 98 80").expect("fen");
    let moves: Vec<Move> = late.legal_moves().into_iter().collect();
    for network in [false, true] {
        let setup = evaluated(network);
        let limits = Limits {
            multipv: 3,
            ..limits(8)
        };
        let mut memory = Memory::new(1);
        Searcher::new(setup, limits, &mut memory).search_best(&fresh, &moves);
        let r = Searcher::new(setup, limits, &mut memory)
            .search_best(&late, &moves)
            .expect("a result");
        let mut memory = Memory::new(1);
        Searcher::new(setup, limits, &mut memory)
            .search_root(&fresh, &moves, moves.len(), |_| 1000);
        let s = Searcher::new(setup, limits, &mut memory)
            .search_root(&late, &moves, moves.len(), |_| 1000)
            .expect("a result");
        for line in r.values.iter().chain(&s.values) {
            let pv: Vec<String> = line.pv.iter().map(uci).collect();
            assert!(line.pv.len() <= 2, "{pv:?}");
        }
    }
}

#[test]
fn both_roots_stop_the_same_iteration_after_a_mate() {
    // Rd8 mates at once: found at depth 1, settled two iterations past its length.
    let pos = parse_fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1").expect("fen");
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    for network in [false, true] {
        let (setup, limits) = (evaluated(network), limits(30));
        let mut memory = Memory::new(1);
        let model = Searcher::new(setup, limits, &mut memory)
            .search_root(&pos, &moves, moves.len(), |_| 50)
            .expect("a result");
        let mut memory = Memory::new(1);
        let best = Searcher::new(setup, limits, &mut memory)
            .search_best(&pos, &moves)
            .expect("a result");
        for r in [&model, &best] {
            assert_eq!(uci(&r.best.mv), "d1d8");
            assert_eq!(mate_in(r.best.value), Some(1));
            assert_eq!(
                r.depth,
                2 + params::MATE_SETTLED as u32,
                "network {network}"
            );
        }
    }
}

#[test]
fn the_key_after_a_move_is_the_key_of_the_position_it_reaches() {
    // Every legal move of the positions of random games (king moves with and without castling
    // rights, captures of rooks on their corners, double steps, en passant, promotions): the
    // search's updated key is the key hashed anew.
    let (mut king_moves, mut checked) = (0, 0);
    for pos in random_positions(0x5851_f42d_4c95_7f2d, 80, 150, 0) {
        let hash = key(&pos);
        for m in &pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            assert_eq!(hash_after(&pos, hash, *m, &after), key(&after), "{m:?}");
            king_moves += usize::from(m.role() == Role::King);
            checked += 1;
        }
    }
    assert!(
        king_moves > 1000 && checked > 50_000,
        "{king_moves} of {checked}"
    );
}
