//! The order in which a node tries its moves, handed out one at a time: the transposition
//! table's move first (before any other move is generated: it often ends the node at once),
//! then the captures and promotions that do not lose material by static exchange (most valuable
//! victim first, then their capture history), the two killer moves, the quiet moves by history
//! (butterfly and continuation), and last the captures that lose material.

use shakmaty::{Chess, Move, MoveList, Position, Role};

use super::evaluate::value;
use super::history::{Histories, Moved};
use super::movegen::{is_legal, normal};
use super::see::see_ge;
use super::tt::PackedMove;

/// What a picked move is, for the search's pruning and history updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The table's move.
    Table,
    /// A capture or promotion that does not lose material.
    GoodTactical,
    /// A killer move (quiet).
    Killer,
    /// Any other quiet move.
    Quiet,
    /// A capture that loses material in the exchange.
    BadTactical,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Table,
    Generate,
    Main,
    Bad,
    Done,
}

/// Whether a move captures or promotes.
pub fn is_tactical(m: &Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// Most valuable victim, least valuable attacker.
pub fn mvv_lva(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, value);
    let promo = m.promotion().map_or(0, value);
    victim * 16 + promo - value(m.role()) / 10
}

const GOOD_TACTICAL: i32 = 1 << 28;
const KILLER: i32 = 1 << 26;

/// The legal move of `pos` a table entry stands for, if any (the entry may belong to another
/// position with the same slot, or to a position before a change the key does not see).
pub fn table_move(pos: &Chess, code: PackedMove) -> Option<Move> {
    let (from, to, promotion) = code.squares();
    if from == to {
        return None;
    }
    let board = pos.board();
    let us = pos.turn();
    if board.color_at(from) != Some(us) {
        return None;
    }
    let role = board.role_at(from)?;
    let m = if role == Role::King && board.color_at(to) == Some(us) {
        Move::Castle {
            king: from,
            rook: to,
        }
    } else if role == Role::Pawn
        && from.file() != to.file()
        && board.role_at(to).is_none()
        && pos.ep_square(shakmaty::EnPassantMode::Legal) == Some(to)
    {
        Move::EnPassant { from, to }
    } else {
        if board.color_at(to) == Some(us) {
            return None;
        }
        normal(board, role, from, to, promotion)
    };
    is_legal(pos, m).then_some(m)
}

/// Hands out the moves of one node.
pub struct Picker {
    stage: Stage,
    table: Option<Move>,
    killers: [Option<Move>; 2],
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
    bad: MoveList,
    bad_next: usize,
    /// Whether any legal move exists (known once the table's move is legal or the moves are
    /// generated).
    any: bool,
    /// Quiet moves are no longer wanted (late-move pruning has cut them all).
    skip_quiets: bool,
}

impl Picker {
    /// A picker for a node with this table move and these killers.
    pub fn new(table: Option<Move>, killers: [Option<Move>; 2]) -> Picker {
        Picker {
            stage: Stage::Table,
            table,
            killers,
            moves: MoveList::new(),
            scores: [0; 256],
            next: 0,
            bad: MoveList::new(),
            bad_next: 0,
            any: false,
            skip_quiets: false,
        }
    }

    /// Whether the position has a legal move (meaningful once [`Picker::next`] returned
    /// `None`).
    pub fn any_legal(&self) -> bool {
        self.any
    }

