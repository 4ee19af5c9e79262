//! Parsing one line of GUI input into a [`Command`]. Never fails on garbage: what cannot be a
//! command is [`Command::Unknown`], and a malformed argument is an error the engine reports with
//! `info string` and otherwise ignores.

/// The `go` parameters (times in milliseconds, negatives clamped to zero, values too large for
/// their field clamped to its maximum).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// Restrict the search to these root moves (UCI notation); empty = all legal moves.
    pub searchmoves: Vec<String>,
    /// Search in ponder mode: the position is after the move the engine expects the opponent to play.
    pub ponder: bool,
    /// White's remaining clock time (ms).
    pub wtime: Option<u64>,
    /// Black's remaining clock time (ms).
    pub btime: Option<u64>,
    /// White's increment per move (ms).
    pub winc: Option<u64>,
    /// Black's increment per move (ms).
    pub binc: Option<u64>,
    /// Moves left until the next time control; `None` = sudden death.
    pub movestogo: Option<u32>,
    /// Search at most this many plies.
    pub depth: Option<u32>,
    /// Search at most this many nodes.
    pub nodes: Option<u64>,
    /// Look for a mate in this many moves (full moves, not plies).
    pub mate: Option<u32>,
    /// Search for exactly this long (ms).
    pub movetime: Option<u64>,
    /// Search until `stop`, whatever the other limits say.
    pub infinite: bool,
    /// What was clamped or ignored, for the engine to report: a `go` is always searched.
    pub notes: Vec<String>,
}

/// A GUI → engine command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify the engine and announce its options.
    Uci,
    /// `debug on|off`: whether to send extra `info string` diagnostics.
    Debug(bool),
    /// `isready`: a ping the engine answers with `readyok` once idle enough.
    IsReady,
    /// `setoption name NAME [value VALUE]`: change a UCI option.
    SetOption {
        /// Option name as sent (matched case-insensitively).
        name: String,
        /// The value; `None` for buttons such as `Clear Hash`.
        value: Option<String>,
    },
    /// `register`: accepted and ignored (the engine needs no registration).
    Register,
    /// `ucinewgame`: the next position belongs to a new game.
    UciNewGame,
    /// `position startpos|fen FEN [moves …]`: set up the position to search (`fen: None` is
    /// the initial position).
    Position {
        /// The starting position's FEN.
        fen: Option<String>,
        /// Moves played from it, in UCI notation.
        moves: Vec<String>,
    },
    /// `go …`: start searching the current position.
    Go(GoParams),
    /// `stop`: end the search and report the best move.
    Stop,
    /// `ponderhit`: the opponent played the expected move; the ponder search becomes a real one.
    PonderHit,
    /// `quit`: exit as soon as possible.
    Quit,
    /// Blank line.
    Empty,
    /// No known command word on the line.
    Unknown(String),
}

/// A command with an argument that cannot be understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CommandError(pub String);

const COMMANDS: &[&str] = &[
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

/// Whitespace-separated tokens with their byte spans in the line.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &line[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

/// Parses one line. Leading unknown tokens are skipped, as the protocol asks
/// (`joho debug on` is `debug on`).
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let toks = tokens(line);
    if toks.is_empty() {
        return Ok(Command::Empty);
    }
    let Some(at) = toks.iter().position(|(_, t)| COMMANDS.contains(t)) else {
        return Ok(Command::Unknown(line.trim().to_string()));
    };
    let (_, word) = toks[at];
    let rest = &toks[at + 1..];
    Ok(match word {
        "uci" => Command::Uci,
        "debug" => Command::Debug(rest.first().is_none_or(|(_, t)| *t != "off")),
        "isready" => Command::IsReady,
        "register" => Command::Register,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "setoption" => parse_setoption(line, rest)?,
        "position" => parse_position(line, rest)?,
        "go" => Command::Go(parse_go(rest)),
        _ => Command::Unknown(line.trim().to_string()),
    })
}

