//! `precedent build`: PGN games in, a case base out. One streaming pass per input; every
//! selected move becomes a case (the position before it, in the mover's point of view).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shakmaty::{Color, Position};

use super::patterns::LastMove;
use super::profile::{ErrorFit, Judged, PlayedMove, PlayerModel, ProfileBuilder};
use super::record::{CaseClock, GameControl};
use crate::case::CaseMove;
use crate::case::Planes;
use crate::casebase::{
    BuildInfo, BuildOptions, BuildStats, CaseBaseError, CaseBaseWriter, CaseMeta, GameRecord,
    Phase, position_key,
};
use crate::pgn::{
    GameVisitor, InputError, Mover, ParsedGame, Selection, SkipReason, for_each_game,
};

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// PGN inputs (`-` = stdin).
    pub inputs: Vec<String>,
    /// Output file (`.zst` = compressed).
    pub out: PathBuf,
    /// Filters.
    pub options: BuildOptions,
    /// Stop at the first broken game instead of skipping it.
    pub strict: bool,
    /// For a player file: judges a sample of the player's moves for their profile.
    pub judge: Option<Judge>,
    /// For a player file: fits the generic move model to a sample of the player's moves.
    pub fit: Option<FitModel>,
    /// For a player file judged: fits their bot's errors to theirs.
    pub fit_errors: Option<FitErrors>,
    /// The memory the cases are arranged in (bytes); more are sorted in partitions spilled to
    /// disk ([`super::MEMORY`] when not told).
    pub memory: u64,
}

/// What fits the generic move model to a player's moves (the player named by the names given,
/// any spelling), or says why it could not.
pub type FitMoves = dyn Fn(&[PlayedMove], &[String]) -> Result<PlayerModel, String> + Send + Sync;

/// Fits the generic move model to a player's moves (the engine above the case base does it).
#[derive(Clone)]
pub struct FitModel(pub Arc<FitMoves>);

impl std::fmt::Debug for FitModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FitModel")
    }
}

/// What fits a player's bot's errors to theirs (their sample of moves, their names, their
/// profile so far, judged), or says why it could not.
pub type FitErrorsFn =
    dyn Fn(&[PlayedMove], &[String], &super::Profile) -> Result<ErrorFit, String> + Send + Sync;

/// Fits a player's bot's error appetite to their errors (the lab's judge and the engine).
#[derive(Clone)]
pub struct FitErrors(pub Arc<FitErrorsFn>);

impl std::fmt::Debug for FitErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FitErrors")
    }
}

/// What judges a player's moves: their blunder rate and mean loss, or why it could not.
pub type JudgeMoves = dyn Fn(&[PlayedMove]) -> Result<Judged, String> + Send + Sync;

/// Judges a player's moves (the lab's external engine) for their profile.
#[derive(Clone)]
pub struct Judge(pub Arc<JudgeMoves>);

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Judge")
    }
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// An input could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The output could not be written.
    #[error(transparent)]
    Output(#[from] CaseBaseError),
    /// `--strict` and a broken game.
    #[error("{file}: game {game}: {reason}{sep}{detail}", sep = if detail.is_empty() { "" } else { ": " })]
    Strict {
        /// The input the game came from.
        file: String,
        /// The game's number in that input (1-based).
        game: u64,
        /// Why the game is broken (the skip reason's name).
        reason: &'static str,
        /// More about the problem, if anything (may be empty).
        detail: String,
    },
    /// An option value that cannot work.
    #[error("{0}")]
    Options(String),
    /// The judge of a player's moves failed.
    #[error("judging the player's moves: {0}")]
    Judge(String),
    /// Fitting the move model to the player's moves failed.
    #[error("fitting the move model to the player's moves: {0}")]
    Fit(String),
    /// Fitting the bot's errors to the player's failed.
    #[error("fitting the bot's errors to the player's: {0}")]
    Errors(String),
    /// A player file would hold no game: the names match none, or all were left out.
    #[error("{0}")]
    NoPlayerGames(String),
    /// A player file's names are two people: they played each other.
    #[error("{0}")]
    TwoPlayers(String),
}

