//! The judge: an external engine's verdict on moves (the value of its best move, each move's
//! loss in centipawns, the expected score a move gives away), the blunder rates and mean losses
//! of a run, and a cache of judgements so that the same move in the same position is searched
//! once across runs.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::{CastlingMode, Chess, Move, Position};

use super::EvalError;
use crate::Progress;
use crate::client::{ClientError, EngineProcess, Limit};
use precedent::position::fen_of;

/// Move quality as an external engine judges it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Judged {
    /// Positions judged.
    pub judged: u64,
    /// Mean loss of the engine's moves against the judge's best move (centipawns).
    pub mean_cp_loss: f64,
    /// Share of the engine's moves losing at least [`BLUNDER_CP`] (0..=1).
    pub blunder_rate: f64,
    /// Mean expected-score loss of the engine's moves ([`score_loss`], 0..=1 a move).
    pub mean_score_loss: f64,
    /// Mean loss of the humans' moves (centipawns), when they are known.
    pub human_mean_cp_loss: Option<f64>,
    /// Share of the humans' moves losing at least [`BLUNDER_CP`] (0..=1), when known.
    pub human_blunder_rate: Option<f64>,
    /// Mean expected-score loss of the humans' moves, when known.
    pub human_mean_score_loss: Option<f64>,
}

/// A loss of at least this many centipawns (mover's view) is a blunder.
pub const BLUNDER_CP: i32 = 200;
/// Mate scores count as this many centipawns.
pub const MATE_CAP: i32 = 1000;

/// The mover's expected score, or win probability (0..=1), in a position the judge values at `cp` centipawns from
/// the mover's side: Lichess's win probability, `1 / (1 + e^(-0.00368208 cp))`, the curve its
/// accuracy is computed from (fitted on its players' results; `cp` is capped at ±[`MATE_CAP`]).
pub fn win_probability(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-MATE_CAP, MATE_CAP));
    1.0 / (1.0 + (-0.003_682_08 * cp).exp())
}

/// The expected score a move gives away (0..=1): the expected score of the judge's best move
/// (`best` centipawns, mover's view) minus that of the move, which lost `loss` centipawns. The
/// same centipawns cost more in a balanced position than in a decided one, so this counts a
/// blunder that turns a win into a loss and not one that leaves a won game won.
pub fn score_loss(best: i32, loss: i32) -> f64 {
    (win_probability(best) - win_probability(best - loss.max(0))).max(0.0)
}

/// The judge's value of playing `m` in `pos`, from the mover's side (capped at ±MATE_CAP).
fn value_after(
    engine: &mut EngineProcess,
    pos: &Chess,
    m: &Move,
    limit: &Limit,
) -> Result<i32, ClientError> {
    let mut next = pos.clone();
    next.play_unchecked(*m);
    if next.is_checkmate() {
        return Ok(MATE_CAP);
    }
    if next.is_stalemate() || next.is_insufficient_material() {
        return Ok(0);
    }
    // Each judgement starts from an empty hash table, so it does not depend on what else was
    // judged before it.
    engine.new_game(Duration::from_secs(10))?;
    let r = engine.go(
        &format!("fen {}", fen_of(&next)),
        &limit.go_args(),
        Duration::from_secs(120),
    )?;
    Ok(-r.score.map_or(0, |s| s.to_cp(MATE_CAP)))
}

/// The judge's verdict on one position: the value of its best move and the loss of each move
/// it was asked about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The value of the position to the mover, centipawns (capped at ±[`MATE_CAP`]).
    pub best: i32,
    /// Each listed move's loss, centipawns, in the order listed.
    pub losses: Vec<i32>,
}

