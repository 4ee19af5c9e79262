//! Trains the search's network evaluation (`revise::nnue`) on positions of analysed games: each
//! quiet position with Stockfish's evaluation (Lichess' `[%eval …]` comments) and the game's
//! result becomes a target expected score, `λ·σ(K·Stockfish) + (1 − λ)·result`, for the side
//! to move, and the network's output, in our centipawns, is fitted so that `σ(K·scale·ours)`
//! meets it (`scale`: Stockfish's centipawns per centipawn of ours, as `fit eval` finds it, so
//! the network keeps the hand-made evaluation's units, which the search's margins and the move
//! model's loss features are in). Games of `fit`'s test half are left out, as everywhere; one
//! game in ten is kept aside to validate, and the hand-made evaluation's loss on those
//! positions is reported beside the network's.
//!
//! Plain minibatch AdamW in single precision over the 768 → [`HIDDEN`] ×2 → 1 network, the
//! feature transformer's gradient gathered sparsely (a position touches about 30 of its 768
//! columns); weights are kept within what the quantised network can hold.

mod run;

pub use run::{NetFitArgs, NetFitError, NetFitProgress, NetFitReport, run};

use precedent::pgn::{GameResult, InputError, Selection, for_each_game};
use precedent::search::evaluate::evaluate;
use precedent::search::nnue::{HIDDEN, INPUTS, Network, QB, SCALE, feature};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use shakmaty::{Chess, Color, Position};

use super::quiet::{K, quiet_eval, sigmoid};
use crate::positions::in_test_half;

/// Evaluations beyond this many centipawns are left out (decided positions).
pub const MAX_EVAL: i32 = 3000;

/// A position as the trainer sees it.
#[derive(Clone, Debug)]
pub struct NetSample {
    /// Inputs seen from the side to move, then from the other side.
    features: [[u16; 32]; 2],
    n: u8,
    /// Target expected score for the side to move.
    target: f32,
    /// The hand-made evaluation, side to move (for the comparison).
    classic: i16,
}

impl NetSample {
    /// The sample of `pos` with the target expected score `target` (side to move).
    pub fn new(pos: &Chess, target: f32) -> NetSample {
        let turn = pos.turn();
        let mut features = [[0u16; 32]; 2];
        let mut n = 0;
        for (sq, piece) in pos.board().iter().take(32) {
            features[0][n] = feature(turn, piece.color, piece.role, sq) as u16;
            features[1][n] = feature(!turn, piece.color, piece.role, sq) as u16;
            n += 1;
        }
        NetSample {
            features,
            n: n as u8,
            target,
            classic: evaluate(pos).clamp(-30_000, 30_000) as i16,
        }
    }

    fn inputs(&self, view: usize) -> &[u16] {
        &self.features[view][..usize::from(self.n)]
    }
}

/// The positions read, and how they divide.
pub struct NetSamples {
    /// To train on.
    pub train: Vec<NetSample>,
    /// Positions of other games, to validate on.
    pub valid: Vec<NetSample>,
    /// Games read.
    pub games: u64,
}

/// How positions are read.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// Plies skipped at the start of every game.
    pub skip_plies: u32,
    /// Stop after the game that brings the positions to this many.
    pub max: usize,
    /// The evaluation's share of the target (the rest is the game's result).
    pub lambda: f64,
    /// Also train on every position mirrored left to right (the same value; castling rights
    /// are not inputs).
    pub flip: bool,
}

/// Reads the quiet positions (not in check, reached and left by a quiet move) with an
/// evaluation within [`MAX_EVAL`] from the games of `pgn` (if any) outside `fit`'s test half,
/// and from every game of the `extra` files (games of no held-out set, e.g. `gen-net-data`'s).
pub fn collect(
    pgn: Option<&str>,
    extra: &[String],
    how: Reading,
) -> Result<NetSamples, InputError> {
    let mut out = NetSamples {
        train: Vec::new(),
        valid: Vec::new(),
        games: 0,
    };
    if let Some(pgn) = pgn {
        read(pgn, true, how, &mut out)?;
    }
    for file in extra {
        read(file, false, how, &mut out)?;
    }
    Ok(out)
}

