//! `precedent fit net` as a command: its arguments, its errors and progress, the training from
//! files of analysed games, and the report's text.

use precedent::pgn::InputError;
use precedent::search::nnue::{Network, NetworkError};

use super::{Epoch, Reading, Trainee, Training, classic_loss, collect, quantised_loss, train};

/// Arguments of `precedent fit net`.
#[derive(clap::Args, Clone, Debug)]
pub struct NetFitArgs {
    /// Analysed games (`[%eval …]` comments, as Lichess exports them): .pgn, .pgn.zst or -.
    /// Games of `fit`'s test half are left out, so that held-out measurements stay held out.
    /// Optional when `--extra` gives the games (e.g. going on from a network with `--init`).
    #[arg(long, value_name = "FILE", required_unless_present = "extra")]
    pub pgn: Option<String>,
    /// More analysed games, all of them used (no held-out half): e.g. `scripts/gen-net-data`'s
    /// Stockfish self-play (repeatable).
    #[arg(long, value_name = "FILE")]
    pub extra: Vec<String>,
    /// Where to write the network (`nets/default.nnue` is the embedded one).
    #[arg(long, value_name = "FILE")]
    pub out: String,
    /// Most positions to read (one game in ten goes to the validation set).
    #[arg(long, default_value_t = 10_000_000)]
    pub positions: usize,
    /// Plies skipped at the start of each game.
    #[arg(long, default_value_t = 8)]
    pub skip_plies: u32,
    /// The evaluation's share of the target; the rest is the game's result.
    #[arg(long, default_value_t = 0.9)]
    pub lambda: f64,
    /// Also train on every position mirrored left to right.
    #[arg(long)]
    pub flip: bool,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 16_384)]
    pub batch: usize,
    /// AdamW's first step (cosine decay to a tenth).
    #[arg(long, default_value_t = 0.001)]
    pub rate: f32,
    /// AdamW's weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub decay: f32,
    /// Stockfish's centipawns per centipawn of ours (what `fit eval` prints): the network keeps
    /// the hand-made evaluation's units.
    #[arg(long, default_value_t = 1.36)]
    pub scale: f64,
    /// Seeds the weights and the order of the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start from this network's weights (e.g. `nets/default.nnue`) instead of random ones: goes
    /// on training it, e.g. on new games at a lower `--rate`.
    #[arg(long, value_name = "FILE")]
    pub init: Option<String>,
}

/// Why `fit net` could not train.
#[derive(Debug, thiserror::Error)]
pub enum NetFitError {
    /// The games could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Too few positions to train and validate on.
    #[error(
        "{0}: too few quiet positions with a [%eval] comment (outside fit's test half for --pgn)"
    )]
    TooFew(String),
    /// The starting network could not be read.
    #[error("{path}: cannot read the network to start from: {source}")]
    InitRead {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The starting network is not one this build reads.
    #[error("{path}: cannot start from it: {source}")]
    InitNetwork {
        /// The file.
        path: String,
        /// Why.
        source: NetworkError,
    },
    /// The network could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// What `fit net` tells as it goes.
#[derive(Clone, Copy, Debug)]
pub enum NetFitProgress {
    /// The positions were read: games, training and validation positions, and the hand-made
    /// evaluation's validation loss.
    Read(u64, usize, usize, f64),
    /// An epoch ended.
    Epoch(Epoch),
}

/// What `fit net` made: the best epoch's network, written to `out`.
#[derive(Clone, Debug)]
pub struct NetFitReport {
    /// The epoch kept (the lowest validation loss).
    pub best: Epoch,
    /// The quantised network's validation loss.
    pub quantised: f64,
    /// The hand-made evaluation's.
    pub classic: f64,
    /// Where the network was written.
    pub out: String,
}

impl std::fmt::Display for NetFitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "validation loss {:.6} (epoch {}; quantised {:.6}), hand-made evaluation {:.6}; wrote {}",
            self.best.valid, self.best.epoch, self.quantised, self.classic, self.out
        )
    }
}

/// Reads the positions, trains, and writes the network of the best epoch to `args.out`;
/// `progress` hears of the positions read and of every epoch.
pub fn run(
    args: &NetFitArgs,
    mut progress: impl FnMut(NetFitProgress),
) -> Result<NetFitReport, NetFitError> {
    let reading = Reading {
        skip_plies: args.skip_plies,
        max: args.positions,
        lambda: args.lambda,
        flip: args.flip,
    };
    // The starting network first: a bad path is told before minutes of reading.
    let start = match &args.init {
        None => Trainee::new(args.seed),
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|source| NetFitError::InitRead {
                path: path.clone(),
                source,
            })?;
            let net = Network::from_bytes(&bytes).map_err(|source| NetFitError::InitNetwork {
                path: path.clone(),
                source,
            })?;
            Trainee::from_network(&net)
        }
    };
    let mut samples = collect(args.pgn.as_deref(), &args.extra, reading)?;
    if samples.train.is_empty() || samples.valid.is_empty() {
        let files = args.pgn.iter().chain(&args.extra).cloned();
        return Err(NetFitError::TooFew(files.collect::<Vec<_>>().join(", ")));
    }
    let classic = classic_loss(&samples.valid, args.scale);
    progress(NetFitProgress::Read(
        samples.games,
        samples.train.len(),
        samples.valid.len(),
        classic,
    ));
    let how = Training {
        epochs: args.epochs,
        batch: args.batch,
        rate: args.rate,
        decay: args.decay,
        scale: args.scale,
        seed: args.seed,
    };
    let (net, best) = train(&mut samples, how, start, |e| {
        progress(NetFitProgress::Epoch(e))
    });
    let quantised = net.network();
    std::fs::write(&args.out, quantised.to_bytes()).map_err(|source| NetFitError::Write {
        path: args.out.clone(),
        source,
    })?;
    Ok(NetFitReport {
        best,
        quantised: quantised_loss(&quantised, &samples.valid, args.scale),
        classic,
        out: args.out.clone(),
    })
}
