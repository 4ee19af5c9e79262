//! The verifier's search: negamax alpha-beta (principal variation search) with quiescence
//! (captures and promotions, delta and static-exchange pruning), check extension, a
//! transposition table on Zobrist keys, MVV-LVA (losing captures after the killers), killer and
//! history move ordering, null-move pruning, reverse futility, futility and late-move pruning,
//! late-move reductions, and iterative deepening under a deadline. A return to a position of
//! the search path or of the game before the root ([`SearchLimits::history`]) scores as a
//! draw. It computes exact values for the root moves it is asked about, so that the revise
//! stage can compare the cases' proposals with the best move. No pruning at the root or in
//! principal-variation nodes, so those values stay exact.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Chess, EnPassantMode, Move, MoveList, Position};

use super::evaluate::{evaluate, value};
use super::see::see;
use super::tt::{Bound, PackedMove, TranspositionTable};
use crate::position::key;

/// Larger than any evaluation.
pub const INF: i32 = 32_000;
/// Mate scores are `MATE - plies to mate`.
pub const MATE: i32 = 31_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
const MAX_PLY: usize = 96;

/// When to stop searching.
#[derive(Clone, Copy, Default)]
pub struct SearchLimits<'a> {
    /// Abort the search at this instant.
    pub hard: Option<Instant>,
    /// Start no new iteration after this instant.
    pub soft: Option<Instant>,
    /// Abort when set.
    pub stop: Option<&'a AtomicBool>,
    /// Deepest iteration.
    pub max_depth: u32,
    /// Abort after this many nodes.
    pub max_nodes: Option<u64>,
    /// Called after every completed iteration (UCI prints it as analysis).
    pub progress: Option<&'a (dyn Fn(&RootResult) + Sync)>,
    /// Keys of the game's positions before the root that a repetition could return to
    /// ([`crate::position::Game::history`]); a return to one scores as a draw.
    pub history: &'a [u64],
}

/// A root move's value after the last completed iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootValue {
    /// The root move.
    pub mv: Move,
    /// Centipawns (or mate score) from the side to move.
    pub value: i32,
    /// Whether `value` is exact; otherwise it is an upper bound (the move is worse).
    pub exact: bool,
    /// Principal variation starting with `mv`.
    pub pv: Vec<Move>,
}

/// The root moves' values after one completed iteration, in the order the moves were given:
/// `(value, exact)`, an upper bound when not exact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration {
    /// Its depth.
    pub depth: u32,
    /// One per root move.
    pub values: Vec<(i32, bool)>,
}

/// What the root search found.
#[derive(Clone, Debug)]
pub struct RootResult {
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Values of the root moves, in the order they were given.
    pub values: Vec<RootValue>,
    /// The best move and its value.
    pub best: RootValue,
    /// Every completed iteration, shallowest first (what a move looked like at each depth).
    pub iterations: Vec<Iteration>,
}

/// The search state.
pub struct Searcher<'a, 't> {
    tt: &'t mut TranspositionTable,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Box<[[i32; 64]; 64]>,
    path: Vec<u64>,
    nodes: u64,
    seldepth: u32,
    stopped: bool,
    /// Set for the node right after a null move.
    after_null: bool,
    limits: SearchLimits<'a>,
}

fn hash_after(pos: &Chess, hash: u64, m: Move, next: &Chess) -> u64 {
    match pos.update_zobrist_hash(Zobrist64(hash), m, EnPassantMode::Legal) {
        Some(Zobrist64(h)) => h,
        None => key(next),
    }
}

/// Whether the side to move has a piece other than pawns and king (null-move pruning is unsound
/// in pawn endings, where zugzwang is the rule).
fn has_pieces(pos: &Chess) -> bool {
    let b = pos.board();
    (b.by_color(pos.turn()) & !(b.pawns() | b.kings())) != Bitboard::EMPTY
}

/// Late-move reduction, in plies, of the `index`-th move (from 0) at `depth`:
/// ⌊0.75 + ln(depth)·ln(index)/2.25⌋, the form of most modern engines; none for the first three.
fn reduction(depth: i32, index: usize) -> i32 {
    if depth < 3 || index < 3 {
        return 0;
    }
    (0.75 + (depth as f64).ln() * (index as f64).ln() / 2.25) as i32
}

/// How many moves a node at `depth` (1–3) searches before late-move pruning skips quiet moves:
/// 3 + depth².
fn late_move_count(depth: i32) -> usize {
    (3 + depth * depth) as usize
}

