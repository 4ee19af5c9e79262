//! A player on top of the generic case base: what one person's games add to what everyone's
//! say. The generic case base stays the prior: its move model gives every legal move a
//! probability; the player's cases then move it, in two steps.
//!
//! 1. **Similar positions.** The move model's log-probabilities gain the player's own evidence:
//!    the share of the player's nearest cases' votes (as the model's `knn_vote`), and how much
//!    more often than the generic case base's players this player chose moves of each of the
//!    move's patterns (their counts shrunk towards the generic rate), each with its weight.
//! 2. **The same position.** Where the player has been before, the moves they played there are
//!    counts on top of that prior: `P(m) = (n_m + α·P(m)) / (N + α)`, the posterior of a
//!    Dirichlet prior of weight α (`book_prior`). With many games in a position their own
//!    proportions decide (their openings); with one, the prior still counts.
//!
//! The weights are in the parameter file's `[player]` table, fitted on players the benchmark
//! does not test on (`precedent players --fit`). The player's profile ([`Profile`]) gives the
//! rating the move model reads.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position};

use crate::case::CaseMove;
use crate::casebase::patterns::{FAMILIES, Family, LastMove, MoveContext, move_patterns};
use crate::casebase::{CaseBase, CaseBaseError, Profile, Without};
use crate::model::{Evidence, ModelConfig};
use crate::pgn::Speed;
use crate::position::Game;

/// Games at one speed below which the player's rating there is not played alone: fewer, and
/// the speed nearest with more games is read (or all their games together).
pub const MIN_SPEED_GAMES: u64 = 10;

/// The strength a player's bot plays at: a rating, and which of their games it is the median
/// rating of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    /// The rating (the level nearest it is played).
    pub rating: u16,
    /// The speed of the games it comes from; `None`: all their games (a file built before
    /// speeds were kept, or no speed with enough games).
    pub speed: Option<Speed>,
    /// Rated games it is the median of.
    pub games: u64,
}

impl std::fmt::Display for Strength {
    /// `blitz rating 1926 (5,845 games)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = self.speed.map_or(String::new(), |s| format!("{s} "));
        write!(f, "{what}rating {} ({} games)", self.rating, self.games)
    }
}

/// A player file loaded: the player's cases and their profile, and their own moves in the
/// generic case base it plays on, which that case base is read without.
pub struct Player {
    cases: CaseBase,
    profile: Profile,
    without: Without,
}

impl Player {
    /// The player of a case base built as a player file; any other case base is given back.
    pub fn of(cases: CaseBase) -> Result<Player, Box<CaseBase>> {
        match cases.info().profile.clone() {
            Some(profile) => Ok(Player {
                cases,
                profile,
                without: Without::default(),
            }),
            None => Err(Box::new(cases)),
        }
    }

    /// The player, refused when their file holds no case (built for a name that matched no
    /// game: it would play as the generic engine without a word).
    pub fn with_cases(self) -> Result<Player, CaseBaseError> {
        match self.cases.is_empty() {
            true => Err(CaseBaseError::EmptyPlayerFile {
                name: self.cases.name().to_string(),
                player: self.profile.name.clone(),
            }),
            false => Ok(self),
        }
    }

    /// The player on the generic case base `generic`: their own moves in it (their games it
    /// was built from, by any spelling of their name) are left out of it when it judges for
    /// them, so that the model does not take their moves for everyone's.
    pub fn on(mut self, generic: &CaseBase) -> Player {
        let mut names: Vec<String> = self
            .profile
            .spellings
            .iter()
            .map(|s| s.name.clone())
            .collect();
        names.extend(self.cases.info().options.players.iter().cloned());
        self.without = Without::player(generic, &names);
        self
    }

    /// Their own moves in the generic case base, left out of it ([`Player::on`]).
    pub fn without(&self) -> &Without {
        &self.without
    }

    /// The player's cases.
    pub fn cases(&self) -> &CaseBase {
        &self.cases
    }

    /// The player's profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The strength their bot plays at under a clock of `speed`: their median rating in their
    /// games of that speed, or of the nearest speed they played enough games at (the one
    /// with more games on a tie); without a speed (no clock), at the speed of most of their
    /// games. `None` when their games carry no rating.
    pub fn strength(&self, speed: Option<Speed>) -> Option<Strength> {
        strength_of(&self.profile, speed)
    }

    /// How much more (or less) than its calibration the level of their strength errs for
    /// them: their file's error fit (1 without one).
    pub fn error_factor(&self) -> f64 {
        self.profile.errors.as_ref().map_or(1.0, |e| e.factor)
    }

