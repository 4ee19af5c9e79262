//! `precedent who` as a command: its arguments, the games read, the ranking printed.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Ranked, rank};
use crate::eval::{Bars, EvalError};
use crate::positions::sample_positions;
use precedent::casebase::{CaseBase, is_held_out, main_player};
use precedent::pgn::Selection;
use precedent::player::Player;
use precedent::search::Limits;
use precedent::think::EngineConfig;

/// What `who` compares.
#[derive(clap::Args, Clone, Debug)]
pub struct WhoArgs {
    /// The games (.pgn, .pgn.zst; repeatable).
    #[arg(required = true)]
    pub games: Vec<String>,
    /// A player file (repeatable), or a folder of them (every `.cb` in it).
    #[arg(long = "file", value_name = "FILE|DIR", required = true)]
    pub files: Vec<PathBuf>,
    /// Whose moves to explain (any spelling, repeatable); default: the games' most frequent
    /// player.
    #[arg(long = "player", value_name = "NAME")]
    pub players: Vec<String>,
    /// Only their first N games.
    #[arg(long, value_name = "N")]
    pub max_games: Option<u64>,
    /// Pass over their first N games (with `--max-games`: the next set of games).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub skip_games: u64,
    /// Only the games held out of player files built with `--holdout-moves PERCENT` (the
    /// games `precedent players` tests on): the games no file has seen.
    #[arg(long, value_name = "PERCENT")]
    pub held_out: Option<u8>,
    /// Skip the first N plies of every game.
    #[arg(long, default_value_t = 0)]
    pub skip_plies: u32,
    /// Time per position for the generic model's search, in milliseconds.
    #[arg(long, default_value_t = 20, value_name = "MS")]
    pub movetime: u64,
}

/// What `who` reports.
#[derive(Clone, Debug, Serialize)]
pub struct WhoReport {
    /// Whose moves were explained (the names matched).
    pub player: Vec<String>,
    /// Games read.
    pub games: u64,
    /// Moves explained.
    pub moves: u64,
    /// The players' files, best first.
    pub ranking: Vec<Ranked>,
    /// Seconds.
    pub seconds: f64,
}

/// The player files `paths` name (a folder: every `.cb` in it), loaded.
pub fn load_players(paths: &[PathBuf]) -> Result<Vec<(String, Player)>, EvalError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p)
                .map_err(|e| EvalError::Other(format!("{}: cannot read: {e}", p.display())))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "cb"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    files
        .into_iter()
        .map(|f| {
            let cb = CaseBase::open(&f)?;
            let player = Player::of(cb).map_err(|cb| {
                EvalError::Other(format!(
                    "{}: a case base, not a player file (build one with `precedent build --player`)",
                    cb.name()
                ))
            })?;
            Ok((f.display().to_string(), player.with_cases()?))
        })
        .collect()
}

/// Runs `precedent who` with the reasoner `cfg` on the generic case base `generic`.
pub fn run(
    args: &WhoArgs,
    generic: &CaseBase,
    cfg: &EngineConfig,
    bars: &dyn Bars,
) -> Result<WhoReport, EvalError> {
    let started = Instant::now();
    let players = load_players(&args.files)?;
    if players.is_empty() {
        return Err(EvalError::Other("--file: no player file given".into()));
    }
    let names = if args.players.is_empty() {
        let main = main_player(&args.games).map_err(|e| EvalError::Other(e.to_string()))?;
        vec![main.ok_or_else(|| EvalError::Other("the games name no player".into()))?]
    } else {
        args.players.clone()
    };
    let selection = Selection {
        players: names.iter().map(|n| n.to_lowercase()).collect(),
        skip_plies: args.skip_plies,
        ..Selection::default()
    };
    // Each game once, held out when asked, after the first `skip_games`, up to `max_games`.
    let (passed, used) = (Cell::new(0u64), Cell::new(0u64));
    let seen = std::cell::RefCell::new(HashSet::new());
    let keep = |g: &precedent::pgn::ParsedGame| {
        let held = args
            .held_out
            .is_none_or(|pct| is_held_out(g.moves_key, pct));
        if !held || !seen.borrow_mut().insert(g.moves_key) {
            return false;
        }
        if passed.get() < args.skip_games {
            passed.set(passed.get() + 1);
            return false;
        }
        let room = args.max_games.is_none_or(|m| used.get() < m);
        if room {
            used.set(used.get() + 1);
        }
        room
    };
    let mut moves = Vec::new();
    for pgn in &args.games {
        let (samples, _) =
            sample_positions(pgn, &selection, usize::MAX / 2, 1, &HashSet::new(), &keep)?;
        moves.extend(samples.into_iter().map(|s| (s.game, s.human)));
    }
    if moves.is_empty() {
        return Err(EvalError::Other(format!(
            "{}: no move of {} to explain",
            args.games.join(", "),
            names.join(", ")
        )));
    }
    let bar = bars.bar("moves");
    bar.start(moves.len() as u64);
    let movetime = Duration::from_millis(args.movetime);
    let limits = || Limits {
        deadline: Some(Instant::now() + movetime),
        ..Limits::default()
    };
    let players: Vec<(String, &Player)> = players.iter().map(|(f, p)| (f.clone(), p)).collect();
    let ranking = rank(generic, &players, &moves, cfg, &limits, &|| bar.advance(1));
    bar.finish();
    Ok(WhoReport {
        player: names,
        games: used.get(),
        moves: moves.len() as u64,
        ranking,
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl fmt::Display for WhoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} moves of {} in {} games, explained by each player's file (mean log-likelihood a move):",
            self.moves,
            self.player.join(", "),
            self.games
        )?;
        for (i, r) in self.ranking.iter().enumerate() {
            writeln!(
                f,
                "{:>3}. {:<28} {:>8.4}  {:>8}  {}",
                i + 1,
                r.name,
                r.mean_log_likelihood,
                if i == 0 {
                    String::new()
                } else {
                    format!("-{:.4}", r.behind)
                },
                r.file
            )?;
        }
        writeln!(f, "{:.0} s", self.seconds)
    }
}
