//! Reasoner options shared by `go`, `eval`, `uci` and `match`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use precedent::adapt::Weights;
use precedent::adapt::reuse::ReuseConfig;
use precedent::casebase::CaseBase;
use precedent::engine::config::EngineConfig;
use precedent::retrieve::Mode;
use precedent::revise::ReviseConfig;

/// The case base and how to reason with it.
#[derive(clap::Args, Debug, Clone)]
pub struct ReasonerArgs {
    /// Case-base file (default: the embedded one).
    #[arg(long, value_name = "FILE")]
    pub casebase: Option<PathBuf>,
    /// A parameter file (TOML, e.g. from `precedent tune`); other reasoner flags override it.
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,
    /// Number of nearest cases that vote (1 = the thesis).
    #[arg(long, default_value_t = EngineConfig::default().reuse.k)]
    pub k: usize,
    /// Vote exponent: a case votes with weight similarity^P.
    #[arg(long, default_value_t = EngineConfig::default().reuse.p)]
    pub p: f64,
    /// normalised (mover's point of view) or thesis (boards as they stand).
    #[arg(long, default_value_t = Mode::Normalised)]
    pub mode: Mode,
    /// Adaptation weights w1,w2,w3,w4,w5,w6.
    #[arg(long, default_value_t = Weights::default())]
    pub weights: Weights,
    /// Seed for tie-breaking (default: a fresh random seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Check the cases' proposals with a tactical search (false: pure CBR, as in the thesis).
    #[arg(long, default_value_t = ReviseConfig::default().enabled, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub revise: bool,
    /// Revise: accept the best-voted candidate within this many centipawns of the best move.
    #[arg(long, default_value_t = ReviseConfig::default().tolerance, value_name = "CP")]
    pub tolerance: i32,
    /// Revise: how many of the best-voted candidates are checked.
    #[arg(long, default_value_t = ReviseConfig::default().candidates, value_name = "N")]
    pub candidates: usize,
}

impl ReasonerArgs {
    /// The reasoner configuration.
    pub fn config(&self) -> Result<EngineConfig> {
        anyhow::ensure!(self.k >= 1, "--k must be at least 1");
        anyhow::ensure!(
            self.p.is_finite() && self.p >= 0.0,
            "--p must be a finite number ≥ 0"
        );
        let flags = EngineConfig {
            reuse: ReuseConfig {
                k: self.k,
                p: self.p,
                mode: self.mode,
                weights: self.weights,
                seed: self.seed,
            },
            revise: ReviseConfig {
                enabled: self.revise,
                tolerance: self.tolerance,
                candidates: self.candidates,
                ..ReviseConfig::default()
            },
        };
        let Some(path) = &self.params else {
            return Ok(flags);
        };
        // The file is the base; a flag given on the command line (not at its default) wins.
        let mut cfg = EngineConfig::load(path).map_err(anyhow::Error::msg)?;
        let d = EngineConfig::default();
        if flags.reuse.k != d.reuse.k {
            cfg.reuse.k = flags.reuse.k;
        }
        if flags.reuse.p != d.reuse.p {
            cfg.reuse.p = flags.reuse.p;
        }
        if flags.reuse.mode != d.reuse.mode {
            cfg.reuse.mode = flags.reuse.mode;
        }
        if flags.reuse.weights != d.reuse.weights {
            cfg.reuse.weights = flags.reuse.weights;
        }
        if flags.reuse.seed.is_some() {
            cfg.reuse.seed = flags.reuse.seed;
        }
        if flags.revise.enabled != d.revise.enabled {
            cfg.revise.enabled = flags.revise.enabled;
        }
        if flags.revise.tolerance != d.revise.tolerance {
            cfg.revise.tolerance = flags.revise.tolerance;
        }
        if flags.revise.candidates != d.revise.candidates {
            cfg.revise.candidates = flags.revise.candidates;
        }
        Ok(cfg)
    }

    /// Loads the case base.
    pub fn casebase(&self) -> Result<CaseBase> {
        match &self.casebase {
            Some(path) => Ok(CaseBase::open(path)?),
            None => CaseBase::embedded().context("the embedded case base"),
        }
    }
}
