//! `precedent tune`: learning the reasoner's numbers by evolution, as Fogel's Blondie24/25 learned
//! evaluation weights: a (μ + λ) evolution strategy whose individuals carry their own step sizes,
//! mutated as σ′ = σ·exp(τ·N(0,1)) with τ = 1/√(2√n), then x′ = x + σ′·N(0,1).

mod run;

pub use run::{Check, DEFAULT_MOVETIME_MS, TuneArgs, TuneReport, run};

use rand::Rng;
use rand::rngs::StdRng;
use rand_distr::StandardNormal;
use serde::Serialize;

use precedent::think::{EngineConfig, settings};

/// One tunable number: its range and its initial step size.
#[derive(Clone, Debug, PartialEq)]
pub struct Gene {
    /// Its name in reports (`w1`, `log2_k`, `p`, `tolerance`, …).
    pub name: String,
    /// Lowest value a mutation may give it.
    pub min: f64,
    /// Highest value a mutation may give it.
    pub max: f64,
    /// Initial mutation step size (standard deviation, in the gene's own unit).
    pub sigma: f64,
}

/// The genes: those the registry of settings declares (`w1`…`w6`, `log2_k`, `p`, and the
/// revise tolerance in centipawns); with `revise` off, only those that matter without it.
pub fn genes(revise: bool) -> Vec<Gene> {
    settings::genes(revise)
        .into_iter()
        .map(|(name, _, g)| Gene {
            name,
            min: g.min,
            max: g.max,
            sigma: g.sigma,
        })
        .collect()
}

/// An individual: a point in parameter space and its own step sizes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Individual {
    /// The gene values, in the order of [`genes`].
    pub x: Vec<f64>,
    /// Its own mutation step size per gene, adapted by evolution.
    pub sigma: Vec<f64>,
    /// Its score on the latest sample (higher is better; for `tune`, move-matching accuracy
    /// 0..=1); `None` until scored.
    pub fitness: Option<f64>,
}

impl Individual {
    /// The genome of a configuration: the genes of [`genes`]`(revise)`.
    pub fn from_config(c: &EngineConfig, revise: bool) -> Individual {
        let genes = settings::genes(revise);
        Individual {
            x: settings::genome(c, &genes),
            sigma: genes.iter().map(|(_, _, g)| g.sigma).collect(),
            fitness: None,
        }
    }

    /// The configuration of a genome of [`genes`]`(revise)`, on top of `base` for what is not
    /// tuned.
    pub fn to_config(&self, base: &EngineConfig, revise: bool) -> EngineConfig {
        settings::with_genome(base, &settings::genes(revise), &self.x)
    }
}

/// Self-adaptive mutation: each step size first (log-normally), then each gene with its new
/// step size, clamped to the gene's range.
pub fn mutate(parent: &Individual, genes: &[Gene], rng: &mut StdRng) -> Individual {
    let n = genes.len() as f64;
    let tau = 1.0 / (2.0 * n.sqrt()).sqrt();
    let mut child = parent.clone();
    child.fitness = None;
    for (i, g) in genes.iter().enumerate() {
        let s = (parent.sigma[i] * (tau * rng.sample::<f64, _>(StandardNormal)).exp())
            .clamp(1e-6, g.max - g.min);
        child.sigma[i] = s;
        child.x[i] = (parent.x[i] + s * rng.sample::<f64, _>(StandardNormal)).clamp(g.min, g.max);
    }
    child
}

/// One generation's statistics.
#[derive(Clone, Debug, Serialize)]
pub struct Generation {
    /// Its number, from 1.
    pub generation: usize,
    /// Fitness of the best individual.
    pub best: f64,
    /// Mean fitness of the whole population (parents and children).
    pub mean: f64,
    /// Gene values of the best individual, in the order of [`genes`].
    pub best_params: Vec<f64>,
}

/// The sizes of a (μ + λ) evolution strategy.
#[derive(Clone, Copy, Debug)]
pub struct Strategy {
    /// Parents kept each generation.
    pub mu: usize,
    /// Children made each generation.
    pub lambda: usize,
    /// Generations.
    pub generations: usize,
}

