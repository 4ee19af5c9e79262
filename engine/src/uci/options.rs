//! The engine's UCI options: what `uci` announces and how `setoption` changes them.

use std::path::PathBuf;

use crate::search::tt::{DEFAULT_MB, MAX_MB};
use crate::think::config::EngineConfig;
use crate::think::params::ParamsError;
use crate::think::settings::{Kind, SETTINGS, Setting, SettingError, Value, unknown, validate};

/// Current option values.
#[derive(Clone, Debug)]
pub struct Options {
    /// `None` = the embedded case base.
    pub casebase: Option<PathBuf>,
    /// Search threads (`Threads`).
    pub threads: usize,
    /// Transposition-table size (MB, `Hash`).
    pub hash: u64,
    /// Time kept back from each move's budget for GUI and network lag (ms, `Move Overhead`).
    pub move_overhead: u64,
    /// Number of best lines to report (`MultiPV`).
    pub multipv: usize,
    /// The case-based reasoner's settings (`Mode`, `K`, `P`, `W1`–`W6`, `Seed`, `Revise`,
    /// `Tolerance`, `Candidates`, or a whole file through `Params`).
    pub reasoner: EngineConfig,
    /// Whether castling is Chess960 castling, moves written king-takes-rook (`UCI_Chess960`).
    pub chess960: bool,
    /// Whether pondering is enabled in the GUI (`Ponder`).
    pub ponder: bool,
    /// Whether to play at the level `elo` (`UCI_LimitStrength`).
    pub limit_strength: bool,
    /// The level to play at when `limit_strength` (`UCI_Elo`).
    pub elo: u16,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            casebase: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            hash: DEFAULT_MB as u64,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
            multipv: 1,
            reasoner: EngineConfig::default(),
            chess960: false,
            ponder: false,
            limit_strength: false,
            elo: DEFAULT_ELO,
        }
    }
}

/// `UCI_Elo`'s default.
const DEFAULT_ELO: u16 = 1400;
/// `UCI_Elo`'s range when the parameters have no levels (the option then changes nothing).
const NO_LEVELS_RANGE: (u16, u16) = (DEFAULT_ELO, DEFAULT_ELO);

/// Default `Move Overhead` (ms): what GUIs expect (Stockfish's default), and less than the
/// increment of the fastest controls engines are tested at (1+0.01).
const DEFAULT_MOVE_OVERHEAD: u64 = 10;
/// The `CaseBase` value that names the embedded case base.
const EMBEDDED: &str = "<default>";
/// The `Params` value that loads nothing.
const NO_PARAMS: &str = "<none>";
/// Most `Threads`.
const MAX_THREADS: i64 = 256;
/// Most `MultiPV`.
const MAX_MULTIPV: i64 = 256;
/// Most `Move Overhead` (ms).
const MAX_MOVE_OVERHEAD: i64 = 5000;

/// What a successful `setoption` changed that the engine must act on.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing beyond the stored value.
    None,
    /// Load this case base (`None` = embedded).
    CaseBase(Option<PathBuf>),
    /// Rebuild the thread pool.
    Threads,
    /// Resize the transposition table.
    Hash,
    /// Empty the transposition table (the `Clear Hash` button).
    ClearHash,
    /// The value was accepted, with a note the GUI should hear (an `info string`): a
    /// correction, or what the value leaves undone.
    Corrected(String),
}

/// The UCI type of one of the engine's own options, with the field it shows and how a value
/// sets it.
#[derive(Clone, Copy)]
enum Type {
    /// A whole number in the range (lowest, highest), which may depend on the options
    /// (`UCI_Elo`'s on the levels); `clamps`: a value outside is brought into it by `set`, not
    /// refused.
    Spin {
        range: fn(&Options) -> (i64, i64),
        clamps: bool,
        get: fn(&Options) -> i64,
        set: fn(&mut Options, i64) -> Change,
    },
    /// `true` or `false`.
    Check {
        get: fn(&Options) -> bool,
        set: fn(&mut Options, bool) -> Change,
    },
    /// Any text (trimmed).
    Text {
        get: fn(&Options) -> String,
        set: fn(&mut Options, &str) -> Result<Change, SettingError>,
    },
    /// No value.
    Button(fn(&mut Options) -> Change),
}

/// One of the engine's own options: its name and type. `uci` announces its field's value in
/// [`Options::default`] as its default. (The reasoner's options are the settings registry's,
/// [`SETTINGS`].)
struct EngineOption {
    name: &'static str,
    kind: Type,
}

