//! `precedent match`: games between players (Precedent configurations in-process, external UCI
//! engines, a random mover), in parallel, with openings played twice with colours reversed, a
//! PGN file of every game, a crosstable and Elo ratings.

pub mod game;
pub mod openings;
pub mod pgn_out;
pub mod player;
mod run;

pub use run::{MatchArgs, MatchSettings, parse_resign};

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde::Serialize;
use shakmaty::{CastlingMode, Color};

use crate::Progress;
use crate::rating::{self, Anchor, Crosstable, Pairwise, Played};
use game::{Adjudication, MoveTimes, Termination};
use openings::Opening;
use player::{PlayerSpec, TimeControl};
use precedent::casebase::CaseBase;
use precedent::pgn::{GameHeader, GameResult};
use precedent::player::Loaded;
use precedent::retrieve::tie_key;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pairing {
    /// Every pair of players.
    RoundRobin,
    /// The first player against each of the others.
    Gauntlet,
}

/// A whole match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The players, in command-line order (the first is the gauntlet's challenger).
    pub players: Vec<PlayerSpec>,
    /// Who plays whom.
    pub pairing: Pairing,
    /// Games per pair (rounded up to an even number: each opening is played with both colours).
    pub games_per_pair: usize,
    /// Start positions, shuffled by `seed` and dealt to the games in turn.
    pub openings: Vec<Opening>,
    /// Time control of every player that does not bring its own.
    pub tc: TimeControl,
    /// Games played at the same time (at least 1).
    pub concurrency: usize,
    /// Seeds the opening order and each game's players, so a match can be replayed.
    pub seed: u64,
    /// Optional early ends (max plies, resignation).
    pub adjudication: Adjudication,
    /// Where to write every game as PGN; `None` = nowhere.
    pub pgn_out: Option<PathBuf>,
    /// Anchor the Elo scale: a player's name and its Elo; `None` = mean 0.
    pub anchor: Option<(String, f64)>,
    /// The PGN `Event` tag of every game.
    pub event: String,
    /// Chess960: engines get `UCI_Chess960 true` and castling is written king takes rook.
    pub chess960: bool,
    /// Start every engine afresh for every game. Otherwise (as GUIs and fastchess do) each
    /// worker keeps its engines running from game to game, with `ucinewgame` between games,
    /// and restarts only an engine that failed.
    pub restart: bool,
}

/// One scheduled game.
#[derive(Clone, Copy, Debug)]
struct Job {
    round: usize,
    white: usize,
    black: usize,
    opening: usize,
}

/// A finished game, as the report lists it.
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// The game's number in the schedule, from 1 (its PGN `Round`).
    pub round: usize,
    /// White's player name.
    pub white: String,
    /// Black's player name.
    pub black: String,
    /// The result in PGN form (`1-0`, `0-1`, `1/2-1/2`).
    pub result: String,
    /// How the game ended, with details.
    pub termination: String,
    /// Plies played after the opening.
    pub plies: usize,
}

/// A player's line in the report.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerRow {
    /// The player's name.
    pub name: String,
    /// Games it played.
    pub games: u64,
    /// Points it scored (1 a win, ½ a draw).
    pub score: f64,
    /// Games it won.
    pub wins: u64,
    /// Games it drew.
    pub draws: u64,
    /// Games it lost.
    pub losses: u64,
    /// Maximum-likelihood Elo rating fitted over the match, anchored as
    /// [`MatchReport::anchor`] says.
    pub elo: f64,
    /// Lower end of the 95 % confidence interval of `elo` (Elo).
    pub ci_low: f64,
    /// Upper end of the 95 % confidence interval of `elo` (Elo).
    pub ci_high: f64,
    /// Games this player lost by crashing, stalling, flagging or an illegal move.
    pub failures: u64,
    /// Those games by kind (time forfeit, illegal move, engine failure, engine stalled).
    pub forfeits: BTreeMap<String, u64>,
    /// Its move times against their budgets, over the whole match.
    pub times: MoveTimes,
    /// Resident memory of its process (external engines), sampled after its games.
    pub memory: Vec<MemorySample>,
}

/// A player process's resident memory after a game.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MemorySample {
    /// Games finished in the match when the sample was taken.
    pub after_games: usize,
    /// Games this process had played.
    pub process_games: usize,
    /// Resident set size in kB.
    pub kb: u64,
}

