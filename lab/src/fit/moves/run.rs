//! `precedent fit moves` as a command: its arguments, the held-out split, the fit of every variant
//! and level, and the report's text.

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use precedent::casebase::CaseBase;
use precedent::model::{FEATURES, FIRST_SEARCH_FEATURE, ModelConfig, N_FEATURES};
use precedent::think::EngineConfig;
use rayon::prelude::*;
use serde::Serialize;

use super::network::{NetworkFit, fit_network};
use super::{
    Item, LevelFit, Offsets, Record, Variant, features, fit_level, gather, load_all, one_game_for,
    save, scored, variant,
};
use crate::eval::{Bars, EvalError};
use crate::positions::{AfterTenPlies, PositionFlags, casebase_keys, parse_bands, sample_halves};

/// What `fit moves` learns from and what it fits.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct FitArgs {
    /// Games to learn from and test on (.pgn, .pgn.zst); games in the case base are excluded,
    /// the others split by a hash of each game into a fitting half and a test half.
    #[arg(long, required_unless_present = "evidence")]
    pub pgn: Option<String>,
    /// Which positions: the mover's rating, the plies skipped.
    #[command(flatten)]
    pub select: PositionFlags<AfterTenPlies>,
    /// Positions to fit on.
    #[arg(long, default_value_t = 20_000)]
    pub positions: usize,
    /// Positions to test on (from the other half of the games).
    #[arg(long, default_value_t = 3_000)]
    pub test_positions: usize,
    /// Thinking time per position, ms (as when the engine plays at that speed).
    #[arg(long, default_value_t = 100)]
    pub movetime: u64,
    /// L2 penalty of the fit (log-likelihood units per unit weight², whole sample).
    #[arg(long, default_value_t = 1.0)]
    pub ridge: f64,
    /// Hidden units of the model's network, fitted over the linear weights (0: no network).
    #[arg(long, default_value_t = 32)]
    pub hidden: usize,
    /// Passes of the network's fit over the fitting positions.
    #[arg(long, default_value_t = 30)]
    pub network_epochs: usize,
    /// Also record the one-game case base's votes (its first game), to report Δcases.
    #[arg(long)]
    pub ablation: bool,
    /// Also fit without each feature family, with the search's features only and with the
    /// case base's only, and report each on the test half.
    #[arg(long)]
    pub variants: bool,
    /// Fit only these features (comma-separated names; default: all).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub only: Vec<String>,
    /// Leave these features out (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub drop: Vec<String>,
    /// Also fit one level per rating band of the movers (e.g. 800-999,1000-1199): each band's
    /// model shrunk towards the model of all positions, with the `human` temperature at which
    /// it blunders as often as the band's players; written as the `levels` that `--elo` and
    /// `UCI_Elo` choose from (a level's Elo is its band's middle).
    #[arg(long, value_name = "BANDS")]
    pub levels: Option<String>,
    /// L2 penalty pulling a level's weights towards the model of all bands.
    #[arg(long, default_value_t = 30.0)]
    pub level_ridge: f64,
    /// Save the gathered evidence here (to refit later with --evidence).
    #[arg(long, value_name = "FILE")]
    pub save_evidence: Option<PathBuf>,
    /// Fit on evidence saved earlier instead of gathering it (repeatable: the files' positions
    /// together, a position sampled again by a later file read once).
    #[arg(long, value_name = "FILE", conflicts_with = "pgn")]
    pub evidence: Vec<PathBuf>,
    /// Write the parameter file here (TOML; load with --params or setoption name Params).
    #[arg(long, default_value = "fitted.toml")]
    pub out: PathBuf,
}

/// What `fit moves` found.
#[derive(Clone, Debug, Serialize)]
pub struct FitReport {
    /// Positions fitted on.
    pub fit_positions: usize,
    /// Positions tested on.
    pub test_positions: usize,
    /// The parameter file written.
    pub out: String,
    /// The model of all features (or those selected) first, then the variants.
    pub variants: Vec<Variant>,
    /// The levels fitted, if asked.
    pub levels: Vec<LevelFit>,
    /// Wall-clock time (seconds).
    pub seconds: f64,
}

