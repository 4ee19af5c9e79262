//! The plain-old-data records of a case base: what one case and one game look like on disk and
//! in memory (the same bytes).

use bytemuck::{Pod, Zeroable};
use shakmaty::{CastlingSide, Chess, EnPassantMode, Position};

use super::patterns::LastMove;
use crate::position::CaseMove;

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
    /// The opponent's move that led to the position (mover's point of view), if known.
    pub last: LastMove,
}

/// [`CaseMeta::ep`] value for "no en-passant square".
pub const NO_EP: u8 = 0xff;

/// Castling rights (bits: own short, own long, their short, their long) and en-passant file
/// (or [`NO_EP`]) of a position, in the mover's point of view: what, with the board, makes two
/// positions the same for an exact match.
pub(crate) fn position_key(pos: &Chess) -> (u8, u8) {
    let turn = pos.turn();
    let castles = pos.castles();
    let mut rights = 0u8;
    let sides = [
        (turn, CastlingSide::KingSide),
        (turn, CastlingSide::QueenSide),
        (!turn, CastlingSide::KingSide),
        (!turn, CastlingSide::QueenSide),
    ];
    for (bit, (color, side)) in sides.into_iter().enumerate() {
        if castles.has(color, side) {
            rights |= 1 << bit;
        }
    }
    let ep = pos
        .ep_square(EnPassantMode::Legal)
        .map_or(NO_EP, |sq| sq.file() as u8);
    (rights, ep)
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
    /// Result code ([`crate::pgn::GameResult::to_byte`]).
    pub result: u8,
    /// Padding, always zero.
    pub pad: [u8; 3],
}

/// A run of boards with the same material, the unit a bounded retrieval skips or scans.
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct Bucket {
    /// The material every board of the bucket has ([`crate::board::Material`]).
    pub material: [u8; 12],
    /// Index of the bucket's first board; it ends where the next bucket (or the side) starts.
    pub first: u32,
}

/// Number of strings stored per game, in this order: white, black, date, event, site.
pub(crate) const GAME_STRINGS: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_have_fixed_sizes() {
        assert_eq!(std::mem::size_of::<CaseMeta>(), 12);
        assert_eq!(std::mem::size_of::<GameRecord>(), 24);
        assert_eq!(std::mem::size_of::<Bucket>(), 16);
        assert_eq!(std::mem::size_of::<crate::board::Planes>(), 32);
    }
}
