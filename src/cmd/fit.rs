//! `precedent fit`: the move model's weights, by maximum likelihood on held-out games.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use precedent::casebase::CaseBase;
use precedent::engine::config::EngineConfig;
use precedent::model::fit::Fitted;
use precedent::model::{FEATURES, FIRST_SEARCH_FEATURE, ModelConfig, N_FEATURES};
use precedent::pgn::Selection;
use precedent_lab::eval::{casebase_keys, sample_positions};
use precedent_lab::experiment::parse_bands;
use precedent_lab::fit::{
    Item, LevelFit, Record, Variant, features, fit_level, gather, in_test_half, load, one_game_for,
    save, variant,
};
use rayon::prelude::*;

use super::progress;
use precedent_lab::reasoner::ReasonerArgs;

/// Arguments of `precedent fit`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Games to learn from and test on (.pgn, .pgn.zst); games in the case base are excluded,
    /// the others split by a hash of each game into a fitting half and a test half.
    #[arg(long, required_unless_present = "evidence")]
    pgn: Option<String>,
    /// Lowest rating of the mover.
    #[arg(long, value_name = "N")]
    min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    max_elo: Option<u16>,
    /// Skip the first N plies of every game.
    #[arg(long, default_value_t = 10)]
    skip_plies: u32,
    /// Positions to fit on.
    #[arg(long, default_value_t = 20_000)]
    positions: usize,
    /// Positions to test on (from the other half of the games).
    #[arg(long, default_value_t = 3_000)]
    test_positions: usize,
    /// Thinking time per position, ms (as when the engine plays at that speed).
    #[arg(long, default_value_t = 100)]
    movetime: u64,
    /// L2 penalty of the fit (log-likelihood units per unit weight², whole sample).
    #[arg(long, default_value_t = 1.0)]
    ridge: f64,
    /// Also record the one-game case base's votes (its first game), to report Δcases.
    #[arg(long)]
    ablation: bool,
    /// Also fit without each feature family, with the search's features only and with the
    /// case base's only, and report each on the test half.
    #[arg(long)]
    variants: bool,
    /// Fit only these features (comma-separated names; default: all).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,
    /// Leave these features out (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    drop: Vec<String>,
    /// Also fit one level per rating band of the movers (e.g. 800-999,1000-1199): each band's
    /// model shrunk towards the model of all positions, with the `human` temperature at which
    /// it blunders as often as the band's players; written as the `levels` that `--elo` and
    /// `UCI_Elo` choose from (a level's Elo is its band's middle).
    #[arg(long, value_name = "BANDS")]
    levels: Option<String>,
    /// L2 penalty pulling a level's weights towards the model of all bands.
    #[arg(long, default_value_t = 30.0)]
    level_ridge: f64,
    /// Save the gathered evidence here (to refit later with --evidence).
    #[arg(long, value_name = "FILE")]
    save_evidence: Option<PathBuf>,
    /// Fit on evidence saved earlier instead of gathering it.
    #[arg(long, value_name = "FILE", conflicts_with = "pgn")]
    evidence: Option<PathBuf>,
    /// Write the parameter file here (TOML; load with --params or setoption name Params).
    #[arg(long, default_value = "fitted.toml")]
    out: PathBuf,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
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

