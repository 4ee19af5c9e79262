//! `scripts/clock-use`, where each engine's clock goes by move number in fastchess's PGN: the
//! means of two small games worked out by hand, book moves and moves without a time left out,
//! and a missing file named in one line.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn python() -> String {
    std::env::var("PRECEDENT_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn clock_use(files: &[&Path]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/clock-use");
    Command::new(python())
        .arg(script)
        .args(files)
        .output()
        .expect("python runs")
}

/// Two games as fastchess writes them: book moves, then `{score/depth time}` comments; the
/// second game reaches move 12, so 11-20 has one move of each engine, and one move has no comment.
const GAMES: &str = "[Event \"t\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n\
    1. e4 {book} e5 {book} 2. Nf3 {+0.20/10 0.400s} Nc6 {-0.10/9 1.000s}\n\
    3. Bb5 {+0.30/11 0.200s} a6 {-0.20/10 0.600s} *\n\n\
    [Event \"t\"]\n[White \"b\"]\n[Black \"a\"]\n[Result \"*\"]\n\n\
    1. d4 {book} d5 {book} 2. c4 {+0.10/9 2.000s} e6 {-0.10/12 0.300s}\n\
    3. Nc3 Nf6 {-0.10/12 0.100s} 11. Bg5 {+0.10/9 0.500s}\n\
    11... Be7 {-0.10/12 0.900s} *\n\n";

#[test]
fn means_by_move_number_leave_out_book_moves_and_moves_without_a_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("games.pgn");
    fs::write(&pgn, GAMES).expect("write the games");
    let out = clock_use(&[&pgn]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "clock-use failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0][..4], ["engine", "moves", "mean s", "1-10"]);
    // a: 0.4, 0.2 (game 1, moves 2-3), 0.3, 0.1 (game 2) and 0.9 (move 11): 1.9 s over 5 moves.
    assert_eq!(rows[1][..5], ["a", "5", "0.380", "0.25", "0.90"]);
    // b: 1.0, 0.6, 2.0 in moves 1-10 (the move without a time left out) and 0.5 at move 11.
    assert_eq!(rows[2][..5], ["b", "4", "1.025", "1.20", "0.50"]);
    assert_eq!(rows[1][5..], ["-", "-", "-", "-", "-"]);
    assert_eq!(rows.len(), 3, "{stdout}");
}

#[test]
fn a_missing_file_is_one_line_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nowhere.pgn");
    let out = clock_use(&[&missing]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("nowhere.pgn"), "{stderr}");
}
