//! `precedent pack`: a case base rearranged and compressed for distribution.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use precedent::casebase::CaseBase;
use precedent::casebase::pack;

/// Arguments of `precedent pack`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The case-base file (uncompressed, or zstd-compressed).
    file: PathBuf,
    /// Where to write the packed, zstd-compressed case base (e.g. casebases/default.cb.zst).
    #[arg(short, long)]
    out: PathBuf,
    /// zstd level (1-22).
    #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(i32).range(1..=22))]
    level: i32,
}

/// Runs `precedent pack`: validates the input by loading it, packs its sections
/// (`engine/src/casebase/pack.rs`), compresses on every core, checks that the result loads to
/// the same case base, and only then writes it.
pub fn run(args: Args) -> Result<()> {
    let name = args.file.display().to_string();
    CaseBase::open(&args.file)?;
    let raw = std::fs::read(&args.file).with_context(|| format!("reading {name}"))?;
    let unpacked = pack::decompressed(raw).map_err(|e| anyhow!("{name}: {e}"))?;
    if pack::is_packed(&unpacked) {
        bail!("{name} is packed already");
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let compressed = pack::pack_and_compress(&unpacked, args.level, threads)
        .map_err(|e| anyhow!("{name}: {e}; nothing written"))?;
    CaseBase::from_bytes(&args.out.display().to_string(), &compressed)?;
    let tmp = args.out.with_extension("tmp");
    std::fs::write(&tmp, &compressed).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &args.out).with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "{}: {:.1} MB in memory, {:.1} MB packed and compressed (zstd -{})",
        args.out.display(),
        unpacked.len() as f64 / 1e6,
        compressed.len() as f64 / 1e6,
        args.level
    );
    Ok(())
}
