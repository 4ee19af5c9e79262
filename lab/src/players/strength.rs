//! How strong a player's bot plays: games of the player's file, loaded as a user loads it (the
//! `CaseBase` option, every other setting at its default), against Stockfish's limited
//! strength (`UCI_LimitStrength`, `UCI_Elo`: the scale the levels are calibrated on) at the
//! level of the player's rating, through fastchess from the 8-move openings with two-sided
//! resign adjudication; the bot's Elo from its score, with its interval.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;
use shakmaty::Color;

use super::slug;
use crate::eval::EvalError;
use crate::rating::elo_from_score;
use precedent::pgn::{Selection, Speed, for_each_game};
use precedent::player::{Player, Strength};
use precedent::think::{EngineConfig, PlayerClock};

/// Stockfish's `UCI_Elo` range (15.1): an anchor is brought into it.
pub const ANCHOR_RANGE: (u16, u16) = (1350, 2850);

/// How the strength matches are played.
#[derive(clap::Args, Clone, Debug)]
pub struct StrengthArgs {
    /// Play each player's file against this UCI engine's limited strength (Stockfish:
    /// `UCI_LimitStrength` with `UCI_Elo` at the level of the player's rating) and report the
    /// bot's Elo: e.g. /usr/games/stockfish.
    #[arg(long = "strength", value_name = "CMD")]
    pub anchor: Option<String>,
    /// Games a player (an even number: each opening with both colours).
    #[arg(long, default_value_t = 40, requires = "anchor")]
    pub strength_games: u32,
    /// The matches' time control.
    #[arg(long, default_value = "10+0.1", requires = "anchor")]
    pub strength_tc: String,
    /// Games played at once.
    #[arg(long, default_value_t = 2, requires = "anchor")]
    pub strength_concurrency: u32,
    /// The opening suite (PGN; .pgn.zst is decompressed first).
    #[arg(long, value_name = "FILE", requires = "anchor")]
    pub openings: Option<PathBuf>,
    /// The fastchess binary.
    #[arg(
        long,
        default_value = "fastchess",
        value_name = "PATH",
        requires = "anchor"
    )]
    pub fastchess: String,
    /// Seed of the openings' order.
    #[arg(long, default_value_t = 93, requires = "anchor")]
    pub strength_seed: u64,
}

/// One player's strength match.
#[derive(Clone, Debug, Serialize)]
pub struct StrengthResult {
    /// The rating the bot plays at under the match's clock, and the speed it is of.
    pub rating: u16,
    /// That rating's speed (`None`: all their games).
    pub speed: Option<String>,
    /// The level it plays (the `UCI_Elo` setting nearest the rating).
    pub level: u16,
    /// The anchor's `UCI_Elo`.
    pub anchor: u16,
    /// Games finished with a result.
    pub games: u32,
    /// The bot's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// The bot's losses.
    pub losses: u32,
    /// The bot's score (0..=1).
    pub score: f64,
    /// Its Elo: the anchor's plus the difference its score gives.
    pub elo: f64,
    /// The 95 % interval's ends.
    pub elo_low: f64,
    /// Upper end.
    pub elo_high: f64,
    /// The games (PGN).
    pub pgn: String,
}

impl StrengthResult {
    /// The bot's Elo from `wins`, `draws` and `losses` against an anchor of `anchor`, with the
    /// 95 % interval of its score (the games' own spread) carried to Elo.
    fn rate(mut self) -> StrengthResult {
        let n = f64::from(self.games.max(1));
        let points = f64::from(self.wins) + 0.5 * f64::from(self.draws);
        let s = points / n;
        let square = (f64::from(self.wins) + 0.25 * f64::from(self.draws)) / n;
        let sd = (square - s * s).max(0.0).sqrt();
        let half = 1.96 * sd / n.sqrt();
        let anchor = f64::from(self.anchor);
        self.score = s;
        self.elo = anchor + elo_from_score(s);
        self.elo_low = anchor + elo_from_score((s - half).max(0.0));
        self.elo_high = anchor + elo_from_score((s + half).min(1.0));
        self
    }
}

/// The clock `tc` (`SECONDS+INCREMENT`) as seconds.
fn clock(tc: &str) -> Result<(f64, f64), EvalError> {
    let bad = || EvalError::Other(format!("--strength-tc {tc:?}: expected SECONDS+INCREMENT"));
    let (base, inc) = tc.split_once('+').unwrap_or((tc, "0"));
    let base: f64 = base.trim().parse().map_err(|_| bad())?;
    let inc: f64 = inc.trim().parse().map_err(|_| bad())?;
    if !(base > 0.0 && inc >= 0.0) {
        return Err(bad());
    }
    Ok((base, inc))
}

