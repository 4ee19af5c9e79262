//! What the search has learned about moves, as opposed to positions (the transposition table):
//! which quiet moves cut the search off (the butterfly history, by side, from and to square),
//! which follow well on the previous moves (continuation history, by the piece and square of
//! the move one and two plies before and of this one), and which captures pay (capture history,
//! by piece, square and victim). Kept from move to move of a game, emptied by `ucinewgame`.

use shakmaty::{Color, Move, Role};

/// Bound of every history score.
pub const HISTORY_MAX: i32 = 16_384;

/// A piece as an index: colour × 6 + role (0–11).
pub fn piece_index(color: Color, role: Role) -> usize {
    usize::from(color == Color::Black) * 6 + (role as usize - 1)
}

/// The piece and destination of a move, which continuation history keys on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moved {
    /// [`piece_index`] of the piece moved.
    pub piece: u8,
    /// Its destination square.
    pub to: u8,
}

impl Moved {
    /// `m` played by `color`.
    pub fn of(color: Color, m: &Move) -> Moved {
        Moved {
            piece: piece_index(color, m.role()) as u8,
            to: m.to() as u8,
        }
    }
}

/// Moves a score towards ±[`HISTORY_MAX`] by `bonus`, less the nearer it already is (the
/// "gravity" form: scores saturate instead of growing without bound, and recent results weigh
/// more than old ones).
#[inline]
fn gravity(h: &mut i16, bonus: i32) {
    let v = i32::from(*h);
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *h = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
}

/// [`Histories::quiet`] for the moves of one node.
pub struct QuietScores<'h> {
    /// The side to move's butterfly table, [from][to].
    butterfly: &'h [[i16; 64]; 64],
    /// The continuation rows of the moves one and two plies back, [piece][to].
    continuation: [Option<&'h [[i16; 64]; 12]>; 2],
    /// [`piece_index`] of the side to move's pawn (its other pieces follow).
    pieces: usize,
}

impl QuietScores<'_> {
    /// The quiet move `m`'s score.
    #[inline]
    pub fn of(&self, m: &Move) -> i32 {
        let Some(from) = m.from() else {
            return 0;
        };
        let to = m.to() as usize;
        let piece = self.pieces + (m.role() as usize - 1);
        let mut s = i32::from(self.butterfly[from as usize][to]);
        for row in self.continuation.iter().flatten() {
            s += i32::from(row[piece][to]);
        }
        s
    }
}

/// The histories.
pub struct Histories {
    /// [side][from][to].
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// [previous piece][previous to][piece][to], shared by the lookbacks of one and two plies.
    continuation: Box<[[[[i16; 64]; 12]; 64]; 12]>,
    /// [piece][to][victim role].
    capture: Box<[[[i16; 6]; 64]; 12]>,
}

impl Default for Histories {
    fn default() -> Histories {
        Histories::new()
    }
}

impl std::fmt::Debug for Histories {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Histories")
    }
}

/// `n` copies of `zero` in a box, allocated directly on the heap (the continuation table is
/// 1.2 MB, too large for the stack).
fn boxed<T: Clone, const N: usize>(zero: T) -> Box<[T; N]> {
    vec![zero; N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("a vector of N elements"))
}

impl Histories {
    /// Empty histories.
    pub fn new() -> Histories {
        Histories {
            butterfly: boxed([[0; 64]; 64]),
            continuation: boxed([[[0; 64]; 12]; 64]),
            capture: boxed([[0; 6]; 64]),
        }
    }

    /// Forgets everything (`ucinewgame`).
    pub fn clear(&mut self) {
        for side in self.butterfly.iter_mut() {
            side.iter_mut().for_each(|row| row.fill(0));
        }
        for a in self.continuation.iter_mut() {
            for b in a.iter_mut() {
                b.iter_mut().for_each(|row| row.fill(0));
            }
        }
        for a in self.capture.iter_mut() {
            a.iter_mut().for_each(|row| row.fill(0));
        }
    }

    /// The quiet move `m`'s score by `color`, after the moves `before` (one and two plies back,
    /// when known).
    #[inline]
    pub fn quiet(&self, color: Color, m: &Move, before: [Option<Moved>; 2]) -> i32 {
        self.quiet_scores(color, before).of(m)
    }