/// The judge's verdict on each position and its listed moves: the value of the judge's best
/// move, and each move's loss, that value minus the move's (at least 0), in the order given.
/// Every search starts from an empty hash table, so a move's loss does not depend on what else
/// is judged.
pub fn judge_positions(
    command: &str,
    options: &[(String, String)],
    limit: Limit,
    positions: &[(Chess, Vec<Move>)],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<Verdict>, EvalError> {
    let none = JudgeCache::none(command, options, limit);
    judge_positions_cached(positions, threads, &none, progress)
}

/// [`judge_positions`] by the judge of `cache`, which gives the values it holds and keeps the
/// ones searched (saved by [`JudgeCache::save`]). As every search starts from an empty hash
/// table, a value taken from the cache is the one the judge would find again.
pub fn judge_positions_cached(
    positions: &[(Chess, Vec<Move>)],
    threads: usize,
    cache: &JudgeCache,
    progress: &dyn Progress,
) -> Result<Vec<Verdict>, EvalError> {
    progress.start(positions.len() as u64);
    let chunk = positions.len().div_ceil(threads.max(1)).max(1);
    let parts: Result<Vec<Vec<Verdict>>, EvalError> = positions
        .par_chunks(chunk)
        .map(|part| {
            // Started only when something is not in the cache.
            let mut engine: Option<EngineProcess> = None;
            let mut out = Vec::with_capacity(part.len());
            for (pos, moves) in part {
                let fen = fen_of(pos);
                let best = match cache.get(&fen, None) {
                    Some(v) => v,
                    None => {
                        let v = best_value(cache.judge(&mut engine)?, pos, &cache.limit)?;
                        cache.put(&fen, None, v);
                        v
                    }
                };
                let mut losses = Vec::with_capacity(moves.len());
                for m in moves {
                    let uci = m.to_uci(CastlingMode::Standard).to_string();
                    let value = match cache.get(&fen, Some(&uci)) {
                        Some(v) => v,
                        None => {
                            let v = value_after(cache.judge(&mut engine)?, pos, m, &cache.limit)?;
                            cache.put(&fen, Some(&uci), v);
                            v
                        }
                    };
                    losses.push((best - value).max(0));
                }
                out.push(Verdict { best, losses });
                progress.advance(1);
            }
            if let Some(engine) = engine {
                engine.quit();
            }
            Ok(out)
        })
        .collect();
    progress.finish();
    Ok(parts?.into_iter().flatten().collect())
}

/// The judge's value of `pos` to the mover (its best move's), from an empty hash table.
fn best_value(engine: &mut EngineProcess, pos: &Chess, limit: &Limit) -> Result<i32, ClientError> {
    // Every judge search starts from an empty hash table (here and in value_after): otherwise
    // the same human move is judged differently when the engine's moves, and so the judge's
    // earlier searches, differ.
    engine.new_game(Duration::from_secs(10))?;
    let best = engine.go(
        &format!("fen {}", fen_of(pos)),
        &limit.go_args(),
        Duration::from_secs(120),
    )?;
    Ok(best.score.map_or(0, |s| s.to_cp(MATE_CAP)))
}

/// One judgement as a cache file keeps it (a JSON object a line).
#[derive(Debug, Serialize, Deserialize)]
struct CacheLine {
    /// The judge: its command, options and limit.
    judge: String,
    /// The position.
    fen: String,
    /// The move played in it (UCI), or none for the position's own value.
    #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
    mv: Option<String>,
    /// The value to the position's mover, centipawns.
    value: i32,
}

/// Judgements kept from run to run (`eval --judge-cache FILE`): the value of a position and of
/// each move judged in it, by one judge (its command, options and limit; a file may hold
/// several judges' lines, each used only by its own). The same positions judged for many
/// engines (the humans' moves, and the moves engines agree on) are searched once.
pub struct JudgeCache {
    command: String,
    options: Vec<(String, String)>,
    limit: Limit,
    /// The judge as the file names it.
    key: String,
    path: Option<PathBuf>,
    known: HashMap<(String, Option<String>), i32>,
    fresh: Mutex<Vec<CacheLine>>,
}

impl JudgeCache {
    /// No file: every judgement is searched (and kept only while the run lasts).
    pub fn none(command: &str, options: &[(String, String)], limit: Limit) -> JudgeCache {
        let key = format!(
            "{command} {} {}",
            options
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            limit.go_args()
        );
        JudgeCache {
            command: command.to_string(),
            options: options.to_vec(),
            limit,
            key,
            path: None,
            known: HashMap::new(),
            fresh: Mutex::new(Vec::new()),
        }
    }

    /// The judgements of `path` by this judge (none when the file does not exist yet). A line
    /// that is not a judgement is an error naming the file and line, but for a last line cut
    /// short (a run stopped while writing), which is left out.
    pub fn open(
        path: &Path,
        command: &str,
        options: &[(String, String)],
        limit: Limit,
    ) -> Result<JudgeCache, EvalError> {
        let mut cache = JudgeCache::none(command, options, limit);
        cache.path = Some(path.to_path_buf());
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(cache),
            Err(e) => {
                return Err(EvalError::Other(format!(
                    "{}: cannot read the judge cache: {e}",
                    path.display()
                )));
            }
        };
        let complete = text.ends_with('\n');
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let l: CacheLine = match serde_json::from_str(line) {
                Ok(l) => l,
                Err(_) if i + 1 == lines.len() && !complete => break,
                Err(e) => {
                    return Err(EvalError::Other(format!(
                        "{} line {}: not a judgement: {e}",
                        path.display(),
                        i + 1
                    )));
                }
            };
            if l.judge == cache.key {
                cache.known.insert((l.fen, l.mv), l.value);
            }
        }
        Ok(cache)
    }

    /// Judgements held (read from the file and searched since).
    pub fn len(&self) -> usize {
        self.known.len() + self.fresh.lock().map_or(0, |f| f.len())
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, fen: &str, mv: Option<&str>) -> Option<i32> {
        let key = (fen.to_string(), mv.map(str::to_string));
        self.known.get(&key).copied().or_else(|| {
            let fresh = self.fresh.lock().ok()?;
            fresh
                .iter()
                .rev()
                .find(|l| l.fen == key.0 && l.mv == key.1)
                .map(|l| l.value)
        })
    }

    fn put(&self, fen: &str, mv: Option<&str>, value: i32) {
        if let Ok(mut fresh) = self.fresh.lock() {
            fresh.push(CacheLine {
                judge: self.key.clone(),
                fen: fen.to_string(),
                mv: mv.map(str::to_string),
                value,
            });
        }
    }

    /// The judge's process, started the first time it is needed.
    fn judge<'e>(
        &self,
        engine: &'e mut Option<EngineProcess>,
    ) -> Result<&'e mut EngineProcess, ClientError> {
        if engine.is_none() {
            *engine = Some(EngineProcess::start(
                &self.command,
                &self.options,
                Duration::from_secs(10),
            )?);
        }
        Ok(engine.as_mut().expect("started above"))
    }

    /// Appends the judgements searched since the file was read to it (nothing without a file).
    pub fn save(&self) -> Result<(), EvalError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let fresh = self
            .fresh
            .lock()
            .map_err(|_| EvalError::Other("the judge cache's lock was poisoned".into()))?;
        if fresh.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for l in fresh.iter() {
            let json = serde_json::to_string(l).map_err(|e| EvalError::Other(e.to_string()))?;
            text.push_str(&json);
            text.push('\n');
        }
        let bad = |e: std::io::Error| {
            EvalError::Other(format!(
                "{}: cannot write the judge cache: {e}",
                path.display()
            ))
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(bad)?;
        cut_torn_line(&mut file).map_err(bad)?;
        file.write_all(text.as_bytes()).map_err(bad)
    }
}

