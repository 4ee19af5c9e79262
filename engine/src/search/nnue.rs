//! An efficiently updatable neural network (NNUE) evaluation: 768 inputs per point of view (a
//! piece of the side seen or of the other side, its role, its square seen from that side), one
//! hidden layer of [`HIDDEN`] neurons per point of view sharing its weights (the *feature
//! transformer*), squared clipped ReLU, and one output from the side to move's neurons followed
//! by the other side's.
//!
//! The hidden layer's sums (the *accumulator*) change by a few columns when a move is made, so
//! the search keeps one per ply and updates it instead of summing every piece again
//! ([`Accumulator::update_into`]). Weights are integers: the feature transformer's scaled by [`QA`],
//! the output's by [`QB`]; the evaluation is `SCALE · y` centipawns for the network's real
//! output `y`.
//!
//! The network is trained by `precedent fit net` (the lab) on positions of the Lichess games
//! with their Stockfish evaluations; the file format is [`Network::from_bytes`]'s.

use std::sync::OnceLock;

use shakmaty::{Board, Color, Move, Role, Square};

/// Neurons of the hidden layer, per point of view.
pub const HIDDEN: usize = 256;
/// Inputs per point of view: 2 colours × 6 roles × 64 squares.
pub const INPUTS: usize = 768;
/// The feature transformer's quantisation: 1.0 is `QA`.
pub const QA: i32 = 255;
/// The output layer's quantisation: 1.0 is `QB`.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"PRCNNUE1";

/// The embedded network.
static EMBEDDED: &[u8] = include_bytes!("../../../nets/default.nnue");

/// One point of view's hidden sums, aligned for vector loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Half(pub [i16; HIDDEN]);

/// The hidden sums of both points of view, White's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator(pub [Half; 2]);

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator([Half([0; HIDDEN]); 2])
    }
}

/// A network's weights.
pub struct Network {
    /// Feature transformer: one column of [`HIDDEN`] weights per input.
    ft: Box<[Half; INPUTS]>,
    /// Its biases.
    ft_bias: Half,
    /// Output weights: the side to move's neurons, then the other side's.
    out: [Half; 2],
    /// Output bias, scaled by `QA · QB`.
    out_bias: i32,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({HIDDEN} hidden)")
    }
}

/// Why a network file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetworkError {
    /// It does not start with the format's magic bytes.
    #[error("not a Precedent network (bad magic bytes)")]
    Magic,
    /// Its hidden layer has another size than this build's.
    #[error("a network of {0} hidden neurons; this build evaluates {HIDDEN}")]
    Hidden(u32),
    /// It is shorter or longer than its header says.
    #[error("{got} bytes where a network of {HIDDEN} hidden neurons has {want}")]
    Length {
        /// Bytes read.
        got: usize,
        /// Bytes expected.
        want: usize,
    },
}

/// The input of a piece of `color` and `role` on `square`, seen from `view`.
#[inline]
pub fn feature(view: Color, color: Color, role: Role, square: Square) -> usize {
    let (side, sq) = if view == Color::White {
        (usize::from(color != Color::White), usize::from(square))
    } else {
        (usize::from(color != Color::Black), usize::from(square) ^ 56)
    };
    side * 384 + (role as usize - 1) * 64 + sq
}

/// The file's length for this build's [`HIDDEN`].
pub const fn file_len() -> usize {
    8 + 4 + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) + 4
}

