//! Opening suites for matches: the end positions of PGN games (e.g. the 8-move books engine
//! testers use) or EPD/FEN lines.

use std::io::BufRead;

use pgn_reader::Reader;
use shakmaty::{Chess, Move, Position};

use crate::pgn::{GameVisitor, Selection, open_input};
use crate::position::{fen_of, parse_fen};

/// Where a game starts: a FEN and the moves played from it.
#[derive(Clone, Debug)]
pub struct Opening {
    /// Starting FEN (the standard initial position for PGN books).
    pub fen: String,
    /// Whether `fen` is the standard initial position.
    pub standard_start: bool,
    /// Moves of the opening, in order.
    pub moves: Vec<Move>,
    /// The position after the opening moves.
    pub position: Chess,
    /// A label for the PGN `Opening` tag.
    pub name: String,
}

impl Opening {
    /// The standard initial position, no moves.
    pub fn startpos() -> Opening {
        let pos = Chess::default();
        Opening {
            fen: fen_of(&pos),
            standard_start: true,
            moves: Vec::new(),
            position: pos,
            name: "startpos".into(),
        }
    }
}

/// Why an opening file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    #[error("{0}")]
    Input(#[from] crate::pgn::InputError),
    #[error("{file}: {reason}")]
    Bad { file: String, reason: String },
}

/// Loads openings from a `.pgn`/`.pgn.zst` (end positions of the games' main lines) or an
/// EPD/FEN file (one position a line). At most `limit` are read.
pub fn load(path: &str, limit: usize) -> Result<Vec<Opening>, OpeningError> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".epd") || lower.ends_with(".fen") {
        return load_epd(path, limit);
    }
    let input = open_input(path)?;
    let mut reader = Reader::new(input.reader);
    let mut visitor = GameVisitor::new(Selection::default());
    let mut out = Vec::new();
    while out.len() < limit {
        match reader.read_game(&mut visitor) {
            Ok(None) => break,
            Ok(Some(Ok(()))) => {
                let game = visitor.game();
                let Some(first) = game.selected.first() else {
                    continue;
                };
                let moves: Vec<Move> = game.selected.iter().map(|m| m.mv).collect();
                let mut position = first.pos.clone();
                for m in &moves {
                    position.play_unchecked(*m);
                }
                let name = if game.tags.event.is_empty() || game.tags.event == "?" {
                    format!("{} #{}", path, game.number)
                } else {
                    game.tags.event.clone()
                };
                out.push(Opening {
                    fen: fen_of(&first.pos),
                    standard_start: first.pos == Chess::default(),
                    moves,
                    position,
                    name,
                });
            }
            // Broken or empty games are not openings.
            Ok(Some(Err(_))) => {}
            Err(e) => {
                return Err(OpeningError::Bad {
                    file: path.to_string(),
                    reason: e.to_string(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(OpeningError::Bad {
            file: path.to_string(),
            reason: "no opening found".into(),
        });
    }
    Ok(out)
}

fn load_epd(path: &str, limit: usize) -> Result<Vec<Opening>, OpeningError> {
    let bad = |reason: String| OpeningError::Bad {
        file: path.to_string(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot open: {e}")))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| bad(format!("read error: {e}")))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        // EPD has four FEN fields and then operations; a FEN line has six.
        let fields: Vec<&str> = text.split_whitespace().collect();
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields[..6].join(" ")
        } else {
            fields.iter().take(4).copied().collect::<Vec<_>>().join(" ")
        };
        let pos = parse_fen(&fen).map_err(|e| bad(format!("line {}: {e}", i + 1)))?;
        out.push(Opening {
            fen: fen_of(&pos),
            standard_start: false,
            moves: Vec::new(),
            position: pos,
            name: format!("{} line {}", path, i + 1),
        });
        if out.len() >= limit {
            break;
        }
    }
    if out.is_empty() {
        return Err(bad("no opening found".into()));
    }
    Ok(out)
}
