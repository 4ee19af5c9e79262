//! The plain-old-data records of a case base: what one case and one game look like on disk and
//! in memory (the same bytes).

use bytemuck::{Pod, Zeroable};
use shakmaty::{CastlingSide, Chess, EnPassantMode, Position};

use super::patterns::LastMove;
use crate::case::CaseMove;

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

/// How long a case's player thought, beside its [`CaseMeta`] (a case base built from games with
/// clocks keeps one a case, in the same order): the clock before the move and the time taken,
/// in tenths of a second ([`CaseClock::NONE`] when the game had no clock for the move).
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Pod, Zeroable)]
pub struct CaseClock {
    /// The mover's clock when the move began.
    pub left: u32,
    /// The time the move took.
    pub spent: u32,
}

impl CaseClock {
    /// A case without a clock.
    pub const NONE: CaseClock = CaseClock {
        left: u32::MAX,
        spent: u32::MAX,
    };

    /// The clock of a move, `NONE` for `None`.
    pub fn of(clock: Option<crate::pgn::MoveClock>) -> CaseClock {
        clock.map_or(CaseClock::NONE, |c| CaseClock {
            left: c.left,
            spent: c.spent,
        })
    }

    /// The clock as read from a game, `None` for a case without one.
    pub fn get(self) -> Option<crate::pgn::MoveClock> {
        (self != CaseClock::NONE).then_some(crate::pgn::MoveClock {
            left: self.left,
            spent: self.spent,
        })
    }
}

/// A game's time control beside its [`GameRecord`], in seconds (both zero when unknown).
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct GameControl {
    /// Seconds on each clock at the start.
    pub base: u32,
    /// Seconds added after each move.
    pub increment: u32,
}

impl GameControl {
    /// The stored form of a time control (`None`: zeros).
    pub fn of(control: Option<crate::pgn::TimeControl>) -> GameControl {
        control.map_or(GameControl::default(), |c| GameControl {
            base: c.base,
            increment: c.increment,
        })
    }

    /// The time control, `None` when unknown.
    pub fn get(self) -> Option<crate::pgn::TimeControl> {
        (self != GameControl::default()).then_some(crate::pgn::TimeControl {
            base: self.base,
            increment: self.increment,
        })
    }
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
    /// The material every board of the bucket has ([`crate::case::Material`]).
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
        assert_eq!(std::mem::size_of::<crate::case::Planes>(), 32);
    }
}
