//! A game analysed: for each move, how likely the chosen opponent (a level, a player's file, the
//! default style) was to play it, its likeliest alternative, the precedent behind the move, and,
//! with a judge engine, what each cost.

use std::time::{Duration, Instant};

use precedent::pgn::games_in_text;
use precedent::position::Game;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::judge_position;
use precedent_lab::client::Limit;
use rayon::prelude::*;
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use crate::games::{GameError, Opponent, State, colour_name};
use crate::precedents::{Precedent, precedents};

/// What the judge is asked about a move: its position, the move, and the likeliest alternative.
type ToJudge = (Chess, Move, Option<Move>);

/// The most plies of a game analysed.
pub const MAX_PLIES: usize = 400;

/// The judge's search for each move (depth 10: a few hundredths of a second a move).
const JUDGE_LIMIT: Limit = Limit::Depth(10);

/// The most thinking an analysis may ask for (its moves times the time for each): a minute on
/// two cores.
const MAX_THINKING: Duration = Duration::from_secs(120);

/// Which side's moves to analyse.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sides {
    /// Both sides'.
    #[default]
    Both,
    /// White's.
    White,
    /// Black's.
    Black,
}

/// One move of the game, analysed.
#[derive(Debug, Serialize)]
pub struct AnalysedMove {
    /// Its ply (0 = White's first move).
    pub ply: usize,
    /// The side that played it.
    pub side: &'static str,
    /// In SAN.
    pub san: String,
    /// In UCI notation.
    pub uci: String,
    /// The position it was played in (FEN).
    pub fen: String,
    /// The opponent's probability of it.
    pub probability: f64,
    /// Its place among the legal moves by that probability (1 = likeliest).
    pub rank: usize,
    /// Legal moves there.
    pub legal: usize,
    /// The likeliest move other than it, and its probability.
    pub alternative: Option<(String, f64)>,
    /// The nearest case that played it (or, when none did, the nearest case).
    pub precedent: Option<Precedent>,
    /// The judge's loss of the move, centipawns (with a judge).
    pub loss_cp: Option<i32>,
    /// The judge's loss of the alternative.
    pub alternative_loss_cp: Option<i32>,
}

/// A game analysed.
#[derive(Debug, Serialize)]
pub struct Analysis {
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// `Event` tag.
    pub event: String,
    /// `Date` tag.
    pub date: String,
    /// The result.
    pub result: String,
    /// The position it starts from (FEN).
    pub start: String,
    /// The ply of its first move in that position's count (0: White's first move), for move
    /// numbers.
    pub first_ply: u32,
    /// Every move in order, in SAN (analysed or not).
    pub san: Vec<String>,
    /// Who judged the likelihoods.
    pub opponent: String,
    /// The moves analysed.
    pub moves: Vec<AnalysedMove>,
    /// Their mean log-likelihood, nats a move (probabilities floored at 1e-6, as `eval`).
    pub mean_log_likelihood: Option<f64>,
    /// The share of them that were the opponent's likeliest move.
    pub top1: Option<f64>,
    /// The judge, when one is set (`serve --judge`).
    pub judge: Option<String>,
}

