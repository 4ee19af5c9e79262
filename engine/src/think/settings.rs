//! The registry of the reasoner's settings: each one declared once, in [`SETTINGS`], with its
//! name, type, range, one line of help and the places it can be given. Everything else is
//! derived from it: the UCI `option` lines and `setoption` (`uci::options`), the command line's
//! flags, the parameter file's keys ([`crate::think::params`]), the match spec's
//! `precedent:key=value` and `tune`'s genes. [`validate`] checks a whole configuration however
//! it was assembled. A setting's default is the one of [`EngineConfig::default`] (the stages
//! declare their own defaults beside their settings: [`crate::reuse::ReuseConfig`],
//! [`crate::revise::ReviseConfig`]).
//!
//! `seed` 0 means a fresh random seed for every move, wherever it is given; any other value
//! is a fixed seed.

use std::fmt;

use crate::choice::Choice;
use crate::retrieve::Mode;
use crate::reuse::Weights;
use crate::search::{Evaluation, MAX_DEPTH};
use crate::think::config::{EngineConfig, PlayerClock, Style};
use crate::think::scale::EloScale;

/// A setting's type and range (inclusive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// `true` or `false`.
    Bool,
    /// A whole number.
    Int {
        /// Lowest value.
        min: i64,
        /// Highest value.
        max: i64,
    },
    /// A finite number.
    Float {
        /// Lowest value.
        min: f64,
        /// Highest value.
        max: f64,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// The six adaptation weights, each a number in the range (`w1,w2,…,w6`; `:` separates
    /// them too, for the match spec, whose pairs `,` separates).
    Weights {
        /// Lowest value of each.
        min: f64,
        /// Highest value of each.
        max: f64,
    },
}

/// A setting's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Of [`Kind::Bool`].
    Bool(bool),
    /// Of [`Kind::Int`].
    Int(i64),
    /// Of [`Kind::Float`].
    Float(f64),
    /// Of [`Kind::Choice`].
    Choice(String),
    /// Of [`Kind::Weights`].
    Weights([f64; 6]),
    /// Not set (the level: `elo` without a value plays the style).
    Unset,
}

impl fmt::Display for Value {
    /// The form every text entry point reads back (UCI, command line, match spec).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Choice(c) => f.write_str(c),
            Value::Weights(w) => write!(f, "{}", Weights(*w)),
            Value::Unset => f.write_str("none"),
        }
    }
}

/// How `tune` evolves a setting: the genes' range and initial step size (one gene per weight
/// for [`Kind::Weights`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gene {
    /// Lowest value a mutation may give it.
    pub min: f64,
    /// Highest value a mutation may give it.
    pub max: f64,
    /// Initial mutation step size, in the gene's own unit.
    pub sigma: f64,
    /// Evolved on a log2 scale (the gene is log2 of the value).
    pub log2: bool,
}

/// One setting of the reasoner.
#[derive(Clone, Copy)]
pub struct Setting {
    /// Its name on the command line (`--name`), in the match spec (`name=`), in the parameter
    /// file (unless [`Setting::file`] says otherwise) and in messages.
    pub name: &'static str,
    /// Its UCI option name (`None`: not a UCI option). Weights are `W1`…`W6`.
    pub uci: Option<&'static str>,
    /// Its key in the parameter file, dotted for a table (`revise.tolerance`); `None`: not
    /// in the file.
    pub file: Option<&'static str>,
    /// On the command line and in the match spec.
    pub cli: bool,
    /// Its type and range.
    pub kind: Kind,
    /// One line of help.
    pub help: &'static str,
    /// How `tune` evolves it, if it does.
    pub gene: Option<Gene>,
    /// Whether it matters only when revise is on (tune leaves it out otherwise).
    pub needs_revise: bool,
    get: fn(&EngineConfig) -> Value,
    set: fn(&mut EngineConfig, Value),
}

impl fmt::Debug for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting").field("name", &self.name).finish()
    }
}

/// The most `tolerance` can be, in centipawns (a level's as the engine's).
pub(crate) const MAX_TOLERANCE: i32 = 10_000;

/// The most `seed` can be (UCI spins are 32-bit signed in most GUIs).
pub(crate) const MAX_SEED: i64 = 2_147_483_647;

