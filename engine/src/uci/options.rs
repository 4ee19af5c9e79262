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
pub(crate) const DEFAULT_ELO: u16 = 1400;
/// `UCI_Elo`'s range when the parameters have no levels (the option then changes nothing).
const NO_LEVELS_RANGE: (u16, u16) = (DEFAULT_ELO, DEFAULT_ELO);

/// Default `Move Overhead` (ms): what GUIs expect (Stockfish's default), and less than the
/// increment of the fastest controls engines are tested at (1+0.01).
pub(crate) const DEFAULT_MOVE_OVERHEAD: u64 = 10;
/// The `CaseBase` value that names the embedded case base.
pub(crate) const EMBEDDED: &str = "<default>";
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

/// A value of one of the engine's own options, checked against its type.
enum Arg<'a> {
    /// A spin's number (in its range, unless the option clamps).
    Int(i64),
    /// A check's value.
    Bool(bool),
    /// A string's text, trimmed.
    Text(&'a str),
    /// A button was pressed.
    Press,
}

/// The UCI type of one of the engine's own options.
#[derive(Clone, Copy)]
enum Type {
    /// A whole number in the range (lowest, highest), which may depend on the options
    /// (`UCI_Elo`'s on the levels); `clamps`: a value outside is brought into it, not refused.
    Spin {
        range: fn(&Options) -> (i64, i64),
        clamps: bool,
    },
    /// `true` or `false`.
    Check,
    /// Any text.
    Text,
    /// No value.
    Button,
}

