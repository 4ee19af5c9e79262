//! `precedent match` as a workflow: its arguments and settings (shared with `experiment`), and
//! the report's text.

use std::fmt;
use std::path::PathBuf;

use super::game::Adjudication;
use super::openings::{Opening, chess960, load};
use super::player::{PlayerSpec, TimeControl};
use super::{MatchConfig, MatchError, MatchReport, Pairing};

/// The players of `match`, who plays whom, and what the match writes.
#[derive(clap::Args, Clone, Debug)]
pub struct MatchArgs {
    /// A player (repeatable, at least two): `precedent:name=N,casebase=FILE,k=32,p=16,mode=…,
    /// weights=1:1:1:1:1:1` (any setting, as on the command line), `uci:name=N,
    /// cmd=/usr/games/stockfish,opt.Skill Level=0,tc=10+0.1`, or `random:name=N`.
    #[arg(long = "player", value_name = "SPEC", required = true)]
    pub players: Vec<PlayerSpec>,
    /// round-robin (every pair) or gauntlet (the first player against the others).
    #[arg(long, value_enum, default_value_t = Pairing::RoundRobin)]
    pub pairing: Pairing,
    /// Games per pair (even: each opening is played twice, colours reversed).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Seed for the opening order and the players' randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The settings every match shares with `experiment`.
    #[command(flatten)]
    pub settings: MatchSettings,
    /// Write every game here.
    #[arg(long, value_name = "FILE")]
    pub pgn_out: Option<PathBuf>,
    /// Anchor the ratings: NAME=ELO (default: the players' mean is 0).
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<String>,
}

impl MatchArgs {
    /// The match these arguments describe.
    pub fn config(&self) -> Result<MatchConfig, MatchError> {
        let anchor = match &self.anchor {
            Some(a) => {
                let bad = || MatchError::Config(format!("--anchor {a:?}: expected NAME=ELO"));
                let (name, elo) = a.rsplit_once('=').ok_or_else(bad)?;
                Some((
                    name.to_string(),
                    elo.trim().parse::<f64>().map_err(|_| bad())?,
                ))
            }
            None => None,
        };
        let base = self.settings.config(
            self.games,
            self.seed,
            self.pgn_out.clone(),
            "Precedent match",
        )?;
        Ok(MatchConfig {
            players: self.players.clone(),
            pairing: self.pairing,
            anchor,
            ..base
        })
    }
}

/// Match settings shared by `match` and `experiment`.
#[derive(clap::Args, Clone, Debug)]
pub struct MatchSettings {
    /// Opening suite: .pgn/.pgn.zst (end positions of the games) or .epd; default: the initial
    /// position.
    #[arg(long)]
    pub openings: Option<String>,
    /// Time control, SECONDS+INCREMENT (an engine's own tc= overrides it).
    #[arg(long, default_value = "10+0.1")]
    pub tc: TimeControl,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Adjudicate a draw after this many plies (after the opening).
    #[arg(long)]
    pub max_plies: Option<u32>,
    /// Resign adjudication from an external engine's score: CP:MOVES (e.g. 1000:3).
    #[arg(long, value_name = "CP:MOVES")]
    pub resign: Option<String>,
    /// Chess960: the openings are the 960 start positions (in an order drawn from --seed),
    /// engines get UCI_Chess960 true and castling is written king takes rook.
    #[arg(long, conflicts_with = "openings")]
    pub chess960: bool,
    /// Start every engine afresh for every game (default: each engine process plays game
    /// after game, with ucinewgame between them, as in a GUI; one that fails is restarted).
    #[arg(long)]
    pub restart: bool,
}

impl MatchSettings {
    /// A match configuration with these settings and no players yet.
    pub fn config(
        &self,
        games_per_pair: usize,
        seed: u64,
        pgn_out: Option<PathBuf>,
        event: &str,
    ) -> Result<MatchConfig, MatchError> {
        if games_per_pair == 0 {
            return Err(MatchError::Config("--games must be at least 1".into()));
        }
        let openings = match &self.openings {
            Some(path) => load(path, 100_000).map_err(|e| MatchError::Config(e.to_string()))?,
            None if self.chess960 => (0..960).map(chess960).collect(),
            None => vec![Opening::startpos()],
        };
        Ok(MatchConfig {
            players: Vec::new(),
            pairing: Pairing::RoundRobin,
            games_per_pair,
            openings,
            tc: self.tc,
            concurrency: self.concurrency,
            seed,
            adjudication: Adjudication {
                max_plies: self.max_plies,
                resign: self.resign.as_deref().map(parse_resign).transpose()?,
            },
            pgn_out,
            anchor: None,
            event: event.to_string(),
            chess960: self.chess960,
            restart: self.restart,
        })
    }
}

/// Parses `CP:MOVES`.
pub fn parse_resign(s: &str) -> Result<(i32, u32), MatchError> {
    let bad = || MatchError::Config(format!("--resign {s:?}: expected CP:MOVES"));
    let (cp, moves) = s.split_once(':').ok_or_else(bad)?;
    Ok((
        cp.trim().parse().map_err(|_| bad())?,
        moves.trim().parse().map_err(|_| bad())?,
    ))
}

