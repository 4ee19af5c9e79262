//! One module per subcommand: each parses nothing itself (clap did) and calls the library.

pub mod bench;
pub mod build;
pub mod eval;
pub mod experiment;
pub mod fit;
pub mod frontier;
pub mod go;
pub mod info;
pub mod matchcmd;
pub mod pack;
pub mod players;
pub mod progress;
pub mod sidebyside;
pub mod tune;
pub mod uci;
pub mod who;

/// The threads a `--threads` flag asks for, or the machine's cores when it is not given.
pub fn threads_or_cores(given: Option<usize>) -> usize {
    given.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Prints a report: one JSON object with `json`, else its text.
pub fn print<R: serde::Serialize + std::fmt::Display>(
    report: &R,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else {
        print!("{report}");
    }
    Ok(())
}
