//! The UCI engine: the protocol on stdin/stdout.
//!
//! A reader thread turns stdin into lines on a channel, so the protocol loop answers `isready`
//! and `stop` while a search runs on its worker thread. This layer knows the protocol, the
//! options and the clock; the thinking is [`crate::think::think`], reached only through its
//! [`Thought`] and the explanation writer. Only protocol goes to stdout, one flushed line at a
//! time.

pub(crate) mod command;
pub(crate) mod options;
pub use command::{Command, GoParams, parse as parse_command};
pub use options::Options;

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::casebase::{CaseBase, CaseBaseError};
use crate::pgn::Speed;
use crate::player::Loaded;
use crate::position::{Game, parse_fen, play_line};
use crate::reuse::{NoLegalMove, expected_to_cp, reuse};
use crate::revise::Memory;
use crate::search::Limits;
use crate::search::RootResult;
use crate::think::config::{EngineConfig, PlayerClock};
use crate::think::explain::explain;
use crate::think::pace::{ClockMemory, ClockSituation, HumanPlan};
use crate::think::timeman::{Clock, plan};
use crate::think::{DecidedBy, EngineScore, Thought, think};
use command::parse;
use options::Change;

/// Thinking time of a `go` without any limit.
const PLAIN_GO: Duration = Duration::from_secs(1);
/// Thinking time when there is a single legal move (unless the GUI asked for analysis).
const ONLY_MOVE: Duration = Duration::from_millis(20);

/// Writes one protocol line to stdout and flushes it. A closed stdout (the GUI has gone) is not
/// an error worth reporting: stdin will end too.
pub fn send(line: &str) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Where the case base is: still loading in the background, or ready.
enum Slot {
    Loading(JoinHandle<Result<Loaded, CaseBaseError>>),
    Ready(Option<Loaded>),
}

/// Synchronisation between the protocol loop and a running search.
struct Shared {
    /// Ends the scan early.
    stop: AtomicBool,
    /// Whether `bestmove` must wait (infinite analysis or pondering).
    hold: Mutex<bool>,
    released: Condvar,
    /// Set just before `bestmove` is sent: from then on the search is over, even if its thread
    /// has not exited yet (a GUI may send `setoption` the moment it reads `bestmove`).
    answered: AtomicBool,
}

impl Shared {
    fn release(&self) {
        let mut hold = self.hold.lock().unwrap_or_else(|e| e.into_inner());
        *hold = false;
        self.released.notify_all();
    }
}

/// A search in progress.
struct Running {
    shared: Arc<Shared>,
    handle: JoinHandle<()>,
    /// For `go ponder`: the clock to use from `ponderhit` on.
    ponder_clock: Option<Clock>,
}

/// The protocol state.
pub struct Engine {
    options: Options,
    slot: Slot,
    pool: Arc<rayon::ThreadPool>,
    game: Game,
    running: Option<Running>,
    debug: bool,
    /// The search's memory, kept from move to move; a running search holds the lock.
    memory: Arc<Mutex<Memory>>,
    /// When the engine last finished something a GUI waits for (loading the case base before
    /// `uciok` or `readyok`): a command read before then was sent before the GUI could know the
    /// engine was ready, so its clock counts from then.
    ready_at: Instant,
    /// The clocks of the last `go`, for `HumanTime`.
    clocks: ClockMemory,
}

fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    let built = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    // Building a pool fails only if the OS refuses threads; one thread is then the best we have.
    Arc::new(built.unwrap_or_else(|_| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap_or_else(|e| panic!("no thread for the scan: {e}"))
    }))
}

/// A case base or a player file (on top of the embedded case base); `None`: the embedded one.
fn load(path: Option<PathBuf>) -> Result<Loaded, CaseBaseError> {
    Loaded::open(path.as_deref(), || CaseBase::embedded().map(Arc::new))
}

impl Engine {
    /// An engine whose case base (`casebase`, or the embedded one) starts loading at once.
    pub fn new(casebase: Option<Loaded>) -> Engine {
        let options = Options::default();
        let slot = match casebase {
            Some(k) => Slot::Ready(Some(k)),
            None => Slot::Loading(thread::spawn(|| load(None))),
        };
        Engine {
            pool: pool(options.threads),
            memory: Arc::new(Mutex::new(Memory::new(options.hash as usize))),
            options,
            slot,
            game: Game::default(),
            running: None,
            debug: false,
            ready_at: Instant::now(),
            clocks: ClockMemory::default(),
        }
    }

