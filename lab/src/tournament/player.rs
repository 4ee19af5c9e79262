//! Match players: Precedent configurations run in-process, external UCI engines run as
//! subprocesses, and a uniformly random mover (the floor every engine must beat).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move, Position};

use crate::client::{self, EngineProcess, Score};
use precedent::player::Loaded;
use precedent::think::settings::{self, Origin, SETTINGS, Setting, SettingError, apply_text};
use precedent::think::{Clock, EngineConfig, plan, think};

/// Taken off an in-process player's budget, like a GUI's `Move Overhead`: what the scheduler
/// may add to a move when two games share two cores (Stockfish's default overhead). Without it
/// a move that ran its whole budget late in a game could overstep a nearly empty clock.
const IN_PROCESS_OVERHEAD: Duration = Duration::from_millis(10);
use precedent::position::Game;
use precedent::revise::Memory;
use precedent::search::Limits;

/// A time control: base time and increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Time on each clock at the start of the game.
    pub base: Duration,
    /// Time added to a player's clock after each of its moves.
    pub increment: Duration,
}

impl std::str::FromStr for TimeControl {
    type Err = String;
    /// `SECONDS[+INCREMENT]`, e.g. `10+0.1` or `60`.
    fn from_str(s: &str) -> Result<TimeControl, String> {
        let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
        let secs = |t: &str| -> Result<Duration, String> {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| format!("time control {s:?}: {t:?} is not a number of seconds"))?;
            if !v.is_finite() || v < 0.0 {
                return Err(format!("time control {s:?}: negative or infinite"));
            }
            Ok(Duration::from_secs_f64(v))
        };
        let tc = TimeControl {
            base: secs(base)?,
            increment: secs(inc)?,
        };
        if tc.base.is_zero() {
            return Err(format!(
                "time control {s:?}: the base time must be positive"
            ));
        }
        Ok(tc)
    }
}

impl std::fmt::Display for TimeControl {
    /// PGN `TimeControl` form: `10+0.1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64(),
            self.increment.as_secs_f64()
        )
    }
}

/// How to create a player, as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Precedent itself, in-process: no protocol, no subprocess.
    Precedent {
        /// The player's name in the match (`precedent` unless given).
        name: String,
        /// The case-base file; `None` = the embedded case base.
        casebase: Option<PathBuf>,
        /// The reasoner's settings.
        config: Box<EngineConfig>,
    },
    /// An external UCI engine.
    Uci {
        /// The player's name in the match (the command unless given).
        name: String,
        /// The command line that starts the engine (split on whitespace).
        command: String,
        /// UCI options (name, value) set before the first game.
        options: Vec<(String, String)>,
        /// Its own time control, overriding the match's.
        tc: Option<TimeControl>,
    },
    /// A uniformly random legal mover.
    Random {
        /// The player's name in the match (`random` unless given).
        name: String,
    },
}

impl PlayerSpec {
    /// The player's name.
    pub fn name(&self) -> &str {
        match self {
            PlayerSpec::Precedent { name, .. }
            | PlayerSpec::Uci { name, .. }
            | PlayerSpec::Random { name } => name,
        }
    }

    /// A player's own time control, if it overrides the match's.
    pub fn tc(&self) -> Option<TimeControl> {
        match self {
            PlayerSpec::Uci { tc, .. } => *tc,
            _ => None,
        }
    }
}

