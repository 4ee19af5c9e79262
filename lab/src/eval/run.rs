//! `precedent eval` as a workflow: its arguments, the run on sampled positions or on an EPD
//! suite, and the reports' text.

use std::fmt;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use precedent::casebase::CaseBase;
use precedent::pgn::Selection;
use precedent::player::{Knowledge, Player};
use precedent::position::Game;
use precedent::think::EngineConfig;
use shakmaty::{Chess, Move};

use super::{
    Budget, EpdReport, EvalError, JudgeCache, Judged, Outcome, OutcomeLine, Report, compare,
    epd_report, judge, judge_each, judged_of, report, run_engine, run_reasoner,
};
use crate::Progress;
use crate::client::Limit;
use crate::epd::{EpdRecord, parse_line};
use crate::positions::{
    FromTheFirstPly, PositionFlags, Sample, SampleStats, in_test_half, knowledge_keys,
    sample_positions,
};

/// Time per position with revise on, unless `movetime` says otherwise.
pub const DEFAULT_REVISE_MOVETIME_MS: u64 = 100;

/// What `eval` measures and how.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct EvalArgs {
    /// Held-out games (.pgn, .pgn.zst): positions are sampled from them.
    #[arg(long, required_unless_present = "epd", conflicts_with = "epd")]
    pub pgn: Option<String>,
    /// An EPD test suite with bm/am operations instead.
    #[arg(long)]
    pub epd: Option<PathBuf>,
    /// Which positions: the mover's rating, the plies skipped.
    #[command(flatten)]
    pub select: PositionFlags<FromTheFirstPly>,
    /// Only this player's moves (repeatable).
    #[arg(long = "player", value_name = "NAME")]
    pub players: Vec<String>,
    /// Never this player's moves (repeatable): a collection's own accounts, when the people
    /// they met are wanted.
    #[arg(long = "not-player", value_name = "NAME")]
    pub not_players: Vec<String>,
    /// Positions to sample.
    #[arg(long, default_value_t = 5000)]
    pub positions: usize,
    /// Time per position in milliseconds (as UCI go movetime); default: 100 with the search
    /// (revise on), a full scan without it. Not with --engine (its limit is --limit).
    #[arg(long, value_name = "MS", conflicts_with = "engine")]
    pub movetime: Option<u64>,
    /// Search depth per position instead of a time (as UCI go depth), with a full scan: the
    /// same moves on every run and machine, where a time depends on the machine's load. Not
    /// with --engine (its limit is --limit).
    #[arg(long, value_name = "N", conflicts_with_all = ["movetime", "engine"],
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: Option<u32>,
    /// Threads (positions run in parallel).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Evaluate an external UCI engine on the same positions instead (e.g. stockfish).
    #[arg(long, value_name = "CMD")]
    pub engine: Option<String>,
    /// The external engine's limit per position: depth=N, movetime=MS or nodes=N.
    #[arg(long, default_value = "depth=1")]
    pub limit: String,
    /// An option for the external engine, NAME=VALUE (repeatable).
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    pub engine_options: Vec<String>,
    /// Judge move quality with this UCI engine (e.g. /usr/games/stockfish): centipawn loss and
    /// blunder rate of the engine's moves and of the humans' moves.
    #[arg(long, value_name = "CMD")]
    pub judge: Option<String>,
    /// The judge's limit per position.
    #[arg(long, default_value = "depth=12")]
    pub judge_limit: String,
    /// Keep the judge's verdicts in FILE (JSON lines, appended) and reuse those of earlier runs
    /// by the same judge and limit: the humans' moves, and moves other runs played, are
    /// searched once. The same values as without it (every judgement starts from an empty
    /// hash table).
    #[arg(long, value_name = "FILE", requires = "judge")]
    pub judge_cache: Option<PathBuf>,
    /// Width of the rating bands of the report (Maia's tables use 100).
    #[arg(long, default_value_t = 200, value_name = "POINTS")]
    pub band_width: u16,
    /// The cases ablation: run the same positions again with a one-game case base (the first
    /// game of the case base) and report Δcases, the paired difference in accuracy.
    #[arg(long, conflicts_with = "engine")]
    pub ablation: bool,
    /// Also run the same positions with this case base (e.g. the generic one, against a
    /// player's own) and report the paired difference; games in either case base are left out
    /// of the sample.
    #[arg(long, value_name = "FILE", conflicts_with = "engine")]
    pub compare: Option<PathBuf>,
    /// With `--elo`: also run the same positions without the level (the style of `--style`,
    /// by default `imitate`, the default style) and report the paired difference in accuracy
    /// and, with `--judge`, that style's blunders.
    #[arg(long, requires = "elo", conflicts_with = "engine")]
    pub against_default: bool,
    /// Sample only games of `fit`'s test half (a hash of each game), so that a model fitted by
    /// `precedent fit moves` on the same file is measured on games it never saw.
    #[arg(long)]
    pub fit_test_half: bool,
    /// Sample only the games that a case base built with `--holdout PERCENT` left out (the
    /// same hash of each game), so that case bases of any size built so from the same file are
    /// measured on the same positions.
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(1..=100))]
    pub held_out: Option<u8>,
    /// Sample only games of this speed by their `TimeControl` tag (bullet, blitz, rapid or
    /// classical, as Lichess sorts them: the base plus 40 increments under 3, 8 and 25
    /// minutes; a game without the tag is classical).
    #[arg(long, value_name = "SPEED")]
    pub speed: Option<precedent::pgn::Speed>,
    /// Write each position's outcome to FILE (a JSON object a line: FEN, human move, move
    /// played, matched, the model's probability and rank of the human move).
    #[arg(long, value_name = "FILE", requires = "pgn")]
    pub outcomes: Option<PathBuf>,
    /// Pair this run with another's `--outcomes` FILE on the same positions (same sample:
    /// another binary or other settings) and report the paired differences in accuracy and
    /// log-likelihood with their intervals.
    #[arg(long, value_name = "FILE", requires = "pgn")]
    pub paired_with: Option<PathBuf>,
}

