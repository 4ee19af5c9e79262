//! What the evaluation fits (`fit eval`, `fit net`) read from analysed games: the quiet
//! positions with Stockfish's evaluation, and the logistic that maps an evaluation to an
//! expected score.

use precedent::pgn::Mover;
use shakmaty::Position;

/// Expected-score scale: 400 centipawns of advantage are 10 : 1 odds.
pub const K: f64 = std::f64::consts::LN_10 / 400.0;

/// The logistic function.
pub fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// Stockfish's evaluation (White's side) of the position before `m`, when that position is
/// quiet: not in check, reached by a quiet move (or the first), left by a quiet move (no
/// capture, no promotion), and not decided (within `max_eval` centipawns: `fit eval`'s
/// [`MAX_EVAL`](super::eval::MAX_EVAL) for it, the network's own limit for `fit net`). `evals` are the game's, by ply. What both
/// fits train on.
pub fn quiet_eval(m: &Mover, evals: &[Option<i32>], max_eval: i32) -> Option<i32> {
    let eval = (m.ply as usize)
        .checked_sub(1)
        .and_then(|p| evals.get(p))?
        .as_ref()?;
    let quiet = |mv: &shakmaty::Move| !(mv.is_capture() || mv.is_promotion());
    let quiet_before = m.last.as_ref().is_none_or(quiet);
    (eval.abs() <= max_eval && !m.pos.is_check() && quiet_before && quiet(&m.mv)).then_some(*eval)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, uci::UciMove};

    #[test]
    fn a_quiet_eval_is_the_evaluation_before_a_quiet_move_within_the_limit() {
        let start = Chess::default();
        let mv = |pos: &Chess, uci: &str| {
            uci.parse::<UciMove>()
                .expect("uci")
                .to_move(pos)
                .expect("legal")
        };
        let e4 = mv(&start, "e2e4");
        let after_e4 = start.clone().play(e4).expect("legal");
        let mover = |pos: &Chess, played: &str, last: Option<shakmaty::Move>| Mover {
            pos: pos.clone(),
            mv: mv(pos, played),
            ply: 1,
            last,
        };
        let m = mover(&after_e4, "e7e5", Some(e4));
        // The evaluation of ply 0's result, i.e. of the position before the mover.
        assert_eq!(quiet_eval(&m, &[Some(30)], 1000), Some(30));
        assert_eq!(quiet_eval(&m, &[None], 1000), None);
        assert_eq!(quiet_eval(&m, &[], 1000), None);
        // Each fit's own limit: 2,000 cp is decided for `fit eval`, not for `fit net`'s 3,000.
        assert_eq!(
            quiet_eval(&m, &[Some(-2000)], crate::fit::eval::MAX_EVAL),
            None
        );
        assert_eq!(
            quiet_eval(&m, &[Some(-2000)], crate::fit::net::MAX_EVAL),
            Some(-2000)
        );
        // Left by a capture: not quiet.
        let d4 = mv(&start, "d2d4");
        let after_d4 = start.clone().play(d4).expect("legal");
        let e5 = mv(&after_d4, "e7e5");
        let after_e5 = after_d4.play(e5).expect("legal");
        let capture = Mover {
            ply: 2,
            ..mover(&after_e5, "d4e5", Some(e5))
        };
        assert_eq!(quiet_eval(&capture, &[Some(0), Some(40)], 1000), None);
    }
}