/// Reads the positions of one file into `out` (`held_out`: leave out `fit`'s test half).
fn read(pgn: &str, held_out: bool, how: Reading, out: &mut NetSamples) -> Result<(), InputError> {
    let selection = Selection {
        skip_plies: if held_out { how.skip_plies } else { 0 },
        ..Selection::default()
    };
    for_each_game::<InputError>(pgn, &selection, |outcome, visitor, _| {
        let game = visitor.game();
        if outcome.is_err() || (held_out && in_test_half(game.key)) || game.evals.is_empty() {
            return Ok(true);
        }
        let white_score = match game.header.result {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
            GameResult::Unknown => return Ok(true),
        };
        out.games += 1;
        let valid = game.key % 10 == 0;
        for m in &game.selected {
            let Some(eval) = quiet_eval(m, &game.evals, MAX_EVAL) else {
                continue;
            };
            let white = m.pos.turn() == Color::White;
            let (eval, result) = if white {
                (f64::from(eval), white_score)
            } else {
                (-f64::from(eval), 1.0 - white_score)
            };
            let target = (how.lambda * sigmoid(K * eval) + (1.0 - how.lambda) * result) as f32;
            let set = if valid {
                &mut out.valid
            } else {
                &mut out.train
            };
            set.push(NetSample::new(&m.pos, target));
            if how.flip && !valid {
                let mut setup = m.pos.to_setup(shakmaty::EnPassantMode::Legal);
                setup.board.flip_horizontal();
                setup.castling_rights = shakmaty::Bitboard::EMPTY;
                setup.ep_square = None;
                if let Ok(p) = setup.position::<Chess>(shakmaty::CastlingMode::Standard) {
                    out.train.push(NetSample::new(&p, target));
                }
            }
        }
        Ok(out.train.len() + out.valid.len() < how.max)
    })
}

/// The network in training, real-valued.
#[derive(Clone)]
pub struct Trainee {
    /// Feature transformer, `[input][neuron]`.
    ft: Vec<f32>,
    ft_bias: Vec<f32>,
    /// Output weights: side to move's neurons, then the other side's.
    out: Vec<f32>,
    out_bias: f32,
}

/// The largest weight the quantised network holds: `i16` at `QA` for the feature transformer,
/// 127 at `QB` for the output (so that `clamp(x)·w` fits 16 bits).
const FT_LIMIT: f32 = 1.98;
const OUT_LIMIT: f32 = 127.0 / QB as f32;

impl Trainee {
    /// Small random weights.
    pub fn new(seed: u64) -> Trainee {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut uniform = |scale: f32| (rng.random::<f32>() * 2.0 - 1.0) * scale;
        Trainee {
            ft: (0..INPUTS * HIDDEN).map(|_| uniform(0.1)).collect(),
            ft_bias: (0..HIDDEN).map(|_| 0.1 + uniform(0.05)).collect(),
            out: (0..2 * HIDDEN).map(|_| uniform(0.1)).collect(),
            out_bias: 0.0,
        }
    }

    /// A trainee that starts from `net`'s weights (to go on training it).
    pub fn from_network(net: &Network) -> Trainee {
        let (ft, ft_bias, out, out_bias) = net.dequantise();
        Trainee {
            ft,
            ft_bias,
            out,
            out_bias,
        }
    }

    /// The quantised network.
    pub fn network(&self) -> Network {
        Network::quantise(&self.ft, &self.ft_bias, &self.out, self.out_bias)
    }

    /// The hidden sums of `s` from both sides.
    fn hidden(&self, s: &NetSample) -> [Vec<f32>; 2] {
        [0, 1].map(|v| {
            let mut acc = self.ft_bias.clone();
            for &f in s.inputs(v) {
                let column = &self.ft[usize::from(f) * HIDDEN..][..HIDDEN];
                acc.iter_mut().zip(column).for_each(|(a, w)| *a += w);
            }
            acc
        })
    }

