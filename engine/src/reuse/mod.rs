//! Reuse, the reasoner: retrieve the k most similar cases, adapt each case's move to a legal
//! move here ([`adapt`]), and let the cases vote (weight = similarity^p). The [`Decision`]
//! carries the move and everything needed to explain it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

pub mod adapt;
pub use adapt::Weights;

use serde::Serialize;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use self::adapt::adapt;
use crate::case::{MAX_SCORE, Planes};
use crate::casebase::{CaseBase, Without, position_key};
use crate::pgn::GameHeader;
use crate::position::legal_moves_within;
use crate::retrieve::{Hit, Mode, ScanLimits, retrieve, segments};
use crate::search::Limits;

/// How the cases are retrieved and reused.
#[derive(Clone, Debug, PartialEq)]
pub struct ReuseConfig {
    /// Cases retrieved and voting (1 = the thesis' single nearest case).
    pub k: usize,
    /// Vote exponent: a case votes with weight similarity^p.
    pub p: f64,
    /// Normalised (mover's view) or the thesis' literal comparison.
    pub mode: Mode,
    /// Adaptation weights w1…w6.
    pub weights: Weights,
    /// Seed of the tie-breaking; `None` draws a fresh one for every decision.
    pub seed: Option<u64>,
    /// Lists of the approximate index scanned a side, in a case base that has them; 0: exact
    /// retrieval always (see [`crate::retrieve::scan_lists`]).
    pub probes: usize,
}

/// Lists probed a side by default, in a case base with lists (`docs/scaling.md`).
pub const PROBES: usize = 64;

/// Defaults measured with `precedent eval` (1400–1799 Lichess rapid, 10 % of games held out,
/// plies 0–9 skipped, two samples of 5,000 positions): k = 32–64 with p = 16–64 tie within
/// noise (16.0–16.9 %), k = 1 gives 14.1 %, p = 256 loses about 0.7 points. k = 64, p = 64 had
/// the best mean over both samples (16.6 % against 16.1 % for k = 32, p = 16).
impl Default for ReuseConfig {
    fn default() -> ReuseConfig {
        ReuseConfig {
            k: 64,
            p: 64.0,
            mode: Mode::Normalised,
            weights: Weights::default(),
            seed: None,
            probes: PROBES,
        }
    }
}

/// A case that took part in a decision, in the current position's orientation.
#[derive(Clone, Debug, Serialize)]
pub struct CaseRef {
    /// Index in the case base.
    pub index: usize,
    /// Similarity 0..=256.
    pub score256: u32,
    /// Similarity 0..=1.
    pub similarity: f64,
    /// The move played in the case (UCI, oriented like the current position).
    #[serde(rename = "move")]
    pub case_move: String,
    /// The legal move it adapted to here.
    pub adapted: String,
    /// Whether the case's position equals this one (board, side, castling, en passant).
    pub exact: bool,
    /// Ply of the case in its game (0 = White's first move of the game).
    pub ply: u32,
    /// Which side moved in the case.
    pub mover: String,
    /// The game it came from.
    #[serde(flatten)]
    pub game: GameHeader,
    /// Index of the game in the case base.
    pub game_index: u32,
}

impl CaseRef {
    /// "move 23" style position of the case in its game.
    pub(crate) fn move_number(&self) -> u32 {
        self.ply / 2 + 1
    }
}

/// A move proposed by the cases.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    /// The move, UCI.
    #[serde(rename = "move")]
    pub uci: String,
    /// The move itself.
    #[serde(skip)]
    pub mv: Move,
    /// Sum of its voters' weights.
    pub votes: f64,
    /// Its share of all votes.
    pub share: f64,
    /// Number of cases voting for it.
    pub cases: usize,
    /// The mover's mean result in the voters' games (weighted like the votes), 0..=1.
    pub expected: Option<f64>,
    /// Index (into [`Decision::cases`]) of its best voter.
    pub best_case: usize,
}

/// The reasoner's answer for a position.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// The chosen move, UCI.
    pub bestmove: String,
    /// The chosen move.
    #[serde(skip)]
    pub mv: Move,
    /// Candidates, most votes first.
    pub candidates: Vec<Candidate>,
    /// The retrieved cases, most similar first.
    pub cases: Vec<CaseRef>,
    /// Highest similarity found, 0..=256.
    pub score256: u32,
    /// Scanned cases sharing that similarity.
    pub ties: u64,
    /// Cases scanned.
    pub scanned: u64,
    /// Cases ruled out by their material without being scanned (none could be among the best).
    pub pruned: u64,
    /// Cases in the case base (what a full scan covers).
    pub total: u64,
    /// Lists of the approximate index scanned (0: the retrieval was exact).
    pub lists: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// Seed used for tie-breaking.
    pub seed: u64,
    /// No case could be retrieved (empty case base): the first legal move was played.
    pub fallback: bool,
    /// Why the cases were not consulted, when they were not (they could not change the move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_consulted: Option<&'static str>,
}

