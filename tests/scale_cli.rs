//! `precedent scale`: players rated from match PGNs against anchors, and strength read from
//! judged outcome files, on inputs whose answers are known; each bad input refused in one line.

mod common;

use common::{run, run_json, stderr};

/// `command` with `args` fails with one line of error that says `want`.
fn refused(command: &[&str], args: &[&str], want: &str) {
    let a: Vec<&str> = command.iter().chain(args).copied().collect();
    let out = run(&a);
    let e = stderr(&out);
    assert!(
        !out.status.success() && e.contains(want) && e.lines().count() == 1,
        "{a:?}: {e}"
    );
}

/// A game between `white` and `black` with `result`, as fastchess writes its tags.
fn game(white: &str, black: &str, result: &str) -> String {
    format!(
        "[Event \"Fastchess Tournament\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
         [Result \"{result}\"]\n\n1. e4 e5 2. Nf3 Nc6 {result}\n\n"
    )
}

#[test]
fn scale_games_rates_a_player_against_its_anchors() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 30 wins and 10 losses against sf1400, half of them as White: 75 %, 1590.8.
    let mut text = String::new();
    for i in 0..40 {
        let won = i < 30;
        text += &if i % 2 == 0 {
            game("bot", "sf1400", if won { "1-0" } else { "0-1" })
        } else {
            game("sf1400", "bot", if won { "0-1" } else { "1-0" })
        };
    }
    // A game between two anchors and one unfinished: not counted.
    text += &game("sf1400", "sf1500", "1-0");
    text += &game("bot", "sf1500", "*");
    let pgn = dir.path().join("m.pgn");
    std::fs::write(&pgn, text).expect("write");
    let p = pgn.to_str().expect("path");
    let r = run_json(&[
        "scale",
        "games",
        p,
        "--anchor",
        "sf1400=1400",
        "--anchor",
        "sf1500=1500",
        "--json",
    ]);
    let bot = &r[0];
    assert_eq!(bot["player"], "bot");
    assert_eq!(bot["games"], 40);
    let elo = bot["elo"].as_f64().expect("elo");
    assert!((elo - 1590.85).abs() < 0.1, "{r}");
    assert!(bot["ci_low"].as_f64().expect("low") < elo);
    let text = run(&["scale", "games", p, "--anchor", "sf1400=1400"]);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.starts_with("bot: 1591"), "{out}");
    // Refusals, one line each: a malformed anchor, no game against the anchors, no file.
    for (args, want) in [
        (vec!["--anchor", "sf1400"], "expected NAME=ELO"),
        (
            vec!["--anchor", "nobody=1400"],
            "no game between a player and an anchor",
        ),
    ] {
        refused(&["scale", "games", p], &args, want);
    }
    refused(
        &["scale", "games", "missing.pgn"],
        &["--anchor", "a=1"],
        "missing.pgn",
    );
}

/// A judged outcome line: position `i`, the mover rated `elo`, the engine's move losing
/// `loss`, the human's `human`, in a level position.
fn line(i: usize, elo: u16, loss: i32, human: i32) -> String {
    format!(
        "{{\"fen\":\"f{i}\",\"human\":\"e2e4\",\"played\":\"d2d4\",\"matched\":false,\
         \"probability\":null,\"rank\":null,\"loss\":{loss},\"human_loss\":{human},\
         \"value\":0,\"elo\":{elo},\"ply\":20}}\n"
    )
}

