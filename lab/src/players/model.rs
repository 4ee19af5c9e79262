//! The generic move model fitted to one player, when their file is built: the rating its
//! network reads and the weights of the search's verdict and of the crowd's habits (the case
//! base's features) that make their own moves most likely,
//! chosen on a sample of them (their file's judge sample: up to 400 moves from ply 10), with
//! their own moves left out of the generic case base.
//! Bullet players, club players and grandmasters weigh what the search says differently from
//! the rapid players the model was fitted on; three numbers a player say how.

use std::sync::Arc;

use rayon::prelude::*;
use shakmaty::CastlingMode;

use precedent::casebase::profile::{PlayedMove, PlayerModel};
use precedent::casebase::{CaseBase, FitModel, Without};
use precedent::model::{Evidence, ModelConfig};
use precedent::player::Knowledge;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{EngineConfig, judge_position};

/// Ratings the network may be read at for a player.
const RATINGS: [u16; 11] = [
    800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600, 2800,
];

/// Factors on the search features' weights.
const SEARCH_WEIGHTS: [f64; 7] = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0];

/// Factors on the case base's features' weights.
const CASES_WEIGHTS: [f64; 5] = [0.5, 0.75, 1.0, 1.25, 1.5];

/// The mean log-likelihood of the moves played under `model` (probabilities floored at 1e-6).
fn log_likelihood(model: &ModelConfig, judged: &[(Evidence, usize)]) -> f64 {
    let total: f64 = judged
        .iter()
        .map(|(e, h)| model.probabilities(e)[*h].max(1e-6).ln())
        .sum();
    total / judged.len().max(1) as f64
}

/// The search's depth a move when a player's moves are judged for the fit. The search
/// features a deeper search gives explain their moves better and play reads them deeper
/// still: Carlsen's 398 sampled moves, read as the default style reads them, −1.820 a move at
/// depth 4, −1.773 at 6, −1.725 at 8.
pub const FIT_DEPTH: u32 = 8;

/// The seed of the retrieval's tie-breaks when a player's moves are judged for the fit: the
/// same votes, and so the same fit, on every build.
const FIT_SEED: u64 = 1;

/// Fits the model of `cfg` on `generic` to `moves` of the player named `names` (any spelling),
/// each judged with a search to `depth` and the whole case base retrieved, so that two builds
/// of one file fit the same numbers. The player's own moves in `generic` are left out of it
/// ([`Without`]): their moves are not precedents of themselves.
pub fn fit_model(
    generic: &CaseBase,
    cfg: &EngineConfig,
    moves: &[PlayedMove],
    depth: u32,
    names: &[String],
) -> Result<PlayerModel, String> {
    if cfg.model.is_empty() {
        return Err("the parameters hold no move model to fit".into());
    }
    let without = Without::player(generic, names);
    let mut cfg = cfg.clone();
    cfg.reuse.seed = Some(FIT_SEED);
    let cfg = &cfg;
    let judged: Vec<(Evidence, usize)> = moves
        .par_iter()
        .map_init(
            || Memory::new(4),
            |memory, m| {
                memory.clear();
                let game = m.game();
                let limits = Limits {
                    max_depth: Some(depth.max(1)),
                    ..Limits::default()
                };
                let (_, j) = judge_position(
                    Knowledge::read_without(generic, &without),
                    &game,
                    cfg,
                    limits,
                    CastlingMode::Standard,
                    memory,
                )
                .ok()?;
                let at = j.evidence.moves.iter().position(|x| *x == m.mv)?;
                (j.evidence.moves.len() > 1).then_some((j.evidence, at))
            },
        )
        .flatten()
        .collect();
    if judged.is_empty() {
        return Err("no move of the player's to fit on".into());
    }
    let default_log_likelihood = log_likelihood(&cfg.model, &judged);
    let (rating, search_weight, cases_weight) = best_on(&cfg.model, &judged);
    // What the fit gains on moves it did not choose its numbers on: each half of the sample
    // read with the numbers the other half chose.
    let (even, odd): (Vec<_>, Vec<_>) = judged
        .iter()
        .cloned()
        .enumerate()
        .partition(|(i, _)| i % 2 == 0);
    let halves = [even, odd].map(|h| h.into_iter().map(|x| x.1).collect::<Vec<_>>());
    let held_out = if halves.iter().all(|h| !h.is_empty()) {
        let total: f64 = (0..2)
            .map(|k| {
                let (r, s, c) = best_on(&cfg.model, &halves[1 - k]);
                let model = read_as(&cfg.model, (r, s, c));
                log_likelihood(&model, &halves[k]) * halves[k].len() as f64
            })
            .sum();
        total / judged.len() as f64
    } else {
        log_likelihood(
            &read_as(&cfg.model, (rating, search_weight, cases_weight)),
            &judged,
        )
    };
    Ok(PlayerModel {
        rating,
        search_weight,
        cases_weight,
        log_likelihood: held_out,
        positions: judged.len() as u64,
        default_log_likelihood,
    })
}

/// The model `base` read at a rating, with factors on the search's and the case base's
/// weights.
fn read_as(base: &ModelConfig, (rating, search, cases): (u16, f64, f64)) -> ModelConfig {
    base.at_rating(f64::from(rating))
        .with_search_weight(search)
        .with_cases_weight(cases)
}

/// The rating and factors of the grid under which `judged` are most likely.
fn best_on(base: &ModelConfig, judged: &[(Evidence, usize)]) -> (u16, f64, f64) {
    let grid: Vec<(u16, f64, f64)> = RATINGS
        .iter()
        .flat_map(|r| {
            SEARCH_WEIGHTS
                .iter()
                .flat_map(move |s| CASES_WEIGHTS.iter().map(move |c| (*r, *s, *c)))
        })
        .collect();
    let (rating, search_weight, cases_weight, _) = grid
        .into_par_iter()
        .map(|(r, s, c)| (r, s, c, log_likelihood(&read_as(base, (r, s, c)), judged)))
        .reduce(
            || (0, 1.0, 1.0, f64::NEG_INFINITY),
            |a, b| if b.3 > a.3 { b } else { a },
        );
    (rating, search_weight, cases_weight)
}

/// The build's hook that fits the model (of `cfg` on `generic`) to the player's sample, each
/// move judged with a search to `depth`.
pub fn fit_hook(generic: Arc<CaseBase>, cfg: EngineConfig, depth: u32) -> FitModel {
    FitModel(Arc::new(move |moves: &[PlayedMove], names: &[String]| {
        fit_model(&generic, &cfg, moves, depth, names)
    }))
}