/// Runs a (μ + λ) evolution strategy. `fitness(generation, individuals)` scores a whole
/// population at once (so it can be parallel and use one sample per generation; parents are
/// re-scored on each new sample). Returns the final parents, best first, and the history.
pub fn evolve(
    start: Individual,
    genes: &[Gene],
    strategy: Strategy,
    rng: &mut StdRng,
    mut fitness: impl FnMut(usize, &[Individual]) -> Vec<f64>,
    mut on_generation: impl FnMut(&Generation),
) -> (Vec<Individual>, Vec<Generation>) {
    let Strategy {
        mu,
        lambda,
        generations,
    } = strategy;
    let mu = mu.max(1);
    let mut parents = vec![start.clone()];
    while parents.len() < mu {
        parents.push(mutate(&start, genes, rng));
    }
    let mut history = Vec::new();
    for generation in 1..=generations {
        let mut pool = parents.clone();
        for i in 0..lambda.max(1) {
            let child = mutate(&parents[i % parents.len()], genes, rng);
            pool.push(child);
        }
        let scores = fitness(generation, &pool);
        for (ind, s) in pool.iter_mut().zip(scores) {
            ind.fitness = Some(s);
        }
        pool.sort_by(|a, b| {
            b.fitness
                .unwrap_or(f64::MIN)
                .total_cmp(&a.fitness.unwrap_or(f64::MIN))
        });
        let mean = pool.iter().filter_map(|i| i.fitness).sum::<f64>() / pool.len() as f64;
        parents = pool.into_iter().take(mu).collect();
        let g = Generation {
            generation,
            best: parents[0].fitness.unwrap_or(0.0),
            mean,
            best_params: parents[0].x.clone(),
        };
        on_generation(&g);
        history.push(g);
    }
    (parents, history)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn mutation_is_reproducible_and_stays_in_range() {
        let genes = genes(true);
        let start = Individual::from_config(&EngineConfig::default(), true);
        let a = mutate(&start, &genes, &mut StdRng::seed_from_u64(7));
        let b = mutate(&start, &genes, &mut StdRng::seed_from_u64(7));
        assert_eq!(a, b, "same seed, same child");
        assert_ne!(a.x, start.x, "a mutation moves");
        let c = mutate(&start, &genes, &mut StdRng::seed_from_u64(8));
        assert_ne!(a.x, c.x);
        let mut rng = StdRng::seed_from_u64(9);
        let mut ind = start;
        for _ in 0..2000 {
            ind = mutate(&ind, &genes, &mut rng);
            for (x, g) in ind.x.iter().zip(&genes) {
                assert!(*x >= g.min && *x <= g.max, "{} = {x}", g.name);
            }
        }
    }

    #[test]
    fn a_genome_decodes_to_the_configuration_it_came_from() {
        let mut cfg = EngineConfig::default();
        cfg.reuse.k = 8;
        cfg.reuse.p = 12.5;
        cfg.reuse.weights.0[2] = 3.0;
        cfg.revise.tolerance = 30;
        for revise in [true, false] {
            let ind = Individual::from_config(&cfg, revise);
            assert_eq!(ind.x.len(), genes(revise).len());
            assert_eq!(ind.to_config(&cfg, revise), cfg);
        }
        assert_eq!(
            genes(true).last().map(|g| g.name.as_str()),
            Some("tolerance")
        );
        assert!(genes(false).iter().all(|g| g.name != "tolerance"));
    }

    #[test]
    fn step_sizes_adapt_log_normally() {
        // log(σ′/σ) = τ·N(0,1): over many mutations its mean is ≈ 0 and its spread ≈ τ.
        let genes = vec![
            Gene {
                name: "x".into(),
                min: -1e9,
                max: 1e9,
                sigma: 1.0,
            };
            4
        ];
        let start = Individual {
            x: vec![0.0; 4],
            sigma: vec![1.0; 4],
            fitness: None,
        };
        let mut rng = StdRng::seed_from_u64(1);
        let logs: Vec<f64> = (0..20_000)
            .map(|_| mutate(&start, &genes, &mut rng).sigma[0].ln())
            .collect();
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / logs.len() as f64).sqrt();
        let tau = 1.0 / (2.0 * 2.0f64).sqrt();
        assert!(
            mean.abs() < 0.02 && (sd - tau).abs() < 0.02,
            "mean {mean} sd {sd} tau {tau}"
        );
    }

    #[test]
    fn finds_the_optimum_of_a_toy_fitness() {
        // Maximise −Σ (x_i − t_i)²: the optimum is the target.
        let genes = vec![
            Gene {
                name: "x".into(),
                min: -10.0,
                max: 10.0,
                sigma: 2.0,
            };
            3
        ];
        let target = [3.0, -2.0, 7.5];
        let start = Individual {
            x: vec![0.0; 3],
            sigma: vec![2.0; 3],
            fitness: None,
        };
        let mut rng = StdRng::seed_from_u64(3);
        let score = |ind: &Individual| {
            -ind.x
                .iter()
                .zip(&target)
                .map(|(x, t)| (x - t).powi(2))
                .sum::<f64>()
        };
        let (best, history) = evolve(
            start,
            &genes,
            Strategy {
                mu: 3,
                lambda: 12,
                generations: 400,
            },
            &mut rng,
            |_, pop| pop.iter().map(score).collect(),
            |_| {},
        );
        for (x, t) in best[0].x.iter().zip(&target) {
            assert!((x - t).abs() < 0.05, "{:?}", best[0].x);
        }
        assert!(
            history.windows(2).all(|w| w[1].best >= w[0].best),
            "(μ+λ) never loses its best"
        );
    }
}
