//! A player's dossier, as `precedent info PLAYERFILE --report` prints it: their openings as
//! White and as Black (main lines with counts), their errors and clock use beside their band,
//! the generic model as fitted to them, and the positions of their repertoire where they most
//! depart from what the generic model expects of a player there; an SVG of those departures.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{CastlingMode, Color, Position};

use precedent::casebase::profile::{Line, MOVE_BANDS, Profile, san_line};
use precedent::casebase::{CaseBase, Without};
use precedent::choice::Choice;
use precedent::pgn::Speed;
use precedent::player::{Knowledge, Player};
use precedent::position::Game;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{EngineConfig, judge_position};

/// The blunder rate (a loss of 200 cp or more, Stockfish 15.1 at depth 12) of Lichess rapid
/// players by 200-point band of their rating, on 1,000 held-out positions a band (4,863 for
/// 2500–2699), as docs/eval.md measured them (2026-11-30): the humans beside whom a player's
/// own rate is read. (Lowest rating of the band, rate.)
const BAND_BLUNDERS: [(u16, f64); 9] = [
    (900, 0.144),
    (1100, 0.108),
    (1300, 0.086),
    (1500, 0.090),
    (1700, 0.075),
    (1900, 0.060),
    (2100, 0.052),
    (2300, 0.044),
    (2500, 0.029),
];

/// Main lines shown a first move.
const REPLIES: usize = 3;
/// First moves shown a colour.
const FIRSTS: usize = 3;
/// Positions of the repertoire the generic model is asked about, at most.
const CANDIDATES: usize = 300;
/// Departures listed.
const DEPARTURES: usize = 8;

/// A main line of the player's openings.
#[derive(Clone, Debug, Serialize)]
pub struct MainLine {
    /// The line in SAN.
    pub line: String,
    /// Games that reached its end.
    pub games: u32,
    /// Games that began with its first plies (its first move, or first two plies as Black).
    pub of: u32,
    /// The player's score in the games that reached its end (0..=1).
    pub score: f64,
}

/// A position of the repertoire where the player departs from the generic model.
#[derive(Clone, Debug, Serialize)]
pub struct Departure {
    /// The line leading to it, in SAN.
    pub after: String,
    /// The position (FEN).
    pub fen: String,
    /// The player's move there, in SAN.
    pub plays: String,
    /// The same in UCI notation.
    pub uci: String,
    /// Games in which they played it there.
    pub games: u32,
    /// Games in which they reached the position.
    pub of: u32,
    /// The generic model's probability of the move.
    pub generic: f64,
}

/// The dossier.
#[derive(Clone, Debug, Serialize)]
pub struct Dossier {
    /// The profile it reads.
    pub profile: Profile,
    /// Main lines as White.
    pub white: Vec<MainLine>,
    /// Main lines as Black.
    pub black: Vec<MainLine>,
    /// The Lichess rapid players of the player's band: (band, their blunder rate).
    pub band_blunders: Option<(String, f64)>,
    /// Where the player most departs from the generic model, most first.
    pub departures: Vec<Departure>,
    /// The strength their bot plays at under each speed's clock: their rating at it (the
    /// speed's own, or the nearest with enough games) and the level it is; the speed played
    /// without a clock first.
    pub strengths: Vec<SpeedLevel>,
}

/// What a player's bot plays at under a clock of one speed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SpeedLevel {
    /// The clock's speed (`None`: no clock).
    pub clock: Option<String>,
    /// The rating played at, and the speed of the games it comes from.
    pub rating: u16,
    /// That speed (`None`: all their games).
    pub from: Option<String>,
    /// Rated games it is the median of.
    pub games: u64,
    /// The level (the `UCI_Elo` setting nearest the rating).
    pub level: Option<u16>,
}

