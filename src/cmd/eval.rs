//! `precedent eval`: move-matching accuracy on held-out games, or an EPD suite solved.

use anyhow::Result;
use precedent_lab::eval::{EvalArgs, EvalRun};
use precedent_lab::reasoner::ReasonerArgs;

use super::progress::Bars;

/// Arguments of `precedent eval`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    eval: EvalArgs,
    #[command(flatten)]
    reasoner: ReasonerArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent eval`.
pub fn run(args: Args) -> Result<()> {
    if args.eval.engine.is_some() {
        refuse_reasoner_flags(&args.reasoner)?;
    }
    let threads = super::threads_or_cores(args.eval.threads);
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let cfg = args.reasoner.config()?;
    let cb = args.reasoner.casebase()?;
    let run = EvalRun {
        args: &args.eval,
        cb: cb.knowledge(),
        cfg: &cfg,
        seed: args.reasoner.run_seed(&cfg),
        threads,
    };
    pool.install(|| match &args.eval.epd {
        Some(_) => super::print(&run.epd(&Bars)?, args.json),
        None => super::print(&run.pgn(&Bars)?, args.json),
    })
}

/// An external engine is measured as it is: a flag that sets Precedent's reasoner (other than
/// `--seed`, which draws the sample, and `--casebase`, whose games are left out of it) would
/// be silently ignored beside `--engine`, so it is refused, named.
fn refuse_reasoner_flags(reasoner: &ReasonerArgs) -> Result<()> {
    let params = reasoner.params.as_ref().map(|_| "params");
    let settings = reasoner.given.iter().map(|(name, _)| name.as_str());
    let set: Vec<String> = params
        .into_iter()
        .chain(settings.filter(|name| *name != "seed"))
        .map(|name| format!("--{name}"))
        .collect();
    anyhow::ensure!(
        set.is_empty(),
        "{}: Precedent's reasoner settings, which do not apply to --engine (the external \
         engine's options are --engine-option NAME=VALUE, its limit --limit)",
        set.join(", ")
    );
    Ok(())
}
