//! Helpers shared by the integration tests: run the real binary, find fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Path of the `precedent` binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_precedent")
}

/// A file under `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A file under `../shared/data/`, if present.
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    p.exists().then_some(p)
}

/// Runs `precedent ARGS` to completion with empty stdin.
pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the precedent binary runs")
}

/// Runs and parses stdout as one JSON object; panics with stderr if the command failed.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "precedent {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout of {args:?} is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The Python with python-chess (`scripts/test` sets `PRECEDENT_TEST_PYTHON`).
pub fn python() -> String {
    std::env::var("PRECEDENT_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// A shell wrapper in `dir` that starts the deterministic fake UCI engine
/// (`tests/fixtures/engines/scorer.py`) with that Python.
pub fn scorer_engine(dir: &Path) -> PathBuf {
    let path = dir.join("engine.sh");
    let script = fixture("engines/scorer.py");
    std::fs::write(
        &path,
        format!("#!/bin/sh\nexec '{}' '{}'\n", python(), script.display()),
    )
    .expect("write the wrapper");
    let mut perms = std::fs::metadata(&path).expect("wrapper").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).expect("make the wrapper executable");
    path
}
