//! Writing match games as PGN.

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Move, Position};

use super::game::Termination;
use super::openings::Opening;
use precedent::pgn::GameHeader;

/// Everything a PGN game needs.
pub struct PgnGame<'a> {
    /// Event, site, date, round, players and result.
    pub header: &'a GameHeader,
    /// How the game ended.
    pub termination: &'a Termination,
    /// White's and Black's time control in PGN form (one `TimeControl` tag if they agree).
    pub time_control: [String; 2],
    /// The opening the game started from (its name, FEN and moves).
    pub opening: &'a Opening,
    /// Moves after the opening.
    pub moves: &'a [Move],
    /// A Chess960 game (tagged `Variant "Chess960"`).
    pub chess960: bool,
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The PGN text of a game, ending with a blank line.
pub fn write(g: &PgnGame<'_>) -> String {
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    let h = g.header;
    tag("Event", &h.event);
    tag("Site", &h.site);
    tag("Date", &h.date);
    tag("Round", &h.round);
    tag("White", &h.white);
    tag("Black", &h.black);
    tag("Result", h.result.as_pgn());
    for (name, elo) in [("WhiteElo", h.white_elo), ("BlackElo", h.black_elo)] {
        if let Some(elo) = elo {
            tag(name, &elo.to_string());
        }
    }
    if g.time_control[0] == g.time_control[1] {
        tag("TimeControl", &g.time_control[0]);
    } else {
        tag("WhiteTimeControl", &g.time_control[0]);
        tag("BlackTimeControl", &g.time_control[1]);
    }
    tag("Termination", g.termination.tag());
    tag("Opening", &g.opening.name);
    if g.chess960 {
        tag("Variant", "Chess960");
    }
    if !g.opening.standard_start || g.chess960 {
        tag("SetUp", "1");
        tag("FEN", &g.opening.fen);
    }
    let all: Vec<Move> = g.opening.moves.iter().chain(g.moves).copied().collect();
    tag("PlyCount", &all.len().to_string());
    out.push('\n');
    // The opening came from a FEN that parsed when it was loaded.
    let mut pos: Chess = precedent::position::parse_fen(&g.opening.fen).unwrap_or_default();
    let mut tokens: Vec<String> = Vec::new();
    for m in &all {
        let number = pos.fullmoves().get();
        let white = pos.turn() == shakmaty::Color::White;
        if white {
            tokens.push(format!("{number}."));
        } else if tokens.is_empty() {
            tokens.push(format!("{number}..."));
        }
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string());
    }
    tokens.push(format!(
        "{{{}}}",
        g.termination.describe().replace(['{', '}'], "")
    ));
    tokens.push(h.result.as_pgn().to_string());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// Today's date as `YYYY.MM.DD` (UTC), from the system clock.
pub fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}
