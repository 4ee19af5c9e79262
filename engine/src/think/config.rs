//! The engine's configuration: how the cases are reused, how the search revises them, the move
//! model and the levels. A parameter file holds it (`think::params`): the registry's settings
//! (`think::settings`) under their keys, and the structures below under their field names.

use serde::Serialize;

use crate::model::network::Network;
use crate::model::{LOSS_2_FEATURE, LOSS_LAST_FEATURE, ModelConfig, N_FEATURES};
use crate::pgn::Speed;
use crate::player::{Player, PlayerWeights, Strength};
use crate::reuse::ReuseConfig;
use crate::revise::ReviseConfig;
use crate::search::Evaluation;
use crate::think::pace::PaceModel;
use crate::think::scale::{EloScale, rapid_equivalent};

/// How the engine picks its move among the legal ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// The move the model finds most probable for a player of the case base: imitation.
    #[default]
    Imitate,
    /// A move drawn from the model's probabilities (at a temperature): a sparring partner that
    /// errs like a person.
    Human,
    /// The strongest: the search's best value, the cases breaking ties between equal moves.
    Best,
    /// The `best` style's search vetting the move model's likeliest moves: the likeliest one
    /// within the tolerance of the best value.
    Natural,
}

crate::choice::choice!(Style, "style", [
    Imitate => "imitate",
    Human => "human",
    Best => "best",
    Natural => "natural",
]);

/// What chooses the move under a configuration: its style, whether it revises and whether its
/// parameters hold a move model ([`EngineConfig::decider`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    /// Revise off: the nearest cases' vote (the thesis' reasoner), whatever the style.
    Cases,
    /// The search, the cases breaking its ties: `best`, and a model's style whose parameters
    /// hold no model.
    Search,
    /// The search vetting the move model's likeliest moves: `natural`.
    SearchAndModel,
    /// The move model, from what the search and the cases say: `imitate` and `human`.
    Model,
}

/// The speed a player file's bot plays at (`PlayerClock`): the rating of the player's games
/// at that speed sets its level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlayerClock {
    /// The game's clock (its speed when the game's first timed `go` came); without a clock,
    /// the speed of most of the player's games.
    #[default]
    Auto,
    /// Their bullet games' rating.
    Bullet,
    /// Their blitz games'.
    Blitz,
    /// Their rapid games'.
    Rapid,
    /// Their classical (and untimed over-the-board) games'.
    Classical,
}

crate::choice::choice!(PlayerClock, "player clock", [
    Auto => "auto",
    Bullet => "bullet",
    Blitz => "blitz",
    Rapid => "rapid",
    Classical => "classical",
]);

impl PlayerClock {
    /// The speed it names (`None`: auto).
    pub fn speed(self) -> Option<Speed> {
        match self {
            PlayerClock::Auto => None,
            PlayerClock::Bullet => Some(Speed::Bullet),
            PlayerClock::Blitz => Some(Speed::Blitz),
            PlayerClock::Rapid => Some(Speed::Rapid),
            PlayerClock::Classical => Some(Speed::Classical),
        }
    }

    /// The setting that names `speed`.
    pub fn of(speed: Speed) -> PlayerClock {
        match speed {
            Speed::Bullet => PlayerClock::Bullet,
            Speed::Blitz => PlayerClock::Blitz,
            Speed::Rapid => PlayerClock::Rapid,
            Speed::Classical => PlayerClock::Classical,
        }
    }
}

/// What set the level a move was played at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelFrom {
    /// `UCI_Elo` with `UCI_LimitStrength` (`--elo`).
    Setting,
    /// The player file's rating (`PlayerStrength`).
    Player(Strength),
}

/// The level a move was played at: the level, the setting it was chosen for (clamped into the
/// levels' range) and what set it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedLevel {
    /// The level as played (the evaluation it was played with named).
    pub level: Level,
    /// The setting.
    pub elo: u16,
    /// What set it.
    pub from: LevelFrom,
    /// How many times its calibrated appetite for errors it errs (a player file's error fit
    /// with `PlayerErrors`; 1: as calibrated).
    pub errs: f64,
}

/// Everything that decides how the engine chooses a move.
///
/// Serde reads the parameter file's structures alone (`errors`, `model`, `levels`, …), each
/// missing one the default's; the settings, which it skips, are read and written through the
/// registry ([`crate::think::settings::SETTINGS`]), which names their keys
/// ([`crate::think::params`]).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default = "EngineConfig::base")]
pub struct EngineConfig {
    /// How the move is picked.
    #[serde(skip)]
    pub style: Style,
    /// `human` style: moves are drawn with probability ∝ P^(1/temperature); 1 = the model's own
    /// probabilities, below 1 sharper. The default 0.8 makes the engine blunder as often as the
    /// humans it imitates: on 1,000 held-out positions of movers rated 1400–1799 (Stockfish
    /// depth 12, loss ≥ 200 cp) 9.3 % against the humans' 8.7 %; at 1 it was 11.8 %.
    #[serde(skip)]
    pub temperature: f64,
    /// `human` style, when set: no draw, but the rule of [`ErringRule`] (err where the model's
    /// likeliest error is tempting enough). `None`: draw at `temperature`.
    pub errors: Option<ErringRule>,
    /// Retrieval, adaptation and the vote.
    #[serde(skip)]
    pub reuse: ReuseConfig,
    /// The revise stage (a tactical check of the cases' proposals).
    #[serde(skip)]
    pub revise: ReviseConfig,
    /// The move model's weights (fitted by `precedent fit moves`).
    pub model: ModelConfig,
    /// The levels of play `elo` chooses from (fitted by `precedent fit moves --levels`), in
    /// increasing order of `elo`.
    pub levels: Vec<Level>,
    /// The network the levels that share one play (read at each level's
    /// [`Level::network_rating`]), when it is not the model's: the network they were fitted and
    /// calibrated under, kept when the model's network is refitted without them. `None`: the
    /// model's. It belongs to the levels of its file: a parameter file with levels of its own and no `level_network` plays them
    /// on its own model's network.
    pub level_network: Option<Network>,
    /// Play at this level (`UCI_LimitStrength` with `UCI_Elo`): the `human` style with the
    /// model and temperature of the level nearest to it. `None` = the style above.
    #[serde(skip)]
    pub elo: Option<u16>,
    /// Under a clock, hold the move as long as a person would have thought about it (`HumanTime`,
    /// [`crate::think::PaceModel`]); the search itself stops by then. Off: the clock's budget.
    #[serde(skip)]
    pub human_time: bool,
    /// The pacing model `human_time` draws a move's time from (fitted by `precedent fit time`).
    pub pace: PaceModel,
    /// How a player file's evidence moves the move model (fitted by `precedent players --fit`).
    pub player: PlayerWeights,
    /// With a player file and no `elo`: play at the level of the player's rating at the
    /// game's speed (`PlayerStrength`); off, their likeliest move by the model fitted to them.
    #[serde(skip)]
    pub player_strength: bool,
    /// The speed whose rating a player file plays at (`PlayerClock`).
    #[serde(skip)]
    pub player_clock: PlayerClock,
    /// The scale `elo` and a player's rating choose a level on (`EloScale`): Stockfish's,
    /// each level's `elo`, or the people's, each level's `people`.
    #[serde(skip)]
    pub elo_scale: EloScale,
    /// At the player's strength, err as often as the player (`PlayerErrors`): the factor their
    /// file's error fit found, when it was built with a judge; off, the level as calibrated.
    #[serde(skip)]
    pub player_errors: bool,
    /// How much more a `human` level errs than it was calibrated to: its temperature
    /// multiplied, its errors rule's ratio divided by it (1: as calibrated). What a player
    /// file's error fit sets ([`crate::casebase::profile::ErrorFit`]), and what that fit tries.
    #[serde(skip)]
    pub error_factor: f64,
}

