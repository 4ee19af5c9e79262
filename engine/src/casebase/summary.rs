//! Summaries of a case base for `precedent info`.

use std::collections::HashMap;

use serde::Serialize;

use crate::casebase::patterns::{FAMILIES, Family};
use crate::casebase::{BuildInfo, CaseBase};

/// Cases of one player.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerCount {
    /// The player's name as the PGN headers spell it.
    pub name: String,
    /// Cases in which this player was the mover.
    pub cases: u64,
}

/// Cases whose mover was rated in `[from, from + 199]`.
#[derive(Clone, Debug, Serialize)]
pub struct Band {
    /// The band as text, e.g. `2400-2599`.
    pub band: String,
    /// Lowest rating in the band (Elo, a multiple of 200).
    pub from: u16,
    /// Cases whose mover's rating falls in the band.
    pub cases: u64,
}

/// Distinct patterns of one family.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyCount {
    /// The family's name.
    pub family: String,
    /// Distinct patterns of this family in the case base.
    pub patterns: u64,
}

/// What `precedent info` shows.
#[derive(Clone, Debug, Serialize)]
pub struct CaseBaseSummary {
    /// Name the case base was loaded under (its path, or `<embedded>`).
    pub name: String,
    /// Format version of the file.
    pub format_version: u32,
    /// Number of cases.
    pub cases: u64,
    /// Cases with White to move.
    pub white_cases: u64,
    /// Cases with Black to move.
    pub black_cases: u64,
    /// Games in the game table.
    pub games: u64,
    /// Cases whose mover has no rating in the PGN headers.
    pub unrated_cases: u64,
    /// Distinct move patterns counted, per family (in family order).
    pub patterns: Vec<FamilyCount>,
    /// Entries of the position index (distinct position-move pairs).
    pub index_entries: u64,
    /// Moves the policy knows (0: no policy, as in a version-3 file or one built without
    /// patterns).
    pub policy_moves: u64,
    /// Cases with a clock (how long their player thought); 0 in a case base built from games
    /// without `[%clk]` comments, or of a format before 5.
    pub timed_cases: u64,
    /// The time controls of the timed cases' games, most cases first: (control as `base+inc`,
    /// cases), at most five.
    pub time_controls: Vec<(String, u64)>,
    /// Distinct boards stored (per side to move): what a full scan reads.
    pub distinct_boards: u64,
    /// Lists a side of the approximate index (0: none; retrieval is exact).
    pub lists: u64,
    /// Cases per stored board: how much deduplication saved (1.0 = every board distinct).
    pub dedup_ratio: f64,
    /// Material buckets (runs of boards of equal material).
    pub buckets: u64,
    /// Size of the (uncompressed) case base, in bytes.
    pub bytes: u64,
    /// Bytes of case base per case.
    pub bytes_per_case: f64,
    /// The players with the most cases, most first (ties by name).
    pub top_players: Vec<PlayerCount>,
    /// Rated cases per 200-point rating band, lowest band first.
    pub rating_histogram: Vec<Band>,
    /// How the case base was built (sources, filters, counts).
    pub build: BuildInfo,
}

/// Summarises a case base: per-player and per-rating-band counts of its cases.
pub fn summarise(cb: &CaseBase, top: usize) -> CaseBaseSummary {
    // Count cases per (game, side) first, then resolve names once per game.
    let mut per_game = vec![[0u64; 2]; cb.game_count()];
    let mut bands: HashMap<u16, u64> = HashMap::new();
    let mut unrated = 0;
    let records = cb.game_records();
    for (i, meta) in cb.metas().iter().enumerate() {
        let side = usize::from(cb.mover(i) == shakmaty::Color::Black);
        if let Some(slot) = per_game.get_mut(meta.game as usize) {
            slot[side] += 1;
        }
        let elo = records
            .get(meta.game as usize)
            .map_or(0, |r| if side == 0 { r.white_elo } else { r.black_elo });
        if elo == 0 {
            unrated += 1;
        } else {
            *bands.entry(elo / 200 * 200).or_default() += 1;
        }
    }
    let mut players: HashMap<String, u64> = HashMap::new();
    for (g, counts) in per_game.iter().enumerate() {
        if counts == &[0, 0] {
            continue;
        }
        if let Some(info) = cb.game(g as u32) {
            for (name, n) in [(info.white, counts[0]), (info.black, counts[1])] {
                if n > 0 {
                    *players.entry(name).or_default() += n;
                }
            }
        }
    }
    let mut top_players: Vec<PlayerCount> = players
        .into_iter()
        .map(|(name, cases)| PlayerCount { name, cases })
        .collect();
    top_players.sort_by(|a, b| b.cases.cmp(&a.cases).then_with(|| a.name.cmp(&b.name)));
    top_players.truncate(top);
    let mut rating_histogram: Vec<Band> = bands
        .into_iter()
        .map(|(from, cases)| Band {
            band: format!("{}-{}", from, from + 199),
            from,
            cases,
        })
        .collect();
    rating_histogram.sort_by_key(|b| b.from);
    let white_cases = cb.segment(shakmaty::Color::White).len() as u64;
    CaseBaseSummary {
        name: cb.name().to_string(),
        format_version: cb.format_version(),
        policy_moves: cb.policy().len() as u64,
        timed_cases: cb.timed_cases(),
        time_controls: time_controls(cb),
        cases: cb.len() as u64,
        white_cases,
        black_cases: cb.len() as u64 - white_cases,
        games: cb.game_count() as u64,
        unrated_cases: unrated,
        patterns: family_counts(cb),
        index_entries: cb.position_index().len() as u64,
        distinct_boards: cb.boards().len() as u64,
        lists: cb
            .lists(shakmaty::Color::White)
            .map_or(0, |l| l.len() as u64),
        dedup_ratio: cb.len() as f64 / cb.boards().len().max(1) as f64,
        buckets: cb.buckets().len() as u64,
        bytes: cb.byte_len() as u64,
        bytes_per_case: cb.byte_len() as f64 / cb.len().max(1) as f64,
        top_players,
        rating_histogram,
        build: cb.info().clone(),
    }
}

