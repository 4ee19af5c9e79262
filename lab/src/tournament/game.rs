//! One game between two live players, with real clocks, ended by the rules, by adjudication, or
//! by a player's failure (crash, stall, illegal move, flag).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use super::openings::Opening;
use super::player::{Clocks, Failure, Live, TimeControl};
use crate::client::Score;
use precedent::pgn::GameResult;
use precedent::think::{Clock, budget};

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check: a draw.
    Stalemate,
    /// The same position occurred a third time: a draw.
    Threefold,
    /// 100 plies without a capture or pawn move: a draw.
    FiftyMoves,
    /// Neither side can mate: a draw.
    InsufficientMaterial,
    /// Drawn by the `max plies` adjudication.
    MaxPlies,
    /// An external engine's score stayed past the resign threshold.
    Resignation,
    /// A player's flag fell.
    TimeForfeit,
    /// A player sent an illegal move.
    IllegalMove(String),
    /// A player crashed or could not be started.
    Crash(String),
    /// A player stopped answering.
    Stall(String),
}

impl Termination {
    /// The kind of ending, without details: what match summaries count.
    pub fn kind(&self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Threefold => "threefold repetition",
            Termination::FiftyMoves => "fifty-move rule",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::MaxPlies => "max plies",
            Termination::Resignation => "resign adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove(_) => "illegal move",
            Termination::Crash(_) => "engine failure",
            Termination::Stall(_) => "engine stalled",
        }
    }

    /// The PGN `Termination` tag value.
    pub fn tag(&self) -> &'static str {
        match self {
            Termination::Checkmate
            | Termination::Stalemate
            | Termination::Threefold
            | Termination::FiftyMoves
            | Termination::InsufficientMaterial => "normal",
            Termination::MaxPlies | Termination::Resignation => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove(_) => "illegal move",
            Termination::Crash(_) | Termination::Stall(_) => "rules infraction",
        }
    }

    /// A one-line description.
    pub fn describe(&self) -> String {
        match self {
            Termination::Checkmate => "checkmate".into(),
            Termination::Stalemate => "stalemate".into(),
            Termination::Threefold => "threefold repetition".into(),
            Termination::FiftyMoves => "fifty-move rule".into(),
            Termination::InsufficientMaterial => "insufficient material".into(),
            Termination::MaxPlies => "adjudicated draw: maximum plies reached".into(),
            Termination::Resignation => {
                "adjudicated: engine score past the resign threshold".into()
            }
            Termination::TimeForfeit => "loses on time".into(),
            Termination::IllegalMove(d) => format!("illegal move ({d})"),
            Termination::Crash(d) => format!("engine failure ({d})"),
            Termination::Stall(d) => format!("engine stalled ({d})"),
        }
    }
}

/// Optional early ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Adjudication {
    /// Draw after this many plies (after the opening).
    pub max_plies: Option<u32>,
    /// (centipawns, moves): an external engine whose own score is ≤ −cp (or ≥ +cp) for this
    /// many of its consecutive moves loses (or wins).
    pub resign: Option<(i32, u32)>,
}

/// How long a player's moves took against the time it had, over one game or a match.
///
/// The budget of a move is what Precedent's own time manager would allow with the clock the
/// player had (twice remaining / 25 + ¾ increment, at most 40 % of the clock; no move overhead), the
/// same yardstick for every player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MoveTimes {
    /// Moves timed.
    pub moves: u64,
    /// The longest move, in ms.
    pub slowest_ms: f64,
    /// The budget of that move, in ms.
    pub slowest_budget_ms: f64,
    /// The largest excess of a move over its budget, in ms (negative: every move was within).
    pub worst_over_budget_ms: f64,
    /// The least time left on the player's clock after a move, in ms.
    pub least_clock_left_ms: f64,
}

impl MoveTimes {
    fn record(&mut self, used: Duration, clock_before: Duration, increment: Duration) {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let plan = Clock {
            remaining: Some(clock_before),
            increment,
            ..Clock::default()
        };
        let allowed = budget(&plan, Duration::ZERO).map_or(f64::INFINITY, ms);
        let over = ms(used) - allowed;
        let left = ms(clock_before.saturating_sub(used));
        if self.moves == 0 {
            self.worst_over_budget_ms = over;
            self.least_clock_left_ms = left;
        }
        if ms(used) > self.slowest_ms {
            self.slowest_ms = ms(used);
            self.slowest_budget_ms = allowed;
        }
        self.worst_over_budget_ms = self.worst_over_budget_ms.max(over);
        self.least_clock_left_ms = self.least_clock_left_ms.min(left);
        self.moves += 1;
    }

