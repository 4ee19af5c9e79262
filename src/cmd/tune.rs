//! `precedent tune`: the reasoner's numbers learned by a self-adaptive evolution strategy.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use precedent::engine::config::EngineConfig;
use precedent::pgn::Selection;
use precedent::position::Game;
use precedent_lab::eval::{Sample, casebase_keys, run_reasoner, sample_positions, wilson};
use precedent_lab::tune::{Individual, Strategy, evolve, genes};
use rand::SeedableRng;
use rand::rngs::StdRng;
use shakmaty::Move;

use precedent_lab::reasoner::ReasonerArgs;

/// Time per position with revise on, unless `--movetime` says otherwise.
const DEFAULT_MOVETIME_MS: u64 = 20;

/// Arguments of `precedent tune`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Validation games (.pgn, .pgn.zst); games in the case base are excluded. Games are split
    /// by a hash of each game: one half for tuning, the other for the final check.
    #[arg(long)]
    pgn: String,
    /// Lowest rating of the mover.
    #[arg(long, value_name = "N")]
    min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    max_elo: Option<u16>,
    /// Skip the first N plies of every game.
    #[arg(long, default_value_t = 10)]
    skip_plies: u32,
    /// Generations.
    #[arg(long, default_value_t = 10)]
    generations: usize,
    /// Children per generation (λ).
    #[arg(long, default_value_t = 8)]
    population: usize,
    /// Parents kept (μ).
    #[arg(long, default_value_t = 3)]
    parents: usize,
    /// Positions per generation (a new sample each generation).
    #[arg(long, default_value_t = 300)]
    positions: usize,
    /// Positions of the final check, from games never used in tuning.
    #[arg(long, default_value_t = 3000)]
    test_positions: usize,
    /// Time per position when revise is on (default 20 ms: 11 individuals × 300 positions × 10
    /// generations plus the final check, about 7 minutes on two cores); without revise the whole
    /// case base is scanned.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Write the tuned parameters here (TOML; load with --params or setoption name Params).
    #[arg(long, default_value = "tuned.toml")]
    out: PathBuf,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn accuracy(
    cb: &precedent::casebase::CaseBase,
    samples: &[Sample],
    cfg: &EngineConfig,
    movetime: Option<Duration>,
    seed: u64,
    bar: &ProgressBar,
) -> (u64, u64) {
    let positions: Vec<(Game, Option<Move>)> = samples
        .iter()
        .map(|s| (s.game.clone(), Some(s.human)))
        .collect();
    let outcomes = run_reasoner(cb, &positions, cfg, movetime, seed, &|_| bar.inc(1));
    (
        outcomes.iter().filter(|o| o.matched).count() as u64,
        outcomes.len() as u64,
    )
}