/// What a finished build reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildSummary {
    /// Games read from all inputs.
    pub games_read: u64,
    /// Games whose moves went into the case base.
    pub games_used: u64,
    /// Games left out (broken or filtered), counted by skip reason (e.g. `illegal move`).
    pub games_skipped: BTreeMap<String, u64>,
    /// Cases written.
    pub cases: u64,
    /// Cases with White to move.
    pub white_cases: u64,
    /// Cases with Black to move.
    pub black_cases: u64,
    /// Wall-clock time of the build (seconds).
    pub seconds: f64,
    /// Build speed (cases per second of wall-clock time).
    pub cases_per_second: f64,
    /// How long each phase took, in order: reading the games, then sorting, deriving and
    /// writing the file.
    pub phases: Vec<super::Phase>,
    /// The output file's path.
    pub output: String,
}

/// Whether a game (by its key) falls in the held-out `percent` of games.
pub fn is_held_out(key: u64, percent: u8) -> bool {
    // The key is a hash already; its low bits are uniform.
    key % 100 < u64::from(percent)
}

/// Whether a game is left out by the build's hold-outs: `holdout` by its key, `holdout_moves`
/// by its moves alone.
fn held_out(options: &BuildOptions, game: &ParsedGame) -> bool {
    options
        .holdout
        .is_some_and(|pct| is_held_out(game.key, pct))
        || options
            .holdout_moves
            .is_some_and(|pct| is_held_out(game.moves_key, pct))
}

/// Every player's name in the inputs with the games under it, read from the tags alone.
pub fn player_names(inputs: &[String]) -> Result<HashMap<String, u64>, BuildError> {
    // A selection no name matches: every game's moves are skipped unread.
    let nobody = Selection {
        players: vec![String::from("\0")],
        ..Selection::default()
    };
    let mut counts: HashMap<String, u64> = HashMap::new();
    for name in inputs {
        for_each_game::<BuildError>(name, &nobody, |_, visitor, _| {
            let header = &visitor.game().header;
            for player in [&header.white, &header.black] {
                if !player.is_empty() && player != "?" {
                    *counts.entry(player.clone()).or_default() += 1;
                }
            }
            Ok(true)
        })?;
    }
    Ok(counts)
}

/// The inputs' most frequent player (names compared case-insensitively; the most frequent
/// spelling named), read from the tags alone.
pub fn main_player(inputs: &[String]) -> Result<Option<String>, BuildError> {
    let mut counts: HashMap<String, (u64, Vec<(String, u64)>)> = HashMap::new();
    for (spelling, games) in player_names(inputs)? {
        let entry = counts.entry(spelling.to_lowercase()).or_default();
        entry.0 += games;
        entry.1.push((spelling, games));
    }
    let top = counts
        .into_iter()
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.0.cmp(&a.0)));
    Ok(top.and_then(|(_, (_, spellings))| {
        spellings
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|s| s.0)
    }))
}

/// The names of `names` (spellings with their games) nearest to `wanted`, at most `n`, most
/// alike first: a name that holds the wanted one (or is held by it) before one that is only
/// spelt alike (Jaro-Winkler similarity 0.8 or more), more games first on a tie.
pub fn nearest_names(wanted: &str, names: &HashMap<String, u64>, n: usize) -> Vec<(String, u64)> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let w = fold(wanted);
    if w.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(f64, &String, u64)> = names
        .iter()
        .filter_map(|(name, games)| {
            let f = fold(name);
            let holds = !f.is_empty() && (f.contains(&w) || w.contains(&f));
            let score = if holds {
                2.0
            } else {
                strsim::jaro_winkler(&w, &f)
            };
            (score >= 0.8).then_some((score, name, *games))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.2.cmp(&a.2)).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(n)
        .map(|(_, name, games)| (name.clone(), games))
        .collect()
}