/// The case base of `--compare`: a case base, or a player file on top of the run's generic one.
enum Other {
    Cases(Box<CaseBase>),
    Player(Box<Player>),
}

impl Other {
    fn knowledge<'a>(&'a self, generic: &'a CaseBase) -> Knowledge<'a> {
        match self {
            Other::Cases(cases) => Knowledge::of(cases),
            Other::Player(player) => Knowledge::with_player(generic, player),
        }
    }
}

/// Where a run reports its progress: one for each pass over the positions.
pub trait Bars: Sync {
    /// A progress report counting `what`.
    fn bar(&self, what: &str) -> Box<dyn Progress + '_>;
}

/// No progress shown.
impl Bars for crate::Silent {
    fn bar(&self, _what: &str) -> Box<dyn Progress + '_> {
        Box::new(crate::Silent)
    }
}

/// One `eval` run: its arguments, the reasoner, the seed of its sample and tie-breaks, and the
/// threads it runs on (the caller's thread pool).
pub struct EvalRun<'a> {
    /// What to measure.
    pub args: &'a EvalArgs,
    /// The case base, or a player on top of one (whose games are left out of the sample).
    pub cb: Knowledge<'a>,
    /// The reasoner's configuration.
    pub cfg: &'a EngineConfig,
    /// The seed of the sample and of the reasoner's tie-breaks.
    pub seed: u64,
    /// Threads (external engines: as many processes).
    pub threads: usize,
}

