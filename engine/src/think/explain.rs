//! Explanations of a move in words: which game the deciding case came from, how similar it is,
//! how the cases voted and what the search said of their proposals. One writer for every
//! front end: UCI sends each line as `info string …`, `precedent go` prints them.

use crate::position::san;
use crate::reuse::{CaseRef, Decision};
use crate::revise::{Revised, describe_value};
use crate::think::config::{LevelFrom, PlayedLevel, Style};
use crate::think::{Book, DecidedBy, Judgement, Thought};

/// The explanation of a move, a line each.
pub fn explain(t: &Thought) -> Vec<String> {
    let level = t.level.as_deref();
    match &t.by {
        DecidedBy::Model {
            judgement: j,
            style,
        } => judgement(t, j, *style, level),
        DecidedBy::Search {
            revised: r,
            model,
            book,
        } => {
            let mut lines: Vec<String> = level.map(level_line).into_iter().collect();
            match book {
                Some(b) => lines.push(book_line(t, b)),
                None => {
                    lines.extend(model.as_deref().map(proposals));
                    lines.extend(decision(&t.decision));
                }
            }
            lines.extend(revision(r));
            lines
        }
        DecidedBy::Cases => decision(&t.decision),
    }
}

/// What the player's own games said of the move chosen, in one line.
fn player_line(j: &Judgement, p: &crate::think::PlayerJudgement, chosen: &str) -> String {
    let e = &p.evidence;
    let generic = p.generic.get(j.chosen).copied().unwrap_or(0.0);
    let here = e.played.get(j.chosen).copied().unwrap_or(0);
    let book = if e.seen == 0 {
        "never in this position".to_string()
    } else {
        format!(
            "played {chosen} in {here} of their {} games in this position",
            e.seen
        )
    };
    format!(
        "player: {book}; the generic model gave {chosen} {:.0}%, with their games {:.0}%",
        generic * 100.0,
        j.probabilities[j.chosen] * 100.0
    )
}

/// The player's own move in a position of their repertoire, in one line.
fn book_line(t: &Thought, b: &Book) -> String {
    let pos = &b.position;
    let here = b
        .played
        .iter()
        .find(|(m, _)| *m == t.mv)
        .map_or(0, |(_, n)| *n);
    let others: Vec<String> = b
        .played
        .iter()
        .filter(|(m, _)| *m != t.mv)
        .take(3)
        .map(|(m, n)| format!("{} {n}", san(pos, *m)))
        .collect();
    let others = match others.is_empty() {
        true => String::new(),
        false => format!(" (also {})", others.join(", ")),
    };
    format!(
        "player: played {} in {here} of their {} games in this position{others}; the search finds it within {} cp of its best",
        san(pos, t.mv),
        b.seen,
        crate::think::BOOK_TOLERANCE
    )
}

/// What the level played at is, in one line.
fn level_line(played: &PlayedLevel) -> String {
    let PlayedLevel {
        level,
        elo,
        from,
        errs,
    } = played;
    let eval = level
        .evaluation
        .map_or(String::new(), |e| format!(", {e} evaluation"));
    let among = level.people.map_or(String::new(), |p| {
        format!("; among people as strong as Lichess rapid {p}")
    });
    let mut head = match from {
        LevelFrom::Setting => format!("level {} (UCI_Elo {elo}{among})", level.elo),
        LevelFrom::Player(strength) => {
            format!("level {} (the player's {strength}{among})", level.elo)
        }
    };
    if (errs - 1.0).abs() > 1e-9 {
        head.push_str(&format!(
            " erring {errs} times as calibrated, as often as the player (PlayerErrors)"
        ));
    }
    let depth = level
        .depth
        .map_or(String::new(), |d| format!(", search depth {d}"));
    let tolerance = level.tolerance.map_or(String::new(), |t| {
        format!(
            " within {} of the best",
            describe_value(t).trim_start_matches('+')
        )
    });
    if level.style == Style::Best {
        let how = match level.tolerance.filter(|t| *t > 0) {
            Some(_) => format!("the cases' best-voted move{tolerance}"),
            None => "the search's best move, the cases breaking ties".to_string(),
        };
        return format!(
            "{head}: the best style ({how}), measured on movers rated {}-{}{depth}{eval}",
            level.min_rating, level.max_rating
        );
    }
    let errs = match level.errors {
        Some(e) => {
            let pawns = |cp: u32| {
                describe_value(i32::try_from(cp).unwrap_or(i32::MAX))
                    .trim_start_matches('+')
                    .to_string()
            };
            let hidden = e.hidden.map_or(String::new(), |h| {
                format!(" and under {} after two plies", pawns(h))
            });
            format!(
                "errors (a loss of {} by the search{hidden}) played when at least {} times as probable as the likeliest sound move",
                pawns(e.loss),
                e.ratio
            )
        }
        None if level.style == Style::Imitate => "its most probable move".to_string(),
        None if level.style == Style::Natural => match level.tolerance.filter(|t| *t > 0) {
            Some(_) => format!(
                "its likeliest move{tolerance} by the best style's search (more where the position is decided)"
            ),
            None => "its likeliest move of those the best style's search rates best".to_string(),
        },
        None => format!("temperature {:.2}", level.temperature),
    };
    // Whose model, and the shared network it reads (a level declining it reads none).
    let read = format!("read at rating {:.0}", level.network_rating());
    let model = match (level.plays_default_model(), level.plays_shared_network()) {
        (true, true) => format!("the default style's move model {read}"),
        (true, false) => "the default style's move model without its network".to_string(),
        (false, true) => format!(
            "the move model of movers rated {}-{} with the levels' network {read}",
            level.min_rating, level.max_rating
        ),
        (false, false) => format!(
            "the move model of movers rated {}-{}",
            level.min_rating, level.max_rating
        ),
    };
    format!(
        "{head}: {model}, {errs}, search weight {:.2}{depth}{eval}",
        level.search_weight
    )
}

