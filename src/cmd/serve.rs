//! `precedent serve`: the local web server, with the embedded case base and the player files
//! named.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use precedent::casebase::CaseBase;
use precedent::player::Loaded;
use precedent::think::EngineConfig;
use precedent_server::{ServeConfig, Served, serve};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A player file to offer as an opponent (repeatable), on top of the embedded case base.
    #[arg(long = "casebase", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The address to listen on: this machine only unless another is asked for.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// The port (0: any free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A UCI engine that judges the moves of an analysis (their loss in centipawns), e.g.
    /// `stockfish`.
    #[arg(long, value_name = "COMMAND")]
    judge: Option<String>,
}

pub fn run(args: Args) -> Result<()> {
    let generic = Arc::new(CaseBase::embedded().context("the embedded case base")?);
    let mut players = Vec::new();
    for path in &args.files {
        let loaded = Loaded::open(Some(path), || Ok(Arc::clone(&generic)))
            .with_context(|| format!("--casebase {}", path.display()))?;
        let Some(name) = loaded
            .knowledge()
            .player()
            .map(|p| p.profile().name.clone())
        else {
            bail!(
                "--casebase {}: not a player file (build one with `precedent build GAMES --player NAME`)",
                path.display()
            );
        };
        players.push(Served { name, loaded });
    }
    if let Some(judge) = &args.judge {
        // Started once now, so that a wrong command is said before the page is served.
        let engine = precedent_lab::client::EngineProcess::start(
            judge,
            &[],
            std::time::Duration::from_secs(10),
        )
        .with_context(|| format!("--judge {judge}: cannot start it as a UCI engine"))?;
        engine.quit();
    }
    let config = ServeConfig {
        addr: SocketAddr::new(args.host, args.port),
        generic: Loaded::from_shared(generic),
        players,
        cfg: EngineConfig::default(),
        judge: args.judge,
    };
    serve(config, |addr| {
        println!("precedent serve: http://{addr}/ (the API under /api; Ctrl-C stops it)");
    })?;
    Ok(())
}