/// The time controls of the timed cases, most cases first, at most five.
fn time_controls(cb: &CaseBase) -> Vec<(String, u64)> {
    let mut counts: HashMap<(u32, u32), u64> = HashMap::new();
    for (meta, clock) in cb.metas().iter().zip(cb.clocks()) {
        if let (Some(_), Some(tc)) = (clock.get(), cb.time_control(meta.game)) {
            *counts.entry((tc.base, tc.increment)).or_default() += 1;
        }
    }
    let mut counts: Vec<((u32, u32), u64)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
        .into_iter()
        .take(5)
        .map(|((base, inc), n)| (format!("{base}+{inc}"), n))
        .collect()
}

/// Distinct patterns per family (the family is the key's top byte).
fn family_counts(cb: &CaseBase) -> Vec<FamilyCount> {
    let mut counts = [0u64; FAMILIES];
    for p in cb.pattern_counts() {
        if let Some(c) = counts.get_mut((p.key >> 56) as usize) {
            *c += 1;
        }
    }
    Family::ALL
        .iter()
        .zip(counts)
        .map(|(family, patterns)| FamilyCount {
            family: family.name().to_string(),
            patterns,
        })
        .collect()
}

impl std::fmt::Display for CaseBaseSummary {
    /// The summary as `precedent info` prints it: what it holds, how it was built, what it
    /// derived from its cases, whose cases they are.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write_sizes(f)?;
        self.write_build(f)?;
        self.write_derived(f)?;
        self.write_movers(f)
    }
}

impl CaseBaseSummary {
    /// Its name, format, cases, games and what they take on disk.
    fn write_sizes(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self;
        writeln!(f, "case base      {}", s.name)?;
        writeln!(f, "format version {}", s.format_version)?;
        writeln!(
            f,
            "cases          {} ({} White to move, {} Black to move)",
            s.cases, s.white_cases, s.black_cases
        )?;
        writeln!(f, "games          {}", s.games)?;
        writeln!(
            f,
            "stored         {} distinct boards ({:.3} cases a board), {} material buckets, {:.1} MB ({:.1} bytes a case)",
            s.distinct_boards,
            s.dedup_ratio,
            s.buckets,
            s.bytes as f64 / 1e6,
            s.bytes_per_case
        )?;
        Ok(())
    }

    /// How it was built: the tool, the sources, the filters and the build's counts.
    fn write_build(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self;
        writeln!(f, "built by       {}", s.build.tool)?;
        writeln!(f, "sources        {}", s.build.sources.join(", "))?;
        let o = &s.build.options;
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        writeln!(
            f,
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
        )?;
        if let Some(pct) = o.holdout_moves {
            writeln!(f, "               held out {pct}% by their moves")?;
        }

        let st = &s.build.stats;
        writeln!(
            f,
            "build counts   {} games read, {} used, {} cases",
            st.games_read, st.games_used, st.cases
        )?;
        for (reason, n) in &st.games_skipped {
            writeln!(f, "  skipped      {n} {reason}")?;
        }
        if let Some(profile) = &s.build.profile {
            write!(f, "{}", ProfileLines(profile))?;
        }
        Ok(())
    }

