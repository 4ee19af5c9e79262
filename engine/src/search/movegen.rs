//! Moves generated and checked without generating every legal move, for the search's hottest
//! paths, each answering exactly as shakmaty's own generation would (the tests hold them to
//! it), so that the search's tree does not change:
//!
//! - [`tactical_moves`], quiescence's moves at a node not in check: the legal captures and
//!   promotions, in the order `Position::capture_moves` (which generates every legal move, quiet
//!   ones included, and keeps the captures) followed by the non-capture `promotion_moves` would
//!   give them, so that quiescence's stable sort tries the same moves in the same order;
//! - [`is_legal`], whether the transposition table's move is legal here (`Position::is_legal`
//!   generates every move to the destination square).

use shakmaty::attacks;
use shakmaty::{Bitboard, Board, Chess, Color, Move, MoveList, Position, Rank, Role, Square};

/// Squares off the a-file.
const NOT_FILE_A: Bitboard = Bitboard(!0x0101_0101_0101_0101);

/// The legal captures of `pos` (en passant first, then by pawns, knights, bishops, rooks, queens
/// and king, each by origin then destination square, a capturing promotion as queen, rook,
/// bishop, knight), then its legal promotions that do not capture. `pos` must not be in check.
pub fn tactical_moves(pos: &Chess) -> MoveList {
    debug_assert!(!pos.is_check(), "quiescence generates evasions otherwise");
    let mut moves = pos.en_passant_moves();
    let board = pos.board();
    let us = pos.turn();
    let them = board.by_color(!us);
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return moves;
    };
    let first = moves.len();
    let pawns = board.pawns() & board.by_color(us);
    // Pawn captures towards the a-file side, then the h-file side (as White sees the board).
    let (west, east) = match us {
        Color::White => (
            ((pawns & NOT_FILE_A).shift(7), 7),
            (pawns.shift(9) & NOT_FILE_A, 9),
        ),
        Color::Black => (
            ((pawns & NOT_FILE_A).shift(-9), -9),
            (pawns.shift(-7) & NOT_FILE_A, -7),
        ),
    };
    for (targets, offset) in [west, east] {
        let captures = targets & them;
        for to in captures & !Bitboard::BACKRANKS {
            let from = step(to, -offset);
            moves.push(normal(board, Role::Pawn, from, to, None));
        }
        for to in captures & Bitboard::BACKRANKS {
            let from = step(to, -offset);
            push_promotions(board, &mut moves, from, to);
        }
    }
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.by_role(role) & board.by_color(us) {
            let reach = match role {
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                _ => attacks::queen_attacks(from, occupied),
            };
            for to in reach & them {
                moves.push(normal(board, role, from, to, None));
            }
        }
    }
    for to in attacks::king_attacks(king) & them {
        if board.attacks_to(to, !us, occupied).is_empty() {
            moves.push(normal(board, Role::King, king, to, None));
        }
    }
    // Promotions by a step forward.
    let forward = if us == Color::White { 8 } else { -8 };
    for to in pawns.shift(forward) & !occupied & Bitboard::BACKRANKS {
        push_promotions(board, &mut moves, step(to, -forward), to);
    }
    // A piece pinned to its king may only move along the pin (en passant was checked whole).
    let pinned = pinned(board, them, king);
    if pinned.any() {
        let mut i = first;
        while i < moves.len() {
            let m = moves[i];
            let keep = m
                .from()
                .is_none_or(|from| !pinned.contains(from) || attacks::aligned(from, m.to(), king));
            if keep {
                i += 1;
            } else {
                moves.remove(i);
            }
        }
    }
    moves
}

/// Whether `m` is legal in `pos`. A move of a piece other than the king at a node not in check
/// is decided here: the board must show the piece and the victim the move names, the piece must
/// reach the square by its own rules (a pawn's steps, captures and promotions included), and a
/// pinned piece must stay on its line. Anything else (king moves, castling, en passant, a side
/// in check) is shakmaty's `Position::is_legal`.
pub fn is_legal(pos: &Chess, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    } = m
    else {
        return pos.is_legal(m);
    };
    if role == Role::King || capture == Some(Role::King) || pos.is_check() {
        return pos.is_legal(m);
    }
    let board = pos.board();
    let us = pos.turn();
    if board.piece_at(from) != Some(role.of(us))
        || board.role_at(to) != capture
        || board.color_at(to) == Some(us)
    {
        return false;
    }
    let occupied = board.occupied();
    let reaches = match role {
        Role::Pawn => {
            let last = if us == Color::White {
                Rank::Eighth
            } else {
                Rank::First
            };
            let promotes = promotion.is_some_and(|p| {
                matches!(p, Role::Queen | Role::Rook | Role::Bishop | Role::Knight)
            });
            if promotes != (to.rank() == last) || (promotion.is_some() && !promotes) {
                return false;
            }
            let forward = if us == Color::White { 8 } else { -8 };
            if capture.is_some() {
                attacks::pawn_attacks(us, from).contains(to)
            } else if to as i32 == from as i32 + forward {
                true
            } else {
                let start = if us == Color::White {
                    Rank::Second
                } else {
                    Rank::Seventh
                };
                from.rank() == start
                    && to as i32 == from as i32 + 2 * forward
                    && !occupied.contains(step(from, forward))
            }
        }
        _ if promotion.is_some() => false,
        Role::Knight => attacks::knight_attacks(from).contains(to),
        Role::Bishop => attacks::bishop_attacks(from, occupied).contains(to),
        Role::Rook => attacks::rook_attacks(from, occupied).contains(to),
        _ => attacks::queen_attacks(from, occupied).contains(to),
    };
    let Some(king) = board.king_of(us) else {
        return pos.is_legal(m);
    };
    reaches
        && (!pinned(board, board.by_color(!us), king).contains(from)
            || attacks::aligned(from, to, king))
}