/// What a match produced.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// One row per player, in command-line order.
    pub players: Vec<PlayerRow>,
    /// Points and games of every player against every other, by player index.
    pub crosstable: Crosstable,
    /// Head-to-head records of every pair that met.
    pub pairwise: Vec<PairwiseNamed>,
    /// Games per kind of ending (checkmate, threefold repetition, time forfeit, …).
    pub terminations: HashMap<String, u64>,
    /// One line per game lost by a player's failure (crash, stall, flag, illegal move).
    pub failures: Vec<String>,
    /// Every finished game, in schedule order.
    pub games: Vec<GameSummary>,
    /// What fixes the Elo scale, e.g. `mean of all players = 0` or `stockfish = 2800`.
    pub anchor: String,
    /// Wall-clock time of the match (seconds).
    pub seconds: f64,
}

/// A pairwise record with names.
#[derive(Clone, Debug, Serialize)]
pub struct PairwiseNamed {
    /// Name of player `a` (the lower-numbered one).
    pub a_name: String,
    /// Name of player `b`.
    pub b_name: String,
    /// The record, seen from `a`.
    #[serde(flatten)]
    pub record: Pairwise,
}

/// Why a match could not run.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The configuration cannot work (too few players, duplicate names, unknown anchor, …).
    #[error("{0}")]
    Config(String),
    /// A player's case base could not be loaded.
    #[error(transparent)]
    CaseBase(#[from] precedent::casebase::CaseBaseError),
    /// The PGN output could not be created or written.
    #[error("{path}: cannot write the PGN file: {source}")]
    Pgn {
        /// The PGN file's path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

fn schedule(cfg: &MatchConfig) -> Vec<Job> {
    let n = cfg.players.len();
    let pairs: Vec<(usize, usize)> = match cfg.pairing {
        Pairing::RoundRobin => (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect(),
        Pairing::Gauntlet => (1..n).map(|b| (0, b)).collect(),
    };
    let per_pair = cfg.games_per_pair.div_ceil(2);
    let mut jobs = Vec::new();
    let mut opening = 0;
    // Interleave the pairs so that a partial match (or the progress bar) is balanced.
    for g in 0..per_pair {
        for &(a, b) in &pairs {
            let o = opening % cfg.openings.len();
            opening += 1;
            let (w, bl) = if g % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                round: 0,
                white: w,
                black: bl,
                opening: o,
            });
            jobs.push(Job {
                round: 0,
                white: bl,
                black: w,
                opening: o,
            });
        }
    }
    for (i, j) in jobs.iter_mut().enumerate() {
        j.round = i + 1;
    }
    jobs
}

/// The result of one finished game, sent from a worker.
struct Finished {
    job: Job,
    record: game::GameRecordOut,
    /// White's and Black's process memory after the game (kB), and games that process played.
    memory: [Option<(u64, usize)>; 2],
}

/// Plays the match, reporting each finished game, the running score and every failure to
/// `progress`.
pub fn run(cfg: &MatchConfig, progress: &dyn Progress) -> Result<MatchReport, MatchError> {
    let started = Instant::now();
    let anchor = check(cfg)?;
    let mut openings = cfg.openings.clone();
    openings.shuffle(&mut StdRng::seed_from_u64(cfg.seed));
    let casebases = load_casebases(cfg)?;
    let jobs = schedule(cfg);
    let tcs: Vec<TimeControl> = cfg
        .players
        .iter()
        .map(|p| p.tc().unwrap_or(cfg.tc))
        .collect();
    let mut tally = Tally::new(cfg, &tcs, &openings, jobs.len())?;
    progress.start(jobs.len() as u64);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Finished>();
    std::thread::scope(|scope| -> Result<(), MatchError> {
        for _ in 0..cfg.concurrency.max(1) {
            let tx = tx.clone();
            let (jobs, next, casebases, openings, tcs) =
                (&jobs, &next, &casebases, &openings, &tcs);
            scope.spawn(move || {
                // This worker's running players, by player index, with the games each played.
                let mut live: HashMap<usize, (player::Live, usize)> = HashMap::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&job) = jobs.get(i) else { break };
                    let (record, memory) = play_job(
                        cfg,
                        job,
                        casebases,
                        &openings[job.opening],
                        [tcs[job.white], tcs[job.black]],
                        &mut live,
                    );
                    let done = Finished {
                        job,
                        record,
                        memory,
                    };
                    if tx.send(done).is_err() {
                        break;
                    }
                }
                for (player, _) in live.into_values() {
                    player.finish();
                }
            });
        }
        drop(tx);
        for f in rx {
            tally.add(f, progress)?;
        }
        Ok(())
    })?;
    progress.finish();
    tally.flush()?;
    Ok(report(
        cfg,
        &jobs,
        &tally.results,
        tally.failures,
        tally.memory,
        anchor,
        started.elapsed().as_secs_f64(),
    ))
}