    /// The moves the player played in the position of `pos` (their repertoire: the exact
    /// position, by its contents) with how often, the most played first; empty where they
    /// have not been.
    pub fn book(&self, pos: &Chess) -> Vec<(Move, u32)> {
        let Some((view, images)) = crate::model::mover_view(pos) else {
            return Vec::new();
        };
        let exact = self.cases.exact_moves(&view);
        if exact.is_empty() {
            return Vec::new();
        }
        let legal = pos.legal_moves();
        let mut played: Vec<(Move, u32)> = legal
            .iter()
            .zip(&images)
            .filter_map(|(m, image)| {
                let code = CaseMove::from_move(*image, Color::White)?;
                let n = exact.iter().find(|e| e.0 == code)?.1;
                Some((*m, n))
            })
            .collect();
        played.sort_by_key(|p| std::cmp::Reverse(p.1));
        played
    }

    /// The generic move model the player's moves are judged under before their own evidence
    /// moves it: `base` as fitted to them ([`Player::model`]) when `fitted` and their profile
    /// has a fit (their likeness), else `base` itself (a level's model, or the default
    /// style's).
    pub fn prior<'m>(&self, base: &'m ModelConfig, fitted: bool) -> Cow<'m, ModelConfig> {
        match fitted.then(|| self.model(base)).flatten() {
            Some(model) => Cow::Owned(model),
            None => Cow::Borrowed(base),
        }
    }

    /// The player's probabilities of the moves of `evidence`: the `prior` model's
    /// ([`Player::prior`]) moved by what their cases say (`theirs`, [`layered`]). What the
    /// engine plays by, `who` ranks by and the players benchmark measures; the prior's
    /// probabilities come back too.
    pub fn probabilities(
        prior: &ModelConfig,
        evidence: &Evidence,
        theirs: &PlayerEvidence,
        weights: &PlayerWeights,
    ) -> Layered {
        let generic = prior.probabilities(evidence);
        Layered {
            probabilities: layered(&generic, theirs, weights),
            generic,
        }
    }

    /// The generic move model `base` as fitted to the player: read at the rating and with the
    /// search and cases weights their profile's fit chose, or at the median of their ratings when it was
    /// not fitted; `None` when the profile says neither.
    pub fn model(&self, base: &ModelConfig) -> Option<ModelConfig> {
        match (self.profile.model, self.profile.rating) {
            (Some(m), _) => Some(
                base.at_rating(f64::from(m.rating))
                    .with_search_weight(m.search_weight)
                    .with_cases_weight(m.cases_weight),
            ),
            (None, Some(r)) => Some(base.at_rating(f64::from(r.median))),
            (None, None) => None,
        }
    }
}

/// A player's probabilities of a position's moves ([`Player::probabilities`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Layered {
    /// With their evidence.
    pub probabilities: Vec<f64>,
    /// The prior model's alone.
    pub generic: Vec<f64>,
}

/// [`Player::strength`] of a profile.
fn strength_of(p: &Profile, speed: Option<Speed>) -> Option<Strength> {
    let usable = p
        .speeds
        .iter()
        .filter(|s| s.rating.games >= MIN_SPEED_GAMES);
    let distance = |s: Speed| speed.map_or(0, |want| (s as i32 - want as i32).abs());
    // `speeds` is sorted by games, most first: the first of the nearest wins a tie.
    match usable.min_by_key(|s| distance(s.speed)) {
        Some(s) => Some(Strength {
            rating: s.rating.median,
            speed: Some(s.speed),
            games: s.rating.games,
        }),
        None => p.rating.map(|r| Strength {
            rating: r.median,
            speed: None,
            games: r.games,
        }),
    }
}

/// What the engine knows, loaded: the generic case base and, when a player file is loaded,
/// the player on top of it. [`Loaded::knowledge`] lends it to a move.
#[derive(Clone)]
pub struct Loaded {
    generic: Arc<CaseBase>,
    player: Option<Arc<Player>>,
}

impl Loaded {
    /// A case base alone.
    pub fn new(cases: CaseBase) -> Loaded {
        Loaded {
            generic: Arc::new(cases),
            player: None,
        }
    }

    /// A case base alone, shared with other [`Loaded`]s (player files on top of it).
    pub fn from_shared(generic: Arc<CaseBase>) -> Loaded {
        Loaded {
            generic,
            player: None,
        }
    }

