//! The header of a game: who played whom, when, where, at what rating, with what result. One
//! type for every place a game is described: read from PGN tags, stored in a case base's game
//! table, written into match PGN files, cited in explanations.

use serde::{Serialize, Serializer};
use shakmaty::Color;

use super::clock::TimeControl;

/// Result of a game.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*` or missing.
    #[default]
    Unknown,
}

impl GameResult {
    /// Parses a PGN `Result` tag value.
    pub(crate) fn from_tag(s: &str) -> GameResult {
        match s.trim() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }

    /// PGN notation.
    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Points scored by `side` (None when the result is unknown).
    pub fn points_for(self, side: Color) -> Option<f64> {
        match (self, side) {
            (GameResult::Draw, _) => Some(0.5),
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => {
                Some(1.0)
            }
            (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => {
                Some(0.0)
            }
            (GameResult::Unknown, _) => None,
        }
    }

    /// A one-byte code (0 unknown, 1 white wins, 2 black wins, 3 draw), as game tables store it.
    pub(crate) fn to_byte(self) -> u8 {
        match self {
            GameResult::WhiteWins => 1,
            GameResult::BlackWins => 2,
            GameResult::Draw => 3,
            GameResult::Unknown => 0,
        }
    }

    /// The result of a code from [`GameResult::to_byte`] (anything else is unknown).
    pub(crate) fn from_byte(b: u8) -> GameResult {
        match b {
            1 => GameResult::WhiteWins,
            2 => GameResult::BlackWins,
            3 => GameResult::Draw,
            _ => GameResult::Unknown,
        }
    }
}

/// Its PGN notation.
impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_pgn())
    }
}

/// Serialised as its PGN notation (`"1-0"`).
impl Serialize for GameResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_pgn())
    }
}

/// The descriptive header of a game (the PGN seven-tag roster, without the round when it is
/// not known, plus the ratings).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GameHeader {
    /// `Event` tag.
    pub event: String,
    /// `Site` tag (a URL for Lichess games).
    pub site: String,
    /// `Date` tag, `YYYY.MM.DD`.
    pub date: String,
    /// `Round` tag (empty when unknown).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub round: String,
    /// White player's name.
    pub white: String,
    /// Black player's name.
    pub black: String,
    /// White's rating.
    pub white_elo: Option<u16>,
    /// Black's rating.
    pub black_elo: Option<u16>,
    /// The result.
    pub result: GameResult,
    /// The time control, when the `TimeControl` tag gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

impl GameHeader {
    /// Rating of `side`.
    pub fn elo(&self, side: Color) -> Option<u16> {
        match side {
            Color::White => self.white_elo,
            Color::Black => self.black_elo,
        }
    }

    /// Name of `side`.
    pub fn player(&self, side: Color) -> &str {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The year of the `Date` tag, if it has one.
    pub(crate) fn year(&self) -> Option<&str> {
        self.date
            .get(..4)
            .filter(|y| y.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Empties every field, keeping the strings' buffers (the visitor reuses one header).
    pub(crate) fn reset(&mut self) {
        for s in [
            &mut self.event,
            &mut self.site,
            &mut self.date,
            &mut self.round,
            &mut self.white,
            &mut self.black,
        ] {
            s.clear();
        }
        self.white_elo = None;
        self.black_elo = None;
        self.result = GameResult::Unknown;
        self.time_control = None;
    }
}
