//! Opening suites for matches: the end positions of PGN games (e.g. the 8-move books engine
//! testers use) or EPD/FEN lines.

use std::io::BufRead;

use pgn_reader::Reader;
use shakmaty::{Chess, Move, Position};

use precedent::pgn::{GameVisitor, Selection, open_input};
use precedent::position::{Game, fen_of, parse_fen};

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

    /// The opening as a game: its position and last move, and the positions a repetition could
    /// return to. Every constructor derives `fen` from a parsed position, so it parses; were it
    /// not to, the game would start from the position alone.
    pub fn game(&self) -> Game {
        match parse_fen(&self.fen) {
            Ok(start) => Game::replay(start, &self.moves),
            Err(_) => Game::new(self.position.clone()),
        }
    }
}

/// Why an opening file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    /// A PGN file could not be opened or read.
    #[error("{0}")]
    Input(#[from] precedent::pgn::InputError),
    /// The file cannot be used: unreadable, a malformed line or game, or no opening in it.
    #[error("{file}: {reason}")]
    Bad {
        /// The opening file's path.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
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
                let name = if game.header.event.is_empty() || game.header.event == "?" {
                    format!("{} #{}", path, game.number)
                } else {
                    game.header.event.clone()
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

/// The Chess960 start position with Scharnagl number `n` (0–959; 518 is the standard one).
pub fn chess960(n: u32) -> Opening {
    let n = n % 960;
    let mut rank: [Option<char>; 8] = [None; 8];
    let mut rest = n;
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[(2 * (rest % 4) + 1) as usize] = Some('B');
    rest /= 4;
    rank[(2 * (rest % 4)) as usize] = Some('B');
    rest /= 4;
    let put = |rank: &mut [Option<char>; 8], mut index: u32, piece: char| {
        for square in rank.iter_mut() {
            if square.is_none() {
                if index == 0 {
                    *square = Some(piece);
                    return;
                }
                index -= 1;
            }
        }
    };
    put(&mut rank, rest % 6, 'Q');
    rest /= 6;
    // The ten ways to place two knights on the five squares left, in Scharnagl's order.
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[rest as usize];
    // The second knight's index counts the squares left after the first is placed.
    put(&mut rank, a, 'N');
    put(&mut rank, b - 1, 'N');
    for piece in ['R', 'K', 'R'] {
        put(&mut rank, 0, piece);
    }
    let white: String = rank.iter().map(|p| p.unwrap_or('R')).collect();
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1",
        white.to_ascii_lowercase()
    );
    let position = parse_fen(&fen).unwrap_or_default();
    Opening {
        fen: fen_of(&position),
        standard_start: n == 518,
        moves: Vec::new(),
        position,
        name: format!("Chess960 #{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scharnagl_numbers_give_the_known_start_positions() {
        // Reference values from Scharnagl's table.
        assert_eq!(chess960(518).position, Chess::default());
        assert!(
            chess960(0).fen.starts_with("bbqnnrkr/"),
            "{}",
            chess960(0).fen
        );
        assert!(
            chess960(959).fen.starts_with("rkrnnqbb/"),
            "{}",
            chess960(959).fen
        );
        assert!(
            chess960(100).fen.starts_with("qbbnrnkr/"),
            "{}",
            chess960(100).fen
        );
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let o = chess960(n);
            assert!(seen.insert(o.fen.clone()), "{n} repeats {}", o.fen);
            // Castling both ways is possible in principle: the king stands between its rooks.
            let back: Vec<char> = o.fen.split('/').nth(7).expect("rank 1").chars().collect();
            let king = back.iter().position(|&c| c == 'K').expect("king");
            let rooks: Vec<usize> = (0..8).filter(|&i| back[i] == 'R').collect();
            assert!(rooks[0] < king && king < rooks[1], "{n}: {}", o.fen);
            // Both castling rights survive the FEN round trip.
            let rights = o.position.castles().castling_rights();
            assert_eq!(rights.count(), 4, "{n}: {}", o.fen);
        }
    }
}
