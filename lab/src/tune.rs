//! `precedent tune`: learning the reasoner's numbers by evolution, as Fogel's Blondie24/25 learned
//! evaluation weights: a (μ + λ) evolution strategy whose individuals carry their own step sizes,
//! mutated as σ′ = σ·exp(τ·N(0,1)) with τ = 1/√(2√n), then x′ = x + σ′·N(0,1).

use rand::Rng;
use rand::rngs::StdRng;
use rand_distr::StandardNormal;
use serde::Serialize;

use precedent::adapt::Weights;
use precedent::engine::config::EngineConfig;

/// One tunable number: its range and its initial step size.
#[derive(Clone, Copy, Debug)]
pub struct Gene {
    /// Its name in reports (`w1`, `log2_k`, `p`, `tolerance`, …).
    pub name: &'static str,
    /// Lowest value a mutation may give it.
    pub min: f64,
    /// Highest value a mutation may give it.
    pub max: f64,
    /// Initial mutation step size (standard deviation, in the gene's own unit).
    pub sigma: f64,
}

/// The genes: w1…w6, k (on a log2 scale), p, and the revise tolerance (centipawns).
pub const GENES: [Gene; 9] = [
    Gene {
        name: "w1",
        min: 0.0,
        max: 20.0,
        sigma: 1.0,
    },
    Gene {
        name: "w2",
        min: 0.0,
        max: 20.0,
        sigma: 1.0,
    },
    Gene {
        name: "w3",
        min: 0.0,
        max: 20.0,
        sigma: 1.0,
    },
    Gene {
        name: "w4",
        min: 0.0,
        max: 20.0,
        sigma: 1.0,
    },
    Gene {
        name: "w5",
        min: 0.0,
        max: 20.0,
        sigma: 1.0,
    },
    Gene {
        name: "w6",
        min: 0.0,
        max: 20.0,
        sigma: 1.0,
    },
    Gene {
        name: "log2_k",
        min: 0.0,
        max: 8.0,
        sigma: 0.5,
    },
    Gene {
        name: "p",
        min: 0.0,
        max: 128.0,
        sigma: 8.0,
    },
    Gene {
        name: "tolerance",
        min: 0.0,
        max: 300.0,
        sigma: 20.0,
    },
];

/// An individual: a point in parameter space and its own step sizes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Individual {
    /// The gene values, in the order of [`GENES`].
    pub x: Vec<f64>,
    /// Its own mutation step size per gene, adapted by evolution.
    pub sigma: Vec<f64>,
    /// Its score on the latest sample (higher is better; for `tune`, move-matching accuracy
    /// 0..=1); `None` until scored.
    pub fitness: Option<f64>,
}

impl Individual {
    /// The genome of a configuration.
    pub fn from_config(c: &EngineConfig) -> Individual {
        let w = c.reuse.weights.0;
        let x = vec![
            w[0],
            w[1],
            w[2],
            w[3],
            w[4],
            w[5],
            (c.reuse.k.max(1) as f64).log2(),
            c.reuse.p,
            f64::from(c.revise.tolerance),
        ];
        Individual {
            x,
            sigma: GENES.iter().map(|g| g.sigma).collect(),
            fitness: None,
        }
    }

    /// The configuration of a genome (on top of `base` for what is not tuned).
    pub fn to_config(&self, base: &EngineConfig) -> EngineConfig {
        let x = &self.x;
        let mut c = base.clone();
        c.reuse.weights = Weights([x[0], x[1], x[2], x[3], x[4], x[5]]);
        c.reuse.k = 2f64.powf(x[6]).round().max(1.0) as usize;
        c.reuse.p = x[7];
        c.revise.tolerance = x[8].round() as i32;
        c
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
    /// Gene values of the best individual, in the order of [`GENES`].
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
        let start = Individual::from_config(&EngineConfig::default());
        let a = mutate(&start, &GENES, &mut StdRng::seed_from_u64(7));
        let b = mutate(&start, &GENES, &mut StdRng::seed_from_u64(7));
        assert_eq!(a, b, "same seed, same child");
        assert_ne!(a.x, start.x, "a mutation moves");
        let c = mutate(&start, &GENES, &mut StdRng::seed_from_u64(8));
        assert_ne!(a.x, c.x);
        let mut rng = StdRng::seed_from_u64(9);
        let mut ind = start;
        for _ in 0..2000 {
            ind = mutate(&ind, &GENES, &mut rng);
            for (x, g) in ind.x.iter().zip(&GENES) {
                assert!(*x >= g.min && *x <= g.max, "{} = {x}", g.name);
            }
        }
    }

    #[test]
    fn step_sizes_adapt_log_normally() {
        // log(σ′/σ) = τ·N(0,1): over many mutations its mean is ≈ 0 and its spread ≈ τ.
        let genes = [Gene {
            name: "x",
            min: -1e9,
            max: 1e9,
            sigma: 1.0,
        }; 4];
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
        let genes = [Gene {
            name: "x",
            min: -10.0,
            max: 10.0,
            sigma: 2.0,
        }; 3];
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