    /// Hands out no more quiet moves (killers included); captures still come.
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The next move to try, with its kind.
    pub fn next(
        &mut self,
        pos: &Chess,
        histories: &Histories,
        before: [Option<Moved>; 2],
    ) -> Option<(Move, Kind)> {
        loop {
            match self.stage {
                Stage::Table => {
                    self.stage = Stage::Generate;
                    if let Some(m) = self.table {
                        self.any = true;
                        return Some((m, Kind::Table));
                    }
                }
                Stage::Generate => {
                    self.stage = Stage::Main;
                    self.moves = pos.legal_moves();
                    self.any |= !self.moves.is_empty();
                    if let Some(t) = self.table
                        && let Some(i) = self.moves.iter().position(|m| *m == t)
                    {
                        self.moves.swap_remove(i);
                    }
                    let color = pos.turn();
                    let quiet = histories.quiet_scores(color, before);
                    for (i, m) in self.moves.iter().enumerate() {
                        self.scores[i] = if is_tactical(m) {
                            GOOD_TACTICAL + mvv_lva(m) * 64 + histories.capture(color, m) / 16
                        } else if self.killers[0] == Some(*m) {
                            KILLER + 1
                        } else if self.killers[1] == Some(*m) {
                            KILLER
                        } else {
                            quiet.of(m)
                        };
                    }
                }
                Stage::Main => {
                    let Some(i) = self.best_remaining() else {
                        self.stage = Stage::Bad;
                        continue;
                    };
                    let score = self.scores[i];
                    if self.skip_quiets && score < GOOD_TACTICAL {
                        // Every tactical move scores above every quiet one: only quiet moves
                        // are left, and none is wanted.
                        self.stage = Stage::Bad;
                        continue;
                    }
                    let m = self.moves[i];
                    self.take(i);
                    if score >= GOOD_TACTICAL {
                        // A capture that loses material waits for the end.
                        if !m.is_promotion() && !see_ge(pos.board(), &m, 0) {
                            self.bad.push(m);
                            continue;
                        }
                        return Some((m, Kind::GoodTactical));
                    }
                    let kind = if score >= KILLER {
                        Kind::Killer
                    } else {
                        Kind::Quiet
                    };
                    return Some((m, kind));
                }
                Stage::Bad => {
                    if let Some(m) = self.bad.get(self.bad_next) {
                        self.bad_next += 1;
                        return Some((*m, Kind::BadTactical));
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Index of the best-scored move not yet handed out.
    fn best_remaining(&self) -> Option<usize> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        // The first of the highest: the maximum in one pass the compiler vectorises, then
        // where it first stands.
        let rest = &self.scores[self.next..n];
        let max = rest.iter().copied().max()?;
        rest.iter().position(|&s| s == max).map(|i| self.next + i)
    }

    /// Moves entry `i` to the handed-out prefix.
    fn take(&mut self, i: usize) {
        self.moves.swap(self.next, i);
        self.scores.swap(self.next, i);
        self.next += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::{CastlingMode, Square};

    fn sq(name: &str) -> Square {
        name.parse().expect("square")
    }

    fn uci(m: &Move) -> String {
        m.to_uci(CastlingMode::Standard).to_string()
    }

    #[test]
    fn every_legal_move_comes_once_in_the_promised_order() {
        // White: exd5 trades evenly (a good capture); Nxd5 and Bxd5 give a piece for a pawn
        // (losing captures). The killer is a quiet move, the table's move castling.
        let pos = parse_fen("r1bqk2r/ppp2ppp/2n1pn2/3p4/2BPP3/2N2N2/PPP2PPP/R2QK2R w KQkq - 0 7")
            .expect("fen");
        let killer = pos
            .legal_moves()
            .into_iter()
            .find(|m| uci(m) == "h2h3")
            .expect("h3");
        let table = pos
            .legal_moves()
            .into_iter()
            .find(|m| uci(m) == "e1g1")
            .expect("castling");
        let h = Histories::new();
        let mut p = Picker::new(Some(table), [Some(killer), None]);
        let mut got = Vec::new();
        while let Some((m, kind)) = p.next(&pos, &h, [None, None]) {
            got.push((uci(&m), kind));
        }
        assert_eq!(got.len(), pos.legal_moves().len(), "{got:?}");
        assert_eq!(got[0], ("e1g1".to_string(), Kind::Table));
        let position = |u: &str| got.iter().position(|(m, _)| m == u).expect(u);
        let killer_at = position("h2h3");
        assert_eq!(got[killer_at].1, Kind::Killer);
        // Good captures before the killer, losing ones after every quiet move.
        assert!(position("e4d5") < killer_at, "{got:?}");
        assert_eq!(got.last().map(|g| g.1), Some(Kind::BadTactical), "{got:?}");
        let mut seen: Vec<&String> = got.iter().map(|(m, _)| m).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), got.len(), "no move twice");
    }

    #[test]
    fn a_table_move_is_checked_for_legality() {
        let pos = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("fen");
        for m in pos.legal_moves() {
            assert_eq!(table_move(&pos, PackedMove::new(&m)), Some(m), "{m:?}");
        }
        // A move of another position: the e2 pawn is not there.
        let other = Chess::default()
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(sq("e2")))
            .expect("e-pawn move");
        assert_eq!(table_move(&pos, PackedMove::new(&other)), None);
        // En passant.
        let ep = parse_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").expect("fen");
        for m in ep.legal_moves() {
            assert_eq!(table_move(&ep, PackedMove::new(&m)), Some(m), "{m:?}");
        }
    }
}
