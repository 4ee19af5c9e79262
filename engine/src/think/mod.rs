//! Thinking about a move: retrieve and adapt (the reasoner), then revise (the verifier), within
//! one time budget. Retrieval answers first; the search gets the rest of the time, so a move is
//! always ready, under any clock.

pub(crate) mod config;
pub(crate) mod explain;
pub(crate) mod pace;
pub mod params;
pub(crate) mod scale;
pub mod settings;
pub(crate) mod timeman;
pub use config::{
    Decider, EngineConfig, ErringRule, Level, LevelFrom, PlayedLevel, PlayerClock, Style,
};
pub use explain::{explain, report, to_json};
pub use pace::{
    CASES_FEATURE, ClockMemory, ClockSituation, HumanPlan, LOG_FLOOR, PACE_FEATURES, PaceModel,
    cases_time, features,
};
pub use params::ParamsError;
pub use scale::{EloScale, rapid_equivalent};
pub use timeman::{Clock, budget, plan};

use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Move, Position};

use crate::casebase::patterns::{LastMove, MoveContext};
use crate::casebase::{CaseBase, Without};
use crate::model::{
    Evidence, FIRST_MOVE_FEATURE, FIRST_SEARCH_FEATURE, N_FEATURES, evidence, most_probable,
};
use crate::player::{Knowledge, Player, PlayerEvidence};
use crate::position::{Game, legal_moves_within};
use crate::reuse::{Decision, NoLegalMove, expected_to_cp, reuse, reuse_without};
use crate::revise::{
    Memory, ReviseConfig, Revised, analyse, revise, scaled_tolerance, search_best,
};
use crate::search::Limits;
use crate::search::{RootResult, mate_in};

/// Search depth when a caller gives no limit of any kind.
pub(crate) const UNLIMITED_DEPTH: u32 = 6;

/// Share of the budget the retrieval scan may use before the move model's search starts.
pub(crate) const RETRIEVAL_SHARE: f64 = 0.4;

/// Share of the budget the `best` style keeps for the cases after its search (the scan, and
/// the checks of the candidates voted above the search's move).
pub(crate) const CASES_SHARE: f64 = 0.05;

/// Share of the budget the `natural` style keeps for the move model after its search (the
/// retrieval, and the model's own search, which starts from the first one's memory) and the
/// checks of its proposals. The model needs little: on 1,000 held-out positions of movers
/// rated 2300–2499 the default style matched 48.5 % of their moves in 15 ms, 49.4 % in 30 ms
/// and 49.1 % in 100 ms (2026-11-30).
pub(crate) const MODEL_SHARE: f64 = 0.15;

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
    pub(crate) fn from_value(v: i32) -> EngineScore {
        match mate_in(v) {
            Some(n) => EngineScore::Mate(n),
            None => EngineScore::Cp(v),
        }
    }
}

/// What the move model made of a position.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// Every legal move's features.
    pub evidence: Evidence,
    /// The probability of each move of `evidence`, for a player of the case base.
    pub probabilities: Vec<f64>,
    /// The search behind the search features (`None` if it completed no iteration).
    pub search: Option<RootResult>,
    /// The moves the search's values belong to, in order.
    pub root: Vec<Move>,
    /// Index (into `evidence.moves`) of the move played.
    pub chosen: usize,
    /// Under a level's [`ErringRule`](crate::think::config::ErringRule) rule: whether the move played
    /// is an error by it.
    pub erred: Option<bool>,
    /// The model's weights it was judged with.
    pub weights: [f64; N_FEATURES],
    /// The model's network's score of each move of `evidence` (empty without a network).
    pub network: Vec<f64>,
    /// The position judged.
    pub position: shakmaty::Chess,
    /// With a player on top of the case base: what their cases said, and the generic model's
    /// probabilities before it (`probabilities` are after).
    pub player: Option<PlayerJudgement>,
}

