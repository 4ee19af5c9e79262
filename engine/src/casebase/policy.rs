//! The case base's policy: which legal move its players choose, given the whole board.
//!
//! The move patterns (module `patterns`) see a move with a few squares around it; the policy
//! sees every square at once. It is a log-linear model over the legal moves of a position,
//! `P(m) ∝ exp(s(m))`, whose score is one weight per (move, board input) pair summed over the
//! position's active inputs:
//!
//! - the move's key: its piece, origin and destination (and an under-promotion), in the mover's
//!   point of view;
//! - the board inputs: every square's content (empty, or one of the twelve pieces), every square
//!   the opponent attacks, every square the mover attacks, and where the opponent's last move
//!   went; plus a bias per move.
//!
//! So a move's score says how much more often the case base's players chose it when a given
//! square held a given piece, or was attacked: a "bilinear" policy, the whole-board counterpart
//! of the patterns' Bradley–Terry strengths. It is fitted when the case base is written, from
//! its cases alone (stochastic gradient ascent of the log-likelihood with AdaGrad steps, a fixed
//! seed and a fixed order, so the same cases give the same bytes), and stored as 16-bit integers
//! with a scale per move. A one-game case base knows one game's policy; a case base without
//! patterns has none.

use shakmaty::{Chess, Color, Move, Position, Role, Square};

use super::derive::case_position;
use super::patterns::LastMove;
use super::record::CaseMeta;
use crate::case::CaseMove;
use crate::case::Planes;

/// Board inputs of a move's row: 64 × 13 square contents, 64 squares the opponent attacks, 64
/// squares the mover attacks, 65 destinations of the opponent's last move (the last one:
/// unknown), and the bias.
pub const INPUTS: usize = 64 * 13 + 64 + 64 + 65 + 1;
const ATTACKED: usize = 64 * 13;
const DEFENDED: usize = ATTACKED + 64;
const LAST: usize = DEFENDED + 64;
const BIAS: usize = INPUTS - 1;

/// Passes over the sample.
const EPOCHS: usize = 3;
/// AdaGrad's base step, lowered linearly to 30 % of it over the passes.
const STEP: f32 = 0.1;
/// L2 penalty per weight and step.
const L2: f32 = 1e-6;
/// Largest weight stored: weights are clamped into ±`LIMIT` (scores then stay finite).
const LIMIT: f32 = 16.0;

/// The key of a move in the mover's point of view (White to move): piece, under-promotion,
/// origin, destination (castling as the king's two-file move).
pub fn move_key(m: &Move) -> u32 {
    let (from, to) = match *m {
        Move::Castle { king, rook } => {
            let side = shakmaty::CastlingSide::from_king_side(rook > king);
            (king, Square::from_coords(side.king_to_file(), king.rank()))
        }
        _ => (m.from().unwrap_or(m.to()), m.to()),
    };
    let under = u32::from(matches!(m.promotion(), Some(r) if r != Role::Queen));
    (m.role() as u32) << 13 | under << 12 | (from as u32) << 6 | to as u32
}

/// The active board inputs of `pos` (White to move, the mover's point of view) after the
/// opponent's move `last`, appended to `out` (the bias included).
pub fn inputs(pos: &Chess, last: LastMove, out: &mut Vec<u16>) {
    let board = pos.board();
    let occupied = board.occupied();
    for sq in Square::ALL {
        let content = board.piece_at(sq).map_or(0, |p| {
            p.role as usize + if p.color == Color::White { 0 } else { 6 }
        });
        out.push((sq as usize * 13 + content) as u16);
    }
    let black = board.by_color(Color::Black);
    let white = board.by_color(Color::White);
    for sq in Square::ALL {
        if (board.attacks_to(sq, Color::Black, occupied) & black).any() {
            out.push((ATTACKED + sq as usize) as u16);
        }
        if (board.attacks_to(sq, Color::White, occupied) & white).any() {
            out.push((DEFENDED + sq as usize) as u16);
        }
    }
    out.push((LAST + last.to().map_or(64, |s| s as usize)) as u16);
    out.push(BIAS as u16);
}

