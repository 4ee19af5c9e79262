//! The game visitor: one pass over a PGN game, replaying its SAN moves with shakmaty and keeping
//! the positions (and moves) that a [`Selection`] asks for. No game tree is built; the buffers
//! are reused from game to game.

use std::ops::ControlFlow;

use pgn_reader::{RawComment, RawTag, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};
use xxhash_rust::xxh3::Xxh3;

use super::clock::{MoveClock, TimeControl, move_clock, parse_clock};
use super::header::{GameHeader, GameResult};
use crate::case::CaseMove;

/// Which moves of a game are wanted: the mover must pass every filter given.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Player names, lower-cased; empty = any player.
    pub players: Vec<String>,
    /// Player names, lower-cased, whose moves are never selected (a collection's own
    /// account, when its opponents are wanted).
    pub excluded: Vec<String>,
    /// Only this side's moves.
    pub side: Option<Color>,
    /// Lowest mover rating (games without the rating tag are excluded).
    pub min_elo: Option<u16>,
    /// Highest mover rating.
    pub max_elo: Option<u16>,
    /// Plies skipped at the start of each game.
    pub skip_plies: u32,
}

impl Selection {
    fn rating_filter(&self) -> bool {
        self.min_elo.is_some() || self.max_elo.is_some()
    }

    /// Whether the moves of `side` in a game with these tags are selected, and if not, whether
    /// a missing rating was the reason.
    fn side_selected(&self, header: &GameHeader, side: Color) -> (bool, bool) {
        if self.side.is_some_and(|s| s != side) {
            return (false, false);
        }
        let (name, elo) = (header.player(side), header.elo(side));
        if !self.players.is_empty() && !self.players.contains(&name.to_lowercase()) {
            return (false, false);
        }
        if !self.excluded.is_empty() && self.excluded.contains(&name.to_lowercase()) {
            return (false, false);
        }
        if self.rating_filter() {
            let Some(elo) = elo else { return (false, true) };
            if self.min_elo.is_some_and(|m| elo < m) || self.max_elo.is_some_and(|m| elo > m) {
                return (false, false);
            }
        }
        (true, false)
    }
}

/// Why a game produced nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// A move that is not legal (or not parsable as a move) in its position.
    IllegalMove,
    /// A `FEN` tag that does not parse or is not a legal position.
    BadFen,
    /// A chess variant other than standard chess or Chess960.
    Variant,
    /// A rating filter was given and the mover's rating tag is missing.
    MissingRating,
    /// No move passed the filters.
    NotSelected,
    /// The PGN text of the game is malformed (e.g. an unterminated tag).
    MalformedPgn,
    /// Left out of the case base for testing (`--holdout`).
    HeldOut,
    /// Every selected move was left out by `--band-cases` sampling.
    SampledOut,
    /// The same moves as a game already read (a player's game in two collections).
    Duplicate,
}

impl SkipReason {
    /// The reason as reported in summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::IllegalMove => "illegal move",
            SkipReason::BadFen => "bad fen",
            SkipReason::Variant => "variant",
            SkipReason::MissingRating => "missing rating",
            SkipReason::NotSelected => "no selected moves",
            SkipReason::MalformedPgn => "malformed pgn",
            SkipReason::HeldOut => "held out",
            SkipReason::SampledOut => "sampled out",
            SkipReason::Duplicate => "duplicate",
        }
    }

    /// Whether the game itself is broken (what `--strict` refuses), rather than filtered out.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            SkipReason::IllegalMove
                | SkipReason::BadFen
                | SkipReason::Variant
                | SkipReason::MalformedPgn
        )
    }
}

/// The tags that a game's identity and start position come from, beside its header.
#[derive(Clone, Debug, Default)]
struct ParseTags {
    utc_time: String,
    fen: Option<String>,
    variant: Option<String>,
}

/// A selected position of a game: the board before the move, and the move.
#[derive(Clone, Debug)]
pub struct Mover {
    /// The position before the move.
    pub pos: Chess,
    /// The move played.
    pub mv: Move,
    /// Index of the move in the game's movetext (0 = first move).
    pub ply: u32,
    /// The move before it (the opponent's), if the game had one.
    pub last: Option<Move>,
}