/// Lines explaining the move model's choice: the probabilities, what the case base and the
/// search each said of the move, and the precedent game.
fn judgement(t: &Thought, j: &Judgement, style: Style, level: Option<&PlayedLevel>) -> Vec<String> {
    let pos = &j.position;
    let mut out = Vec::new();
    let ranked = j.ranked();
    let others: Vec<String> = ranked
        .iter()
        .filter(|(i, _)| *i != j.chosen)
        .take(3)
        .map(|(i, p)| format!("{} {:.0}%", san(pos, j.evidence.moves[*i]), p * 100.0))
        .collect();
    let chosen = san(pos, t.mv);
    let how = match (style, j.erred) {
        (Style::Human, Some(true)) => {
            "the model's likeliest error, tempting enough by the errors rule"
        }
        (Style::Human, Some(false)) => "the model's most probable sound move",
        (Style::Human, None) => "drawn from the model's probabilities",
        _ => "the model's most probable move",
    };
    out.push(format!(
        "model ({style}): {chosen} {:.0}%, {how}; then {}",
        j.probabilities[j.chosen] * 100.0,
        others.join(", ")
    ));
    if let Some(level) = level {
        out.push(level_line(level));
    }
    if let Some(p) = &j.player {
        out.push(player_line(j, p, &chosen));
    }
    let parts = j.contributions(j.chosen);
    let (cases, moves, search) = (parts.cases, parts.moves, parts.search);
    let x = &j.evidence.features[j.chosen];
    let exact = if x[crate::model::EXACT_FEATURE] != 0.0 {
        ", played in this exact position before"
    } else {
        ""
    };
    out.push(format!(
        "cases: {cases:+.2} for {chosen} against an average legal move (patterns and policy of this case base's players, the nearest cases' vote{exact})"
    ));
    out.push(format!(
        "move: {moves:+.2} for {chosen} (what it takes, checks and where it goes, and the network that weighs every feature against the others)"
    ));
    match j.value(j.chosen) {
        Some((v, exact)) => {
            let depth = j.search.as_ref().map_or(0, |r| r.depth);
            let best = j.search.as_ref().map(|r| &r.best);
            let best_text = best
                .filter(|b| b.mv != t.mv)
                .map(|b| format!("; best {} {}", san(pos, b.mv), describe_value(b.value)))
                .unwrap_or_else(|| "; the search's best".to_string());
            out.push(format!(
                "search: {search:+.2} for {chosen}: {}{} at depth {depth}{best_text}",
                if exact { "" } else { "at most " },
                describe_value(v)
            ));
        }
        None => out.push("search: no iteration completed in time".to_string()),
    }
    let d = &t.decision;
    let precedent = d
        .cases
        .iter()
        .find(|c| c.adapted == t.bestmove)
        .or(d.cases.first());
    if let Some(c) = precedent {
        out.extend(case_lines(c));
    }
    out.push(format!(
        "scanned {} of {} cases{} in {} ms",
        d.scanned,
        d.total,
        ruled_out(d.pruned, d.lists),
        d.elapsed.as_millis()
    ));
    out
}