/// `sq` moved by `offset` squares (the caller knows the result is on the board).
fn step(sq: Square, offset: i32) -> Square {
    Square::new((sq as i32 + offset) as u32)
}

/// The move of `role` from `from` to `to`, capturing what stands there.
pub(super) fn normal(
    board: &Board,
    role: Role,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Move {
    Move::Normal {
        role,
        from,
        capture: board.role_at(to),
        to,
        promotion,
    }
}

fn push_promotions(board: &Board, moves: &mut MoveList, from: Square, to: Square) {
    for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        moves.push(normal(board, Role::Pawn, from, to, Some(promotion)));
    }
}

/// The pieces (of either side) alone between `king` and an enemy slider that would attack it
/// without them.
fn pinned(board: &Board, enemy: Bitboard, king: Square) -> Bitboard {
    let snipers = (attacks::rook_attacks(king, Bitboard(0)) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard(0)) & board.bishops_and_queens());
    let mut blockers = Bitboard(0);
    for sniper in snipers & enemy {
        let b = attacks::between(king, sniper) & board.occupied();
        if !b.more_than_one() {
            blockers |= b;
        }
    }
    blockers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use crate::search::tests::random_positions;

    /// What quiescence generated before: every legal move, the captures kept, then the
    /// promotions that do not capture.
    fn reference(pos: &Chess) -> MoveList {
        let mut moves = pos.capture_moves();
        moves.extend(
            pos.promotion_moves()
                .into_iter()
                .filter(|m| !m.is_capture()),
        );
        moves
    }

    fn check(pos: &Chess) -> usize {
        if pos.is_check() {
            return 0;
        }
        let got = tactical_moves(pos);
        assert_eq!(
            got.as_slice(),
            reference(pos).as_slice(),
            "{}",
            crate::position::fen_of(pos)
        );
        got.len()
    }

    #[test]
    fn the_same_moves_in_the_same_order_as_filtering_every_legal_move() {
        // Pins along files, ranks and diagonals, en passant (legal, and illegal by a pin on the
        // rank), promotions with and without capture, by both sides, castling rights.
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "4k3/8/8/q7/8/2B5/8/4K1r1 w - - 0 1",
            "1r2k3/P6P/8/8/8/8/p6p/1R2K3 b - - 0 1",
            "1r2k3/P6P/8/8/8/8/p6p/1R2K3 w - - 0 1",
            "3r4/8/8/8/8/8/3R4/3K2k1 w - - 0 1",
            "7k/8/8/8/3q4/8/1B6/K7 w - - 0 1",
        ];
        let mut total = 0;
        for fen in fens {
            total += check(&parse_fen(fen).expect("test position"));
        }
        assert!(
            total > 40,
            "the positions hold captures to compare: {total}"
        );
    }

    #[test]
    fn legality_is_shakmatys_for_every_move_a_table_could_name() {
        // Every origin, destination and promotion on the positions of random games (in check
        // or not), as the table's move is read: the same verdict as shakmaty's.
        let promotions = [
            None,
            Some(Role::Queen),
            Some(Role::Knight),
            Some(Role::King),
        ];
        let (mut legal, mut checked) = (0, 0);
        for pos in random_positions(0xd1b5_4a32_d192_ed03, 12, 120, 0) {
            let board = pos.board();
            for from in board.by_color(pos.turn()) {
                let role = board.role_at(from).expect("a piece");
                for to in Square::ALL {
                    for promotion in promotions {
                        let m = normal(board, role, from, to, promotion);
                        let want = pos.is_legal(m);
                        assert_eq!(is_legal(&pos, m), want, "{m:?} in {pos:?}");
                        legal += usize::from(want);
                        checked += 1;
                    }
                }
            }
        }
        assert!(legal > 10_000, "{legal} legal of {checked}");
    }

    #[test]
    fn the_same_on_every_position_of_random_games() {
        // Positions of play chosen by a fixed generator, captures played one move in three so
        // that the games thin out: openings, middlegames, endings with pins and promotions
        // come up by the thousand.
        let positions = random_positions(0x9e37_79b9_7f4a_7c15, 200, 160, 3);
        let captures: usize = positions.iter().map(check).sum();
        let positions = positions.len();
        assert!(
            positions > 10_000 && captures > 10_000,
            "{positions} {captures}"
        );
    }
}
