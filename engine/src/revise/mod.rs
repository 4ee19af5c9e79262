//! Revise: the third step of the CBR cycle. The cases propose (the adapted moves of the nearest
//! cases, with their votes); a tactical search disposes: the engine plays the best-voted
//! candidate whose value is within a tolerance of the best value found, and the search's own
//! best move only when every candidate is refuted.

pub mod evaluate;
pub mod search;
pub mod see;
pub mod tt;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Serialize;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::adapt::reuse::Decision;
use crate::position::legal_moves_within;
use search::{RootValue, SearchLimits, Searcher, mate_in};
use tt::TranspositionTable;

/// The revise stage's settings.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ReviseConfig {
    /// Whether to revise at all (off = pure CBR, as in the thesis).
    pub enabled: bool,
    /// A candidate is accepted if its value is at most this many centipawns below the best.
    pub tolerance: i32,
    /// How many of the best-voted candidates are checked.
    pub candidates: usize,
    /// Deepest iteration of the search.
    pub max_depth: u32,
    /// For the move model: moves within this many centipawns of the best get exact values at
    /// every iteration (beyond the first [`WIDE_DEPTHS`], which give nearly all moves one).
    pub margin: i32,
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
    /// Centipawns from the mover (an upper bound when not exact).
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
    /// The verdict on each candidate, best-voted first.
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
    /// Values of all root moves (for MultiPV), best first.
    #[serde(skip)]
    pub ranked: Vec<(Move, i32, Vec<Move>)>,
    /// Time the revision took, in ms.
    pub elapsed_ms: f64,
}

/// Limits of one revision.
#[derive(Clone, Copy, Default)]
pub struct ReviseLimits<'a> {
    /// Start no new iteration after this instant.
    pub soft: Option<Instant>,
    /// Abort the search at this instant.
    pub hard: Option<Instant>,
    /// Abort when set (UCI `stop`).
    pub stop: Option<&'a AtomicBool>,
    /// Deepest iteration (UCI `go depth`).
    pub max_depth: Option<u32>,
    /// Node limit (UCI `go nodes`).
    pub max_nodes: Option<u64>,
    /// Consider only these moves (UCI `searchmoves`).
    pub moves: Option<&'a [Move]>,
    /// Called after every completed search iteration.
    pub progress: Option<&'a (dyn Fn(&search::RootResult) + Sync)>,
    /// Keys of the game's positions a repetition could return to ([`SearchLimits::history`]).
    pub history: &'a [u64],
}

/// Searches every move of `root` (legal moves of `pos`, the likeliest first) with exact values
/// for all those within `margin` centipawns of the best (within [`WIDE_MARGIN`] for the first
/// [`WIDE_DEPTHS`] iterations, which cost little), at every iteration: what each move looks like
/// after one, two, three plies and deeper, for the move model. `None` when not even depth 1
/// completed.
pub fn analyse(
    pos: &Chess,
    root: &[Move],
    margin: i32,
    limits: ReviseLimits<'_>,
    max_depth: u32,
    tt: &mut TranspositionTable,
) -> Option<search::RootResult> {
    let search_limits = SearchLimits {
        hard: limits.hard,
        soft: limits.soft,
        stop: limits.stop,
        max_depth: limits.max_depth.unwrap_or(max_depth).min(max_depth).max(1),
        max_nodes: limits.max_nodes,
        progress: limits.progress,
        history: limits.history,
    };
    let tolerance = |depth: u32| {
        if depth <= WIDE_DEPTHS {
            WIDE_MARGIN
        } else {
            margin
        }
    };
    Searcher::new(search_limits, tt).search_root(pos, root, root.len(), tolerance)
}

/// Iterations of [`analyse`] that give every move within [`WIDE_MARGIN`] an exact value.
pub const WIDE_DEPTHS: u32 = 2;
/// Their margin, centipawns: ten pawns, nearly every move.
pub const WIDE_MARGIN: i32 = 1000;

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

