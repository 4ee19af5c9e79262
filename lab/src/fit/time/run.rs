//! `precedent fit time` as a command: its arguments, its errors, the fit and measurement from
//! a file of clocked games, and the report's text (with the fitted `[pace]` table).

use std::collections::BTreeMap;

use precedent::casebase::CaseBase;
use precedent::pgn::InputError;
use precedent::think::{PACE_FEATURES, PaceModel};

use super::{
    MatchTimes, PaceReport, ProbeCheck, Row, chart, clocks, fit_model, linear_baseline,
    match_times, measure, median, predictions, probe, read_games, rows,
};

/// Arguments of `precedent fit time`.
#[derive(clap::Args, Clone, Debug)]
pub struct TimeFitArgs {
    /// Clocked games (`[%clk …]` comments and a `TimeControl` tag): .pgn, .pgn.zst or -.
    #[arg(long, value_name = "FILE")]
    pub pgn: String,
    /// Only games whose starting clock is at least this many seconds (0: every game).
    #[arg(long, default_value_t = 0)]
    pub min_base: u32,
    /// Most games read (fitting and test together).
    #[arg(long)]
    pub max_games: Option<u64>,
    /// A case base with clocks built from the same file with `--holdout 50`: each move also
    /// gets its nearest cases' times, and a second model is fitted with them.
    #[arg(long, value_name = "FILE")]
    pub casebase: Option<std::path::PathBuf>,
    /// The time control of the chart and of the per-control report (`base+increment`).
    #[arg(long, default_value = "180+0")]
    pub chart_control: String,
    /// Write the chart (seconds by move number, people against the model) to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<std::path::PathBuf>,
    /// Write the check by clock's chart (median seconds by move number, people against the
    /// model, one line a time control) to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub clock_chart: Option<std::path::PathBuf>,
    /// A match's PGN (fastchess or cutechess-cli, a move's seconds in its comment, e.g.
    /// `{+0.35/17 1.496s}`): the chart also shows the seconds `--match-player` took in it.
    #[arg(long, value_name = "FILE", requires = "match_player")]
    pub match_pgn: Option<std::path::PathBuf>,
    /// The engine's name in `--match-pgn`'s White and Black tags.
    #[arg(long, value_name = "NAME")]
    pub match_player: Option<String>,
    /// How far the fit weighs the time controls alike: each move weighs 1 / (moves of its
    /// control)^BALANCE (0: every move alike, so the commonest controls rule; 1: every
    /// control alike).
    #[arg(long, default_value_t = 0.0)]
    pub balance: f64,
    /// Seed of the times drawn from the model's spread.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A UCI engine to probe (its command line, e.g. `target/release/precedent`): on held-out
    /// positions of moves 11–26 of `--probe-controls`, given the game and the clocks its
    /// players had, its `info string human time` is set beside the time they took.
    #[arg(long, value_name = "CMD")]
    pub probe_engine: Option<String>,
    /// An option of the probed engine, NAME=VALUE (repeat it), e.g. `HumanTime=true`.
    #[arg(
        long = "probe-option",
        value_name = "NAME=VALUE",
        requires = "probe_engine"
    )]
    pub probe_options: Vec<String>,
    /// The time controls probed, `base+increment`, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "60+0,180+0,300+0,300+3,600+0,900+15"
    )]
    pub probe_controls: Vec<String>,
    /// Positions probed a control.
    #[arg(long, default_value_t = 100)]
    pub probe_positions: usize,
}

impl TimeFitArgs {
    /// `--probe-option`s as (name, value); an error names the one without `=`.
    fn probe_options(&self) -> Result<Vec<(String, String)>, TimeFitError> {
        self.probe_options
            .iter()
            .map(|o| match o.split_once('=') {
                Some((n, v)) if !n.trim().is_empty() => {
                    Ok((n.trim().to_string(), v.trim().to_string()))
                }
                _ => Err(TimeFitError::Other(format!(
                    "--probe-option {o:?}: expected NAME=VALUE"
                ))),
            })
            .collect()
    }
}

