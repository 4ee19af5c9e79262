//! `precedent eval`: move-matching accuracy on held-out games, or an EPD suite solved.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use precedent::casebase::CaseBase;
use precedent::engine::config::EngineConfig;
use precedent::pgn::Selection;
use precedent::position::Game;
use precedent_lab::client::Limit;
use precedent_lab::epd::{EpdRecord, parse_line};
use precedent_lab::eval::{
    EpdReport, Outcome, Report, casebase_keys, compare, epd_report, judge, report, run_engine,
    run_reasoner, sample_positions,
};
use precedent_lab::fit::in_test_half;
use shakmaty::{Chess, Move};

use super::progress::{self, Bar};
use super::reasoner_args::ReasonerArgs;

/// Arguments of `precedent eval`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Held-out games (.pgn, .pgn.zst): positions are sampled from them.
    #[arg(long, required_unless_present = "epd", conflicts_with = "epd")]
    pgn: Option<String>,
    /// An EPD test suite with bm/am operations instead.
    #[arg(long)]
    epd: Option<PathBuf>,
    /// Lowest rating of the mover.
    #[arg(long, value_name = "N")]
    min_elo: Option<u16>,
    /// Highest rating of the mover.
    #[arg(long, value_name = "N")]
    max_elo: Option<u16>,
    /// Only this player's moves (repeatable).
    #[arg(long = "player", value_name = "NAME")]
    players: Vec<String>,
    /// Skip the first N plies of every game.
    #[arg(long, default_value_t = 0)]
    skip_plies: u32,
    /// Positions to sample.
    #[arg(long, default_value_t = 5000)]
    positions: usize,
    /// Time per position in milliseconds (as UCI go movetime); default: a full scan.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Threads (positions run in parallel).
    #[arg(long)]
    threads: Option<usize>,
    /// Evaluate an external UCI engine on the same positions instead (e.g. stockfish).
    #[arg(long, value_name = "CMD")]
    engine: Option<String>,
    /// The external engine's limit per position: depth=N, movetime=MS or nodes=N.
    #[arg(long, default_value = "depth=1")]
    limit: String,
    /// An option for the external engine, NAME=VALUE (repeatable).
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    engine_options: Vec<String>,
    /// Judge move quality with this UCI engine (e.g. /usr/games/stockfish): centipawn loss and
    /// blunder rate of the engine's moves and of the humans' moves.
    #[arg(long, value_name = "CMD")]
    judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12")]
    judge_limit: String,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Width of the rating bands of the report (Maia's tables use 100).
    #[arg(long, default_value_t = 200, value_name = "POINTS")]
    band_width: u16,
    /// The cases ablation: run the same positions again with a one-game case base (the first
    /// game of the case base) and report Δcases, the paired difference in accuracy.
    #[arg(long)]
    ablation: bool,
    /// Also run the same positions with this case base (e.g. the generic one, against a
    /// player's own) and report the paired difference; games in either case base are left out
    /// of the sample.
    #[arg(long, value_name = "FILE")]
    compare: Option<std::path::PathBuf>,
    /// With `--elo`: also run the same positions without the level (the style of `--style`,
    /// by default `imitate`, the default style) and report the paired difference in accuracy
    /// and, with `--judge`, that style's blunders.
    #[arg(long, requires = "elo")]
    against_default: bool,
    /// Sample only games of `fit`'s test half (a hash of each game), so that a model fitted by
    /// `precedent fit` on the same file is measured on games it never saw.
    #[arg(long)]
    fit_test_half: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent eval`.
pub fn run(args: Args) -> Result<()> {
    let threads = super::threads_or_cores(args.threads);
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    pool.install(|| match &args.epd {
        Some(epd) => run_epd(&args, epd, threads),
        None => run_pgn(&args, threads),
    })
}

fn engine_options(args: &Args) -> Result<Vec<(String, String)>> {
    args.engine_options
        .iter()
        .map(|o| {
            let (n, v) = o
                .split_once('=')
                .with_context(|| format!("--engine-option {o:?}: expected NAME=VALUE"))?;
            Ok((n.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

/// Runs the reasoner (on `cb`) or the external engine on the positions.
fn moves_for(
    args: &Args,
    cb: &CaseBase,
    positions: &[(Game, Option<Move>)],
    threads: usize,
) -> Result<(String, Vec<Outcome>)> {
    if let Some(cmd) = &args.engine {
        let limit: Limit = args.limit.parse()?;
        let bar = Bar::new("positions");
        let outcomes = run_engine(cmd, &engine_options(args)?, limit, positions, threads, &bar)?;
        return Ok((format!("{cmd} ({})", args.limit), outcomes));
    }
    reasoner_moves(args, cb, &args.reasoner.config()?, positions)
}

/// Runs the reasoner with `cfg` on the positions: its name and its outcomes.
fn reasoner_moves(
    args: &Args,
    cb: &CaseBase,
    cfg: &EngineConfig,
    positions: &[(Game, Option<Move>)],
) -> Result<(String, Vec<Outcome>)> {
    let seed = args.reasoner.run_seed(cfg);
    let bar = progress::bar(positions.len() as u64, "positions");
    let matched = AtomicU64::new(0);
    let done = |o: &Outcome| {
        let m = matched.fetch_add(u64::from(o.matched), Ordering::Relaxed) + u64::from(o.matched);
        bar.inc(1);
        bar.set_message(format!(
            "{:.1}% matched",
            100.0 * m as f64 / bar.position().max(1) as f64
        ));
    };
    let outcomes = run_reasoner(cb, positions, cfg, movetime(args, cfg), seed, &done);
    bar.finish_and_clear();
    let style = match cfg.elo {
        Some(elo) => format!("human at level {elo}"),
        None => cfg.style.to_string(),
    };
    let name = format!(
        "precedent ({}, style {}, mode {}, k {}, p {}, weights {}, revise {})",
        cb.name(),
        style,
        cfg.reuse.mode,
        cfg.reuse.k,
        cfg.reuse.p,
        cfg.reuse.weights,
        cfg.revise.enabled
    );
    Ok((name, outcomes))
}

fn run_pgn(args: &Args, threads: usize) -> Result<()> {
    let pgn = args.pgn.as_deref().unwrap_or_default();
    let started = Instant::now();
    let selection = Selection {
        players: args.players.iter().map(|p| p.to_lowercase()).collect(),
        side: None,
        min_elo: args.min_elo,
        max_elo: args.max_elo,
        skip_plies: args.skip_plies,
    };
    // The contamination guard needs the case base's game keys before sampling; an external
    // engine is measured on the same sample, so it guards against the same case base.
    let cb = args.reasoner.casebase()?;
    let mut keys = casebase_keys(&cb);
    let other = match &args.compare {
        Some(path) => {
            anyhow::ensure!(
                args.engine.is_none(),
                "--compare measures Precedent's case bases; it does not apply to --engine"
            );
            let other = CaseBase::open(path)?;
            keys.extend(casebase_keys(&other));
            Some(other)
        }
        None => None,
    };
    let seed = args.reasoner.run_seed(&args.reasoner.config()?);
    let (samples, stats) = sample_positions(pgn, &selection, args.positions, seed, &keys, &|k| {
        !args.fit_test_half || in_test_half(k)
    })?;
    if samples.is_empty() {
        bail!(
            "{pgn}: no position passes the filters (after excluding {} games found in the case base)",
            stats.games_in_casebase
        );
    }
    let positions: Vec<(Game, Option<Move>)> = samples
        .iter()
        .map(|s| (s.game.clone(), Some(s.human)))
        .collect();
    let (name, outcomes) = moves_for(args, &cb, &positions, threads)?;
    let mut r = report(
        name,
        &samples,
        &outcomes,
        stats,
        started.elapsed().as_secs_f64(),
        args.band_width,
    );
    if args.ablation {
        anyhow::ensure!(
            args.engine.is_none(),
            "--ablation measures Precedent's case base; it does not apply to --engine"
        );
        anyhow::ensure!(
            cb.game_count() > 0,
            "{}: the case base has no game",
            cb.name()
        );
        let one = cb.one_game(0)?;
        let game = cb.game(0).unwrap_or_default();
        let described = format!(
            "{} vs {}, {} ({} cases)",
            game.white,
            game.black,
            game.date,
            one.len()
        );
        let (_, ablated) = moves_for(args, &one, &positions, threads)?;
        r.ablation = Some(
            compare(described, &outcomes, &ablated)
                .context("the ablation run did not answer every position")?,
        );
        r.seconds = started.elapsed().as_secs_f64();
    }
    if let Some(other) = &other {
        let (_, theirs) = moves_for(args, other, &positions, threads)?;
        r.comparison = Some(
            compare(other.name().to_string(), &outcomes, &theirs)
                .context("the comparison run did not answer every position")?,
        );
        r.seconds = started.elapsed().as_secs_f64();
    }
    let default_moves = if args.against_default {
        let mut cfg = args.reasoner.config()?;
        cfg.elo = None;
        let (name, theirs) = reasoner_moves(args, &cb, &cfg, &positions)?;
        r.against_default = Some(
            compare(name, &outcomes, &theirs)
                .context("the default style's run did not answer every position")?,
        );
        r.seconds = started.elapsed().as_secs_f64();
        Some(theirs)
    } else {
        None
    };
    if let Some(judge_cmd) = &args.judge {
        let limit: Limit = args.judge_limit.parse()?;
        let items: Vec<(Chess, Option<Move>, Option<Move>)> = samples
            .iter()
            .zip(&outcomes)
            .map(|(s, o)| (s.game.position.clone(), o.played, Some(s.human)))
            .collect();
        let bar = Bar::new("positions judged");
        r.judged = Some(judge(judge_cmd, &[], limit, &items, threads, &bar)?);
        if let Some(theirs) = &default_moves {
            // The humans' moves are judged once, above.
            let items: Vec<(Chess, Option<Move>, Option<Move>)> = samples
                .iter()
                .zip(theirs)
                .map(|(s, o)| (s.game.position.clone(), o.played, None))
                .collect();
            let bar = Bar::new("default style's moves judged");
            r.default_judged = Some(judge(judge_cmd, &[], limit, &items, threads, &bar)?);
        }
        r.seconds = started.elapsed().as_secs_f64();
    }
    if args.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        print_report(&r);
    }
    Ok(())
}

fn print_report(r: &Report) {
    println!("{}", r.engine);
    println!(
        "{} positions from {} games ({} games excluded: also in the case base; {} eligible positions)",
        r.positions,
        r.sampling.games_used,
        r.sampling.games_in_casebase,
        r.sampling.eligible_positions
    );
    println!(
        "move-matching accuracy {:.2}% ({} of {}), 95% CI {:.2}–{:.2}%",
        r.accuracy * 100.0,
        r.matches,
        r.positions,
        r.ci_low * 100.0,
        r.ci_high * 100.0
    );
    if let (Some(t), Some(ll)) = (r.top3, r.mean_log_likelihood) {
        println!(
            "top-3 accuracy {:.2}%; mean log-likelihood of the human move {:.3} nats",
            t * 100.0,
            ll
        );
    }
    for (title, delta, own, other, c) in [
        (
            "cases ablation (one game: ",
            "Δcases",
            "this case base",
            "the other",
            &r.ablation,
        ),
        (
            "compared with (",
            "Δ",
            "this case base",
            "the other",
            &r.comparison,
        ),
        (
            "against the default style (",
            "Δ",
            "the level",
            "the default style",
            &r.against_default,
        ),
    ] {
        let Some(a) = c else { continue };
        println!(
            "{title}{}): accuracy {:.2}%{}; {delta} {:+.2} pp, 95% CI {:+.2} to {:+.2} pp ({own} only: {}, {other} only: {})",
            a.against,
            a.accuracy * 100.0,
            a.mean_log_likelihood
                .map_or(String::new(), |ll| format!(", log-likelihood {ll:.3}")),
            a.delta * 100.0,
            a.delta_ci_low * 100.0,
            a.delta_ci_high * 100.0,
            a.own_only,
            a.other_only
        );
    }
    if let (Some(e), Some(s)) = (r.exact_match_rate, r.mean_top_similarity) {
        println!(
            "exact position in the case base: {:.1}%; mean top similarity {:.3}",
            e * 100.0,
            s
        );
    }
    for (title, groups) in [("by mover rating", &r.by_band), ("by phase", &r.by_phase)] {
        println!("{title}:");
        for g in groups {
            println!(
                "  {:<12} {:>6} positions  {:>6.2}%  ({:.2}–{:.2}%)",
                g.name,
                g.positions,
                g.accuracy * 100.0,
                g.ci_low * 100.0,
                g.ci_high * 100.0
            );
        }
    }
    if let Some(j) = &r.judged {
        println!(
            "move quality ({} positions judged): engine mean loss {:.0} cp, blunders {:.1}%; humans {} cp, {}",
            j.judged,
            j.mean_cp_loss,
            j.blunder_rate * 100.0,
            j.human_mean_cp_loss
                .map_or("-".into(), |v| format!("{v:.0}")),
            j.human_blunder_rate
                .map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
        );
    }
    if let Some(j) = &r.default_judged {
        println!(
            "the default style's move quality: mean loss {:.0} cp, blunders {:.1}%",
            j.mean_cp_loss,
            j.blunder_rate * 100.0
        );
    }
    println!("{:.1} s", r.seconds);
}

fn run_epd(args: &Args, path: &PathBuf, threads: usize) -> Result<()> {
    let started = Instant::now();
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut records: Vec<EpdRecord> = Vec::new();
    let mut skipped = 0;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}: read error", path.display()))?;
        match parse_line(&line, i + 1) {
            Ok(Some(r)) => records.push(r),
            Ok(None) => {}
            Err(e) => {
                skipped += 1;
                eprintln!("{}: {e} (skipped)", path.display());
            }
        }
    }
    if records.is_empty() {
        bail!(
            "{}: no usable EPD record ({skipped} skipped)",
            path.display()
        );
    }
    let positions: Vec<(Game, Option<Move>)> = records
        .iter()
        .map(|r| (Game::new(r.pos.clone()), None))
        .collect();
    let cb = args.reasoner.casebase()?;
    let (name, outcomes) = moves_for(args, &cb, &positions, threads)?;
    let r: EpdReport = epd_report(name, &records, &outcomes, started.elapsed().as_secs_f64());
    if args.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        println!("{}", r.engine);
        println!(
            "{}: solved {} of {} ({:.1}%)",
            path.display(),
            r.solved,
            r.total,
            r.solved_rate * 100.0
        );
        if let (Some(p), Some(m)) = (r.points, r.max_points) {
            println!("points {p} of {m} ({:.1}%)", 100.0 * p as f64 / m as f64);
        }
    }
    Ok(())
}

/// Time per position: `--movetime`, or 100 ms when the revise search is on (it needs a limit;
/// pure retrieval scans the whole case base regardless).
fn movetime(args: &Args, cfg: &EngineConfig) -> Option<Duration> {
    match args.movetime {
        Some(ms) => Some(Duration::from_millis(ms)),
        None if cfg.revise.enabled => Some(Duration::from_millis(DEFAULT_REVISE_MOVETIME_MS)),
        None => None,
    }
}

/// Default time per position with revise on.
const DEFAULT_REVISE_MOVETIME_MS: u64 = 100;
