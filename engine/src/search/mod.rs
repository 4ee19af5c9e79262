//! The verifier's search: negamax alpha-beta (principal variation search) with quiescence,
//! iterative deepening under a deadline, and a transposition table on Zobrist keys (also in
//! quiescence, which keeps the static evaluation there too).
//!
//! Move ordering ([`picker`]): the table's move, good captures by victim and capture
//! history, killers, quiet moves by butterfly and continuation history, losing captures. The
//! histories ([`history`]) live from move to move of a game.
//!
//! Selectivity: at non-PV nodes reverse futility, razoring and null-move pruning (reduced more
//! the further the evaluation stands above beta); in the move loop, once a move that is not
//! mated has been found, late-move pruning, futility pruning and static-exchange pruning of quiet
//! moves, and static-exchange pruning of captures; late-move reductions by depth, move number,
//! history, whether the evaluation improves and whether the node is expected to cut; internal
//! iterative reduction. A return to a position of the search path or of the game before the root
//! ([`Setup::history`]) scores as a draw.
//!
//! Two roots under one iterative-deepening loop (module `roots`). [`Searcher::search_best`] is a
//! plain engine's root for the `best` style: every move, ordered by the previous iteration,
//! aspiration windows, MultiPV, and an aborted iteration's result used when its first move
//! finished. [`Searcher::search_root`] is the move model's root: exact values for the root moves
//! it is asked about, within a margin of the best, at every iteration, so that the model can
//! compare every move with the best.

use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::Instant;

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{Bitboard, Chess, EnPassantMode, Move, MoveList, Position, Role};

use self::evaluate::{evaluate, value};
use self::history::{Histories, Moved};
use self::movegen::tactical_moves;
use self::nnue::{Accumulator, Network};
use self::picker::{Kind, Picker, is_tactical, mvv_lva, table_move};
use self::see::see_ge;
use self::tt::{Bound, Hit, TranspositionTable};
use crate::position::key;
pub use limits::{Limits, MAX_DEPTH};
pub use setup::{Evaluation, Setup};

/// Larger than any evaluation.
pub const INF: i32 = 32_000;
/// Mate scores are `MATE - plies to mate`.
pub const MATE: i32 = 31_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
const MAX_PLY: usize = 128;

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
    /// [`Searcher::search_root`]: the values of the root moves, in the order they were given.
    /// [`Searcher::search_best`]: the principal lines (one per MultiPV line), best first, each
    /// exact.
    pub values: Vec<RootValue>,
    /// The best move and its value.
    pub best: RootValue,
    /// [`Searcher::search_root`]: every completed iteration, shallowest first (what a move
    /// looked like at each depth). Empty for [`Searcher::search_best`].
    pub iterations: Vec<Iteration>,
}

/// What the search keeps from move to move of a game: the transposition table and the move
/// histories. One per engine; `ucinewgame` clears it.
#[derive(Debug)]
pub struct Memory {
    /// What the search learned about positions.
    pub tt: TranspositionTable,
    /// What it learned about moves.
    pub histories: Histories,
}

impl Memory {
    /// A memory with a table of `mb` megabytes.
    pub fn new(mb: usize) -> Memory {
        Memory {
            tt: TranspositionTable::new(mb),
            histories: Histories::new(),
        }
    }

    /// Like [`Memory::new`], but a refused allocation is an error.
    pub fn try_new(mb: usize) -> Result<Memory, String> {
        Ok(Memory {
            tt: TranspositionTable::try_new(mb)?,
            histories: Histories::new(),
        })
    }

    /// Forgets everything (`ucinewgame`).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.histories.clear();
    }
}

impl Default for Memory {
    fn default() -> Memory {
        Memory::new(tt::DEFAULT_MB)
    }
}

/// Where a ply's accumulator stands (the network evaluation's hidden sums, [`nnue`]).
#[derive(Clone, Copy, Default)]
enum Sums {
    /// Not known: summed from the board when the node is entered.
    #[default]
    Unknown,
    /// Up to date.
    Fresh,
    /// The parent's, after this move by this side: brought up to date when needed.
    After(shakmaty::Color, Move),
    /// The parent's (a null move).
    AfterNull,
}

