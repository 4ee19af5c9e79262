//! `precedent experiment`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use precedent_lab::experiment::{ExperimentConfig, band_groups, player_groups, run};

use precedent_lab::reasoner::ReasonerArgs;
use precedent_lab::tournament::MatchSettings;

/// Arguments of `precedent experiment`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Games to build the case bases from (repeatable).
    #[arg(long, required = true)]
    pgn: Vec<String>,
    /// Rating bands of the movers, e.g. 1000-1399,1400-1799,1800-2199,2200-
    #[arg(long, conflicts_with = "players", required_unless_present = "players")]
    bands: Option<String>,
    /// Player case bases instead: A,B,C
    #[arg(long)]
    players: Option<String>,
    /// Games per pair of case bases (per stage with --stages).
    #[arg(long, default_value_t = 40)]
    games: usize,
    /// Play up to N stages of --games games a pair, testing after each and stopping once the
    /// answer is decided (5 % shared by the N looks).
    #[arg(long, default_value_t = 1)]
    stages: usize,
    /// The smallest effect that matters (Elo per 100 rating points of the case base): a slope
    /// whose interval lies within ±this counts as no effect.
    #[arg(long, default_value_t = 10.0)]
    min_effect: f64,
    #[command(flatten)]
    settings: MatchSettings,
    /// Skip the first N plies of every game when building.
    #[arg(long, default_value_t = 0)]
    skip_plies: u32,
    /// Build each case base from at most N games.
    #[arg(long)]
    max_games: Option<u64>,
    /// Build each case base from at most about N cases (case bases of equal size).
    #[arg(long)]
    max_cases: Option<u64>,
    /// Directory for the case bases and the games.
    #[arg(long, default_value = "experiment")]
    out_dir: PathBuf,
    /// SVG chart of Elo against rating (default: OUT_DIR/elo.svg).
    #[arg(long)]
    svg: Option<PathBuf>,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent experiment`.
pub fn run_cmd(args: Args) -> Result<()> {
    let groups = match (&args.bands, &args.players) {
        (Some(b), _) => band_groups(b).map_err(anyhow::Error::msg)?,
        (None, Some(p)) => player_groups(p),
        (None, None) => bail!("give --bands or --players"),
    };
    if args.reasoner.casebase.is_some() {
        bail!("--casebase does not apply: the experiment builds its own case bases");
    }
    let reasoner = args.reasoner.config()?;
    let cfg = ExperimentConfig {
        pgn: args.pgn.clone(),
        groups,
        out_dir: args.out_dir.clone(),
        skip_plies: args.skip_plies,
        max_games: args.max_games,
        max_cases: args.max_cases,
        // One --seed (the reasoner's) also orders the openings.
        matches: args.settings.config(
            args.games,
            args.reasoner.run_seed(&reasoner),
            Some(args.out_dir.join("games.pgn")),
            "Precedent experiment",
        )?,
        reasoner,
        stages: args.stages,
        min_effect: args.min_effect,
        svg: Some(
            args.svg
                .clone()
                .unwrap_or_else(|| args.out_dir.join("elo.svg")),
        ),
    };
    let r = run(&cfg, &super::progress::Bar::new("games"))?;
    super::print(&r, args.json)
}
