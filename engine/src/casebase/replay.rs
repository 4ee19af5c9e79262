//! A case's position as it stood in its game, and a game replayed from its cases: what lets a
//! reader see the position a precedent remembers and open its game at that move.
//!
//! A case base keeps no game's moves, only its cases (a position and the move played). A
//! generic case base has a case for each ply of a game; a player's file, for each of the
//! player's plies, so the opponent's move between two of them is the one legal move that
//! leads from the first position after the player's move to the next case's board.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position};

use super::CaseBase;
use super::derive::case_position;

/// A game as its cases replay it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replayed {
    /// The moves from the initial position, as far as the cases tell them.
    pub moves: Vec<Move>,
    /// Whether every case of the game was reached (false: the moves stop where a case could
    /// not be reached, e.g. a game from a set-up position, or two missing plies in a row).
    pub complete: bool,
}

impl CaseBase {
    /// The position of case `index` as it stood in its game (the side to move its mover's),
    /// with the move played there; `None` if out of range or the record is not a legal
    /// position.
    pub fn case_position(&self, index: usize) -> Option<(Chess, Move)> {
        let meta = self.metas().get(index)?;
        // The record is in the mover's point of view (the mover as White): a Black mover's
        // position is that one mirrored.
        let view = case_position(&self.case_board(index), meta)?;
        let (pos, mv) = match self.mover(index) {
            Color::White => (view, meta.mv),
            Color::Black => {
                let setup = view.to_setup(EnPassantMode::Always).into_mirrored();
                let pos = match Chess::from_setup(setup, CastlingMode::Chess960) {
                    Ok(pos) => pos,
                    Err(e) => e.ignore_invalid_ep_square().ok()?,
                };
                (pos, meta.mv.mirrored())
            }
        };
        let m = UciMove::from_ascii(mv.uci().as_bytes())
            .ok()?
            .to_move(&pos)
            .ok()?;
        Some((pos, m))
    }

    /// The cases of game `game`, by ply.
    pub fn game_cases(&self, game: u32) -> Vec<usize> {
        let metas = self.metas();
        let mut found: Vec<usize> = (0..metas.len())
            .filter(|&i| metas[i].game == game)
            .collect();
        found.sort_by_key(|&i| metas[i].ply);
        found
    }

    /// Game `game` replayed from its cases, from the initial position.
    pub fn replay(&self, game: u32) -> Replayed {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for index in self.game_cases(game) {
            let at = usize::from(self.metas()[index].ply);
            let next = self.case_position(index).and_then(|(case, mv)| {
                // One missing ply (the opponent's, in a player's file): the legal move that
                // reaches the case's board.
                if at == moves.len() + 1 {
                    let bridge = pos.legal_moves().into_iter().find(|m| {
                        let mut after = pos.clone();
                        after.play_unchecked(*m);
                        after.board() == case.board()
                    })?;
                    pos.play_unchecked(bridge);
                    moves.push(bridge);
                }
                let same = pos.board() == case.board() && pos.turn() == case.turn();
                (at == moves.len() && same).then_some(())?;
                let uci = mv.to_uci(CastlingMode::Standard);
                pos.legal_moves()
                    .into_iter()
                    .find(|m| m.to_uci(CastlingMode::Standard) == uci)
            });
            let Some(m) = next else {
                return Replayed {
                    moves,
                    complete: false,
                };
            };
            pos.play_unchecked(m);
            moves.push(m);
        }
        Replayed {
            complete: !moves.is_empty(),
            moves,
        }
    }
}
