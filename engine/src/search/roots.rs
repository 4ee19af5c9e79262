//! The search's two roots and the one iterative-deepening loop that drives them.
//!
//! [`Searcher::deepen`] runs iterations from depth 1 to the depth limit: it asks the root whether
//! the next one should start (its own rule of time), lets it search one, reports each completed
//! iteration, stops when the search was stopped or a mate has settled
//! ([`params::MATE_SETTLED`]), and stamps the search's totals on the result. What differs is the
//! root: [`ModelRoot`] gives the move model exact values for the moves it asks about,
//! [`BestRoot`] is a plain engine's root (aspiration windows, MultiPV, time by stability).

use std::time::{Duration, Instant};

use shakmaty::{Chess, Move, Position};

use super::params;
use super::picker::{is_tactical, mvv_lva, table_move};
use super::{INF, Iteration, Line, MATE, MATE_BOUND, RootResult, RootValue, Searcher};
use crate::position::key;

/// What one iteration gave the driver.
enum Pass {
    /// The iteration's result (stopped before any iteration completed: what it found).
    Done(RootResult),
    /// Stopped: the driver ends with the last completed iteration.
    Stopped,
}

/// A root of the iterative deepening.
trait Root {
    /// Whether the iteration after `last` should start (the root's rule of time).
    fn next(&self, searcher: &Searcher<'_, '_>, last: &RootResult) -> bool;

    /// Searches one iteration at `depth`. When stopped it may amend `last` with what the
    /// unfinished iteration proved.
    fn iterate(
        &mut self,
        searcher: &mut Searcher<'_, '_>,
        depth: u32,
        last: &mut Option<RootResult>,
    ) -> Pass;
}

/// Whether a mate of value `value` found at `depth` has settled: the search has gone
/// [`params::MATE_SETTLED`] iterations past its length.
fn mate_settled(value: i32, depth: u32) -> bool {
    value.abs() > MATE_BOUND && depth as i32 > (MATE - value.abs()) + params::MATE_SETTLED
}

impl Searcher<'_, '_> {
    /// The one iterative-deepening loop: `root`'s iterations from depth 1 to the depth limit.
    /// Returns the last completed iteration (or what a stopped first one found), `None` if
    /// nothing.
    fn deepen(&mut self, root: &mut impl Root) -> Option<RootResult> {
        let mut last: Option<RootResult> = None;
        for depth in 1..=self.max_depth {
            if let Some(r) = &last
                && !root.next(self, r)
            {
                break;
            }
            let result = match root.iterate(self, depth, &mut last) {
                Pass::Done(result) => result,
                Pass::Stopped => break,
            };
            if let Some(report) = self.limits.progress {
                report(&result);
            }
            let settled = mate_settled(result.best.value, depth);
            last = Some(result);
            if self.stopped || settled {
                break;
            }
        }
        if let Some(r) = &mut last {
            r.nodes = self.nodes;
            r.seldepth = self.seldepth;
        }
        last
    }

