//! Human think time (`HumanTime`): how long a person would take over a move, from the clock
//! situation, the position and the move chosen, and from how long the players of the nearest
//! cases took when the case base remembers their clocks.
//!
//! The pacing model is a linear model of the log of the seconds taken ([`PACE_FEATURES`]),
//! fitted by `precedent fit time` on clocked games (its weights ship in `casebases/default.toml`,
//! `[pace]`; the games do not), with the spread of people's times around it (`sigma`, the
//! residuals' standard deviation in log-seconds). A move's time is drawn from that spread, so
//! fast recaptures and long thinks come out in people's proportions, not only their median.

use std::collections::BTreeMap;

use rand::Rng;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position, Role};

use std::time::Duration;

use crate::casebase::CaseBase;
use crate::pgn::MoveClock;
use crate::position::Game;
use crate::think::Thought;

/// The pacing model's inputs, in the order of [`features`]. The clock is read as its log
/// (`log_left`), the time control's scale (`log_scale`, [`ClockSituation::scale`]), the even
/// share of it a move (`log_budget`: the time left over the moves still to come, 40 less the
/// moves played and at least 10, plus the increment), the increment's share of the scale, the
/// lead over the opponent's clock, and time trouble (`scramble`, under 9 s left); none falls as
/// the time left grows with the rest held, so the fitted model's median is checked to rise with
/// it (the test `more_time_left_never_gives_a_shorter_median_think`).
pub const PACE_FEATURES: [&str; 22] = [
    "bias",
    "log_left",
    "log_scale",
    "log_budget",
    "increment_share",
    "clock_lead",
    "scramble",
    "opening",
    "middlegame",
    "late",
    "log_legal",
    "only_move",
    "in_check",
    "capture",
    "recapture",
    "check",
    "promotion",
    "phase",
    "log_own_last",
    "log_their_last",
    "no_history",
    "cases",
];

/// Index of the `cases` feature: the nearest cases' time, scaled to this clock (0 when the case
/// base has no clocks; a model fitted without clocked cases has weight 0 there).
pub const CASES_FEATURE: usize = 21;

/// Seconds added before taking a logarithm of a time taken (clocks record whole seconds, so a
/// move "in 0 s" took under one).
pub const LOG_FLOOR: f64 = 0.5;

/// The clock situation of a move, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockSituation {
    /// The mover's clock before the move.
    pub left: f64,
    /// The opponent's clock (`None`: unknown, taken as equal).
    pub their_left: Option<f64>,
    /// The starting clock of the game (estimated in play from the first clock seen).
    pub base: f64,
    /// The increment a move.
    pub increment: f64,
    /// How long the mover took over their previous move, if known.
    pub own_last: Option<f64>,
    /// How long the opponent took over the move just played, if known.
    pub their_last: Option<f64>,
}

impl ClockSituation {
    /// The nominal length of a game of this time control: the base and 40 increments.
    pub fn scale(&self) -> f64 {
        (self.base + 40.0 * self.increment).max(1.0)
    }

    /// The same situation with every time in it multiplied by `r`.
    pub fn scaled(&self, r: f64) -> ClockSituation {
        ClockSituation {
            left: self.left * r,
            their_left: self.their_left.map(|t| t * r),
            base: self.base * r,
            increment: self.increment * r,
            own_last: self.own_last.map(|t| t * r),
            their_last: self.their_last.map(|t| t * r),
        }
    }
}

