//! The games being played: each its own position, opponent and engine memory; the case bases
//! loaded once and shared by all.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use precedent::pgn::Speed;
use precedent::player::Loaded;
use precedent::position::{Game, key};
use precedent::reuse::NoLegalMove;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{
    Clock, ClockMemory, EngineConfig, EngineScore, HumanPlan, PlayerClock, Thought, explain, plan,
    think,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::precedents::{BaseId, Precedent, movetext, pgn_tag, precedents};

/// Games kept at once; a new one beyond them forgets the oldest.
pub const MAX_GAMES: usize = 256;

/// Megabytes of each game's search memory: with [`MAX_GAMES`], at most 1 GiB in all. A game
/// that ends gives its memory back, for the next game to take.
const GAME_MEMORY_MB: usize = 4;

/// Finished games' search memories kept for the next games, at most.
const SPARE_MEMORIES: usize = 64;

/// Precedents kept and shown for each engine move: the nearest that played it first.
const PRECEDENTS_SHOWN: usize = 16;

/// What the engine keeps off its clock for the network and the page, as a GUI's
/// `Move Overhead`.
const OVERHEAD: Duration = Duration::from_millis(100);

/// The engine accepts a draw offered when its last move's score, from its side, is at most
/// this (centipawns): when it does not think it stands better.
const DRAW_ACCEPT_CP: i32 = 0;

/// A player file the server plays, by the name it was loaded as.
pub struct Served {
    /// The player's name (their file's profile).
    pub name: String,
    /// Their file on top of the generic case base.
    pub loaded: Loaded,
}

/// Who the engine is in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Opponent {
    /// The default style.
    Default,
    /// A level (`UCI_Elo`).
    Level {
        /// Its setting.
        elo: u16,
    },
    /// A loaded player file, by its index.
    Player {
        /// Its index among the loaded files.
        id: usize,
    },
}

/// The server's state: what it knows and the games.
pub struct State {
    generic: Loaded,
    players: Vec<Served>,
    cfg: EngineConfig,
    judge: Option<String>,
    games: Mutex<Games>,
    /// Finished games' search memories, cleared, for the next games.
    spare: Mutex<Vec<Memory>>,
    /// Each player file's dossier (JSON), made when first asked for (once: a second asker
    /// waits for the first).
    dossiers: Vec<Mutex<Option<Arc<String>>>>,
    /// The threads analyses, dossiers and `who` run on: the games' searches keep the global
    /// pool to themselves, so that a long analysis does not hold up a move on the clock.
    lab_pool: Option<rayon::ThreadPool>,
}

/// The games by id, and their order of creation.
#[derive(Default)]
struct Games {
    /// Games started, for the next id.
    started: u64,
    by_id: HashMap<u64, Arc<Mutex<Played>>>,
    order: VecDeque<u64>,
}

impl Games {
    /// An id no one can guess from another's (a hash of a count with the process's random
    /// keys), under 2^53 so that a page's script reads it exactly, and not in use.
    fn new_id(&mut self) -> u64 {
        use std::hash::BuildHasher;
        let keys = std::collections::hash_map::RandomState::new();
        loop {
            self.started += 1;
            let id = keys.hash_one(self.started) & ((1 << 53) - 1);
            if !self.by_id.contains_key(&id) {
                return id;
            }
        }
    }

    /// Forgets a game to make room: the oldest that has ended, else the oldest (a game being
    /// played right now, whose lock is held, is passed over while another can go).
    fn forget_one(&mut self) {
        let ended = |g: &Arc<Mutex<Played>>| g.try_lock().is_ok_and(|p| p.over().is_some());
        let at = self
            .order
            .iter()
            .position(|id| self.by_id.get(id).is_some_and(ended))
            .or_else(|| {
                self.order
                    .iter()
                    .position(|id| self.by_id.get(id).is_some_and(|g| g.try_lock().is_ok()))
            })
            .unwrap_or(0);
        if let Some(id) = self.order.remove(at) {
            self.by_id.remove(&id);
        }
    }
}

