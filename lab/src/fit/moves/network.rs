//! Fitting the move model's network ([`precedent::model::network`]) on the fitting half's
//! positions, with the linear weights held: each position's moves are scored `w · x + net(x)`,
//! and the network's weights follow the gradient of the log-likelihood of the moves played
//! (AdamW, mini-batches of positions, a cosine schedule). The inputs are standardised with the
//! sample's means and deviations, stored with the network. Every position reads the network at
//! its own mover's rating, so one network learns how players of every rating choose. Seeded and
//! summed in a fixed order: the same evidence gives the same network.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use precedent::model::network::{N_INPUTS, Network, inputs};

use super::Item;

/// How the network is fitted.
#[derive(Clone, Copy, Debug)]
pub struct NetworkFit {
    /// Hidden units.
    pub hidden: usize,
    /// Passes over the fitting positions.
    pub epochs: usize,
    /// Adam's step at the start (it falls to 0 along a cosine).
    pub rate: f64,
    /// Weight decay (AdamW) of the weights, not the biases.
    pub decay: f64,
    /// Positions a step.
    pub batch: usize,
    /// Seed of the initial weights and of the order.
    pub seed: u64,
}

impl Default for NetworkFit {
    fn default() -> NetworkFit {
        NetworkFit {
            hidden: 32,
            epochs: 30,
            rate: 3e-3,
            decay: 1e-4,
            batch: 256,
            seed: 1,
        }
    }
}

/// One position, ready: its moves' standardised inputs (row-major), their linear scores, and
/// the move played.
struct Prepared {
    inputs: Vec<f32>,
    linear: Vec<f32>,
    played: usize,
}

/// The parameters as one flat vector: hidden weights (units × inputs), biases, output weights.
struct Shape {
    units: usize,
}

impl Shape {
    fn len(&self) -> usize {
        self.units * N_INPUTS + 2 * self.units
    }
    fn bias(&self) -> usize {
        self.units * N_INPUTS
    }
    fn output(&self) -> usize {
        self.units * N_INPUTS + self.units
    }
}

/// The log-likelihood of one position's move played, and its gradient added to `grad`.
fn position_gradient(shape: &Shape, theta: &[f32], p: &Prepared, grad: &mut [f32]) -> f64 {
    let units = shape.units;
    let moves = p.linear.len();
    let mut pre = vec![0f32; moves * units];
    let mut scores = p.linear.clone();
    for j in 0..moves {
        let x = &p.inputs[j * N_INPUTS..(j + 1) * N_INPUTS];
        for u in 0..units {
            let row = &theta[u * N_INPUTS..(u + 1) * N_INPUTS];
            let a = row.iter().zip(x).map(|(w, v)| w * v).sum::<f32>() + theta[shape.bias() + u];
            pre[j * units + u] = a;
            scores[j] += theta[shape.output() + u] * a.max(0.0);
        }
    }
    let top = scores.iter().copied().fold(f32::MIN, f32::max);
    let total: f32 = scores.iter().map(|s| (s - top).exp()).sum();
    let ll = f64::from(scores[p.played] - top - total.ln());
    for j in 0..moves {
        // d(−log-likelihood)/d(score j).
        let g = (scores[j] - top).exp() / total - f32::from(u8::from(j == p.played));
        if g == 0.0 {
            continue;
        }
        let x = &p.inputs[j * N_INPUTS..(j + 1) * N_INPUTS];
        for u in 0..units {
            let a = pre[j * units + u];
            grad[shape.output() + u] += g * a.max(0.0);
            if a <= 0.0 {
                continue;
            }
            let d = g * theta[shape.output() + u];
            grad[shape.bias() + u] += d;
            for (gw, v) in grad[u * N_INPUTS..(u + 1) * N_INPUTS].iter_mut().zip(x) {
                *gw += d * v;
            }
        }
    }
    ll
}

