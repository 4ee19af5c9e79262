//! End to end through a real third-party UCI client: python-chess's `chess.engine` plays whole
//! games of Precedent against itself with real clocks (see `tests/e2e/play.py`). `scripts/test`
//! installs python-chess and sets `PRECEDENT_TEST_PYTHON`.

mod common;

use std::path::Path;
use std::process::Command;

fn python() -> String {
    let python = std::env::var("PRECEDENT_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let ok = Command::new(&python)
        .args(["-c", "import chess.engine"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "python-chess is not installed for {python}: run the tests with scripts/test, which installs it"
    );
    python
}

fn play(base: &str, inc: &str, games: &str) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/play.py");
    let out = Command::new(python())
        .arg(script)
        .args([
            common::bin(),
            common::bin(),
            "--games",
            games,
            "--base",
            base,
            "--inc",
            inc,
        ])
        .output()
        .expect("python runs");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON summary ({e}); stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(out.status.success(), "games failed: {summary}");
    summary
}

#[test]
fn python_chess_plays_whole_games_at_10_plus_0_1_with_legal_moves_on_time() {
    let s = play("10", "0.1", "2");
    assert_eq!(s["games"], 2, "{s}");
    assert_eq!(
        (s["illegal"].as_u64(), s["time_losses"].as_u64()),
        (Some(0), Some(0)),
        "{s}"
    );
    assert!(
        s["plies"].as_u64().unwrap_or(0) >= 20,
        "games too short to mean anything: {s}"
    );
}

#[test]
fn python_chess_plays_bullet_at_1_plus_0_01_without_flagging() {
    let s = play("1", "0.01", "2");
    assert_eq!(s["games"], 2, "{s}");
    assert_eq!(
        (s["illegal"].as_u64(), s["time_losses"].as_u64()),
        (Some(0), Some(0)),
        "{s}"
    );
}