    /// Both records together.
    pub fn merge(&mut self, other: &MoveTimes) {
        if other.moves == 0 {
            return;
        }
        if self.moves == 0 {
            *self = *other;
            return;
        }
        if other.slowest_ms > self.slowest_ms {
            self.slowest_ms = other.slowest_ms;
            self.slowest_budget_ms = other.slowest_budget_ms;
        }
        self.worst_over_budget_ms = self.worst_over_budget_ms.max(other.worst_over_budget_ms);
        self.least_clock_left_ms = self.least_clock_left_ms.min(other.least_clock_left_ms);
        self.moves += other.moves;
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecordOut {
    /// The result (a failure is a loss for the culprit).
    pub result: GameResult,
    /// How the game ended.
    pub termination: Termination,
    /// Who ended it by failing, if anyone.
    pub culprit: Option<Color>,
    /// Moves played after the opening.
    pub moves: Vec<Move>,
    /// The final position.
    pub final_position: Chess,
    /// White's and Black's move times.
    pub times: [MoveTimes; 2],
}

fn loss_for(side: Color) -> GameResult {
    match side {
        Color::White => GameResult::BlackWins,
        Color::Black => GameResult::WhiteWins,
    }
}

/// Whether the game is over by the rules (mate, stalemate, material, fifty moves, threefold
/// repetition) or by the ply limit, before the move in `pos`.
fn ended(
    pos: &Chess,
    seen: &HashMap<Zobrist64, u8>,
    plies: usize,
    adj: &Adjudication,
) -> Option<(GameResult, Termination)> {
    let draw = |t| Some((GameResult::Draw, t));
    if pos.is_checkmate() {
        Some((loss_for(pos.turn()), Termination::Checkmate))
    } else if pos.is_stalemate() {
        draw(Termination::Stalemate)
    } else if pos.is_insufficient_material() {
        draw(Termination::InsufficientMaterial)
    } else if pos.halfmoves() >= 100 {
        draw(Termination::FiftyMoves)
    } else if seen.values().any(|&n| n >= 3) {
        draw(Termination::Threefold)
    } else if adj.max_plies.is_some_and(|m| plies as u32 >= m) {
        draw(Termination::MaxPlies)
    } else {
        None
    }
}

/// Resign adjudication: keeps the mover's `streak` of scores beyond the threshold (moves, and
/// the sign: −1 losing, +1 winning) and says, once it is long enough, which way the game is
/// decided (−1: the mover loses, +1: the mover wins).
fn resigns(adj: &Adjudication, score: Option<Score>, streak: &mut (u32, i8)) -> Option<i8> {
    let ((cp, moves), score) = (adj.resign?, score?);
    let s = score.to_cp(10_000);
    let dir = if s <= -cp {
        -1
    } else if s >= cp {
        1
    } else {
        0
    };
    *streak = if dir != 0 && dir == streak.1 {
        (streak.0 + 1, dir)
    } else {
        (u32::from(dir != 0), dir)
    };
    (streak.0 >= moves && moves > 0).then_some(dir)
}

/// Plays a game from `opening`. `tc` is White's and Black's time control; `castling` is how
/// moves are written to the engines (king takes rook for Chess960).
pub fn play(
    white: &mut Live,
    black: &mut Live,
    opening: &Opening,
    tc: [TimeControl; 2],
    adj: &Adjudication,
    castling: CastlingMode,
) -> GameRecordOut {
    let mut game = opening.game();
    let mut history: Vec<Move> = opening.moves.clone();
    let mut played = Vec::new();
    let mut seen: HashMap<Zobrist64, u8> = HashMap::new();
    let mut clock = [tc[0].base, tc[1].base];
    let mut streak = [(0u32, 0i8); 2];
    let mut times = [MoveTimes::default(); 2];
    let finish =
        |result, termination, culprit, played: Vec<Move>, pos: &Chess, times| GameRecordOut {
            result,
            termination,
            culprit,
            moves: played,
            final_position: pos.clone(),
            times,
        };
    if let Err((side, f)) = new_game_for_both(white, black) {
        return finish(
            loss_for(side),
            failure(f),
            Some(side),
            played,
            &game.position,
            times,
        );
    }
    loop {
        let pos = &game.position;
        *seen
            .entry(pos.zobrist_hash(EnPassantMode::Legal))
            .or_default() += 1;
        if let Some((result, termination)) = ended(pos, &seen, played.len(), adj) {
            return finish(result, termination, None, played, pos, times);
        }
        let side = pos.turn();
        let i = usize::from(side == Color::Black);
        let clocks = clocks_of(clock, &tc);
        let started = Instant::now();
        let live = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let thought = live.think(&opening.fen, &history, &game, &clocks, castling);
        let used = started.elapsed();
        let thought = match thought {
            Ok(t) => t,
            Err(f) => {
                return finish(loss_for(side), failure(f), Some(side), played, pos, times);
            }
        };
        times[i].record(used, clock[i], tc[i].increment);
        if used > clock[i] {
            return finish(
                loss_for(side),
                Termination::TimeForfeit,
                Some(side),
                played,
                pos,
                times,
            );
        }
        clock[i] = clock[i] - used + tc[i].increment;
        if let Some(dir) = resigns(adj, thought.score, &mut streak[i]) {
            let result = if dir < 0 {
                loss_for(side)
            } else {
                loss_for(!side)
            };
            history.push(thought.mv);
            played.push(thought.mv);
            game.play(thought.mv);
            return finish(
                result,
                Termination::Resignation,
                None,
                played,
                &game.position,
                times,
            );
        }
        history.push(thought.mv);
        played.push(thought.mv);
        game.play(thought.mv);
    }
}

/// Starts a new game in both engines; the side whose engine failed to, and how.
fn new_game_for_both(white: &mut Live, black: &mut Live) -> Result<(), (Color, Failure)> {
    for (side, live) in [(Color::White, white), (Color::Black, black)] {
        live.new_game().map_err(|f| (side, f))?;
    }
    Ok(())
}

/// The clocks as the engines are told them: the time left on each (White's first) and the
/// increments of `tc`.
fn clocks_of(left: [Duration; 2], tc: &[TimeControl; 2]) -> Clocks {
    Clocks {
        white: left[0],
        black: left[1],
        white_inc: tc[0].increment,
        black_inc: tc[1].increment,
    }
}

fn failure(f: Failure) -> Termination {
    match f {
        Failure::Crash(d) => Termination::Crash(d),
        Failure::Stall(d) => Termination::Stall(d),
        Failure::Illegal(d) => Termination::IllegalMove(d),
    }
}
