//! Reasoner options shared by `go`, `eval`, `uci` and `match`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use precedent::adapt::Weights;
use precedent::casebase::CaseBase;
use precedent::engine::config::{EngineConfig, Style};
use precedent::retrieve::Mode;

/// The case base and how to reason with it. Every flag left out keeps the value of the
/// parameter file (`--params`), or else the default; a flag given always wins.
#[derive(clap::Args, Debug, Clone)]
pub struct ReasonerArgs {
    /// Case-base file (default: the embedded one).
    #[arg(long, value_name = "FILE")]
    pub casebase: Option<PathBuf>,
    /// A parameter file (TOML, e.g. from `precedent tune`); other reasoner flags override it.
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,
    /// How the move is chosen: imitate (the move model's most probable move), human (a move
    /// drawn from its probabilities) or best (the strongest) [default: imitate].
    #[arg(long)]
    pub style: Option<Style>,
    /// `human` style: moves are drawn ∝ P^(1/T) [default: 0.8].
    #[arg(long, value_name = "T")]
    pub temperature: Option<f64>,
    /// Play at this level (as `UCI_LimitStrength` with `UCI_Elo`): the `human` style with the
    /// move model and temperature of the nearest level (clamped into the levels' range).
    #[arg(long, value_name = "N")]
    pub elo: Option<u16>,
    /// Number of nearest cases that vote (1 = the thesis) [default: 64].
    #[arg(long)]
    pub k: Option<usize>,
    /// Vote exponent: a case votes with weight similarity^P [default: 64].
    #[arg(long)]
    pub p: Option<f64>,
    /// normalised (mover's point of view) or thesis (boards as they stand) [default: normalised].
    #[arg(long)]
    pub mode: Option<Mode>,
    /// Adaptation weights w1,w2,w3,w4,w5,w6 [default: 1,1,1,1,1,1].
    #[arg(long)]
    pub weights: Option<Weights>,
    /// Seed for tie-breaking (default: a fresh random seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Check the cases' proposals with a tactical search (false: pure CBR, as in the thesis)
    /// [default: true].
    #[arg(long, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub revise: Option<bool>,
    /// Revise: accept the best-voted candidate within this many centipawns of the best move
    /// [default: 0].
    #[arg(long, value_name = "CP")]
    pub tolerance: Option<i32>,
    /// Revise: how many of the best-voted candidates are checked [default: 8].
    #[arg(long, value_name = "N")]
    pub candidates: Option<usize>,
}

impl ReasonerArgs {
    /// The configuration: the parameter file (or the defaults) with the given flags applied.
    pub fn config(&self) -> Result<EngineConfig> {
        let mut cfg = match &self.params {
            Some(path) => EngineConfig::load(path).map_err(anyhow::Error::msg)?,
            None => EngineConfig::default(),
        };
        set(&mut cfg.style, self.style);
        set(&mut cfg.temperature, self.temperature);
        anyhow::ensure!(
            cfg.temperature.is_finite() && cfg.temperature > 0.0,
            "--temperature must be a number above 0"
        );
        if let Some(elo) = self.elo {
            let Some(choice) = cfg.level_for(elo) else {
                anyhow::bail!("--elo: the parameters have no levels to choose from");
            };
            if choice.clamped {
                let (lo, hi) = cfg.elo_range().unwrap_or((elo, elo));
                eprintln!(
                    "--elo {elo} is outside {lo}..{hi}; playing at {}",
                    choice.elo
                );
            }
            cfg.elo = Some(choice.elo);
        }
        let (reuse, revise) = (&mut cfg.reuse, &mut cfg.revise);
        set(&mut reuse.k, self.k);
        set(&mut reuse.p, self.p);
        set(&mut reuse.mode, self.mode);
        set(&mut reuse.weights, self.weights);
        if self.seed.is_some() {
            reuse.seed = self.seed;
        }
        set(&mut revise.enabled, self.revise);
        set(&mut revise.tolerance, self.tolerance);
        set(&mut revise.candidates, self.candidates);
        anyhow::ensure!(reuse.k >= 1, "--k must be at least 1");
        anyhow::ensure!(
            reuse.p.is_finite() && reuse.p >= 0.0,
            "--p must be a finite number ≥ 0"
        );
        anyhow::ensure!(revise.candidates >= 1, "--candidates must be at least 1");
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

/// Overwrites `slot` with a flag's value when the flag was given.
fn set<T>(slot: &mut T, flag: Option<T>) {
    if let Some(v) = flag {
        *slot = v;
    }
}
