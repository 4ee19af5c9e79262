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
pub mod scale;
pub mod serve;
pub mod sidebyside;
pub mod tune;
pub mod uci;
pub mod who;

/// The threads a `--threads` flag asks for, or the machine's cores when it is not given.
pub fn threads_or_cores(given: Option<usize>) -> usize {
    given.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Checks, before a long run, that a file can be written at `path` later: not a directory, and
/// its folder exists. Names the flag in the error.
pub fn ensure_writable(flag: &str, path: &std::path::Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        !path.is_dir(),
        "{flag} {}: is a directory; give a file name such as {}",
        path.display(),
        path.join("chart.svg").display()
    );
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent {
        anyhow::ensure!(
            dir.is_dir(),
            "{flag} {}: folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    Ok(())
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