/// Analyses the first game of `pgn` as `opponent` would play it (each position judged within
/// `movetime`), the moves of `sides`; with `judge` (an engine's command), each move's loss.
pub fn analyse(
    state: &State,
    pgn: &str,
    opponent: Opponent,
    movetime: Duration,
    sides: Sides,
    judge: Option<&str>,
) -> Result<Analysis, GameError> {
    let bad = GameError::BadPgn;
    let parsed = games_in_text(pgn, 1)
        .into_iter()
        .next()
        .ok_or_else(|| bad("no game in the PGN".into()))?
        .map_err(bad)?;
    let movers = &parsed.selected;
    if movers.is_empty() {
        return Err(bad("the game has no moves".into()));
    }
    if movers.len() > MAX_PLIES {
        return Err(bad(format!(
            "the game has {} plies; at most {MAX_PLIES} are analysed",
            movers.len()
        )));
    }
    let (loaded, base, cfg, name) = state.reasoner(opponent)?;
    let wanted = |mover: Color| match sides {
        Sides::Both => true,
        Sides::White => mover == Color::White,
        Sides::Black => mover == Color::Black,
    };
    let asked = movers.iter().filter(|m| wanted(m.pos.turn())).count() as u32;
    if movetime * asked > MAX_THINKING {
        return Err(bad(format!(
            "{asked} moves at {} ms is more than {} s of thinking: ask for less time a move or one side's moves",
            movetime.as_millis(),
            MAX_THINKING.as_secs()
        )));
    }
    let start = movers[0].pos.clone();
    let replayed = replay(movers);
    let san: Vec<String> = replayed
        .iter()
        .map(|(game, m)| San::from_move(&game.position, *m).to_string())
        .collect();
    let positions: Vec<(usize, Game, Move)> = replayed
        .into_iter()
        .enumerate()
        .filter(|(_, (game, _))| wanted(game.position.turn()))
        .map(|(ply, (game, m))| (ply, game, m))
        .collect();
    let knowledge = loaded.knowledge();
    let cb = knowledge.voters();
    let analysed: Vec<(AnalysedMove, ToJudge)> = positions
        .par_iter()
        .map_init(
            || Memory::new(4),
            |memory, (ply, game, played)| {
                memory.clear();
                let pos = &game.position;
                let limits = Limits {
                    deadline: Some(Instant::now() + movetime),
                    ..Limits::default()
                };
                let judged = judge_position(
                    knowledge,
                    game,
                    &cfg,
                    limits,
                    CastlingMode::Standard,
                    memory,
                );
                let uci = played.to_uci(CastlingMode::Standard).to_string();
                let (decision, j) = judged.ok()?;
                let at = j.evidence.moves.iter().position(|m| m == played)?;
                let ranked = j.ranked();
                let rank = ranked.iter().position(|(i, _)| *i == at)? + 1;
                let alternative = ranked
                    .iter()
                    .find(|(i, _)| *i != at)
                    .map(|&(i, p)| (San::from_move(pos, j.evidence.moves[i]).to_string(), p));
                let case = decision
                    .cases
                    .iter()
                    .find(|c| c.adapted == uci)
                    .or(decision.cases.first())
                    .cloned();
                let precedent = case.and_then(|c| precedents(&[c], cb, base, pos).pop());
                let judged_alternative = ranked
                    .iter()
                    .find(|(i, _)| *i != at)
                    .map(|&(i, _)| j.evidence.moves[i]);
                Some((
                    AnalysedMove {
                        ply: *ply,
                        side: colour_name(pos.turn()),
                        san: San::from_move(pos, *played).to_string(),
                        uci,
                        fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
                        probability: j.probabilities[at],
                        rank,
                        legal: j.evidence.moves.len(),
                        alternative,
                        precedent,
                        loss_cp: None,
                        alternative_loss_cp: None,
                    },
                    (pos.clone(), *played, judged_alternative),
                ))
            },
        )
        .flatten()
        .collect();
    let (mut moves, judged): (Vec<AnalysedMove>, Vec<_>) = analysed.into_iter().unzip();
    if let Some(command) = judge {
        judge_losses(command, &mut moves, judged)?;
    }
    let n = moves.len() as f64;
    let mean_log_likelihood = (!moves.is_empty()).then(|| {
        moves
            .iter()
            .map(|m| m.probability.max(1e-6).ln())
            .sum::<f64>()
            / n
    });
    let top1 = (!moves.is_empty()).then(|| moves.iter().filter(|m| m.rank == 1).count() as f64 / n);
    let h = &parsed.header;
    Ok(Analysis {
        white: h.white.clone(),
        black: h.black.clone(),
        event: h.event.clone(),
        date: h.date.clone(),
        result: h.result.as_pgn().to_string(),
        start: Fen::from_position(&start, EnPassantMode::Legal).to_string(),
        first_ply: precedent::position::ply_of(&start),
        san,
        opponent: name,
        moves,
        mean_log_likelihood,
        top1,
        judge: judge.map(str::to_string),
    })
}

/// A game's moves `movers` (every move, from its first position), each with the game before it
/// (its history too: a search scores a repetition as a draw).
pub(crate) fn replay(movers: &[precedent::pgn::Mover]) -> Vec<(Game, Move)> {
    let Some(first) = movers.first() else {
        return Vec::new();
    };
    let mut game = Game::new(first.pos.clone());
    movers
        .iter()
        .map(|m| {
            let before = game.clone();
            game.play(m.mv);
            (before, m.mv)
        })
        .collect()
}

/// The judge's loss of each move and of its alternative (`judged`: each move's position, the
/// move and the alternative).
fn judge_losses(
    command: &str,
    moves: &mut [AnalysedMove],
    judged: Vec<ToJudge>,
) -> Result<(), GameError> {
    let listed: Vec<(Chess, Vec<Move>)> = judged
        .into_iter()
        .map(|(pos, played, alternative)| {
            (pos, std::iter::once(played).chain(alternative).collect())
        })
        .collect();
    struct Quiet;
    impl precedent_lab::Progress for Quiet {}
    let losses = precedent_lab::eval::judge_moves(command, &[], JUDGE_LIMIT, &listed, 1, &Quiet)
        .map_err(|e| GameError::Judge(format!("the judge ({command}): {e}")))?;
    for (m, l) in moves.iter_mut().zip(losses) {
        m.loss_cp = l.first().copied();
        m.alternative_loss_cp = l.get(1).copied();
    }
    Ok(())
}
