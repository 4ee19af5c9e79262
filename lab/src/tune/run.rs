//! `precedent tune` as a workflow: its arguments, the evolution on the tuning half of the
//! games, the check on the test half, and the report's text.

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use precedent::casebase::CaseBase;
use precedent::player::Knowledge;
use precedent::position::Game;
use precedent::think::EngineConfig;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;
use shakmaty::Move;

use super::{Generation, Individual, Strategy, evolve, genes};
use crate::Progress;
use crate::eval::{Bars, Budget, EvalError, run_reasoner};
use crate::positions::{AfterTenPlies, PositionFlags, Sample, casebase_keys, sample_halves};
use crate::stats::wilson;

/// Time per position with revise on, unless `movetime` says otherwise.
pub const DEFAULT_MOVETIME_MS: u64 = 20;

/// What `tune` learns from and how long it evolves.
#[derive(clap::Args, Clone, Debug)]
pub struct TuneArgs {
    /// Validation games (.pgn, .pgn.zst); games in the case base are excluded. Games are split
    /// by a hash of each game: one half for tuning, the other for the final check.
    #[arg(long)]
    pub pgn: String,
    /// Which positions: the mover's rating, the plies skipped.
    #[command(flatten)]
    pub select: PositionFlags<AfterTenPlies>,
    /// Generations.
    #[arg(long, default_value_t = 10)]
    pub generations: usize,
    /// Children per generation (λ).
    #[arg(long, default_value_t = 8)]
    pub population: usize,
    /// Parents kept (μ).
    #[arg(long, default_value_t = 3)]
    pub parents: usize,
    /// Positions per generation (a new sample each generation).
    #[arg(long, default_value_t = 300)]
    pub positions: usize,
    /// Positions of the final check, from games never used in tuning.
    #[arg(long, default_value_t = 3000)]
    pub test_positions: usize,
    /// Time per position when revise is on (default 20 ms: 11 individuals × 300 positions × 10
    /// generations plus the final check, about 7 minutes on two cores); without revise the whole
    /// case base is scanned.
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// Search depth per position instead of a time (as UCI go depth), with a full scan: the
    /// same moves on every run, where a time depends on the machine's load.
    #[arg(long, value_name = "N", conflicts_with = "movetime",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: Option<u32>,
    /// Write the tuned parameters here (TOML; load with --params or setoption name Params).
    #[arg(long, default_value = "tuned.toml")]
    pub out: PathBuf,
}

/// Move-matching on the held-out games.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Positions matched.
    pub matches: u64,
    /// Positions.
    pub positions: u64,
    /// `matches / positions`.
    pub accuracy: f64,
    /// Lower end of its 95 % Wilson interval.
    pub ci_low: f64,
    /// Upper end of its 95 % Wilson interval.
    pub ci_high: f64,
}

/// What `tune` found.
#[derive(Clone, Debug, Serialize)]
pub struct TuneReport {
    /// Each generation's best and mean.
    pub generations: Vec<Generation>,
    /// The tuned configuration.
    pub tuned: EngineConfig,
    /// The parameter file written.
    pub out: String,
    /// The starting configuration on the test half.
    pub held_out_before: Check,
    /// The tuned configuration on the test half.
    pub held_out_after: Check,
    /// Positions each generation is scored on.
    pub tuning_positions_per_generation: usize,
    /// Wall-clock time (seconds).
    pub seconds: f64,
}

/// Move-matching of `cfg` on `samples`.
fn accuracy(
    cb: &CaseBase,
    samples: &[Sample],
    cfg: &EngineConfig,
    budget: Budget,
    seed: u64,
    bar: &dyn Progress,
) -> (u64, u64) {
    let positions: Vec<(Game, Option<Move>)> = samples
        .iter()
        .map(|s| (s.game.clone(), Some(s.human)))
        .collect();
    let outcomes = run_reasoner(Knowledge::of(cb), &positions, cfg, budget, seed, &|_| {
        bar.advance(1)
    });
    let matched = outcomes.iter().filter(|o| o.matched).count() as u64;
    (matched, outcomes.len() as u64)
}