/// The current game, as far as the visitor has read it.
#[derive(Clone, Debug, Default)]
pub struct ParsedGame {
    /// Number of the game in its input, from 1.
    pub number: u64,
    /// Its header.
    pub header: GameHeader,
    /// The selected positions and moves.
    pub selected: Vec<Mover>,
    /// Plies played.
    pub plies: u32,
    /// Identity of the game: a hash of its tags and all its moves; 0 for a game with no
    /// selected move, whose moves are skipped unread.
    pub key: u64,
    /// A hash of the game's moves alone (and its start position): the same game under other
    /// tags (a player's name spelt another way, another event's copy) has the same one, 0
    /// for a game whose moves were skipped.
    pub moves_key: u64,
    /// For a skipped game, what went wrong (e.g. the illegal move).
    pub detail: String,
    /// The evaluation after each ply where a `[%eval …]` comment gives one (Lichess' analysed
    /// games): centipawns from White's side, `None` for a mate score or no comment.
    pub evals: Vec<Option<i32>>,
    /// The mover's clock after each ply where a `[%clk …]` comment gives one (Lichess' games
    /// since 2017), in tenths of a second.
    pub clocks: Vec<Option<u32>>,
    /// The game's first moves, both sides', at most [`LINE_PLIES`] of them: its opening.
    pub line: Vec<Move>,
    /// Whether the game starts from a `FEN` tag's position rather than the initial one.
    pub from_fen: bool,
}

/// How many of a game's first moves [`ParsedGame::line`] keeps.
pub const LINE_PLIES: usize = 16;

impl ParsedGame {
    /// How the move at `ply` was timed, when the game has a time control and clocks.
    pub fn move_clock(&self, ply: u32) -> Option<MoveClock> {
        move_clock(&self.clocks, ply as usize, self.header.time_control?)
    }
}

/// Streams games: give it to `pgn_reader::Reader::read_game` and read [`GameVisitor::game`].
pub struct GameVisitor {
    selection: Selection,
    game: ParsedGame,
    tags: ParseTags,
    /// The move played last in the current game.
    last: Option<Move>,
    pos: Chess,
    selected_side: [bool; 2],
    missing_rating: bool,
    hasher: Xxh3,
    moves_hasher: Xxh3,
    error: Option<SkipReason>,
}

impl GameVisitor {
    /// A visitor keeping the moves `selection` picks.
    pub fn new(selection: Selection) -> GameVisitor {
        GameVisitor {
            selection,
            game: ParsedGame::default(),
            tags: ParseTags::default(),
            last: None,
            pos: Chess::default(),
            selected_side: [false; 2],
            missing_rating: false,
            hasher: Xxh3::new(),
            moves_hasher: Xxh3::new(),
            error: None,
        }
    }

    /// The game last read.
    pub fn game(&self) -> &ParsedGame {
        &self.game
    }

    /// The game just read, to narrow its selected moves before they are used.
    pub(crate) fn game_mut(&mut self) -> &mut ParsedGame {
        &mut self.game
    }

    fn fail(&mut self, reason: SkipReason, detail: String) {
        if self.error.is_none() {
            self.error = Some(reason);
            self.game.detail = detail;
        }
    }

    fn start_position(&mut self) -> Result<Chess, SkipReason> {
        if let Some(variant) = &self.tags.variant {
            let v = variant.to_ascii_lowercase();
            if !matches!(
                v.as_str(),
                "" | "standard" | "chess960" | "from position" | "fromposition"
            ) {
                self.game.detail = format!("variant {variant}");
                return Err(SkipReason::Variant);
            }
        }
        let Some(fen) = &self.tags.fen else {
            return Ok(Chess::default());
        };
        let detail = |e: &dyn std::fmt::Display| format!("FEN tag {fen:?}: {e}");
        let position = match Fen::from_ascii(fen.as_bytes()) {
            Err(e) => Err(detail(&e)),
            Ok(parsed) => match parsed
                .clone()
                .into_position::<Chess>(CastlingMode::Standard)
            {
                Ok(pos) => Ok(pos),
                Err(_) => parsed
                    .into_position(CastlingMode::Chess960)
                    .map_err(|e| detail(&e)),
            },
        };
        position.map_err(|d| {
            self.game.detail = d;
            SkipReason::BadFen
        })
    }
}

