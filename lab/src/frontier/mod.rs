//! `precedent frontier`: how a level's ways to err trade blunders against move-matching.
//!
//! A level must blunder about as often as its players and still match as many of their moves
//! as it can. An `eval --judge` run measures one setting in minutes. The evidence that `fit
//! --save-evidence` gathers (every legal move's features, the search's values among them) is
//! all a setting needs to choose its move, so here a whole family of settings is traced in
//! seconds on the same positions: the level's model at each search weight, playing its most
//! probable move or erring by the errors rule at each ratio, against the default style. With a
//! judge, every move any of them chose (and the human's) is judged as `eval --judge` judges.

mod run;

pub use run::{FrontierArgs, FrontierReport, Hidden, refuse_fixed_settings, run};

use rayon::prelude::*;
use serde::Serialize;
use shakmaty::{Chess, Move};

use crate::Progress;
use crate::client::Limit;
use crate::eval::{BLUNDER_CP, EvalError, judge_moves};
use crate::fit::moves::{BLUNDER_PAWNS, Item};
use crate::stats::{paired_delta, wilson};
use precedent::model::{
    Evidence, FIRST_SEARCH_FEATURE, LOSS_LAST_FEATURE, ModelConfig, N_FEATURES, most_probable,
};
use precedent::think::{EngineConfig, ErringRule, Level, Style, draw_in};

/// How a way to play picks its move from the model's probabilities.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Choice {
    /// The most probable move: the `imitate` style, and a level drawing at a temperature near
    /// 0 (at 0.1 it nearly always plays it).
    MostProbable,
    /// A move drawn with probability ∝ P^(1/temperature), as a level without an errors rule
    /// draws it, seeded by `seed` and the position (as a seeded engine draws).
    Draw {
        /// The temperature.
        temperature: f64,
        /// The seed.
        seed: u64,
    },
    /// The errors rule of a level.
    Rule(ErringRule),
}

/// A way to play: a model (its weights and network, as the engine resolves them) and how the
/// move is picked from its probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// What the report calls it.
    pub name: String,
    /// The level's search weight, when the model is a level's.
    pub search_weight: Option<f64>,
    /// The model, the level's search weight applied and its network at the level's rating.
    pub model: ModelConfig,
    /// How the move is picked.
    pub choice: Choice,
    /// The search's features as a search stopped at this depth (1-4) would have given them
    /// (see [`at_depth`]); `None`: as gathered.
    pub depth: Option<u8>,
}

impl Policy {
    /// The index of the move this way to play chooses among `item`'s moves, as the engine
    /// chooses it from the same evidence.
    pub fn choose(&self, item: &Item) -> usize {
        let e = item.evidence(false).unwrap_or_default();
        self.choose_among(&e, &item.position)
    }

    /// The same with the one-game case base's evidence of the item (the cases ablation), when
    /// it was gathered.
    pub fn choose_one_game(&self, item: &Item) -> Option<usize> {
        Some(self.choose_among(&item.evidence(true)?, &item.position))
    }

    fn choose_among(&self, evidence: &Evidence, position: &Chess) -> usize {
        let shallow;
        let evidence = match self.depth {
            Some(d) => {
                shallow = at_depth(evidence, d);
                &shallow
            }
            None => evidence,
        };
        let p = self.model.probabilities(evidence);
        let features: &[[f64; N_FEATURES]] = &evidence.features;
        match self.choice {
            Choice::MostProbable => most_probable(&p),
            Choice::Draw { temperature, seed } => draw_in(position, &p, temperature, Some(seed)),
            Choice::Rule(rule) => rule.choose_by_evidence(&p, features).0,
        }
    }
}

/// The evidence as a search stopped after `depth` plies (1-4) would have given it: the evidence
/// holds every move's loss after one to four plies, so the losses past `depth` read as the loss
/// there, as the engine reads a depth its search did not reach, and so do the last iteration's
/// loss, its root and hinges, and whether the move was best there. The position's value in the
/// context stays the deepest iteration's (the evidence keeps no other).
pub fn at_depth(evidence: &Evidence, depth: u8) -> Evidence {
    let d = usize::from(depth.clamp(1, 4));
    let s = FIRST_SEARCH_FEATURE;
    let mut out = evidence.clone();
    for x in &mut out.features {
        let loss = |k: usize| x[s + k.min(d) - 1];
        let l = [loss(1), loss(2), loss(3), loss(4)];
        let last = l[d - 1];
        x[s..s + 4].copy_from_slice(&l);
        x[s + 4] = last;
        x[s + 5] = last.sqrt();
        x[s + 6] = (last - 0.5).max(0.0);
        x[s + 7] = (last - 1.5).max(0.0);
        x[s + 9] = f64::from(u8::from(l[1] == 0.0));
        x[s + 10] = f64::from(u8::from(last == 0.0));
    }
    out
}

