//! Every constant of the search, in one place (as Viridithas keeps its `search/parameters.rs`):
//! the selectivity margins (centipawns), the reductions, the history bonus, the principal
//! lines' lengths and the time the `best` style gives a move. A tuner reaches them here; a
//! change to one is a change of strength, tested as `docs/strength.md` says.

/// Reverse futility: the deepest node, and the margin per ply (one ply less when improving).
pub const RFP_DEPTH: i32 = 8;
/// Reverse futility's margin per ply.
pub const RFP: i32 = 75;
/// Razoring: the deepest node.
pub const RAZOR_DEPTH: i32 = 3;
/// Razoring's margin at depth 0.
pub const RAZOR_BASE: i32 = 250;
/// Razoring's margin per ply.
pub const RAZOR: i32 = 200;
/// Futility of quiet moves: the deepest node (in plies after reduction).
pub const FUTILITY_DEPTH: i32 = 8;
/// Futility's margin at depth 0.
pub const FUTILITY_BASE: i32 = 90;
/// Futility's margin per ply.
pub const FUTILITY: i32 = 90;
/// Late-move pruning: the deepest node.
pub const LMP_DEPTH: i32 = 8;
/// Late-move pruning: quiet moves searched at depth d before the rest are skipped,
/// `LMP_BASE + d²` (half when not improving).
pub const LMP_BASE: i32 = 3;
/// Static-exchange pruning: the deepest node.
pub const SEE_DEPTH: i32 = 8;
/// Static-exchange pruning: the loss allowed per ply, quiet moves.
pub const SEE_QUIET: i32 = 60;
/// Static-exchange pruning: the loss allowed per ply, captures.
pub const SEE_TACTICAL: i32 = 100;
/// Depth from which a node without a table move is searched a ply shallower.
pub const IIR_DEPTH: i32 = 4;
/// What a quiescence capture may gain beyond its victim (positional swing) before it is
/// considered able to reach alpha.
pub const DELTA: i32 = 200;
/// The first aspiration window's half-width around the previous iteration's value.
pub const ASPIRATION: i32 = 20;
/// The depth from which aspiration windows are used.
pub const ASPIRATION_DEPTH: u32 = 4;

/// Quiescence orders captures by `QUIESCE_MVV · MVV-LVA + capture history /
/// QUIESCE_HISTORY_DIVISOR`: the victim first, the history between equal trades.
pub const QUIESCE_MVV: i32 = 64;
/// See [`QUIESCE_MVV`].
pub const QUIESCE_HISTORY_DIVISOR: i32 = 16;

/// Null move: the shallowest node that tries it.
pub const NULL_DEPTH: i32 = 3;
/// Null move's reduction: `NULL_BASE + depth / NULL_DEPTH_DIVISOR`, plus one per
/// `NULL_EVAL_DIVISOR` centipawns the evaluation exceeds beta, at most `NULL_EVAL_MAX`.
pub const NULL_BASE: i32 = 3;
/// See [`NULL_BASE`].
pub const NULL_DEPTH_DIVISOR: i32 = 3;
/// See [`NULL_BASE`].
pub const NULL_EVAL_DIVISOR: i32 = 200;
/// See [`NULL_BASE`].
pub const NULL_EVAL_MAX: i32 = 3;

/// Late-move reductions: `⌊LMR_BASE + ln(depth)·ln(move number) / LMR_DIVISOR⌋`.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// The shallowest node whose late moves are reduced.
pub const LMR_DEPTH: i32 = 3;
/// One ply less reduction per this much quiet history.
pub const LMR_HISTORY_DIVISOR: i32 = 6000;
/// A losing capture is reduced (by half the table's reduction) from this move number on.
pub const LMR_BAD_TACTICAL_AFTER: usize = 3;

/// The history bonus of a move that cut off at depth d: `HISTORY_BONUS·d −
/// HISTORY_BONUS_OFFSET`, within 0 and `HISTORY_BONUS_MAX` (the malus of those that did not).
pub const HISTORY_BONUS: i32 = 170;
/// See [`HISTORY_BONUS`].
pub const HISTORY_BONUS_OFFSET: i32 = 120;
/// See [`HISTORY_BONUS`].
pub const HISTORY_BONUS_MAX: i32 = 1500;

/// Tolerances (centipawns) under which a root candidate of the move model's search is first
/// tried with a null window at the tolerance's edge: at 0 most moves fall below it cheaply,
/// at 100 most pass and would be searched twice.
pub const PROBE_BELOW: i32 = 80;

/// Moves of a principal line reported by the move model's search and the candidates' checks.
pub const PV_MODEL: usize = 16;
/// Moves of a principal line reported by the `best` style's search.
pub const PV_BEST: usize = 32;

/// How long the `best` style thinks, as a share of the move's optimum time, by how many
/// iterations in a row the best move has stayed the same: a new best move asks for more time,
/// a settled one for less.
pub const STABILITY_SCALE: [f64; 6] = [2.0, 1.5, 1.15, 0.95, 0.8, 0.7];

/// Iterations past a mate's length after which the search stops once it has found one (a
/// shorter mate would show within them).
pub const MATE_SETTLED: i32 = 2;
