//! The statistics of engine matches: Elo ratings fitted to finished games, head-to-head records,
//! crosstables, likelihood of superiority, and Spearman's rank correlation with its p-value.
//!
//! Everything here is plain arithmetic over [`Played`] records; the module owns no I/O and no
//! dependency on the engine. Records that cannot be a game (a player index out of range, a player
//! meeting itself, a score that is not a finite number in `[0, 1]`) are skipped by every function
//! rather than rejected, so a damaged log still yields statistics for the rest.
//!
//! The distributions come from `statrs` and the linear algebra from `nalgebra`; what is written
//! here is the Elo maximum-likelihood fit itself, which no crate provides.

use std::collections::BTreeMap;
use std::f64::consts::LN_10;

use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use serde::Serialize;

use crate::stats::{mean, normal_cdf};

/// Natural-log slope of the logistic Elo curve: `E(d) = 1 / (1 + exp(-K·d))`.
const K: f64 = LN_10 / 400.0;
/// Normal quantile of a two-sided 95 % interval.
const Z95: f64 = 1.96;
/// Newton stops once no rating moves by more than this (Elo).
const STEP_TOLERANCE: f64 = 1e-9;
/// Newton gives up after this many steps (it normally needs fewer than 20).
const MAX_ITERATIONS: usize = 1000;
/// Score fractions are clamped to `[SCORE_CLAMP, 1 - SCORE_CLAMP]` before turning them into Elo.
const SCORE_CLAMP: f64 = 0.001;
/// One finished game between players `white` and `black` (indices), `score` = White's points
/// (1.0, 0.5, 0.0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    /// Index of the player with the white pieces.
    pub white: usize,
    /// Index of the player with the black pieces.
    pub black: usize,
    /// White's points: 1.0 win, 0.5 draw, 0.0 loss.
    pub score: f64,
}

/// What the Elo scale is anchored to.
#[derive(Clone, Debug, PartialEq)]
pub enum Anchor {
    /// The ratings of the players who played sum to zero.
    Mean,
    /// Player `index` is rated exactly `elo`, with standard error 0.
    Player {
        /// The anchored player.
        index: usize,
        /// The rating given to that player.
        elo: f64,
    },
}

/// Per-player Elo estimates with 95 % intervals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EloFit {
    /// Fitted rating of each player, on the scale fixed by the [`Anchor`].
    pub elo: Vec<f64>,
    /// Standard error of each rating relative to the anchor (infinite when unidentified).
    pub se: Vec<f64>,
    /// Lower end of the 95 % interval, `elo - 1.96·se`.
    pub ci_low: Vec<f64>,
    /// Upper end of the 95 % interval, `elo + 1.96·se`.
    pub ci_high: Vec<f64>,
    /// Newton steps taken.
    pub iterations: usize,
}

/// White, Black and White's score of `g`, or `None` when `g` is not a usable game among
/// `players` players.
fn usable(players: usize, g: &Played) -> Option<(usize, usize, f64)> {
    let ok = g.white < players
        && g.black < players
        && g.white != g.black
        && g.score.is_finite()
        && (0.0..=1.0).contains(&g.score);
    ok.then_some((g.white, g.black, g.score))
}

/// `ln(1 + e^x)` without overflow for large `x` or lost precision for very negative `x`.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// Games between two active players, pooled: colour does not enter the model, and pooling makes
/// each Newton step cost O(pairs) instead of O(games).
#[derive(Clone, Copy, Debug)]
struct PairTally {
    i: usize,
    j: usize,
    /// Points scored by `i` against `j`.
    points: f64,
    games: f64,
}

/// Penalised log-likelihood: the games plus one virtual draw of every player against an opponent
/// rated at the mean. Being a function of rating differences only, it leaves the gauge to the
/// anchor.
fn objective(pairs: &[PairTally], r: &[f64]) -> f64 {
    let mut f = 0.0;
    for p in pairs {
        let d = r[p.i] - r[p.j];
        // ln E(d) = -softplus(-K d), ln(1 - E(d)) = -softplus(K d).
        f -= p.points * softplus(-K * d) + (p.games - p.points) * softplus(K * d);
    }
    let m = mean(r);
    for &ri in r {
        let d = ri - m;
        f -= 0.5 * (softplus(-K * d) + softplus(K * d));
    }
    f
}