    /// The output (our centipawns / SCALE) from the hidden sums.
    fn output(&self, hidden: &[Vec<f32>; 2]) -> f32 {
        let mut y = self.out_bias;
        for (v, h) in hidden.iter().enumerate() {
            let w = &self.out[v * HIDDEN..][..HIDDEN];
            y += h
                .iter()
                .zip(w)
                .map(|(x, w)| {
                    let c = x.clamp(0.0, 1.0);
                    c * c * w
                })
                .sum::<f32>();
        }
        y
    }

    /// The network's evaluation of `s`, our centipawns for the side to move.
    pub fn evaluate(&self, s: &NetSample) -> f32 {
        self.output(&self.hidden(s)) * SCALE as f32
    }
}

/// The gradient of a batch.
struct Gradient {
    ft: Vec<f32>,
    ft_bias: Vec<f32>,
    out: Vec<f32>,
    out_bias: f32,
    loss: f64,
}

impl Gradient {
    fn zero() -> Gradient {
        Gradient {
            ft: vec![0.0; INPUTS * HIDDEN],
            ft_bias: vec![0.0; HIDDEN],
            out: vec![0.0; 2 * HIDDEN],
            out_bias: 0.0,
            loss: 0.0,
        }
    }

    fn add(mut self, other: Gradient) -> Gradient {
        let sum = |a: &mut Vec<f32>, b: &[f32]| a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
        sum(&mut self.ft, &other.ft);
        sum(&mut self.ft_bias, &other.ft_bias);
        sum(&mut self.out, &other.out);
        self.out_bias += other.out_bias;
        self.loss += other.loss;
        self
    }
}

/// The squared error of a prediction in our centipawns against a target expected score.
fn error(ours: f64, target: f64, scale: f64) -> f64 {
    (sigmoid(K * scale * ours) - target).powi(2)
}

impl Trainee {
    /// Accumulates the gradient of sample `s` into `g`.
    fn backward(&self, s: &NetSample, scale: f32, g: &mut Gradient) {
        let hidden = self.hidden(s);
        let y = self.output(&hidden);
        let k = (K as f32) * scale * SCALE as f32;
        let p = 1.0 / (1.0 + (-k * y).exp());
        let diff = p - s.target;
        g.loss += f64::from(diff * diff);
        let dy = 2.0 * diff * p * (1.0 - p) * k;
        g.out_bias += dy;
        for (v, h) in hidden.iter().enumerate() {
            let w = &self.out[v * HIDDEN..][..HIDDEN];
            let gw = &mut g.out[v * HIDDEN..][..HIDDEN];
            let mut dh = [0f32; HIDDEN];
            for j in 0..HIDDEN {
                let x = h[j];
                let c = x.clamp(0.0, 1.0);
                gw[j] += dy * c * c;
                dh[j] = if x > 0.0 && x < 1.0 {
                    dy * w[j] * 2.0 * c
                } else {
                    0.0
                };
            }
            g.ft_bias.iter_mut().zip(&dh).for_each(|(a, d)| *a += d);
            for &f in s.inputs(v) {
                let column = &mut g.ft[usize::from(f) * HIDDEN..][..HIDDEN];
                column.iter_mut().zip(&dh).for_each(|(a, d)| *a += d);
            }
        }
    }
}