/// Why a player file kept no game: the names matched no game (with the nearest names the
/// inputs have), or their games (`skipped`, by reason) were all held out or filtered.
fn no_player_games(
    config: &BuildConfig,
    skipped: &BTreeMap<SkipReason, u64>,
) -> Result<BuildError, BuildError> {
    let names = player_names(&config.inputs)?;
    let wanted = &config.options.players;
    let matched: u64 = names
        .iter()
        .filter(|(name, _)| wanted.iter().any(|w| w.eq_ignore_ascii_case(name)))
        .map(|(_, games)| games)
        .sum();
    let given = wanted
        .iter()
        .map(|w| format!("{w:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if matched > 0 {
        let why: Vec<String> = skipped
            .iter()
            .map(|(r, n)| format!("{n} {}", r.as_str()))
            .collect();
        return Ok(BuildError::NoPlayerGames(format!(
            "--player {given}: none of their {} was kept ({})",
            games(matched),
            if why.is_empty() {
                "every move filtered out".to_string()
            } else {
                why.join(", ")
            }
        )));
    }
    let mut nearest: Vec<(String, u64)> = Vec::new();
    for w in wanted {
        for (name, games) in nearest_names(w, &names, 3) {
            if !nearest.iter().any(|(n, _)| *n == name) {
                nearest.push((name, games));
            }
        }
    }
    let suggestion = match nearest.as_slice() {
        [] => String::new(),
        some => {
            let listed: Vec<String> = some
                .iter()
                .take(3)
                .map(|(name, n)| format!("{name:?} ({})", games(*n)))
                .collect();
            format!("; did you mean {}?", listed.join(" or "))
        }
    };
    Ok(BuildError::NoPlayerGames(format!(
        "--player {given}: no game of {} names them{suggestion}",
        config.inputs.join(", ")
    )))
}

/// `1 game`, `1,785 games`.
fn games(n: u64) -> String {
    match n {
        1 => "1 game".to_string(),
        n => format!("{} games", thousands(n)),
    }
}

/// `n` with a comma every three digits (`1,785`).
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The filters as the PGN visitor wants them.
pub fn selection(options: &BuildOptions) -> Result<Selection, String> {
    let side = match options.side.as_deref() {
        None => None,
        Some(s) if s.eq_ignore_ascii_case("white") => Some(Color::White),
        Some(s) if s.eq_ignore_ascii_case("black") => Some(Color::Black),
        Some(s) => return Err(format!("--side must be white or black, not {s:?}")),
    };
    if options.holdout.is_some_and(|h| h >= 100) {
        return Err("--holdout must be a percentage below 100".into());
    }
    if options.holdout_moves.is_some_and(|h| h >= 100) {
        return Err("--holdout-moves must be a percentage below 100".into());
    }
    if options.fit_positions == 0 {
        return Err("--fit-positions must be at least 1".into());
    }
    if let (Some(lo), Some(hi)) = (options.min_elo, options.max_elo)
        && lo > hi
    {
        return Err(format!("--min-elo {lo} is above --max-elo {hi}"));
    }
    Ok(Selection {
        players: options.players.iter().map(|p| p.to_lowercase()).collect(),
        excluded: Vec::new(),
        side,
        min_elo: options.min_elo,
        max_elo: options.max_elo,
        skip_plies: options.skip_plies,
    })
}

/// A selected move as a case: board and metadata in the mover's point of view.
pub(crate) fn case_of(mover: &Mover, game: u32) -> Option<(Color, Planes, CaseMeta)> {
    let turn = mover.pos.turn();
    let mut board = Planes::from_board(mover.pos.board());
    let mut mv = CaseMove::from_move(mover.mv, turn)?;
    if turn == Color::Black {
        board = board.mirrored();
        mv = mv.mirrored();
    }
    let (rights, ep) = position_key(&mover.pos);
    let ply = u16::try_from(mover.ply).unwrap_or(u16::MAX);
    Some((
        turn,
        board,
        CaseMeta {
            game,
            ply,
            mv,
            rights,
            ep,
            last: LastMove::of(mover.last.as_ref(), turn),
        },
    ))
}

/// Width of the rating bands of `--band-cases`.
pub(crate) const BAND_WIDTH: u16 = 200;

/// The `--band-cases` band of a mover rating (`None` = unrated, a band of its own).
fn band_of(elo: Option<u16>) -> Option<u16> {
    elo.map(|e| e / BAND_WIDTH)
}

/// The mover's rating of a selected move.
fn mover_elo(game: &ParsedGame, mover: &Mover) -> Option<u16> {
    game.header.elo(mover.pos.turn())
}

/// Per-band keep probabilities for `--band-cases`: `cap / candidates`, at most 1.
#[derive(Clone, Debug, Default)]
struct BandSampler {
    rates: BTreeMap<Option<u16>, f64>,
}

impl BandSampler {
    /// Whether the moves of this side of this game are kept. The draw is a hash of the game's
    /// key and the side, so a rebuild keeps the same ones.
    fn keeps(&self, game: &ParsedGame, mover: &Mover) -> bool {
        let rate = self
            .rates
            .get(&band_of(mover_elo(game, mover)))
            .copied()
            .unwrap_or(1.0);
        if rate >= 1.0 {
            return true;
        }
        let side = u64::from(mover.pos.turn() == Color::Black);
        // splitmix64 of the key and side: uniform in [0, 1).
        let mut z = game.key ^ side.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) as f64 / (1u64 << 53) as f64) < rate
    }
}