/// How the engine's time is given: a fixed time a move, or a clock each.
#[derive(Clone, Copy, Debug)]
pub enum TimeRule {
    /// This long a move, no clock.
    MoveTime(Duration),
    /// A clock for each side: the initial time and the increment, as in a GUI.
    Clock {
        /// Each side's time at the start.
        initial: Duration,
        /// Added after each move.
        increment: Duration,
    },
}

/// The clocks of a game with a clock.
#[derive(Clone, Debug)]
struct Clocks {
    initial: Duration,
    increment: Duration,
    /// White's and Black's time left, as of when the side to move's clock started.
    left: [Duration; 2],
    /// When the side to move's clock started.
    since: Instant,
    /// What the engine remembers of the clocks from one of its moves to the next.
    memory: ClockMemory,
    /// Whether the clocks have stopped (the game is over).
    stopped: bool,
}

fn side(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl Clocks {
    /// The time left of `c` now (its clock running when it is to move).
    fn now(&self, c: Color, turn: Color) -> Duration {
        let left = self.left[side(c)];
        if c == turn && !self.stopped {
            left.saturating_sub(self.since.elapsed())
        } else {
            left
        }
    }

    /// `c` has moved: its time taken off, its increment added; the other clock starts. Whether
    /// its time ran out first.
    fn moved(&mut self, c: Color) -> bool {
        let took = self.since.elapsed();
        let left = &mut self.left[side(c)];
        let flagged = took > *left;
        *left = left.saturating_sub(took) + self.increment;
        self.since = Instant::now();
        flagged
    }

    /// Stops the clocks, the side to move's time as it is now.
    fn stop(&mut self, turn: Color) {
        if !self.stopped {
            self.left[side(turn)] = self.now(turn, turn);
            self.stopped = true;
        }
    }
}

/// One game.
pub struct Played {
    opponent: Opponent,
    engine_name: String,
    engine: Color,
    movetime: Duration,
    clocks: Option<Clocks>,
    human_time: bool,
    game: Game,
    moves: Vec<Move>,
    sans: Vec<String>,
    /// The engine's move and why, at each of its plies.
    /// (As compact JSON: a game keeps a few kilobytes a move, not the structures'.)
    whys: Vec<Option<Arc<RawValue>>>,
    /// Its score after each of its moves, from its side, by ply.
    scores: Vec<Option<EngineScore>>,
    /// How the game ended other than on the board (resignation, time, agreement).
    ended: Option<String>,
    /// What the engine answered the user's last offer.
    notice: Option<String>,
    /// The search's memory, from the engine's first move until the game ends.
    memory: Option<Memory>,
}

/// The engine's move, and why.
#[derive(Clone, Debug, Serialize)]
pub struct EngineMove {
    /// In UCI notation.
    #[serde(rename = "move")]
    pub uci: String,
    /// In SAN.
    pub san: String,
    /// The explanation, a line each (what `info string` says in UCI).
    pub explanation: Vec<String>,
    /// The move model's moves (in SAN), likeliest first, with their probabilities, when the
    /// model judged the position.
    pub probabilities: Vec<(String, f64)>,
    /// The precedents: the nearest cases that voted, those that played the move first, each
    /// with its game and the position it remembers.
    pub precedents: Vec<Precedent>,
    /// Milliseconds thought.
    pub elapsed_ms: f64,
}

/// What a client sees of a game.
#[derive(Debug, Serialize)]
pub struct View {
    /// Its id.
    pub id: u64,
    /// Who the engine is.
    pub opponent: Opponent,
    /// The engine's colour.
    pub engine: &'static str,
    /// The position, as FEN.
    pub fen: String,
    /// The moves played, in UCI notation.
    pub moves: Vec<String>,
    /// The moves played, in SAN.
    pub san: Vec<String>,
    /// The side to move.
    pub turn: &'static str,
    /// How the game ended, if it has ("1-0 checkmate", "1/2-1/2 stalemate", …).
    pub result: Option<String>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// The legal moves, from square to squares, while the game goes on.
    pub dests: BTreeMap<String, Vec<String>>,
    /// The engine's last move and why, if it has moved.
    pub last: Option<Arc<RawValue>>,
    /// The plies the engine played (their why: `GET /api/games/{id}/why/{ply}`).
    pub engine_plies: Vec<usize>,
    /// The clocks, when the game has them.
    pub clock: Option<ClockView>,
    /// What the engine answered the user's last offer (a draw).
    pub notice: Option<String>,
    /// The game as PGN.
    pub pgn: String,
}

/// The clocks as a client sees them.
#[derive(Debug, Serialize)]
pub struct ClockView {
    /// White's time left, milliseconds.
    pub white_ms: u64,
    /// Black's.
    pub black_ms: u64,
    /// The side whose clock runs, if one does.
    pub running: Option<&'static str>,
    /// Each side's time at the start, seconds.
    pub initial_s: f64,
    /// The increment, seconds.
    pub increment_s: f64,
}

/// Why a request cannot be done, said to the client as a 4xx.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GameError {
    /// No game has this id (never had, or forgotten).
    #[error("no game {0}")]
    NoGame(u64),
    /// The opponent asked for is not loaded.
    #[error("{0}")]
    NoOpponent(String),
    /// A move that is not legal here, or not a move.
    #[error("{0}")]
    Move(String),
    /// Not now: it is the engine's turn, or the game is over.
    #[error("{0}")]
    NotNow(String),
    /// A PGN that cannot be read, or that cannot be done as asked.
    #[error("{0}")]
    BadPgn(String),
    /// The server's own failure.
    #[error("{0}")]
    Internal(String),
    /// There is nothing to take back, or no such engine move.
    #[error("{0}")]
    Nothing(String),
    /// The judge engine failed.
    #[error("{0}")]
    Judge(String),
}

