//! When to stop: the one set of limits every stage reads.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use shakmaty::Move;

use super::RootResult;

/// Deepest iteration any search goes to when nothing else ends it sooner.
pub const MAX_DEPTH: u32 = 64;

/// When a move must be ready and what may be played: from the clock and UCI `go`, read by every
/// stage (the retrieval scan, the search, the candidates' checks).
#[derive(Clone, Copy, Default)]
pub struct Limits<'a> {
    /// The move is due at this instant: everything stops there (`None`: no clock).
    pub deadline: Option<Instant>,
    /// When the move should be ready, if the clock leaves a choice: no search iteration starts
    /// after it (the `best` style scales it by how settled its search is).
    pub optimum: Option<Instant>,
    /// Stop as soon as possible when set (UCI `stop`).
    pub stop: Option<&'a AtomicBool>,
    /// Consider only these moves (UCI `searchmoves`).
    pub moves: Option<&'a [Move]>,
    /// Deepest search iteration (UCI `go depth`).
    pub max_depth: Option<u32>,
    /// Search node limit (UCI `go nodes`).
    pub max_nodes: Option<u64>,
    /// How many principal lines the `best` style's search keeps exact (UCI `MultiPV`; 0 or 1:
    /// one).
    pub multipv: usize,
    /// Called after every completed search iteration (UCI prints it as analysis).
    pub progress: Option<&'a (dyn Fn(&RootResult) + Sync)>,
}

impl Limits<'_> {
    /// The deepest iteration under these limits and a configuration's `cap` (at least 1).
    pub fn depth(&self, cap: u32) -> u32 {
        self.max_depth.unwrap_or(cap).min(cap).max(1)
    }

    /// Whether nothing but the depth cap would end a search: no clock, no node limit, no way to
    /// stop it.
    pub fn unbounded(&self) -> bool {
        self.deadline.is_none()
            && self.max_depth.is_none()
            && self.max_nodes.is_none()
            && self.stop.is_none()
    }
}
