//! A player's profile: what their games say of them besides their moves (names, rating,
//! colours, results, openings, clock use, and with a judge their errors), gathered while their
//! player file is built and kept in its build record.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position};

use crate::pgn::{ParsedGame, Speed, TimeControl};

/// Plies of a game's opening recorded in the profile's lines.
pub const OPENING_PLIES: usize = 12;

/// Lines kept per colour at most (the most played).
const MAX_LINES: usize = 3000;

/// Move-number bands of the clock summary: moves 1–10, 11–25, 26–40, 41 and later.
pub const MOVE_BANDS: [(u32, u32); 4] = [(1, 10), (11, 25), (26, 40), (41, u32::MAX)];

/// Plies skipped before a move is sampled for the judge (the opening is mostly memory).
pub const JUDGED_FROM_PLY: u32 = 10;

/// Moves of the player sampled for the judge and the model's fit at most.
pub const JUDGED_POSITIONS: usize = 400;

/// A player's profile, as their games tell it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    /// The name, as spelt most often in their games.
    pub name: String,
    /// Every spelling matched, with its games.
    pub spellings: Vec<Spelling>,
    /// Games (each counted once, however many copies the inputs had).
    pub games: u64,
    /// Games as White.
    pub white_games: u64,
    /// Games as Black.
    pub black_games: u64,
    /// Points scored (1 a win, ½ a draw) in the games with a result.
    pub points: f64,
    /// Games with a result.
    pub decided_games: u64,
    /// Their rating, from the rating tags of their games.
    pub rating: Option<Rating>,
    /// Their rating at each speed of their games (bullet, blitz, …), most games first: the
    /// strength their bot plays at under a clock of that speed.
    pub speeds: Vec<SpeedRating>,
    /// Their clock use, per time control (most games first), where the games have clocks.
    pub clocks: Vec<ClockUse>,
    /// Their openings: the first plies of their games as White and as Black.
    pub openings: Openings,
    /// Their errors, as a judge saw a sample of their moves (`build --judge`).
    pub judged: Option<Judged>,
    /// The generic move model as fitted to a sample of their moves: the rating it reads and
    /// how much the search sways them.
    pub model: Option<PlayerModel>,
    /// How their bot errs at their strength, fitted to their errors (`build --judge`).
    pub errors: Option<ErrorFit>,
}

/// The error appetite of a player's bot, fitted so that at their strength it blunders as often
/// as they do on a sample of their own positions (by the judge that judged their moves).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorFit {
    /// The level the bot plays at their rating (of the speed of most of their games).
    pub level: u16,
    /// The factor on the level's error appetite (its temperature multiplied, its errors rule's
    /// ratio divided): 1 leaves the level as calibrated.
    pub factor: f64,
    /// Positions of theirs the bot was tried on.
    pub positions: u64,
    /// Their blunder rate there.
    pub target: f64,
    /// The bot's at factor 1 (the level as calibrated).
    pub calibrated: f64,
    /// The bot's at the factor chosen.
    pub fitted: f64,
    /// Why the factor is 1 when it was not fitted (a level that errs by no draw or rule).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

fn one() -> f64 {
    1.0
}

/// The generic move model fitted to one player: the few numbers that make it most likely to
/// play their moves, chosen on a sample of them when their file is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerModel {
    /// The rating the model's network reads for them.
    pub rating: u16,
    /// The factor on the search features' weights.
    pub search_weight: f64,
    /// The factor on the case base's features' weights (1 in a file fitted before it).
    #[serde(default = "one")]
    pub cases_weight: f64,
    /// Moves it was fitted on.
    pub positions: u64,
    /// Their mean log-likelihood under it on moves it did not choose its numbers on (each half
    /// of the sample read with the numbers fitted on the other half; a file built before
    /// 2026-12-06 holds the figure on the moves it was fitted on).
    pub log_likelihood: f64,
    /// The same under the default style's model.
    pub default_log_likelihood: f64,
}

/// A spelling of the player's name and its games.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spelling {
    /// The name as the tag gives it.
    pub name: String,
    /// Games under it.
    pub games: u64,
}

/// The player's rating over their rated games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rating {
    /// The median of their ratings: the one the move model reads.
    pub median: u16,
    /// The lowest.
    pub low: u16,
    /// The highest.
    pub high: u16,
    /// Games with their rating.
    pub games: u64,
}

