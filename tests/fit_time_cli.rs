//! `precedent fit time` on clocked games: it fits the pacing model that `HumanTime` reads, and
//! measures it against its baselines on the held-out half; games without clocks are a clear
//! error.

mod common;

use common::{fixture, run, shared_data, stderr};

#[test]
fn fit_time_fits_a_pacing_model_the_engine_accepts_and_measures_it() {
    let Some(pgn) = shared_data("lichess-two-accounts-bullet-blitz.pgn.zst") else {
        eprintln!("skipped: ../shared/data has no clocked games");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let chart = dir.path().join("chart.svg");
    let out = run(&[
        "fit",
        "time",
        "--pgn",
        pgn.to_str().expect("path"),
        "--max-games",
        "400",
        "--chart-control",
        "60+0",
        "--chart",
        chart.to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    for predictor in [
        "people",
        "even share",
        "linear (maia-style)",
        "pacing model, drawn",
    ] {
        assert!(text.contains(predictor), "{predictor}: {text}");
    }
    let svg = std::fs::read_to_string(&chart).expect("the chart");
    assert!(
        svg.starts_with("<svg") && svg.contains("people"),
        "{svg:.200}"
    );
    // The printed table, with HumanTime on, is a parameter file the engine takes.
    let table = &text[text.find("[pace]").expect("a [pace] table")..];
    let table = table.split("\n\n").next().expect("the table");
    let params = dir.path().join("pace.toml");
    std::fs::write(&params, format!("human_time = true\n{table}\n")).expect("write");
    let go = run(&[
        "go",
        "--startpos",
        "--movetime",
        "50",
        "--params",
        params.to_str().expect("path"),
    ]);
    assert!(go.status.success(), "{}", stderr(&go));
    assert!(
        stderr(&go).contains("--human-time acts under a clock"),
        "{}",
        stderr(&go)
    );
}

#[test]
fn games_without_clocks_or_a_case_base_without_them_are_refused() {
    let out = run(&[
        "fit",
        "time",
        "--pgn",
        fixture("small.pgn").to_str().expect("path"),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no timed moves"), "{}", stderr(&out));
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = dir.path().join("small.cb");
    let built = run(&[
        "build",
        fixture("small.pgn").to_str().expect("path"),
        "-o",
        cb.to_str().expect("path"),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    let out = run(&[
        "fit",
        "time",
        "--pgn",
        fixture("small.pgn").to_str().expect("path"),
        "--casebase",
        cb.to_str().expect("path"),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("has no clocks"), "{}", stderr(&out));
    let missing = run(&["fit", "time", "--pgn", "no-such-file.pgn"]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("no-such-file.pgn"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_case_base_with_clocks_paces_by_its_nearest_cases() {
    use std::io::Write;
    let Some(pgn) = shared_data("lichess-two-accounts-bullet-blitz.pgn.zst") else {
        eprintln!("skipped: ../shared/data has no clocked games");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = dir.path().join("clocked.cb");
    let built = run(&[
        "build",
        pgn.to_str().expect("path"),
        "--max-games",
        "200",
        "-o",
        cb.to_str().expect("path"),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    let mut child = std::process::Command::new(common::bin())
        .args([
            "uci",
            "--casebase",
            cb.to_str().expect("path"),
            "--human-time",
            "true",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(
        stdin,
        "uci\nisready\nposition startpos moves e2e4 e7e5 g1f3\ngo wtime 20000 btime 20000\nquit"
    )
    .expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("engine ends");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("info string human time"))
        .unwrap_or_else(|| panic!("no human time: {text}"));
    assert!(line.contains("nearest cases' clocks"), "{line}");
    assert!(text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

#[test]
fn the_engine_probe_sets_the_engines_human_times_beside_peoples() {
    let Some(pgn) = shared_data("lichess-two-accounts-bullet-blitz.pgn.zst") else {
        eprintln!("skipped: ../shared/data has no clocked games");
        return;
    };
    let pgn = pgn.to_str().expect("path");
    let probe = |options: &[&str]| {
        let mut args = vec![
            "fit",
            "time",
            "--pgn",
            pgn,
            "--max-games",
            "400",
            "--probe-engine",
            common::bin(),
            "--probe-controls",
            "60+0",
            "--probe-positions",
            "4",
        ];
        for o in options {
            args.extend(["--probe-option", o]);
        }
        run(&args)
    };
    let out = probe(&["HumanTime=true", "UCI_LimitStrength=true", "UCI_Elo=1800"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let table = &text[text.find("engine probe").expect("the probe's table")..];
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("60+0"))
        .expect("a 60+0 row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1], "4", "{row}");
    let engine_median: f64 = cells[5].parse().expect("the engine's median");
    assert!(engine_median > 0.0 && engine_median < 60.0, "{row}");
    // Without HumanTime the engine reports no human time: said, not a table of nothing.
    let off = probe(&[]);
    assert!(!off.status.success());
    assert!(stderr(&off).contains("HumanTime=true"), "{}", stderr(&off));
    // An option without a value is named.
    let bad = probe(&["HumanTime"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("--probe-option \"HumanTime\""),
        "{}",
        stderr(&bad)
    );
}
