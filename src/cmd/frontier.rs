//! `precedent frontier`: a level's ways to err, blunders against move-matching, from evidence.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use precedent::engine::config::{EngineConfig, Errors};
use precedent_lab::client::Limit;
use precedent_lab::fit::{Item, features, load};
use precedent_lab::frontier::{Choice, Frontier, Policy, Row, judge, trace};
use rayon::prelude::*;

use super::progress::Bar;
use super::reasoner_args::ReasonerArgs;

/// Arguments of `precedent frontier`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Evidence saved by `precedent fit --save-evidence` (repeatable); it must have been
    /// gathered with the same case base.
    #[arg(long, value_name = "FILE", required = true)]
    evidence: Vec<PathBuf>,
    /// Also use the positions of the fitting half (default: only the test half, which no fit
    /// of the embedded parameters has seen).
    #[arg(long)]
    both_halves: bool,
    /// Lowest rating of the mover.
    #[arg(long, value_name = "N")]
    min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    max_elo: Option<u16>,
    /// Search weights to trace the level's model at (default: the level's own).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    search_weights: Vec<f64>,
    /// Ratios of the errors rule to trace at every search weight.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "0.02,0.04,0.085,0.15,0.3,1"
    )]
    ratios: Vec<f64>,
    /// Temperatures to trace draws from the level's model at, at every search weight (default:
    /// the level's own, when it draws).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    temperatures: Vec<f64>,
    /// What the errors rule counts as an error: a loss of this many centipawns by the search
    /// (default: the level's, else 200).
    #[arg(long, value_name = "CP")]
    loss: Option<u32>,
    /// Judge the moves with this UCI engine (e.g. /usr/games/stockfish), as `eval --judge`.
    #[arg(long, value_name = "CMD")]
    judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12")]
    judge_limit: String,
    /// Judge processes run at once [default: the cores].
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The ways to play traced: the default style, then at every search weight the level's most
/// probable move, its draws at every temperature and its errors rule at every ratio.
fn policies(cfg: &EngineConfig, args: &Args) -> Result<Vec<Policy>> {
    let Some(choice) = cfg.elo.and_then(|e| cfg.level_for(e)) else {
        bail!("--elo: which level to trace (the parameters' levels: none chosen)");
    };
    let level = choice.level.clone();
    let default = EngineConfig {
        elo: None,
        ..cfg.clone()
    };
    let mut out = vec![Policy {
        name: "default style (imitate)".into(),
        search_weight: None,
        weights: default.model.vector().to_vec(),
        choice: Choice::MostProbable,
    }];
    let weights = if args.search_weights.is_empty() {
        vec![level.search_weight]
    } else {
        args.search_weights.clone()
    };
    let temperatures = if args.temperatures.is_empty() && level.errors.is_none() {
        vec![level.temperature]
    } else {
        args.temperatures.clone()
    };
    let seed = cfg.reuse.seed.unwrap_or(1);
    let loss = args.loss.or(level.errors.map(|e| e.loss)).unwrap_or(200);
    for &w in &weights {
        anyhow::ensure!(
            w.is_finite() && w >= 0.0,
            "--search-weights: {w} is not a weight ≥ 0"
        );
        let mut at = cfg.clone();
        for l in at.levels.iter_mut().filter(|l| l.elo == level.elo) {
            l.search_weight = w;
        }
        let model = at.resolved().0.model.vector().to_vec();
        out.push(Policy {
            name: format!("level {}, most probable", level.elo),
            search_weight: Some(w),
            weights: model.clone(),
            choice: Choice::MostProbable,
        });
        for &temperature in &temperatures {
            anyhow::ensure!(
                temperature.is_finite() && temperature > 0.0,
                "--temperatures: {temperature} is not a temperature above 0"
            );
            out.push(Policy {
                name: format!("level {}, drawn", level.elo),
                search_weight: Some(w),
                weights: model.clone(),
                choice: Choice::Draw { temperature, seed },
            });
        }
        for &ratio in &args.ratios {
            anyhow::ensure!(
                ratio.is_finite() && ratio >= 0.0,
                "--ratios: {ratio} is not a ratio ≥ 0"
            );
            out.push(Policy {
                name: format!("level {}, errors rule", level.elo),
                search_weight: Some(w),
                weights: model.clone(),
                choice: Choice::Rule(Errors { loss, ratio }),
            });
        }
    }
    Ok(out)
}