/// The settings of a level to trace (empty lists: the level's own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Search weights (default: the level's own).
    pub search_weights: Vec<f64>,
    /// Temperatures of draws (default: the level's own when it draws, none when it errs by
    /// the rule).
    pub temperatures: Vec<f64>,
    /// Ratios of the errors rule.
    pub ratios: Vec<f64>,
    /// What the rule counts as an error, centipawns (default: the level's, else 200).
    pub loss: Option<u32>,
    /// Whether the rule plays only errors hidden at two plies: `None` as the level does,
    /// `Some(Some(h))` those under `h` centipawns there, `Some(None)` every error.
    pub hidden: Option<Option<u32>>,
    /// The draws' seed.
    pub seed: u64,
    /// Depths (1-4) at which the level's most probable move is also traced, at every search
    /// weight, its search stopped there ([`at_depth`]).
    pub depths: Vec<u8>,
}

/// The ways to play traced for `cfg`'s level (`cfg.elo`): the default style (`imitate`, with
/// `cfg`'s model) first, then at every search weight the level's most probable move, its draws
/// at every temperature and its errors rule at every ratio, each with the level's model as
/// the engine resolves it at that weight.
pub fn policies(cfg: &EngineConfig, settings: &Settings) -> Result<Vec<Policy>, String> {
    let level = traceable_level(cfg)?;
    let mut out = vec![Policy {
        name: "default style (imitate)".into(),
        search_weight: None,
        model: cfg.model.clone(),
        choice: Choice::MostProbable,
        depth: None,
    }];
    let or_own = |given: &[f64], own: Vec<f64>| {
        if given.is_empty() {
            own
        } else {
            given.to_vec()
        }
    };
    let weights = or_own(&settings.search_weights, vec![level.search_weight]);
    let own_t = if level.errors.is_none() {
        vec![level.temperature]
    } else {
        Vec::new()
    };
    let temperatures = or_own(&settings.temperatures, own_t);
    let rule = |ratio| ErringRule {
        loss: settings
            .loss
            .or(level.errors.map(|e| e.loss))
            .unwrap_or(200),
        ratio,
        hidden: settings
            .hidden
            .unwrap_or(level.errors.and_then(|e| e.hidden)),
    };
    let own_depth = checked_depths(level, settings)?;
    check_values(&weights, &temperatures, &settings.ratios)?;
    for &w in &weights {
        let mut at = cfg.clone();
        for l in at.levels.iter_mut().filter(|l| l.elo == level.elo) {
            l.search_weight = w;
        }
        let model = at.resolved().0.model.clone();
        let policy = |kind: &str, choice| Policy {
            name: format!("level {}, {kind}", level.elo),
            search_weight: Some(w),
            model: model.clone(),
            choice,
            depth: own_depth,
        };
        out.push(policy("most probable", Choice::MostProbable));
        for &d in &settings.depths {
            out.push(Policy {
                depth: Some(d),
                ..policy(&format!("most probable at depth {d}"), Choice::MostProbable)
            });
        }
        for &temperature in &temperatures {
            let seed = settings.seed;
            out.push(policy("drawn", Choice::Draw { temperature, seed }));
        }
        for &ratio in &settings.ratios {
            out.push(policy("errors rule", Choice::Rule(rule(ratio))));
        }
    }
    Ok(out)
}

/// The level `cfg.elo` chooses, when its errors can be traced: it plays by the move model,
/// with the model's pattern smoothing (the evidence's features hold only one).
fn traceable_level(cfg: &EngineConfig) -> Result<&Level, String> {
    let Some(choice) = cfg.elo.and_then(|e| cfg.level_for(e)) else {
        return Err("--elo: which level to trace (none chosen, or no levels)".into());
    };
    let level = choice.level;
    if matches!(level.style, Style::Best | Style::Natural) {
        return Err(format!(
            "--elo: level {} plays the {} style, whose search chooses: no model's errors to trace",
            level.elo, level.style
        ));
    }
    if !level.plays_default_model() && level.model.smoothing != cfg.model.smoothing {
        return Err(format!(
            "level {}'s pattern smoothing differs from the model's: the evidence's features \
             hold only one",
            level.elo
        ));
    }
    Ok(level)
}

