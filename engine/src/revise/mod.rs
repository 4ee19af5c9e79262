//! Revise: the third step of the CBR cycle. The cases propose (the adapted moves of the nearest
//! cases, with their votes); a tactical search disposes: the engine plays the best-voted
//! candidate whose value is within a tolerance of the best value found, and the search's own
//! best move only when every candidate is refuted.

use std::time::Instant;

use serde::Serialize;
use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::position::{Game, legal_moves_within, san};
use crate::reuse::Decision;
use crate::search::Evaluation;
pub use crate::search::Memory;
use crate::search::{Limits, RootValue, Searcher, Setup, mate_in};

/// The revise stage's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviseConfig {
    /// Whether to revise at all (off = pure CBR, as in the thesis).
    pub enabled: bool,
    /// A candidate is accepted if its value is at most this many centipawns below the best
    /// (the `natural` style's margin at an equal position: [`scaled_tolerance`]).
    pub tolerance: i32,
    /// How many of the best-voted candidates are checked.
    pub candidates: usize,
    /// Deepest iteration of the search.
    pub max_depth: u32,
    /// For the move model: moves within this many centipawns of the best get exact values at
    /// every iteration (beyond the first [`WIDE_DEPTHS`], which give nearly all moves one).
    pub margin: i32,
    /// The static evaluation the search uses.
    pub eval: Evaluation,
}

/// Tolerance measured with `eval --judge` (500 held-out positions, movers 1400–1799, 100 ms,
/// Stockfish depth 12 as judge): 0 cp gave 42.0 % move-matching, 39 cp mean loss and 3.0 %
/// blunders; 50 cp gave 35.0 %, 49 cp, 5.2 %; 150 cp gave 26.8 %, 72 cp, 9.8 %. At 0 the cases
/// choose among the moves the search rates best (and order the search); larger values let them
/// overrule it.
impl Default for ReviseConfig {
    fn default() -> ReviseConfig {
        ReviseConfig {
            enabled: true,
            tolerance: 0,
            candidates: 8,
            max_depth: 64,
            margin: 100,
            eval: Evaluation::Auto,
        }
    }
}

/// The verdict on one candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// The candidate, UCI.
    #[serde(rename = "move")]
    pub uci: String,
    /// The candidate.
    #[serde(skip)]
    pub mv: Move,
    /// Its share of the cases' votes.
    pub share: f64,
    /// Centipawns from the mover: exact for the search's best move; otherwise a lower bound
    /// when accepted, an upper bound when rejected.
    pub value: i32,
    /// Whether `value` is exact.
    pub exact: bool,
    /// Whether it is the move played.
    pub accepted: bool,
    /// The verdict in words (e.g. "Qxd5 rejected: loses a queen to exd5").
    pub why: String,
}

/// What the revise stage decided.
#[derive(Clone, Debug, Serialize)]
pub struct Revised {
    /// The move chosen.
    #[serde(skip)]
    pub mv: Move,
    /// It in UCI notation.
    pub bestmove: String,
    /// Value of the chosen move.
    pub value: i32,
    /// The search's own best move.
    pub search_best: String,
    /// Its value (centipawns or mate score, from the mover).
    pub search_value: i32,
    /// Every candidate was refuted: the search's own move was played.
    pub refuted_all: bool,
    /// The verdict on each candidate checked, best-voted first (none after the first
    /// accepted).
    pub verdicts: Vec<Verdict>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Principal variation of the chosen move.
    #[serde(skip)]
    pub pv: Vec<Move>,
    /// It in UCI notation.
    pub pv_uci: Vec<String>,
    /// The search's principal lines (MultiPV), the move played first.
    #[serde(skip)]
    pub ranked: Vec<(Move, i32, Vec<Move>)>,
    /// Time the revision took, in ms.
    pub elapsed_ms: f64,
}

/// Searches every move of `root` (legal moves of `game`'s position, the likeliest first) with exact values
/// for all those within `margin` centipawns of the best (within [`WIDE_MARGIN`] for the first
/// [`WIDE_DEPTHS`] iterations, which cost little), at every iteration: what each move looks like
/// after one, two, three plies and deeper, for the move model. `None` when not even depth 1
/// completed.
pub fn analyse(
    game: &Game,
    root: &[Move],
    cfg: &ReviseConfig,
    limits: Limits<'_>,
    memory: &mut Memory,
) -> Option<crate::search::RootResult> {
    let margin = cfg.margin;
    let tolerance = |depth: u32| {
        if depth <= WIDE_DEPTHS {
            WIDE_MARGIN
        } else {
            margin
        }
    };
    Searcher::new(setup(cfg, &game.history), limits, memory).search_root(
        &game.position,
        root,
        root.len(),
        tolerance,
    )
}