/// The main lines of `lines` starting with each of the most played first moves (as White) or
/// answering the most played first moves (as Black).
fn main_lines(lines: &[Line], color: Color) -> Vec<MainLine> {
    let by_moves: HashMap<&str, &Line> = lines.iter().map(|l| (l.moves.as_str(), l)).collect();
    let children = |prefix: &str| -> Vec<&Line> {
        let depth = if prefix.is_empty() {
            0
        } else {
            prefix.split(' ').count()
        };
        let mut c: Vec<&Line> = lines
            .iter()
            .filter(|l| {
                l.moves.split(' ').count() == depth + 1
                    && (prefix.is_empty() || l.moves.starts_with(&format!("{prefix} ")))
            })
            .collect();
        c.sort_by(|a, b| b.games.cmp(&a.games).then(a.moves.cmp(&b.moves)));
        c
    };
    let mut out = Vec::new();
    for first in children("").into_iter().take(FIRSTS) {
        // As White the first move is theirs; as Black it is the opponent's, and their replies
        // branch below it.
        let starts: Vec<&Line> = match color {
            Color::White => vec![first],
            Color::Black => children(&first.moves).into_iter().take(REPLIES).collect(),
        };
        for start in starts {
            // The most played continuation, ply by ply, while one was played twice.
            let mut end = start;
            while let Some(next) = children(&end.moves).first().copied() {
                end = next;
            }
            let of = by_moves.get(start.moves.as_str()).map_or(0, |l| l.games);
            out.push(MainLine {
                line: san_line(&end.moves),
                games: end.games,
                of,
                score: f64::from(end.points) / f64::from(end.games.max(1)),
            });
        }
    }
    out
}

/// The game after the moves of `line` (UCI, space-separated) from the initial position, with
/// its last move.
fn game_after(line: &str) -> Option<Game> {
    let mut game = Game::default();
    for text in line.split_whitespace() {
        let uci: shakmaty::uci::UciMove = text.parse().ok()?;
        let m = uci.to_move(&game.position).ok()?;
        game.position.play_unchecked(m);
        game.last_move = Some(m);
    }
    Some(game)
}

/// The positions of the repertoire where the player chose one move in at least half of three
/// or more games, with the generic model's probability of it, judged within `movetime`.
fn departures(
    profile: &Profile,
    (generic, without): (&CaseBase, &Without),
    cfg: &EngineConfig,
    movetime: Duration,
) -> Vec<Departure> {
    let mut candidates: Vec<(String, &Line, u32)> = Vec::new();
    for (color, lines) in [
        (Color::White, &profile.openings.white),
        (Color::Black, &profile.openings.black),
    ] {
        let games: HashMap<&str, u32> = lines.iter().map(|l| (l.moves.as_str(), l.games)).collect();
        for l in lines {
            let (prefix, depth) = match l.moves.rsplit_once(' ') {
                Some((p, _)) => (p.to_string(), l.moves.split(' ').count()),
                None => (String::new(), 1),
            };
            // The player's move: White's plies are the odd ones, Black's the even ones.
            let theirs = (depth % 2 == 1) == (color == Color::White);
            let of = if prefix.is_empty() {
                match color {
                    Color::White => profile.white_games as u32,
                    Color::Black => profile.black_games as u32,
                }
            } else {
                games.get(prefix.as_str()).copied().unwrap_or(0)
            };
            if theirs && of >= 3 && 2 * l.games >= of {
                candidates.push((prefix, l, of));
            }
        }
    }
    candidates.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.moves.cmp(&b.1.moves)));
    candidates.truncate(CANDIDATES);
    let mut found: Vec<Departure> = candidates
        .par_iter()
        .map_init(
            || Memory::new(4),
            |memory, (prefix, line, of)| {
                let game = game_after(prefix)?;
                let pos = game.position.clone();
                let last = line.moves.rsplit(' ').next()?;
                let mv = last
                    .parse::<shakmaty::uci::UciMove>()
                    .ok()?
                    .to_move(&pos)
                    .ok()?;
                memory.clear();
                let limits = Limits {
                    deadline: Some(Instant::now() + movetime),
                    ..Limits::default()
                };
                let (_, j) = judge_position(
                    Knowledge::read_without(generic, without),
                    &game,
                    cfg,
                    limits,
                    CastlingMode::Standard,
                    memory,
                )
                .ok()?;
                let at = j.evidence.moves.iter().position(|m| *m == mv)?;
                let plays = shakmaty::san::San::from_move(&pos, mv).to_string();
                Some(Departure {
                    after: if prefix.is_empty() {
                        "the start".to_string()
                    } else {
                        san_line(prefix)
                    },
                    fen: shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        .to_string(),
                    plays,
                    uci: mv.to_uci(CastlingMode::Standard).to_string(),
                    games: line.games,
                    of: *of,
                    generic: j.probabilities[at],
                })
            },
        )
        .flatten()
        .collect();
    // The evidence against the generic model: its games times the log of how much more often
    // they played the move than the model expects.
    let surprise = |d: &Departure| {
        f64::from(d.games)
            * (f64::from(d.games) / f64::from(d.of.max(1)) / d.generic.max(1e-6)).ln()
    };
    found.sort_by(|a, b| surprise(b).total_cmp(&surprise(a)));
    found.truncate(DEPARTURES);
    found
}

