//! A player's rating from its games against anchors of known rating: the maximum-likelihood
//! Elo against every anchor at once, with an interval that counts the games' draws (a sandwich
//! variance from each pairing's own spread of scores) and the anchors' own uncertainty.

use std::collections::BTreeMap;
use std::path::Path;

use precedent::pgn::{Selection, for_each_game};
use serde::Serialize;
use shakmaty::Color;

use super::ScaleError;
use crate::rating::expected_score;

/// One anchor: a name as the games spell it, and its rating on the scale wanted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Anchor {
    /// The player's name in the games (`White`/`Black` tags).
    pub name: String,
    /// Its rating.
    pub elo: f64,
    /// The standard error of that rating (0 for an anchor that defines the scale, such as
    /// Stockfish's `UCI_Elo`).
    pub se: f64,
}

impl std::str::FromStr for Anchor {
    type Err = ScaleError;

    /// `NAME=ELO` or `NAME=ELO±SE` (also `NAME=ELO:SE`).
    fn from_str(s: &str) -> Result<Anchor, ScaleError> {
        let bad = || ScaleError::BadAnchor(s.to_string());
        let (name, value) = s.split_once('=').ok_or_else(bad)?;
        let (elo, se) = match value.split_once(['±', ':']) {
            Some((e, se)) => (e, se),
            None => (value, "0"),
        };
        let elo: f64 = elo.trim().parse().map_err(|_| bad())?;
        let se: f64 = se.trim().parse().map_err(|_| bad())?;
        if name.trim().is_empty() || !elo.is_finite() || !se.is_finite() || se < 0.0 {
            return Err(bad());
        }
        Ok(Anchor {
            name: name.trim().to_string(),
            elo,
            se,
        })
    }
}

/// A player's games against one anchor.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Record {
    /// The anchor's name.
    pub anchor: String,
    /// The anchor's rating.
    pub anchor_elo: f64,
    /// Its standard error.
    pub anchor_se: f64,
    /// Games the player won, drew and lost against it.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
}

impl Record {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The player's score, 0..=1 (0.5 with no game).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// The variance of one game's points about the score (draws make it less than a
    /// coin's).
    fn variance(&self) -> f64 {
        let (n, s) = (f64::from(self.games()), self.score());
        if n == 0.0 {
            return 0.0;
        }
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
    }
}

/// A player's rating against its anchors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rated {
    /// The player.
    pub player: String,
    /// Its games against each anchor, in the order the anchors were given.
    pub records: Vec<Record>,
    /// Games in all.
    pub games: u32,
    /// The maximum-likelihood rating.
    pub elo: f64,
    /// Its standard error (games and anchors).
    pub se: f64,
    /// Lower end of the 95 % interval.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
}

/// Scores are kept this far from 0 and 1, so that a clean sweep gives a finite rating (as
/// [`crate::rating::elo_from_score`] clamps).
const SCORE_CLAMP: f64 = 0.001;
/// Elo's logistic slope, per point: `ln 10 / 400`.
const K: f64 = std::f64::consts::LN_10 / 400.0;