    fn casebase(&mut self) -> Option<Loaded> {
        if let Slot::Loading(_) = self.slot {
            let Slot::Loading(handle) = std::mem::replace(&mut self.slot, Slot::Ready(None)) else {
                unreachable!()
            };
            let loaded = match handle.join() {
                Ok(Ok(k)) => Some(k),
                Ok(Err(e)) => {
                    send(&format!("info string error: {e}"));
                    None
                }
                Err(_) => {
                    send("info string error: loading the case base failed");
                    None
                }
            };
            self.slot = Slot::Ready(loaded);
        }
        match &self.slot {
            Slot::Ready(cb) => cb.clone(),
            Slot::Loading(_) => None,
        }
    }

    /// Forgets a search that has ended by itself (sent its bestmove).
    fn reap(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.handle.is_finished() || r.shared.answered.load(Ordering::Acquire))
        {
            self.finish_search();
        }
    }

    /// Handles one line; returns `false` when the engine should exit.
    pub(crate) fn handle(&mut self, line: &str, received: Instant) -> bool {
        self.reap();
        let cmd = match parse(line) {
            Ok(cmd) => cmd,
            Err(e) => {
                send(&format!("info string error: {e}"));
                return true;
            }
        };
        match cmd {
            Command::Uci => {
                send(&format!("id name Precedent {}", env!("CARGO_PKG_VERSION")));
                send("id author the Precedent developers");
                for line in self.options.announce() {
                    send(&line);
                }
                // GUIs start the clock after the handshake: finish loading before uciok.
                self.casebase();
                self.ready_at = Instant::now();
                send("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => {
                // Answers during a search at once; after a case-base change, once it is loaded.
                self.casebase();
                self.ready_at = Instant::now();
                send("readyok");
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Register => {}
            Command::UciNewGame => {
                self.finish_search();
                self.game = Game::default();
                self.clocks = ClockMemory::default();
                self.memory
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clear();
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::Go(params) => {
                self.finish_search();
                self.go(&params, received.max(self.ready_at));
            }
            Command::Stop => self.finish_search(),
            Command::PonderHit => self.ponderhit(),
            Command::Quit => {
                self.finish_search();
                return false;
            }
            Command::Empty => {}
            Command::Unknown(text) => {
                if self.debug {
                    send(&format!("info string ignored unknown command: {text}"));
                }
            }
        }
        true
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        if self.running.is_some() {
            send(&format!(
                "info string error: setoption {name} ignored while searching"
            ));
            return;
        }
        let before = self.options.clone();
        match self.options.set(name, value) {
            Err(e) => send(&format!("info string error: {e}")),
            Ok(Change::None) => {}
            Ok(Change::Corrected(note)) => send(&format!("info string {note}")),
            Ok(Change::Threads) => self.pool = pool(self.options.threads),
            Ok(Change::ClearHash) => self
                .memory
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clear(),
            Ok(Change::Hash) => {
                // Free the old table first: the new one may need the memory.
                let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
                *memory = Memory::new(1);
                match Memory::try_new(self.options.hash as usize) {
                    Ok(new) => *memory = new,
                    Err(e) => {
                        if let Ok(old) = Memory::try_new(before.hash as usize) {
                            *memory = old;
                        }
                        self.options = before;
                        send(&format!(
                            "info string error: {e}; keeping Hash {}",
                            self.options.hash
                        ));
                    }
                }
            }
            Ok(Change::CaseBase(path)) => match load(path.clone()) {
                Ok(k) => {
                    self.slot = Slot::Ready(Some(k));
                    self.options.casebase = path;
                }
                Err(e) => {
                    self.options = before;
                    send(&format!(
                        "info string error: {e}; keeping the previous case base"
                    ));
                }
            },
        }
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let start = match fen {
            None => Ok(Chess::default()),
            Some(fen) => parse_fen(fen),
        };
        match start.and_then(|pos| play_line(pos, moves)) {
            Ok(game) => self.game = game,
            Err(e) => send(&format!(
                "info string error: {e}; keeping the previous position"
            )),
        }
    }

    fn castling(&self) -> CastlingMode {
        if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    fn clock(&self, params: &GoParams) -> Clock {
        let ms = Duration::from_millis;
        let (time, inc) = match self.game.position.turn() {
            Color::White => (params.wtime, params.winc),
            Color::Black => (params.btime, params.binc),
        };
        Clock {
            remaining: time.map(ms),
            increment: inc.map_or(Duration::ZERO, ms),
            moves_to_go: params.movestogo.filter(|&m| m > 0),
            move_time: params.movetime.map(ms),
            infinite: params.infinite || params.ponder,
        }
    }

    fn go(&mut self, params: &GoParams, received: Instant) {
        for note in &params.notes {
            send(&format!("info string error: {note}"));
        }
        let overhead = Duration::from_millis(self.options.move_overhead);
        let clock = self.clock(params);
        let hold = params.infinite || params.ponder;
        let max_depth = params
            .depth
            .or(params.mate.map(|m| m.saturating_mul(2).saturating_add(1)));
        let unlimited = clock.remaining.is_none()
            && clock.move_time.is_none()
            && max_depth.is_none()
            && params.nodes.is_none();
        // A bare `go` gets a fixed thinking time rather than an endless search; a forced move
        // is played at once, whatever the limits.
        let forced = !hold && self.game.position.legal_moves().len() == 1;
        let plan = plan(&clock, overhead);
        let deadline = match plan {
            _ if forced => received.checked_add(ONLY_MOVE),
            None if unlimited && !hold => received.checked_add(PLAIN_GO),
            other => other.and_then(|p| received.checked_add(p.maximum)),
        };
        let optimum = plan
            .and_then(|p| p.optimum)
            .filter(|_| !forced)
            .and_then(|o| received.checked_add(o));
        let mut config = self.options.reasoner_for_go();
        // A search that holds (ponder, infinite) reads the clocks without remembering them: the
        // next `go` of the game is the one that follows the last.
        let situation = clock
            .remaining
            .filter(|_| !hold)
            .map(|_| self.observe_clocks(params));
        // A player file plays the rating of the speed of the game's clock (its largest clock
        // seen in the game: the starting clock's estimate).
        if config.player_clock == PlayerClock::Auto
            && let Some(left) = clock.remaining
        {
            let base = self.clocks.base().max(left.as_secs_f64());
            let increment = clock.increment.as_secs_f64();
            config.player_clock = PlayerClock::of(Speed::of_clock(base, increment));
        }
        // HumanTime: a person's time for this position, drawn now; the search ends by the
        // longest a legal move would take, and the move waits for its own time.
        let human = match (config.human_time, plan, situation) {
            (true, Some(plan), Some(situation)) if !hold => {
                let seed = config.reuse.seed;
                HumanPlan::for_move(&config.pace, &self.game, situation, plan.maximum, seed)
            }
            _ => None,
        };
        let (deadline, optimum) = match &human {
            Some(h) => {
                let longest = received.checked_add(Duration::from_secs_f64(h.longest));
                (
                    min_instant(deadline, longest),
                    min_instant(optimum, longest),
                )
            }
            None => (deadline, optimum),
        };
        let ponder_clock = params.ponder.then_some(Clock {
            infinite: false,
            ..self.clock(&GoParams {
                ponder: false,
                ..params.clone()
            })
        });
        let mut allowed = Vec::new();
        for text in &params.searchmoves {
            match UciMove::from_ascii(text.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&self.game.position).ok())
            {
                Some(m) if self.game.position.is_legal(m) => allowed.push(m),
                _ => send(&format!(
                    "info string error: searchmoves: {text} is not a legal move here"
                )),
            }
        }
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            hold: Mutex::new(hold),
            released: Condvar::new(),
            answered: AtomicBool::new(false),
        });
        let job = Job {
            casebase: self.casebase(),
            pool: Arc::clone(&self.pool),
            game: self.game.clone(),
            config,
            human,
            castling: self.castling(),
            multipv: self.options.multipv,
            ponder: self.options.ponder,
            deadline,
            optimum,
            max_depth,
            max_nodes: params.nodes,
            allowed,
            started: received,
            shared: Arc::clone(&shared),
            memory: Arc::clone(&self.memory),
        };
        let handle = thread::spawn(move || job.run());
        self.running = Some(Running {
            shared,
            handle,
            ponder_clock,
        });
    }

    /// The clocks of this `go` as the pacing model reads them, remembered for the next one.
    fn observe_clocks(&mut self, params: &GoParams) -> ClockSituation {
        let seconds = |ms: Option<u64>| ms.unwrap_or(0) as f64 / 1000.0;
        let (ours, theirs) = match self.game.position.turn() {
            Color::White => ((params.wtime, params.winc), (params.btime, params.binc)),
            Color::Black => ((params.btime, params.binc), (params.wtime, params.winc)),
        };
        self.clocks.observe(
            self.game.ply(),
            seconds(ours.0),
            theirs.0.map_or(seconds(ours.0), |t| t as f64 / 1000.0),
            seconds(ours.1),
            seconds(theirs.1),
        )
    }

    fn ponderhit(&mut self) {
        let Some(running) = &mut self.running else {
            return;
        };
        let Some(clock) = running.ponder_clock.take() else {
            return;
        };
        // The opponent played the expected move: think on the normal budget from now on (the
        // optimum: a pondering search has already gone deep).
        if let Some(p) = plan(&clock, Duration::from_millis(self.options.move_overhead)) {
            let b = p.optimum.unwrap_or(p.maximum);
            let shared = Arc::clone(&running.shared);
            thread::spawn(move || {
                thread::sleep(b);
                shared.stop.store(true, Ordering::Relaxed);
            });
        }
        running.shared.release();
    }

    /// Stops a running search and waits until it has sent its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(running) = self.running.take() {
            running.shared.stop.store(true, Ordering::Relaxed);
            running.shared.release();
            if running.handle.join().is_err() {
                send("bestmove 0000");
            }
        }
    }
}

