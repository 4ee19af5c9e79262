//! The exact-position index: every position of the case base (board, side, castling rights, en
//! passant, in the mover's point of view) with the moves played in it and how often. What an
//! opening book knows, and transpositions included: positions are found by their contents, not by
//! the moves that led to them. Built with the case base; looked up in constant time through a
//! directory of the keys' leading bits (the keys are hashes, so each slot holds about one
//! position).

use bytemuck::{Pod, Zeroable};
use xxhash_rust::xxh3::xxh3_64;

use crate::case::CaseMove;
use crate::case::Planes;

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
pub(crate) fn position_hash(board: &Planes, rights: u8, ep: u8) -> u64 {
    let mut bytes = [0u8; 34];
    bytes[..32].copy_from_slice(bytemuck::bytes_of(board));
    bytes[32] = rights;
    bytes[33] = ep;
    xxh3_64(&bytes)
}

/// Builds the index from (position key, move) pairs, one per case.
pub(crate) fn build_index(mut pairs: Vec<(u64, CaseMove)>) -> Vec<IndexEntry> {
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

/// Bits of the directory for `entries` index entries: one to two entries a slot.
pub(crate) fn directory_bits(entries: usize) -> u32 {
    (usize::BITS - 1 - entries.max(1).leading_zeros()).min(32)
}

/// The directory of sorted `entries` with `bits` bits: slot `p` starts at the first entry whose
/// key's leading `bits` bits are `p` or more; one more slot at the end.
pub(crate) fn build_directory(entries: &[IndexEntry], bits: u32) -> Vec<u32> {
    let mut dir = Directory::new(bits);
    entries.iter().for_each(|e| dir.push(e.key));
    dir.finish()
}

/// A directory built as the sorted keys go by (an index larger than the memory is merged from
/// disk, one entry after another).
pub(crate) struct Directory {
    bits: u32,
    seen: u32,
    slots: Vec<u32>,
}

impl Directory {
    pub(crate) fn new(bits: u32) -> Directory {
        Directory {
            bits,
            seen: 0,
            slots: Vec::with_capacity((1usize << bits) + 1),
        }
    }

    /// The next entry's key (keys come in ascending order).
    pub(crate) fn push(&mut self, key: u64) {
        let slot = slot_of(key, self.bits);
        while self.slots.len() <= slot {
            self.slots.push(self.seen);
        }
        self.seen += 1;
    }

    pub(crate) fn finish(mut self) -> Vec<u32> {
        let slots = 1usize << self.bits;
        while self.slots.len() <= slots {
            self.slots.push(self.seen);
        }
        self.slots
    }
}

/// The directory slot of `key`: its leading `bits` bits.
pub(crate) fn slot_of(key: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (key >> (64 - bits)) as usize
    }
}

/// The moves played in the position with key `key`, with their counts: the directory gives the
/// few entries sharing the key's leading bits, which are searched.
pub(crate) fn moves_at<'a>(
    entries: &'a [IndexEntry],
    directory: &[u32],
    key: u64,
) -> &'a [IndexEntry] {
    let bits = directory.len().saturating_sub(1).trailing_zeros();
    let p = slot_of(key, bits);
    let (Some(&lo), Some(&hi)) = (directory.get(p), directory.get(p + 1)) else {
        return &[];
    };
    let Some(slot) = entries.get(lo as usize..hi as usize) else {
        return &[];
    };
    let start = slot.partition_point(|e| e.key < key);
    let end = start + slot[start..].partition_point(|e| e.key == key);
    &slot[start..end]
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
        for bits in [0, 1, 2, 8] {
            let dir = build_directory(&index, bits);
            assert_eq!(moves_at(&index, &dir, k).len(), 2, "bits {bits}");
            assert_eq!(moves_at(&index, &dir, other).len(), 1, "bits {bits}");
        }
        let dir = build_directory(&index, directory_bits(index.len()));
        let here: Vec<(CaseMove, u32)> = moves_at(&index, &dir, k)
            .iter()
            .map(|e| (e.mv, e.count))
            .collect();
        assert_eq!(here.len(), 2);
        assert!(here.contains(&(a, 2)) && here.contains(&(b, 1)));
        assert_eq!(moves_at(&index, &dir, other).len(), 1);
        assert!(moves_at(&index, &dir, 12345).is_empty());
        assert!(moves_at(&[], &build_directory(&[], 0), k).is_empty());
    }
}