/// "white" or "black".
pub(crate) fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl State {
    /// The state of a server with these case bases and settings, and the judge engine's
    /// command (what analyses report each move's loss by), if any.
    pub fn new(
        generic: Loaded,
        players: Vec<Served>,
        cfg: EngineConfig,
        judge: Option<String>,
    ) -> State {
        State {
            generic,
            cfg,
            judge,
            games: Mutex::new(Games::default()),
            spare: Mutex::new(Vec::new()),
            dossiers: (0..players.len()).map(|_| Mutex::new(None)).collect(),
            lab_pool: rayon::ThreadPoolBuilder::new()
                .thread_name(|i| format!("precedent-lab-{i}"))
                .build()
                .ok(),
            players,
        }
    }

    /// The opponents on offer: the default style, the levels' range, the player files.
    pub fn opponents(&self) -> serde_json::Value {
        let (lo, hi) = self.cfg.elo_range().unwrap_or((0, 0));
        serde_json::json!({
            "default": true,
            "levels": self.cfg.levels.iter().map(|l| l.elo).collect::<Vec<_>>(),
            "elo_range": [lo, hi],
            "players": self.players.iter().enumerate()
                .map(|(id, p)| serde_json::json!({ "id": id, "name": p.name }))
                .collect::<Vec<_>>(),
        })
    }

    /// Starts a game against `opponent` with the user playing `user`, the engine's time by
    /// `time` (and a person's time for each move with `human_time`, under a clock); the engine
    /// moves first when it has White.
    pub fn start(
        &self,
        opponent: Opponent,
        user: Color,
        time: TimeRule,
        human_time: bool,
    ) -> Result<(u64, Arc<Mutex<Played>>), GameError> {
        self.reasoner(opponent)?;
        let engine_name = match opponent {
            Opponent::Default => "Precedent (default style)".to_string(),
            Opponent::Level { elo } => format!("Precedent (level {elo})"),
            Opponent::Player { id } => format!("Precedent (as {})", self.players[id].name),
        };
        let (movetime, clocks) = match time {
            TimeRule::MoveTime(t) => (t, None),
            TimeRule::Clock { initial, increment } => (
                initial,
                Some(Clocks {
                    initial,
                    increment,
                    left: [initial; 2],
                    since: Instant::now(),
                    memory: ClockMemory::default(),
                    stopped: false,
                }),
            ),
        };
        let played = Arc::new(Mutex::new(Played {
            opponent,
            engine_name,
            engine: !user,
            movetime,
            human_time: human_time && clocks.is_some(),
            clocks,
            game: Game::new(Chess::default()),
            moves: Vec::new(),
            sans: Vec::new(),
            whys: Vec::new(),
            scores: Vec::new(),
            ended: None,
            notice: None,
            memory: None,
        }));
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let id = games.new_id();
        games.by_id.insert(id, Arc::clone(&played));
        games.order.push_back(id);
        if games.order.len() > MAX_GAMES {
            games.forget_one();
        }
        Ok((id, played))
    }

    /// What `opponent` judges a move with: its knowledge, the case base its precedents are
    /// in, its settings (a level's resolved), and its name; or why it is not on offer.
    pub fn reasoner(
        &self,
        opponent: Opponent,
    ) -> Result<(&Loaded, BaseId, EngineConfig, String), GameError> {
        match opponent {
            Opponent::Default => Ok((
                &self.generic,
                BaseId::Generic,
                self.cfg.clone(),
                "the default style".into(),
            )),
            Opponent::Level { elo } => {
                let Some((lo, hi)) = self.cfg.elo_range() else {
                    return Err(GameError::NoOpponent("no levels in the parameters".into()));
                };
                if !(lo..=hi).contains(&elo) {
                    return Err(GameError::NoOpponent(format!(
                        "level {elo} is outside {lo}..{hi}"
                    )));
                }
                let cfg = self.cfg.resolved_at(Some(elo), 1.0).0.into_owned();
                Ok((&self.generic, BaseId::Generic, cfg, format!("level {elo}")))
            }
            Opponent::Player { id } => {
                let p = self.players.get(id).ok_or_else(|| {
                    GameError::NoOpponent(format!(
                        "no player file {id}: {} loaded",
                        self.players.len()
                    ))
                })?;
                Ok((
                    &p.loaded,
                    BaseId::Player(id),
                    self.cfg.clone(),
                    p.name.clone(),
                ))
            }
        }
    }

    /// Player file `id`'s dossier as JSON, made by `make` the first time it is asked for.
    pub fn dossier(
        &self,
        id: usize,
        make: impl FnOnce() -> Result<String, GameError> + Send,
    ) -> Result<Arc<String>, GameError> {
        let cell = self
            .dossiers
            .get(id)
            .ok_or_else(|| GameError::NoOpponent(format!("no player file {id}")))?;
        let mut made = cell.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(made) = made.as_ref() {
            return Ok(Arc::clone(made));
        }
        let text = Arc::new(self.lab(make)?);
        *made = Some(Arc::clone(&text));
        Ok(text)
    }

    /// Runs `work` (an analysis, a dossier, `who`) on the lab's threads.
    pub fn lab<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        match &self.lab_pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }

    /// The judge engine's command, when one is set.
    pub fn judge(&self) -> Option<&str> {
        self.judge.as_deref()
    }

    /// The loaded player files.
    pub fn players(&self) -> &[Served] {
        &self.players
    }

    /// The generic case base's knowledge.
    pub fn generic(&self) -> &Loaded {
        &self.generic
    }

    /// The engine's settings.
    pub fn cfg(&self) -> &EngineConfig {
        &self.cfg
    }

    /// The game of `id`.
    pub fn game(&self, id: u64) -> Result<Arc<Mutex<Played>>, GameError> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.by_id.get(&id).cloned().ok_or(GameError::NoGame(id))
    }

    /// The knowledge a game's opponent plays with, and the case base its precedents are in.
    fn knowledge_of(&self, opponent: Opponent) -> (&Loaded, BaseId) {
        match opponent {
            Opponent::Player { id } => (&self.players[id].loaded, BaseId::Player(id)),
            _ => (&self.generic, BaseId::Generic),
        }
    }

    /// The case base a link names, if loaded.
    pub fn casebase(&self, base: BaseId) -> Option<&precedent::casebase::CaseBase> {
        match base {
            BaseId::Generic => Some(self.generic.knowledge().generic()),
            BaseId::Player(id) => Some(self.players.get(id)?.loaded.knowledge().voters()),
        }
    }

    /// The engine's move in `played`, if it is its turn and the game goes on: thought within
    /// its time a move, or as the UCI loop plans a move under a clock (and, with a person's
    /// time, waiting until then).
    pub fn engine_moves(&self, played: &mut Played) {
        if played.over().is_some() || played.game.position.turn() != played.engine {
            return;
        }
        let (loaded, base) = self.knowledge_of(played.opponent);
        let elo = match played.opponent {
            Opponent::Level { elo } => Some(elo),
            _ => None,
        };
        let mut cfg = EngineConfig {
            elo,
            ..self.cfg.clone()
        };
        let received = Instant::now();
        let (mut deadline, mut optimum) = (Some(received + played.movetime), None);
        let mut human = None;
        if let Some(clocks) = &mut played.clocks {
            let (ours, theirs) = (played.engine, !played.engine);
            let clock = Clock {
                remaining: Some(clocks.now(ours, ours)),
                increment: clocks.increment,
                ..Clock::default()
            };
            let most = plan(&clock, OVERHEAD);
            deadline = most.map(|p| received + p.maximum);
            optimum = most.and_then(|p| p.optimum).map(|o| received + o);
            let (base_s, inc) = (clocks.initial.as_secs_f64(), clocks.increment.as_secs_f64());
            if cfg.player_clock == PlayerClock::Auto {
                cfg.player_clock = PlayerClock::of(Speed::of_clock(base_s, inc));
            }
            let mut situation = clocks.memory.observe(
                played.game.ply(),
                clocks.now(ours, ours).as_secs_f64(),
                clocks.now(theirs, ours).as_secs_f64(),
                inc,
                inc,
            );
            // The starting clock is known here, not estimated.
            situation.base = situation.base.max(base_s);
            if played.human_time
                && let Some(p) = most
            {
                human = HumanPlan::for_move(
                    &cfg.pace,
                    &played.game,
                    situation,
                    p.maximum,
                    cfg.reuse.seed,
                );
                if let Some(h) = &human {
                    deadline =
                        deadline.map(|d| d.min(received + Duration::from_secs_f64(h.longest)));
                    optimum = optimum.map(|o| o.min(received + Duration::from_secs_f64(h.longest)));
                }
            }
        }
        if played.game.position.legal_moves().len() == 1 {
            deadline = Some(received + Duration::from_millis(10));
        }
        let limits = Limits {
            deadline,
            optimum,
            ..Limits::default()
        };
        if played.memory.is_none() {
            let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
            played.memory = Some(spare.unwrap_or_else(|| Memory::new(GAME_MEMORY_MB)));
        }
        let Some(memory) = played.memory.as_mut() else {
            return;
        };
        let knowledge = loaded.knowledge();
        match think(
            knowledge,
            &played.game,
            &cfg,
            limits,
            CastlingMode::Standard,
            memory,
        ) {
            Ok(thought) => {
                let mut why =
                    engine_move(&thought, &played.game.position, knowledge.voters(), base);
                if let Some(h) = &human {
                    let (seconds, line) = h.taken(&played.game, &thought, knowledge.voters());
                    why.explanation.push(line);
                    let until = received + Duration::from_secs_f64(seconds);
                    std::thread::sleep(until.saturating_duration_since(Instant::now()));
                }
                let ply = played.moves.len();
                played.push(thought.mv);
                if played.whys.len() <= ply {
                    played.whys.resize(ply + 1, None);
                    played.scores.resize(ply + 1, None);
                }
                played.scores[ply] = Some(thought.score);
                played.whys[ply] = serde_json::value::to_raw_value(&why).ok().map(Arc::from);
                played.clock_moved(played.engine);
            }
            Err(NoLegalMove::Checkmate | NoLegalMove::Stalemate) => {}
        }
        played.free_when_over();
        self.recycle(played);
    }

    /// A finished game's search memory, cleared, kept for the next game (the memory a game
    /// holds is bounded by the games going on, not by those played).
    pub fn recycle(&self, played: &mut Played) {
        if played.over().is_none() {
            return;
        }
        if let Some(mut memory) = played.memory.take() {
            let mut spare = self.spare.lock().unwrap_or_else(|e| e.into_inner());
            if spare.len() < SPARE_MEMORIES {
                memory.clear();
                spare.push(memory);
            }
        }
    }
}

