//! `precedent players`: how well a player's file imitates that player, measured on their games
//! that no file saw. For each player with enough games in the inputs, the games are split by a
//! hash of their moves (so that a game in two collections falls on one side), the player's file
//! is built from one part, and on positions of the other the player's engine (the player on top
//! of the generic case base) is paired with the generic engine and, when given, an external one
//! (Maia-1 of the player's band).

pub mod errors;
pub mod layer;
pub mod model;
mod run;
pub mod strength;

pub use run::{PlayersArgs, PlayersReport, chart, run};

use std::collections::{BTreeMap, HashMap};

use precedent::casebase::{BuildError, is_held_out};
use precedent::pgn::{Selection, for_each_game};

/// A player as the inputs name them: every spelling of one name.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Named {
    /// The spelling with the most games.
    pub name: String,
    /// Every spelling, most games first.
    pub spellings: Vec<String>,
    /// Games under any of them (copies counted: the file's figure is after deduplication).
    pub games: u64,
}

/// The key that groups spellings of one person: a name written `Surname, Given` (or
/// `Surname,G`) is its surname and first initial (`carlsen m`), any other name (a Lichess
/// account) itself; lower-cased, dots and extra spaces dropped.
pub fn name_key(name: &str) -> String {
    let lower: String = name.to_lowercase().chars().filter(|c| *c != '.').collect();
    match lower.split_once(',') {
        Some((surname, given)) => {
            let initial = given.trim().chars().next();
            let surname = surname.split_whitespace().collect::<Vec<_>>().join(" ");
            match initial {
                Some(i) => format!("{surname} {i}"),
                None => surname,
            }
        }
        None => lower.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// The players of the inputs with at least `min_games` games, most games first: spellings
/// grouped by [`name_key`] and by `aliases` (pairs of spellings of one person, such as
/// `Korchnoi,V` and `Kortschnoj, Viktor`), read from the tags alone.
pub fn players_of(
    inputs: &[String],
    min_games: u64,
    aliases: &[(String, String)],
) -> Result<Vec<Named>, BuildError> {
    let nobody = Selection {
        players: vec![String::from("\0")],
        ..Selection::default()
    };
    let mut spellings: HashMap<String, u64> = HashMap::new();
    for input in inputs {
        for_each_game::<BuildError>(input, &nobody, |_, visitor, _| {
            let h = &visitor.game().header;
            for player in [&h.white, &h.black] {
                if !player.is_empty() && player != "?" {
                    *spellings.entry(player.clone()).or_default() += 1;
                }
            }
            Ok(true)
        })?;
    }
    // Each key joins the group of its alias's key.
    let mut joined: HashMap<String, String> = HashMap::new();
    for (a, b) in aliases {
        let (ka, kb) = (name_key(a), name_key(b));
        let root = joined.get(&ka).cloned().unwrap_or(ka);
        joined.insert(kb, root.clone());
        joined.entry(root.clone()).or_insert(root);
    }
    let mut groups: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    for (name, games) in spellings {
        let key = name_key(&name);
        let key = joined.get(&key).cloned().unwrap_or(key);
        groups.entry(key).or_default().push((name, games));
    }
    let mut players: Vec<Named> = groups
        .into_values()
        .map(|mut names| {
            names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            Named {
                name: names[0].0.clone(),
                games: names.iter().map(|n| n.1).sum(),
                spellings: names.into_iter().map(|n| n.0).collect(),
            }
        })
        .filter(|p| p.games >= min_games)
        .collect();
    players.sort_by(|a, b| b.games.cmp(&a.games).then(a.name.cmp(&b.name)));
    Ok(players)
}

/// Whether a game (by the hash of its moves) is one of the `percent` held out for testing: the
/// same rule as `build --holdout-moves`, so the player's file never holds them.
pub fn is_test_game(moves_key: u64, percent: u8) -> bool {
    is_held_out(moves_key, percent)
}

/// A file-name-safe form of a player's name.
pub fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if s.is_empty() { "player".into() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_master_share_a_key_and_accounts_keep_theirs() {
        assert_eq!(name_key("Carlsen,M"), "carlsen m");
        assert_eq!(name_key("Carlsen, Magnus"), "carlsen m");
        assert_eq!(name_key("Polgar,Ju"), name_key("Polgar, Judit"));
        assert_ne!(name_key("Polgar, Susan"), name_key("Polgar, Judit"));
        assert_eq!(name_key("Timman, Jan H."), "timman j");
        assert_eq!(name_key("DrNykterstein"), "drnykterstein");
        assert_ne!(name_key("Korchnoi,V"), name_key("Kortschnoj, Viktor"));
    }

    #[test]
    fn slugs_are_plain() {
        assert_eq!(slug("Carlsen, Magnus"), "carlsen-magnus");
        assert_eq!(slug("DrNykterstein"), "drnykterstein");
        assert_eq!(slug("?!"), "player");
    }

    #[test]
    fn aliases_join_groups_and_the_threshold_counts_every_spelling() {
        let dir = tempfile::tempdir().expect("dir");
        let pgn = dir.path().join("g.pgn");
        let game = |w: &str, b: &str, site: &str| {
            format!(
                "[Event \"e\"]\n[Site \"{site}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n"
            )
        };
        let mut text = String::new();
        for i in 0..3 {
            text.push_str(&game("Korchnoi,V", "Someone", &format!("a{i}")));
        }
        for i in 0..2 {
            text.push_str(&game("Someone", "Kortschnoj, Viktor", &format!("b{i}")));
        }
        std::fs::write(&pgn, text).expect("write");
        let inputs = [pgn.display().to_string()];
        let apart = players_of(&inputs, 3, &[]).expect("players");
        assert_eq!(
            apart.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["Someone", "Korchnoi,V"]
        );
        let alias = [("Korchnoi,V".to_string(), "Kortschnoj, Viktor".to_string())];
        let joined = players_of(&inputs, 4, &alias).expect("players");
        assert_eq!(joined.len(), 2, "{joined:?}");
        let k = joined.iter().find(|p| p.name == "Korchnoi,V").expect("k");
        assert_eq!(k.games, 5);
        assert_eq!(k.spellings, ["Korchnoi,V", "Kortschnoj, Viktor"]);
    }
}
