//! A player's bot errs like them: at their strength, the level's error appetite (its draw's
//! temperature, or its errors rule's ratio) scaled so that on a sample of the player's own
//! positions the bot blunders as often as they did, by the judge that judged their moves.
//! Tried on a grid of factors, each position thought about with a fixed number of nodes and a
//! fixed seed, so that two builds of one file fit the same factor.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use shakmaty::{CastlingMode, Chess, Move};

use crate::Silent;
use crate::client::Limit;
use crate::eval::{BLUNDER_CP, judge_moves, loss_stats};
use precedent::casebase::profile::{
    ErrorFit, Judged, PHASES, PhaseErrors, PlayedMove, Profile, phase_name,
};
use precedent::casebase::{CaseBase, FitErrors, Judge, Without};
use precedent::player::Knowledge;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{EngineConfig, Style, think};

/// The factors tried, each √2 from the next: from half the calibrated appetite to eight times.
const FACTORS: [f64; 9] = [0.5, 0.71, 1.0, 1.41, 2.0, 2.83, 4.0, 5.66, 8.0];

/// Nodes of the bot's search a position: about what it searches in a move at 10+0.1.
pub const ERROR_FIT_NODES: u64 = 100_000;

/// The seed of the bot's draws and tie-breaks in the fit.
const FIT_SEED: u64 = 7;

/// Of (factor, rate) pairs, the one whose rate is nearest `target`; on a tie the factor
/// nearest 1 (the level as calibrated).
fn nearest(rates: &[(f64, f64)], target: f64) -> Option<(f64, f64)> {
    rates.iter().copied().min_by(|a, b| {
        let gap = |r: &(f64, f64)| (r.1 - target).abs();
        gap(a)
            .total_cmp(&gap(b))
            .then(a.0.ln().abs().total_cmp(&b.0.ln().abs()))
    })
}

/// What the fit needs besides the player: the generic case base, the engine's parameters (with
/// the levels) and the judge.
pub struct ErrorFitter {
    /// The generic case base the bot plays on.
    pub generic: Arc<CaseBase>,
    /// The parameters with the levels.
    pub cfg: EngineConfig,
    /// The judge's command.
    pub judge: String,
    /// The judge's limit a position.
    pub limit: Limit,
    /// Nodes of the bot's search a position.
    pub nodes: u64,
    /// Threads (positions thought about, and judged, at once).
    pub threads: usize,
}

impl ErrorFitter {
    /// The factor that makes the bot blunder as often as the player of `profile` on `sample`
    /// (their moves; their names `names`, whose own moves the generic case base is read
    /// without).
    pub fn fit(
        &self,
        sample: &[PlayedMove],
        names: &[String],
        profile: &Profile,
    ) -> Result<ErrorFit, String> {
        let judged = profile
            .judged
            .as_ref()
            .ok_or("the player's moves were not judged")?;
        let rating = profile
            .speeds
            .first()
            .map(|s| s.rating.median)
            .or(profile.rating.map(|r| r.median))
            .ok_or("their games carry no rating")?;
        let choice = self
            .cfg
            .level_for(rating)
            .ok_or("the parameters have no levels")?;
        let level = choice.level.elo;
        let unfitted = |note: &str| ErrorFit {
            level,
            factor: 1.0,
            positions: sample.len() as u64,
            target: judged.blunder_rate,
            calibrated: f64::NAN,
            fitted: f64::NAN,
            note: note.to_string(),
        };
        if choice.level.style != Style::Human {
            return Ok(unfitted(&format!(
                "level {level} plays the {} style, which errs by neither a draw nor a rule",
                choice.level.style
            )));
        }
        let without = Without::player(&self.generic, names);
        let mut losses: HashMap<(usize, Move), i32> = HashMap::new();
        let mut rates = Vec::new();
        for factor in FACTORS {
            let moves = self.bot_moves(sample, &without, level, factor);
            self.judge_new(sample, &moves, &mut losses)?;
            let blunders = moves
                .iter()
                .enumerate()
                .filter(|(i, m)| {
                    m.and_then(|m| losses.get(&(*i, m)))
                        .is_some_and(|l| *l >= BLUNDER_CP)
                })
                .count();
            let played = moves.iter().filter(|m| m.is_some()).count().max(1);
            rates.push((factor, blunders as f64 / played as f64));
        }
        let target = judged.blunder_rate;
        let calibrated = rates.iter().find(|r| r.0 == 1.0).map_or(f64::NAN, |r| r.1);
        let (factor, fitted) = nearest(&rates, target).unwrap_or((1.0, calibrated));
        Ok(ErrorFit {
            level,
            factor,
            positions: sample.len() as u64,
            target,
            calibrated,
            fitted,
            note: String::new(),
        })
    }

