//! `precedent fit net`.

use anyhow::Result;
use precedent_lab::fit::net::{NetFitArgs, NetFitProgress, run as fit_net};

/// Runs `precedent fit net`: the losses as it trains, then the network kept.
pub fn run(args: NetFitArgs) -> Result<()> {
    let report = fit_net(&args, |p| match p {
        NetFitProgress::Read(games, train, valid, classic) => eprintln!(
            "{games} games, {train} training positions, {valid} validation positions; the \
             hand-made evaluation's validation loss {classic:.6}"
        ),
        NetFitProgress::Epoch(e) if e.epoch == 0 => eprintln!(
            "epoch   0: the starting weights' validation loss {:.6}",
            e.valid
        ),
        NetFitProgress::Epoch(e) => eprintln!(
            "epoch {:3}: training loss {:.6}, validation loss {:.6}",
            e.epoch, e.train, e.valid
        ),
    })?;
    print!("{report}");
    Ok(())
}