/// The rating of a player from its `records` against anchors: the `r` at which the expected
/// points against all anchors equal the points scored (the maximum of the likelihood), found
/// by Newton's method from the games' mean anchor. `None` without a game.
pub fn rate(player: &str, records: Vec<Record>) -> Option<Rated> {
    let games: u32 = records.iter().map(Record::games).sum();
    if games == 0 {
        return None;
    }
    let n = |r: &Record| f64::from(r.games());
    let total = f64::from(games);
    let points: f64 = records.iter().map(|r| n(r) * r.score()).sum();
    // A sweep would put the rating at infinity: scored as SCORE_CLAMP short of it.
    let points = points.clamp(SCORE_CLAMP * total, (1.0 - SCORE_CLAMP) * total);
    let mut elo = records.iter().map(|r| n(r) * r.anchor_elo).sum::<f64>() / total;
    for _ in 0..200 {
        let (f, df) = records.iter().fold((0.0, 0.0), |(f, df), r| {
            let e = expected_score(elo - r.anchor_elo);
            (f + n(r) * e, df + n(r) * e * (1.0 - e) * K)
        });
        let step = ((points - f) / df.max(1e-12)).clamp(-400.0, 400.0);
        elo += step;
        if step.abs() < 1e-9 {
            break;
        }
    }
    // Sandwich variance: each pairing's observed spread of points over the information, and
    // the anchors' uncertainty weighted by how much each pairing informs the rating.
    let info: Vec<f64> = records
        .iter()
        .map(|r| {
            let e = expected_score(elo - r.anchor_elo);
            n(r) * e * (1.0 - e) * K
        })
        .collect();
    let sum_info: f64 = info.iter().sum();
    let spread: f64 = records.iter().map(|r| n(r) * r.variance()).sum();
    let games_var = spread / (sum_info * sum_info);
    let anchors_var: f64 = records
        .iter()
        .zip(&info)
        .map(|(r, i)| (i / sum_info).powi(2) * r.anchor_se.powi(2))
        .sum();
    let se = (games_var + anchors_var).sqrt();
    Some(Rated {
        player: player.to_string(),
        records,
        games,
        elo,
        se,
        ci_low: elo - 1.96 * se,
        ci_high: elo + 1.96 * se,
    })
}

/// The games in `pgns` between any player and the `anchors`, by player: each player not an
/// anchor with its record against each anchor (in the anchors' order). Games between two
/// anchors, between two other players, or without a result are not counted.
pub fn records_of(
    pgns: &[impl AsRef<Path>],
    anchors: &[Anchor],
) -> Result<BTreeMap<String, Vec<Record>>, ScaleError> {
    let mut by_player: BTreeMap<String, Vec<Record>> = BTreeMap::new();
    let empty = || -> Vec<Record> {
        anchors
            .iter()
            .map(|a| Record {
                anchor: a.name.clone(),
                anchor_elo: a.elo,
                anchor_se: a.se,
                ..Record::default()
            })
            .collect()
    };
    // No player's moves are wanted: the headers alone are read.
    let nobody = Selection {
        players: vec![String::from("\0")],
        ..Selection::default()
    };
    for pgn in pgns {
        let name = pgn.as_ref().display().to_string();
        for_each_game::<ScaleError>(&name, &nobody, |_, visitor, _| {
            let h = &visitor.game().header;
            let anchor_of = |who: &str| anchors.iter().position(|a| a.name == who);
            let (player, side, anchor) = match (anchor_of(&h.white), anchor_of(&h.black)) {
                (None, Some(a)) => (&h.white, Color::White, a),
                (Some(a), None) => (&h.black, Color::Black, a),
                _ => return Ok(true),
            };
            let Some(points) = h.result.points_for(side) else {
                return Ok(true);
            };
            let r = &mut by_player.entry(player.clone()).or_insert_with(empty)[anchor];
            match points {
                p if p > 0.5 => r.wins += 1,
                p if p < 0.5 => r.losses += 1,
                _ => r.draws += 1,
            }
            Ok(true)
        })?;
    }
    Ok(by_player)
}

