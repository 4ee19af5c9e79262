//! External UCI engines as subprocesses (Stockfish as a baseline, an opponent or a judge).
//!
//! Every wait has a timeout, and every failure (the engine exits, stalls, or answers nonsense)
//! is an error value, never a hang or a panic, so a match or an evaluation can go on.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

/// An engine that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The command could not be started.
    #[error("{engine}: cannot start: {reason}")]
    Start {
        /// The engine's command line, which names it in messages.
        engine: String,
        /// Why it could not start.
        reason: String,
    },
    /// The engine closed its output (crashed or quit).
    #[error("{engine}: the engine exited while {doing}")]
    Exited {
        /// The engine's command line, which names it in messages.
        engine: String,
        /// What the client was doing at the time, e.g. `waiting for bestmove`.
        doing: String,
    },
    /// No answer in time.
    #[error("{engine}: no {expected} within {waited_ms} ms")]
    Timeout {
        /// The engine's command line, which names it in messages.
        engine: String,
        /// The line awaited, by its first word (e.g. `readyok`, `bestmove`).
        expected: String,
        /// How long the client waited (ms).
        waited_ms: u64,
    },
    /// Writing to the engine failed.
    #[error("{engine}: cannot write to the engine: {reason}")]
    Write {
        /// The engine's command line, which names it in messages.
        engine: String,
        /// The I/O error.
        reason: String,
    },
    /// A limit that cannot be parsed.
    #[error("bad engine limit {0:?}: expected depth=N, movetime=MS or nodes=N")]
    BadLimit(String),
}

/// How long an external engine may think about one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Search this many plies (`depth=N`).
    Depth(u32),
    /// Search this long (ms, `movetime=MS`).
    MoveTime(u64),
    /// Search this many nodes (`nodes=N`).
    Nodes(u64),
}

impl std::str::FromStr for Limit {
    type Err = ClientError;
    fn from_str(s: &str) -> Result<Limit, ClientError> {
        let bad = || ClientError::BadLimit(s.to_string());
        let (key, value) = s.split_once('=').ok_or_else(bad)?;
        let n: u64 = value.trim().parse().map_err(|_| bad())?;
        match key.trim() {
            "depth" => Ok(Limit::Depth(u32::try_from(n).map_err(|_| bad())?)),
            "movetime" => Ok(Limit::MoveTime(n)),
            "nodes" => Ok(Limit::Nodes(n)),
            _ => Err(bad()),
        }
    }
}

impl Limit {
    /// The `go` arguments.
    pub fn go_args(&self) -> String {
        match self {
            Limit::Depth(d) => format!("depth {d}"),
            Limit::MoveTime(ms) => format!("movetime {ms}"),
            Limit::Nodes(n) => format!("nodes {n}"),
        }
    }
}

/// An engine's evaluation, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in N moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// Centipawns with mates capped at ±`cap`.
    pub fn to_cp(self, cap: i32) -> i32 {
        match self {
            Score::Cp(cp) => cp.clamp(-cap, cap),
            Score::Mate(n) if n > 0 => cap,
            Score::Mate(_) => -cap,
        }
    }
}

/// What a `go` produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoResult {
    /// The `bestmove` (`0000` or `(none)` when the engine had no move).
    pub bestmove: String,
    /// The last score reported, if any.
    pub score: Option<Score>,
    /// Time from `go` to `bestmove`.
    pub elapsed: Duration,
}

/// A running UCI engine.
pub struct EngineProcess {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl EngineProcess {
    /// Starts `command` (split on whitespace), completes the handshake, sets `options`
    /// (name, value) and waits for `readyok`.
    pub fn start(
        command: &str,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<EngineProcess, ClientError> {
        let mut parts = command.split_whitespace();
        let program = parts.next().ok_or_else(|| ClientError::Start {
            engine: command.to_string(),
            reason: "empty command".into(),
        })?;
        let mut child = Command::new(program)
            .args(parts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| ClientError::Start {
                engine: command.to_string(),
                reason: e.to_string(),
            })?;
        let stdin = child.stdin.take().ok_or_else(|| ClientError::Start {
            engine: command.to_string(),
            reason: "no stdin".into(),
        })?;
        let stdout = child.stdout.take().ok_or_else(|| ClientError::Start {
            engine: command.to_string(),
            reason: "no stdout".into(),
        })?;
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = EngineProcess {
            name: command.to_string(),
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        engine.wait_for("uciok", timeout, |_| {})?;
        for (name, value) in options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.ready(timeout)?;
        Ok(engine)
    }

    /// Resident memory of the engine's process in kB (`VmRSS` from `/proc`; `None` elsewhere).
    pub fn resident_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// The command the engine was started with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), ClientError> {
        let res = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        res.map_err(|e| ClientError::Write {
            engine: self.name.clone(),
            reason: e.to_string(),
        })
    }

    /// `isready` → `readyok`.
    pub fn ready(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.send("isready")?;
        self.wait_for("readyok", timeout, |_| {})
    }

    /// `ucinewgame` and `isready`.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.send("ucinewgame")?;
        self.ready(timeout)
    }

