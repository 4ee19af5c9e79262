//! `precedent eval` on fixtures whose answers are known. Retrieval alone (`--revise false`):
//! these check the imitation measurement, not the tactical check.

mod common;

use common::{run, run_json, stderr};

const GAME: &str = r#"[Event "Fixture 2"]
[Site "https://example.org/g2"]
[Date "2024.01.02"]
[White "bob"]
[Black "Carol"]
[Result "1-0"]
[WhiteElo "1650"]
[BlackElo "2100"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 1-0
"#;

/// A case base of the one game above (11 cases).
fn one_game_casebase(dir: &std::path::Path) -> String {
    let pgn = dir.join("one.pgn");
    std::fs::write(&pgn, GAME).expect("write");
    let cb = dir.join("one.cb");
    run_json(&[
        "build",
        pgn.to_str().expect("path"),
        "-o",
        cb.to_str().expect("path"),
        "--json",
    ]);
    cb.to_str().expect("path").to_string()
}

/// `eval` of the games in `pgn` against case base `cb`, retrieval alone, as JSON; `extra`
/// arguments added.
fn eval_retrieval(pgn: &std::path::Path, cb: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "eval",
        "--pgn",
        pgn.to_str().expect("path"),
        "--casebase",
        cb,
        "--revise",
        "false",
        "--json",
    ];
    args.extend_from_slice(extra);
    run_json(&args)
}

#[test]
fn replaying_known_positions_matches_every_move_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    // The same moves in another game (other site, other players): not the same game, but every
    // position is in the case base.
    let other = GAME
        .replace("example.org/g2", "example.org/g9")
        .replace("bob", "Zed");
    let held = dir.path().join("held.pgn");
    std::fs::write(&held, other).expect("write");
    let r = run_json(&[
        "eval",
        "--pgn",
        held.to_str().expect("path"),
        "--casebase",
        &cb,
        "--k",
        "1",
        "--revise",
        "false",
        "--json",
    ]);
    assert_eq!(r["positions"], 11, "{r}");
    assert_eq!(r["matches"], 11, "{r}");
    assert_eq!(r["accuracy"], 1.0);
    assert_eq!(r["exact_match_rate"], 1.0);
    assert_eq!(r["games_in_casebase"], 0);
    assert!(
        r["ci_low"].as_f64().expect("ci") > 0.7 && r["ci_high"] == 1.0,
        "{r}"
    );
    assert_eq!(r["by_phase"][0]["name"], "plies 0-9");
    assert_eq!(r["by_phase"][0]["positions"], 10);
    assert_eq!(r["by_phase"][1]["positions"], 1);
    // Mover bands: bob/Zed 1650 (6 moves), Carol 2100 (5 moves).
    assert_eq!(r["by_band"][0]["name"], "1600-1799");
    assert_eq!(r["by_band"][0]["positions"], 6);
    assert_eq!(r["by_band"][1]["positions"], 5);
}