/// The player's rating over their rated games of one speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpeedRating {
    /// The speed.
    pub speed: Speed,
    /// Their rating in its games.
    pub rating: Rating,
}

impl Rating {
    /// The median, range and count of `ratings` (sorted in place); `None` without any.
    fn of(ratings: &mut [u16]) -> Option<Rating> {
        ratings.sort_unstable();
        Some(Rating {
            median: *ratings.get(ratings.len() / 2)?,
            low: *ratings.first()?,
            high: *ratings.last()?,
            games: ratings.len() as u64,
        })
    }
}

/// How long the player thought at one time control.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockUse {
    /// The control, `base+increment` in seconds.
    pub control: String,
    /// Games at it.
    pub games: u64,
    /// Timed moves at it.
    pub moves: u64,
    /// Median seconds a move in each band of [`MOVE_BANDS`] (`None`: no move there).
    pub median_seconds: [Option<f32>; 4],
    /// Mean seconds a move in each band.
    pub mean_seconds: [Option<f32>; 4],
}

/// The player's opening lines: every start of a game played at least twice, up to
/// [`OPENING_PLIES`] plies, both sides' moves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Openings {
    /// Lines of their games as White.
    pub white: Vec<Line>,
    /// Lines of their games as Black.
    pub black: Vec<Line>,
}

impl Openings {
    /// The lines of the games where the player had `color`.
    pub fn of(&self, color: Color) -> &[Line] {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// The start of some of the player's games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// The moves, in UCI notation, separated by spaces.
    pub moves: String,
    /// Games that began so.
    pub games: u32,
    /// The player's points in them.
    pub points: f32,
}

/// The player's errors, as a judge saw them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// The judge (its command and limit).
    pub judge: String,
    /// Moves judged.
    pub positions: u64,
    /// Share of them losing at least the blunder threshold (0..=1).
    pub blunder_rate: f64,
    /// Mean loss, centipawns.
    pub mean_loss: f64,
    /// The same by phase of the game ([`PHASES`]); empty in a file built before phases.
    #[serde(default)]
    pub phases: Vec<PhaseErrors>,
}

/// The phases of a game the errors are told by: plies from, to (inclusive).
pub const PHASES: [(u32, u32); 2] = [(JUDGED_FROM_PLY, 39), (40, u32::MAX)];

/// The player's errors in one phase of their games.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseErrors {
    /// The phase, `plies 10-39` or `plies 40+`.
    pub phase: String,
    /// Moves judged in it.
    pub positions: u64,
    /// Share of them losing at least the blunder threshold.
    pub blunder_rate: f64,
    /// Mean loss, centipawns.
    pub mean_loss: f64,
}

/// The name of a phase of [`PHASES`].
pub fn phase_name((from, to): (u32, u32)) -> String {
    match to {
        u32::MAX => format!("plies {from}+"),
        _ => format!("plies {from}-{to}"),
    }
}

impl PlayedMove {
    /// The ply of the move in its game (0: White's first).
    pub fn ply(&self) -> u32 {
        let moves = u32::from(self.position.fullmoves()).saturating_sub(1);
        2 * moves + u32::from(self.position.turn() == Color::Black)
    }
}

/// A move of the player's, for the judge and the model's fit: the position before it, the
/// move before that, and the move.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    /// The position.
    pub position: Chess,
    /// The opponent's move before it.
    pub last: Option<Move>,
    /// The move the player chose.
    pub mv: Move,
}

impl PlayedMove {
    /// The game to think about it in: its position and the move before (no history).
    pub fn game(&self) -> crate::position::Game {
        crate::position::Game {
            position: self.position.clone(),
            last_move: self.last,
            history: Vec::new(),
        }
    }
}

/// The times spent at one time control: tenths of a second a move, per move band, and the
/// games timed.
type Spent = ([Vec<u32>; 4], u64);

/// Gathers a profile game by game.
#[derive(Debug, Default)]
pub(crate) struct ProfileBuilder {
    spellings: HashMap<String, u64>,
    games: u64,
    colours: [u64; 2],
    points: f64,
    decided: u64,
    ratings: Vec<u16>,
    ratings_by_speed: BTreeMap<Speed, Vec<u16>>,
    spent: BTreeMap<(u32, u32), Spent>,
    lines: [HashMap<String, (u32, f32)>; 2],
    /// The judge's sample: (hash rank, move), the smallest ranks kept.
    sample: Vec<(u64, PlayedMove)>,
}