/// Under `HumanTime`, the seconds a person would take over the move chosen, and the line that
/// says so.
type HumanWait = (f64, String);

/// Everything a search needs, moved to its thread.
struct Job {
    casebase: Option<Loaded>,
    pool: Arc<rayon::ThreadPool>,
    game: Game,
    config: EngineConfig,
    /// `HumanTime`'s plan: the move waits until a person's time for it.
    human: Option<HumanPlan>,
    castling: CastlingMode,
    multipv: usize,
    ponder: bool,
    deadline: Option<Instant>,
    optimum: Option<Instant>,
    max_depth: Option<u32>,
    max_nodes: Option<u64>,
    allowed: Vec<Move>,
    started: Instant,
    shared: Arc<Shared>,
    memory: Arc<Mutex<Memory>>,
}

impl Job {
    fn run(self) {
        let (lines, best, waits) = self.think();
        for line in &lines {
            send(line);
        }
        if let Some((seconds, line)) = waits {
            send(&format!("info string {line}"));
            self.wait_until(self.started + Duration::from_secs_f64(seconds));
        }
        // Infinite analysis and pondering keep their bestmove until stop or ponderhit.
        let mut hold = self.shared.hold.lock().unwrap_or_else(|e| e.into_inner());
        while *hold {
            hold = self
                .shared
                .released
                .wait(hold)
                .unwrap_or_else(|e| e.into_inner());
        }
        drop(hold);
        self.shared.answered.store(true, Ordering::Release);
        send(&best);
    }

