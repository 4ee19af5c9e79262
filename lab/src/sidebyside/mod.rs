//! Side by side: runs of `eval --outcomes` on the same positions (Precedent's styles and
//! levels, Maia-1 through lc0, any UCI engine), each with its move-matching, its paired
//! difference from the first run, and the judge's blunders when the runs were judged; the
//! humans' blunders beside them; and a chart of matching against blunders.

mod run;

pub use run::{SideArgs, run};

use std::fmt;
use std::path::PathBuf;

use plotters::prelude::*;
use precedent::position::{parse_fen, ply_of};
use serde::Serialize;
use shakmaty::{Move, Position, Role};

use crate::eval::{BLUNDER_CP, Comparison, EvalError, OutcomeLine, loss_stats, pair};
use crate::fit::moves::parse_move;
use crate::stats::{paired_delta, wilson};

/// How `--by` splits the positions: by what the humans faced and played.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Plies before the position: before 20, 20–39, 40–59, from 60.
    Phase,
    /// The human's move: a capture, a check (not capturing), castling, or quiet.
    Kind,
    /// The piece the human moved.
    Piece,
    /// The judge's verdict on the human's move: sound, or a blunder (a loss of
    /// [`BLUNDER_CP`] or more).
    Human,
}

impl Split {
    /// Its groups, in the order shown.
    fn groups(self) -> &'static [&'static str] {
        match self {
            Split::Phase => &["before ply 20", "plies 20-39", "plies 40-59", "from ply 60"],
            Split::Kind => &["capture", "check", "castle", "quiet"],
            Split::Piece => &["pawn", "knight", "bishop", "rook", "queen", "king"],
            Split::Human => &["sound", "blunder"],
        }
    }

    /// What it splits by, as the report says it.
    fn title(self) -> &'static str {
        match self {
            Split::Phase => "the game's phase",
            Split::Kind => "the kind of the human's move",
            Split::Piece => "the piece the human moved",
            Split::Human => "the judge's verdict on the human's move",
        }
    }

    /// The index of the group of a position (`pos`, before the human's move `human`, which
    /// lost `human_loss` centipawns by the judge).
    fn group(self, pos: &shakmaty::Chess, human: &Move, human_loss: i32) -> usize {
        match self {
            Split::Phase => (ply_of(pos) / 20).min(3) as usize,
            Split::Kind => {
                if human.is_capture() {
                    0
                } else if pos.clone().play(*human).is_ok_and(|after| after.is_check()) {
                    1
                } else if human.is_castle() {
                    2
                } else {
                    3
                }
            }
            Split::Piece => match human.role() {
                Role::Pawn => 0,
                Role::Knight => 1,
                Role::Bishop => 2,
                Role::Rook => 3,
                Role::Queen => 4,
                Role::King => 5,
            },
            Split::Human => usize::from(human_loss >= BLUNDER_CP),
        }
    }
}

/// One group of a split: its positions and every run's matching on them.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// Positions in it.
    pub positions: u64,
    /// Every run's matching on them (0..=1), in the runs' order.
    pub matching: Vec<f64>,
    /// Every run's paired difference from the first on them, with its 95 % interval (none for
    /// the first).
    pub paired: Vec<Option<(f64, f64, f64)>>,
}

/// The positions split one way.
#[derive(Clone, Debug, Serialize)]
pub struct Breakdown {
    /// How.
    pub by: Split,
    /// The groups that hold positions, in order.
    pub groups: Vec<Group>,
}

/// The judge's losses of the humans' moves, from the first run judged on every position (the
/// runs are on the same positions, so any judged run has the same ones); `None` if none is.
fn humans_losses(runs: &[(String, PathBuf, Vec<OutcomeLine>)]) -> Option<Vec<i32>> {
    runs.iter()
        .map(|(_, _, lines)| lines)
        .find(|lines| lines.iter().all(|l| l.human_loss.is_some()))
        .map(|lines| lines.iter().filter_map(|l| l.human_loss).collect())
}