/// Every reasoner setting. The order is the UCI listing's and the genes'.
pub static SETTINGS: [Setting; 20] = [
    Setting {
        name: "style",
        uci: Some("Style"),
        file: Some("style"),
        cli: true,
        kind: Kind::Choice(<Style as Choice>::WORDS),
        help: "how the move is chosen: imitate (the move model's most probable move), human \
               (drawn from its probabilities), best (the strongest) or natural (the model's \
               likeliest move within the tolerance of the strongest)",
        gene: None,
        needs_revise: false,
        get: |c| Value::Choice(c.style.to_string()),
        set: |c, v| {
            if let Value::Choice(s) = v
                && let Ok(style) = s.parse::<Style>()
            {
                c.style = style;
            }
        },
    },
    Setting {
        name: "temperature",
        uci: Some("Temperature"),
        file: Some("temperature"),
        cli: true,
        kind: Kind::Float {
            min: 0.001,
            max: 1000.0,
        },
        help: "human style: moves are drawn with probability ∝ P^(1/T)",
        gene: None,
        needs_revise: false,
        get: |c| Value::Float(c.temperature),
        set: |c, v| {
            if let Value::Float(t) = v {
                c.temperature = t;
            }
        },
    },
    Setting {
        name: "elo",
        uci: None,
        file: Some("elo"),
        cli: true,
        kind: Kind::Int { min: 0, max: 4000 },
        help: "play at this level (as UCI_LimitStrength with UCI_Elo): the human style with the \
               model of the nearest level",
        gene: None,
        needs_revise: false,
        get: |c| c.elo.map_or(Value::Unset, |e| Value::Int(i64::from(e))),
        set: |c, v| {
            c.elo = match v {
                Value::Int(e) => u16::try_from(e).ok(),
                _ => None,
            }
        },
    },
    Setting {
        name: "mode",
        uci: Some("Mode"),
        file: Some("mode"),
        cli: true,
        kind: Kind::Choice(<Mode as Choice>::WORDS),
        help: "normalised (from the mover's point of view) or thesis (boards as they stand)",
        gene: None,
        needs_revise: false,
        get: |c| Value::Choice(c.reuse.mode.to_string()),
        set: |c, v| {
            if let Value::Choice(s) = v
                && let Ok(mode) = s.parse::<Mode>()
            {
                c.reuse.mode = mode;
            }
        },
    },
    Setting {
        name: "weights",
        uci: Some("W"),
        file: Some("weights"),
        cli: true,
        kind: Kind::Weights {
            min: 0.0,
            max: 1000.0,
        },
        help: "adaptation weights w1,w2,w3,w4,w5,w6",
        gene: Some(Gene {
            min: 0.0,
            max: 20.0,
            sigma: 1.0,
            log2: false,
        }),
        needs_revise: false,
        get: |c| Value::Weights(c.reuse.weights.0),
        set: |c, v| {
            if let Value::Weights(w) = v {
                c.reuse.weights = Weights(w);
            }
        },
    },
    Setting {
        name: "k",
        uci: Some("K"),
        file: Some("k"),
        cli: true,
        kind: Kind::Int { min: 1, max: 4096 },
        help: "number of nearest cases that vote (1 = the thesis)",
        gene: Some(Gene {
            min: 0.0,
            max: 8.0,
            sigma: 0.5,
            log2: true,
        }),
        needs_revise: false,
        get: |c| Value::Int(c.reuse.k as i64),
        set: |c, v| {
            if let Value::Int(k) = v {
                c.reuse.k = k as usize;
            }
        },
    },
    Setting {
        name: "probes",
        uci: Some("Probes"),
        file: None,
        cli: true,
        kind: Kind::Int {
            min: 0,
            max: crate::casebase::lists::MAX_LISTS as i64,
        },
        help: "in a case base with lists (built from 8 M boards up), the lists scanned a side: \
               an approximate retrieval; 0 = always exact",
        gene: None,
        needs_revise: false,
        get: |c| Value::Int(c.reuse.probes as i64),
        set: |c, v| {
            if let Value::Int(n) = v {
                c.reuse.probes = n as usize;
            }
        },
    },
    Setting {
        name: "p",
        uci: Some("P"),
        file: Some("p"),
        cli: true,
        kind: Kind::Float {
            min: 0.0,
            max: 4096.0,
        },
        help: "vote exponent: a case votes with weight similarity^P",
        gene: Some(Gene {
            min: 0.0,
            max: 128.0,
            sigma: 8.0,
            log2: false,
        }),
        needs_revise: false,
        get: |c| Value::Float(c.reuse.p),
        set: |c, v| {
            if let Value::Float(p) = v {
                c.reuse.p = p;
            }
        },
    },
    Setting {
        name: "seed",
        uci: Some("Seed"),
        file: Some("seed"),
        cli: true,
        kind: Kind::Int {
            min: 0,
            max: MAX_SEED,
        },
        help: "seed of the tie-breaks and the human style's draws; 0 = a fresh random seed \
               every move",
        gene: None,
        needs_revise: false,
        get: |c| Value::Int(c.reuse.seed.map_or(0, |s| s as i64)),
        set: |c, v| {
            if let Value::Int(s) = v {
                c.reuse.seed = (s != 0).then_some(s as u64);
            }
        },
    },
    Setting {
        name: "revise",
        uci: Some("Revise"),
        file: Some("revise.enabled"),
        cli: true,
        kind: Kind::Bool,
        help: "check the cases' proposals with a tactical search (false: pure CBR, as in the \
               thesis)",
        gene: None,
        needs_revise: false,
        get: |c| Value::Bool(c.revise.enabled),
        set: |c, v| {
            if let Value::Bool(b) = v {
                c.revise.enabled = b;
            }
        },
    },
    Setting {
        name: "human-time",
        uci: Some("HumanTime"),
        file: Some("human_time"),
        cli: true,
        kind: Kind::Bool,
        help: "under a clock, move after the time a person would have taken (from the nearest \
               cases' clocks or the fitted pacing model), never losing on time",
        gene: None,
        needs_revise: false,
        get: |c| Value::Bool(c.human_time),
        set: |c, v| {
            if let Value::Bool(b) = v {
                c.human_time = b;
            }
        },
    },
    Setting {
        name: "player-strength",
        uci: Some("PlayerStrength"),
        file: Some("player_strength"),
        cli: true,
        kind: Kind::Bool,
        help: "a player file plays at the level of its player's rating at the game's speed \
               (false: the player's likeliest move, as strong as that makes it); UCI_Elo, \
               when set, is played instead",
        gene: None,
        needs_revise: false,
        get: |c| Value::Bool(c.player_strength),
        set: |c, v| {
            if let Value::Bool(b) = v {
                c.player_strength = b;
            }
        },
    },
    Setting {
        name: "player-errors",
        uci: Some("PlayerErrors"),
        file: Some("player_errors"),
        cli: true,
        kind: Kind::Bool,
        help: "at its player's strength, a player file built with a judge errs as often as its \
               player (the error factor fitted at build); false: the level as calibrated",
        gene: None,
        needs_revise: false,
        get: |c| Value::Bool(c.player_errors),
        set: |c, v| {
            if let Value::Bool(b) = v {
                c.player_errors = b;
            }
        },
    },
    Setting {
        name: "player-clock",
        uci: Some("PlayerClock"),
        file: Some("player_clock"),
        cli: true,
        kind: Kind::Choice(<PlayerClock as Choice>::WORDS),
        help: "whose rating a player file plays at: auto (the speed of the game's clock), \
               bullet, blitz, rapid or classical",
        gene: None,
        needs_revise: false,
        get: |c| Value::Choice(c.player_clock.to_string()),
        set: |c, v| {
            if let Value::Choice(s) = v
                && let Ok(clock) = s.parse::<PlayerClock>()
            {
                c.player_clock = clock;
            }
        },
    },
    Setting {
        name: "elo-scale",
        uci: Some("EloScale"),
        file: Some("elo_scale"),
        cli: true,
        kind: Kind::Choice(<EloScale as Choice>::WORDS),
        help: "the scale of UCI_Elo (--elo) and of a player file's rating when they choose a \
               level: stockfish (Stockfish 15.1's UCI_Elo at 10+0.1, on which the levels are \
               calibrated) or people (a Lichess rapid rating: the level that plays as strong \
               as people of that rating, docs/scale.md)",
        gene: None,
        needs_revise: false,
        get: |c| Value::Choice(c.elo_scale.to_string()),
        set: |c, v| {
            if let Value::Choice(s) = v
                && let Ok(scale) = s.parse::<EloScale>()
            {
                c.elo_scale = scale;
            }
        },
    },
    Setting {
        name: "tolerance",
        uci: Some("Tolerance"),
        file: Some("revise.tolerance"),
        cli: true,
        kind: Kind::Int {
            min: 0,
            max: MAX_TOLERANCE as i64,
        },
        help: "best style: play the best-voted candidate within this many centipawns of the \
               best move; natural style: the model's likeliest move within it of an equal \
               position's best, more where the position is decided (as much expected score)",
        gene: Some(Gene {
            min: 0.0,
            max: 300.0,
            sigma: 20.0,
            log2: false,
        }),
        needs_revise: true,
        get: |c| Value::Int(i64::from(c.revise.tolerance)),
        set: |c, v| {
            if let Value::Int(t) = v {
                c.revise.tolerance = t as i32;
            }
        },
    },
    Setting {
        name: "eval",
        uci: Some("Evaluation"),
        file: Some("revise.eval"),
        cli: true,
        kind: Kind::Choice(<Evaluation as Choice>::WORDS),
        help: "the search's static evaluation: auto (the network, or a level's own if it names \
               one), network (the embedded NNUE) or classic (the hand-made one)",
        gene: None,
        needs_revise: true,
        get: |c| Value::Choice(c.revise.eval.to_string()),
        set: |c, v| {
            if let Value::Choice(name) = v
                && let Ok(e) = Evaluation::from_word(&name)
            {
                c.revise.eval = e;
            }
        },
    },
    Setting {
        name: "candidates",
        uci: Some("Candidates"),
        file: Some("revise.candidates"),
        cli: true,
        kind: Kind::Int { min: 1, max: 256 },
        help: "best style: how many of the best-voted candidates the search checks",
        gene: None,
        needs_revise: true,
        get: |c| Value::Int(c.revise.candidates as i64),
        set: |c, v| {
            if let Value::Int(n) = v {
                c.revise.candidates = n as usize;
            }
        },
    },
    Setting {
        name: "max_depth",
        uci: None,
        file: Some("revise.max_depth"),
        cli: false,
        kind: Kind::Int {
            min: 1,
            max: MAX_DEPTH as i64,
        },
        help: "deepest iteration of the search",
        gene: None,
        needs_revise: true,
        get: |c| Value::Int(i64::from(c.revise.max_depth)),
        set: |c, v| {
            if let Value::Int(d) = v {
                c.revise.max_depth = d as u32;
            }
        },
    },
    Setting {
        name: "margin",
        uci: None,
        file: Some("revise.margin"),
        cli: false,
        kind: Kind::Int {
            min: 0,
            max: 10_000,
        },
        help: "move model: moves within this many centipawns of the best get exact values",
        gene: None,
        needs_revise: true,
        get: |c| Value::Int(i64::from(c.revise.margin)),
        set: |c, v| {
            if let Value::Int(m) = v {
                c.revise.margin = m as i32;
            }
        },
    },
];

