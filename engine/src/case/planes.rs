//! The board as the case base stores it: four bit planes (32 bytes), and the thesis' similarity.
//!
//! Each square holds a 4-bit code: one bit for "white piece" and three bits for the role
//! (1 = pawn … 6 = king, 0 = empty), each bit in its own 64-bit plane. This is the smallest
//! fixed layout that keeps every square's piece while letting the similarity of two boards be
//! computed with a handful of bitwise operations and four popcounts (see [`similarity`]).

use bytemuck::{Pod, Zeroable};
use shakmaty::{Board, Color, Piece, Role, Square};

/// Highest board similarity: two identical boards.
pub(crate) const MAX_SCORE: u32 = 256;

/// A chess board packed into four bit planes.
#[repr(C)]
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Debug, Pod, Zeroable)]
pub struct Planes {
    /// Squares holding a white piece.
    pub white: u64,
    /// Bit 0 of the role code of each square.
    pub r0: u64,
    /// Bit 1 of the role code.
    pub r1: u64,
    /// Bit 2 of the role code.
    pub r2: u64,
}

impl Planes {
    /// Packs a shakmaty board.
    pub fn from_board(board: &Board) -> Planes {
        let mut p = Planes {
            white: board.white().0,
            ..Planes::default()
        };
        for role in Role::ALL {
            let bb = board.by_role(role).0;
            let code = role as u8;
            if code & 1 != 0 {
                p.r0 |= bb;
            }
            if code & 2 != 0 {
                p.r1 |= bb;
            }
            if code & 4 != 0 {
                p.r2 |= bb;
            }
        }
        p
    }

    /// Unpacks into a shakmaty board. Codes 7 (no such role) read as empty.
    pub fn to_board(self) -> Board {
        let mut board = Board::empty();
        for sq in Square::ALL {
            if let Some(piece) = self.piece_at(sq) {
                board.set_piece_at(sq, piece);
            }
        }
        board
    }

    /// Occupied squares.
    #[inline(always)]
    pub fn occupied(self) -> u64 {
        self.r0 | self.r1 | self.r2
    }

    /// The piece on a square, if any.
    pub fn piece_at(self, sq: Square) -> Option<Piece> {
        let bit = |plane: u64| ((plane >> (sq as u32)) & 1) as u8;
        let code = bit(self.r0) | (bit(self.r1) << 1) | (bit(self.r2) << 2);
        let role = Role::try_from(code).ok()?;
        let color = Color::from_white(bit(self.white) == 1);
        Some(Piece { color, role })
    }

    /// The same position seen from the other side: ranks flipped and colours swapped.
    /// Mirroring twice gives the original board.
    pub fn mirrored(self) -> Planes {
        let occ = self.occupied();
        Planes {
            white: (occ & !self.white).swap_bytes(),
            r0: self.r0.swap_bytes(),
            r1: self.r1.swap_bytes(),
            r2: self.r2.swap_bytes(),
        }
    }
}

/// Board similarity as an integer in `0..=256` (4 × the sum of the per-square scores of
/// docs/method.md): `4·same + 3·same colour, other type + 2·one side empty + 1·same type, other colour`.
#[inline(always)]
pub fn similarity(a: &Planes, b: &Planes) -> u32 {
    let occ_a = a.occupied();
    let occ_b = b.occupied();
    let both = occ_a & occ_b;
    let diff_type = (a.r0 ^ b.r0) | (a.r1 ^ b.r1) | (a.r2 ^ b.r2);
    let diff_colour = a.white ^ b.white;
    // Both empty, or the same piece: no bit differs at all.
    let same = !(diff_type | diff_colour);
    let same_colour_other_type = both & !diff_colour & diff_type;
    let one_empty = occ_a ^ occ_b;
    let same_type_other_colour = both & diff_colour & !diff_type;
    4 * same.count_ones()
        + 3 * same_colour_other_type.count_ones()
        + 2 * one_empty.count_ones()
        + same_type_other_colour.count_ones()
}

/// How many pieces of each kind a board holds: index `6·white + role − 1` (black pawn … black
/// king, then white pawn … white king), saturating at 255. Boards with the same material fall in
/// the same bucket of a case base, and [`material_bound`] bounds the similarity of any two boards
/// from their materials alone.
pub type Material = [u8; 12];

impl Planes {
    /// The board's material ([`Material`]).
    pub fn material(self) -> Material {
        let occ = self.occupied();
        let mut out = [0u8; 12];
        for role in 1..=6u8 {
            let pick = |plane: u64, bit: u8| if role & bit != 0 { plane } else { !plane };
            let squares = occ & pick(self.r0, 1) & pick(self.r1, 2) & pick(self.r2, 4);
            let count = |bb: u64| u8::try_from(bb.count_ones()).unwrap_or(u8::MAX);
            out[usize::from(role) - 1] = count(squares & !self.white);
            out[usize::from(role) + 5] = count(squares & self.white);
        }
        out
    }
}

