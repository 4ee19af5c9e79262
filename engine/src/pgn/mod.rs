//! Reading games: PGN inputs (plain, `.pgn.zst`, stdin) streamed through pgn-reader, and the
//! visitor that replays each game with shakmaty and keeps the positions a caller selected.

mod clock;
mod header;
mod input;
mod visitor;

pub use clock::{MoveClock, Speed, TimeControl};
pub use header::{GameHeader, GameResult};
pub use input::{Input, InputError, open_input};
pub use visitor::{GameVisitor, LINE_PLIES, Mover, ParsedGame, Selection, SkipReason};

/// Reads every game of the input `name` through one visitor, calling `each` with the game's
/// outcome (a game the PGN reader cannot parse is `Err(SkipReason::MalformedPgn)`), the visitor
/// holding it and the bytes of the input read so far, until the input ends or `each` answers
/// `false`. A read error of the input itself ends it with that error.
pub fn for_each_game<E: From<InputError>>(
    name: &str,
    selection: &Selection,
    mut each: impl FnMut(Result<(), SkipReason>, &mut GameVisitor, u64) -> Result<bool, E>,
) -> Result<(), E> {
    let input = open_input(name)?;
    let state = input.state.clone();
    let mut reader = pgn_reader::Reader::new(input.reader);
    let mut visitor = GameVisitor::new(selection.clone());
    loop {
        let outcome = match reader.read_game(&mut visitor) {
            Ok(None) => return Ok(()),
            Ok(Some(outcome)) => outcome,
            Err(source) if state.failed() => {
                return Err(InputError::Read {
                    name: name.to_string(),
                    offset: state.bytes(),
                    source,
                }
                .into());
            }
            Err(_) => Err(SkipReason::MalformedPgn),
        };
        if !each(outcome, &mut visitor, state.bytes())? {
            return Ok(());
        }
    }
}

/// The games of PGN `text` (pasted or uploaded, not a file), at most `max_games`, every move
/// of both sides selected: each game as read, or why it could not be (one line naming the
/// game's number and the reason).
pub fn games_in_text(text: &str, max_games: usize) -> Vec<Result<ParsedGame, String>> {
    let mut reader = pgn_reader::Reader::new(text.as_bytes());
    let mut visitor = GameVisitor::new(Selection::default());
    let mut games = Vec::new();
    while games.len() < max_games {
        let outcome = match reader.read_game(&mut visitor) {
            Ok(None) => break,
            Ok(Some(outcome)) => outcome,
            Err(_) => Err(SkipReason::MalformedPgn),
        };
        let number = games.len() + 1;
        // A malformed game's text may leave the reader anywhere: nothing after it is trusted.
        let malformed = outcome == Err(SkipReason::MalformedPgn);
        games.push(match outcome {
            Ok(()) => Ok(visitor.game().clone()),
            Err(reason) => {
                let detail = &visitor.game().detail;
                Err(if detail.is_empty() {
                    format!("game {number}: {}", reason.as_str())
                } else {
                    format!("game {number}: {}: {detail}", reason.as_str())
                })
            }
        });
        if malformed {
            break;
        }
    }
    games
}

#[cfg(test)]
mod text_tests {
    use super::games_in_text;

    #[test]
    fn pasted_games_are_read_and_broken_ones_named() {
        let text = "[White \"a\"]\n[Black \"b\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
                    [White \"c\"]\n\n1. e4 e5 2. Ke3 *\n";
        let games = games_in_text(text, 10);
        assert_eq!(games.len(), 2);
        let first = games[0].as_ref().expect("first game");
        assert_eq!(first.selected.len(), 4);
        assert_eq!(first.header.player(shakmaty::Color::White), "a");
        let second = games[1].as_ref().expect_err("illegal move");
        assert!(second.starts_with("game 2: illegal move"), "{second}");
        assert!(games_in_text("", 10).is_empty());
        assert_eq!(games_in_text(text, 1).len(), 1);
        // Movetext alone, without tags, is a game.
        let bare = games_in_text("1. d4 d5 2. c4", 10);
        assert_eq!(bare[0].as_ref().expect("bare").selected.len(), 3);
    }
}
