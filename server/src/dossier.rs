//! A player file's dossier as the page shows it: what `precedent info FILE --report` prints
//! (openings, errors beside their band, clock use, where they depart from the crowd) with its
//! chart, and their openings as a tree of positions to click through.

use std::time::Duration;

use precedent::casebase::profile::{Line, replay_line};
use precedent_lab::dossier::{Dossier, chart, dossier};
use serde::Serialize;
use shakmaty::EnPassantMode;
use shakmaty::fen::Fen;

use crate::games::{GameError, State};

/// The time the generic model judges each position of their repertoire in (as `info
/// --report`'s default).
const MOVETIME: Duration = Duration::from_millis(50);

/// A position of the player's opening tree.
#[derive(Debug, Serialize)]
pub struct Node {
    /// The moves leading to it from the start (UCI, space-separated).
    pub line: String,
    /// The last of them in SAN.
    pub san: String,
    /// The position after them (FEN).
    pub fen: String,
    /// Games of theirs that reached it.
    pub games: u32,
    /// Their score in those games (0..=1).
    pub score: f64,
}

/// What the dossier page shows.
#[derive(Debug, Serialize)]
pub struct Page {
    /// The dossier.
    pub dossier: Dossier,
    /// Its chart of departures (SVG), when it could be drawn.
    pub chart: Option<String>,
    /// Their openings as White, position by position.
    pub white_tree: Vec<Node>,
    /// As Black.
    pub black_tree: Vec<Node>,
}

/// The dossier of player file `id`.
pub fn page(state: &State, id: usize) -> Result<Page, GameError> {
    let served = state
        .players()
        .get(id)
        .ok_or_else(|| GameError::NoOpponent(format!("no player file {id}")))?;
    let knowledge = served.loaded.knowledge();
    let player = knowledge
        .player()
        .ok_or_else(|| GameError::NoOpponent(format!("{} is not a player file", served.name)))?;
    let d = dossier(player, knowledge.generic(), state.cfg(), MOVETIME);
    let tree = |lines: &[Line]| -> Vec<Node> {
        lines
            .iter()
            .filter_map(|l| {
                let (pos, sans) = replay_line(&l.moves)?;
                Some(Node {
                    line: l.moves.clone(),
                    san: sans.last()?.clone(),
                    fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
                    games: l.games,
                    score: f64::from(l.points) / f64::from(l.games.max(1)),
                })
            })
            .collect()
    };
    Ok(Page {
        chart: chart(&d).ok(),
        white_tree: tree(&d.profile.openings.white),
        black_tree: tree(&d.profile.openings.black),
        dossier: d,
    })
}