impl EvalRun<'_> {
    /// What each position may spend: `depth`, `movetime`, or 100 ms when the revise search is
    /// on ([`Budget::from_flags`]).
    fn budget(&self, cfg: &EngineConfig) -> Budget {
        Budget::from_flags(
            self.args.depth,
            self.args.movetime,
            cfg.revise.enabled,
            DEFAULT_REVISE_MOVETIME_MS,
        )
    }

    fn engine_options(&self) -> Result<Vec<(String, String)>, EvalError> {
        self.args
            .engine_options
            .iter()
            .map(|o| {
                let (n, v) = o.split_once('=').ok_or_else(|| {
                    EvalError::Other(format!("--engine-option {o:?}: expected NAME=VALUE"))
                })?;
                Ok((n.trim().to_string(), v.trim().to_string()))
            })
            .collect()
    }

    /// The reasoner (on `cb`) or the external engine on the positions: its name, its outcomes.
    fn moves_for(
        &self,
        cb: Knowledge<'_>,
        positions: &[(Game, Option<Move>)],
        bars: &dyn Bars,
    ) -> Result<(String, Vec<Outcome>), EvalError> {
        if let Some(cmd) = &self.args.engine {
            let limit: Limit = self.args.limit.parse()?;
            let bar = bars.bar("positions");
            let options = self.engine_options()?;
            let outcomes = run_engine(cmd, &options, limit, positions, self.threads, &*bar)?;
            return Ok((format!("{cmd} ({})", self.args.limit), outcomes));
        }
        Ok(self.reasoner_moves(cb, self.cfg, positions, bars))
    }

    /// The reasoner with `cfg` on the positions: its name and its outcomes.
    fn reasoner_moves(
        &self,
        cb: Knowledge<'_>,
        cfg: &EngineConfig,
        positions: &[(Game, Option<Move>)],
        bars: &dyn Bars,
    ) -> (String, Vec<Outcome>) {
        let bar = bars.bar("positions");
        bar.start(positions.len() as u64);
        let (matched, done) = (AtomicU64::new(0), AtomicU64::new(0));
        let each = |o: &Outcome| {
            let m =
                matched.fetch_add(u64::from(o.matched), Ordering::Relaxed) + u64::from(o.matched);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            bar.advance(1);
            bar.status(&format!("{:.1}% matched", 100.0 * m as f64 / n as f64));
        };
        let outcomes = run_reasoner(cb, positions, cfg, self.budget(cfg), self.seed, &each);
        bar.finish();
        let style = match cfg.resolved() {
            (played, Some((level, _))) => format!("{} at level {}", played.style, level.elo),
            (played, None) => played.style.to_string(),
        };
        let name = format!(
            "precedent ({}, style {}, mode {}, k {}, p {}, weights {}, revise {})",
            cb.name(),
            style,
            cfg.reuse.mode,
            cfg.reuse.k,
            cfg.reuse.p,
            cfg.reuse.weights,
            cfg.revise.enabled
        );
        (name, outcomes)
    }

    /// Move-matching on positions sampled from `args.pgn`, with the comparisons and the judge
    /// the arguments ask for.
    pub fn pgn(&self, bars: &dyn Bars) -> Result<Report, EvalError> {
        let args = self.args;
        self.refuse_comparisons_of_an_engine()?;
        let started = Instant::now();
        let (samples, stats, other) = self.held_out_sample()?;
        let positions: Vec<(Game, Option<Move>)> = samples
            .iter()
            .map(|s| (s.game.clone(), Some(s.human)))
            .collect();
        let (name, outcomes) = self.moves_for(self.cb, &positions, bars)?;
        let seconds = || started.elapsed().as_secs_f64();
        let mut r = report(name, &samples, &outcomes, stats, seconds(), args.band_width);
        let mut lines = super::outcome_lines(&samples, &outcomes);
        if let Some(path) = &args.paired_with {
            let theirs = super::read_outcomes(path)?;
            let name = path.display().to_string();
            r.paired = Some(super::pair(&name, &lines, &theirs).map_err(EvalError::Other)?);
        }
        if args.ablation {
            r.ablation = Some(self.ablation(&positions, &outcomes, bars)?);
            r.seconds = seconds();
        }
        if let Some(other) = &other {
            let other = other.knowledge(self.cb.generic());
            let (_, theirs) = self.moves_for(other, &positions, bars)?;
            r.comparison = Some(compare(other.name(), &outcomes, &theirs).ok_or_else(|| {
                EvalError::Other("the comparison run did not answer every position".into())
            })?);
            r.seconds = seconds();
        }
        let default_moves = if args.against_default {
            let cfg = EngineConfig {
                elo: None,
                ..self.cfg.clone()
            };
            let (name, theirs) = self.reasoner_moves(self.cb, &cfg, &positions, bars);
            r.against_default = Some(compare(name, &outcomes, &theirs).ok_or_else(|| {
                EvalError::Other("the default style's run did not answer every position".into())
            })?);
            r.seconds = seconds();
            Some(theirs)
        } else {
            None
        };
        if let Some(judge_cmd) = &args.judge {
            let moves = (samples.as_slice(), outcomes.as_slice());
            let judged =
                self.judge_runs(judge_cmd, moves, default_moves.as_deref(), &mut lines, bars)?;
            (r.judged, r.default_judged) = (Some(judged.0), judged.1);
            r.seconds = seconds();
        }
        // Written last, so that they carry the judge's losses.
        if let Some(path) = &args.outcomes {
            super::write_outcomes(path, &lines)?;
        }
        Ok(r)
    }

    /// The positions sampled from the held-out games of `--pgn` (none of the case base's, nor
    /// of `--compare`'s, which is opened here), with the sampling's counts.
    fn held_out_sample(&self) -> Result<(Vec<Sample>, SampleStats, Option<Other>), EvalError> {
        let args = self.args;
        let pgn = args.pgn.as_deref().unwrap_or_default();
        let selection = Selection {
            players: args.players.iter().map(|p| p.to_lowercase()).collect(),
            excluded: args.not_players.iter().map(|p| p.to_lowercase()).collect(),
            ..args.select.selection()
        };
        // The contamination guard needs the case base's game keys before sampling; an external
        // engine is measured on the same sample, so it guards against the same case base.
        let mut keys = knowledge_keys(self.cb);
        let other = match &args.compare {
            Some(path) => {
                // A player file goes on top of this run's generic case base.
                let other = match precedent::player::Player::of(CaseBase::open(path)?) {
                    Ok(player) => Other::Player(Box::new(player)),
                    Err(cases) => Other::Cases(cases),
                };
                keys.extend(knowledge_keys(other.knowledge(self.cb.generic())));
                Some(other)
            }
            None => None,
        };
        let keep = |g: &precedent::pgn::ParsedGame| {
            args.speed
                .is_none_or(|s| precedent::pgn::Speed::of_control(g.header.time_control) == s)
                && (!args.fit_test_half || in_test_half(g.key))
                && args
                    .held_out
                    .is_none_or(|pct| precedent::casebase::is_held_out(g.key, pct))
        };
        let (samples, stats) =
            sample_positions(pgn, &selection, args.positions, self.seed, &keys, &keep)?;
        if samples.is_empty() {
            return Err(EvalError::Other(format!(
                "{pgn}: no position passes the filters (after excluding {} games found in the case base)",
                stats.games_in_casebase
            )));
        }
        Ok((samples, stats, other))
    }

    /// Judges the moves played and the humans' (their losses go into `lines`), and the default
    /// style's moves when they were played: the judged run and the judged default style.
    fn judge_runs(
        &self,
        judge_cmd: &str,
        (samples, outcomes): (&[Sample], &[Outcome]),
        default_moves: Option<&[Outcome]>,
        lines: &mut [OutcomeLine],
        bars: &dyn Bars,
    ) -> Result<(Judged, Option<Judged>), EvalError> {
        let limit: Limit = self.args.judge_limit.parse()?;
        let cache = match &self.args.judge_cache {
            Some(path) => JudgeCache::open(path, judge_cmd, &[], limit)?,
            None => JudgeCache::none(judge_cmd, &[], limit),
        };
        let items: Vec<(Chess, Option<Move>, Option<Move>)> = samples
            .iter()
            .zip(outcomes)
            .map(|(s, o)| (s.game.position.clone(), o.played, Some(s.human)))
            .collect();
        let bar = bars.bar("positions judged");
        let losses = judge_each(&cache, &items, self.threads, &*bar)?;
        cache.save()?;
        for (line, l) in lines.iter_mut().zip(&losses) {
            (line.loss, line.human_loss, line.value) = (l.engine, l.human, Some(l.best));
        }
        let Some(theirs) = default_moves else {
            return Ok((judged_of(&losses), None));
        };
        // The humans' moves are judged once, above.
        let items: Vec<(Chess, Option<Move>, Option<Move>)> = samples
            .iter()
            .zip(theirs)
            .map(|(s, o)| (s.game.position.clone(), o.played, None))
            .collect();
        let bar = bars.bar("default style's moves judged");
        let judged = judge(&cache, &items, self.threads, &*bar)?;
        cache.save()?;
        Ok((judged_of(&losses), Some(judged)))
    }

    /// The comparisons that run Precedent again on the same positions (`ablation`, `compare`,
    /// `against_default`) mean nothing beside an external engine: refused before any work (the
    /// command line's clap refuses them first; this guards the lab's own callers).
    fn refuse_comparisons_of_an_engine(&self) -> Result<(), EvalError> {
        let args = self.args;
        if args.engine.is_none() {
            return Ok(());
        }
        let asked = [
            (args.ablation, "--ablation"),
            (args.compare.is_some(), "--compare"),
            (args.against_default, "--against-default"),
        ];
        match asked.iter().find(|(on, _)| *on) {
            Some((_, flag)) => Err(EvalError::Other(format!(
                "{flag} measures Precedent's case base against itself; it does not apply to --engine"
            ))),
            None => Ok(()),
        }
    }

    /// The cases ablation: the same positions with a one-game case base.
    fn ablation(
        &self,
        positions: &[(Game, Option<Move>)],
        outcomes: &[Outcome],
        bars: &dyn Bars,
    ) -> Result<super::Comparison, EvalError> {
        let cb = self.cb.voters();
        if cb.game_count() == 0 {
            return Err(EvalError::Other(format!(
                "{}: the case base has no game",
                cb.name()
            )));
        }
        // One game in place of everything the engine knows, a player's cases included.
        let one = cb.one_game(0)?;
        let game = cb.game(0).unwrap_or_default();
        let described = format!(
            "{} vs {}, {} ({} cases)",
            game.white,
            game.black,
            game.date,
            one.len()
        );
        let (_, ablated) = self.moves_for(Knowledge::of(&one), positions, bars)?;
        compare(described, outcomes, &ablated).ok_or_else(|| {
            EvalError::Other("the ablation run did not answer every position".into())
        })
    }

    /// The EPD suite of `args.epd` solved; a record that does not parse is skipped and named
    /// through `bars`' notes.
    pub fn epd(&self, bars: &dyn Bars) -> Result<EpdReport, EvalError> {
        let path = self.args.epd.clone().unwrap_or_default();
        let started = Instant::now();
        let file = std::fs::File::open(&path)
            .map_err(|e| EvalError::Other(format!("{}: cannot open: {e}", path.display())))?;
        let mut records: Vec<EpdRecord> = Vec::new();
        let mut skipped = 0;
        let notes = bars.bar("positions");
        for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line =
                line.map_err(|e| EvalError::Other(format!("{}: read error: {e}", path.display())))?;
            match parse_line(&line, i + 1) {
                Ok(Some(r)) => records.push(r),
                Ok(None) => {}
                Err(e) => {
                    skipped += 1;
                    notes.note(&format!("{}: {e} (skipped)", path.display()));
                }
            }
        }
        if records.is_empty() {
            return Err(EvalError::Other(format!(
                "{}: no usable EPD record ({skipped} skipped)",
                path.display()
            )));
        }
        let positions: Vec<(Game, Option<Move>)> = records
            .iter()
            .map(|r| (Game::new(r.pos.clone()), None))
            .collect();
        let (name, outcomes) = self.moves_for(self.cb, &positions, bars)?;
        let mut r = epd_report(name, &records, &outcomes, started.elapsed().as_secs_f64());
        r.suite = path.display().to_string();
        Ok(r)
    }
}