    /// The bot's move in each sampled position at `level` erring `factor` times as much.
    fn bot_moves(
        &self,
        sample: &[PlayedMove],
        without: &Without,
        level: u16,
        factor: f64,
    ) -> Vec<Option<Move>> {
        let mut cfg = self.cfg.clone();
        cfg.elo = Some(level);
        cfg.error_factor = factor;
        cfg.reuse.seed = Some(FIT_SEED);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.max(1))
            .build();
        let run = || {
            sample
                .par_iter()
                .map_init(
                    || Memory::new(4),
                    |memory, m| {
                        memory.clear();
                        let game = m.game();
                        let limits = Limits {
                            max_nodes: Some(self.nodes),
                            ..Limits::default()
                        };
                        think(
                            Knowledge::read_without(&self.generic, without),
                            &game,
                            &cfg,
                            limits,
                            CastlingMode::Standard,
                            memory,
                        )
                        .ok()
                        .map(|t| t.mv)
                    },
                )
                .collect()
        };
        match pool {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        }
    }

    /// Judges the bot's moves not judged yet (`losses`, by position and move).
    fn judge_new(
        &self,
        sample: &[PlayedMove],
        moves: &[Option<Move>],
        losses: &mut HashMap<(usize, Move), i32>,
    ) -> Result<(), String> {
        let new: Vec<(usize, Move)> = moves
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.map(|m| (i, m)))
            .filter(|k| !losses.contains_key(k))
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        let lists: Vec<(Chess, Vec<Move>)> = new
            .iter()
            .map(|(i, m)| (sample[*i].position.clone(), vec![*m]))
            .collect();
        let judged = judge_moves(&self.judge, &[], self.limit, &lists, self.threads, &Silent)
            .map_err(|e| e.to_string())?;
        for (key, l) in new.into_iter().zip(judged) {
            if let Some(loss) = l.first() {
                losses.insert(key, *loss);
            }
        }
        Ok(())
    }

    /// The build's hook.
    pub fn hook(self) -> FitErrors {
        FitErrors(Arc::new(
            move |sample: &[PlayedMove], names: &[String], profile: &Profile| {
                self.fit(sample, names, profile)
            },
        ))
    }
}

/// The judge of a player's moves for their profile: an external engine's loss for each (on
/// `threads` at once), their blunder rate and mean loss, in all and by phase.
pub fn judge_hook(command: String, limit: Limit, threads: usize) -> Judge {
    let name = format!("{command} ({})", limit.go_args());
    Judge(Arc::new(move |moves: &[PlayedMove]| {
        let listed: Vec<_> = moves
            .iter()
            .map(|m| (m.position.clone(), vec![m.mv]))
            .collect();
        let losses = judge_moves(&command, &[], limit, &listed, threads, &Silent)
            .map_err(|e| e.to_string())?;
        // Each move's loss with its ply.
        let judged: Vec<(u32, i32)> = moves
            .iter()
            .zip(losses)
            .filter_map(|(m, l)| Some((m.ply(), *l.first()?)))
            .collect();
        let stats = |of: &dyn Fn(u32) -> bool| {
            let l: Vec<i32> = judged.iter().filter(|j| of(j.0)).map(|j| j.1).collect();
            (l.len() as u64, loss_stats(&l).unwrap_or((0.0, 0.0, 0)))
        };
        let (positions, (mean_loss, blunder_rate, _)) = stats(&|_| true);
        let phases = PHASES
            .iter()
            .map(|&(from, to)| {
                let (n, (mean_loss, blunder_rate, _)) = stats(&|ply| (from..=to).contains(&ply));
                PhaseErrors {
                    phase: phase_name((from, to)),
                    positions: n,
                    blunder_rate,
                    mean_loss,
                }
            })
            .filter(|p| p.positions > 0)
            .collect();
        Ok(Judged {
            judge: name.clone(),
            positions,
            blunder_rate,
            mean_loss,
            phases,
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_whose_rate_is_nearest_theirs_wins_and_a_tie_stays_near_the_calibration() {
        let rates = [(0.5, 0.04), (1.0, 0.06), (2.0, 0.10), (4.0, 0.14)];
        assert_eq!(nearest(&rates, 0.11), Some((2.0, 0.10)));
        assert_eq!(nearest(&rates, 0.0), Some((0.5, 0.04)));
        assert_eq!(nearest(&rates, 0.5), Some((4.0, 0.14)));
        // The same rate at two factors: the one nearer 1.
        let flat = [(0.5, 0.06), (1.0, 0.06), (2.0, 0.06)];
        assert_eq!(nearest(&flat, 0.2), Some((1.0, 0.06)));
        assert_eq!(nearest(&[], 0.1), None);
    }
}
