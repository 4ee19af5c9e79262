//! Explanations of a move in words: which game the deciding case came from, how similar it is,
//! how the cases voted and what the search said of their proposals. One writer for every
//! front end: UCI sends each line as `info string …`, `precedent go` prints them.

use crate::adapt::reuse::Decision;
use crate::engine::Thought;
use crate::revise::{Revised, describe_value};

/// The explanation of a move, a line each.
pub fn explain(t: &Thought) -> Vec<String> {
    let mut lines = decision(&t.decision);
    if let Some(r) = &t.revised {
        lines.extend(revision(r));
    }
    lines
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
    let Some(w) = d.winner() else { return out };
    if let Some(c) = d.cases.get(w.best_case) {
        let g = &c.game;
        let elo = |e: Option<u16>| e.map(|e| format!(" ({e})")).unwrap_or_default();
        let year = g
            .date
            .get(..4)
            .filter(|y| y.bytes().all(|b| b.is_ascii_digit()))
            .unwrap_or("?");
        let site = if g.site.starts_with("http") {
            format!(" {}", g.site)
        } else {
            String::new()
        };
        out.push(format!(
            "case: {}{} vs {}{}, {year}, move {}, {} to move{site}",
            g.white,
            elo(g.white_elo),
            g.black,
            elo(g.black_elo),
            c.move_number(),
            c.mover
        ));
        out.push(format!(
            "similarity {:.3} ({}/256){}: the case played {}, adapted here to {}",
            c.similarity,
            c.score256,
            if c.exact { ", exact match" } else { "" },
            c.case_move,
            c.adapted
        ));
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
        "scanned {} of {} cases in {} ms; {} tied at the top similarity",
        d.scanned,
        d.total,
        d.elapsed.as_millis(),
        d.ties
    ));
    out
}