/// Where a case comes from and how it relates to the position.
fn case_lines(c: &CaseRef) -> Vec<String> {
    let g = &c.game;
    let elo = |e: Option<u16>| e.map(|e| format!(" ({e})")).unwrap_or_default();
    let site = if g.site.starts_with("http") {
        format!(" {}", g.site)
    } else {
        String::new()
    };
    vec![
        format!(
            "case: {}{} vs {}{}, {}, move {}, {} to move{site}",
            g.white,
            elo(g.white_elo),
            g.black,
            elo(g.black_elo),
            g.year().unwrap_or("?"),
            c.move_number(),
            c.mover
        ),
        format!(
            "similarity {:.3} ({}/256){}: the case played {}, adapted here to {}",
            c.similarity,
            c.score256,
            if c.exact { ", exact match" } else { "" },
            c.case_move,
            c.adapted
        ),
    ]
}

/// Lines explaining the verifier's verdicts.
fn revision(r: &Revised) -> Vec<String> {
    let mut out: Vec<String> = r
        .verdicts
        .iter()
        .map(|v| format!("revise: {}", v.why))
        .collect();
    if r.refuted_all {
        out.push(format!(
            "revise: every case move was refuted; playing the search's own move {} ({})",
            r.search_best,
            describe_value(r.search_value)
        ));
    }
    out.push(format!(
        "revise: depth {}, {} nodes, {:.0} ms",
        r.depth, r.nodes, r.elapsed_ms
    ));
    out
}

/// Lines explaining the cases' decision.
fn decision(d: &Decision) -> Vec<String> {
    let mut out = Vec::new();
    if d.fallback {
        out.push("the case base is empty: playing the first legal move".to_string());
        return out;
    }
    if let Some(why) = d.not_consulted {
        out.push(format!(
            "cases: not consulted ({why}: they could not change the move)"
        ));
        return out;
    }
    let Some(w) = d.winner() else { return out };
    if let Some(c) = d.cases.get(w.best_case) {
        out.extend(case_lines(c));
    }
    let expected = w
        .expected
        .map(|e| format!(", mover scored {:.0}% in those games", e * 100.0))
        .unwrap_or_default();
    out.push(format!(
        "vote: {} {:.0}% of {} cases ({} for it){expected}",
        w.uci,
        w.share * 100.0,
        d.cases.len(),
        w.cases
    ));
    out.push(format!(
        "scanned {} of {} cases{} in {} ms; {} tied at the top similarity",
        d.scanned,
        d.total,
        ruled_out(d.pruned, d.lists),
        d.elapsed.as_millis(),
        d.ties
    ));
    out
}

/// How the scan was cut short: " (approximate: N lists)" when it probed lists, " (N ruled out
/// by their material)" when a bounded retrieval skipped cases, else nothing.
fn ruled_out(pruned: u64, lists: u64) -> String {
    if lists > 0 {
        format!(" (approximate: {lists} lists)")
    } else if pruned == 0 {
        String::new()
    } else {
        format!(" ({pruned} ruled out by their material)")
    }
}

/// The move model's proposals to the search (the `natural` style), likeliest first.
fn proposals(j: &Judgement) -> String {
    let moves: Vec<String> = j
        .ranked()
        .iter()
        .take(4)
        .map(|(i, p)| {
            format!(
                "{} {:.0}%",
                san(&j.position, j.evidence.moves[*i]),
                p * 100.0
            )
        })
        .collect();
    format!(
        "model (natural): proposes {}, the likeliest first, for the search to vet",
        moves.join(", ")
    )
}

/// The move and how it was decided, as one JSON object (`precedent go --json`).
pub fn to_json(t: &Thought) -> serde_json::Value {
    let d = &t.decision;
    let uci = |m: shakmaty::Move| m.to_uci(shakmaty::CastlingMode::Standard).to_string();
    serde_json::json!({
        "bestmove": t.bestmove,
        "score": t.score,
        "retrieved_move": d.bestmove,
        "score256": d.score256,
        "similarity": f64::from(d.score256) / 256.0,
        "case": d.top_case(),
        "ties": d.ties,
        "scanned": d.scanned,
        "lists": d.lists,
        "pruned": d.pruned,
        "total": d.total,
        "elapsed_ms": t.elapsed.as_secs_f64() * 1e3,
        "retrieval_ms": d.elapsed.as_secs_f64() * 1e3,
        "seed": d.seed,
        "fallback": d.fallback,
        "vote_share": d.winner().map(|w| w.share),
        "candidates": d.candidates,
        "revise": match &t.by {
            DecidedBy::Search { revised, .. } => Some(revised),
            _ => None,
        },
        "decided_by": t.by.label(),
        "model": t.by.judgement().map(|j| {
            j.ranked()
                .into_iter()
                .map(|(i, p)| {
                    let parts = j.contributions(i);
                    serde_json::json!({
                        "move": uci(j.evidence.moves[i]),
                        "probability": p,
                        "cases": parts.cases,
                        "moves": parts.moves,
                        "search": parts.search,
                        "value": j.value(i).map(|v| v.0),
                    })
                })
                .collect::<Vec<_>>()
        }),
    })
}

