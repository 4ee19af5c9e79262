//! The people's scale: where people of a rating stand on an engine scale. Two instruments:
//! [`games`], a player's rating from its games against anchors of known rating (the human
//! anchor, maia1, against Stockfish's `UCI_Elo`); and [`moves`], strength read from how much a
//! run's moves give away by the judge, validated by how well it orders engines whose game
//! ratings are known, and the people of each band placed on the same line; and [`pools`],
//! how one person's ratings differ between Lichess's pools (bullet, blitz, rapid); and
//! [`errors`], how a run errs beside the people of its band, by phase.

pub mod errors;
pub mod games;
pub mod moves;
pub mod pools;
mod run;

pub use run::{
    ErrorsArgs, GamesArgs, MovesArgs, PoolsArgs, ScaleArgs, ScaleCommand, ScaleReport, run,
};

/// Why the scale could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// A game file could not be read.
    #[error(transparent)]
    Input(#[from] precedent::pgn::InputError),
    /// An outcome file could not be read.
    #[error(transparent)]
    Outcomes(#[from] crate::eval::EvalError),
    /// An anchor is not `NAME=ELO` or `NAME=ELO±SE`.
    #[error("anchor {0:?}: expected NAME=ELO or NAME=ELO±SE (e.g. sf1350=1350, level1400=1365±34)")]
    BadAnchor(String),
    /// A run is not `LABEL=PATH`.
    #[error("run {0:?}: expected LABEL=PATH (an outcomes file, or a folder of them)")]
    BadRun(String),
    /// A game rating names no run.
    #[error("--elo {0:?}: no run is labelled so")]
    UnknownRun(String),
    /// A folder of outcome files held none.
    #[error("{0}: no .jsonl outcome file in it")]
    EmptyFolder(String),
    /// No run was given.
    #[error("no runs")]
    NoRuns,
    /// Two runs are not on the same positions.
    #[error(
        "{run} is not on {first}'s positions: {detail} (the same eval sample: --pgn, filters, --positions, --seed)"
    )]
    NotTheSamePositions {
        /// The run that differs.
        run: String,
        /// The first run.
        first: String,
        /// Where.
        detail: String,
    },
    /// A run's position was not judged.
    #[error("{run}: position {position} has no judge's loss or value (run eval with --judge)")]
    NotJudged {
        /// The run.
        run: String,
        /// The position, from 1.
        position: usize,
    },
    /// Too few runs with a game rating to place a line.
    #[error("{0} runs with a game rating (--elo): at least 3 place the line")]
    TooFewRated(usize),
    /// The rated runs' losses do not differ.
    #[error("the rated runs' losses do not differ: no line can be fitted")]
    NoLine,
    /// `--pool` fixes the scale with one anchor.
    #[error("--pool rates every player against one fixed anchor; {0} given")]
    PoolAnchor(usize),
    /// A band is not `LABEL=LOW`.
    #[error("--band {0:?}: expected LABEL=LOW, the band's lowest rating (e.g. level1400=1400)")]
    BadBand(String),
    /// A run has no judged position (in its band).
    #[error("{run}: no judged position with a mover rated in band {band} (run eval with --judge)")]
    NoneJudged {
        /// The run.
        run: String,
        /// Its band.
        band: String,
    },
    /// No player in the games met an anchor.
    #[error("no game between a player and an anchor ({0})")]
    NoGames(String),
}