/// Gradient and Hessian of [`objective`] with respect to all active ratings.
fn gradient_hessian(pairs: &[PairTally], r: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = r.len();
    let mut g = vec![0.0; n];
    let mut h = vec![vec![0.0; n]; n];
    for p in pairs {
        let e = expected_score(r[p.i] - r[p.j]);
        let gi = K * (p.points - p.games * e);
        g[p.i] += gi;
        g[p.j] -= gi;
        let w = K * K * p.games * e * (1.0 - e);
        h[p.i][p.i] -= w;
        h[p.j][p.j] -= w;
        h[p.i][p.j] += w;
        h[p.j][p.i] += w;
    }
    // The prior term is Σ f(r_i − m) with m the mean rating, so every derivative passes through
    // the centring map δ_ij − 1/n; that is what keeps the objective shift-invariant.
    let nf = n as f64;
    let m = mean(r);
    let (u, w): (Vec<f64>, Vec<f64>) = r
        .iter()
        .map(|&ri| {
            let e = expected_score(ri - m);
            (K * (0.5 - e), K * K * e * (1.0 - e))
        })
        .unzip();
    let u_mean = u.iter().sum::<f64>() / nf;
    let w_sum: f64 = w.iter().sum();
    for j in 0..n {
        g[j] += u[j] - u_mean;
        for k in 0..n {
            let diag = if j == k { w[j] } else { 0.0 };
            h[j][k] -= diag - (w[j] + w[k]) / nf + w_sum / (nf * nf);
        }
    }
    (g, h)
}

/// The Cholesky factorisation of a symmetric matrix (rows), or `None` if it is not
/// (numerically) positive definite.
fn cholesky(a: &[Vec<f64>]) -> Option<Cholesky<f64, Dyn>> {
    let n = a.len();
    let m = DMatrix::from_fn(n, n, |i, j| a[i][j]);
    if !m.iter().all(|v| v.is_finite()) {
        return None;
    }
    m.cholesky()
}

/// Solves `A x = b` given the Cholesky factorisation of `A`.
fn cholesky_solve(l: &Cholesky<f64, Dyn>, b: &[f64]) -> Vec<f64> {
    l.solve(&DVector::from_column_slice(b)).as_slice().to_vec()
}

/// Maximum-likelihood Elo ratings (Bradley–Terry / logistic model on the 400-point scale, draws
/// counted as half a win and half a loss) over all games.
///
/// * **Prior.** A player who won (or lost) every game has an infinite maximum-likelihood rating.
///   To keep every fit finite, each player who played gets one virtual draw against a virtual
///   opponent rated at the mean of the players who played: a weak, Gaussian-like pull worth one
///   game. The virtual opponent sits at the mean rather than at the anchor so that the prior,
///   like the likelihood, depends on rating differences only; the anchor then merely sets the
///   zero of the scale, and the two anchors give the same differences. With a few hundred games
///   the prior moves ratings by well under one Elo. It also ties together groups of players
///   that never met, whose relative ratings (and wide intervals) come from the prior alone.
/// * **Fit.** Newton's method on the penalised log-likelihood with one rating held fixed (the
///   likelihood cannot see a common shift), with step halving whenever a step would lower the
///   objective; it stops when no rating moves by more than 1e-9 Elo, or after 1000 steps.
/// * **Errors.** Standard errors come from the inverse of the observed information (negative
///   Hessian of the penalised log-likelihood) in that reduced parametrisation. The variance of
///   a rating relative to the anchor is then a contrast: `r_i − mean(r)` for [`Anchor::Mean`],
///   `r_i − r_anchor` for [`Anchor::Player`] (so the anchored player gets se 0). The interval is
///   `elo ± 1.96·se`.
/// * **Players without games** are rated at the anchor (0 for [`Anchor::Mean`], `elo` for
///   [`Anchor::Player`]) with infinite se and interval. If the anchored player has no games or
///   its index is out of range, nothing ties the others to it: their mean is placed at `elo` and
///   their se is infinite, while the anchored player (if in range) keeps `elo` with se 0.
/// * Games with an index outside `0..players`, a player against itself, or a score that is not a
///   finite number in `[0, 1]` are ignored.
pub fn fit_elo(players: usize, games: &[Played], anchor: &Anchor) -> EloFit {
    let pooled = pool(players, games);
    let (zero, anchored) = match *anchor {
        Anchor::Mean => (0.0, None),
        Anchor::Player { index, elo } => (elo, Some(index)),
    };
    // Active-slot of the anchored player, when it played.
    let anchored_slot = anchored.and_then(|p| pooled.slot.get(p).copied().flatten());
    let mut fit = EloFit {
        elo: vec![zero; players],
        se: vec![f64::INFINITY; players],
        ci_low: vec![f64::NEG_INFINITY; players],
        ci_high: vec![f64::INFINITY; players],
        iterations: 0,
    };
    if pooled.active.len() >= 2 {
        rate_active(&mut fit, &pooled, (anchored, anchored_slot), zero);
    }
    if let Some(p) = anchored.filter(|&p| p < players) {
        fit.elo[p] = zero;
        fit.se[p] = 0.0;
    }
    for p in 0..players {
        fit.ci_low[p] = fit.elo[p] - Z95 * fit.se[p];
        fit.ci_high[p] = fit.elo[p] + Z95 * fit.se[p];
    }
    fit
}

