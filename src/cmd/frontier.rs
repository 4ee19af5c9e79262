//! `precedent frontier`: a level's ways to err, blunders against move-matching, from evidence.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use precedent::engine::config::EngineConfig;
use precedent_lab::client::Limit;
use precedent_lab::fit::{Item, features, load, one_game_for};
use precedent_lab::frontier::{Frontier, Row, Settings, chart, judge, policies, trace};
use rayon::prelude::*;

use super::progress::Bar;
use precedent_lab::reasoner::ReasonerArgs;

/// Arguments of `precedent frontier`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Evidence saved by `precedent fit --save-evidence` (repeatable); it must have been
    /// gathered with the same case base.
    #[arg(long, value_name = "FILE", required = true)]
    evidence: Vec<PathBuf>,
    /// Also use the positions of the fitting half (default: only the test half, which no fit
    /// of the embedded parameters has seen).
    #[arg(long)]
    both_halves: bool,
    /// Lowest rating of the mover.
    #[arg(long, value_name = "N")]
    min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    max_elo: Option<u16>,
    /// Search weights to trace the level's model at (default: the level's own).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    search_weights: Vec<f64>,
    /// Ratios of the errors rule to trace at every search weight.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "0.02,0.04,0.085,0.15,0.3,1"
    )]
    ratios: Vec<f64>,
    /// Temperatures to trace draws from the level's model at, at every search weight (default:
    /// the level's own, when it draws).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    temperatures: Vec<f64>,
    /// What the errors rule counts as an error: a loss of this many centipawns by the search
    /// (default: the level's, else 200).
    #[arg(long, value_name = "CP")]
    loss: Option<u32>,
    /// The errors rule plays only errors hidden at two plies: their loss there under this many
    /// centipawns, or `off` for every error (default: as the level does).
    #[arg(long, value_name = "CP|off")]
    hidden: Option<Hidden>,
    /// Judge the moves with this UCI engine (e.g. /usr/games/stockfish), as `eval --judge`.
    #[arg(long, value_name = "CMD")]
    judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12")]
    judge_limit: String,
    /// Judge processes run at once [default: the cores].
    #[arg(long)]
    threads: Option<usize>,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Also draw the frontier as an SVG chart here: blunders against move-matching, a line per
    /// family of settings.
    #[arg(long, value_name = "FILE")]
    chart: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Refuses the shared reasoner flags that cannot change what the evidence holds: the
/// retrieval and the search were fixed when it was gathered, and the style is the level's.
fn refuse_fixed_flags(r: &ReasonerArgs) -> Result<()> {
    // The level (`elo`) and the seed are the frontier's to choose; every other setting was
    // fixed by the evidence or is the level's.
    if let Some((name, _)) = r
        .given
        .iter()
        .find(|(n, _)| !["elo", "seed"].contains(&n.as_str()))
    {
        let hint = if name == "temperature" {
            " (use --temperatures)"
        } else {
            ""
        };
        bail!(
            "--{name}{hint} has no effect on frontier: the evidence fixed the retrieval and the \
             search when fit gathered it, and the level chooses the style"
        );
    }
    Ok(())
}

