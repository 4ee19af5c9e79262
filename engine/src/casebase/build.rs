//! `precedent build`: PGN games in, a case base out. One streaming pass per input; every
//! selected move becomes a case (the position before it, in the mover's point of view).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use pgn_reader::Reader;
use shakmaty::{Color, Position};

use super::patterns::LastMove;
use crate::board::Planes;
use crate::casebase::{
    BuildInfo, BuildOptions, BuildStats, CaseBaseError, CaseBaseWriter, CaseMeta, GameRecord,
    position_key,
};
use crate::pgn::{GameVisitor, InputError, Mover, ParsedGame, Selection, SkipReason, open_input};
use crate::position::CaseMove;

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
    /// The output file's path.
    pub output: String,
}

/// Whether a game (by its key) falls in the held-out `percent` of games.
pub fn is_held_out(key: u64, percent: u8) -> bool {
    // The key is a hash already; its low bits are uniform.
    key % 100 < u64::from(percent)
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
    if let (Some(lo), Some(hi)) = (options.min_elo, options.max_elo)
        && lo > hi
    {
        return Err(format!("--min-elo {lo} is above --max-elo {hi}"));
    }
    Ok(Selection {
        players: options.players.iter().map(|p| p.to_lowercase()).collect(),
        side,
        min_elo: options.min_elo,
        max_elo: options.max_elo,
        skip_plies: options.skip_plies,
    })
}

/// A selected move as a case: board and metadata in the mover's point of view.
pub fn case_of(mover: &Mover, game: u32) -> Option<(Color, Planes, CaseMeta)> {
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

fn write_game(writer: &mut CaseBaseWriter, game: &ParsedGame) -> Result<(), CaseBaseError> {
    let h = &game.header;
    let record = GameRecord {
        key: game.key,
        white_elo: h.white_elo.unwrap_or(0),
        black_elo: h.black_elo.unwrap_or(0),
        result: h.result.to_byte(),
        ..GameRecord::default()
    };
    let index = writer.add_game(record, [&h.white, &h.black, &h.date, &h.event, &h.site])?;
    for mover in &game.selected {
        if let Some((side, board, meta)) = case_of(mover, index) {
            writer.add_case(side, &board, &meta)?;
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
}

/// Runs a build: reads every input, writes the case base, returns the summary. `progress` is
/// called every 512 games.
pub fn build(
    config: &BuildConfig,
    progress: &mut dyn FnMut(&BuildProgress<'_>),
) -> Result<BuildSummary, BuildError> {
    let started = Instant::now();
    let selection = selection(&config.options).map_err(BuildError::Options)?;
    if config.inputs.is_empty() {
        return Err(BuildError::Options("no input given".into()));
    }
    let mut writer = CaseBaseWriter::create(&config.out)?;
    let mut stats = BuildStats::default();
    let mut skipped: BTreeMap<SkipReason, u64> = BTreeMap::new();
    let mut done = false;
    for name in &config.inputs {
        if done {
            break;
        }
        let input = open_input(name)?;
        let state = input.state.clone();
        let mut reader = Reader::new(input.reader);
        let mut visitor = GameVisitor::new(selection.clone());
        loop {
            let outcome = match reader.read_game(&mut visitor) {
                Ok(None) => break,
                Ok(Some(outcome)) => outcome,
                Err(source) if state.failed() => {
                    return Err(InputError::Read {
                        name: name.clone(),
                        offset: state.bytes(),
                        source,
                    }
                    .into());
                }
                Err(_) => Err(SkipReason::MalformedPgn),
            };
            stats.games_read += 1;
            let game = visitor.game();
            let outcome = match (outcome, config.options.holdout) {
                (Ok(()), Some(pct)) if is_held_out(game.key, pct) => Err(SkipReason::HeldOut),
                (other, _) => other,
            };
            match outcome {
                Ok(()) => {
                    write_game(&mut writer, game)?;
                    stats.games_used += 1;
                    if config
                        .options
                        .max_games
                        .is_some_and(|max| stats.games_used >= max)
                    {
                        done = true;
                        break;
                    }
                }
                Err(reason) => {
                    if config.strict && reason.is_error() {
                        return Err(BuildError::Strict {
                            file: name.clone(),
                            game: game.number,
                            reason: reason.as_str(),
                            detail: game.detail.clone(),
                        });
                    }
                    *skipped.entry(reason).or_default() += 1;
                }
            }
            if stats.games_read % 512 == 0 {
                progress(&BuildProgress {
                    input: name,
                    games_read: stats.games_read,
                    cases: writer.cases(),
                    bytes_read: state.bytes(),
                    elapsed: started.elapsed(),
                });
            }
        }
    }
    stats.cases = writer.cases();
    stats.games_skipped = skipped
        .iter()
        .map(|(r, n)| (r.as_str().to_string(), *n))
        .collect();
    let white_cases = writer.white_cases();
    let info = BuildInfo {
        tool: format!("precedent {}", env!("CARGO_PKG_VERSION")),
        sources: config.inputs.clone(),
        options: config.options.clone(),
        stats: stats.clone(),
    };
    writer.finish(&info)?;
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
        output: config.out.display().to_string(),
    })
}