/// Largest margin (centipawns per ply of depth) by which the static evaluation may exceed beta
/// for a shallow non-PV node to be cut without search (reverse futility pruning), and by which it
/// may fall short of alpha for a quiet move to be skipped (futility pruning).
const FUTILITY_MARGIN: i32 = 120;

/// Reverse futility pruning: the deepest node it cuts, and its margin per ply of depth (up to
/// depth 3 at 120 per ply before stop 28; this: bench --search 8 nodes −4 %, self-play +13 Elo
/// in 300 games).
const RFP_DEPTH: i32 = 6;
const RFP_MARGIN: i32 = 90;

/// Bounds of a quiet move's history score, and the largest change one cutoff makes.
const HISTORY_MAX: i32 = 1 << 14;
const HISTORY_BONUS_MAX: i32 = 1200;
/// Depth from which a node without a table move is searched a ply shallower.
const IIR_DEPTH: i32 = 4;

/// Tolerances (centipawns) under which a root candidate is first tried with a null window at
/// the tolerance's edge. `bench --search 8 --margin M`, nodes against the open window alone:
/// −37 % at 0, −17 % at 30, −6 % at 60, +8 % at 100 (where most moves pass the probe and are
/// searched twice).
const PROBE_BELOW: i32 = 80;

/// What a quiescence capture may gain beyond its victim (positional swing) before it is
/// considered able to reach alpha.
const DELTA_MARGIN: i32 = 200;

fn is_tactical(m: &Move) -> bool {
    m.is_capture() || m.is_promotion()
}

fn mvv_lva(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, value);
    let promo = m.promotion().map_or(0, value);
    victim * 16 + promo - value(m.role()) / 10
}