/// The usable games pooled by unordered pair, over the players who played one.
struct Pooled {
    /// Each pair's tally, in active-slot terms.
    pairs: Vec<PairTally>,
    /// Each player's active slot; `None` for a player without a usable game.
    slot: Vec<Option<usize>>,
    /// The players with a slot, by slot.
    active: Vec<usize>,
}

/// Pools `games` by unordered pair of `players`, in player-index terms first, then gives each
/// player who played a slot.
fn pool(players: usize, games: &[Played]) -> Pooled {
    let mut pooled: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
    for (w, b, s) in games.iter().filter_map(|g| usable(players, g)) {
        let (key, pts) = if w < b {
            ((w, b), s)
        } else {
            ((b, w), 1.0 - s)
        };
        let e = pooled.entry(key).or_insert((0.0, 0.0));
        e.0 += pts;
        e.1 += 1.0;
    }
    let mut slot: Vec<Option<usize>> = vec![None; players];
    for &(a, b) in pooled.keys() {
        slot[a] = Some(0);
        slot[b] = Some(0);
    }
    let mut active = Vec::new();
    for (p, s) in slot.iter_mut().enumerate() {
        if s.is_some() {
            *s = Some(active.len());
            active.push(p);
        }
    }
    let pairs: Vec<PairTally> = pooled
        .iter()
        .filter_map(|(&(a, b), &(points, games))| {
            Some(PairTally {
                i: slot[a]?,
                j: slot[b]?,
                points,
                games,
            })
        })
        .collect();
    Pooled {
        pairs,
        slot,
        active,
    }
}

/// Fits the ratings of the active players (at least two) into `fit`, each relative to the
/// anchor (`anchored`: the anchored player and its slot, if it played; `zero`: its rating),
/// with its standard error from the information matrix.
fn rate_active(
    fit: &mut EloFit,
    pooled: &Pooled,
    anchored: (Option<usize>, Option<usize>),
    zero: f64,
) {
    let n = pooled.active.len();
    // Hold one rating at 0 to remove the shift the objective cannot see.
    let reference = anchored.1.unwrap_or(0);
    let (r, iterations) = newton(&pooled.pairs, n, reference);
    fit.iterations = iterations;
    let free: Vec<usize> = (0..n).filter(|&k| k != reference).collect();
    let (_, h) = gradient_hessian(&pooled.pairs, &r);
    let info: Vec<Vec<f64>> = free
        .iter()
        .map(|&a| free.iter().map(|&b| -h[a][b]).collect())
        .collect();
    let factor = cholesky(&info);
    let m = mean(&r);
    for (k, &p) in pooled.active.iter().enumerate() {
        let (value, contrast) = relative_to_anchor(k, &r, m, anchored, zero);
        let se = match (&factor, contrast) {
            (Some(l), Some(c)) => {
                let c_free: Vec<f64> = free.iter().map(|&q| c[q]).collect();
                let x = cholesky_solve(l, &c_free);
                let var: f64 = c_free.iter().zip(&x).map(|(a, b)| a * b).sum();
                var.max(0.0).sqrt()
            }
            _ => f64::INFINITY,
        };
        fit.elo[p] = value;
        fit.se[p] = se;
    }
}

/// Slot `k`'s rating relative to the anchor (`r`: the fitted ratings, `m` their mean), and the
/// contrast of the ratings whose variance is its variance; `None` when the anchored player did
/// not play, so that no contrast ties this rating to it.
fn relative_to_anchor(
    k: usize,
    r: &[f64],
    m: f64,
    (anchored, anchored_slot): (Option<usize>, Option<usize>),
    zero: f64,
) -> (f64, Option<Vec<f64>>) {
    let n = r.len();
    match (anchored, anchored_slot) {
        (None, _) => (
            r[k] - m,
            Some(
                (0..n)
                    .map(|q| f64::from(u8::from(q == k)) - 1.0 / n as f64)
                    .collect(),
            ),
        ),
        (Some(_), Some(a)) => (
            r[k] - r[a] + zero,
            Some(
                (0..n)
                    .map(|q| f64::from(u8::from(q == k)) - f64::from(u8::from(q == a)))
                    .collect(),
            ),
        ),
        (Some(_), None) => (r[k] - m + zero, None),
    }
}

