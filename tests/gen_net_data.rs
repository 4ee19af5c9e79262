//! `scripts/gen-net-data`, the network's self-play generator, driven end to end with a
//! deterministic fake UCI engine (`tests/fixtures/engines/scorer.py`) in place of Stockfish:
//! an interrupted run resumed by the same command writes the file the uninterrupted run writes,
//! and bad input is one line naming it. `scripts/test` installs python-chess and sets
//! `PRECEDENT_TEST_PYTHON`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn generate(out: &Path, games: &str, openings: &Path, engine: &Path) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-net-data");
    Command::new(common::python())
        .arg(script)
        .arg(out)
        .args(["--games", games, "--seed", "5", "--openings"])
        .arg(openings)
        .arg("--stockfish")
        .arg(engine)
        .output()
        .expect("python runs")
}

/// Three openings (the final positions of these games are the starts).
const OPENINGS: &str = "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n\
    [Event \"b\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 *\n\n\
    [Event \"c\"]\n[Result \"*\"]\n\n1. c4 c5 2. g3 g6 3. Bg2 Bg7 *\n\n";

fn openings(dir: &Path) -> PathBuf {
    let path = dir.join("openings.pgn");
    fs::write(&path, OPENINGS).expect("write the openings");
    path
}

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "gen-net-data failed: {err}");
    err
}

fn sites(pgn: &str) -> Vec<&str> {
    pgn.lines().filter(|l| l.starts_with("[Site ")).collect()
}

#[test]
fn an_interrupted_run_resumed_by_the_same_command_writes_the_same_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eng = common::scorer_engine(dir.path());
    let openings = openings(dir.path());
    let whole = dir.path().join("whole.pgn");
    ok(&generate(&whole, "8", &openings, &eng));
    let expected = fs::read_to_string(&whole).expect("whole");
    let games = sites(&expected);
    assert!(
        games.len() >= 4,
        "too few games to test anything: {games:?}"
    );
    assert!(
        games
            .iter()
            .all(|s| s.starts_with("[Site \"stockfish self-play 5-")),
        "{games:?}"
    );

    // Three games, then the fourth cut off in the middle of its moves by an interruption.
    let part = dir.path().join("part.pgn");
    ok(&generate(&part, "4", &openings, &eng));
    let text = fs::read_to_string(&part).expect("part");
    fs::write(&part, &text[..text.len() - 40]).expect("cut");
    let err = ok(&generate(&part, "8", &openings, &eng));
    assert!(err.contains("removed an incomplete last game"), "{err}");
    assert_eq!(fs::read_to_string(&part).expect("resumed"), expected);

    // A finished file is left as it is.
    let err = ok(&generate(&part, "8", &openings, &eng));
    assert!(err.contains("already holds games 0 to"), "{err}");
    assert_eq!(fs::read_to_string(&part).expect("again"), expected);
}

#[test]
fn bad_input_is_one_line_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eng = common::scorer_engine(dir.path());
    let openings = openings(dir.path());
    let out = dir.path().join("out.pgn");
    let not_zstd = dir.path().join("openings.pgn.zst");
    fs::write(&not_zstd, "not zstd").expect("write");
    let missing = dir.path().join("missing.pgn");
    let no_dir = dir.path().join("no-such-dir/out.pgn");
    let no_engine = dir.path().join("no-engine");
    let garbled_out = dir.path().join("garbled.pgn");
    // An engine whose score is not a number.
    let garbled = common::fixture("engines/garbled.sh");
    let cases: Vec<(&Path, &Path, &Path, String)> = vec![
        (
            &out,
            &missing,
            &eng,
            format!("openings file {}", missing.display()),
        ),
        (
            &out,
            &not_zstd,
            &eng,
            format!("openings file {}", not_zstd.display()),
        ),
        (
            &out,
            &openings,
            &no_engine,
            format!("engine {}", no_engine.display()),
        ),
        (
            &garbled_out,
            &openings,
            &garbled,
            format!("engine {}: unreadable line", garbled.display()),
        ),
        (
            &no_dir,
            &openings,
            &eng,
            format!("output file {}", no_dir.display()),
        ),
    ];
    for (target, opens, engine, expected) in cases {
        let run = generate(target, "2", opens, engine);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{expected}: {err}");
        assert!(err.contains(&expected), "{expected}: {err}");
        assert!(!err.contains("Traceback"), "{expected}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{expected}: {err}");
    }
    assert!(!out.exists(), "a refused run wrote {}", out.display());
    // The engine failed after the output was opened: it holds no game.
    let text = fs::read_to_string(&garbled_out).unwrap_or_default();
    assert!(sites(&text).is_empty(), "{text}");
}

#[test]
fn openings_that_cannot_start_a_game_are_skipped_and_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eng = common::scorer_engine(dir.path());
    // small.pgn holds games with illegal moves and one from an empty board beside legal ones.
    let small = common::fixture("small.pgn");
    let out = dir.path().join("out.pgn");
    let err = ok(&generate(&out, "3", &small, &eng));
    assert!(
        err.contains(&format!("openings file {}: ", small.display())) && err.contains("skipped"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!sites(&fs::read_to_string(&out).expect("out")).is_empty());
}