/// Every player in `pgns` rated at once (the maximum-likelihood Elo of all their games, see
/// [`crate::rating::fit_elo`]), the scale fixed by `anchor`, whose rating is taken as exact
/// (its `se` is added to every other's, as the whole scale moves with it). Each player's
/// records are against every opponent it met, rated as fitted. Players that met no one are
/// left out.
pub fn rate_pool(pgns: &[impl AsRef<Path>], anchor: &Anchor) -> Result<Vec<Rated>, ScaleError> {
    use crate::rating::{Anchor as Fixed, Played, fit_elo};
    let mut names: Vec<String> = Vec::new();
    let mut games: Vec<Played> = Vec::new();
    let nobody = Selection {
        players: vec![String::from("\0")],
        ..Selection::default()
    };
    for pgn in pgns {
        let file = pgn.as_ref().display().to_string();
        for_each_game::<ScaleError>(&file, &nobody, |_, visitor, _| {
            let h = &visitor.game().header;
            let Some(score) = h.result.points_for(Color::White) else {
                return Ok(true);
            };
            let mut index = |who: &str| match names.iter().position(|n| n == who) {
                Some(i) => i,
                None => {
                    names.push(who.to_string());
                    names.len() - 1
                }
            };
            let (white, black) = (index(&h.white), index(&h.black));
            if white != black {
                games.push(Played {
                    white,
                    black,
                    score,
                });
            }
            Ok(true)
        })?;
    }
    let Some(index) = names.iter().position(|n| *n == anchor.name) else {
        return Err(ScaleError::NoGames(anchor.name.clone()));
    };
    let fit = fit_elo(
        names.len(),
        &games,
        &Fixed::Player {
            index,
            elo: anchor.elo,
        },
    );
    let rated = (0..names.len())
        .filter_map(|p| {
            let mut against: BTreeMap<usize, Record> = BTreeMap::new();
            for g in games.iter().filter(|g| g.white == p || g.black == p) {
                let (other, points) = if g.white == p {
                    (g.black, g.score)
                } else {
                    (g.white, 1.0 - g.score)
                };
                let r = against.entry(other).or_insert_with(|| Record {
                    anchor: names[other].clone(),
                    anchor_elo: fit.elo[other],
                    anchor_se: if other == index {
                        anchor.se
                    } else {
                        fit.se[other]
                    },
                    ..Record::default()
                });
                match points {
                    x if x > 0.5 => r.wins += 1,
                    x if x < 0.5 => r.losses += 1,
                    _ => r.draws += 1,
                }
            }
            let records: Vec<Record> = against.into_values().collect();
            let n: u32 = records.iter().map(Record::games).sum();
            let se = if p == index {
                anchor.se
            } else {
                (fit.se[p].powi(2) + anchor.se.powi(2)).sqrt()
            };
            (n > 0).then(|| Rated {
                player: names[p].clone(),
                records,
                games: n,
                elo: fit.elo[p],
                se,
                ci_low: fit.elo[p] - 1.96 * se,
                ci_high: fit.elo[p] + 1.96 * se,
            })
        })
        .collect();
    Ok(rated)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(elo: f64, se: f64, wins: u32, draws: u32, losses: u32) -> Record {
        Record {
            anchor: format!("a{elo}"),
            anchor_elo: elo,
            anchor_se: se,
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn one_anchor_gives_the_rating_of_the_score() {
        // 75 % against 1400: 1400 + 400 log10(3) = 1590.8.
        let r = rate("p", vec![record(1400.0, 0.0, 30, 0, 10)]).expect("games");
        assert!((r.elo - 1590.85).abs() < 0.01, "{}", r.elo);
        // An even score sits on the anchor; draws narrow the interval.
        let even = rate("p", vec![record(1400.0, 0.0, 20, 0, 20)]).expect("games");
        let drawn = rate("p", vec![record(1400.0, 0.0, 10, 20, 10)]).expect("games");
        assert!((even.elo - 1400.0).abs() < 1e-6 && (drawn.elo - 1400.0).abs() < 1e-6);
        assert!(drawn.se < even.se, "{} {}", drawn.se, even.se);
        // 40 coin-flip games: se = 1 / (K · sqrt(40 · 1/4)) = 55 Elo.
        assert!(
            (even.se - 1.0 / (K * 10f64.sqrt())).abs() < 0.01,
            "{}",
            even.se
        );
    }

    #[test]
    fn several_anchors_meet_where_the_expected_points_equal_the_points_scored() {
        let records = vec![
            record(1350.0, 0.0, 28, 9, 63),
            record(1500.0, 0.0, 15, 9, 76),
        ];
        let r = rate("maia1", records.clone()).expect("games");
        let expected: f64 = records
            .iter()
            .map(|x| f64::from(x.games()) * expected_score(r.elo - x.anchor_elo))
            .sum();
        assert!((expected - (32.5 + 19.5)).abs() < 1e-6, "{expected}");
        // Between the two one-anchor ratings (1222 and 1253).
        assert!(r.elo > 1215.0 && r.elo < 1260.0, "{}", r.elo);
        // An anchor's own uncertainty widens the interval.
        let unsure = vec![
            record(1350.0, 50.0, 28, 9, 63),
            record(1500.0, 0.0, 15, 9, 76),
        ];
        assert!(rate("maia1", unsure).expect("games").se > r.se);
        // A sweep is finite; no game, no rating.
        assert!(rate("p", vec![record(1400.0, 0.0, 10, 0, 0)]).is_some_and(|r| r.elo.is_finite()));
        assert_eq!(rate("p", vec![record(1400.0, 0.0, 0, 0, 0)]), None);
    }

    #[test]
    fn a_pool_is_rated_from_all_its_games_with_one_player_fixed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = |w: &str, b: &str, result: &str| {
            format!(
                "[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n"
            )
        };
        // A beats B 3 of 4, B beats C 3 of 4: a chain, A fixed at 1500.
        let mut text = String::new();
        for (w, b) in [("A", "B"), ("B", "C")] {
            text += &game(w, b, "1-0").repeat(30);
            text += &game(w, b, "0-1").repeat(10);
        }
        let path = dir.path().join("chain.pgn");
        std::fs::write(&path, text).expect("write");
        let anchor: Anchor = "A=1500±20".parse().expect("anchor");
        let rated = rate_pool(&[&path], &anchor).expect("rated");
        let elo = |n: &str| rated.iter().find(|r| r.player == n).expect(n).clone();
        assert_eq!(elo("A").elo, 1500.0);
        assert_eq!(elo("A").se, 20.0);
        // About 191 a step (75 %), a little less for the prior's pull.
        let (b, c) = (elo("B"), elo("C"));
        assert!((1500.0 - b.elo - 190.0).abs() < 10.0, "{b:?}");
        assert!((b.elo - c.elo - 190.0).abs() < 10.0, "{c:?}");
        assert!(c.se > b.se && b.se > 20.0, "{b:?} {c:?}");
        assert_eq!(c.records.len(), 1);
        assert_eq!((c.records[0].wins, c.records[0].losses), (10, 30));
        let none: Anchor = "Z=1500".parse().expect("anchor");
        assert!(matches!(
            rate_pool(&[&path], &none),
            Err(ScaleError::NoGames(_))
        ));
    }

    #[test]
    fn anchors_read_with_or_without_their_error_and_refuse_nonsense() {
        let a: Anchor = "sf1350=1350".parse().expect("anchor");
        assert_eq!((a.name.as_str(), a.elo, a.se), ("sf1350", 1350.0, 0.0));
        let b: Anchor = "level1400=1365±34".parse().expect("anchor");
        assert_eq!((b.elo, b.se), (1365.0, 34.0));
        let c: Anchor = "level1400=1365:34".parse().expect("anchor");
        assert_eq!(b, c);
        for bad in ["sf1350", "=1350", "x=abc", "x=1350±-3", "x=1350±"] {
            assert!(bad.parse::<Anchor>().is_err(), "{bad}");
        }
    }

    #[test]
    fn records_count_each_players_games_against_each_anchor_from_either_side() {
        let dir = tempfile::tempdir().expect("tempdir");
        let game = |w: &str, b: &str, result: &str| {
            format!(
                "[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n"
            )
        };
        let text = [
            game("maia1", "sf1350", "1-0"),
            game("sf1350", "maia1", "1-0"),
            game("sf1350", "maia1", "1/2-1/2"),
            game("maia1", "sf1500", "0-1"),
            game("sf1350", "sf1500", "1-0"),
            game("x", "y", "1-0"),
            game("maia1", "sf1500", "*"),
        ]
        .concat();
        let path = dir.path().join("m.pgn");
        std::fs::write(&path, text).expect("write");
        let anchors: Vec<Anchor> = ["sf1350=1350", "sf1500=1500"]
            .iter()
            .map(|a| a.parse().expect("anchor"))
            .collect();
        let by = records_of(&[&path], &anchors).expect("read");
        assert_eq!(by.keys().collect::<Vec<_>>(), vec!["maia1"]);
        let m = &by["maia1"];
        assert_eq!((m[0].wins, m[0].draws, m[0].losses), (1, 1, 1));
        assert_eq!((m[1].wins, m[1].draws, m[1].losses), (0, 0, 1));
        let missing = records_of(&[dir.path().join("none.pgn")], &anchors);
        assert!(missing.is_err());
    }
}