/// The engine's move `t` in position `before`, its model's moves named in SAN, its precedents
/// (cases of `cb`, named `base`) with the positions they remember.
fn engine_move(
    t: &Thought,
    before: &Chess,
    cb: &precedent::casebase::CaseBase,
    base: BaseId,
) -> EngineMove {
    let probabilities = t.by.judgement().map_or_else(Vec::new, |j| {
        j.ranked()
            .into_iter()
            .map(|(i, p)| (San::from_move(before, j.evidence.moves[i]).to_string(), p))
            .collect()
    });
    // Those that played the move first, nearest first.
    let mut cases = t.decision.cases.clone();
    cases.sort_by_key(|c| c.adapted != t.bestmove);
    cases.truncate(PRECEDENTS_SHOWN);
    EngineMove {
        uci: t.bestmove.clone(),
        san: San::from_move(before, t.mv).to_string(),
        explanation: explain(t),
        probabilities,
        precedents: precedents(&cases, cb, base, before),
        elapsed_ms: t.elapsed.as_secs_f64() * 1e3,
    }
}

impl Played {
    /// Plays `m` (legal here), returning its SAN.
    fn push(&mut self, m: Move) -> String {
        let san = San::from_move(&self.game.position, m).to_string();
        self.game.play(m);
        self.moves.push(m);
        self.sans.push(san.clone());
        san
    }