impl std::str::FromStr for PlayerSpec {
    type Err = String;
    /// `precedent:name=N,casebase=FILE,params=FILE` and any setting of the registry
    /// (`k=32,p=16,mode=normalised,weights=1:1:1:1:10:0,seed=S,revise=true,tolerance=50,
    /// style=human,temperature=0.8,elo=1400`, as on the command line),
    /// `uci:name=N,cmd=COMMAND ARGS,opt.NAME=VALUE,tc=10+0.1`, or `random:name=N`. Keys may be
    /// left out; `casebase=default` (or none) is the embedded case base.
    fn from_str(s: &str) -> Result<PlayerSpec, String> {
        let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
        let mut pairs = Vec::new();
        for part in rest.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("player {s:?}: {part:?} is not KEY=VALUE"))?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        let take = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let unknown = |allowed: &[&str]| {
            pairs
                .iter()
                .find(|(k, _)| !allowed.contains(&k.as_str()) && !k.starts_with("opt."))
                .map(|(k, _)| format!("player {s:?}: unknown key {k:?}"))
        };
        match kind.trim() {
            "precedent" => {
                let own = ["name", "casebase", "params"];
                let spec_error = |e: SettingError| e.at(Origin::Spec(s.to_string())).to_string();
                if let Some((k, _)) = pairs
                    .iter()
                    .find(|(k, _)| !own.contains(&k.as_str()) && Setting::by_name(k).is_none())
                {
                    let names = own
                        .into_iter()
                        .chain(SETTINGS.iter().filter(|s| s.cli).map(|s| s.name));
                    return Err(spec_error(settings::unknown(k, names)));
                }
                let mut config = match take("params") {
                    Some(file) => EngineConfig::load(std::path::Path::new(&file))
                        .map_err(|e| e.to_string())?,
                    None => EngineConfig::default(),
                };
                let settings: Vec<(String, String)> = pairs
                    .iter()
                    .filter(|(k, _)| !own.contains(&k.as_str()))
                    .cloned()
                    .collect();
                apply_text(&mut config, &settings).map_err(spec_error)?;
                let casebase = take("casebase")
                    .filter(|c| c != "default" && !c.is_empty())
                    .map(PathBuf::from);
                let name = take("name").unwrap_or_else(|| "precedent".into());
                Ok(PlayerSpec::Precedent {
                    name,
                    casebase,
                    config: Box::new(config),
                })
            }
            "uci" => {
                if let Some(e) = unknown(&["name", "cmd", "tc"]) {
                    return Err(e);
                }
                let command =
                    take("cmd").ok_or_else(|| format!("player {s:?}: cmd=COMMAND is required"))?;
                let options = pairs
                    .iter()
                    .filter_map(|(k, v)| k.strip_prefix("opt.").map(|n| (n.to_string(), v.clone())))
                    .collect();
                let tc = take("tc").map(|t| t.parse()).transpose()?;
                let name = take("name").unwrap_or_else(|| command.clone());
                Ok(PlayerSpec::Uci {
                    name,
                    command,
                    options,
                    tc,
                })
            }
            "random" => {
                if let Some(e) = unknown(&["name"]) {
                    return Err(e);
                }
                Ok(PlayerSpec::Random {
                    name: take("name").unwrap_or_else(|| "random".into()),
                })
            }
            other => Err(format!(
                "player {s:?}: unknown kind {other:?} (precedent, uci or random)"
            )),
        }
    }
}

/// The clocks when a player is asked to move.
#[derive(Clone, Copy, Debug)]
pub struct Clocks {
    /// Time left on White's clock.
    pub white: Duration,
    /// Time left on Black's clock.
    pub black: Duration,
    /// White's increment per move.
    pub white_inc: Duration,
    /// Black's increment per move.
    pub black_inc: Duration,
}

/// A move and what the player said about it.
#[derive(Clone, Debug)]
pub struct Thought {
    /// The move chosen.
    pub mv: Move,
    /// The player's score from its own side, if it reports one (external engines).
    pub score: Option<Score>,
}

/// How a player failed to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Crashed, exited, or could not be started.
    Crash(String),
    /// Did not answer before its flag fell (and a grace period).
    Stall(String),
    /// Answered with a move that is not legal.
    Illegal(String),
}

/// A player taking part in one game.
pub enum Live {
    /// Precedent, thinking in-process.
    Precedent {
        /// The case base, shared with the match's other Precedent players that use it.
        cb: Loaded,
        /// The reasoner's settings.
        // Boxed: the settings (a model and its levels) are larger than the other variants.
        config: Box<EngineConfig>,
        /// Its transposition table, kept from move to move and cleared between games.
        tt: Box<Memory>,
    },
    /// An external UCI engine, running as a subprocess.
    Uci {
        /// The running engine.
        // Boxed: a running process and its pipes are several times larger than the others.
        engine: Box<EngineProcess>,
    },
    /// The random mover.
    Random {
        /// Its move generator, seeded from the game's seed.
        // Boxed: the generator state is larger than the other variants.
        rng: Box<StdRng>,
    },
}

