//! What a case base knows besides its cases, derived from the cases alone: the pattern counts
//! (module `patterns`) and the exact-position index ([`super::index`]). Both are computed when
//! a case base is written, from the same records that are stored, so any set of cases (a whole
//! Lichess month, one player's games, one game) carries exactly the knowledge its games hold.

use rayon::prelude::*;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, FromSetup, Rank, Setup, Square};

use super::index::{IndexEntry, build_index, position_hash};
use super::patterns::{FAMILIES, MoveContext, PatternCount, PatternCounter, move_patterns};
use super::record::{CaseMeta, NO_EP};
use crate::case::CaseMove;
use crate::case::Planes;

/// The position of a case, rebuilt from its record: the board in the mover's point of view
/// (White to move), its castling rights and en-passant square. `None` if the record does not
/// describe a legal position.
pub(crate) fn case_position(board: &Planes, meta: &CaseMeta) -> Option<Chess> {
    let mut setup = Setup::empty();
    setup.board = board.to_board();
    setup.turn = Color::White;
    let mut rooks = Bitboard::EMPTY;
    // Bits: own short, own long, their short, their long. The rook is the outermost one on
    // that side of the king, as in Chess960's X-FEN.
    for (bit, color, short) in [
        (0, Color::White, true),
        (1, Color::White, false),
        (2, Color::Black, true),
        (3, Color::Black, false),
    ] {
        if meta.rights & (1 << bit) == 0 {
            continue;
        }
        let rank = if color == Color::White {
            Rank::First
        } else {
            Rank::Eighth
        };
        let Some(king) = (setup.board.kings() & setup.board.by_color(color)).first() else {
            continue;
        };
        let on_rank = setup.board.rooks() & setup.board.by_color(color) & Bitboard::from(rank);
        let rook = if short {
            on_rank.into_iter().rev().find(|r| r.file() > king.file())
        } else {
            on_rank.into_iter().find(|r| r.file() < king.file())
        };
        if let Some(r) = rook {
            rooks |= Bitboard::from(r);
        }
    }
    setup.castling_rights = rooks;
    if meta.ep != NO_EP && meta.ep < 8 {
        setup.ep_square = Some(Square::from_coords(
            shakmaty::File::new(u32::from(meta.ep)),
            Rank::Sixth,
        ));
    }
    match Chess::from_setup(setup, CastlingMode::Chess960) {
        Ok(pos) => Some(pos),
        Err(e) => match e.ignore_invalid_castling_rights() {
            Ok(pos) => Some(pos),
            Err(e) => e.ignore_invalid_ep_square().ok(),
        },
    }
}

/// Sampled positions of one task: legal-move counts, each move's pattern
/// indices, and which move was played.
type SampledMoves = (Vec<u32>, Vec<[u32; FAMILIES]>, Vec<u16>);

/// Cases handled per parallel task.
const TASK: usize = 4096;

/// Pattern counts and index entries of a run of cases.
///
/// `boards` are the distinct boards; case `i` has the record `metas[i]` and the board
/// `boards[board_of[i]]`.
pub fn derive(
    boards: &[Planes],
    board_of: &[u32],
    metas: &[CaseMeta],
    patterns: bool,
) -> (PatternCounter, Vec<(u64, CaseMove)>) {
    board_of
        .par_chunks(TASK)
        .zip(metas.par_chunks(TASK))
        .map(|(board_of, metas)| {
            let mut counter = PatternCounter::new();
            let mut pairs = Vec::with_capacity(board_of.len());
            for (&b, meta) in board_of.iter().zip(metas) {
                let board = &boards[b as usize];
                pairs.push((position_hash(board, meta.rights, meta.ep), meta.mv));
                if !patterns {
                    continue;
                }
                let Some(pos) = case_position(board, meta) else {
                    continue;
                };
                let ctx = MoveContext {
                    ply: u32::from(meta.ply),
                    last: meta.last,
                };
                counter.add(&pos, ctx, &|m| {
                    CaseMove::from_move(*m, Color::White) == Some(meta.mv)
                });
            }
            (counter, pairs)
        })
        .reduce(
            || (PatternCounter::new(), Vec::new()),
            |(mut a, mut pa), (b, pb)| {
                a.absorb(b);
                pa.extend(pb);
                (a, pa)
            },
        )
}