/// The pacing model's features of playing `mv` in `pos` (after the opponent's `last`) in the
/// clock situation `clock`; `cases` is the nearest cases' time scaled to this clock, in
/// log-seconds, when known.
pub fn features(
    pos: &Chess,
    mv: &Move,
    last: Option<&Move>,
    clock: &ClockSituation,
    cases: Option<f64>,
) -> [f64; PACE_FEATURES.len()] {
    let log = |s: f64| (s.max(0.0) + LOG_FLOOR).ln();
    let left = clock.left.max(0.0);
    let scale = clock.scale();
    let their_left = clock.their_left.unwrap_or(left).max(0.0);
    let fullmove = f64::from(pos.fullmoves().get());
    let legal = pos.legal_moves().len().max(1) as f64;
    let mut after = pos.clone();
    after.play_unchecked(*mv);
    let recapture = last.is_some_and(|l| l.is_capture() && l.to() == mv.to());
    let board = pos.board();
    let non_pawn = (board.knights() | board.bishops()).count()
        + 2 * board.rooks().count()
        + 4 * board.queens().count();
    let flag = |b: bool| f64::from(u8::from(b));
    [
        1.0,
        (left + 1.0).ln(),
        scale.ln(),
        (left / (40.0 - fullmove).max(10.0) + clock.increment + 1.0).ln(),
        40.0 * clock.increment / scale,
        (left + 1.0).ln() - (their_left + 1.0).ln(),
        (2.3 - (left + 1.0).ln()).max(0.0),
        fullmove.min(10.0) / 10.0,
        (fullmove - 10.0).clamp(0.0, 20.0) / 20.0,
        (fullmove - 30.0).clamp(0.0, 30.0) / 30.0,
        legal.ln(),
        flag(legal <= 1.0),
        flag(pos.is_check()),
        flag(mv.is_capture()),
        flag(recapture),
        flag(after.is_check()),
        flag(mv.role() == Role::Pawn && mv.is_promotion()),
        (non_pawn as f64 / 24.0).min(1.5),
        clock.own_last.map_or(0.0, log),
        clock.their_last.map_or(0.0, log),
        flag(clock.own_last.is_none()),
        cases.unwrap_or(0.0),
    ]
}

/// The nearest cases' time scaled to this clock, in log-seconds: the mean over the timed cases
/// of log(their time as a share of their clock), plus log of this clock. `None` without timed
/// cases (their own first moves, untimed, are left out).
pub fn cases_time(clocks: impl IntoIterator<Item = MoveClock>, left: f64) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u32);
    for c in clocks {
        if c.left == 0 {
            continue;
        }
        let (spent, their_left) = (f64::from(c.spent) / 10.0, f64::from(c.left) / 10.0);
        sum += ((spent + LOG_FLOOR) / (their_left + 1.0)).ln();
        n += 1;
    }
    (n > 0).then(|| sum / f64::from(n) + (left.max(0.0) + 1.0).ln())
}

/// The fitted pacing model (`[pace]` of a parameter file).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaceModel {
    /// The spread of people's times around the model: the residuals' standard deviation, in
    /// log-seconds.
    pub sigma: f64,
    /// The residuals' quantiles at probabilities (i + 0.5) / n, ascending, in log-seconds: the
    /// shape of people's spread (skewed: many instant moves, a few long thinks), which a time
    /// is drawn from. Empty: a normal spread of `sigma`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub residuals: Vec<f64>,
    /// One weight a feature of [`PACE_FEATURES`].
    pub weights: BTreeMap<String, f64>,
    /// The model fitted with the nearest cases' times (`cases`), for a case base with clocks
    /// (`[pace.with_cases]`); this one paces a case base without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with_cases: Option<Box<PaceModel>>,
    /// The smallest and largest clock scale ([`ClockSituation::scale`], seconds) of the time
    /// controls the model was fitted on. A clock outside is read by the prior that a move takes
    /// the same share of the clock ([`PaceModel::within_scales`]); `None`: every clock is read
    /// as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scales: Option<[f64; 2]>,
}