/// How long past its flag an external engine may stay silent before it is declared stalled.
const GRACE: Duration = Duration::from_secs(2);

impl Live {
    /// Asks for a move in `game` (reached from `start_fen` by `moves`).
    pub fn think(
        &mut self,
        start_fen: &str,
        moves: &[Move],
        game: &Game,
        clocks: &Clocks,
        castling: CastlingMode,
    ) -> Result<Thought, Failure> {
        let received = Instant::now();
        let pos = &game.position;
        let (remaining, inc) = match pos.turn() {
            shakmaty::Color::White => (clocks.white, clocks.white_inc),
            shakmaty::Color::Black => (clocks.black, clocks.black_inc),
        };
        match self {
            Live::Precedent { cb, config, tt } => {
                let clock = Clock {
                    remaining: Some(remaining),
                    increment: inc,
                    ..Clock::default()
                };
                let plan = plan(&clock, IN_PROCESS_OVERHEAD);
                let limits = Limits {
                    deadline: plan.map(|p| received + p.maximum),
                    optimum: plan.and_then(|p| p.optimum).map(|o| received + o),
                    ..Limits::default()
                };
                match think(cb.knowledge(), game, config, limits, castling, tt) {
                    Ok(t) => Ok(Thought {
                        mv: t.mv,
                        score: None,
                    }),
                    Err(e) => Err(Failure::Crash(format!(
                        "asked to move without a legal move: {e}"
                    ))),
                }
            }
            Live::Random { rng } => {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    return Err(Failure::Crash("asked to move without a legal move".into()));
                }
                Ok(Thought {
                    mv: legal[rng.random_range(0..legal.len())],
                    score: None,
                })
            }
            Live::Uci { engine } => {
                let ms = |d: Duration| d.as_millis() as u64;
                let movelist: Vec<String> = moves
                    .iter()
                    .map(|m| m.to_uci(castling).to_string())
                    .collect();
                let position = if movelist.is_empty() {
                    format!("fen {start_fen}")
                } else {
                    format!("fen {start_fen} moves {}", movelist.join(" "))
                };
                let go = format!(
                    "wtime {} btime {} winc {} binc {}",
                    ms(clocks.white),
                    ms(clocks.black),
                    ms(clocks.white_inc),
                    ms(clocks.black_inc)
                );
                let result = engine.go(&position, &go, remaining + GRACE);
                let r = result.map_err(|e| match e {
                    client::ClientError::Timeout { .. } => Failure::Stall(e.to_string()),
                    other => Failure::Crash(other.to_string()),
                })?;
                let parsed = UciMove::from_ascii(r.bestmove.as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(pos).ok());
                match parsed {
                    Some(mv) if pos.is_legal(mv) => Ok(Thought { mv, score: r.score }),
                    _ => Err(Failure::Illegal(format!(
                        "{}: bestmove {}",
                        engine.name(),
                        r.bestmove
                    ))),
                }
            }
        }
    }

    /// Starts a game (`ucinewgame` for engines).
    pub fn new_game(&mut self) -> Result<(), Failure> {
        match self {
            Live::Uci { engine } => engine
                .new_game(Duration::from_secs(10))
                .map_err(|e| Failure::Crash(e.to_string()))?,
            Live::Precedent { tt, .. } => tt.clear(),
            Live::Random { .. } => {}
        }
        Ok(())
    }

    /// Resident memory of the player's process in kB (external engines on Linux), for the
    /// soak's leak check.
    pub fn resident_kb(&self) -> Option<u64> {
        match self {
            Live::Uci { engine } => engine.resident_kb(),
            _ => None,
        }
    }

    /// Ends the player (quits an engine).
    pub fn finish(self) {
        if let Live::Uci { engine } = self {
            engine.quit();
        }
    }
}