/// Iterations of [`analyse`] that give every move within [`WIDE_MARGIN`] an exact value.
pub const WIDE_DEPTHS: u32 = 2;
/// Their margin, centipawns: ten pawns, nearly every move.
pub const WIDE_MARGIN: i32 = 1000;

/// Scale of the expected score: a position worth `v` scores about 1 / (1 + e^(−v / S)) (S in
/// the search's centipawns, Stockfish's / 1.36: Lichess's win-rate curve, 0.00368 a Stockfish
/// centipawn).
const SCORE_SCALE: f64 = 200.0;

/// The most a scaled tolerance gives up, centipawns.
pub const MAX_SCALED_TOLERANCE: i32 = 300;

/// The tolerance at value `v` worth as much expected score as `at_equal` centipawns at 0 (the
/// `natural` style's: a player gives up more centipawns where they change less of the result): the
/// `t` with E(|v|) − E(|v| − t) = E(at_equal) − ½, E(v) = 1 / (1 + e^(−v / S)), capped at
/// [`MAX_SCALED_TOLERANCE`] (the side behind gives up as many centipawns as the side ahead).
pub fn scaled_tolerance(at_equal: i32, v: i32) -> i32 {
    let expected = |v: f64| 1.0 / (1.0 + (-v / SCORE_SCALE).exp());
    let v = f64::from(v.abs());
    let target = expected(v) - (expected(f64::from(at_equal)) - 0.5);
    let floor = SCORE_SCALE * (target / (1.0 - target)).ln();
    let cap = f64::from(MAX_SCALED_TOLERANCE.max(at_equal));
    (v - floor).round().clamp(0.0, cap) as i32
}

/// A score as centipawns text ("+0.35", "mate in 2").
pub fn describe_value(v: i32) -> String {
    match mate_in(v) {
        Some(n) if n > 0 => format!("mate in {n}"),
        Some(n) => format!("mated in {}", -n),
        None => format!("{:+.2}", f64::from(v) / 100.0),
    }
}

fn role_name(role: shakmaty::Role) -> &'static str {
    match role {
        shakmaty::Role::Pawn => "pawn",
        shakmaty::Role::Knight => "knight",
        shakmaty::Role::Bishop => "bishop",
        shakmaty::Role::Rook => "rook",
        shakmaty::Role::Queen => "queen",
        shakmaty::Role::King => "king",
    }
}

/// Why a candidate was rejected, in words: its refutation.
fn refutation(pos: &Chess, r: &RootValue, best: &RootValue, tolerance: i32) -> String {
    let mover = san(pos, r.mv);
    let gap = if r.exact {
        format!(
            "{:.2} worse than {}",
            f64::from(best.value - r.value) / 100.0,
            san(pos, best.mv)
        )
    } else {
        format!(
            "more than {:.2} worse than {}",
            f64::from(tolerance) / 100.0,
            san(pos, best.mv)
        )
    };
    let mut after = pos.clone();
    after.play_unchecked(r.mv);
    match r.pv.get(1).copied().filter(|m| after.is_legal(*m)) {
        Some(reply) => {
            let reply_san = san(&after, reply);
            match reply.capture() {
                Some(role) => format!(
                    "{mover} rejected: loses a {} to {reply_san} ({gap})",
                    role_name(role)
                ),
                None => format!("{mover} rejected: refuted by {reply_san} ({gap})"),
            }
        }
        None => format!("{mover} rejected: {gap}"),
    }
}

/// The `best` style's search in `game`: every legal move (or `limits.moves`),
/// `limits.multipv` exact principal lines, under `limits`. `None` when not even depth 1
/// completed. The search reads and fills `memory`, which the caller keeps from move to move.
pub fn search_best(
    game: &Game,
    cfg: &ReviseConfig,
    limits: Limits<'_>,
    memory: &mut Memory,
) -> Option<crate::search::RootResult> {
    let legal = legal_moves_within(&game.position, limits.moves);
    Searcher::new(setup(cfg, &game.history), limits, memory).search_best(&game.position, &legal)
}

/// The search as `cfg` sets it up, in a game of `history`.
fn setup<'a>(cfg: &ReviseConfig, history: &'a [u64]) -> Setup<'a> {
    Setup {
        network: cfg.eval.network(),
        history,
        max_depth: cfg.max_depth,
    }
}