    /// Waits until `until`, or until `stop` (or a new command that ends the search).
    fn wait_until(&self, until: Instant) {
        let mut hold = self.shared.hold.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            if self.shared.stop.load(Ordering::Relaxed) || now >= until {
                return;
            }
            hold = self
                .shared
                .released
                .wait_timeout(hold, until - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn limits(&self) -> Limits<'_> {
        Limits {
            deadline: self.deadline,
            optimum: self.optimum,
            multipv: self.multipv,
            stop: Some(&self.shared.stop),
            moves: (!self.allowed.is_empty()).then_some(self.allowed.as_slice()),
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
            progress: None,
        }
    }

    /// Thinks, and returns the `info` lines, the `bestmove` line, and under `HumanTime` how
    /// long to wait before it.
    fn think(&self) -> (Vec<String>, String, Option<HumanWait>) {
        let Some(loaded) = &self.casebase else {
            return self.first_legal_move();
        };
        // Every completed search iteration is shown as it happens (analysis in a GUI).
        let (started, castling) = (self.started, self.castling);
        let report = move |r: &RootResult| send(&iteration_line(r, started, castling));
        let limits = Limits {
            progress: Some(&report),
            ..self.limits()
        };
        let mut guard = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        let memory: &mut Memory = &mut guard;
        let knowledge = loaded.knowledge();
        let thought = self.pool.install(|| {
            think(
                knowledge,
                &self.game,
                &self.config,
                limits,
                self.castling,
                memory,
            )
        });
        let cb = knowledge.voters();
        let hashfull = memory.tt.hashfull();
        drop(guard);
        match thought {
            Err(NoLegalMove::Checkmate) => (
                vec![
                    "info depth 0 score mate 0".into(),
                    "info string no legal move: checkmate".into(),
                ],
                "bestmove 0000".into(),
                None,
            ),
            Err(NoLegalMove::Stalemate) => (
                vec![
                    "info depth 0 score cp 0".into(),
                    "info string no legal move: stalemate".into(),
                ],
                "bestmove 0000".into(),
                None,
            ),
            Ok(t) => self.answer(&t, cb, hashfull),
        }
    }

    /// The answer without a case base (none could be loaded): still a legal move, the first.
    fn first_legal_move(&self) -> (Vec<String>, String, Option<HumanWait>) {
        let legal = self.game.position.legal_moves();
        let line = match legal.first() {
            Some(m) => format!("bestmove {}", m.to_uci(self.castling)),
            None => "bestmove 0000".to_string(),
        };
        // A person's time still: the pacing model's for that move.
        let waits = self.human.as_ref().zip(legal.first()).map(|(plan, m)| {
            let pos = &self.game.position;
            let seconds = plan
                .seconds(pos, self.game.last_move.as_ref(), m, None)
                .min(plan.maximum);
            let line = format!(
                "human time {seconds:.1} s, from the pacing model (the longest for a move here {:.1} s)",
                plan.longest
            );
            (seconds, line)
        });
        (
            vec!["info string error: no case base loaded; playing the first legal move".into()],
            line,
            waits,
        )
    }

    /// The answer of thought `t` (in case base `cb`, the table `hashfull` after it): its
    /// `info` lines with their explanation, its `bestmove` line (with the move to ponder on
    /// when asked), and under `HumanTime` how long a person would take over the move.
    fn answer(
        &self,
        t: &Thought,
        cb: &CaseBase,
        hashfull: u32,
    ) -> (Vec<String>, String, Option<HumanWait>) {
        let mut lines = info_lines(
            t,
            self.multipv,
            self.started.elapsed(),
            self.castling,
            hashfull,
        );
        let mut best = format!("bestmove {}", t.bestmove);
        if self.ponder
            && let Some(reply) = self.ponder_move(cb, t)
        {
            best.push_str(&format!(" ponder {reply}"));
        }
        lines.extend(explain(t).into_iter().map(|l| format!("info string {l}")));
        let waits = self
            .human
            .as_ref()
            .map(|plan| plan.taken(&self.game, t, cb));
        (lines, best, waits)
    }

    /// The expected reply, to ponder on: the search's principal variation, or the cases' reply.
    fn ponder_move(&self, cb: &CaseBase, t: &Thought) -> Option<String> {
        match &t.by {
            DecidedBy::Search { revised: r, .. } => {
                if let Some(reply) = r.pv_uci.get(1) {
                    return Some(reply.clone());
                }
            }
            DecidedBy::Model { judgement: j, .. } => {
                if let Some(reply) = j.pv(j.chosen).get(1) {
                    return Some(reply.to_uci(self.castling).to_string());
                }
            }
            DecidedBy::Cases => {}
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let mut next = self.game.position.clone();
        next.play_unchecked(t.mv);
        let limits = Limits {
            deadline: self.deadline,
            stop: Some(&self.shared.stop),
            ..Limits::default()
        };
        let reply = self
            .pool
            .install(|| reuse(cb, &next, &self.config.reuse, limits, self.castling))
            .ok()?;
        Some(reply.bestmove)
    }
}

/// The earlier of two optional instants (`None`: no limit).
fn min_instant(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The `info` line of a completed search iteration, as it happens (`started`: when the
/// search began).
fn iteration_line(r: &RootResult, started: Instant, castling: CastlingMode) -> String {
    let pv: Vec<String> = r
        .best
        .pv
        .iter()
        .map(|m| m.to_uci(castling).to_string())
        .collect();
    Info {
        depth: r.depth,
        seldepth: r.seldepth.max(r.depth),
        multipv: None,
        score: EngineScore::from_value(r.best.value),
        nodes: r.nodes,
        hashfull: None,
        ms: started.elapsed().as_millis() as u64,
        pv: &pv.join(" "),
    }
    .line()
}

/// The figures of one `info` line: the one place the line is formatted.
struct Info<'a> {
    depth: u32,
    seldepth: u32,
    /// The line's rank (`None`: a progress line, not one of the final MultiPV lines).
    multipv: Option<usize>,
    score: EngineScore,
    nodes: u64,
    /// The table's fill (`None`: not reported, as when the cases decided alone).
    hashfull: Option<u32>,
    ms: u64,
    pv: &'a str,
}

impl Info<'_> {
    /// `info depth … pv …`.
    fn line(&self) -> String {
        let multipv = self
            .multipv
            .map_or(String::new(), |k| format!(" multipv {k}"));
        let hashfull = self
            .hashfull
            .map_or(String::new(), |h| format!(" hashfull {h}"));
        format!(
            "info depth {} seldepth {}{multipv} score {} nodes {} nps {}{hashfull} time {} pv {}",
            self.depth,
            self.seldepth,
            self.score.uci(),
            self.nodes,
            self.nodes.saturating_mul(1000) / self.ms.max(1),
            self.ms,
            self.pv
        )
    }
}

/// `info` lines with the search figures, one per MultiPV line.
fn info_lines(
    t: &Thought,
    multipv: usize,
    elapsed: Duration,
    castling: CastlingMode,
    hashfull: u32,
) -> Vec<String> {
    let ms = elapsed.as_millis() as u64;
    let d = &t.decision;
    let uci = |pv: &[Move]| -> String {
        let pv: Vec<String> = pv.iter().map(|m| m.to_uci(castling).to_string()).collect();
        pv.join(" ")
    };
    match &t.by {
        DecidedBy::Model { judgement: j, .. } => {
            let (depth, seldepth, nodes) = j
                .search
                .as_ref()
                .map_or((0, 0, 0), |r| (r.depth, r.seldepth, r.nodes));
            // The move played first, then the others by probability.
            let mut order = vec![j.chosen];
            order.extend(
                j.ranked()
                    .into_iter()
                    .map(|(i, _)| i)
                    .filter(|i| *i != j.chosen),
            );
            order
                .into_iter()
                .take(multipv.max(1))
                .enumerate()
                .map(|(rank, i)| {
                    let score = j
                        .value(i)
                        .map_or(EngineScore::Cp(0), |(v, _)| EngineScore::from_value(v));
                    Info {
                        depth: depth.max(1),
                        seldepth: seldepth.max(depth).max(1),
                        multipv: Some(rank + 1),
                        score,
                        nodes,
                        hashfull: Some(hashfull),
                        ms,
                        pv: &uci(&j.pv(i)),
                    }
                    .line()
                })
                .collect()
        }
        DecidedBy::Search { revised: r, .. } => r
            .ranked
            .iter()
            .take(multipv.max(1))
            .enumerate()
            .map(|(i, (_, value, pv))| {
                // The chosen move is first; its score is the one reported for the move.
                let (score, pv) = match i {
                    0 => (t.score, r.pv_uci.join(" ")),
                    _ => (EngineScore::from_value(*value), uci(pv)),
                };
                Info {
                    depth: r.depth,
                    seldepth: r.seldepth.max(r.depth),
                    multipv: Some(i + 1),
                    score,
                    nodes: r.nodes,
                    hashfull: Some(hashfull),
                    ms,
                    pv: &pv,
                }
                .line()
            })
            .collect(),
        DecidedBy::Cases => {
            let line = |rank: usize, cp: i32, pv: &str| {
                Info {
                    depth: 1,
                    seldepth: 1,
                    multipv: Some(rank),
                    score: EngineScore::Cp(cp),
                    nodes: d.scanned,
                    hashfull: None,
                    ms,
                    pv,
                }
                .line()
            };
            if d.candidates.is_empty() {
                return vec![line(1, 0, &t.bestmove)];
            }
            d.candidates
                .iter()
                .take(multipv.max(1))
                .enumerate()
                .map(|(i, c)| line(i + 1, c.expected.map_or(0, expected_to_cp), &c.uci))
                .collect()
        }
    }
}

/// Runs the protocol on stdin/stdout until `quit` or the end of input.
pub fn run(casebase: Option<Loaded>, reasoner: EngineConfig) {
    let (tx, rx) = mpsc::channel::<(Instant, Option<String>)>();
    thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match stdin.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    // Invalid UTF-8 is garbage like any other: it becomes an unknown command.
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send((Instant::now(), Some(line))).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = tx.send((Instant::now(), None));
    });
    let mut engine = Engine::new(casebase);
    engine.options.set_reasoner(reasoner);
    while let Ok((received, line)) = rx.recv() {
        let keep_going = match line {
            Some(line) => engine.handle(&line, received),
            None => false,
        };
        if !keep_going {
            engine.finish_search();
            break;
        }
    }
}
