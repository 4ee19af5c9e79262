//! `precedent frontier` as a workflow: its arguments, the trace of a level's ways to err on
//! saved evidence, the judge and the chart, and the report's text.

use std::fmt;
use std::path::PathBuf;

use precedent::casebase::CaseBase;
use precedent::think::EngineConfig;
use rayon::prelude::*;
use serde::Serialize;

use super::{Frontier, Row, Settings, chart, judge, policies, trace};
use crate::client::Limit;
use crate::eval::{Bars, EvalError};
use crate::fit::moves::{Item, features, load_all, one_game_for};
use crate::positions::Movers;

/// What `frontier` traces, on which evidence.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct FrontierArgs {
    /// Evidence saved by `precedent fit moves --save-evidence` (repeatable); it must have been
    /// gathered with the same case base.
    #[arg(long, value_name = "FILE", required = true)]
    pub evidence: Vec<PathBuf>,
    /// Also use the positions of the fitting half (default: only the test half, which no fit
    /// of the embedded parameters has seen).
    #[arg(long)]
    pub both_halves: bool,
    /// The movers whose positions count, by rating.
    #[command(flatten)]
    pub movers: Movers,
    /// Search weights to trace the level's model at (default: the level's own).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub search_weights: Vec<f64>,
    /// Also trace the level's most probable move at every search weight with its search
    /// stopped at these depths (1-4 plies: the evidence holds the losses that far).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub depths: Vec<u8>,
    /// Ratios of the errors rule to trace at every search weight.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "0.02,0.04,0.085,0.15,0.3,1"
    )]
    pub ratios: Vec<f64>,
    /// Temperatures to trace draws from the level's model at, at every search weight (default:
    /// the level's own, when it draws).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub temperatures: Vec<f64>,
    /// What the errors rule counts as an error: a loss of this many centipawns by the search
    /// (default: the level's, else 200).
    #[arg(long, value_name = "CP")]
    pub loss: Option<u32>,
    /// The errors rule plays only errors hidden at two plies: their loss there under this many
    /// centipawns, or `off` for every error (default: as the level does).
    #[arg(long, value_name = "CP|off")]
    pub hidden: Option<Hidden>,
    /// Judge the moves with this UCI engine (e.g. /usr/games/stockfish), as `eval --judge`.
    #[arg(long, value_name = "CMD")]
    pub judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12")]
    pub judge_limit: String,
    /// Judge processes run at once [default: the cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also draw the frontier as an SVG chart here: blunders against move-matching, a line per
    /// family of settings.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
}

/// `--hidden`: a threshold in centipawns, or `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hidden(pub Option<u32>);

impl std::str::FromStr for Hidden {
    type Err = String;

    fn from_str(s: &str) -> Result<Hidden, String> {
        match s {
            "off" => Ok(Hidden(None)),
            _ => s
                .parse()
                .map(|cp| Hidden(Some(cp)))
                .map_err(|_| format!("{s:?} is neither centipawns nor off")),
        }
    }
}

/// The settings `frontier` leaves to the evidence: every setting given (by name) but the level
/// (`elo`) and the seed is refused, since the evidence fixed the retrieval and the search when
/// `fit moves` gathered it, and the level chooses the style.
pub fn refuse_fixed_settings(given: &[(String, String)]) -> Result<(), EvalError> {
    match given
        .iter()
        .find(|(n, _)| !["elo", "seed"].contains(&n.as_str()))
    {
        Some((name, _)) => {
            let hint = if name == "temperature" {
                " (use --temperatures)"
            } else {
                ""
            };
            Err(EvalError::Other(format!(
                "--{name}{hint} has no effect on frontier: the evidence fixed the retrieval and \
                 the search when fit gathered it, and the level chooses the style"
            )))
        }
        None => Ok(()),
    }
}

/// What `frontier` found: the trace, and the level it traced.
#[derive(Clone, Debug, Serialize)]
pub struct FrontierReport {
    /// The trace.
    #[serde(flatten)]
    pub frontier: Frontier,
    /// The level traced (its `elo`, its band of movers), if one was chosen.
    #[serde(skip)]
    pub level: Option<(u16, u16, u16)>,
    /// The chart written, if asked.
    #[serde(skip)]
    pub chart: Option<String>,
}

