#![warn(missing_docs)]
//! Precedent's lab: the tools that measure and tune the engine, beside it and never inside it.
//! Everything here uses the engine crate's public API; the engine does not know this crate.
//!
//! - [`eval`]: move-matching accuracy on held-out games (and [`epd`] test suites), with
//!   external engines ([`client`]) as baselines and judges.
//! - [`tournament`]: matches between Precedent configurations and UCI engines; [`rating`]
//!   fits Elo ratings; [`experiment`] answers the thesis' question with them.
//! - [`fit`]: the engine's numbers learnt from games (the move model's weights from held-out
//!   games, the evaluation, the network, the think-time model); [`frontier`] traces, from the
//!   move model's evidence, how a level's ways to err trade blunders against move-matching.
//! - [`positions`]: which positions of held-out games the commands read (the flags that select
//!   them, the sample, the held-out split); [`stats`]: rates, paired differences and rank
//!   correlation with their intervals, as every report gives them.
//! - [`scale`]: the people's scale: players rated against anchors from their games, and
//!   strength read from the moves, validated on engines of known rating.
//! - [`tune`]: the evolution strategy for the reasoner's numbers.
//! - [`mod@bench`]: the retrieval scan's and the search's speed.
//! - [`reasoner`]: the reasoner's settings as the workflows take them, flags derived from the
//!   engine's registry of settings.

pub mod bench;
pub mod client;
pub mod dossier;
pub mod epd;
pub mod eval;
pub mod experiment;
pub mod fit;
pub mod frontier;
pub mod players;
pub mod positions;
pub mod rating;
pub mod reasoner;
pub mod scale;
pub mod sidebyside;
pub mod stats;
pub mod tournament;
pub mod tune;
pub mod who;

/// Where a long lab task reports how far it has come. The lab never draws anything itself: the
/// command line implements this with a progress bar, tests and library users with [`Silent`].
pub trait Progress: Sync {
    /// The task has `total` steps.
    fn start(&self, _total: u64) {}
    /// `steps` more are done.
    fn advance(&self, _steps: u64) {}
    /// A short status (e.g. the running score).
    fn status(&self, _message: &str) {}
    /// A line worth keeping (e.g. a failure), printed above the bar.
    fn note(&self, _line: &str) {}
    /// The task is over.
    fn finish(&self) {}
}

/// Progress reports that go nowhere.
pub struct Silent;

impl Progress for Silent {}