/// Runs `precedent frontier`.
pub fn run(args: Args) -> Result<()> {
    refuse_fixed_flags(&args.reasoner)?;
    let cfg = args.reasoner.config()?;
    let settings = Settings {
        search_weights: args.search_weights.clone(),
        temperatures: args.temperatures.clone(),
        ratios: args.ratios.clone(),
        loss: args.loss,
        hidden: args.hidden.map(|h| h.0),
        seed: args.reasoner.run_seed(&cfg),
    };
    let policies = policies(&cfg, &settings).map_err(anyhow::Error::msg)?;
    let judge_limit: Option<Limit> = match &args.judge {
        Some(_) => Some(
            args.judge_limit
                .parse()
                .with_context(|| format!("--judge-limit {}", args.judge_limit))?,
        ),
        None => None,
    };
    let cb = args.reasoner.casebase()?;
    let mut records = Vec::new();
    for path in &args.evidence {
        records.extend(load(path)?);
    }
    let total = records.len();
    let inside = |elo: Option<u16>| {
        args.min_elo.is_none_or(|lo| elo.is_some_and(|e| e >= lo))
            && args.max_elo.is_none_or(|hi| elo.is_some_and(|e| e <= hi))
    };
    // The cases ablation, when the evidence was gathered with `fit --ablation`.
    let one_game = one_game_for(&cb, &records)?;
    let selected: Vec<_> = records
        .iter()
        .filter(|r| (args.both_halves || r.test) && inside(r.elo))
        .collect();
    let items: Vec<Item> = selected
        .par_iter()
        .filter_map(|r| features(&cb, one_game.as_ref(), r, cfg.model.smoothing))
        .collect();
    if items.len() < selected.len() {
        // A record that does not replay on this case base (another case base's evidence, or
        // a damaged line) is left out, and said so.
        eprintln!(
            "frontier: {} of the {} selected positions do not replay on {} and are left out",
            selected.len() - items.len(),
            selected.len(),
            cb.name()
        );
    }
    if items.is_empty() && !selected.is_empty() {
        bail!(
            "none of the {} selected positions replays on {}: was the evidence gathered with another case base?",
            selected.len(),
            cb.name()
        );
    }
    if items.is_empty() {
        bail!(
            "no position of the {total} in the evidence passes the filters (test half{}, movers {}–{})",
            if args.both_halves { " or not" } else { "" },
            args.min_elo.map_or("any".into(), |e| e.to_string()),
            args.max_elo.map_or("any".into(), |e| e.to_string()),
        );
    }
    let refs: Vec<&Item> = items.iter().collect();
    let mut frontier = trace(&refs, &policies);
    if one_game.is_some() && frontier.rows.iter().any(|r| r.delta_cases.is_none()) {
        let missing = items.iter().filter(|i| i.ablated.is_none()).count();
        eprintln!(
            "frontier: no cases ablation: {missing} of the {} positions lack the one-game case base's evidence",
            items.len()
        );
    }
    if let (Some(command), Some(limit)) = (&args.judge, judge_limit) {
        let threads = super::threads_or_cores(args.threads);
        anyhow::ensure!(threads >= 1, "--threads must be at least 1");
        let bar = Bar::new("positions judged");
        judge(&mut frontier, &refs, command, &[], limit, threads, &bar)?;
    }
    if let Some(path) = &args.chart {
        let title = match cfg.elo.and_then(|e| cfg.level_for(e)) {
            Some(c) => format!(
                "Level {} (model of movers rated {}-{}): its ways to err on {} positions",
                c.level.elo, c.level.min_rating, c.level.max_rating, frontier.positions
            ),
            None => format!("Ways to err on {} positions", frontier.positions),
        };
        let svg = chart(&frontier, &title).map_err(anyhow::Error::msg)?;
        std::fs::write(path, svg).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string(&frontier)?);
        return Ok(());
    }
    print_report(&frontier, &cfg);
    if let Some(path) = &args.chart {
        println!("chart: {}", path.display());
    }
    Ok(())
}

fn print_report(f: &Frontier, cfg: &EngineConfig) {
    if let Some(c) = cfg.elo.and_then(|e| cfg.level_for(e)) {
        println!(
            "level {} (the model of movers rated {}-{}) on {} positions",
            c.level.elo, c.level.min_rating, c.level.max_rating, f.positions
        );
    }
    let judged = |r: &Row| {
        r.judged.map_or("-".to_string(), |j| {
            format!("{:>5.1}% {:>4.0}", j.blunder_rate * 100.0, j.mean_cp_loss)
        })
    };
    println!(
        "{:<30} {:>6} {:>6} {:>5} {:>8} {:>11} {:>21} {:>22} {:>22}",
        "way to play",
        "weight",
        "ratio",
        "T",
        "search",
        "judge (cp)",
        "matching (95% CI)",
        "Δ default (95% CI)",
        "Δcases (95% CI)"
    );
    println!(
        "{:<30} {:>6} {:>6} {:>5} {:>7.1}% {:>11} {:>21} {:>22}",
        f.humans.name,
        "",
        "",
        "",
        f.humans.search_blunders * 100.0,
        judged(&f.humans),
        "",
        ""
    );
    for r in &f.rows {
        let interval = |d: (f64, f64, f64)| {
            format!(
                "{:+.1} ({:+.1}..{:+.1})",
                d.0 * 100.0,
                d.1 * 100.0,
                d.2 * 100.0
            )
        };
        let delta = r.delta.map_or(String::new(), interval);
        let cases = r.delta_cases.map_or("-".to_string(), interval);
        println!(
            "{:<30} {:>6} {:>6} {:>5} {:>7.1}% {:>11} {:>5.1}% ({:>4.1}–{:>4.1}) {:>22} {:>22}",
            r.name,
            r.search_weight.map_or(String::new(), |w| format!("{w:.2}")),
            r.ratio.map_or(String::new(), |x| format!("{x:.3}")),
            r.temperature.map_or(String::new(), |t| format!("{t:.2}")),
            r.search_blunders * 100.0,
            judged(r),
            r.matching * 100.0,
            r.ci_low * 100.0,
            r.ci_high * 100.0,
            delta,
            cases
        );
    }
    println!(
        "(search: moves the evidence's own search found at least 2 pawns worse; judge: blunders \
         of at least 200 cp and mean loss by the judge; Δcases: matching with the case base \
         minus with a one-game case base, when the evidence was gathered with fit --ablation)"
    );
}

/// `--hidden`: a threshold in centipawns, or `off`.
#[derive(Clone, Copy, Debug)]
struct Hidden(Option<u32>);

impl std::str::FromStr for Hidden {
    type Err = String;

    fn from_str(s: &str) -> Result<Hidden, String> {
        match s {
            "off" => Ok(Hidden(None)),
            _ => s
                .parse()
                .map(|cp| Hidden(Some(cp)))
                .map_err(|_| format!("{s:?} is neither centipawns nor off")),
        }
    }
}