/// Why `fit moves` failed.
#[derive(Debug, thiserror::Error)]
pub enum FitRunError {
    /// Sampling the games, or loading a case base.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// Reading the evidence (the error names the file and line).
    #[error(transparent)]
    Evidence(std::io::Error),
    /// Writing the evidence.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The fit itself, or arguments that cannot be fitted.
    #[error("{0}")]
    Fit(String),
}

/// The feature families, for the variants: (name, features).
fn families() -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = FEATURES[..FIRST_SEARCH_FEATURE]
        .iter()
        .enumerate()
        .map(|(i, n)| (n.to_string(), vec![i]))
        .collect();
    out.push((
        "search".into(),
        (FIRST_SEARCH_FEATURE..N_FEATURES).collect(),
    ));
    out
}

/// Writes the fitted model (and the levels, when fitted) into `args.out`, the other settings
/// those of `cfg`.
fn save_params(
    args: &FitArgs,
    cfg: &EngineConfig,
    weights: &[f64],
    network: Option<precedent::model::network::Network>,
    level_fits: &[LevelFit],
) -> Result<(), FitRunError> {
    let smoothing = cfg.model.smoothing;
    let mut params = EngineConfig {
        model: ModelConfig {
            network,
            ..ModelConfig::from_vector(weights, smoothing)
        },
        ..cfg.clone()
    };
    if level_fits.is_empty() {
        // The levels kept were fitted and calibrated under the network they played: they keep
        // it while the model's is refitted.
        params.level_network = cfg
            .level_network
            .clone()
            .or_else(|| cfg.model.network.clone())
            .filter(|_| !cfg.levels.is_empty());
    } else {
        let eval = cfg.revise.eval;
        params.levels = level_fits
            .iter()
            .map(|l| l.level(smoothing, eval))
            .collect();
        params.level_network = None;
    }
    params.save(&args.out).map_err(FitRunError::Fit)
}

/// The positions to fit on and those to test on; an error when either half is empty.
fn halves(items: &[Item]) -> Result<(Vec<&Item>, Vec<&Item>), FitRunError> {
    let fit_items: Vec<&Item> = items.iter().filter(|i| !i.test).collect();
    let test_items: Vec<&Item> = items.iter().filter(|i| i.test).collect();
    if fit_items.is_empty() || test_items.is_empty() {
        return Err(FitRunError::Fit(format!(
            "{} positions to fit on and {} to test on: both halves need positions",
            fit_items.len(),
            test_items.len()
        )));
    }
    Ok((fit_items, test_items))
}