/// The evaluation in a comment such as `[%eval 0.24]` (pawns, White's side; a `,depth` suffix
/// allowed) or `[%eval #-3]`: `Some(Some(centipawns))`, `Some(None)` for a mate, `None` when
/// the comment has no evaluation or an impossible one (beyond ±100 pawns).
fn parse_eval(comment: &[u8]) -> Option<Option<i32>> {
    let text = std::str::from_utf8(comment).ok()?;
    let rest = &text[text.find("[%eval")? + 6..];
    let value = rest[..rest.find(']')?].trim();
    let value = value.split(',').next().unwrap_or(value).trim();
    if value.starts_with('#') {
        return Some(None);
    }
    let pawns: f64 = value.parse().ok()?;
    (pawns.is_finite() && pawns.abs() <= 100.0).then(|| Some((pawns * 100.0).round() as i32))
}

fn parse_elo(value: &[u8]) -> Option<u16> {
    std::str::from_utf8(value)
        .ok()?
        .trim()
        .parse::<u16>()
        .ok()
        .filter(|&e| e > 0)
}

impl Visitor for GameVisitor {
    type Tags = ();
    type Movetext = ();
    type Output = Result<(), SkipReason>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.game.number += 1;
        self.game.header.reset();
        self.tags.utc_time.clear();
        self.tags.fen = None;
        self.tags.variant = None;
        self.game.selected.clear();
        self.game.detail.clear();
        self.game.plies = 0;
        self.game.evals.clear();
        self.game.clocks.clear();
        self.game.line.clear();
        self.last = None;
        self.error = None;
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        let (header, tags) = (&mut self.game.header, &mut self.tags);
        let text = |s: &mut String| {
            s.clear();
            s.push_str(&value.decode_utf8_lossy());
        };
        match name {
            b"White" => text(&mut header.white),
            b"Black" => text(&mut header.black),
            b"WhiteElo" => header.white_elo = parse_elo(value.as_bytes()),
            b"BlackElo" => header.black_elo = parse_elo(value.as_bytes()),
            b"Date" => text(&mut header.date),
            b"Event" => text(&mut header.event),
            b"Site" => text(&mut header.site),
            b"Round" => text(&mut header.round),
            b"UTCTime" => text(&mut tags.utc_time),
            b"Result" => header.result = GameResult::from_tag(&value.decode_utf8_lossy()),
            b"FEN" => tags.fen = Some(value.decode_utf8_lossy().into_owned()),
            b"Variant" => tags.variant = Some(value.decode_utf8_lossy().into_owned()),
            b"TimeControl" => {
                header.time_control = TimeControl::from_tag(&value.decode_utf8_lossy());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<Self::Output, Self::Movetext> {
        let (header, tags) = (&self.game.header, &self.tags);
        self.hasher.reset();
        // The game's identity; the fields and their order are fixed, so that keys stay the same
        // across versions (the contamination guard compares them with old case bases).
        for s in [
            &header.white,
            &header.black,
            &header.date,
            &header.event,
            &header.site,
            &header.round,
            &tags.utc_time,
        ] {
            self.hasher.update(s.as_bytes());
            self.hasher.update(&[0]);
        }
        self.moves_hasher.reset();
        self.game.from_fen = tags.fen.is_some();
        if let Some(fen) = &tags.fen {
            self.hasher.update(fen.as_bytes());
            self.moves_hasher.update(fen.as_bytes());
        }
        let (w, w_missing) = self.selection.side_selected(header, Color::White);
        let (b, b_missing) = self.selection.side_selected(header, Color::Black);
        self.selected_side = [w, b];
        self.missing_rating = w_missing || b_missing;
        match self.start_position() {
            Ok(_) if !w && !b => {
                // Nothing of this game is wanted: its moves are not replayed (most of the cost
                // of reading a game), so a player's games are read out of a large file fast.
                // Its tags were checked (a variant, a bad FEN); its moves are not.
                self.game.key = 0;
                self.game.moves_key = 0;
                ControlFlow::Break(Err(if self.missing_rating {
                    SkipReason::MissingRating
                } else {
                    SkipReason::NotSelected
                }))
            }
            Ok(pos) => {
                self.pos = pos;
                ControlFlow::Continue(())
            }
            Err(reason) => {
                self.error = Some(reason);
                // Skip the movetext: there is nothing to replay it on.
                ControlFlow::Break(Err(reason))
            }
        }
    }

    fn san(&mut self, _: &mut (), san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if self.error.is_some() {
            return ControlFlow::Continue(());
        }
        let m = match san_plus.san.to_move(&self.pos) {
            Ok(m) => m,
            Err(e) => {
                let ply = self.game.plies;
                let number = ply / 2 + 1;
                let dots = if self.pos.turn() == Color::White {
                    "."
                } else {
                    "..."
                };
                self.fail(
                    SkipReason::IllegalMove,
                    format!("{number}{dots} {san_plus}: {e}"),
                );
                return ControlFlow::Continue(());
            }
        };
        let turn = self.pos.turn();
        if let Some(cm) = CaseMove::from_move(m, turn) {
            self.hasher.update(&cm.0.to_le_bytes());
            self.moves_hasher.update(&cm.0.to_le_bytes());
        }
        if self.game.plies >= self.selection.skip_plies
            && self.selected_side[usize::from(turn == Color::Black)]
        {
            self.game.selected.push(Mover {
                pos: self.pos.clone(),
                mv: m,
                ply: self.game.plies,
                last: self.last,
            });
        }
        if self.game.line.len() < LINE_PLIES {
            self.game.line.push(m);
        }
        self.last = Some(m);
        self.pos.play_unchecked(m);
        self.game.plies += 1;
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _: &mut (), comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        // After an illegal move the plies stop counting: the game's evaluations end there.
        let Some(ply) = (self.game.plies as usize).checked_sub(1) else {
            return ControlFlow::Continue(());
        };
        if self.error.is_some() {
            return ControlFlow::Continue(());
        }
        if let Some(eval) = parse_eval(comment.as_bytes()) {
            if self.game.evals.len() <= ply {
                self.game.evals.resize(ply + 1, None);
            }
            self.game.evals[ply] = eval;
        }
        if let Some(clock) = parse_clock(comment.as_bytes()) {
            if self.game.clocks.len() <= ply {
                self.game.clocks.resize(ply + 1, None);
            }
            self.game.clocks[ply] = Some(clock);
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, _: ()) -> Self::Output {
        self.game.key = self.hasher.digest();
        self.game.moves_key = self.moves_hasher.digest();
        if let Some(reason) = self.error {
            self.game.selected.clear();
            return Err(reason);
        }
        if self.game.selected.is_empty() {
            return Err(if self.missing_rating {
                SkipReason::MissingRating
            } else {
                SkipReason::NotSelected
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{GameVisitor, Selection, parse_eval};

    #[test]
    fn an_excluded_players_moves_are_never_selected_whatever_the_spelling() {
        let pgn =
            "[White \"Acct\"]\n[Black \"Opp\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n";
        let plies = |selection: Selection| {
            let mut reader = pgn_reader::Reader::new(pgn.as_bytes());
            let mut visitor = GameVisitor::new(selection);
            let _ = reader.read_game(&mut visitor).expect("reads");
            visitor
                .game()
                .selected
                .iter()
                .map(|m| m.ply)
                .collect::<Vec<u32>>()
        };
        assert_eq!(plies(Selection::default()), vec![0, 1, 2, 3]);
        let not_acct = Selection {
            excluded: vec!["acct".into()],
            ..Selection::default()
        };
        assert_eq!(plies(not_acct), vec![1, 3]);
    }

    #[test]
    fn evaluation_comments_parse_to_centipawns_or_mate() {
        assert_eq!(parse_eval(b" [%eval 0.24] "), Some(Some(24)));
        assert_eq!(parse_eval(b"[%clk 0:09:58] [%eval -1.5]"), Some(Some(-150)));
        assert_eq!(parse_eval(b" [%eval #-3] "), Some(None));
        assert_eq!(parse_eval(b" a good move "), None);
        assert_eq!(parse_eval(b" [%eval nonsense] "), None);
        assert_eq!(parse_eval(b" [%eval 0.3"), None);
        assert_eq!(parse_eval(b" [%eval 0.24,20] "), Some(Some(24)));
        assert_eq!(parse_eval(b" [%eval\t-0.5] "), Some(Some(-50)));
        assert_eq!(parse_eval(b" [%eval -1e300] "), None);
        assert_eq!(parse_eval(b" [%eval 150] "), None);
    }
}
