//! `precedent players` as a workflow: its arguments, the measurement of each player, the report
//! and its chart.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move};

use super::errors::{ERROR_FIT_NODES, ErrorFitter, judge_hook};
use super::layer::{HeldOut, LayerEvidence, Score};
use super::strength::{StrengthArgs, StrengthResult};
use super::{Named, is_test_game, players_of, slug};
use crate::client::Limit;
use crate::eval::Bars;
use crate::eval::{
    Budget, DEFAULT_REVISE_MOVETIME_MS, EvalError, Outcome, OutcomeLine, judge_moves, loss_stats,
    outcome_lines, phase, read_outcomes, run_engine, run_reasoner, run_reasoner_keeping,
    write_outcomes,
};
use crate::positions::{Sample, in_test_half, knowledge_keys, sample_positions};
use crate::stats::{Paired, paired_delta};
use precedent::casebase::{BuildConfig, BuildOptions, CaseBase, FitErrors, FitModel, Judge, build};
use precedent::pgn::Selection;
use precedent::player::PlayerWeights;
use precedent::player::{Knowledge, Player};
use precedent::position::Game;
use precedent::think::EngineConfig;

/// What `players` measures and how.
#[derive(clap::Args, Clone, Debug)]
pub struct PlayersArgs {
    /// Games (.pgn, .pgn.zst; repeatable): the players' and their opponents'.
    #[arg(long, required = true)]
    pub pgn: Vec<String>,
    /// Players with at least this many games (every spelling of their name counted).
    #[arg(long, default_value_t = 300)]
    pub min_games: u64,
    /// Only these players (any of their spellings; repeatable).
    #[arg(long = "player", value_name = "NAME")]
    pub players: Vec<String>,
    /// Two spellings of one player that the name rule does not join, NAME=OTHER (repeatable),
    /// e.g. `Korchnoi,V=Kortschnoj, Viktor`.
    #[arg(long = "alias", value_name = "NAME=OTHER")]
    pub aliases: Vec<String>,
    /// Percentage of each player's games held out for testing (by a hash of their moves).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u8).range(1..=90))]
    pub test_percent: u8,
    /// Test positions a player.
    #[arg(long, default_value_t = 600)]
    pub positions: usize,
    /// Skip the first N plies of every test game.
    #[arg(long, default_value_t = 10)]
    pub skip_plies: u32,
    /// The player's file also from their first N training games only, for each N given
    /// (comma-separated; `all` is always measured).
    #[arg(long, value_delimiter = ',', value_name = "N,N,…")]
    pub games: Vec<u64>,
    /// Time per position in milliseconds (as UCI go movetime).
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// An external UCI engine measured on the same positions (e.g. lc0 with a Maia network);
    /// `{band}` in it becomes the Maia-1 band nearest the player's rating (1100 to 1900), e.g.
    /// `lc0 --weights=maia-{band}.pb.gz`.
    #[arg(long, value_name = "CMD")]
    pub engine: Option<String>,
    /// The external engine's limit per position.
    #[arg(long, default_value = "nodes=1")]
    pub limit: String,
    /// Judge the moves with this UCI engine (e.g. /usr/games/stockfish): the blunder rates of
    /// the player, their engine, the generic engine and the external one, on the same positions.
    #[arg(long, value_name = "CMD")]
    pub judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12")]
    pub judge_limit: String,
    /// The cases ablation: the player's engine with one game in place of everything it knows.
    #[arg(long)]
    pub ablation: bool,
    /// Only games of `fit`'s test half (for a file the move model was fitted on).
    #[arg(long)]
    pub fit_test_half: bool,
    /// Move patterns kept in the player's file: those legal in at least N of its positions.
    #[arg(long, default_value_t = 3)]
    pub min_pattern_count: u32,
    /// Where the player files and each run's outcomes are written (kept: `precedent who` reads
    /// the files; a rerun reuses the generic engine's and the external engine's outcomes when
    /// the positions and settings are the same).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Draw the gain over the generic engine by number of games, a line a player, to FILE.svg.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// Threads (positions run in parallel).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The search's depth a position when the generic model is fitted to a player's moves
    /// (their file's sample); 0 = no fit.
    #[arg(long, default_value_t = super::model::FIT_DEPTH, value_name = "N")]
    pub fit_depth: u32,
    /// Fit the player layer's weights on the measured players' evidence (each player's
    /// figure from weights fitted on the others) and write them to FILE as a parameter
    /// file's `[player]` table.
    #[arg(long, value_name = "FILE")]
    pub fit: Option<PathBuf>,
    /// With `--fit`: measure nothing, fit on every player's evidence already in `--out`.
    #[arg(long, requires = "fit")]
    pub fit_only: bool,
    /// Build each player's file judged by `--judge`, its bot's errors fitted to theirs, and
    /// play it with them (`PlayerErrors`).
    #[arg(long, requires = "judge")]
    pub fit_errors: bool,
    /// The strength matches of each player's file.
    #[command(flatten)]
    pub strength: StrengthArgs,
}

/// What a player's file is built with: the fits of the model and the bot's errors, and the
/// judge of their moves.
#[derive(Clone, Debug, Default)]
struct BuildHooks {
    fit: Option<FitModel>,
    judge: Option<Judge>,
    errors: Option<FitErrors>,
}

/// The player layer fitted.
#[derive(Clone, Debug, Serialize)]
pub struct LayerFit {
    /// The weights fitted on every player's evidence (written to `--fit`'s file).
    pub weights: PlayerWeights,
    /// Their score on all the evidence.
    pub score: Score,
    /// Per player: the weights fitted on the others, and the player's score under them and
    /// under the generic model alone.
    pub held_out: Vec<HeldOut>,
}