    /// Iterative deepening over `root_moves` (legal moves of `pos`; the first `exact_count`
    /// of them get exact values within `tolerance(depth)` of the best, the others only need to be
    /// shown worse than the best). Returns the last completed iteration, or `None` if not even
    /// depth 1 completed. The move model's search.
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
        self.deepen(&mut ModelRoot {
            pos,
            hash: key(pos),
            moves: root_moves,
            exact_count,
            tolerance,
            order: (0..root_moves.len()).collect(),
            iterations: Vec::new(),
        })
    }

    /// The `best` style's search: iterative deepening over every move of `root_moves` (legal
    /// moves of `pos`) with aspiration windows, [`Limits::multipv`](super::Limits::multipv)
    /// exact principal lines, the best move of an iteration cut short kept when its search
    /// finished. Returns `None` if not even depth 1 completed.
    pub fn search_best(&mut self, pos: &Chess, root_moves: &[Move]) -> Option<RootResult> {
        if root_moves.is_empty() {
            return None;
        }
        let started = Instant::now();
        let hash = key(pos);
        // Order the first iteration by the table's move and the moves' own merit.
        let table = self
            .tt
            .probe(hash)
            .and_then(|e| e.mv)
            .and_then(|c| table_move(pos, c));
        let color = pos.turn();
        let mut lines: Vec<Line> = root_moves
            .iter()
            .map(|&mv| Line {
                mv,
                value: -INF,
                nodes: 0,
            })
            .collect();
        lines.sort_by_cached_key(|l| {
            std::cmp::Reverse(if Some(l.mv) == table {
                i32::MAX
            } else if is_tactical(&l.mv) {
                (1 << 20) + mvv_lva(&l.mv)
            } else {
                self.histories.quiet(color, &l.mv, [None, None])
            })
        });
        self.deepen(&mut BestRoot {
            pos,
            hash,
            multipv: self.limits.multipv.clamp(1, root_moves.len()),
            lines,
            started,
            optimum: self
                .limits
                .optimum
                .map(|s| s.saturating_duration_since(started)),
            stable: 0,
            previous_best: None,
        })
    }

    /// One pass over `lines[from..]` at `depth` with the window (`alpha`, `beta`): principal
    /// variation search at the root. Returns the best value found (a bound outside the window),
    /// and moves the best move to `lines[from]`; the values of the moves searched are updated.
    /// `Err(found)` when stopped, with whether a move other than the first was found better
    /// than `alpha` with a finished search (then it is at `lines[from]`).
    #[allow(clippy::too_many_arguments)]
    fn root_pass(
        &mut self,
        pos: &Chess,
        hash: u64,
        lines: &mut [Line],
        from: usize,
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, bool> {
        self.start_iteration(pos, hash);
        let mut best = -INF;
        let mut best_index = from;
        let mut improved = false;
        for i in from..lines.len() {
            let m = lines[i].mv;
            let nodes_before = self.nodes;
            let v = if i == from {
                self.search_move(pos, hash, m, depth, alpha, beta, false)
            } else {
                let v = self.search_move(pos, hash, m, depth, alpha, alpha + 1, true);
                if v > alpha && v < beta && !self.stopped {
                    self.search_move(pos, hash, m, depth, alpha, beta, false)
                } else {
                    v
                }
            };
            lines[i].nodes = self.nodes - nodes_before;
            if self.stopped {
                if improved {
                    lines[from..=best_index].rotate_right(1);
                }
                return Err(improved);
            }
            if v > best {
                best = v;
                best_index = i;
                lines[i].value = v;
                if i > from && v > alpha {
                    improved = true;
                }
            }
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
        // The best move to the front, the others keep their order.
        lines[from..=best_index].rotate_right(1);
        Ok(best)
    }
}

/// The move model's root: every iteration gives the first `exact_count` moves exact values
/// within `tolerance(depth)` of the best and shows the others worse than it, and keeps every
/// iteration (what a move looked like at each depth).
struct ModelRoot<'p, F> {
    pos: &'p Chess,
    hash: u64,
    moves: &'p [Move],
    exact_count: usize,
    tolerance: F,
    /// The order the next iteration searches the moves in (indices into `moves`).
    order: Vec<usize>,
    iterations: Vec<Iteration>,
}

