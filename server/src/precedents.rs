//! The precedents of a move as the page shows them: each case with the position it remembers
//! (as it stood in its game), the squares where that position differs from the board, and
//! where to open its game; and a case's game replayed from the case base.

use precedent::casebase::CaseBase;
use precedent::reuse::CaseRef;
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, Square};

/// A case base the server names in its links: the generic one, or a player file by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseId {
    /// The generic case base.
    Generic,
    /// The player file of this index.
    Player(usize),
}

impl BaseId {
    /// As a path segment: `generic`, `player0`, `player1`, …
    pub fn segment(self) -> String {
        match self {
            BaseId::Generic => "generic".into(),
            BaseId::Player(i) => format!("player{i}"),
        }
    }

    /// The case base a path segment names, if it is one.
    pub fn parse(text: &str) -> Option<BaseId> {
        if text == "generic" {
            return Some(BaseId::Generic);
        }
        text.strip_prefix("player")?
            .parse()
            .ok()
            .map(BaseId::Player)
    }
}

/// A precedent: a case that took part, with what the page draws of it.
#[derive(Clone, Debug, Serialize)]
pub struct Precedent {
    /// The case, its game and how near it is.
    #[serde(flatten)]
    pub case: CaseRef,
    /// The case base it is in (`generic`, `player0`, …), for its game's link.
    pub base: String,
    /// The position it remembers, as it stood in its game (FEN).
    pub fen: Option<String>,
    /// The move played there, in that position (UCI; `move` is it as adapted to the board's
    /// orientation).
    pub played: Option<String>,
    /// The squares of that position whose pieces differ from the board's (a case of the other
    /// colour is compared with the board mirrored, as retrieval compares them).
    pub differs: Vec<String>,
}

/// The precedents of `cases` (of case base `cb`, named `base`) against the position `here`.
pub fn precedents(cases: &[CaseRef], cb: &CaseBase, base: BaseId, here: &Chess) -> Vec<Precedent> {
    cases
        .iter()
        .map(|c| {
            let at = cb.case_position(c.index);
            let differs = at.as_ref().map_or_else(Vec::new, |(pos, _)| {
                // The board in the case's frame: mirrored when the case's mover is the other
                // colour.
                let mut board = here.board().clone();
                if pos.turn() != here.turn() {
                    board.mirror();
                }
                Square::ALL
                    .into_iter()
                    .filter(|&sq| pos.board().piece_at(sq) != board.piece_at(sq))
                    .map(|sq| sq.to_string())
                    .collect()
            });
            Precedent {
                case: c.clone(),
                base: base.segment(),
                played: at
                    .as_ref()
                    .map(|(_, m)| m.to_uci(CastlingMode::Standard).to_string()),
                fen: at.map(|(pos, _)| Fen::from_position(&pos, EnPassantMode::Legal).to_string()),
                differs,
            }
        })
        .collect()
}

/// A case's game as the page opens it.
#[derive(Debug, Serialize)]
pub struct CaseGame {
    /// Its tags.
    #[serde(flatten)]
    pub header: precedent::pgn::GameHeader,
    /// The moves its cases replay, in UCI notation.
    pub moves: Vec<String>,
    /// The same in SAN.
    pub san: Vec<String>,
    /// Whether they are the whole game as far as its cases go.
    pub complete: bool,
    /// As PGN.
    pub pgn: String,
}

/// Game `game` of `cb`, replayed from its cases; `None` when it has none.
pub fn case_game(cb: &CaseBase, game: u32) -> Option<CaseGame> {
    let header = cb.game(game)?;
    let replayed = cb.replay(game);
    if replayed.moves.is_empty() {
        return None;
    }
    let mut pos = Chess::default();
    let (mut moves, mut san) = (Vec::new(), Vec::new());
    for m in &replayed.moves {
        moves.push(m.to_uci(CastlingMode::Standard).to_string());
        san.push(San::from_move(&pos, *m).to_string());
        pos.play_unchecked(*m);
    }
    let result = if replayed.complete {
        header.result.as_pgn()
    } else {
        "*"
    };
    let tag = pgn_tag;
    let mut pgn = String::new();
    pgn.push_str(&tag("Event", &header.event));
    pgn.push_str(&tag("Site", &header.site));
    pgn.push_str(&tag("Date", &header.date));
    pgn.push_str(&tag("White", &header.white));
    pgn.push_str(&tag("Black", &header.black));
    if let Some(e) = header.white_elo {
        pgn.push_str(&tag("WhiteElo", &e.to_string()));
    }
    if let Some(e) = header.black_elo {
        pgn.push_str(&tag("BlackElo", &e.to_string()));
    }
    pgn.push_str(&tag("Result", result));
    pgn.push('\n');
    pgn.push_str(&movetext(&san, result));
    Some(CaseGame {
        header,
        moves,
        san,
        complete: replayed.complete,
        pgn,
    })
}

/// A PGN tag line (a `"` in the value written as `'`).
pub fn pgn_tag(name: &str, value: &str) -> String {
    format!("[{name} \"{}\"]\n", value.replace(['"', '\\'], "'"))
}

/// Numbered movetext of `san` from the initial position, ending with `result`.
pub fn movetext(san: &[String], result: &str) -> String {
    let mut text = String::new();
    for (i, s) in san.iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(s);
        text.push(' ');
    }
    text.push_str(result);
    text.push('\n');
    text
}