/// What a player's cases added to a judgement.
#[derive(Clone, Debug)]
pub struct PlayerJudgement {
    /// Their evidence on each move of the judgement's evidence.
    pub evidence: PlayerEvidence,
    /// The generic move model's probabilities, before the player's evidence.
    pub generic: Vec<f64>,
}

/// How much each part of the move model raises a move's log-odds above an average legal
/// move's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contributions {
    /// The case base's features (patterns, vote, exact position, policy).
    pub cases: f64,
    /// The move's own features (what it takes, checks, where it goes) and the network, which
    /// weighs every feature against the others.
    pub moves: f64,
    /// The search's features.
    pub search: f64,
}

impl Judgement {
    /// How much the case base's features, the move's own with the network, and the search's
    /// raise move `j`'s log-odds above an average legal move's.
    pub fn contributions(&self, j: usize) -> Contributions {
        let features = &self.evidence.features;
        let n = features.len().max(1) as f64;
        let mut push = [0.0; 3];
        let Some(x) = features.get(j) else {
            return Contributions::default();
        };
        for (k, (xk, w)) in x.iter().zip(&self.weights).enumerate().take(N_FEATURES) {
            let mean = features.iter().map(|x| x[k]).sum::<f64>() / n;
            let part =
                usize::from(k >= FIRST_MOVE_FEATURE) + usize::from(k >= FIRST_SEARCH_FEATURE);
            push[part] += w * (xk - mean);
        }
        if let Some(own) = self.network.get(j) {
            push[1] += own - self.network.iter().sum::<f64>() / n;
        }
        Contributions {
            cases: push[0],
            moves: push[1],
            search: push[2],
        }
    }

    /// The moves by probability, most probable first: (index into `evidence.moves`, P).
    pub fn ranked(&self) -> Vec<(usize, f64)> {
        let mut r: Vec<(usize, f64)> = self.probabilities.iter().copied().enumerate().collect();
        r.sort_by(|a, b| b.1.total_cmp(&a.1));
        r
    }

    /// The search's value of move `j` of the evidence at its last iteration: (value, exact).
    pub fn value(&self, j: usize) -> Option<(i32, bool)> {
        let m = self.evidence.moves.get(j)?;
        let i = self.root.iter().position(|r| r == m)?;
        let r = self.search.as_ref()?.values.get(i)?;
        Some((r.value, r.exact))
    }

    /// The search's principal variation after move `j` of the evidence.
    pub fn pv(&self, j: usize) -> Vec<Move> {
        let Some(m) = self.evidence.moves.get(j) else {
            return Vec::new();
        };
        self.root
            .iter()
            .position(|r| r == m)
            .and_then(|i| self.search.as_ref()?.values.get(i))
            .map_or_else(|| vec![*m], |r| r.pv.clone())
    }
}

/// A player's moves in a position they have been in before, proposed to a search that decides.
#[derive(Clone, Debug)]
pub struct Book {
    /// Each move they played here and how often, the most played first.
    pub played: Vec<(Move, u32)>,
    /// Times they were here.
    pub seen: u32,
    /// The position.
    pub position: shakmaty::Chess,
}

/// How far below the search's best value a player's own move in a position of their
/// repertoire may be and still be played, when a search decides (the `best` and `natural`
/// styles, and the levels that play them): the moves people play in their openings are rarely
/// worse than this by an engine's look at them, and the search's own move is played when
/// every one of theirs is.
pub const BOOK_TOLERANCE: i32 = 50;

/// How a move was decided: by the cases alone, by the search revising them, or by the move
/// model. Everything that reads a [`Thought`] matches on it, so a new way to decide is one the
/// compiler shows to each of them.
#[derive(Clone, Debug)]
pub enum DecidedBy {
    /// The nearest cases' vote alone: revise off (the thesis' reasoner), or the search had no
    /// time for a single iteration.
    Cases,
    /// The `best` style: the search's verdict on the cases' proposals; the `natural` style: its
    /// verdict on the move model's; either, with a player file where the player has been
    /// before: its verdict on their own moves there.
    Search {
        /// The search's verdict.
        revised: Box<Revised>,
        /// The move model's judgement, when it proposed (the `natural` style).
        model: Option<Box<Judgement>>,
        /// The player's moves in this position, when they were proposed and one was played.
        book: Option<Book>,
    },
    /// The move model's choice (the `imitate` and `human` styles).
    Model {
        /// Its judgement of every legal move.
        judgement: Box<Judgement>,
        /// The style it chose in.
        style: Style,
    },
}

