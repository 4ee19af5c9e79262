//! Static exchange evaluation: what a capture wins or loses once every piece that attacks its
//! square has recaptured, least valuable first, each side free to stop (the swap algorithm).
//! X-rays are seen because the attacks are recomputed as pieces leave the square's lines.

use shakmaty::{Bitboard, Board, Move, Role, Square};

use super::evaluate::value;

/// A king can recapture last but is never given up.
const KING: i32 = 20_000;

fn worth(role: Role) -> i32 {
    if role == Role::King {
        KING
    } else {
        value(role)
    }
}

/// The material balance, in centipawns from the mover's side, of `m` on `board` and the best
/// sequence of recaptures on its square (promotions counted as the pawn they move; castling
/// and drops are 0).
pub fn see(board: &Board, m: &Move) -> i32 {
    let (Some(from), to) = (m.from(), m.to()) else {
        return 0;
    };
    let Some(mover) = board.color_at(from) else {
        return 0;
    };
    if m.is_castle() {
        return 0;
    }
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    if m.is_en_passant() {
        occupied ^= Bitboard::from(Square::from_coords(to.file(), from.rank()));
    }
    let mut gain = [0i32; 32];
    gain[0] = m.capture().map_or(0, value);
    // What stands on the square and may be taken next.
    let mut on_square = worth(m.role());
    let mut side = !mover;
    let mut d = 0;
    while d + 1 < gain.len() {
        let attackers = board.attacks_to(to, side, occupied) & occupied;
        // `Role::ALL` runs from pawn to king: the least valuable attacker first.
        let Some((sq, role)) = Role::ALL
            .iter()
            .find_map(|&r| (attackers & board.by_role(r)).first().map(|sq| (sq, r)))
        else {
            break;
        };
        d += 1;
        gain[d] = on_square - gain[d - 1];
        // Neither side can gain by going on: stop here.
        if (-gain[d - 1]).max(gain[d]) < 0 {
            break;
        }
        on_square = worth(role);
        occupied ^= Bitboard::from(sq);
        side = !side;
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

/// Whether [`see`] of `m` is at least `threshold`, without the exchange when its first two
/// captures settle it: the result is at most the victim (the other side need not recapture)
/// and at least the victim less the mover (the mover's side may stop after one recapture).
pub fn see_ge(board: &Board, m: &Move, threshold: i32) -> bool {
    if m.is_castle() || m.from().is_none_or(|from| board.color_at(from).is_none()) {
        return 0 >= threshold;
    }
    let victim = m.capture().map_or(0, value);
    if victim < threshold {
        return false;
    }
    if victim - worth(m.role()) >= threshold {
        return true;
    }
    see(board, m) >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::{CastlingMode, Position};

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos = parse_fen(fen).expect("fen");
        let m = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.to_uci(CastlingMode::Standard).to_string() == uci)
            .expect("legal");
        see(pos.board(), &m)
    }

    #[test]
    fn exchanges_are_counted_to_the_end() {
        // An undefended pawn: a clean pawn.
        assert_eq!(see_of("4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"), 100);
        // A pawn defended by a pawn, taken by the rook: a rook for a pawn.
        assert_eq!(see_of("4k3/8/4p3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"), -400);
        // Knight takes a pawn defended by a knight, the rook behind recaptures: pawn and knight
        // for a knight.
        assert_eq!(see_of("4k3/8/5n2/3p4/8/4N3/8/3RK3 w - - 0 1", "e3d5"), 100);
        // Queen takes a pawn defended by a pawn, the rook behind her (an x-ray) retakes:
        // Qxd5 exd5 Rxd5 is two pawns for the queen.
        assert_eq!(see_of("4k3/8/4p3/3p4/8/8/3Q4/3RK3 w - - 0 1", "d2d5"), -700);
        // En passant wins a pawn.
        assert_eq!(see_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 100);
        // A quiet move to an attacked square loses the piece.
        assert_eq!(see_of("4k3/8/4p3/8/8/8/8/3RK3 w - - 0 1", "d1d5"), -500);
    }

    #[test]
    fn the_threshold_test_agrees_with_the_exchange() {
        // Every legal move of the positions of random games, at thresholds around every
        // piece's value: the shortcut and the full exchange give the same verdict.
        let thresholds = [
            -1000, -500, -320, -300, -100, -60, -1, 0, 1, 99, 100, 101, 300, 500,
        ];
        let (mut settled, mut checked) = (0, 0);
        for pos in crate::search::tests::random_positions(0x2545_f491_4f6c_dd1d, 60, 120, 4) {
            for m in &pos.legal_moves() {
                let full = see(pos.board(), m);
                for t in thresholds {
                    assert_eq!(see_ge(pos.board(), m, t), full >= t, "{m:?} at {t}");
                    let victim = m.capture().map_or(0, value);
                    settled += usize::from(victim < t || victim - worth(m.role()) >= t);
                    checked += 1;
                }
            }
        }
        // Both ways of answering are exercised.
        assert!(
            settled > 1000 && checked - settled > 1000,
            "{settled} of {checked}"
        );
    }

    #[test]
    fn the_king_recaptures_only_when_safe() {
        // Rxd7 Kxd7: the king may take an undefended rook.
        assert_eq!(see_of("8/3pk3/8/8/8/8/8/3RK3 w - - 0 1", "d1d7"), 100 - 500);
        // With the second rook behind, the king cannot recapture: a clean pawn.
        assert_eq!(see_of("8/3pk3/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7"), 100);
    }
}
