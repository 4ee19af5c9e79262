//! Thinking about a move: retrieve and adapt (the reasoner), then revise (the verifier), within
//! one time budget. Retrieval answers first; the search gets the rest of the time, so a move is
//! always ready, under any clock.

pub mod config;
pub mod explain;
pub mod timeman;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Move};

use crate::adapt::reuse::{Decision, NoLegalMove, ReuseLimits, expected_to_cp, reuse};
use crate::casebase::CaseBase;
use crate::engine::config::EngineConfig;
use crate::revise::search::mate_in;
use crate::revise::tt::TranspositionTable;
use crate::revise::{ReviseLimits, Revised, revise};

/// Search depth when a caller gives no limit of any kind.
pub const UNLIMITED_DEPTH: u32 = 6;

/// Share of the budget the retrieval scan may use before the search starts.
pub const RETRIEVAL_SHARE: f64 = 0.4;

/// When a move must be ready.
#[derive(Clone, Copy, Default)]
pub struct ThinkLimits<'a> {
    /// The move is due at this instant (`None`: no clock).
    pub deadline: Option<Instant>,
    /// Stop as soon as possible when set (UCI `stop`).
    pub stop: Option<&'a AtomicBool>,
    /// Consider only these moves (UCI `searchmoves`).
    pub moves: Option<&'a [Move]>,
    /// Deepest search iteration (UCI `go depth`).
    pub max_depth: Option<u32>,
    /// Search node limit (UCI `go nodes`).
    pub max_nodes: Option<u64>,
    /// Called after every completed search iteration.
    pub progress: Option<&'a (dyn Fn(&crate::revise::search::RootResult) + Sync)>,
}

/// An engine score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum EngineScore {
    /// Centipawns from the side to move.
    Cp(i32),
    /// Mate in N moves (negative: mated).
    Mate(i32),
}

impl EngineScore {
    /// UCI form: `cp 35` or `mate -2`.
    pub fn uci(&self) -> String {
        match self {
            EngineScore::Cp(cp) => format!("cp {cp}"),
            EngineScore::Mate(n) => format!("mate {n}"),
        }
    }

    /// From a search value.
    pub fn from_value(v: i32) -> EngineScore {
        match mate_in(v) {
            Some(n) => EngineScore::Mate(n),
            None => EngineScore::Cp(v),
        }
    }
}

/// A move, with everything that led to it.
#[derive(Clone, Debug)]
pub struct Thought {
    /// The cases' proposal.
    pub decision: Decision,
    /// The verifier's verdict (`None` when revise is off or had no time).
    pub revised: Option<Revised>,
    /// The move to play.
    pub mv: Move,
    /// It in UCI notation.
    pub bestmove: String,
    /// The score: the verifier's value, or the cases' expected result.
    pub score: EngineScore,
    /// Time taken.
    pub elapsed: Duration,
}

/// Thinks about `pos`; the revise search uses (and fills) `tt`.
pub fn think(
    cb: &CaseBase,
    pos: &Chess,
    cfg: &EngineConfig,
    limits: ThinkLimits<'_>,
    castling: CastlingMode,
    tt: &mut TranspositionTable,
) -> Result<Thought, NoLegalMove> {
    let started = Instant::now();
    let revising = cfg.revise.enabled;
    let retrieval_deadline = match limits.deadline {
        Some(d) if revising => Some(
            started
                + d.saturating_duration_since(started)
                    .mul_f64(RETRIEVAL_SHARE),
        ),
        other => other,
    };
    let decision = reuse(
        cb,
        pos,
        &cfg.reuse,
        ReuseLimits {
            deadline: retrieval_deadline,
            stop: limits.stop,
            moves: limits.moves,
        },
        castling,
    )?;
    let revised = if revising {
        let now = Instant::now();
        // Start no new iteration past the middle of the remaining time: the next one would
        // rarely finish.
        let soft = limits
            .deadline
            .map(|d| now + d.saturating_duration_since(now).mul_f64(0.5));
        // Without any limit at all the search would never end: cap its depth.
        let unlimited = limits.deadline.is_none()
            && limits.max_depth.is_none()
            && limits.max_nodes.is_none()
            && limits.stop.is_none();
        let rl = ReviseLimits {
            soft,
            hard: limits.deadline,
            stop: limits.stop,
            max_depth: if unlimited {
                Some(UNLIMITED_DEPTH)
            } else {
                limits.max_depth
            },
            max_nodes: limits.max_nodes,
            moves: limits.moves,
            progress: limits.progress,
        };
        revise(pos, &decision, &cfg.revise, rl, castling, tt)
    } else {
        None
    };
    let (mv, bestmove, score) = match &revised {
        Some(r) => (r.mv, r.bestmove.clone(), EngineScore::from_value(r.value)),
        None => {
            let cp = decision
                .winner()
                .and_then(|w| w.expected)
                .map_or(0, expected_to_cp);
            (decision.mv, decision.bestmove.clone(), EngineScore::Cp(cp))
        }
    };
    Ok(Thought {
        decision,
        revised,
        mv,
        bestmove,
        score,
        elapsed: started.elapsed(),
    })
}