/// The cases' proposals: the best-voted candidates, then the moves of exact matches (like an
/// opening book), each once, with its share of the votes.
pub(crate) fn proposals(decision: &Decision, cfg: &ReviseConfig) -> Vec<(Move, f64)> {
    let mut candidates: Vec<(Move, f64)> = Vec::new();
    for c in decision.candidates.iter().take(cfg.candidates.max(1)) {
        candidates.push((c.mv, c.share));
    }
    for case in decision.cases.iter().filter(|c| c.exact) {
        if let Some(c) = decision.candidates.iter().find(|c| c.uci == case.adapted)
            && !candidates.iter().any(|(m, _)| *m == c.mv)
        {
            candidates.push((c.mv, c.share));
        }
    }
    candidates
}

/// Revises the proposals (the cases' by [`proposals`], or the move model's likeliest moves)
/// with the search's result (of [`search_best`]): the first proposal within `cfg.tolerance` of
/// the best value is played, the search's own best move when every proposal falls below. A
/// proposal ahead of the search's best move is checked by a null-window search at its depth
/// just below the best value less the tolerance (at tolerance 0: whether it ties the best); the
/// proposals after the first accepted one need no check. Each comes with its share (of the
/// votes, or its probability). No proposals: the cases were not consulted.
pub fn revise(
    game: &Game,
    candidates: &[(Move, f64)],
    result: &crate::search::RootResult,
    cfg: &ReviseConfig,
    limits: Limits<'_>,
    castling: CastlingMode,
    memory: &mut Memory,
) -> Revised {
    let started = Instant::now();
    let pos = &game.position;
    let best = result.best.clone();
    let legal = legal_moves_within(pos, limits.moves);
    let tolerance = cfg.tolerance.max(0);
    let bar = Bar {
        pos,
        best: &best,
        depth: result.depth,
        floor: best.value.saturating_sub(tolerance),
        tolerance,
    };
    let mut verdicts = Vec::new();
    let mut chosen: Option<RootValue> = None;
    // The check belongs to the search just made: its entries stay current.
    let mut searcher = Searcher::resuming(setup(cfg, &game.history), limits, memory);
    for &(m, share) in candidates {
        if chosen.is_some() || !legal.contains(&m) {
            break;
        }
        let Some(checked) = bar.check(&mut searcher, m) else {
            verdicts.push(Verdict {
                uci: m.to_uci(castling).to_string(),
                mv: m,
                share,
                value: bar.floor,
                exact: false,
                accepted: false,
                why: format!("{} not checked: no time left", san(pos, m)),
            });
            break;
        };
        if checked.accepted {
            chosen = Some(RootValue {
                mv: m,
                value: checked.value,
                exact: checked.exact,
                pv: checked.pv,
            });
        }
        verdicts.push(Verdict {
            uci: m.to_uci(castling).to_string(),
            mv: m,
            share,
            value: checked.value,
            exact: checked.exact,
            accepted: checked.accepted,
            why: checked.why,
        });
    }
    let nodes = result.nodes + searcher.nodes();
    let refuted_all = !candidates.is_empty() && chosen.is_none();
    let pick = chosen.unwrap_or_else(|| best.clone());
    let ranked = lines_played_first(result, &pick);
    Revised {
        mv: pick.mv,
        bestmove: pick.mv.to_uci(castling).to_string(),
        value: pick.value,
        search_best: best.mv.to_uci(castling).to_string(),
        search_value: best.value,
        refuted_all,
        verdicts,
        depth: result.depth,
        seldepth: result.seldepth,
        nodes,
        pv_uci: pick
            .pv
            .iter()
            .map(|m| m.to_uci(castling).to_string())
            .collect(),
        pv: pick.pv,
        ranked,
        elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
    }
}

/// What every proposal is checked against: the search's best line, and the floor (its value
/// less the tolerance) a proposal must reach at the search's depth.
struct Bar<'a> {
    pos: &'a Chess,
    best: &'a RootValue,
    depth: u32,
    floor: i32,
    tolerance: i32,
}

/// A proposal's check: its value (exact, or the bound it was checked against), whether it is
/// accepted and why, and its line.
struct Checked {
    value: i32,
    exact: bool,
    accepted: bool,
    why: String,
    pv: Vec<Move>,
}

