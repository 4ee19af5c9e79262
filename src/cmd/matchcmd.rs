//! `precedent match`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use precedent_lab::tournament::game::Adjudication;
use precedent_lab::tournament::openings::{Opening, chess960, load};
use precedent_lab::tournament::player::{PlayerSpec, TimeControl};
use precedent_lab::tournament::{MatchConfig, MatchReport, Pairing, run};

/// Arguments of `precedent match`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A player (repeatable, at least two): `precedent:name=N,casebase=FILE,k=32,p=16,mode=…,
    /// weights=1:1:1:1:1:1`, `uci:name=N,cmd=/usr/games/stockfish,opt.Skill Level=0,tc=10+0.1`,
    /// or `random:name=N`.
    #[arg(long = "player", value_name = "SPEC", required = true)]
    players: Vec<PlayerSpec>,
    /// round-robin (every pair) or gauntlet (the first player against the others).
    #[arg(long, value_enum, default_value_t = Pairing::RoundRobin)]
    pairing: Pairing,
    /// Games per pair (even: each opening is played twice, colours reversed).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Seed for the opening order and the players' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    settings: MatchSettings,
    /// Write every game here.
    #[arg(long, value_name = "FILE")]
    pgn_out: Option<PathBuf>,
    /// Anchor the ratings: NAME=ELO (default: the players' mean is 0).
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Match settings shared by `match` and `experiment`.
#[derive(clap::Args, Debug)]
pub struct MatchSettings {
    /// Opening suite: .pgn/.pgn.zst (end positions of the games) or .epd; default: the initial
    /// position.
    #[arg(long)]
    openings: Option<String>,
    /// Time control, SECONDS+INCREMENT (an engine's own tc= overrides it).
    #[arg(long, default_value = "10+0.1")]
    tc: TimeControl,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Adjudicate a draw after this many plies (after the opening).
    #[arg(long)]
    max_plies: Option<u32>,
    /// Resign adjudication from an external engine's score: CP:MOVES (e.g. 1000:3).
    #[arg(long, value_name = "CP:MOVES")]
    resign: Option<String>,
    /// Chess960: the openings are the 960 start positions (in an order drawn from --seed),
    /// engines get UCI_Chess960 true and castling is written king takes rook.
    #[arg(long, conflicts_with = "openings")]
    chess960: bool,
    /// Start every engine afresh for every game (default: each engine process plays game
    /// after game, with ucinewgame between them, as in a GUI; one that fails is restarted).
    #[arg(long)]
    restart: bool,
}

impl MatchSettings {
    /// A match configuration with these settings and no players yet.
    pub fn config(
        &self,
        games_per_pair: usize,
        seed: u64,
        pgn_out: Option<PathBuf>,
        event: &str,
    ) -> Result<MatchConfig> {
        if games_per_pair == 0 {
            bail!("--games must be at least 1");
        }
        let openings = match &self.openings {
            Some(path) => load(path, 100_000)?,
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
pub fn parse_resign(s: &str) -> Result<(i32, u32)> {
    let (cp, moves) = s
        .split_once(':')
        .ok_or_else(|| anyhow::anyhow!("--resign {s:?}: expected CP:MOVES"))?;
    Ok((cp.trim().parse()?, moves.trim().parse()?))
}

/// Runs `precedent match`.
pub fn run_cmd(args: Args) -> Result<()> {
    let anchor = match &args.anchor {
        Some(a) => {
            let (name, elo) = a
                .rsplit_once('=')
                .ok_or_else(|| anyhow::anyhow!("--anchor {a:?}: expected NAME=ELO"))?;
            Some((name.to_string(), elo.trim().parse::<f64>()?))
        }
        None => None,
    };
    let cfg = MatchConfig {
        players: args.players,
        pairing: args.pairing,
        anchor,
        ..args
            .settings
            .config(args.games, args.seed, args.pgn_out, "Precedent match")?
    };
    let report = run(&cfg, &super::progress::Bar::new("games"))?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

/// The human-readable match report.
pub fn print_report(r: &MatchReport) {
    println!(
        "{:<24} {:>6} {:>7} {:>5} {:>5} {:>5} {:>8}  {:<17} failures",
        "player", "games", "score", "won", "drawn", "lost", "elo", "95% interval"
    );
    let mut order: Vec<usize> = (0..r.players.len()).collect();
    order.sort_by(|&a, &b| r.players[b].elo.total_cmp(&r.players[a].elo));
    for &i in &order {
        let p = &r.players[i];
        println!(
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
        );
    }
    println!("Elo anchored to: {}", r.anchor);
    println!("crosstable (points scored by the row player against the column player):");
    print!("{:<24}", "");
    for &j in &order {
        print!(" {:>10.10}", r.players[j].name);
    }
    println!();
    for &i in &order {
        print!("{:<24}", r.players[i].name);
        for &j in &order {
            if i == j || r.crosstable.games[i][j] == 0 {
                print!(" {:>10}", "-");
            } else {
                print!(
                    " {:>10}",
                    format!("{}/{}", r.crosstable.points[i][j], r.crosstable.games[i][j])
                );
            }
        }
        println!();
    }
    println!("pairs:");
    for p in &r.pairwise {
        let rec = &p.record;
        println!(
            "  {} vs {}: +{} ={} -{} ({:.1}%), Elo difference {:+.0}, LOS {:.1}%",
            p.a_name,
            p.b_name,
            rec.wins,
            rec.draws,
            rec.losses,
            rec.score * 100.0,
            rec.elo_diff,
            rec.los * 100.0
        );
    }
    let mut terms: Vec<_> = r.terminations.iter().collect();
    terms.sort();
    println!(
        "terminations: {}",
        terms
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for &i in &order {
        let p = &r.players[i];
        let t = &p.times;
        if t.moves > 0 {
            println!(
                "{}: slowest move {:.0} ms (its budget {:.0} ms), worst excess over budget {:+.0} ms, least clock left {:.0} ms, {} moves",
                p.name,
                t.slowest_ms,
                t.slowest_budget_ms,
                t.worst_over_budget_ms,
                t.least_clock_left_ms,
                t.moves
            );
        }
        if !p.forfeits.is_empty() {
            let kinds: Vec<String> = p.forfeits.iter().map(|(k, v)| format!("{k} {v}")).collect();
            println!("{}: games lost by failure: {}", p.name, kinds.join(", "));
        }
        // Memory early (game 10 of the match, once the tables have filled) against the end.
        let early = p
            .memory
            .iter()
            .find(|m| m.after_games >= 10)
            .or(p.memory.first());
        if let (Some(early), Some(last)) = (early, p.memory.last()) {
            let peak = p.memory.iter().map(|m| m.kb).max().unwrap_or(0);
            println!(
                "{}: resident memory {} kB after game {} of the match, {} kB after game {} ({:.2}x); peak {} kB",
                p.name,
                early.kb,
                early.after_games,
                last.kb,
                last.after_games,
                last.kb as f64 / early.kb.max(1) as f64,
                peak
            );
        }
    }
    println!("{} failures; {:.1} s", r.failures.len(), r.seconds);
}