/// Where a setting was given, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A line of a parameter file.
    File {
        /// The file, as given.
        path: String,
        /// 1-based.
        line: usize,
    },
    /// A player of the match spec (`precedent:k=5,…`).
    Spec(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(f, "{path} line {line}"),
            Origin::Spec(spec) => write!(f, "player `{spec}`"),
        }
    }
}

/// Why a setting or a configuration was refused. Formatted once, the same at every entry point.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SettingError {
    /// A name that is no setting.
    #[error("unknown setting `{key}`{}{}", at(.origin, " in "), did_you_mean(.nearest))]
    Unknown {
        /// The name as given.
        key: String,
        /// Where it was given.
        origin: Option<Origin>,
        /// The nearest valid name.
        nearest: Option<String>,
    },
    /// A value outside the setting's range.
    #[error("`{name}` = {got} is outside {range}{}", at(.origin, " in "))]
    OutOfRange {
        /// The setting.
        name: String,
        /// The value given.
        got: String,
        /// Its range, `lo..hi` (inclusive).
        range: String,
        /// Where it was given.
        origin: Option<Origin>,
    },
    /// A value of the wrong type.
    #[error("`{name}` = {got:?} is not {expected}{}", at(.origin, " in "))]
    NotA {
        /// The setting.
        name: String,
        /// The value given.
        got: String,
        /// What it should be.
        expected: String,
        /// Where it was given.
        origin: Option<Origin>,
    },
    /// A model's weight missing from its table.
    #[error("missing weight `{name}`{}: a model lists every feature", at(.origin, " in "))]
    MissingWeight {
        /// The feature.
        name: String,
        /// Where the model's weights are.
        origin: Option<Origin>,
    },
    /// A configuration that no single value makes wrong (e.g. a level with no levels to
    /// choose from).
    #[error("{0}")]
    Invalid(String),
}

