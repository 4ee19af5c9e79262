//! Reading games: PGN inputs (plain, `.pgn.zst`, stdin) streamed through pgn-reader, and the
//! visitor that replays each game with shakmaty and keeps the positions a caller selected.

mod header;
mod input;
mod visitor;

pub use header::{GameHeader, GameResult};
pub use input::{Input, InputError, open_input};
pub use visitor::{GameVisitor, Mover, ParsedGame, Selection, SkipReason};
