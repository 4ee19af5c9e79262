//! `precedent fit eval` and `fit net` on analysed games: they read the `[%eval …]` comments
//! of quiet positions and fit; games without evaluations are a clear error.

mod common;

use common::{run, stderr};
use precedent::search::evaluate::{N_TERMS, WEIGHTS};
use precedent::search::nnue::Network;

/// A game with Lichess-style evaluation comments; `site` makes each game a different one.
fn analysed_game(site: usize) -> String {
    format!(
        r#"[Event "Fixture"]
[Site "https://example.org/{site}"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 {{ [%eval 0.3] }} 1... e5 {{ [%eval 0.35] }} 2. Nf3 {{ [%eval 0.3] }} 2... Nc6 {{ [%eval 0.4] }}
3. Bc4 {{ [%eval 0.2] }} 3... Bc5 {{ [%eval 0.3] }} 4. c3 {{ [%eval 0.25] }} 4... Nf6 {{ [%eval 0.3] }}
5. d3 {{ [%eval 0.2] }} 5... d6 {{ [%eval 0.3] }} 6. O-O {{ [%eval 0.2] }} 6... O-O {{ [%eval 0.25] }}
7. h3 {{ [%eval 0.1] }} 7... a6 {{ [%eval #4] }} 8. a4 1-0
"#
    )
}

#[test]
fn fit_eval_reads_the_evaluations_of_quiet_positions_and_prints_every_weight() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("analysed.pgn");
    let games: String = (0..40).map(analysed_game).collect();
    std::fs::write(&pgn, games).expect("write");
    let path = pgn.to_str().expect("path");
    let out = run(&[
        "fit",
        "eval",
        "--pgn",
        path,
        "--skip-plies",
        "0",
        "--epochs",
        "20",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    // Of 15 positions, 13 have a number for the move before them: not the first, and not the
    // last (a mate follows 7... a6). No move captures or checks, so all 13 are quiet. About
    // half the 40 games are in fit's test half, left out.
    let err = stderr(&out);
    let numbers: Vec<u64> = err
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [games, fitting, check] = numbers[..] else {
        panic!("{err}");
    };
    assert!((10..=30).contains(&games), "{err}");
    assert_eq!(fitting + check, 13 * games, "{err}");
    // One line per term, each beside the weight in use.
    assert_eq!(text.matches(" // ").count(), N_TERMS, "{text}");
    let (mg, eg) = WEIGHTS[0];
    assert!(
        text.contains(&format!("// pawn (was {mg}, {eg})")),
        "{text}"
    );
}

#[test]
fn fit_eval_without_evaluations_says_so_in_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("plain.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n").expect("write");
    let out = run(&["fit", "eval", "--pgn", pgn.to_str().expect("path")]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("plain.pgn") && err.contains("[%eval]"),
        "{err}"
    );
    let missing = run(&["fit", "eval", "--pgn", "/no/such/games.pgn"]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("/no/such/games.pgn"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn fit_net_trains_on_the_evaluations_and_writes_a_network_the_engine_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("analysed.pgn");
    let games: String = (0..40).map(analysed_game).collect();
    std::fs::write(&pgn, games).expect("write");
    let net = dir.path().join("trained.nnue");
    let out = run(&[
        "fit",
        "net",
        "--pgn",
        pgn.to_str().expect("path"),
        "--out",
        net.to_str().expect("path"),
        "--skip-plies",
        "0",
        "--epochs",
        "2",
        "--batch",
        "16",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.matches("epoch ").count(), 3, "{err}");
    assert!(err.contains("epoch   0: the starting weights"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("wrote") && text.contains("trained.nnue"),
        "{text}"
    );
    let bytes = std::fs::read(&net).expect("the network was written");
    Network::from_bytes(&bytes).expect("a network the engine reads");
    // Going on from that network: it starts where it ended (its epoch 0 is the trained one's
    // loss, not a random network's), and a missing or foreign starting file is one line.
    let more = dir.path().join("more.nnue");
    // One epoch from `net` on the games given by `games` (--pgn or --extra).
    let resume = |games: &str| {
        run(&[
            "fit",
            "net",
            games,
            pgn.to_str().expect("path"),
            "--out",
            more.to_str().expect("path"),
            "--skip-plies",
            "0",
            "--epochs",
            "1",
            "--batch",
            "16",
            "--init",
            net.to_str().expect("path"),
        ])
    };
    let resumed = resume("--pgn");
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let start_loss = |out: &std::process::Output| -> f64 {
        let err = stderr(out);
        let line = err
            .lines()
            .find(|l| l.starts_with("epoch   0"))
            .unwrap_or_else(|| panic!("no epoch 0 in {err}"));
        line.rsplit(' ')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a loss")
    };
    let trained_valid: f64 = text
        .split("validation loss ")
        .nth(1)
        .and_then(|v| v.split(' ').next())
        .and_then(|v| v.parse().ok())
        .expect("the kept epoch's validation loss");
    assert!(
        start_loss(&resumed) < start_loss(&out) && start_loss(&resumed) <= trained_valid + 0.002,
        "resumed from {} where random weights start at {} and training ended at {trained_valid}",
        start_loss(&resumed),
        start_loss(&out)
    );
    // The self-play alone (no --pgn), going on from it.
    let extra_only = resume("--extra");
    assert!(extra_only.status.success(), "{}", stderr(&extra_only));
    let neither = run(&["fit", "net", "--out", more.to_str().expect("path")]);
    assert!(!neither.status.success());
    assert!(stderr(&neither).contains("--pgn"), "{}", stderr(&neither));
    for (init, says) in [
        (
            "/no/such/start.nnue",
            "/no/such/start.nnue: cannot read the network to start from",
        ),
        (
            pgn.to_str().expect("path"),
            "analysed.pgn: cannot start from it: not a Precedent network",
        ),
    ] {
        let refused = run(&[
            "fit",
            "net",
            "--pgn",
            pgn.to_str().expect("path"),
            "--out",
            more.to_str().expect("path"),
            "--init",
            init,
        ]);
        assert!(!refused.status.success());
        assert_eq!(
            stderr(&refused).trim().lines().count(),
            1,
            "{}",
            stderr(&refused)
        );
        assert!(stderr(&refused).contains(says), "{}", stderr(&refused));
    }
    // Games without evaluations, and an unwritable destination: one line naming the file.
    let plain = dir.path().join("plain.pgn");
    std::fs::write(
        &plain,
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n",
    )
    .expect("write");
    let none = run(&[
        "fit",
        "net",
        "--pgn",
        plain.to_str().expect("path"),
        "--out",
        "x.nnue",
    ]);
    assert!(!none.status.success());
    assert_eq!(stderr(&none).trim().lines().count(), 1, "{}", stderr(&none));
    assert!(stderr(&none).contains("plain.pgn"), "{}", stderr(&none));
    let nowhere = run(&[
        "fit",
        "net",
        "--pgn",
        pgn.to_str().expect("path"),
        "--out",
        "/no/such/dir/net.nnue",
        "--skip-plies",
        "0",
        "--epochs",
        "1",
    ]);
    assert!(!nowhere.status.success());
    assert!(
        stderr(&nowhere).contains("/no/such/dir/net.nnue: cannot write"),
        "{}",
        stderr(&nowhere)
    );
}

#[test]
fn the_fits_old_spellings_still_run_and_are_not_listed() {
    // `fit-eval`, `fit-net` and `fit-time` were the commands' names before `fit eval`, `fit net`
    // and `fit time`; scripts may still call them.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("x.nnue");
    let out = out.to_str().expect("path");
    for (old, new) in [
        (vec!["fit-eval"], vec!["fit", "eval"]),
        (
            vec!["fit-net", "--out", out],
            vec!["fit", "net", "--out", out],
        ),
        (vec!["fit-time"], vec!["fit", "time"]),
    ] {
        let missing = ["--pgn", "/no/such/games.pgn"];
        let old_run = run(&[old.as_slice(), &missing].concat());
        let new_run = run(&[new.as_slice(), &missing].concat());
        assert!(!old_run.status.success() && !new_run.status.success());
        assert_eq!(stderr(&old_run), stderr(&new_run), "{old:?}");
        assert!(stderr(&old_run).contains("/no/such/games.pgn"), "{old:?}");
    }
    let help = run(&["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("fit") && !help.contains("fit-"), "{help}");
}
