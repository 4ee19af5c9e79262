//! The transposition table: what the search learned about positions, kept from move to move.
//!
//! One table per engine, sized by the UCI `Hash` option (MB), cleared by `ucinewgame`. Entries
//! are 12 bytes: the low half of the Zobrist key (the high bits choose the slot), a packed move,
//! the score, the static evaluation, the depth and the bound, and the generation (the search that
//! wrote it), so entries from earlier moves give way to new ones without a clearing pass between
//! moves.

use shakmaty::{Move, MoveList, Role, Square};

/// What a stored score is: exact, or a bound from a cut-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value.
    Exact,
    /// The value is at least this (the search failed high).
    Lower,
    /// The value is at most this (the search failed low).
    Upper,
}

/// A move in 16 bits: from (6) | to (6) | promotion role (3). Castling is stored as king takes
/// rook, as shakmaty represents it, so every legal move of a position has its own code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackedMove(u16);

impl PackedMove {
    /// Packs a move (drops, which chess has not, pack to nothing).
    pub fn new(m: &Move) -> PackedMove {
        let (from, to) = match *m {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
            Move::Castle { king, rook } => (king, rook),
            Move::Put { .. } => return PackedMove(0),
        };
        let promo = m.promotion().map_or(0, |r| r as u16);
        PackedMove(from as u16 | (to as u16) << 6 | promo << 12)
    }

    fn from(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    fn to(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63))
    }

    fn promotion(self) -> Option<Role> {
        Role::try_from(((self.0 >> 12) & 7) as u8).ok()
    }

    /// The legal move among `moves` that this code stands for.
    pub fn find(self, moves: &MoveList) -> Option<Move> {
        if self.0 == 0 {
            return None;
        }
        moves.iter().copied().find(|m| PackedMove::new(m) == self)
    }

    /// Whether `m` is the move this code stands for.
    pub fn is(self, m: &Move) -> bool {
        self.0 != 0 && PackedMove::new(m) == self
    }

    /// Its squares, for display.
    pub fn squares(self) -> (Square, Square, Option<Role>) {
        (self.from(), self.to(), self.promotion())
    }
}

/// One stored position.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Slot {
    key: u32,
    mv: PackedMove,
    score: i16,
    /// The static evaluation, [`NO_EVAL`] when none was computed (a node in check).
    eval: i16,
    depth: i8,
    /// Bound in the low 2 bits (0 = empty), generation in the high 6.
    meta: u8,
}

/// A probe's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Best move found there, if any.
    pub mv: Option<PackedMove>,
    /// Score, relative to the node (mate distances as stored).
    pub score: i32,
    /// The position's static evaluation, if the search computed it.
    pub eval: Option<i32>,
    /// Depth it was searched to.
    pub depth: i32,
    /// What the score is.
    pub bound: Bound,
}

/// The stored evaluation of a node that has none.
const NO_EVAL: i16 = i16::MIN;

/// The part of a key a slot keeps: the low half (the high bits choose the slot).
fn check_bits(key: u64) -> u32 {
    key as u32
}

/// Default size in MB (the UCI `Hash` default).
pub const DEFAULT_MB: usize = 16;
/// Largest size accepted, in MB (the UCI `Hash` maximum).
pub const MAX_MB: usize = 1 << 17;

/// The table.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    generation: u8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable")
            .field("slots", &self.slots.len())
            .field("generation", &self.generation)
            .finish()
    }
}

impl Default for TranspositionTable {
    fn default() -> TranspositionTable {
        TranspositionTable::new(DEFAULT_MB)
    }
}