fn parse_setoption(line: &str, rest: &[(usize, &str)]) -> Result<Command, CommandError> {
    let name_at = rest.iter().position(|(_, t)| *t == "name");
    let Some(name_at) = name_at else {
        return Err(CommandError("setoption without 'name'".into()));
    };
    let value_at = rest
        .iter()
        .skip(name_at + 1)
        .position(|(_, t)| *t == "value")
        .map(|p| p + name_at + 1);
    let name_toks = &rest[name_at + 1..value_at.unwrap_or(rest.len())];
    if name_toks.is_empty() {
        return Err(CommandError("setoption with an empty name".into()));
    }
    let name = name_toks
        .iter()
        .map(|(_, t)| *t)
        .collect::<Vec<_>>()
        .join(" ");
    // The value is the raw rest of the line: paths may contain runs of spaces.
    let value = value_at.map(|v| match rest.get(v + 1) {
        Some((start, _)) => line[*start..].trim_end().to_string(),
        None => String::new(),
    });
    Ok(Command::SetOption { name, value })
}

fn parse_position(line: &str, rest: &[(usize, &str)]) -> Result<Command, CommandError> {
    let moves_at = rest.iter().position(|(_, t)| *t == "moves");
    let moves: Vec<String> = match moves_at {
        Some(m) => rest[m + 1..].iter().map(|(_, t)| t.to_string()).collect(),
        None => Vec::new(),
    };
    let head = &rest[..moves_at.unwrap_or(rest.len())];
    match head.first().map(|(_, t)| *t) {
        Some("startpos") => Ok(Command::Position { fen: None, moves }),
        Some("fen") => {
            let fields = &head[1..];
            let (Some((start, _)), Some((last, tok))) = (fields.first(), fields.last()) else {
                return Err(CommandError("position fen without a FEN".into()));
            };
            let fen = &line[*start..last + tok.len()];
            Ok(Command::Position {
                fen: Some(fen.split_whitespace().collect::<Vec<_>>().join(" ")),
                moves,
            })
        }
        Some(other) => Err(CommandError(format!(
            "position: expected 'startpos' or 'fen', found {other:?}"
        ))),
        None => Err(CommandError("position without 'startpos' or 'fen'".into())),
    }
}

/// Largest time (ms) a `go` value may carry: about 49 days, far beyond any clock, and small
/// enough that every deadline computed from it is representable.
pub(crate) const MAX_MS: u64 = u32::MAX as u64;
/// Deepest `go depth` / `go mate` honoured.
pub(crate) const MAX_DEPTH: u32 = 255;
/// Largest `go nodes`.
pub(crate) const MAX_NODES: u64 = i64::MAX as u64;

/// Reads the value of `go KEY`: a whole number, clamped to `0..=max`. A value that is not a
/// number is ignored (`None`) and a note says so; a clamped one gets a note too.
fn number(
    key: &str,
    tok: Option<&(usize, &str)>,
    max: u64,
    notes: &mut Vec<String>,
) -> (Option<u64>, usize) {
    let Some((_, text)) = tok else {
        notes.push(format!("go {key}: missing value; ignored"));
        return (None, 1);
    };
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        // Not a number: it may be the next keyword (`go wtime depth 5`), so it is not consumed.
        notes.push(format!("go {key}: {text:?} is not a whole number; ignored"));
        return (None, 1);
    }
    // GUIs send negative clock values when the flag has fallen: treat them as zero.
    if text.starts_with('-') {
        return (Some(0), 2);
    }
    let value = match digits.parse::<u64>() {
        Ok(v) if v <= max => v,
        _ => {
            notes.push(format!(
                "go {key}: {text} is out of range; clamped to {max}"
            ));
            max
        }
    };
    (Some(value), 2)
}

const GO_KEYWORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

