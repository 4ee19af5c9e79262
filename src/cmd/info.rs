//! `precedent info`, and a player file's dossier (`--report`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use precedent::casebase::{CaseBase, summarise};
use precedent::player::Player;
use precedent::think::EngineConfig;
use precedent_lab::dossier::{chart, dossier};

/// Arguments of `precedent info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The case-base file.
    file: PathBuf,
    /// How many players to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// A player file's dossier: their openings as White and as Black, their errors and clock
    /// use beside their band, and where they depart from the generic model.
    #[arg(long)]
    report: bool,
    /// With `--report`: draw where they depart from the generic model to FILE.svg.
    #[arg(long, value_name = "FILE", requires = "report")]
    svg: Option<PathBuf>,
    /// With `--report`: the generic model's time for each position of their repertoire, in
    /// milliseconds.
    #[arg(long, default_value_t = 20, value_name = "MS", requires = "report")]
    movetime: u64,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent info`.
pub fn run(args: Args) -> Result<()> {
    let cb = CaseBase::open(&args.file)?;
    if args.report {
        let player = Player::of(cb).map_err(|cb| {
            anyhow::anyhow!(
                "{}: a case base, not a player file: --report describes a player (build one with `precedent build --player NAME`)",
                cb.name()
            )
        })?;
        if let Some(path) = &args.svg {
            super::ensure_writable("--svg", path)?;
        }
        let generic = CaseBase::embedded()?;
        let player = player.on(&generic);
        let d = dossier(
            &player,
            &generic,
            &EngineConfig::default(),
            Duration::from_millis(args.movetime),
        );
        if let Some(path) = &args.svg {
            let svg = chart(&d).map_err(anyhow::Error::msg)?;
            std::fs::write(path, svg)
                .with_context(|| format!("{}: cannot write", path.display()))?;
        }
        return super::print(&d, args.json);
    }
    let s = summarise(&cb, args.top);
    if args.json {
        println!("{}", serde_json::to_string(&s)?);
        return Ok(());
    }
    print!("{s}");
    Ok(())
}
