//! `precedent fit`: the engine's numbers learnt from games, one command each.
//!
//! - [`moves`]: the move model's weights, by maximum likelihood on held-out games.
//! - [`eval`]: the verifier's evaluation, fitted to Stockfish's evaluations of analysed games.
//! - [`net`]: the search's network evaluation, trained on analysed games.
//! - [`time`]: the human think-time model, fitted on clocked games.
//!
//! [`quiet`] is what the two evaluation fits share: the positions they read and the expected
//! score they fit.

pub mod eval;
pub mod moves;
pub mod net;
pub mod quiet;
pub mod time;