impl PaceModel {
    /// Whether the model has weights (a parameter file without `[pace]` has none).
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Checks that there is one weight a feature, each finite, and a finite spread.
    pub fn check(&self) -> Result<(), String> {
        if self.is_empty() {
            return Ok(());
        }
        for name in PACE_FEATURES {
            match self.weights.get(name) {
                Some(w) if w.is_finite() => {}
                Some(_) => return Err(format!("weight `{name}` is not a finite number")),
                None => return Err(format!("no weight for `{name}`")),
            }
        }
        if let Some(extra) = self
            .weights
            .keys()
            .find(|k| !PACE_FEATURES.contains(&k.as_str()))
        {
            return Err(format!(
                "unknown feature `{extra}` (known: {})",
                PACE_FEATURES.join(", ")
            ));
        }
        if !(self.sigma.is_finite() && (0.0..=5.0).contains(&self.sigma)) {
            return Err(format!("sigma {} is not in 0..=5", self.sigma));
        }
        if self.residuals.len() > 1000
            || !self
                .residuals
                .iter()
                .all(|r| r.is_finite() && r.abs() <= 20.0)
            || !self.residuals.windows(2).all(|w| w[0] <= w[1])
        {
            return Err(
                "residuals must be at most 1000 ascending numbers within ±20 log-seconds".into(),
            );
        }
        if let Some([lo, hi]) = self.scales
            && !(lo.is_finite() && hi.is_finite() && 0.0 < lo && lo <= hi)
        {
            return Err(format!(
                "scales [{lo}, {hi}] must be two positive seconds, the smaller first"
            ));
        }
        match &self.with_cases {
            Some(inner) if inner.with_cases.is_some() => {
                Err("`with_cases` cannot hold another `with_cases`".into())
            }
            Some(inner) if inner.is_empty() => Err("`with_cases` has no weights".into()),
            Some(inner) => inner.check().map_err(|e| format!("with_cases: {e}")),
            None => Ok(()),
        }
    }

    /// The noise at probability `u` of people's spread (the residuals' quantiles), or `sigma`
    /// times the normal draw `z` when the model has no quantiles.
    fn noise(&self, u: f64, z: f64) -> f64 {
        if self.residuals.is_empty() {
            self.sigma * z
        } else {
            quantile(&self.residuals, u)
        }
    }

    /// The model's weights in feature order (0 for a missing one).
    fn vector(&self) -> [f64; PACE_FEATURES.len()] {
        PACE_FEATURES.map(|name| self.weights.get(name).copied().unwrap_or(0.0))
    }

    /// The predicted log of (seconds + [`LOG_FLOOR`]).
    pub fn log_seconds(&self, x: &[f64; PACE_FEATURES.len()]) -> f64 {
        self.vector().iter().zip(x).map(|(w, x)| w * x).sum()
    }

    /// The median time a person takes, in seconds.
    pub fn median_seconds(&self, x: &[f64; PACE_FEATURES.len()]) -> f64 {
        (self.log_seconds(x).exp() - LOG_FLOOR).max(0.0)
    }

    /// A time drawn from people's spread around the median, in seconds.
    pub fn sample_seconds(&self, x: &[f64; PACE_FEATURES.len()], rng: &mut impl Rng) -> f64 {
        let noise = self.noise(rng.random(), standard_normal(rng));
        ((self.log_seconds(x) + noise).exp() - LOG_FLOOR).max(0.0)
    }

    /// The clock situation the model reads for `clock`, and the factor its time is then
    /// multiplied by: within the fitted scales, the clock itself and 1; outside them, the
    /// clock brought to the nearest fitted scale (every time in it multiplied by one ratio)
    /// and the inverse ratio, so a move takes the share of the clock it takes there.
    pub fn within_scales(&self, clock: &ClockSituation) -> (ClockSituation, f64) {
        let Some([lo, hi]) = self.scales else {
            return (*clock, 1.0);
        };
        let scale = clock.scale();
        let read = scale.clamp(lo, hi);
        if read == scale {
            return (*clock, 1.0);
        }
        (clock.scaled(read / scale), scale / read)
    }