/// The depth the level's own search stops at, after checking that it and every depth of
/// `--depths` is one the evidence holds (1 to 4 plies).
fn checked_depths(level: &Level, settings: &Settings) -> Result<Option<u8>, String> {
    if let Some(d) = settings.depths.iter().find(|d| !(1..=4).contains(*d)) {
        return Err(format!(
            "--depths: {d} is not a depth the evidence holds (1 to 4 plies)"
        ));
    }
    // A level that stops its search at a depth is traced at that depth.
    match level.depth {
        Some(d) if d > 4 => Err(format!(
            "level {}: its search stops at depth {d}, deeper than the evidence holds (1 to 4 plies)",
            level.elo
        )),
        d => Ok(d.and_then(|d| u8::try_from(d).ok())),
    }
}

/// Checks the search weights (≥ 0), temperatures (> 0) and ratios (≥ 0) to trace.
fn check_values(weights: &[f64], temperatures: &[f64], ratios: &[f64]) -> Result<(), String> {
    if let Some(w) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
        return Err(format!("--search-weights: {w} is not a weight ≥ 0"));
    }
    if let Some(t) = temperatures.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
        return Err(format!("--temperatures: {t} is not a temperature above 0"));
    }
    if let Some(r) = ratios.iter().find(|r| !(r.is_finite() && **r >= 0.0)) {
        return Err(format!("--ratios: {r} is not a ratio ≥ 0"));
    }
    Ok(())
}

/// The judge's verdict on the moves of a row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Share of the moves losing at least [`BLUNDER_CP`] by the judge.
    pub blunder_rate: f64,
    /// Mean loss by the judge, centipawns.
    pub mean_cp_loss: f64,
}

/// What one way to play (or the humans) does on the positions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The way to play.
    pub name: String,
    /// The level's search weight, when it plays a level's model.
    pub search_weight: Option<f64>,
    /// The errors rule's ratio, when it errs by the rule.
    pub ratio: Option<f64>,
    /// The temperature, when it draws.
    pub temperature: Option<f64>,
    /// The depth its search stopped at, when it was stopped.
    pub depth: Option<u8>,
    /// Share of the positions where it chose the human's move.
    pub matching: f64,
    /// 95 % Wilson interval of `matching`.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Matching minus the first row's (the default style's) on the same positions, with its
    /// paired 95 % interval: (difference, low, high). `None` for the humans and the first row.
    pub delta: Option<(f64, f64, f64)>,
    /// Share of its moves that the evidence's own search found at least [`BLUNDER_PAWNS`]
    /// worse than the best at its last iteration. A lower bound: beyond two plies the search
    /// gives a move outside its margin (100 cp) only a bound, about a pawn below the best.
    pub search_blunders: f64,
    /// The judge's verdict, when judged.
    pub judged: Option<Verdict>,
    /// The cases ablation, when the evidence holds the one-game case base's votes: matching
    /// with the one-game case base (the same search, the same way to play).
    pub one_game_matching: Option<f64>,
    /// Δcases: matching with the case base minus with the one-game case base, on the same
    /// positions, with its paired 95 % interval.
    pub delta_cases: Option<(f64, f64, f64)>,
    /// The index of the chosen move in each position.
    #[serde(skip)]
    pub chosen: Vec<usize>,
}

impl Row {
    /// The row of `policy` (`None`: the humans' own moves), named `name`, which chose
    /// `chosen` and so matched `hits` (see [`hits`]).
    fn new(
        name: String,
        policy: Option<&Policy>,
        items: &[&Item],
        (chosen, hits): (Vec<usize>, &[bool]),
        baseline: Option<&[bool]>,
    ) -> Row {
        let n = items.len() as u64;
        let k = hits.iter().filter(|h| **h).count() as u64;
        let (ci_low, ci_high) = wilson(k, n);
        let blunders = items
            .iter()
            .zip(&chosen)
            .filter(|(it, c)| it.features[**c][LOSS_LAST_FEATURE] >= BLUNDER_PAWNS)
            .count();
        let (ratio, temperature) = match policy.map(|p| p.choice) {
            Some(Choice::Rule(r)) => (Some(r.ratio), None),
            Some(Choice::Draw { temperature, .. }) => (None, Some(temperature)),
            Some(Choice::MostProbable) | None => (None, None),
        };
        Row {
            name,
            search_weight: policy.and_then(|p| p.search_weight),
            ratio,
            temperature,
            depth: policy.and_then(|p| p.depth),
            matching: k as f64 / n.max(1) as f64,
            ci_low,
            ci_high,
            delta: baseline.map(|b| paired_delta(hits, b)),
            search_blunders: blunders as f64 / n.max(1) as f64,
            judged: None,
            one_game_matching: None,
            delta_cases: None,
            chosen,
        }
    }
}

/// Whether each position's chosen move (`chosen`, an index per item) was the human's.
fn hits(items: &[&Item], chosen: &[usize]) -> Vec<bool> {
    items
        .iter()
        .zip(chosen)
        .map(|(it, c)| it.played == *c)
        .collect()
}