impl MatchReport {
    /// The players' indices, best rated first.
    fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by(|&a, &b| self.players[b].elo.total_cmp(&self.players[a].elo));
        order
    }

    fn fmt_table(&self, f: &mut fmt::Formatter<'_>, order: &[usize]) -> fmt::Result {
        writeln!(
            f,
            "{:<24} {:>6} {:>7} {:>5} {:>5} {:>5} {:>8}  {:<17} failures",
            "player", "games", "score", "won", "drawn", "lost", "elo", "95% interval"
        )?;
        for &i in order {
            let p = &self.players[i];
            writeln!(
                f,
                "{:<24} {:>6} {:>7.1} {:>5} {:>5} {:>5} {:>8.0}  [{:>6.0}, {:>6.0}]  {}",
                p.name,
                p.games,
                p.score,
                p.wins,
                p.draws,
                p.losses,
                p.elo,
                p.ci_low,
                p.ci_high,
                p.failures
            )?;
        }
        writeln!(f, "Elo anchored to: {}", self.anchor)?;
        writeln!(
            f,
            "crosstable (points scored by the row player against the column player):"
        )?;
        write!(f, "{:<24}", "")?;
        for &j in order {
            write!(f, " {:>10.10}", self.players[j].name)?;
        }
        writeln!(f)?;
        let c = &self.crosstable;
        for &i in order {
            write!(f, "{:<24}", self.players[i].name)?;
            for &j in order {
                match i == j || c.games[i][j] == 0 {
                    true => write!(f, " {:>10}", "-")?,
                    false => write!(
                        f,
                        " {:>10}",
                        format!("{}/{}", c.points[i][j], c.games[i][j])
                    )?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }

    fn fmt_player(&self, f: &mut fmt::Formatter<'_>, i: usize) -> fmt::Result {
        let p = &self.players[i];
        let t = &p.times;
        if t.moves > 0 {
            writeln!(
                f,
                "{}: slowest move {:.0} ms (its budget {:.0} ms), worst excess over budget {:+.0} ms, least clock left {:.0} ms, {} moves",
                p.name,
                t.slowest_ms,
                t.slowest_budget_ms,
                t.worst_over_budget_ms,
                t.least_clock_left_ms,
                t.moves
            )?;
        }
        if !p.forfeits.is_empty() {
            let kinds: Vec<String> = p.forfeits.iter().map(|(k, v)| format!("{k} {v}")).collect();
            writeln!(f, "{}: games lost by failure: {}", p.name, kinds.join(", "))?;
        }
        // Memory early (game 10 of the match, once the tables have filled) against the end.
        let early = p
            .memory
            .iter()
            .find(|m| m.after_games >= 10)
            .or(p.memory.first());
        if let (Some(early), Some(last)) = (early, p.memory.last()) {
            let peak = p.memory.iter().map(|m| m.kb).max().unwrap_or(0);
            writeln!(
                f,
                "{}: resident memory {} kB after game {} of the match, {} kB after game {} ({:.2}x); peak {} kB",
                p.name,
                early.kb,
                early.after_games,
                last.kb,
                last.after_games,
                last.kb as f64 / early.kb.max(1) as f64,
                peak
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for MatchReport {
    /// The report as `precedent match` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = self.order();
        self.fmt_table(f, &order)?;
        writeln!(f, "pairs:")?;
        for p in &self.pairwise {
            let rec = &p.record;
            writeln!(
                f,
                "  {} vs {}: +{} ={} -{} ({:.1}%), Elo difference {:+.0}, LOS {:.1}%",
                p.a_name,
                p.b_name,
                rec.wins,
                rec.draws,
                rec.losses,
                rec.score * 100.0,
                rec.elo_diff,
                rec.los * 100.0
            )?;
        }
        let mut terms: Vec<_> = self.terminations.iter().collect();
        terms.sort();
        let terms: Vec<String> = terms.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(f, "terminations: {}", terms.join(", "))?;
        for &i in &order {
            self.fmt_player(f, i)?;
        }
        writeln!(f, "{} failures; {:.1} s", self.failures.len(), self.seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: MatchArgs,
    }

    #[test]
    fn a_match_between_two_random_movers_adds_up_and_reads_as_text() {
        let cli = Cli::try_parse_from([
            "match",
            "--player",
            "random:name=a",
            "--player",
            "random:name=b",
            "--games",
            "4",
            "--tc",
            "1+0",
            "--anchor",
            "a=1000",
            "--max-plies",
            "40",
        ])
        .expect("arguments");
        let report =
            super::super::run(&cli.args.config().expect("config"), &Silent).expect("match");
        let games: u64 = report.players.iter().map(|p| p.games).sum();
        assert_eq!(games, 8, "four games, two players each");
        let points: f64 = report.players.iter().map(|p| p.score).sum();
        assert_eq!(points, 4.0);
        let text = report.to_string();
        assert!(
            text.contains("Elo anchored to: a = 1000") && text.contains("pairs:"),
            "{text}"
        );
    }

    #[test]
    fn bad_match_arguments_are_refused() {
        assert!(parse_resign("1000:3").is_ok() && parse_resign("1000").is_err());
        let cli = Cli::try_parse_from([
            "match",
            "--player",
            "random",
            "--player",
            "random:name=b",
            "--anchor",
            "x",
        ])
        .expect("arguments");
        assert!(cli.args.config().is_err());
        let cli = Cli::try_parse_from([
            "match",
            "--player",
            "random",
            "--player",
            "random:name=b",
            "--games",
            "0",
        ])
        .expect("arguments");
        assert!(cli.args.config().is_err());
    }
}