    /// The median time a person takes to play `mv` in `pos` (after the opponent's `last`) in
    /// the clock situation `clock`, seconds; the model without the nearest cases' times.
    pub fn median_time(
        &self,
        pos: &Chess,
        mv: &Move,
        last: Option<&Move>,
        clock: &ClockSituation,
    ) -> f64 {
        let (read, factor) = self.within_scales(clock);
        self.median_seconds(&features(pos, mv, last, &read, None)) * factor
    }

    /// The model from weights in feature order.
    pub fn from_vector(weights: &[f64], sigma: f64) -> PaceModel {
        PaceModel {
            sigma,
            residuals: Vec::new(),
            with_cases: None,
            scales: None,
            weights: PACE_FEATURES
                .iter()
                .zip(weights)
                .map(|(n, w)| (n.to_string(), *w))
                .collect(),
        }
    }
}

/// The value at probability `u` of a distribution given by its quantiles at (i + 0.5) / n,
/// interpolated between them (held at the ends).
fn quantile(q: &[f64], u: f64) -> f64 {
    let at = (u * q.len() as f64 - 0.5).clamp(0.0, (q.len() - 1) as f64);
    let (i, frac) = (at.floor() as usize, at.fract());
    let next = q[(i + 1).min(q.len() - 1)];
    q[i] + frac * (next - q[i])
}

/// What the engine remembers of the clocks from one `go` to the next in a game, to tell how
/// long each side took over its last move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockMemory {
    /// At the last `go`: the ply, the mover's clock and the opponent's, in seconds.
    last: Option<(u32, f64, f64)>,
    /// The largest clock of the mover seen in this game: the starting clock's estimate.
    base: f64,
}

impl ClockMemory {
    /// The largest clock of the mover seen in this game so far (0 before the first `go`).
    pub fn base(&self) -> f64 {
        self.base
    }

    /// The clock situation at a `go` at `ply` (half-moves from the game's start) with `left` and
    /// `their_left` seconds and these increments; remembered for the next `go`. A `go` that
    /// does not follow the last one by two plies starts a new game's memory.
    pub fn observe(
        &mut self,
        ply: u32,
        left: f64,
        their_left: f64,
        increment: f64,
        their_increment: f64,
    ) -> ClockSituation {
        let follows = self.last.filter(|&(p, _, _)| p + 2 == ply);
        if follows.is_none() {
            self.base = 0.0;
        }
        self.base = self.base.max(left);
        self.last = Some((ply, left, their_left));
        let took = |before: f64, inc: f64, now: f64| (before + inc - now).max(0.0);
        ClockSituation {
            left,
            their_left: Some(their_left),
            base: self.base,
            increment,
            own_last: follows.map(|(_, own, _)| took(own, increment, left)),
            their_last: follows.map(|(_, _, their)| took(their, their_increment, their_left)),
        }
    }
}

/// The time a person would take over a move in one position, before the move is known: one
/// draw from people's spread, applied to whichever move is chosen.
#[derive(Clone, Debug)]
pub struct HumanPlan {
    model: PaceModel,
    /// The clock situation as the model reads it ([`PaceModel::within_scales`]).
    clock: ClockSituation,
    /// What the model's times are multiplied by (1 within the fitted scales).
    factor: f64,
    /// The draw: a probability of people's spread, and a normal deviate for a model without
    /// quantiles.
    draw: (f64, f64),
    /// The most any legal move would take by the pacing model (without the cases' times): the
    /// search must be done by then.
    pub longest: f64,
    /// The most the clock allows this move (the time manager's maximum), seconds.
    pub maximum: f64,
}