/// The tuning pool and the test positions, from the two halves of `args.pgn`'s games (tuning
/// never sees a test game) outside the case base.
fn samples(
    args: &TuneArgs,
    cb: &CaseBase,
    seed: u64,
) -> Result<(Vec<Sample>, Vec<Sample>), EvalError> {
    let selection = args.select.selection();
    let pool_size = (args.positions * args.generations).min(200_000);
    let sizes = (pool_size, args.test_positions);
    Ok(sample_halves(
        &args.pgn,
        &selection,
        sizes,
        seed,
        &casebase_keys(cb),
    )?)
}

/// Shows a finished generation: the next one's number and this one's best and mean.
fn report_generation(g: &Generation, generations: usize, bar: &dyn Progress) {
    let next = (g.generation + 1).min(generations);
    let (best, mean) = (g.best * 100.0, g.mean * 100.0);
    bar.status(&format!(
        "generation {next}: best {best:.2}% mean {mean:.2}%"
    ));
    bar.note(&format!(
        "generation {:>3}: best {best:.2}%  mean {mean:.2}%",
        g.generation
    ));
}

/// Move-matching of `cfg` on the test positions, with its interval.
fn held_out(
    cb: &CaseBase,
    test: &[Sample],
    cfg: &EngineConfig,
    budget: Budget,
    seed: u64,
    bar: &dyn Progress,
) -> Check {
    let (m, n) = accuracy(cb, test, cfg, budget, seed ^ 0xc0ffee, bar);
    let (ci_low, ci_high) = wilson(m, n);
    Check {
        matches: m,
        positions: n,
        accuracy: m as f64 / n.max(1) as f64,
        ci_low,
        ci_high,
    }
}