/// The evidence fitted on: loaded from `--evidence`, or gathered from the games; saved to
/// `--save-evidence` when asked.
fn evidence(
    args: &FitArgs,
    cfg: &EngineConfig,
    cb: &CaseBase,
    seed: u64,
    bars: &dyn Bars,
) -> Result<Vec<Record>, FitRunError> {
    let records: Vec<Record> = match args.evidence.is_empty() {
        false => load_all(&args.evidence).map_err(FitRunError::Evidence)?,
        true => gather_records(args, cfg, cb, seed, bars)?,
    };
    if let Some(path) = &args.save_evidence {
        save(path, &records).map_err(|source| FitRunError::Write {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(records)
}

/// The features `only` and `drop` keep.
fn kept(args: &FitArgs) -> Result<[bool; N_FEATURES], FitRunError> {
    let mut all = [args.only.is_empty(); N_FEATURES];
    if let Some(name) = args
        .only
        .iter()
        .chain(&args.drop)
        .find(|n| !FEATURES.contains(&n.as_str()))
    {
        return Err(FitRunError::Fit(format!(
            "no feature {name:?} (the features: {})",
            FEATURES.join(", ")
        )));
    }
    for (k, f) in FEATURES.iter().enumerate() {
        if args.only.iter().any(|n| n == f) {
            all[k] = true;
        }
        if args.drop.iter().any(|n| n == f) {
            all[k] = false;
        }
    }
    Ok(all)
}

/// Fits the move model (and the levels, the variants) on the evidence of `args.pgn` or
/// `args.evidence`, writes the parameter file `args.out` and reports on the test half.
pub fn run(
    args: &FitArgs,
    cb: &CaseBase,
    cfg: &EngineConfig,
    seed: u64,
    bars: &dyn Bars,
) -> Result<FitReport, FitRunError> {
    let started = Instant::now();
    let records = evidence(args, cfg, cb, seed, bars)?;
    // The case base's features of every record (the ablation's too, when recorded).
    let one_game = one_game_for(cb, &records).map_err(EvalError::from)?;
    let items: Vec<Item> = records
        .par_iter()
        .filter_map(|r| features(cb, one_game.as_ref(), r, cfg.model.smoothing))
        .collect();
    let (fit_items, test_items) = halves(&items)?;
    let all = kept(args)?;
    let label = match all.iter().all(|k| *k) {
        true => "all features",
        false => "selected features",
    };
    let fit_err = |e: super::logit::FitError| FitRunError::Fit(e.to_string());
    let (main, fitted) =
        variant(label, &fit_items, &test_items, &all, args.ridge).map_err(fit_err)?;
    // The network reads each fitting position at its mover's rating; the model plays at the
    // fitting positions' median rating until a level names its own.
    let rating = median_rating(&fit_items);
    let opts = NetworkFit {
        hidden: args.hidden,
        epochs: args.network_epochs,
        seed,
        ..NetworkFit::default()
    };
    let network =
        (args.hidden > 0).then(|| fit_network(&fit_items, &fitted.weights, rating, &opts));
    let network_variant = network.as_ref().map(|net| {
        let offsets = Offsets {
            network: net,
            rating: Some(rating),
        };
        let name = format!("{label} + network ({} units)", net.hidden.len());
        scored(&name, &test_items, &all, &fitted, Some(offsets)).0
    });
    let level_fits = match &args.levels {
        Some(bands) => {
            let net = network.as_ref();
            fit_levels(bands, &fit_items, &test_items, &fitted.weights, net, args)?
        }
        None => Vec::new(),
    };
    save_params(args, cfg, &fitted.weights, network.clone(), &level_fits)?;
    let mut variants: Vec<Variant> = network_variant.into_iter().collect();
    variants.push(main);
    if args.variants {
        for (name, keep) in variant_masks(all) {
            let v = variant(&name, &fit_items, &test_items, &keep, args.ridge).map_err(fit_err)?;
            variants.push(v.0);
        }
    }
    Ok(FitReport {
        fit_positions: fit_items.len(),
        test_positions: test_items.len(),
        out: args.out.display().to_string(),
        variants,
        levels: level_fits,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The variants: without each family, the search only, the case base only.
fn variant_masks(all: [bool; N_FEATURES]) -> Vec<(String, [bool; N_FEATURES])> {
    let mut masks: Vec<(String, [bool; N_FEATURES])> = Vec::new();
    for (name, features) in families() {
        let mut keep = all;
        for f in &features {
            keep[*f] = false;
        }
        masks.push((format!("without {name}"), keep));
    }
    let mut search_only = [false; N_FEATURES];
    search_only[FIRST_SEARCH_FEATURE..].fill(true);
    masks.push(("search only".into(), search_only));
    masks.push(("case base only".into(), search_only.map(|k| !k)));
    masks
}

/// The median rating of the movers of `items` (1600 when none is known).
fn median_rating(items: &[&Item]) -> f64 {
    let mut elos: Vec<u16> = items.iter().filter_map(|i| i.elo).collect();
    elos.sort_unstable();
    elos.get(elos.len() / 2).map_or(1600.0, |&e| f64::from(e))
}

/// One level per band: the band's positions of each half.
fn fit_levels(
    bands: &str,
    fit_items: &[&Item],
    test_items: &[&Item],
    generic: &[f64],
    network: Option<&precedent::model::network::Network>,
    args: &FitArgs,
) -> Result<Vec<LevelFit>, FitRunError> {
    let groups = parse_bands(bands).map_err(FitRunError::Fit)?;
    let mut out = Vec::new();
    for g in groups {
        let (Some(lo), Some(hi)) = (g.min_elo, g.max_elo) else {
            return Err(FitRunError::Fit(format!(
                "--levels: band {} needs both ends",
                g.label
            )));
        };
        let inside = |i: &&&Item| i.elo.is_some_and(|e| (lo..=hi).contains(&e));
        let f: Vec<&Item> = fit_items.iter().filter(inside).copied().collect();
        let t: Vec<&Item> = test_items.iter().filter(inside).copied().collect();
        if f.len() < 100 || t.is_empty() {
            return Err(FitRunError::Fit(format!(
                "--levels: band {}: {} positions to fit and {} to test on (need 100 and 1)",
                g.label,
                f.len(),
                t.len()
            )));
        }
        let level = fit_level((lo, hi), &f, &t, generic, args.level_ridge, network);
        out.push(level.map_err(|e| FitRunError::Fit(e.to_string()))?);
    }
    Ok(out)
}

/// Samples both halves and gathers their evidence.
fn gather_records(
    args: &FitArgs,
    cfg: &EngineConfig,
    cb: &CaseBase,
    seed: u64,
    bars: &dyn Bars,
) -> Result<Vec<Record>, FitRunError> {
    let pgn = args.pgn.as_deref().unwrap_or_default();
    let selection = args.select.selection();
    let halves = (args.positions, args.test_positions);
    let (fit_half, test_half) = sample_halves(pgn, &selection, halves, seed, &casebase_keys(cb))
        .map_err(EvalError::from)?;
    let one_game = if args.ablation {
        if cb.game_count() == 0 {
            return Err(FitRunError::Fit(format!(
                "{}: the case base has no game",
                cb.name()
            )));
        }
        Some(cb.one_game(0).map_err(EvalError::from)?)
    } else {
        None
    };
    let samples: Vec<_> = fit_half
        .into_iter()
        .map(|s| (s, false))
        .chain(test_half.into_iter().map(|s| (s, true)))
        .collect();
    let bar = bars.bar("positions");
    bar.start(samples.len() as u64);
    let movetime = Duration::from_millis(args.movetime);
    let records = gather(
        cb,
        one_game.as_ref(),
        &samples,
        cfg,
        movetime,
        seed,
        &|| bar.advance(1),
    );
    bar.finish();
    Ok(records)
}

impl fmt::Display for FitReport {
    /// The report as `precedent fit moves` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} positions fitted, {} tested → {}",
            self.fit_positions, self.test_positions, self.out
        )?;
        writeln!(f, "weights (± standard error):")?;
        for (name, w, se) in &self.variants[0].weights {
            writeln!(f, "  {name:<18} {w:>+8.3} ± {se:.3}")?;
        }
        writeln!(
            f,
            "{:<28} {:>22} {:>7} {:>8} {:>18}",
            "variant (test half)", "accuracy (95% CI)", "top-3", "log-lik", "Δcases (95% CI)"
        )?;
        for v in &self.variants {
            let t = &v.test;
            let delta = v.delta_cases.map_or("-".to_string(), |(d, lo, hi)| {
                format!("{:+.2} ({:+.1}..{:+.1})", d * 100.0, lo * 100.0, hi * 100.0)
            });
            writeln!(
                f,
                "{:<28} {:>6.2}% ({:.2}–{:.2}) {:>6.2}% {:>8.3} {:>18}",
                v.name,
                t.accuracy * 100.0,
                t.ci_low * 100.0,
                t.ci_high * 100.0,
                t.top3 * 100.0,
                t.mean_log_likelihood,
                delta
            )?;
        }
        self.fmt_levels(f)?;
        writeln!(f, "{:.1} s", self.seconds)
    }
}

impl FitReport {
    fn fmt_levels(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.levels.is_empty() {
            return Ok(());
        }
        writeln!(
            f,
            "{:<10} {:>5} {:>5} {:>22} {:>22} {:>6} {:>15}",
            "level", "fit", "test", "own model (95% CI)", "all bands' model", "T", "blunders h / m"
        )?;
        for l in &self.levels {
            writeln!(
                f,
                "{:<10} {:>5} {:>5} {:>6.2}% ({:.2}–{:.2}) {:>6.2}% ({:.2}–{:.2}) {:>6.3} {:>6.2}% / {:.2}%",
                format!("{}-{}", l.min_rating, l.max_rating),
                l.fit_positions,
                l.test.positions,
                l.test.accuracy * 100.0,
                l.test.ci_low * 100.0,
                l.test.ci_high * 100.0,
                l.generic.accuracy * 100.0,
                l.generic.ci_low * 100.0,
                l.generic.ci_high * 100.0,
                l.temperature,
                l.human_blunders * 100.0,
                l.model_blunders * 100.0,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use crate::positions::Movers;

    use crate::positions::sample_fixture as fixture;

    #[test]
    fn fit_on_the_fixture_writes_a_parameter_file_that_loads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cb = CaseBase::embedded().expect("embedded");
        let args = FitArgs {
            pgn: Some(fixture()),
            positions: 60,
            test_positions: 30,
            movetime: 10,
            ridge: 1.0,
            select: PositionFlags::new(Movers::default(), 10),
            level_ridge: 30.0,
            out: dir.path().join("fitted.toml"),
            save_evidence: Some(dir.path().join("evidence.jsonl")),
            ..FitArgs::default()
        };
        let r = run(&args, &cb, &EngineConfig::default(), 1, &Silent).expect("fit");
        // Positions with a single legal move are left out.
        assert!(r.fit_positions > 40 && r.test_positions > 20, "{r}");
        let loaded = EngineConfig::load(&args.out).expect("the written file loads");
        assert_eq!(loaded.model.weights.len(), N_FEATURES);
        assert!(r.to_string().contains("weights (± standard error):"));
        // Refitting the saved evidence gives the same weights (to rounding: the evidence is
        // text, the sums parallel).
        let again = FitArgs {
            pgn: None,
            evidence: args.save_evidence.clone().into_iter().collect(),
            save_evidence: None,
            ..args.clone()
        };
        let r2 = run(&again, &cb, &EngineConfig::default(), 1, &Silent).expect("refit");
        for (a, b) in r.variants[0].weights.iter().zip(&r2.variants[0].weights) {
            assert!(a.0 == b.0 && (a.1 - b.1).abs() < 1e-9, "{a:?} {b:?}");
        }
        // The levels kept (no --levels) keep the network they were fitted under, not the
        // refitted model's.
        let default = EngineConfig::default();
        let saved = EngineConfig::load(&args.out).expect("the refit's file loads");
        assert!(saved.level_network.is_some());
        assert_eq!(
            saved.level_network,
            default.level_network.or(default.model.network)
        );
        // The same evidence twice: its positions are read once.
        let twice = FitArgs {
            evidence: [again.evidence.clone(), again.evidence.clone()].concat(),
            ..again.clone()
        };
        let r3 = run(&twice, &cb, &EngineConfig::default(), 1, &Silent).expect("refit");
        assert_eq!(
            (r3.fit_positions, r3.test_positions),
            (r2.fit_positions, r2.test_positions)
        );
        let bad = FitArgs {
            only: vec!["no_such".into()],
            ..again
        };
        assert!(run(&bad, &cb, &EngineConfig::default(), 1, &Silent).is_err());
    }
}