/// Runs `precedent tune`.
pub fn run_cmd(args: Args) -> Result<()> {
    let started = Instant::now();
    if args.generations == 0 || args.positions == 0 {
        bail!("--generations and --positions must be positive");
    }
    let cb = args.reasoner.casebase()?;
    let base = args.reasoner.config()?;
    let movetime = match (args.movetime, base.revise.enabled) {
        (Some(ms), _) => Some(Duration::from_millis(ms)),
        (None, true) => Some(Duration::from_millis(DEFAULT_MOVETIME_MS)),
        (None, false) => None,
    };
    let seed = args.reasoner.run_seed(&base);
    let selection = Selection {
        min_elo: args.min_elo,
        max_elo: args.max_elo,
        skip_plies: args.skip_plies,
        ..Selection::default()
    };
    let keys = casebase_keys(&cb);
    // The split: bit 32 of the game key. Tuning never sees a test game.
    let tuning_half = |k: u64| (k >> 32) & 1 == 0;
    let test_half = |k: u64| (k >> 32) & 1 == 1;
    let pool_size = (args.positions * args.generations).min(200_000);
    let (pool, _) = sample_positions(&args.pgn, &selection, pool_size, seed, &keys, &tuning_half)?;
    let (test, _) = sample_positions(
        &args.pgn,
        &selection,
        args.test_positions,
        seed ^ 0x7e57,
        &keys,
        &test_half,
    )?;
    if pool.is_empty() || test.is_empty() {
        bail!(
            "{}: not enough positions pass the filters outside the case base",
            args.pgn
        );
    }
    // Without revise the tolerance does nothing: it is left out of the genome.
    let revise = base.revise.enabled;
    let genes = genes(revise);
    let start = Individual::from_config(&base, revise);
    let decode = |ind: &Individual| ind.to_config(&base, revise);
    let per_gen = args.positions.min(pool.len());
    // One bar over every position searched, tuning and the final check, so that its estimate
    // of the time left covers the whole run.
    let individuals = args.parents.max(1) + args.population.max(1);
    let total = args.generations * individuals * per_gen + 2 * test.len();
    let bar =
        ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {percent}% {msg} ({elapsed} elapsed, about {eta} left)",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("generation 1");
    let mut rng = StdRng::seed_from_u64(seed);
    let (best, history) = evolve(
        start.clone(),
        &genes,
        Strategy {
            mu: args.parents,
            lambda: args.population,
            generations: args.generations,
        },
        &mut rng,
        |generation, population| {
            // A fresh sample every generation (cycling through the pool), shared by the whole
            // population so that parents and children are compared on the same positions.
            let from = ((generation - 1) * per_gen) % pool.len();
            let sample: Vec<Sample> = pool
                .iter()
                .cycle()
                .skip(from)
                .take(per_gen)
                .cloned()
                .collect();
            population
                .iter()
                .map(|ind| {
                    let (m, n) = accuracy(
                        &cb,
                        &sample,
                        &decode(ind),
                        movetime,
                        seed ^ generation as u64,
                        &bar,
                    );
                    m as f64 / n.max(1) as f64
                })
                .collect()
        },
        |g| {
            bar.set_message(format!(
                "generation {}: best {:.2}% mean {:.2}%",
                (g.generation + 1).min(args.generations),
                g.best * 100.0,
                g.mean * 100.0
            ));
            if !args.json {
                bar.println(format!(
                    "generation {:>3}: best {:.2}%  mean {:.2}%",
                    g.generation,
                    g.best * 100.0,
                    g.mean * 100.0
                ));
            }
        },
    );
    let tuned = decode(&best[0]);
    tuned.save(&args.out).map_err(anyhow::Error::msg)?;
    bar.set_message("final check on the test games");
    let check = |cfg: &EngineConfig| {
        let (m, n) = accuracy(&cb, &test, cfg, movetime, seed ^ 0xc0ffee, &bar);
        let (lo, hi) = wilson(m, n);
        serde_json::json!({ "matches": m, "positions": n, "accuracy": m as f64 / n.max(1) as f64, "ci_low": lo, "ci_high": hi })
    };
    let before = check(&base);
    let after = check(&tuned);
    bar.finish_and_clear();
    let report = serde_json::json!({
        "generations": history,
        "tuned": tuned,
        "out": args.out.display().to_string(),
        "held_out_before": before,
        "held_out_after": after,
        "tuning_positions_per_generation": per_gen,
        "seconds": started.elapsed().as_secs_f64(),
    });
    if args.json {
        println!("{report}");
    } else {
        let pct = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0) * 100.0;
        println!(
            "tuned: k {}, p {:.2}, weights {}, tolerance {} → {}",
            tuned.reuse.k,
            tuned.reuse.p,
            tuned.reuse.weights,
            tuned.revise.tolerance,
            args.out.display()
        );
        for (name, v) in [("before", &before), ("after", &after)] {
            println!(
                "held-out move-matching {name}: {:.2}% ({}/{}), 95% CI {:.2}–{:.2}%",
                pct(v, "accuracy"),
                v["matches"],
                v["positions"],
                pct(v, "ci_low"),
                pct(v, "ci_high")
            );
        }
        println!("{:.1} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}