impl HumanPlan {
    /// Draws the spread for the position of `pos` (the opponent's `last` move before it) in
    /// the clock situation `clock`; `None` without a fitted model or without a legal move.
    pub fn new(
        model: &PaceModel,
        pos: &Chess,
        last: Option<&Move>,
        clock: ClockSituation,
        rng: &mut impl Rng,
    ) -> Option<HumanPlan> {
        if model.is_empty() {
            return None;
        }
        let (clock, factor) = model.within_scales(&clock);
        let plan = HumanPlan {
            model: model.clone(),
            clock,
            factor,
            draw: (rng.random(), standard_normal(rng)),
            longest: 0.0,
            maximum: f64::INFINITY,
        };
        let longest = pos
            .legal_moves()
            .iter()
            .map(|m| plan.seconds(pos, last, m, None))
            .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))))?;
        Some(HumanPlan { longest, ..plan })
    }

    /// The seconds a person would take to play `mv`; `cases`: the nearest cases' time scaled
    /// to this clock ([`cases_time`]), read by the model fitted with it when there is one.
    pub fn seconds(&self, pos: &Chess, last: Option<&Move>, mv: &Move, cases: Option<f64>) -> f64 {
        let model = match (&self.model.with_cases, cases) {
            (Some(inner), Some(_)) => inner,
            _ => &self.model,
        };
        let x = features(pos, mv, last, &self.clock, cases);
        let noise = model.noise(self.draw.0, self.draw.1);
        ((model.log_seconds(&x) + noise).exp() - LOG_FLOOR).max(0.0) * self.factor
    }

    /// The mover's clock as the model reads it, seconds (the nearest cases' time is scaled to
    /// this clock, [`cases_time`]).
    pub fn left(&self) -> f64 {
        self.clock.left
    }
}

impl HumanPlan {
    /// A person's plan for the move of `game` in the clock `situation` (`None` without a fitted
    /// pacing model), drawn from `seed` (with the game's ply) or from the system; its longest
    /// time held within `maximum`, the clock's most for this move. What the UCI loop and the
    /// web server both play by.
    pub fn for_move(
        model: &PaceModel,
        game: &Game,
        situation: ClockSituation,
        maximum: Duration,
        seed: Option<u64>,
    ) -> Option<HumanPlan> {
        let mut rng: rand::rngs::StdRng = match seed {
            Some(seed) => rand::SeedableRng::seed_from_u64(seed ^ u64::from(game.ply())),
            None => rand::SeedableRng::from_os_rng(),
        };
        let last = game.last_move.as_ref();
        let mut plan = HumanPlan::new(model, &game.position, last, situation, &mut rng)?;
        plan.maximum = maximum.as_secs_f64();
        plan.longest = plan.longest.min(plan.maximum);
        Some(plan)
    }

    /// The seconds a person takes over `t`'s move in `game` (the clocks of its nearest cases in
    /// `cb`, the case base its cases are of, read when it has them), within the clock's most,
    /// with the line that says where the time came from.
    pub fn taken(&self, game: &Game, t: &Thought, cb: &CaseBase) -> (f64, String) {
        let clocks: Vec<MoveClock> = if cb.timed_cases() > 0 {
            t.decision
                .cases
                .iter()
                .filter_map(|c| cb.case_clock(c.index))
                .collect()
        } else {
            Vec::new()
        };
        let timed = clocks.len();
        let cases = cases_time(clocks, self.left());
        let seconds = self
            .seconds(&game.position, game.last_move.as_ref(), &t.mv, cases)
            .min(self.maximum);
        let from = match cases {
            Some(_) => format!("the pacing model and {timed} nearest cases' clocks"),
            None => "the pacing model".to_string(),
        };
        let line = format!(
            "human time {seconds:.1} s, from {from} (the longest for a move here {:.1} s)",
            self.longest
        );
        (seconds, line)
    }
}

