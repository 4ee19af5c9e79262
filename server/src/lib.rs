//! `precedent serve`: a local web server that plays the engine's levels and player files and
//! shows the precedents behind each of its moves, analyses games, and shows a player's dossier
//! and who played. A room of its own: it calls the engine's public API (what the UCI loop calls:
//! [`precedent::think::think`] on [`Loaded`] knowledge) and the lab's (the dossier, `who`, the
//! judge), and nothing calls it but the command line.
#![warn(missing_docs)]

mod analyse;
mod api;
mod dossier;
mod games;
mod precedents;
mod who;

use std::net::SocketAddr;
use std::sync::Arc;

use precedent::player::Loaded;
use precedent::think::EngineConfig;

pub use api::router;
pub use games::{MAX_GAMES, Served, State};

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why not.
        source: std::io::Error,
    },
    /// The runtime or the connection loop failed.
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// What the server plays with: the generic case base, the player files named on the command
/// line (each on top of it), and the engine's settings.
pub struct ServeConfig {
    /// Where to listen (127.0.0.1 unless asked otherwise).
    pub addr: SocketAddr,
    /// The generic case base (the embedded one, as a rule).
    pub generic: Loaded,
    /// The player files, each with its name.
    pub players: Vec<Served>,
    /// The engine's settings (a level's game sets its `elo`).
    pub cfg: EngineConfig,
    /// A judge engine's command (e.g. `stockfish`): analyses give each move's loss by it.
    pub judge: Option<String>,
}

/// Serves until the process ends; `ready` hears the address bound (a port of 0 is chosen by
/// the system) before the first request is answered.
pub fn serve(config: ServeConfig, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: config.addr,
                source,
            })?;
        ready(listener.local_addr()?);
        let state = Arc::new(State::new(
            config.generic,
            config.players,
            config.cfg,
            config.judge,
        ));
        axum::serve(listener, router(state)).await?;
        Ok(())
    })
}