/// A case base's fitted policy: the keys of the moves it knows (sorted), each with a scale and
/// a row of [`INPUTS`] quantised weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyTable<'a> {
    keys: &'a [u32],
    scales: &'a [f32],
    rows: &'a [i16],
}

impl<'a> PolicyTable<'a> {
    /// A table over sorted keys, their scales and their rows (`keys.len() × INPUTS`).
    pub(crate) fn new(keys: &'a [u32], scales: &'a [f32], rows: &'a [i16]) -> PolicyTable<'a> {
        PolicyTable { keys, scales, rows }
    }

    /// Whether the case base has a policy.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Moves the policy knows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The score of the move with key `key` on a board of active `inputs` (0 for a move the
    /// case base never saw played or available).
    pub fn score(&self, key: u32, inputs: &[u16]) -> f32 {
        let Ok(i) = self.keys.binary_search(&key) else {
            return 0.0;
        };
        let row = &self.rows[i * INPUTS..(i + 1) * INPUTS];
        let sum: i32 = inputs.iter().map(|&x| i32::from(row[x as usize])).sum();
        sum as f32 * self.scales[i]
    }
}

/// A policy ready to be stored: sorted keys, scales and rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Policy {
    /// The move keys, ascending.
    pub keys: Vec<u32>,
    /// Each key's scale: its row's weights are `row[j] × scale`.
    pub scales: Vec<f32>,
    /// `keys.len() × INPUTS` weights.
    pub rows: Vec<i16>,
}

/// One sampled position of the fit: its active inputs, its legal moves' keys (as indices into
/// the fit's key list) and the index of the move played.
struct Sample {
    inputs: Vec<u16>,
    moves: Vec<u32>,
    played: u16,
}

/// Fits the policy of the cases `metas` (case `i` on board `boards[board_of[i]]`), on at most
/// about `positions` of them (every n-th).
pub fn fit(boards: &[Planes], board_of: &[u32], metas: &[CaseMeta], positions: usize) -> Policy {
    let stride = metas.len().div_ceil(positions.max(1)).max(1);
    let (keys, samples) = samples(boards, board_of, metas, stride);
    let weights = sgd(&samples, keys.len());
    quantise(keys, &weights)
}

/// Every `stride`-th case as a sample of the fit (a position with one legal move, or whose
/// move is not legal there, is left out), and the keys of the moves they hold, sorted: a
/// sample's moves are indices into them.
fn samples(
    boards: &[Planes],
    board_of: &[u32],
    metas: &[CaseMeta],
    stride: usize,
) -> (Vec<u32>, Vec<Sample>) {
    use rayon::prelude::*;
    let sampled: Vec<(Vec<u16>, Vec<u32>, u16)> = (0..metas.len())
        .into_par_iter()
        .step_by(stride)
        .filter_map(|i| {
            let meta = &metas[i];
            let pos = case_position(&boards[board_of[i] as usize], meta)?;
            let legal = pos.legal_moves();
            let played = legal
                .iter()
                .position(|m| CaseMove::from_move(*m, Color::White) == Some(meta.mv))?;
            if legal.len() < 2 {
                return None;
            }
            let mut input = Vec::with_capacity(128);
            inputs(&pos, meta.last, &mut input);
            let keys = legal.iter().map(move_key).collect();
            Some((input, keys, played as u16))
        })
        .collect();
    let mut keys: Vec<u32> = sampled.iter().flat_map(|s| s.1.iter().copied()).collect();
    keys.par_sort_unstable();
    keys.dedup();
    let samples = sampled
        .into_iter()
        .map(|(inputs, moves, played)| Sample {
            inputs,
            moves: moves
                .iter()
                .map(|k| keys.binary_search(k).map_or(0, |i| i as u32))
                .collect(),
            played,
        })
        .collect();
    (keys, samples)
}