const fn spin(
    name: &'static str,
    range: fn(&Options) -> (i64, i64),
    get: fn(&Options) -> i64,
    set: fn(&mut Options, i64) -> Change,
) -> EngineOption {
    let clamps = false;
    EngineOption {
        name,
        kind: Type::Spin {
            range,
            clamps,
            get,
            set,
        },
    }
}

/// A spin whose `set` brings a value outside its range into it.
const fn clamped(
    name: &'static str,
    range: fn(&Options) -> (i64, i64),
    get: fn(&Options) -> i64,
    set: fn(&mut Options, i64) -> Change,
) -> EngineOption {
    let clamps = true;
    EngineOption {
        name,
        kind: Type::Spin {
            range,
            clamps,
            get,
            set,
        },
    }
}

const fn check(
    name: &'static str,
    get: fn(&Options) -> bool,
    set: fn(&mut Options, bool) -> Change,
) -> EngineOption {
    EngineOption {
        name,
        kind: Type::Check { get, set },
    }
}

const fn text(
    name: &'static str,
    get: fn(&Options) -> String,
    set: fn(&mut Options, &str) -> Result<Change, SettingError>,
) -> EngineOption {
    EngineOption {
        name,
        kind: Type::Text { get, set },
    }
}

const fn button(name: &'static str, press: fn(&mut Options) -> Change) -> EngineOption {
    EngineOption {
        name,
        kind: Type::Button(press),
    }
}

/// The engine's options `uci` lists before the reasoner's, one a line: name, range, the field
/// it shows, what setting it does.
#[rustfmt::skip]
static BEFORE_REASONER: [EngineOption; 7] = [
    text("CaseBase", Options::casebase_name, |_, v| Ok(Change::CaseBase(named(v, EMBEDDED).map(PathBuf::from)))),
    spin("Threads", |_| (1, MAX_THREADS), |o| o.threads as i64, |o, n| { o.threads = n as usize; Change::Threads }),
    spin("Hash", |_| (1, MAX_MB as i64), |o| o.hash as i64, |o, n| { o.hash = n as u64; Change::Hash }),
    button("Clear Hash", |_| Change::ClearHash),
    spin("Move Overhead", |_| (0, MAX_MOVE_OVERHEAD), |o| o.move_overhead as i64, |o, n| { o.move_overhead = n as u64; Change::None }),
    spin("MultiPV", |_| (1, MAX_MULTIPV), |o| o.multipv as i64, |o, n| { o.multipv = n as usize; Change::None }),
    check("Ponder", |o| o.ponder, |o, b| { o.ponder = b; Change::None }),
];

/// The engine's options `uci` lists after the reasoner's, one a line as above.
#[rustfmt::skip]
static AFTER_REASONER: [EngineOption; 5] = [
    text("Params", |_| NO_PARAMS.into(), Options::load_params),
    check("UCI_LimitStrength", |o| o.limit_strength, |o, b| { o.limit_strength = b; Change::None }),
    clamped("UCI_Elo", Options::elo_spin_range, |o| i64::from(o.elo), Options::set_elo),
    check("UCI_Chess960", |o| o.chess960, |o, b| { o.chess960 = b; Change::None }),
    // Accepted (GUIs send it) and checked, but nothing plays differently when analysing.
    check("UCI_AnalyseMode", |_| false, |_, _| Change::None),
];

/// A text option's value, `None` when it is empty or `none` (the word that names nothing).
fn named<'a>(value: &'a str, none: &str) -> Option<&'a str> {
    (!(value.is_empty() || value == none)).then_some(value)
}

/// The error of `setoption name NAME` without a value, for an option that needs one.
fn no_value(name: &str) -> SettingError {
    SettingError::NotA {
        name: name.to_string(),
        got: String::new(),
        expected: "given a value".into(),
        origin: None,
    }
}