/// What the search knows of one ply of its path.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// Its accumulator's state.
    sums: Sums,
    /// The static evaluation (`None` in check).
    eval: Option<i32>,
    /// The move played from this ply.
    moved: Option<Moved>,
    killers: [Option<Move>; 2],
}

/// The search state.
pub struct Searcher<'a, 't> {
    /// The network evaluation, or `None` for the hand-made one.
    net: Option<&'static Network>,
    /// The network's hidden sums, one per ply.
    sums: Box<[Accumulator]>,
    tt: &'t mut TranspositionTable,
    histories: &'t mut Histories,
    stack: Box<[Frame; MAX_PLY + 1]>,
    /// Keys of the game's positions since its last irreversible move, then of the search path
    /// up to the node being searched (exclusive).
    path: Vec<u64>,
    nodes: u64,
    seldepth: u32,
    stopped: bool,
    limits: Limits<'a>,
    /// Keys of the game's positions before the root ([`Setup::history`]).
    history: &'a [u64],
    /// The deepest iteration.
    max_depth: u32,
    /// Network evaluations whose incrementally kept sums the tests compared with a sum of the
    /// whole board.
    #[cfg(test)]
    sums_checked: u64,
}

/// The key of `next`, the position after `m` from `pos` (whose key is `hash`): updated by the
/// pieces that moved where shakmaty can, and where it leaves a king move to a full hash, by
/// the king's squares when the move changes no castling right and no en passant square (the
/// mover has no right left to lose and does not capture a rook that holds one); else hashed
/// anew.
fn hash_after(pos: &Chess, hash: u64, m: Move, next: &Chess) -> u64 {
    if let Some(Zobrist64(h)) = pos.update_zobrist_hash(Zobrist64(hash), m, EnPassantMode::Legal) {
        return h;
    }
    let turn = pos.turn();
    if let Move::Normal {
        role: Role::King,
        from,
        capture,
        to,
        promotion: None,
    } = m
        && !pos.castles().has_color(turn)
        && !pos.castles().castling_rights().contains(to)
        && pos.ep_square(EnPassantMode::Always).is_none()
    {
        let mut h = Zobrist64(hash);
        h ^= Zobrist64::zobrist_for_white_turn();
        h ^= Zobrist64::zobrist_for_piece(from, Role::King.of(turn));
        h ^= Zobrist64::zobrist_for_piece(to, Role::King.of(turn));
        if let Some(victim) = capture {
            h ^= Zobrist64::zobrist_for_piece(to, victim.of(!turn));
        }
        return h.0;
    }
    key(next)
}

/// Whether the side to move has a piece other than pawns and king (null-move pruning is unsound
/// in pawn endings, where zugzwang is the rule).
fn has_pieces(pos: &Chess) -> bool {
    let b = pos.board();
    (b.by_color(pos.turn()) & !(b.pawns() | b.kings())) != Bitboard::EMPTY
}

/// Late-move reductions by depth and move number: ⌊0.75 + ln(depth)·ln(number)/2.25⌋.
fn reduction(depth: i32, index: usize) -> i32 {
    static TABLE: OnceLock<[[u8; 64]; 64]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0u8; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                *r = (params::LMR_BASE + (d as f64).ln() * (i as f64).ln() / params::LMR_DIVISOR)
                    as u8;
            }
        }
        t
    });
    i32::from(table[depth.clamp(0, 63) as usize][index.min(63)])
}

/// Quiet moves a node at `depth` searches before late-move pruning skips the rest.
fn late_move_count(depth: i32, improving: bool) -> usize {
    let n = params::LMP_BASE + depth * depth;
    (if improving { n } else { n / 2 }) as usize
}

