//! The plain-old-data records of a case base: what one case and one game look like on disk and
//! in memory (the same bytes).

use bytemuck::{Pod, Zeroable};
use shakmaty::{CastlingSide, Color, Move, Role, Square};

/// A move as a case stores it, in the mover's point of view, in 16 bits:
/// from (6) | to (6) | promotion role (3) | castling flag (1).
///
/// Castling is stored as the king's move of two files (`e1g1`, `e1c1`), as method.md says,
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
    pub fn from_move(m: Move, mover: Color) -> Option<CaseMove> {
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

/// Everything about a case except its board, which lives in a separate flat array so that the
/// similarity scan touches 32 bytes a case and nothing else.
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct CaseMeta {
    /// Index of the game in the case base's game table.
    pub game: u32,
    /// Ply of the position in its game (0 = White's first move), saturating.
    pub ply: u16,
    /// The move played, in the mover's point of view.
    pub mv: CaseMove,
    /// Castling rights in the mover's point of view: bit 0 own short, 1 own long, 2 their short,
    /// 3 their long.
    pub rights: u8,
    /// En-passant file (0–7) of the position, or [`NO_EP`].
    pub ep: u8,
    /// Padding, always zero.
    pub pad: [u8; 2],
}

/// [`CaseMeta::ep`] value for "no en-passant square".
pub const NO_EP: u8 = 0xff;

/// Result of a game, as the game table stores it.
#[derive(Copy, Clone, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*` or missing.
    Unknown,
}

impl GameResult {
    /// Parses a PGN `Result` tag value.
    pub fn from_tag(s: &str) -> GameResult {
        match s.trim() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// PGN notation.
    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Points scored by `side` (None when the result is unknown).
    pub fn points_for(self, side: Color) -> Option<f64> {
        match (self, side) {
            (GameResult::Draw, _) => Some(0.5),
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => {
                Some(1.0)
            }
            (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => {
                Some(0.0)
            }
            (GameResult::Unknown, _) => None,
        }
    }

    pub(crate) fn to_byte(self) -> u8 {
        match self {
            GameResult::WhiteWins => 1,
            GameResult::BlackWins => 2,
            GameResult::Draw => 3,
            GameResult::Unknown => 0,
        }
    }

    pub(crate) fn from_byte(b: u8) -> GameResult {
        match b {
            1 => GameResult::WhiteWins,
            2 => GameResult::BlackWins,
            3 => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }
}

/// One game of the game table, fixed size; its strings live in the string pool.
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct GameRecord {
    /// Offset of the game's strings in the string pool.
    pub strings: u64,
    /// Identity of the game (hash of its tags and moves), to find the same game elsewhere.
    pub key: u64,
    /// White's rating, 0 if unknown.
    pub white_elo: u16,
    /// Black's rating, 0 if unknown.
    pub black_elo: u16,
    /// Result code (see [`GameResult`]).
    pub result: u8,
    /// Padding, always zero.
    pub pad: [u8; 3],
}

/// A game's descriptive fields, as read back from the game table.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GameInfo {
    /// White player's name.
    pub white: String,
    /// Black player's name.
    pub black: String,
    /// White's rating.
    pub white_elo: Option<u16>,
    /// Black's rating.
    pub black_elo: Option<u16>,
    /// `Date` tag.
    pub date: String,
    /// `Event` tag.
    pub event: String,
    /// `Site` tag (a URL for Lichess games).
    pub site: String,
    /// `Result` tag.
    pub result: String,
}

/// Number of strings stored per game, in this order: white, black, date, event, site.
pub(crate) const GAME_STRINGS: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn records_have_fixed_sizes() {
        assert_eq!(std::mem::size_of::<CaseMeta>(), 12);
        assert_eq!(std::mem::size_of::<GameRecord>(), 24);
        assert_eq!(std::mem::size_of::<crate::board::Planes>(), 32);
    }
}