impl EngineOption {
    /// Its `option …` line, its range from `options`, its default from `defaults`.
    fn announce(&self, options: &Options, defaults: &Options) -> String {
        let name = self.name;
        match self.kind {
            Type::Spin { range, get, .. } => {
                let (min, max) = range(options);
                let default = get(defaults).clamp(min, max);
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            Type::Check { get, .. } => {
                format!("option name {name} type check default {}", get(defaults))
            }
            Type::Text { get, .. } => {
                format!("option name {name} type string default {}", get(defaults))
            }
            Type::Button(_) => format!("option name {name} type button"),
        }
    }

    /// Sets it to `value`, checked against its type.
    fn set(&self, options: &mut Options, value: Option<&str>) -> Result<Change, SettingError> {
        let name = self.name;
        let need = || value.ok_or_else(|| no_value(name));
        match self.kind {
            Type::Spin {
                range, clamps, set, ..
            } => {
                let (min, max) = if clamps {
                    (i64::MIN, i64::MAX)
                } else {
                    range(options)
                };
                match (Kind::Int { min, max }).parse(name, need()?)? {
                    Value::Int(n) => Ok(set(options, n)),
                    _ => Ok(Change::None),
                }
            }
            Type::Check { set, .. } => {
                let on = Kind::Bool.parse(name, need()?)? == Value::Bool(true);
                Ok(set(options, on))
            }
            Type::Text { set, .. } => set(options, need()?.trim()),
            Type::Button(press) => Ok(press(options)),
        }
    }
}

impl Options {
    /// Starts from `reasoner` (the command line's settings): its level, if it names one,
    /// becomes `UCI_LimitStrength` with `UCI_Elo`.
    pub fn set_reasoner(&mut self, reasoner: EngineConfig) {
        if let Some(elo) = reasoner.elo {
            self.limit_strength = true;
            self.elo = elo;
        }
        self.reasoner = reasoner;
    }

    /// The reasoner's settings for the next `go`: with `UCI_LimitStrength`, at `UCI_Elo`.
    pub fn reasoner_for_go(&self) -> EngineConfig {
        let mut cfg = self.reasoner.clone();
        cfg.elo = self.limit_strength.then_some(self.elo);
        cfg
    }

    /// The `UCI_Elo` range: the levels of the parameters.
    pub(crate) fn elo_range(&self) -> (u16, u16) {
        self.reasoner.elo_range().unwrap_or(NO_LEVELS_RANGE)
    }

    /// `CaseBase`'s value: the case base's file, or the word for the embedded one.
    fn casebase_name(&self) -> String {
        self.casebase
            .as_ref()
            .map_or(EMBEDDED.into(), |p| p.display().to_string())
    }

    /// [`Options::elo_range`] as a spin's.
    fn elo_spin_range(&self) -> (i64, i64) {
        let (lo, hi) = self.elo_range();
        (i64::from(lo), i64::from(hi))
    }

    /// `UCI_Elo`: a level outside the range is clamped into it, and said so.
    fn set_elo(&mut self, n: i64) -> Change {
        let (lo, hi) = self.elo_range();
        let elo = n.clamp(i64::from(lo), i64::from(hi)) as u16;
        self.elo = elo;
        match i64::from(elo) == n {
            true => Change::None,
            false => Change::Corrected(format!(
                "UCI_Elo {n} is outside {lo}..{hi}; clamped to {elo}"
            )),
        }
    }

    /// `Params`: the reasoner's settings from a parameter file (its seed kept). GUIs send every
    /// option's default at start-up: `<none>` changes nothing.
    fn load_params(&mut self, path: &str) -> Result<Change, SettingError> {
        if let Some(path) = named(path, NO_PARAMS) {
            let mut cfg = EngineConfig::load(std::path::Path::new(path)).map_err(|e| match e {
                ParamsError::Setting(e) => e,
                other => SettingError::Invalid(other.to_string()),
            })?;
            cfg.reuse.seed = self.reasoner.reuse.seed;
            self.reasoner = cfg;
        }
        Ok(Change::None)
    }

    /// The `option …` lines announced after `uci`: the engine's own, then the reasoner's
    /// from the registry of settings, then `Params` and the UCI_ ones.
    pub(crate) fn announce(&self) -> Vec<String> {
        let d = Options::default();
        let announce = |o: &EngineOption| o.announce(self, &d);
        let mut lines: Vec<String> = BEFORE_REASONER.iter().map(announce).collect();
        lines.extend(SETTINGS.iter().flat_map(|s| s.uci_options(&d.reasoner)));
        lines.extend(AFTER_REASONER.iter().map(announce));
        lines
    }

    /// Every option name, as announced (the reasoner's weights as `W1`…`W6`).
    fn names() -> Vec<String> {
        let engine = BEFORE_REASONER.iter().chain(&AFTER_REASONER);
        engine
            .map(|o| o.name.to_string())
            .chain(SETTINGS.iter().flat_map(Setting::uci_names))
            .collect()
    }