/// Runs `precedent fit`.
pub fn run_cmd(args: Args) -> Result<()> {
    let started = Instant::now();
    let cfg = args.reasoner.config()?;
    let cb = args.reasoner.casebase()?;
    let records: Vec<Record> = match &args.evidence {
        Some(path) => load(path)?,
        None => gather_records(&args, &cfg, &cb)?,
    };
    if let Some(path) = &args.save_evidence {
        save(path, &records).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    // The case base's features of every record (the ablation's too, when recorded).
    let one_game = one_game_for(&cb, &records)?;
    let items: Vec<Item> = records
        .par_iter()
        .filter_map(|r| features(&cb, one_game.as_ref(), r, cfg.model.smoothing))
        .collect();
    let fit_items: Vec<&Item> = items.iter().filter(|i| !i.test).collect();
    let test_items: Vec<&Item> = items.iter().filter(|i| i.test).collect();
    if fit_items.is_empty() || test_items.is_empty() {
        bail!(
            "{} positions to fit on and {} to test on: both halves need positions",
            fit_items.len(),
            test_items.len()
        );
    }
    let mut all = [args.only.is_empty(); N_FEATURES];
    for name in args.only.iter().chain(&args.drop) {
        anyhow::ensure!(
            FEATURES.contains(&name.as_str()),
            "no feature {name:?} (the features: {})",
            FEATURES.join(", ")
        );
    }
    for (k, f) in FEATURES.iter().enumerate() {
        if args.only.iter().any(|n| n == f) {
            all[k] = true;
        }
        if args.drop.iter().any(|n| n == f) {
            all[k] = false;
        }
    }
    let label = if all.iter().all(|k| *k) {
        "all features"
    } else {
        "selected features"
    };
    let (main, fitted): (Variant, Fitted) =
        variant(label, &fit_items, &test_items, &all, args.ridge)?;
    let model = ModelConfig::from_vector(&fitted.weights, cfg.model.smoothing);
    let smoothing = cfg.model.smoothing;
    let mut params = EngineConfig { model, ..cfg };
    let level_fits = match &args.levels {
        Some(bands) => fit_levels(
            bands,
            &fit_items,
            &test_items,
            &fitted.weights,
            args.level_ridge,
        )?,
        None => Vec::new(),
    };
    if !level_fits.is_empty() {
        params.levels = level_fits.iter().map(|l| l.level(smoothing)).collect();
    }
    params.save(&args.out).map_err(anyhow::Error::msg)?;
    let mut variants = vec![main];
    if args.variants {
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
        let cases_only = search_only.map(|k| !k);
        masks.push(("case base only".into(), cases_only));
        for (name, keep) in masks {
            variants.push(variant(&name, &fit_items, &test_items, &keep, args.ridge)?.0);
        }
    }
    let report = serde_json::json!({
        "fit_positions": fit_items.len(),
        "test_positions": test_items.len(),
        "out": args.out.display().to_string(),
        "variants": variants,
        "levels": level_fits,
        "seconds": started.elapsed().as_secs_f64(),
    });
    if args.json {
        println!("{report}");
        return Ok(());
    }
    println!(
        "{} positions fitted, {} tested → {}",
        fit_items.len(),
        test_items.len(),
        args.out.display()
    );
    println!("weights (± standard error):");
    for (name, w, se) in &variants[0].weights {
        println!("  {name:<18} {w:>+8.3} ± {se:.3}");
    }
    println!(
        "{:<28} {:>22} {:>7} {:>8} {:>18}",
        "variant (test half)", "accuracy (95% CI)", "top-3", "log-lik", "Δcases (95% CI)"
    );
    for v in &variants {
        let t = &v.test;
        let delta = v.delta_cases.map_or("-".to_string(), |(d, lo, hi)| {
            format!("{:+.2} ({:+.1}..{:+.1})", d * 100.0, lo * 100.0, hi * 100.0)
        });
        println!(
            "{:<28} {:>6.2}% ({:.2}–{:.2}) {:>6.2}% {:>8.3} {:>18}",
            v.name,
            t.accuracy * 100.0,
            t.ci_low * 100.0,
            t.ci_high * 100.0,
            t.top3 * 100.0,
            t.mean_log_likelihood,
            delta
        );
    }
    if !level_fits.is_empty() {
        println!(
            "{:<10} {:>5} {:>5} {:>22} {:>22} {:>6} {:>15}",
            "level", "fit", "test", "own model (95% CI)", "all bands' model", "T", "blunders h / m"
        );
        for l in &level_fits {
            println!(
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
            );
        }
    }
    println!("{:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// One level per band: the band's positions of each half.
fn fit_levels(
    bands: &str,
    fit_items: &[&Item],
    test_items: &[&Item],
    generic: &[f64],
    ridge: f64,
) -> Result<Vec<LevelFit>> {
    let groups = parse_bands(bands).map_err(anyhow::Error::msg)?;
    let mut out = Vec::new();
    for g in groups {
        let (Some(lo), Some(hi)) = (g.min_elo, g.max_elo) else {
            bail!("--levels: band {} needs both ends", g.label);
        };
        let inside = |i: &&&Item| i.elo.is_some_and(|e| (lo..=hi).contains(&e));
        let f: Vec<&Item> = fit_items.iter().filter(inside).copied().collect();
        let t: Vec<&Item> = test_items.iter().filter(inside).copied().collect();
        if f.len() < 100 || t.is_empty() {
            bail!(
                "--levels: band {}: {} positions to fit and {} to test on (need 100 and 1)",
                g.label,
                f.len(),
                t.len()
            );
        }
        out.push(fit_level((lo, hi), &f, &t, generic, ridge)?);
    }
    Ok(out)
}

/// Samples both halves and gathers their evidence with a progress bar.
fn gather_records(args: &Args, cfg: &EngineConfig, cb: &CaseBase) -> Result<Vec<Record>> {
    let pgn = args.pgn.as_deref().unwrap_or_default();
    let keys = casebase_keys(cb);
    let selection = Selection {
        min_elo: args.min_elo,
        max_elo: args.max_elo,
        skip_plies: args.skip_plies,
        ..Selection::default()
    };
    let seed = args.reasoner.run_seed(cfg);
    // The split: bit 32 of the game key. The fit never sees a test game.
    let (fit_half, _) = sample_positions(pgn, &selection, args.positions, seed, &keys, &|k| {
        !in_test_half(k)
    })?;
    let (test_half, _) = sample_positions(
        pgn,
        &selection,
        args.test_positions,
        seed ^ 0x7e57,
        &keys,
        &|k| in_test_half(k),
    )?;
    if fit_half.is_empty() || test_half.is_empty() {
        bail!("{pgn}: not enough positions pass the filters outside the case base");
    }
    let one_game = if args.ablation {
        anyhow::ensure!(
            cb.game_count() > 0,
            "{}: the case base has no game",
            cb.name()
        );
        Some(cb.one_game(0)?)
    } else {
        None
    };
    let samples: Vec<_> = fit_half
        .into_iter()
        .map(|s| (s, false))
        .chain(test_half.into_iter().map(|s| (s, true)))
        .collect();
    let bar = progress::bar(samples.len() as u64, "positions");
    let records = gather(
        cb,
        one_game.as_ref(),
        &samples,
        cfg,
        Duration::from_millis(args.movetime),
        seed,
        &|| bar.inc(1),
    );
    bar.finish_and_clear();
    Ok(records)
}