fn parse_go(rest: &[(usize, &str)]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i].1;
        let next = rest.get(i + 1);
        let notes = &mut go.notes;
        let mut used = 1;
        let mut read = |max: u64| {
            let (v, n) = number(key, next, max, notes);
            used = n;
            v
        };
        let small = |v: Option<u64>| v.map(|v| v as u32);
        match key {
            "ponder" => go.ponder = true,
            "infinite" => go.infinite = true,
            "wtime" => go.wtime = read(MAX_MS).or(go.wtime),
            "btime" => go.btime = read(MAX_MS).or(go.btime),
            "winc" => go.winc = read(MAX_MS).or(go.winc),
            "binc" => go.binc = read(MAX_MS).or(go.binc),
            "movetime" => go.movetime = read(MAX_MS).or(go.movetime),
            "movestogo" => go.movestogo = small(read(u64::from(u32::MAX))).or(go.movestogo),
            "depth" => go.depth = small(read(u64::from(MAX_DEPTH))).or(go.depth),
            "mate" => go.mate = small(read(u64::from(MAX_DEPTH))).or(go.mate),
            "nodes" => go.nodes = read(MAX_NODES).or(go.nodes),
            "searchmoves" => {
                let moves: Vec<String> = rest[i + 1..]
                    .iter()
                    .map(|(_, t)| *t)
                    .take_while(|t| !GO_KEYWORDS.contains(t))
                    .map(str::to_string)
                    .collect();
                used = 1 + moves.len();
                go.searchmoves = moves;
            }
            // Unknown tokens are ignored.
            _ => {}
        }
        i += used;
    }
    go
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_unknown_leading_tokens() {
        assert_eq!(parse("joho debug on"), Ok(Command::Debug(true)));
        assert_eq!(parse("   isready  "), Ok(Command::IsReady));
        assert_eq!(parse(""), Ok(Command::Empty));
        assert_eq!(
            parse("hello world"),
            Ok(Command::Unknown("hello world".into()))
        );
    }

    #[test]
    fn setoption_names_may_contain_spaces_and_values_keep_theirs() {
        assert_eq!(
            parse("setoption name Move Overhead value 100"),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            })
        );
        assert_eq!(
            parse("setoption  name CaseBase value /tmp/my  games.cb "),
            Ok(Command::SetOption {
                name: "CaseBase".into(),
                value: Some("/tmp/my  games.cb".into())
            })
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert!(parse("setoption value 3").is_err());
        assert!(parse("setoption name").is_err());
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            parse("position startpos"),
            Ok(Command::Position {
                fen: None,
                moves: vec![]
            })
        );
        assert_eq!(
            parse("position startpos moves"),
            Ok(Command::Position {
                fen: None,
                moves: vec![]
            })
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Ok(Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            })
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K1k5  w - - 0 1 moves a1a2"),
            Ok(Command::Position {
                fen: Some("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
                moves: vec!["a1a2".into()]
            })
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position fen moves e2e4").is_err());
        assert!(parse("position somewhere").is_err());
    }

    #[test]
    fn go_tokens_in_any_order() {
        let Ok(Command::Go(g)) = parse("go btime 300 winc 5 wtime 100 binc 7 movestogo 3") else {
            panic!("go")
        };
        assert_eq!(
            (g.wtime, g.btime, g.winc, g.binc, g.movestogo),
            (Some(100), Some(300), Some(5), Some(7), Some(3))
        );
        let Ok(Command::Go(g)) = parse("go infinite searchmoves e2e4 d2d4 ponder") else {
            panic!("go")
        };
        assert!(g.infinite && g.ponder);
        assert_eq!(g.searchmoves, vec!["e2e4".to_string(), "d2d4".to_string()]);
        let Ok(Command::Go(g)) =
            parse("go wtime -150 btime 1000 depth 5 nodes 1000 mate 2 movetime 50 bogus")
        else {
            panic!("go")
        };
        assert_eq!(
            (g.wtime, g.depth, g.nodes, g.mate, g.movetime),
            (Some(0), Some(5), Some(1000), Some(2), Some(50))
        );
        assert!(g.notes.is_empty(), "{:?}", g.notes);
        assert_eq!(parse("go"), Ok(Command::Go(GoParams::default())));
    }

    #[test]
    fn go_with_huge_or_malformed_values_is_still_a_go_with_notes() {
        let Ok(Command::Go(g)) = parse("go depth 999999999999 wtime 99999999999999999999 nodes 1")
        else {
            panic!("go")
        };
        assert_eq!(
            (g.depth, g.wtime, g.nodes),
            (Some(MAX_DEPTH), Some(MAX_MS), Some(1))
        );
        assert_eq!(g.notes.len(), 2, "{:?}", g.notes);
        assert!(g.notes[0].contains("clamped"), "{:?}", g.notes);
        let Ok(Command::Go(g)) = parse("go wtime soon btime 500 movetime") else {
            panic!("go")
        };
        assert_eq!((g.wtime, g.btime, g.movetime), (None, Some(500), None));
        assert_eq!(g.notes.len(), 2, "{:?}", g.notes);
        // A keyword where a value should be is not swallowed.
        let Ok(Command::Go(g)) = parse("go wtime depth 3") else {
            panic!("go")
        };
        assert_eq!((g.wtime, g.depth), (None, Some(3)));
    }
}