    /// A player on top of a generic case base.
    pub fn with_player(generic: Arc<CaseBase>, player: Player) -> Loaded {
        Loaded {
            generic,
            player: Some(Arc::new(player)),
        }
    }

    /// A case base file or a player file (`None`: the embedded case base). A player file goes
    /// on top of `generic`, loaded only then (the embedded one, as a rule).
    pub fn open(
        path: Option<&Path>,
        generic: impl FnOnce() -> Result<Arc<CaseBase>, CaseBaseError>,
    ) -> Result<Loaded, CaseBaseError> {
        let cases = match path {
            Some(p) => CaseBase::open(p)?,
            None => CaseBase::embedded()?,
        };
        Ok(match Player::of(cases) {
            Ok(player) => {
                let player = player.with_cases()?;
                let generic = generic()?;
                let player = player.on(&generic);
                Loaded::with_player(generic, player)
            }
            Err(cases) => Loaded::new(*cases),
        })
    }

    /// What it knows, for a move.
    pub fn knowledge(&self) -> Knowledge<'_> {
        match self.player.as_deref() {
            Some(player) => Knowledge::with_player(&self.generic, player),
            None => Knowledge::of(&self.generic),
        }
    }

    /// The generic case base, shared.
    pub fn generic_shared(&self) -> Arc<CaseBase> {
        Arc::clone(&self.generic)
    }
}

/// What the engine knows for a move: the generic case base and the player on top of it, if
/// any.
#[derive(Clone, Copy)]
pub struct Knowledge<'a> {
    generic: &'a CaseBase,
    player: Option<&'a Player>,
    /// What the generic case base is read without (the player's own moves in it).
    without: Option<&'a Without>,
}

impl<'a> Knowledge<'a> {
    /// A case base alone.
    pub fn of(cases: &'a CaseBase) -> Knowledge<'a> {
        Knowledge {
            generic: cases,
            player: None,
            without: None,
        }
    }

    /// A generic case base read without some of its moves (a player's, when their model is
    /// fitted), no player on top.
    pub fn read_without(generic: &'a CaseBase, without: &'a Without) -> Knowledge<'a> {
        Knowledge {
            generic,
            player: None,
            without: Some(without).filter(|w| !w.is_empty()),
        }
    }

    /// A player on top of a generic case base.
    pub fn with_player(generic: &'a CaseBase, player: &'a Player) -> Knowledge<'a> {
        Knowledge {
            generic,
            player: Some(player),
            without: Some(&player.without).filter(|w| !w.is_empty()),
        }
    }

    /// What is loaded, as the lab names it: the case base's name, or the player file's on
    /// the generic one's.
    pub fn name(&self) -> String {
        match self.player {
            Some(p) => format!("{} on {}", p.cases.name(), self.generic.name()),
            None => self.generic.name().to_string(),
        }
    }

    /// The generic case base: the move model's evidence.
    pub fn generic(&self) -> &'a CaseBase {
        self.generic
    }

    /// What the generic case base is read without: the player's own moves in it, if any.
    pub fn without(&self) -> Option<&'a Without> {
        self.without
    }

    /// The player, when a player file is loaded.
    pub fn player(&self) -> Option<&'a Player> {
        self.player
    }

    /// The cases that vote and that a move is explained by: the player's when there is one (a
    /// case base per player, as the thesis built its agent), else the generic ones.
    pub fn voters(&self) -> &'a CaseBase {
        self.player.map_or(self.generic, |p| &p.cases)
    }

    /// Every case base loaded (for the lab's guard against testing on their games).
    pub fn casebases(&self) -> Vec<&'a CaseBase> {
        std::iter::once(self.generic)
            .chain(self.player.map(|p| &p.cases))
            .collect()
    }
}

/// How the player's evidence moves the generic move model (the parameter file's `[player]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayerWeights {
    /// Weight of the player's nearest cases' vote, `ln(share + 0.01) − ln 0.01`.
    pub knn: f64,
    /// Weight of the player's pattern preferences, the sum over families of the log-ratio of
    /// their (shrunk) rate to the generic rate.
    pub patterns: f64,
    /// Pseudo-count of the player's pattern rates' shrinkage towards the generic rate.
    pub pattern_prior: f64,
    /// α: the weight of the prior against the player's own moves in the same position, in
    /// games.
    pub book_prior: f64,
    /// Read the generic move model as fitted to the player ([`Player::model`]) rather than
    /// as the default style reads it.
    pub model: bool,
}