/// The finished knowledge of a whole case base, from the partial results of its runs.
pub fn finish(
    counter: PatternCounter,
    pairs: Vec<(u64, CaseMove)>,
) -> (Vec<PatternCount>, Vec<IndexEntry>) {
    (counter.finish(), build_index(pairs))
}

/// The strengths of the patterns of `table` (sorted), fitted on about `positions` of the cases
/// (every n-th; case `i` has the record `metas[i]` and the board `boards[board_of[i]]`). The
/// fit runs over the patterns the sampled positions hold: any other pattern is in no sampled
/// move, and the fit would leave it at 0 (no win, no contest, the prior alone), which it keeps.
/// So the fit's memory grows with its sample, not with the table, and the strengths are those
/// of the fit over the whole table to the bit.
pub fn fit_strengths(
    table: &[PatternCount],
    boards: &[Planes],
    board_of: &[u32],
    metas: &[CaseMeta],
    positions: usize,
) -> Vec<f32> {
    let keys = sampled_keys(boards, board_of, metas, positions);
    let (held, at) = held_by(table.iter().copied(), &keys);
    drop(keys);
    let mut strengths = vec![0.0f32; table.len()];
    for (i, s) in at
        .into_iter()
        .zip(fit_held(&held, boards, board_of, metas, positions))
    {
        strengths[i as usize] = s;
    }
    strengths
}

/// The entries of a sorted `table` whose keys are among the sorted `keys`, and their places in
/// the table.
pub(crate) fn held_by(
    table: impl Iterator<Item = PatternCount>,
    keys: &[u64],
) -> (Vec<PatternCount>, Vec<u64>) {
    let mut held = Vec::with_capacity(keys.len());
    let mut at = Vec::with_capacity(keys.len());
    let mut k = keys.iter().peekable();
    for (i, e) in table.enumerate() {
        while k.next_if(|&&key| key < e.key).is_some() {}
        if k.next_if_eq(&&e.key).is_some() {
            held.push(e);
            at.push(i as u64);
        }
    }
    (held, at)
}

/// The strengths of the patterns `held` (sorted, every pattern of the sampled positions),
/// fitted on about `positions` of the cases.
pub(crate) fn fit_held(
    held: &[PatternCount],
    boards: &[Planes],
    board_of: &[u32],
    metas: &[CaseMeta],
    positions: usize,
) -> Vec<f32> {
    let mut fitter = StrengthFit::new(held, metas.len(), positions);
    fitter.add(boards, board_of, metas);
    fitter.fit()
}

/// The patterns of every legal move of the cases the fit samples (about `positions`, every
/// n-th, as [`StrengthFit`] takes them), sorted, each once.
pub(crate) fn sampled_keys(
    boards: &[Planes],
    board_of: &[u32],
    metas: &[CaseMeta],
    positions: usize,
) -> Vec<u64> {
    let stride = metas.len().div_ceil(positions.max(1)).max(1);
    let sampled: Vec<usize> = (0..metas.len()).step_by(stride).collect();
    sampled
        .par_chunks(TASK)
        .map(|cases| {
            let mut keys = Vec::new();
            let mut buffer = Vec::new();
            for &i in cases {
                let meta = &metas[i];
                let Some(pos) = case_position(&boards[board_of[i] as usize], meta) else {
                    continue;
                };
                let ctx = MoveContext {
                    ply: u32::from(meta.ply),
                    last: meta.last,
                };
                buffer.clear();
                move_patterns(&pos, ctx, &mut buffer);
                keys.extend(buffer.iter().flat_map(|(_, k)| k.iter().copied()));
            }
            keys.sort_unstable();
            keys.dedup();
            keys
        })
        .reduce(Vec::new, |mut a, b| {
            // Two sorted runs one after the other: the stable sort merges them in one pass.
            a.extend(b);
            a.sort();
            a.dedup();
            a
        })
}

