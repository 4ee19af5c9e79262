//! Time management: how long one move may take, from the clock the GUI reports.
//!
//! Designed for both ends of the range: FIDE classical (90 min for 40 moves, then 30 min, +30 s
//! a move from move 1, so `movestogo` counts down to 40 and then disappears) and bullet (1+0,
//! sudden death). The rule: an even share of the remaining time over the moves still to play
//! (`movestogo`, or 25 in sudden death), plus most of the increment, is what a move should take
//! on average. The budget, the most it may take, is twice that share, because the search starts
//! no new iteration after half of its time (an iteration costs about as much as all before it),
//! so a move ends on average near the share; never more than a fixed fraction of what is left;
//! minus the GUI's `Move Overhead`.
//!
//! The `best` style plans instead ([`plan`]): the even share is the time a move should take
//! (the *optimum*, which the search scales by how settled its best move is), and a move may
//! take up to [`MAX_OVER_OPTIMUM`] times that (the *maximum*, never more than
//! [`MAX_FRACTION`] of the clock), where the search is cut off. `go movetime` has no optimum:
//! the whole time is used.

use std::time::Duration;

/// What a `go` command says about time, for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the mover's clock.
    pub remaining: Option<Duration>,
    /// The mover's increment per move.
    pub increment: Duration,
    /// Moves until the next time control (absent = sudden death).
    pub moves_to_go: Option<u32>,
    /// Exact time for this move.
    pub move_time: Option<Duration>,
    /// Think until told to stop (`infinite` or `ponder`).
    pub infinite: bool,
}

/// Moves assumed left in a sudden-death game.
pub const SUDDEN_DEATH_MOVES: u32 = 25;
/// Largest share of the remaining clock one move may use.
pub const MAX_FRACTION: f64 = 0.4;
/// The budget over the even share (the search stops starting iterations at half the budget).
pub const BUDGET_OVER_SHARE: f64 = 2.0;

/// The optimum over which a `best` move may go when its best move keeps changing.
pub const MAX_OVER_OPTIMUM: f64 = 5.0;

/// How long a `best` move should take and may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What the move should take, before the search's scaling (`None`: the whole maximum).
    pub optimum: Option<Duration>,
    /// The most it may take.
    pub maximum: Duration,
}

/// The `best` style's plan for this move, or `None` for no limit (infinite analysis, or no
/// clock given). `overhead` is taken off both figures.
pub fn plan(clock: &Clock, overhead: Duration) -> Option<Plan> {
    if clock.infinite {
        return None;
    }
    if let Some(mt) = clock.move_time {
        return Some(Plan {
            optimum: None,
            maximum: mt.saturating_sub(overhead),
        });
    }
    let remaining = clock.remaining?;
    let moves = clock.moves_to_go.unwrap_or(SUDDEN_DEATH_MOVES).max(1);
    let share = remaining / moves + clock.increment.mul_f64(0.75);
    let cap = remaining.mul_f64(MAX_FRACTION);
    let hard = remaining.saturating_sub(overhead);
    Some(Plan {
        optimum: Some(share.min(cap).saturating_sub(overhead).min(hard)),
        maximum: share
            .mul_f64(MAX_OVER_OPTIMUM)
            .min(cap)
            .saturating_sub(overhead)
            .min(hard),
    })
}