fn san(pos: &Chess, m: Move) -> String {
    San::from_move(pos, m).to_string()
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

/// Revises a decision: searches the candidates (best-voted first) and every other legal move,
/// and picks the best-voted candidate within the tolerance of the best value. `None` when the
/// search could not complete even depth 1 in time (the retrieval answer stands). The search
/// reads and fills `tt`, which the caller keeps from move to move.
pub fn revise(
    pos: &Chess,
    decision: &Decision,
    cfg: &ReviseConfig,
    limits: ReviseLimits<'_>,
    castling: CastlingMode,
    tt: &mut TranspositionTable,
) -> Option<Revised> {
    let started = Instant::now();
    let legal = legal_moves_within(pos, limits.moves);
    let mut candidates: Vec<(Move, f64)> = Vec::new();
    for c in decision.candidates.iter().take(cfg.candidates.max(1)) {
        candidates.push((c.mv, c.share));
    }
    // Exact matches propose their moves too, like an opening book.
    for case in decision.cases.iter().filter(|c| c.exact) {
        if let Some(c) = decision.candidates.iter().find(|c| c.uci == case.adapted)
            && !candidates.iter().any(|(m, _)| *m == c.mv)
        {
            candidates.push((c.mv, c.share));
        }
    }
    if candidates.is_empty() {
        candidates.push((decision.mv, 1.0));
    }
    let root = root_order(candidates.iter().map(|(m, _)| *m), &legal);
    let search_limits = SearchLimits {
        hard: limits.hard,
        soft: limits.soft,
        stop: limits.stop,
        max_depth: limits
            .max_depth
            .unwrap_or(cfg.max_depth)
            .min(cfg.max_depth)
            .max(1),
        max_nodes: limits.max_nodes,
        progress: limits.progress,
        history: limits.history,
    };
    let mut searcher = Searcher::new(search_limits, tt);
    let tolerance = cfg.tolerance.max(0);
    let result = searcher.search_root(pos, &root, candidates.len(), |_| tolerance)?;
    let best = result.best.clone();
    let mut verdicts = Vec::new();
    let mut chosen: Option<&RootValue> = None;
    for ((m, share), r) in candidates.iter().zip(&result.values) {
        let accepted = r.exact && r.value >= best.value - cfg.tolerance && chosen.is_none();
        let within = r.exact && r.value >= best.value - cfg.tolerance;
        let why = if accepted {
            format!(
                "{} accepted ({} against the best {})",
                san(pos, *m),
                describe_value(r.value),
                describe_value(best.value)
            )
        } else if within {
            format!(
                "{} also within the tolerance ({})",
                san(pos, *m),
                describe_value(r.value)
            )
        } else {
            refutation(pos, r, &best, cfg.tolerance)
        };
        if accepted {
            chosen = Some(r);
        }
        verdicts.push(Verdict {
            uci: m.to_uci(castling).to_string(),
            mv: *m,
            share: *share,
            value: r.value,
            exact: r.exact,
            accepted,
            why,
        });
    }
    let refuted_all = chosen.is_none();
    let pick = chosen.cloned().unwrap_or_else(|| best.clone());
    let mut ranked: Vec<(Move, i32, Vec<Move>)> = result
        .values
        .iter()
        .filter(|r| r.exact)
        .map(|r| (r.mv, r.value, r.pv.clone()))
        .collect();
    ranked.sort_by_key(|(m, v, _)| (std::cmp::Reverse(*v), std::cmp::Reverse(*m == pick.mv)));
    if let Some(i) = ranked.iter().position(|(m, _, _)| *m == pick.mv) {
        let first = ranked.remove(i);
        ranked.insert(0, first);
    }
    Some(Revised {
        mv: pick.mv,
        bestmove: pick.mv.to_uci(castling).to_string(),
        value: pick.value,
        search_best: best.mv.to_uci(castling).to_string(),
        search_value: best.value,
        refuted_all,
        verdicts,
        depth: result.depth,
        seldepth: result.seldepth,
        nodes: result.nodes,
        pv_uci: pick
            .pv
            .iter()
            .map(|m| m.to_uci(castling).to_string())
            .collect(),
        pv: pick.pv,
        ranked,
        elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
    })
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
    use crate::adapt::reuse::Candidate;
    use crate::position::parse_fen;
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
            elapsed: std::time::Duration::ZERO,
            seed: 0,
            fallback: false,
        }
    }

    fn run(fen: &str, moves: &[(&str, f64)], tolerance: i32) -> Revised {
        let pos = parse_fen(fen).expect("fen");
        let cfg = ReviseConfig {
            tolerance,
            max_depth: 4,
            ..ReviseConfig::default()
        };
        revise(
            &pos,
            &decision(&pos, moves),
            &cfg,
            ReviseLimits::default(),
            CastlingMode::Standard,
            &mut TranspositionTable::new(1),
        )
        .expect("revised")
    }

    // White to move; Qxd5?? loses the queen to exd5, Kd1/Kf1 are quiet and safe.
    const HANGING: &str = "4k3/8/4p3/3n4/8/8/3Q4/4K3 w - - 0 1";

    #[test]
    fn the_best_voted_candidate_within_tolerance_is_played() {
        // 100 cp: the king moves are 20-45 cp below Qg5 at depth 4.
        let r = run(HANGING, &[("d2d5", 0.6), ("e1f1", 0.3), ("e1d1", 0.1)], 100);
        assert_eq!(r.bestmove, "e1f1", "{:#?}", r.verdicts);
        assert!(!r.verdicts[0].accepted && r.verdicts[1].accepted);
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
    fn under_no_tolerance_only_the_best_candidate_is_exact_and_played() {
        // Tolerance 0: the candidates after the first are probed with a null window at the
        // best value; the king move falls below it (an upper bound), Qg5 passes and is searched
        // again for its exact value.
        let r = run(HANGING, &[("e1f1", 0.5), ("d2g5", 0.3), ("d2d5", 0.2)], 0);
        assert_eq!(r.bestmove, "d2g5", "{:#?}", r.verdicts);
        assert_eq!(r.search_best, "d2g5");
        let v = &r.verdicts;
        assert!(v[1].accepted && v[1].exact && v[1].value == r.search_value);
        assert!(!v[0].accepted && !v[2].accepted && v[2].value < 0);
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
}