/// The trace: the humans' own row (their moves, matching 100 %), then one row per way to play,
/// the first of them the baseline every `delta` is taken against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frontier {
    /// Positions traced.
    pub positions: usize,
    /// The humans' moves.
    pub humans: Row,
    /// The ways to play, in the order given.
    pub rows: Vec<Row>,
}

/// The moves every policy chooses on `items`, the first policy the baseline.
pub fn trace(items: &[&Item], policies: &[Policy]) -> Frontier {
    let played: Vec<usize> = items.iter().map(|it| it.played).collect();
    let all = vec![true; items.len()];
    let humans = Row::new("humans".into(), None, items, (played, &all), None);
    let mut rows: Vec<Row> = Vec::with_capacity(policies.len());
    // The first policy's hits: every later row's `delta` is taken against them.
    let mut baseline: Option<Vec<bool>> = None;
    for p in policies {
        let chosen: Vec<usize> = items.par_iter().map(|it| p.choose(it)).collect();
        let own = hits(items, &chosen);
        let mut row = Row::new(
            p.name.clone(),
            Some(p),
            items,
            (chosen, &own),
            baseline.as_deref(),
        );
        // The cases ablation, when every position has the one-game case base's evidence.
        let one_game: Option<Vec<usize>> =
            items.par_iter().map(|it| p.choose_one_game(it)).collect();
        if let Some(one_game) = one_game.filter(|_| !items.is_empty()) {
            let theirs = hits(items, &one_game);
            let k = theirs.iter().filter(|h| **h).count();
            row.one_game_matching = Some(k as f64 / items.len() as f64);
            row.delta_cases = Some(paired_delta(&own, &theirs));
        }
        baseline.get_or_insert(own);
        rows.push(row);
    }
    Frontier {
        positions: items.len(),
        humans,
        rows,
    }
}