/// Maximises [`objective`] over `n` active ratings with `r[reference]` held at 0; returns the
/// ratings and the number of Newton steps.
fn newton(pairs: &[PairTally], n: usize, reference: usize) -> (Vec<f64>, usize) {
    let free: Vec<usize> = (0..n).filter(|&k| k != reference).collect();
    let mut r = vec![0.0; n];
    let mut f = objective(pairs, &r);
    for iteration in 1..=MAX_ITERATIONS {
        let (g, h) = gradient_hessian(pairs, &r);
        let info: Vec<Vec<f64>> = free
            .iter()
            .map(|&a| free.iter().map(|&b| -h[a][b]).collect())
            .collect();
        let g_free: Vec<f64> = free.iter().map(|&a| g[a]).collect();
        let Some(l) = cholesky(&info) else {
            return (r, iteration - 1);
        };
        let step = cholesky_solve(&l, &g_free);
        let largest = step.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
        if !largest.is_finite() {
            return (r, iteration - 1);
        }
        // The objective is concave, so the Newton direction ascends; halving only guards against
        // overshooting from far away. The tolerance lets rounding noise through near the optimum.
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            let mut trial = r.clone();
            for (&a, s) in free.iter().zip(&step) {
                trial[a] += t * s;
            }
            let f_trial = objective(pairs, &trial);
            if f_trial >= f - 1e-12 * (1.0 + f.abs()) {
                accepted = Some((trial, f_trial));
                break;
            }
            t *= 0.5;
        }
        let Some((trial, f_trial)) = accepted else {
            return (r, iteration - 1);
        };
        r = trial;
        f = f_trial;
        if largest < STEP_TOLERANCE {
            return (r, iteration);
        }
    }
    (r, MAX_ITERATIONS)
}

/// Elo difference for a score fraction `s`: `-400·log10(1/s − 1)`.
///
/// `s` is clamped to `[0.001, 0.999]` first, so a perfect or nil score gives ±1199.8 Elo rather
/// than an infinity; a NaN stays NaN.
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score of a player rated `diff` Elo above the opponent: `1/(1+10^(−diff/400))`.
pub fn expected_score(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Likelihood of superiority from wins and losses (draws ignored): `Φ((W−L)/√(W+L))`; 0.5 when
/// `W + L = 0`.
pub fn los(wins: u64, losses: u64) -> f64 {
    let decisive = wins as f64 + losses as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    normal_cdf((wins as f64 - losses as f64) / decisive.sqrt())
}

/// Head-to-head record of player a against player b.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Pairwise {
    /// The lower-numbered player.
    pub a: usize,
    /// The higher-numbered player.
    pub b: usize,
    /// Games between them, either colour.
    pub games: u64,
    /// Games `a` won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games `a` lost.
    pub losses: u64,
    /// Fraction of the points that went to `a`.
    pub score: f64,
    /// [`elo_from_score`] of `score`: `a`'s performance above `b` (clamped at ±1199.8).
    pub elo_diff: f64,
    /// [`los`] of `a` over `b`.
    pub los: f64,
}

/// Every pair that met at least once, `a < b`, sorted by `(a, b)`.
///
/// A game counts as a win for the side scoring more than half a point, so fractional scores
/// other than 0.5 still land in win/draw/loss, while `score` adds up the points themselves.
/// Unusable games (see [`fit_elo`]) are ignored.
pub fn pairwise(players: usize, games: &[Played]) -> Vec<Pairwise> {
    let mut table: BTreeMap<(usize, usize), (Pairwise, f64)> = BTreeMap::new();
    for (w, b, s) in games.iter().filter_map(|g| usable(players, g)) {
        // Seen from the lower-numbered player.
        let (a, b, pts) = if w < b { (w, b, s) } else { (b, w, 1.0 - s) };
        let (rec, points) = table.entry((a, b)).or_insert_with(|| {
            (
                Pairwise {
                    a,
                    b,
                    ..Pairwise::default()
                },
                0.0,
            )
        });
        rec.games += 1;
        *points += pts;
        if pts > 0.5 {
            rec.wins += 1;
        } else if pts < 0.5 {
            rec.losses += 1;
        } else {
            rec.draws += 1;
        }
    }
    table
        .into_values()
        .map(|(mut rec, points)| {
            // games > 0 for every entry in the table.
            rec.score = points / rec.games as f64;
            rec.elo_diff = elo_from_score(rec.score);
            rec.los = los(rec.wins, rec.losses);
            rec
        })
        .collect()
}

