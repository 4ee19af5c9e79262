//! Precedent: a chess engine that plays by case-based reasoning.
//!
//! The pipeline, one module a stage: [`pgn`] reads games, [`build`] turns their moves into a
//! [`casebase`] of (position, move) cases over [`board`] bit planes; [`retrieve`] finds the
//! cases most similar to the position on the board, [`adapt`] turns their moves into legal moves
//! here and lets them vote, and [`reasoner`] ties the two into a [`reasoner::Decision`].

pub mod adapt;
pub mod bench;
pub mod board;
pub mod build;
pub mod casebase;
pub mod client;
pub mod epd;
pub mod eval;
pub mod experiment;
pub mod pgn;
pub mod position;
pub mod rating;
pub mod reasoner;
pub mod retrieve;
pub mod revise;
pub mod stats;
pub mod think;
pub mod timeman;
pub mod tournament;
pub mod tune;
pub mod uci;
