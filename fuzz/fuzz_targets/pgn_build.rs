//! `precedent build` on untrusted PGN: errors are fine, panics are not; and a build that
//! succeeds must write a case base that loads.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use precedent::casebase::{BuildConfig, build};
use precedent::casebase::CaseBase;

fn dir() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temporary directory"))
}

fuzz_target!(|data: &[u8]| {
    let dir = dir().path();
    let input = dir.join("input.pgn");
    let out: PathBuf = dir.join("out.cb");
    std::fs::write(&input, data).expect("write input");
    let _ = std::fs::remove_file(&out);
    let config = BuildConfig {
        inputs: vec![input.display().to_string()],
        out: out.clone(),
        options: Default::default(),
        strict: false,
        judge: None,
        fit: None,
        fit_errors: None,
        memory: precedent::casebase::MEMORY,
    };
    if let Ok(summary) = build(&config, &mut |_| {}) {
        let cb = match CaseBase::open(&out) {
            Ok(cb) => cb,
            Err(e) => panic!("build succeeded but its case base does not load: {e}"),
        };
        assert_eq!(cb.len() as u64, summary.cases, "case count");
        assert_eq!(cb.game_count() as u64, summary.games_used, "game count");
        for i in 0..cb.game_count().min(64) {
            assert!(cb.game(i as u32).is_some(), "game {i} of a fresh build unreadable");
        }
    }
});