/// The first pass of `--band-cases`: counts the candidate moves of every band (after the
/// filters and the hold-out) and turns the cap into keep probabilities.
fn band_sampler(
    config: &BuildConfig,
    selection: &Selection,
    cap: u64,
) -> Result<BandSampler, BuildError> {
    let mut counts: BTreeMap<Option<u16>, u64> = BTreeMap::new();
    for name in &config.inputs {
        if name == "-" {
            return Err(BuildError::Options(
                "--band-cases reads the input twice: give files, not standard input".into(),
            ));
        }
        for_each_game::<BuildError>(name, selection, |outcome, visitor, _| {
            let game = visitor.game();
            if outcome.is_ok() && !held_out(&config.options, game) {
                for mover in &game.selected {
                    *counts.entry(band_of(mover_elo(game, mover))).or_default() += 1;
                }
            }
            Ok(true)
        })?;
    }
    let rates = counts
        .into_iter()
        .map(|(band, n)| (band, (cap as f64 / n.max(1) as f64).min(1.0)))
        .collect();
    Ok(BandSampler { rates })
}

fn write_game(writer: &mut CaseBaseWriter, game: &ParsedGame) -> Result<(), CaseBaseError> {
    let h = &game.header;
    let record = GameRecord {
        key: game.key,
        white_elo: h.white_elo.unwrap_or(0),
        black_elo: h.black_elo.unwrap_or(0),
        result: h.result.to_byte(),
        ..GameRecord::default()
    };
    let strings = [&h.white, &h.black, &h.date, &h.event, &h.site];
    let index = writer.add_game(
        record,
        strings.map(String::as_str),
        GameControl::of(h.time_control),
    )?;
    for mover in &game.selected {
        if let Some((side, board, meta)) = case_of(mover, index) {
            let clock = CaseClock::of(game.move_clock(mover.ply));
            writer.add_timed_case(side, &board, &meta, clock)?;
        }
    }
    Ok(())
}

/// How far a build has come, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct BuildProgress<'a> {
    /// The input being read.
    pub input: &'a str,
    /// Games read so far (all inputs).
    pub games_read: u64,
    /// Cases written so far.
    pub cases: u64,
    /// Bytes of the current input read so far (compressed size for `.zst`).
    pub bytes_read: u64,
    /// Time since the build started.
    pub elapsed: Duration,
    /// The phase after the games are read (`sort`, `patterns and index`, …), when one has
    /// started; `None` while games are read.
    pub phase: Option<&'static str>,
}