/// The runs' matching split each way of `by` (the runs are on the same positions, checked
/// before); an error names a position whose FEN or human move cannot be read.
fn breakdowns(
    runs: &[(String, PathBuf, Vec<OutcomeLine>)],
    by: &[Split],
) -> Result<Vec<Breakdown>, EvalError> {
    let Some((_, path, first)) = runs.first() else {
        return Ok(Vec::new());
    };
    if by.is_empty() {
        return Ok(Vec::new());
    }
    let mut read = Vec::with_capacity(first.len());
    for (i, l) in first.iter().enumerate() {
        let bad = |what: &str| {
            EvalError::Other(format!(
                "{} line {}: {what} cannot be read: {} {}",
                path.display(),
                i + 1,
                l.fen,
                l.human
            ))
        };
        let pos = parse_fen(&l.fen).map_err(|_| bad("the FEN"))?;
        let human = parse_move(&pos, &l.human).ok_or_else(|| bad("the human's move"))?;
        read.push((pos, human));
    }
    let human_losses = humans_losses(runs);
    if by.contains(&Split::Human) && human_losses.is_none() {
        return Err(EvalError::Other(
            "--by human needs a run judged on every position (eval --judge)".to_string(),
        ));
    }
    let mut out = Vec::new();
    for &split in by {
        let keys: Vec<usize> = read
            .iter()
            .enumerate()
            .map(|(i, (p, m))| {
                let loss = human_losses.as_ref().map_or(0, |l| l[i]);
                split.group(p, m, loss)
            })
            .collect();
        let mut groups = Vec::new();
        for (g, name) in split.groups().iter().enumerate() {
            let members: Vec<usize> = (0..keys.len()).filter(|&i| keys[i] == g).collect();
            if members.is_empty() {
                continue;
            }
            let hits = |lines: &[OutcomeLine]| -> Vec<bool> {
                members.iter().map(|&i| lines[i].matched).collect()
            };
            let reference = hits(first);
            let n = members.len();
            let mut matching = Vec::new();
            let mut paired = Vec::new();
            for (r, (_, _, lines)) in runs.iter().enumerate() {
                let own = hits(lines);
                matching.push(own.iter().filter(|h| **h).count() as f64 / n as f64);
                paired.push((r > 0).then(|| paired_delta(&own, &reference)));
            }
            groups.push(Group {
                name: (*name).to_string(),
                positions: n as u64,
                matching,
                paired,
            });
        }
        out.push(Breakdown { by: split, groups });
    }
    Ok(out)
}

/// One run's figures.
#[derive(Clone, Debug, Serialize)]
pub struct RunRow {
    /// Its label.
    pub label: String,
    /// Positions.
    pub positions: u64,
    /// Positions where it played the human's move.
    pub matches: u64,
    /// `matches / positions`, with its 95 % Wilson interval (0..=1).
    pub matching: (f64, f64, f64),
    /// Its difference from the first run on the same positions (none for the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Comparison>,
    /// The judge's verdict on its moves, when judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged: Option<Quality>,
}

/// Move quality by the judge: blunders (a loss of [`crate::eval::BLUNDER_CP`] or more) with their 95 %
/// Wilson interval, and the mean loss.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Quality {
    /// Moves judged.
    pub judged: u64,
    /// Share of blunders, with its interval (0..=1).
    pub blunders: (f64, f64, f64),
    /// Mean loss, centipawns.
    pub mean_loss: f64,
}

impl Quality {
    /// The quality of `losses`; `None` when there are none.
    fn of(losses: impl Iterator<Item = i32>) -> Option<Quality> {
        let losses: Vec<i32> = losses.collect();
        let (mean_loss, share, k) = loss_stats(&losses)?;
        let (lo, hi) = wilson(k, losses.len() as u64);
        Some(Quality {
            judged: losses.len() as u64,
            blunders: (share, lo, hi),
            mean_loss,
        })
    }
}

/// The runs side by side.
#[derive(Clone, Debug, Serialize)]
pub struct SideBySide {
    /// Each run, in the order given.
    pub runs: Vec<RunRow>,
    /// The humans' moves as the judge saw them (from the first run that judged them all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub humans: Option<Quality>,
    /// The positions split by `--by`, each way.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breakdowns: Vec<Breakdown>,
    /// The chart written, if asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
}