impl Bar<'_> {
    /// Checks proposal `m`: the search's best move is accepted as it stands, any other by a
    /// null-window search at the floor. `None`: no time was left for that search.
    fn check(&self, searcher: &mut Searcher<'_, '_>, m: Move) -> Option<Checked> {
        let (best, floor) = (self.best, self.floor);
        let text = san(self.pos, m);
        if m == best.mv {
            return Some(Checked {
                value: best.value,
                exact: true,
                accepted: true,
                why: format!(
                    "{text} accepted: the search's best ({})",
                    describe_value(best.value)
                ),
                pv: best.pv.clone(),
            });
        }
        Some(match searcher.at_least(self.pos, m, self.depth, floor)? {
            (true, pv) => Checked {
                value: floor,
                exact: false,
                accepted: true,
                why: format!(
                    "{text} accepted (at least {} against the best {})",
                    describe_value(floor),
                    describe_value(best.value)
                ),
                pv,
            },
            (false, pv) => {
                let r = RootValue {
                    mv: m,
                    value: floor - 1,
                    exact: false,
                    pv: pv.clone(),
                };
                Checked {
                    value: floor - 1,
                    exact: false,
                    accepted: false,
                    why: refutation(self.pos, &r, best, self.tolerance),
                    pv,
                }
            }
        })
    }
}

/// The lines of the search, the move played (`pick`, with its line) first.
fn lines_played_first(
    result: &crate::search::RootResult,
    pick: &RootValue,
) -> Vec<(Move, i32, Vec<Move>)> {
    let mut ranked: Vec<(Move, i32, Vec<Move>)> = result
        .values
        .iter()
        .filter(|r| r.mv != pick.mv)
        .map(|r| (r.mv, r.value, r.pv.clone()))
        .collect();
    ranked.insert(0, (pick.mv, pick.value, pick.pv.clone()));
    ranked
}