impl Network {
    /// Reads a network: the magic bytes, the hidden size (u32), then little-endian i16s: the
    /// feature transformer column by column, its biases, the output weights (side to move,
    /// then the other side), and the output bias as an i32.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(NetworkError::Magic);
        }
        let hidden = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if hidden as usize != HIDDEN {
            return Err(NetworkError::Hidden(hidden));
        }
        if bytes.len() != file_len() {
            return Err(NetworkError::Length {
                got: bytes.len(),
                want: file_len(),
            });
        }
        let mut at = 12;
        let mut next = || {
            let v = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            at += 2;
            v
        };
        let mut ft: Box<[Half; INPUTS]> = vec![Half([0; HIDDEN]); INPUTS]
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("INPUTS columns"));
        for column in ft.iter_mut() {
            column.0.iter_mut().for_each(|w| *w = next());
        }
        let mut ft_bias = Half([0; HIDDEN]);
        ft_bias.0.iter_mut().for_each(|w| *w = next());
        let mut out = [Half([0; HIDDEN]); 2];
        for half in out.iter_mut() {
            half.0.iter_mut().for_each(|w| *w = next());
        }
        let out_bias = i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        Ok(Network {
            ft,
            ft_bias,
            out,
            out_bias,
        })
    }

    /// The network as [`Network::from_bytes`] reads it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(file_len());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        for column in self.ft.iter() {
            column
                .0
                .iter()
                .for_each(|w| b.extend_from_slice(&w.to_le_bytes()));
        }
        for half in std::iter::once(&self.ft_bias).chain(&self.out) {
            half.0
                .iter()
                .for_each(|w| b.extend_from_slice(&w.to_le_bytes()));
        }
        b.extend_from_slice(&self.out_bias.to_le_bytes());
        b
    }

    /// A network from real-valued weights (the trainer's): `ft[input][neuron]`, `ft_bias`,
    /// `out` (2·HIDDEN: the side to move's then the other's) and `out_bias`, quantised.
    pub fn quantise(ft: &[f32], ft_bias: &[f32], out: &[f32], out_bias: f32) -> Network {
        let q = |x: f32, s: i32| (x * s as f32).round().clamp(-32767.0, 32767.0) as i16;
        let mut net = Network {
            ft: vec![Half([0; HIDDEN]); INPUTS]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("INPUTS columns")),
            ft_bias: Half([0; HIDDEN]),
            out: [Half([0; HIDDEN]); 2],
            out_bias: (out_bias * (QA * QB) as f32).round() as i32,
        };
        for (i, column) in net.ft.iter_mut().enumerate() {
            for (j, w) in column.0.iter_mut().enumerate() {
                *w = q(ft[i * HIDDEN + j], QA);
            }
        }
        for (j, w) in net.ft_bias.0.iter_mut().enumerate() {
            *w = q(ft_bias[j], QA);
        }
        for (h, half) in net.out.iter_mut().enumerate() {
            for (j, w) in half.0.iter_mut().enumerate() {
                *w = q(out[h * HIDDEN + j], QB);
            }
        }
        net
    }

    /// The real-valued weights this network quantised: the inverse of [`Network::quantise`]
    /// (`(ft, ft_bias, out, out_bias)` in its order), to go on training a network.
    pub fn dequantise(&self) -> (Vec<f32>, Vec<f32>, Vec<f32>, f32) {
        let real = |w: i16, s: i32| f32::from(w) / s as f32;
        let ft = self
            .ft
            .iter()
            .flat_map(|column| column.0.iter().map(|&w| real(w, QA)))
            .collect();
        let ft_bias = self.ft_bias.0.iter().map(|&w| real(w, QA)).collect();
        let out = self
            .out
            .iter()
            .flat_map(|half| half.0.iter().map(|&w| real(w, QB)))
            .collect();
        (ft, ft_bias, out, self.out_bias as f32 / (QA * QB) as f32)
    }

    /// The accumulator of `board`, summed from scratch.
    pub fn refresh(&self, board: &Board) -> Accumulator {
        let mut acc = Accumulator([self.ft_bias; 2]);
        for (sq, piece) in board.iter() {
            for (v, view) in [Color::White, Color::Black].into_iter().enumerate() {
                let f = feature(view, piece.color, piece.role, sq);
                add(&mut acc.0[v], &self.ft[f]);
            }
        }
        acc
    }

    /// The evaluation of a position given by its inputs seen from the side to move (`us`) and
    /// from the other side (`them`), centipawns from the side to move (what the trainer checks
    /// the quantised network with).
    pub fn evaluate_inputs(&self, us: &[usize], them: &[usize]) -> i32 {
        let mut acc = Accumulator([self.ft_bias; 2]);
        for (v, inputs) in [us, them].into_iter().enumerate() {
            for &f in inputs {
                add(&mut acc.0[v], &self.ft[f]);
            }
        }
        self.evaluate(&acc, Color::White)
    }

    /// The evaluation of the position of `acc`, centipawns from `turn`'s side.
    pub fn evaluate(&self, acc: &Accumulator, turn: Color) -> i32 {
        let (us, them) = if turn == Color::White {
            (&acc.0[0], &acc.0[1])
        } else {
            (&acc.0[1], &acc.0[0])
        };
        let sum = kernels().output(us, &self.out[0]) + kernels().output(them, &self.out[1]);
        (sum / QA + self.out_bias) * SCALE / (QA * QB)
    }
}

