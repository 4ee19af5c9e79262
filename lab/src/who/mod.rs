//! `precedent who`: which of several players' files explains a set of games best. Every
//! position of the games is judged once by the generic move model; each player's file then
//! moves those probabilities as it would in play ([`precedent::player::layered`]), and the
//! players are ranked by the log-likelihood of the moves played.

mod run;

pub use run::{WhoArgs, WhoReport, run};

use precedent::casebase::CaseBase;
use precedent::player::{Knowledge, Player, PlayerEvidence};
use precedent::position::Game;
use precedent::reuse::reuse;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{EngineConfig, judge_position};
use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{CastlingMode, Move};

/// A player's place in the ranking.
#[derive(Clone, Debug, Serialize)]
pub struct Ranked {
    /// The player (their profile's name).
    pub name: String,
    /// The player file.
    pub file: String,
    /// Mean log-likelihood of the moves under the player's file, nats a move.
    pub mean_log_likelihood: f64,
    /// Its difference from the best's (0 for the first).
    pub behind: f64,
}

/// The players' files ranked by how well each explains `moves` (a position and the move
/// played there), best first. Each position is judged by the generic model within `limits()`;
/// `done` is called after each.
pub fn rank(
    generic: &CaseBase,
    players: &[(String, &Player)],
    moves: &[(Game, Move)],
    cfg: &EngineConfig,
    limits: &(dyn Fn() -> Limits<'static> + Sync),
    done: &(dyn Fn() + Sync),
) -> Vec<Ranked> {
    let totals: Vec<f64> = moves
        .par_iter()
        .map_init(
            || Memory::new(4),
            |memory, (game, played)| {
                memory.clear();
                let out = log_likelihoods(generic, players, game, *played, cfg, limits(), memory);
                done();
                out
            },
        )
        .reduce(
            || vec![0.0; players.len()],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let n = moves.len().max(1) as f64;
    let mut ranked: Vec<Ranked> = players
        .iter()
        .zip(totals)
        .map(|((file, p), total)| Ranked {
            name: p.profile().name.clone(),
            file: file.clone(),
            mean_log_likelihood: total / n,
            behind: 0.0,
        })
        .collect();
    ranked.sort_by(|a, b| b.mean_log_likelihood.total_cmp(&a.mean_log_likelihood));
    let best = ranked.first().map_or(0.0, |r| r.mean_log_likelihood);
    for r in &mut ranked {
        r.behind = best - r.mean_log_likelihood;
    }
    ranked
}

/// The log-likelihood of `played` in `game` under each player's file (probabilities floored
/// at 1e-6, as `eval` floors them).
fn log_likelihoods(
    generic: &CaseBase,
    players: &[(String, &Player)],
    game: &Game,
    played: Move,
    cfg: &EngineConfig,
    limits: Limits<'_>,
    memory: &mut Memory,
) -> Vec<f64> {
    let floor = 1e-6f64.ln();
    let Ok((_, j)) = judge_position(
        Knowledge::of(generic),
        game,
        cfg,
        limits,
        CastlingMode::Standard,
        memory,
    ) else {
        return vec![floor; players.len()];
    };
    let Some(at) = j.evidence.moves.iter().position(|m| *m == played) else {
        return vec![floor; players.len()];
    };
    let pos = &game.position;
    players
        .iter()
        .map(|(_, player)| {
            // Their nearest cases' vote, when it weighs anything.
            let votes = (cfg.player.knn != 0.0)
                .then(|| {
                    reuse(
                        player.cases(),
                        pos,
                        &cfg.reuse,
                        Limits::default(),
                        CastlingMode::Standard,
                    )
                    .map(|d| d.votes())
                    .ok()
                })
                .flatten();
            let evidence = PlayerEvidence::gather(
                player,
                generic,
                game,
                &j.evidence.moves,
                votes.as_deref(),
                &cfg.player,
                cfg.model.smoothing,
            );
            let prior = player.prior(&cfg.model, cfg.player.model);
            let p = Player::probabilities(&prior, &j.evidence, &evidence, &cfg.player);
            p.probabilities[at].max(1e-6).ln()
        })
        .collect()
}