    /// `c` has moved: its clock stops, and if its time had run out the game ends on time.
    fn clock_moved(&mut self, c: Color) {
        let flagged = self.clocks.as_mut().is_some_and(|k| k.moved(c));
        if flagged && self.ended.is_none() {
            self.ended = Some(self.flag(c));
        }
    }

    /// How the game ends when `c`'s time runs out: lost, or drawn when the other side could
    /// not mate.
    fn flag(&self, c: Color) -> String {
        if self.game.position.has_insufficient_material(!c) {
            return format!(
                "1/2-1/2 {} ran out of time; {} cannot mate",
                name(c),
                name(!c)
            );
        }
        format!("{} {} ran out of time", won(!c), name(c))
    }

    /// Ends the game if the side to move's time has run out (its clock is read when shown).
    pub fn check_time(&mut self) {
        if self.over().is_some() {
            return;
        }
        let turn = self.game.position.turn();
        if let Some(k) = &self.clocks
            && k.now(turn, turn).is_zero()
        {
            self.ended = Some(self.flag(turn));
            self.free_when_over();
        }
    }

    /// A finished game stops its clocks (its search memory goes back with
    /// [`State::recycle`]).
    fn free_when_over(&mut self) {
        if self.over().is_some() {
            let turn = self.game.position.turn();
            if let Some(k) = &mut self.clocks {
                k.stop(turn);
            }
        }
    }