/// The dossier of `player`, the generic model (of `cfg` on `generic`) judging each position of
/// their repertoire within `movetime`.
pub fn dossier(
    player: &Player,
    generic: &CaseBase,
    cfg: &EngineConfig,
    movetime: Duration,
) -> Dossier {
    let profile = player.profile().clone();
    let band_blunders = profile.rating.and_then(|r| {
        BAND_BLUNDERS
            .iter()
            .rev()
            .find(|(lo, _)| r.median >= *lo)
            .map(|(lo, rate)| (format!("{lo}-{}", lo + 199), *rate))
    });
    let clocks = std::iter::once(None).chain(Speed::VALUES.iter().copied().map(Some));
    let strengths = clocks
        .filter_map(|clock| {
            let s = player.strength(clock)?;
            Some(SpeedLevel {
                clock: clock.map(|c| c.to_string()),
                rating: s.rating,
                from: s.speed.map(|x| x.to_string()),
                games: s.games,
                level: cfg.level_for(s.rating).map(|c| c.level.elo),
            })
        })
        .collect();
    Dossier {
        white: main_lines(&profile.openings.white, Color::White),
        black: main_lines(&profile.openings.black, Color::Black),
        departures: departures(&profile, (generic, player.without()), cfg, movetime),
        band_blunders,
        strengths,
        profile,
    }
}

impl fmt::Display for Dossier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.profile;
        writeln!(f, "{}", p.name)?;
        writeln!(
            f,
            "{} games ({} as White, {} as Black){}{}",
            p.games,
            p.white_games,
            p.black_games,
            p.score()
                .map_or(String::new(), |s| format!(", score {:.1} %", 100.0 * s)),
            p.rating.map_or(String::new(), |r| format!(
                ", rated {} (median; {}-{})",
                r.median, r.low, r.high
            ))
        )?;
        self.write_strength(f)?;
        self.write_openings(f)?;
        self.write_errors(f)?;
        self.write_clocks(f)?;
        self.write_departures(f)
    }
}