/// A level of play: the move model fitted on the moves of players of one rating band, and the
/// temperature at which drawing from it errs as often as they do; or, at the top, the `best`
/// style, for a level that has no strength left to pay for human errors.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// The `UCI_Elo` (`--elo`) this level is played at: the settings nearest to it choose it.
    pub elo: u16,
    /// Its strength among people, as a Lichess rapid rating (docs/scale.md): where the
    /// people's scale (`EloScale people`) places it. `None`: not measured among people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub people: Option<u16>,
    /// Lowest rating of the movers its model was fitted on (of a `best` level: the band it is
    /// measured on).
    pub min_rating: u16,
    /// Highest rating of the movers its model was fitted on.
    pub max_rating: u16,
    /// How the level chooses: `human` (its model, by its errors rule or drawn at its
    /// temperature), `imitate` (its model's most probable move), `natural` (its model's
    /// likeliest move within `tolerance` of the best by the `best` style's search) or `best`
    /// (the strongest style, which reads no model of its own).
    #[serde(default = "human", skip_serializing_if = "is_human")]
    pub style: Style,
    /// `human` style temperature (draws ∝ P^(1/T)).
    #[serde(default = "one")]
    pub temperature: f64,
    /// Factor on the weights of the search's features: above 1 the level heeds the search more
    /// than the band's players did, and plays stronger (calibrated against Stockfish).
    #[serde(default = "one")]
    pub search_weight: f64,
    /// Err by the rule of [`ErringRule`] instead of drawing at `temperature`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<ErringRule>,
    /// The evaluation of the search its model reads, when the engine's is `auto`: the one its
    /// model was fitted and the level calibrated on. `None`: `auto`'s own choice, the network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<Evaluation>,
    /// Whether a model without a network of its own plays the levels' shared network at the
    /// band's middle rating (as `fit moves --levels` fits it); `false` for a level fitted and
    /// calibrated on its linear weights alone.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub share_network: bool,
    /// The deepest iteration of the level's search (the engine's `max_depth` when deeper): a
    /// level that looks as far as its players do errs where they do, at every clock. `None`:
    /// the engine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// A `natural` or `best` level: how many centipawns below the search's best value a
    /// proposal may be and still be played (`None`: the engine's `tolerance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<i32>,
    /// The rating a network it shares is read at (`None`: the band's middle rating): a level
    /// may imitate its band better with the network read elsewhere, as a level on the default
    /// style's model read at the default style's rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u16>,
    /// The move model fitted on the band's moves; none for a `best` level, and none for a
    /// level that plays the default style's model (`[model]`) at its rating.
    #[serde(default, skip_serializing_if = "ModelConfig::is_unset")]
    pub model: ModelConfig,
}

impl Level {
    /// Its number on `scale`: its `elo` on Stockfish's, its `people` on the people's (`None`
    /// where it was not measured among people).
    pub fn on(&self, scale: EloScale) -> Option<u16> {
        match scale {
            EloScale::Stockfish => Some(self.elo),
            EloScale::People => self.people,
        }
    }

    /// Whether the level plays the shared network (read at [`Level::network_rating`]):
    /// it shares it and has none of its own.
    pub fn plays_shared_network(&self) -> bool {
        self.share_network && self.model.network.is_none()
    }

    /// Whether the level plays the default style's model (`[model]`, its network read at the
    /// level's rating) for want of a model of its own: a `human` or `imitate` level without
    /// weights (a `best` level reads no model).
    pub fn plays_default_model(&self) -> bool {
        self.style != Style::Best && self.model.is_unset()
    }

    /// The band's middle rating.
    pub fn middle_rating(&self) -> f64 {
        (f64::from(self.min_rating) + f64::from(self.max_rating)) / 2.0
    }

    /// The rating a shared network is read at: the level's `rating`, else its band's middle.
    pub fn network_rating(&self) -> f64 {
        self.rating.map_or_else(|| self.middle_rating(), f64::from)
    }
}

fn yes() -> bool {
    true
}

fn human() -> Style {
    Style::Human
}

fn is_human(style: &Style) -> bool {
    *style == Style::Human
}

fn is_true(b: &bool) -> bool {
    *b
}

/// How the `human` style errs without drawing: it plays the model's most probable *sound* move
/// (one the search finds less than `loss` centipawns worse than the best) unless the model's
/// most probable *error* (`loss` or worse) is at least `ratio` times as probable; then that
/// error. The engine errs where the model's players are tempted to, with their likeliest
/// error, and otherwise plays their likeliest move, so that it matches more of their moves than
/// a draw erring as often (`docs/levels.md`, "How a level plays").
///
/// With `hidden`, only errors the search does not see at two plies count (their loss there is
/// under `hidden` centipawns): the ones a player misses because the refutation lies deeper.
/// An error that shows at two plies (a piece left to a capture) is then never chosen while any
/// other move remains.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErringRule {
    /// What counts as an error: a loss of at least this many centipawns by the search.
    pub loss: u32,
    /// How tempting an error must be: its probability against the likeliest sound move's.
    pub ratio: f64,
    /// Only errors whose loss after two plies is under this many centipawns (none: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<u32>,
}