/// Runs `precedent frontier`.
pub fn run(args: Args) -> Result<()> {
    let cfg = args.reasoner.config()?;
    let policies = policies(&cfg, &args)?;
    let cb = args.reasoner.casebase()?;
    let mut records = Vec::new();
    for path in &args.evidence {
        records.extend(load(path).with_context(|| format!("{}: cannot load", path.display()))?);
    }
    let total = records.len();
    let inside = |elo: Option<u16>| {
        args.min_elo.is_none_or(|lo| elo.is_some_and(|e| e >= lo))
            && args.max_elo.is_none_or(|hi| elo.is_some_and(|e| e <= hi))
    };
    // The cases ablation, when the evidence was gathered with `fit --ablation`.
    let one_game = if records.iter().any(|r| r.ablated_votes.is_some()) && cb.game_count() > 0 {
        Some(cb.one_game(0)?)
    } else {
        None
    };
    let items: Vec<Item> = records
        .par_iter()
        .filter(|r| (args.both_halves || r.test) && inside(r.elo))
        .filter_map(|r| features(&cb, one_game.as_ref(), r, cfg.model.smoothing))
        .collect();
    if items.is_empty() {
        bail!(
            "no position of the {total} in the evidence passes the filters (test half{}, movers {}–{})",
            if args.both_halves { " or not" } else { "" },
            args.min_elo.map_or("any".into(), |e| e.to_string()),
            args.max_elo.map_or("any".into(), |e| e.to_string()),
        );
    }
    let refs: Vec<&Item> = items.iter().collect();
    let mut frontier = trace(&refs, &policies);
    if let Some(command) = &args.judge {
        let limit: Limit = args.judge_limit.parse()?;
        let threads = args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        anyhow::ensure!(threads >= 1, "--threads must be at least 1");
        let bar = Bar::new("positions judged");
        judge(&mut frontier, &refs, command, &[], limit, threads, &bar)?;
    }
    if args.json {
        println!("{}", serde_json::to_string(&frontier)?);
        return Ok(());
    }
    print_report(&frontier, &cfg);
    Ok(())
}

fn print_report(f: &Frontier, cfg: &EngineConfig) {
    if let Some(c) = cfg.elo.and_then(|e| cfg.level_for(e)) {
        println!(
            "level {} (the model of movers rated {}-{}) on {} positions",
            c.level.elo, c.level.min_rating, c.level.max_rating, f.positions
        );
    }
    let judged = |r: &Row| {
        r.judged.map_or("-".to_string(), |j| {
            format!("{:>5.1}% {:>4.0}", j.blunder_rate * 100.0, j.mean_cp_loss)
        })
    };
    println!(
        "{:<30} {:>6} {:>6} {:>5} {:>8} {:>11} {:>21} {:>22} {:>22}",
        "way to play",
        "weight",
        "ratio",
        "T",
        "search",
        "judge (cp)",
        "matching (95% CI)",
        "Δ default (95% CI)",
        "Δcases (95% CI)"
    );
    println!(
        "{:<30} {:>6} {:>6} {:>5} {:>7.1}% {:>11} {:>21} {:>22}",
        f.humans.name,
        "",
        "",
        "",
        f.humans.search_blunders * 100.0,
        judged(&f.humans),
        "",
        ""
    );
    for (i, r) in f.rows.iter().enumerate() {
        let interval = |d: (f64, f64, f64)| {
            format!(
                "{:+.1} ({:+.1}..{:+.1})",
                d.0 * 100.0,
                d.1 * 100.0,
                d.2 * 100.0
            )
        };
        let delta = if i == 0 {
            String::new()
        } else {
            interval(r.delta)
        };
        let cases = r.delta_cases.map_or("-".to_string(), interval);
        println!(
            "{:<30} {:>6} {:>6} {:>5} {:>7.1}% {:>11} {:>5.1}% ({:>4.1}–{:>4.1}) {:>22} {:>22}",
            r.name,
            r.search_weight.map_or(String::new(), |w| format!("{w:.2}")),
            r.ratio.map_or(String::new(), |x| format!("{x:.3}")),
            r.temperature.map_or(String::new(), |t| format!("{t:.2}")),
            r.search_blunders * 100.0,
            judged(r),
            r.matching * 100.0,
            r.ci_low * 100.0,
            r.ci_high * 100.0,
            delta,
            cases
        );
    }
    println!(
        "(search: moves the evidence's own search found at least 2 pawns worse; judge: blunders \
         of at least 200 cp and mean loss by the judge; Δcases: matching with the case base \
         minus with a one-game case base, when the evidence was gathered with fit --ablation)"
    );
}
