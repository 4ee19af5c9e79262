//! The engine's UCI options: what `uci` announces and how `setoption` changes them.

use std::path::PathBuf;

use crate::adapt::Weights;
use crate::engine::config::EngineConfig;
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
    /// Whether the GUI is analysing rather than playing (`UCI_AnalyseMode`).
    pub analyse_mode: bool,
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
            analyse_mode: false,
            ponder: false,
            limit_strength: false,
            elo: DEFAULT_ELO,
        }
    }
}

/// `UCI_Elo`'s default.
pub const DEFAULT_ELO: u16 = 1400;
/// `UCI_Elo`'s range when the parameters have no levels (the option then changes nothing).
const NO_LEVELS_RANGE: (u16, u16) = (DEFAULT_ELO, DEFAULT_ELO);

/// Default `Move Overhead` (ms): what GUIs expect (Stockfish's default), and less than the
/// increment of the fastest controls engines are tested at (1+0.01).
pub const DEFAULT_MOVE_OVERHEAD: u64 = 10;
/// The `CaseBase` value that names the embedded case base.
pub const EMBEDDED: &str = "<default>";

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
    pub fn elo_range(&self) -> (u16, u16) {
        self.reasoner.elo_range().unwrap_or(NO_LEVELS_RANGE)
    }

    /// The `option …` lines announced after `uci`.
    pub fn announce(&self) -> Vec<String> {
        let d = EngineConfig::default();
        let w = Weights::default().0;
        let mut lines = vec![
            format!("option name CaseBase type string default {EMBEDDED}"),
            format!(
                "option name Threads type spin default {} min 1 max 256",
                self.threads
            ),
            format!("option name Hash type spin default {DEFAULT_MB} min 1 max {MAX_MB}"),
            "option name Clear Hash type button".to_string(),
            format!(
                "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD} min 0 max 5000"
            ),
            "option name MultiPV type spin default 1 min 1 max 256".to_string(),
            "option name Ponder type check default false".to_string(),
            format!(
                "option name Style type combo default {} var imitate var human var best",
                d.style
            ),
            format!(
                "option name Temperature type string default {}",
                d.temperature
            ),
            "option name Mode type combo default normalised var normalised var thesis".to_string(),
            format!(
                "option name K type spin default {} min 1 max 4096",
                d.reuse.k
            ),
            format!("option name P type string default {}", d.reuse.p),
        ];
        for (i, w) in w.iter().enumerate() {
            lines.push(format!("option name W{} type string default {w}", i + 1));
        }
        lines.push("option name Seed type spin default 0 min 0 max 2147483647".to_string());
        let r = &d.revise;
        lines.push(format!(
            "option name Revise type check default {}",
            r.enabled
        ));
        lines.push(format!(
            "option name Tolerance type spin default {} min 0 max 10000",
            r.tolerance
        ));
        lines.push(format!(
            "option name Candidates type spin default {} min 1 max 256",
            r.candidates
        ));
        lines.push("option name Params type string default <none>".to_string());
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

    /// Applies `setoption name NAME value VALUE`. Names match case-insensitively.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, String> {
        let key = name.to_ascii_lowercase();
        let need = || value.ok_or_else(|| format!("option {name} needs a value"));
        let spin = |min: i64, max: i64| -> Result<i64, String> {
            let v = need()?;
            let n: i64 = v
                .trim()
                .parse()
                .map_err(|_| format!("option {name}: {v:?} is not a whole number"))?;
            if n < min || n > max {
                return Err(format!("option {name}: {n} is outside {min}..{max}"));
            }
            Ok(n)
        };
        let check = || -> Result<bool, String> {
            match need()?.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                v => Err(format!("option {name}: {v:?} is neither true nor false")),
            }
        };
        let float = || -> Result<f64, String> {
            let v = need()?;
            let x: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("option {name}: {v:?} is not a number"))?;
            if !x.is_finite() || x < 0.0 {
                return Err(format!("option {name}: {x} must be a finite number ≥ 0"));
            }
            Ok(x)
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
                self.threads = spin(1, 256)? as usize;
                return Ok(Change::Threads);
            }
            "hash" => {
                self.hash = spin(1, MAX_MB as i64)? as u64;
                return Ok(Change::Hash);
            }
            "clear hash" => return Ok(Change::ClearHash),
            "move overhead" => self.move_overhead = spin(0, 5000)? as u64,
            "multipv" => self.multipv = spin(1, 256)? as usize,
            "ponder" => self.ponder = check()?,
            "mode" => self.reasoner.reuse.mode = need()?.trim().parse()?,
            "style" => self.reasoner.style = need()?.parse()?,
            "temperature" => {
                let t = float()?;
                if t <= 0.0 {
                    return Err(format!("option {name}: the temperature must be above 0"));
                }
                self.reasoner.temperature = t;
            }
            "k" => self.reasoner.reuse.k = spin(1, 4096)? as usize,
            "p" => self.reasoner.reuse.p = float()?,
            "w1" | "w2" | "w3" | "w4" | "w5" | "w6" => {
                let i = usize::from(key.as_bytes()[1] - b'1');
                self.reasoner.reuse.weights.0[i] = float()?;
            }
            "seed" => {
                let s = spin(0, 2_147_483_647)? as u64;
                self.reasoner.reuse.seed = (s != 0).then_some(s);
            }
            "revise" => self.reasoner.revise.enabled = check()?,
            "tolerance" => self.reasoner.revise.tolerance = spin(0, 10_000)? as i32,
            "candidates" => self.reasoner.revise.candidates = spin(1, 256)? as usize,
            "params" => {
                let v = need()?.trim().to_string();
                // GUIs send every option's default at start-up: "<none>" changes nothing.
                if !(v.is_empty() || v == "<none>") {
                    let mut cfg = EngineConfig::load(std::path::Path::new(&v))?;
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
            "uci_analysemode" => self.analyse_mode = check()?,
            _ => return Err(format!("no such option: {name}")),
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