fn at(origin: &Option<Origin>, sep: &str) -> String {
    origin
        .as_ref()
        .map_or(String::new(), |o| format!("{sep}{o}"))
}

fn did_you_mean(n: &Option<String>) -> String {
    n.as_ref()
        .map_or(String::new(), |n| format!("; did you mean `{n}`?"))
}

impl SettingError {
    /// The same error, given at `origin`.
    pub fn at(mut self, place: Origin) -> SettingError {
        match &mut self {
            SettingError::Unknown { origin, .. }
            | SettingError::OutOfRange { origin, .. }
            | SettingError::NotA { origin, .. }
            | SettingError::MissingWeight { origin, .. } => *origin = Some(place),
            SettingError::Invalid(text) => *text = format!("{text} (in {place})"),
        }
        self
    }
}

/// The valid name nearest to `key` (by edit distance, case ignored), if any.
pub(crate) fn nearest_name<'a>(
    key: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let key = key.to_ascii_lowercase();
    names
        .into_iter()
        .min_by_key(|n| strsim::damerau_levenshtein(&key, &n.to_ascii_lowercase()))
        .map(str::to_string)
}

/// The error for a name that is none of `names`.
pub fn unknown<'a>(key: &str, names: impl IntoIterator<Item = &'a str>) -> SettingError {
    SettingError::Unknown {
        key: key.to_string(),
        origin: None,
        nearest: nearest_name(key, names),
    }
}