    /// What the build derived from the cases: the position index, the move patterns, the
    /// policy and the clocks.
    fn write_derived(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self;
        let o = &s.build.options;
        writeln!(f, "position index {} position-move pairs", s.index_entries)?;
        if s.lists > 0 {
            writeln!(
                f,
                "lists          {} a side: an approximate index (`Probes` of them scanned a side)",
                s.lists
            )?;
        }
        writeln!(
            f,
            "move patterns  (distinct, per family{})",
            if o.min_pattern_count > 1 {
                format!(
                    "; only those legal in {}+ positions kept",
                    o.min_pattern_count
                )
            } else {
                String::new()
            }
        )?;
        for p in &s.patterns {
            writeln!(f, "  {:>10}  {}", p.patterns, p.family)?;
        }
        match s.policy_moves {
            0 if s.format_version < 4 => writeln!(
                f,
                "policy         none (format version {}: rebuild with `precedent build` for one)",
                s.format_version
            )?,
            0 if s.build.profile.is_some() => writeln!(
                f,
                "policy         none (a player file: the generic case base's model is read, with this player's counts on top)"
            )?,
            0 => writeln!(f, "policy         none (built without patterns)")?,
            n => {
                let sample = if o.fit_positions < s.cases {
                    format!("a sample of about {} of the cases", o.fit_positions)
                } else {
                    "every case".to_string()
                };
                writeln!(
                    f,
                    "policy         {n} moves, fitted (with the pattern strengths) on {sample}"
                )?;
            }
        }
        match s.timed_cases {
            0 if s.format_version < 5 => writeln!(
                f,
                "clocks         none (format version {}: rebuild from games with [%clk] comments for them)",
                s.format_version
            )?,
            0 => writeln!(
                f,
                "clocks         none (its games have no [%clk] comments): HumanTime paces by the fitted model"
            )?,
            n => {
                let controls: Vec<String> = s
                    .time_controls
                    .iter()
                    .map(|(tc, c)| format!("{tc} {c}"))
                    .collect();
                writeln!(
                    f,
                    "clocks         {n} of {} cases timed (time controls: {})",
                    s.cases,
                    controls.join(", ")
                )?
            }
        }
        Ok(())
    }

    /// Whose cases they are: the players with most cases and the movers' ratings.
    fn write_movers(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self;
        writeln!(f, "players with most cases:")?;
        for p in &s.top_players {
            writeln!(f, "  {:>10}  {}", p.cases, p.name)?;
        }
        writeln!(f, "mover rating histogram:")?;
        let max = s
            .rating_histogram
            .iter()
            .map(|b| b.cases)
            .max()
            .unwrap_or(1)
            .max(1);
        for b in &s.rating_histogram {
            let bar = "#".repeat((b.cases * 40 / max) as usize);
            writeln!(f, "  {:>9}  {:>10}  {}", b.band, b.cases, bar)?;
        }
        if s.unrated_cases > 0 {
            writeln!(f, "  {:>9}  {:>10}", "unrated", s.unrated_cases)?;
        }
        Ok(())
    }
}

/// A player file's profile, as `precedent info` prints it: a few lines.
struct ProfileLines<'a>(&'a crate::casebase::Profile);

impl std::fmt::Display for ProfileLines<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = self.0;
        let spellings: Vec<String> = p
            .spellings
            .iter()
            .map(|s| format!("{} {}", s.name, s.games))
            .collect();
        writeln!(
            f,
            "player         {} ({} games: {} as White, {} as Black; spelt {})",
            p.name,
            p.games,
            p.white_games,
            p.black_games,
            spellings.join(", ")
        )?;
        let score = p
            .score()
            .map_or_else(|| "-".to_string(), |s| format!("{:.1} %", 100.0 * s));
        match p.rating {
            Some(r) => writeln!(
                f,
                "rating         {} (median of {} rated games, {}-{}); score {score}",
                r.median, r.games, r.low, r.high
            )?,
            None => writeln!(f, "rating         none in the tags; score {score}")?,
        }
        for (side, lines) in [("White", &p.openings.white), ("Black", &p.openings.black)] {
            let firsts: Vec<String> = lines
                .iter()
                .filter(|l| !l.moves.contains(' '))
                .take(4)
                .map(|l| format!("{} {}", super::profile::san_line(&l.moves), l.games))
                .collect();
            let replies: Vec<String> = lines
                .iter()
                .filter(|l| l.moves.matches(' ').count() == 1)
                .take(4)
                .map(|l| format!("{} {}", super::profile::san_line(&l.moves), l.games))
                .collect();
            writeln!(
                f,
                "openings       as {side}: {} lines played twice or more; {}; {}",
                lines.len(),
                firsts.join(", "),
                replies.join(", ")
            )?;
        }
        for c in p.clocks.iter().take(3) {
            let medians: Vec<String> = c
                .median_seconds
                .iter()
                .map(|m| m.map_or_else(|| "-".to_string(), |s| format!("{s:.1}")))
                .collect();
            writeln!(
                f,
                "clock use      {}: {} games, median {} s a move (moves 1-10/11-25/26-40/41+)",
                c.control,
                c.games,
                medians.join("/")
            )?;
        }
        if let Some(j) = &p.judged {
            writeln!(
                f,
                "judged         blunders {:.1} % of {} moves, mean loss {:.0} cp ({})",
                100.0 * j.blunder_rate,
                j.positions,
                j.mean_loss,
                j.judge
            )?;
        }
        Ok(())
    }
}