impl DecidedBy {
    /// What decided, in a word: `cases`, `best` (the search), or the model's style
    /// (`imitate`, `human`).
    pub fn label(&self) -> String {
        match self {
            DecidedBy::Cases => "cases".to_string(),
            DecidedBy::Search { model: None, .. } => Style::Best.to_string(),
            DecidedBy::Search { model: Some(_), .. } => Style::Natural.to_string(),
            DecidedBy::Model { style, .. } => style.to_string(),
        }
    }

    /// The move model's judgement of every legal move, when the model decided or proposed.
    pub fn judgement(&self) -> Option<&Judgement> {
        match self {
            DecidedBy::Model { judgement, .. } => Some(judgement),
            DecidedBy::Search { model, .. } => model.as_deref(),
            DecidedBy::Cases => None,
        }
    }
}

/// A move, with everything that led to it.
#[derive(Clone, Debug)]
pub struct Thought {
    /// The cases' proposal (the nearest cases' vote).
    pub decision: Decision,
    /// How the move was decided, and what decided it.
    pub by: DecidedBy,
    /// The level played at, if any: the level, the setting and what set it (`UCI_Elo`, or
    /// the player file's rating).
    pub level: Option<Box<PlayedLevel>>,
    /// The move to play.
    pub mv: Move,
    /// It in UCI notation.
    pub bestmove: String,
    /// The score: the search's value, or the cases' expected result.
    pub score: EngineScore,
    /// Time taken.
    pub elapsed: Duration,
}

/// The move model's search after retrieval: the optimum at half the remaining time (no new
/// iteration would finish after it), and [`depth_cap`].
fn model_limits<'a>(limits: &Limits<'a>) -> Limits<'a> {
    let now = Instant::now();
    Limits {
        optimum: limits
            .deadline
            .map(|d| now + d.saturating_duration_since(now).mul_f64(0.5)),
        max_depth: depth_cap(limits),
        ..*limits
    }
}

/// The search's depth limit: [`UNLIMITED_DEPTH`] when nothing else would end it.
fn depth_cap(limits: &Limits<'_>) -> Option<u32> {
    if limits.unbounded() {
        Some(UNLIMITED_DEPTH)
    } else {
        limits.max_depth
    }
}

