//! The reasoner as the lab's workflows (and the command line's `go`, `uci`) take it: a case
//! base, a parameter file, and a flag for every setting of the registry
//! (`precedent::think::settings`), derived from it.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, FromArgMatches};
use precedent::casebase::{CaseBase, CaseBaseError};
use precedent::player::Loaded;
use precedent::think::EngineConfig;
use precedent::think::{
    ParamsError,
    settings::{Kind, SETTINGS, SettingError, apply_text},
};

/// Why the reasoner could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ReasonerError {
    /// The parameter file was refused.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// A setting was refused.
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// The case base could not be loaded.
    #[error(transparent)]
    CaseBase(#[from] CaseBaseError),
    /// A player file where a case base is needed.
    #[error("{0}")]
    PlayerFile(String),
}

/// The case base and how to reason with it. Every flag left out keeps the value of the
/// parameter file (`--params`), or else the default; a flag given always wins.
#[derive(Debug, Clone, Default)]
pub struct ReasonerArgs {
    /// Case-base file (default: the embedded one).
    pub casebase: Option<PathBuf>,
    /// A parameter file (TOML); the flags override it.
    pub params: Option<PathBuf>,
    /// The settings' flags given, as (name, text), in the registry's order.
    pub given: Vec<(String, String)>,
}

impl ReasonerArgs {
    /// The configuration: the parameter file (or the defaults) with the given flags applied,
    /// checked as a whole.
    pub fn config(&self) -> Result<EngineConfig, ReasonerError> {
        let mut cfg = match &self.params {
            Some(path) => EngineConfig::load(path)?,
            None => EngineConfig::default(),
        };
        if let Some(note) = apply_text(&mut cfg, &self.given)? {
            eprintln!("{note}");
        }
        Ok(cfg)
    }

    /// The value of the flag `--name`, if given.
    pub fn flag(&self, name: &str) -> Option<&str> {
        self.given
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The seed of a reproducible lab run (its sample, its tie-breaks, its draws) with `cfg`:
    /// its seed, else 1, so that runs repeat unless asked not to; `--seed 0` draws a fresh one.
    pub fn run_seed(&self, cfg: &EngineConfig) -> u64 {
        match self.flag("seed").map(str::trim) {
            Some("0") => rand::random::<u64>() | 1,
            _ => cfg.reuse.seed.unwrap_or(1),
        }
    }

    /// Loads the case base, refusing a player file (for the commands that fit or tune the
    /// generic model, which a player's evidence would not reach).
    pub fn plain_casebase(&self, command: &str) -> Result<CaseBase, ReasonerError> {
        let cb = match &self.casebase {
            Some(path) => CaseBase::open(path)?,
            None => CaseBase::embedded()?,
        };
        if cb.info().profile.is_some() {
            return Err(ReasonerError::PlayerFile(format!(
                "{}: a player file; {command} needs a case base (a player's files are measured by `precedent players`)",
                cb.name()
            )));
        }
        Ok(cb)
    }

    /// Loads the case base, or a player file on top of the embedded case base.
    pub fn casebase(&self) -> Result<Loaded, ReasonerError> {
        Ok(Loaded::open(self.casebase.as_deref(), || {
            CaseBase::embedded().map(std::sync::Arc::new)
        })?)
    }
}

impl FromArgMatches for ReasonerArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut args = ReasonerArgs::default();
        args.update_from_arg_matches(m)?;
        Ok(args)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        if let Some(c) = m.get_one::<PathBuf>("casebase") {
            self.casebase = Some(c.clone());
        }
        if let Some(p) = m.get_one::<PathBuf>("params") {
            self.params = Some(p.clone());
        }
        for s in SETTINGS.iter().filter(|s| s.cli) {
            if let Some(v) = m.get_one::<String>(s.name) {
                self.given.retain(|(n, _)| n != s.name);
                self.given.push((s.name.to_string(), v.clone()));
            }
        }
        Ok(())
    }
}