/// Checks the players (at least two, each named once) and the openings; the rating anchor.
fn check(cfg: &MatchConfig) -> Result<Anchor, MatchError> {
    if cfg.players.len() < 2 {
        return Err(MatchError::Config(
            "a match needs at least two players".into(),
        ));
    }
    let mut names = std::collections::HashSet::new();
    for p in &cfg.players {
        if !names.insert(p.name()) {
            return Err(MatchError::Config(format!(
                "two players are named {:?}: give each a name=…",
                p.name()
            )));
        }
    }
    if cfg.openings.is_empty() {
        return Err(MatchError::Config("no openings".into()));
    }
    Ok(match &cfg.anchor {
        None => Anchor::Mean,
        Some((name, elo)) => {
            let index = cfg
                .players
                .iter()
                .position(|p| p.name() == name)
                .ok_or_else(|| MatchError::Config(format!("--anchor {name}: no such player")))?;
            Anchor::Player { index, elo: *elo }
        }
    })
}

/// Each player's case base (Precedent's; `None` for an engine), one copy of each file shared
/// by every game.
fn load_casebases(cfg: &MatchConfig) -> Result<Vec<Option<Loaded>>, MatchError> {
    let mut loaded: HashMap<Option<PathBuf>, Loaded> = HashMap::new();
    let mut embedded: Option<Arc<CaseBase>> = None;
    let mut casebases = Vec::new();
    for p in &cfg.players {
        casebases.push(match p {
            PlayerSpec::Precedent { casebase, .. } => {
                if !loaded.contains_key(casebase) {
                    // A player file goes on top of the embedded case base, loaded once.
                    let cb = Loaded::open(casebase.as_deref(), || match &embedded {
                        Some(e) => Ok(Arc::clone(e)),
                        None => Ok(Arc::clone(embedded.insert(Arc::new(CaseBase::embedded()?)))),
                    })?;
                    loaded.insert(casebase.clone(), cb);
                }
                loaded.get(casebase).cloned()
            }
            _ => None,
        });
    }
    Ok(casebases)
}

/// What the match has gathered, game by game: scores, failures, memory, the records, the PGN.
struct Tally<'a> {
    cfg: &'a MatchConfig,
    tcs: &'a [TimeControl],
    openings: &'a [Opening],
    date: String,
    pgn: Option<std::io::BufWriter<std::fs::File>>,
    results: Vec<Option<game::GameRecordOut>>,
    failures: Vec<String>,
    points: Vec<f64>,
    played: Vec<u64>,
    memory: Vec<Vec<MemorySample>>,
    finished: usize,
}

