//! The engine probe: a UCI engine with `HumanTime` on, given a held-out game move by move with
//! the clocks its players had, says how long it would take at one of moves 11–26 (its `info
//! string human time`), and its times are set beside what the players took there.
//!
//! The engine hears every earlier move of the same side too (each `go` stopped at once), so
//! it reads the game's starting clock and the last moves' times as it would in play.

use std::collections::BTreeMap;
use std::time::Duration;

use precedent::pgn::ParsedGame;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use super::clocks::whole_second_median;
use super::{Row, TimeFitError, as_recorded};
use crate::client::EngineProcess;
use crate::stats::mean;

/// The move numbers probed (those the probe of a middlegame stands for).
pub const MOVES: (u32, u32) = (11, 26);

/// A held-out game kept for the probe.
struct Game {
    base: u32,
    increment: u32,
    /// Each ply's position before it and its move.
    plies: Vec<(Chess, Move)>,
    /// The mover's clock after each ply, tenths of a second.
    clocks: Vec<Option<u32>>,
}

impl Game {
    /// The clocks at a `go` before `ply`, seconds: the mover's and the opponent's (the starting
    /// clock before a side's first move); `None` when the game does not record them.
    fn clocks_before(&self, ply: usize) -> Option<(f64, f64)> {
        let at = |p: Option<usize>| match p {
            None => Some(f64::from(self.base)),
            Some(p) => self
                .clocks
                .get(p)
                .copied()
                .flatten()
                .map(|c| f64::from(c) / 10.0),
        };
        Some((at(ply.checked_sub(2))?, at(ply.checked_sub(1))?))
    }

    /// The seconds the mover took over `ply` (`None` for a side's first move or without clocks).
    fn spent(&self, ply: usize) -> Option<f64> {
        let before = (*self.clocks.get(ply.checked_sub(2)?)?)?;
        let after = (*self.clocks.get(ply)?)?;
        (before + self.increment * 10)
            .checked_sub(after)
            .map(|t| f64::from(t) / 10.0)
    }

    /// The plies of moves 11–26 whose time is recorded.
    fn probed_plies(&self) -> Vec<usize> {
        (0..self.plies.len())
            .filter(|&p| {
                let fullmove = self.plies[p].0.fullmoves().get();
                (MOVES.0..=MOVES.1).contains(&fullmove) && self.spent(p).is_some()
            })
            .collect()
    }
}

/// Held-out games of the probed controls, a reservoir sample of each.
pub struct Sampler {
    capacity: usize,
    rng: rand::rngs::StdRng,
    /// By control: games offered so far, and the sample.
    games: BTreeMap<String, (u64, Vec<Game>)>,
}

impl Sampler {
    /// A sampler of up to `capacity` games of each of `controls` (`base+increment`).
    pub fn new(controls: &[String], capacity: usize, seed: u64) -> Sampler {
        Sampler {
            capacity,
            rng: rand::rngs::StdRng::seed_from_u64(seed),
            games: controls
                .iter()
                .map(|c| (c.clone(), (0, Vec::new())))
                .collect(),
        }
    }

    /// Offers a held-out game of `control`; kept when the control is probed and the sample
    /// draws it.
    pub fn offer(&mut self, game: &ParsedGame, control: &str) {
        let Some((seen, sample)) = self.games.get_mut(control) else {
            return;
        };
        let Some(tc) = game.header.time_control else {
            return;
        };
        let contiguous = game
            .selected
            .iter()
            .enumerate()
            .all(|(i, m)| m.ply as usize == i);
        if !contiguous || game.selected.is_empty() {
            return;
        }
        *seen += 1;
        let slot = if sample.len() < self.capacity {
            None
        } else {
            let j = self.rng.random_range(0..*seen);
            match usize::try_from(j) {
                Ok(j) if j < self.capacity => Some(j),
                _ => return,
            }
        };
        let kept = Game {
            base: tc.base,
            increment: tc.increment,
            plies: game
                .selected
                .iter()
                .map(|m| (m.pos.clone(), m.mv))
                .collect(),
            clocks: game.clocks.clone(),
        };
        match slot {
            None => sample.push(kept),
            Some(j) => sample[j] = kept,
        }
    }
}

/// The engine's times beside people's at one control.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeCheck {
    /// The control, `base+increment`.
    pub control: String,
    /// Positions probed (those the engine reported a human time at).
    pub positions: usize,
    /// Games the positions come from.
    pub games: usize,
    /// People's median ([`whole_second_median`]) and mean seconds at the probed positions.
    pub people: (f64, f64),
    /// The engine's median and mean seconds there (the median read as a whole-second clock
    /// records a time, as people's).
    pub engine: (f64, f64),
    /// People's median over every held-out move 11–26 of the control, and those moves.
    pub people_all: (f64, usize),
    /// The engine's median over that median of people's.
    pub ratio_all: f64,
    /// The engine's median over people's at the same positions, and its 95 % interval
    /// (bootstrap over the positions).
    pub ratio: (f64, (f64, f64)),
}