/// Fits a network on `items` over the linear weights `linear`; it imitates players rated
/// `rating` until a caller reads it at another.
pub fn fit_network(items: &[&Item], linear: &[f64], rating: f64, opts: &NetworkFit) -> Network {
    let raw: Vec<(Vec<[f64; N_INPUTS]>, Vec<f64>, usize)> = items
        .par_iter()
        .filter_map(|it| {
            let e = it.evidence(false)?;
            let elo = it.elo.map_or(rating, f64::from);
            let x = inputs(&e, elo);
            let lin = it
                .features
                .iter()
                .map(|f| f.iter().zip(linear).map(|(a, b)| a * b).sum())
                .collect();
            Some((x, lin, it.played))
        })
        .collect();
    // Standardisation: the mean and deviation of every input over all moves.
    let count = raw.iter().map(|r| r.0.len()).sum::<usize>().max(1) as f64;
    let mut shift = vec![0.0; N_INPUTS];
    let mut square = vec![0.0; N_INPUTS];
    for x in raw.iter().flat_map(|r| &r.0) {
        for k in 0..N_INPUTS {
            shift[k] += x[k];
            square[k] += x[k] * x[k];
        }
    }
    let scale: Vec<f64> = (0..N_INPUTS)
        .map(|k| {
            shift[k] /= count;
            let var = square[k] / count - shift[k] * shift[k];
            if var > 1e-12 { var.sqrt() } else { 1.0 }
        })
        .collect();
    let prepared: Vec<Prepared> = raw
        .into_iter()
        .map(|(x, lin, played)| Prepared {
            inputs: x
                .iter()
                .flat_map(|row| {
                    row.iter()
                        .zip(shift.iter().zip(&scale))
                        .map(|(v, (m, s))| ((v - m) / s) as f32)
                })
                .collect(),
            linear: lin.into_iter().map(|v| v as f32).collect(),
            played,
        })
        .collect();
    let shape = Shape { units: opts.hidden };
    let theta = train(&shape, &prepared, opts);
    let units = opts.hidden;
    Network {
        rating,
        shift,
        scale,
        hidden: (0..units)
            .map(|u| {
                theta[u * N_INPUTS..(u + 1) * N_INPUTS]
                    .iter()
                    .map(|&w| f64::from(w))
                    .collect()
            })
            .collect(),
        bias: theta[shape.bias()..shape.output()]
            .iter()
            .map(|&w| f64::from(w))
            .collect(),
        output: theta[shape.output()..]
            .iter()
            .map(|&w| f64::from(w))
            .collect(),
    }
}

/// AdamW over the prepared positions.
fn train(shape: &Shape, data: &[Prepared], opts: &NetworkFit) -> Vec<f32> {
    let mut rng = StdRng::seed_from_u64(opts.seed);
    let mut theta = vec![0f32; shape.len()];
    let bound = (6.0 / N_INPUTS as f64).sqrt();
    for w in &mut theta[..shape.bias()] {
        *w = rng.random_range(-bound..bound) as f32;
    }
    for w in &mut theta[shape.output()..] {
        *w = rng.random_range(-0.01..0.01) as f32;
    }
    let (mut m, mut v) = (vec![0f32; shape.len()], vec![0f32; shape.len()]);
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut order: Vec<usize> = (0..data.len()).collect();
    let steps_per_epoch = data.len().div_ceil(opts.batch.max(1)).max(1);
    let total_steps = (steps_per_epoch * opts.epochs).max(1);
    let mut t = 0usize;
    for _ in 0..opts.epochs {
        order.shuffle(&mut rng);
        for batch in order.chunks(opts.batch.max(1)) {
            // Each position's gradient in parallel, summed in the batch's order.
            let grads: Vec<Vec<f32>> = batch
                .par_iter()
                .map(|&i| {
                    let mut g = vec![0f32; shape.len()];
                    position_gradient(shape, &theta, &data[i], &mut g);
                    g
                })
                .collect();
            let mut grad = vec![0f32; shape.len()];
            for g in &grads {
                for (a, b) in grad.iter_mut().zip(g) {
                    *a += b;
                }
            }
            let n = batch.len() as f32;
            t += 1;
            let progress = t as f64 / total_steps as f64;
            let rate = (opts.rate * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())) as f32;
            let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
            for k in 0..shape.len() {
                let g = grad[k] / n;
                m[k] = b1 * m[k] + (1.0 - b1) * g;
                v[k] = b2 * v[k] + (1.0 - b2) * g * g;
                let is_bias = (shape.bias()..shape.output()).contains(&k);
                let decay = if is_bias { 0.0 } else { opts.decay as f32 };
                theta[k] -= rate * ((m[k] / c1) / ((v[k] / c2).sqrt() + eps) + decay * theta[k]);
            }
        }
    }
    theta
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analytic gradient agrees with finite differences of the log-likelihood.
    #[test]
    fn the_gradient_is_the_log_likelihoods() {
        let shape = Shape { units: 3 };
        let mut rng = StdRng::seed_from_u64(5);
        let moves = 4;
        let p = Prepared {
            inputs: (0..moves * N_INPUTS)
                .map(|_| rng.random_range(-1.0..1.0))
                .collect(),
            linear: vec![0.3, -0.2, 0.0, 0.1],
            played: 2,
        };
        let theta: Vec<f32> = (0..shape.len())
            .map(|_| rng.random_range(-0.3..0.3))
            .collect();
        let mut grad = vec![0f32; shape.len()];
        position_gradient(&shape, &theta, &p, &mut grad);
        let ll = |th: &[f32]| {
            let mut g = vec![0f32; shape.len()];
            position_gradient(&shape, th, &p, &mut g)
        };
        for k in [0, 7, shape.bias() + 1, shape.output() + 2] {
            let h = 1e-2f32;
            let (mut up, mut down) = (theta.clone(), theta.clone());
            up[k] += h;
            down[k] -= h;
            let numeric = (ll(&up) - ll(&down)) / f64::from(2.0 * h);
            // `grad` is of −log-likelihood.
            assert!(
                (numeric + f64::from(grad[k])).abs() < 2e-2,
                "parameter {k}: {numeric} against {}",
                -grad[k]
            );
        }
    }
}