impl Kind {
    /// Reads a value of setting `name` written as text (UCI, command line, match spec), in
    /// its range.
    pub fn parse(&self, name: &str, text: &str) -> Result<Value, SettingError> {
        let t = text.trim();
        let not_a = |expected: &str| SettingError::NotA {
            name: name.to_string(),
            got: t.to_string(),
            expected: expected.to_string(),
            origin: None,
        };
        let value = match *self {
            Kind::Bool => match t.to_ascii_lowercase().as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(not_a("true or false")),
            },
            Kind::Int { .. } => Value::Int(t.parse().map_err(|_| not_a("a whole number"))?),
            Kind::Float { .. } => Value::Float(t.parse().map_err(|_| not_a("a number"))?),
            Kind::Choice(words) => {
                let w = t.to_ascii_lowercase();
                match words.iter().find(|c| **c == w) {
                    Some(c) => Value::Choice((*c).to_string()),
                    None => return Err(not_a(&format!("one of {}", words.join(", ")))),
                }
            }
            Kind::Weights { .. } => {
                let parts: Vec<&str> = t.split([',', ':']).map(str::trim).collect();
                let mut w = [0.0; 6];
                if parts.len() != 6 {
                    return Err(not_a("six numbers w1,w2,w3,w4,w5,w6"));
                }
                for (slot, p) in w.iter_mut().zip(&parts) {
                    *slot = p
                        .parse()
                        .map_err(|_| not_a("six numbers w1,w2,w3,w4,w5,w6"))?;
                }
                Value::Weights(w)
            }
        };
        self.check(name, value)
    }

    /// The value of setting `name`, if it is of this type and in its range.
    pub fn check(&self, name: &str, value: Value) -> Result<Value, SettingError> {
        let out = |got: String, range: String| SettingError::OutOfRange {
            name: name.to_string(),
            got,
            range,
            origin: None,
        };
        let in_range = |x: f64, min: f64, max: f64| x.is_finite() && (min..=max).contains(&x);
        match (self, &value) {
            (Kind::Bool, Value::Bool(_)) => Ok(value),
            (Kind::Int { min, max }, Value::Int(n)) => match (min..=max).contains(&n) {
                true => Ok(value),
                false => Err(out(n.to_string(), format!("{min}..{max}"))),
            },
            (Kind::Float { min, max }, Value::Float(x)) => match in_range(*x, *min, *max) {
                true => Ok(value),
                false => Err(out(x.to_string(), format!("{min}..{max}"))),
            },
            (Kind::Choice(words), Value::Choice(c)) if words.contains(&c.as_str()) => Ok(value),
            (Kind::Weights { min, max }, Value::Weights(w)) => {
                match w.iter().all(|x| in_range(*x, *min, *max)) {
                    true => Ok(value),
                    false => Err(out(Weights(*w).to_string(), format!("{min}..{max} each"))),
                }
            }
            _ => Err(SettingError::NotA {
                name: name.to_string(),
                got: value.to_string(),
                expected: self.expected(),
                origin: None,
            }),
        }
    }

    /// What its values are, in words.
    pub fn expected(&self) -> String {
        match *self {
            Kind::Bool => "true or false".into(),
            Kind::Int { min, max } => format!("a whole number in {min}..{max}"),
            Kind::Float { min, max } => format!("a number in {min}..{max}"),
            Kind::Choice(words) => format!("one of {}", words.join(", ")),
            Kind::Weights { min, max } => format!("six numbers in {min}..{max}"),
        }
    }
}