/// The Bradley–Terry fit of pattern strengths ("Elo ratings of move patterns", Coulom 2007):
/// every legal move of a case's position is a team of its patterns, one per family, whose
/// strength is the product of theirs; the move played won against the others. The strengths
/// are fitted by minorization–maximization (Hunter 2004), one family at a time, with one
/// virtual win and one virtual loss against a pattern of strength 1 as the prior. Unlike the
/// raw played/available ratio, a pattern gets credit for being chosen *over* strong rivals and
/// is not blamed for losing to them.
pub struct StrengthFit<'a> {
    table: &'a [PatternCount],
    /// Each pattern's index in `table`, by key (a sampled move's eight patterns are found with
    /// eight lookups rather than eight binary searches of millions of keys).
    at: rustc_hash::FxHashMap<u64, u32>,
    /// Every `stride`-th case is used (the fit needs a sample, not every case).
    stride: usize,
    seen: usize,
    /// Per position, the index of its first move in `moves`; one more at the end.
    starts: Vec<u32>,
    /// Each move's pattern indices into `table`, one per family.
    moves: Vec<[u32; FAMILIES]>,
    /// Per position, the index of the move played among its moves.
    played: Vec<u16>,
}

/// Sweeps over all families.
const SWEEPS: usize = 10;

/// Runs of positions whose sums the fit adds in a fixed order (so that it is reproducible).
const GROUPS: usize = 8;

