#![warn(missing_docs)]
//! Precedent: a chess engine that plays by case-based reasoning.
//!
//! The crate is the pipeline, one module a stage, each using only the stages before it:
//!
//! ```text
//! pgn ──► casebase ──► retrieve ──► reuse ──► revise ──► think  ──► uci
//! games    (position,   the k most   their moves  a tactical  one move,    the protocol
//!          move) cases  similar      made legal   check of    within a     GUIs speak
//!          on disk      cases        here, voted  the votes   clock
//! ```
//!
//! - [`pgn`] reads games (`.pgn`, `.pgn.zst`) as a stream of positions and moves.
//! - [`casebase`] builds a case base from them ([`casebase::build`]), stores it on disk and
//!   loads it ([`casebase::CaseBase`]).
//! - [`retrieve`] scans the case base for the cases most similar to a position (the
//!   similarity of docs/method.md on a case's bit planes, [`case::planes`]).
//! - [`reuse`] adapts each retrieved case's move to the most similar legal move here
//!   ([`reuse::adapt`](mod@reuse::adapt)) and lets the cases vote
//!   ([`reuse::reuse`](fn@reuse::reuse)).
//! - [`model`] gives every legal move a probability from what the cases and the search say of it
//!   (the move model the human styles and the levels play).
//! - [`revise`] checks the cases' proposals with the search.
//! - [`think`] runs the stages for one move within a time budget: the one runner,
//!   [`think::think`], its configuration, time management and explanations.
//! - [`uci`] speaks the Universal Chess Interface on stdin/stdout.
//!
//! [`case`] holds a case as the case base encodes it (its board's bit planes, its move in 16
//! bits), which the stages from [`pgn`] to [`reuse`] share; [`position`] the chess helpers every
//! stage shares (FEN, UCI moves); [`search`] the
//! alpha-beta search (evaluations, table, move ordering) the move model and revise use, and the
//! one [`search::Limits`] every stage reads; [`choice`] the one list of words of each setting
//! whose values are words.

pub mod case;
pub mod casebase;
pub mod choice;
pub mod model;
pub mod pgn;
pub mod player;
pub mod position;
pub mod retrieve;
pub mod reuse;
pub mod revise;
pub mod search;
pub mod think;
pub mod uci;