/// `acc += column`.
#[inline]
fn add(acc: &mut Half, column: &Half) {
    (kernels().update)(acc, &[column], &[]);
}

/// The columns a move adds to and removes from one point of view.
struct Delta {
    add: [usize; 2],
    n_add: usize,
    sub: [usize; 2],
    n_sub: usize,
}

impl Delta {
    fn new() -> Delta {
        Delta {
            add: [0; 2],
            n_add: 0,
            sub: [0; 2],
            n_sub: 0,
        }
    }
    fn plus(&mut self, f: usize) {
        self.add[self.n_add] = f;
        self.n_add += 1;
    }
    fn minus(&mut self, f: usize) {
        self.sub[self.n_sub] = f;
        self.n_sub += 1;
    }
}

impl Accumulator {
    /// Writes into `next` the accumulator after `m`, played by `turn`, from `self`, the
    /// accumulator before it (in one pass over both, where a copy and then the changes would
    /// pass over the new one twice or more).
    pub fn update_into(&self, net: &Network, turn: Color, m: &Move, next: &mut Accumulator) {
        let them = !turn;
        for (v, view) in [Color::White, Color::Black].into_iter().enumerate() {
            let f = |color, role, sq| feature(view, color, role, sq);
            let mut d = Delta::new();
            match *m {
                Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion,
                } => {
                    d.minus(f(turn, role, from));
                    d.plus(f(turn, promotion.unwrap_or(role), to));
                    if let Some(c) = capture {
                        d.minus(f(them, c, to));
                    }
                }
                Move::EnPassant { from, to } => {
                    d.minus(f(turn, Role::Pawn, from));
                    d.plus(f(turn, Role::Pawn, to));
                    d.minus(f(
                        them,
                        Role::Pawn,
                        Square::from_coords(to.file(), from.rank()),
                    ));
                }
                Move::Castle { king, rook } => {
                    let side = shakmaty::CastlingSide::from_queen_side(rook < king);
                    let rank = king.rank();
                    d.minus(f(turn, Role::King, king));
                    d.minus(f(turn, Role::Rook, rook));
                    d.plus(f(
                        turn,
                        Role::King,
                        Square::from_coords(side.king_to_file(), rank),
                    ));
                    d.plus(f(
                        turn,
                        Role::Rook,
                        Square::from_coords(side.rook_to_file(), rank),
                    ));
                }
                // Not a move of chess (crazyhouse drops): no position of the engine has one.
                Move::Put { .. } => {}
            }
            let adds: [&Half; 2] = [&net.ft[d.add[0]], &net.ft[d.add[1]]];
            let subs: [&Half; 2] = [&net.ft[d.sub[0]], &net.ft[d.sub[1]]];
            (kernels().apply)(
                &self.0[v],
                &mut next.0[v],
                &adds[..d.n_add],
                &subs[..d.n_sub],
            );
        }
    }
}

/// The vector kernels this CPU runs best, chosen once.
#[derive(Clone, Copy)]
struct Kernels {
    update: fn(&mut Half, &[&Half], &[&Half]),
    apply: fn(&Half, &mut Half, &[&Half], &[&Half]),
    output_fn: fn(&Half, &Half) -> i32,
}

impl Kernels {
    #[inline]
    fn output(&self, acc: &Half, w: &Half) -> i32 {
        (self.output_fn)(acc, w)
    }
}

