//! A case base read without some of its games' moves: the generic case base under a player
//! file holds the player's own games when they were among the games it was built from (a
//! Lichess account whose rapid games are in the embedded case base). Read as they stand, the
//! player's moves would be exact precedents of themselves: the move model fitted to them would
//! learn to trust the case base blindly, and their bot would double-count their moves. Without
//! them, the generic case base says what everyone else did, and the player's file says what
//! they did.

use std::collections::{HashMap, HashSet};

use crate::case::CaseMove;
use crate::casebase::CaseBase;
use crate::casebase::index::position_hash;

/// The moves a reading of a case base leaves out: the cases of some games (they do not vote),
/// and their counts in the position index (subtracted from what it says of a position).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Without {
    /// Games with left-out moves (index into the case base's games), and which sides' moves
    /// (White, Black) are left out.
    games: HashMap<u32, [bool; 2]>,
    /// Cases left out.
    cases: u64,
    /// The left-out moves by position (the index's key): the move and how often.
    exact: HashMap<u64, Vec<(CaseMove, u32)>>,
    /// Game keys of the games with a left-out move.
    keys: HashSet<u64>,
}

impl Without {
    /// The moves of the player of any of `names` (compared case-insensitively with the games'
    /// White and Black) in `cb`: each case whose mover is so named.
    pub fn player(cb: &CaseBase, names: &[String]) -> Without {
        let names: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        let named = |name: &str| names.iter().any(|n| n.eq_ignore_ascii_case(name));
        // Per game: whether White, Black is the player.
        let mut sides: HashMap<u32, [bool; 2]> = HashMap::new();
        for game in 0..cb.game_count() as u32 {
            if let Some(h) = cb.game(game) {
                let side = [named(&h.white), named(&h.black)];
                if side[0] || side[1] {
                    sides.insert(game, side);
                }
            }
        }
        let mut without = Without::default();
        if sides.is_empty() {
            return without;
        }
        without.games = sides.clone();
        let (occ, metas) = (cb.occurrences(), cb.metas());
        let records = cb.game_records();
        for (b, board) in cb.boards().iter().enumerate() {
            let first = occ[b] as usize;
            let last = occ[b + 1] as usize;
            for (case, meta) in (first..last).zip(&metas[first..last]) {
                let Some(side) = sides.get(&meta.game) else {
                    continue;
                };
                let white = cb.mover(case) == shakmaty::Color::White;
                if !side[usize::from(!white)] {
                    continue;
                }
                without.cases += 1;
                if let Some(r) = records.get(meta.game as usize) {
                    without.keys.insert(r.key);
                }
                let key = position_hash(board, meta.rights, meta.ep);
                let moves = without.exact.entry(key).or_default();
                match moves.iter_mut().find(|(m, _)| *m == meta.mv) {
                    Some((_, n)) => *n += 1,
                    None => moves.push((meta.mv, 1)),
                }
            }
        }
        without
    }

    /// Whether nothing is left out.
    pub fn is_empty(&self) -> bool {
        self.cases == 0
    }

    /// Cases left out.
    pub fn cases(&self) -> u64 {
        self.cases
    }

    /// Games with a left-out move.
    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// Whether the game `game` (index into the case base's games) has left-out moves.
    pub fn has_game(&self, game: u32) -> bool {
        self.games.contains_key(&game)
    }

    /// Whether the game of key `key` (a [`crate::casebase::GameRecord`]'s) has left-out moves.
    pub fn has_game_key(&self, key: u64) -> bool {
        self.keys.contains(&key)
    }

    /// `moves` (the index's moves at the position of key `key`, with their counts) less the
    /// left-out ones; moves left with no count are dropped.
    pub(crate) fn subtract(&self, key: u64, moves: &mut Vec<(CaseMove, u32)>) {
        let Some(out) = self.exact.get(&key) else {
            return;
        };
        for (mv, n) in moves.iter_mut() {
            if let Some((_, k)) = out.iter().find(|(m, _)| m == mv) {
                *n = n.saturating_sub(*k);
            }
        }
        moves.retain(|(_, n)| *n > 0);
    }

    /// Whether the case `case` of `cb` is left out: its game has left-out moves, and its
    /// mover's are.
    pub(crate) fn has_case(&self, cb: &CaseBase, case: usize) -> bool {
        let Some(meta) = cb.metas().get(case) else {
            return false;
        };
        let black = cb.mover(case) == shakmaty::Color::Black;
        self.games
            .get(&meta.game)
            .is_some_and(|side| side[usize::from(black)])
    }
}