/// A move's losses by the search, in centipawns: at its last iteration and after two plies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Losses {
    /// At the last completed iteration.
    pub last: f64,
    /// At the second iteration (two plies and the quiescence search).
    pub shallow: f64,
}

impl ErringRule {
    /// The move played among moves of probabilities `p` and search `losses`: an index into
    /// both, and whether it is an error. `None` without moves.
    pub fn choose(&self, p: &[f64], losses: &[Losses]) -> Option<(usize, bool)> {
        #[derive(PartialEq)]
        enum Kind {
            Sound,
            /// An error the rule may play.
            Error,
            /// An error that shows at two plies, with `hidden` set: played only when nothing
            /// else is left.
            Shown,
        }
        let kind = |l: &Losses| {
            if l.last < f64::from(self.loss) {
                Kind::Sound
            } else if self.hidden.is_none_or(|h| l.shallow < f64::from(h)) {
                Kind::Error
            } else {
                Kind::Shown
            }
        };
        let likeliest = |of: Option<Kind>| {
            p.iter()
                .zip(losses)
                .enumerate()
                .filter(|(_, (_, l))| of.as_ref().is_none_or(|k| kind(l) == *k))
                .max_by(|a, b| a.1.0.total_cmp(b.1.0))
                .map(|(i, (q, _))| (i, *q))
        };
        match (likeliest(Some(Kind::Sound)), likeliest(Some(Kind::Error))) {
            (Some((_, q)), Some((error, e))) if e > 0.0 && e >= self.ratio * q => {
                Some((error, true))
            }
            (Some((sound, _)), _) => Some((sound, false)),
            (None, Some((error, _))) => Some((error, true)),
            (None, None) => likeliest(None).map(|(i, _)| (i, true)),
        }
    }

    /// [`ErringRule::choose`] with each move's losses read from its evidence `features` (the
    /// search's losses at the last iteration and after two plies, in pawns); move 0 without
    /// moves.
    pub fn choose_by_evidence(&self, p: &[f64], features: &[[f64; N_FEATURES]]) -> (usize, bool) {
        let losses: Vec<Losses> = features
            .iter()
            .map(|x| Losses {
                last: x[LOSS_LAST_FEATURE] * 100.0,
                shallow: x[LOSS_2_FEATURE] * 100.0,
            })
            .collect();
        self.choose(p, &losses).unwrap_or((0, false))
    }
}

fn one() -> f64 {
    1.0
}

/// The level chosen for an `elo` setting, and what became of the setting.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelChoice<'a> {
    /// The level played.
    pub level: &'a Level,
    /// The setting, clamped into [`EngineConfig::elo_range`].
    pub elo: u16,
    /// Whether the setting was outside the range.
    pub clamped: bool,
}

/// The parameter file of the embedded default case base, fitted on games outside it.
const DEFAULT_PARAMS: &str = include_str!("../../../casebases/default.toml");