/// The time this move may take, or `None` for no limit (infinite analysis, or no clock given).
/// `overhead` is what the GUI and the pipes lose per move; it is taken off every budget.
pub fn budget(clock: &Clock, overhead: Duration) -> Option<Duration> {
    if clock.infinite {
        return None;
    }
    if let Some(mt) = clock.move_time {
        return Some(mt.saturating_sub(overhead));
    }
    let remaining = clock.remaining?;
    let moves = clock.moves_to_go.unwrap_or(SUDDEN_DEATH_MOVES).max(1);
    let share = remaining / moves + clock.increment.mul_f64(0.75);
    let most = share.mul_f64(BUDGET_OVER_SHARE);
    // With one move to the control the whole clock would be the budget: keep a reserve.
    let cap = remaining.mul_f64(MAX_FRACTION);
    let hard = remaining.saturating_sub(overhead);
    Some(most.min(cap).saturating_sub(overhead).min(hard))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(remaining: u64, inc: u64, mtg: Option<u32>) -> Clock {
        Clock {
            remaining: Some(ms(remaining)),
            increment: ms(inc),
            moves_to_go: mtg,
            ..Clock::default()
        }
    }

    #[test]
    fn infinite_and_clockless_searches_have_no_limit() {
        assert_eq!(
            budget(
                &Clock {
                    infinite: true,
                    ..clock(1000, 0, None)
                },
                ms(30)
            ),
            None
        );
        assert_eq!(budget(&Clock::default(), ms(30)), None);
    }

    #[test]
    fn movetime_is_used_minus_overhead() {
        let c = Clock {
            move_time: Some(ms(1000)),
            ..Clock::default()
        };
        assert_eq!(budget(&c, ms(30)), Some(ms(970)));
        let tiny = Clock {
            move_time: Some(ms(10)),
            ..Clock::default()
        };
        assert_eq!(budget(&tiny, ms(30)), Some(Duration::ZERO));
    }

    #[test]
    fn bullet_one_minute_sudden_death() {
        // 1+0 at the start: twice 60 s / 25 = 4.8 s, minus 30 ms overhead.
        assert_eq!(budget(&clock(60_000, 0, None), ms(30)), Some(ms(4770)));
        // Nearly flagged: 100 ms left → 8 ms budget, eaten by the overhead: answer at once.
        assert_eq!(budget(&clock(100, 0, None), ms(30)), Some(Duration::ZERO));
    }

    #[test]
    fn never_spends_more_than_is_left() {
        for remaining in [1, 10, 50, 100, 500, 1000, 5000, 60_000, 5_400_000] {
            for inc in [0, 10, 100, 1000, 30_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let b = budget(&clock(remaining, inc, mtg), ms(30))
                        .expect("a clock gives a budget");
                    assert!(
                        b.as_secs_f64() <= remaining as f64 / 1000.0 * MAX_FRACTION + 1e-9,
                        "{remaining} {inc} {mtg:?}: {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_best_style_plans_an_optimum_and_a_maximum() {
        // 10+0.1 at the start: 10 s / 25 + 75 ms = 475 ms, five times that at most.
        let p = plan(&clock(10_000, 100, None), ms(10)).expect("a plan");
        assert_eq!(p.optimum, Some(ms(465)));
        assert_eq!(p.maximum, ms(2365));
        // Sudden death without increment: a 25th of the clock, five times that at most.
        let p = plan(&clock(1_000, 0, None), ms(10)).expect("a plan");
        assert_eq!((p.optimum, p.maximum), (Some(ms(30)), ms(190)));
        // Two moves to the control: both figures are capped at 40 % of what is left.
        let p = plan(&clock(1_000, 0, Some(2)), ms(10)).expect("a plan");
        assert_eq!((p.optimum, p.maximum), (Some(ms(390)), ms(390)));
        // movetime: all of it, no optimum to scale.
        let mt = Clock {
            move_time: Some(ms(1000)),
            ..Clock::default()
        };
        assert_eq!(
            plan(&mt, ms(10)),
            Some(Plan {
                optimum: None,
                maximum: ms(990)
            })
        );
        assert_eq!(plan(&Clock::default(), ms(10)), None);
        for remaining in [1, 10, 100, 1000, 60_000] {
            for inc in [0, 10, 1000] {
                let p = plan(&clock(remaining, inc, None), ms(10)).expect("a plan");
                assert!(p.optimum.expect("clock") <= p.maximum);
                assert!(p.maximum.as_secs_f64() <= remaining as f64 / 1000.0 * MAX_FRACTION + 1e-9);
            }
        }
    }

    #[test]
    fn fide_classical_control() {
        // Move 1: 90 min for 40 moves, +30 s: twice 5400/40 + 22.5 = 315 s, minus overhead.
        assert_eq!(
            budget(&clock(5_400_000, 30_000, Some(40)), ms(50)),
            Some(ms(314_950))
        );
        // Move 40, 2 minutes left for the last move before the control: capped at 40 %.
        assert_eq!(
            budget(&clock(120_000, 30_000, Some(1)), ms(50)),
            Some(ms(47_950))
        );
        // After move 40: 30 min more, sudden death with increment: twice 1800/25 + 22.5 =
        // 189 s.
        assert_eq!(
            budget(&clock(1_800_000, 30_000, None), ms(50)),
            Some(ms(188_950))
        );
    }
}
