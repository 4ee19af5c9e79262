//! The engine's UCI options: what `uci` announces and how `setoption` changes them.

use std::path::PathBuf;

use crate::engine::config::EngineConfig;
use crate::engine::settings::{
    Kind, ParamsError, SETTINGS, Setting, SettingError, Value, unknown, validate,
};
use crate::revise::tt::{DEFAULT_MB, MAX_MB};

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
    /// The value was accepted after a correction the GUI should hear of (an `info string`).
    Corrected(String),
}

impl Options {
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
        let mut lines = vec![
            format!("option name CaseBase type string default {EMBEDDED}"),
            format!(
                "option name Threads type spin default {} min 1 max {MAX_THREADS}",
                self.threads
            ),
            format!("option name Hash type spin default {DEFAULT_MB} min 1 max {MAX_MB}"),
            "option name Clear Hash type button".to_string(),
            format!(
                "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD} min 0 max {MAX_MOVE_OVERHEAD}"
            ),
            format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
            "option name Ponder type check default false".to_string(),
        ];
        lines.extend(SETTINGS.iter().flat_map(|s| s.uci_options(&d)));
        lines.push(format!(
            "option name Params type string default {NO_PARAMS}"
        ));
        lines.push("option name UCI_LimitStrength type check default false".to_string());
        let (lo, hi) = self.elo_range();
        lines.push(format!(
            "option name UCI_Elo type spin default {} min {lo} max {hi}",
            DEFAULT_ELO.clamp(lo, hi)
        ));
        lines.push("option name UCI_Chess960 type check default false".to_string());
        lines.push("option name UCI_AnalyseMode type check default false".to_string());
        lines
    }

    /// Every option name, as announced (the reasoner's weights as `W1`…`W6`).
    fn names() -> Vec<String> {
        let engine = [
            "CaseBase",
            "Threads",
            "Hash",
            "Clear Hash",
            "Move Overhead",
            "MultiPV",
            "Ponder",
            "Params",
            "UCI_LimitStrength",
            "UCI_Elo",
            "UCI_Chess960",
            "UCI_AnalyseMode",
        ];
        let reasoner = SETTINGS.iter().flat_map(Setting::uci_names);
        engine
            .iter()
            .map(|n| n.to_string())
            .chain(reasoner)
            .collect()
    }

    /// Applies `setoption name NAME value VALUE`. Names match case-insensitively. On an error
    /// (an unknown name, a value out of range, a parameter file refused) every setting keeps
    /// its previous value.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, SettingError> {
        let key = name.to_ascii_lowercase();
        let need = || {
            value.ok_or_else(|| SettingError::NotA {
                name: name.to_string(),
                got: String::new(),
                expected: "given a value".into(),
                origin: None,
            })
        };
        let spin = |min: i64, max: i64| -> Result<i64, SettingError> {
            match (Kind::Int { min, max }).parse(name, need()?)? {
                Value::Int(n) => Ok(n),
                _ => Ok(min),
            }
        };
        let check = || -> Result<bool, SettingError> {
            Ok(Kind::Bool.parse(name, need()?)? == Value::Bool(true))
        };
        match key.as_str() {
            "casebase" => {
                let v = need()?.trim().to_string();
                let path = if v.is_empty() || v == EMBEDDED {
                    None
                } else {
                    Some(PathBuf::from(v))
                };
                return Ok(Change::CaseBase(path));
            }
            "threads" => {
                self.threads = spin(1, MAX_THREADS)? as usize;
                return Ok(Change::Threads);
            }
            "hash" => {
                self.hash = spin(1, MAX_MB as i64)? as u64;
                return Ok(Change::Hash);
            }
            "clear hash" => return Ok(Change::ClearHash),
            "move overhead" => self.move_overhead = spin(0, MAX_MOVE_OVERHEAD)? as u64,
            "multipv" => self.multipv = spin(1, MAX_MULTIPV)? as usize,
            "ponder" => self.ponder = check()?,
            "params" => {
                let v = need()?.trim().to_string();
                // GUIs send every option's default at start-up: "<none>" changes nothing.
                if !(v.is_empty() || v == NO_PARAMS) {
                    let mut cfg =
                        EngineConfig::load(std::path::Path::new(&v)).map_err(|e| match e {
                            ParamsError::Setting(e) => e,
                            other => SettingError::Invalid(other.to_string()),
                        })?;
                    cfg.reuse.seed = self.reasoner.reuse.seed;
                    self.reasoner = cfg;
                }
            }
            "uci_limitstrength" => self.limit_strength = check()?,
            "uci_elo" => {
                let n = spin(i64::MIN, i64::MAX)?;
                let (lo, hi) = self.elo_range();
                let elo = n.clamp(i64::from(lo), i64::from(hi)) as u16;
                self.elo = elo;
                if i64::from(elo) != n {
                    return Ok(Change::Corrected(format!(
                        "UCI_Elo {n} is outside {lo}..{hi}; clamped to {elo}"
                    )));
                }
            }
            "uci_chess960" => self.chess960 = check()?,
            // Accepted (GUIs send it) and checked, but nothing plays differently when analysing.
            "uci_analysemode" => {
                check()?;
            }
            _ => {
                let mut cfg = self.reasoner.clone();
                let applied = SETTINGS
                    .iter()
                    .find_map(|s| s.set_uci(&mut cfg, name, need().unwrap_or_default()));
                match applied {
                    Some(result) => {
                        need()?;
                        result?;
                        validate(&cfg)?;
                        self.reasoner = cfg;
                    }
                    None => {
                        return Err(unknown(
                            name.trim(),
                            Options::names().iter().map(String::as_str),
                        ));
                    }
                }
            }
        }
        Ok(Change::None)
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
}
