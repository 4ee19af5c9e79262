//! `precedent frontier` on evidence that `precedent fit moves --save-evidence --ablation` gathered
//! from real games: the rows it reports, how the errors rule's extremes relate to the most
//! probable move, the cases ablation of every row, and clear one-line errors for damaged
//! evidence and a missing level.

mod common;

use common::{fixture, run, run_json, stderr};

/// Gathers evidence from the fixture's games (those outside the embedded case base) into `dir`.
fn evidence(dir: &std::path::Path) -> std::path::PathBuf {
    let pgn = fixture("lichess-rapid-sample.pgn.zst");
    let path = dir.join("evidence.jsonl");
    let out = run(&[
        "fit",
        "moves",
        "--pgn",
        pgn.to_str().expect("path"),
        "--positions",
        "20",
        "--test-positions",
        "80",
        "--movetime",
        "20",
        "--seed",
        "1",
        "--ablation",
        "--save-evidence",
        path.to_str().expect("path"),
        "--out",
        dir.join("fitted.toml").to_str().expect("path"),
    ]);
    assert!(out.status.success(), "fit failed: {}", stderr(&out));
    path
}

#[test]
fn frontier_traces_the_level_against_the_default_style_on_the_test_half() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ev = evidence(dir.path());
    let ev = ev.to_str().expect("path");
    let report = run_json(&[
        "frontier",
        "--evidence",
        ev,
        "--elo",
        "1600",
        "--ratios",
        "0,1",
        "--temperatures",
        "0.01",
        "--json",
    ]);
    let positions = report["positions"].as_u64().expect("positions");
    assert!(positions >= 20, "{positions} test positions");
    let rows = report["rows"].as_array().expect("rows");
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "default style (imitate)",
            "level 1600, most probable",
            "level 1600, drawn",
            "level 1600, errors rule",
            "level 1600, errors rule",
        ]
    );
    // The level's own search weight (1.0 at level 1600) when none is given.
    assert_eq!(rows[1]["search_weight"], 1.0);
    assert_eq!(report["humans"]["matching"], 1.0);
    assert!(
        rows[0]["delta"].is_null(),
        "the default style is the baseline"
    );
    assert!(rows[1]["delta"][0].is_f64());
    let field = |i: usize, f: &str| rows[i][f].as_f64().expect(f);
    // Ratio 1 errs only where an error is the most probable move: the most probable move.
    // Ratio 0 errs wherever an error is possible: at least as often.
    for f in ["matching", "search_blunders"] {
        assert_eq!(
            field(4, f),
            field(1, f),
            "{f}: ratio 1 against most probable"
        );
    }
    assert!(field(3, "search_blunders") >= field(1, "search_blunders"));
    assert!(
        field(3, "search_blunders") > 0.5,
        "ratio 0 plays an error in most positions: {}",
        field(3, "search_blunders")
    );
    for r in rows {
        let m = r["matching"].as_f64().unwrap();
        let (lo, hi) = (
            r["ci_low"].as_f64().unwrap(),
            r["ci_high"].as_f64().unwrap(),
        );
        assert!(lo <= m && m <= hi && 0.0 <= lo && hi <= 1.0, "{r}");
        assert!(r["judged"].is_null(), "no judge, no verdict");
    }

    // The chart.
    let svg = dir.path().join("frontier.svg");
    let out = run(&[
        "frontier",
        "--evidence",
        ev,
        "--elo",
        "1400",
        "--search-weights",
        "0.3,1",
        "--chart",
        svg.to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = std::fs::read_to_string(&svg).expect("the chart is written");
    assert!(
        svg.starts_with("<svg") && svg.contains("Level 1400"),
        "{svg:.200}"
    );

    // The fitting half too: more positions.
    let both = run_json(&[
        "frontier",
        "--evidence",
        ev,
        "--elo",
        "1600",
        "--both-halves",
        "--json",
    ]);
    assert!(both["positions"].as_u64().unwrap() > positions);

    // The text report names the level and every way to play.
    let out = run(&["frontier", "--evidence", ev, "--elo", "1400"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("level 1400 (the model of movers rated 1400-1599)"),
        "{text}"
    );
    assert!(
        text.contains("level 1400, drawn"),
        "level 1400 draws: {text}"
    );

    // The cases ablation of every row. Level 1400 heeds its search at half weight (0.5): much
    // of its choice comes from the cases, and a one-game case base loses many of the humans'
    // moves (+18.8 points on 1,000 held-out positions of movers 1300-1499, docs/levels.md).
    let level = run_json(&["frontier", "--evidence", ev, "--elo", "1400", "--json"]);
    for r in level["rows"].as_array().expect("rows") {
        let d = r["delta_cases"][0].as_f64().expect("delta_cases");
        let one = r["one_game_matching"].as_f64().expect("one_game_matching");
        let m = r["matching"].as_f64().unwrap();
        assert!((m - one - d).abs() < 1e-9, "{r}");
    }
    let drawn = &level["rows"][2];
    assert_eq!(drawn["name"], "level 1400, drawn");
    assert!(
        drawn["delta_cases"][1].as_f64().unwrap() > 0.0,
        "the cases matter to level 1400: {drawn}"
    );
}

#[test]
fn frontier_reports_damaged_evidence_a_missing_level_and_empty_filters_in_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ev = evidence(dir.path());
    let text = std::fs::read_to_string(&ev).expect("read");
    let damaged = dir.path().join("damaged.jsonl");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "{\"fen\": \"truncated");
    std::fs::write(&damaged, lines.join("\n")).expect("write");
    let ev = ev.to_str().expect("path");

    let cases: [(Vec<&str>, &str); 6] = [
        (
            vec!["--evidence", damaged.to_str().unwrap(), "--elo", "1600"],
            "damaged.jsonl: line 2",
        ),
        (
            vec!["--evidence", "/nonexistent/evidence.jsonl", "--elo", "1600"],
            "/nonexistent/evidence.jsonl",
        ),
        (vec!["--evidence", ev], "--elo"),
        (
            vec!["--evidence", ev, "--elo", "1600", "--min-elo", "3000"],
            "passes the filters",
        ),
        (
            vec!["--evidence", ev, "--elo", "1600", "--k", "8"],
            "--k has no effect",
        ),
        (
            vec![
                "--evidence",
                ev,
                "--elo",
                "1600",
                "--judge",
                "/usr/games/stockfish",
                "--judge-limit",
                "depth=twelve",
            ],
            "--judge-limit depth=twelve",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["frontier"];
        all.extend(args.iter().copied());
        let out = run(&all);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    // `--hidden` takes centipawns or `off` (level 1800's rule without its `hidden`).
    for hidden in ["off", "80"] {
        let args = [
            "frontier",
            "--evidence",
            ev,
            "--elo",
            "1800",
            "--ratios",
            "0.1",
        ];
        let out = run(&[&args[..], &["--hidden", hidden]].concat());
        assert!(out.status.success(), "{hidden}: {}", stderr(&out));
    }
    let out = run(&[
        "frontier",
        "--evidence",
        ev,
        "--elo",
        "1800",
        "--hidden",
        "lots",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("\"lots\" is neither centipawns nor off"),
        "{}",
        stderr(&out)
    );
}
