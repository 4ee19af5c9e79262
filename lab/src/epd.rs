//! EPD test suites: a position and operations such as `bm` (best moves), `am` (moves to
//! avoid), `id`, and STS's `c0` with points per move.

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Move};

use precedent::position::parse_fen;

/// One EPD record.
#[derive(Clone, Debug)]
pub struct EpdRecord {
    /// Line number in its file, from 1.
    pub line: usize,
    /// The record's `id` operation, if it has one.
    pub id: Option<String>,
    /// The position to solve.
    pub pos: Chess,
    /// Best moves (any of them solves the position).
    pub bm: Vec<Move>,
    /// Moves to avoid (none of them may be played).
    pub am: Vec<Move>,
    /// Points per move (STS `c0 "Move=points, …"`).
    pub points: Vec<(Move, u32)>,
}

/// A line that is not a usable EPD record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct EpdError {
    /// Line number in its file, from 1.
    pub line: usize,
    /// What is wrong with the line.
    pub reason: String,
}

/// Splits the operations part on `;` outside quotes.
fn operations(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

/// Parses a SAN move in `pos` (accepting `+`, `#`, `!`/`?` suffixes, and `0-0` for `O-O`).
pub fn san_move(pos: &Chess, san: &str) -> Option<Move> {
    let cleaned = san
        .trim()
        .trim_end_matches(['!', '?'])
        .replace("0-0-0", "O-O-O")
        .replace("0-0", "O-O");
    let parsed: SanPlus = cleaned.parse().ok()?;
    parsed.san.to_move(pos).ok()
}

/// Parses one EPD line; `Ok(None)` for blank lines and comments.
pub fn parse_line(text: &str, line: usize) -> Result<Option<EpdRecord>, EpdError> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let err = |reason: String| EpdError { line, reason };
    let fields: Vec<&str> = text.splitn(5, char::is_whitespace).collect();
    if fields.len() < 4 {
        return Err(err("fewer than four FEN fields".into()));
    }
    let fen = fields[..4].join(" ");
    let pos = parse_fen(&fen).map_err(|e| err(e.to_string()))?;
    let mut rec = EpdRecord {
        line,
        id: None,
        pos,
        bm: Vec::new(),
        am: Vec::new(),
        points: Vec::new(),
    };
    for op in operations(fields.get(4).copied().unwrap_or("")) {
        let (code, args) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        let moves = |args: &str| -> Result<Vec<Move>, EpdError> {
            args.split_whitespace()
                .map(|m| {
                    san_move(&rec.pos, m)
                        .ok_or_else(|| err(format!("{code} {m}: not a legal move")))
                })
                .collect()
        };
        match code {
            "bm" => rec.bm = moves(args)?,
            "am" => rec.am = moves(args)?,
            "id" => rec.id = Some(args.trim().trim_matches('"').to_string()),
            "c0" => {
                // STS: "f5=100, Bf2=46, …"; other suites use c0 for free text.
                for part in args.trim().trim_matches('"').split(',') {
                    if let Some((m, p)) = part.split_once('=')
                        && let (Some(mv), Ok(p)) = (san_move(&rec.pos, m), p.trim().parse::<u32>())
                    {
                        rec.points.push((mv, p));
                    }
                }
            }
            _ => {}
        }
    }
    if rec.bm.is_empty() && rec.am.is_empty() {
        return Err(err("no bm or am operation".into()));
    }
    Ok(Some(rec))
}

/// Whether `mv` solves the record: one of `bm` if any are given, and none of `am`.
pub fn solves(rec: &EpdRecord, mv: &Move) -> bool {
    (rec.bm.is_empty() || rec.bm.contains(mv)) && !rec.am.contains(mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn uci(m: &Move) -> String {
        m.to_uci(CastlingMode::Standard).to_string()
    }

    #[test]
    fn parses_bm_with_check_capture_and_id() {
        let r = parse_line(
            r#"1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";"#,
            1,
        )
        .expect("parses")
        .expect("a record");
        assert_eq!(r.bm.iter().map(uci).collect::<Vec<_>>(), vec!["d6d1"]);
        assert_eq!(r.id.as_deref(), Some("BK.01"));
        assert!(solves(&r, &r.bm[0]));
    }

    #[test]
    fn parses_mate_promotion_castling_and_am() {
        let r = parse_line("6k1/4P3/8/8/8/8/8/R3K2R w KQ - bm e8=Q+ O-O; am Ra8#;", 3)
            .expect("parses")
            .expect("record");
        let bm: Vec<String> = r.bm.iter().map(uci).collect();
        assert_eq!(bm, vec!["e7e8q", "e1g1"]);
        assert_eq!(r.am.iter().map(uci).collect::<Vec<_>>(), vec!["a1a8"]);
        assert!(!solves(&r, &r.am[0]));
        let zero = parse_line("6k1/8/8/8/8/8/8/R3K2R w KQ - bm 0-0-0;", 4)
            .expect("parses")
            .expect("record");
        assert_eq!(uci(&zero.bm[0]), "e1c1");
    }

    #[test]
    fn parses_sts_points() {
        let line = r#"1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id "STS(v1.0) Undermine.001"; c0 "f5=100, Bf2=46, Bg4=23, fxg5=22, Bg7=19, Kh1=10, Be3=5, b3=1, h3=1, h4=1";"#;
        let r = parse_line(line, 1).expect("parses").expect("record");
        assert_eq!(r.points.len(), 10);
        assert_eq!(
            (uci(&r.points[0].0), r.points[0].1),
            ("f4f5".to_string(), 100)
        );
    }

    #[test]
    fn reports_illegal_moves_and_bad_fens_with_the_line() {
        let e = parse_line("8/8/8/8/8/8/8/K1k5 w - - bm Qh8;", 7).expect_err("illegal");
        assert!(e.to_string().starts_with("line 7: bm Qh8"), "{e}");
        assert!(parse_line("garbage", 2).is_err());
        assert!(matches!(parse_line("   ", 3), Ok(None)));
        assert!(matches!(parse_line("# a comment", 4), Ok(None)));
    }
}