/// The root moves in search order: `first` (the legal ones, in their order), then every other
/// legal move.
pub(crate) fn root_order(first: impl Iterator<Item = Move>, legal: &[Move]) -> Vec<Move> {
    let mut root: Vec<Move> = first.filter(|m| legal.contains(m)).collect();
    root.dedup();
    let others: Vec<Move> = legal
        .iter()
        .filter(|m| !root.contains(m))
        .copied()
        .collect();
    root.extend(others);
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use crate::reuse::Candidate;
    use shakmaty::uci::UciMove;

    /// A decision whose candidates are `moves` with the given vote shares, best-voted first.
    fn decision(pos: &Chess, moves: &[(&str, f64)]) -> Decision {
        let candidates: Vec<Candidate> = moves
            .iter()
            .map(|(uci, share)| {
                let mv = UciMove::from_ascii(uci.as_bytes())
                    .expect("uci")
                    .to_move(pos)
                    .expect("legal");
                Candidate {
                    uci: uci.to_string(),
                    mv,
                    votes: *share,
                    share: *share,
                    cases: 1,
                    expected: None,
                    best_case: 0,
                }
            })
            .collect();
        Decision {
            bestmove: candidates[0].uci.clone(),
            mv: candidates[0].mv,
            candidates,
            cases: Vec::new(),
            score256: 200,
            ties: 1,
            scanned: 1,
            pruned: 0,
            total: 1,
            lists: 0,
            elapsed: std::time::Duration::ZERO,
            seed: 0,
            fallback: false,
            not_consulted: None,
        }
    }

    /// Depth 5 with the hand-made evaluation: the values these tests reason about must not move
    /// when the network is retrained.
    fn config(tolerance: i32) -> ReviseConfig {
        ReviseConfig {
            tolerance,
            max_depth: 5,
            eval: Evaluation::Classic,
            ..ReviseConfig::default()
        }
    }

    fn run(fen: &str, moves: &[(&str, f64)], tolerance: i32) -> Revised {
        run_with(fen, moves, &config(tolerance))
    }

    fn run_with(fen: &str, moves: &[(&str, f64)], cfg: &ReviseConfig) -> Revised {
        let pos = parse_fen(fen).expect("fen");
        let mut memory = Memory::new(1);
        let game = Game::new(pos.clone());
        let result = search_best(&game, cfg, Limits::default(), &mut memory).expect("searched");
        revise(
            &game,
            &proposals(&decision(&pos, moves), cfg),
            &result,
            cfg,
            Limits::default(),
            CastlingMode::Standard,
            &mut memory,
        )
    }

    // White to move; Qxd5?? loses the queen to exd5, Kd1/Kf1 are quiet and safe.
    const HANGING: &str = "4k3/8/4p3/3n4/8/8/3Q4/4K3 w - - 0 1";

    #[test]
    fn the_best_voted_candidate_within_tolerance_is_played() {
        // 100 cp: the king moves are 20-45 cp below the queen's best square at depth 5.
        let r = run(HANGING, &[("d2d5", 0.6), ("e1f1", 0.3), ("e1d1", 0.1)], 100);
        assert_eq!(r.bestmove, "e1f1", "{:#?}", r.verdicts);
        assert!(!r.verdicts[0].accepted && r.verdicts[1].accepted);
        assert_eq!(r.verdicts.len(), 2, "no check after the first accepted");
        assert!(
            r.verdicts[0]
                .why
                .contains("Qxd5 rejected: loses a queen to exd5"),
            "{}",
            r.verdicts[0].why
        );
        assert!(!r.refuted_all);
    }

    #[test]
    fn under_no_tolerance_only_the_search_best_or_a_tie_is_played() {
        // Tolerance 0: the king move is checked with a null window at the best value and falls
        // below it; the search's best move is accepted as such.
        let pos = parse_fen(HANGING).expect("fen");
        let cfg = config(0);
        let mut memory = Memory::new(1);
        let game = Game::new(pos.clone());
        let result = search_best(&game, &cfg, Limits::default(), &mut memory).expect("searched");
        let best = result.best.mv.to_uci(CastlingMode::Standard).to_string();
        let r = run(
            HANGING,
            &[("e1f1", 0.5), (best.as_str(), 0.3), ("d2d5", 0.2)],
            0,
        );
        assert_eq!(r.bestmove, best, "{:#?}", r.verdicts);
        assert_eq!(r.search_best, best);
        let v = &r.verdicts;
        assert_eq!(v.len(), 2);
        assert!(v[1].accepted && v[1].exact && v[1].value == r.search_value);
        assert!(!v[0].accepted && v[0].value < r.search_value);
        assert!(!r.refuted_all);
    }

    #[test]
    fn a_large_tolerance_trusts_the_cases() {
        let r = run(HANGING, &[("d2d5", 0.6), ("e1f1", 0.4)], 5000);
        assert_eq!(r.bestmove, "d2d5");
        assert!(r.verdicts[0].accepted);
    }

    #[test]
    fn when_every_candidate_is_refuted_the_search_plays_its_own_move() {
        // The only candidate hangs the queen; the search's move keeps it.
        let r = run(HANGING, &[("d2d5", 1.0)], 50);
        assert!(r.refuted_all);
        assert_ne!(r.bestmove, "d2d5");
        assert_eq!(r.bestmove, r.search_best);
        assert!(r.value > 300, "{}", r.value);
    }

    #[test]
    fn a_scaled_tolerance_accepts_more_where_the_position_is_decided() {
        // White is a queen against a knight and a pawn: a king move, 20-45 cp below the best
        // at depth 5, is beyond a flat 10 cp but within what 10 cp at an equal position is
        // worth at this advantage.
        let flat = run(HANGING, &[("e1f1", 1.0)], 10);
        assert!(flat.refuted_all, "{:#?}", flat.verdicts);
        let margin = scaled_tolerance(10, flat.search_value);
        assert!(margin > 10, "{margin}");
        let scaled = run(HANGING, &[("e1f1", 1.0)], margin);
        assert_eq!(scaled.search_value, flat.search_value);
        assert_eq!(scaled.bestmove, "e1f1", "{:#?}", scaled.verdicts);
        assert_eq!(scaled.verdicts[0].value, scaled.search_value - margin);
    }

    #[test]
    fn a_scaled_tolerance_grows_with_the_advantage_as_the_expected_score_flattens() {
        // At an equal position the margin is the one given; either way from it the expected
        // score flattens and the margin grows, alike for either side, to its cap.
        assert_eq!(scaled_tolerance(30, 0), 30);
        assert_eq!(scaled_tolerance(30, 300), scaled_tolerance(30, -300));
        let at = |v| scaled_tolerance(30, v);
        let grows = [at(100), at(300), at(600)];
        assert!(
            30 < grows[0] && grows[0] < grows[1] && grows[1] < grows[2],
            "{grows:?}"
        );
        // Each margin costs the expected score 30 centipawns cost at 0.
        let e = |v: i32| 1.0 / (1.0 + (-f64::from(v) / SCORE_SCALE).exp());
        for v in [100, 300, 600] {
            let lost = e(v) - e(v - at(v));
            assert!((lost - (e(30) - 0.5)).abs() < 0.001, "at {v}: {lost}");
        }
        assert_eq!(at(2000), MAX_SCALED_TOLERANCE);
        assert_eq!(scaled_tolerance(0, 900), 0);
    }
}
