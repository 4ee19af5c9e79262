//! `precedent info`.

use std::path::PathBuf;

use anyhow::Result;
use precedent::casebase::CaseBase;
use precedent::casebase::summary::summarise;

/// Arguments of `precedent info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The case-base file.
    file: PathBuf,
    /// How many players to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `precedent info`.
pub fn run(args: Args) -> Result<()> {
    let cb = CaseBase::open(&args.file)?;
    let s = summarise(&cb, args.top);
    if args.json {
        println!("{}", serde_json::to_string(&s)?);
        return Ok(());
    }
    println!("case base      {}", s.name);
    println!("format version {}", s.format_version);
    println!(
        "cases          {} ({} White to move, {} Black to move)",
        s.cases, s.white_cases, s.black_cases
    );
    println!("games          {}", s.games);
    println!(
        "stored         {} distinct boards ({:.3} cases a board), {} material buckets, {:.1} MB ({:.1} bytes a case)",
        s.distinct_boards,
        s.dedup_ratio,
        s.buckets,
        s.bytes as f64 / 1e6,
        s.bytes_per_case
    );
    println!("built by       {}", s.build.tool);
    println!("sources        {}", s.build.sources.join(", "));
    let o = &s.build.options;
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    println!(
        "filters        players {}, side {}, min elo {}, max elo {}, skip plies {}, max games {}, max cases {}, cases per 200-point band {}, held out {}%",
        if o.players.is_empty() {
            "any".to_string()
        } else {
            o.players.join(", ")
        },
        opt(o.side.clone()),
        opt(o.min_elo.map(|e| e.to_string())),
        opt(o.max_elo.map(|e| e.to_string())),
        o.skip_plies,
        opt(o.max_games.map(|e| e.to_string())),
        opt(o.max_cases.map(|e| e.to_string())),
        opt(o.band_cases.map(|e| e.to_string())),
        o.holdout.unwrap_or(0),
    );

    let st = &s.build.stats;
    println!(
        "build counts   {} games read, {} used, {} cases",
        st.games_read, st.games_used, st.cases
    );
    for (reason, n) in &st.games_skipped {
        println!("  skipped      {n} {reason}");
    }
    println!("position index {} position-move pairs", s.index_entries);
    println!(
        "move patterns  (distinct, per family{})",
        if o.min_pattern_count > 1 {
            format!(
                "; only those legal in {}+ positions kept",
                o.min_pattern_count
            )
        } else {
            String::new()
        }
    );
    for f in &s.patterns {
        println!("  {:>10}  {}", f.patterns, f.family);
    }
    println!("players with most cases:");
    for p in &s.top_players {
        println!("  {:>10}  {}", p.cases, p.name);
    }
    println!("mover rating histogram:");
    let max = s
        .rating_histogram
        .iter()
        .map(|b| b.cases)
        .max()
        .unwrap_or(1)
        .max(1);
    for b in &s.rating_histogram {
        let bar = "#".repeat((b.cases * 40 / max) as usize);
        println!("  {:>9}  {:>10}  {}", b.band, b.cases, bar);
    }
    if s.unrated_cases > 0 {
        println!("  {:>9}  {:>10}", "unrated", s.unrated_cases);
    }
    Ok(())
}
