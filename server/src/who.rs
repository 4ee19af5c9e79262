//! Who played these games? The loaded player files ranked by how well each explains the moves
//! of one player of pasted games (`precedent who`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use precedent::pgn::games_in_text;
use precedent::player::Player;
use precedent::position::Game;
use precedent::search::Limits;
use precedent_lab::who::rank;
use serde::Serialize;
use shakmaty::{Color, Move, Position};

use crate::games::{GameError, State};

/// The time the generic model judges each position in (as `who`'s default).
const MOVETIME: Duration = Duration::from_millis(20);

/// The most moves explained in one request.
pub const MAX_MOVES: usize = 1_000;

/// A player file's place.
#[derive(Debug, Serialize)]
pub struct Place {
    /// The player file's index.
    pub id: usize,
    /// Its player.
    pub name: String,
    /// Mean log-likelihood of the moves under it, nats a move.
    pub mean_log_likelihood: f64,
    /// How far behind the first (0 for the first).
    pub behind: f64,
}

/// The ranking.
#[derive(Debug, Serialize)]
pub struct Ranking {
    /// Whose moves were explained.
    pub player: String,
    /// Every name of the games with its moves, most first (to choose another).
    pub names: Vec<(String, usize)>,
    /// Games read.
    pub games: usize,
    /// Moves explained.
    pub moves: usize,
    /// Games that could not be read, each with why.
    pub skipped: Vec<String>,
    /// The player files, best first.
    pub ranking: Vec<Place>,
}

/// Ranks the loaded player files on the moves of `name` (default: the games' most frequent
/// player) in the games of `pgn`.
pub fn who(state: &State, pgn: &str, name: Option<&str>) -> Result<Ranking, GameError> {
    let bad = GameError::BadPgn;
    if state.players().is_empty() {
        return Err(GameError::NoOpponent(
            "no player file loaded (serve --casebase PLAYER.cb)".into(),
        ));
    }
    let (mut games, mut skipped) = (Vec::new(), Vec::new());
    for g in games_in_text(pgn, usize::MAX) {
        match g {
            Ok(g) => games.push(g),
            Err(e) => skipped.push(e),
        }
    }
    if games.is_empty() {
        return Err(bad(match skipped.first() {
            Some(e) => format!("no game could be read: {e}"),
            None => "no game in the PGN".into(),
        }));
    }
    // Each name's moves.
    let mut counts: HashMap<String, (String, usize)> = HashMap::new();
    for g in &games {
        for m in &g.selected {
            let n = g.header.player(m.pos.turn());
            if n.is_empty() || n == "?" {
                continue;
            }
            counts
                .entry(n.to_lowercase())
                .or_insert((n.to_string(), 0))
                .1 += 1;
        }
    }
    let mut names: Vec<(String, usize)> = counts.into_values().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let chosen = match name {
        Some(n) => names
            .iter()
            .find(|(x, _)| x.to_lowercase() == n.trim().to_lowercase())
            .map(|(x, _)| x.clone())
            .ok_or_else(|| bad(format!("no moves of {n:?} in the games")))?,
        None => names
            .first()
            .map(|(x, _)| x.clone())
            .ok_or_else(|| bad("the games name no player".into()))?,
    };
    let theirs = |g: &precedent::pgn::ParsedGame, side: Color| {
        g.header.player(side).to_lowercase() == chosen.to_lowercase()
    };
    let moves: Vec<(Game, Move)> = games
        .iter()
        .flat_map(|g| {
            crate::analyse::replay(&g.selected)
                .into_iter()
                .filter(|(game, _)| theirs(g, game.position.turn()))
        })
        .collect();
    if moves.len() > MAX_MOVES {
        return Err(bad(format!(
            "{} moves of {chosen}; at most {MAX_MOVES} are explained at once",
            moves.len()
        )));
    }
    let players: Vec<(String, &Player)> = state
        .players()
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i.to_string(), s.loaded.knowledge().player()?)))
        .collect();
    let limits = || Limits {
        deadline: Some(Instant::now() + MOVETIME),
        ..Limits::default()
    };
    let generic = state.generic().knowledge().generic();
    let ranked = rank(generic, &players, &moves, state.cfg(), &limits, &|| {});
    Ok(Ranking {
        player: chosen,
        names,
        games: games.len(),
        moves: moves.len(),
        skipped,
        // The files were named by their index.
        ranking: ranked
            .into_iter()
            .filter_map(|r| {
                Some(Place {
                    id: r.file.parse().ok()?,
                    name: r.name,
                    mean_log_likelihood: r.mean_log_likelihood,
                    behind: r.behind,
                })
            })
            .collect(),
    })
}