impl fmt::Display for Report {
    /// The report as `precedent eval` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        writeln!(f, "{}", r.engine)?;
        writeln!(
            f,
            "{} positions from {} games ({} games excluded: also in the case base; {} eligible positions)",
            r.positions,
            r.sampling.games_used,
            r.sampling.games_in_casebase,
            r.sampling.eligible_positions
        )?;
        writeln!(
            f,
            "move-matching accuracy {:.2}% ({} of {}), 95% CI {:.2}–{:.2}%",
            r.accuracy * 100.0,
            r.matches,
            r.positions,
            r.ci_low * 100.0,
            r.ci_high * 100.0
        )?;
        if let (Some(t), Some(ll)) = (r.top3, r.mean_log_likelihood) {
            writeln!(
                f,
                "top-3 accuracy {:.2}%; mean log-likelihood of the human move {:.3} nats \
                 (± {:.3})",
                t * 100.0,
                ll,
                1.96 * r.log_likelihood_se.unwrap_or(0.0)
            )?;
        }
        r.fmt_comparisons(f)?;
        if let (Some(e), Some(s)) = (r.exact_match_rate, r.mean_top_similarity) {
            writeln!(
                f,
                "exact position in the case base: {:.1}%; mean top similarity {:.3}",
                e * 100.0,
                s
            )?;
        }
        for (title, groups) in [("by mover rating", &r.by_band), ("by phase", &r.by_phase)] {
            writeln!(f, "{title}:")?;
            for g in groups {
                writeln!(
                    f,
                    "  {:<12} {:>6} positions  {:>6.2}%  ({:.2}–{:.2}%)",
                    g.name,
                    g.positions,
                    g.accuracy * 100.0,
                    g.ci_low * 100.0,
                    g.ci_high * 100.0
                )?;
            }
        }
        r.fmt_judged(f)?;
        writeln!(f, "{:.1} s", r.seconds)
    }
}