/// A standard normal draw (Box–Muller).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn position(fen: &str) -> Chess {
        let fen: Fen = fen.parse().expect("fen");
        fen.into_position(shakmaty::CastlingMode::Standard)
            .expect("position")
    }

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>()
            .expect("uci")
            .to_move(pos)
            .expect("legal")
    }

    const CLOCK: ClockSituation = ClockSituation {
        left: 100.0,
        their_left: Some(50.0),
        base: 180.0,
        increment: 2.0,
        own_last: Some(3.0),
        their_last: None,
    };

    #[test]
    fn features_say_what_the_move_and_the_clock_are() {
        // After 1. e4 d5: exd5 captures; ...Qxd5 would recapture.
        let pos = position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        let x = features(&pos, &mv(&pos, "e4d5"), None, &CLOCK, None);
        let at = |name| x[PACE_FEATURES.iter().position(|n| *n == name).expect(name)];
        assert_eq!(at("bias"), 1.0);
        assert!((at("log_left") - 101f64.ln()).abs() < 1e-12);
        // Fullmove 2: 38 moves to come, 100 s left, 2 s a move.
        assert!((at("log_budget") - (100.0 / 38.0 + 3.0f64).ln()).abs() < 1e-12);
        assert!((at("clock_lead") - (101f64.ln() - 51f64.ln())).abs() < 1e-12);
        assert_eq!(
            (at("capture"), at("recapture"), at("check")),
            (1.0, 0.0, 0.0)
        );
        assert_eq!((at("only_move"), at("no_history")), (0.0, 0.0));
        assert!((at("log_own_last") - 3.5f64.ln()).abs() < 1e-12);
        assert_eq!((at("log_their_last"), at("cases")), (0.0, 0.0));
        assert!((at("opening") - 0.2).abs() < 1e-12);
        let after = {
            let mut p = pos.clone();
            p.play_unchecked(mv(&pos, "e4d5"));
            p
        };
        let recapture = mv(&after, "d8d5");
        let last = mv(&pos, "e4d5");
        let y = features(&after, &recapture, Some(&last), &CLOCK, Some(1.5));
        assert_eq!((y[13], y[14], y[CASES_FEATURE]), (1.0, 1.0, 1.5));
    }

    #[test]
    fn the_cases_time_is_their_share_of_their_clock_applied_to_this_one() {
        let clocks = [
            MoveClock {
                left: 600,
                spent: 60,
            },
            MoveClock {
                left: 1200,
                spent: 0,
            },
            MoveClock { left: 0, spent: 0 },
        ];
        let got = cases_time(clocks, 99.0).expect("timed cases");
        let want = ((6.5f64 / 61.0).ln() + (0.5f64 / 121.0).ln()) / 2.0 + 100f64.ln();
        assert!((got - want).abs() < 1e-12);
        assert_eq!(cases_time([], 99.0), None);
    }

    #[test]
    fn a_model_needs_one_finite_weight_a_feature() {
        let full = PaceModel::from_vector(&[0.1; PACE_FEATURES.len()], 0.9);
        assert_eq!(full.check(), Ok(()));
        let mut missing = full.clone();
        missing.weights.remove("capture");
        assert!(missing.check().unwrap_err().contains("`capture`"));
        let mut extra = full.clone();
        extra.weights.insert("captur".into(), 1.0);
        assert!(extra.check().unwrap_err().contains("`captur`"));
        let wide = PaceModel {
            sigma: f64::NAN,
            ..full
        };
        assert!(wide.check().is_err());
        assert_eq!(PaceModel::default().check(), Ok(()));
    }

    #[test]
    fn the_clock_memory_tells_how_long_each_side_took() {
        let mut memory = ClockMemory::default();
        let first = memory.observe(0, 180.0, 180.0, 2.0, 2.0);
        assert_eq!(
            (first.own_last, first.their_last, first.base),
            (None, None, 180.0)
        );
        // We took 10 s (180 + 2 − 172), they took 5 s (180 + 2 − 177).
        let second = memory.observe(2, 172.0, 177.0, 2.0, 2.0);
        assert_eq!(
            (second.own_last, second.their_last),
            (Some(10.0), Some(5.0))
        );
        assert_eq!(second.base, 180.0);
        // A position that does not follow (a new game, or a jump) forgets the last move.
        let other = memory.observe(9, 60.0, 60.0, 0.0, 0.0);
        assert_eq!(
            (other.own_last, other.their_last, other.base),
            (None, None, 60.0)
        );
    }

    #[test]
    fn a_plans_longest_time_bounds_every_legal_moves_time() {
        let mut w = [0.0; PACE_FEATURES.len()];
        w[0] = 1.0;
        w[13] = 1.5; // captures take longer
        let model = PaceModel::from_vector(&w, 0.5);
        let pos = position("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let plan = HumanPlan::new(&model, &pos, None, CLOCK, &mut rng).expect("a plan");
        let capture = plan.seconds(&pos, None, &mv(&pos, "e4d5"), None);
        let quiet = plan.seconds(&pos, None, &mv(&pos, "g1f3"), None);
        assert!(quiet < capture && (capture - plan.longest).abs() < 1e-12);
        assert!(
            ((quiet + LOG_FLOOR).ln() - (capture + LOG_FLOOR).ln() + 1.5).abs() < 1e-9,
            "one draw of the spread for every move"
        );
        assert!(HumanPlan::new(&PaceModel::default(), &pos, None, CLOCK, &mut rng).is_none());
        // With the nearest cases' times, the model fitted with them reads them.
        let mut cased = [0.0; PACE_FEATURES.len()];
        cased[CASES_FEATURE] = 1.0;
        let with = PaceModel {
            with_cases: Some(Box::new(PaceModel::from_vector(&cased, 0.0))),
            ..model
        };
        assert_eq!(with.check(), Ok(()));
        let plan = HumanPlan::new(&with, &pos, None, CLOCK, &mut rng).expect("a plan");
        let knight = mv(&pos, "g1f3");
        assert!((plan.seconds(&pos, None, &knight, Some(20.5f64.ln())) - 20.0).abs() < 1e-9);
        assert!(plan.seconds(&pos, None, &knight, None) < plan.longest + 1e-12);
        let nested = PaceModel {
            with_cases: Some(Box::new(with.clone())),
            ..with.clone()
        };
        assert!(nested.check().unwrap_err().contains("another"));
    }

    #[test]
    fn drawn_times_follow_the_residuals_quantiles() {
        assert_eq!(quantile(&[-1.0, 0.0, 2.0], 0.5), 0.0);
        assert_eq!(quantile(&[-1.0, 0.0, 2.0], 0.0), -1.0);
        assert_eq!(quantile(&[-1.0, 0.0, 2.0], 1.0), 2.0);
        assert!((quantile(&[-1.0, 0.0, 2.0], 2.0 / 3.0) - 1.0).abs() < 1e-12);
        let mut w = [0.0; PACE_FEATURES.len()];
        w[0] = 4.5f64.ln();
        let mut model = PaceModel::from_vector(&w, 0.8);
        // A two-humped spread: 3/8 of the draws at each end, a quarter between (interpolated):
        // instant below u ≈ 0.48, over 30 s above u ≈ 0.62.
        model.residuals = vec![-5.0, -5.0, 2.0, 2.0];
        let mut x = [0.0; PACE_FEATURES.len()];
        x[0] = 1.0;
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let times: Vec<f64> = (0..10_000)
            .map(|_| model.sample_seconds(&x, &mut rng))
            .collect();
        let fast = times.iter().filter(|&&t| t < 0.1).count();
        let slow = times.iter().filter(|&&t| t > 30.0).count();
        assert!((4_600..5_050).contains(&fast), "{fast}");
        assert!((3_550..4_000).contains(&slow), "{slow}");
        assert!(model.check().is_ok());
        model.residuals = vec![1.0, 0.0];
        assert!(model.check().is_err());
    }

    #[test]
    fn drawn_times_spread_around_the_median_as_sigma_says() {
        let mut w = [0.0; PACE_FEATURES.len()];
        w[0] = 10.5f64.ln();
        let model = PaceModel::from_vector(&w, 0.8);
        let x = {
            let mut x = [0.0; PACE_FEATURES.len()];
            x[0] = 1.0;
            x
        };
        assert!((model.median_seconds(&x) - 10.0).abs() < 1e-9);
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut logs: Vec<f64> = (0..20_000)
            .map(|_| (model.sample_seconds(&x, &mut rng) + LOG_FLOOR).ln())
            .collect();
        logs.sort_by(f64::total_cmp);
        let median = logs[logs.len() / 2];
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / logs.len() as f64).sqrt();
        assert!((median - 10.5f64.ln()).abs() < 0.03, "{median}");
        assert!((sd - 0.8).abs() < 0.02, "{sd}");
    }

    /// The shipped model's think for every legal move of a few positions, at a fixed draw of
    /// people's spread, with `cases` the nearest cases' time as the engine would scale it to
    /// the clock read (`None`: a case base without clocks).
    fn shipped_times(clock: ClockSituation, cases: Option<f64>) -> Vec<f64> {
        use rand::SeedableRng;
        let model = crate::think::config::EngineConfig::default().pace;
        let mut times = Vec::new();
        for (fen, last) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                None,
            ),
            (
                "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 2 14",
                None,
            ),
            ("8/5pk1/6p1/3R4/5P2/6PK/r7/8 b - - 3 47", Some("d1d5")),
        ] {
            let pos = position(fen);
            let last = last.map(|u| {
                let before = position("8/5pk1/6p1/8/5P2/6PK/r7/3R4 w - - 2 47");
                mv(&before, u)
            });
            let mut rng = rand::rngs::StdRng::seed_from_u64(11);
            let plan = HumanPlan::new(&model, &pos, last.as_ref(), clock, &mut rng).expect("plan");
            let cases = cases.map(|share: f64| share + (plan.left() + 1.0).ln());
            for m in pos.legal_moves() {
                times.push(plan.seconds(&pos, last.as_ref(), &m, cases));
            }
        }
        times
    }

    /// Asserts that along `clocks` (each named) no move's think gets shorter.
    fn never_shorter(
        clocks: impl Iterator<Item = (String, ClockSituation)>,
        cases: Option<f64>,
        control: &str,
    ) {
        let mut before: Option<Vec<f64>> = None;
        for (name, clock) in clocks {
            let now = shipped_times(clock, cases);
            if let Some(b) = &before {
                for (a, n) in b.iter().zip(&now) {
                    assert!(*n >= a - 1e-9, "{control} {name}: {a} -> {n}");
                }
            }
            before = Some(now);
        }
    }

    #[test]
    fn more_time_left_never_gives_a_shorter_median_think() {
        // Every control from 15 s to 90 min (beyond the fitted scales too), with and without
        // the opponent's clock, the last moves' times and the cases' times: the same position
        // and move never get a shorter think with more time left (base held), nor when every
        // time of the clock is multiplied up.
        for (base, increment) in [
            (15.0, 0.0),
            (60.0, 0.0),
            (180.0, 2.0),
            (600.0, 0.0),
            (900.0, 15.0),
            (5400.0, 30.0),
        ] {
            for their_left in [None, Some(base / 2.0), Some(base)] {
                for history in [None, Some(2.0)] {
                    for cases in [None, Some(-3.0)] {
                        let clock = |left: f64| ClockSituation {
                            left,
                            their_left,
                            base,
                            increment,
                            own_last: history,
                            their_last: history,
                        };
                        let by_left = (0..=40).map(|step| {
                            let left = base * 1.5 * f64::from(step) / 40.0;
                            (format!("left {left}"), clock(left))
                        });
                        never_shorter(by_left, cases, &format!("{base}+{increment}"));
                        let by_scale = (0..=30).map(|step| {
                            let r = 0.05 * 1.2f64.powi(step);
                            (format!("scaled {r}"), clock(base * 0.6).scaled(r))
                        });
                        never_shorter(by_scale, cases, &format!("{base}+{increment}"));
                    }
                }
            }
        }
    }
}
