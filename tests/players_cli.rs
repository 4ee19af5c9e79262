//! Player files end to end, as a user drives them: `build --player` writes the player's profile
//! beside their cases, `info` describes it, a player file loads on top of the generic case base
//! (`go`, `uci`), `players` measures it on held-out games and fits its layer, and `who` tells
//! players apart.

mod common;

use common::{fixture, run, run_json, stderr};

/// Builds `input` with `args` into `dir/name.cb`; returns its path.
fn build(dir: &std::path::Path, name: &str, input: &str, args: &[&str]) -> String {
    let out = dir.join(format!("{name}.cb"));
    let out_text = out.to_str().expect("utf-8").to_string();
    let mut all = vec!["build", input, "-o", &out_text, "--json"];
    all.extend_from_slice(args);
    run_json(&all);
    out_text
}

#[test]
fn a_player_file_holds_the_profile_and_counts_a_game_in_two_collections_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The fixture, and its first game again under another event and spelling of Alice's name.
    let small = std::fs::read_to_string(fixture("small.pgn")).expect("fixture");
    let copy = small
        .split("\n\n[Event")
        .next()
        .expect("first game")
        .replace("Fixture 1", "Another collection")
        .replace("\"Alice\"", "\"alice\"");
    let pgn = dir.path().join("both.pgn");
    std::fs::write(&pgn, format!("{small}\n\n{copy}\n")).expect("write");
    let cb = build(
        dir.path(),
        "alice",
        pgn.to_str().expect("utf-8"),
        &["--player", "Alice"],
    );
    let info = run_json(&["info", &cb, "--json"]);
    let build = &info["build"];
    assert_eq!(build["stats"]["games_skipped"]["duplicate"], 1, "{build}");
    let p = &build["profile"];
    // Games 1 (White, draw), 3 (Black, win) and 7 (White, from a FEN, a draw... see small.pgn).
    assert_eq!(p["name"], "Alice", "{p}");
    assert_eq!(p["games"], 3, "{p}");
    assert_eq!(p["white_games"], 2, "{p}");
    assert_eq!(p["black_games"], 1, "{p}");
    assert_eq!(p["rating"]["median"], 1500, "{p}");
    assert_eq!(p["rating"]["low"], 1500, "{p}");
    assert_eq!(p["rating"]["high"], 1520, "{p}");
    // Openings: a line is kept once it starts two games; Alice's two White games from the
    // initial position are one (game 7 starts from a FEN), so no line is kept yet.
    assert_eq!(p["openings"]["white"].as_array().map(Vec::len), Some(0));
    let text = String::from_utf8_lossy(&run(&["info", &cb]).stdout).into_owned();
    assert!(
        text.contains("player         Alice (3 games: 2 as White, 1 as Black"),
        "{text}"
    );
    assert!(
        text.contains("rating         1500 (median of 3 rated games"),
        "{text}"
    );
}