impl Setting {
    /// The setting called `name` on the command line and in the match spec.
    pub fn by_name(name: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.cli && s.name == name)
    }

    /// Its value in `cfg`.
    pub fn get(&self, cfg: &EngineConfig) -> Value {
        (self.get)(cfg)
    }

    /// Its default: its value in [`EngineConfig::default`].
    pub fn default_value(&self) -> Value {
        self.get(&EngineConfig::default())
    }

    /// Sets it in `cfg` to a value [`Setting::parse`] or [`Setting::check`] accepted.
    pub fn set(&self, cfg: &mut EngineConfig, value: Value) {
        (self.set)(cfg, value);
    }

    /// Reads a value written as text (UCI, command line, match spec), in its range.
    pub fn parse(&self, text: &str) -> Result<Value, SettingError> {
        self.kind.parse(self.name, text)
    }

    /// The value, if it is of the setting's type and in its range.
    pub fn check(&self, value: Value) -> Result<Value, SettingError> {
        match value {
            Value::Unset if self.name == "elo" => Ok(value),
            _ => self.kind.check(self.name, value),
        }
    }

    /// Its help with its default, for the command line.
    pub fn help_line(&self) -> String {
        format!(
            "{} [default: {}]",
            capitalised(self.help),
            self.default_value()
        )
    }

    /// Its UCI option names: one, or `W1`…`W6` for the weights.
    pub fn uci_names(&self) -> Vec<String> {
        match (self.uci, self.kind) {
            (Some(w), Kind::Weights { .. }) => (1..=6).map(|i| format!("{w}{i}")).collect(),
            (Some(n), _) => vec![n.to_string()],
            (None, _) => Vec::new(),
        }
    }

    /// The `option …` lines announcing it after `uci`, with the defaults of `cfg`.
    pub(crate) fn uci_options(&self, cfg: &EngineConfig) -> Vec<String> {
        let Some(name) = self.uci else {
            return Vec::new();
        };
        let value = self.get(cfg);
        match (self.kind, value) {
            (Kind::Weights { .. }, Value::Weights(w)) => w
                .iter()
                .enumerate()
                .map(|(i, x)| format!("option name {name}{} type string default {x}", i + 1))
                .collect(),
            (Kind::Bool, v) => vec![format!("option name {name} type check default {v}")],
            (Kind::Int { min, max }, v) => vec![format!(
                "option name {name} type spin default {v} min {min} max {max}"
            )],
            (Kind::Float { .. }, v) => vec![format!("option name {name} type string default {v}")],
            (Kind::Choice(words), v) => {
                let vars: Vec<String> = words.iter().map(|w| format!("var {w}")).collect();
                vec![format!(
                    "option name {name} type combo default {v} {}",
                    vars.join(" ")
                )]
            }
            (Kind::Weights { .. }, _) => Vec::new(),
        }
    }

    /// Applies `setoption name NAME value TEXT` to `cfg` if `NAME` (matched without regard to
    /// case) is one of this setting's UCI names; `None` if it is not.
    pub(crate) fn set_uci(
        &self,
        cfg: &mut EngineConfig,
        name: &str,
        text: &str,
    ) -> Option<Result<(), SettingError>> {
        let names = self.uci_names();
        let i = names.iter().position(|n| n.eq_ignore_ascii_case(name))?;
        Some(match self.kind {
            Kind::Weights { min, max } => {
                let one = Setting {
                    name: self.name,
                    kind: Kind::Float { min, max },
                    ..*self
                };
                one.parse(text).map(|v| {
                    if let (Value::Float(x), Value::Weights(mut w)) = (v, self.get(cfg)) {
                        w[i] = x;
                        self.set(cfg, Value::Weights(w));
                    }
                })
            }
            _ => self.parse(text).map(|v| self.set(cfg, v)),
        })
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// Applies `name=value` pairs given as text (the command line's flags, the match spec's keys)
/// to `cfg`, then checks the whole: the first unknown name or bad value is the error. A level
/// (`elo`) outside the levels' range is clamped into it; the note says so.
pub fn apply_text(
    cfg: &mut EngineConfig,
    pairs: &[(String, String)],
) -> Result<Option<String>, SettingError> {
    for (name, text) in pairs {
        let Some(s) = Setting::by_name(name) else {
            return Err(unknown(
                name,
                SETTINGS.iter().filter(|s| s.cli).map(|s| s.name),
            ));
        };
        let v = s.parse(text)?;
        s.set(cfg, v);
    }
    validate(cfg)?;
    let Some(elo) = cfg.elo else {
        return Ok(None);
    };
    let choice = cfg.level_for(elo).map(|c| (c.elo, c.clamped));
    let range = cfg.elo_range();
    match (choice, range) {
        (Some((played, true)), Some((lo, hi))) => {
            cfg.elo = Some(played);
            Ok(Some(format!(
                "elo {elo} is outside {lo}..{hi}; playing at {played}"
            )))
        }
        _ => Ok(None),
    }
}

/// Checks a whole configuration, however it was assembled: every setting in its range, the
/// ways to err, the levels, and a level to play only when there are levels.
pub fn validate(cfg: &EngineConfig) -> Result<(), SettingError> {
    for s in &SETTINGS {
        s.check(s.get(cfg))?;
    }
    let rules = cfg.levels.iter().filter_map(|l| l.errors);
    if let Some(bad) = cfg
        .errors
        .into_iter()
        .chain(rules)
        .find(|e| !(e.ratio.is_finite() && e.ratio >= 0.0))
    {
        return Err(SettingError::OutOfRange {
            name: "errors.ratio".into(),
            got: bad.ratio.to_string(),
            range: "0..".into(),
            origin: None,
        });
    }
    if let Some(level) = cfg
        .levels
        .iter()
        .find(|l| !(l.temperature.is_finite() && l.temperature > 0.0))
    {
        return Err(SettingError::OutOfRange {
            name: format!("levels.temperature (level {})", level.elo),
            got: level.temperature.to_string(),
            range: "above 0".into(),
            origin: None,
        });
    }
    for level in &cfg.levels {
        check_level(level)?;
    }
    if cfg.elo.is_some() && cfg.levels.is_empty() {
        return Err(SettingError::Invalid(
            "`elo`: the parameters have no levels to choose from".into(),
        ));
    }
    if !cfg.levels.is_empty() && cfg.elo_range().is_none() {
        return Err(SettingError::Invalid(format!(
            "`elo-scale {}`: no level of the parameters is measured on that scale (a level's `people`)",
            cfg.elo_scale
        )));
    }
    cfg.pace
        .check()
        .map_err(|e| SettingError::Invalid(format!("`pace`: {e}")))?;
    let networks = std::iter::once(("model", &cfg.model))
        .chain(cfg.levels.iter().map(|l| ("levels.model", &l.model)));
    let networks = networks
        .filter_map(|(name, model)| Some((format!("{name}.network"), model.network.as_ref()?)))
        .chain(
            cfg.level_network
                .iter()
                .map(|n| ("level_network".to_string(), n)),
        );
    for (name, net) in networks {
        net.check()
            .map_err(|e| SettingError::Invalid(format!("`{name}`: {e}")))?;
    }
    Ok(())
}

/// What a level's style reads: the errors rule is the `human` style's, a temperature the
/// `human` style's alone, a tolerance the `natural` and `best` styles'; a `best` level reads
/// no model and no search weight, so any of them set is a mistake to report.
fn check_level(level: &crate::think::Level) -> Result<(), SettingError> {
    let misplaced = |what: &str| {
        Err(SettingError::Invalid(format!(
            "level {}: `{what}` does nothing in the {} style",
            level.elo, level.style
        )))
    };
    if level.errors.is_some() && level.style != Style::Human {
        return misplaced("errors");
    }
    if matches!(level.style, Style::Imitate | Style::Natural) && level.temperature != 1.0 {
        return misplaced("temperature");
    }
    if let Some(t) = level.tolerance {
        if !matches!(level.style, Style::Natural | Style::Best) {
            return misplaced("tolerance");
        }
        if !(0..=MAX_TOLERANCE).contains(&t) {
            return Err(SettingError::Invalid(format!(
                "level {}: `tolerance` {t} is outside 0-{MAX_TOLERANCE}",
                level.elo
            )));
        }
    }
    if let Some(d) = level.depth
        && !(1..=MAX_DEPTH).contains(&d)
    {
        return Err(SettingError::Invalid(format!(
            "level {}: `depth` {d} is outside 1-{MAX_DEPTH}",
            level.elo
        )));
    }
    if level.style == Style::Best {
        if !level.model.is_unset() {
            return misplaced("model");
        }
        if level.temperature != 1.0 {
            return misplaced("temperature");
        }
        if level.search_weight != 1.0 {
            return misplaced("search_weight");
        }
        if level.rating.is_some() {
            return misplaced("rating");
        }
    }
    if level.rating.is_some() && !level.plays_shared_network() {
        return Err(SettingError::Invalid(format!(
            "level {}: `rating` does nothing: the level reads no shared network \
             (it has its own, or `share_network = false`)",
            level.elo
        )));
    }
    Ok(())
}

/// The genes `tune` evolves, in order: a name and how it moves (`w1`…`w6`, `log2_k`, `p`,
/// `tolerance`); with `revise` off, only those that matter without it.
pub fn genes(revise: bool) -> Vec<(String, &'static Setting, Gene)> {
    let mut out = Vec::new();
    for s in SETTINGS.iter().filter(|s| revise || !s.needs_revise) {
        let Some(g) = s.gene else { continue };
        match s.kind {
            Kind::Weights { .. } => {
                out.extend((1..=6).map(|i| (format!("w{i}"), s, g)));
            }
            _ if g.log2 => out.push((format!("log2_{}", s.name), s, g)),
            _ => out.push((s.name.to_string(), s, g)),
        }
    }
    out
}

/// The gene values of `cfg`, in the order of [`genes`].
pub fn genome(cfg: &EngineConfig, genes: &[(String, &'static Setting, Gene)]) -> Vec<f64> {
    let mut x = Vec::with_capacity(genes.len());
    let mut weight = 0;
    for (_, s, g) in genes {
        let v = match s.get(cfg) {
            Value::Weights(w) => {
                weight += 1;
                w[weight - 1]
            }
            Value::Int(n) => n as f64,
            Value::Float(f) => f,
            _ => 0.0,
        };
        x.push(if g.log2 { v.max(1.0).log2() } else { v });
    }
    x
}

/// `cfg` with the gene values `x` (in the order of [`genes`]), each clamped into its setting's
/// range and rounded where the setting is a whole number.
pub fn with_genome(
    cfg: &EngineConfig,
    genes: &[(String, &'static Setting, Gene)],
    x: &[f64],
) -> EngineConfig {
    let mut out = cfg.clone();
    let mut weights = cfg.reuse.weights.0;
    let mut weight = 0;
    for ((_, s, g), &v) in genes.iter().zip(x) {
        let v = if g.log2 { v.exp2() } else { v };
        match s.kind {
            Kind::Weights { min, max } => {
                weights[weight] = v.clamp(min, max);
                weight += 1;
                s.set(&mut out, Value::Weights(weights));
            }
            Kind::Int { min, max } => {
                s.set(&mut out, Value::Int((v.round() as i64).clamp(min, max)));
            }
            Kind::Float { min, max } => s.set(&mut out, Value::Float(v.clamp(min, max))),
            Kind::Bool | Kind::Choice(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_has_a_unique_name_and_a_default_in_its_range() {
        let mut names = std::collections::HashSet::new();
        for s in &SETTINGS {
            assert!(names.insert(s.name), "{} declared twice", s.name);
            s.check(s.default_value())
                .unwrap_or_else(|e| panic!("{}: default refused: {e}", s.name));
        }
        assert!(validate(&EngineConfig::default()).is_ok());
    }

    #[test]
    fn an_unknown_name_suggests_the_nearest() {
        let mut cfg = EngineConfig::default();
        let e = apply_text(&mut cfg, &[("temprature".into(), "0.3".into())]).expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "unknown setting `temprature`; did you mean `temperature`?"
        );
        let e = e.at(Origin::File {
            path: "typo.toml".into(),
            line: 1,
        });
        assert_eq!(
            e.to_string(),
            "unknown setting `temprature` in typo.toml line 1; did you mean `temperature`?"
        );
    }

    #[test]
    fn values_out_of_range_or_of_the_wrong_type_are_refused() {
        let k = Setting::by_name("k").expect("k");
        assert_eq!(
            k.parse("0").expect_err("0").to_string(),
            "`k` = 0 is outside 1..4096"
        );
        assert!(k.parse("many").is_err());
        let t = Setting::by_name("temperature").expect("temperature");
        assert!(t.parse("0").is_err() && t.parse("nan").is_err() && t.parse("inf").is_err());
        let w = Setting::by_name("weights").expect("weights");
        assert_eq!(
            w.parse("1:2:3:4:5:6"),
            Ok(Value::Weights([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
        );
        assert!(w.parse("1,2,3").is_err() && w.parse("1,1,1,1,1,-1").is_err());
        let mut cfg = EngineConfig::default();
        cfg.reuse.k = 0;
        assert!(validate(&cfg).is_err());
    }

    #[test]
    fn seed_zero_means_a_fresh_seed_every_move() {
        let s = Setting::by_name("seed").expect("seed");
        let mut cfg = EngineConfig::default();
        s.set(&mut cfg, s.parse("0").expect("0"));
        assert_eq!(cfg.reuse.seed, None);
        s.set(&mut cfg, s.parse("7").expect("7"));
        assert_eq!(cfg.reuse.seed, Some(7));
        assert_eq!(s.get(&cfg), Value::Int(7));
    }

    #[test]
    fn the_genes_are_the_weights_k_p_and_the_tolerance_and_round_trip() {
        let names: Vec<String> = genes(true).into_iter().map(|g| g.0).collect();
        assert_eq!(
            names,
            [
                "w1",
                "w2",
                "w3",
                "w4",
                "w5",
                "w6",
                "log2_k",
                "p",
                "tolerance"
            ]
        );
        assert_eq!(genes(false).len(), 8);
        let g = genes(true);
        let mut cfg = EngineConfig::default();
        cfg.reuse.k = 16;
        cfg.reuse.weights.0[4] = 7.0;
        cfg.revise.tolerance = 40;
        let x = genome(&cfg, &g);
        assert_eq!(x[6], 4.0);
        assert_eq!(with_genome(&EngineConfig::default(), &g, &x), cfg);
    }

    #[test]
    fn uci_sets_one_weight_at_a_time() {
        let w = Setting::by_name("weights").expect("weights");
        let mut cfg = EngineConfig::default();
        assert_eq!(w.set_uci(&mut cfg, "w5", "10"), Some(Ok(())));
        assert_eq!(cfg.reuse.weights.0, [1.0, 1.0, 1.0, 1.0, 10.0, 1.0]);
        assert!(matches!(w.set_uci(&mut cfg, "W2", "-1"), Some(Err(_))));
        assert_eq!(w.set_uci(&mut cfg, "K", "1"), None);
    }

    #[test]
    fn every_choice_word_sets_its_value_and_reads_back() {
        // The registry's words are the types' own lists (`choice!`), so none can be accepted by
        // the registry and then dropped by the setter.
        let mut choices = 0;
        for setting in &SETTINGS {
            let Kind::Choice(words) = setting.kind else {
                continue;
            };
            for &word in words {
                let mut cfg = EngineConfig::default();
                let value = setting
                    .kind
                    .parse(setting.name, word)
                    .expect("a listed word");
                setting.set(&mut cfg, value.clone());
                assert_eq!(setting.get(&cfg), value, "{} = {word}", setting.name);
                choices += 1;
            }
            assert!(setting.kind.parse(setting.name, "normalized-ish").is_err());
        }
        assert_eq!(
            choices,
            4 + 2 + 3 + 5 + 2,
            "style, mode, eval, player clock and elo scale"
        );
    }
}