    fn wait_for(
        &mut self,
        prefix: &str,
        timeout: Duration,
        mut each: impl FnMut(&str),
    ) -> Result<(), ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line.split_whitespace().next() == Some(prefix) {
                        each(&line);
                        return Ok(());
                    }
                    each(&line);
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::Timeout {
                        engine: self.name.clone(),
                        expected: prefix.to_string(),
                        waited_ms: timeout.as_millis() as u64,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ClientError::Exited {
                        engine: self.name.clone(),
                        doing: format!("waiting for {prefix}"),
                    });
                }
            }
        }
    }

    /// `position fen FEN [moves …]` then `go ARGS`; waits up to `timeout` for `bestmove`.
    pub fn go(
        &mut self,
        position: &str,
        go_args: &str,
        timeout: Duration,
    ) -> Result<GoResult, ClientError> {
        self.go_until(position, go_args, timeout, |_| false)
    }

    /// [`EngineProcess::go`], sending `stop` once `stop_when` says so of a line the engine
    /// writes before its `bestmove` (e.g. once it has reported what the caller wanted).
    pub fn go_until(
        &mut self,
        position: &str,
        go_args: &str,
        timeout: Duration,
        mut stop_when: impl FnMut(&str) -> bool,
    ) -> Result<GoResult, ClientError> {
        self.send(&format!("position {position}"))?;
        let started = Instant::now();
        self.send(&format!("go {go_args}"))?;
        let deadline = started + timeout;
        let (mut score, mut stopped) = (None, false);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::Timeout {
                        engine: self.name.clone(),
                        expected: "bestmove".to_string(),
                        waited_ms: timeout.as_millis() as u64,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ClientError::Exited {
                        engine: self.name.clone(),
                        doing: "waiting for bestmove".to_string(),
                    });
                }
            };
            if let Some(rest) = line.strip_prefix("bestmove") {
                return Ok(GoResult {
                    bestmove: rest.split_whitespace().next().unwrap_or("0000").to_string(),
                    score,
                    elapsed: started.elapsed(),
                });
            }
            if line.starts_with("info") {
                score = parse_score(&line).or(score);
            }
            if !stopped && stop_when(&line) {
                self.send("stop")?;
                stopped = true;
            }
        }
    }

    /// `position …`, `go ARGS` and at once `stop`; waits up to `timeout` for `bestmove`.
    pub fn go_and_stop(
        &mut self,
        position: &str,
        go_args: &str,
        timeout: Duration,
    ) -> Result<(), ClientError> {
        self.send(&format!("position {position}"))?;
        self.send(&format!("go {go_args}"))?;
        self.send("stop")?;
        self.wait_for("bestmove", timeout, |_| {})
    }

    /// Asks the engine to quit and makes sure it is gone.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `score cp N` / `score mate N` of an `info` line (bounds are ignored as scores).
pub fn parse_score(line: &str) -> Option<Score> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let i = toks.iter().position(|t| *t == "score")?;
    if toks
        .get(i + 3)
        .is_some_and(|t| *t == "lowerbound" || *t == "upperbound")
    {
        return None;
    }
    let n: i32 = toks.get(i + 2)?.parse().ok()?;
    match *toks.get(i + 1)? {
        "cp" => Some(Score::Cp(n)),
        "mate" => Some(Score::Mate(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_limits() {
        assert_eq!("depth=12".parse::<Limit>(), Ok(Limit::Depth(12)));
        assert_eq!("movetime=50".parse::<Limit>(), Ok(Limit::MoveTime(50)));
        assert_eq!("nodes=1000".parse::<Limit>(), Ok(Limit::Nodes(1000)));
        assert!("depth".parse::<Limit>().is_err());
        assert!("speed=3".parse::<Limit>().is_err());
    }

    #[test]
    fn parses_scores_and_skips_bounds() {
        assert_eq!(
            parse_score("info depth 12 score cp -35 nodes 100 pv e2e4"),
            Some(Score::Cp(-35))
        );
        assert_eq!(
            parse_score("info depth 3 score mate -2 pv e2e4"),
            Some(Score::Mate(-2))
        );
        assert_eq!(parse_score("info depth 12 score cp 40 lowerbound"), None);
        assert_eq!(parse_score("info string hello"), None);
        assert_eq!(Score::Mate(3).to_cp(1000), 1000);
        assert_eq!(Score::Cp(-5000).to_cp(1000), -1000);
    }

    #[test]
    fn a_missing_program_is_a_start_error() {
        let e = EngineProcess::start("/no/such/engine", &[], Duration::from_secs(1))
            .err()
            .expect("error");
        assert!(matches!(e, ClientError::Start { .. }), "{e}");
    }

    #[test]
    fn an_engine_that_exits_is_reported_not_waited_for() {
        let e = EngineProcess::start("true", &[], Duration::from_secs(10))
            .err()
            .expect("error");
        assert!(
            matches!(e, ClientError::Exited { .. } | ClientError::Write { .. }),
            "{e}"
        );
    }

    #[test]
    fn an_engine_that_never_answers_times_out() {
        let e = EngineProcess::start("sleep 30", &[], Duration::from_millis(200))
            .err()
            .expect("error");
        assert!(matches!(e, ClientError::Timeout { .. }), "{e}");
    }
}