/// A rate and how it differs from another on the same positions.
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    /// The rate (0..=1).
    pub rate: f64,
    /// Its paired difference with the other, in points of rate (0..=1).
    pub delta: Paired,
}

/// A player's engine from part of their games.
#[derive(Clone, Debug, Serialize)]
pub struct BySize {
    /// Training games in the file.
    pub games: u64,
    /// Its matching, against the generic engine's.
    pub vs_generic: Versus,
    /// Against the external engine's, when measured.
    pub vs_engine: Option<Versus>,
}

/// The player's engine and the generic one on one phase's positions.
#[derive(Clone, Debug, Serialize)]
pub struct ByPhase {
    /// The phase (`plies 0-9`, `plies 10-39`, `plies 40+`).
    pub phase: String,
    /// Positions in it.
    pub positions: u64,
    /// The generic engine's matching.
    pub generic: f64,
    /// The player's engine's, against the generic one's.
    pub player: Versus,
    /// The external engine's, when measured.
    pub engine: Option<f64>,
}

/// Blunder rates on the same positions (a loss of 200 cp or more by the judge).
#[derive(Clone, Debug, Serialize)]
pub struct Blunders {
    /// The player's own moves.
    pub human: f64,
    /// The player's engine.
    pub player: f64,
    /// The generic engine.
    pub generic: f64,
    /// The external engine.
    pub engine: Option<f64>,
    /// The player's engine imitating them (`PlayerStrength` off), when the player's engine
    /// plays at their strength.
    pub likeness: Option<f64>,
    /// Mean losses (cp): human, player's engine, generic.
    pub mean_loss: [f64; 3],
}

/// One player's result.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerResult {
    /// Who.
    pub player: Named,
    /// Games in their file (the training part, each game once).
    pub train_games: u64,
    /// Test games sampled from.
    pub test_games: u64,
    /// Test positions.
    pub positions: u64,
    /// The player file.
    pub file: String,
    /// Seconds to build it.
    pub build_seconds: f64,
    /// The generic engine's matching.
    pub generic: f64,
    /// The player's engine's (as it plays: at their strength by default), against the generic
    /// one's.
    pub player_vs_generic: Versus,
    /// When the player's engine plays at their strength: the same file imitating them
    /// (`PlayerStrength` off: their likeliest move by the model fitted to them), against the
    /// generic engine.
    pub likeness_vs_generic: Option<Versus>,
    /// The external engine's matching, when measured.
    pub engine: Option<f64>,
    /// The player's engine against the external one.
    pub player_vs_engine: Option<Paired>,
    /// By phase.
    pub by_phase: Vec<ByPhase>,
    /// From part of their games.
    pub by_games: Vec<BySize>,
    /// Δcases: the player's engine against one game.
    pub ablation: Option<Paired>,
    /// With `--judge`.
    pub blunders: Option<Blunders>,
    /// With `--strength`: the bot's games against the anchor.
    pub strength: Option<StrengthResult>,
}

/// A mean over players with its 95 % interval (their spread: Student's t with one degree
/// fewer than players).
#[derive(Clone, Debug, Serialize)]
pub struct Mean {
    /// Players averaged.
    pub players: usize,
    /// The mean.
    pub mean: f64,
    /// Lower end of its 95 % interval.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
}

impl Mean {
    fn of(values: &[f64]) -> Option<Mean> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = if values.len() > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let half = crate::stats::t_quantile_975(values.len().saturating_sub(1)) * (var / n).sqrt();
        Some(Mean {
            players: values.len(),
            mean,
            ci_low: mean - half,
            ci_high: mean + half,
        })
    }
}

/// What `precedent players` reports.
#[derive(Clone, Debug, Serialize)]
pub struct PlayersReport {
    /// The inputs.
    pub pgn: Vec<String>,
    /// The engines and settings.
    pub settings: String,
    /// Each player.
    pub players: Vec<PlayerResult>,
    /// The mean gain of the player's engine over the generic one.
    pub mean_vs_generic: Option<Mean>,
    /// The mean gain over the external engine.
    pub mean_vs_engine: Option<Mean>,
    /// The mean gain over the generic engine of the file imitating them, when the player's
    /// engine plays at their strength.
    pub mean_likeness_vs_generic: Option<Mean>,
    /// The mean gain over the generic engine from each number of games.
    pub mean_by_games: Vec<(u64, Mean)>,
    /// The player layer fitted, with `--fit`.
    pub layer: Option<LayerFit>,
    /// Seconds.
    pub seconds: f64,
}

/// Fits the player layer on every `*.evidence.jsonl` of `dir` and writes the weights to
/// `out` as a parameter file.
fn fit_layer(dir: &Path, out: &Path) -> Result<LayerFit, EvalError> {
    let mut evidence = Vec::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| EvalError::Other(format!("{}: cannot read: {e}", dir.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".evidence.jsonl"))
        .collect();
    files.sort();
    for f in &files {
        evidence.extend(super::layer::read(f)?);
    }
    if evidence.is_empty() {
        return Err(EvalError::Other(format!(
            "{}: no player's evidence to fit on (run `precedent players` first)",
            dir.display()
        )));
    }
    let held_out = super::layer::leave_one_out(&evidence);
    let all: Vec<&LayerEvidence> = evidence.iter().collect();
    let (weights, score) = super::layer::fit(&all);
    #[derive(Serialize)]
    struct File {
        player: PlayerWeights,
    }
    let text =
        toml::to_string(&File { player: weights }).map_err(|e| EvalError::Other(e.to_string()))?;
    std::fs::write(out, text)
        .map_err(|e| EvalError::Other(format!("{}: cannot write: {e}", out.display())))?;
    Ok(LayerFit {
        weights,
        score,
        held_out,
    })
}