impl<'a> StrengthFit<'a> {
    /// A fit over the patterns of `table` (sorted), for a case base of `cases` cases, on at
    /// most about `positions` of them (every n-th).
    pub fn new(table: &'a [PatternCount], cases: usize, positions: usize) -> StrengthFit<'a> {
        StrengthFit {
            table,
            at: table
                .iter()
                .enumerate()
                .map(|(i, e)| (e.key, i as u32))
                .collect(),
            stride: cases.div_ceil(positions.max(1)).max(1),
            seen: 0,
            starts: vec![0],
            moves: Vec::new(),
            played: Vec::new(),
        }
    }

    /// Adds a run of cases: case `i` has the record `metas[i]` and the board
    /// `boards[board_of[i]]`.
    pub fn add(&mut self, boards: &[Planes], board_of: &[u32], metas: &[CaseMeta]) {
        let first = self.seen;
        self.seen += board_of.len();
        let stride = self.stride;
        let at = &self.at;
        let parts: Vec<SampledMoves> = board_of
            .par_chunks(TASK)
            .zip(metas.par_chunks(TASK))
            .enumerate()
            .map(|(chunk, (board_of, metas))| {
                let mut lens = Vec::new();
                let mut moves = Vec::new();
                let mut played = Vec::new();
                let mut buffer = Vec::new();
                for (i, (&b, meta)) in board_of.iter().zip(metas).enumerate() {
                    if !(first + chunk * TASK + i).is_multiple_of(stride) {
                        continue;
                    }
                    let board = &boards[b as usize];
                    let Some(pos) = case_position(board, meta) else {
                        continue;
                    };
                    buffer.clear();
                    let ctx = MoveContext {
                        ply: u32::from(meta.ply),
                        last: meta.last,
                    };
                    move_patterns(&pos, ctx, &mut buffer);
                    let Some(p) = buffer
                        .iter()
                        .position(|(m, _)| CaseMove::from_move(*m, Color::White) == Some(meta.mv))
                    else {
                        continue;
                    };
                    let at: Option<Vec<[u32; FAMILIES]>> = buffer
                        .iter()
                        .map(|(_, keys)| {
                            let mut idx = [0u32; FAMILIES];
                            for (slot, key) in idx.iter_mut().zip(keys) {
                                *slot = *at.get(key)?;
                            }
                            Some(idx)
                        })
                        .collect();
                    let Some(at) = at else { continue };
                    lens.push(at.len() as u32);
                    moves.extend(at);
                    played.push(p as u16);
                }
                (lens, moves, played)
            })
            .collect();
        for (lens, moves, played) in parts {
            for n in lens {
                let last = *self.starts.last().unwrap_or(&0);
                self.starts.push(last + n);
            }
            self.moves.extend(moves);
            self.played.extend(played);
        }
    }

    /// Runs the fit; returns each pattern's natural-log strength (0 = average).
    pub fn fit(self) -> Vec<f32> {
        let n = self.table.len();
        let mut lg = vec![0.0f64; n];
        let positions = self.played.len();
        if positions == 0 {
            return vec![0.0; n];
        }
        // Wins: times each pattern was in the move played, in the sample.
        let mut wins = vec![0.0f64; n];
        for j in 0..positions {
            let m = self.starts[j] as usize + usize::from(self.played[j]);
            for &i in &self.moves[m] {
                wins[i as usize] += 1.0;
            }
        }
        // Each move's probability in its position under the strengths so far (the team's
        // strength over the sum of its rivals'): when a family is refitted, a move's strength
        // changes by its one pattern's factor, so the probabilities are updated by a product
        // and a division rather than eight lookups and an exponential a move.
        let starts = &self.starts;
        let mut prob: Vec<f64> = (0..positions)
            .flat_map(|j| {
                let n = (starts[j + 1] - starts[j]) as usize;
                std::iter::repeat_n(1.0 / n as f64, n)
            })
            .collect();
        let blocks: Vec<(usize, usize)> = (0..positions)
            .step_by(TASK)
            .map(|a| (a, (a + TASK).min(positions)))
            .collect();
        // The last refitted family, its first pattern, and each of its patterns' factor.
        let mut pending: Option<(usize, usize, Vec<f64>)> = None;
        for _ in 0..SWEEPS {
            for f in 0..FAMILIES {
                let lo = self.table.partition_point(|e| ((e.key >> 56) as usize) < f);
                let hi = self
                    .table
                    .partition_point(|e| ((e.key >> 56) as usize) <= f);
                if lo == hi {
                    continue;
                }
                // exp(−strength) of this family's patterns.
                let inverse: Vec<f64> = lg[lo..hi].iter().map(|x| (-x).exp()).collect();
                // The positions in GROUPS runs of blocks, each summed in order and the runs'
                // sums added in order: the same sums to the bit whatever the threads do.
                let mut groups = Vec::with_capacity(GROUPS);
                let mut rest = &mut prob[..];
                for run in blocks.chunks(blocks.len().div_ceil(GROUPS).max(1)) {
                    let (a, b) = (run[0].0, run[run.len() - 1].1);
                    let (head, tail) = rest.split_at_mut((starts[b] - starts[a]) as usize);
                    groups.push((head, run));
                    rest = tail;
                }
                let update = pending.take();
                let sums: Vec<Vec<f64>> = groups
                    .into_par_iter()
                    .map(|(slice, run)| {
                        let mut acc = vec![0.0f64; hi - lo];
                        let base = starts[run[0].0] as usize;
                        for j in run[0].0..run[run.len() - 1].1 {
                            let range = starts[j] as usize..starts[j + 1] as usize;
                            let probs = &mut slice[range.start - base..range.end - base];
                            let moves = &self.moves[range];
                            if let Some((g, glo, factor)) = &update {
                                let mut total = 0.0;
                                for (p, m) in probs.iter_mut().zip(moves) {
                                    *p *= factor[m[*g] as usize - glo];
                                    total += *p;
                                }
                                probs.iter_mut().for_each(|p| *p /= total);
                            }
                            for (p, m) in probs.iter().zip(moves) {
                                let i = m[f] as usize - lo;
                                acc[i] += p * inverse[i];
                            }
                        }
                        acc
                    })
                    .collect();
                let mut denom = vec![0.0f64; hi - lo];
                for sum in sums {
                    denom.iter_mut().zip(sum).for_each(|(x, y)| *x += y);
                }
                let mut factor = vec![1.0f64; hi - lo];
                for (k, d) in denom.into_iter().enumerate() {
                    let i = lo + k;
                    let gamma = lg[i].exp();
                    let new = ((wins[i] + 1.0) / (d + 2.0 / (gamma + 1.0))).ln();
                    factor[k] = (new - lg[i]).exp();
                    lg[i] = new;
                }
                pending = Some((f, lo, factor));
            }
        }
        lg.into_iter().map(|x| x as f32).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::casebase::position_key;
    use crate::position::parse_fen;
    use shakmaty::{EnPassantMode, Position};

    /// The fit as the Bradley–Terry MM reads: every move's strength summed from its patterns
    /// afresh at each family's update.
    fn direct_fit(fit: &StrengthFit<'_>) -> Vec<f64> {
        let n = fit.table.len();
        let mut lg = vec![0.0f64; n];
        let positions = fit.played.len();
        let mut wins = vec![0.0f64; n];
        for j in 0..positions {
            let m = fit.starts[j] as usize + usize::from(fit.played[j]);
            for &i in &fit.moves[m] {
                wins[i as usize] += 1.0;
            }
        }
        for _ in 0..SWEEPS {
            for f in 0..FAMILIES {
                let lo = fit.table.partition_point(|e| ((e.key >> 56) as usize) < f);
                let hi = fit.table.partition_point(|e| ((e.key >> 56) as usize) <= f);
                let mut denom = vec![0.0f64; hi - lo];
                for j in 0..positions {
                    let moves = &fit.moves[fit.starts[j] as usize..fit.starts[j + 1] as usize];
                    let weights: Vec<f64> = moves
                        .iter()
                        .map(|m| m.iter().map(|&i| lg[i as usize]).sum::<f64>().exp())
                        .collect();
                    let total: f64 = weights.iter().sum();
                    for (m, w) in moves.iter().zip(&weights) {
                        let i = m[f] as usize;
                        denom[i - lo] += w / lg[i].exp() / total;
                    }
                }
                for (k, d) in denom.into_iter().enumerate() {
                    let i = lo + k;
                    lg[i] = ((wins[i] + 1.0) / (d + 2.0 / (lg[i].exp() + 1.0))).ln();
                }
            }
        }
        lg
    }

    /// The first `cases` cases of `cb`: each one's board, and their pattern counts.
    fn first_cases(cb: &crate::casebase::CaseBase, cases: usize) -> (Vec<u32>, Vec<PatternCount>) {
        let board_of: Vec<u32> = (0..cases).map(|i| cb.board_of(i) as u32).collect();
        let (counter, pairs) = derive(cb.boards(), &board_of, &cb.metas()[..cases], true);
        (board_of, finish(counter, pairs).0)
    }

    #[test]
    fn the_strength_fit_finds_the_strengths_the_direct_fit_finds() {
        let cb = crate::casebase::CaseBase::embedded().expect("embedded");
        let cases = 6_000;
        let (board_of, table) = first_cases(&cb, cases);
        let metas = &cb.metas()[..cases];
        let sample = |positions| {
            let mut fit = StrengthFit::new(&table, cases, positions);
            fit.add(cb.boards(), &board_of, metas);
            fit
        };
        let fit = sample(cases);
        assert!(fit.played.len() > 5_000, "{}", fit.played.len());
        let want = direct_fit(&fit);
        let sampled = fit.played.len();
        let got = fit.fit();
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (f64::from(*g) - w).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-4, "largest difference {worst}");
        // Strengths that moved: the fit is not the prior's zeros.
        assert!(got.iter().filter(|g| g.abs() > 0.5).count() > 100);
        // A sample of a third: every third case.
        let third = sample(cases / 3);
        assert!((third.played.len() as i64 - sampled as i64 / 3).abs() < 50);
    }

    #[test]
    fn the_fit_over_the_samples_patterns_gives_the_whole_tables_strengths_to_the_bit() {
        let cb = crate::casebase::CaseBase::embedded().expect("embedded");
        let cases = 9_000;
        let (board_of, table) = first_cases(&cb, cases);
        let metas = &cb.metas()[..cases];
        // A sample of a quarter leaves many of the table's patterns out of the fit.
        let positions = cases / 4;
        let mut whole = StrengthFit::new(&table, cases, positions);
        whole.add(cb.boards(), &board_of, metas);
        let want = whole.fit();
        let got = fit_strengths(&table, cb.boards(), &board_of, metas, positions);
        assert_eq!(got.len(), table.len());
        let differ = got
            .iter()
            .zip(&want)
            .filter(|(g, w)| g.to_bits() != w.to_bits());
        assert_eq!(differ.count(), 0);
        let left_out = got.iter().filter(|g| **g == 0.0).count();
        assert!(left_out > table.len() / 10, "{left_out} of {}", table.len());
    }

    #[test]
    fn case_positions_rebuild_castling_and_en_passant() {
        for fen in [
            "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 8",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "4k3/8/8/8/8/8/8/R3K2R w K - 0 1",
        ] {
            let pos = parse_fen(fen).expect("fen");
            let (rights, ep) = position_key(&pos);
            let meta = CaseMeta {
                rights,
                ep,
                ..CaseMeta::default()
            };
            let board = Planes::from_board(pos.board());
            let rebuilt = case_position(&board, &meta).expect("legal");
            assert_eq!(
                rebuilt.castles().castling_rights(),
                pos.castles().castling_rights(),
                "{fen}"
            );
            assert_eq!(
                rebuilt.ep_square(EnPassantMode::Legal),
                pos.ep_square(EnPassantMode::Legal),
                "{fen}"
            );
            assert_eq!(
                rebuilt.legal_moves().len(),
                pos.legal_moves().len(),
                "{fen}"
            );
        }
    }
}
