//! `precedent fit eval` as a command: its arguments, its errors, the fit from a file of
//! analysed games, and the report's text (the fitted weights and tables as Rust).

use std::fmt;

use precedent::pgn::InputError;
use precedent::search::evaluate::{WEIGHTS, tables, term};

use super::{EvalFit, FitSettings, Tables, agreement, collect, fit};

/// Arguments of `precedent fit eval`.
#[derive(clap::Args, Clone, Debug)]
pub struct EvalFitArgs {
    /// Analysed games (`[%eval …]` comments, as Lichess exports them): .pgn, .pgn.zst or -.
    /// Games of `fit`'s test half are left out, so that held-out measurements stay held out.
    #[arg(long, value_name = "FILE")]
    pub pgn: String,
    /// Most positions to read (one game in ten goes to the check set).
    #[arg(long, default_value_t = 1_000_000)]
    pub positions: usize,
    /// Plies skipped at the start of each game (the opening is book knowledge).
    #[arg(long, default_value_t = 12)]
    pub skip_plies: u32,
    /// Full passes of the optimiser.
    #[arg(long, default_value_t = 1200)]
    pub epochs: usize,
    /// The optimiser's step, in centipawns.
    #[arg(long, default_value_t = 2.0)]
    pub rate: f64,
    /// The pull of the piece-square tables towards their start (per squared pawn of distance,
    /// summed over the entries, added to the loss).
    #[arg(long, default_value_t = 1e-4)]
    pub pull: f64,
    /// Keep the piece-square tables as they are: fit the terms' weights only.
    #[arg(long)]
    pub terms_only: bool,
}

/// Why `fit eval` could not fit.
#[derive(Debug, thiserror::Error)]
pub enum EvalFitError {
    /// The games could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// No position to fit.
    #[error("{0}: no quiet position with a [%eval] comment in the games outside fit's test half")]
    NoPositions(String),
}

/// What `fit eval` found: the fit, with the positions it used and the agreement with
/// Stockfish's side before and after. Its text is the fitted weights and tables as Rust, to
/// paste over `WEIGHTS` and the `MG_…`/`EG_…` tables in `engine/src/search/evaluate.rs`.
#[derive(Clone, Debug)]
pub struct EvalFitReport {
    /// Games read.
    pub games: u64,
    /// Fitting and check positions.
    pub positions: (usize, usize),
    /// The fit.
    pub fit: EvalFit,
    /// Share of check positions where the evaluation favours Stockfish's side, before and after.
    pub agreement: (f64, f64),
    /// Only the terms were fitted.
    pub terms_only: bool,
}

/// Reads the positions of `args.pgn` and fits the evaluation in use; `read` hears of the
/// positions read (games, fitting, check) before the fit starts.
pub fn run(
    args: &EvalFitArgs,
    read: impl FnOnce(u64, usize, usize),
) -> Result<EvalFitReport, EvalFitError> {
    let samples = collect(&args.pgn, args.skip_plies, args.positions)?;
    if samples.fit.is_empty() {
        return Err(EvalFitError::NoPositions(args.pgn.clone()));
    }
    read(samples.games, samples.fit.len(), samples.check.len());
    let how = FitSettings {
        epochs: args.epochs,
        rate: args.rate,
        pull: args.pull,
        tables: !args.terms_only,
        scale: None,
    };
    let start = tables();
    let fitted = fit(&samples, &WEIGHTS, &start, how);
    let agreement = (
        agreement(&samples.check, &WEIGHTS, &start),
        agreement(&samples.check, &fitted.weights, &fitted.tables),
    );
    Ok(EvalFitReport {
        games: samples.games,
        positions: (samples.fit.len(), samples.check.len()),
        fit: fitted,
        agreement,
        terms_only: args.terms_only,
    })
}

impl fmt::Display for EvalFitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fit = &self.fit;
        writeln!(
            f,
            "one centipawn of ours is {:.2} of Stockfish's (Texel's factor, held during the fit)",
            fit.scale
        )?;
        writeln!(
            f,
            "loss (mean squared expected-score difference, Stockfish's units): fitting {:.6} -> \
             {:.6}, check {:.6} -> {:.6}",
            fit.before.0, fit.after.0, fit.before.1, fit.after.1
        )?;
        writeln!(
            f,
            "same side favoured as Stockfish on check positions: {:.2} % -> {:.2} %",
            100.0 * self.agreement.0,
            100.0 * self.agreement.1
        )?;
        writeln!(f, "pub const WEIGHTS: Weights = [")?;
        for ((name, (mg, eg)), (old_mg, old_eg)) in term::NAMES.iter().zip(fit.weights).zip(WEIGHTS)
        {
            writeln!(f, "    ({mg}, {eg}), // {name} (was {old_mg}, {old_eg})")?;
        }
        writeln!(f, "];")?;
        if !self.terms_only {
            write_tables(f, &fit.tables)?;
        }
        Ok(())
    }
}

/// The tables as `evaluate.rs` declares them: per role and phase, rank 8 first.
fn write_tables(f: &mut fmt::Formatter<'_>, t: &Tables) -> fmt::Result {
    const ROLES: [&str; 6] = ["PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING"];
    for (role, name) in ROLES.iter().enumerate() {
        for (phase, prefix) in ["MG", "EG"].iter().enumerate() {
            writeln!(f, "#[rustfmt::skip]")?;
            writeln!(f, "const {prefix}_{name}: [i16; 64] = [")?;
            for rank in 0..8 {
                let row: Vec<String> = (0..8)
                    .map(|file| {
                        let e = t[role * 64 + ((rank * 8 + file) ^ 56)];
                        format!("{:5}", if phase == 0 { e.0 } else { e.1 })
                    })
                    .collect();
                writeln!(f, "    {},", row.join(","))?;
            }
            writeln!(f, "];")?;
        }
    }
    Ok(())
}