/// Crosstable: `points[i][j]` = points player `i` scored against `j`; `games[i][j]` = games
/// between them (symmetric).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Crosstable {
    /// Points `i` scored against `j`, either colour.
    pub points: Vec<Vec<f64>>,
    /// Games between `i` and `j`, either colour.
    pub games: Vec<Vec<u64>>,
    /// Points each player scored in all.
    pub total_points: Vec<f64>,
    /// Games each player played in all.
    pub total_games: Vec<u64>,
}

/// Wins, draws and losses of player `i` in `games`.
pub fn record_of(i: usize, games: &[Played]) -> (u64, u64, u64) {
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for g in games.iter().filter(|g| g.white == i || g.black == i) {
        let s = if g.white == i { g.score } else { 1.0 - g.score };
        if s > 0.75 {
            wins += 1;
        } else if s < 0.25 {
            losses += 1;
        } else {
            draws += 1;
        }
    }
    (wins, draws, losses)
}

/// The crosstable of `players` players; unusable games (see [`fit_elo`]) are ignored.
pub fn crosstable(players: usize, games: &[Played]) -> Crosstable {
    let mut t = Crosstable {
        points: vec![vec![0.0; players]; players],
        games: vec![vec![0; players]; players],
        total_points: vec![0.0; players],
        total_games: vec![0; players],
    };
    for (w, b, s) in games.iter().filter_map(|g| usable(players, g)) {
        t.points[w][b] += s;
        t.points[b][w] += 1.0 - s;
        t.games[w][b] += 1;
        t.games[b][w] += 1;
        t.total_points[w] += s;
        t.total_points[b] += 1.0 - s;
        t.total_games[w] += 1;
        t.total_games[b] += 1;
    }
    t
}