/// AdaGrad over the samples in a seeded order, one sample at a time.
fn sgd(samples: &[Sample], n_keys: usize) -> Vec<f32> {
    let mut w = vec![0f32; n_keys * INPUTS];
    let mut g2 = vec![1e-3f32; n_keys * INPUTS];
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut scores = Vec::new();
    for epoch in 0..EPOCHS {
        // Fisher–Yates with xorshift: the same order on every machine.
        for i in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let step = STEP * (1.0 - 0.7 * epoch as f32 / EPOCHS as f32);
        for &i in &order {
            let s = &samples[i];
            scores.clear();
            scores.resize(s.moves.len(), 0.0);
            move_scores(&w, s, &mut scores);
            let top = scores.iter().copied().fold(f32::MIN, f32::max);
            let total: f32 = scores.iter().map(|v| (v - top).exp()).sum();
            for (j, &k) in s.moves.iter().enumerate() {
                let g = (scores[j] - top).exp() / total
                    - f32::from(u8::from(j == usize::from(s.played)));
                let base = k as usize * INPUTS;
                for &x in &s.inputs {
                    let at = base + x as usize;
                    let grad = g + L2 * w[at];
                    g2[at] += grad * grad;
                    w[at] = (w[at] - step * grad / g2[at].sqrt()).clamp(-LIMIT, LIMIT);
                }
            }
        }
    }
    w
}

/// The scores of a sample's moves at weights `w`, into `scores`: four moves at a time, so that
/// four sums run side by side; each is still added in its inputs' order, from the same start as
/// `Iterator::sum`, so the scores are those of one sum at a time, to the bit.
fn move_scores(w: &[f32], s: &Sample, scores: &mut [f32]) {
    let start: f32 = std::iter::empty::<f32>().sum();
    let row = |k: u32| &w[k as usize * INPUTS..(k as usize + 1) * INPUTS];
    let mut moves = s.moves.chunks_exact(4);
    let mut out = scores.chunks_exact_mut(4);
    for (ks, sc) in (&mut moves).zip(&mut out) {
        let rows = [row(ks[0]), row(ks[1]), row(ks[2]), row(ks[3])];
        let mut acc = [start; 4];
        for &x in &s.inputs {
            for (a, r) in acc.iter_mut().zip(&rows) {
                *a += r[x as usize];
            }
        }
        sc.copy_from_slice(&acc);
    }
    for (&k, sc) in moves.remainder().iter().zip(out.into_remainder()) {
        let r = row(k);
        *sc = s.inputs.iter().map(|&x| r[x as usize]).sum::<f32>();
    }
}