/// The move and how it was decided, a line each (`precedent go`): the explanation, the cases'
/// votes and the model's most probable moves (`show` of each), and the score.
pub fn report(t: &Thought, show: usize) -> Vec<String> {
    let uci = |m: shakmaty::Move| m.to_uci(shakmaty::CastlingMode::Standard).to_string();
    let mut out = vec![format!("bestmove {}", t.bestmove)];
    out.extend(explain(t));
    if !t.decision.candidates.is_empty() {
        out.push("votes:".to_string());
    }
    for c in t.decision.candidates.iter().take(show) {
        let exp = c
            .expected
            .map(|e| format!(", mover scored {:.0}%", e * 100.0))
            .unwrap_or_default();
        out.push(format!(
            "  {:<6} {:>5.1}%  ({} case(s){exp})",
            c.uci,
            c.share * 100.0,
            c.cases
        ));
    }
    if let Some(j) = t.by.judgement() {
        out.push("model:".to_string());
        for (i, p) in j.ranked().into_iter().take(show) {
            let parts = j.contributions(i);
            let (cases, moves, search) = (parts.cases, parts.moves, parts.search);
            let value = j.value(i).map_or("-".to_string(), |(v, e)| {
                format!("{}{}", if e { "" } else { "≤ " }, describe_value(v))
            });
            out.push(format!(
                "  {:<6} {:>5.1}%  cases {cases:+.2}  move {moves:+.2}  search {search:+.2} ({value})",
                uci(j.evidence.moves[i]),
                p * 100.0
            ));
        }
    }
    out.push(match &t.by {
        DecidedBy::Search { revised: r, .. } => {
            format!("score {}  pv {}", t.score.uci(), r.pv_uci.join(" "))
        }
        DecidedBy::Model { judgement: j, .. } => {
            let pv: Vec<String> = j.pv(j.chosen).into_iter().map(uci).collect();
            format!("score {}  pv {}", t.score.uci(), pv.join(" "))
        }
        DecidedBy::Cases => format!(
            "score {} (the cases' expected result; revise off)",
            t.score.uci()
        ),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::level_line;
    use crate::think::config::{EngineConfig, LevelFrom, PlayedLevel};

    /// The line of the one level of a parameter file made of `level`.
    fn line_of(level: &str) -> String {
        let cfg = EngineConfig::parse(level, "p.toml").expect("a level");
        level_line(&PlayedLevel {
            level: cfg.levels[0].clone(),
            elo: 1400,
            from: LevelFrom::Setting,
            errs: 1.0,
        })
    }

    /// A level's line says whose model it plays and at which rating it reads a shared network,
    /// or that it reads none.
    #[test]
    fn a_level_line_names_the_model_and_the_rating_of_the_network_it_reads() {
        let level = "[[levels]]\nelo = 1400\nmin_rating = 1400\nmax_rating = 1599\n\
                     temperature = 0.1\n";
        // A band's own linear weights: every feature named, as a parameter file must.
        let weights: String = crate::model::FEATURES
            .iter()
            .map(|f| format!("{f} = 0.1\n"))
            .collect();
        let weights = format!("[levels.model.weights]\n{weights}");
        let cases = [
            (
                String::new(),
                "the default style's move model read at rating 1500,",
            ),
            (
                "rating = 1585\n".to_string(),
                "the default style's move model read at rating 1585,",
            ),
            (
                "share_network = false\n".to_string(),
                "the default style's move model without its network,",
            ),
            (
                weights.clone(),
                "the move model of movers rated 1400-1599 with the levels' network read at rating 1500,",
            ),
            (
                format!("share_network = false\n{weights}"),
                "the move model of movers rated 1400-1599, temperature",
            ),
        ];
        for (extra, says) in cases {
            let line = line_of(&format!("{level}{extra}"));
            assert!(
                line.starts_with("level 1400 (UCI_Elo 1400): ") && line.contains(says),
                "{extra:?}: {line}"
            );
        }
        // Measured among people, it says how strong it is there.
        let line = line_of(&format!("{level}people = 1737\n"));
        assert!(
            line.starts_with(
                "level 1400 (UCI_Elo 1400; among people as strong as Lichess rapid 1737): "
            ),
            "{line}"
        );
    }
}