impl<F: Fn(u32) -> i32> ModelRoot<'_, F> {
    /// Searches move `i` at `depth` after the iteration's best so far: `(value, exact)`.
    fn value_of(&self, s: &mut Searcher<'_, '_>, i: usize, depth: u32, best: i32) -> (i32, bool) {
        let (pos, hash, m, d) = (self.pos, self.hash, self.moves[i], depth as i32);
        if best == -INF {
            (s.search_move(pos, hash, m, d, -INF, INF, false), true)
        } else if i < self.exact_count {
            // A candidate: exact if it is within the tolerance of the best. Under a small
            // tolerance, a null window at its edge first (most moves fall below it, cheaply,
            // with the pruning of non-PV nodes); only a move above it is searched again with
            // the open window that makes its value exact.
            let tol = (self.tolerance)(depth).max(0);
            let lower = best - tol - 1;
            let v = if tol < params::PROBE_BELOW {
                s.search_move(pos, hash, m, d, lower, lower + 1, true)
            } else {
                lower + 1
            };
            if v > lower && !s.stopped {
                let v = s.search_move(pos, hash, m, d, lower, INF, false);
                (v, v > lower)
            } else {
                (v, false)
            }
        } else {
            let v = s.search_move(pos, hash, m, d, best, best + 1, true);
            if v > best && !s.stopped {
                // Searched again with the window open above: exact only if it stays above the
                // best (a search can fail low on the second look).
                let v = s.search_move(pos, hash, m, d, best, INF, false);
                (v, v > best)
            } else {
                (v, false)
            }
        }
    }

    /// Next iteration's order: the best move first (its value narrows every later window),
    /// then the candidates in their given order, then the others by value.
    fn reorder(&mut self, values: &[Option<(i32, bool)>]) {
        let best_index = (0..values.len())
            .filter(|&i| values[i].is_some_and(|v| v.1))
            .max_by_key(|&i| (values[i].map_or(-INF, |v| v.0), std::cmp::Reverse(i)));
        let exact_count = self.exact_count;
        self.order.sort_by_key(|&i| {
            if Some(i) == best_index {
                (0, 0)
            } else if i < exact_count {
                (1, i as i32)
            } else {
                (2, -values[i].map_or(-INF, |v| v.0))
            }
        });
    }
}

impl<F: Fn(u32) -> i32> Root for ModelRoot<'_, F> {
    fn next(&self, searcher: &Searcher<'_, '_>, _last: &RootResult) -> bool {
        searcher.limits.optimum.is_none_or(|t| Instant::now() < t)
    }

    fn iterate(
        &mut self,
        s: &mut Searcher<'_, '_>,
        depth: u32,
        last: &mut Option<RootResult>,
    ) -> Pass {
        let mut values: Vec<Option<(i32, bool)>> = vec![None; self.moves.len()];
        let mut best = -INF;
        s.start_iteration(self.pos, self.hash);
        for index in 0..self.order.len() {
            let i = self.order[index];
            let (v, exact) = self.value_of(s, i, depth, best);
            if s.stopped {
                break;
            }
            values[i] = Some((v, exact));
            if exact && v > best {
                best = v;
            }
        }
        // Stopped: an unfinished iteration counts only when none finished before it.
        if s.stopped && (last.is_some() || values.iter().all(Option::is_none)) {
            return Pass::Stopped;
        }
        let mut result_values = Vec::with_capacity(self.moves.len());
        for (i, m) in self.moves.iter().enumerate() {
            let (v, exact) = values[i].unwrap_or((-INF, false));
            // For a refuted move the table still holds the refutation, the reply that cut the
            // search off.
            let pv = s.pv_after(self.pos, self.hash, *m, params::PV_MODEL);
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
        self.iterations.push(Iteration {
            depth,
            values: result_values.iter().map(|r| (r.value, r.exact)).collect(),
        });
        self.reorder(&values);
        Pass::Done(RootResult {
            depth,
            seldepth: s.seldepth,
            nodes: s.nodes,
            values: result_values,
            best: best_value,
            iterations: self.iterations.clone(),
        })
    }
}

/// The `best` style's root: every move, ordered by the previous iteration, aspiration windows,
/// `multipv` exact lines, time scaled by how settled the best move is.
struct BestRoot<'p> {
    pos: &'p Chess,
    hash: u64,
    multipv: usize,
    lines: Vec<Line>,
    started: Instant,
    /// The time the move should take, if the clock leaves a choice.
    optimum: Option<Duration>,
    /// Iterations in a row the best move has stayed the same.
    stable: usize,
    /// The last iteration's best move.
    previous_best: Option<Move>,
}

