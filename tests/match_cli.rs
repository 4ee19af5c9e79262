//! `precedent match` and `precedent experiment`, driven as a user would.

mod common;

use common::{fixture, run_json};

fn engine(name: &str) -> String {
    format!(
        "uci:name={name},cmd=bash {}",
        fixture(&format!("engines/{name}.sh")).display()
    )
}

/// Asserts that a match's PGN holds `games` games that replay legally: building a case base
/// from it in strict mode fails on any illegal move.
fn assert_replays(pgn: &std::path::Path, games: u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = dir.path().join("replay.cb");
    let b = run_json(&[
        "build",
        pgn.to_str().expect("path"),
        "-o",
        cb.to_str().expect("path"),
        "--strict",
        "--json",
    ]);
    assert_eq!(b["games_read"], games, "{b}");
}

#[test]
fn broken_engines_lose_their_games_and_the_match_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("games.pgn");
    let exits = engine("exits");
    let illegal = engine("illegal");
    let silent = engine("silent");
    let r = run_json(&[
        "match",
        "--player",
        "precedent:name=cbr,seed=1",
        "--player",
        &exits,
        "--player",
        &illegal,
        "--player",
        &silent,
        "--pairing",
        "gauntlet",
        "--games",
        "2",
        "--tc",
        "0.5+0",
        "--pgn-out",
        pgn.to_str().expect("path"),
        "--json",
    ]);
    let players = r["players"].as_array().expect("players");
    let row = |name: &str| {
        players
            .iter()
            .find(|p| p["name"] == name)
            .expect("player row")
            .clone()
    };
    // Precedent wins all six games; each broken engine loses both of its games by failing.
    assert_eq!(row("cbr")["score"], 6.0, "{r}");
    for name in ["exits", "illegal", "silent"] {
        let p = row(name);
        assert_eq!(
            (
                p["games"].as_u64(),
                p["losses"].as_u64(),
                p["failures"].as_u64()
            ),
            (Some(2), Some(2), Some(2)),
            "{name}: {p}"
        );
    }
    let failures: Vec<String> = r["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f.as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(failures.len(), 6);
    assert!(
        failures
            .iter()
            .any(|f| f.contains("exits") && f.contains("engine failure")),
        "{failures:?}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.contains("illegal") && f.contains("illegal move")),
        "{failures:?}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.contains("silent") && f.contains("stalled")),
        "{failures:?}"
    );
    let kinds = &r["terminations"];
    assert_eq!(
        (
            kinds["engine failure"].as_u64(),
            kinds["illegal move"].as_u64(),
            kinds["engine stalled"].as_u64()
        ),
        (Some(2), Some(2), Some(2)),
        "{kinds}"
    );
    let text = std::fs::read_to_string(&pgn).expect("pgn written");
    assert_eq!(text.matches("[Event ").count(), 6);
    assert!(text.contains("[Termination \"illegal move\"]"));
}