#[inline(always)]
fn update_generic(acc: &mut Half, adds: &[&Half], subs: &[&Half]) {
    for a in adds {
        for (x, w) in acc.0.iter_mut().zip(a.0.iter()) {
            *x = x.wrapping_add(*w);
        }
    }
    for s in subs {
        for (x, w) in acc.0.iter_mut().zip(s.0.iter()) {
            *x = x.wrapping_sub(*w);
        }
    }
}

/// `to = from + Σ adds − Σ subs`, in one pass for the shapes a move makes (one column in and
/// one or two out; two in and two out when castling).
#[inline(always)]
fn apply_generic(from: &Half, to: &mut Half, adds: &[&Half], subs: &[&Half]) {
    let (x, y) = (&from.0, &mut to.0);
    match (adds, subs) {
        ([a], [s]) => {
            for i in 0..HIDDEN {
                y[i] = x[i].wrapping_add(a.0[i]).wrapping_sub(s.0[i]);
            }
        }
        ([a], [s, t]) => {
            for i in 0..HIDDEN {
                y[i] = x[i]
                    .wrapping_add(a.0[i])
                    .wrapping_sub(s.0[i])
                    .wrapping_sub(t.0[i]);
            }
        }
        ([a, b], [s, t]) => {
            for i in 0..HIDDEN {
                y[i] = x[i]
                    .wrapping_add(a.0[i])
                    .wrapping_add(b.0[i])
                    .wrapping_sub(s.0[i])
                    .wrapping_sub(t.0[i]);
            }
        }
        _ => {
            *to = *from;
            update_generic(to, adds, subs);
        }
    }
}