/// The figures of runs (label, file, lines), the first the reference; an error when a run is
/// not on the first's positions.
pub fn side_by_side(runs: &[(String, PathBuf, Vec<OutcomeLine>)]) -> Result<SideBySide, EvalError> {
    let Some((_, first_path, first)) = runs.first() else {
        return Err(EvalError::Other("side by side: no runs".into()));
    };
    let mut rows = Vec::new();
    for (i, (label, path, lines)) in runs.iter().enumerate() {
        let paired = if i == 0 {
            None
        } else {
            let name = runs[0].0.clone();
            let c = pair(&name, lines, first).map_err(|e| {
                EvalError::Other(format!(
                    "{} against {}: {e}",
                    path.display(),
                    first_path.display()
                ))
            })?;
            Some(c)
        };
        let n = lines.len() as u64;
        let k = lines.iter().filter(|l| l.matched).count() as u64;
        let (lo, hi) = wilson(k, n);
        let judged = if lines.iter().all(|l| l.played.is_none() || l.loss.is_some()) {
            Quality::of(lines.iter().filter_map(|l| l.loss))
        } else {
            None
        };
        rows.push(RunRow {
            label: label.clone(),
            positions: n,
            matches: k,
            matching: (k as f64 / n as f64, lo, hi),
            paired,
            judged,
        });
    }
    let humans = humans_losses(runs).and_then(|l| Quality::of(l.into_iter()));
    Ok(SideBySide {
        runs: rows,
        humans,
        breakdowns: Vec::new(),
        chart: None,
    })
}

impl fmt::Display for SideBySide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |x: f64| x * 100.0;
        let width = self
            .runs
            .iter()
            .map(|r| r.label.len())
            .max()
            .unwrap_or(0)
            .max(6);
        writeln!(
            f,
            "{:width$}  {:>22}  {:>24}  {:>21}  {:>9}",
            "run", "matching (95% CI)", "paired Δ (95% CI)", "blunders (95% CI)", "mean loss"
        )?;
        let quality = |q: Option<Quality>| match q {
            Some(q) => (
                format!(
                    "{:.1}% ({:.1}–{:.1})",
                    pct(q.blunders.0),
                    pct(q.blunders.1),
                    pct(q.blunders.2)
                ),
                format!("{:.0} cp", q.mean_loss),
            ),
            None => ("–".into(), "–".into()),
        };
        for r in &self.runs {
            let (m, lo, hi) = r.matching;
            let matching = format!("{:.1}% ({:.1}–{:.1})", pct(m), pct(lo), pct(hi));
            let paired = r.paired.as_ref().map_or_else(
                || "(reference)".to_string(),
                |c| {
                    format!(
                        "{:+.1} ({:+.1}..{:+.1})",
                        pct(c.delta),
                        pct(c.delta_ci_low),
                        pct(c.delta_ci_high)
                    )
                },
            );
            let (blunders, loss) = quality(r.judged);
            writeln!(
                f,
                "{:width$}  {matching:>22}  {paired:>24}  {blunders:>21}  {loss:>9}",
                r.label
            )?;
        }
        if self.humans.is_some() {
            let (blunders, loss) = quality(self.humans);
            writeln!(
                f,
                "{:width$}  {:>22}  {:>24}  {blunders:>21}  {loss:>9}",
                "humans", "–", "–"
            )?;
        }
        let n = self.runs.first().map_or(0, |r| r.positions);
        writeln!(f, "{n} positions, the same in every run")?;
        for b in &self.breakdowns {
            writeln!(
                f,
                "by {} (matching; paired Δ from {}):",
                b.by.title(),
                self.runs[0].label
            )?;
            for g in &b.groups {
                let cells: Vec<String> = g
                    .matching
                    .iter()
                    .zip(&g.paired)
                    .zip(&self.runs)
                    .map(|((m, p), r)| match p {
                        None => format!("{} {:.1}%", r.label, pct(*m)),
                        Some((d, lo, hi)) => format!(
                            "{} {:.1}% {:+.1} ({:+.1}..{:+.1})",
                            r.label,
                            pct(*m),
                            pct(*d),
                            pct(*lo),
                            pct(*hi)
                        ),
                    })
                    .collect();
                writeln!(
                    f,
                    "  {:14} {:>5}  {}",
                    g.name,
                    g.positions,
                    cells.join("; ")
                )?;
            }
        }
        if let Some(path) = &self.chart {
            writeln!(f, "chart: {path}")?;
        }
        Ok(())
    }
}