#[test]
fn match_pgn_replays_legally_and_the_crosstable_adds_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("games.pgn");
    let openings = fixture("small.pgn");
    let r = run_json(&[
        "match",
        "--player",
        "precedent:name=a,k=1,seed=3",
        "--player",
        "precedent:name=b,k=32,seed=4",
        "--player",
        "random:name=r",
        "--games",
        "4",
        "--tc",
        "5+0.05",
        "--openings",
        openings.to_str().expect("path"),
        "--concurrency",
        "2",
        "--max-plies",
        "120",
        "--pgn-out",
        pgn.to_str().expect("path"),
        "--json",
    ]);
    // Round robin of three: 3 pairs × 4 games.
    let games = r["games"].as_array().expect("games").len();
    assert_eq!(games, 12);
    let ct = &r["crosstable"];
    let total: f64 = ct["total_points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|v| v.as_f64().expect("f64"))
        .sum();
    assert!(
        (total - 12.0).abs() < 1e-9,
        "points sum to the number of games: {total}"
    );
    let played: u64 = ct["total_games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|v| v.as_u64().expect("u64"))
        .sum();
    assert_eq!(played, 24, "each game counted once per player");
    for i in 0..3 {
        for j in 0..3 {
            if i != j {
                let pij = ct["points"][i][j].as_f64().expect("f64");
                let pji = ct["points"][j][i].as_f64().expect("f64");
                assert!((pij + pji - ct["games"][i][j].as_f64().expect("f64")).abs() < 1e-9);
            }
        }
    }
    assert_replays(&pgn, 12);
    let elo_sum: f64 = r["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["elo"].as_f64().expect("elo"))
        .sum();
    assert!(elo_sum.abs() < 1e-6, "mean anchor: {elo_sum}");
}

#[test]
fn experiment_builds_case_bases_plays_and_answers() {
    let games = common::fixture("lichess-rapid-sample.pgn.zst");
    experiment_answers(games.to_str().expect("path"), 60);
}

#[test]
#[ignore = "needs ../shared/data (scripts/test runs it when the directory is there)"]
fn experiment_on_the_shared_rapid_games_builds_plays_and_answers() {
    let rapid = common::shared_data("lichess-rapid-2014-2022.pgn.zst").expect("shared data");
    experiment_answers(rapid.to_str().expect("path"), 200);
}

/// Runs a four-band experiment on `pgn` (at most `max_games` games a band) and checks its report.
fn experiment_answers(pgn: &str, max_games: usize) {
    let max_games = max_games.to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("exp");
    let r = run_json(&[
        "experiment",
        "--pgn",
        pgn,
        "--bands",
        "1000-1399,1400-1799,1800-2199,2200-",
        "--max-games",
        &max_games,
        "--games",
        "2",
        "--tc",
        "2+0.02",
        "--max-plies",
        "80",
        "--concurrency",
        "2",
        "--out-dir",
        out.to_str().expect("path"),
        "--json",
    ]);
    let players = r["players"].as_array().expect("players");
    assert_eq!(players.len(), 4);
    for p in players {
        for key in ["name", "games", "score", "elo", "ci_low", "ci_high"] {
            assert!(!p[key].is_null(), "{key} missing in {p}");
        }
        assert_eq!(p["games"], 6, "round robin of four, two games a pair");
        let mean = p["mean_mover_elo"].as_f64().expect("mean rating");
        assert!(mean > 900.0, "{p}");
    }
    // With so few, short games every game may be drawn; then no ranking exists, and the
    // answer must say so rather than invent one.
    let answer = r["answer"].as_str().expect("answer");
    let elos: Vec<f64> = players
        .iter()
        .map(|p| p["elo"].as_f64().expect("elo"))
        .collect();
    if elos.iter().all(|e| (e - elos[0]).abs() < 1e-6) {
        assert!(
            r["spearman"].is_null() && answer.starts_with("No answer"),
            "{r}"
        );
    } else {
        assert!(r["spearman"].is_f64() && r["p_value"].is_f64(), "{r}");
        assert!(
            ["Yes", "No, the reverse", "Not shown"]
                .iter()
                .any(|s| answer.starts_with(s)),
            "{answer}"
        );
    }

    let svg = std::fs::read_to_string(out.join("elo.svg")).expect("chart written");
    assert!(svg.starts_with("<svg") && svg.matches("<circle").count() == 4);
    assert!(out.join("games.pgn").exists() && out.join("1000-1399.cb").exists());
}

#[test]
fn chess960_match_through_the_uci_pipe_keeps_engines_running_and_replays_legally() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("games.pgn");
    let engine = format!("uci:name=engine,cmd={}", common::bin());
    let r = run_json(&[
        "match",
        "--player",
        &engine,
        "--player",
        "random:name=r",
        "--games",
        "4",
        "--tc",
        "2+0.02",
        "--chess960",
        "--max-plies",
        "100",
        "--pgn-out",
        pgn.to_str().expect("path"),
        "--json",
    ]);
    let players = r["players"].as_array().expect("players");
    let row = players
        .iter()
        .find(|p| p["name"] == "engine")
        .expect("engine row");
    assert_eq!(row["failures"], 0, "{row}");
    // One engine process played all four games (one worker, no restarts); its memory is read
    // from /proc.
    if cfg!(target_os = "linux") {
        let memory = row["memory"].as_array().expect("memory samples");
        assert_eq!(memory.len(), 4, "{row}");
        assert_eq!(memory[3]["process_games"], 4, "{row}");
        assert!(memory[3]["kb"].as_u64().is_some_and(|kb| kb > 0), "{row}");
    }
    let times = &row["times"];
    assert!(times["moves"].as_u64().is_some_and(|m| m > 0), "{row}");
    assert!(
        times["slowest_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{row}"
    );
    let text = std::fs::read_to_string(&pgn).expect("pgn");
    assert_eq!(text.matches("[Variant \"Chess960\"]").count(), 4, "{text}");
    // Every game replays legally from its Chess960 start position.
    assert_replays(&pgn, 4);
}

#[test]
fn a_staged_experiment_on_equal_case_bases_reports_its_decision() {
    let games = common::fixture("lichess-rapid-sample.pgn.zst");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("exp");
    let r = run_json(&[
        "experiment",
        "--pgn",
        games.to_str().expect("path"),
        "--bands",
        "1000-1399,1400-1799,1800-",
        "--max-cases",
        "1500",
        "--games",
        "2",
        "--stages",
        "2",
        "--tc",
        "2+0.02",
        "--max-plies",
        "60",
        "--concurrency",
        "2",
        "--out-dir",
        out.to_str().expect("path"),
        "--json",
    ]);
    let stages = r["stages"].as_u64().expect("stages");
    assert!((1..=2).contains(&stages), "{r}");
    assert_eq!(r["games_per_pair"].as_u64(), Some(2 * stages), "{r}");
    let decision = r["decision"].as_str().expect("decision");
    assert!(["effect", "absent", "undecided"].contains(&decision), "{r}");
    // A stage stops the experiment only once decided.
    if stages == 1 {
        assert_ne!(decision, "undecided", "{r}");
    }
    for p in r["players"].as_array().expect("players") {
        let cases = p["cases"].as_u64().expect("cases");
        assert!((1500..2000).contains(&cases), "equal-size case bases: {p}");
        assert_eq!(p["games"].as_u64(), Some(2 * 2 * stages), "{p}");
    }
    assert!(out.join("games.pgn").exists());
    if stages == 2 {
        assert!(out.join("games-2.pgn").exists());
    }
}

#[test]
fn a_match_spec_with_an_unknown_key_is_refused_with_the_nearest_key() {
    let o = common::run(&[
        "match",
        "--player",
        "precedent:k=5,temprature=0.3",
        "--player",
        "random",
    ]);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains(
            "unknown setting `temprature` in player `precedent:k=5,temprature=0.3`; \
             did you mean `temperature`?"
        ),
        "{}",
        common::stderr(&o)
    );
}
