//! A static evaluation for the verifier: material and piece-square tables (Michniewski's
//! "simplified evaluation function"), the king's table tapered from middlegame to endgame.
//! Scores are centipawns from the side to move.

use shakmaty::{Board, Chess, Color, Position, Role, Square};

/// Material value of a role, in centipawns.
pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

// Tables as printed (rank 8 first) for White; Black reads them mirrored.
#[rustfmt::skip]
const PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];
#[rustfmt::skip]
const BISHOP: [i32; 64] = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];
#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];
#[rustfmt::skip]
const QUEEN: [i32; 64] = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5,  5,  5,  5,  0,-10,
     -5,  0,  5,  5,  5,  5,  0, -5,
      0,  0,  5,  5,  5,  5,  0, -5,
    -10,  5,  5,  5,  5,  5,  0,-10,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];
#[rustfmt::skip]
const KING_MIDDLE: [i32; 64] = [
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -10,-20,-20,-20,-20,-20,-20,-10,
     20, 20,  0,  0,  0,  0, 20, 20,
     20, 30, 10,  0,  0, 10, 30, 20,
];
#[rustfmt::skip]
const KING_END: [i32; 64] = [
    -50,-40,-30,-20,-20,-30,-40,-50,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -50,-30,-30,-30,-30,-30,-30,-50,
];

fn table_index(sq: Square, color: Color) -> usize {
    let (file, rank) = (sq.file() as usize, sq.rank() as usize);
    match color {
        Color::White => (7 - rank) * 8 + file,
        Color::Black => rank * 8 + file,
    }
}

/// Game phase from 0 (bare kings and pawns) to 24 (all pieces).
fn phase(board: &Board) -> i32 {
    let count = |r: Role| board.by_role(r).count() as i32;
    (count(Role::Knight) + count(Role::Bishop) + 2 * count(Role::Rook) + 4 * count(Role::Queen))
        .min(24)
}

/// Evaluation of `board` from White's side.
pub fn evaluate_white(board: &Board) -> i32 {
    let phase = phase(board);
    let mut score = 0;
    for (sq, piece) in board.clone() {
        let i = table_index(sq, piece.color);
        let positional = match piece.role {
            Role::Pawn => PAWN[i],
            Role::Knight => KNIGHT[i],
            Role::Bishop => BISHOP[i],
            Role::Rook => ROOK[i],
            Role::Queen => QUEEN[i],
            Role::King => (KING_MIDDLE[i] * phase + KING_END[i] * (24 - phase)) / 24,
        };
        let v = value(piece.role) + positional;
        score += if piece.color == Color::White { v } else { -v };
    }
    score
}

/// Evaluation from the side to move.
pub fn evaluate(pos: &Chess) -> i32 {
    let s = evaluate_white(pos.board());
    if pos.turn() == Color::White { s } else { -s }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;

    #[test]
    fn a_position_and_its_mirror_score_opposite() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1",
        ] {
            let pos = parse_fen(fen).expect("fen");
            let mirrored = pos.board().clone().into_mirrored();
            assert_eq!(
                evaluate_white(pos.board()),
                -evaluate_white(&mirrored),
                "{fen}"
            );
        }
        assert_eq!(evaluate_white(&Board::new()), 0);
    }

    #[test]
    fn material_dominates_and_side_to_move_flips_the_sign() {
        let up_a_queen = parse_fen("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1").expect("fen");
        assert!(evaluate(&up_a_queen) > 800);
        let black_to_move = parse_fen("4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1").expect("fen");
        assert_eq!(evaluate(&black_to_move), -evaluate(&up_a_queen));
    }
}