/// Thinks about the position of `game`; the search uses (and fills) `memory`.
///
/// With revise off, the nearest cases' vote decides (the thesis' reasoner). With revise on, the
/// style decides: `best` searches every move, then plays the best-voted candidate within the
/// tolerance of the best value; `imitate` and `human` search every move, combine what the search and
/// the case base say in the move model and play its most probable move, or a move drawn from
/// its probabilities.
pub fn think(
    knowledge: Knowledge<'_>,
    game: &Game,
    cfg: &EngineConfig,
    limits: Limits<'_>,
    castling: CastlingMode,
    memory: &mut Memory,
) -> Result<Thought, NoLegalMove> {
    let started = Instant::now();
    let setting = cfg.level_setting(knowledge.player());
    // At the player's strength, with `PlayerErrors`, the level errs as their file's error fit
    // says.
    let errs = match (setting, knowledge.player()) {
        (Some((_, LevelFrom::Player(_))), Some(player)) if cfg.player_errors => {
            player.error_factor()
        }
        _ => 1.0,
    };
    let (resolved, level) = cfg.resolved_at(setting.map(|s| s.0), errs);
    let cfg = &*resolved;
    let decider = cfg.decider();
    let level = level.zip(setting).map(|((level, elo), (_, from))| {
        let errs = match level.style {
            Style::Human => errs,
            _ => 1.0,
        };
        Box::new(PlayedLevel {
            level,
            elo,
            from,
            errs,
        })
    });
    if matches!(decider, Decider::Search | Decider::SearchAndModel) {
        let thought = think_best(knowledge, game, cfg, &limits, castling, memory, started)?;
        return Ok(Thought { level, ..thought });
    }
    // The move model's styles think until twice the optimum, as they were calibrated.
    let limits = Limits {
        deadline: match (limits.deadline, limits.optimum) {
            (Some(d), Some(o)) => Some(d.min(o + o.saturating_duration_since(started))),
            (d, _) => d,
        },
        ..limits
    };
    let (decision, judged) = if decider == Decider::Model {
        let (decision, judged) = judge_position(knowledge, game, cfg, limits, castling, memory)?;
        (decision, Some(judged))
    } else {
        let voters = knowledge.voters();
        let decision = retrieve_and_reuse(
            (voters, None),
            &game.position,
            cfg,
            &limits,
            castling,
            false,
        )?;
        (decision, None)
    };
    let (mv, score, by) = match judged {
        Some(j) => {
            let mv = j.evidence.moves[j.chosen];
            let score = j
                .value(j.chosen)
                .map_or(EngineScore::Cp(0), |(v, _)| EngineScore::from_value(v));
            let by = DecidedBy::Model {
                judgement: Box::new(j),
                style: cfg.style,
            };
            (mv, score, by)
        }
        None => (decision.mv, cases_score(&decision), DecidedBy::Cases),
    };
    Ok(Thought {
        decision,
        by,
        level,
        bestmove: mv.to_uci(castling).to_string(),
        mv,
        score,
        elapsed: started.elapsed(),
    })
}

/// The cases' own score for their move: their expected result as centipawns.
fn cases_score(decision: &Decision) -> EngineScore {
    let cp = decision
        .winner()
        .and_then(|w| w.expected)
        .map_or(0, expected_to_cp);
    EngineScore::Cp(cp)
}

/// The `best` style: the search first, over every legal move, to the optimum scaled by its
/// stability or to the deadline less the cases' share; then the cases, with the time left,
/// which break ties among the moves the search rates best (within the tolerance). When the
/// cases cannot change the move (a single legal move, or a mate found), they are not consulted.
/// The `natural` style searches so within all but the model's share of the time, then the move
/// model judges every move with what is left (its search starting from the first one's
/// memory), and the search vets the model's likeliest moves instead of the cases' vote.
fn think_best(
    knowledge: Knowledge<'_>,
    game: &Game,
    cfg: &EngineConfig,
    limits: &Limits<'_>,
    castling: CastlingMode,
    memory: &mut Memory,
    started: Instant,
) -> Result<Thought, NoLegalMove> {
    let pos = &game.position;
    let cb = knowledge.voters();
    let legal = legal_moves_within(pos, limits.moves);
    if legal.is_empty() {
        return Err(NoLegalMove::of(pos));
    }
    let natural = cfg.decider() == Decider::SearchAndModel;
    let (search_limits, reserve) = search_budget(limits, natural, started);
    let result = search_best(game, &cfg.revise, search_limits, memory);
    let Some(result) = result else {
        // Not even depth 1 in time: the cases decide alone.
        let decision = reuse(
            cb,
            pos,
            &cfg.reuse,
            reuse_limits(limits, limits.deadline),
            castling,
        )?;
        return Ok(Thought {
            score: cases_score(&decision),
            bestmove: decision.bestmove.clone(),
            mv: decision.mv,
            decision,
            by: DecidedBy::Cases,
            level: None,
            elapsed: started.elapsed(),
        });
    };
    let check_limits = Limits {
        optimum: None,
        max_depth: depth_cap(limits),
        ..*limits
    };
    if settled(&legal, &result).is_none()
        && let Some(thought) = play_book(
            knowledge,
            game,
            cfg,
            (&result, check_limits),
            castling,
            memory,
            started,
        )
    {
        return Ok(thought);
    }
    let Proposals {
        decision,
        moves: proposed,
        model: judged,
    } = match settled(&legal, &result) {
        Some(why) => Proposals {
            decision: Decision::not_consulted(result.best.mv, castling, cb.len() as u64, why),
            moves: Vec::new(),
            model: None,
        },
        None => {
            let now = Instant::now();
            let deadline = limits
                .deadline
                .map(|d| d.min(now + reserve.unwrap_or_default()));
            propose(knowledge, game, cfg, limits, deadline, castling, memory)?
        }
    };
    // The natural style's margin grows as the position is decided.
    let revise_cfg = if natural {
        std::borrow::Cow::Owned(ReviseConfig {
            tolerance: scaled_tolerance(cfg.revise.tolerance.max(0), result.best.value),
            ..cfg.revise.clone()
        })
    } else {
        std::borrow::Cow::Borrowed(&cfg.revise)
    };
    let revised = revise(
        game,
        &proposed,
        &result,
        &revise_cfg,
        check_limits,
        castling,
        memory,
    );
    Ok(Thought {
        score: EngineScore::from_value(revised.value),
        bestmove: revised.bestmove.clone(),
        mv: revised.mv,
        decision,
        by: DecidedBy::Search {
            revised: Box::new(revised),
            model: judged,
            book: None,
        },
        level: None,
        elapsed: started.elapsed(),
    })
}