/// The strength `player`'s bot plays at under the clock `tc` with the settings `cfg`, and the
/// level it is: the rating of the speed of that clock (unless `PlayerClock` names one).
pub fn played_at(
    player: &Player,
    cfg: &EngineConfig,
    tc: &str,
) -> Result<(Strength, u16), EvalError> {
    let (base, inc) = clock(tc)?;
    let speed = match cfg.player_clock {
        PlayerClock::Auto => Speed::of_clock(base, inc),
        set => set.speed().unwrap_or(Speed::of_clock(base, inc)),
    };
    let strength = player.strength(Some(speed)).ok_or_else(|| {
        EvalError::Other(format!(
            "{}: their games carry no rating: no strength to play at",
            player.profile().name
        ))
    })?;
    let level = cfg
        .level_for(strength.rating)
        .map(|c| c.level.elo)
        .ok_or_else(|| EvalError::Other("the parameters have no levels".into()))?;
    Ok((strength, level))
}

/// The opening suite as a plain PGN file fastchess reads: `openings` itself, or decompressed
/// into `dir`.
fn plain_openings(openings: &Path, dir: &Path) -> Result<PathBuf, EvalError> {
    if openings.extension().is_none_or(|e| e != "zst") {
        return Ok(openings.to_path_buf());
    }
    let plain = dir.join("openings.pgn");
    if plain.exists() {
        return Ok(plain);
    }
    let err = |e: std::io::Error| EvalError::Other(format!("{}: {e}", openings.display()));
    let mut reader = precedent::pgn::open_input(&openings.display().to_string())?.reader;
    let partial = dir.join("openings.pgn.part");
    let mut out = std::fs::File::create(&partial).map_err(err)?;
    std::io::copy(&mut reader, &mut out).map_err(err)?;
    std::fs::rename(&partial, &plain).map_err(err)?;
    Ok(plain)
}

/// Plays the match of the player file `file` (player `player`, the bot run as `engine`)
/// against the anchor, writes its games and log into `dir`, and rates the bot.
pub fn play(
    args: &StrengthArgs,
    (engine, file, player): (&Path, &Path, &Player),
    cfg: &EngineConfig,
    dir: &Path,
) -> Result<StrengthResult, EvalError> {
    let Some(anchor_cmd) = &args.anchor else {
        return Err(EvalError::Other("--strength: no anchor engine".into()));
    };
    if args.strength_games == 0 || !args.strength_games.is_multiple_of(2) {
        return Err(EvalError::Other(format!(
            "--strength-games {}: an even number of games, at least 2",
            args.strength_games
        )));
    }
    let openings = args.openings.as_deref().ok_or_else(|| {
        EvalError::Other("--strength needs --openings (the 8-move suite's PGN)".into())
    })?;
    let (strength, level) = played_at(player, cfg, &args.strength_tc)?;
    let anchor = level.clamp(ANCHOR_RANGE.0, ANCHOR_RANGE.1);
    let name = slug(&player.profile().name);
    let book = plain_openings(openings, dir)?;
    let pgn = dir.join(format!("{name}.strength.pgn"));
    let log = dir.join(format!("{name}.strength.log"));
    let _ = std::fs::remove_file(&pgn);
    let path = |p: &Path| p.display().to_string();
    let mut command = Command::new(&args.fastchess);
    command
        .arg("-engine")
        .arg(format!("cmd={}", path(engine)))
        .arg(format!("name={name}"))
        .arg(format!("option.CaseBase={}", path(file)))
        .arg(format!("option.PlayerStrength={}", cfg.player_strength))
        .arg(format!("option.PlayerErrors={}", cfg.player_errors))
        .arg("-engine")
        .arg(format!("cmd={anchor_cmd}"))
        .arg(format!("name=anchor{anchor}"))
        .args([
            "option.UCI_LimitStrength=true".to_string(),
            format!("option.UCI_Elo={anchor}"),
            "option.Threads=1".to_string(),
            "option.Hash=16".to_string(),
        ])
        .arg("-each")
        .arg(format!("tc={}", args.strength_tc))
        .arg("-openings")
        .arg(format!("file={}", path(&book)))
        .args(["format=pgn", "order=random"])
        .args(["-srand", &args.strength_seed.to_string()])
        .args(["-rounds", &(args.strength_games / 2).to_string()])
        .args(["-games", "2", "-repeat"])
        .args(["-concurrency", &args.strength_concurrency.to_string()])
        .args(["-resign", "movecount=3", "score=1000", "twosided=true"])
        .arg("-pgnout")
        .arg(format!("file={}", path(&pgn)));
    let log_file = std::fs::File::create(&log)
        .map_err(|e| EvalError::Other(format!("{}: cannot write: {e}", log.display())))?;
    let status = command
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(Stdio::null())
        .status()
        .map_err(|e| {
            EvalError::Other(format!(
                "{}: cannot run fastchess ({e}); build it from its public source, or give \
                 --fastchess PATH",
                args.fastchess
            ))
        })?;
    if !status.success() {
        return Err(EvalError::Other(format!(
            "fastchess failed ({status}); its log: {}",
            log.display()
        )));
    }
    let (wins, draws, losses) = record(&pgn, &name)?;
    let games = wins + draws + losses;
    if games == 0 {
        return Err(EvalError::Other(format!(
            "{}: no finished game of {name}; the log: {}",
            pgn.display(),
            log.display()
        )));
    }
    Ok(StrengthResult {
        rating: strength.rating,
        speed: strength.speed.map(|s| s.to_string()),
        level,
        anchor,
        games,
        wins,
        draws,
        losses,
        score: 0.0,
        elo: 0.0,
        elo_low: 0.0,
        elo_high: 0.0,
        pgn: path(&pgn),
    }
    .rate())
}