/// Traces the ways to err of `cfg`'s level (or style) on the evidence, judges them and draws
/// the chart when asked; positions left out, and why, are told through `bars`' notes.
pub fn run(
    args: &FrontierArgs,
    cb: &CaseBase,
    cfg: &EngineConfig,
    seed: u64,
    threads: usize,
    bars: &dyn Bars,
) -> Result<FrontierReport, EvalError> {
    let settings = Settings {
        search_weights: args.search_weights.clone(),
        temperatures: args.temperatures.clone(),
        ratios: args.ratios.clone(),
        loss: args.loss,
        hidden: args.hidden.map(|h| h.0),
        seed,
        depths: args.depths.clone(),
    };
    let policies = policies(cfg, &settings).map_err(EvalError::Other)?;
    let judge_limit: Option<Limit> =
        match &args.judge {
            Some(_) => Some(args.judge_limit.parse().map_err(|e| {
                EvalError::Other(format!("--judge-limit {}: {e}", args.judge_limit))
            })?),
            None => None,
        };
    let records = load_all(&args.evidence).map_err(|e| EvalError::Other(e.to_string()))?;
    let notes = bars.bar("positions");
    // The cases ablation, when the evidence was gathered with `fit moves --ablation`.
    let one_game = one_game_for(cb, &records)?;
    let items = selected_items(args, cb, cfg, &records, one_game.as_ref(), &*notes)?;
    let refs: Vec<&Item> = items.iter().collect();
    let mut frontier = trace(&refs, &policies);
    if one_game.is_some() && frontier.rows.iter().any(|r| r.delta_cases.is_none()) {
        let missing = items.iter().filter(|i| i.ablated.is_none()).count();
        notes.note(&format!(
            "frontier: no cases ablation: {missing} of the {} positions lack the one-game case base's evidence",
            items.len()
        ));
    }
    if let (Some(command), Some(limit)) = (&args.judge, judge_limit) {
        let bar = bars.bar("positions judged");
        judge(&mut frontier, &refs, command, &[], limit, threads, &*bar)?;
    }
    let level = cfg
        .elo
        .and_then(|e| cfg.level_for(e))
        .map(|c| (c.level.elo, c.level.min_rating, c.level.max_rating));
    if let Some(path) = &args.chart {
        let title = match level {
            Some((elo, lo, hi)) => format!(
                "Level {elo} (model of movers rated {lo}-{hi}): its ways to err on {} positions",
                frontier.positions
            ),
            None => format!("Ways to err on {} positions", frontier.positions),
        };
        let svg = chart(&frontier, &title).map_err(EvalError::Other)?;
        std::fs::write(path, svg)
            .map_err(|e| EvalError::Other(format!("{}: cannot write: {e}", path.display())))?;
    }
    let chart = args.chart.as_ref().map(|p| p.display().to_string());
    Ok(FrontierReport {
        frontier,
        level,
        chart,
    })
}

/// The evidence's positions the arguments select, with their features on `cb`.
fn selected_items(
    args: &FrontierArgs,
    cb: &CaseBase,
    cfg: &EngineConfig,
    records: &[crate::fit::moves::Record],
    one_game: Option<&CaseBase>,
    notes: &dyn crate::Progress,
) -> Result<Vec<Item>, EvalError> {
    let inside = |elo: Option<u16>| args.movers.contain(elo);
    let selected: Vec<_> = records
        .iter()
        .filter(|r| (args.both_halves || r.test) && inside(r.elo))
        .collect();
    let items: Vec<Item> = selected
        .par_iter()
        .filter_map(|r| features(cb, one_game, r, cfg.model.smoothing))
        .collect();
    if items.len() < selected.len() {
        // A record that does not replay on this case base (another case base's evidence, or
        // a damaged line) is left out, and said so.
        notes.note(&format!(
            "frontier: {} of the {} selected positions do not replay on {} and are left out",
            selected.len() - items.len(),
            selected.len(),
            cb.name()
        ));
    }
    if items.is_empty() && !selected.is_empty() {
        return Err(EvalError::Other(format!(
            "none of the {} selected positions replays on {}: was the evidence gathered with another case base?",
            selected.len(),
            cb.name()
        )));
    }
    if items.is_empty() {
        return Err(EvalError::Other(format!(
            "no position of the {} in the evidence passes the filters (test half{}, movers {}–{})",
            records.len(),
            if args.both_halves { " or not" } else { "" },
            args.movers.min_elo.map_or("any".into(), |e| e.to_string()),
            args.movers.max_elo.map_or("any".into(), |e| e.to_string()),
        )));
    }
    Ok(items)
}