impl Report {
    fn fmt_comparisons(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        for (title, delta, own, other, c) in [
            (
                "cases ablation (one game: ",
                "Δcases",
                "this case base",
                "the other",
                &r.ablation,
            ),
            (
                "compared with (",
                "Δ",
                "this case base",
                "the other",
                &r.comparison,
            ),
            (
                "against the default style (",
                "Δ",
                "the level",
                "the default style",
                &r.against_default,
            ),
            ("paired with (", "Δ", "this run", "the other", &r.paired),
        ] {
            let Some(a) = c else { continue };
            writeln!(
                f,
                "{title}{}): accuracy {:.2}%{}; {delta} {:+.2} pp, 95% CI {:+.2} to {:+.2} pp ({own} only: {}, {other} only: {})",
                a.against,
                a.accuracy * 100.0,
                a.mean_log_likelihood
                    .map_or(String::new(), |ll| format!(", log-likelihood {ll:.3}")),
                a.delta * 100.0,
                a.delta_ci_low * 100.0,
                a.delta_ci_high * 100.0,
                a.own_only,
                a.other_only
            )?;
            if let Some(d) = a.log_likelihood_delta {
                writeln!(
                    f,
                    "  Δlog-likelihood {:+.4} nats, 95% CI {:+.4} to {:+.4}",
                    d.delta, d.ci_low, d.ci_high
                )?;
            }
        }
        Ok(())
    }