/// The wins, draws and losses of the player named `name` in the games of `pgn` (games without
/// a result are not counted).
pub fn record(pgn: &Path, name: &str) -> Result<(u32, u32, u32), EvalError> {
    let mut tally = (0, 0, 0);
    let nobody = Selection {
        players: vec![String::from("\0")],
        ..Selection::default()
    };
    for_each_game::<EvalError>(&pgn.display().to_string(), &nobody, |_, visitor, _| {
        let h = &visitor.game().header;
        let side = if h.white == name {
            Color::White
        } else if h.black == name {
            Color::Black
        } else {
            return Ok(true);
        };
        match h.result.points_for(side) {
            Some(p) if p > 0.5 => tally.0 += 1,
            Some(p) if p < 0.5 => tally.2 += 1,
            Some(_) => tally.1 += 1,
            None => {}
        }
        Ok(true)
    })?;
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_rates_the_bot_around_the_anchor_with_a_wider_interval_for_fewer_games() {
        let rated = |w, d, l| {
            StrengthResult {
                rating: 1500,
                speed: None,
                level: 1400,
                anchor: 1400,
                games: w + d + l,
                wins: w,
                draws: d,
                losses: l,
                score: 0.0,
                elo: 0.0,
                elo_low: 0.0,
                elo_high: 0.0,
                pgn: String::new(),
            }
            .rate()
        };
        let even = rated(10, 20, 10);
        assert!((even.elo - 1400.0).abs() < 1e-9, "{}", even.elo);
        assert!(even.elo_low < 1400.0 && even.elo_high > 1400.0);
        // 75 %: about 191 above.
        let ahead = rated(30, 0, 10);
        assert!((ahead.elo - 1400.0 - 190.8).abs() < 0.5, "{}", ahead.elo);
        let few = rated(3, 0, 1);
        assert!(few.elo_high - few.elo_low > ahead.elo_high - ahead.elo_low);
    }

    #[test]
    fn the_record_counts_the_named_players_results_from_either_side() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pgn = dir.path().join("m.pgn");
        let game = |w: &str, b: &str, r: &str| {
            format!("[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{r}\"]\n\n1. e4 e5 {r}\n\n")
        };
        let text = [
            game("bot", "anchor1350", "1-0"),
            game("anchor1350", "bot", "1-0"),
            game("anchor1350", "bot", "1/2-1/2"),
            game("bot", "anchor1350", "0-1"),
            game("anchor1350", "bot", "*"),
            game("other", "anchor1350", "1-0"),
        ]
        .concat();
        std::fs::write(&pgn, text).expect("write");
        assert_eq!(record(&pgn, "bot").expect("read"), (1, 1, 2));
    }

    #[test]
    fn a_clock_must_be_seconds_plus_an_increment() {
        assert_eq!(clock("10+0.1").expect("tc"), (10.0, 0.1));
        assert_eq!(clock("60").expect("tc"), (60.0, 0.0));
        assert!(clock("ten").is_err());
        assert!(clock("0+1").is_err());
    }
}
