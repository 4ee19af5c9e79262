//! `precedent pack`: a case base rearranged and compressed for distribution.

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use precedent::casebase::{self, CaseBase};

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

/// Runs `precedent pack`: reads and validates the input, packs its sections
/// (`engine/src/casebase/pack.rs`), compresses on every core, and writes the result only once it
/// loads back to the same case base (the loader checks it against the input's checksum).
pub fn run(args: Args) -> Result<()> {
    let name = args.file.display().to_string();
    let raw = std::fs::read(&args.file).with_context(|| format!("reading {name}"))?;
    let unpacked = casebase::decompressed(raw).map_err(|e| anyhow!("{name}: {e}"))?;
    CaseBase::from_bytes(&name, &unpacked)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let compressed = casebase::pack_and_compress(&unpacked, args.level, threads)
        .map_err(|e| anyhow!("{name}: {e}; nothing written"))?;
    CaseBase::from_bytes(&args.out.display().to_string(), &compressed)
        .with_context(|| format!("{name}: the packed case base does not load; nothing written"))?;
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
