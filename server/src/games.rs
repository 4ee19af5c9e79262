//! The games being played: each its own position, opponent and engine memory; the case bases
//! loaded once and shared by all.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use precedent::player::Loaded;
use precedent::position::Game;
use precedent::reuse::NoLegalMove;
use precedent::revise::Memory;
use precedent::search::Limits;
use precedent::think::{EngineConfig, Thought, explain, think};
use serde::{Deserialize, Serialize};
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

/// Games kept at once; a new one beyond them forgets the oldest.
pub const MAX_GAMES: usize = 256;

/// Megabytes of each game's search memory: with [`MAX_GAMES`], at most 1 GiB in all.
const GAME_MEMORY_MB: usize = 4;

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
    games: Mutex<Games>,
}

/// The games by id, and their order of creation.
#[derive(Default)]
struct Games {
    next: u64,
    by_id: HashMap<u64, Arc<Mutex<Played>>>,
    order: VecDeque<u64>,
}

/// One game.
pub struct Played {
    opponent: Opponent,
    engine_name: String,
    engine: Color,
    movetime: Duration,
    game: Game,
    moves: Vec<Move>,
    sans: Vec<String>,
    memory: Memory,
    last: Option<EngineMove>,
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
    /// The precedents: the nearest cases that voted, each with its game.
    pub precedents: serde_json::Value,
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
    pub last: Option<EngineMove>,
    /// The game as PGN.
    pub pgn: String,
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
    /// It is the engine's turn, or the game is over.
    #[error("{0}")]
    NotYourTurn(String),
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl State {
    /// The state of a server with these case bases and settings.
    pub fn new(generic: Loaded, players: Vec<Served>, cfg: EngineConfig) -> State {
        State {
            generic,
            players,
            cfg,
            games: Mutex::new(Games::default()),
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

    /// Starts a game against `opponent` with the user playing `user`; the engine moves first
    /// when it has White.
    pub fn start(
        &self,
        opponent: Opponent,
        user: Color,
        movetime: Duration,
    ) -> Result<(u64, Arc<Mutex<Played>>), GameError> {
        match opponent {
            Opponent::Player { id } if id >= self.players.len() => {
                return Err(GameError::NoOpponent(format!(
                    "no player file {id}: {} loaded",
                    self.players.len()
                )));
            }
            Opponent::Level { elo } => {
                let Some((lo, hi)) = self.cfg.elo_range() else {
                    return Err(GameError::NoOpponent("no levels in the parameters".into()));
                };
                if !(lo..=hi).contains(&elo) {
                    return Err(GameError::NoOpponent(format!(
                        "level {elo} is outside {lo}..{hi}"
                    )));
                }
            }
            _ => {}
        }
        let engine_name = match opponent {
            Opponent::Default => "Precedent (default style)".to_string(),
            Opponent::Level { elo } => format!("Precedent (level {elo})"),
            Opponent::Player { id } => format!("Precedent (as {})", self.players[id].name),
        };
        let played = Arc::new(Mutex::new(Played {
            opponent,
            engine_name,
            engine: !user,
            movetime,
            game: Game::new(Chess::default()),
            moves: Vec::new(),
            sans: Vec::new(),
            memory: Memory::new(GAME_MEMORY_MB),
            last: None,
        }));
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let id = games.next;
        games.next += 1;
        games.by_id.insert(id, Arc::clone(&played));
        games.order.push_back(id);
        while games.order.len() > MAX_GAMES {
            if let Some(old) = games.order.pop_front() {
                games.by_id.remove(&old);
            }
        }
        Ok((id, played))
    }

    /// The game of `id`.
    pub fn game(&self, id: u64) -> Result<Arc<Mutex<Played>>, GameError> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.by_id.get(&id).cloned().ok_or(GameError::NoGame(id))
    }

    /// The engine's move in `played`, if it is its turn and the game goes on.
    pub fn engine_moves(&self, played: &mut Played) {
        if played.result().is_some() || played.game.position.turn() != played.engine {
            return;
        }
        let (loaded, elo) = match played.opponent {
            Opponent::Default => (&self.generic, None),
            Opponent::Level { elo } => (&self.generic, Some(elo)),
            Opponent::Player { id } => (&self.players[id].loaded, None),
        };
        let cfg = EngineConfig {
            elo,
            ..self.cfg.clone()
        };
        let limits = Limits {
            deadline: Some(Instant::now() + played.movetime),
            ..Limits::default()
        };
        match think(
            loaded.knowledge(),
            &played.game,
            &cfg,
            limits,
            CastlingMode::Standard,
            &mut played.memory,
        ) {
            Ok(thought) => {
                let before = played.game.position.clone();
                let san = played.push(thought.mv);
                played.last = Some(engine_move(&thought, san, &before));
            }
            Err(NoLegalMove::Checkmate | NoLegalMove::Stalemate) => {}
        }
    }
}

/// The engine's move `t` (`san`, played in `before`), its model's moves named in SAN.
fn engine_move(t: &Thought, san: String, before: &Chess) -> EngineMove {
    let san_of = |uci: &str| {
        UciMove::from_ascii(uci.as_bytes())
            .ok()
            .and_then(|u| u.to_move(before).ok())
            .map_or_else(
                || uci.to_string(),
                |m| San::from_move(before, m).to_string(),
            )
    };
    let json = precedent::think::to_json(t);
    let probabilities = json["model"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| Some((san_of(m["move"].as_str()?), m["probability"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    EngineMove {
        uci: t.bestmove.clone(),
        san,
        explanation: explain(t),
        probabilities,
        precedents: {
            // Those that played the move first, nearest first.
            let mut cases: Vec<_> = t.decision.cases.iter().collect();
            cases.sort_by_key(|c| c.adapted != t.bestmove);
            serde_json::to_value(cases).unwrap_or_default()
        },
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

    /// The user's move `text` (UCI notation), if legal and theirs to play.
    pub fn user_moves(&mut self, text: &str) -> Result<(), GameError> {
        if let Some(r) = self.result() {
            return Err(GameError::NotYourTurn(format!("the game is over: {r}")));
        }
        if self.game.position.turn() == self.engine {
            return Err(GameError::NotYourTurn("it is the engine's turn".into()));
        }
        let uci = UciMove::from_ascii(text.trim().as_bytes())
            .map_err(|_| GameError::Move(format!("{text:?} is not a move in UCI notation")))?;
        let m = uci
            .to_move(&self.game.position)
            .map_err(|_| GameError::Move(format!("{text} is not legal here")))?;
        self.push(m);
        Ok(())
    }

    /// How the game ended, if it has.
    pub fn result(&self) -> Option<String> {
        let pos = &self.game.position;
        if pos.is_checkmate() {
            let won = if pos.turn() == Color::White {
                "0-1"
            } else {
                "1-0"
            };
            return Some(format!("{won} checkmate"));
        }
        if pos.is_stalemate() {
            return Some("1/2-1/2 stalemate".into());
        }
        if pos.is_insufficient_material() {
            return Some("1/2-1/2 insufficient material".into());
        }
        (pos.halfmoves() >= 100).then(|| "1/2-1/2 fifty moves".into())
    }

    /// The legal moves by the square they leave (castling as the king's two-square move),
    /// none once the game is over.
    fn dests(&self) -> BTreeMap<String, Vec<String>> {
        let mut dests: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if self.result().is_some() {
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

    /// The game as PGN: the engine and "You" by colour, the result once it is over.
    fn pgn(&self) -> String {
        let (white, black) = match self.engine {
            Color::White => (self.engine_name.as_str(), "You"),
            Color::Black => ("You", self.engine_name.as_str()),
        };
        let result = self
            .result()
            .and_then(|r| r.split_whitespace().next().map(str::to_string))
            .unwrap_or_else(|| "*".to_string());
        let mut text = format!(
            "[Event \"Precedent\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n"
        );
        for (i, san) in self.sans.iter().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            }
            text.push_str(san);
            text.push(' ');
        }
        text.push_str(&result);
        text.push('\n');
        text
    }

    /// What the client sees.
    pub fn view(&self, id: u64) -> View {
        let fen =
            shakmaty::fen::Fen::from_position(&self.game.position, shakmaty::EnPassantMode::Legal);
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
            turn: colour_name(self.game.position.turn()),
            result: self.result(),
            check: self.game.position.is_check(),
            dests: self.dests(),
            last: self.last.clone(),
            pgn: self.pgn(),
        }
    }
}