#[test]
fn scale_moves_orders_rated_runs_and_places_unrated_runs_and_people() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Four engines whose share of 200 cp losses halves every 200 Elo, on 200 positions of one
    // band whose people lose 200 cp in every 4th position: as the engine rated 1500.
    let mut args: Vec<String> = vec!["scale".into(), "moves".into()];
    for (elo, every) in [(1100, 1), (1300, 2), (1500, 4), (1700, 8), (0, 4)] {
        let name = if elo == 0 {
            "x".to_string()
        } else {
            format!("e{elo}")
        };
        let folder = dir.path().join(&name);
        std::fs::create_dir(&folder).expect("mkdir");
        // Two files, read in their bands' order.
        for (file, range) in [("800.jsonl", 0..100), ("1000.jsonl", 100..200)] {
            let text: String = range
                .map(|i| {
                    let loss = if i % every == 0 { 200 } else { 0 };
                    line(i, 1450, loss, if i % 4 == 0 { 200 } else { 0 })
                })
                .collect();
            std::fs::write(folder.join(file), text).expect("write");
        }
        args.push(format!("{name}={}", folder.display()));
        if elo > 0 {
            args.push("--elo".into());
            args.push(format!("{name}={elo}±20"));
        }
    }
    args.extend(["--resamples".into(), "100".into(), "--json".into()]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run_json(&a);
    assert_eq!(r["positions"], 200);
    assert_eq!(r["rated"], 4);
    let rho = r["validation"][0]["spearman"].as_f64().expect("rho");
    assert!((rho - 1.0).abs() < 1e-9, "{r}");
    let x = r["runs"][4]["rating"]["value"].as_f64().expect("x placed");
    let people = r["bands"][0]["rating"]["value"]
        .as_f64()
        .expect("people placed");
    assert!(
        (x - 1500.0).abs() < 1.0 && (people - 1500.0).abs() < 1.0,
        "{r}"
    );
    assert_eq!(r["bands"][0]["band"], "1400-1599");
    // Refusals: too few rated runs; a run on other positions; an --elo naming no run.
    let e1100 = format!("e1100={}", dir.path().join("e1100").display());
    let x = format!("x={}", dir.path().join("x").display());
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, line(0, 1450, 0, 0)).expect("write");
    let other = format!("o={}", other.display());
    for (args, want) in [
        (
            vec![e1100.as_str(), x.as_str(), "--elo", "e1100=1100"],
            "at least 3",
        ),
        (
            vec![e1100.as_str(), other.as_str()],
            "is not on e1100's positions",
        ),
        (
            vec![e1100.as_str(), "--elo", "nobody=1"],
            "no run is labelled so",
        ),
        (vec!["e1100"], "expected LABEL=PATH"),
    ] {
        refused(&["scale", "moves"], &args, want);
    }
}

#[test]
fn scale_errors_sets_a_run_beside_its_bands_people_by_phase() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 100 positions of 1400s and 100 of 2000s; the 1400s blunder in every 10th, the run in
    // every 20th: 5 points under them. The 2000s are not the run's band.
    let text: String = (0..200)
        .map(|i| {
            let elo = if i < 100 { 1450 } else { 2050 };
            line(
                i,
                elo,
                if i % 20 == 0 { 300 } else { 0 },
                if i % 10 == 0 { 300 } else { 0 },
            )
        })
        .collect();
    let file = dir.path().join("level1400.jsonl");
    std::fs::write(&file, text).expect("write");
    let spec = format!("level1400={}", file.display());
    let r = run_json(&[
        "scale",
        "errors",
        &spec,
        "--band",
        "level1400=1400",
        "--resamples",
        "100",
        "--json",
    ]);
    let level = &r[0];
    assert_eq!(level["band"], "1400-1599", "{r}");
    let p = &level["phases"][0];
    assert_eq!(
        (p["phase"].as_str(), p["positions"].as_u64()),
        (Some("plies 10-39"), Some(100))
    );
    let delta = p["blunders_delta"][0].as_f64().expect("delta");
    assert!((delta + 5.0).abs() < 1e-9 && p["within"] == false, "{r}");
    for (args, want) in [
        (
            vec![spec.as_str(), "--band", "level1400"],
            "expected LABEL=LOW",
        ),
        (
            vec![spec.as_str(), "--band", "nobody=1400"],
            "no run is labelled so",
        ),
        (
            vec![spec.as_str(), "--band", "level1400=800"],
            "no judged position",
        ),
    ] {
        refused(&["scale", "errors"], &args, want);
    }
}