impl Default for PlayerWeights {
    fn default() -> PlayerWeights {
        PlayerWeights {
            knn: 0.0,
            patterns: 0.0,
            pattern_prior: 10.0,
            book_prior: 1.0,
            model: false,
        }
    }
}

impl PlayerWeights {
    /// Whether every weight has its default.
    pub fn is_default(&self) -> bool {
        *self == PlayerWeights::default()
    }
}

/// What the player's cases say of each legal move of a position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerEvidence {
    /// Per move: the log-share of the player's nearest cases' votes (0 without votes).
    pub knn: Vec<f64>,
    /// Per move: the player's pattern preference (0 where they have no counts).
    pub patterns: Vec<f64>,
    /// Per move: how often the player played it in this exact position.
    pub played: Vec<u32>,
    /// How often the player was in this exact position (the sum of `played`).
    pub seen: u32,
}

impl PlayerEvidence {
    /// The player's evidence on the legal moves `moves` of `game`'s position (in that order):
    /// the player's nearest cases' `votes` and their patterns against the generic case base's.
    pub fn gather(
        player: &Player,
        generic: &CaseBase,
        game: &Game,
        moves: &[Move],
        votes: Option<&[(Move, f64)]>,
        weights: &PlayerWeights,
        smoothing: crate::model::Smoothing,
    ) -> PlayerEvidence {
        let pos = &game.position;
        let ctx = MoveContext {
            ply: game.ply(),
            last: LastMove::of(game.last_move.as_ref(), pos.turn()),
        };
        // The legal moves in `moves`' order, as the move model's evidence lists them.
        let Some((view, images)) = crate::model::mover_view(pos) else {
            return PlayerEvidence::default();
        };
        if images.len() != moves.len() {
            return PlayerEvidence::default();
        }
        let knn = moves
            .iter()
            .map(|m| {
                votes.map_or(0.0, |v| {
                    let share = v.iter().find(|c| c.0 == *m).map_or(0.0, |c| c.1);
                    (share + 0.01).ln() - 0.01f64.ln()
                })
            })
            .collect();
        let exact = player.cases.exact_moves(&view);
        let played: Vec<u32> = images
            .iter()
            .map(|image| {
                let code = CaseMove::from_move(*image, Color::White);
                exact.iter().find(|e| Some(e.0) == code).map_or(0, |e| e.1)
            })
            .collect();
        let seen = played.iter().sum();
        let patterns = pattern_preferences(
            player,
            generic,
            &view,
            &images,
            ctx,
            weights.pattern_prior,
            smoothing.alpha,
        );
        PlayerEvidence {
            knn,
            patterns,
            played,
            seen,
        }
    }
}

/// Per move: the sum over pattern families of `ln(r_player / r_generic)`, where `r_generic`
/// is the generic case base's play rate of the move's pattern (the rate the move model reads,
/// shrunk towards its family's parent) and `r_player` the player's, shrunk towards the generic
/// one with `prior` pseudo-counts.
fn pattern_preferences(
    player: &Player,
    generic: &CaseBase,
    view: &Chess,
    images: &[Move],
    ctx: MoveContext,
    prior: f64,
    alpha: f64,
) -> Vec<f64> {
    let mut patterns = Vec::with_capacity(images.len());
    move_patterns(view, ctx, &mut patterns);
    let (gtable, ptable) = (generic.patterns(), player.cases.patterns());
    let base = crate::model::base_rate(&gtable);
    images
        .iter()
        .map(|image| {
            let Some((_, keys)) = patterns.iter().find(|(pm, _)| pm == image) else {
                return 0.0;
            };
            let mut rate = [base; FAMILIES];
            let mut sum = 0.0;
            for f in Family::ALL {
                let parent = f.parent().map_or(base, |p| rate[p.index()]);
                let (gp, ga, _) = gtable.lookup(keys[f.index()]);
                let g = (f64::from(gp) + alpha * parent) / (f64::from(ga) + alpha);
                rate[f.index()] = g;
                let (pp, pa, _) = ptable.lookup(keys[f.index()]);
                let p = (f64::from(pp) + prior * g) / (f64::from(pa) + prior);
                sum += (p.max(1e-9) / g.max(1e-9)).ln();
            }
            sum
        })
        .collect()
}