/// Cuts a last line left without its newline (a run stopped while writing it) off `file`, so
/// that what is appended starts a line of its own.
fn cut_torn_line(file: &mut std::fs::File) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let mut end = len;
    let mut buf = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let part = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(part)?;
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            end = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    if end < len {
        file.set_len(end)?;
    }
    Ok(())
}

/// The judge's centipawn loss of each listed move of each position ([`judge_positions`]'
/// losses alone).
pub fn judge_moves(
    command: &str,
    options: &[(String, String)],
    limit: Limit,
    positions: &[(Chess, Vec<Move>)],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<Vec<i32>>, EvalError> {
    let verdicts = judge_positions(command, options, limit, positions, threads, progress)?;
    Ok(verdicts.into_iter().map(|v| v.losses).collect())
}

/// The moves of a position to judge: the engine's, then the human's unless it is the same
/// (judged once).
fn moves_to_judge(played: Option<Move>, human: Option<Move>) -> Vec<Move> {
    let mut moves: Vec<Move> = played.into_iter().collect();
    if let Some(h) = human.filter(|h| Some(*h) != played) {
        moves.push(h);
    }
    moves
}

/// The judge's losses of a position's engine move and human move, and the position's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Losses {
    /// The loss of the engine's move, centipawns, when it played one.
    pub engine: Option<i32>,
    /// The loss of the human's move, when it was given.
    pub human: Option<i32>,
    /// The value of the judge's best move to the mover, centipawns.
    pub best: i32,
}