/// Runs a build: reads every input, writes the case base, returns the summary. `progress` is
/// called every 512 games.
pub fn build(
    config: &BuildConfig,
    progress: &mut dyn FnMut(&BuildProgress<'_>),
) -> Result<BuildSummary, BuildError> {
    let started = Instant::now();
    if config.inputs.is_empty() {
        return Err(BuildError::Options("no input given".into()));
    }
    let config = &with_main_player(config)?;
    let selection = selection(&config.options).map_err(BuildError::Options)?;
    let player_file = config.options.is_player_file();
    let sampler = match config.options.band_cases {
        Some(0) => {
            return Err(BuildError::Options(
                "--band-cases must be at least 1".into(),
            ));
        }
        Some(cap) => Some(band_sampler(config, &selection, cap)?),
        None => None,
    };
    let mut writer = CaseBaseWriter::create(&config.out)?.with_memory(config.memory);
    if config.options.no_patterns {
        writer = writer.without_patterns();
    }
    if player_file {
        writer = writer.counts_only();
    }
    let mut reading = Reading {
        config,
        sampler,
        writer,
        profile: player_file.then(ProfileBuilder::default),
        seen: HashSet::new(),
        stats: BuildStats::default(),
        skipped: BTreeMap::new(),
        player_skipped: BTreeMap::new(),
        done: false,
        started,
    };
    for name in &config.inputs {
        if reading.done {
            break;
        }
        reading.read(name, &selection, progress)?;
    }
    let Reading {
        writer,
        profile,
        mut stats,
        skipped,
        player_skipped,
        ..
    } = reading;
    if player_file && stats.games_used == 0 {
        return Err(no_player_games(config, &player_skipped)?);
    }
    stats.cases = writer.cases();
    stats.games_skipped = skipped
        .iter()
        .map(|(r, n)| (r.as_str().to_string(), *n))
        .collect();
    let white_cases = writer.white_cases();
    let profile = match profile {
        Some(builder) => Some(finish_profile(config, builder)?),
        None => None,
    };
    let info = BuildInfo {
        tool: format!("precedent {}", env!("CARGO_PKG_VERSION")),
        sources: config.inputs.clone(),
        options: config.options.clone(),
        stats: stats.clone(),
        profile,
    };
    let read = Phase {
        name: "read",
        seconds: started.elapsed().as_secs_f64(),
    };
    let (games_read, cases) = (stats.games_read, stats.cases);
    let last_input = config.inputs.last().map_or("", String::as_str);
    let mut phases = writer.finish_timed(&info, &mut |phase| {
        progress(&BuildProgress {
            input: last_input,
            games_read,
            cases,
            bytes_read: 0,
            elapsed: started.elapsed(),
            phase: Some(phase),
        });
    })?;
    phases.insert(0, read);
    let seconds = started.elapsed().as_secs_f64();
    Ok(BuildSummary {
        games_read: stats.games_read,
        games_used: stats.games_used,
        games_skipped: stats.games_skipped,
        cases: stats.cases,
        white_cases,
        black_cases: stats.cases - white_cases,
        seconds,
        cases_per_second: stats.cases as f64 / seconds.max(1e-9),
        phases,
        output: config.out.display().to_string(),
    })
}

/// `config` with `--main-player` resolved: the inputs' most frequent player as the player.
fn with_main_player(config: &BuildConfig) -> Result<BuildConfig, BuildError> {
    let mut options = config.options.clone();
    if options.main_player {
        let Some(name) = main_player(&config.inputs)? else {
            return Err(BuildError::Options(
                "--main-player: the inputs name no player".into(),
            ));
        };
        options.players = vec![name];
    }
    Ok(BuildConfig {
        options,
        ..config.clone()
    })
}

/// A build while it reads its inputs: what decides which games are used, the case base being
/// written, the player's profile being gathered, and the counts.
struct Reading<'c> {
    config: &'c BuildConfig,
    sampler: Option<BandSampler>,
    writer: CaseBaseWriter,
    profile: Option<ProfileBuilder>,
    /// The games of a player file so far, by their moves.
    seen: HashSet<u64>,
    stats: BuildStats,
    skipped: BTreeMap<SkipReason, u64>,
    /// Of them, the games that name a player of a player file.
    player_skipped: BTreeMap<SkipReason, u64>,
    /// A limit (`--max-games`, `--max-cases`) was reached.
    done: bool,
    started: Instant,
}