/// Why `fit time` could not fit.
#[derive(Debug, thiserror::Error)]
pub enum TimeFitError {
    /// The games could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Something else (no clocked games, a bad option).
    #[error("{0}")]
    Other(String),
}

/// Fits the pacing model and measures it; `read` hears how many moves were read.
pub fn run(
    args: &TimeFitArgs,
    read: impl FnOnce(usize, usize),
    probed: impl FnMut(&ProbeCheck),
) -> Result<(PaceReport, Charts), TimeFitError> {
    let cb = timed_casebase(args.casebase.as_deref())?;
    let played = played_in_match(args)?;
    let probe_options = args.probe_options()?;
    let mut sampler = args
        .probe_engine
        .as_ref()
        .map(|_| probe::Sampler::new(&args.probe_controls, args.probe_positions, args.seed));
    let (fit, test) = read_games(args, sampler.as_mut())?;
    read(fit.len(), test.len());
    if fit.is_empty() || test.is_empty() {
        return Err(TimeFitError::Other(format!(
            "{}: no timed moves to fit or to test on (games need a TimeControl tag and [%clk] \
             comments)",
            args.pgn
        )));
    }
    let (fit, test) = (rows(&fit, cb.as_ref()), rows(&test, cb.as_ref()));
    let model = fit_model(&fit, false, args.balance);
    let with_cases = cb.is_some().then(|| fit_model(&fit, true, args.balance));
    let baseline = linear_baseline(&fit);
    let chart_rows: Vec<Row> = test
        .iter()
        .filter(|r| r.control == args.chart_control)
        .cloned()
        .collect();
    let mut measures = BTreeMap::new();
    for (label, rows) in [
        ("all held-out moves", &test),
        ("chart control", &chart_rows),
    ] {
        let people = (
            "people".to_string(),
            rows.iter().map(|r| r.seconds).collect(),
        );
        let list = std::iter::once(people)
            .chain(predictions(
                rows,
                &model,
                with_cases.as_ref(),
                &baseline,
                args.seed,
            ))
            .map(|(name, p)| measure(&name, rows, &p, name == "people"))
            .collect();
        measures.insert(label.to_string(), list);
    }
    let charts = Charts {
        control: match &args.chart {
            Some(_) => Some(chart(
                &chart_rows,
                &model,
                &args.chart_control,
                played.as_deref(),
                args.seed,
            )?),
            None => None,
        },
        by_clock: match &args.clock_chart {
            Some(_) => Some(clocks::chart(&test, &model, args.seed)?),
            None => None,
        },
    };
    let human =
        |f: &dyn Fn(&Row) -> bool| test.iter().filter(|r| f(r)).count() as f64 / test.len() as f64;
    let trouble: Vec<f64> = test
        .iter()
        .filter(|r| r.left < 10.0)
        .map(|r| r.seconds)
        .collect();
    let by_clock = clocks::check(&test, &model, args.seed);
    let probe = match (sampler, &args.probe_engine) {
        (Some(sampler), Some(command)) => {
            let setup = probe::ProbeSetup {
                command,
                options: &probe_options,
                positions: args.probe_positions,
                seed: args.seed,
            };
            probe::probe(sampler, &setup, &test, probed)?
        }
        _ => Vec::new(),
    };
    let report = PaceReport {
        fit_moves: fit.len(),
        test_moves: test.len(),
        human_fast: human(&|r| r.seconds < 2.0),
        human_long: human(&|r| r.seconds > 0.2 * r.left),
        human_trouble_median: median(trouble.clone()),
        trouble_moves: trouble.len(),
        cased: test.iter().filter(|r| r.cased).count(),
        measures,
        model,
        model_with_cases: with_cases,
        in_match: played.as_ref().map(|p| MatchTimes::of(p)),
        by_clock,
        probe,
    };
    Ok((report, charts))
}

/// The SVG charts a run was asked for.
#[derive(Clone, Debug, Default)]
pub struct Charts {
    /// `--chart`: seconds by move number in `--chart-control`.
    pub control: Option<String>,
    /// `--clock-chart`: median seconds by move number, one line a time control.
    pub by_clock: Option<String>,
}