/// How the probe runs.
pub struct ProbeSetup<'a> {
    /// The engine's command line.
    pub command: &'a str,
    /// Its options, (name, value).
    pub options: &'a [(String, String)],
    /// Positions a control.
    pub positions: usize,
    /// Seed of the positions' choice and of the bootstrap.
    pub seed: u64,
}

/// Probes the engine on `positions` positions of each control the sampler holds; `test` are
/// the held-out moves (people's median over all of a control's moves 11–26 comes from them);
/// `progress` hears each control as it is done.
pub fn probe(
    sampler: Sampler,
    setup: &ProbeSetup,
    test: &[Row],
    mut progress: impl FnMut(&ProbeCheck),
) -> Result<Vec<ProbeCheck>, TimeFitError> {
    let engine_error = |e: crate::client::ClientError| TimeFitError::Other(e.to_string());
    let mut engine = EngineProcess::start(setup.command, setup.options, Duration::from_secs(60))
        .map_err(engine_error)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(setup.seed);
    let mut out = Vec::new();
    for (control, (_, games)) in &sampler.games {
        let chosen = choose(games, setup.positions, &mut rng);
        if chosen.is_empty() {
            continue;
        }
        let mut pairs = Vec::new();
        for &(g, ply) in &chosen {
            let game = &games[g];
            let Some(seconds) = think(&mut engine, game, ply).map_err(engine_error)? else {
                continue;
            };
            let people = game.spent(ply).unwrap_or(0.0);
            pairs.push((people, as_recorded(seconds, pairs.len())));
        }
        if pairs.is_empty() {
            return Err(TimeFitError::Other(format!(
                "{}: no `info string human time` at {control}: is HumanTime on (--probe-option \
                 HumanTime=true)?",
                setup.command
            )));
        }
        let check = summarise(control, &pairs, &chosen, test, &mut rng);
        progress(&check);
        out.push(check);
    }
    engine.quit();
    Ok(out)
}

/// Up to `n` (game, ply) positions of moves 11–26: the games taken in turn, a random ply of
/// each not yet taken, so that a control with few games gives several positions a game.
fn choose(games: &[Game], n: usize, rng: &mut impl Rng) -> Vec<(usize, usize)> {
    let mut plies: Vec<Vec<usize>> = games
        .iter()
        .map(|g| {
            let mut p = g.probed_plies();
            p.shuffle(rng);
            p
        })
        .collect();
    let mut chosen = Vec::new();
    while chosen.len() < n && plies.iter().any(|p| !p.is_empty()) {
        for (g, p) in plies.iter_mut().enumerate() {
            if let Some(ply) = p.pop()
                && chosen.len() < n
            {
                chosen.push((g, ply));
            }
        }
    }
    chosen
}