/// Evolves the tuned settings of `base` (the registry's genes) on the tuning half of
/// `args.pgn`'s games, writes them to `args.out`, and checks the start and the result on the
/// test half.
pub fn run(
    args: &TuneArgs,
    cb: &CaseBase,
    base: &EngineConfig,
    seed: u64,
    bars: &dyn Bars,
) -> Result<TuneReport, EvalError> {
    let started = Instant::now();
    if args.generations == 0 || args.positions == 0 {
        return Err(EvalError::Other(
            "--generations and --positions must be positive".into(),
        ));
    }
    let budget = Budget::from_flags(
        args.depth,
        args.movetime,
        base.revise.enabled,
        DEFAULT_MOVETIME_MS,
    );
    let (pool, test) = samples(args, cb, seed)?;
    // Without revise the tolerance does nothing: it is left out of the genome.
    let revise = base.revise.enabled;
    let genes = genes(revise);
    let start = Individual::from_config(base, revise);
    let decode = |ind: &Individual| ind.to_config(base, revise);
    let per_gen = args.positions.min(pool.len());
    // One bar over every position searched, tuning and the final check, so that its estimate
    // of the time left covers the whole run.
    let individuals = args.parents.max(1) + args.population.max(1);
    let bar = bars.bar("positions");
    bar.start((args.generations * individuals * per_gen + 2 * test.len()) as u64);
    bar.status("generation 1");
    let strategy = Strategy {
        mu: args.parents,
        lambda: args.population,
        generations: args.generations,
    };
    let (best, history) = evolve(
        start,
        &genes,
        strategy,
        &mut StdRng::seed_from_u64(seed),
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
            let gen_seed = seed ^ generation as u64;
            let score = |ind: &Individual| {
                let (m, n) = accuracy(cb, &sample, &decode(ind), budget, gen_seed, &*bar);
                m as f64 / n.max(1) as f64
            };
            population.iter().map(score).collect()
        },
        |g| report_generation(g, args.generations, &*bar),
    );
    let tuned = decode(&best[0]);
    tuned.save(&args.out).map_err(EvalError::Other)?;
    bar.status("final check on the test games");
    let check = |cfg: &EngineConfig| held_out(cb, &test, cfg, budget, seed, &*bar);
    let held_out_before = check(base);
    let held_out_after = check(&tuned);
    bar.finish();
    Ok(TuneReport {
        generations: history,
        tuned,
        out: args.out.display().to_string(),
        held_out_before,
        held_out_after,
        tuning_positions_per_generation: per_gen,
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl fmt::Display for TuneReport {
    /// The report as `precedent tune` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.tuned;
        writeln!(
            f,
            "tuned: k {}, p {:.2}, weights {}, tolerance {} → {}",
            t.reuse.k, t.reuse.p, t.reuse.weights, t.revise.tolerance, self.out
        )?;
        for (name, v) in [
            ("before", &self.held_out_before),
            ("after", &self.held_out_after),
        ] {
            writeln!(
                f,
                "held-out move-matching {name}: {:.2}% ({}/{}), 95% CI {:.2}–{:.2}%",
                v.accuracy * 100.0,
                v.matches,
                v.positions,
                v.ci_low * 100.0,
                v.ci_high * 100.0
            )?;
        }
        writeln!(f, "{:.1} s", self.seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use crate::positions::Movers;

    /// A small run on the fixture's games (one generation of two children, 12 positions each,
    /// 12 to check on), writing into `dir`.
    fn fixture_args(dir: &std::path::Path) -> TuneArgs {
        TuneArgs {
            pgn: crate::positions::sample_fixture(),
            select: PositionFlags::new(Movers::default(), 10),
            generations: 1,
            population: 2,
            parents: 1,
            positions: 12,
            test_positions: 12,
            movetime: None,
            depth: None,
            out: dir.join("tuned.toml"),
        }
    }

    #[test]
    fn tune_on_the_fixture_writes_the_tuned_file_and_checks_it_on_the_test_half() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cb = CaseBase::embedded().expect("embedded");
        let mut base = EngineConfig::default();
        base.revise.enabled = false;
        let args = TuneArgs {
            generations: 2,
            positions: 20,
            test_positions: 20,
            ..fixture_args(dir.path())
        };
        let r = run(&args, &cb, &base, 1, &Silent).expect("tune");
        assert_eq!(r.generations.len(), 2);
        assert_eq!(r.held_out_before.positions, 20);
        assert_eq!(EngineConfig::load(&args.out).expect("loads"), r.tuned);
        assert_eq!(
            r.tuned.revise.tolerance, base.revise.tolerance,
            "not tuned without revise"
        );
        let again = run(&args, &cb, &base, 1, &Silent).expect("tune again");
        assert_eq!(again.tuned, r.tuned, "the same seed, the same result");
        let none = TuneArgs {
            generations: 0,
            ..args
        };
        assert!(run(&none, &cb, &base, 1, &Silent).is_err());
    }

    /// With the search on, a depth instead of a time makes a tuning run repeat itself: the
    /// same seed evolves the same settings and checks them to the same count.
    #[test]
    fn tune_with_the_search_to_a_depth_repeats_itself() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cb = CaseBase::embedded().expect("embedded");
        let base = EngineConfig::default();
        assert!(base.revise.enabled, "the default searches");
        let args = TuneArgs {
            depth: Some(2),
            ..fixture_args(dir.path())
        };
        let first = run(&args, &cb, &base, 7, &Silent).expect("tune");
        let second = run(&args, &cb, &base, 7, &Silent).expect("tune again");
        assert_eq!(second.tuned, first.tuned);
        assert_eq!(
            (
                second.held_out_before.matches,
                second.held_out_after.matches
            ),
            (first.held_out_before.matches, first.held_out_after.matches)
        );
    }
}
