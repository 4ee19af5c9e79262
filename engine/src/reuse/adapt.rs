//! Adapting a retrieved case's move to the legal move most similar to it here.
//!
//! docs/method.md: for the case's move `m1` on its board `p` and a legal move `m2` on the current
//! board `n`, `F = w1 / A + w2 · I` with `A = w3·M(from1, from2) + w4·M(to1, to2)` (Manhattan
//! distance / 14) and `I = w5·S(p[from1], n[from2]) + w6·S(p[to1], n[to2])` (piece similarity).
//! `A = 0` means the same from and to squares: `F = ∞`, the identical move wins.

use shakmaty::{Board, CastlingSide, Move, Role, Square};

use crate::case::CaseMove;
use crate::case::{Planes, piece_score};

/// The six weights of the adaptation formula, `w1…w6`.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Weights(pub [f64; 6]);

impl Default for Weights {
    /// All 1.0: the thesis gives no values, so the neutral choice.
    fn default() -> Weights {
        Weights([1.0; 6])
    }
}

impl std::str::FromStr for Weights {
    type Err = String;
    /// Parses `w1,w2,w3,w4,w5,w6`.
    fn from_str(s: &str) -> Result<Weights, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 6 {
            return Err(format!(
                "expected six comma-separated weights w1..w6, got {:?}",
                s
            ));
        }
        let mut w = [0.0; 6];
        for (slot, p) in w.iter_mut().zip(&parts) {
            let v: f64 = p
                .parse()
                .map_err(|_| format!("weight {p:?} is not a number"))?;
            if !v.is_finite() || v < 0.0 {
                return Err(format!("weight {p:?} must be a finite number ≥ 0"));
            }
            *slot = v;
        }
        Ok(Weights(w))
    }
}

impl std::fmt::Display for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|w| w.to_string()).collect();
        f.write_str(&parts.join(","))
    }
}

/// From- and to-square of a legal move as the formula sees it: castling is the king's move of
/// two files, whatever notation the move has.
pub(crate) fn move_squares(m: &Move) -> Option<(Square, Square)> {
    match *m {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(rook > king);
            Some((king, Square::from_coords(side.king_to_file(), king.rank())))
        }
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => Some((from, to)),
        Move::Put { .. } => None,
    }
}

/// `M(x, y)`: Manhattan distance between squares, divided by its maximum, 14.
pub fn manhattan(a: Square, b: Square) -> f64 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    f64::from(df + dr) / 14.0
}

/// The adapted move of one case.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Adapted {
    /// The chosen legal move.
    pub mv: Move,
    /// Its value `F` (infinite for the identical move).
    pub value: f64,
    /// Whether it is the case's own move (same from and to squares).
    pub identical: bool,
}