impl ProfileBuilder {
    /// Adds a game of the player's: their moves are `game.selected`.
    pub(crate) fn add(&mut self, game: &ParsedGame) {
        let Some(first) = game.selected.first() else {
            return;
        };
        let color = first.pos.turn();
        self.games += 1;
        self.colours[usize::from(color == Color::Black)] += 1;
        *self
            .spellings
            .entry(game.header.player(color).to_string())
            .or_default() += 1;
        let points = game.header.result.points_for(color);
        if let Some(p) = points {
            self.points += p;
            self.decided += 1;
        }
        if let Some(elo) = game.header.elo(color) {
            self.ratings.push(elo);
            let speed = Speed::of_control(game.header.time_control);
            self.ratings_by_speed.entry(speed).or_default().push(elo);
        }
        if let Some(control) = game.header.time_control {
            self.add_clocks(game, control);
        }
        if !game.from_fen {
            self.add_line(game, color, points.unwrap_or(0.0) as f32);
        }
        for mover in game.selected.iter().filter(|m| m.ply >= JUDGED_FROM_PLY) {
            self.offer(game.moves_key, mover);
        }
    }

    fn add_clocks(&mut self, game: &ParsedGame, control: TimeControl) {
        let (bands, games) = self
            .spent
            .entry((control.base, control.increment))
            .or_default();
        let mut timed = false;
        for mover in &game.selected {
            let Some(clock) = game.move_clock(mover.ply) else {
                continue;
            };
            // Each side's first move is not timed.
            if mover.ply < 2 {
                continue;
            }
            let number = mover.ply / 2 + 1;
            if let Some(b) = MOVE_BANDS
                .iter()
                .position(|(lo, hi)| (*lo..=*hi).contains(&number))
            {
                bands[b].push(clock.spent);
                timed = true;
            }
        }
        *games += u64::from(timed);
    }