/// Rows of 16-bit integers with a scale each (the row's largest weight maps to ±32767).
fn quantise(keys: Vec<u32>, w: &[f32]) -> Policy {
    let mut scales = Vec::with_capacity(keys.len());
    let mut rows = Vec::with_capacity(w.len());
    for row in w.chunks(INPUTS) {
        let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = if max > 0.0 { max / 32767.0 } else { 1.0 };
        scales.push(scale);
        rows.extend(row.iter().map(|v| (v / scale).round() as i16));
    }
    Policy { keys, scales, rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;

    #[test]
    fn inputs_are_in_range_and_count_every_square() {
        let pos = parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
            .expect("fen");
        let mut out = Vec::new();
        inputs(&pos, LastMove::new(Square::C6, None), &mut out);
        assert!(out.iter().all(|&x| (x as usize) < INPUTS));
        // 64 contents, the last move and the bias, and some attacked squares.
        assert!(out.len() > 66);
        assert!(out.contains(&((LAST + Square::C6 as usize) as u16)));
        assert_eq!(out.last(), Some(&(BIAS as u16)));
        let contents = out.iter().filter(|&&x| (x as usize) < ATTACKED).count();
        assert_eq!(contents, 64);
    }

    #[test]
    fn move_keys_tell_moves_apart() {
        let pos = Chess::default();
        let mut keys: Vec<u32> = pos.legal_moves().iter().map(move_key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 20);
    }

    /// The fit one weight at a time, as first written.
    fn reference_sgd(samples: &[Sample], n_keys: usize) -> Vec<f32> {
        let mut w = vec![0f32; n_keys * INPUTS];
        let mut g2 = vec![1e-3f32; n_keys * INPUTS];
        let mut order: Vec<usize> = (0..samples.len()).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for epoch in 0..EPOCHS {
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let step = STEP * (1.0 - 0.7 * epoch as f32 / EPOCHS as f32);
            for &i in &order {
                let s = &samples[i];
                let scores: Vec<f32> = s
                    .moves
                    .iter()
                    .map(|&k| {
                        let row = &w[k as usize * INPUTS..(k as usize + 1) * INPUTS];
                        s.inputs.iter().map(|&x| row[x as usize]).sum::<f32>()
                    })
                    .collect();
                let top = scores.iter().copied().fold(f32::MIN, f32::max);
                let total: f32 = scores.iter().map(|v| (v - top).exp()).sum();
                for (j, &k) in s.moves.iter().enumerate() {
                    let g = (scores[j] - top).exp() / total
                        - f32::from(u8::from(j == usize::from(s.played)));
                    for &x in &s.inputs {
                        let at = k as usize * INPUTS + x as usize;
                        let grad = g + L2 * w[at];
                        g2[at] += grad * grad;
                        w[at] = (w[at] - step * grad / g2[at].sqrt()).clamp(-LIMIT, LIMIT);
                    }
                }
            }
        }
        w
    }

    #[test]
    fn the_fit_gives_the_weights_of_the_fit_one_weight_at_a_time() {
        let cb = crate::casebase::CaseBase::embedded().expect("embedded");
        let cases = 3_000;
        let board_of: Vec<u32> = (0..cases).map(|i| cb.board_of(i) as u32).collect();
        let (keys, samples) = samples(cb.boards(), &board_of, &cb.metas()[..cases], 1);
        assert!(samples.len() > 2_500);
        let got = sgd(&samples, keys.len());
        let want = reference_sgd(&samples, keys.len());
        assert!(got.iter().any(|w| w.abs() > 0.1));
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(&got) == bits(&want), "the weights differ");
    }

    #[test]
    fn a_fitted_policy_prefers_what_was_played() {
        // One position, played 200 times, always 1. e4: the policy learns it.
        let pos = Chess::default();
        let mut input = Vec::new();
        inputs(&pos, LastMove::default(), &mut input);
        let moves: Vec<u32> = pos.legal_moves().iter().map(move_key).collect();
        let e4 = pos
            .legal_moves()
            .iter()
            .position(|m| m.to() == Square::E4)
            .expect("e4");
        let mut keys = moves.clone();
        keys.sort_unstable();
        let samples: Vec<Sample> = (0..200)
            .map(|_| Sample {
                inputs: input.clone(),
                moves: moves
                    .iter()
                    .map(|k| keys.binary_search(k).expect("key") as u32)
                    .collect(),
                played: e4 as u16,
            })
            .collect();
        let w = sgd(&samples, keys.len());
        let policy = quantise(keys, &w);
        let table = PolicyTable::new(&policy.keys, &policy.scales, &policy.rows);
        let scores: Vec<f32> = moves.iter().map(|&k| table.score(k, &input)).collect();
        let best = (0..scores.len())
            .max_by(|a, b| scores[*a].total_cmp(&scores[*b]))
            .expect("moves");
        assert_eq!(best, e4);
        // An unknown move scores 0.
        assert_eq!(table.score(u32::MAX, &input), 0.0);
    }
}
