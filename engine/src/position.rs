//! Setting up positions from user input: FEN strings and UCI move lists, with errors that say
//! exactly what was wrong.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// A position that could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The FEN does not parse.
    #[error("invalid FEN {fen:?}: {reason}")]
    BadFen { fen: String, reason: String },
    /// The FEN parses but is not a legal position.
    #[error("illegal position in FEN {fen:?}: {reason}")]
    IllegalFen { fen: String, reason: String },
    /// A move is malformed or illegal.
    #[error("move {number} ({uci}) is {what} in position {fen}")]
    BadMove {
        number: usize,
        uci: String,
        what: &'static str,
        fen: String,
    },
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

/// Plays UCI moves (`e2e4`, `e7e8q`; castling as `e1g1` or king-takes-rook `e1h1`) from `pos`.
pub fn play_moves<S: AsRef<str>>(mut pos: Chess, moves: &[S]) -> Result<Chess, PositionError> {
    for (i, m) in moves.iter().enumerate() {
        let text = m.as_ref();
        let bad = |what, pos: &Chess| PositionError::BadMove {
            number: i + 1,
            uci: text.to_string(),
            what,
            fen: Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string(),
        };
        let parsed =
            UciMove::from_ascii(text.as_bytes()).map_err(|_| bad("not a UCI move", &pos))?;
        let legal = parsed.to_move(&pos).ok().filter(|mv| pos.is_legal(*mv));
        let mv = legal.ok_or_else(|| bad("illegal", &pos))?;
        pos.play_unchecked(mv);
    }
    Ok(pos)
}

/// FEN of a position.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
pub fn legal_moves_within(pos: &Chess, allowed: Option<&[shakmaty::Move]>) -> Vec<shakmaty::Move> {
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
