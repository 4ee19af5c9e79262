//! Setting up positions from user input: FEN strings and UCI move lists, with errors that say
//! exactly what was wrong.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

/// A position that could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The FEN does not parse.
    #[error("invalid FEN {fen:?}: {reason}")]
    BadFen {
        /// The FEN as given (trimmed).
        fen: String,
        /// What the FEN parser objected to.
        reason: String,
    },
    /// The FEN parses but is not a legal position.
    #[error("illegal position in FEN {fen:?}: {reason}")]
    IllegalFen {
        /// The FEN as given (trimmed).
        fen: String,
        /// Why the position is illegal (as standard chess).
        reason: String,
    },
    /// A move is malformed or illegal.
    #[error("move {number} ({uci}) is {what} in position {fen}")]
    BadMove {
        /// Position of the move in the list (1-based).
        number: usize,
        /// The move as given.
        uci: String,
        /// What is wrong with it: `not a UCI move` or `illegal`.
        what: &'static str,
        /// FEN of the position the move was played in.
        fen: String,
    },
}

/// A move in short algebraic notation (`Nf3`, `exd5`, `O-O`), in `pos`.
pub fn san(pos: &Chess, m: Move) -> String {
    shakmaty::san::San::from_move(pos, m).to_string()
}

/// Parses a FEN (4 to 6 fields) into a legal position. Standard castling is tried first, then
/// Chess960 (Shredder/X-FEN castling rights).
pub fn parse_fen(fen: &str) -> Result<Chess, PositionError> {
    let fen = fen.trim();
    let fields = fen.split_whitespace().count();
    if !(4..=6).contains(&fields) {
        return Err(PositionError::BadFen {
            fen: fen.to_string(),
            reason: format!("expected 4 to 6 fields, found {fields}"),
        });
    }
    let parsed: Fen =
        fen.parse()
            .map_err(|e: shakmaty::fen::ParseFenError| PositionError::BadFen {
                fen: fen.to_string(),
                reason: e.to_string(),
            })?;
    match parsed
        .clone()
        .into_position::<Chess>(CastlingMode::Standard)
    {
        Ok(pos) => Ok(pos),
        Err(standard) => {
            parsed
                .into_position(CastlingMode::Chess960)
                .map_err(|_| PositionError::IllegalFen {
                    fen: fen.to_string(),
                    reason: standard.to_string(),
                })
        }
    }
}

/// A position and the move that led to it: what the engine is asked to move in. The move model
/// reads the last move (a recapture, an escape), and the ply tells the stage of the game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    /// The position to move in.
    pub position: Chess,
    /// The move just played, if known (not for a position set up from a FEN alone).
    pub last_move: Option<Move>,
    /// Zobrist keys of the positions before this one since the last capture or pawn move, oldest
    /// first (empty when set up from a FEN alone): the search scores a return to one as a draw.
    pub history: Vec<u64>,
}

impl Game {
    /// A position with no known last move.
    pub fn new(position: Chess) -> Game {
        Game {
            position,
            last_move: None,
            history: Vec::new(),
        }
    }

    /// The game reached from `start` by `moves` (legal, as from a game record).
    pub fn replay(start: Chess, moves: &[Move]) -> Game {
        let mut game = Game::new(start);
        for m in moves {
            game.play(*m);
        }
        game
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) {
        if m.is_zeroing() {
            // No position before a capture or a pawn move can occur again.
            self.history.clear();
        } else {
            self.history.push(key(&self.position));
        }
        self.position.play_unchecked(m);
        self.last_move = Some(m);
    }

    /// Plies played before this position, from the FEN move counter (0 = White's first move).
    pub fn ply(&self) -> u32 {
        ply_of(&self.position)
    }
}

/// Plies played before `pos`, from its FEN move counter (0 = White's first move).
pub fn ply_of(pos: &Chess) -> u32 {
    (pos.fullmoves().get() - 1) * 2 + u32::from(pos.turn() == Color::Black)
}

/// Plays UCI moves (`e2e4`, `e7e8q`; castling as `e1g1` or king-takes-rook `e1h1`) from `pos`.
pub fn play_moves<S: AsRef<str>>(pos: Chess, moves: &[S]) -> Result<Chess, PositionError> {
    play_line(pos, moves).map(|g| g.position)
}