/// Per position, the distinct indices of the moves chosen by anyone (the humans included),
/// ascending: each is judged once.
fn distinct_choices(frontier: &Frontier) -> Vec<Vec<usize>> {
    (0..frontier.positions)
        .map(|i| {
            let mut d: Vec<usize> = std::iter::once(&frontier.humans)
                .chain(&frontier.rows)
                .map(|r| r.chosen[i])
                .collect();
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect()
}

/// Fills in every row's verdict from the judge's losses of each position's `distinct` moves.
fn fill_verdicts(frontier: &mut Frontier, distinct: &[Vec<usize>], losses: &[Vec<i32>]) {
    for row in std::iter::once(&mut frontier.humans).chain(frontier.rows.iter_mut()) {
        let l: Vec<i32> = row
            .chosen
            .iter()
            .enumerate()
            .filter_map(|(i, j)| {
                let k = distinct.get(i)?.binary_search(j).ok()?;
                losses.get(i)?.get(k).copied()
            })
            .collect();
        let n = l.len().max(1) as f64;
        row.judged = Some(Verdict {
            blunder_rate: l.iter().filter(|&&x| x >= BLUNDER_CP).count() as f64 / n,
            mean_cp_loss: l.iter().map(|&x| f64::from(x)).sum::<f64>() / n,
        });
    }
}

/// Judges every move chosen in `frontier` (each distinct move of a position once) with an
/// external engine, as `eval --judge` does, and fills in every row's verdict.
pub fn judge(
    frontier: &mut Frontier,
    items: &[&Item],
    command: &str,
    options: &[(String, String)],
    limit: Limit,
    threads: usize,
    progress: &dyn Progress,
) -> Result<(), EvalError> {
    let distinct = distinct_choices(frontier);
    let listed: Vec<(Chess, Vec<Move>)> = items
        .iter()
        .zip(&distinct)
        .map(|(it, d)| {
            (
                it.position.clone(),
                d.iter().map(|&j| it.moves[j]).collect(),
            )
        })
        .collect();
    let losses = judge_moves(command, options, limit, &listed, threads, progress)?;
    fill_verdicts(frontier, &distinct, &losses);
    Ok(())
}

/// The blunder rate the chart and a row are read at: the judge's when judged, else the
/// evidence's own search's.
fn blunders(row: &Row) -> f64 {
    row.judged.map_or(row.search_blunders, |j| j.blunder_rate)
}

/// The families of a chart: rows of one kind of choice drawn as one line, by (label, rows).
fn families(f: &Frontier) -> Vec<(String, Vec<&Row>)> {
    let mut out: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in f.rows.iter().skip(1) {
        let label = match (r.ratio, r.temperature, r.depth) {
            // A stopped search: one line per depth, through the search weights.
            (None, None, Some(d)) => format!("most probable at depth {d}, by weight"),
            // The errors rule: one line per search weight, through its ratios.
            (Some(_), _, _) => format!("errors rule, weight {:.2}", r.search_weight.unwrap_or(1.0)),
            // Draws: one line per temperature, through the search weights.
            (None, Some(t), _) => format!("drawn at T {t:.2}, by weight"),
            (None, None, None) => "most probable, by weight".to_string(),
        };
        match out.iter_mut().find(|(l, _)| *l == label) {
            Some((_, rows)) => rows.push(r),
            None => out.push((label, vec![r])),
        }
    }
    out
}

/// Tableau's ten colours, distinct on white, for the chart's families; they repeat after ten.
const COLOURS: [(u8, u8, u8); 10] = [
    (0xd6, 0x27, 0x28),
    (0x2c, 0xa0, 0x2c),
    (0x1f, 0x77, 0xb4),
    (0xff, 0x7f, 0x0e),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0x17, 0xbe, 0xcf),
    (0xe3, 0x77, 0xc2),
    (0xbc, 0xbd, 0x22),
    (0x7f, 0x7f, 0x7f),
];

/// The chart's ranges, blunders (%) by move-matching (%): every row and the band of 2 points
/// around the humans' blunder rate (`human`, %), with a margin.
fn chart_ranges(f: &Frontier, human: f64) -> ((f64, f64), (f64, f64)) {
    let pct = |x: f64| x * 100.0;
    let xs = f
        .rows
        .iter()
        .map(|r| pct(blunders(r)))
        .chain([human - 2.0, human + 2.0]);
    let ys = f.rows.iter().map(|r| pct(r.matching));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    (((x0 - 0.5).max(0.0), x1 + 0.5), (y0 - 1.0, y1 + 1.0))
}

/// An SVG chart of the frontier: every way to play at its blunder rate (the judge's when judged)
/// and its move-matching, a line per family, the default style and the humans' blunder rate
/// (with the 2-point band around it) marked; `title` heads it.
pub fn chart(f: &Frontier, title: &str) -> Result<String, String> {
    use plotters::prelude::*;

    if f.rows.is_empty() {
        return Err("no way to play to chart".into());
    }
    let pct = |x: f64| x * 100.0;
    let human = pct(blunders(&f.humans));
    let ((x0, x1), (y0, y1)) = chart_ranges(f, human);
    let judged = f.rows.iter().all(|r| r.judged.is_some());
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut svg, (760, 480)).into_drawing_area();
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
            .x_desc(if judged {
                "blunders (%; loss of 200 cp or more by the judge)"
            } else {
                "blunders (%; 2 pawns or more by the evidence's own search)"
            })
            .y_desc("move-matching (%)")
            .draw()
            .map_err(|e| err(&e))?;
        // The humans' blunder rate, and the band within 2 points of it.
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [((human - 2.0).max(x0), y0), ((human + 2.0).min(x1), y1)],
                RGBColor(0x2a, 0x9d, 0x3f).mix(0.12).filled(),
            )))
            .map_err(|e| err(&e))?
            .label("the humans' blunders, ± 2 points")
            .legend(|(x, y)| {
                Rectangle::new(
                    [(x, y - 5), (x + 16, y + 5)],
                    RGBColor(0x2a, 0x9d, 0x3f).mix(0.3).filled(),
                )
            });
        for (i, (label, rows)) in families(f).into_iter().enumerate() {
            let (r, g, b) = COLOURS[i % COLOURS.len()];
            let color = RGBColor(r, g, b);
            let mut points: Vec<(f64, f64)> = rows
                .iter()
                .map(|r| (pct(blunders(r)), pct(r.matching)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart
                .draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled())))
                .map_err(|e| err(&e))?;
        }
        let default = &f.rows[0];
        let at = (pct(blunders(default)), pct(default.matching));
        chart
            .draw_series([Cross::new(at, 6, BLACK.stroke_width(2))])
            .map_err(|e| err(&e))?
            .label(default.name.clone())
            .legend(|(x, y)| Cross::new((x + 8, y), 5, BLACK.stroke_width(2)));
        chart
            .draw_series(LineSeries::new([(x0, at.1), (x1, at.1)], BLACK.mix(0.3)))
            .map_err(|e| err(&e))?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
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
    use precedent::position::parse_fen;

    /// A position of three moves: the human played move 1; move 0 is the model's favourite;
    /// move 2 is an error of 3 pawns by the search, tempting at `error_score`.
    fn item(played: usize, error_score: f64) -> Item {
        item_in("4k3/8/8/8/8/8/8/4K2R w K - 0 1", played, error_score)
    }

    /// The same in another position (at least three legal moves).
    fn item_in(fen: &str, played: usize, error_score: f64) -> Item {
        let position = parse_fen(fen).expect("fen");
        let moves: Vec<Move> = shakmaty::Position::legal_moves(&position)
            .into_iter()
            .take(3)
            .collect();
        let mut features = vec![[0.0; N_FEATURES]; 3];
        // Feature 0 carries the model's preference; the loss feature the search's verdict.
        features[0][0] = 2.0;
        features[1][0] = 1.0;
        features[2][0] = error_score;
        features[2][LOSS_LAST_FEATURE] = 3.0;
        Item {
            position,
            moves,
            features,
            ablated: None,
            played,
            elo: Some(1500),
            ply: 20,
            test: true,
            context: precedent::model::Context::default(),
        }
    }

    fn linear(weights: &[f64]) -> ModelConfig {
        ModelConfig::from_vector(weights, precedent::model::Smoothing::default())
    }

    fn policy(name: &str, choice: Choice) -> Policy {
        let mut weights = vec![0.0; N_FEATURES];
        weights[0] = 1.0;
        Policy {
            name: name.into(),
            search_weight: Some(1.0),
            model: linear(&weights),
            choice,
            depth: None,
        }
    }

    /// The errors rule at `ratio`, errors being losses of 2 pawns or more.
    fn rule(ratio: f64) -> Choice {
        Choice::Rule(ErringRule {
            loss: 200,
            ratio,
            hidden: None,
        })
    }

    #[test]
    fn a_rule_errs_where_tempted_and_the_rows_count_it() {
        // Position a: the error scores 1.5 (P ratio e^-0.5 ≈ 0.61 to the favourite); b: -2.0
        // (ratio e^-4 ≈ 0.018). The humans played the error in a and move 1 in b.
        let items = [item(2, 1.5), item(1, -2.0)];
        let refs: Vec<&Item> = items.iter().collect();
        let f = trace(
            &refs,
            &[
                policy("default", Choice::MostProbable),
                policy("rule 0.5", rule(0.5)),
                policy("rule 0.01", rule(0.01)),
            ],
        );
        assert_eq!(f.positions, 2);
        assert_eq!(f.humans.search_blunders, 0.5, "the humans erred once");
        assert_eq!(f.humans.matching, 1.0);
        let [default, half, tiny] = &f.rows[..] else {
            panic!("three rows")
        };
        assert_eq!(default.chosen, vec![0, 0]);
        assert_eq!((default.matching, default.search_blunders), (0.0, 0.0));
        // At ratio 0.5 only position a's error tempts enough: a match and an error.
        assert_eq!(half.chosen, vec![2, 0]);
        assert_eq!((half.matching, half.search_blunders), (0.5, 0.5));
        assert_eq!(half.ratio, Some(0.5));
        let delta = half.delta.expect("a paired difference").0;
        assert!((delta - 0.5).abs() < 1e-12, "{:?}", half.delta);
        assert_eq!(default.delta, None, "the baseline has none");
        // At 0.01 both errors are played: b's matches no more than the favourite would, and errs.
        assert_eq!(tiny.chosen, vec![2, 2]);
        assert_eq!((tiny.matching, tiny.search_blunders), (0.5, 1.0));
    }

    #[test]
    fn a_draw_is_the_engines_draw_seeded_by_the_position() {
        // Two different positions with the same features: the engine seeds a draw with its
        // seed and the position's key, so the two draw independently.
        let items = [
            item(1, 1.5),
            item_in("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", 1, 1.5),
        ];
        let refs: Vec<&Item> = items.iter().collect();
        let draw = |temperature, seed| Choice::Draw { temperature, seed };
        let f = trace(
            &refs,
            &[
                policy("most probable", Choice::MostProbable),
                policy("cold", draw(0.01, 1)),
                policy("hot", draw(100.0, 7)),
            ],
        );
        assert_eq!(
            f.rows[1].chosen, f.rows[0].chosen,
            "a cold draw is the argmax"
        );
        assert_eq!(f.rows[1].temperature, Some(0.01));
        for (it, chosen) in items.iter().zip(&f.rows[2].chosen) {
            let e = it.evidence(false).expect("evidence");
            let p = policy("", Choice::MostProbable).model.probabilities(&e);
            let engine = draw_in(&it.position, &p, 100.0, Some(7));
            assert_eq!(*chosen, engine);
        }
    }

    #[test]
    fn every_row_gets_the_judges_loss_of_its_own_moves() {
        // Two positions; the humans, the default and the rule chose these moves.
        let items = [item(2, 1.5), item(1, -2.0)];
        let refs: Vec<&Item> = items.iter().collect();
        let mut f = trace(
            &refs,
            &[
                policy("default", Choice::MostProbable),
                policy("rule", rule(0.5)),
            ],
        );
        // humans 2, 1; default 0, 0; rule 2, 0.
        let distinct = distinct_choices(&f);
        assert_eq!(distinct, vec![vec![0, 2], vec![0, 1]]);
        // The judge: position a's move 2 loses 300, b's move 1 loses 50, the others nothing.
        fill_verdicts(&mut f, &distinct, &[vec![0, 300], vec![0, 50]]);
        let verdict = |r: &Row| r.judged.map(|j| (j.blunder_rate, j.mean_cp_loss));
        assert_eq!(verdict(&f.humans), Some((0.5, 175.0)));
        assert_eq!(verdict(&f.rows[0]), Some((0.0, 0.0)));
        assert_eq!(verdict(&f.rows[1]), Some((0.5, 150.0)));
    }

    #[test]
    fn the_cases_ablation_plays_the_same_way_with_the_one_game_evidence() {
        // With the case base the model prefers move 1, the human's; with the one-game case
        // base feature 0 is emptied, and only feature 1 (favouring move 0) is left.
        let mut a = item(1, -2.0);
        a.features[1][0] = 3.0;
        a.features[0][1] = 0.5;
        let mut ablated = a.features.clone();
        for x in &mut ablated {
            x[0] = 0.0;
        }
        a.ablated = Some(ablated);
        let mut weights = vec![0.0; N_FEATURES];
        weights[0] = 1.0;
        weights[1] = 1.0;
        let p = Policy {
            name: "most probable".into(),
            search_weight: None,
            model: linear(&weights),
            choice: Choice::MostProbable,
            depth: None,
        };
        let f = trace(&[&a], std::slice::from_ref(&p));
        let row = &f.rows[0];
        assert_eq!((row.matching, row.one_game_matching), (1.0, Some(0.0)));
        assert_eq!(row.delta_cases.map(|d| d.0), Some(1.0));
        // Without the one-game evidence there is no ablation to report.
        let f = trace(&[&item(1, -2.0)], &[p]);
        assert_eq!(f.rows[0].delta_cases, None);
    }

    #[test]
    fn the_chart_draws_every_family_the_default_and_the_humans_band() {
        let items = [item(2, 1.5), item(1, -2.0)];
        let refs: Vec<&Item> = items.iter().collect();
        let f = trace(
            &refs,
            &[
                policy("default", Choice::MostProbable),
                policy("most probable", Choice::MostProbable),
                policy("rule", rule(0.5)),
                policy("rule", rule(0.01)),
            ],
        );
        let svg = chart(&f, "level 1600").expect("a chart");
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for label in [
            "level 1600",
            "errors rule, weight 1.00",
            "most probable, by weight",
            "default",
            "the humans&apos; blunders",
        ] {
            assert!(svg.contains(label), "{label} missing");
        }
        let empty = Frontier {
            rows: Vec::new(),
            ..f
        };
        assert!(chart(&empty, "none").is_err());
    }

    #[test]
    fn a_stopped_search_reads_its_last_depth_everywhere_deeper() {
        use precedent::model::FIRST_SEARCH_FEATURE as S;
        let mut x = [0.0; N_FEATURES];
        // A move that looks fine for two plies and loses 3 pawns from the third.
        x[S..S + 4].copy_from_slice(&[0.0, 0.0, 3.0, 3.0]);
        x[S + 4] = 3.0;
        x[S + 5] = 3.0f64.sqrt();
        x[S + 6] = 2.5;
        x[S + 7] = 1.5;
        x[S + 8] = 1.0;
        x[S + 9] = 1.0;
        let e = Evidence {
            moves: Vec::new(),
            features: vec![x],
            context: precedent::model::Context::default(),
        };
        let two = at_depth(&e, 2).features[0];
        assert_eq!(
            &two[S..S + 11],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(two[..S], x[..S], "the cases' and the move's features stay");
        let three = at_depth(&e, 3).features[0];
        assert_eq!(three[S + 4], 3.0);
        assert_eq!(three[S + 10], 0.0, "no longer best at its last depth");
        assert_eq!(
            at_depth(&e, 4).features[0],
            x,
            "four plies is all the evidence holds"
        );
        // Depths past the evidence are refused when the policies are made.
        let cfg = EngineConfig {
            elo: Some(1400),
            ..EngineConfig::default()
        };
        let bad = Settings {
            depths: vec![5],
            ..Settings::default()
        };
        assert!(policies(&cfg, &bad).unwrap_err().contains("--depths"));
        let two = Settings {
            depths: vec![2],
            ..Settings::default()
        };
        let ps = policies(&cfg, &two).expect("policies");
        assert_eq!(ps.iter().filter(|p| p.depth == Some(2)).count(), 1);
    }

    #[test]
    fn the_policies_are_the_levels_model_at_each_search_weight() {
        use precedent::model::{FEATURES, FIRST_SEARCH_FEATURE};
        let mut cfg = EngineConfig {
            elo: Some(1000),
            ..EngineConfig::default()
        };
        let settings = Settings {
            search_weights: vec![0.5, 2.0],
            ratios: vec![0.1],
            seed: 3,
            ..Settings::default()
        };
        let ps = policies(&cfg, &settings).expect("policies");
        // The default style, then per weight: most probable, the level's own draw, the rule.
        let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names[0], "default style (imitate)");
        assert_eq!(ps.len(), 1 + 2 * 3, "{names:?}");
        assert_eq!(ps[0].model, cfg.model);
        let level = cfg.level_for(1000).expect("level 1000").level.clone();
        let own = level.model.vector();
        for (p, w) in [(&ps[1], 0.5), (&ps[4], 2.0)] {
            assert_eq!(p.search_weight, Some(w));
            for k in 0..FEATURES.len() {
                let factor = if k >= FIRST_SEARCH_FEATURE { w } else { 1.0 };
                assert!(
                    (p.model.vector()[k] - own[k] * factor).abs() < 1e-12,
                    "{}",
                    FEATURES[k]
                );
            }
        }
        assert_eq!(
            ps[2].choice,
            Choice::Draw {
                temperature: level.temperature,
                seed: 3
            }
        );
        assert_eq!(
            ps[3].choice,
            Choice::Rule(ErringRule {
                loss: 200,
                ratio: 0.1,
                hidden: None,
            })
        );
        // Level 1400 plays the default style's model with its search stopped at one ply: its
        // own rows are traced at that depth; a level deeper than the evidence is refused.
        cfg.elo = Some(1400);
        let ps = policies(&cfg, &Settings::default()).expect("policies");
        let level = cfg.level_for(1400).expect("level 1400").level.clone();
        assert!(level.plays_default_model() && level.depth == Some(1));
        assert_eq!(ps[0].depth, None, "the default style searches in full");
        for p in &ps[1..] {
            assert_eq!(p.depth, Some(1), "{}", p.name);
        }
        assert_eq!(ps[1].model.weights, cfg.model.weights);
        let mut deep = cfg.clone();
        for l in deep.levels.iter_mut().filter(|l| l.elo == 1400) {
            l.depth = Some(6);
        }
        let e = policies(&deep, &Settings::default()).expect_err("depth 6");
        assert!(e.contains("level 1400") && e.contains("depth 6"), "{e}");
        // Levels 2400 and 2600 play the natural and best styles, whose search chooses: nothing
        // to trace, and said so.
        for (elo, style) in [(2400, "natural"), (2600, "best")] {
            cfg.elo = Some(elo);
            let e = policies(&cfg, &settings).expect_err("no model's errors");
            assert!(
                e.contains(&format!("level {elo} plays the {style} style")),
                "{e}"
            );
        }
        // Level 1600 errs by its rule: no draw unless asked.
        cfg.elo = Some(1600);
        let ps = policies(&cfg, &Settings::default()).expect("policies");
        assert_eq!(ps.len(), 2, "default and most probable");
        // The rule's rows take the level's `hidden` unless the settings say otherwise, "every
        // error" included.
        let hidden_of = |hidden: Option<Option<u32>>, level: Option<u32>| {
            let mut at = cfg.clone();
            for l in at.levels.iter_mut().filter(|l| l.elo == 1600) {
                l.errors = Some(ErringRule {
                    loss: 101,
                    ratio: 0.1,
                    hidden: level,
                });
            }
            let settings = Settings {
                ratios: vec![0.1],
                hidden,
                ..Settings::default()
            };
            match policies(&at, &settings).expect("policies").last() {
                Some(Policy {
                    choice: Choice::Rule(e),
                    ..
                }) => e.hidden,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(hidden_of(None, Some(50)), Some(50));
        assert_eq!(hidden_of(Some(None), Some(50)), None);
        assert_eq!(hidden_of(Some(Some(80)), None), Some(80));
        assert_eq!(hidden_of(None, None), None);
        // Bad settings and a missing level are errors, not panics.
        let bad = Settings {
            ratios: vec![-1.0],
            ..Settings::default()
        };
        assert!(
            policies(&cfg, &bad)
                .expect_err("negative")
                .contains("--ratios")
        );
        cfg.elo = None;
        let none = policies(&cfg, &Settings::default());
        assert!(none.expect_err("no level").contains("--elo"));
    }
}