#[test]
fn the_main_player_is_the_most_frequent_name_and_a_judge_needs_a_player() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = fixture("small.pgn");
    let input = input.to_str().expect("utf-8");
    let cb = build(dir.path(), "main", input, &["--main-player"]);
    let info = run_json(&["info", &cb, "--json"]);
    // Alice plays four games (1, 3, 5, 7); bob/Bob three, spelt two ways (1, 2, 4).
    assert_eq!(info["build"]["profile"]["name"], "Alice", "{info}");
    let out = run(&[
        "build",
        input,
        "-o",
        dir.path().join("x.cb").to_str().expect("utf-8"),
        "--judge",
        "stockfish",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--judge judges a player's moves"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_player_file_plays_their_opening_moves_on_top_of_the_generic_case_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let cb = build(
        dir.path(),
        "eric",
        sample.to_str().expect("utf-8"),
        &["--player", "EricRosen"],
    );
    // His most played first move as White, from his profile.
    let info = run_json(&["info", &cb, "--json"]);
    let white = info["build"]["profile"]["openings"]["white"]
        .as_array()
        .expect("lines")
        .clone();
    let first = white
        .iter()
        .find(|l| !l["moves"].as_str().expect("moves").contains(' '))
        .expect("a first move played twice");
    let mv = first["moves"].as_str().expect("uci").to_string();
    let games = first["games"].as_u64().expect("games");
    let out = run(&["go", "--startpos", "--casebase", &cb, "--movetime", "200"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with(&format!("bestmove {mv}")), "{text}");
    assert!(
        text.contains(&format!("player: played {}", san_of_first(&mv))),
        "{text}"
    );
    assert!(text.contains("games in this position"), "{text}");
    assert!(games >= 2);
}

/// The SAN of a first move given in UCI (the pawn and knight moves a first move can be).
fn san_of_first(uci: &str) -> String {
    let (from, to) = (&uci[..2], &uci[2..4]);
    match from {
        "b1" | "g1" => format!("N{to}"),
        _ => to.to_string(),
    }
}

#[test]
fn players_measures_a_player_and_fits_the_layer_that_params_then_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let out = dir.path().join("bench");
    let fit = dir.path().join("player.toml");
    let r = run_json(&[
        "players",
        "--pgn",
        sample.to_str().expect("utf-8"),
        "--min-games",
        "15",
        "--test-percent",
        "30",
        "--positions",
        "40",
        "--movetime",
        "20",
        "--out",
        out.to_str().expect("utf-8"),
        "--fit",
        fit.to_str().expect("utf-8"),
        "--json",
    ]);
    let players = r["players"].as_array().expect("players");
    assert_eq!(players.len(), 1, "{r}");
    let eric = &players[0];
    assert_eq!(eric["player"]["name"], "EricRosen");
    let (train, test) = (
        eric["train_games"].as_u64().expect("train"),
        eric["test_games"].as_u64().expect("test"),
    );
    assert!(train > 0 && test > 0 && train + test <= 20, "{eric}");
    assert_eq!(eric["positions"], 40, "{eric}");
    assert!(out.join("ericrosen.cb").exists());
    assert!(out.join("ericrosen.evidence.jsonl").exists());
    // The fitted layer is a parameter file the engine reads.
    let text = std::fs::read_to_string(&fit).expect("fit written");
    assert!(
        text.contains("[player]") && text.contains("book_prior"),
        "{text}"
    );
    let go = run(&[
        "go",
        "--startpos",
        "--casebase",
        out.join("ericrosen.cb").to_str().expect("utf-8"),
        "--params",
        fit.to_str().expect("utf-8"),
        "--movetime",
        "50",
    ]);
    assert!(go.status.success(), "{}", stderr(&go));
}

#[test]
fn a_chart_path_that_cannot_be_written_is_refused_before_the_measurement() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let out = dir.path().join("bench");
    let refused = |chart: &std::path::Path| {
        let r = run(&[
            "players",
            "--pgn",
            sample.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
            "--chart",
            chart.to_str().expect("utf-8"),
        ]);
        assert!(!r.status.success());
        stderr(&r)
    };
    let err = refused(dir.path());
    assert!(
        err.contains("--chart") && err.contains("is a directory"),
        "{err}"
    );
    let err = refused(&dir.path().join("no/such/folder/chart.svg"));
    assert!(err.contains("does not exist"), "{err}");
    // Refused before anything was measured or written.
    assert!(!out.exists());
}

#[test]
fn who_ranks_the_player_whose_games_they_are_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let sample = sample.to_str().expect("utf-8");
    let eric = build(dir.path(), "eric", sample, &["--player", "EricRosen"]);
    let yura = build(dir.path(), "yura", sample, &["--player", "YuraYak69"]);
    let r = run_json(&[
        "who",
        sample,
        "--player",
        "EricRosen",
        "--max-games",
        "4",
        "--file",
        &yura,
        "--file",
        &eric,
        "--movetime",
        "5",
        "--json",
    ]);
    assert_eq!(r["games"], 4, "{r}");
    assert_eq!(r["ranking"][0]["name"], "EricRosen", "{r}");
    assert!(
        r["ranking"][1]["behind"].as_f64().expect("gap") > 0.0,
        "{r}"
    );
    // A case base that is not a player file is refused, named.
    let out = run(&["who", sample, "--file", sample]);
    assert!(!out.status.success());
}