/// Picks the legal move most similar to the case's move `m1` on `case_board`; both in the
/// current board's orientation. Ties: the same promotion piece first, then the larger content
/// similarity `I`, then the first move in `legal`'s order (shakmaty's, fixed for a position).
pub fn adapt(
    case_board: &Planes,
    m1: CaseMove,
    board: &Board,
    legal: &[Move],
    w: &Weights,
) -> Option<Adapted> {
    let [w1, w2, w3, w4, w5, w6] = w.0;
    let (k1, d1) = (m1.from(), m1.to());
    let (p_from, p_to) = (case_board.piece_at(k1), case_board.piece_at(d1));
    let mut best: Option<(Adapted, (f64, bool, f64))> = None;
    for m2 in legal {
        let Some((k2, d2)) = move_squares(m2) else {
            continue;
        };
        let a = w3 * manhattan(k1, k2) + w4 * manhattan(d1, d2);
        let content = w5 * f64::from(piece_score(p_from, board.piece_at(k2))) / 4.0
            + w6 * f64::from(piece_score(p_to, board.piece_at(d2))) / 4.0;
        let identical = k1 == k2 && d1 == d2;
        let value = if a == 0.0 {
            f64::INFINITY
        } else {
            w1 / a + w2 * content
        };
        let same_promotion = m2.promotion() == m1.promotion().filter(|r| *r != Role::Pawn);
        let key = (value, same_promotion, content);
        let better = match &best {
            None => true,
            Some((_, bk)) => key.0 > bk.0 || (key.0 == bk.0 && (key.1, key.2) > (bk.1, bk.2)),
        };
        if better {
            best = Some((
                Adapted {
                    mv: *m2,
                    value,
                    identical,
                },
                key,
            ));
        }
    }
    best.map(|(a, _)| a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    fn pos(fen: &str) -> Chess {
        let fen: Fen = fen.parse().expect("test FEN parses");
        fen.into_position(CastlingMode::Standard)
            .expect("test FEN is legal")
    }

    fn adapted(case_fen: &str, m1: CaseMove, fen: &str, w: Weights) -> String {
        let case = Planes::from_board(pos(case_fen).board());
        let p = pos(fen);
        let legal = p.legal_moves();
        let a = adapt(&case, m1, p.board(), &legal, &w).expect("a legal move");
        a.mv.to_uci(CastlingMode::Standard).to_string()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn identical_move_wins_outright() {
        let m1 = CaseMove::new(Square::G1, Square::F3, None, false);
        assert_eq!(adapted(START, m1, START, Weights::default()), "g1f3");
    }

    #[test]
    fn nearest_destination_wins() {
        // Case: Ra1-a5. Here the rook stands on b1: every rook move is 1/14 away in its
        // from-square, so the destination decides: b5 is 1/14 from a5 (A = 2/14, F = 7 + I);
        // b4/b6 are 2/14, a1 4/14; king moves start 4/14 away.
        let case = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let here = "4k3/8/8/8/8/8/8/1R2K3 w - - 0 1";
        let m1 = CaseMove::new(Square::A1, Square::A5, None, false);
        assert_eq!(adapted(case, m1, here, Weights::default()), "b1b5");
    }

    #[test]
    fn piece_content_breaks_distance_ties() {
        // Case: Ra1-a4. Here a rook on b1 and the king on a2. Rb1-b4 and Ka2-a3 are both
        // 1/14 + 1/14 away (F = 7 + I); the rook keeps I = S(R,R) + S(-,-) = 2, the king only
        // S(R,K) + S(-,-) = 1.75.
        let case = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let here = "4k3/8/8/8/8/8/K7/1R6 w - - 0 1";
        let m1 = CaseMove::new(Square::A1, Square::A4, None, false);
        assert_eq!(adapted(case, m1, here, Weights::default()), "b1b4");
        // Without the content term the two tie and the fixed move order decides, so the
        // content term is what chose the rook.
        let no_content = Weights([1.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        let p = pos(here);
        let legal = p.legal_moves();
        let tied: Vec<String> = legal
            .iter()
            .filter(|m| {
                let (k, d) = move_squares(m).expect("board move");
                manhattan(Square::A1, k) + manhattan(Square::A4, d) == 2.0 / 14.0
            })
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(tied.len(), 2, "{tied:?}");
        let first = tied[0].clone();
        assert_eq!(adapted(case, m1, here, no_content), first);
    }

    #[test]
    fn promotion_to_the_same_piece_is_preferred() {
        let fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1";
        let m1 = CaseMove::new(Square::E7, Square::E8, Some(Role::Knight), false);
        assert_eq!(adapted(fen, m1, fen, Weights::default()), "e7e8n");
        let m1 = CaseMove::new(Square::E7, Square::E8, Some(Role::Queen), false);
        assert_eq!(adapted(fen, m1, fen, Weights::default()), "e7e8q");
    }

    #[test]
    fn castling_adapts_as_a_two_file_king_move() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let m1 = CaseMove::new(Square::E1, Square::G1, None, true);
        assert_eq!(adapted(fen, m1, fen, Weights::default()), "e1g1");
        let m1 = CaseMove::new(Square::E1, Square::C1, None, true);
        assert_eq!(adapted(fen, m1, fen, Weights::default()), "e1c1");
    }
}