    /// Applies `setoption name NAME value VALUE`. Names match case-insensitively. On an error
    /// (an unknown name, a value out of range, a parameter file refused) every setting keeps
    /// its previous value.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, SettingError> {
        let name = name.trim();
        // A style or parameters that leave the style without its move model are accepted,
        // and said so.
        let unmodelled = |o: &Options, change: Change| match o.reasoner.unmodelled_style() {
            Some(note)
                if ["Style", "Params"]
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(name)) =>
            {
                Change::Corrected(note)
            }
            _ => change,
        };
        if let Some(option) = BEFORE_REASONER
            .iter()
            .chain(&AFTER_REASONER)
            .find(|o| o.name.eq_ignore_ascii_case(name))
        {
            let change = option.set(self, value)?;
            return Ok(unmodelled(self, change));
        }
        let mut cfg = self.reasoner.clone();
        let text = value.unwrap_or_default();
        match SETTINGS
            .iter()
            .find_map(|s| s.set_uci(&mut cfg, name, text))
        {
            Some(result) => {
                if value.is_none() {
                    return Err(no_value(name));
                }
                result?;
                validate(&cfg)?;
                self.reasoner = cfg;
                Ok(unmodelled(self, Change::None))
            }
            None => Err(unknown(name, Options::names().iter().map(String::as_str))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::Mode;

    #[test]
    fn names_match_case_insensitively() {
        let mut o = Options::default();
        assert_eq!(o.set("move overhead", Some("120")), Ok(Change::None));
        assert_eq!(o.move_overhead, 120);
        o.set("MODE", Some("Thesis")).expect("mode");
        assert_eq!(o.reasoner.reuse.mode, Mode::Thesis);
        o.set("w5", Some("10")).expect("w5");
        assert_eq!(o.reasoner.reuse.weights.0[4], 10.0);
    }

    #[test]
    fn bad_values_are_refused_and_leave_the_option_unchanged() {
        let mut o = Options::default();
        for (name, value) in [
            ("K", "0"),
            ("K", "many"),
            ("Threads", "-1"),
            ("P", "-3"),
            ("UCI_Chess960", "maybe"),
            ("Mode", "fast"),
            ("W1", "nan"),
        ] {
            assert!(
                o.set(name, Some(value)).is_err(),
                "{name} = {value} accepted"
            );
        }
        assert!(o.set("Nonsense", Some("1")).is_err());
        assert!(o.set("K", None).is_err());
        let d = Options::default();
        assert_eq!(
            (
                o.reasoner.reuse.k,
                o.threads,
                o.reasoner.reuse.p,
                o.chess960
            ),
            (
                d.reasoner.reuse.k,
                d.threads,
                d.reasoner.reuse.p,
                d.chess960
            )
        );
    }

    #[test]
    fn casebase_default_means_embedded() {
        let mut o = Options::default();
        assert_eq!(
            o.set("CaseBase", Some("<default>")),
            Ok(Change::CaseBase(None))
        );
        assert_eq!(
            o.set("casebase", Some("/x/y.cb")),
            Ok(Change::CaseBase(Some("/x/y.cb".into())))
        );
    }

    /// Parameters whose move model is empty (every weight 0) leave the model's styles to play
    /// as `best`: accepted, and said so when the style or the parameters change, silent for
    /// `best`.
    #[test]
    fn a_style_without_its_move_model_is_said_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.toml");
        let mut cfg = EngineConfig::default();
        cfg.model.weights.values_mut().for_each(|w| *w = 0.0);
        cfg.model.network = None;
        cfg.save(&path).expect("save");
        let mut o = Options::default();
        assert_eq!(o.set("Style", Some("natural")), Ok(Change::None));
        let note = |c| match c {
            Ok(Change::Corrected(note)) => note,
            other => panic!("no note: {other:?}"),
        };
        let loaded = note(o.set("Params", path.to_str()));
        let style = EngineConfig::default().style;
        assert!(
            loaded.contains(&format!("style {style} needs a move model"))
                && loaded.ends_with("as best"),
            "{loaded}"
        );
        assert!(o.reasoner.model.is_empty());
        for style in ["human", "natural"] {
            let said = note(o.set("style", Some(style)));
            assert!(
                said.contains(&format!("style {style} needs a move model")),
                "{said}"
            );
        }
        assert_eq!(o.set("Style", Some("best")), Ok(Change::None));
        assert_eq!(o.set("K", Some("3")), Ok(Change::None));
        // Without revising, the cases decide whatever the style: nothing to say.
        assert_eq!(o.set("Revise", Some("false")), Ok(Change::None));
        assert_eq!(o.set("Style", Some("human")), Ok(Change::None));
    }

    #[test]
    fn every_announced_option_can_be_set_to_its_default() {
        let mut o = Options::default();
        for line in o.announce() {
            let rest = line.strip_prefix("option name ").expect("option line");
            let (name, tail) = rest.split_once(" type ").expect("type");
            let default = tail
                .split_once(" default ")
                .map(|(_, d)| d.split(" min ").next().unwrap_or(d));
            let default = default.map(|d| d.split(" var ").next().unwrap_or(d).to_string());
            assert!(o.set(name, default.as_deref()).is_ok(), "{line}");
        }
    }

    /// The README's options table says what `uci` announces: every option once (`W1`…`W6`
    /// one row), with its type, range and default; the text ranges of the reasoner's numbers
    /// (UCI `string`) are the registry's. A change to an option that forgets the README fails
    /// here.
    #[test]
    fn the_readmes_options_table_is_what_uci_announces() {
        const README: &str = include_str!("../../../README.md");
        let table = README
            .split_once("### Options\n")
            .map(|(_, rest)| rest)
            .expect("README has an Options section");
        // | `Name` | type | default | meaning |
        let mut rows: Vec<(String, String, String)> = Vec::new();
        let lines = table.lines().skip_while(|l| !l.starts_with('|'));
        for line in lines.skip(2).take_while(|l| l.starts_with('|')) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let unquote = |c: &str| c.trim_matches('`').to_string();
            let (name, kind, default) = (unquote(cells[1]), cells[2], unquote(cells[3]));
            if name == "W1`…`W6" {
                for i in 1..=6 {
                    rows.push((format!("W{i}"), kind.to_string(), default.clone()));
                }
            } else {
                rows.push((name, kind.to_string(), default));
            }
        }
        let options = Options::default();
        let announced = options.announce();
        let mut names = Vec::new();
        for line in &announced {
            let rest = line.strip_prefix("option name ").expect("option line");
            let (name, tail) = rest.split_once(" type ").expect("a type");
            names.push(name.to_string());
            let kind = tail.split_whitespace().next().expect("the type's word");
            // The value after ` KEY `, up to the next keyword.
            let field = |key: &str| {
                let (_, v) = tail.split_once(&format!(" {key} "))?;
                let end = [" min ", " max ", " var "]
                    .iter()
                    .filter_map(|k| v.find(k))
                    .min()
                    .unwrap_or(v.len());
                Some(v[..end].to_string())
            };
            let row = rows
                .iter()
                .find(|(n, _, _)| n == name)
                .unwrap_or_else(|| panic!("README's options table lacks {name}"));
            let readme_kind = row.1.split_whitespace().next().unwrap_or("");
            assert_eq!(readme_kind, kind, "{name}'s type");
            let range = row.1.split_whitespace().nth(1);
            match kind {
                "spin" => {
                    let want = format!(
                        "{}–{}",
                        field("min").expect("min"),
                        field("max").expect("max")
                    );
                    assert_eq!(range, Some(want.as_str()), "{name}'s range");
                }
                "string" => {
                    // A reasoner number's range is the registry's.
                    let setting = SETTINGS
                        .iter()
                        .find(|s| s.uci_names().iter().any(|n| n == name));
                    let want = setting.and_then(|s| match s.kind {
                        Kind::Float { min, max } | Kind::Weights { min, max } => {
                            Some(format!("{min}–{max}"))
                        }
                        _ => None,
                    });
                    assert_eq!(range.map(str::to_string), want, "{name}'s range");
                }
                _ => assert_eq!(range, None, "{name} has no range"),
            }
            let default = field("default").unwrap_or_default();
            let readme_default = if name == "Threads" {
                // The machine's cores, which the README cannot know.
                assert_eq!(row.2, "cores");
                default.clone()
            } else {
                row.2.clone()
            };
            assert_eq!(readme_default, default, "{name}'s default");
        }
        for (name, _, _) in &rows {
            assert!(
                names.contains(name),
                "README lists {name}, which uci does not announce"
            );
        }
        assert_eq!(rows.len(), names.len());
    }
}