/// One of the engine's own options, declared once: its name, type, announced default and what
/// setting it does. (The reasoner's options are the settings registry's, [`SETTINGS`].)
struct EngineOption {
    name: &'static str,
    kind: Type,
    /// The default `uci` announces (none for a button).
    default: fn(&Options) -> String,
    apply: fn(&mut Options, Arg<'_>) -> Result<Change, SettingError>,
}

/// The engine's options `uci` lists before the reasoner's.
static BEFORE_REASONER: [EngineOption; 7] = [
    EngineOption {
        name: "CaseBase",
        kind: Type::Text,
        default: |_| EMBEDDED.to_string(),
        apply: |_, v| {
            let Arg::Text(v) = v else {
                return Ok(Change::None);
            };
            let path = (!(v.is_empty() || v == EMBEDDED)).then(|| PathBuf::from(v));
            Ok(Change::CaseBase(path))
        },
    },
    EngineOption {
        name: "Threads",
        kind: Type::Spin {
            range: |_| (1, MAX_THREADS),
            clamps: false,
        },
        default: |o| o.threads.to_string(),
        apply: |o, v| {
            if let Arg::Int(n) = v {
                o.threads = n as usize;
            }
            Ok(Change::Threads)
        },
    },
    EngineOption {
        name: "Hash",
        kind: Type::Spin {
            range: |_| (1, MAX_MB as i64),
            clamps: false,
        },
        default: |_| DEFAULT_MB.to_string(),
        apply: |o, v| {
            if let Arg::Int(n) = v {
                o.hash = n as u64;
            }
            Ok(Change::Hash)
        },
    },
    EngineOption {
        name: "Clear Hash",
        kind: Type::Button,
        default: |_| String::new(),
        apply: |_, _| Ok(Change::ClearHash),
    },
    EngineOption {
        name: "Move Overhead",
        kind: Type::Spin {
            range: |_| (0, MAX_MOVE_OVERHEAD),
            clamps: false,
        },
        default: |_| DEFAULT_MOVE_OVERHEAD.to_string(),
        apply: |o, v| {
            if let Arg::Int(n) = v {
                o.move_overhead = n as u64;
            }
            Ok(Change::None)
        },
    },
    EngineOption {
        name: "MultiPV",
        kind: Type::Spin {
            range: |_| (1, MAX_MULTIPV),
            clamps: false,
        },
        default: |_| "1".to_string(),
        apply: |o, v| {
            if let Arg::Int(n) = v {
                o.multipv = n as usize;
            }
            Ok(Change::None)
        },
    },
    EngineOption {
        name: "Ponder",
        kind: Type::Check,
        default: |_| "false".to_string(),
        apply: |o, v| {
            if let Arg::Bool(b) = v {
                o.ponder = b;
            }
            Ok(Change::None)
        },
    },
];

/// The engine's options `uci` lists after the reasoner's.
static AFTER_REASONER: [EngineOption; 5] = [
    EngineOption {
        name: "Params",
        kind: Type::Text,
        default: |_| NO_PARAMS.to_string(),
        apply: |o, v| {
            let Arg::Text(v) = v else {
                return Ok(Change::None);
            };
            // GUIs send every option's default at start-up: "<none>" changes nothing.
            if !(v.is_empty() || v == NO_PARAMS) {
                let mut cfg = EngineConfig::load(std::path::Path::new(v)).map_err(|e| match e {
                    ParamsError::Setting(e) => e,
                    other => SettingError::Invalid(other.to_string()),
                })?;
                cfg.reuse.seed = o.reasoner.reuse.seed;
                o.reasoner = cfg;
            }
            Ok(Change::None)
        },
    },
    EngineOption {
        name: "UCI_LimitStrength",
        kind: Type::Check,
        default: |_| "false".to_string(),
        apply: |o, v| {
            if let Arg::Bool(b) = v {
                o.limit_strength = b;
            }
            Ok(Change::None)
        },
    },
    EngineOption {
        name: "UCI_Elo",
        kind: Type::Spin {
            range: |o| {
                let (lo, hi) = o.elo_range();
                (i64::from(lo), i64::from(hi))
            },
            clamps: true,
        },
        default: |o| {
            let (lo, hi) = o.elo_range();
            DEFAULT_ELO.clamp(lo, hi).to_string()
        },
        apply: |o, v| {
            let Arg::Int(n) = v else {
                return Ok(Change::None);
            };
            let (lo, hi) = o.elo_range();
            let elo = n.clamp(i64::from(lo), i64::from(hi)) as u16;
            o.elo = elo;
            if i64::from(elo) != n {
                return Ok(Change::Corrected(format!(
                    "UCI_Elo {n} is outside {lo}..{hi}; clamped to {elo}"
                )));
            }
            Ok(Change::None)
        },
    },
    EngineOption {
        name: "UCI_Chess960",
        kind: Type::Check,
        default: |_| "false".to_string(),
        apply: |o, v| {
            if let Arg::Bool(b) = v {
                o.chess960 = b;
            }
            Ok(Change::None)
        },
    },
    EngineOption {
        // Accepted (GUIs send it) and checked, but nothing plays differently when analysing.
        name: "UCI_AnalyseMode",
        kind: Type::Check,
        default: |_| "false".to_string(),
        apply: |_, _| Ok(Change::None),
    },
];

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
    /// Its `option …` line.
    fn announce(&self, options: &Options) -> String {
        let name = self.name;
        let default = (self.default)(options);
        match self.kind {
            Type::Spin { range, .. } => {
                let (min, max) = range(options);
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            Type::Check => format!("option name {name} type check default {default}"),
            Type::Text => format!("option name {name} type string default {default}"),
            Type::Button => format!("option name {name} type button"),
        }
    }

    /// `value` checked against its type.
    fn arg<'a>(&self, options: &Options, value: Option<&'a str>) -> Result<Arg<'a>, SettingError> {
        let name = self.name;
        let need = || value.ok_or_else(|| no_value(name));
        Ok(match self.kind {
            Type::Spin { range, clamps } => {
                let (min, max) = if clamps {
                    (i64::MIN, i64::MAX)
                } else {
                    range(options)
                };
                match (Kind::Int { min, max }).parse(name, need()?)? {
                    Value::Int(n) => Arg::Int(n),
                    _ => Arg::Int(min),
                }
            }
            Type::Check => Arg::Bool(Kind::Bool.parse(name, need()?)? == Value::Bool(true)),
            Type::Text => Arg::Text(need()?.trim()),
            Type::Button => Arg::Press,
        })
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

    /// The `option …` lines announced after `uci`: the engine's own, then the reasoner's
    /// from the registry of settings, then `Params` and the UCI_ ones.
    pub(crate) fn announce(&self) -> Vec<String> {
        let d = EngineConfig::default();
        let mut lines: Vec<String> = BEFORE_REASONER.iter().map(|o| o.announce(self)).collect();
        lines.extend(SETTINGS.iter().flat_map(|s| s.uci_options(&d)));
        lines.extend(AFTER_REASONER.iter().map(|o| o.announce(self)));
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
            let arg = option.arg(self, value)?;
            let change = (option.apply)(self, arg)?;
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