/// A search that decides, with a player file where the player has been before: their moves
/// here, the most played first, vetted by the search (`result`, its checks within `limits`),
/// the first within [`BOOK_TOLERANCE`] of its best played. `None` where they have not been, or
/// where every move of theirs falls below.
fn play_book(
    knowledge: Knowledge<'_>,
    game: &Game,
    cfg: &EngineConfig,
    (result, limits): (&RootResult, Limits<'_>),
    castling: CastlingMode,
    memory: &mut Memory,
    started: Instant,
) -> Option<Thought> {
    let player = knowledge.player()?;
    let played = player.book(&game.position);
    let seen: u32 = played.iter().map(|p| p.1).sum();
    if seen == 0 {
        return None;
    }
    let proposals: Vec<(Move, f64)> = played
        .iter()
        .map(|(m, n)| (*m, f64::from(*n) / f64::from(seen)))
        .collect();
    let book_cfg = ReviseConfig {
        tolerance: cfg.revise.tolerance.max(BOOK_TOLERANCE),
        ..cfg.revise.clone()
    };
    let revised = revise(
        game, &proposals, result, &book_cfg, limits, castling, memory,
    );
    if !revised.verdicts.iter().any(|v| v.accepted) {
        return None;
    }
    // Their nearest cases (their games in this very position first): the precedents shown.
    let decision = retrieve_and_reuse(
        (player.cases(), None),
        &game.position,
        cfg,
        &limits,
        castling,
        true,
    )
    .unwrap_or_else(|_| {
        let cases = player.cases().len() as u64;
        Decision::not_consulted(revised.mv, castling, cases, "the player's own move")
    });
    Some(Thought {
        score: EngineScore::from_value(revised.value),
        bestmove: revised.bestmove.clone(),
        mv: revised.mv,
        decision,
        by: DecidedBy::Search {
            revised: Box::new(revised),
            model: None,
            book: Some(Book {
                played,
                seen,
                position: game.position.clone(),
            }),
        },
        level: None,
        elapsed: started.elapsed(),
    })
}

/// The search's limits in [`think_best`], and the time kept back from it (for the cases, or
/// the move model of the `natural` style): their share of the time to the deadline, or, for
/// the model, of the time the move is planned for (to the optimum if the clock leaves a
/// choice), the model's share also taken from the optimum.
fn search_budget<'a>(
    limits: &Limits<'a>,
    natural: bool,
    started: Instant,
) -> (Limits<'a>, Option<Duration>) {
    let share = if natural { MODEL_SHARE } else { CASES_SHARE };
    let planned = if natural {
        limits.optimum.or(limits.deadline)
    } else {
        limits.deadline
    };
    let reserve = planned.map(|d| d.saturating_duration_since(started).mul_f64(share));
    let search_limits = Limits {
        deadline: limits.deadline.zip(reserve).map(|(d, r)| d - r),
        optimum: match (natural, limits.optimum) {
            (true, Some(o)) => {
                Some(started + o.saturating_duration_since(started).mul_f64(1.0 - share))
            }
            (_, o) => o,
        },
        max_depth: depth_cap(limits),
        ..*limits
    };
    (search_limits, reserve)
}

