//! Parameter files (as `precedent tune` writes them) change what `go` and the UCI engine do.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn params_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("p.toml");
    std::fs::write(&path, "k = 1\np = 2.0\n\n[revise]\nenabled = false\n").expect("write");
    path
}

#[test]
fn go_reads_a_parameter_file_and_flags_override_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = params_file(dir.path());
    let p = p.to_str().expect("path");
    let r = common::run_json(&[
        "go",
        "--startpos",
        "--moves",
        "e2e4",
        "--params",
        p,
        "--json",
    ]);
    // k = 1: one case, one candidate; revise off: no verdicts.
    assert_eq!(
        r["candidates"].as_array().expect("candidates").len(),
        1,
        "{r}"
    );
    assert!(r["revise"].is_null(), "{r}");
    let r = common::run_json(&[
        "go",
        "--startpos",
        "--moves",
        "e2e4",
        "--params",
        p,
        "--k",
        "16",
        "--json",
    ]);
    assert!(
        r["candidates"].as_array().expect("candidates").len() > 1,
        "{r}"
    );
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "k = \"many\"\n").expect("write");
    let o = common::run(&["go", "--startpos", "--params", bad.to_str().expect("path")]);
    assert!(
        !o.status.success()
            && common::stderr(&o).contains("`k` = \"many\" is not a whole number in ")
            && common::stderr(&o).contains("bad.toml line 1"),
        "{}",
        common::stderr(&o)
    );
}

fn typo_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("typo.toml");
    std::fs::write(&path, "temprature = 0.3\nk = 5\n").expect("write");
    path
}

#[test]
fn a_parameter_file_with_an_unknown_key_is_refused_with_the_nearest_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = typo_file(dir.path());
    let o = common::run(&["go", "--startpos", "--params", typo.to_str().expect("path")]);
    assert!(!o.status.success());
    assert_eq!(
        common::stderr(&o).trim(),
        format!(
            "precedent: error: unknown setting `temprature` in {} line 1; did you mean `temperature`?",
            typo.display()
        )
    );
}

/// The engine's answers to `commands`, ending with `quit`.
fn uci_session(commands: &str) -> Vec<String> {
    let mut child = Command::new(common::bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{commands}\nquit").expect("write");
    drop(stdin);
    let lines = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map_while(Result::ok)
        .collect();
    let _ = child.wait();
    lines
}

#[test]
fn uci_refuses_an_unknown_option_or_parameter_key_and_keeps_its_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = typo_file(dir.path());
    let lines = uci_session(&format!(
        "uci\nsetoption name K value 1\nsetoption name Revise value false\nsetoption name Tempratur value 0.3\n\
         setoption name Params value {}\nsetoption name K value 0\nisready\n\
         position startpos moves d2d4\ngo movetime 100",
        typo.display()
    ));
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .collect();
    assert_eq!(
        errors,
        [
            "info string error: unknown setting `Tempratur`; did you mean `Temperature`?",
            &format!(
                "info string error: unknown setting `temprature` in {} line 1; did you mean `temperature`?",
                typo.display()
            ),
            "info string error: `k` = 0 is outside 1..4096",
        ],
        "{lines:#?}"
    );
    // K 1 (and Revise off) were kept through all three: one case votes.
    assert!(lines.iter().any(|l| l.contains("of 1 cases")), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.starts_with("bestmove ")),
        "{lines:#?}"
    );
}

#[test]
fn uci_setoption_params_loads_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = params_file(dir.path());
    let mut child = Command::new(common::bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "uci\nsetoption name Params value {}\nisready\nposition startpos moves d2d4\ngo movetime 100\nquit", p.display()).expect("write");
    drop(stdin);
    let lines: Vec<String> = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map_while(Result::ok)
        .collect();
    let _ = child.wait();
    assert!(
        lines.iter().any(|l| l.starts_with("option name Params ")),
        "announced"
    );
    // k = 1 and revise off: one case votes, no search verdicts.
    assert!(lines.iter().any(|l| l.contains("of 1 cases")), "{lines:#?}");
    assert!(
        !lines.iter().any(|l| l.contains("info string revise")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
}

#[test]
fn a_one_shot_go_of_100_ms_gives_the_scan_its_share_of_the_time() {
    // The scan's share of the time starts when the scan does, not when the process did
    // (loading the embedded case base comes first and takes longer than the whole move): the
    // scan covers the whole case base, or runs for its share (40 % of the time left when it
    // starts, some 20 ms of this move) until its deadline stops it. Were the share counted from
    // the process's start, loading would have spent it and the scan would stop at once. (How
    // many cases fit in the share is the machine's speed, for `precedent bench`, not a test.)
    let v = common::run_json(&[
        "go",
        "--fen",
        "r2q1rk1/pp1nbppp/2p1pn2/3p4/2PP1B2/2N1PN1P/PP3PP1/R2QKB1R w KQ - 1 9",
        "--movetime",
        "100",
        "--json",
    ]);
    assert!(v["total"].as_u64().expect("total") > 1_000_000, "{v}");
    // Below 8 M boards the scan is the full one: no case is ruled out by its material.
    assert_eq!(v["pruned"].as_u64(), Some(0), "{v}");
    let retrieval_ms = v["retrieval_ms"].as_f64().expect("retrieval_ms");
    assert!(
        v["scanned"] == v["total"] || retrieval_ms >= 5.0,
        "the scan stopped after {retrieval_ms} ms: {v}"
    );
}