#[test]
fn a_players_dossier_names_their_openings_and_refuses_a_plain_case_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let sample = sample.to_str().expect("utf-8");
    let eric = build(dir.path(), "eric", sample, &["--player", "EricRosen"]);
    let svg = dir.path().join("departures.svg");
    let out = run(&[
        "info",
        &eric,
        "--report",
        "--svg",
        svg.to_str().expect("utf-8"),
        "--movetime",
        "5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("EricRosen\n"), "{text}");
    assert!(text.contains("Openings as White"), "{text}");
    assert!(text.contains("Openings as Black"), "{text}");
    assert!(text.contains("1. "), "a main line in SAN: {text}");
    assert!(text.contains("the generic model fitted to"), "{text}");
    assert!(
        std::fs::read_to_string(&svg)
            .expect("svg")
            .starts_with("<svg")
    );
    // A case base of everyone is not a player.
    let all = build(dir.path(), "all", sample, &["--no-patterns"]);
    let out = run(&["info", &all, "--report"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a player file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_player_file_set_over_uci_plays_on_top_of_the_embedded_case_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let eric = build(
        dir.path(),
        "eric",
        sample.to_str().expect("utf-8"),
        &["--player", "EricRosen"],
    );
    let mut child = std::process::Command::new(common::bin())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("precedent runs");
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().expect("stdin");
    let script = format!(
        "uci\nsetoption name CaseBase value {eric}\nisready\nposition startpos\ngo movetime 300\n"
    );
    stdin.write_all(script.as_bytes()).expect("write");
    // Read until the move, then quit.
    let mut text = String::new();
    let reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    for line in reader.lines() {
        let line = line.expect("a line");
        text.push_str(&line);
        text.push('\n');
        if line.starts_with("bestmove ") {
            break;
        }
    }
    stdin.write_all(b"quit\n").expect("quit");
    assert!(child.wait().expect("exit").success());
    assert!(text.contains("readyok"), "{text}");
    assert!(text.contains("info string player: played"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

/// A player file of no case, as a build before the refusal of unknown names wrote one.
fn empty_player_file(path: &std::path::Path) {
    use precedent::casebase::{BuildInfo, BuildOptions, BuildStats, CaseBaseWriter, Profile};
    let writer = CaseBaseWriter::create(path).expect("writer").counts_only();
    let info = BuildInfo {
        tool: "test".into(),
        sources: vec!["masters.pgn".into()],
        options: BuildOptions {
            players: vec!["Carlsen".into()],
            ..BuildOptions::default()
        },
        stats: BuildStats::default(),
        profile: Some(Profile {
            name: "Carlsen".into(),
            ..Profile::default()
        }),
    };
    writer.finish(&info).expect("written");
}

#[test]
fn an_empty_player_file_is_refused_at_load_and_uci_keeps_the_previous_case_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("carlsen.cb");
    empty_player_file(&empty);
    let path = empty.to_str().expect("utf-8");
    // On the command line: one line, exit 1.
    let out = run(&["go", "--startpos", "--casebase", path, "--movetime", "50"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("holds no case"), "{}", stderr(&out));
    // Over UCI: refused, the previous case base kept, and the engine still moves.
    let mut child = std::process::Command::new(common::bin())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("precedent runs");
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().expect("stdin");
    let script = format!(
        "uci\nsetoption name CaseBase value {path}\nisready\nposition startpos\ngo movetime 200\n"
    );
    stdin.write_all(script.as_bytes()).expect("write");
    let mut text = String::new();
    let reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    for line in reader.lines() {
        let line = line.expect("a line");
        text.push_str(&line);
        text.push('\n');
        if line.starts_with("bestmove ") {
            break;
        }
    }
    stdin.write_all(b"quit\n").expect("quit");
    assert!(child.wait().expect("exit").success());
    let refusal = text
        .lines()
        .find(|l| l.contains("holds no case"))
        .unwrap_or_else(|| panic!("no refusal in {text}"));
    assert!(refusal.starts_with("info string error: "), "{refusal}");
    assert!(
        refusal.contains("keeping the previous case base"),
        "{refusal}"
    );
    assert!(text.contains("readyok"), "{text}");
    // The embedded case base plays: no player line, and a move.
    assert!(!text.contains("info string player:"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

/// The `info string` lines and the move of one `go` with `options` set over UCI.
fn uci_go(options: &[(&str, &str)], go: &str) -> String {
    let mut child = std::process::Command::new(common::bin())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("precedent runs");
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().expect("stdin");
    let mut script = String::from("uci\n");
    for (name, value) in options {
        script.push_str(&format!("setoption name {name} value {value}\n"));
    }
    script.push_str(&format!(
        "isready\nucinewgame\nposition startpos moves e2e4 e7e5 g1f3\n{go}\n"
    ));
    stdin.write_all(script.as_bytes()).expect("write");
    let mut text = String::new();
    let reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    for line in reader.lines() {
        let line = line.expect("a line");
        if line.starts_with("info string") || line.starts_with("bestmove") {
            text.push_str(&line);
            text.push('\n');
        }
        if line.starts_with("bestmove ") {
            break;
        }
    }
    stdin.write_all(b"quit\n").expect("quit");
    assert!(child.wait().expect("exit").success());
    text
}

#[test]
fn a_player_file_plays_at_the_level_of_its_players_rating_unless_told_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let eric = build(
        dir.path(),
        "eric",
        sample.to_str().expect("utf-8"),
        &["--player", "EricRosen", "--fit-depth", "2"],
    );
    let info = run_json(&["info", &eric, "--json"]);
    let speeds = &info["build"]["profile"]["speeds"];
    assert_eq!(speeds[0]["speed"], "rapid", "{speeds}");
    let rating = speeds[0]["rating"]["median"].as_u64().expect("a rating");
    let clock = "go wtime 30000 btime 30000 winc 300 binc 300";
    // By default: the level nearest their rating, said so.
    let text = uci_go(&[("CaseBase", &eric)], clock);
    let line = format!("(the player's rapid rating {rating} (");
    assert!(text.contains(&line), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
    // UCI_Elo, when set, is played instead.
    let text = uci_go(
        &[
            ("CaseBase", &eric),
            ("UCI_LimitStrength", "true"),
            ("UCI_Elo", "1400"),
        ],
        clock,
    );
    assert!(
        text.contains("level 1400 (UCI_Elo 1400; among people"),
        "{text}"
    );
    assert!(!text.contains("the player's rapid rating"), "{text}");
    // On the people's scale: the level as strong among people as their rapid rating.
    let text = uci_go(&[("CaseBase", &eric), ("EloScale", "people")], clock);
    assert!(
        text.contains(&line) && text.contains("among people as strong as Lichess rapid"),
        "{text}"
    );
    // Off: no level; their likeliest move by the model fitted to them.
    let text = uci_go(&[("CaseBase", &eric), ("PlayerStrength", "false")], clock);
    assert!(!text.contains("info string level "), "{text}");
    assert!(text.contains("info string model (imitate)"), "{text}");
    // A speed they never played: their nearest one's rating, named.
    let text = uci_go(&[("CaseBase", &eric), ("PlayerClock", "bullet")], clock);
    assert!(text.contains(&line), "{text}");
    let text = uci_go(
        &[("CaseBase", &eric), ("PlayerClock", "hyperbullet")],
        clock,
    );
    assert!(
        text.contains("info string error: ") && text.contains("player-clock"),
        "{text}"
    );
}

#[test]
fn a_judged_player_file_fits_its_bots_errors_to_theirs_the_same_way_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    let scorer = fixture("engines/scorer.py");
    let judge = format!("{} {}", common::python(), scorer.display());
    let args = [
        "--player",
        "YuraYak69",
        "--judge",
        judge.as_str(),
        "--judge-limit",
        "depth=1",
        "--error-nodes",
        "3000",
        "--fit-depth",
        "2",
    ];
    let first = build(dir.path(), "yura", sample.to_str().expect("utf-8"), &args);
    let again = build(dir.path(), "yura2", sample.to_str().expect("utf-8"), &args);
    let profile = |cb: &str| run_json(&["info", cb, "--json"])["build"]["profile"].clone();
    let (a, b) = (profile(&first), profile(&again));
    let errors = &a["errors"];
    // Rated 2065: level 2000, a drawn level, fitted.
    assert_eq!(errors["level"], 2000, "{a}");
    assert_eq!(errors["note"], serde_json::Value::Null, "{a}");
    let factor = errors["factor"].as_f64().expect("a factor");
    assert!((0.5..=8.0).contains(&factor), "{factor}");
    assert_eq!(errors["target"], a["judged"]["blunder_rate"], "{a}");
    assert!(errors["positions"].as_u64().expect("positions") > 0);
    // Phases of their judged moves, and the same fit from the same games.
    assert!(
        !a["judged"]["phases"].as_array().expect("phases").is_empty(),
        "{a}"
    );
    assert_eq!(a["errors"], b["errors"], "two builds fit the same factor");
    assert_eq!(a["model"], b["model"], "two builds fit the same model");
    let report = run(&["info", &first, "--report", "--movetime", "5"]);
    assert!(report.status.success(), "{}", stderr(&report));
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("their bot at level 2000 errs"), "{text}");
    assert!(text.contains("Strength (PlayerStrength true"), "{text}");
    assert!(text.contains("Likeness (PlayerStrength false"), "{text}");
    // In play, with PlayerErrors only: the level errs as fitted, and says so.
    let clock = "go wtime 30000 btime 30000 winc 300 binc 300";
    let erring = format!("erring {factor} times as calibrated");
    let text = uci_go(&[("CaseBase", &first)], clock);
    assert!(
        text.contains("info string level 2000 (the player's"),
        "{text}"
    );
    assert!(!text.contains("erring"), "{text}");
    let text = uci_go(&[("CaseBase", &first), ("PlayerErrors", "true")], clock);
    match factor == 1.0 {
        true => assert!(!text.contains("erring"), "{text}"),
        false => assert!(text.contains(&erring), "{text}"),
    }
}