#[cfg(test)]
// Tests walk several per-player vectors in step; an index reads clearer than zipped iterators.
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn game(white: usize, black: usize, score: f64) -> Played {
        Played {
            white,
            black,
            score,
        }
    }

    /// `wins`, `draws`, `losses` of player 0 against player 1, colours alternating.
    fn match_of(wins: usize, draws: usize, losses: usize) -> Vec<Played> {
        let scores = std::iter::repeat_n(1.0, wins)
            .chain(std::iter::repeat_n(0.5, draws))
            .chain(std::iter::repeat_n(0.0, losses));
        scores
            .enumerate()
            .map(|(k, s)| {
                if k % 2 == 0 {
                    game(0, 1, s)
                } else {
                    game(1, 0, 1.0 - s)
                }
            })
            .collect()
    }

    #[test]
    fn seventy_five_percent_over_400_games_fits_elo_from_score_and_delta_method_interval() {
        let target = elo_from_score(0.75);
        assert!((target - 190.848).abs() < 0.01, "{target}");
        for games in [match_of(300, 0, 100), match_of(200, 200, 0)] {
            let fit = fit_elo(2, &games, &Anchor::Player { index: 1, elo: 0.0 });
            let diff = fit.elo[0] - fit.elo[1];
            assert!((diff - target).abs() < 0.5, "diff {diff}");
            // Prior pulls towards 0, so the fit sits just below the raw value.
            assert!(diff < target);
            // Delta method: se(p) = √(p(1−p)/N), dElo/dp = 400/(ln10·p(1−p)).
            let p: f64 = 0.75;
            let se_p = (p * (1.0 - p) / 400.0).sqrt();
            let half = 1.96 * se_p * 400.0 / (LN_10 * p * (1.0 - p));
            let fitted_half = fit.ci_high[0] - fit.elo[0];
            assert!(
                (fitted_half / half - 1.0).abs() < 0.10,
                "{fitted_half} vs {half}"
            );
            assert_eq!(fit.se[1], 0.0);
        }
    }

    #[test]
    fn mean_anchor_splits_a_two_player_difference_symmetrically() {
        let fit = fit_elo(2, &match_of(300, 0, 100), &Anchor::Mean);
        assert!((fit.elo[0] + fit.elo[1]).abs() < 1e-9);
        assert!((fit.se[0] - fit.se[1]).abs() < 1e-9);
        let anchored = fit_elo(
            2,
            &match_of(300, 0, 100),
            &Anchor::Player { index: 1, elo: 0.0 },
        );
        // Relative to the mean, each player carries half of the difference's uncertainty.
        assert!((fit.se[0] - anchored.se[0] / 2.0).abs() < 1e-6);
    }

    fn round_robin() -> (Vec<f64>, Vec<Played>) {
        let truth = vec![-200.0, -50.0, 100.0, 150.0];
        let mut rng = StdRng::seed_from_u64(0x05ee_de10);
        let mut games = Vec::new();
        for i in 0..truth.len() {
            for j in i + 1..truth.len() {
                for k in 0..2000 {
                    let (w, b) = if k % 2 == 0 { (i, j) } else { (j, i) };
                    let e = expected_score(truth[w] - truth[b]);
                    // Draw share chosen so that the expected score stays exactly e.
                    let draw = e.min(1.0 - e);
                    let win = e - draw / 2.0;
                    let u: f64 = rng.random();
                    let s = if u < win {
                        1.0
                    } else if u < win + draw {
                        0.5
                    } else {
                        0.0
                    };
                    games.push(game(w, b, s));
                }
            }
        }
        (truth, games)
    }

    #[test]
    fn round_robin_recovers_known_ratings_within_three_se_in_order() {
        let (truth, games) = round_robin();
        let fit = fit_elo(4, &games, &Anchor::Mean);
        assert!(fit.iterations > 0 && fit.iterations < MAX_ITERATIONS);
        for p in 0..4 {
            let err = (fit.elo[p] - truth[p]).abs();
            assert!(fit.se[p] > 0.0 && fit.se[p] < 20.0, "se {}", fit.se[p]);
            assert!(
                err < 3.0 * fit.se[p],
                "player {p}: {} vs {}",
                fit.elo[p],
                truth[p]
            );
        }
        for p in 1..4 {
            assert!(fit.elo[p] > fit.elo[p - 1], "{:?}", fit.elo);
        }
    }

    #[test]
    fn standard_errors_add_in_quadrature_along_a_chain_of_players() {
        // 0–1 and 1–2 each play 1000 even games; 0 and 2 never meet. Relative to player 0, the
        // rating of 1 has variance 1/(N·K²·¼) and that of 2 twice as much.
        let mut games = Vec::new();
        for k in 0..1000 {
            let s = f64::from(u8::from(k % 2 == 0));
            games.push(game(0, 1, s));
            games.push(game(1, 2, s));
        }
        let fit = fit_elo(3, &games, &Anchor::Player { index: 0, elo: 0.0 });
        let link = 1.0 / (1000.0 * K * K * 0.25_f64).sqrt();
        assert!(
            (fit.se[1] / link - 1.0).abs() < 0.01,
            "{} vs {link}",
            fit.se[1]
        );
        assert!(
            (fit.se[2] / (link * 2f64.sqrt()) - 1.0).abs() < 0.01,
            "{} vs {}",
            fit.se[2],
            link * 2f64.sqrt()
        );
        assert!(fit.elo.iter().all(|e| e.abs() < 1e-6), "{:?}", fit.elo);
    }

    #[test]
    fn analytic_gradient_and_hessian_match_finite_differences() {
        let pairs = [
            PairTally {
                i: 0,
                j: 1,
                points: 7.0,
                games: 10.0,
            },
            PairTally {
                i: 1,
                j: 2,
                points: 2.5,
                games: 4.0,
            },
            PairTally {
                i: 0,
                j: 3,
                points: 1.0,
                games: 6.0,
            },
            PairTally {
                i: 2,
                j: 3,
                points: 3.0,
                games: 3.0,
            },
        ];
        let r = [40.0, -120.0, 75.0, 10.0];
        let (g, h) = gradient_hessian(&pairs, &r);
        let step = 1e-2;
        let shifted = |a: usize, da: f64, b: usize, db: f64| {
            let mut q = r;
            q[a] += da;
            q[b] += db;
            objective(&pairs, &q)
        };
        for a in 0..4 {
            let num_g = (shifted(a, step, a, 0.0) - shifted(a, -step, a, 0.0)) / (2.0 * step);
            assert!((num_g - g[a]).abs() < 1e-7, "g[{a}] {} vs {num_g}", g[a]);
            for b in 0..4 {
                let num_h = (shifted(a, step, b, step)
                    - shifted(a, step, b, -step)
                    - shifted(a, -step, b, step)
                    + shifted(a, -step, b, -step))
                    / (4.0 * step * step);
                assert!(
                    (num_h - h[a][b]).abs() < 1e-6,
                    "h[{a}][{b}] {} vs {num_h}",
                    h[a][b]
                );
            }
        }
    }

    #[test]
    fn mean_anchor_sums_to_zero() {
        let (_, games) = round_robin();
        let fit = fit_elo(4, &games, &Anchor::Mean);
        assert!(fit.elo.iter().sum::<f64>().abs() < 1e-6, "{:?}", fit.elo);
    }

    #[test]
    fn player_anchor_fixes_that_player_exactly_and_keeps_differences() {
        let (_, games) = round_robin();
        let mean_fit = fit_elo(4, &games, &Anchor::Mean);
        let fit = fit_elo(
            4,
            &games,
            &Anchor::Player {
                index: 2,
                elo: 1500.0,
            },
        );
        assert_eq!(fit.elo[2], 1500.0);
        assert_eq!(fit.se[2], 0.0);
        assert_eq!((fit.ci_low[2], fit.ci_high[2]), (1500.0, 1500.0));
        for p in 0..4 {
            let shifted = mean_fit.elo[p] - mean_fit.elo[2] + 1500.0;
            assert!((fit.elo[p] - shifted).abs() < 1e-6);
            if p != 2 {
                assert!(fit.se[p] > 0.0 && fit.se[p].is_finite());
            }
        }
    }

    #[test]
    fn player_who_won_every_game_gets_a_finite_rating_above_the_others() {
        let mut games = Vec::new();
        for k in 0..10 {
            games.push(game(0, 1, 1.0));
            games.push(game(2, 0, 0.0));
            games.push(game(1, 2, if k % 3 == 0 { 0.0 } else { 0.5 }));
        }
        for anchor in [Anchor::Mean, Anchor::Player { index: 1, elo: 0.0 }] {
            let fit = fit_elo(3, &games, &anchor);
            assert!(
                fit.elo.iter().chain(&fit.se).all(|v| v.is_finite()),
                "{fit:?}"
            );
            assert!(fit.elo[0] > fit.elo[1] + 100.0 && fit.elo[0] > fit.elo[2] + 100.0);
        }
    }

    #[test]
    fn two_players_with_a_perfect_score_stay_finite() {
        let fit = fit_elo(2, &match_of(10, 0, 0), &Anchor::Mean);
        assert!(
            fit.elo.iter().chain(&fit.se).all(|v| v.is_finite()),
            "{fit:?}"
        );
        assert!(fit.elo[0] > 200.0);
    }

    #[test]
    fn player_without_games_sits_at_the_anchor_with_infinite_interval() {
        let mut games = match_of(6, 2, 2);
        games.push(game(0, 7, 1.0)); // out of range: ignored
        games.push(game(1, 1, 1.0)); // self-game: ignored
        games.push(game(0, 1, f64::NAN)); // no score: ignored
        let fit = fit_elo(3, &games, &Anchor::Mean);
        assert_eq!(fit.elo[2], 0.0);
        assert!(fit.se[2].is_infinite());
        assert_eq!(fit.ci_low[2], f64::NEG_INFINITY);
        assert_eq!(fit.ci_high[2], f64::INFINITY);
        assert!(fit.se[0].is_finite() && fit.se[1].is_finite());
        let plain = fit_elo(2, &match_of(6, 2, 2), &Anchor::Mean);
        assert!((fit.elo[0] - plain.elo[0]).abs() < 1e-9);

        let fit = fit_elo(
            3,
            &games,
            &Anchor::Player {
                index: 0,
                elo: 2000.0,
            },
        );
        assert_eq!(fit.elo[2], 2000.0);
        assert!(fit.se[2].is_infinite());
    }

    #[test]
    fn anchor_player_without_games_leaves_the_others_unidentified() {
        let games = match_of(6, 2, 2);
        let fit = fit_elo(
            3,
            &games,
            &Anchor::Player {
                index: 2,
                elo: 1000.0,
            },
        );
        assert_eq!((fit.elo[2], fit.se[2]), (1000.0, 0.0));
        assert!((fit.elo[0] + fit.elo[1] - 2000.0).abs() < 1e-9);
        assert!(fit.se[0].is_infinite() && fit.se[1].is_infinite());
        // Out of range: no panic, same placement.
        let fit = fit_elo(
            2,
            &games,
            &Anchor::Player {
                index: 9,
                elo: 1000.0,
            },
        );
        assert!((fit.elo[0] + fit.elo[1] - 2000.0).abs() < 1e-9);
    }

    #[test]
    fn no_players_or_no_games_gives_an_empty_or_anchored_fit() {
        let fit = fit_elo(0, &[game(0, 1, 1.0)], &Anchor::Mean);
        assert!(fit.elo.is_empty() && fit.iterations == 0);
        let fit = fit_elo(2, &[], &Anchor::Mean);
        assert_eq!(fit.elo, vec![0.0, 0.0]);
        assert!(fit.se.iter().all(|s| s.is_infinite()));
    }

    fn mixed_games() -> Vec<Played> {
        vec![
            game(0, 1, 1.0),
            game(1, 0, 0.5),
            game(0, 1, 0.0),
            game(2, 0, 0.0),
            game(0, 2, 0.5),
            game(1, 2, 1.0),
            game(2, 1, 0.0),
            game(2, 1, 0.5),
            game(3, 9, 1.0), // out of range: ignored
        ]
    }

    #[test]
    fn crosstable_counts_each_game_once_and_is_consistent() {
        let games = mixed_games();
        let valid = games.len() - 1;
        let t = crosstable(3, &games);
        assert!((t.total_points.iter().sum::<f64>() - valid as f64).abs() < 1e-12);
        assert_eq!(t.total_games.iter().sum::<u64>(), 2 * valid as u64);
        for i in 0..3 {
            assert_eq!(t.games[i][i], 0);
            assert_eq!(t.total_games[i], t.games[i].iter().sum::<u64>());
            assert!((t.total_points[i] - t.points[i].iter().sum::<f64>()).abs() < 1e-12);
            for j in 0..3 {
                assert_eq!(t.games[i][j], t.games[j][i]);
                assert!((t.points[i][j] + t.points[j][i] - t.games[i][j] as f64).abs() < 1e-12);
            }
        }
        assert_eq!(t.games[0][1], 3);
        assert_eq!(t.points[0][1], 1.5);
        assert_eq!(t.points[1][2], 2.5);
    }

    #[test]
    fn pairwise_records_match_the_games() {
        let p = pairwise(3, &mixed_games());
        let keys: Vec<(usize, usize)> = p.iter().map(|r| (r.a, r.b)).collect();
        assert_eq!(keys, vec![(0, 1), (0, 2), (1, 2)]);
        // 0 vs 1: won as White, drew as Black, lost as White.
        assert_eq!(
            (p[0].games, p[0].wins, p[0].draws, p[0].losses),
            (3, 1, 1, 1)
        );
        assert_eq!(p[0].score, 0.5);
        assert_eq!(p[0].elo_diff, 0.0);
        assert_eq!(p[0].los, 0.5);
        // 0 vs 2: won as Black, drew as White.
        assert_eq!(
            (p[1].games, p[1].wins, p[1].draws, p[1].losses),
            (2, 1, 1, 0)
        );
        assert_eq!(p[1].score, 0.75);
        assert!((p[1].elo_diff - elo_from_score(0.75)).abs() < 1e-12);
        // 1 vs 2: won as White, won as Black, drew.
        assert_eq!(
            (p[2].games, p[2].wins, p[2].draws, p[2].losses),
            (3, 2, 1, 0)
        );
        assert!((p[2].score - 2.5 / 3.0).abs() < 1e-12);
        assert_eq!(p[2].los, los(2, 0));
        for r in &p {
            assert_eq!(r.games, r.wins + r.draws + r.losses);
        }
    }

    #[test]
    fn los_is_half_without_decisive_games_or_when_even() {
        assert_eq!(los(0, 0), 0.5);
        assert!((los(5, 5) - 0.5).abs() < 1e-12);
        assert!(los(10, 0) > 0.99);
        assert!(los(0, 10) < 0.01);
    }

    #[test]
    fn elo_from_score_is_clamped_and_inverts_expected_score() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!((elo_from_score(0.75) - 190.848_501_887).abs() < 1e-6);
        assert!(elo_from_score(1.0).is_finite() && elo_from_score(0.0).is_finite());
        assert_eq!(elo_from_score(1.0), elo_from_score(0.999));
        assert!((elo_from_score(0.0) + elo_from_score(1.0)).abs() < 1e-9);
        assert!((elo_from_score(1.0) - 1199.826).abs() < 1e-3);
        for d in [-800.0, -190.0, 0.0, 37.5, 400.0] {
            assert!((elo_from_score(expected_score(d)) - d).abs() < 1e-9);
        }
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-15);
    }

    proptest! {
        #[test]
        fn fit_is_finite_and_centred_for_any_games(
            raw in prop::collection::vec((0usize..6, 0usize..6, 0u8..3), 0..60)
        ) {
            let games: Vec<Played> = raw
                .iter()
                .map(|&(w, b, s)| game(w, b, f64::from(s) / 2.0))
                .collect();
            let fit = fit_elo(5, &games, &Anchor::Mean);
            prop_assert!(fit.elo.iter().all(|e| e.is_finite()));
            prop_assert!(fit.se.iter().all(|s| !s.is_nan() && *s > 0.0));
            prop_assert!(fit.elo.iter().sum::<f64>().abs() < 1e-6);
            prop_assert!(fit.iterations < MAX_ITERATIONS);
            let t = crosstable(5, &games);
            let valid = games.iter().filter(|g| usable(5, g).is_some()).count();
            prop_assert!((t.total_points.iter().sum::<f64>() - valid as f64).abs() < 1e-9);
        }
    }
}