impl Decision {
    /// A decision the cases were not asked for (`why`: they could not change `mv`, the move
    /// played), of a case base of `total` cases.
    pub(crate) fn not_consulted(
        mv: Move,
        castling: CastlingMode,
        total: u64,
        why: &'static str,
    ) -> Decision {
        Decision {
            bestmove: uci(&mv, castling),
            mv,
            candidates: Vec::new(),
            cases: Vec::new(),
            score256: 0,
            ties: 0,
            scanned: 0,
            pruned: 0,
            total,
            lists: 0,
            elapsed: Duration::ZERO,
            seed: 0,
            fallback: false,
            not_consulted: Some(why),
        }
    }

    /// The winning candidate (absent only for a fallback).
    pub fn winner(&self) -> Option<&Candidate> {
        self.candidates.first()
    }

    /// The most similar case.
    pub fn top_case(&self) -> Option<&CaseRef> {
        self.cases.first()
    }

    /// Each voted move with its share of the votes.
    pub fn votes(&self) -> Vec<(Move, f64)> {
        self.candidates.iter().map(|c| (c.mv, c.share)).collect()
    }
}

/// Why no decision could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoLegalMove {
    /// The side to move is checkmated.
    #[error("no legal move: checkmate")]
    Checkmate,
    /// The side to move is stalemated.
    #[error("no legal move: stalemate")]
    Stalemate,
}

impl NoLegalMove {
    /// Why `pos`, which has no legal move (or none of those asked for), has no decision.
    pub(crate) fn of(pos: &Chess) -> NoLegalMove {
        if pos.is_check() {
            NoLegalMove::Checkmate
        } else {
            NoLegalMove::Stalemate
        }
    }
}