#[test]
fn contamination_guard_excludes_and_counts_games_of_the_case_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    // The case base's own game plus a different one.
    let mixed = format!(
        "{GAME}\n{}",
        GAME.replace("example.org/g2", "example.org/g3")
    );
    let held = dir.path().join("mixed.pgn");
    std::fs::write(&held, mixed).expect("write");
    let r = eval_retrieval(&held, &cb, &[]);
    assert_eq!(r["games_in_casebase"], 1, "{r}");
    assert_eq!(r["games_used"], 1);
    assert_eq!(r["positions"], 11);
    // Only the case base's own game: nothing left to evaluate, said in one line.
    let own = dir.path().join("own.pgn");
    std::fs::write(&own, GAME).expect("write");
    let o = run(&[
        "eval",
        "--pgn",
        own.to_str().expect("path"),
        "--casebase",
        &cb,
        "--revise",
        "false",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("excluding 1 games found in the case base"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn fit_test_half_samples_only_the_games_the_fit_never_sees() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    // Sixteen games, each its own key (another site): `fit`'s split sends some to each half.
    let games: Vec<String> = (10..26)
        .map(|i| GAME.replace("example.org/g2", &format!("example.org/g{i}")))
        .collect();
    let held = dir.path().join("many.pgn");
    std::fs::write(&held, games.join("\n")).expect("write");
    let all = eval_retrieval(&held, &cb, &["--positions", "1000"]);
    assert_eq!(all["games_used"], 16, "{all}");
    let half = eval_retrieval(&held, &cb, &["--positions", "1000", "--fit-test-half"]);
    let used = half["games_used"].as_u64().expect("games_used");
    assert!(used > 0 && used < 16, "{half}");
    assert_eq!(half["positions"].as_u64(), Some(11 * used), "{half}");
}

#[test]
fn held_out_samples_exactly_the_games_a_holdout_build_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Sixteen games, each its own key.
    let games: Vec<String> = (10..26)
        .map(|i| GAME.replace("example.org/g2", &format!("example.org/g{i}")))
        .collect();
    let many = dir.path().join("many.pgn");
    std::fs::write(&many, games.join("\n")).expect("write");
    let cb = dir.path().join("half.cb");
    let built = run_json(&[
        "build",
        many.to_str().expect("utf-8"),
        "--holdout",
        "50",
        "-o",
        cb.to_str().expect("utf-8"),
        "--json",
    ]);
    let kept = built["games_used"].as_u64().expect("games_used");
    assert!(kept > 0 && kept < 16, "{built}");
    // The games it left out, and only those: with the case base's, the whole file.
    let cb = cb.to_str().expect("utf-8");
    let held = eval_retrieval(&many, cb, &["--positions", "1000", "--held-out", "50"]);
    assert_eq!(held["games_in_casebase"].as_u64(), Some(kept), "{held}");
    assert_eq!(held["games_used"].as_u64(), Some(16 - kept), "{held}");
    // Another case base (one game): still only the games the build held out are sampled.
    let one = one_game_casebase(dir.path());
    let other = eval_retrieval(&many, &one, &["--positions", "1000", "--held-out", "50"]);
    assert_eq!(other["games_used"].as_u64(), Some(16 - kept), "{other}");
    let out = run(&["eval", "--pgn", "x.pgn", "--held-out", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn mover_filters_and_skip_plies_select_positions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    let other = GAME.replace("example.org/g2", "example.org/g5");
    let held = dir.path().join("held.pgn");
    std::fs::write(&held, other).expect("write");
    let r = eval_retrieval(&held, &cb, &["--min-elo", "2000"]);
    assert_eq!(r["positions"], 5);
    let r = eval_retrieval(&held, &cb, &["--skip-plies", "4", "--player", "BOB"]);
    // bob's moves at plies 4, 6, 8, 10.
    assert_eq!(r["positions"], 4);
    let r = eval_retrieval(&held, &cb, &["--positions", "3", "--seed", "5"]);
    assert_eq!(r["positions"], 3);
    assert_eq!(r["eligible_positions"], 11);
}

#[test]
fn epd_suite_reports_solved_positions_and_points() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    // After 1. d4 d5 2. c4: the case base's answer is 2... e6. Position 2 avoids it; position 3
    // gives STS-style points.
    let epd = "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - bm e6; id \"one\";\n\
               rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - am e6; id \"two\";\n\
               rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - bm c6; id \"three\"; c0 \"c6=100, e6=60, dxc4=40\";\n";
    let path = dir.path().join("suite.epd");
    std::fs::write(&path, epd).expect("write");
    let r = run_json(&[
        "eval",
        "--epd",
        path.to_str().expect("path"),
        "--casebase",
        &cb,
        "--k",
        "1",
        "--revise",
        "false",
        "--json",
    ]);
    assert_eq!(
        (r["total"].as_u64(), r["solved"].as_u64()),
        (Some(3), Some(1)),
        "{r}"
    );
    assert_eq!(r["unsolved"], serde_json::json!(["two", "three"]));
    assert_eq!(
        (r["points"].as_u64(), r["max_points"].as_u64()),
        (Some(60), Some(100))
    );
}

#[test]
fn the_cases_ablation_compares_the_same_positions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = common::fixture("lichess-rapid-sample.pgn.zst");
    let sample = sample.to_str().expect("path");
    let cb = dir.path().join("sample.cb");
    let cb = cb.to_str().expect("path");
    run_json(&["build", sample, "--holdout", "20", "-o", cb, "--json"]);
    let r = run_json(&[
        "eval",
        "--pgn",
        sample,
        "--casebase",
        cb,
        "--skip-plies",
        "10",
        "--positions",
        "40",
        "--movetime",
        "20",
        "--seed",
        "5",
        "--ablation",
        "--json",
    ]);
    // Only held-out games are sampled, and both runs answer the same 40 positions.
    assert_eq!(
        r["games_in_casebase"].as_u64().map(|g| g > 0),
        Some(true),
        "{r}"
    );
    let a = &r["ablation"];
    assert_eq!(a["positions"], 40, "{r}");
    assert_eq!(r["positions"], 40, "{r}");
    assert!(
        a["against"].as_str().is_some_and(|g| g.contains(" cases)")),
        "{a}"
    );
    let f = |v: &serde_json::Value| v.as_f64().expect("number");
    // Paired: the difference in accuracy is exactly the positions only the own case base
    // matched minus those only the one-game base matched, and the interval holds it.
    let own_only = f(&a["own_only"]);
    let one_only = f(&a["other_only"]);
    assert!(
        (f(&a["delta"]) - (own_only - one_only) / 40.0).abs() < 1e-9,
        "{a}"
    );
    assert!(
        (f(&r["accuracy"]) - f(&a["accuracy"]) - f(&a["delta"])).abs() < 1e-9,
        "{a}"
    );
    assert!(f(&a["delta_ci_low"]) <= f(&a["delta"]) && f(&a["delta"]) <= f(&a["delta_ci_high"]));
    // The move model reports its probabilities for both runs.
    assert!(f(&a["mean_log_likelihood"]) < 0.0, "{a}");
    assert!(f(&r["mean_log_likelihood"]) < 0.0, "{r}");
}

#[test]
fn a_level_is_compared_with_the_default_style_on_the_same_positions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = common::fixture("lichess-rapid-sample.pgn.zst");
    let sample = sample.to_str().expect("path");
    let cb = dir.path().join("sample.cb");
    let cb = cb.to_str().expect("path");
    run_json(&["build", sample, "--holdout", "20", "-o", cb, "--json"]);
    let r = run_json(&[
        "eval",
        "--pgn",
        sample,
        "--casebase",
        cb,
        "--skip-plies",
        "10",
        "--positions",
        "30",
        "--movetime",
        "20",
        "--seed",
        "5",
        "--elo",
        "1000",
        "--against-default",
        "--json",
    ]);
    assert!(
        r["engine"]
            .as_str()
            .is_some_and(|e| e.contains("human at level 1000")),
        "{r}"
    );
    let a = &r["against_default"];
    assert_eq!(a["positions"], 30, "{r}");
    assert!(
        a["against"]
            .as_str()
            .is_some_and(|e| e.contains("style imitate")),
        "{a}"
    );
    let f = |v: &serde_json::Value| v.as_f64().expect("number");
    assert!(
        (f(&a["delta"]) - (f(&a["own_only"]) - f(&a["other_only"])) / 30.0).abs() < 1e-9,
        "{a}"
    );
    assert!(
        (f(&r["accuracy"]) - f(&a["accuracy"]) - f(&a["delta"])).abs() < 1e-9,
        "{a}"
    );
    // Without a level there is nothing to compare: clap refuses the flag.
    let out = run(&["eval", "--pgn", sample, "--against-default"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--elo"), "{}", stderr(&out));
}

/// An external engine's limit is `--limit`: the reasoner's `--depth` or `--movetime` beside
/// `--engine` would be ignored, so it is refused with a one-line error naming both flags.
#[test]
fn the_reasoners_budget_flags_are_refused_with_an_external_engine() {
    let sample = common::fixture("lichess-rapid-sample.pgn.zst");
    let sample = sample.to_str().expect("path");
    for flag in [["--depth", "6"], ["--movetime", "50"]] {
        let o = run(&[
            "eval",
            "--pgn",
            sample,
            "--engine",
            "/bin/true",
            flag[0],
            flag[1],
        ]);
        assert!(!o.status.success(), "{flag:?} accepted beside --engine");
        let err = stderr(&o);
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.contains(flag[0]) && first.contains("--engine"),
            "{flag:?}: {err}"
        );
    }
}

/// An external engine is measured as it is: the reasoner's settings, a parameter file and the
/// comparisons of Precedent's case bases beside `--engine` are refused before any work, with
/// one line naming the flag; `--seed` (the sample) is not among them.
#[test]
fn the_reasoners_settings_are_refused_with_an_external_engine() {
    let sample = common::fixture("lichess-rapid-sample.pgn.zst");
    let sample = sample.to_str().expect("path");
    let refused: [&[&str]; 6] = [
        &["--elo", "1800"],
        &["--style", "best"],
        &["--k", "8", "--seed", "3"],
        &["--params", "absent.toml"],
        &["--ablation"],
        &["--compare", "absent.cb"],
    ];
    for flags in refused {
        let mut a = vec!["eval", "--pgn", sample, "--engine", "/bin/true"];
        a.extend_from_slice(flags);
        let o = run(&a);
        assert!(!o.status.success(), "{flags:?} accepted beside --engine");
        let err = stderr(&o);
        let first = err.lines().next().unwrap_or_default();
        assert!(
            first.contains(flags[0]) && first.contains("--engine") && !first.contains("--seed"),
            "{flags:?}: {err}"
        );
    }
}

#[test]
fn judged_runs_carry_their_losses_and_side_by_side_pairs_and_charts_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    let engine = common::scorer_engine(dir.path());
    let engine = engine.to_str().expect("path");
    let held = dir.path().join("held.pgn");
    std::fs::write(&held, GAME.replace("example.org/g2", "example.org/g9")).expect("write");
    let ours = dir.path().join("ours.jsonl");
    let theirs = dir.path().join("theirs.jsonl");
    let judge = ["--judge", engine, "--judge-limit", "depth=1"];
    let mut a = vec!["--k", "1", "--outcomes", ours.to_str().expect("path")];
    a.extend_from_slice(&judge);
    let r = eval_retrieval(&held, &cb, &a);
    assert_eq!(r["matches"], 11, "{r}");
    let t = run_json(&[
        "eval",
        "--pgn",
        held.to_str().expect("path"),
        "--casebase",
        &cb,
        "--engine",
        engine,
        "--limit",
        "depth=1",
        "--outcomes",
        theirs.to_str().expect("path"),
        "--judge",
        engine,
        "--judge-limit",
        "depth=1",
        "--json",
    ]);
    // Every outcome line carries the judge's losses of both moves.
    let text = std::fs::read_to_string(&ours).expect("outcomes");
    assert_eq!(text.lines().count(), 11);
    assert!(
        text.lines()
            .all(|l| l.contains("\"loss\":") && l.contains("\"human_loss\":")),
        "{text}"
    );
    let chart = dir.path().join("c.svg");
    let s = run_json(&[
        "side-by-side",
        &format!("scorer={}", theirs.display()),
        ours.to_str().expect("path"),
        "--chart",
        chart.to_str().expect("path"),
        "--json",
    ]);
    assert_eq!(s["runs"][0]["label"], "scorer");
    assert_eq!(s["runs"][1]["label"], "ours");
    assert_eq!(s["runs"][0]["matches"], t["matches"]);
    assert_eq!(s["runs"][1]["matches"], 11);
    let delta = s["runs"][1]["paired"]["delta"].as_f64().expect("delta");
    let want = 1.0 - t["accuracy"].as_f64().expect("accuracy");
    assert!((delta - want).abs() < 1e-9, "{s}");
    let ours_blunders = s["runs"][1]["judged"]["blunders"][0]
        .as_f64()
        .expect("judged");
    let engine_blunders = r["blunder_rate"].as_f64().expect("eval's judge");
    assert!((ours_blunders - engine_blunders).abs() < 1e-12, "{s} {r}");
    assert_eq!(s["humans"]["judged"], 11);
    let svg = std::fs::read_to_string(&chart).expect("chart");
    assert!(svg.starts_with("<svg") && svg.contains("ours") && svg.contains("scorer"));
    // Split by the judge's verdict on the humans' moves: the groups hold the positions whose
    // human move lost less than 200 cp and the rest, as the outcome lines say.
    let blunders = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("outcome line"))
        .filter(|v| v["human_loss"].as_i64().expect("judged") >= 200)
        .count() as u64;
    let s = run_json(&[
        "side-by-side",
        theirs.to_str().expect("path"),
        ours.to_str().expect("path"),
        "--by",
        "human",
        "--json",
    ]);
    let groups = s["breakdowns"][0]["groups"].as_array().expect("groups");
    let count = |name: &str| {
        groups
            .iter()
            .find(|g| g["name"] == name)
            .map_or(0, |g| g["positions"].as_u64().expect("positions"))
    };
    assert_eq!(count("blunder"), blunders, "{s}");
    assert_eq!(count("sound") + count("blunder"), 11, "{s}");
    // A run on other positions is refused, naming both files.
    let short = dir.path().join("short.jsonl");
    let lines: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&short, lines.join("\n")).expect("write");
    let out = run(&[
        "side-by-side",
        ours.to_str().expect("path"),
        short.to_str().expect("path"),
    ]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("short.jsonl against") && e.contains("not the same sample"),
        "{e}"
    );
}