impl clap::Args for ReasonerArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = cmd
            .arg(
                Arg::new("casebase")
                    .long("casebase")
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("Case-base file (default: the embedded one)"),
            )
            .arg(
                Arg::new("params")
                    .long("params")
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("A parameter file (TOML, e.g. from `precedent tune`); the other flags override it"),
            );
        for s in SETTINGS.iter().filter(|s| s.cli) {
            let value_name = match s.kind {
                Kind::Bool => "BOOL",
                Kind::Int { .. } => "N",
                Kind::Float { .. } => "X",
                Kind::Choice(_) => "WORD",
                Kind::Weights { .. } => "W1,..,W6",
            };
            cmd = cmd.arg(
                Arg::new(s.name)
                    .long(s.name)
                    .value_name(value_name)
                    .action(ArgAction::Set)
                    .help(s.help_line()),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::player::PlayerSpec;
    use clap::Parser;
    use precedent::think::settings::{Setting, Value};
    use precedent::uci::Options;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        reasoner: ReasonerArgs,
    }

    fn cli(args: &[&str]) -> Result<EngineConfig, String> {
        let mut argv = vec!["precedent"];
        argv.extend(args);
        let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
        cli.reasoner.config().map_err(|e| e.to_string())
    }

    /// A value of each setting other than its default, in range.
    fn other_value(s: &Setting) -> Value {
        match (s.kind, s.default_value()) {
            (Kind::Bool, Value::Bool(b)) => Value::Bool(!b),
            (Kind::Int { min, max }, Value::Int(n)) => {
                Value::Int(if n == max { min } else { n.max(min) + 1 }.min(max))
            }
            (Kind::Int { min, .. }, Value::Unset) => Value::Int(min.max(1400)),
            (Kind::Float { min, max }, Value::Float(x)) => {
                Value::Float(((x + min + 0.5) / 2.0 + 0.25).clamp(min, max))
            }
            (Kind::Choice(words), Value::Choice(c)) => Value::Choice(
                words
                    .iter()
                    .find(|w| **w != c)
                    .map_or(c.clone(), |w| w.to_string()),
            ),
            (Kind::Weights { .. }, Value::Weights(mut w)) => {
                w[2] = 2.5;
                w[5] = 0.0;
                Value::Weights(w)
            }
            (_, v) => v,
        }
    }

    /// As a parameter file writes it.
    fn toml_line(key: &str, v: &Value) -> String {
        let (table, key) = match key.split_once('.') {
            Some((t, k)) => (format!("[{t}]\n"), k),
            None => (String::new(), key),
        };
        let text = match v {
            Value::Choice(c) => format!("{c:?}"),
            Value::Float(x) => format!("{x:?}"),
            Value::Weights(w) => format!("{w:?}"),
            other => other.to_string(),
        };
        format!("{table}{key} = {text}\n")
    }

    #[test]
    fn every_setting_round_trips_through_the_file_the_command_line_and_uci() {
        let dir = tempfile::tempdir().expect("tempdir");
        for s in SETTINGS.iter() {
            let v = other_value(s);
            assert_ne!(v, s.default_value(), "{}: no other value", s.name);
            let mut want = EngineConfig::default();
            s.set(&mut want, v.clone());
            if let Some(key) = s.file {
                let path = dir.path().join(format!("{}.toml", s.name));
                std::fs::write(&path, toml_line(key, &v)).expect("write");
                let got = EngineConfig::load(&path).unwrap_or_else(|e| panic!("{}: {e}", s.name));
                assert_eq!(got, want, "{} through the parameter file", s.name);
            }
            if s.cli {
                let flag = format!("--{}", s.name);
                let text = v.to_string();
                let got = cli(&[&flag, &text]).unwrap_or_else(|e| panic!("{}: {e}", s.name));
                assert_eq!(got, want, "{} through the command line", s.name);
                let spec = format!("precedent:{}={}", s.name, text.replace(',', ":"));
                let Ok(PlayerSpec::Precedent { config, .. }) = spec.parse::<PlayerSpec>() else {
                    panic!("{spec} refused");
                };
                assert_eq!(*config, want, "{} through the match spec", s.name);
            }
            let names = s.uci_names();
            if !names.is_empty() {
                let mut o = Options::default();
                let texts: Vec<String> = match &v {
                    Value::Weights(w) => w.iter().map(|x| x.to_string()).collect(),
                    other => vec![other.to_string()],
                };
                for (name, text) in names.iter().zip(&texts) {
                    o.set(name, Some(text))
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                }
                assert_eq!(o.reasoner_for_go(), want, "{} through UCI", s.name);
            } else if s.name == "elo" {
                let mut o = Options::default();
                o.set("UCI_LimitStrength", Some("true")).expect("limit");
                o.set("UCI_Elo", Some(&v.to_string())).expect("elo");
                assert_eq!(o.reasoner_for_go(), want, "elo through UCI");
            }
        }
    }

    #[test]
    fn a_value_out_of_range_is_refused_the_same_way_everywhere() {
        let message = "`k` = 0 is outside 1..4096";
        let e = cli(&["--k", "0"]).expect_err("command line");
        assert_eq!(e.to_string(), message);
        let e = "precedent:k=0".parse::<PlayerSpec>().expect_err("spec");
        assert_eq!(e, format!("{message} in player `precedent:k=0`"));
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("k.toml");
        std::fs::write(&path, "p = 2.0\nk = 0\n").expect("write");
        let e = EngineConfig::load(&path).expect_err("file").to_string();
        assert_eq!(e, format!("{message} in {} line 2", path.display()));
        let mut o = Options::default();
        let e = o.set("K", Some("0")).expect_err("uci").to_string();
        assert_eq!(e, message);
        assert_eq!(o.reasoner.reuse.k, EngineConfig::default().reuse.k);
    }

    #[test]
    fn an_unknown_key_in_a_parameter_file_names_it_the_file_the_line_and_the_nearest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("typo.toml");
        std::fs::write(&path, "temprature = 0.3\nk = 5\n").expect("write");
        let e = cli(&["--params", path.to_str().expect("utf-8")]).expect_err("typo");
        assert_eq!(
            e.to_string(),
            format!(
                "unknown setting `temprature` in {} line 1; did you mean `temperature`?",
                path.display()
            )
        );
    }
}
