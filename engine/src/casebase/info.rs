//! How a case base was built: recorded in its header as JSON, shown by `precedent info`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The filters that selected which moves became cases.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildOptions {
    /// Only these players' moves (case-insensitive match on White/Black); empty = everyone.
    pub players: Vec<String>,
    /// Only moves of this side (`white` or `black`).
    pub side: Option<String>,
    /// Lowest mover rating.
    pub min_elo: Option<u16>,
    /// Highest mover rating.
    pub max_elo: Option<u16>,
    /// Plies skipped at the start of each game.
    pub skip_plies: u32,
    /// Stop after this many games contributed cases.
    pub max_games: Option<u64>,
    /// Percentage of games (chosen by a hash of the game) left out of the case base, so that
    /// `precedent eval` on the same file tests on games the case base never saw.
    #[serde(default)]
    pub holdout: Option<u8>,
    /// Move patterns legal in fewer of the cases' positions than this are not stored (their
    /// estimates fall back on the coarser family, as for a pattern never seen): a smaller file
    /// for a little less detail. 0 or 1 keeps every pattern.
    #[serde(default)]
    pub min_pattern_count: u32,
    /// Stop once this many cases are written (at the end of the game that reaches it).
    #[serde(default)]
    pub max_cases: Option<u64>,
    /// At most about this many cases per 200-point band of the mover's rating: a band with
    /// more candidate moves keeps each (game, side) with the same probability (by a hash), so
    /// every band is sampled evenly over the whole input. Needs a first counting pass.
    #[serde(default)]
    pub band_cases: Option<u64>,
    /// Derive no move patterns (nor their strengths): a case base for retrieval and voting
    /// only, built several times faster; the move model has nothing to use in it.
    #[serde(default)]
    pub no_patterns: bool,
    /// Leave this percentage of games out, chosen by a hash of their moves alone, so that the
    /// same game under other tags (another collection's copy) is left out with it: how the
    /// lab's `players` benchmark keeps a player's test games out of their file.
    #[serde(default)]
    pub holdout_moves: Option<u8>,
    /// Take the inputs' most frequent player as `players` (read from the tags first).
    #[serde(default)]
    pub main_player: bool,
    /// The pattern strengths and the policy are fitted on at most about this many of the
    /// cases (every n-th case beyond): statistics, which a sample estimates.
    #[serde(default = "legacy_fit_positions")]
    pub fit_positions: u64,
    /// The approximate index's lists a side (`None`: [`super::lists::lists_for`] the boards
    /// from [`super::lists::LISTS_FROM`] boards up, none below; `Some(0)`: none).
    #[serde(default)]
    pub lists: Option<u64>,
}

/// The sample of the fits when a build does not say: what every build used before the sample
/// was an option.
fn legacy_fit_positions() -> u64 {
    2_000_000
}

/// The fits' sample when none is asked for.
pub const FIT_POSITIONS: u64 = 2_000_000;

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            players: Vec::new(),
            side: None,
            min_elo: None,
            max_elo: None,
            skip_plies: 0,
            max_games: None,
            holdout: None,
            min_pattern_count: 0,
            max_cases: None,
            band_cases: None,
            no_patterns: false,
            holdout_moves: None,
            main_player: false,
            fit_positions: FIT_POSITIONS,
            lists: None,
        }
    }
}

impl BuildOptions {
    /// Whether the build writes a player file: one player's games (by name), counted once
    /// each, with the player's profile.
    pub fn is_player_file(&self) -> bool {
        !self.players.is_empty() || self.main_player
    }
}

/// Counts from the build.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildStats {
    /// Games read from the inputs.
    pub games_read: u64,
    /// Games that contributed at least one case.
    pub games_used: u64,
    /// Games read but not used, by reason.
    pub games_skipped: BTreeMap<String, u64>,
    /// Cases written.
    pub cases: u64,
}

/// Everything recorded about a build.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// The tool and version that wrote the file.
    pub tool: String,
    /// Input file names, as given.
    pub sources: Vec<String>,
    /// Filters.
    pub options: BuildOptions,
    /// Counts.
    pub stats: BuildStats,
    /// The player's profile, in a player file (built with `--player` or `--main-player`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<super::Profile>,
}
