//! `precedent build` and `precedent info`, driven as a user would, on a fixture whose case
//! counts were made by hand (see the comments in `tests/fixtures/small.pgn`'s test table below).

mod common;

use common::{fixture, run, run_json, stderr};

/// Builds the fixture with `filters` and returns the JSON summary.
fn build(filters: &[&str]) -> serde_json::Value {
    let (summary, info) = build_from("small.pgn", filters);
    assert_eq!(info["cases"], summary["cases"], "info and build disagree");
    summary
}

/// Builds the fixture `name` with `filters`; returns the summary and `info --json`.
fn build_from(name: &str, filters: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("fx.cb");
    let input = fixture(name);
    let mut args = vec![
        "build",
        input.to_str().expect("utf-8 path"),
        "-o",
        out.to_str().expect("utf-8 path"),
        "--json",
    ];
    args.extend_from_slice(filters);
    let summary = run_json(&args);
    let info = run_json(&["info", out.to_str().expect("utf-8 path"), "--json"]);
    (summary, info)
}

// Fixture games (plies White/Black): 1 Alice 1500 – Bob 1700 (3/3); 2 bob 1650 – Carol 2100
// (6/5); 3 Dave (unrated) – Alice 1520 (2/2); 4 illegal move; 5 atomic; 6 FEN without kings;
// 7 Alice 1500 – Gina 1400 from a FEN (3/3).
#[test]
fn case_counts_under_each_filter_match_the_hand_count() {
    let table: &[(&[&str], u64)] = &[
        (&[], 27),
        (&["--player", "alice"], 8),
        (&["--player", "BOB"], 9),
        (&["--player", "Alice", "--player", "carol"], 13),
        (&["--side", "white"], 14),
        (&["--side", "black"], 13),
        (&["--min-elo", "1600"], 14),
        (&["--max-elo", "1599"], 11),
        (&["--min-elo", "1400", "--max-elo", "1799"], 20),
        (&["--skip-plies", "4"], 11),
        (&["--max-games", "2"], 17),
        (&["--player", "alice", "--side", "black"], 2),
        (
            &["--min-elo", "1600", "--side", "black", "--skip-plies", "2"],
            6,
        ),
    ];
    for (filters, cases) in table {
        assert_eq!(build(filters)["cases"], *cases, "filters {filters:?}");
    }
}

#[test]
fn two_people_who_played_each_other_are_refused_as_one_player() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("two.cb");
    let input = fixture("small.pgn");
    let o = out.to_str().expect("utf-8");
    let i = input.to_str().expect("utf-8");
    let result = run(&["build", i, "--player", "Alice", "--player", "Bob", "-o", o]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let err = stderr(&result);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("both sides of game 1"), "{err}");
    assert!(err.contains("\"Alice\" against \"Bob\""), "{err}");
    assert!(!out.exists(), "nothing is written under the output name");
}

