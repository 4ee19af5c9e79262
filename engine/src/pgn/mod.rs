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