/// The engine's and the human's losses from the judge's verdict `v` on [`moves_to_judge`].
fn losses_of(played: Option<Move>, human: Option<Move>, v: &Verdict) -> Losses {
    let l = &v.losses;
    let engine = played.and_then(|_| l.first().copied());
    let human = match (human, played) {
        (Some(h), Some(p)) if h == p => engine,
        (Some(_), Some(_)) => l.get(1).copied(),
        (Some(_), None) => l.first().copied(),
        (None, _) => None,
    };
    Losses {
        engine,
        human,
        best: v.best,
    }
}

/// The judge's losses of the engine's and the humans' moves (when given) on `positions`, a
/// pair a position, by the judge of `cache`: loss = value of the judge's best move − value of
/// the move.
pub fn judge_each(
    cache: &JudgeCache,
    positions: &[(Chess, Option<Move>, Option<Move>)],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<Losses>, EvalError> {
    let listed: Vec<(Chess, Vec<Move>)> = positions
        .iter()
        .map(|(pos, played, human)| (pos.clone(), moves_to_judge(*played, *human)))
        .collect();
    let verdicts = judge_positions_cached(&listed, threads, cache, progress)?;
    Ok(positions
        .iter()
        .zip(&verdicts)
        .map(|((_, played, human), v)| losses_of(*played, *human, v))
        .collect())
}

/// The mean of `losses`, their share of blunders (a loss of [`BLUNDER_CP`] or more) and the
/// count of blunders; `None` when there are none.
pub fn loss_stats(losses: &[i32]) -> Option<(f64, f64, u64)> {
    if losses.is_empty() {
        return None;
    }
    let n = losses.len() as f64;
    let mean = losses.iter().map(|&l| f64::from(l)).sum::<f64>() / n;
    let blunders = losses.iter().filter(|&&l| l >= BLUNDER_CP).count() as u64;
    Some((mean, blunders as f64 / n, blunders))
}

/// The mean losses, expected-score losses and blunder rates of the losses of [`judge_each`].
pub fn judged_of(all: &[Losses]) -> Judged {
    let stats = |losses: Vec<i32>| loss_stats(&losses).map(|(mean, blunders, _)| (mean, blunders));
    let score = |of: &dyn Fn(&Losses) -> Option<i32>| {
        let s: Vec<f64> = all
            .iter()
            .filter_map(|a| of(a).map(|l| score_loss(a.best, l)))
            .collect();
        (!s.is_empty()).then(|| s.iter().sum::<f64>() / s.len() as f64)
    };
    let engine_stats = stats(all.iter().filter_map(|a| a.engine).collect());
    let human_stats = stats(all.iter().filter_map(|a| a.human).collect());
    Judged {
        judged: all.iter().filter(|a| a.engine.is_some()).count() as u64,
        mean_cp_loss: engine_stats.map_or(0.0, |s| s.0),
        blunder_rate: engine_stats.map_or(0.0, |s| s.1),
        mean_score_loss: score(&|a| a.engine).unwrap_or(0.0),
        human_mean_cp_loss: human_stats.map(|s| s.0),
        human_blunder_rate: human_stats.map(|s| s.1),
        human_mean_score_loss: score(&|a| a.human),
    }
}

/// Centipawn loss of the engine's moves (and of the humans' moves, when given) on `positions`,
/// judged by the judge of `cache` (see [`judge_each`]).
pub fn judge(
    cache: &JudgeCache,
    positions: &[(Chess, Option<Move>, Option<Move>)],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Judged, EvalError> {
    let all = judge_each(cache, positions, threads, progress)?;
    Ok(judged_of(&all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judge_judges_each_distinct_move_once_and_gives_each_its_loss() {
        use shakmaty::{Position, Role, Square};
        let pos = Chess::default();
        let find = |from, to| {
            pos.legal_moves()
                .into_iter()
                .find(|m| m.from() == Some(from) && m.to() == to && m.role() == Role::Pawn)
                .expect("a pawn move")
        };
        let (e4, d4) = (find(Square::E2, Square::E4), find(Square::D2, Square::D4));
        // A verdict with the position's value 40 and the listed moves' losses.
        let v = |losses: &[i32]| Verdict {
            best: 40,
            losses: losses.to_vec(),
        };
        let l = |engine, human| Losses {
            engine,
            human,
            best: 40,
        };
        // Different moves: both judged, each gets its own loss.
        assert_eq!(moves_to_judge(Some(e4), Some(d4)), vec![e4, d4]);
        assert_eq!(
            losses_of(Some(e4), Some(d4), &v(&[10, 30])),
            l(Some(10), Some(30))
        );
        // The same move: judged once, both get its loss.
        assert_eq!(moves_to_judge(Some(e4), Some(e4)), vec![e4]);
        assert_eq!(
            losses_of(Some(e4), Some(e4), &v(&[10])),
            l(Some(10), Some(10))
        );
        // Only one of them known.
        assert_eq!(moves_to_judge(None, Some(d4)), vec![d4]);
        assert_eq!(losses_of(None, Some(d4), &v(&[30])), l(None, Some(30)));
        assert_eq!(moves_to_judge(Some(e4), None), vec![e4]);
        assert_eq!(losses_of(Some(e4), None, &v(&[10])), l(Some(10), None));
        assert!(moves_to_judge(None, None).is_empty());
        assert_eq!(losses_of(None, None, &v(&[])), l(None, None));
    }

    #[test]
    fn a_move_gives_away_the_expected_score_between_the_best_value_and_its_own() {
        // Lichess's curve: even at 0, about 59 % at +100, 97.5 % at +1000 (the cap).
        assert_eq!(win_probability(0), 0.5);
        assert!((win_probability(100) - 0.591).abs() < 1e-3);
        assert!((win_probability(-100) + win_probability(100) - 1.0).abs() < 1e-12);
        assert_eq!(win_probability(5000), win_probability(MATE_CAP));
        // 300 cp lost from equality costs far more than from a won position.
        let balanced = score_loss(0, 300);
        let won = score_loss(900, 300);
        assert!((balanced - (0.5 - win_probability(-300))).abs() < 1e-12);
        assert!(
            balanced > 0.25 && won < 0.065 && balanced > 3.0 * won,
            "{balanced} {won}"
        );
        // No loss, no expected score lost; a negative loss counts as none.
        assert_eq!(score_loss(150, 0), 0.0);
        assert_eq!(score_loss(150, -20), 0.0);
        // The judged run's means: the engine's and the humans' moves apart.
        let all = [
            Losses {
                engine: Some(0),
                human: Some(300),
                best: 0,
            },
            Losses {
                engine: Some(300),
                human: None,
                best: 900,
            },
        ];
        let j = judged_of(&all);
        assert!((j.mean_score_loss - won / 2.0).abs() < 1e-12);
        assert_eq!(j.human_mean_score_loss, Some(balanced));
        assert_eq!(j.blunder_rate, 0.5);
    }
}