/// Starts a live player from its spec; `cb` is the loaded case base for Precedent players. For
/// Chess960 an engine is told `UCI_Chess960 true`.
pub fn start(
    spec: &PlayerSpec,
    cb: Option<Loaded>,
    seed: u64,
    chess960: bool,
) -> Result<Live, Failure> {
    match spec {
        PlayerSpec::Precedent { config, .. } => {
            let cb = cb.ok_or_else(|| Failure::Crash("no case base loaded".into()))?;
            Ok(Live::Precedent {
                cb,
                config: config.clone(),
                tt: Box::new(Memory::default()),
            })
        }
        PlayerSpec::Random { .. } => Ok(Live::Random {
            rng: Box::new(StdRng::seed_from_u64(seed)),
        }),
        PlayerSpec::Uci {
            command, options, ..
        } => {
            let mut options = options.clone();
            if chess960 {
                options.push(("UCI_Chess960".into(), "true".into()));
            }
            EngineProcess::start(command, &options, Duration::from_secs(10))
                .map(|engine| Live::Uci {
                    engine: Box::new(engine),
                })
                .map_err(|e| Failure::Crash(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use precedent::retrieve::Mode;

    #[test]
    fn an_unknown_key_names_the_player_and_the_nearest_setting() {
        let e = "precedent:k=5,temprature=0.3"
            .parse::<PlayerSpec>()
            .expect_err("unknown key");
        assert_eq!(
            e,
            "unknown setting `temprature` in player `precedent:k=5,temprature=0.3`; \
             did you mean `temperature`?"
        );
    }

    #[test]
    fn parses_player_specs() {
        let p: PlayerSpec = "precedent:name=a,k=8,p=4,mode=thesis,weights=1:1:1:1:10:0"
            .parse()
            .expect("spec");
        let PlayerSpec::Precedent {
            name,
            casebase,
            config,
        } = p
        else {
            panic!("kind")
        };
        assert_eq!(
            (
                name.as_str(),
                casebase,
                config.reuse.k,
                config.reuse.p,
                config.reuse.mode
            ),
            ("a", None, 8, 4.0, Mode::Thesis)
        );
        assert_eq!(config.reuse.weights.0[4], 10.0);
        assert_eq!(config.style, precedent::think::Style::Imitate);
        let h: PlayerSpec = "precedent:style=human,temperature=0.5"
            .parse()
            .expect("spec");
        let PlayerSpec::Precedent { config, .. } = h else {
            panic!("kind")
        };
        assert_eq!(
            (config.style, config.temperature),
            (precedent::think::Style::Human, 0.5)
        );
        let u: PlayerSpec = "uci:name=sf,cmd=/usr/games/stockfish,opt.Skill Level=0,tc=5+0.05"
            .parse()
            .expect("spec");
        let PlayerSpec::Uci { options, tc, .. } = u else {
            panic!("kind")
        };
        assert_eq!(options, vec![("Skill Level".to_string(), "0".to_string())]);
        assert_eq!(
            tc,
            Some(TimeControl {
                base: Duration::from_secs(5),
                increment: Duration::from_millis(50)
            })
        );
        assert_eq!(
            "random".parse::<PlayerSpec>(),
            Ok(PlayerSpec::Random {
                name: "random".into()
            })
        );
        for bad in [
            "precedent:k=0",
            "precedent:speed=3",
            "uci:name=x",
            "chess:name=y",
            "precedent:weights=1:2",
            "uci:cmd=x,tc=fast",
            "precedent:style=fast",
            "precedent:temperature=0",
        ] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn parses_time_controls() {
        assert_eq!(
            "10+0.1".parse::<TimeControl>().map(|t| t.to_string()),
            Ok("10+0.1".to_string())
        );
        assert_eq!(
            "60".parse::<TimeControl>().map(|t| t.increment),
            Ok(Duration::ZERO)
        );
        assert!("0+1".parse::<TimeControl>().is_err());
        assert!("x+1".parse::<TimeControl>().is_err());
    }
}