impl<'a> Tally<'a> {
    /// An empty tally of `games` games; creates the PGN file if one is asked for.
    fn new(
        cfg: &'a MatchConfig,
        tcs: &'a [TimeControl],
        openings: &'a [Opening],
        games: usize,
    ) -> Result<Tally<'a>, MatchError> {
        let pgn = match &cfg.pgn_out {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::File::create(path).map_err(|source| MatchError::Pgn {
                    path: path.display().to_string(),
                    source,
                })?,
            )),
            None => None,
        };
        let players = cfg.players.len();
        Ok(Tally {
            cfg,
            tcs,
            openings,
            date: pgn_out::today(),
            pgn,
            results: vec![None; games],
            failures: Vec::new(),
            points: vec![0.0; players],
            played: vec![0; players],
            memory: vec![Vec::new(); players],
            finished: 0,
        })
    }

    /// Records a finished game: its memory samples, a failure, the score, the PGN, progress.
    fn add(&mut self, f: Finished, progress: &dyn Progress) -> Result<(), MatchError> {
        let (cfg, job) = (self.cfg, f.job);
        self.finished += 1;
        for (player, sample) in [job.white, job.black].into_iter().zip(f.memory) {
            if let Some((kb, process_games)) = sample {
                self.memory[player].push(MemorySample {
                    after_games: self.finished,
                    process_games,
                    kb,
                });
            }
        }
        let r = &f.record;
        let (w, b) = (cfg.players[job.white].name(), cfg.players[job.black].name());
        if let Some(culprit) = r.culprit {
            let (who, side) = if culprit == Color::White {
                (w, "white")
            } else {
                (b, "black")
            };
            let line = format!(
                "game {}: {who} ({side}) {}; scored as a loss",
                job.round,
                r.termination.describe()
            );
            progress.note(&line);
            self.failures.push(line);
        }
        let white_points = r.result.points_for(Color::White).unwrap_or(0.5);
        self.points[job.white] += white_points;
        self.points[job.black] += 1.0 - white_points;
        self.played[job.white] += 1;
        self.played[job.black] += 1;
        self.write_pgn(job, r)?;
        progress.advance(1);
        let status: Vec<String> = cfg
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{} {}/{}", p.name(), self.points[i], self.played[i]))
            .collect();
        progress.status(&status.join("  "));
        self.results[job.round - 1] = Some(f.record);
        Ok(())
    }

    /// Appends the game to the PGN file, if there is one.
    fn write_pgn(&mut self, job: Job, r: &game::GameRecordOut) -> Result<(), MatchError> {
        let cfg = self.cfg;
        let Some(out) = self.pgn.as_mut() else {
            return Ok(());
        };
        let header = GameHeader {
            event: cfg.event.clone(),
            site: "precedent match".into(),
            date: self.date.clone(),
            round: job.round.to_string(),
            white: cfg.players[job.white].name().to_string(),
            black: cfg.players[job.black].name().to_string(),
            result: r.result,
            ..GameHeader::default()
        };
        let text = pgn_out::write(&pgn_out::PgnGame {
            header: &header,
            termination: &r.termination,
            time_control: [
                self.tcs[job.white].to_string(),
                self.tcs[job.black].to_string(),
            ],
            opening: &self.openings[job.opening],
            moves: &r.moves,
            chess960: cfg.chess960,
        });
        out.write_all(text.as_bytes())
            .map_err(|source| MatchError::Pgn {
                path: pgn_path(cfg),
                source,
            })
    }

    /// Flushes the PGN file.
    fn flush(&mut self) -> Result<(), MatchError> {
        match self.pgn.as_mut() {
            Some(out) => out.flush().map_err(|source| MatchError::Pgn {
                path: pgn_path(self.cfg),
                source,
            }),
            None => Ok(()),
        }
    }
}

