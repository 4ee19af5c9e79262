//! Which positions of held-out games the lab's commands read: the flags that select them, the
//! sample drawn from the games outside a case base, and the split of games into a fitting half
//! and a test half that every fit and every held-out measurement share.

use std::collections::HashSet;
use std::marker::PhantomData;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use precedent::casebase::CaseBase;
use precedent::pgn::{InputError, ParsedGame, Selection, SkipReason, for_each_game};
use precedent::player::Knowledge;
use precedent::position::Game;
use shakmaty::{Move, Position};

/// The flags that select positions from games: the mover's rating and the plies skipped at the
/// start of each game (by default as many as `S` says, which differs between commands).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct PositionFlags<S: SkipPlies> {
    /// The movers whose positions count, by rating.
    #[command(flatten)]
    pub movers: Movers,
    /// Skip the first N plies of every game.
    #[arg(long, default_value = S::DEFAULT)]
    pub skip_plies: u32,
    #[arg(skip)]
    default: PhantomData<S>,
}

/// A command's default for `--skip-plies`, as the text that clap shows and parses. (A const
/// generic with `default_value_t` would not do: clap keeps that default's text in a static,
/// which every instance of the struct shares.)
pub trait SkipPlies: Clone + Copy + std::fmt::Debug + Default + Send + Sync + 'static {
    /// The default, as text.
    const DEFAULT: &'static str;
}

/// No ply skipped unless asked (`eval`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FromTheFirstPly;

impl SkipPlies for FromTheFirstPly {
    const DEFAULT: &'static str = "0";
}

/// The first ten plies skipped unless asked (`fit moves`, `tune`): the opening is book
/// knowledge.
#[derive(Clone, Copy, Debug, Default)]
pub struct AfterTenPlies;

impl SkipPlies for AfterTenPlies {
    const DEFAULT: &'static str = "10";
}

impl<S: SkipPlies> PositionFlags<S> {
    /// The flags for these movers, skipping `skip_plies` plies.
    pub fn new(movers: Movers, skip_plies: u32) -> Self {
        PositionFlags {
            movers,
            skip_plies,
            default: PhantomData,
        }
    }

    /// The selection of the games' positions these flags make (any player, either side).
    pub fn selection(&self) -> Selection {
        Selection {
            min_elo: self.movers.min_elo,
            max_elo: self.movers.max_elo,
            skip_plies: self.skip_plies,
            ..Selection::default()
        }
    }
}

/// The movers whose positions count, by rating (a command that reads saved evidence has no
/// plies to skip and takes these alone).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct Movers {
    /// Lowest rating of the mover.
    #[arg(long, value_name = "N")]
    pub min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    pub max_elo: Option<u16>,
}

impl Movers {
    /// Whether a mover of this rating is in range (an unrated mover only when neither end is
    /// given).
    pub fn contain(&self, elo: Option<u16>) -> bool {
        self.min_elo.is_none_or(|lo| elo.is_some_and(|e| e >= lo))
            && self.max_elo.is_none_or(|hi| elo.is_some_and(|e| e <= hi))
    }
}

/// A band of the movers' ratings as a command line gives it (`1400-1799`, `2200-`, `-999`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    /// The band as given.
    pub label: String,
    /// Its lowest rating; `None` = no lower bound.
    pub min_elo: Option<u16>,
    /// Its highest rating; `None` = no upper bound.
    pub max_elo: Option<u16>,
}

/// Parses `1000-1399,1400-1799,2200-` (an open end is allowed on either side).
pub fn parse_bands(s: &str) -> Result<Vec<Band>, String> {
    s.split(',')
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            let b = b.trim();
            let (lo, hi) = b
                .split_once('-')
                .ok_or_else(|| format!("band {b:?}: expected LOW-HIGH, LOW- or -HIGH"))?;
            let num = |t: &str| -> Result<Option<u16>, String> {
                if t.trim().is_empty() {
                    Ok(None)
                } else {
                    t.trim()
                        .parse()
                        .map(Some)
                        .map_err(|_| format!("band {b:?}: {t:?} is not a rating"))
                }
            };
            let (min_elo, max_elo) = (num(lo)?, num(hi)?);
            if let (Some(l), Some(h)) = (min_elo, max_elo)
                && l > h
            {
                return Err(format!("band {b:?}: low end above high end"));
            }
            if min_elo.is_none() && max_elo.is_none() {
                return Err(format!("band {b:?}: give at least one end"));
            }
            Ok(Band {
                label: b.to_string(),
                min_elo,
                max_elo,
            })
        })
        .collect()
}

/// Why the held-out split could not be sampled.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    /// The PGN input could not be opened or read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// One half has no position (the file named).
    #[error("{0}: not enough positions pass the filters outside the case base")]
    TooFew(String),
}

/// A position to evaluate on: what the human played there.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position before the human's move, and the move before it.
    pub game: Game,
    /// The move the human played: the one the engine should match.
    pub human: Move,
    /// Ply in its game (0 = first move).
    pub ply: u32,
    /// The mover's rating.
    pub elo: Option<u16>,
}

/// Counts from sampling.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SampleStats {
    /// Games read from the PGN input.
    pub games_read: u64,
    /// Games skipped because the case base contains them (same game key).
    pub games_in_casebase: u64,
    /// Games that contributed eligible positions.
    pub games_used: u64,
    /// Positions passing the filters, before sampling.
    pub eligible_positions: u64,
}