/// The players of `--pgn` with `--min-games` games or more (their names joined by `--alias`),
/// only those of `--player` when given; an error when there is none.
fn selected_players(args: &PlayersArgs) -> Result<Vec<Named>, EvalError> {
    let aliases: Vec<(String, String)> = args
        .aliases
        .iter()
        .map(|a| {
            a.split_once('=')
                .map(|(x, y)| (x.trim().to_string(), y.trim().to_string()))
                .ok_or_else(|| EvalError::Other(format!("--alias {a:?}: expected NAME=OTHER")))
        })
        .collect::<Result<_, _>>()?;
    let mut players = players_of(&args.pgn, args.min_games, &aliases)
        .map_err(|e| EvalError::Other(e.to_string()))?;
    if !args.players.is_empty() {
        let wanted: Vec<String> = args.players.iter().map(|p| p.to_lowercase()).collect();
        players.retain(|p| {
            p.spellings
                .iter()
                .any(|s| wanted.contains(&s.to_lowercase()))
        });
    }
    if players.is_empty() {
        return Err(EvalError::Other(format!(
            "{}: no player with {} games or more{}",
            args.pgn.join(", "),
            args.min_games,
            if args.players.is_empty() {
                ""
            } else {
                " among those named"
            }
        )));
    }
    Ok(players)
}