/// AdamW's moments of one parameter vector.
struct Moments {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Moments {
    fn new(n: usize) -> Moments {
        Moments {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    /// One step on `w` with gradient `g` (step number `t`, from 1) and weight decay `decay`.
    fn step(&mut self, w: &mut [f32], g: &[f32], rate: f32, decay: f32, t: i32, limit: f32) {
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        for i in 0..w.len() {
            self.m[i] = b1 * self.m[i] + (1.0 - b1) * g[i];
            self.v[i] = b2 * self.v[i] + (1.0 - b2) * g[i] * g[i];
            let update = (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + eps);
            w[i] = (w[i] * (1.0 - rate * decay) - rate * update).clamp(-limit, limit);
        }
    }
}

/// How training runs.
#[derive(Clone, Copy, Debug)]
pub struct Training {
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions per step.
    pub batch: usize,
    /// AdamW's first step size (cosine decay to a tenth of it).
    pub rate: f32,
    /// AdamW's weight decay (per unit of step size).
    pub decay: f32,
    /// Stockfish's centipawns per centipawn of ours.
    pub scale: f64,
    /// Seeds the weights and the order of the positions.
    pub seed: u64,
}

/// One epoch's report.
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    /// Its number, from 1.
    pub epoch: usize,
    /// Mean squared error on the training positions (during the epoch).
    pub train: f64,
    /// On the validation positions, after it.
    pub valid: f64,
}

/// The mean squared error of `net` on `samples`.
pub fn net_loss(net: &Trainee, samples: &[NetSample], scale: f64) -> f64 {
    let sum: f64 = samples
        .par_iter()
        .map(|s| error(f64::from(net.evaluate(s)), f64::from(s.target), scale))
        .sum();
    sum / samples.len().max(1) as f64
}

/// The mean squared error of the quantised network `net` on `samples`.
pub fn quantised_loss(net: &Network, samples: &[NetSample], scale: f64) -> f64 {
    let sum: f64 = samples
        .par_iter()
        .map(|s| {
            let inputs = |v: usize| {
                s.inputs(v)
                    .iter()
                    .map(|&f| usize::from(f))
                    .collect::<Vec<_>>()
            };
            let ours = net.evaluate_inputs(&inputs(0), &inputs(1));
            error(f64::from(ours), f64::from(s.target), scale)
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The mean squared error of the hand-made evaluation on `samples`.
pub fn classic_loss(samples: &[NetSample], scale: f64) -> f64 {
    let sum: f64 = samples
        .par_iter()
        .map(|s| error(f64::from(s.classic), f64::from(s.target), scale))
        .sum();
    sum / samples.len().max(1) as f64
}

/// Trains `net` (e.g. [`Trainee::new`]'s random weights); `report` hears of every epoch, the
/// starting weights' validation loss first as epoch 0. Returns the network of the epoch with
/// the lowest validation loss (epoch 0's when no epoch improves on where it started).
pub fn train(
    samples: &mut NetSamples,
    how: Training,
    mut net: Trainee,
    mut report: impl FnMut(Epoch),
) -> (Trainee, Epoch) {
    let mut rng = StdRng::seed_from_u64(how.seed ^ 0x5eed);
    let mut moments = (
        Moments::new(INPUTS * HIDDEN),
        Moments::new(HIDDEN),
        Moments::new(2 * HIDDEN),
        Moments::new(1),
    );
    let batches = samples.train.len().div_ceil(how.batch.max(1)).max(1);
    let total = (how.epochs * batches) as f32;
    let mut t = 0;
    let start = Epoch {
        epoch: 0,
        train: f64::NAN,
        valid: net_loss(&net, &samples.valid, how.scale),
    };
    report(start);
    let mut best = (net.clone(), start);
    let scale = how.scale as f32;
    for epoch in 1..=how.epochs {
        samples.train.shuffle(&mut rng);
        let mut train_loss = 0.0;
        for batch in samples.train.chunks(how.batch.max(1)) {
            t += 1;
            let chunk = batch.len().div_ceil(rayon::current_num_threads()).max(256);
            let g = batch
                .par_chunks(chunk)
                .map(|part| {
                    let mut g = Gradient::zero();
                    for s in part {
                        net.backward(s, scale, &mut g);
                    }
                    g
                })
                .reduce(Gradient::zero, Gradient::add);
            train_loss += g.loss;
            let n = batch.len() as f32;
            let rate = how.rate
                * (0.1 + 0.9 * 0.5 * (1.0 + (std::f32::consts::PI * t as f32 / total).cos()));
            let mean = |v: &[f32]| v.iter().map(|x| x / n).collect::<Vec<f32>>();
            let decay = how.decay;
            moments
                .0
                .step(&mut net.ft, &mean(&g.ft), rate, decay, t, FT_LIMIT);
            moments
                .1
                .step(&mut net.ft_bias, &mean(&g.ft_bias), rate, 0.0, t, FT_LIMIT);
            moments
                .2
                .step(&mut net.out, &mean(&g.out), rate, decay, t, OUT_LIMIT);
            let mut ob = [net.out_bias];
            moments
                .3
                .step(&mut ob, &[g.out_bias / n], rate, 0.0, t, 1e3);
            net.out_bias = ob[0];
        }
        let e = Epoch {
            epoch,
            train: train_loss / samples.train.len().max(1) as f64,
            valid: net_loss(&net, &samples.valid, how.scale),
        };
        report(e);
        if e.valid < best.1.valid {
            best = (net.clone(), e);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use precedent::position::parse_fen;

    #[test]
    fn the_quantised_network_evaluates_as_the_trainee_does() {
        // Weights on the quantisation's grid: only the integer divisions differ.
        let mut net = Trainee::new(7);
        let grid = |v: &mut Vec<f32>, q: i32| {
            v.iter_mut()
                .for_each(|w| *w = (*w * q as f32).round() / q as f32)
        };
        grid(&mut net.ft, precedent::search::nnue::QA);
        grid(&mut net.ft_bias, precedent::search::nnue::QA);
        grid(&mut net.out, QB);
        let q = net.network();
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 50",
        ] {
            let pos: Chess = parse_fen(fen).expect("fen");
            let real = net.evaluate(&NetSample::new(&pos, 0.5));
            let int = q.evaluate(&q.refresh(pos.board()), pos.turn());
            assert!((real - int as f32).abs() <= 2.0, "{fen}: {real} {int}");
        }
    }

    #[test]
    fn a_network_dequantised_quantises_back_to_itself() {
        let net = precedent::search::nnue::embedded();
        let again = Trainee::from_network(net).network();
        assert!(again.to_bytes() == net.to_bytes());
    }

    #[test]
    fn training_learns_a_material_advantage() {
        // Positions where the side to move has an extra knight win, and their mirror images
        // lose: a few epochs on them teach the network the knight.
        let wins = [
            "4k3/pppp4/8/8/8/8/PPPP4/1N2K3 w - - 0 1",
            "4k3/1ppp4/8/8/8/8/1PPP2N1/4K3 w - - 0 1",
            "3k4/2pp4/8/8/3N4/8/2PP4/3K4 w - - 0 1",
            "6k1/5ppp/8/8/8/2N5/5PPP/6K1 w - - 0 1",
        ];
        let mut set = Vec::new();
        for fen in wins {
            let pos: Chess = parse_fen(fen).expect("fen");
            set.push(NetSample::new(&pos, 0.95));
            let flipped = pos.board().clone().into_mirrored();
            let setup = shakmaty::Setup {
                board: flipped,
                turn: Color::White,
                ..shakmaty::Setup::empty()
            };
            let lost: Chess = setup
                .position(shakmaty::CastlingMode::Standard)
                .expect("legal");
            set.push(NetSample::new(&lost, 0.05));
        }
        let mut samples = NetSamples {
            valid: set.clone(),
            train: set,
            games: 8,
        };
        let how = Training {
            epochs: 300,
            batch: 8,
            rate: 0.01,
            decay: 0.0,
            scale: 1.0,
            seed: 1,
        };
        let (net, e) = train(&mut samples, how, Trainee::new(how.seed), |_| {});
        assert!(e.valid < 0.01, "{e:?}");
        let pos: Chess = parse_fen(wins[0]).expect("fen");
        assert!(net.evaluate(&NetSample::new(&pos, 0.5)) > 200.0);
        // Going on from it starts where it ended: its epoch 0 already knows the knight.
        let mut first = None;
        let again = Training { epochs: 1, ..how };
        train(&mut samples, again, net, |e| {
            first.get_or_insert(e);
        });
        let first = first.expect("epoch 0 reported");
        assert_eq!(first.epoch, 0);
        assert!(first.valid < 0.01, "{first:?}");
    }
}