/// Σ clamp(x, 0, QA)² · w, computed as (clamp(x)·w) · clamp(x) so that the first product fits
/// 16 bits (the trainer keeps |w| ≤ 127 / QB).
#[inline(always)]
fn output_generic(acc: &Half, w: &Half) -> i32 {
    let mut sum = 0i32;
    for (x, w) in acc.0.iter().zip(w.0.iter()) {
        let c = i32::from(*x).clamp(0, QA);
        sum += i32::from((c * i32::from(*w)) as i16) * c;
    }
    sum
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2(acc: &mut Half, adds: &[&Half], subs: &[&Half]) {
    update_generic(acc, adds, subs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn apply_avx2(from: &Half, to: &mut Half, adds: &[&Half], subs: &[&Half]) {
    apply_generic(from, to, adds, subs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn output_avx2(acc: &Half, w: &Half) -> i32 {
    output_generic(acc, w)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn update_avx512(acc: &mut Half, adds: &[&Half], subs: &[&Half]) {
    update_generic(acc, adds, subs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn apply_avx512(from: &Half, to: &mut Half, adds: &[&Half], subs: &[&Half]) {
    apply_generic(from, to, adds, subs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn output_avx512(acc: &Half, w: &Half) -> i32 {
    output_generic(acc, w)
}

fn kernels() -> &'static Kernels {
    static KERNELS: OnceLock<Kernels> = OnceLock::new();
    KERNELS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
                // SAFETY: the features the functions enable were just detected.
                return Kernels {
                    update: |a, p, m| unsafe { update_avx512(a, p, m) },
                    apply: |f, t, p, m| unsafe { apply_avx512(f, t, p, m) },
                    output_fn: |a, w| unsafe { output_avx512(a, w) },
                };
            }
            if is_x86_feature_detected!("avx2") {
                // SAFETY: as above.
                return Kernels {
                    update: |a, p, m| unsafe { update_avx2(a, p, m) },
                    apply: |f, t, p, m| unsafe { apply_avx2(f, t, p, m) },
                    output_fn: |a, w| unsafe { output_avx2(a, w) },
                };
            }
        }
        Kernels {
            update: update_generic,
            apply: apply_generic,
            output_fn: output_generic,
        }
    })
}

/// The embedded network (`nets/default.nnue`), read once.
pub fn embedded() -> &'static Network {
    static NET: OnceLock<Network> = OnceLock::new();
    NET.get_or_init(|| {
        Network::from_bytes(EMBEDDED)
            .unwrap_or_else(|e| panic!("the embedded network nets/default.nnue: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::{Chess, Position};

    /// A network of small pseudo-random weights (a fixed linear congruential sequence).
    fn network() -> Network {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let ft: Vec<f32> = (0..INPUTS * HIDDEN).map(|_| next() * 0.2).collect();
        let bias: Vec<f32> = (0..HIDDEN).map(|_| next() * 0.2 + 0.2).collect();
        let out: Vec<f32> = (0..2 * HIDDEN).map(|_| next()).collect();
        Network::quantise(&ft, &bias, &out, 0.05)
    }

    #[test]
    fn incremental_updates_equal_a_fresh_sum() {
        let net = network();
        // Quiet moves, captures, castling both ways, en passant and promotions.
        for (fen, line) in [
            (
                "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
                &["e1g1", "e8c8", "c4e6", "d7e6", "c3d5", "f6d5"][..],
            ),
            (
                "4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1",
                &["e5d6", "g2g1n", "b7b8q", "e8d7", "e1d2", "g1f3"][..],
            ),
        ] {
            let mut pos: Chess = parse_fen(fen).expect("fen");
            let mut acc = net.refresh(pos.board());
            for u in line {
                let m = pos
                    .legal_moves()
                    .into_iter()
                    .find(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string() == *u)
                    .unwrap_or_else(|| panic!("{u} is not legal"));
                let before = acc;
                before.update_into(&net, pos.turn(), &m, &mut acc);
                pos.play_unchecked(m);
                assert_eq!(acc, net.refresh(pos.board()), "after {u}");
            }
        }
    }

    #[test]
    fn the_one_pass_update_equals_a_copy_and_the_changes() {
        let net = network();
        let from = net.refresh(Chess::default().board()).0[0];
        let col = |i: usize| &net.ft[i];
        for (adds, subs) in [
            (vec![col(3)], vec![col(70)]),
            (vec![col(5)], vec![col(100), col(200)]),
            (vec![col(7), col(300)], vec![col(11), col(500)]),
            (vec![col(1), col(2), col(4)], vec![]),
        ] {
            let mut expected = from;
            update_generic(&mut expected, &adds, &subs);
            let mut got = Half([0; HIDDEN]);
            apply_generic(&from, &mut got, &adds, &subs);
            assert_eq!(got, expected, "{} in, {} out", adds.len(), subs.len());
            let mut got = Half([0; HIDDEN]);
            (kernels().apply)(&from, &mut got, &adds, &subs);
            assert_eq!(got, expected, "this CPU's kernel");
        }
    }

    #[test]
    fn a_position_and_its_mirror_evaluate_alike() {
        let net = network();
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 0 50",
        ] {
            let pos: Chess = parse_fen(fen).expect("fen");
            let mirrored = pos.board().clone().into_mirrored();
            let a = net.evaluate(&net.refresh(pos.board()), pos.turn());
            let b = net.evaluate(&net.refresh(&mirrored), !pos.turn());
            assert_eq!(a, b, "{fen}");
        }
    }

    #[test]
    fn a_network_survives_its_file_and_bad_files_are_refused() {
        let net = network();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_len());
        let back = Network::from_bytes(&bytes).expect("read back");
        let board = Board::new();
        assert_eq!(
            net.evaluate(&net.refresh(&board), Color::White),
            back.evaluate(&back.refresh(&board), Color::White)
        );
        assert_eq!(
            Network::from_bytes(b"nonsense").err(),
            Some(NetworkError::Magic)
        );
        let mut short = bytes.clone();
        short.pop();
        assert!(matches!(
            Network::from_bytes(&short),
            Err(NetworkError::Length { .. })
        ));
        let mut other = bytes;
        other[8..12].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(
            Network::from_bytes(&other).err(),
            Some(NetworkError::Hidden(7))
        );
    }

    #[test]
    fn the_embedded_network_knows_material_and_the_start() {
        let net = embedded();
        let eval = |fen: &str| {
            let pos: Chess = parse_fen(fen).expect("fen");
            net.evaluate(&net.refresh(pos.board()), pos.turn())
        };
        let start = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(start.abs() < 80, "the start position: {start}");
        // White without the queen: White to move is lost, Black to move is winning.
        let down = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1");
        let up = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1");
        assert!(down < -500 && up > 500, "a queen down {down}, up {up}");
    }
}