#[test]
fn a_player_no_game_names_exits_1_with_the_nearest_names_and_their_games() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("nobody.cb");
    let input = fixture("small.pgn");
    let o = out.to_str().expect("utf-8");
    let i = input.to_str().expect("utf-8");
    let result = run(&["build", i, "--player", "Alic", "-o", o]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let err = stderr(&result);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no game of"), "{err}");
    assert!(err.contains("did you mean \"Alice\" (5 games)"), "{err}");
    assert!(!out.exists(), "nothing is written under the output name");
    // Matched, but every game left out: said so, not suggested.
    let result = run(&["build", i, "--player", "Dave", "--min-elo", "1000", "-o", o]);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    let err = stderr(&result);
    assert!(
        err.contains("none of their 1 game was kept (1 missing rating)"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn broken_games_are_skipped_and_counted_by_reason() {
    let s = build(&[]);
    assert_eq!(s["games_read"], 7);
    assert_eq!(s["games_used"], 4);
    assert_eq!(s["games_skipped"]["illegal move"], 1);
    assert_eq!(s["games_skipped"]["variant"], 1);
    assert_eq!(s["games_skipped"]["bad fen"], 1);
    let s = build(&["--min-elo", "1600"]);
    assert_eq!(s["games_skipped"]["missing rating"], 1);
    assert_eq!(s["games_skipped"]["no selected moves"], 1);
    assert!(s["seconds"].as_f64().is_some());
}

#[test]
fn strict_build_names_the_file_and_game_of_the_first_broken_game() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("fx.cb");
    let input = fixture("small.pgn");
    let o = run(&[
        "build",
        input.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
        "--strict",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("small.pgn: game 4: illegal move: 2. Ke3"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists(), "a failed build left its output");
}

#[test]
fn reads_zstd_and_stdin_and_several_inputs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = std::fs::read(fixture("small.pgn")).expect("fixture");
    let zst = dir.path().join("small.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&pgn[..], 3).expect("compress")).expect("write");
    let out = dir.path().join("o.cb");
    let (zst, out) = (zst.to_str().expect("path"), out.to_str().expect("path"));
    assert_eq!(run_json(&["build", zst, "-o", out, "--json"])["cases"], 27);
    let input = fixture("small.pgn");
    assert_eq!(
        run_json(&[
            "build",
            zst,
            input.to_str().expect("path"),
            "-o",
            out,
            "--json"
        ])["cases"],
        54
    );
    let mut child = std::process::Command::new(common::bin())
        .args(["build", "-", "-o", out, "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &pgn).expect("feed stdin");
    let o = child.wait_with_output().expect("wait");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["cases"], 27);
}

#[test]
fn truncated_zstd_input_is_one_error_line_and_no_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = std::fs::read(fixture("small.pgn"))
        .expect("fixture")
        .repeat(50);
    let packed = zstd::encode_all(&pgn[..], 3).expect("compress");
    let zst = dir.path().join("cut.pgn.zst");
    std::fs::write(&zst, &packed[..packed.len() / 2]).expect("write");
    let out = dir.path().join("o.cb");
    let o = run(&[
        "build",
        zst.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("cut.pgn.zst") && err.contains("read error"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!out.exists());
}

#[test]
fn missing_input_and_unwritable_output_are_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("o.cb");
    let err = refused(&[
        "build",
        "/nonexistent/games.pgn",
        "-o",
        out.to_str().expect("path"),
    ]);
    assert!(err.contains("/nonexistent/games.pgn: cannot open"), "{err}");
    let input = fixture("small.pgn");
    let err = refused(&[
        "build",
        input.to_str().expect("path"),
        "-o",
        "/nonexistent-dir/o.cb",
    ]);
    assert!(err.contains("/nonexistent-dir/o.cb: cannot write"), "{err}");
}

/// Runs `precedent` with `args`, which must fail; its standard error.
fn refused(args: &[&str]) -> String {
    let o = run(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    stderr(&o)
}

#[test]
fn info_reports_players_and_rating_bands() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("fx.cb");
    let input = fixture("small.pgn");
    run_json(&[
        "build",
        input.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
        "--json",
    ]);
    let info = run_json(&["info", out.to_str().expect("path"), "--json"]);
    assert_eq!(info["format_version"], 6);
    assert_eq!(info["games"], 4);
    // 27 cases on 24 distinct boards: the start position and the position after 1. e4 recur
    // across the games and are stored once each.
    assert_eq!(info["cases"], 27);
    assert_eq!(info["distinct_boards"], 24);
    assert_eq!(info["dedup_ratio"], 27.0 / 24.0);
    // Every family has patterns, and the index holds at least one entry per distinct position.
    let families = info["patterns"].as_array().expect("patterns");
    assert_eq!(families.len(), 8);
    assert!(families.iter().all(|f| f["patterns"].as_u64() > Some(0)));
    assert!(info["index_entries"].as_u64() > Some(0));
    // The policy knows every move legal in the cases' positions: the start position's 20 at least.
    assert!(info["policy_moves"].as_u64().expect("policy_moves") >= 20);
    // Alice moves in games 1 (3), 3 (2) and 7 (3).
    assert_eq!(info["top_players"][0]["name"], "Alice");
    assert_eq!(info["top_players"][0]["cases"], 8);
    let bands: Vec<(String, u64)> = info["rating_histogram"]
        .as_array()
        .expect("histogram")
        .iter()
        .map(|b| {
            (
                b["band"].as_str().expect("band").to_string(),
                b["cases"].as_u64().expect("count"),
            )
        })
        .collect();
    // 1400: Gina 3, Alice 3+2+3 (1500, 1520); 1600: bob 6, Bob 3; 2000: Carol 5; Dave unrated 2.
    assert_eq!(
        bands,
        vec![
            ("1400-1599".into(), 11),
            ("1600-1799".into(), 9),
            ("2000-2199".into(), 5)
        ]
    );
    assert_eq!(info["unrated_cases"], 2);
    let text = run(&["info", out.to_str().expect("path")]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("format version 6"), "{text}");
    assert!(text.contains("policy         95 moves"), "{text}");
    assert!(
        text.contains("24 distinct boards (1.125 cases a board)"),
        "{text}"
    );
    assert!(text.contains("move patterns"), "{text}");
}

#[test]
fn info_rejects_damaged_files_with_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.cb");
    std::fs::write(&bad, b"PRECEDNT and then nothing useful").expect("write");
    let o = run(&["info", bad.to_str().expect("path")]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("bad.cb") && err.contains("truncated"), "{err}");
    assert_eq!(err.trim().lines().count(), 1);
}

/// Builds the 1,005-game rapid fixture with `filters`; returns the summary and `info --json`.
fn build_rapid(filters: &[&str]) -> (serde_json::Value, serde_json::Value) {
    build_from("lichess-rapid-sample.pgn.zst", filters)
}

#[test]
fn max_cases_stops_at_the_game_that_reaches_it() {
    let (all, _) = build_rapid(&[]);
    let (capped, _) = build_rapid(&["--max-cases", "5000"]);
    let cases = capped["cases"].as_u64().expect("cases");
    // The cap is checked after each game: a game's moves more at most.
    assert!((5000..5600).contains(&cases), "{capped}");
    assert!(all["cases"].as_u64().expect("cases") > cases);
}

#[test]
fn band_cases_caps_every_rating_band_and_keeps_small_ones_whole() {
    let band = ["--min-elo", "800", "--max-elo", "2599"];
    let capped_band = [&band[..], &["--band-cases", "3000"]].concat();
    let (all, all_info) = build_rapid(&band);
    let (capped, info) = build_rapid(&capped_band);
    let (n_all, n_capped) = (
        all["cases"].as_u64().expect("cases"),
        capped["cases"].as_u64().expect("cases"),
    );
    assert!(n_capped < n_all, "{n_capped} of {n_all}");
    assert!(
        capped["games_skipped"]["sampled out"].as_u64().unwrap_or(0) > 0,
        "{capped}"
    );
    // Per 200-point band of the mover: about 3,000 (sampled by game and side, so a band may
    // miss it by chance, not by much), and a band below the cap kept whole.
    let count = |info: &serde_json::Value, band: &str| {
        info["rating_histogram"]
            .as_array()
            .expect("histogram")
            .iter()
            .find(|b| b["band"] == band)
            .and_then(|b| b["cases"].as_u64())
            .unwrap_or(0)
    };
    for band in ["1200-1399", "1400-1599", "1600-1799"] {
        let (before, after) = (count(&all_info, band), count(&info, band));
        assert!(before > 9_000, "{band}: {before}");
        assert!(
            (2_000..4_000).contains(&after),
            "{band}: {after} of {before}"
        );
    }
    let small = count(&all_info, "2400-2599");
    assert!(small > 0 && small < 3_000);
    assert_eq!(
        count(&info, "2400-2599"),
        small,
        "a band under the cap is kept whole"
    );
    // The same build again keeps the same cases: the draw is a hash, not a random number.
    let (again, _) = build_rapid(&capped_band);
    assert_eq!(again["cases"], capped["cases"]);
    // Standard input cannot be read twice.
    let err = stderr(&run(&[
        "build",
        "-",
        "-o",
        "/dev/null",
        "--band-cases",
        "10",
    ]));
    assert!(err.contains("--band-cases reads the input twice"), "{err}");
}

#[test]
fn packed_case_base_describes_and_plays_as_the_original() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (plain, packed) = (dir.path().join("r.cb"), dir.path().join("r.cb.zst"));
    let path = |p: &std::path::Path| p.to_str().expect("utf-8 path").to_string();
    let input = fixture("lichess-rapid-sample.pgn.zst");
    run_json(&["build", &path(&input), "-o", &path(&plain), "--json"]);
    let o = run(&["pack", &path(&plain), "-o", &path(&packed), "--level", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = |p: &std::path::Path| {
        let mut v = run_json(&["info", &path(p), "--json"]);
        v.as_object_mut().expect("object").remove("name");
        v
    };
    assert_eq!(info(&plain), info(&packed));
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let go = |p: &std::path::Path| {
        let v = run_json(&[
            "go",
            "--fen",
            fen,
            "--casebase",
            &path(p),
            "--movetime",
            "200",
            "--seed",
            "3",
            "--revise",
            "false",
            "--json",
        ]);
        v["bestmove"].clone()
    };
    let (a, b) = (go(&plain), go(&packed));
    assert!(a.is_string(), "{a}");
    assert_eq!(a, b);
    // Packing a packed file: one line, nothing written.
    let again = dir.path().join("again.cb.zst");
    let o = run(&["pack", &path(&packed), "-o", &path(&again)]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("already packed"), "{err}");
    assert_eq!(err.trim().lines().count(), 1);
    assert!(!again.exists());
}

#[test]
fn the_fits_sample_is_recorded_and_the_phases_are_timed() {
    let (whole, whole_info) = build_rapid(&[]);
    let (sampled, info) = build_rapid(&["--fit-positions", "2000"]);
    // The sample changes the statistics, not the data: the same cases, boards and index.
    for key in ["cases", "games_used"] {
        assert_eq!(whole[key], sampled[key], "{key}");
    }
    for key in ["distinct_boards", "index_entries", "patterns"] {
        assert_eq!(whole_info[key], info[key], "{key}");
    }
    assert_eq!(info["build"]["options"]["fit_positions"], 2000);
    assert_eq!(whole_info["build"]["options"]["fit_positions"], 2_000_000);
    assert!(
        info["policy_moves"].as_u64().expect("policy") > 100,
        "{info}"
    );
    let names: Vec<&str> = sampled["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| {
            assert!(p["seconds"].as_f64().expect("seconds") >= 0.0);
            p["name"].as_str().expect("name")
        })
        .collect();
    let want = [
        "read",
        "sort",
        "patterns and index",
        "pattern strengths",
        "policy",
        "write",
    ];
    assert_eq!(names, want);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("o.cb");
    let input = fixture("small.pgn");
    let err = refused(&[
        "build",
        input.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
        "--fit-positions",
        "0",
    ]);
    assert!(err.contains("--fit-positions must be at least 1"), "{err}");
    assert!(!out.exists());
}

/// Builds the rapid fixture into `dir/name` with `extra` options and a fit sample of 5,000.
fn rapid_into(dir: &std::path::Path, name: &str, extra: &[&str]) -> std::process::Output {
    let input = fixture("lichess-rapid-sample.pgn.zst");
    let out = dir.join(name);
    let mut args = vec![
        "build",
        input.to_str().expect("path"),
        "-o",
        out.to_str().expect("path"),
        "--json",
        "--fit-positions",
        "5000",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// The names of the files in `dir`, sorted.
fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_build_over_its_memory_spills_to_disk_and_writes_the_same_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let phases = |o: &std::process::Output| -> Vec<String> {
        assert!(o.status.success(), "{}", stderr(o));
        let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        summary["phases"]
            .as_array()
            .expect("phases")
            .iter()
            .map(|p| p["name"].as_str().expect("name").to_string())
            .collect()
    };
    let in_memory = phases(&rapid_into(dir.path(), "memory.cb", &[]));
    assert!(!in_memory.contains(&"split".to_string()), "{in_memory:?}");
    // 74,558 cases in 8 MB: about 3 partitions a side.
    let spilled = phases(&rapid_into(dir.path(), "disk.cb", &["--memory", "8M"]));
    let want = [
        "read",
        "split",
        "sort, patterns and index",
        "merge",
        "pattern strengths",
        "policy",
        "write",
    ];
    assert_eq!(spilled, want);
    let a = std::fs::read(dir.path().join("memory.cb")).expect("memory.cb");
    let b = std::fs::read(dir.path().join("disk.cb")).expect("disk.cb");
    assert!(a == b, "the spilled build wrote another file");
    assert_eq!(files_in(dir.path()), ["disk.cb", "memory.cb"]);
    // A budget below the fits' sample, or no size at all: one line, nothing written.
    for (memory, says) in [
        ("1M", "too small for the fits' sample of 5000 positions"),
        ("0", "a size must be above zero"),
        ("4X", "a size is a number with K, M, G or T"),
    ] {
        let o = rapid_into(dir.path(), "small.cb", &["--memory", memory]);
        assert!(!o.status.success(), "--memory {memory} succeeded");
        let err = stderr(&o);
        // The first line says it (clap adds a pointer to --help below its own).
        let first = err.lines().next().unwrap_or_default();
        assert!(first.contains(says) && first.contains("--memory"), "{err}");
    }
    assert_eq!(files_in(dir.path()), ["disk.cb", "memory.cb"]);
}

#[test]
fn a_file_that_cannot_grow_while_spilling_is_one_error_and_no_output() {
    // A file size limit of 1.6 MB lets the reading's spills (1.2 MB the largest) through and
    // stops the merged boards (2.2 MB): the write fails as on a full disk.
    let dir = tempfile::tempdir().expect("tempdir");
    let input = fixture("lichess-rapid-sample.pgn.zst");
    let out = dir.path().join("o.cb");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 3200; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_precedent"))
        .args(["build", input.to_str().expect("path"), "-o"])
        .arg(&out)
        .args(["--fit-positions", "5000", "--memory", "8M"])
        .output()
        .expect("runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("o.cb: cannot write") && err.contains("File too large"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

#[test]
fn info_into_a_pipe_nobody_reads_ends_quietly() {
    // `precedent info x.cb | head -1`, with the reader gone before the first line.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_precedent"))
        .arg("info")
        .arg(fixture("v3-small.cb"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("waits");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn lists_are_built_when_asked_and_the_engine_probes_them_unless_told_not_to() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).display().to_string();
    // `auto` gives none below 8 M boards.
    let o = rapid_into(dir.path(), "plain.cb", &["--no-patterns"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(run_json(&["info", &path("plain.cb"), "--json"])["lists"], 0);
    let o = rapid_into(dir.path(), "listed.cb", &["--no-patterns", "--lists", "64"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let phases: Vec<&str> = summary["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(phases.contains(&"lists"), "{phases:?}");
    assert_eq!(
        run_json(&["info", &path("listed.cb"), "--json"])["lists"],
        64
    );
    let text = String::from_utf8(run(&["info", &path("listed.cb")]).stdout).expect("utf-8");
    assert!(text.contains("lists          64 a side"), "{text}");
    let go = |probes: &str| {
        run_json(&[
            "go",
            "--fen",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "--casebase",
            &path("listed.cb"),
            "--movetime",
            "300",
            "--seed",
            "3",
            "--probes",
            probes,
            "--json",
        ])
    };
    // Four lists a side: a few of the cases, approximately; none: all of them, exactly.
    let few = go("4");
    assert_eq!(few["lists"], 8, "{few}");
    assert!(few["scanned"].as_u64() < few["total"].as_u64(), "{few}");
    let exact = go("0");
    assert_eq!(exact["lists"], 0, "{exact}");
    assert_eq!(exact["scanned"], exact["total"], "{exact}");
    // A count that is not one: one line, nothing written.
    let o = rapid_into(dir.path(), "bad.cb", &["--lists", "many"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.lines()
            .next()
            .unwrap_or_default()
            .contains("give auto, none or a count from 1 to 65536"),
        "{err}"
    );
    assert!(!dir.path().join("bad.cb").exists());
}