/// The history bonus (and malus) of a move that cut off (or did not) at `depth`.
fn history_bonus(depth: i32) -> i32 {
    (params::HISTORY_BONUS * depth - params::HISTORY_BONUS_OFFSET)
        .clamp(0, params::HISTORY_BONUS_MAX)
}

/// The table's verdict on a node whose value need not be exact: its score, when its bound
/// settles the window (`alpha`, `beta`) by itself.
fn table_cutoff(e: Hit, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = from_tt(e.score, ply);
    match e.bound {
        Bound::Exact => Some(s),
        Bound::Lower if s >= beta => Some(s),
        Bound::Upper if s <= alpha => Some(s),
        _ => None,
    }
}

/// A better guess at a node's value than its static evaluation `raw`: the table's score when
/// its bound is tighter (never a mate score).
fn value_guess(raw: i32, entry: Option<Hit>, ply: usize) -> i32 {
    match entry {
        Some(e) if e.score.abs() < MATE_BOUND => {
            let s = from_tt(e.score, ply);
            match e.bound {
                Bound::Lower if s > raw => s,
                Bound::Upper if s < raw => s,
                Bound::Exact => s,
                _ => raw,
            }
        }
        _ => raw,
    }
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

/// A root move of [`Searcher::search_best`].
#[derive(Clone, Debug)]
struct Line {
    mv: Move,
    /// Value at the current iteration (exact within the window when `searched`), or the last
    /// iteration's.
    value: i32,
    /// Nodes spent on it in the last iteration (orders the moves that failed low).
    nodes: u64,
}

impl<'a, 't> Searcher<'a, 't> {
    /// A searcher using (and filling) `memory`; starts a new generation of the table's entries.
    pub fn new(setup: Setup<'a>, limits: Limits<'a>, memory: &'t mut Memory) -> Searcher<'a, 't> {
        memory.tt.new_search();
        Searcher::resuming(setup, limits, memory)
    }

    /// A searcher that goes on with the search before it (the same move of the game): the
    /// table's entries stay of the current generation.
    pub fn resuming(
        setup: Setup<'a>,
        limits: Limits<'a>,
        memory: &'t mut Memory,
    ) -> Searcher<'a, 't> {
        let net = setup.network.then(nnue::embedded);
        Searcher {
            net,
            sums: vec![nnue::Accumulator::default(); if net.is_some() { MAX_PLY + 2 } else { 0 }]
                .into_boxed_slice(),
            tt: &mut memory.tt,
            histories: &mut memory.histories,
            stack: Box::new([Frame::default(); MAX_PLY + 1]),
            path: Vec::with_capacity(MAX_PLY + setup.history.len() + 1),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            limits,
            history: setup.history,
            max_depth: limits.depth(setup.max_depth),
            #[cfg(test)]
            sums_checked: 0,
        }
    }

    /// Makes ply `ply`'s accumulator known, from `pos`'s board if nothing else tells it (a
    /// node entered from outside the search's own moves).
    #[inline]
    fn enter(&mut self, pos: &Chess, ply: usize) {
        if let Some(net) = self.net
            && matches!(self.stack[ply].sums, Sums::Unknown)
        {
            self.sums[ply] = net.refresh(pos.board());
            self.stack[ply].sums = Sums::Fresh;
        }
    }

    /// Ply `ply + 1` is reached by `m`, played by the side to move at `ply`.
    #[inline]
    fn moving(&mut self, pos: &Chess, ply: usize, m: Move) {
        if self.net.is_some() {
            self.stack[ply + 1].sums = Sums::After(pos.turn(), m);
        }
    }

    /// The static evaluation of `pos`, the node at `ply`, from the side to move.
    /// The node's static evaluation: the table's, when it stored one, else computed.
    fn stored_or_static_eval(&mut self, pos: &Chess, ply: usize, entry: Option<Hit>) -> i32 {
        match entry.and_then(|e| e.eval) {
            Some(e) => e,
            None => self.static_eval(pos, ply),
        }
    }

    fn static_eval(&mut self, pos: &Chess, ply: usize) -> i32 {
        let Some(net) = self.net else {
            return evaluate(pos);
        };
        // The nearest fresh ancestor, then the moves down to this ply. Every node on the path
        // was entered (its state known), so the walk ends at a fresh one; should it not, the
        // board is summed.
        let mut top = ply;
        while top > 0 && matches!(self.stack[top].sums, Sums::After(..) | Sums::AfterNull) {
            top -= 1;
        }
        if !matches!(self.stack[top].sums, Sums::Fresh) {
            self.sums[ply] = net.refresh(pos.board());
            self.stack[ply].sums = Sums::Fresh;
            return net.evaluate(&self.sums[ply], pos.turn());
        }
        for p in top + 1..=ply {
            let (before, after) = self.sums.split_at_mut(p);
            match self.stack[p].sums {
                Sums::After(turn, m) => before[p - 1].update_into(net, turn, &m, &mut after[0]),
                _ => after[0] = before[p - 1],
            }
            self.stack[p].sums = Sums::Fresh;
        }
        #[cfg(test)]
        {
            // Every network evaluation of the tests: the sums kept move by move down the path
            // (null moves, captures, castling, en passant, promotions) are the board's.
            assert!(
                self.sums[ply] == net.refresh(pos.board()),
                "the search's sums at ply {ply} differ from a refresh of {}",
                crate::position::fen_of(pos)
            );
            self.sums_checked += 1;
        }
        net.evaluate(&self.sums[ply], pos.turn())
    }

    fn check_time(&mut self) {
        if self.nodes & 1023 == 0 {
            let stop = self.limits.stop.is_some_and(|s| s.load(Ordering::Relaxed));
            let late = self.limits.deadline.is_some_and(|t| Instant::now() >= t);
            let spent = self.limits.max_nodes.is_some_and(|n| self.nodes >= n);
            self.stopped |= stop || late || spent;
        }
    }

    /// Whether the position (not yet on the path) repeats one of the path since the last
    /// irreversible move.
    fn repeats(&self, pos: &Chess, hash: u64) -> bool {
        let back = (pos.halfmoves() as usize).min(self.path.len());
        let n = self.path.len();
        (2..=back).step_by(2).any(|k| self.path[n - k] == hash)
    }

    /// The moves one and two plies before `ply`, for continuation history.
    fn before(&self, ply: usize) -> [Option<Moved>; 2] {
        [
            ply.checked_sub(1).and_then(|p| self.stack[p].moved),
            ply.checked_sub(2).and_then(|p| self.stack[p].moved),
        ]
    }

    fn quiesce(&mut self, pos: &Chess, hash: u64, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.enter(pos, ply);
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
                self.static_eval(pos, ply)
            };
        }
        let pv_node = beta - alpha > 1;
        let entry = self.tt.probe(hash);
        if let Some(s) = entry
            .filter(|_| !pv_node)
            .and_then(|e| table_cutoff(e, ply, alpha, beta))
        {
            return s;
        }
        let original_alpha = alpha;
        // In check every evasion is searched (none: mate). Otherwise the side to move may stand
        // pat, and only captures and promotions are generated; a capture that could not lift
        // the position to alpha even winning its victim and a margin is skipped (delta pruning),
        // and so is one that loses material in the exchange on its square.
        let mut eval = None;
        let mut moves = if in_check {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            moves
        } else {
            let raw = self.stored_or_static_eval(pos, ply, entry);
            eval = Some(raw);
            let stand = value_guess(raw, entry, ply);
            if stand >= beta {
                if entry.is_none() {
                    self.tt.store(hash, None, stand, eval, 0, Bound::Lower);
                }
                return stand;
            }
            alpha = alpha.max(stand);
            let mut moves = tactical_moves(pos);
            let board = pos.board();
            moves.retain(|m| {
                m.is_promotion()
                    || (stand + m.capture().map_or(0, value) + params::DELTA > alpha
                        && see_ge(board, m, 0))
            });
            moves
        };
        let color = pos.turn();
        let table = entry.and_then(|e| e.mv);
        moves.sort_by_cached_key(|m| {
            if table.is_some_and(|t| t.is(m)) {
                return i32::MIN;
            }
            -(mvv_lva(m) * params::QUIESCE_MVV
                + self.histories.capture(color, m) / params::QUIESCE_HISTORY_DIVISOR)
        });
        // Not in check, alpha already holds the standing pat.
        let mut best = if in_check { -INF } else { alpha };
        let mut best_move = None;
        for &m in &moves {
            let mut next = pos.clone();
            next.play_unchecked(m);
            let child = hash_after(pos, hash, m, &next);
            self.moving(pos, ply, m);
            let v = -self.quiesce(&next, child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                best_move = Some(m);
                if alpha >= beta {
                    break;
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha && pv_node {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(hash, best_move, to_tt(best, ply), eval, 0, bound);
        best
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Chess,
        hash: u64,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        cut_node: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        if ply > 0 {
            if pos.halfmoves() >= 100 || self.repeats(pos, hash) || pos.is_insufficient_material() {
                return 0;
            }
            // Mate distance: no line from here can beat a mate already found nearer the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = pos.is_check();
        if in_check && ply < MAX_PLY / 2 {
            depth += 1;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(pos, hash, alpha, beta, ply);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        self.check_time();
        if self.stopped {
            return 0;
        }
        self.enter(pos, ply);
        let entry = self.tt.probe(hash);
        if let Some(s) = entry
            .filter(|e| e.depth >= depth && ply > 0 && !pv_node)
            .and_then(|e| table_cutoff(e, ply, alpha, beta))
        {
            return s;
        }
        let table = entry
            .and_then(|e| e.mv)
            .and_then(|code| table_move(pos, code));
        // The static evaluation, and a better guess at the node's value: the table's bound
        // when it is tighter.
        let raw_eval = (!in_check).then(|| self.stored_or_static_eval(pos, ply, entry));
        let eval = raw_eval.map_or(-INF, |raw| value_guess(raw, entry, ply));
        self.stack[ply].eval = raw_eval;
        self.stack[ply].moved = None;
        if ply + 2 <= MAX_PLY {
            self.stack[ply + 1].killers = [None, None];
        }
        // Improving: the evaluation is better than the mover's two plies ago.
        let improving = match (
            raw_eval,
            ply.checked_sub(2).and_then(|p| self.stack[p].eval),
        ) {
            (Some(now), Some(then)) => now > then,
            (Some(_), None) => true,
            _ => false,
        };
        let prune = ply > 0 && !in_check && !pv_node && beta.abs() < MATE_BOUND;
        if prune {
            // Reverse futility: far above beta at a shallow node, a quiet move will not fall
            // below it.
            if depth <= params::RFP_DEPTH
                && eval - params::RFP * (depth - i32::from(improving)) >= beta
                && eval < MATE_BOUND
            {
                return eval;
            }
            // Razoring: far below alpha at a shallow node, only a capture could help; if
            // quiescence does not find one, give up.
            if depth <= params::RAZOR_DEPTH
                && eval + params::RAZOR_BASE + params::RAZOR * depth < alpha
            {
                let v = self.quiesce(pos, hash, alpha, alpha + 1, ply);
                if self.stopped {
                    return 0;
                }
                if v <= alpha {
                    return v;
                }
            }
            // Null move: if passing still holds beta after a reduced search, a move will too.
            let after_null = ply > 0 && self.stack[ply - 1].moved.is_none();
            if !after_null
                && depth >= params::NULL_DEPTH
                && eval >= beta
                && has_pieces(pos)
                && let Ok(null) = pos.clone().swap_turn()
            {
                let child = key(&null);
                let r = params::NULL_BASE
                    + depth / params::NULL_DEPTH_DIVISOR
                    + ((eval - beta) / params::NULL_EVAL_DIVISOR).min(params::NULL_EVAL_MAX);
                self.path.push(hash);
                if self.net.is_some() {
                    self.stack[ply + 1].sums = Sums::AfterNull;
                }
                let v = -self.negamax(
                    &null,
                    child,
                    depth - 1 - r,
                    ply + 1,
                    -beta,
                    -beta + 1,
                    !cut_node,
                );
                self.path.pop();
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
        if table.is_none() && depth >= params::IIR_DEPTH && ply > 0 {
            depth -= 1;
        }
        let color = pos.turn();
        let before = self.before(ply);
        let mut picker = Picker::new(table, self.stack[ply].killers);
        let mut quiets_tried = MoveList::new();
        let mut tacticals_tried = MoveList::new();
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0usize;
        self.path.push(hash);
        while let Some((m, kind)) = picker.next(pos, self.histories, before) {
            let tactical = is_tactical(&m);
            let quiet_history = if tactical {
                0
            } else {
                self.histories.quiet(color, &m, before)
            };
            let mut next = pos.clone();
            next.play_unchecked(m);
            let gives_check = next.is_check();
            // Move-loop pruning, once a move that is not mated has been found (else every move
            // pruned would leave a false mate score).
            if ply > 0 && best > -MATE_BOUND && !gives_check {
                if !tactical {
                    let lmr_depth = (depth - 1 - reduction(depth, searched + 1)).max(0);
                    if depth <= params::LMP_DEPTH && searched >= late_move_count(depth, improving) {
                        picker.skip_quiets();
                        continue;
                    }
                    if !in_check
                        && lmr_depth <= params::FUTILITY_DEPTH
                        && eval + params::FUTILITY_BASE + params::FUTILITY * lmr_depth <= alpha
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    if depth <= params::SEE_DEPTH
                        && !see_ge(pos.board(), &m, -params::SEE_QUIET * lmr_depth)
                    {
                        continue;
                    }
                } else if depth <= params::SEE_DEPTH
                    && kind == Kind::BadTactical
                    && !see_ge(pos.board(), &m, -params::SEE_TACTICAL * depth)
                {
                    continue;
                }
            }
            let child = hash_after(pos, hash, m, &next);
            self.stack[ply].moved = Some(Moved::of(color, &m));
            self.moving(pos, ply, m);
            let new_depth = depth - 1;
            // Principal variation search: the first move with the full window, the rest with a
            // null window (late quiet moves at a reduced depth first), searched again when they
            // beat alpha.
            let mut v;
            if searched == 0 {
                v = -self.negamax(
                    &next,
                    child,
                    new_depth,
                    ply + 1,
                    -beta,
                    -alpha,
                    !pv_node && !cut_node,
                );
            } else {
                let mut r = 0;
                if depth >= params::LMR_DEPTH && searched > usize::from(pv_node) && !tactical {
                    r = reduction(depth, searched + 1);
                    r += i32::from(!pv_node);
                    r += i32::from(!improving);
                    r += i32::from(cut_node);
                    r -= i32::from(kind == Kind::Killer);
                    r -= i32::from(gives_check);
                    r -= quiet_history / params::LMR_HISTORY_DIVISOR;
                    r = r.clamp(0, new_depth - 1);
                } else if depth >= params::LMR_DEPTH
                    && kind == Kind::BadTactical
                    && searched >= params::LMR_BAD_TACTICAL_AFTER
                {
                    r = (reduction(depth, searched + 1) / 2).clamp(0, new_depth - 1);
                }
                v = -self.negamax(
                    &next,
                    child,
                    new_depth - r,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    true,
                );
                if r > 0 && v > alpha && !self.stopped {
                    v = -self.negamax(
                        &next,
                        child,
                        new_depth,
                        ply + 1,
                        -alpha - 1,
                        -alpha,
                        !cut_node,
                    );
                }
                if pv_node && v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(&next, child, new_depth, ply + 1, -beta, -alpha, false);
                }
            }
            searched += 1;
            if self.stopped {
                self.path.pop();
                return 0;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                best_move = Some(m);
                if alpha >= beta {
                    let bonus = history_bonus(depth);
                    if tactical {
                        self.histories.update_capture(color, &m, bonus);
                    } else {
                        let killers = &mut self.stack[ply].killers;
                        if killers[0] != Some(m) {
                            killers[1] = killers[0];
                            killers[0] = Some(m);
                        }
                        self.histories.update_quiet(color, &m, before, bonus);
                        for q in &quiets_tried {
                            self.histories.update_quiet(color, q, before, -bonus);
                        }
                    }
                    for c in &tacticals_tried {
                        self.histories.update_capture(color, c, -bonus);
                    }
                    break;
                }
            }
            // At most 218 legal moves: the lists (256) never fill.
            if tactical {
                tacticals_tried.push(m);
            } else {
                quiets_tried.push(m);
            }
        }
        self.path.pop();
        if searched == 0 && !picker.any_legal() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(hash, best_move, to_tt(best, ply), raw_eval, depth, bound);
        best
    }

    /// The principal variation after `first`, read from the transposition table (stopping
    /// where a position of the line or of the game repeats, which the game would end as a
    /// draw).
    fn pv_after(&self, pos: &Chess, hash: u64, first: Move, max: usize) -> Vec<Move> {
        let mut pv = vec![first];
        // The game's positions since its last irreversible move count too: a GUI ends the game
        // at their repetition.
        let mut seen = self.history.to_vec();
        seen.push(hash);
        let mut p = pos.clone();
        p.play_unchecked(first);
        let mut h = hash_after(pos, hash, first, &p);
        // Nor does a line go on past the fifty-move rule or a board no one can mate on.
        while pv.len() < max
            && !seen.contains(&h)
            && p.halfmoves() < 100
            && !p.is_insufficient_material()
        {
            seen.push(h);
            let Some(m) = self
                .tt
                .probe(h)
                .and_then(|e| e.mv)
                .and_then(|code| table_move(&p, code))
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

    /// Searches root move `m` of `pos` to `depth` with the window (`alpha`, `beta`) from the
    /// root's side.
    #[allow(clippy::too_many_arguments)]
    fn search_move(
        &mut self,
        pos: &Chess,
        hash: u64,
        m: Move,
        depth: i32,
        alpha: i32,
        beta: i32,
        cut_node: bool,
    ) -> i32 {
        let mut next = pos.clone();
        next.play_unchecked(m);
        let child = hash_after(pos, hash, m, &next);
        self.stack[0].moved = Some(Moved::of(pos.turn(), &m));
        self.moving(pos, 0, m);
        -self.negamax(&next, child, depth - 1, 1, -beta, -alpha, cut_node)
    }

    /// Resets the path to the game's history and the root `pos` (whose key is `hash`).
    fn start_iteration(&mut self, pos: &Chess, hash: u64) {
        self.path.clear();
        self.path.extend_from_slice(self.history);
        self.path.push(hash);
        self.stack[0].eval = None;
        self.stack[1].killers = [None, None];
        for frame in self.stack.iter_mut() {
            frame.sums = Sums::Unknown;
        }
        self.enter(pos, 0);
    }

    /// Whether root move `m` is worth at least `floor` at `depth` (a null-window search just
    /// below it): how the cases' candidates are checked against the search's best move.
    /// `None` when stopped.
    pub fn at_least(
        &mut self,
        pos: &Chess,
        m: Move,
        depth: u32,
        floor: i32,
    ) -> Option<(bool, Vec<Move>)> {
        let hash = key(pos);
        self.start_iteration(pos, hash);
        let v = self.search_move(pos, hash, m, depth.max(1) as i32, floor - 1, floor, true);
        if self.stopped {
            return None;
        }
        Some((v >= floor, self.pv_after(pos, hash, m, params::PV_MODEL)))
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
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

pub mod evaluate;
pub mod history;
mod limits;
mod movegen;
pub mod nnue;
mod params;
pub mod picker;
mod roots;
pub mod see;
mod setup;
pub(crate) mod tt;

#[cfg(test)]
mod tests;
pub use tt::MAX_MB as MAX_HASH_MB;