/// Samples `n` positions uniformly (reservoir sampling, seeded) from the games of `pgn` that
/// pass `selection`, skipping every game whose key is in `exclude` and every game `keep_game`
/// rejects (by its key, as `tune` splits games into tuning and test halves, or its moves).
pub fn sample_positions(
    pgn: &str,
    selection: &Selection,
    n: usize,
    seed: u64,
    exclude: &HashSet<u64>,
    keep_game: &dyn Fn(&ParsedGame) -> bool,
) -> Result<(Vec<Sample>, SampleStats), InputError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut stats = SampleStats::default();
    let mut reservoir: Vec<Sample> = Vec::with_capacity(n.min(4096));
    for_each_game::<InputError>(pgn, selection, |outcome, visitor, _| {
        // A game the reader cannot parse is not counted as read.
        if outcome == Err(SkipReason::MalformedPgn) {
            return Ok(true);
        }
        stats.games_read += 1;
        // Broken games have no key; filtered-out games do, and count for the guard.
        if outcome.is_err_and(|r| r.is_error()) {
            return Ok(true);
        }
        let game = visitor.game();
        if exclude.contains(&game.key) {
            stats.games_in_casebase += 1;
            return Ok(true);
        }
        if outcome.is_err() || !keep_game(game) {
            return Ok(true);
        }
        stats.games_used += 1;
        for m in &game.selected {
            stats.eligible_positions += 1;
            let sample = || Sample {
                game: Game {
                    position: m.pos.clone(),
                    last_move: m.last,
                    history: Vec::new(),
                },
                human: m.mv,
                ply: m.ply,
                elo: game.header.elo(m.pos.turn()),
            };
            if reservoir.len() < n {
                reservoir.push(sample());
            } else {
                let j = rng.random_range(0..stats.eligible_positions);
                if (j as usize) < n {
                    reservoir[j as usize] = sample();
                }
            }
        }
        Ok(true)
    })?;
    Ok((reservoir, stats))
}

/// Game keys of a case base, for the contamination guard.
pub fn casebase_keys(cb: &CaseBase) -> HashSet<u64> {
    cb.game_records().iter().map(|r| r.key).collect()
}

/// Game keys of every case base the engine knows (a player's and the generic one under it),
/// less the generic one's games whose moves it is read without (a player's own games in it:
/// their moves are not precedents there, so those games may test the player's file).
pub fn knowledge_keys(k: Knowledge<'_>) -> HashSet<u64> {
    let mut keys: HashSet<u64> = k.casebases().into_iter().flat_map(casebase_keys).collect();
    if let Some(without) = k.without() {
        let player_keys = k.player().map(|p| casebase_keys(p.cases()));
        keys.retain(|key| {
            !without.has_game_key(*key) || player_keys.as_ref().is_some_and(|p| p.contains(key))
        });
    }
    keys
}

/// Whether the game with this key is in the test half of the fits' split (bit 32 of the key; the
/// fit never sees these games, so `eval --fit-test-half` measures a fitted model on them).
pub fn in_test_half(key: u64) -> bool {
    (key >> 32) & 1 == 1
}

/// The held-out split, in one place: positions sampled (seeded) from the games of `pgn` that
/// are not in the case base (`exclude`), `n_fit` from the fitting half of the games and
/// `n_test` from the test half ([`in_test_half`]). `fit moves` and `tune` both split this way, so
/// that `eval --fit-test-half` measures either's result on games it never saw.
pub fn sample_halves(
    pgn: &str,
    selection: &Selection,
    (n_fit, n_test): (usize, usize),
    seed: u64,
    exclude: &HashSet<u64>,
) -> Result<(Vec<Sample>, Vec<Sample>), SampleError> {
    let fitting = |g: &precedent::pgn::ParsedGame| !in_test_half(g.key);
    let (fit_half, _) = sample_positions(pgn, selection, n_fit, seed, exclude, &fitting)?;
    let (test_half, _) = sample_positions(pgn, selection, n_test, seed ^ 0x7e57, exclude, &|g| {
        in_test_half(g.key)
    })?;
    if fit_half.is_empty() || test_half.is_empty() {
        return Err(SampleError::TooFew(pgn.to_string()));
    }
    Ok((fit_half, test_half))
}

/// The CC0 sample of Lichess rapid games (`tests/fixtures`) that the lab's tests read.
#[cfg(test)]
pub(crate) fn sample_fixture() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/lichess-rapid-sample.pgn.zst"
    )
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::sample_fixture as fixture;

    #[test]
    fn the_held_out_split_keeps_the_halves_apart_and_repeats() {
        let cb = CaseBase::embedded().expect("embedded");
        let keys = casebase_keys(&cb);
        let sel = Selection::default();
        let (a, b) = sample_halves(&fixture(), &sel, (50, 30), 1, &keys).expect("halves");
        assert_eq!((a.len(), b.len()), (50, 30));
        let fens = |s: &[Sample]| -> HashSet<String> {
            s.iter()
                .map(|x| precedent::position::fen_of(&x.game.position))
                .collect()
        };
        let (again, _) = sample_halves(&fixture(), &sel, (50, 30), 1, &keys).expect("again");
        assert_eq!(fens(&a), fens(&again), "the same seed, the same sample");
        let none = Selection {
            min_elo: Some(4000),
            ..Selection::default()
        };
        assert!(sample_halves(&fixture(), &none, (5, 5), 1, &keys).is_err());
    }

    #[test]
    fn parses_bands_with_open_ends() {
        let b = parse_bands("1000-1399, 1400-1799,2200-,-999").expect("bands");
        assert_eq!(b.len(), 4);
        assert_eq!((b[0].min_elo, b[0].max_elo), (Some(1000), Some(1399)));
        assert_eq!((b[2].min_elo, b[2].max_elo), (Some(2200), None));
        assert_eq!((b[3].min_elo, b[3].max_elo), (None, Some(999)));
        for bad in ["1800", "1800-1400", "-", "a-b"] {
            assert!(parse_bands(bad).is_err(), "{bad}");
        }
    }
}
