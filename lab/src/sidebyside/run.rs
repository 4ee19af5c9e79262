//! `precedent side-by-side` as a command: its arguments, the runs read from their files, and
//! the chart written when asked.

use std::path::PathBuf;

use crate::eval::{EvalError, read_outcomes};

use super::{SideBySide, Split, breakdowns, chart, side_by_side};

/// Arguments of `precedent side-by-side`.
#[derive(clap::Args, Debug, Clone)]
pub struct SideArgs {
    /// The runs, each an `eval --outcomes` file on the same positions, as LABEL=FILE or FILE
    /// (labelled by its name); the first is the one the others are paired against
    #[arg(required = true, value_name = "[LABEL=]FILE")]
    pub runs: Vec<String>,
    /// Also draw move-matching against blunders as an SVG chart here (needs judged runs:
    /// `eval --judge`)
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// The chart's title
    #[arg(
        long,
        default_value = "move-matching and blunders on the same positions"
    )]
    pub title: String,
    /// Also split the positions by the game's phase, the kind of the human's move, the
    /// piece that moved or the judge's verdict on the human's move (`human`: needs a judged
    /// run), each group with every run's matching and paired difference (comma-separated:
    /// phase,kind,piece,human)
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub by: Vec<Split>,
}

/// A run's label and file from `LABEL=FILE` or `FILE`.
fn label_and_path(run: &str) -> (String, PathBuf) {
    match run.split_once('=') {
        Some((label, path)) if !label.is_empty() && !path.is_empty() => {
            (label.to_string(), PathBuf::from(path))
        }
        _ => {
            let path = PathBuf::from(run);
            let label = path
                .file_stem()
                .map_or_else(|| run.to_string(), |s| s.to_string_lossy().into_owned());
            (label, path)
        }
    }
}

/// Compares the runs of `args` (and draws the chart when asked).
pub fn run(args: &SideArgs) -> Result<SideBySide, EvalError> {
    let mut runs = Vec::new();
    for run in &args.runs {
        let (label, path) = label_and_path(run);
        let lines = read_outcomes(&path)?;
        if lines.is_empty() {
            return Err(EvalError::Other(format!(
                "{}: no outcome lines",
                path.display()
            )));
        }
        runs.push((label, path, lines));
    }
    // The runs' positions are checked to be the same before they are split.
    let report = side_by_side(&runs)?;
    let report = SideBySide {
        breakdowns: breakdowns(&runs, &args.by)?,
        ..report
    };
    let Some(path) = &args.chart else {
        return Ok(report);
    };
    let svg = chart(&report, &args.title).map_err(EvalError::Other)?;
    std::fs::write(path, svg).map_err(|e| {
        EvalError::Other(format!("{}: cannot write the chart: {e}", path.display()))
    })?;
    Ok(SideBySide {
        chart: Some(path.display().to_string()),
        ..report
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_come_from_the_argument_or_the_file_name() {
        assert_eq!(
            label_and_path("Maia-1 1500=runs/m.jsonl"),
            ("Maia-1 1500".to_string(), PathBuf::from("runs/m.jsonl"))
        );
        assert_eq!(
            label_and_path("runs/default-1400.jsonl"),
            (
                "default-1400".to_string(),
                PathBuf::from("runs/default-1400.jsonl")
            )
        );
    }
}