impl Dossier {
    /// The main lines played as White and as Black.
    fn write_openings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (side, lines) in [("White", &self.white), ("Black", &self.black)] {
            writeln!(
                f,
                "\nOpenings as {side} (main lines, games that reached the end of each):"
            )?;
            if lines.is_empty() {
                writeln!(f, "  no line played twice")?;
            }
            for l in lines {
                writeln!(
                    f,
                    "  {:<70} {:>5} of {:<5} score {:>3.0} %",
                    l.line,
                    l.games,
                    l.of,
                    100.0 * l.score
                )?;
            }
        }
        Ok(())
    }

    /// The strength their bot plays at (its level by the clock's speed) and the model that
    /// imitates them: two things, the first what it plays at, the second how it reads them.
    fn write_strength(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.profile;
        writeln!(
            f,
            "\nStrength (PlayerStrength true: the level of their rating at the game's speed):"
        )?;
        if self.strengths.is_empty() {
            writeln!(
                f,
                "  their games carry no rating: the bot plays as the engine's style"
            )?;
        }
        for s in &self.strengths {
            let clock = s
                .clock
                .as_deref()
                .map_or("no clock".to_string(), |c| format!("{c} clock"));
            let from = match &s.from {
                Some(speed) if s.clock.as_deref() == Some(speed.as_str()) => {
                    format!("their {speed} rating")
                }
                Some(speed) => format!("nearest: their {speed} rating"),
                None => "their rating over all games".to_string(),
            };
            writeln!(
                f,
                "  {:<16} {from} {} ({} games): {}",
                clock,
                s.rating,
                s.games,
                s.level.map_or("no levels".into(), |l| format!("level {l}"))
            )?;
        }
        let speeds: Vec<String> = p
            .speeds
            .iter()
            .map(|s| format!("{} {} ({} games)", s.speed, s.rating.median, s.rating.games))
            .collect();
        if !speeds.is_empty() {
            writeln!(f, "  rated games by speed: {}", speeds.join(", "))?;
        }
        writeln!(f, "Likeness (PlayerStrength false: their likeliest move):")?;
        match &p.model {
            Some(m) => writeln!(
                f,
                "  the generic model fitted to {} of their moves reads them at rating {}, the search's weight times {}, the case base's times {}: log-likelihood {:.3} a move on moves it was not fitted on, against {:.3} as the default style reads them",
                m.positions,
                m.rating,
                m.search_weight,
                m.cases_weight,
                m.log_likelihood,
                m.default_log_likelihood
            ),
            None => writeln!(
                f,
                "  not fitted (built with --fit-depth 0): the generic model at their median rating"
            ),
        }
    }

    /// Their blunders and mean loss by the judge, and how the generic model reads them.
    fn write_errors(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.profile;
        writeln!(f, "\nErrors:")?;
        match (&p.judged, &self.band_blunders) {
            (Some(j), Some((band, rate))) => writeln!(
                f,
                "  blunders {:.1} % of {} moves, mean loss {:.0} cp ({}); Lichess rapid players rated {band}: {:.1} %",
                100.0 * j.blunder_rate,
                j.positions,
                j.mean_loss,
                j.judge,
                100.0 * rate
            )?,
            (Some(j), None) => writeln!(
                f,
                "  blunders {:.1} % of {} moves, mean loss {:.0} cp ({})",
                100.0 * j.blunder_rate,
                j.positions,
                j.mean_loss,
                j.judge
            )?,
            (None, _) => writeln!(f, "  not judged (build the file with --judge stockfish)")?,
        }
        match &p.errors {
            Some(e) if e.note.is_empty() => writeln!(
                f,
                "  with PlayerErrors, their bot at level {} errs {} times as the level does: it blunders {:.1} % of {} of their positions (as calibrated {:.1} %), they {:.1} %",
                e.level,
                e.factor,
                100.0 * e.fitted,
                e.positions,
                100.0 * e.calibrated,
                100.0 * e.target
            )?,
            Some(e) => writeln!(f, "  their bot's errors not fitted: {}", e.note)?,
            None => {}
        }
        for ph in p.judged.iter().flat_map(|j| &j.phases) {
            writeln!(
                f,
                "  {:<12} blunders {:.1} % of {} moves, mean loss {:.0} cp",
                ph.phase,
                100.0 * ph.blunder_rate,
                ph.positions,
                ph.mean_loss
            )?;
        }
        Ok(())
    }

    /// Their clock use by time control: median seconds a move by move number.
    fn write_clocks(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.profile;
        writeln!(f, "\nClock use (median seconds a move by move number):")?;
        if p.clocks.is_empty() {
            writeln!(f, "  their games have no clocks")?;
        }
        let bands: Vec<String> = MOVE_BANDS
            .iter()
            .map(|(lo, hi)| {
                if *hi == u32::MAX {
                    format!("{lo}+")
                } else {
                    format!("{lo}-{hi}")
                }
            })
            .collect();
        for c in p.clocks.iter().take(5) {
            let medians: Vec<String> = c
                .median_seconds
                .iter()
                .zip(&bands)
                .map(|(m, b)| format!("{b}: {}", m.map_or("-".into(), |s| format!("{s:.1}"))))
                .collect();
            writeln!(
                f,
                "  {:>8}  {} games  {}",
                c.control,
                c.games,
                medians.join("  ")
            )?;
        }
        Ok(())
    }

    /// Where they depart from the generic model in their repertoire.
    fn write_departures(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "\nWhere they depart from the generic model (their repertoire, 3 games or more):"
        )?;
        if self.departures.is_empty() {
            writeln!(f, "  no position of their repertoire with 3 games or more")?;
        }
        for d in &self.departures {
            writeln!(
                f,
                "  after {}: {} in {} of {} games; the generic model {:.1} %",
                d.after,
                d.plays,
                d.games,
                d.of,
                100.0 * d.generic
            )?;
        }
        Ok(())
    }
}