/// The limits of the cases' vote: `limits` to `deadline`, never stopped (a vote is always
/// wanted).
fn reuse_limits<'a>(limits: &Limits<'a>, deadline: Option<Instant>) -> Limits<'a> {
    Limits {
        deadline,
        stop: None,
        ..*limits
    }
}

/// Why nothing the cases or the model propose could change the search's move, if so.
fn settled(legal: &[Move], result: &RootResult) -> Option<&'static str> {
    if legal.len() == 1 {
        Some("the only legal move")
    } else if mate_in(result.best.value).is_some() {
        Some("the search found a mate")
    } else {
        None
    }
}

/// What the search of [`think_best`] vets.
struct Proposals {
    /// The cases' decision (not consulted when nothing could change the search's move).
    decision: Decision,
    /// The proposed moves, each with its share (of the votes, or its probability).
    moves: Vec<(Move, f64)>,
    /// The move model's judgement, when it proposed (the `natural` style).
    model: Option<Box<Judgement>>,
}

/// The proposals for the search to vet, within `deadline`: the move model's likeliest moves
/// (the `natural` style, with its judgement) or the cases' candidates; with the cases' decision.
fn propose(
    knowledge: Knowledge<'_>,
    game: &Game,
    cfg: &EngineConfig,
    limits: &Limits<'_>,
    deadline: Option<Instant>,
    castling: CastlingMode,
    memory: &mut Memory,
) -> Result<Proposals, NoLegalMove> {
    if cfg.decider() == Decider::SearchAndModel {
        let stage = Limits {
            deadline,
            optimum: None,
            ..*limits
        };
        let (decision, judged) = judge_position(knowledge, game, cfg, stage, castling, memory)?;
        let proposed = judged
            .ranked()
            .into_iter()
            .take(cfg.revise.candidates.max(1))
            .map(|(j, p)| (judged.evidence.moves[j], p))
            .collect();
        Ok(Proposals {
            decision,
            moves: proposed,
            model: Some(Box::new(judged)),
        })
    } else {
        let cb = knowledge.voters();
        let decision = reuse(
            cb,
            &game.position,
            &cfg.reuse,
            reuse_limits(limits, deadline),
            castling,
        )?;
        let proposed = crate::revise::proposals(&decision, &cfg.revise);
        Ok(Proposals {
            decision,
            moves: proposed,
            model: None,
        })
    }
}

/// The move model's judgement of a position from scratch: retrieve and vote (within the first
/// share of the time), search every legal move, gather the evidence and pick by `cfg.style`.
/// What `precedent fit moves` learns from; [`think`] does the same when its style uses the model.
///
/// With a player on top of the case base, the player's nearest cases vote too (the decision
/// returned is theirs: the games a move is explained by), and their evidence moves the
/// generic model's probabilities ([`crate::player`]).
pub fn judge_position(
    knowledge: Knowledge<'_>,
    game: &Game,
    cfg: &EngineConfig,
    limits: Limits<'_>,
    castling: CastlingMode,
    memory: &mut Memory,
) -> Result<(Decision, Judgement), NoLegalMove> {
    let pos = &game.position;
    let without = knowledge.without();
    // Every scan of the move (the generic case base's, and the player's) within one share of
    // the time: the search gets the rest.
    let scans = Limits {
        deadline: retrieval_deadline(&limits, true),
        ..limits
    };
    let decision = retrieve_and_reuse(
        (knowledge.generic(), without),
        pos,
        cfg,
        &scans,
        castling,
        false,
    )?;
    let Some(player) = knowledge.player() else {
        let judged = judge(
            (knowledge.generic(), without),
            game,
            &decision,
            cfg,
            &cfg.model,
            &limits,
            memory,
            None,
        );
        return Ok((decision, judged));
    };
    let own = retrieve_and_reuse((player.cases(), None), pos, cfg, &scans, castling, false)?;
    // A level plays its own model (its calibration is its strength); else the generic model
    // as fitted to the player, when the layer reads it (their likeness).
    let prior = player.prior(&cfg.model, cfg.player.model && cfg.elo.is_none());
    let judged = judge(
        (knowledge.generic(), without),
        game,
        &decision,
        cfg,
        &prior,
        &limits,
        memory,
        Some((player, &own)),
    );
    Ok((own, judged))
}

