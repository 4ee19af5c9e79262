//! The `precedent` command line: parses arguments and hands each subcommand to its module.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Precedent: a chess engine that plays by case-based reasoning. With no subcommand it speaks
/// UCI on stdin/stdout with the embedded default case base.
#[derive(Parser, Debug)]
#[command(name = "precedent", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build a case base from PGN games (.pgn, .pgn.zst, or - for stdin).
    Build(cmd::build::Args),
    /// Describe a case base: counts, players, ratings, build options.
    Info(cmd::info::Args),
    /// Pack and compress a case base for distribution (how the embedded default is made).
    Pack(cmd::pack::Args),
    /// Speak UCI on stdin/stdout (what a GUI runs).
    Uci(cmd::uci::Args),
    /// Decide one move and explain it.
    Go(cmd::go::Args),
    /// Measure move-matching accuracy on held-out games, or solve an EPD suite.
    Eval(cmd::eval::Args),
    /// Play games between Precedent configurations, UCI engines and a random mover.
    Match(cmd::matchcmd::Args),
    /// Answer the thesis' question: do case bases from stronger players play stronger?
    Experiment(cmd::experiment::Args),
    /// Learn the reasoner's weights, k, p and tolerance by evolution.
    Tune(cmd::tune::Args),
    /// Fit the engine's numbers to games: the move model, the evaluation, the network, the
    /// think-time model (`fit moves`, `fit eval`, `fit net`, `fit time`).
    Fit(cmd::fit::Args),
    /// Trace a level's ways to err, blunders against move-matching, from `fit moves`' saved
    /// evidence.
    Frontier(cmd::frontier::Args),
    /// Which player's file explains a set of games best (log-likelihood of their moves).
    Who(cmd::who::Args),
    /// A local web server: play the levels and player files, see the precedents of each move.
    Serve(cmd::serve::Args),
    /// Measure players' engines (each player's file on the generic case base) on their
    /// held-out games, against the generic engine and an external one (Maia).
    Players(cmd::players::Args),
    /// Compare `eval --outcomes` runs on the same positions: matching, paired differences,
    /// blunders, and a chart.
    SideBySide(cmd::sidebyside::Args),
    /// The people's scale: players rated from their games against anchors (`scale games`),
    /// strength read from judged moves and validated on engines of known rating (`scale moves`).
    Scale(cmd::scale::Args),
    /// The old spelling of `fit eval`, kept for scripts.
    #[command(hide = true)]
    FitEval(precedent_lab::fit::eval::EvalFitArgs),
    /// The old spelling of `fit net`, kept for scripts.
    #[command(hide = true)]
    FitNet(precedent_lab::fit::net::NetFitArgs),
    /// The old spelling of `fit time`, kept for scripts.
    #[command(hide = true)]
    FitTime(precedent_lab::fit::time::TimeFitArgs),
    /// Measure the retrieval scan in cases per second, beside a read loop over the same boards
    /// (`PRECEDENT_KERNEL=avx2` measures the AVX2 path on an AVX-512 machine), or the search.
    Bench(cmd::bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(err) = precedent::retrieve::kernel_from_environment() {
        eprintln!("precedent: error: {err}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Some(Command::Build(args)) => cmd::build::run(args),
        Some(Command::Info(args)) => {
            restore_sigpipe();
            cmd::info::run(args)
        }
        Some(Command::Pack(args)) => cmd::pack::run(args),
        Some(Command::Go(args)) => cmd::go::run(args),
        Some(Command::Uci(args)) => cmd::uci::run(args),
        Some(Command::Eval(args)) => cmd::eval::run(args),
        Some(Command::Match(args)) => cmd::matchcmd::run_cmd(args),
        Some(Command::Experiment(args)) => cmd::experiment::run_cmd(args),
        Some(Command::Tune(args)) => cmd::tune::run_cmd(args),
        Some(Command::Fit(args)) => cmd::fit::run(args),
        Some(Command::FitEval(args)) => cmd::fit::eval::run(args),
        Some(Command::FitNet(args)) => cmd::fit::net::run(args),
        Some(Command::FitTime(args)) => cmd::fit::time::run(args),
        Some(Command::Frontier(args)) => cmd::frontier::run_cmd(args),
        Some(Command::Bench(args)) => cmd::bench::run(args),
        Some(Command::SideBySide(args)) => cmd::sidebyside::run(args),
        Some(Command::Scale(args)) => cmd::scale::run(args),
        Some(Command::Players(args)) => cmd::players::run(args),
        Some(Command::Who(args)) => cmd::who::run(args),
        Some(Command::Serve(args)) => cmd::serve::run(args),
        None => cmd::uci::run(cmd::uci::Args::default()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("precedent: error: {}", one_line(&err));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, each cause once: most of our error types already say
/// their source (`{name}: cannot open: {source}`), and anyhow's `{:#}` would repeat it.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.ends_with(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// A reader that stops reading (`precedent info big.cb | head`) ends `info` quietly, as it
/// ends any Unix tool, rather than making its next line of output a panic: Rust ignores SIGPIPE,
/// which turns the closed pipe into an error every `println!` panics on. Only for commands that
/// write to nothing but their output: a command that talks to engines must live through a pipe
/// to an engine that died (`match` scores that engine's game lost and goes on).
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: restores the signal's default action before any thread is started; no handler
    // runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use anyhow::Context;
    use clap::CommandFactory;

    use super::{Cli, one_line};

    #[test]
    fn an_error_says_each_cause_once() {
        // As thiserror makes `#[error("x.pgn: cannot open: {source}")]` with a `source` field.
        #[derive(Debug)]
        struct Open {
            source: std::io::Error,
        }
        impl std::fmt::Display for Open {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "x.pgn: cannot open: {}", self.source)
            }
        }
        impl std::error::Error for Open {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.source)
            }
        }
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = anyhow::Error::new(Open { source: io() });
        assert_eq!(one_line(&err), "x.pgn: cannot open: no such file");
        // A context that does not repeat its cause keeps it, and the chain goes on.
        let err = Err::<(), _>(Open { source: io() })
            .context("building the case base")
            .unwrap_err();
        assert_eq!(
            one_line(&err),
            "building the case base: x.pgn: cannot open: no such file"
        );
        let err = Err::<(), _>(io()).context("reading x.pgn").unwrap_err();
        assert_eq!(one_line(&err), "reading x.pgn: no such file");
    }

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn each_command_keeps_its_own_skip_plies_default() {
        // The flags that select positions are one struct; each command's default is its own.
        let cli = Cli::command();
        for (path, default) in [
            (&["eval"][..], "0"),
            (&["tune"], "10"),
            (&["fit", "moves"], "10"),
        ] {
            let mut sub = &cli;
            for name in path {
                sub = sub.find_subcommand(name).expect("the subcommand");
            }
            let arg = sub
                .get_arguments()
                .find(|a| a.get_long() == Some("skip-plies"))
                .expect("--skip-plies");
            assert_eq!(
                arg.get_default_values(),
                [std::ffi::OsStr::new(default)],
                "precedent {path:?}"
            );
        }
    }

    #[test]
    fn no_subcommand_has_two_flags_with_the_same_name() {
        // clap accepts two --seed when one comes from a flattened struct; users then cannot
        // tell which one they set.
        // Subcommands of subcommands too (`fit moves`).
        let mut subs: Vec<(String, clap::Command)> = Cli::command()
            .get_subcommands()
            .map(|s| (s.get_name().to_string(), s.clone()))
            .collect();
        while let Some((name, sub)) = subs.pop() {
            let mut seen = std::collections::HashSet::new();
            for arg in sub.get_arguments() {
                if let Some(long) = arg.get_long() {
                    assert!(
                        seen.insert(long.to_string()),
                        "precedent {name}: --{long} defined twice"
                    );
                }
            }
            subs.extend(
                sub.get_subcommands()
                    .map(|s| (format!("{name} {}", s.get_name()), s.clone())),
            );
        }
    }
}