/// Plays UCI moves from `pos`, keeping the last one and the positions a repetition could return to.
pub fn play_line<S: AsRef<str>>(pos: Chess, moves: &[S]) -> Result<Game, PositionError> {
    let mut game = Game::new(pos);
    for (i, m) in moves.iter().enumerate() {
        let text = m.as_ref();
        let bad = |what, pos: &Chess| PositionError::BadMove {
            number: i + 1,
            uci: text.to_string(),
            what,
            fen: Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string(),
        };
        let pos = &game.position;
        let parsed =
            UciMove::from_ascii(text.as_bytes()).map_err(|_| bad("not a UCI move", pos))?;
        let legal = parsed.to_move(pos).ok().filter(|mv| pos.is_legal(*mv));
        let mv = legal.ok_or_else(|| bad("illegal", pos))?;
        game.play(mv);
    }
    Ok(game)
}

/// The Zobrist key of a position, as the search computes it.
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<shakmaty::zobrist::Zobrist64>(shakmaty::EnPassantMode::Legal)
        .0
}

/// FEN of a position.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_keeps_the_positions_since_the_last_capture_or_pawn_move() {
        let start = Chess::default();
        let game = play_line(start.clone(), &["g1f3", "g8f6", "f3g1"]).expect("legal");
        let keys: Vec<u64> = ["", "g1f3", "g1f3 g8f6"]
            .iter()
            .map(|line| {
                let moves: Vec<&str> = line.split_whitespace().collect();
                key(&play_moves(start.clone(), &moves).expect("legal"))
            })
            .collect();
        assert_eq!(game.history, keys);
        // A pawn move: no earlier position can come back.
        let game = play_line(start, &["g1f3", "g8f6", "e2e4", "f6g8"]).expect("legal");
        assert_eq!(game.history.len(), 1);
        assert_eq!(game.last_move.map(|m| m.to_string()), Some("Nf6-g8".into()));
    }

    #[test]
    fn rejects_fen_with_two_white_kings() {
        let e = parse_fen("4k3/8/8/8/8/8/8/3KK3 w - - 0 1").expect_err("two kings");
        assert!(matches!(e, PositionError::IllegalFen { .. }), "{e}");
    }

    #[test]
    fn rejects_fen_where_the_side_not_to_move_is_in_check() {
        let e = parse_fen("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1").expect_err("opponent in check");
        assert!(e.to_string().contains("illegal position"), "{e}");
    }

    #[test]
    fn rejects_fen_with_a_bad_field_count_or_garbage() {
        for fen in [
            "",
            "8/8/8",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
            "xyz w - - 0 1",
        ] {
            assert!(parse_fen(fen).is_err(), "{fen:?} accepted");
        }
    }

    #[test]
    fn accepts_four_field_and_chess960_fens() {
        assert!(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").is_ok());
        assert!(
            parse_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").is_ok()
        );
    }

    #[test]
    fn plays_both_castling_notations() {
        let start = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("fen");
        let a = play_moves(start.clone(), &["e1g1"]).expect("e1g1");
        let b = play_moves(start, &["e1h1"]).expect("e1h1");
        assert_eq!(fen_of(&a), fen_of(&b));
    }

    #[test]
    fn names_the_illegal_move_and_its_number() {
        let e = play_moves(Chess::default(), &["e2e4", "e7e5", "e1e3"]).expect_err("illegal");
        assert!(e.to_string().starts_with("move 3 (e1e3) is illegal"), "{e}");
        let e = play_moves(Chess::default(), &["zz"]).expect_err("garbage");
        assert!(e.to_string().contains("not a UCI move"), "{e}");
    }
}

/// The legal moves of `pos`, limited to `allowed` (UCI `searchmoves`) when at least one of them
/// is legal; a list with no legal move in it is ignored rather than leaving nothing to play.
pub(crate) fn legal_moves_within(
    pos: &Chess,
    allowed: Option<&[shakmaty::Move]>,
) -> Vec<shakmaty::Move> {
    let legal: Vec<shakmaty::Move> = pos.legal_moves().into_iter().collect();
    match allowed {
        Some(a) if legal.iter().any(|m| a.contains(m)) => {
            legal.into_iter().filter(|m| a.contains(m)).collect()
        }
        _ => legal,
    }
}

#[cfg(test)]
mod searchmoves_tests {
    use super::*;

    #[test]
    fn searchmoves_restrict_unless_none_of_them_is_legal() {
        let pos = Chess::default();
        let allowed: Vec<shakmaty::Move> = ["e2e4", "g1f3"]
            .iter()
            .map(|u| {
                UciMove::from_ascii(u.as_bytes())
                    .expect("uci")
                    .to_move(&pos)
                    .expect("legal")
            })
            .collect();
        assert_eq!(legal_moves_within(&pos, Some(&allowed)), allowed);
        assert_eq!(legal_moves_within(&pos, None).len(), 20);
        assert_eq!(legal_moves_within(&pos, Some(&[])).len(), 20);
    }
}