/// The deadline of a retrieval: the retrieval's share of the time to `limits`' deadline when a
/// search is to follow (`revising`), else the deadline itself.
fn retrieval_deadline(limits: &Limits<'_>, revising: bool) -> Option<Instant> {
    let started = Instant::now();
    match limits.deadline {
        Some(d) if revising => Some(
            started
                + d.saturating_duration_since(started)
                    .mul_f64(RETRIEVAL_SHARE),
        ),
        other => other,
    }
}

/// Retrieve, adapt and vote, within the retrieval's share of the deadline when a search is to
/// follow (`revising`), else within the whole of it.
fn retrieve_and_reuse(
    (cb, without): (&CaseBase, Option<&Without>),
    pos: &shakmaty::Chess,
    cfg: &EngineConfig,
    limits: &Limits<'_>,
    castling: CastlingMode,
    revising: bool,
) -> Result<Decision, NoLegalMove> {
    let deadline = retrieval_deadline(limits, revising);
    reuse_without(
        cb,
        pos,
        &cfg.reuse,
        Limits {
            deadline,
            ..*limits
        },
        castling,
        without,
    )
}

/// The move model's judgement: search every legal move (the cases' favourites first), gather
/// the evidence, and pick by style; `model` gives the probabilities (`cfg`'s, or it as fitted
/// to a player).
#[allow(clippy::too_many_arguments)]
fn judge(
    (cb, without): (&CaseBase, Option<&Without>),
    game: &Game,
    decision: &Decision,
    cfg: &EngineConfig,
    model: &crate::model::ModelConfig,
    limits: &Limits<'_>,
    memory: &mut Memory,
    player: Option<(&Player, &Decision)>,
) -> Judgement {
    let pos = &game.position;
    let legal = legal_moves_within(pos, limits.moves);
    // The cases' candidates first: the search's first window comes from a likely move.
    let root = crate::revise::root_order(decision.candidates.iter().map(|c| c.mv), &legal);
    let search = analyse(game, &root, &cfg.revise, model_limits(limits), memory);
    let ctx = MoveContext {
        ply: game.ply(),
        last: LastMove::of(game.last_move.as_ref(), pos.turn()),
    };
    let votes = decision.votes();
    let evidence = evidence(
        cb,
        without,
        pos,
        ctx,
        Some(&votes),
        search
            .as_ref()
            .map(|r| (root.as_slice(), r.iterations.as_slice())),
        model.smoothing,
    );
    let network = model
        .network
        .as_ref()
        .map_or_else(Vec::new, |n| n.scores(&evidence));
    let (mut probabilities, player) = match player {
        None => (model.probabilities(&evidence), None),
        Some((player, own)) => {
            let votes = own.votes();
            let theirs = PlayerEvidence::gather(
                player,
                cb,
                game,
                &evidence.moves,
                Some(&votes),
                &cfg.player,
                model.smoothing,
            );
            let layered = Player::probabilities(model, &evidence, &theirs, &cfg.player);
            let judged = PlayerJudgement {
                evidence: theirs,
                generic: layered.generic,
            };
            (layered.probabilities, Some(judged))
        }
    };
    // `searchmoves`: only the allowed moves keep their probability.
    if legal.len() < evidence.moves.len() {
        for (p, m) in probabilities.iter_mut().zip(&evidence.moves) {
            if !legal.contains(m) {
                *p = 0.0;
            }
        }
        let sum: f64 = probabilities.iter().sum();
        if sum > 0.0 {
            probabilities.iter_mut().for_each(|p| *p /= sum);
        }
    }
    let (chosen, erred) = match (cfg.style, cfg.errors) {
        (Style::Human, Some(rule)) => {
            let (chosen, error) = rule.choose_by_evidence(&probabilities, &evidence.features);
            (chosen, Some(error))
        }
        (Style::Human, None) => (
            draw_in(pos, &probabilities, cfg.temperature, cfg.reuse.seed),
            None,
        ),
        (Style::Imitate | Style::Best | Style::Natural, _) => (most_probable(&probabilities), None),
    };
    Judgement {
        evidence,
        probabilities,
        search,
        root,
        chosen,
        erred,
        weights: model.vector(),
        network,
        position: pos.clone(),
        player,
    }
}