std::thread_local! {
    /// Whether this thread is reading the embedded parameter file for [`EngineConfig::default`].
    static READING_DEFAULTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Default for EngineConfig {
    /// The defaults, with the move model, the levels and the pacing model fitted for the
    /// embedded case base.
    fn default() -> EngineConfig {
        static FITTED: std::sync::OnceLock<EngineConfig> = std::sync::OnceLock::new();
        FITTED
            .get_or_init(|| {
                READING_DEFAULTS.with(|r| r.set(true));
                // The embedded file parses (a test says so).
                let fitted = toml::from_str(DEFAULT_PARAMS).unwrap_or_else(|_| Self::unfitted());
                READING_DEFAULTS.with(|r| r.set(false));
                fitted
            })
            .clone()
    }
}

impl EngineConfig {
    /// The settings' defaults, with no move model, no levels and no pacing model.
    fn unfitted() -> EngineConfig {
        EngineConfig {
            style: Style::default(),
            temperature: 0.8,
            errors: None,
            reuse: ReuseConfig::default(),
            revise: ReviseConfig::default(),
            model: ModelConfig::default(),
            levels: Vec::new(),
            level_network: None,
            elo: None,
            human_time: false,
            pace: PaceModel::default(),
            player: PlayerWeights::default(),
            player_strength: true,
            player_clock: PlayerClock::Auto,
            elo_scale: EloScale::Stockfish,
            player_errors: false,
            error_factor: 1.0,
        }
    }

    /// What serde starts from (what a parameter file leaves out): the defaults, or, while the
    /// defaults themselves are read from the embedded file, the unfitted ones.
    fn base() -> EngineConfig {
        match READING_DEFAULTS.with(|r| r.get()) {
            true => EngineConfig::unfitted(),
            false => EngineConfig::default(),
        }
    }

    /// The `elo` settings the levels cover on the scale of `elo_scale` (lowest and highest
    /// level), if there are levels on it.
    pub fn elo_range(&self) -> Option<(u16, u16)> {
        let on = || self.levels.iter().filter_map(|l| l.on(self.elo_scale));
        Some((on().min()?, on().max()?))
    }

    /// What chooses the move: the style, unless nothing is revised (the cases) or the style asks
    /// for a move model these parameters lack (every weight 0: the search, as `best`).
    pub fn decider(&self) -> Decider {
        match self.style {
            _ if !self.revise.enabled => Decider::Cases,
            Style::Best => Decider::Search,
            _ if self.model.is_empty() => Decider::Search,
            Style::Natural => Decider::SearchAndModel,
            Style::Imitate | Style::Human => Decider::Model,
        }
    }

    /// A note when the style asks for the move model and these parameters' is empty: the style
    /// then plays as `best` does ([`EngineConfig::decider`]). `None` when the style gets what it
    /// asks for, or when nothing is revised (the cases alone decide, as in the thesis).
    pub fn unmodelled_style(&self) -> Option<String> {
        (self.style != Style::Best && self.decider() == Decider::Search).then(|| {
            format!(
                "style {} needs a move model and the parameters' is empty: it plays as best",
                self.style
            )
        })
    }

    /// The level played at `elo`: the one nearest to it on the scale of `elo_scale` (the
    /// lower on a tie), the setting first clamped into [`EngineConfig::elo_range`]. `None`
    /// without levels on that scale.
    pub fn level_for(&self, elo: u16) -> Option<LevelChoice<'_>> {
        let (lo, hi) = self.elo_range()?;
        let clamped = elo.clamp(lo, hi);
        let level = self
            .levels
            .iter()
            .filter_map(|l| Some((l.on(self.elo_scale)?, l)))
            .min_by_key(|(e, _)| (e.abs_diff(clamped), *e))
            .map(|(_, l)| l)?;
        Some(LevelChoice {
            level,
            elo: clamped,
            clamped: clamped != elo,
        })
    }

    /// The configuration a move is chosen with, and the level it plays at: with `elo` set and
    /// levels known, the level's style with its model (its search features weighted by the
    /// level's search weight) and temperature, or, for a `best` level, the `best` style; its
    /// search no deeper than the level's depth; else this one. The level comes back as played,
    /// with the setting it was chosen for: an `Evaluation` the user set replaces the level's own.
    pub fn resolved(&self) -> (std::borrow::Cow<'_, EngineConfig>, Option<(Level, u16)>) {
        self.resolved_at(self.elo, 1.0)
    }

    /// The level setting a move is played at, and what set it: `elo` when set; else, with a
    /// player file and `player_strength`, the player's rating at the speed of `player_clock`.
    pub fn level_setting(&self, player: Option<&Player>) -> Option<(u16, LevelFrom)> {
        if let Some(elo) = self.elo {
            return Some((elo, LevelFrom::Setting));
        }
        let player = player.filter(|_| self.player_strength)?;
        let strength = player.strength(self.player_clock.speed())?;
        let rating = match self.elo_scale {
            EloScale::Stockfish => strength.rating,
            EloScale::People => rapid_equivalent(strength.speed, strength.rating),
        };
        Some((rating, LevelFrom::Player(strength)))
    }

    /// [`EngineConfig::resolved`] at the setting `elo` (`None`: no level), a `human` level
    /// erring `errs` times as much again as `error_factor` says (a player's own fit). A
    /// configuration resolved at a level has its `elo` set to the setting (clamped), so that
    /// what reads it knows a level plays.
    pub fn resolved_at(
        &self,
        elo: Option<u16>,
        errs: f64,
    ) -> (std::borrow::Cow<'_, EngineConfig>, Option<(Level, u16)>) {
        let Some(choice) = elo.and_then(|e| self.level_for(e)) else {
            return (std::borrow::Cow::Borrowed(self), None);
        };
        let level = choice.level;
        let mut revise = self.revise.clone();
        if revise.eval == Evaluation::Auto
            && let Some(eval) = level.evaluation
        {
            revise.eval = eval;
        }
        if let Some(depth) = level.depth {
            revise.max_depth = revise.max_depth.min(depth);
        }
        if let Some(tolerance) = level.tolerance {
            revise.tolerance = tolerance;
        }
        // The level as played names the evaluation when it is not `auto`'s: its own, or the
        // one the user set.
        let mut played = level.clone();
        played.evaluation = (revise.eval != Evaluation::Auto).then_some(revise.eval);
        if level.style == Style::Best {
            // Field by field, so that the levels (each with its model) are not cloned a move.
            let cfg = EngineConfig {
                style: Style::Best,
                temperature: self.temperature,
                errors: self.errors,
                reuse: self.reuse.clone(),
                revise,
                model: self.model.clone(),
                levels: Vec::new(),
                level_network: None,
                elo: Some(choice.elo),
                human_time: self.human_time,
                pace: self.pace.clone(),
                player: self.player,
                player_strength: self.player_strength,
                player_clock: self.player_clock,
                elo_scale: self.elo_scale,
                player_errors: self.player_errors,
                error_factor: self.error_factor,
            };
            return (std::borrow::Cow::Owned(cfg), Some((played, choice.elo)));
        }
        // The level's weights, or the default style's for want of its own, and the network it
        // shares: the default style's with its weights, else the levels' (or the model's).
        let (mut model, shared) = if level.plays_default_model() {
            let weights = ModelConfig {
                network: None,
                weights: self.model.weights.clone(),
                smoothing: self.model.smoothing,
            };
            (weights, self.model.network.as_ref())
        } else {
            let shared = self.level_network.as_ref().or(self.model.network.as_ref());
            (level.model.clone(), shared)
        };
        // Without a network of its own, it reads the shared one at its rating.
        if level.plays_shared_network()
            && let Some(net) = shared
        {
            let mut net = net.clone();
            net.rating = level.network_rating();
            model.network = Some(net);
        }
        let model = model.with_search_weight(level.search_weight);
        // The levels themselves stay behind: the resolved configuration plays one of them.
        // A `human` level that errs more (or less) than calibrated: hotter draws, a lower
        // ratio. Other styles err by neither.
        let factor = match level.style {
            Style::Human => (self.error_factor * errs).max(1e-3),
            _ => 1.0,
        };
        // The level as played says how it errs.
        played.temperature = level.temperature * factor;
        played.errors = level.errors.map(|rule| ErringRule {
            ratio: rule.ratio / factor,
            ..rule
        });
        let cfg = EngineConfig {
            style: level.style,
            temperature: played.temperature,
            errors: played.errors,
            reuse: self.reuse.clone(),
            revise,
            model,
            levels: Vec::new(),
            level_network: None,
            elo: Some(choice.elo),
            human_time: self.human_time,
            pace: self.pace.clone(),
            player: self.player,
            player_strength: self.player_strength,
            player_clock: self.player_clock,
            elo_scale: self.elo_scale,
            player_errors: self.player_errors,
            error_factor: self.error_factor,
        };
        (std::borrow::Cow::Owned(cfg), Some((played, choice.elo)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_parameter_file_parses_with_a_model() {
        let cfg: EngineConfig = toml::from_str(DEFAULT_PARAMS).expect("default.toml parses");
        assert!(
            !cfg.model.is_empty(),
            "the default case base ships fitted weights"
        );
        assert_eq!(EngineConfig::default().model, cfg.model);
        // HumanTime's pacing model ships with it, complete, and HumanTime is off by default.
        let default = EngineConfig::default();
        assert!(!default.pace.is_empty() && !default.human_time);
        assert_eq!(default.pace.check(), Ok(()));
        assert_eq!(default.pace, cfg.pace);
    }

    #[test]
    fn the_decider_follows_the_style_unless_revise_is_off_or_the_model_is_missing() {
        let with = |style, revise, model: &ModelConfig| {
            let mut cfg = EngineConfig {
                style,
                model: model.clone(),
                ..EngineConfig::default()
            };
            cfg.revise.enabled = revise;
            (cfg.decider(), cfg.unmodelled_style().is_some())
        };
        let fitted = EngineConfig::default().model;
        let empty = ModelConfig::default();
        for style in [Style::Imitate, Style::Human, Style::Best, Style::Natural] {
            // Revise off: the cases decide and nothing is missing, model or not.
            assert_eq!(with(style, false, &fitted), (Decider::Cases, false));
            assert_eq!(with(style, false, &empty), (Decider::Cases, false));
            // Without its model a style plays as best, and says so unless it is best.
            assert_eq!(
                with(style, true, &empty),
                (Decider::Search, style != Style::Best)
            );
        }
        assert_eq!(with(Style::Best, true, &fitted), (Decider::Search, false));
        assert_eq!(
            with(Style::Natural, true, &fitted),
            (Decider::SearchAndModel, false)
        );
        assert_eq!(with(Style::Imitate, true, &fitted), (Decider::Model, false));
        assert_eq!(with(Style::Human, true, &fitted), (Decider::Model, false));
    }

    #[test]
    fn an_error_factor_heats_a_drawn_level_lowers_a_rules_ratio_and_leaves_best_alone() {
        let cfg = EngineConfig::default();
        let at = |elo: u16, errs: f64| {
            let r = cfg.resolved_at(Some(elo), errs).0.into_owned();
            (r.style, r.temperature, r.errors.map(|e| e.ratio))
        };
        for elo in [1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600] {
            let (style, t1, r1) = at(elo, 1.0);
            let (_, t2, r2) = at(elo, 2.0);
            // The level as played says how it errs: as the configuration plays.
            if style == Style::Human {
                let played = cfg.resolved_at(Some(elo), 2.0).1.expect("a level").0;
                assert_eq!(
                    (played.temperature, played.errors.map(|e| e.ratio)),
                    (t2, r2),
                    "{elo}"
                );
            }
            match (style, r1) {
                (Style::Human, Some(r1)) => {
                    assert!((r2.expect("a rule") - r1 / 2.0).abs() < 1e-12, "{elo}")
                }
                (Style::Human, None) => assert!((t2 - 2.0 * t1).abs() < 1e-12, "{elo}"),
                _ => assert_eq!((t1, r1), (t2, r2), "{elo}"),
            }
        }
        // The configuration's own factor and the player's multiply.
        let mut hot = cfg.clone();
        hot.error_factor = 2.0;
        let (t, _) = (hot.resolved_at(Some(1000), 2.0).0.temperature, ());
        assert!((t - 4.0 * cfg.resolved_at(Some(1000), 1.0).0.temperature).abs() < 1e-12);
    }

    #[test]
    fn levels_map_settings_to_the_nearest_level_clamped_into_range() {
        let cfg = EngineConfig::default();
        assert_eq!(cfg.elo_range(), Some((1000, 2600)));
        let elos: Vec<u16> = cfg.levels.iter().map(|l| l.elo).collect();
        assert!(elos.windows(2).all(|w| w[0] < w[1]), "{elos:?}");
        let pick = |e: u16| {
            let c = cfg.level_for(e).expect("levels");
            (c.level.elo, c.level.min_rating, c.elo, c.clamped)
        };
        assert_eq!(pick(1450), (1400, 1400, 1450, false));
        // A tie goes to the lower level.
        assert_eq!(pick(1300), (1200, 1200, 1300, false));
        assert_eq!(pick(1900), (1800, 1800, 1900, false));
        assert_eq!(pick(1901), (2000, 2000, 1901, false));
        assert_eq!(pick(2100), (2000, 2000, 2100, false));
        assert_eq!(pick(2101), (2200, 2200, 2101, false));
        assert_eq!(pick(2300), (2200, 2200, 2300, false));
        assert_eq!(pick(2301), (2400, 2300, 2301, false));
        assert_eq!(pick(2500), (2400, 2300, 2500, false));
        assert_eq!(pick(2501), (2600, 2500, 2501, false));
        assert_eq!(pick(3000), (2600, 2500, 2600, true));
        assert_eq!(pick(0), (1000, 800, 1000, true));
        assert!(
            EngineConfig {
                levels: Vec::new(),
                ..EngineConfig::default()
            }
            .level_for(1500)
            .is_none()
        );
    }

    /// The README's table of levels (`UCI_Elo` range, level, band, model, errors, temperature,
    /// search weight, depth, evaluation) is what the embedded parameter file holds and what
    /// [`EngineConfig::level_for`] chooses: the levels are retuned by hand in both places, and
    /// a user reads the README.
    #[test]
    fn the_readme_level_table_is_the_embedded_levels() {
        const README: &str = include_str!("../../../README.md");
        let header = "| `UCI_Elo` | level | movers rated | model | errors | temperature | search weight | depth | evaluation |";
        let rows: Vec<Vec<&str>> = README
            .lines()
            .skip_while(|l| *l != header)
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
            .collect();
        let cfg = EngineConfig::default();
        assert_eq!(rows.len(), cfg.levels.len(), "README rows {rows:?}");
        let range = |s: &str| -> (u16, u16) {
            let (a, b) = s.split_once('–').unwrap_or_else(|| panic!("range {s:?}"));
            (a.parse().expect(s), b.parse().expect(s))
        };
        let mut next_elo = cfg.elo_range().expect("levels").0;
        for (row, level) in rows.iter().zip(&cfg.levels) {
            let [
                elos,
                elo,
                band,
                model,
                errors,
                temperature,
                weight,
                depth,
                eval,
            ] = row[..]
            else {
                panic!("README row {row:?}");
            };
            // The rows' settings are contiguous and each one chooses the row's level.
            assert_eq!(elo.parse::<u16>().ok(), Some(level.elo), "{row:?}");
            assert_eq!(range(band), (level.min_rating, level.max_rating), "{row:?}");
            let (lo, hi) = range(elos);
            assert_eq!(lo, next_elo, "{row:?}");
            for e in [lo, hi] {
                assert_eq!(cfg.level_for(e).expect("level").level.elo, level.elo, "{e}");
            }
            next_elo = hi + 1;
            let network = level.evaluation != Some(Evaluation::Classic);
            assert_eq!(
                eval,
                if network { "network" } else { "hand-made" },
                "{row:?}"
            );
            // "full" when the level's search goes as deep as the engine's, else its depth.
            assert_eq!(
                depth,
                level.depth.map_or("full".to_string(), |d| d.to_string()),
                "{row:?}"
            );
            // A best level: "best style", and no errors, temperature or weight ("—").
            if level.style == Style::Best {
                assert_eq!(
                    [model, errors, temperature, weight],
                    ["best style", "—", "—", "—"]
                );
                continue;
            }
            // "default": the default style's model at its band; "linear": its own 29-feature
            // model; "network": its own weights with the shared network at its band; "… at R"
            // when the network is read at the level's own rating R.
            let model_word = if level.plays_default_model() {
                "default"
            } else if level.plays_shared_network() {
                "network"
            } else {
                "linear"
            };
            let model_word = match level.rating {
                Some(r) => format!("{model_word} at {r}"),
                None => model_word.to_string(),
            };
            assert_eq!(model, model_word, "{row:?}");
            // "drawn" at the temperature, or "loss ≥ L cp, ratio R" with no temperature ("—").
            match level.errors {
                // An imitate level: its most probable move, no temperature ("—").
                None if level.style == Style::Imitate => {
                    assert_eq!([errors, temperature], ["most probable", "—"], "{row:?}");
                }
                // A natural level: its likeliest move the search finds within its tolerance.
                // ("likeliest of the best" at no tolerance).
                None if level.style == Style::Natural => {
                    let within = match level.tolerance.unwrap_or_default() {
                        0 => "likeliest of the best".to_string(),
                        t => format!("likeliest within {t} cp of the best"),
                    };
                    assert_eq!([errors, temperature], [within.as_str(), "—"], "{row:?}");
                }
                None => {
                    assert_eq!(errors, "drawn", "{row:?}");
                    assert_eq!(
                        temperature.parse::<f64>().ok(),
                        Some(level.temperature),
                        "{row:?}"
                    );
                }
                Some(e) => {
                    let rule = errors
                        .strip_prefix("loss ≥ ")
                        .and_then(|r| r.split_once(" cp, ratio "))
                        .unwrap_or_else(|| panic!("README errors {errors:?}"));
                    // "…, hidden < H cp" when only errors hidden at two plies count.
                    let (ratio, hidden) = match rule.1.split_once(", hidden < ") {
                        Some((r, h)) => (r, h.strip_suffix(" cp").and_then(|h| h.parse().ok())),
                        None => (rule.1, None),
                    };
                    assert_eq!(rule.0.parse::<u32>().ok(), Some(e.loss), "{row:?}");
                    assert_eq!(ratio.parse::<f64>().ok(), Some(e.ratio), "{row:?}");
                    assert_eq!(hidden, e.hidden, "{row:?}");
                    assert_eq!(temperature, "—", "{row:?}");
                }
            }
            assert_eq!(
                weight.parse::<f64>().ok(),
                Some(level.search_weight),
                "{row:?}"
            );
        }
        assert_eq!(next_elo - 1, cfg.elo_range().expect("levels").1);
    }

    /// Losses with nothing to see after two plies.
    fn deep(last: &[f64]) -> Vec<Losses> {
        last.iter()
            .map(|&last| Losses { last, shallow: 0.0 })
            .collect()
    }

    #[test]
    fn the_errors_rule_plays_the_likeliest_sound_move_unless_an_error_tempts_enough() {
        let rule = ErringRule {
            loss: 200,
            ratio: 0.25,
            hidden: None,
        };
        // Losses in centipawns: moves 1 and 3 are errors.
        let losses = deep(&[0.0, 300.0, 40.0, 200.0]);
        // The likeliest error (move 3, 0.1) is below a quarter of the likeliest sound move's 0.6.
        assert_eq!(
            rule.choose(&[0.6, 0.05, 0.25, 0.1], &losses),
            Some((0, false))
        );
        // At a quarter or more it is played, even when a sound move is more probable.
        assert_eq!(
            rule.choose(&[0.5, 0.05, 0.3, 0.15], &losses),
            Some((3, true))
        );
        assert_eq!(rule.choose(&[0.2, 0.5, 0.3, 0.0], &losses), Some((1, true)));
        // A ratio of 1 is the most probable move; a ratio above it only errs when an error is
        // far likelier.
        let argmax = ErringRule { ratio: 1.0, ..rule };
        assert_eq!(
            argmax.choose(&[0.4, 0.1, 0.2, 0.3], &losses),
            Some((0, false))
        );
        assert_eq!(
            argmax.choose(&[0.3, 0.1, 0.2, 0.4], &losses),
            Some((3, true))
        );
        // Only errors, or only sound moves, or a probability-0 error: no choice to make.
        assert_eq!(
            rule.choose(&[0.3, 0.7], &deep(&[500.0, 900.0])),
            Some((1, true))
        );
        assert_eq!(
            rule.choose(&[0.3, 0.7], &deep(&[0.0, 10.0])),
            Some((1, false))
        );
        assert_eq!(
            rule.choose(&[1.0, 0.0], &deep(&[0.0, 900.0])),
            Some((0, false))
        );
        assert_eq!(rule.choose(&[], &[]), None);
    }

    #[test]
    fn hidden_errors_are_the_only_ones_played_when_asked() {
        let rule = ErringRule {
            loss: 200,
            ratio: 0.25,
            hidden: Some(100),
        };
        let l = |last, shallow| Losses { last, shallow };
        // Move 1 loses 3 pawns and shows it at two plies; move 3 loses 2 and hides it there.
        let losses = [l(0.0, 0.0), l(300.0, 300.0), l(20.0, 0.0), l(200.0, 50.0)];
        // The tempting shown error is passed over; the hidden one is played when it tempts.
        assert_eq!(
            rule.choose(&[0.5, 0.4, 0.05, 0.05], &losses),
            Some((0, false))
        );
        assert_eq!(
            ErringRule {
                hidden: None,
                ..rule
            }
            .choose(&[0.5, 0.4, 0.05, 0.05], &losses),
            Some((1, true))
        );
        assert_eq!(rule.choose(&[0.4, 0.3, 0.1, 0.2], &losses), Some((3, true)));
        // Only shown errors: the likeliest of them, an error still.
        assert_eq!(
            rule.choose(&[0.3, 0.7], &[l(500.0, 500.0), l(900.0, 900.0)]),
            Some((1, true))
        );
    }

    #[test]
    fn a_level_with_an_errors_rule_plays_by_it() {
        let mut cfg = EngineConfig::default();
        let rule = ErringRule {
            loss: 150,
            ratio: 0.5,
            hidden: None,
        };
        for level in &mut cfg.levels {
            level.errors = Some(rule);
        }
        cfg.elo = Some(1450);
        assert_eq!(cfg.resolved().0.errors, Some(rule));
        for level in &mut cfg.levels {
            level.errors = None;
        }
        assert_eq!(cfg.resolved().0.errors, None);
    }

    #[test]
    fn a_level_reads_the_search_with_its_own_evaluation_unless_one_is_set() {
        let mut cfg = EngineConfig::default();
        for level in &mut cfg.levels {
            level.evaluation = Some(Evaluation::Network);
        }
        cfg.elo = Some(1450);
        let (resolved, played) = cfg.resolved();
        assert_eq!(resolved.revise.eval, Evaluation::Network);
        let (level, elo) = played.expect("a level");
        assert_eq!((level.evaluation, elo), (Some(Evaluation::Network), 1450));
        // An evaluation chosen by the user wins over the level's, in the search and in the
        // level as played (which the info line names).
        cfg.revise.eval = Evaluation::Classic;
        let (resolved, played) = cfg.resolved();
        assert_eq!(resolved.revise.eval, Evaluation::Classic);
        assert_eq!(
            played.expect("a level").0.evaluation,
            Some(Evaluation::Classic)
        );
        // Without one, `auto` stays `auto` (the network), and the level names none.
        cfg.revise.eval = Evaluation::Auto;
        for level in &mut cfg.levels {
            level.evaluation = None;
        }
        assert_eq!(cfg.resolved().0.revise.eval, Evaluation::Auto);
        assert_eq!(cfg.resolved().1.expect("a level").0.evaluation, None);
        // The user's choice is named for a level without its own too.
        cfg.revise.eval = Evaluation::Classic;
        assert_eq!(
            cfg.resolved().1.expect("a level").0.evaluation,
            Some(Evaluation::Classic)
        );
        cfg.revise.eval = Evaluation::Auto;
        // A parameter file keeps it.
        cfg.levels[0].evaluation = Some(Evaluation::Network);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        cfg.save(&path).expect("save");
        let loaded = EngineConfig::load(&path).expect("load");
        assert_eq!(loaded.levels[0].evaluation, Some(Evaluation::Network));
        assert_eq!(loaded.levels[1].evaluation, None);
    }

    #[test]
    fn a_level_plays_human_with_its_model_temperature_and_search_weight() {
        let mut cfg = EngineConfig::default();
        assert!(matches!(cfg.resolved().0, std::borrow::Cow::Borrowed(_)));
        cfg.elo = Some(1800);
        let level = cfg.level_for(1800).expect("level").level.clone();
        let r = cfg.resolved().0.into_owned();
        assert_eq!(r.style, Style::Human);
        assert_eq!(r.temperature, level.temperature);
        for (name, w) in &level.model.weights {
            let search = crate::model::FEATURES[crate::model::FIRST_SEARCH_FEATURE..]
                .contains(&name.as_str());
            let factor = if search { level.search_weight } else { 1.0 };
            assert_eq!(r.model.weights[name], w * factor, "{name}");
        }
    }

    /// Every embedded level shares a network; `share_network = false` (a level
    /// fitted on its linear weights alone) must still keep it out, and survive a save.
    #[test]
    fn a_level_plays_the_shared_network_at_its_band_unless_it_declines_it() {
        let mut cfg = EngineConfig::default();
        // The embedded levels keep the network they were calibrated under, not the model's.
        let shared = cfg.level_network.clone().expect("the levels' network");
        assert_ne!(Some(&shared), cfg.model.network.as_ref());
        cfg.elo = Some(1600);
        let level = cfg.level_for(1600).expect("level").level.clone();
        assert!(level.plays_shared_network(), "{}", level.elo);
        let net = cfg.resolved().0.model.network.clone().expect("shared");
        let middle = (f64::from(level.min_rating) + f64::from(level.max_rating)) / 2.0;
        assert_eq!(net.rating, middle);
        assert_eq!(net.hidden, shared.hidden);
        // Declining the network, a level names no rating (one that does is refused).
        for l in &mut cfg.levels {
            l.share_network = false;
            l.rating = None;
        }
        assert_eq!(cfg.resolved().0.model.network, None);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        cfg.save(&path).expect("save");
        let loaded = EngineConfig::load(&path).expect("load");
        assert!(loaded.levels.iter().all(|l| !l.share_network));
    }

    /// The levels' network, when the parameters have one, is what a sharing level plays (at its
    /// band's rating) while the default style plays the model's; it is saved and loaded with
    /// its levels, and a file with levels of its own but none plays them on its model's.
    #[test]
    fn the_levels_network_stays_with_its_levels() {
        let mut cfg = EngineConfig::default();
        let model_net = cfg.model.network.clone().expect("the model's network");
        let mut levels_net = model_net.clone();
        levels_net.output[0] += 1.0;
        cfg.level_network = Some(levels_net.clone());
        assert_eq!(cfg.resolved().0.model.network, Some(model_net.clone()));
        cfg.elo = Some(1600);
        let level = cfg.level_for(1600).expect("level").level.clone();
        let played = cfg.resolved().0.model.network.clone().expect("shared");
        assert_eq!(played.output, levels_net.output);
        let middle = (f64::from(level.min_rating) + f64::from(level.max_rating)) / 2.0;
        assert_eq!(played.rating, middle);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        cfg.save(&path).expect("save");
        let loaded = EngineConfig::load(&path).expect("load");
        assert_eq!(loaded.level_network, Some(levels_net.clone()));
        // The same levels in a file without the levels' network: its model's plays them.
        cfg.level_network = None;
        cfg.save(&path).expect("save");
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(!text.contains("level_network"), "nothing to save");
        let loaded = EngineConfig::load(&path).expect("load");
        assert_eq!(loaded.level_network, None);
        let played = loaded.resolved().0.model.network.clone().expect("shared");
        assert_eq!(played.output, model_net.output);
        // A broken one is refused, named.
        let mut bad = loaded.clone();
        bad.level_network = Some(Network {
            output: Vec::new(),
            ..levels_net
        });
        bad.save(&path).expect("save");
        let err = EngineConfig::load(&path)
            .expect_err("broken network")
            .to_string();
        assert!(err.contains("level_network"), "{err}");
    }

    /// A `human` or `imitate` level without a model of its own plays the default style's (its
    /// network read at the band's middle rating or the level's `rating`, its search features
    /// weighted by the level's search weight), its search no deeper than its `depth`; a depth
    /// outside 1-64, or a rating no shared network reads, is refused, named.
    #[test]
    fn a_level_without_a_model_plays_the_default_model_at_its_band_and_depth() {
        let level = "[[levels]]\nelo = 1400\nmin_rating = 1400\nmax_rating = 1599\n\
                     temperature = 0.1\nsearch_weight = 0.5\ndepth = 2\n";
        let mut cfg = EngineConfig::parse(level, "p.toml").expect("a level without a model");
        let model = cfg.model.clone();
        assert!(model.network.is_some(), "the default model has a network");
        let only = &cfg.levels[0];
        assert!(only.plays_default_model() && only.model.is_unset());
        cfg.elo = Some(1400);
        let (resolved, played) = cfg.resolved();
        let (played, _) = played.expect("a level");
        assert_eq!(played.depth, Some(2));
        assert_eq!(resolved.revise.max_depth, 2);
        let net = resolved
            .model
            .network
            .as_ref()
            .expect("the model's network");
        assert_eq!(net.rating, 1499.5);
        assert_eq!(net.hidden, model.network.as_ref().expect("network").hidden);
        let search = &crate::model::FEATURES[crate::model::FIRST_SEARCH_FEATURE..];
        for (name, w) in &model.weights {
            let factor = if search.contains(&name.as_str()) {
                0.5
            } else {
                1.0
            };
            assert_eq!(resolved.model.weights[name], w * factor, "{name}");
        }
        // The engine's own max_depth, when shallower, stays.
        let mut shallow = cfg.clone();
        shallow.revise.max_depth = 1;
        assert_eq!(shallow.resolved().0.revise.max_depth, 1);
        // Declining the shared network, it plays the default model's linear weights alone.
        let mut linear = cfg.clone();
        linear.levels[0].share_network = false;
        assert_eq!(linear.resolved().0.model.network, None);
        // With a rating of its own, the network is read there instead of the band's middle.
        let rated = level.replace("depth = 2\n", "depth = 2\nrating = 1585\n");
        let mut rated = EngineConfig::parse(&rated, "p.toml").expect("a level with a rating");
        rated.elo = Some(1400);
        let net = rated.resolved().0.model.network.clone().expect("network");
        assert_eq!(net.rating, 1585.0);
        // A rating is refused where no shared network reads it.
        let unshared = level.replace("depth = 2\n", "rating = 1585\nshare_network = false\n");
        let err = EngineConfig::parse(&unshared, "p.toml")
            .expect_err("a rating without a shared network")
            .to_string();
        assert!(
            err.contains("`rating`") && err.contains("level 1400"),
            "{err}"
        );
        // An imitate level without weights plays the default model too, at its most probable
        // move: with the default style's rating, the default style itself.
        let imitate = "[[levels]]\nelo = 1800\nmin_rating = 1800\nmax_rating = 1999\n\
                       style = \"imitate\"\nrating = 1585\n";
        let mut imitate = EngineConfig::parse(imitate, "p.toml").expect("an imitate level");
        assert!(imitate.levels[0].plays_default_model());
        imitate.elo = Some(1800);
        let resolved = imitate.resolved().0;
        assert_eq!(resolved.style, Style::Imitate);
        assert_eq!(resolved.model.weights, model.weights);
        assert_eq!(
            resolved.model.network.as_ref().map(|n| n.rating),
            Some(1585.0)
        );
        // A best level stops its search at its depth too.
        let best = "[[levels]]\nelo = 2400\nmin_rating = 2300\nmax_rating = 2499\n\
                    style = \"best\"\ndepth = 3\n";
        let mut best = EngineConfig::parse(best, "p.toml").expect("a best level with a depth");
        best.elo = Some(2400);
        let resolved = best.resolved().0;
        assert_eq!(
            (resolved.style, resolved.revise.max_depth),
            (Style::Best, 3)
        );
        // Saved and loaded as it was: still without a model.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        cfg.save(&path).expect("save");
        let loaded = EngineConfig::load(&path).expect("load");
        assert_eq!(loaded.levels, cfg.levels);
        let err = EngineConfig::parse(&level.replace("depth = 2", "depth = 0"), "p.toml")
            .expect_err("depth 0")
            .to_string();
        assert!(err.contains("depth") && err.contains("p.toml"), "{err}");
    }

    #[test]
    fn a_best_level_plays_the_best_style_and_refuses_what_it_cannot_read() {
        let level =
            "[[levels]]\nelo = 2400\nmin_rating = 2300\nmax_rating = 2499\nstyle = \"best\"\n";
        let mut cfg = EngineConfig::parse(level, "p.toml").expect("a best level");
        cfg.elo = Some(2500);
        let (resolved, played) = cfg.resolved();
        assert_eq!(resolved.style, Style::Best);
        assert!(resolved.levels.is_empty());
        let (played, elo) = played.expect("a level");
        assert_eq!((played.style, played.elo, elo), (Style::Best, 2400, 2400));
        // A parameter file keeps it, and a level without `style` is a human one.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        cfg.save(&path).expect("save");
        assert_eq!(EngineConfig::load(&path).expect("load").levels, cfg.levels);
        let human = level.replace("style = \"best\"\n", "temperature = 0.5\n");
        let cfg = EngineConfig::parse(&human, "p.toml").expect("a human level");
        assert_eq!(cfg.levels[0].style, Style::Human);
        // What only the human style reads is refused on a best level, naming the level.
        for (extra, key) in [
            ("errors = { loss = 200, ratio = 0.1 }\n", "errors"),
            ("temperature = 0.5\n", "temperature"),
            ("search_weight = 2.0\n", "search_weight"),
            ("rating = 2400\n", "rating"),
            ("[levels.model.smoothing]\nalpha = 2.0\n", "model"),
        ] {
            let e = EngineConfig::parse(&format!("{level}{extra}"), "p.toml").expect_err("refused");
            assert!(
                e.to_string().contains(&format!(
                    "level 2400: `{key}` does nothing in the best style"
                )),
                "{e}"
            );
        }
        // The errors rule is the human style's alone, and an imitate level plays its most
        // probable move: neither errors nor a temperature on it.
        for (extra, key) in [
            ("errors = { loss = 200, ratio = 0.1 }\n", "errors"),
            ("temperature = 0.1\n", "temperature"),
        ] {
            let imitate = level.replace("best", "imitate") + extra;
            let e = EngineConfig::parse(&imitate, "p.toml").expect_err("refused");
            assert!(
                e.to_string()
                    .contains(&format!("`{key}` does nothing in the imitate style")),
                "{e}"
            );
        }
    }
}