impl BestRoot<'_> {
    /// Principal line `pv_index` at `depth` inside aspiration windows widened until its value
    /// is inside. `None` when stopped (`last` amended if the iteration's best move finished).
    fn line(
        &mut self,
        s: &mut Searcher<'_, '_>,
        pv_index: usize,
        depth: u32,
        last: &mut Option<RootResult>,
    ) -> Option<i32> {
        let previous = self.lines[pv_index].value;
        let (mut alpha, mut beta, mut delta) =
            if depth >= params::ASPIRATION_DEPTH && previous.abs() < MATE_BOUND {
                let delta = params::ASPIRATION;
                (
                    (previous - delta).max(-INF),
                    (previous + delta).min(INF),
                    delta,
                )
            } else {
                (-INF, INF, INF)
            };
        loop {
            let pass = s.root_pass(
                self.pos,
                self.hash,
                &mut self.lines,
                pv_index,
                depth as i32,
                alpha,
                beta,
            );
            match pass {
                Err(improved) => {
                    // Cut short: keep this iteration's first line if its best move finished
                    // with a value above the window's floor.
                    if pv_index == 0
                        && improved
                        && let Some(r) = last
                    {
                        let mv = self.lines[0].mv;
                        r.best = RootValue {
                            mv,
                            value: self.lines[0].value,
                            exact: true,
                            pv: s.pv_after(self.pos, self.hash, mv, params::PV_BEST),
                        };
                        r.values[0] = r.best.clone();
                    }
                    return None;
                }
                Ok(v) if v <= alpha && alpha > -INF => {
                    beta = (alpha + beta) / 2;
                    alpha = (v - delta).max(-INF);
                    delta = delta.saturating_mul(2);
                }
                Ok(v) if v >= beta && beta < INF => {
                    beta = (v + delta).min(INF);
                    delta = delta.saturating_mul(2);
                }
                Ok(v) => return Some(v),
            }
        }
    }
}

impl Root for BestRoot<'_> {
    fn next(&self, _searcher: &Searcher<'_, '_>, _last: &RootResult) -> bool {
        let Some(optimum) = self.optimum else {
            return true;
        };
        if self.lines.len() == 1 {
            return false;
        }
        // Stop when this move has had its time: less when the best move has held for several
        // iterations, more when it has just changed.
        let scale = params::STABILITY_SCALE[self.stable.min(params::STABILITY_SCALE.len() - 1)];
        self.started.elapsed() < optimum.mul_f64(scale)
    }

    fn iterate(
        &mut self,
        s: &mut Searcher<'_, '_>,
        depth: u32,
        last: &mut Option<RootResult>,
    ) -> Pass {
        for pv_index in 0..self.multipv {
            let Some(value) = self.line(s, pv_index, depth, last) else {
                return Pass::Stopped;
            };
            self.lines[pv_index].value = value;
        }
        let multipv = self.multipv;
        // The lines first, in order of value; the others by the effort they took (a move that
        // took long to refute is likely the next best).
        self.lines[..multipv].sort_by_key(|l| std::cmp::Reverse(l.value));
        self.lines[multipv..].sort_by_key(|l| std::cmp::Reverse(l.nodes));
        let values: Vec<RootValue> = self.lines[..multipv]
            .iter()
            .map(|l| RootValue {
                mv: l.mv,
                value: l.value,
                exact: true,
                pv: s.pv_after(self.pos, self.hash, l.mv, params::PV_BEST),
            })
            .collect();
        let best = values[0].clone();
        match self.previous_best {
            Some(m) if m == best.mv => self.stable += 1,
            _ => self.stable = 0,
        }
        self.previous_best = Some(best.mv);
        Pass::Done(RootResult {
            depth,
            seldepth: s.seldepth,
            nodes: s.nodes,
            values,
            best,
            iterations: Vec::new(),
        })
    }
}