    /// The quiet moves' scores of one node (`color` to move after `before`): the tables' rows
    /// looked up once, for the node's every move.
    #[inline]
    pub fn quiet_scores(&self, color: Color, before: [Option<Moved>; 2]) -> QuietScores<'_> {
        let row = |prev: Option<Moved>| {
            prev.map(|p| &self.continuation[usize::from(p.piece)][usize::from(p.to)])
        };
        QuietScores {
            butterfly: &self.butterfly[usize::from(color == Color::Black)],
            continuation: [row(before[0]), row(before[1])],
            pieces: piece_index(color, Role::Pawn),
        }
    }

    /// Rewards (`bonus` > 0) or punishes the quiet move `m` of `color` after `before`.
    pub fn update_quiet(&mut self, color: Color, m: &Move, before: [Option<Moved>; 2], bonus: i32) {
        let Some(from) = m.from() else {
            return;
        };
        let this = Moved::of(color, m);
        gravity(
            &mut self.butterfly[usize::from(color == Color::Black)][from as usize][m.to() as usize],
            bonus,
        );
        for prev in before.into_iter().flatten() {
            gravity(
                &mut self.continuation[usize::from(prev.piece)][usize::from(prev.to)]
                    [usize::from(this.piece)][usize::from(this.to)],
                bonus,
            );
        }
    }

    /// The capture (or promotion) `m`'s score by `color`.
    #[inline]
    pub fn capture(&self, color: Color, m: &Move) -> i32 {
        let victim = m.capture().map_or(0, |r| r as usize - 1);
        i32::from(self.capture[piece_index(color, m.role())][m.to() as usize][victim])
    }

    /// Rewards or punishes the capture `m` of `color`.
    pub fn update_capture(&mut self, color: Color, m: &Move, bonus: i32) {
        let victim = m.capture().map_or(0, |r| r as usize - 1);
        gravity(
            &mut self.capture[piece_index(color, m.role())][m.to() as usize][victim],
            bonus,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn scores_saturate_and_clear() {
        let pos = Chess::default();
        let m = pos.legal_moves()[0];
        let mut h = Histories::new();
        for _ in 0..1000 {
            h.update_quiet(Color::White, &m, [None, None], 2000);
        }
        let s = h.quiet(Color::White, &m, [None, None]);
        assert!(s > HISTORY_MAX * 9 / 10 && s <= HISTORY_MAX, "{s}");
        assert_eq!(h.quiet(Color::Black, &m, [None, None]), 0);
        let prev = Moved { piece: 3, to: 20 };
        h.update_quiet(Color::White, &m, [Some(prev), None], -500);
        assert!(h.quiet(Color::White, &m, [Some(prev), None]) < s);
        h.clear();
        assert_eq!(h.quiet(Color::White, &m, [Some(prev), None]), 0);
    }

    #[test]
    fn continuation_scores_key_on_the_moves_before_and_the_mover() {
        let pos = Chess::default();
        let m = pos.legal_moves()[0];
        let (a, b) = (Moved { piece: 7, to: 36 }, Moved { piece: 1, to: 21 });
        let mut h = Histories::new();
        h.update_quiet(Color::White, &m, [Some(a), Some(b)], 800);
        let butterfly = h.quiet(Color::White, &m, [None, None]);
        assert_eq!(butterfly, 800);
        // Each lookback adds its own row's score, wherever it stands.
        assert_eq!(h.quiet(Color::White, &m, [Some(a), None]), 1600);
        assert_eq!(h.quiet(Color::White, &m, [None, Some(a)]), 1600);
        assert_eq!(h.quiet(Color::White, &m, [Some(a), Some(b)]), 2400);
        assert_eq!(
            h.quiet(Color::White, &m, [Some(b), Some(Moved { piece: 2, to: 9 })]),
            1600
        );
        // The same squares for the other side's piece are another entry.
        assert_eq!(h.quiet(Color::Black, &m, [Some(a), Some(b)]), 0);
        let scores = h.quiet_scores(Color::White, [Some(a), Some(b)]);
        assert_eq!(scores.of(&m), 2400);
    }
}
