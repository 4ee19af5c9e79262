//! The exact-position index: every position of the case base (board, side, castling rights, en
//! passant, in the mover's point of view) with the moves played in it and how often. What an
//! opening book knows, and transpositions included: positions are found by their contents, not by
//! the moves that led to them. Built with the case base; looked up by binary search.

use bytemuck::{Pod, Zeroable};
use xxhash_rust::xxh3::xxh3_64;

use crate::board::Planes;
use crate::position::CaseMove;

/// One (position, move) of the index with its count.
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct IndexEntry {
    /// The position's key ([`position_hash`]).
    pub key: u64,
    /// A move played there (mover's point of view).
    pub mv: CaseMove,
    /// Padding, always zero.
    pub pad: u16,
    /// Times it was played there.
    pub count: u32,
}

/// The identity of a position for the index: a 64-bit hash of its board (mover's point of
/// view), castling rights and en-passant file, as a case stores them.
pub fn position_hash(board: &Planes, rights: u8, ep: u8) -> u64 {
    let mut bytes = [0u8; 34];
    bytes[..32].copy_from_slice(bytemuck::bytes_of(board));
    bytes[32] = rights;
    bytes[33] = ep;
    xxh3_64(&bytes)
}

/// Builds the index from (position key, move) pairs, one per case.
pub fn build_index(mut pairs: Vec<(u64, CaseMove)>) -> Vec<IndexEntry> {
    use rayon::slice::ParallelSliceMut;
    pairs.par_sort_unstable_by_key(|&(k, m)| (k, m.0));
    let mut out: Vec<IndexEntry> = Vec::new();
    for (key, mv) in pairs {
        match out.last_mut() {
            Some(e) if e.key == key && e.mv == mv => e.count = e.count.saturating_add(1),
            _ => out.push(IndexEntry {
                key,
                mv,
                pad: 0,
                count: 1,
            }),
        }
    }
    out
}

/// The moves played in the position with key `key`, with their counts.
pub fn moves_at(entries: &[IndexEntry], key: u64) -> &[IndexEntry] {
    let start = entries.partition_point(|e| e.key < key);
    let end = start + entries[start..].partition_point(|e| e.key == key);
    &entries[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    #[test]
    fn counts_each_move_of_each_position() {
        let a = CaseMove::new(Square::E2, Square::E4, None, false);
        let b = CaseMove::new(Square::D2, Square::D4, None, false);
        let start = Planes::from_board(&shakmaty::Board::default());
        let k = position_hash(&start, 15, 0xff);
        assert_ne!(k, position_hash(&start, 14, 0xff), "castling rights count");
        let other = k.wrapping_add(1);
        let index = build_index(vec![(k, a), (other, a), (k, b), (k, a)]);
        let here: Vec<(CaseMove, u32)> = moves_at(&index, k)
            .iter()
            .map(|e| (e.mv, e.count))
            .collect();
        assert_eq!(here.len(), 2);
        assert!(here.contains(&(a, 2)) && here.contains(&(b, 1)));
        assert_eq!(moves_at(&index, other).len(), 1);
        assert!(moves_at(&index, 12345).is_empty());
    }
}