    fn fmt_judged(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(j) = &self.judged {
            writeln!(
                f,
                "move quality ({} positions judged): engine mean loss {:.0} cp, blunders {:.1}%, \
                 expected score lost {:.2}% a move; humans {} cp, {}, {}",
                j.judged,
                j.mean_cp_loss,
                j.blunder_rate * 100.0,
                j.mean_score_loss * 100.0,
                j.human_mean_cp_loss
                    .map_or("-".into(), |v| format!("{v:.0}")),
                j.human_blunder_rate
                    .map_or("-".into(), |v| format!("{:.1}%", v * 100.0)),
                j.human_mean_score_loss
                    .map_or("-".into(), |v| format!("{:.2}%", v * 100.0))
            )?;
        }
        if let Some(j) = &self.default_judged {
            writeln!(
                f,
                "the default style's move quality: mean loss {:.0} cp, blunders {:.1}%",
                j.mean_cp_loss,
                j.blunder_rate * 100.0
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for EpdReport {
    /// The report as `precedent eval --epd` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.engine)?;
        writeln!(
            f,
            "{}: solved {} of {} ({:.1}%)",
            self.suite,
            self.solved,
            self.total,
            self.solved_rate * 100.0
        )?;
        if let (Some(p), Some(m)) = (self.points, self.max_points) {
            writeln!(f, "points {p} of {m} ({:.1}%)", 100.0 * p as f64 / m as f64)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use crate::positions::Movers;

    use crate::positions::sample_fixture as fixture;

    /// The embedded case base and the configuration of pure retrieval (no search: no clock).
    fn reasoner() -> (CaseBase, EngineConfig) {
        let mut cfg = EngineConfig::default();
        cfg.revise.enabled = false;
        (CaseBase::embedded().expect("embedded"), cfg)
    }

    /// `positions` positions of the fixture's movers, bands 200 wide.
    fn sample(positions: usize) -> EvalArgs {
        EvalArgs {
            pgn: Some(fixture()),
            positions,
            band_width: 200,
            ..EvalArgs::default()
        }
    }

    /// A run of `args` on `cb` with `cfg`, seed 1, one thread.
    fn on<'a>(args: &'a EvalArgs, cb: &'a CaseBase, cfg: &'a EngineConfig) -> EvalRun<'a> {
        EvalRun {
            args,
            cb: Knowledge::of(cb),
            cfg,
            seed: 1,
            threads: 1,
        }
    }

    #[test]
    fn eval_on_held_out_games_is_reproducible_and_leaves_the_case_base_out() {
        let (cb, cfg) = reasoner();
        let args = EvalArgs {
            ablation: true,
            ..sample(40)
        };
        let run = on(&args, &cb, &cfg);
        let a = run.pgn(&Silent).expect("eval");
        assert_eq!(a.positions, 40);
        assert!(
            a.sampling.games_in_casebase > 0,
            "the fixture's games are partly in the case base"
        );
        assert!(a.matches > 0 && a.matches < 40, "{}", a.matches);
        let b = run.pgn(&Silent).expect("eval again");
        assert_eq!((a.matches, a.positions), (b.matches, b.positions));
        let ablation = a.ablation.as_ref().expect("ablation");
        assert!(
            ablation.delta > 0.0,
            "the whole case base matches more than one game"
        );
        let text = a.to_string();
        assert!(
            text.contains("move-matching accuracy") && text.contains("Δcases"),
            "{text}"
        );
        let other = EvalRun { seed: 2, ..run };
        assert_ne!(
            other
                .pgn(&Silent)
                .expect("eval")
                .sampling
                .eligible_positions,
            0
        );
    }

    #[test]
    fn two_runs_on_the_same_positions_are_paired_through_their_outcome_files() {
        let (cb, cfg) = reasoner();
        let dir = tempfile::tempdir().expect("tempdir");
        let first = dir.path().join("k1.jsonl");
        let args = EvalArgs {
            outcomes: Some(first.clone()),
            ..sample(30)
        };
        let mut one = cfg.clone();
        one.reuse.k = 1;
        let run = on(&args, &cb, &one);
        let a = run.pgn(&Silent).expect("eval, k = 1");
        assert_eq!(
            std::fs::read_to_string(&first)
                .expect("written")
                .lines()
                .count(),
            30
        );
        // The default settings on the same sample, paired with the first run's file.
        let second = dir.path().join("default.jsonl");
        let paired_args = EvalArgs {
            outcomes: Some(second.clone()),
            paired_with: Some(first.clone()),
            ..args.clone()
        };
        let run = EvalRun {
            args: &paired_args,
            cfg: &cfg,
            ..run
        };
        let b = run.pgn(&Silent).expect("eval, paired");
        let p = b.paired.as_ref().expect("paired");
        assert_eq!(p.positions, 30);
        let delta = (b.matches as f64 - a.matches as f64) / 30.0;
        assert!((p.delta - delta).abs() < 1e-12, "{p:?}");
        assert!((p.accuracy - a.accuracy).abs() < 1e-12);
        // Position by position: the counts of positions only one run matched come from the
        // two files read side by side (a misaligned pairing would count others).
        let read = |f: &std::path::Path| crate::eval::read_outcomes(f).expect("outcomes");
        let (k1, default) = (read(&first), read(&second));
        let only = |x: &[crate::eval::OutcomeLine], y: &[crate::eval::OutcomeLine]| {
            x.iter()
                .zip(y)
                .filter(|(x, y)| x.matched && !y.matched)
                .count() as u64
        };
        assert_eq!(
            (p.own_only, p.other_only),
            (only(&default, &k1), only(&k1, &default))
        );
        assert!(
            p.own_only + p.other_only > 0,
            "k = 1 and k = 64 differ somewhere: {p:?}"
        );
        assert!(b.to_string().contains("paired with ("), "{b}");
        // Another sample is refused with the position that differs.
        let other = EvalRun { seed: 2, ..run };
        let e = other.pgn(&Silent).expect_err("another sample");
        assert!(e.to_string().contains("not the same sample"), "{e}");
    }

    #[test]
    fn a_level_searched_to_a_depth_repeats_move_for_move_on_two_threads() {
        // Level 2200 chooses among the moves its search and the cases rate; with a depth instead
        // of a clock, neither the machine's load nor the threads' order may change a move or a
        // probability.
        let cfg = EngineConfig {
            elo: Some(2200),
            ..EngineConfig::default()
        };
        let cb = CaseBase::embedded().expect("embedded");
        let dir = tempfile::tempdir().expect("tempdir");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("pool");
        let outcomes = |name: &str| {
            let path = dir.path().join(name);
            let args = EvalArgs {
                depth: Some(3),
                outcomes: Some(path.clone()),
                ..sample(16)
            };
            let run = EvalRun {
                threads: 2,
                ..on(&args, &cb, &cfg)
            };
            pool.install(|| run.pgn(&Silent)).expect("eval");
            std::fs::read_to_string(&path).expect("outcomes")
        };
        let (a, b) = (outcomes("a.jsonl"), outcomes("b.jsonl"));
        assert_eq!(a.lines().count(), 16);
        assert!(a.contains("\"probability\":0."), "the model ran: {a}");
        assert_eq!(a, b);
    }

    #[test]
    fn comparisons_of_an_external_engine_are_refused_before_it_runs() {
        let (cb, cfg) = reasoner();
        // An engine that cannot start: a check made after the engine's run would report that.
        let engine = Some("/nonexistent/engine".to_string());
        let cases = [
            (
                EvalArgs {
                    ablation: true,
                    ..sample(4)
                },
                "--ablation",
            ),
            (
                EvalArgs {
                    compare: Some("/nonexistent/other.cb".into()),
                    ..sample(4)
                },
                "--compare",
            ),
            (
                EvalArgs {
                    against_default: true,
                    ..sample(4)
                },
                "--against-default",
            ),
        ];
        for (args, flag) in cases {
            let args = EvalArgs {
                engine: engine.clone(),
                ..args
            };
            let e = on(&args, &cb, &cfg).pgn(&Silent).expect_err(flag);
            assert!(e.to_string().starts_with(flag), "{flag}: {e}");
        }
    }

    #[test]
    fn eval_refuses_a_sample_that_no_position_passes() {
        let (cb, cfg) = reasoner();
        let args = EvalArgs {
            select: PositionFlags::new(
                Movers {
                    min_elo: Some(4000),
                    max_elo: None,
                },
                0,
            ),
            ..sample(10)
        };
        let run = on(&args, &cb, &cfg);
        let e = run.pgn(&Silent).expect_err("no position");
        assert!(
            e.to_string().contains("no position passes the filters"),
            "{e}"
        );
    }

    #[test]
    fn an_epd_suite_is_solved_and_bad_records_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.epd");
        std::fs::write(
            &path,
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8#; id \"mate\";\nnot an epd line\n",
        )
        .expect("write");
        let (cb, mut cfg) = reasoner();
        cfg.revise.enabled = true;
        cfg.style = precedent::think::Style::Best;
        let args = EvalArgs {
            epd: Some(path),
            movetime: Some(200),
            ..EvalArgs::default()
        };
        let run = on(&args, &cb, &cfg);
        let r = run.epd(&Silent).expect("epd");
        assert_eq!((r.solved, r.total), (1, 1), "{r}");
    }
}