impl fmt::Display for FrontierReport {
    /// The report as `precedent frontier` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fr = &self.frontier;
        if let Some((elo, lo, hi)) = self.level {
            writeln!(
                f,
                "level {elo} (the model of movers rated {lo}-{hi}) on {} positions",
                fr.positions
            )?;
        }
        let judged = |r: &Row| {
            r.judged.map_or("-".to_string(), |j| {
                format!("{:>5.1}% {:>4.0}", j.blunder_rate * 100.0, j.mean_cp_loss)
            })
        };
        writeln!(
            f,
            "{:<30} {:>6} {:>6} {:>5} {:>8} {:>11} {:>21} {:>22} {:>22}",
            "way to play",
            "weight",
            "ratio",
            "T",
            "search",
            "judge (cp)",
            "matching (95% CI)",
            "Δ default (95% CI)",
            "Δcases (95% CI)"
        )?;
        let h = &fr.humans;
        writeln!(
            f,
            "{:<30} {:>6} {:>6} {:>5} {:>7.1}% {:>11} {:>21} {:>22}",
            h.name,
            "",
            "",
            "",
            h.search_blunders * 100.0,
            judged(h),
            "",
            ""
        )?;
        for r in &fr.rows {
            let interval = |d: (f64, f64, f64)| {
                format!(
                    "{:+.1} ({:+.1}..{:+.1})",
                    d.0 * 100.0,
                    d.1 * 100.0,
                    d.2 * 100.0
                )
            };
            writeln!(
                f,
                "{:<30} {:>6} {:>6} {:>5} {:>7.1}% {:>11} {:>5.1}% ({:>4.1}–{:>4.1}) {:>22} {:>22}",
                r.name,
                r.search_weight.map_or(String::new(), |w| format!("{w:.2}")),
                r.ratio.map_or(String::new(), |x| format!("{x:.3}")),
                r.temperature.map_or(String::new(), |t| format!("{t:.2}")),
                r.search_blunders * 100.0,
                judged(r),
                r.matching * 100.0,
                r.ci_low * 100.0,
                r.ci_high * 100.0,
                r.delta.map_or(String::new(), interval),
                r.delta_cases.map_or("-".to_string(), interval)
            )?;
        }
        writeln!(
            f,
            "(search: moves the evidence's own search found at least 2 pawns worse; judge: blunders \
             of at least 200 cp and mean loss by the judge; Δcases: matching with the case base \
             minus with a one-game case base, when the evidence was gathered with fit moves --ablation)"
        )?;
        if let Some(path) = &self.chart {
            writeln!(f, "chart: {path}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use crate::fit::moves::{FitArgs, run as fit};

    #[test]
    fn frontier_refuses_settings_the_evidence_fixed() {
        let given = |n: &str| vec![(n.to_string(), "1".to_string())];
        assert!(refuse_fixed_settings(&given("elo")).is_ok());
        assert!(refuse_fixed_settings(&given("seed")).is_ok());
        let e = refuse_fixed_settings(&given("temperature")).expect_err("temperature");
        assert!(
            e.to_string()
                .starts_with("--temperature (use --temperatures)"),
            "{e}"
        );
        assert!(refuse_fixed_settings(&given("k")).is_err());
        assert_eq!("off".parse::<Hidden>(), Ok(Hidden(None)));
        assert_eq!("80".parse::<Hidden>(), Ok(Hidden(Some(80))));
        assert!("x".parse::<Hidden>().is_err());
    }

    #[test]
    fn frontier_traces_a_level_on_evidence_fit_saved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cb = CaseBase::embedded().expect("embedded");
        let evidence = dir.path().join("evidence.jsonl");
        let fit_args = FitArgs {
            pgn: Some(crate::positions::sample_fixture()),
            positions: 30,
            test_positions: 30,
            movetime: 10,
            ridge: 1.0,
            level_ridge: 30.0,
            out: dir.path().join("fitted.toml"),
            save_evidence: Some(evidence.clone()),
            ..FitArgs::default()
        };
        fit(&fit_args, &cb, &EngineConfig::default(), 1, &Silent).expect("fit");
        let cfg = EngineConfig {
            elo: Some(1400),
            ..EngineConfig::default()
        };
        let args = FrontierArgs {
            evidence: vec![evidence],
            ratios: vec![0.1, 1.0],
            judge_limit: "depth=12".into(),
            chart: Some(dir.path().join("f.svg")),
            ..FrontierArgs::default()
        };
        let r = run(&args, &cb, &cfg, 1, 1, &Silent).expect("frontier");
        assert!(r.frontier.positions > 0);
        assert_eq!(r.level.map(|l| l.0), Some(1400));
        assert!(
            r.frontier.rows.len() >= 3,
            "the default style and two ratios"
        );
        let svg = std::fs::read_to_string(dir.path().join("f.svg")).expect("chart");
        assert!(svg.starts_with("<svg"));
        assert!(r.to_string().contains("way to play"));
        let none = FrontierArgs {
            movers: Movers {
                min_elo: Some(4000),
                max_elo: None,
            },
            ..args
        };
        assert!(run(&none, &cb, &cfg, 1, 1, &Silent).is_err());
    }
}