/// Mate scores stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl<'a, 't> Searcher<'a, 't> {
    /// A searcher using (and filling) `tt`; starts a new generation of its entries.
    pub fn new(limits: SearchLimits<'a>, tt: &'t mut TranspositionTable) -> Searcher<'a, 't> {
        tt.new_search();
        Searcher {
            tt,
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[0; 64]; 64]),
            path: Vec::with_capacity(MAX_PLY),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            after_null: false,
            limits,
        }
    }

    /// Moves a quiet move's history towards ±`HISTORY_MAX` by `bonus`, less the nearer it is
    /// (the "gravity" form: a score saturates instead of growing without bound).
    fn update_history(&mut self, m: &Move, bonus: i32) {
        if let Some(f) = m.from() {
            let h = &mut self.history[f as usize][m.to() as usize];
            *h += bonus - *h * bonus.abs() / HISTORY_MAX;
        }
    }

    fn check_time(&mut self) {
        if self.nodes & 1023 == 0 {
            let stop = self.limits.stop.is_some_and(|s| s.load(Ordering::Relaxed));
            let late = self.limits.hard.is_some_and(|t| Instant::now() >= t);
            let spent = self.limits.max_nodes.is_some_and(|n| self.nodes >= n);
            self.stopped |= stop || late || spent;
        }
    }

    fn order(&self, pos: &Chess, moves: &mut MoveList, tt_move: Option<PackedMove>, ply: usize) {
        let score = |m: &Move| -> i32 {
            if tt_move.is_some_and(|t| t.is(m)) {
                return 1 << 30;
            }
            if is_tactical(m) {
                // A capture that loses the exchange comes after the killers.
                let base = if m.is_promotion() || see(pos.board(), m) >= 0 {
                    1 << 20
                } else {
                    1 << 18
                };
                return base + mvv_lva(m);
            }
            if ply < MAX_PLY && self.killers[ply].contains(&Some(*m)) {
                return 1 << 19;
            }
            match (m.from(), m.to()) {
                // Within ±HISTORY_MAX (update_history), below the killers and losing captures.
                (Some(f), t) => self.history[f as usize][t as usize],
                _ => 0,
            }
        };
        moves.sort_by_cached_key(|m| std::cmp::Reverse(score(m)));
    }

    fn quiesce(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        self.check_time();
        if self.stopped {
            return 0;
        }
        let in_check = pos.is_check();
        if ply >= MAX_PLY - 1 {
            return if in_check && pos.legal_moves().is_empty() {
                -MATE + ply as i32
            } else {
                evaluate(pos)
            };
        }
        // In check every evasion is searched (none: mate). Otherwise the side to move may stand
        // pat, and only captures and promotions are generated; a capture that could not lift
        // the position to alpha even winning its victim and a margin is skipped (delta pruning),
        // and so is one that loses material in the exchange on its square.
        let mut moves = if in_check {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            moves
        } else {
            let stand = evaluate(pos);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            let mut moves = pos.capture_moves();
            moves.extend(
                pos.promotion_moves()
                    .into_iter()
                    .filter(|m| !m.is_capture()),
            );
            let board = pos.board();
            moves.retain(|m| {
                m.is_promotion()
                    || (stand + m.capture().map_or(0, value) + DELTA_MARGIN > alpha
                        && see(board, m) >= 0)
            });
            moves
        };
        moves.sort_by_cached_key(|m| std::cmp::Reverse(mvv_lva(m)));
        // Not in check, alpha already holds the standing pat.
        let mut best = if in_check { -INF } else { alpha };
        for m in moves {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let v = -self.quiesce(&next, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    fn negamax(
        &mut self,
        pos: &Chess,
        hash: u64,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        // No two null moves in a row.
        let allow_null = !std::mem::replace(&mut self.after_null, false);
        if ply > 0
            && (pos.halfmoves() >= 100
                || self.path.contains(&hash)
                || pos.is_insufficient_material())
        {
            return 0;
        }
        let in_check = pos.is_check();
        if in_check && ply < MAX_PLY / 2 {
            depth += 1;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        self.check_time();
        if self.stopped {
            return 0;
        }
        let entry = self.tt.probe(hash);
        let tt_move = entry.and_then(|e| e.mv);
        if let Some(e) = entry
            && e.depth >= depth
            && ply > 0
        {
            let s = from_tt(e.score, ply);
            match e.bound {
                Bound::Exact => return s,
                Bound::Lower if s >= beta => return s,
                Bound::Upper if s <= alpha => return s,
                _ => {}
            }
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        // Pruning, never at the root, in check, in a principal-variation node (an open window:
        // the root's candidates get exact values there) or near mate scores.
        let pv_node = beta - alpha > 1;
        let prune = ply > 0 && !in_check && !pv_node && beta.abs() < MATE_BOUND;
        let static_eval = if prune { evaluate(pos) } else { 0 };
        if prune {
            // Reverse futility: far above beta at a shallow node, a quiet move will not fall
            // below it.
            if depth <= RFP_DEPTH && static_eval - RFP_MARGIN * depth >= beta {
                return static_eval;
            }
            // Null move: if passing still holds beta after a reduced search, a move will too.
            if allow_null
                && depth >= 3
                && static_eval >= beta
                && has_pieces(pos)
                && let Ok(null) = pos.clone().swap_turn()
            {
                let child = key(&null);
                let r = 3 + depth / 6;
                self.after_null = true;
                let v = -self.negamax(&null, child, depth - 1 - r, ply + 1, -beta, -beta + 1);
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    return if v > MATE_BOUND { beta } else { v };
                }
            }
        }
        // Internal iterative reduction: a node the table knows nothing of is likely new ground
        // or badly ordered; search it one ply shallower (the next iteration gives it its move).
        if tt_move.is_none() && depth >= IIR_DEPTH && ply > 0 {
            depth -= 1;
        }
        self.order(pos, &mut moves, tt_move, ply);
        let mut quiets_tried = MoveList::new();
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        self.path.push(hash);
        for (i, m) in moves.iter().enumerate() {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            let tactical = is_tactical(m);
            let killer = ply < MAX_PLY && self.killers[ply].contains(&Some(*m));
            let quiet = !(tactical || next.is_check() || killer);
            // Futility: at the frontier, a quiet move cannot lift a position this far below
            // alpha. Late-move pruning: near the leaves, the late quiet moves of a well-ordered
            // list are skipped.
            if prune
                && quiet
                && i > 0
                && ((depth <= 2 && static_eval + FUTILITY_MARGIN * depth <= alpha)
                    || (depth <= 3 && i >= late_move_count(depth)))
            {
                continue;
            }
            let child = hash_after(pos, hash, *m, &next);
            // Principal variation search: the first move with the full window, the rest with a
            // null window (late quiet moves at a reduced depth first), re-searched when they
            // beat alpha.
            let mut v;
            if i == 0 {
                v = -self.negamax(&next, child, depth - 1, ply + 1, -beta, -alpha);
            } else {
                let r = if quiet && !in_check {
                    reduction(depth, i).min(depth - 2).max(0)
                } else {
                    0
                };
                v = -self.negamax(&next, child, depth - 1 - r, ply + 1, -alpha - 1, -alpha);
                if r > 0 && v > alpha && !self.stopped {
                    v = -self.negamax(&next, child, depth - 1, ply + 1, -alpha - 1, -alpha);
                }
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(&next, child, depth - 1, ply + 1, -beta, -alpha);
                }
            }
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(*m);
            }
            if v > alpha {
                alpha = v;
            }
            if alpha >= beta {
                if !tactical && ply < MAX_PLY {
                    if self.killers[ply][0] != Some(*m) {
                        self.killers[ply][1] = self.killers[ply][0];
                        self.killers[ply][0] = Some(*m);
                    }
                    // The cutting move gains history, the quiet moves tried before it lose as
                    // much.
                    let bonus = (depth * depth).min(HISTORY_BONUS_MAX);
                    self.update_history(m, bonus);
                    for q in &quiets_tried {
                        self.update_history(q, -bonus);
                    }
                }
                break;
            }
            if !tactical {
                // At most 218 legal moves: the list (256) never fills.
                quiets_tried.push(*m);
            }
        }
        self.path.pop();
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(hash, best_move, to_tt(best, ply), depth, bound);
        best
    }

    /// The principal variation after `first`, read from the transposition table.
    fn pv_after(&self, pos: &Chess, hash: u64, first: Move, max: usize) -> Vec<Move> {
        let mut pv = vec![first];
        let mut p = pos.clone();
        let mut h = hash;
        let mut next = p.clone();
        next.play_unchecked(first);
        h = hash_after(&p, h, first, &next);
        p = next;
        while pv.len() < max {
            let Some(m) = self
                .tt
                .probe(h)
                .and_then(|e| e.mv)
                .and_then(|code| code.find(&p.legal_moves()))
            else {
                break;
            };
            let mut n = p.clone();
            n.play_unchecked(m);
            h = hash_after(&p, h, m, &n);
            p = n;
            pv.push(m);
        }
        pv
    }

    /// Iterative deepening over `root_moves` (legal moves of `pos`; the first `exact_count`
    /// of them get exact values within `tolerance(depth)` of the best, the others only need to be
    /// shown worse than the best). Returns the last completed iteration, or `None` if not even
    /// depth 1 completed.
    pub fn search_root(
        &mut self,
        pos: &Chess,
        root_moves: &[Move],
        exact_count: usize,
        tolerance: impl Fn(u32) -> i32,
    ) -> Option<RootResult> {
        if root_moves.is_empty() {
            return None;
        }
        let hash = key(pos);
        let mut order: Vec<usize> = (0..root_moves.len()).collect();
        let mut done: Option<RootResult> = None;
        let mut iterations: Vec<Iteration> = Vec::new();
        for depth in 1..=self.limits.max_depth.max(1) {
            if depth > 1 && self.limits.soft.is_some_and(|t| Instant::now() >= t) {
                break;
            }
            let mut values: Vec<Option<(i32, bool)>> = vec![None; root_moves.len()];
            let mut best = -INF;
            self.path.clear();
            self.path.extend_from_slice(self.limits.history);
            self.path.push(hash);
            for &i in &order {
                let m = root_moves[i];
                let mut next = pos.clone();
                next.play_unchecked(m);
                let child = hash_after(pos, hash, m, &next);
                let d = depth as i32 - 1;
                let (v, exact) = if best == -INF {
                    (-self.negamax(&next, child, d, 1, -INF, INF), true)
                } else if i < exact_count {
                    // A candidate: exact if it is within the tolerance of the best. Under a
                    // small tolerance, a null window at its edge first (most moves fall below
                    // it, cheaply, with the pruning of non-PV nodes); only a move above it is
                    // searched again with the open window that makes its value exact.
                    let tol = tolerance(depth).max(0);
                    let lower = best - tol - 1;
                    let v = if tol < PROBE_BELOW {
                        -self.negamax(&next, child, d, 1, -lower - 1, -lower)
                    } else {
                        lower + 1
                    };
                    if v > lower && !self.stopped {
                        let v = -self.negamax(&next, child, d, 1, -INF, -lower);
                        (v, v > lower)
                    } else {
                        (v, false)
                    }
                } else {
                    let v = -self.negamax(&next, child, d, 1, -best - 1, -best);
                    if v > best && !self.stopped {
                        (-self.negamax(&next, child, d, 1, -INF, -best), true)
                    } else {
                        (v, false)
                    }
                };
                if self.stopped {
                    break;
                }
                values[i] = Some((v, exact));
                if exact && v > best {
                    best = v;
                }
            }
            if self.stopped && done.is_some() {
                break;
            }
            if self.stopped && values.iter().any(Option::is_none) {
                // Depth 1 itself was cut short: use what it reached, if anything.
                if values.iter().all(Option::is_none) {
                    break;
                }
            }
            let mut result_values = Vec::with_capacity(root_moves.len());
            for (i, m) in root_moves.iter().enumerate() {
                let (v, exact) = values[i].unwrap_or((-INF, false));
                // For a refuted move the table still holds the refutation, the reply that cut
                // the search off.
                let pv = self.pv_after(pos, hash, *m, 16);
                result_values.push(RootValue {
                    mv: *m,
                    value: v,
                    exact,
                    pv,
                });
            }
            let best_value = result_values
                .iter()
                .filter(|r| r.exact)
                .max_by_key(|r| r.value)
                .cloned()
                .unwrap_or_else(|| result_values[0].clone());
            iterations.push(Iteration {
                depth,
                values: result_values.iter().map(|r| (r.value, r.exact)).collect(),
            });
            done = Some(RootResult {
                depth,
                seldepth: self.seldepth,
                nodes: self.nodes,
                values: result_values,
                best: best_value,
                iterations: iterations.clone(),
            });
            if let (Some(report), Some(r)) = (self.limits.progress, done.as_ref()) {
                report(r);
            }
            if self.stopped {
                break;
            }
            // Next iteration: the best move first (its value narrows every later window), then
            // the candidates in their given order, then the others by value.
            let vals = values;
            let best_index = (0..root_moves.len())
                .filter(|&i| vals[i].is_some_and(|v| v.1))
                .max_by_key(|&i| (vals[i].map_or(-INF, |v| v.0), std::cmp::Reverse(i)));
            order.sort_by_key(|&i| {
                if Some(i) == best_index {
                    (0, 0)
                } else if i < exact_count {
                    (1, i as i32)
                } else {
                    (2, -vals[i].map_or(-INF, |v| v.0))
                }
            });
            if best.abs() > MATE_BOUND && depth as i32 > (MATE - best.abs()) + 1 {
                break;
            }
        }
        if let Some(r) = &mut done {
            r.nodes = self.nodes;
            r.seldepth = self.seldepth;
        }
        done
    }
}

/// Whether a score is a mate score, and in how many moves (positive: the side to move mates).
pub fn mate_in(score: i32) -> Option<i32> {
    if score > MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score < -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::CastlingMode;

    fn best(fen: &str, depth: u32) -> (String, i32) {
        let pos = parse_fen(fen).expect("fen");
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let mut tt = TranspositionTable::new(1);
        let mut s = Searcher::new(
            SearchLimits {
                max_depth: depth,
                ..SearchLimits::default()
            },
            &mut tt,
        );
        let r = s.search_root(&pos, &moves, 0, |_| 0).expect("a result");
        (
            r.best.mv.to_uci(CastlingMode::Standard).to_string(),
            r.best.value,
        )
    }

    #[test]
    fn finds_mate_in_one() {
        let (m, v) = best("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 2);
        assert_eq!(m, "d1d8");
        assert_eq!(mate_in(v), Some(1));
    }

    #[test]
    fn finds_mate_in_two() {
        // Kc6 and Rh1 against Ka8: 1. Rh8+? Ka7 escapes; 1. Kc7! Ka7 2. Ra1# (or 1. Kb6 Kb8
        // 2. Rh8#).
        let (m, v) = best("k7/8/2K5/8/8/8/8/7R w - - 0 1", 4);
        assert_eq!(mate_in(v), Some(2), "{m} {v}");
        assert!(m == "c6c7" || m == "c6b6", "{m}");
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
            let (m, v) = best(fen, 9);
            assert_eq!(m, bm, "{fen}: {m} ({v})");
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
        let back = game
            .position
            .legal_moves()
            .into_iter()
            .find(|m| m.to_uci(CastlingMode::Standard).to_string() == "g8h8")
            .expect("Kh8 is legal");
        let value = |history: &[u64]| {
            let mut tt = TranspositionTable::new(1);
            let mut s = Searcher::new(
                SearchLimits {
                    max_depth: 4,
                    history,
                    ..SearchLimits::default()
                },
                &mut tt,
            );
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
        let mut tt = TranspositionTable::new(1);
        let mut s = Searcher::new(
            SearchLimits {
                max_depth: 1,
                ..SearchLimits::default()
            },
            &mut tt,
        );
        let qxd5 = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.to_uci(CastlingMode::Standard).to_string() == "d2d5")
            .expect("Qxd5 is legal");
        let r = s.search_root(&pos, &[qxd5], 1, |_| 10_000).expect("result");
        // After Qxd5 exd5 White has a bare king against king and pawn (about -100); the
        // capture alone would have looked like +900.
        assert!(r.values[0].value < 0, "value {}", r.values[0].value);
        // Stand pat: the position itself is worth about a queen minus a knight and a pawn.
        let mut s = Searcher::new(SearchLimits::default(), &mut tt);
        assert!(s.quiesce(&pos, -INF, INF, 0) > 400);
    }
}
