//! `precedent players`: a player's engine against the generic one on their held-out games.

use anyhow::{Context, Result};
use precedent_lab::players::{PlayersArgs, chart, run as measure};
use precedent_lab::reasoner::ReasonerArgs;

use super::progress::Bars;

/// Arguments of `precedent players`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    players: PlayersArgs,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent players`.
pub fn run(args: Args) -> Result<()> {
    let threads = super::threads_or_cores(args.players.threads);
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    if let Some(path) = &args.players.chart {
        super::ensure_writable("--chart", path)?;
    }
    let cfg = args.reasoner.config()?;
    let generic = args
        .reasoner
        .plain_casebase("players (the generic case base)")?;
    let seed = args.reasoner.run_seed(&cfg);
    let generic = std::sync::Arc::new(generic);
    let report = pool.install(|| measure(&args.players, generic, &cfg, seed, threads, &Bars))?;
    // The report first: a chart that cannot be written must not lose an hour's measurement.
    super::print(&report, args.json)?;
    if let Some(path) = &args.players.chart {
        let svg = chart(&report).map_err(anyhow::Error::msg)?;
        std::fs::write(path, svg).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}