    fn add_line(&mut self, game: &ParsedGame, color: Color, points: f32) {
        let lines = &mut self.lines[usize::from(color == Color::Black)];
        let mut text = String::new();
        for m in game.line.iter().take(OPENING_PLIES) {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&m.to_uci(shakmaty::CastlingMode::Standard).to_string());
            let entry = lines.entry(text.clone()).or_default();
            entry.0 += 1;
            entry.1 += points;
        }
    }

    /// Offers a move to the judge's sample: a bottom-k sketch by a hash of the game's moves and
    /// the ply, so that the same games give the same sample in any order.
    fn offer(&mut self, moves_key: u64, mover: &crate::pgn::Mover) {
        let mut z = moves_key ^ u64::from(mover.ply).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        if self.sample.len() >= 2 * JUDGED_POSITIONS {
            self.sample.sort_unstable_by_key(|s| s.0);
            self.sample.truncate(JUDGED_POSITIONS);
        }
        self.sample.push((
            z,
            PlayedMove {
                position: mover.pos.clone(),
                last: mover.last,
                mv: mover.mv,
            },
        ));
    }

    /// The moves sampled for the judge and the model's fit, in a fixed order.
    pub(crate) fn sample(&mut self) -> Vec<PlayedMove> {
        self.sample.sort_unstable_by_key(|s| s.0);
        self.sample.truncate(JUDGED_POSITIONS);
        self.sample.iter().map(|s| s.1.clone()).collect()
    }

    /// The profile.
    pub(crate) fn finish(mut self, judged: Option<Judged>, model: Option<PlayerModel>) -> Profile {
        let mut spellings: Vec<Spelling> = self
            .spellings
            .drain()
            .map(|(name, games)| Spelling { name, games })
            .collect();
        spellings.sort_by(|a, b| b.games.cmp(&a.games).then(a.name.cmp(&b.name)));
        let rating = Rating::of(&mut self.ratings);
        let mut speeds: Vec<SpeedRating> = self
            .ratings_by_speed
            .iter_mut()
            .filter_map(|(speed, ratings)| {
                Rating::of(ratings).map(|rating| SpeedRating {
                    speed: *speed,
                    rating,
                })
            })
            .collect();
        speeds.sort_by(|a, b| {
            b.rating
                .games
                .cmp(&a.rating.games)
                .then(a.speed.cmp(&b.speed))
        });
        let mut clocks: Vec<ClockUse> = self
            .spent
            .into_iter()
            .filter(|(_, (_, games))| *games > 0)
            .map(|((base, increment), (mut bands, games))| {
                let moves = bands.iter().map(Vec::len).sum::<usize>() as u64;
                let median_seconds = std::array::from_fn(|b| {
                    let v = &mut bands[b];
                    v.sort_unstable();
                    v.get(v.len() / 2).map(|t| *t as f32 / 10.0)
                });
                let mean_seconds = bands.each_ref().map(|v| {
                    (!v.is_empty())
                        .then(|| v.iter().map(|t| f64::from(*t)).sum::<f64>() / v.len() as f64)
                        .map(|t| (t / 10.0) as f32)
                });
                ClockUse {
                    control: format!("{base}+{increment}"),
                    games,
                    moves,
                    median_seconds,
                    mean_seconds,
                }
            })
            .collect();
        clocks.sort_by(|a, b| b.games.cmp(&a.games).then(a.control.cmp(&b.control)));
        let [white, black] = self.lines.map(|lines| {
            let mut kept: Vec<Line> = lines
                .into_iter()
                .filter(|(_, (games, _))| *games >= 2)
                .map(|(moves, (games, points))| Line {
                    moves,
                    games,
                    points,
                })
                .collect();
            kept.sort_by(|a, b| b.games.cmp(&a.games).then(a.moves.cmp(&b.moves)));
            kept.truncate(MAX_LINES);
            kept
        });
        Profile {
            name: spellings
                .first()
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            spellings,
            games: self.games,
            white_games: self.colours[0],
            black_games: self.colours[1],
            points: self.points,
            decided_games: self.decided,
            rating,
            speeds,
            clocks,
            openings: Openings { white, black },
            judged,
            model,
            errors: None,
        }
    }
}

impl Profile {
    /// The player's score, points a decided game (0..=1), if any game had a result.
    pub fn score(&self) -> Option<f64> {
        (self.decided_games > 0).then(|| self.points / self.decided_games as f64)
    }

    /// The clock use at the time control of `base` + `increment` seconds, if their games had
    /// it with clocks.
    pub fn clock_use(&self, base: u32, increment: u32) -> Option<&ClockUse> {
        let control = format!("{base}+{increment}");
        self.clocks.iter().find(|c| c.control == control)
    }
}

/// The position after the moves of `line` (UCI, space-separated) from the initial position,
/// with each move in SAN; `None` if a move does not parse or is not legal.
pub fn replay_line(line: &str) -> Option<(Chess, Vec<String>)> {
    let mut pos = Chess::default();
    let mut sans = Vec::new();
    for text in line.split_whitespace() {
        let uci: shakmaty::uci::UciMove = text.parse().ok()?;
        let m = uci.to_move(&pos).ok()?;
        sans.push(shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string());
        pos.play_unchecked(m);
    }
    Some((pos, sans))
}

/// A line (UCI, space-separated) in SAN with move numbers (`1. e4 c5 2. Nf3`); the UCI text as
/// it is if it does not replay.
pub fn san_line(line: &str) -> String {
    let Some((_, sans)) = replay_line(line) else {
        return line.to_string();
    };
    let mut out = String::new();
    for (i, san) in sans.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        if i % 2 == 0 {
            out.push_str(&format!("{}. ", i / 2 + 1));
        }
        out.push_str(san);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replayed_lines_give_san_and_refuse_illegal_moves() {
        let (pos, sans) = replay_line("e2e4 c7c5 g1f3").expect("legal");
        assert_eq!(sans, ["e4", "c5", "Nf3"]);
        assert_eq!(pos.turn(), Color::Black);
        assert!(replay_line("e2e5").is_none());
        assert!(replay_line("e2e4 zz").is_none());
        assert_eq!(san_line("e2e4 c7c5 g1f3"), "1. e4 c5 2. Nf3");
        assert_eq!(san_line("e2e5"), "e2e5");
    }
}