/// The move model's probabilities `prior` (of the legal moves, in the evidence's order)
/// moved by the player's evidence: similar positions first, then the same position.
pub fn layered(prior: &[f64], evidence: &PlayerEvidence, weights: &PlayerWeights) -> Vec<f64> {
    if evidence.knn.len() != prior.len() {
        return prior.to_vec();
    }
    let scores: Vec<f64> = prior
        .iter()
        .enumerate()
        .map(|(j, p)| {
            p.max(1e-12).ln()
                + weights.knn * evidence.knn[j]
                + weights.patterns * evidence.patterns.get(j).copied().unwrap_or(0.0)
        })
        .collect();
    let similar = crate::model::softmax(&scores);
    if evidence.seen == 0 {
        return similar;
    }
    let alpha = weights.book_prior.max(1e-6);
    let total = f64::from(evidence.seen) + alpha;
    similar
        .iter()
        .zip(&evidence.played)
        .map(|(p, n)| (f64::from(*n) + alpha * p) / total)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(played: Vec<u32>) -> PlayerEvidence {
        let n = played.len();
        PlayerEvidence {
            knn: vec![0.0; n],
            patterns: vec![0.0; n],
            seen: played.iter().sum(),
            played,
        }
    }

    #[test]
    fn the_players_own_moves_in_a_position_outweigh_the_prior_by_their_count() {
        let prior = [0.7, 0.2, 0.1];
        let w = PlayerWeights {
            book_prior: 1.0,
            ..PlayerWeights::default()
        };
        // Never here: the prior as it is.
        let p = layered(&prior, &evidence(vec![0, 0, 0]), &w);
        assert!(p.iter().zip(&prior).all(|(a, b)| (a - b).abs() < 1e-12));
        // Nine games with the third move: it becomes the most probable, as (9 + 0.1) / 10.
        let p = layered(&prior, &evidence(vec![0, 0, 9]), &w);
        assert!((p[2] - 0.91).abs() < 1e-12, "{p:?}");
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // One game against a strong prior (α = 5): the prior still decides.
        let strong = PlayerWeights {
            book_prior: 5.0,
            ..w
        };
        let p = layered(&prior, &evidence(vec![0, 1, 0]), &strong);
        assert!(p[0] > p[1], "{p:?}");
    }

    #[test]
    fn a_player_plays_the_rating_of_the_nearest_speed_they_played_enough_games_at() {
        use crate::casebase::profile::{Rating, SpeedRating};
        let rating = |median, games| Rating {
            median,
            low: median,
            high: median,
            games,
        };
        let profile = Profile {
            rating: Some(rating(1900, 1000)),
            speeds: vec![
                SpeedRating {
                    speed: Speed::Bullet,
                    rating: rating(1922, 700),
                },
                SpeedRating {
                    speed: Speed::Blitz,
                    rating: rating(1926, 250),
                },
                SpeedRating {
                    speed: Speed::Classical,
                    rating: rating(1486, 40),
                },
                // Too few games to be played alone.
                SpeedRating {
                    speed: Speed::Rapid,
                    rating: rating(1300, 9),
                },
            ],
            ..Profile::default()
        };
        let at = |speed| strength_of(&profile, speed).map(|s| (s.rating, s.speed));
        assert_eq!(at(Some(Speed::Bullet)), Some((1922, Some(Speed::Bullet))));
        assert_eq!(at(Some(Speed::Blitz)), Some((1926, Some(Speed::Blitz))));
        // Rapid has 9 games: blitz and classical are as near; blitz has more games.
        assert_eq!(at(Some(Speed::Rapid)), Some((1926, Some(Speed::Blitz))));
        assert_eq!(
            at(Some(Speed::Classical)),
            Some((1486, Some(Speed::Classical)))
        );
        // No clock: the speed of most of their games.
        assert_eq!(at(None), Some((1922, Some(Speed::Bullet))));
        // A file built before speeds were kept: all their games.
        let old = Profile {
            speeds: Vec::new(),
            ..profile.clone()
        };
        assert_eq!(
            strength_of(&old, Some(Speed::Blitz)).map(|s| (s.rating, s.speed)),
            Some((1900, None))
        );
        assert_eq!(strength_of(&Profile::default(), None), None);
    }

    #[test]
    fn the_players_votes_raise_their_moves() {
        let prior = [0.5, 0.5];
        let mut e = evidence(vec![0, 0]);
        e.knn = vec![0.0, 2.0];
        let w = PlayerWeights {
            knn: 0.5,
            ..PlayerWeights::default()
        };
        let p = layered(&prior, &e, &w);
        assert!((p[1] / p[0] - 1f64.exp()).abs() < 1e-9, "{p:?}");
    }
}