impl Reading<'_> {
    /// Reads the games of input `name`, until it ends or a limit is reached.
    fn read(
        &mut self,
        name: &str,
        selection: &Selection,
        progress: &mut dyn FnMut(&BuildProgress<'_>),
    ) -> Result<(), BuildError> {
        for_each_game::<BuildError>(name, selection, |outcome, visitor, bytes_read| {
            self.stats.games_read += 1;
            let outcome = self.admit(outcome, visitor);
            let game = visitor.game();
            match outcome {
                Ok(()) => {
                    if self.keep(game)? {
                        self.done = true;
                        return Ok(false);
                    }
                }
                Err(reason) => self.skip(name, game, reason)?,
            }
            if self.stats.games_read.is_multiple_of(512) {
                progress(&BuildProgress {
                    input: name,
                    games_read: self.stats.games_read,
                    cases: self.writer.cases(),
                    bytes_read,
                    elapsed: self.started.elapsed(),
                    phase: None,
                });
            }
            Ok(true)
        })
    }

    /// Whether the game the visitor read is used: not if broken, filtered, held out, already
    /// seen (a player's game in two collections counts once) or left without moves by the
    /// band sampling, which drops the moves it does not keep.
    fn admit(
        &mut self,
        outcome: Result<(), SkipReason>,
        visitor: &mut GameVisitor,
    ) -> Result<(), SkipReason> {
        let mut outcome = match outcome {
            Ok(()) if held_out(&self.config.options, visitor.game()) => Err(SkipReason::HeldOut),
            Ok(())
                if self.config.options.is_player_file()
                    && !self.seen.insert(visitor.game().moves_key) =>
            {
                Err(SkipReason::Duplicate)
            }
            other => other,
        };
        if let (Ok(()), Some(sampler)) = (outcome, &self.sampler) {
            let game = visitor.game_mut();
            let mut selected = std::mem::take(&mut game.selected);
            selected.retain(|m| sampler.keeps(game, m));
            game.selected = selected;
            if game.selected.is_empty() {
                outcome = Err(SkipReason::SampledOut);
            }
        }
        outcome
    }

    /// Writes a used game and its cases (and adds it to the profile); whether a limit is
    /// reached.
    fn keep(&mut self, game: &ParsedGame) -> Result<bool, BuildError> {
        if self.profile.is_some() {
            two_players(game)?;
        }
        write_game(&mut self.writer, game)?;
        if let Some(profile) = &mut self.profile {
            profile.add(game);
        }
        self.stats.games_used += 1;
        let options = &self.config.options;
        let enough_games = options
            .max_games
            .is_some_and(|max| self.stats.games_used >= max);
        let enough_cases = options
            .max_cases
            .is_some_and(|max| self.writer.cases() >= max);
        Ok(enough_games || enough_cases)
    }

    /// Counts a game left out, or with `--strict` fails on a broken one (of input `name`).
    fn skip(
        &mut self,
        name: &str,
        game: &ParsedGame,
        reason: SkipReason,
    ) -> Result<(), BuildError> {
        if self.config.strict && reason.is_error() {
            return Err(BuildError::Strict {
                file: name.to_string(),
                game: game.number,
                reason: reason.as_str(),
                detail: game.detail.clone(),
            });
        }
        *self.skipped.entry(reason).or_default() += 1;
        let players = &self.config.options.players;
        let h = &game.header;
        if players
            .iter()
            .any(|p| p.eq_ignore_ascii_case(&h.white) || p.eq_ignore_ascii_case(&h.black))
        {
            *self.player_skipped.entry(reason).or_default() += 1;
        }
        Ok(())
    }
}

/// A player file's game in which both sides are the player: the names given are two people
/// who played each other, not the spellings of one.
fn two_players(game: &ParsedGame) -> Result<(), BuildError> {
    let moves_of = |c: Color| game.selected.iter().any(|m| m.pos.turn() == c);
    if moves_of(Color::White) && moves_of(Color::Black) {
        let h = &game.header;
        return Err(BuildError::TwoPlayers(format!(
            "--player names both sides of game {} ({:?} against {:?}, {}): a player file is \
             one person's games, and --player repeats only the spellings of one name",
            game.number, h.white, h.black, h.date
        )));
    }
    Ok(())
}

/// The player's profile: their sample of moves judged and fitted, when the build asks for it.
fn finish_profile(
    config: &BuildConfig,
    mut builder: ProfileBuilder,
) -> Result<super::Profile, BuildError> {
    let sample = builder.sample();
    let judged = match &config.judge {
        Some(Judge(judge)) => Some(judge(&sample).map_err(BuildError::Judge)?),
        None => None,
    };
    let model = match &config.fit {
        Some(FitModel(fit)) if !sample.is_empty() => {
            Some(fit(&sample, &config.options.players).map_err(BuildError::Fit)?)
        }
        _ => None,
    };
    let mut profile = builder.finish(judged, model);
    if let (Some(FitErrors(fit)), Some(_)) = (&config.fit_errors, &profile.judged)
        && !sample.is_empty()
    {
        let fitted = fit(&sample, &config.options.players, &profile).map_err(BuildError::Errors)?;
        profile.errors = Some(fitted);
    }
    Ok(profile)
}