/// UCI notation of a move for the given castling convention.
pub fn uci(m: &Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

/// Decides a move for `pos`.
pub fn reuse(
    cb: &CaseBase,
    pos: &Chess,
    cfg: &ReuseConfig,
    limits: Limits<'_>,
    castling: CastlingMode,
) -> Result<Decision, NoLegalMove> {
    reuse_without(cb, pos, cfg, limits, castling, None)
}

/// [`reuse`] with the cases `without` leaves out not voting (a retrieved one is passed over).
pub fn reuse_without(
    cb: &CaseBase,
    pos: &Chess,
    cfg: &ReuseConfig,
    limits: Limits<'_>,
    castling: CastlingMode,
    without: Option<&Without>,
) -> Result<Decision, NoLegalMove> {
    let started = Instant::now();
    let legal = legal_moves_within(pos, limits.moves);
    if legal.is_empty() {
        return Err(NoLegalMove::of(pos));
    }

    let board = Planes::from_board(pos.board());
    let seed = cfg.seed.unwrap_or_else(rand::random);
    let segs = segments(cb, board, pos.turn(), cfg.mode);
    let found = retrieve(
        &segs,
        &ScanLimits {
            k: cfg.k.max(1),
            seed,
            deadline: limits.deadline,
            stop: limits.stop,
            probes: cfg.probes,
        },
    );
    let kept: Vec<Hit>;
    let hits = match without.filter(|w| !w.is_empty()) {
        Some(w) => {
            kept = found
                .hits
                .iter()
                .filter(|h| !w.has_case(cb, h.index))
                .copied()
                .collect();
            &kept[..]
        }
        None => &found.hits[..],
    };
    let (cases, tally) = vote(cb, pos, &legal, hits, cfg, castling);
    let candidates = tally.candidates(castling);
    let (mv, fallback) = match candidates.first() {
        Some(c) => (c.mv, false),
        None => (legal[0], true),
    };
    Ok(Decision {
        bestmove: uci(&mv, castling),
        mv,
        candidates,
        cases,
        score256: found.top_score,
        ties: found.ties_at_top,
        scanned: found.scanned,
        pruned: found.pruned,
        total: found.total,
        lists: found.lists,
        elapsed: started.elapsed(),
        seed,
        fallback,
        not_consulted: None,
    })
}

/// The retrieved cases' votes: each hit's move adapted to a legal move of `pos` (a case whose
/// move adapts to none is left out), voting with weight similarity^p; the cases that voted, in
/// the order of the hits.
fn vote(
    cb: &CaseBase,
    pos: &Chess,
    legal: &[Move],
    hits: &[Hit],
    cfg: &ReuseConfig,
    castling: CastlingMode,
) -> (Vec<CaseRef>, Tally) {
    let turn = pos.turn();
    let (rights, ep) = position_key(pos);
    let metas = cb.metas();
    let records = cb.game_records();
    let mut cases = Vec::with_capacity(hits.len());
    let mut tally = Tally::default();
    for hit in hits {
        let meta = metas[hit.index];
        let case_mover = cb.mover(hit.index);
        let flip = match cfg.mode {
            Mode::Normalised => turn == Color::Black,
            Mode::Thesis => case_mover == Color::Black,
        };
        let (case_board, m1) = if flip {
            (cb.case_board(hit.index).mirrored(), meta.mv.mirrored())
        } else {
            (cb.case_board(hit.index), meta.mv)
        };
        let Some(adapted) = adapt(&case_board, m1, pos.board(), legal, &cfg.weights) else {
            continue;
        };
        let similarity = f64::from(hit.score) / f64::from(MAX_SCORE);
        let weight = similarity.powf(cfg.p);
        let points = records
            .get(meta.game as usize)
            .and_then(|r| crate::pgn::GameResult::from_byte(r.result).points_for(case_mover));
        tally.add(adapted.mv, weight, points, cases.len());
        let exact = hit.score == MAX_SCORE
            && (cfg.mode == Mode::Normalised || case_mover == turn)
            && meta.rights == rights
            && meta.ep == ep;
        cases.push(CaseRef {
            index: hit.index,
            score256: hit.score,
            similarity,
            case_move: m1.uci(),
            adapted: uci(&adapted.mv, castling),
            exact,
            ply: u32::from(meta.ply),
            mover: if case_mover == Color::White {
                "white"
            } else {
                "black"
            }
            .to_string(),
            game: cb.game(meta.game).unwrap_or_default(),
            game_index: meta.game,
        });
    }
    (cases, tally)
}

/// One adapted move's votes so far.
#[derive(Clone, Copy, Debug)]
struct MoveVotes {
    /// Sum of its voters' weights.
    votes: f64,
    /// Number of cases voting for it.
    voters: usize,
    /// Its voters' results (points for the mover), weighted like the votes.
    points: f64,
    /// The weight of the voters whose game has a result.
    points_weight: f64,
    /// Index (into the voting cases) of its best voter: its first.
    best_case: usize,
}

/// The votes per adapted move, with the moves in the order of their first vote (their best
/// voter's rank).
#[derive(Debug, Default)]
struct Tally {
    votes: HashMap<Move, MoveVotes>,
    order: Vec<Move>,
}

impl Tally {
    /// Case number `case` votes for `mv` with `weight`; `points`: the mover's result in its
    /// game, if known.
    fn add(&mut self, mv: Move, weight: f64, points: Option<f64>, case: usize) {
        let entry = self.votes.entry(mv).or_insert_with(|| {
            self.order.push(mv);
            MoveVotes {
                votes: 0.0,
                voters: 0,
                points: 0.0,
                points_weight: 0.0,
                best_case: case,
            }
        });
        entry.votes += weight;
        entry.voters += 1;
        if let Some(pts) = points {
            entry.points += weight * pts;
            entry.points_weight += weight;
        }
    }

    /// The voted moves as candidates, most votes first.
    fn candidates(&self, castling: CastlingMode) -> Vec<Candidate> {
        // Summed in `order`, not the map's (random) order: the same sum, to the last bit, on
        // every run, so that shares and the model's probabilities repeat exactly.
        let total_votes: f64 = self.order.iter().map(|mv| self.votes[mv].votes).sum();
        // `order` lists moves by their best voter's rank, which breaks equal totals.
        let mut candidates: Vec<Candidate> = self
            .order
            .iter()
            .map(|mv| {
                let v = self.votes[mv];
                Candidate {
                    uci: uci(mv, castling),
                    mv: *mv,
                    votes: v.votes,
                    share: if total_votes > 0.0 {
                        v.votes / total_votes
                    } else {
                        1.0 / self.order.len() as f64
                    },
                    cases: v.voters,
                    expected: (v.points_weight > 0.0).then(|| v.points / v.points_weight),
                    best_case: v.best_case,
                }
            })
            .collect();
        candidates.sort_by(|a, b| b.votes.total_cmp(&a.votes));
        candidates
    }
}

/// Centipawn equivalent of an expected score (logistic: `400·log10(p / (1 − p))`), with `p`
/// kept within [0.01, 0.99] so one-sided samples stay finite (±798 cp at most).
pub(crate) fn expected_to_cp(p: f64) -> i32 {
    let p = p.clamp(0.01, 0.99);
    (400.0 * (p / (1.0 - p)).log10()).round() as i32
}

#[cfg(test)]
mod tests;