    /// The user's move `text` (UCI notation), if legal and theirs to play.
    pub fn user_moves(&mut self, text: &str) -> Result<(), GameError> {
        self.check_time();
        if let Some(r) = self.over() {
            return Err(GameError::NotNow(format!("the game is over: {r}")));
        }
        if self.game.position.turn() == self.engine {
            return Err(GameError::NotNow("it is the engine's turn".into()));
        }
        let shown: String = text.chars().take(16).collect();
        let uci = UciMove::from_ascii(text.trim().as_bytes())
            .map_err(|_| GameError::Move(format!("{shown:?} is not a move in UCI notation")))?;
        let m = uci
            .to_move(&self.game.position)
            .map_err(|_| GameError::Move(format!("{text} is not legal here")))?;
        self.notice = None;
        self.push(m);
        self.clock_moved(!self.engine);
        self.free_when_over();
        Ok(())
    }

    /// Takes back the user's last move and the engine's reply to it; the clocks keep what was
    /// spent. Not after a resignation, a loss on time or an agreed draw.
    pub fn take_back(&mut self) -> Result<(), GameError> {
        if let Some(e) = &self.ended {
            return Err(GameError::NotNow(format!("the game is over: {e}")));
        }
        let user = !self.engine;
        // The user's moves are the plies of their colour.
        let last_user = (0..self.moves.len())
            .rev()
            .find(|&ply| (ply % 2 == 0) == (user == Color::White));
        let Some(ply) = last_user else {
            return Err(GameError::Nothing("no move of yours to take back".into()));
        };
        let undone = self.moves.len() - ply;
        self.moves.truncate(ply);
        self.sans.truncate(ply);
        self.whys.truncate(ply);
        self.scores.truncate(ply);
        self.game = Game::replay(Chess::default(), &self.moves);
        self.notice = None;
        if let Some(k) = &mut self.clocks {
            // The time since the last move is the user's, spent; the increments of the moves
            // taken back go with them.
            let turn = self.game.position.turn();
            let spent = k.since.elapsed();
            if !k.stopped {
                k.left[side(turn)] = k.left[side(turn)].saturating_sub(spent);
            }
            for back in 0..undone {
                let mover = if back % 2 == 0 { turn } else { !turn };
                k.left[side(mover)] = k.left[side(mover)].saturating_sub(k.increment);
            }
            k.since = Instant::now();
            k.stopped = false;
            k.memory = ClockMemory::default();
        }
        Ok(())
    }