#[test]
fn the_judge_cache_gives_the_judges_own_values_and_refuses_a_damaged_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    let engine = common::scorer_engine(dir.path());
    let engine = engine.to_str().expect("path");
    let held = dir.path().join("held.pgn");
    std::fs::write(&held, GAME.replace("example.org/g2", "example.org/g9")).expect("write");
    let cache = dir.path().join("judge.jsonl");
    let cache_arg = cache.to_str().expect("path");
    let judged = |outcomes: &std::path::Path, extra: &[&str]| {
        let mut a = vec![
            "--k",
            "1",
            "--outcomes",
            outcomes.to_str().expect("path"),
            "--judge",
            engine,
            "--judge-limit",
            "depth=1",
        ];
        a.extend_from_slice(extra);
        eval_retrieval(&held, &cb, &a)
    };
    let plain = dir.path().join("plain.jsonl");
    let first = dir.path().join("first.jsonl");
    let again = dir.path().join("again.jsonl");
    let r0 = judged(&plain, &[]);
    let r1 = judged(&first, &["--judge-cache", cache_arg]);
    let lines = |p: &std::path::Path| std::fs::read_to_string(p).expect("outcomes");
    // The same values with the cache as without it; each line has the position's value, the
    // mover's rating and the ply; and the cache holds each position's value and its move's.
    assert_eq!(lines(&plain), lines(&first));
    assert!(r0["mean_score_loss"].is_f64(), "{r0}");
    assert_eq!(r0["mean_score_loss"], r1["mean_score_loss"]);
    let first_line: serde_json::Value =
        serde_json::from_str(lines(&first).lines().next().expect("a line")).expect("json");
    assert!(first_line["value"].is_i64(), "{first_line}");
    assert_eq!(first_line["elo"], 1650);
    assert_eq!(first_line["ply"], 0);
    let kept = lines(&cache);
    // 11 positions, the engine's move the human's in each (k 1 on its own game): 22 judgements.
    assert_eq!(kept.lines().count(), 22, "{kept}");
    // A second run reads the cache and searches nothing new: every value comes from the file
    // (here altered, to show that it is the file's value that is used).
    let altered: String = kept
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a judgement");
            v["value"] = (v["value"].as_i64().expect("value") + 7).into();
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&cache, &altered).expect("write");
    judged(&again, &["--judge-cache", cache_arg]);
    assert_eq!(lines(&cache), altered, "nothing appended");
    assert_ne!(lines(&again), lines(&first));
    // A last line cut short (a run stopped while writing) is left out; a damaged line
    // elsewhere is refused, naming the file and the line.
    std::fs::write(&cache, format!("{kept}{{\"judge\":\"x")).expect("write");
    judged(&again, &["--judge-cache", cache_arg]);
    assert_eq!(lines(&plain), lines(&again));
    // A run that searches again (half the judgements gone) cuts the torn line before it
    // appends, and the file reads whole.
    let half: Vec<&str> = kept.lines().take(11).collect();
    std::fs::write(&cache, format!("{}\n{{\"judge\":\"x", half.join("\n"))).expect("write");
    judged(&again, &["--judge-cache", cache_arg]);
    assert_eq!(lines(&plain), lines(&again));
    assert_eq!(lines(&cache).lines().count(), 22);
    judged(&again, &["--judge-cache", cache_arg]);
    assert_eq!(lines(&cache).lines().count(), 22, "nothing new");
    std::fs::write(&cache, format!("not json\n{kept}")).expect("write");
    let out = run(&[
        "eval",
        "--pgn",
        held.to_str().expect("path"),
        "--casebase",
        &cb,
        "--revise",
        "false",
        "--judge",
        engine,
        "--judge-cache",
        cache_arg,
    ]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("judge.jsonl line 1: not a judgement") && e.lines().count() == 1,
        "{e}"
    );
}

