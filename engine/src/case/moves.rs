//! The move as a case stores it: 16 bits, in the mover's point of view.

use bytemuck::{Pod, Zeroable};
use shakmaty::{CastlingSide, Color, Move, Role, Square};

/// A move as a case stores it, in the mover's point of view, in 16 bits:
/// from (6) | to (6) | promotion role (3) | castling flag (1).
///
/// Castling is stored as the king's move of two files (`e1g1`, `e1c1`), as docs/method.md says,
/// whatever the start squares were in Chess960.
#[repr(transparent)]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, Pod, Zeroable)]
pub struct CaseMove(pub u16);

impl CaseMove {
    /// Packs the parts of a move.
    pub fn new(from: Square, to: Square, promotion: Option<Role>, castle: bool) -> CaseMove {
        let promo = promotion.map_or(0, |r| r as u16);
        CaseMove(from as u16 | (to as u16) << 6 | promo << 12 | u16::from(castle) << 15)
    }

    /// Encodes a shakmaty move played by `mover`.
    pub(crate) fn from_move(m: Move, mover: Color) -> Option<CaseMove> {
        match m {
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook > king);
                let to = Square::from_coords(side.king_to_file(), mover.backrank());
                Some(CaseMove::new(king, to, None, true))
            }
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => Some(CaseMove::new(from, to, promotion, false)),
            Move::EnPassant { from, to } => Some(CaseMove::new(from, to, None, false)),
            Move::Put { .. } => None,
        }
    }

    /// Origin square.
    pub fn from(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    /// Destination square (the king's destination for castling).
    pub fn to(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63))
    }

    /// Promotion role, if any.
    pub fn promotion(self) -> Option<Role> {
        Role::try_from(((self.0 >> 12) & 7) as u8).ok()
    }

    /// Whether the move is castling.
    pub fn is_castle(self) -> bool {
        self.0 >> 15 != 0
    }

    /// The same move seen from the other side (ranks flipped).
    pub fn mirrored(self) -> CaseMove {
        CaseMove::new(
            self.from().flip_vertical(),
            self.to().flip_vertical(),
            self.promotion(),
            self.is_castle(),
        )
    }

    /// UCI notation (standard castling: king two files).
    pub fn uci(self) -> String {
        let promo = self
            .promotion()
            .map(|r| r.char().to_string())
            .unwrap_or_default();
        format!("{}{}{}", self.from(), self.to(), promo)
    }
}

#[cfg(test)]
mod case_move_tests {
    use super::*;
    use shakmaty::{Color, Move, Role, Square};

    #[test]
    fn case_move_round_trips_its_parts() {
        let m = CaseMove::new(Square::E7, Square::E8, Some(Role::Knight), false);
        assert_eq!(
            (m.from(), m.to(), m.promotion(), m.is_castle()),
            (Square::E7, Square::E8, Some(Role::Knight), false)
        );
        assert_eq!(m.uci(), "e7e8n");
        assert_eq!(m.mirrored().mirrored(), m);
        assert_eq!(m.mirrored().uci(), "e2e1n");
    }

    #[test]
    fn castling_is_stored_as_a_two_file_king_move() {
        let m = Move::Castle {
            king: Square::E8,
            rook: Square::A8,
        };
        let cm = CaseMove::from_move(m, Color::Black).expect("castling encodes");
        assert_eq!(cm.uci(), "e8c8");
        assert!(cm.is_castle());
    }
}