/// The runs as points, blunders (x) against matching (y), each with its matching interval; the
/// humans' blunders as a vertical line. Only judged runs are drawn.
pub fn chart(s: &SideBySide, title: &str) -> Result<String, String> {
    let pct = |x: f64| x * 100.0;
    let points: Vec<(&str, f64, f64, f64, f64)> = s
        .runs
        .iter()
        .filter_map(|r| {
            let q = r.judged?;
            let (m, lo, hi) = r.matching;
            Some((
                r.label.as_str(),
                pct(q.blunders.0),
                pct(m),
                pct(lo),
                pct(hi),
            ))
        })
        .collect();
    if points.is_empty() {
        return Err("no judged run to chart (run eval with --judge)".into());
    }
    let human = s.humans.map(|q| pct(q.blunders.0));
    let xs = points.iter().map(|p| p.1).chain(human);
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (x0, x1) = ((x0 - 1.0).max(0.0), x1 + 1.0);
    let y0 = points.iter().map(|p| p.3).fold(f64::MAX, f64::min) - 1.0;
    let y1 = points.iter().map(|p| p.4).fold(f64::MIN, f64::max) + 1.0;
    let mut svg = String::new();
    {
        let err = |e: &dyn fmt::Display| format!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut svg, (720, 460)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("blunders (%; loss of 200 cp or more by the judge)")
            .y_desc("move-matching (%; 95 % interval)")
            .draw()
            .map_err(|e| err(&e))?;
        if let Some(h) = human {
            let green = RGBColor(0x2a, 0x9d, 0x3f);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(h, y0), (h, y1)],
                    green.stroke_width(2),
                )))
                .map_err(|e| err(&e))?
                .label("the humans' blunders")
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], green));
        }
        const COLOURS: [(u8, u8, u8); 6] = [
            (0xd6, 0x27, 0x28),
            (0x1f, 0x77, 0xb4),
            (0x00, 0x00, 0x00),
            (0xff, 0x7f, 0x0e),
            (0x94, 0x67, 0xbd),
            (0x8c, 0x56, 0x4b),
        ];
        for (i, (label, x, y, lo, hi)) in points.iter().enumerate() {
            let (r, g, b) = COLOURS[i % COLOURS.len()];
            let color = RGBColor(r, g, b);
            chart
                .draw_series([PathElement::new(
                    vec![(*x, *lo), (*x, *hi)],
                    color.stroke_width(2),
                )])
                .map_err(|e| err(&e))?;
            chart
                .draw_series([Circle::new((*x, *y), 5, color.filled())])
                .map_err(|e| err(&e))?
                .label(label.to_string())
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 11))
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(fen: &str, matched: bool, loss: Option<i32>, human_loss: Option<i32>) -> OutcomeLine {
        OutcomeLine {
            fen: fen.into(),
            human: "e2e4".into(),
            played: Some(if matched { "e2e4" } else { "d2d4" }.into()),
            matched,
            probability: None,
            rank: None,
            loss,
            human_loss,
            value: None,
            elo: None,
            ply: None,
        }
    }

    fn runs() -> Vec<(String, PathBuf, Vec<OutcomeLine>)> {
        let fens = ["a", "b", "c", "d"];
        let maia = fens
            .iter()
            .enumerate()
            .map(|(i, f)| line(f, i < 2, Some(if i == 3 { 250 } else { 0 }), Some(300)))
            .collect();
        let ours = fens
            .iter()
            .enumerate()
            .map(|(i, f)| line(f, i < 3, Some(0), Some(300)))
            .collect();
        vec![
            ("maia".into(), "m.jsonl".into(), maia),
            ("ours".into(), "o.jsonl".into(), ours),
        ]
    }

    #[test]
    fn runs_are_paired_against_the_first_and_judged() {
        let s = side_by_side(&runs()).expect("same positions");
        assert_eq!(s.runs[0].matches, 2);
        assert_eq!(s.runs[1].matches, 3);
        let c = s.runs[1].paired.as_ref().expect("paired");
        assert!((c.delta - 0.25).abs() < 1e-12, "{}", c.delta);
        assert_eq!((c.own_only, c.other_only), (1, 0));
        let maia = s.runs[0].judged.expect("judged");
        assert_eq!(maia.blunders.0, 0.25);
        assert_eq!(s.runs[1].judged.expect("judged").blunders.0, 0.0);
        assert_eq!(s.humans.expect("humans").blunders.0, 1.0);
        let text = s.to_string();
        assert!(
            text.contains("(reference)") && text.contains("+25.0"),
            "{text}"
        );
        let svg = chart(&s, "a & b").expect("chart");
        assert!(svg.starts_with("<svg") && svg.contains("a &amp; b"));
        assert_eq!(
            svg.matches("<circle").count(),
            4,
            "two points and two legend marks"
        );
    }

    #[test]
    fn runs_on_other_positions_are_refused_by_name() {
        let mut r = runs();
        r[1].2[2].fen = "z".into();
        let e = side_by_side(&r).expect_err("other positions").to_string();
        assert!(
            e.starts_with("o.jsonl against m.jsonl: maia: position 3"),
            "{e}"
        );
    }

    #[test]
    fn the_positions_split_by_phase_kind_and_piece_keep_the_pairing() {
        // Ply 20 (a quiet knight move, matched by both), ply 0 (a pawn push, matched by the
        // second run only), ply 1 (Black's capture, matched by neither).
        let lines = |second: bool| {
            let mut v = vec![
                line(
                    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 11",
                    true,
                    None,
                    None,
                ),
                line(
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                    second,
                    None,
                    None,
                ),
                line(
                    "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                    false,
                    None,
                    None,
                ),
            ];
            v[0].human = "f1b5".into();
            v[1].human = "e2e4".into();
            v[2].human = "d5e4".into();
            v
        };
        let runs = vec![
            ("a".to_string(), PathBuf::from("a.jsonl"), lines(false)),
            ("b".to_string(), PathBuf::from("b.jsonl"), lines(true)),
        ];
        let b = breakdowns(&runs, &[Split::Phase, Split::Kind, Split::Piece]).expect("split");
        let names = |k: usize| -> Vec<(&str, u64)> {
            b[k].groups
                .iter()
                .map(|g| (g.name.as_str(), g.positions))
                .collect()
        };
        assert_eq!(names(0), [("before ply 20", 2), ("plies 20-39", 1)]);
        assert_eq!(names(1), [("capture", 1), ("quiet", 2)]);
        assert_eq!(names(2), [("pawn", 2), ("bishop", 1)]);
        let early = &b[0].groups[0];
        assert_eq!(early.matching, [0.0, 0.5]);
        assert_eq!(early.paired[0], None);
        assert_eq!(early.paired[1].map(|p| p.0), Some(0.5));
        let mut broken = runs.clone();
        broken[0].2[2].human = "e1e8".into();
        let e = breakdowns(&broken, &[Split::Kind]).expect_err("illegal");
        assert!(
            e.to_string()
                .starts_with("a.jsonl line 3: the human's move"),
            "{e}"
        );
        let s = SideBySide {
            breakdowns: b,
            ..side_by_side(&runs).expect("same positions")
        };
        assert!(
            s.to_string().contains("by the piece the human moved"),
            "{s}"
        );
    }

    #[test]
    fn the_positions_split_by_the_judges_verdict_on_the_humans_move() {
        // The human blundered in the second position only (a loss of exactly the threshold);
        // the judged run is the second, the first has no losses.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let lines = |judged: bool, hits: [bool; 3]| {
            let loss = |cp: i32| judged.then_some(cp);
            let mut v = vec![
                line(fen, hits[0], None, loss(0)),
                line(fen, hits[1], None, loss(BLUNDER_CP)),
                line(fen, hits[2], None, loss(BLUNDER_CP - 1)),
            ];
            for l in &mut v {
                l.human = "e2e4".into();
            }
            v
        };
        let runs = vec![
            (
                "a".to_string(),
                PathBuf::from("a.jsonl"),
                lines(false, [true, false, true]),
            ),
            (
                "b".to_string(),
                PathBuf::from("b.jsonl"),
                lines(true, [true, true, false]),
            ),
        ];
        let b = breakdowns(&runs, &[Split::Human]).expect("split");
        let groups: Vec<(&str, u64, &[f64])> = b[0]
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.positions, g.matching.as_slice()))
            .collect();
        assert_eq!(
            groups,
            [
                ("sound", 2, [1.0, 0.5].as_slice()),
                ("blunder", 1, [0.0, 1.0].as_slice()),
            ]
        );
        // Without a judged run there is nothing to split by.
        let unjudged = vec![runs[0].clone(), runs[0].clone()];
        let e = breakdowns(&unjudged, &[Split::Human]).expect_err("not judged");
        assert!(
            e.to_string().contains("--by human needs a run judged"),
            "{e}"
        );
    }

    #[test]
    fn a_split_of_runs_on_other_positions_is_refused_not_indexed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let long = dir.path().join("long.jsonl");
        let short = dir.path().join("short.jsonl");
        crate::eval::write_outcomes(&long, &vec![line(fen, true, None, None); 2]).expect("write");
        crate::eval::write_outcomes(&short, &[line(fen, true, None, None)]).expect("write");
        let args = SideArgs {
            runs: vec![long.display().to_string(), short.display().to_string()],
            chart: None,
            title: String::new(),
            by: vec![Split::Kind],
        };
        let e = run(&args).expect_err("other positions").to_string();
        assert!(e.contains("not the same sample"), "{e}");
    }
}