/// The `human` style's draw in `pos` among moves of probabilities `p`: a seeded engine
/// (`seed`) draws the same move in the same position, and different draws in different
/// positions (the seed mixed with the position's key); `None` draws afresh.
pub fn draw_in(pos: &shakmaty::Chess, p: &[f64], temperature: f64, seed: Option<u64>) -> usize {
    let key = crate::position::key(pos);
    draw(p, temperature, seed.map(|s| s ^ key))
}

/// A move index drawn with probability ∝ p^(1/temperature) (seeded, or fresh when `seed` is
/// `None`).
fn draw(p: &[f64], temperature: f64, seed: Option<u64>) -> usize {
    use rand::{Rng, SeedableRng};
    // Normalised, or all zero when no move has a positive probability.
    let w = crate::model::tempered(p, temperature.max(1e-3));
    if !w.iter().any(|x| *x > 0.0) {
        return 0;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed.unwrap_or_else(rand::random));
    let mut u = rng.random::<f64>();
    for (i, x) in w.iter().enumerate() {
        if u < *x {
            return i;
        }
        u -= x;
    }
    w.iter().rposition(|x| *x > 0.0).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_probabilities_and_the_temperature() {
        let p = [0.7, 0.2, 0.1, 0.0];
        let count = |t: f64| {
            let mut n = [0usize; 4];
            for seed in 0..4000 {
                n[draw(&p, t, Some(seed))] += 1;
            }
            n
        };
        let n = count(1.0);
        assert_eq!(n[3], 0, "a move of probability 0 is never drawn");
        assert!((2600..3000).contains(&n[0]), "{n:?}");
        assert!((650..950).contains(&n[1]), "{n:?}");
        // Cold: nearly always the most probable; hot: flatter.
        assert!(count(0.05)[0] > 3990);
        assert!(count(3.0)[0] < 2400);
        // Same seed, same move.
        assert_eq!(draw(&p, 1.0, Some(9)), draw(&p, 1.0, Some(9)));
    }

    #[test]
    fn the_coldest_draw_plays_the_most_probable_move_however_small_the_probabilities() {
        // At the lowest temperature (0.001) every p^(1/T) here underflows to 0 unless taken
        // relative to the most probable move; the draw then fell back to the first move.
        let p = [0.3, 0.4, 0.3];
        for seed in 0..200 {
            assert_eq!(draw(&p, 0.001, Some(seed)), 1);
        }
        let many: Vec<f64> = (0..40)
            .map(|i| if i == 17 { 0.06 } else { 0.94 / 39.0 })
            .collect();
        assert_eq!(draw(&many, 0.001, Some(3)), 17);
        // No probability at all: the first move, as before.
        assert_eq!(draw(&[0.0, 0.0], 0.5, Some(1)), 0);
    }
}