/// The PGN file's name, for messages.
fn pgn_path(cfg: &MatchConfig) -> String {
    cfg.pgn_out
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// Plays one scheduled game with the worker's running players (`live`), starting those that
/// are not running; returns the record and each side's process memory after the game.
fn play_job(
    cfg: &MatchConfig,
    job: Job,
    casebases: &[Option<Loaded>],
    opening: &Opening,
    tc: [TimeControl; 2],
    live: &mut HashMap<usize, (player::Live, usize)>,
) -> (game::GameRecordOut, [Option<(u64, usize)>; 2]) {
    let seed = tie_key(cfg.seed, job.round);
    // A random mover is made anew for every game, so that its moves depend on the game's seed
    // alone, not on which worker played which games before.
    let keep = |p: usize| !cfg.restart && !matches!(cfg.players[p], PlayerSpec::Random { .. });
    let mut start = |p: usize, salt: u64| match live.remove(&p) {
        Some(running) => Ok(running),
        None => player::start(
            &cfg.players[p],
            casebases[p].clone(),
            seed ^ salt,
            cfg.chess960,
        )
        .map(|l| (l, 0)),
    };
    let fail = |side: Color, f: player::Failure| game::GameRecordOut {
        result: if side == Color::White {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        },
        termination: match f {
            player::Failure::Crash(d) => Termination::Crash(format!("cannot start: {d}")),
            player::Failure::Stall(d) => Termination::Stall(d),
            player::Failure::Illegal(d) => Termination::IllegalMove(d),
        },
        culprit: Some(side),
        moves: Vec::new(),
        final_position: opening.position.clone(),
        times: [MoveTimes::default(); 2],
    };
    let (mut white, white_games) = match start(job.white, 1) {
        Ok(l) => l,
        Err(f) => return (fail(Color::White, f), [None, None]),
    };
    let (mut black, black_games) = match start(job.black, 2) {
        Ok(l) => l,
        Err(f) => {
            white.finish();
            return (fail(Color::Black, f), [None, None]);
        }
    };
    let castling = if cfg.chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let record = game::play(
        &mut white,
        &mut black,
        opening,
        tc,
        &cfg.adjudication,
        castling,
    );
    let mut memory = [None, None];
    let sides = [
        (Color::White, job.white, white, white_games),
        (Color::Black, job.black, black, black_games),
    ];
    for (i, (side, p, player, games)) in sides.into_iter().enumerate() {
        memory[i] = player.resident_kb().map(|kb| (kb, games + 1));
        // An engine that failed is restarted for its next game.
        if keep(p) && record.culprit != Some(side) {
            live.insert(p, (player, games + 1));
        } else {
            player.finish();
        }
    }
    (record, memory)
}

fn report(
    cfg: &MatchConfig,
    jobs: &[Job],
    results: &[Option<game::GameRecordOut>],
    failures: Vec<String>,
    memory: Vec<Vec<MemorySample>>,
    anchor: Anchor,
    seconds: f64,
) -> MatchReport {
    let n = cfg.players.len();
    let mut games = Vec::new();
    let mut summaries = Vec::new();
    let mut terminations: HashMap<String, u64> = HashMap::new();
    let mut fails = vec![0u64; n];
    let mut forfeits: Vec<BTreeMap<String, u64>> = vec![BTreeMap::new(); n];
    let mut times = vec![MoveTimes::default(); n];
    for (job, r) in jobs.iter().zip(results) {
        let Some(r) = r else { continue };
        let score = r.result.points_for(Color::White).unwrap_or(0.5);
        games.push(Played {
            white: job.white,
            black: job.black,
            score,
        });
        if let Some(c) = r.culprit {
            let p = if c == Color::White {
                job.white
            } else {
                job.black
            };
            fails[p] += 1;
            *forfeits[p]
                .entry(r.termination.kind().to_string())
                .or_default() += 1;
        }
        times[job.white].merge(&r.times[0]);
        times[job.black].merge(&r.times[1]);
        *terminations
            .entry(r.termination.kind().to_string())
            .or_default() += 1;
        summaries.push(GameSummary {
            round: job.round,
            white: cfg.players[job.white].name().to_string(),
            black: cfg.players[job.black].name().to_string(),
            result: r.result.as_pgn().to_string(),
            termination: r.termination.describe(),
            plies: r.moves.len(),
        });
    }
    let fit = rating::fit_elo(n, &games, &anchor);
    let table = rating::crosstable(n, &games);
    let pairs = rating::pairwise(n, &games);
    let players = (0..n)
        .map(|i| {
            let (wins, draws, losses) = rating::record_of(i, &games);
            PlayerRow {
                name: cfg.players[i].name().to_string(),
                games: table.total_games[i],
                score: table.total_points[i],
                wins,
                draws,
                losses,
                elo: fit.elo[i],
                ci_low: fit.ci_low[i],
                ci_high: fit.ci_high[i],
                failures: fails[i],
                forfeits: forfeits[i].clone(),
                times: times[i],
                memory: memory[i].clone(),
            }
        })
        .collect();
    let pairwise = pairs
        .into_iter()
        .map(|p| PairwiseNamed {
            a_name: cfg.players[p.a].name().to_string(),
            b_name: cfg.players[p.b].name().to_string(),
            record: p,
        })
        .collect();
    let anchor_text = match &cfg.anchor {
        None => "mean of all players = 0".to_string(),
        Some((name, elo)) => format!("{name} = {elo}"),
    };
    MatchReport {
        players,
        crosstable: table,
        pairwise,
        terminations,
        failures,
        games: summaries,
        anchor: anchor_text,
        seconds,
    }
}