/// The case base of `--casebase`, which must have clocks.
fn timed_casebase(path: Option<&std::path::Path>) -> Result<Option<CaseBase>, TimeFitError> {
    let Some(path) = path else { return Ok(None) };
    let cb = CaseBase::open(path).map_err(|e| TimeFitError::Other(e.to_string()))?;
    if cb.timed_cases() == 0 {
        return Err(TimeFitError::Other(format!(
            "{}: the case base has no clocks (build it from games with [%clk] comments)",
            path.display()
        )));
    }
    Ok(Some(cb))
}

/// The engine's (move number, seconds) in `--match-pgn`, when given; an error when it has none.
fn played_in_match(args: &TimeFitArgs) -> Result<Option<Vec<(u32, f64)>>, TimeFitError> {
    let (Some(path), Some(name)) = (&args.match_pgn, &args.match_player) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| TimeFitError::Other(format!("{}: cannot read: {e}", path.display())))?;
    let played = match_times(&text, name);
    if played.is_empty() {
        return Err(TimeFitError::Other(format!(
            "{}: no timed move of {name:?} in it",
            path.display()
        )));
    }
    Ok(Some(played))
}

impl std::fmt::Display for PaceReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "timed moves: {} fitted, {} held out; people: {:.1} % under 2 s, {:.1} % over 20 % \
             of the clock, median {:.1} s with under 10 s left ({} moves)",
            self.fit_moves,
            self.test_moves,
            100.0 * self.human_fast,
            100.0 * self.human_long,
            self.human_trouble_median,
            self.trouble_moves
        )?;
        for (label, list) in &self.measures {
            writeln!(f, "{label}:")?;
            writeln!(
                f,
                "  {:<32} {:>22} {:>7} {:>8} {:>7} {:>7} {:>8} {:>7}",
                "predictor",
                "rank corr. (95 %)",
                "games",
                "ratio",
                "<2 s",
                ">20 %",
                "trouble",
                "|log|"
            )?;
            for m in list {
                writeln!(
                    f,
                    "  {:<32} {:>6.3} ({:.3}..{:.3}) {:>7} {:>8.2} {:>6.1}% {:>6.1}% {:>7.1}s {:>7.3}",
                    m.name,
                    m.rank_correlation,
                    m.rank_interval.0,
                    m.rank_interval.1,
                    m.games,
                    m.median_ratio,
                    100.0 * m.fast,
                    100.0 * m.long,
                    m.trouble_median,
                    m.log_error
                )?;
            }
        }
        if let Some(m) = &self.in_match {
            writeln!(
                f,
                "in the match: {} timed moves, median {:.1} s, mean {:.1} s, {:.1} % under 2 s, \
                 longest {:.1} s",
                m.moves,
                m.median,
                m.mean,
                100.0 * m.fast,
                m.longest
            )?;
        }
        clocks::write(f, &self.by_clock)?;
        probe::write(f, &self.probe)?;
        if self.cased > 0 {
            writeln!(f, "held-out moves with timed nearest cases: {}", self.cased)?;
        }
        write!(f, "\n{}", toml_of(&self.model, "pace"))?;
        if let Some(m) = &self.model_with_cases {
            write!(f, "{}", toml_of(m, "pace.with_cases"))?;
        }
        Ok(())
    }
}

/// The model as the TOML table `table` (`pace`, or `pace.with_cases`).
fn toml_of(m: &PaceModel, table: &str) -> String {
    let residuals: Vec<String> = m.residuals.iter().map(|r| format!("{r:.4}")).collect();
    let scales = m.scales.map_or(String::new(), |[lo, hi]| {
        format!("scales = [{lo:.1}, {hi:.1}]\n")
    });
    let mut s = format!(
        "[{table}]\nsigma = {:.6}\n{scales}residuals = [{}]\n[{table}.weights]\n",
        m.sigma,
        residuals.join(", ")
    );
    for name in PACE_FEATURES {
        s += &format!(
            "{name} = {:.6}\n",
            m.weights.get(name).copied().unwrap_or(0.0)
        );
    }
    s
}