/// An upper bound of [`similarity`] between any two boards with materials `a` and `b`.
///
/// Summing the per-square scores gives `256 − 2·(pieces of a + pieces of b) + 4·same piece +
/// 3·same colour, other type + 1·same type, other colour`, counted over the squares both boards
/// occupy. Pairs of the same colour are at most the smaller count of that colour, of which at
/// most the per-kind minimums can be the same piece; the pieces left over can at best meet a
/// piece of the other colour (worth 1). Taking every possible same-colour pair is optimal (each
/// is worth 3 or 4 and costs at most two cross-colour pairs worth 1), so no placement of the
/// pieces on the squares scores more.
#[cfg(test)]
pub(crate) fn material_bound(a: &Material, b: &Material) -> u32 {
    let mut total = 0u32;
    let mut same_piece = 0u32;
    let mut side = [[0u32; 2]; 2];
    for i in 0..12 {
        let (x, y) = (u32::from(a[i]), u32::from(b[i]));
        total += x + y;
        same_piece += x.min(y);
        side[i / 6][0] += x;
        side[i / 6][1] += y;
    }
    let pairs = [side[0][0].min(side[0][1]), side[1][0].min(side[1][1])];
    let cross = (side[1][0] - pairs[1]).min(side[0][1] - pairs[0])
        + (side[0][0] - pairs[0]).min(side[1][1] - pairs[1]);
    let gained = same_piece + 3 * (pairs[0] + pairs[1]) + cross;
    (MAX_SCORE + gained)
        .saturating_sub(2 * total)
        .min(MAX_SCORE)
}

/// A query's material, prepared to bound many buckets quickly: [`MaterialQuery::bound`] equals
/// [`material_bound`] for materials of at most 64 pieces (every real board's; a case base's
/// buckets are checked to be real materials when it is loaded), computed on whole words (eight
/// counts at a time) instead of count by count. Outside that domain it is wrong but never
/// panics.
#[derive(Clone, Copy, Debug)]
pub struct MaterialQuery {
    words: (u64, u64),
    black: u32,
    white: u32,
}

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
const BLACK_BYTES: u64 = 0x0000_FFFF_FFFF_FFFF;

/// Counts 0–7 and 8–11 of a material as two little-endian words.
#[inline(always)]
fn material_words(m: &Material) -> (u64, u64) {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&m[..8]);
    hi[..4].copy_from_slice(&m[8..]);
    (u64::from_le_bytes(lo), u64::from_le_bytes(hi))
}