/// An SVG of the departures: the player's share of each move against the generic model's
/// probability.
pub fn chart(d: &Dossier) -> Result<String, String> {
    use plotters::prelude::*;
    let rows: Vec<(String, f64, f64)> = d
        .departures
        .iter()
        .map(|x| {
            (
                format!("{} … {}", x.after, x.plays),
                100.0 * f64::from(x.games) / f64::from(x.of.max(1)),
                100.0 * x.generic,
            )
        })
        .collect();
    let n = rows.len().max(1);
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        let height = 80 + 44 * n as u32;
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{}: where they depart from the generic model",
                    d.profile.name
                ),
                ("sans-serif", 15),
            )
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(10)
            .build_cartesian_2d(0.0..100.0, 0.0..n as f64)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_desc("% of the games in the position (blue: the player; grey: the generic model)")
            .draw()
            .map_err(|e| err(&e))?;
        let blue = RGBColor(0x1f, 0x5f, 0xa8);
        for (i, (label, theirs, model)) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y + 0.50), (*theirs, y + 0.80)],
                    blue.filled(),
                )))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y + 0.20), (*model, y + 0.48)],
                    BLACK.mix(0.35).filled(),
                )))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (1.0, y + 0.95),
                    ("sans-serif", 11).into_font(),
                )))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(moves: &str, games: u32) -> Line {
        Line {
            moves: moves.into(),
            games,
            points: games as f32 / 2.0,
        }
    }

    #[test]
    fn main_lines_follow_the_most_played_continuation() {
        let lines = vec![
            line("e2e4", 10),
            line("d2d4", 4),
            line("e2e4 c7c5", 6),
            line("e2e4 e7e5", 3),
            line("e2e4 c7c5 g1f3", 5),
            line("d2d4 d7d5", 2),
        ];
        let white = main_lines(&lines, Color::White);
        assert_eq!(white.len(), 2);
        assert_eq!(white[0].line, "1. e4 c5 2. Nf3");
        assert_eq!((white[0].games, white[0].of), (5, 10));
        assert_eq!(white[1].line, "1. d4 d5");
        // As Black the first move is the opponent's: a line per reply.
        let black = main_lines(&lines, Color::Black);
        assert_eq!(black[0].line, "1. e4 c5 2. Nf3");
        assert_eq!(black[1].line, "1. e4 e5");
        assert_eq!((black[1].games, black[1].of), (3, 3));
    }
}