    /// The user resigns.
    pub fn resign(&mut self) -> Result<(), GameError> {
        if let Some(r) = self.over() {
            return Err(GameError::NotNow(format!("the game is over: {r}")));
        }
        let user = !self.engine;
        self.ended = Some(format!("{} {} resigned", won(self.engine), name(user)));
        self.free_when_over();
        Ok(())
    }

    /// The user offers a draw: the engine accepts when it does not think it stands better.
    pub fn offer_draw(&mut self) -> Result<(), GameError> {
        if let Some(r) = self.over() {
            return Err(GameError::NotNow(format!("the game is over: {r}")));
        }
        let score = self.scores.iter().rev().find_map(|s| *s);
        let accepts = match score {
            Some(EngineScore::Cp(cp)) => cp <= DRAW_ACCEPT_CP,
            Some(EngineScore::Mate(n)) => n < 0,
            None => false,
        };
        if accepts {
            self.ended = Some("1/2-1/2 draw agreed".into());
            self.notice = Some("The engine accepts the draw.".into());
            self.free_when_over();
        } else {
            let why = match score {
                Some(EngineScore::Cp(cp)) => {
                    format!("it thinks it stands better ({:+.2})", f64::from(cp) / 100.0)
                }
                Some(EngineScore::Mate(n)) => format!("it sees a mate in {n}"),
                None => "it has not played a move yet".into(),
            };
            self.notice = Some(format!("The engine declines the draw: {why}."));
        }
        Ok(())
    }

    /// The engine's move at `ply` and why.
    pub fn why(&self, ply: usize) -> Result<Arc<RawValue>, GameError> {
        self.whys
            .get(ply)
            .cloned()
            .flatten()
            .ok_or_else(|| GameError::Nothing(format!("no engine move at ply {ply}")))
    }

