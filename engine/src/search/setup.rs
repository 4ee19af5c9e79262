//! What a search is set up with for a whole move: the evaluation (the user's [`Evaluation`]
//! choice, decided into [`Setup::network`]), the game before the root, the depth the
//! configuration allows.

use super::MAX_DEPTH;

/// What a search evaluates with and which game it is in (not limits: they hold for the whole
/// move).
#[derive(Clone, Copy)]
pub struct Setup<'a> {
    /// Evaluate with the network ([`super::nnue`]) rather than the hand-made evaluation.
    pub network: bool,
    /// Keys of the game's positions before the root that a repetition could return to
    /// ([`crate::position::Game::history`]); a return to one scores as a draw.
    pub history: &'a [u64],
    /// Deepest iteration the configuration allows (the limits may ask for less).
    pub max_depth: u32,
}

impl Default for Setup<'_> {
    /// The hand-made evaluation, no game before the root, [`MAX_DEPTH`].
    fn default() -> Self {
        Setup {
            network: false,
            history: &[],
            max_depth: MAX_DEPTH,
        }
    }
}

/// The search's static evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Evaluation {
    /// The network, except for a level that names the evaluation it was fitted and calibrated
    /// on.
    #[default]
    Auto,
    /// The network ([`super::nnue`], the embedded `nets/default.nnue`) everywhere.
    Network,
    /// The hand-made evaluation ([`super::evaluate()`]) everywhere.
    Classic,
}

crate::choice::choice!(Evaluation, "evaluation", [
    Auto => "auto",
    Network => "network",
    Classic => "classic",
]);

impl Evaluation {
    /// Whether the search uses the network.
    pub fn network(self) -> bool {
        match self {
            Evaluation::Auto | Evaluation::Network => true,
            Evaluation::Classic => false,
        }
    }
}