/// Runs `precedent players` with the reasoner `cfg` on the generic case base `generic`.
pub fn run(
    args: &PlayersArgs,
    generic: Arc<CaseBase>,
    cfg: &EngineConfig,
    seed: u64,
    threads: usize,
    bars: &dyn Bars,
) -> Result<PlayersReport, EvalError> {
    let started = Instant::now();
    // A file whose errors are fitted plays with them.
    let cfg = &EngineConfig {
        player_errors: cfg.player_errors || args.fit_errors,
        ..cfg.clone()
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| EvalError::Other(format!("{}: cannot create: {e}", args.out.display())))?;
    if let (true, Some(out)) = (args.fit_only, &args.fit) {
        return Ok(PlayersReport {
            pgn: args.pgn.clone(),
            settings: format!("the evidence in {}", args.out.display()),
            players: Vec::new(),
            mean_vs_generic: None,
            mean_vs_engine: None,
            mean_likeness_vs_generic: None,
            mean_by_games: Vec::new(),
            layer: Some(fit_layer(&args.out, out)?),
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    let players = selected_players(args)?;
    let fit = BuildHooks {
        fit: (args.fit_depth > 0)
            .then(|| super::model::fit_hook(Arc::clone(&generic), cfg.clone(), args.fit_depth)),
        judge: match (&args.judge, args.fit_errors) {
            (Some(cmd), true) => Some(judge_hook(cmd.clone(), args.judge_limit.parse()?, threads)),
            _ => None,
        },
        errors: match (&args.judge, args.fit_errors) {
            (Some(cmd), true) => Some(
                ErrorFitter {
                    generic: Arc::clone(&generic),
                    cfg: cfg.clone(),
                    judge: cmd.clone(),
                    limit: args.judge_limit.parse()?,
                    nodes: ERROR_FIT_NODES,
                    threads,
                }
                .hook(),
            ),
            _ => None,
        },
    };
    let notes = bars.bar("players");
    let mut results = Vec::new();
    for (i, named) in players.iter().enumerate() {
        notes.note(&format!(
            "player {} of {}: {} ({} games)",
            i + 1,
            players.len(),
            named.name,
            named.games
        ));
        results.push(measure(
            args, named, &generic, &fit, cfg, seed, threads, bars,
        )?);
    }
    let deltas = |f: &dyn Fn(&PlayerResult) -> Option<f64>| -> Vec<f64> {
        results.iter().filter_map(f).collect()
    };
    let mut sizes: Vec<u64> = args.games.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mean_by_games = sizes
        .iter()
        .filter_map(|n| {
            let d = deltas(&|r| {
                r.by_games
                    .iter()
                    .find(|b| b.games == *n)
                    .map(|b| b.vs_generic.delta.delta)
            });
            Mean::of(&d).map(|m| (*n, m))
        })
        .collect();
    Ok(PlayersReport {
        pgn: args.pgn.clone(),
        settings: format!(
            "{} ms a move{}, {} test positions a player from ply {}, {} % of games held out",
            args.movetime.unwrap_or(DEFAULT_REVISE_MOVETIME_MS),
            args.engine.as_ref().map_or(String::new(), |e| format!(
                "; external: {e} ({})",
                args.limit
            )),
            args.positions,
            args.skip_plies,
            args.test_percent
        ),
        mean_vs_generic: Mean::of(&deltas(&|r| Some(r.player_vs_generic.delta.delta))),
        mean_vs_engine: Mean::of(&deltas(&|r| r.player_vs_engine.as_ref().map(|p| p.delta))),
        mean_likeness_vs_generic: Mean::of(&deltas(&|r| {
            r.likeness_vs_generic.as_ref().map(|l| l.delta.delta)
        })),
        mean_by_games,
        players: results,
        layer: match &args.fit {
            Some(out) => Some(fit_layer(&args.out, out)?),
            None => None,
        },
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The positions of a player's test games, with the number of games they came from; an error
/// when there is none.
fn test_positions(
    args: &PlayersArgs,
    named: &Named,
    exclude: &HashSet<u64>,
    seed: u64,
) -> Result<(Vec<Sample>, u64), EvalError> {
    let selection = Selection {
        players: named.spellings.iter().map(|s| s.to_lowercase()).collect(),
        skip_plies: args.skip_plies,
        ..Selection::default()
    };
    let seen = std::cell::RefCell::new(HashSet::new());
    let keep = |g: &precedent::pgn::ParsedGame| {
        is_test_game(g.moves_key, args.test_percent)
            && (!args.fit_test_half || in_test_half(g.key))
            && seen.borrow_mut().insert(g.moves_key)
    };
    let mut samples = Vec::new();
    let mut games = 0;
    for pgn in &args.pgn {
        let (mut s, stats) =
            sample_positions(pgn, &selection, args.positions, seed, exclude, &keep)?;
        games += stats.games_used;
        samples.append(&mut s);
    }
    // Several inputs: one sample of the wanted size over all of them, in a seeded order.
    if samples.len() > args.positions {
        use rand::seq::SliceRandom;
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
        samples.shuffle(&mut rng);
        samples.truncate(args.positions);
    }
    if samples.is_empty() {
        return Err(EvalError::Other(format!(
            "{}: no test position (every game in a file, or none past ply {})",
            named.name, args.skip_plies
        )));
    }
    Ok((samples, games))
}

/// The samples' positions as the engines take them, each with the human's move.
fn positions_of(samples: &[Sample]) -> Vec<(Game, Option<Move>)> {
    samples
        .iter()
        .map(|s| (s.game.clone(), Some(s.human)))
        .collect()
}

/// Builds the player's file from their training games (their first `max_games` only, when
/// given) into `out`.
fn build_file(
    args: &PlayersArgs,
    named: &Named,
    out: &Path,
    max_games: Option<u64>,
    hooks: &BuildHooks,
) -> Result<(u64, f64), EvalError> {
    let config = BuildConfig {
        inputs: args.pgn.clone(),
        out: out.to_path_buf(),
        options: BuildOptions {
            players: named.spellings.clone(),
            holdout_moves: Some(args.test_percent),
            min_pattern_count: args.min_pattern_count,
            max_games,
            ..BuildOptions::default()
        },
        strict: false,
        judge: hooks.judge.clone(),
        fit: hooks.fit.clone(),
        fit_errors: hooks.errors.clone(),
        memory: precedent::casebase::MEMORY,
    };
    let summary = build(&config, &mut |_| {}).map_err(|e| EvalError::Other(e.to_string()))?;
    Ok((summary.games_used, summary.seconds))
}

/// Outcomes written by an earlier run on the same positions under the same settings, if any.
fn cached(path: &Path, samples: &[Sample]) -> Option<Vec<Outcome>> {
    let lines = read_outcomes(path).ok()?;
    if lines.len() != samples.len() {
        return None;
    }
    samples
        .iter()
        .zip(&lines)
        .map(|(s, l)| {
            let fen_same = precedent::position::fen_of(&s.game.position) == l.fen;
            let human = s.human.to_uci(CastlingMode::Standard).to_string();
            (fen_same && human == l.human).then(|| outcome_of(s, l))
        })
        .collect()
}

fn outcome_of(s: &Sample, l: &OutcomeLine) -> Outcome {
    let played = l
        .played
        .as_ref()
        .and_then(|u| UciMove::from_ascii(u.as_bytes()).ok())
        .and_then(|u| u.to_move(&s.game.position).ok());
    Outcome {
        matched: l.matched,
        played,
        expected_probability: l.probability,
        expected_rank: l.rank,
        ..Outcome::default()
    }
}

/// A short digest of settings, naming a cache file.
fn digest(text: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// The share of matched outcomes.
fn rate(o: &[Outcome]) -> f64 {
    o.iter().filter(|o| o.matched).count() as f64 / o.len().max(1) as f64
}

fn versus(own: &[Outcome], other: &[Outcome]) -> Versus {
    let a: Vec<bool> = own.iter().map(|o| o.matched).collect();
    let b: Vec<bool> = other.iter().map(|o| o.matched).collect();
    let (delta, ci_low, ci_high) = paired_delta(&a, &b);
    Versus {
        rate: rate(own),
        delta: Paired {
            delta,
            ci_low,
            ci_high,
        },
    }
}

/// Each phase's matching: the player's engine's against the generic engine's, and the
/// external engine's when there is one.
fn by_phase(
    samples: &[Sample],
    own: &[Outcome],
    generic: &[Outcome],
    engine: Option<&[Outcome]>,
) -> Vec<ByPhase> {
    ["plies 0-9", "plies 10-39", "plies 40+"]
        .iter()
        .filter_map(|p| {
            let at: Vec<usize> = (0..samples.len())
                .filter(|i| phase(samples[*i].ply) == *p)
                .collect();
            if at.is_empty() {
                return None;
            }
            let pick = |o: &[Outcome]| at.iter().map(|i| o[*i].clone()).collect::<Vec<_>>();
            let (g, mine) = (pick(generic), pick(own));
            Some(ByPhase {
                phase: p.to_string(),
                positions: at.len() as u64,
                generic: rate(&g),
                player: versus(&mine, &g),
                engine: engine.map(|e| rate(&pick(e))),
            })
        })
        .collect()
}

/// The external engine `cmd`'s outcomes on the player's test positions: read again when a
/// previous run with the same engine and limit wrote them, else played and written.
fn external_outcomes(
    args: &PlayersArgs,
    cmd: &str,
    name: &str,
    samples: &[Sample],
    threads: usize,
    bars: &dyn Bars,
) -> Result<Vec<Outcome>, EvalError> {
    let path = args.out.join(format!(
        "{name}.engine-{}.jsonl",
        digest(&format!("{cmd} {}", args.limit))
    ));
    if let Some(o) = cached(&path, samples) {
        return Ok(o);
    }
    let positions = positions_of(samples);
    let limit: Limit = args.limit.parse()?;
    let bar = bars.bar("external engine");
    let o = run_engine(cmd, &[], limit, &positions, threads, &*bar)?;
    write_outcomes(&path, &outcome_lines(samples, &o))?;
    Ok(o)
}

/// The player's engine's outcomes (the player's file on the generic case base), with the
/// evidence of each position for the player layer.
fn player_outcomes(
    (generic, player): (&CaseBase, &Player),
    samples: &[Sample],
    cfg: &EngineConfig,
    (budget, seed): (Budget, u64),
    bars: &dyn Bars,
) -> (Vec<Outcome>, Vec<LayerEvidence>) {
    let positions = positions_of(samples);
    let bar = bars.bar("player's engine");
    bar.start(positions.len() as u64);
    let keep = |i: usize, t: &precedent::think::Thought| {
        let s = &samples[i];
        LayerEvidence::of(t, player, s.ply, s.human, cfg)
    };
    let kept = run_reasoner_keeping(
        Knowledge::with_player(generic, player),
        &positions,
        cfg,
        budget,
        seed,
        &|_| bar.advance(1),
        &keep,
    );
    bar.finish();
    let evidence: Vec<LayerEvidence> = kept.iter().filter_map(|k| k.1.clone().flatten()).collect();
    (kept.into_iter().map(|k| k.0).collect::<Vec<_>>(), evidence)
}

/// The player's matching with files of their first N games (each N of `--games` below their
/// training games), against the generic engine's and the external engine's (`against`); each
/// file is built, measured by `with_partial` and removed.
fn partial_files(
    args: &PlayersArgs,
    (named, fit, generic): (&Named, &BuildHooks, &CaseBase),
    train_games: u64,
    (generic_out, engine_out): (&[Outcome], Option<&[Outcome]>),
    with_partial: &dyn Fn(&Player, &str) -> Vec<Outcome>,
) -> Result<Vec<BySize>, EvalError> {
    let name = slug(&named.name);
    let mut by_games = Vec::new();
    let mut sizes = args.games.clone();
    sizes.sort_unstable();
    sizes.dedup();
    for n in sizes.into_iter().filter(|n| *n < train_games) {
        let part = args.out.join(format!("{name}.first-{n}.cb"));
        let (partial, _, _) = player_file(args, (named, fit), (&part, generic), Some(n))?;
        let o = with_partial(&partial, &format!("first {n} games"));
        drop(partial);
        let _ = std::fs::remove_file(&part);
        by_games.push(BySize {
            games: n,
            vs_generic: versus(&o, generic_out),
            vs_engine: engine_out.map(|e| versus(&o, e)),
        });
    }
    Ok(by_games)
}

/// Builds the player's file `file` from their training games (the first `first` of them when
/// given) and opens it: the player, their training games, and the build's seconds.
fn player_file(
    args: &PlayersArgs,
    (named, fit): (&Named, &BuildHooks),
    (file, generic): (&Path, &CaseBase),
    first: Option<u64>,
) -> Result<(Player, u64, f64), EvalError> {
    let (train_games, build_seconds) = build_file(args, named, file, first, fit)?;
    let player = Player::of(CaseBase::open(file)?)
        .map_err(|cb| EvalError::Other(format!("{}: built without a profile", cb.name())))?;
    Ok((player.on(generic), train_games, build_seconds))
}

/// Runs the reasoner over `positions` with these settings, a progress bar named `what` for
/// each run.
fn reasoner_over<'a>(
    positions: &'a [(Game, Option<Move>)],
    cfg: &'a EngineConfig,
    (budget, seed): (Budget, u64),
    bars: &'a dyn Bars,
) -> impl Fn(Knowledge<'_>, &str) -> Vec<Outcome> + 'a {
    move |k: Knowledge<'_>, what: &str| {
        let bar = bars.bar(what);
        bar.start(positions.len() as u64);
        let out = run_reasoner(k, positions, cfg, budget, seed, &|_| bar.advance(1));
        bar.finish();
        out
    }
}

/// Where the generic engine's outcomes for player `name` are kept: they depend on the positions
/// and the settings alone (not the player's weights), so a rerun reuses them.
fn generic_path(
    args: &PlayersArgs,
    name: &str,
    cfg: &EngineConfig,
    (seed, without): (u64, u64),
) -> PathBuf {
    let generic_cfg = EngineConfig {
        player: PlayerWeights::default(),
        ..cfg.clone()
    };
    let settings = format!(
        "{:?} {:?} {seed} without {without}",
        args.movetime, generic_cfg
    );
    args.out
        .join(format!("{name}.generic-{}.jsonl", digest(&settings)))
}

/// The Maia-1 band nearest the player's rating (their median over all their games): 1100 to
/// 1900 by hundreds.
fn maia_band(player: &Player) -> u16 {
    let rating = player.profile().rating.map_or(1500, |r| r.median);
    (((rating + 50) / 100) * 100).clamp(1100, 1900)
}

/// Measures one player.
#[allow(clippy::too_many_arguments)]
fn measure(
    args: &PlayersArgs,
    named: &Named,
    generic: &CaseBase,
    fit: &BuildHooks,
    cfg: &EngineConfig,
    seed: u64,
    threads: usize,
    bars: &dyn Bars,
) -> Result<PlayerResult, EvalError> {
    let name = slug(&named.name);
    let file = args.out.join(format!("{name}.cb"));
    let (player, train_games, build_seconds) =
        player_file(args, (named, fit), (&file, generic), None)?;
    let exclude = knowledge_keys(Knowledge::with_player(generic, &player));
    let (samples, test_games) = test_positions(args, named, &exclude, seed)?;
    let positions = positions_of(&samples);
    let budget = Budget::from_flags(
        None,
        args.movetime,
        cfg.revise.enabled,
        DEFAULT_REVISE_MOVETIME_MS,
    );
    let reasoner = reasoner_over(&positions, cfg, (budget, seed), bars);
    let without = player.without();
    let generic_path = generic_path(args, &name, cfg, (seed, without.cases()));
    let generic_out = match cached(&generic_path, &samples) {
        Some(o) => o,
        None => {
            // The generic engine reads the case base without the player's own moves too.
            let o = reasoner(Knowledge::read_without(generic, without), "generic engine");
            write_outcomes(&generic_path, &outcome_lines(&samples, &o))?;
            o
        }
    };
    let (own, evidence) = player_outcomes((generic, &player), &samples, cfg, (budget, seed), bars);
    write_outcomes(
        &args.out.join(format!("{name}.player.jsonl")),
        &outcome_lines(&samples, &own),
    )?;
    // At their strength, the same file imitating them too; the layer's evidence is the
    // imitation's (its weights move the model fitted to them).
    let (likeness, evidence) = match cfg.player_strength {
        true => {
            let imitating = EngineConfig {
                player_strength: false,
                ..cfg.clone()
            };
            let (o, e) = player_outcomes(
                (generic, &player),
                &samples,
                &imitating,
                (budget, seed),
                bars,
            );
            write_outcomes(
                &args.out.join(format!("{name}.likeness.jsonl")),
                &outcome_lines(&samples, &o),
            )?;
            (Some(o), e)
        }
        false => (None, evidence),
    };
    super::layer::write(&args.out.join(format!("{name}.evidence.jsonl")), &evidence)?;
    let engine_out = match &args.engine {
        Some(cmd) => {
            let cmd = cmd.replace("{band}", &maia_band(&player).to_string());
            Some(external_outcomes(
                args, &cmd, &name, &samples, threads, bars,
            )?)
        }
        None => None,
    };
    let against = (generic_out.as_slice(), engine_out.as_deref());
    let with_partial =
        |partial: &Player, what: &str| reasoner(Knowledge::with_player(generic, partial), what);
    let mut by_games = partial_files(
        args,
        (named, fit, generic),
        train_games,
        against,
        &with_partial,
    )?;
    by_games.push(BySize {
        games: train_games,
        vs_generic: versus(&own, &generic_out),
        vs_engine: engine_out.as_ref().map(|e| versus(&own, e)),
    });
    let by_phase = by_phase(&samples, &own, &generic_out, engine_out.as_deref());
    let ablation = if args.ablation {
        let one = player.cases().one_game(0)?;
        let o = reasoner(Knowledge::of(&one), "one game");
        Some(versus(&own, &o).delta)
    } else {
        None
    };
    let blunders = args
        .judge
        .as_ref()
        .map(|cmd| {
            let engine = engine_out.as_deref();
            let judge_limit = &args.judge_limit;
            judge_all(
                cmd,
                judge_limit,
                &samples,
                [&own, &generic_out],
                (engine, likeness.as_deref()),
                threads,
                bars,
            )
        })
        .transpose()?;
    let strength = match &args.strength.anchor {
        Some(_) => {
            let engine = std::env::current_exe()
                .map_err(|e| EvalError::Other(format!("the running binary: {e}")))?;
            let note = bars.bar("strength match");
            note.note(&format!(
                "{}: {} games against the anchor",
                named.name, args.strength.strength_games
            ));
            Some(super::strength::play(
                &args.strength,
                (&engine, &file, &player),
                cfg,
                &args.out,
            )?)
        }
        None => None,
    };
    let generic_rate = rate(&generic_out);
    Ok(PlayerResult {
        player: named.clone(),
        train_games,
        test_games,
        positions: samples.len() as u64,
        file: file.display().to_string(),
        build_seconds,
        generic: generic_rate,
        player_vs_generic: versus(&own, &generic_out),
        likeness_vs_generic: likeness.as_ref().map(|l| versus(l, &generic_out)),
        engine: engine_out.as_ref().map(|e| rate(e)),
        player_vs_engine: engine_out.as_ref().map(|e| versus(&own, e).delta),
        by_phase,
        by_games,
        ablation,
        blunders,
        strength,
    })
}

/// The judge's blunder rates of the human's moves, the player's engine's, the generic
/// engine's and the external engine's on the same positions (each distinct move judged once).
fn judge_all(
    cmd: &str,
    limit: &str,
    samples: &[Sample],
    [own, generic]: [&[Outcome]; 2],
    (engine, likeness): (Option<&[Outcome]>, Option<&[Outcome]>),
    threads: usize,
    bars: &dyn Bars,
) -> Result<Blunders, EvalError> {
    let limit: Limit = limit.parse()?;
    let lists: Vec<(shakmaty::Chess, Vec<Move>)> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut moves = vec![s.human];
            let played = [
                own[i].played,
                generic[i].played,
                engine.and_then(|e| e[i].played),
                likeness.and_then(|l| l[i].played),
            ];
            for m in played.into_iter().flatten() {
                if !moves.contains(&m) {
                    moves.push(m);
                }
            }
            (s.game.position.clone(), moves)
        })
        .collect();
    let bar = bars.bar("judged");
    let losses = judge_moves(cmd, &[], limit, &lists, threads, &*bar)?;
    let loss_of = |i: usize, m: Option<Move>| {
        let m = m?;
        let at = lists[i].1.iter().position(|x| *x == m)?;
        losses[i].get(at).copied()
    };
    let gather = |f: &dyn Fn(usize) -> Option<Move>| -> Vec<i32> {
        (0..samples.len())
            .filter_map(|i| loss_of(i, f(i)))
            .collect()
    };
    let stats = |l: Vec<i32>| loss_stats(&l).unwrap_or((0.0, 0.0, 0));
    let human = stats(gather(&|i| Some(samples[i].human)));
    let player = stats(gather(&|i| own[i].played));
    let generic_stats = stats(gather(&|i| generic[i].played));
    let ext = engine.map(|e| stats(gather(&|i| e[i].played)));
    let imitating = likeness.map(|l| stats(gather(&|i| l[i].played)));
    Ok(Blunders {
        human: human.1,
        player: player.1,
        generic: generic_stats.1,
        engine: ext.map(|e| e.1),
        likeness: imitating.map(|l| l.1),
        mean_loss: [human.0, player.0, generic_stats.0],
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn points(p: &Paired) -> String {
    format!(
        "{:+.1} ({:+.1}..{:+.1})",
        100.0 * p.delta,
        100.0 * p.ci_low,
        100.0 * p.ci_high
    )
}

impl fmt::Display for PlayersReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "players of {}: {}", self.pgn.join(", "), self.settings)?;
        self.write_table(f)?;
        self.write_breakdowns(f)?;
        self.write_layer(f)?;
        writeln!(f, "{:.0} s", self.seconds)
    }
}

impl PlayersReport {
    /// Each player's matching against the generic engine's and the external engine's, and the
    /// means over the players.
    fn write_table(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<24} {:>6} {:>5} {:>5} {:>7} {:>7} {:>22} {:>7} {:>22}",
            "player",
            "train",
            "test",
            "n",
            "generic",
            "player",
            "player - generic",
            "engine",
            "player - engine"
        )?;
        for r in &self.players {
            writeln!(
                f,
                "{:<24} {:>6} {:>5} {:>5} {:>7} {:>7} {:>22} {:>7} {:>22}",
                r.player.name,
                r.train_games,
                r.test_games,
                r.positions,
                pct(r.generic),
                pct(r.player_vs_generic.rate),
                points(&r.player_vs_generic.delta),
                r.engine.map_or("-".into(), pct),
                r.player_vs_engine.as_ref().map_or("-".into(), points)
            )?;
        }
        let mean = |m: &Option<Mean>| {
            m.as_ref().map_or("-".into(), |m| {
                format!(
                    "{:+.1} ({:+.1}..{:+.1}) over {} players",
                    100.0 * m.mean,
                    100.0 * m.ci_low,
                    100.0 * m.ci_high,
                    m.players
                )
            })
        };
        writeln!(f, "mean, player - generic: {}", mean(&self.mean_vs_generic))?;
        writeln!(f, "mean, player - engine:  {}", mean(&self.mean_vs_engine))?;
        if self.players.iter().any(|r| r.likeness_vs_generic.is_some()) {
            writeln!(
                f,
                "imitating them (PlayerStrength false), against the generic engine:"
            )?;
            for r in &self.players {
                if let Some(l) = &r.likeness_vs_generic {
                    writeln!(
                        f,
                        "  {:<22} {} % ({}); at their strength {} %",
                        r.player.name,
                        pct(l.rate),
                        points(&l.delta),
                        pct(r.player_vs_generic.rate)
                    )?;
                }
            }
            writeln!(
                f,
                "mean, imitating - generic: {}",
                mean(&self.mean_likeness_vs_generic)
            )?;
        }
        self.write_strength(f)?;
        for (n, m) in &self.mean_by_games {
            writeln!(
                f,
                "mean from their first {n} games: {}",
                mean(&Some(m.clone()))
            )?;
        }
        Ok(())
    }

    /// Each player's matching by game phase and by games in the file, their Δcases and their
    /// blunders.
    fn write_breakdowns(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "by phase:")?;
        for r in &self.players {
            let rows: Vec<String> = r
                .by_phase
                .iter()
                .map(|p| {
                    format!(
                        "{} (n {}) {} vs {} {}",
                        p.phase,
                        p.positions,
                        pct(p.player.rate),
                        pct(p.generic),
                        points(&p.player.delta)
                    )
                })
                .collect();
            writeln!(f, "  {:<22} {}", r.player.name, rows.join("; "))?;
        }
        if self.players.iter().any(|r| r.by_games.len() > 1) {
            writeln!(f, "by games in the file (player - generic):")?;
            for r in &self.players {
                let rows: Vec<String> = r
                    .by_games
                    .iter()
                    .map(|b| format!("{} {}", b.games, points(&b.vs_generic.delta)))
                    .collect();
                writeln!(f, "  {:<22} {}", r.player.name, rows.join("; "))?;
            }
        }
        for r in &self.players {
            if let Some(a) = &r.ablation {
                writeln!(f, "Δcases {:<15} {}", r.player.name, points(a))?;
            }
            if let Some(b) = &r.blunders {
                writeln!(
                    f,
                    "blunders {:<13} human {} %, player's engine {} %, generic {} %{}{}",
                    r.player.name,
                    pct(b.human),
                    pct(b.player),
                    pct(b.generic),
                    b.engine
                        .map_or(String::new(), |e| format!(", engine {} %", pct(e))),
                    b.likeness
                        .map_or(String::new(), |l| format!(", imitating {} %", pct(l)))
                )?;
            }
        }
        Ok(())
    }

    /// Each player's strength match: the rating and level their bot plays at, the anchor,
    /// the games and the Elo.
    fn write_strength(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.players.iter().all(|r| r.strength.is_none()) {
            return Ok(());
        }
        writeln!(
            f,
            "at their strength: {:<22} {:>16} {:>6} {:>7} {:>6} {:>14} {:>6} {:>18}",
            "", "rating", "level", "anchor", "games", "+ = -", "score", "Elo (95 %)"
        )?;
        for r in &self.players {
            let Some(s) = &r.strength else {
                continue;
            };
            let rating = match &s.speed {
                Some(speed) => format!("{} {speed}", s.rating),
                None => s.rating.to_string(),
            };
            writeln!(
                f,
                "                   {:<22} {:>16} {:>6} {:>7} {:>6} {:>14} {:>6} {:>18}",
                r.player.name,
                rating,
                s.level,
                s.anchor,
                s.games,
                format!("+{} ={} -{}", s.wins, s.draws, s.losses),
                format!("{:.1}%", 100.0 * s.score),
                format!("{:.0} ({:.0}-{:.0})", s.elo, s.elo_low, s.elo_high)
            )?;
        }
        Ok(())
    }

    /// The player layer's weights fitted on all players, and each player under the weights
    /// fitted on the others.
    fn write_layer(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(l) = &self.layer else {
            return Ok(());
        };
        let w = |w: &PlayerWeights| {
            format!(
                "knn {}, patterns {}, book_prior {}, model {}",
                w.knn, w.patterns, w.book_prior, w.model
            )
        };
        writeln!(
            f,
            "player layer fitted on all: {} ({} positions: {} % matched, log-likelihood {:.3})",
            w(&l.weights),
            l.score.positions,
            pct(l.score.accuracy),
            l.score.log_likelihood
        )?;
        writeln!(f, "each player under the weights fitted on the others:")?;
        for h in &l.held_out {
            writeln!(
                f,
                "  {:<22} {} % against the generic {} % ({:+.1}; log-likelihood {:+.3}; their model alone {:+.1}), n {}; {}",
                h.player,
                pct(h.fitted.accuracy),
                pct(h.generic.accuracy),
                100.0 * (h.fitted.accuracy - h.generic.accuracy),
                h.fitted.log_likelihood - h.generic.log_likelihood,
                100.0 * (h.model_only.accuracy - h.generic.accuracy),
                h.fitted.positions,
                w(&h.weights)
            )?;
        }
        let gains: Vec<f64> = l
            .held_out
            .iter()
            .map(|h| h.fitted.accuracy - h.generic.accuracy)
            .collect();
        if let Some(m) = Mean::of(&gains) {
            writeln!(
                f,
                "  mean {:+.1} ({:+.1}..{:+.1}) over {} players",
                100.0 * m.mean,
                100.0 * m.ci_low,
                100.0 * m.ci_high,
                m.players
            )?;
        }
        Ok(())
    }
}

/// An SVG chart of each player's gain over the generic engine by the games in their file.
pub fn chart(report: &PlayersReport) -> Result<String, String> {
    use plotters::prelude::*;
    let lines: Vec<(&str, Vec<(f64, f64)>)> = report
        .players
        .iter()
        .map(|r| {
            (
                r.player.name.as_str(),
                r.by_games
                    .iter()
                    .map(|b| ((b.games as f64).log10(), 100.0 * b.vs_generic.delta.delta))
                    .collect(),
            )
        })
        .collect();
    let xs = lines.iter().flat_map(|l| l.1.iter().map(|p| p.0));
    let ys = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((0.0f64, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
    let (x0, x1) = if x1 > x0 {
        (x0, x1)
    } else {
        (x0 - 0.5, x0 + 0.5)
    };
    let (y0, y1) = (y0 - 1.0, y1 + 1.0);
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut svg, (760, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "A player's engine against the generic one, by games in the player's file",
                ("sans-serif", 15),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .right_y_label_area_size(150)
            .build_cartesian_2d(x0 - 0.05..x1 + 0.05, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("games in the player's file (log scale)")
            .x_label_formatter(&|x| format!("{:.0}", 10f64.powf(*x)))
            .y_desc("move-matching gain, points")
            .draw()
            .map_err(|e| err(&e))?;
        chart
            .draw_series(LineSeries::new(
                [(x0 - 0.05, 0.0), (x1 + 0.05, 0.0)],
                BLACK.mix(0.4),
            ))
            .map_err(|e| err(&e))?;
        for (i, (name, pts)) in lines.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(name.to_string())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], colour));
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 3, colour.filled())))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .border_style(BLACK.mix(0.3))
            .background_style(WHITE.mix(0.9))
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}