    /// How the game ended, if it has: on the board, or otherwise (resignation, time,
    /// agreement).
    pub fn over(&self) -> Option<String> {
        self.ended.clone().or_else(|| self.result())
    }

    /// How the game ended on the board, if it has.
    fn result(&self) -> Option<String> {
        let pos = &self.game.position;
        if pos.is_checkmate() {
            return Some(format!("{} checkmate", won(!pos.turn())));
        }
        if pos.is_stalemate() {
            return Some("1/2-1/2 stalemate".into());
        }
        if pos.is_insufficient_material() {
            return Some("1/2-1/2 insufficient material".into());
        }
        let here = key(pos);
        if self.game.history.iter().filter(|&&k| k == here).count() >= 2 {
            return Some("1/2-1/2 threefold repetition".into());
        }
        (pos.halfmoves() >= 100).then(|| "1/2-1/2 fifty moves".into())
    }

    /// The legal moves by the square they leave (castling as the king's two-square move),
    /// none once the game is over (`over`).
    fn dests(&self, over: Option<&str>) -> BTreeMap<String, Vec<String>> {
        let mut dests: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if over.is_some() {
            return dests;
        }
        for m in self.game.position.legal_moves() {
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            let (from, to) = (uci[..2].to_string(), uci[2..4].to_string());
            let tos = dests.entry(from).or_default();
            if !tos.contains(&to) {
                tos.push(to);
            }
        }
        dests
    }

    /// The game as PGN: the engine and "You" by colour, the clock, the result once it is over
    /// (`over`).
    fn pgn(&self, over: Option<&str>) -> String {
        let (white, black) = match self.engine {
            Color::White => (self.engine_name.as_str(), "You"),
            Color::Black => ("You", self.engine_name.as_str()),
        };
        let result = over
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("*");
        let mut text = pgn_tag("Event", "Precedent");
        text.push_str(&pgn_tag("White", white));
        text.push_str(&pgn_tag("Black", black));
        text.push_str(&pgn_tag("Result", result));
        if let Some(k) = &self.clocks {
            let control = format!("{}+{}", k.initial.as_secs(), k.increment.as_secs());
            text.push_str(&pgn_tag("TimeControl", &control));
        }
        if let Some(why) = over.and_then(|r| r.split_once(' ')) {
            text.push_str(&pgn_tag("Termination", why.1));
        }
        text.push('\n');
        text.push_str(&movetext(&self.sans, result));
        text
    }

    /// What the client sees.
    pub fn view(&self, id: u64) -> View {
        let fen =
            shakmaty::fen::Fen::from_position(&self.game.position, shakmaty::EnPassantMode::Legal);
        let over = self.over();
        let turn = self.game.position.turn();
        View {
            id,
            opponent: self.opponent,
            engine: colour_name(self.engine),
            fen: fen.to_string(),
            moves: self
                .moves
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect(),
            san: self.sans.clone(),
            turn: colour_name(turn),
            check: self.game.position.is_check(),
            dests: self.dests(over.as_deref()),
            last: self.whys.iter().rev().find_map(Clone::clone),
            engine_plies: (0..self.whys.len())
                .filter(|&p| self.whys[p].is_some())
                .collect(),
            clock: self.clocks.as_ref().map(|k| ClockView {
                white_ms: k.now(Color::White, turn).as_millis() as u64,
                black_ms: k.now(Color::Black, turn).as_millis() as u64,
                running: over.is_none().then(|| colour_name(turn)),
                initial_s: k.initial.as_secs_f64(),
                increment_s: k.increment.as_secs_f64(),
            }),
            notice: self.notice.clone(),
            pgn: self.pgn(over.as_deref()),
            result: over,
        }
    }
}

/// "White" or "Black".
fn name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The result when `c` wins.
fn won(c: Color) -> &'static str {
    match c {
        Color::White => "1-0",
        Color::Black => "0-1",
    }
}