#[test]
fn eval_samples_by_the_games_speed_and_leaves_out_named_players() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cb = one_game_casebase(dir.path());
    let held = dir.path().join("held.pgn");
    let bullet = GAME
        .replace("example.org/g2", "example.org/g9")
        .replace("[Result", "[TimeControl \"60+0\"]\n[Result");
    std::fs::write(&held, bullet).expect("write");
    // A one-minute game is bullet: all 11 moves; none is blitz.
    let r = eval_retrieval(&held, &cb, &["--speed", "bullet"]);
    assert_eq!(r["positions"], 11, "{r}");
    let out = run(&[
        "eval",
        "--pgn",
        held.to_str().expect("path"),
        "--casebase",
        &cb,
        "--revise",
        "false",
        "--speed",
        "blitz",
    ]);
    let e = stderr(&out);
    assert!(
        !out.status.success() && e.contains("no position passes the filters"),
        "{e}"
    );
    // Without bob (White, whatever the case of the name): Carol's 5 moves.
    let r = eval_retrieval(&held, &cb, &["--not-player", "BOB"]);
    assert_eq!(r["positions"], 5, "{r}");
    let out = run(&["eval", "--pgn", "x.pgn", "--speed", "hyperbullet"]);
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("hyperbullet"), "{e}");
}