/// The sum of the bytes of a word whose bytes sum to less than 256.
#[inline(always)]
fn byte_sum(x: u64) -> u32 {
    (x.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

/// The bytewise minimum of two words whose bytes are below 128.
#[inline(always)]
fn byte_min(a: u64, b: u64) -> u64 {
    // The high bit of each byte of (a | 0x80…) − b is set where a ≥ b.
    let a_ge_b = (((a | HIGH_BITS).wrapping_sub(b)) & HIGH_BITS) >> 7;
    let mask = a_ge_b * 0xFF;
    (b & mask) | (a & !mask)
}

impl MaterialQuery {
    /// Prepares `m` (counts below 128).
    pub fn new(m: &Material) -> MaterialQuery {
        let words = material_words(m);
        let black = m[..6].iter().map(|&c| u32::from(c)).sum();
        let white = m[6..].iter().map(|&c| u32::from(c)).sum();
        MaterialQuery {
            words,
            black,
            white,
        }
    }

    /// [`material_bound`] of the query and `b`.
    #[inline]
    pub fn bound(&self, b: &Material) -> u32 {
        let (lo, hi) = material_words(b);
        let same_piece =
            byte_sum(byte_min(self.words.0, lo)) + byte_sum(byte_min(self.words.1, hi));
        let b_black = byte_sum(lo & BLACK_BYTES);
        let b_white = byte_sum(lo >> 48) + byte_sum(hi);
        let pairs = [self.black.min(b_black), self.white.min(b_white)];
        let cross = (self.white - pairs[1]).min(b_black - pairs[0])
            + (self.black - pairs[0]).min(b_white - pairs[1]);
        let total = self.black + self.white + b_black + b_white;
        let gained = same_piece + 3 * (pairs[0] + pairs[1]) + cross;
        (MAX_SCORE + gained)
            .saturating_sub(2 * total)
            .min(MAX_SCORE)
    }
}

/// Per-square score of docs/method.md, ×4: 4, 3, 2, 1 or 0.
pub fn piece_score(a: Option<Piece>, b: Option<Piece>) -> u32 {
    match (a, b) {
        (None, None) => 4,
        (Some(_), None) | (None, Some(_)) => 2,
        (Some(a), Some(b)) if a == b => 4,
        (Some(a), Some(b)) if a.color == b.color => 3,
        (Some(a), Some(b)) if a.role == b.role => 1,
        _ => 0,
    }
}

/// The naive per-square similarity, straight from the table of docs/method.md: the test oracle
/// for [`similarity`].
pub fn similarity_naive(a: &Board, b: &Board) -> u32 {
    Square::ALL
        .iter()
        .map(|&sq| piece_score(a.piece_at(sq), b.piece_at(sq)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_board() -> impl Strategy<Value = Board> {
        proptest::collection::vec(0u8..13, 64).prop_map(|codes| {
            let mut board = Board::empty();
            for (sq, code) in Square::ALL.iter().zip(codes) {
                if code > 0 {
                    let color = Color::from_white(code <= 6);
                    let role = Role::try_from((code - 1) % 6 + 1).expect("1..=6 is a role");
                    board.set_piece_at(*sq, Piece { color, role });
                }
            }
            board
        })
    }

    proptest! {
        #[test]
        fn bitplane_similarity_equals_per_square_oracle(a in arb_board(), b in arb_board()) {
            let fast = similarity(&Planes::from_board(&a), &Planes::from_board(&b));
            prop_assert_eq!(fast, similarity_naive(&a, &b));
        }

        #[test]
        fn planes_round_trip_the_board(a in arb_board()) {
            prop_assert_eq!(Planes::from_board(&a).to_board(), a);
        }

        #[test]
        fn mirroring_twice_is_identity(a in arb_board()) {
            let p = Planes::from_board(&a);
            prop_assert_eq!(p.mirrored().mirrored(), p);
            prop_assert_eq!(p.mirrored().to_board(), a.clone().into_mirrored());
        }

        #[test]
        fn material_bounds_the_similarity(a in arb_board(), b in arb_board()) {
            let (pa, pb) = (Planes::from_board(&a), Planes::from_board(&b));
            let bound = material_bound(&pa.material(), &pb.material());
            prop_assert!(similarity(&pa, &pb) <= bound, "{} > {}", similarity(&pa, &pb), bound);
            prop_assert_eq!(material_bound(&pa.material(), &pa.material()), MAX_SCORE);
        }

        #[test]
        fn the_word_wise_bound_equals_the_reference(a in proptest::array::uniform12(0u8..20), b in proptest::array::uniform12(0u8..20)) {
            prop_assert_eq!(MaterialQuery::new(&a).bound(&b), material_bound(&a, &b));
        }

        #[test]
        fn material_counts_every_piece(a in arb_board()) {
            let m = Planes::from_board(&a).material();
            for piece in [Color::White, Color::Black].into_iter().flat_map(|c| Role::ALL.map(|r| Piece { color: c, role: r })) {
                let i = usize::from(piece.color.is_white()) * 6 + piece.role as usize - 1;
                prop_assert_eq!(usize::from(m[i]), a.by_piece(piece).count());
            }
        }

        #[test]
        fn similarity_is_symmetric_and_mirror_invariant(a in arb_board(), b in arb_board()) {
            let (pa, pb) = (Planes::from_board(&a), Planes::from_board(&b));
            prop_assert_eq!(similarity(&pa, &pb), similarity(&pb, &pa));
            prop_assert_eq!(similarity(&pa, &pb), similarity(&pa.mirrored(), &pb.mirrored()));
        }
    }

    #[test]
    fn identical_boards_score_256() {
        let p = Planes::from_board(&Board::new());
        assert_eq!(similarity(&p, &p), MAX_SCORE);
    }

    #[test]
    fn per_square_scores_follow_the_method_table() {
        let wp = Some(Piece {
            color: Color::White,
            role: Role::Pawn,
        });
        let wn = Some(Piece {
            color: Color::White,
            role: Role::Knight,
        });
        let bp = Some(Piece {
            color: Color::Black,
            role: Role::Pawn,
        });
        let bn = Some(Piece {
            color: Color::Black,
            role: Role::Knight,
        });
        assert_eq!(piece_score(None, None), 4);
        assert_eq!(piece_score(wp, wp), 4);
        assert_eq!(piece_score(wp, wn), 3);
        assert_eq!(piece_score(wp, None), 2);
        assert_eq!(piece_score(wp, bp), 1);
        assert_eq!(piece_score(wp, bn), 0);
    }
}