impl TranspositionTable {
    /// A table of `mb` megabytes (any number of entries: the slot is chosen by a multiply, at
    /// least 1024 entries).
    ///
    /// # Panics
    /// When the memory cannot be had; [`TranspositionTable::try_new`] reports that instead.
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`TranspositionTable::new`], but a refused allocation is an error, not an abort
    /// (a GUI may ask for more memory than the machine has).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = mb.clamp(1, MAX_MB) << 20;
        let entries = (bytes / size_of::<Slot>()).max(1024);
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(entries)
            .map_err(|_| format!("cannot allocate a {mb} MB hash table"))?;
        slots.resize(entries, Slot::default());
        Ok(TranspositionTable {
            slots,
            generation: 0,
        })
    }

    /// Its size in entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether it has no entries (never: at least 1024).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets everything (`ucinewgame`).
    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
        self.generation = 0;
    }

    /// Marks the start of a new search: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    fn index(&self, key: u64) -> usize {
        // The high bits: the low ones also pick the slot in smaller tables of other engines,
        // and a multiply spreads keys whatever the table size.
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    /// What is stored for `key`, if anything.
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let s = self.slots[self.index(key)];
        let bound = match s.meta & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        (s.key == check_bits(key)).then_some(Hit {
            mv: (s.mv.0 != 0).then_some(s.mv),
            score: i32::from(s.score),
            eval: (s.eval != NO_EVAL).then_some(i32::from(s.eval)),
            depth: i32::from(s.depth),
            bound,
        })
    }

    /// Stores a result with the position's static evaluation (`None` in check). An entry of
    /// the current search is kept against a shallower result for another position, and a much
    /// deeper bound against a shallow bound for the same position; anything else is replaced.
    /// A result without a move keeps the move already stored for the same position.
    pub fn store(
        &mut self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: Option<i32>,
        depth: i32,
        bound: Bound,
    ) {
        let i = self.index(key);
        let old = self.slots[i];
        let same = old.key == check_bits(key) && old.meta & 3 != 0;
        let current = old.meta >> 2 == self.generation && old.meta & 3 != 0;
        if !same && current && i32::from(old.depth) > depth && bound != Bound::Exact {
            return;
        }
        if same && current && i32::from(old.depth) > depth + 3 && bound != Bound::Exact {
            return;
        }
        let mv = match mv {
            Some(m) => PackedMove::new(&m),
            None if same => old.mv,
            None => PackedMove::default(),
        };
        let code = match bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        self.slots[i] = Slot {
            key: check_bits(key),
            mv,
            score: score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16,
            eval: eval.map_or(NO_EVAL, |e| e.clamp(-30_000, 30_000) as i16),
            depth: depth.clamp(-1, 127) as i8,
            meta: self.generation << 2 | code,
        };
    }

    /// Permille of the table used by the current search (UCI `hashfull`), from the first
    /// thousand entries.
    pub fn hashfull(&self) -> u32 {
        let sample = &self.slots[..self.slots.len().min(1000)];
        let used = sample
            .iter()
            .filter(|s| s.meta & 3 != 0 && s.meta >> 2 == self.generation)
            .count();
        (used * 1000 / sample.len().max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn sizes_follow_the_hash_option_in_megabytes() {
        assert_eq!(size_of::<Slot>(), 12);
        // The whole size is used: 16 MB hold 1.4 million entries.
        assert_eq!(TranspositionTable::new(16).len(), (16 << 20) / 12);
        assert_eq!(TranspositionTable::new(1).len(), (1 << 20) / 12);
    }

    #[test]
    fn stored_entries_are_found_and_cleared() {
        let mut tt = TranspositionTable::new(1);
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let m = moves[5];
        tt.store(42, Some(m), -123, Some(15), 7, Bound::Lower);
        let hit = tt.probe(42).expect("stored");
        assert_eq!(
            (hit.score, hit.eval, hit.depth, hit.bound),
            (-123, Some(15), 7, Bound::Lower)
        );
        assert_eq!(hit.mv.and_then(|p| p.find(&moves)), Some(m));
        assert_eq!(tt.probe(43), None);
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert_eq!(tt.probe(42), None);
    }

    #[test]
    fn every_legal_move_packs_to_its_own_code() {
        // Castling both ways, promotions to four pieces, en passant.
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "3k4/1P6/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        ] {
            let pos: Chess = fen
                .parse::<shakmaty::fen::Fen>()
                .expect("fen")
                .into_position(shakmaty::CastlingMode::Standard)
                .expect("position");
            let moves = pos.legal_moves();
            for m in &moves {
                assert_eq!(PackedMove::new(m).find(&moves), Some(*m), "{fen}: {m:?}");
            }
        }
    }

    #[test]
    fn a_deeper_entry_of_the_current_search_survives_a_collision() {
        let mut tt = TranspositionTable::new(1);
        let n = tt.len() as u128;
        // Two keys with the same slot: the slot is the key's high bits scaled to the size.
        let a = 5u64 << 50;
        let b = a + 1;
        assert_eq!(
            (u128::from(a) * n) >> 64,
            (u128::from(b) * n) >> 64,
            "same slot"
        );
        tt.store(a, None, 10, None, 9, Bound::Lower);
        tt.store(b, None, 20, None, 3, Bound::Upper);
        assert!(tt.probe(a).is_some() && tt.probe(b).is_none());
        // In the next search the old entry gives way.
        tt.new_search();
        tt.store(b, None, 20, None, 3, Bound::Upper);
        assert!(tt.probe(a).is_none() && tt.probe(b).is_some());
    }
}