/// Plays `game` to `ply` on the engine, its side's earlier moves each a `go` stopped at once,
/// and returns the human time it reports at `ply` (`None` if it reports none).
fn think(
    engine: &mut EngineProcess,
    game: &Game,
    ply: usize,
) -> Result<Option<f64>, crate::client::ClientError> {
    engine.new_game(Duration::from_secs(60))?;
    let mut reported = None;
    for q in (ply % 2..=ply).step_by(2) {
        let Some((own, theirs)) = game.clocks_before(q) else {
            return Ok(None);
        };
        let (w, b) = match game.plies[q].0.turn() {
            shakmaty::Color::White => (own, theirs),
            shakmaty::Color::Black => (theirs, own),
        };
        let inc = game.increment * 1000;
        let go = format!(
            "wtime {} btime {} winc {inc} binc {inc}",
            (w * 1000.0) as u64,
            (b * 1000.0) as u64
        );
        let position = match q.checked_sub(1) {
            Some(p) => format!(
                "fen {} moves {}",
                fen(&game.plies[p].0),
                UciMove::from_move(game.plies[p].1, CastlingMode::Standard)
            ),
            None => format!("fen {}", fen(&game.plies[q].0)),
        };
        if q < ply {
            engine.go_and_stop(&position, &go, Duration::from_secs(60))?;
        } else {
            let timeout = Duration::from_secs_f64(60.0 + 3.0 * own);
            engine.go_until(&position, &go, timeout, |line| {
                let seconds = line
                    .strip_prefix("info string human time ")
                    .and_then(|r| r.split_whitespace().next())
                    .and_then(|s| s.parse::<f64>().ok());
                reported = reported.or(seconds);
                seconds.is_some()
            })?;
        }
    }
    Ok(reported)
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The check of one control from its (people's, the engine's) seconds.
fn summarise(
    control: &str,
    pairs: &[(f64, f64)],
    chosen: &[(usize, usize)],
    test: &[Row],
    rng: &mut impl Rng,
) -> ProbeCheck {
    let people: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let engine: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let ratio = |p: &[f64], e: &[f64]| whole_second_median(e) / whole_second_median(p);
    let mut ratios: Vec<f64> = (0..1000)
        .map(|_| {
            let idx: Vec<usize> = (0..pairs.len())
                .map(|_| rng.random_range(0..pairs.len()))
                .collect();
            let p: Vec<f64> = idx.iter().map(|&i| people[i]).collect();
            let e: Vec<f64> = idx.iter().map(|&i| engine[i]).collect();
            ratio(&p, &e)
        })
        .filter(|r| r.is_finite())
        .collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| {
        ratios
            .get(((ratios.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    let all: Vec<f64> = test
        .iter()
        .filter(|r| r.control == control && (MOVES.0..=MOVES.1).contains(&r.fullmove))
        .map(|r| r.seconds)
        .collect();
    let games: std::collections::BTreeSet<usize> = chosen.iter().map(|c| c.0).collect();
    ProbeCheck {
        control: control.to_string(),
        positions: pairs.len(),
        games: games.len(),
        people: (whole_second_median(&people), mean(&people)),
        engine: (whole_second_median(&engine), mean(&engine)),
        people_all: (whole_second_median(&all), all.len()),
        ratio_all: whole_second_median(&engine) / whole_second_median(&all),
        ratio: (ratio(&people, &engine), (at(0.025), at(0.975))),
    }
}

/// The probe's table.
pub fn write(f: &mut std::fmt::Formatter<'_>, checks: &[ProbeCheck]) -> std::fmt::Result {
    if checks.is_empty() {
        return Ok(());
    }
    writeln!(
        f,
        "engine probe (held-out positions of moves {}-{}, the players' clocks; seconds):",
        MOVES.0, MOVES.1
    )?;
    writeln!(
        f,
        "  {:<8} {:>9} {:>6} {:>16} {:>16} {:>19} {:>22} {:>11}",
        "control",
        "positions",
        "games",
        "people med/mean",
        "engine med/mean",
        "people, all moves",
        "engine/people (95 %)",
        "engine/all"
    )?;
    for c in checks {
        writeln!(
            f,
            "  {:<8} {:>9} {:>6} {:>8.1} {:>7.1} {:>8.1} {:>7.1} {:>8.1} ({:>6}) {:>8.2} ({:.2}..{:.2}) {:>11.2}",
            c.control,
            c.positions,
            c.games,
            c.people.0,
            c.people.1,
            c.engine.0,
            c.engine.1,
            c.people_all.0,
            c.people_all.1,
            c.ratio.0,
            c.ratio.1.0,
            c.ratio.1.1,
            c.ratio_all
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Knights out and back from move 11, with these clocks (tenths) after each ply.
    fn game(clocks: Vec<Option<u32>>) -> Game {
        let fen: Fen = "r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBNR w KQkq - 2 11"
            .parse()
            .expect("fen");
        let mut pos: Chess = fen.into_position(CastlingMode::Standard).expect("position");
        let mut plies = Vec::new();
        for uci in ["c3b1", "c6b8", "b1c3", "b8c6", "c3b1", "c6b8"] {
            let mv = uci
                .parse::<UciMove>()
                .expect("uci")
                .to_move(&pos)
                .expect("legal");
            plies.push((pos.clone(), mv));
            pos.play_unchecked(mv);
        }
        Game {
            base: 600,
            increment: 2,
            plies,
            clocks,
        }
    }

    #[test]
    fn a_go_hears_the_clocks_the_players_had() {
        let g = game(vec![
            Some(5000),
            Some(4800),
            Some(4900),
            None,
            Some(4500),
            Some(4700),
        ]);
        // Each side's first move starts from the starting clock.
        assert_eq!(g.clocks_before(0), Some((600.0, 600.0)));
        assert_eq!(g.clocks_before(1), Some((600.0, 500.0)));
        assert_eq!(g.clocks_before(2), Some((500.0, 480.0)));
        // 500 s + 2 s increment − 490 s: 12 s; no time for a first move or a missing clock.
        assert_eq!(g.spent(2), Some(12.0));
        assert_eq!(g.spent(0), None);
        assert_eq!(g.spent(3), None);
        assert_eq!(g.clocks_before(5), None);
        assert_eq!(g.probed_plies(), vec![2, 4]);
    }

    #[test]
    fn positions_are_taken_from_every_game_in_turn() {
        let clocks = vec![Some(5000); 6];
        let games = vec![game(clocks.clone()), game(clocks.clone()), game(clocks)];
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let chosen = choose(&games, 5, &mut rng);
        assert_eq!(chosen.len(), 5);
        let from: Vec<usize> = chosen.iter().map(|c| c.0).collect();
        assert_eq!(from, vec![0, 1, 2, 0, 1]);
        // Each game gives each of its plies once at most: 3 games × 4 timed plies.
        let all = choose(&games, 100, &mut rng);
        assert_eq!(all.len(), 12);
        let distinct: std::collections::BTreeSet<_> = all.iter().collect();
        assert_eq!(distinct.len(), 12);
    }
}
