//! Which scale a level's number is on (`EloScale`): Stockfish 15.1's `UCI_Elo`, the engine
//! scale the levels are calibrated on, or the people's, a Lichess rapid rating, where each
//! level stands by its games against maia1 (Maia-1 1100 at one node, a Lichess blitz 1500
//! among people) as `docs/scale.md` measures it. A player's rating at another speed is read
//! on the people's scale as the rapid rating of the same person, by the pools' differences.

use crate::pgn::Speed;

/// The scale of `UCI_Elo` (`--elo`) and of a player file's rating when it chooses a level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EloScale {
    /// Stockfish 15.1's `UCI_Elo` at 10+0.1: each level's `elo`.
    #[default]
    Stockfish,
    /// A Lichess rapid rating: each level's `people`.
    People,
}

crate::choice::choice!(EloScale, "elo scale", [
    Stockfish => "stockfish",
    People => "people",
]);

/// One person's rapid rating minus their rating at another speed, by that rating (each
/// measured band's mean at its middle; between them interpolated, beyond them held):
/// `precedent scale pools` on the Lichess rapid file and the two accounts' file, players
/// rated in both pools within 365 days (docs/scale.md, "Pools"). Rapid − bullet: +209 at
/// bullet 1200–1599 (15 players), +98 at 1600–1999 (67), +69 at 2000–2399 (69); rapid − blitz:
/// +73 at blitz 1600–1999 (22), +42 at 2000–2399 (48), below 1600 the gap of 1600–1999 held.
const RAPID_MINUS: [(Speed, &[(f64, f64)]); 2] = [
    (
        Speed::Bullet,
        &[(1400.0, 209.0), (1800.0, 98.0), (2200.0, 69.0)],
    ),
    (Speed::Blitz, &[(1800.0, 73.0), (2200.0, 42.0)]),
];

/// The rapid rating of a person rated `rating` at `speed` (`None`: a rating over all their
/// games, taken as it is; classical too, for want of people rated in both).
pub fn rapid_equivalent(speed: Option<Speed>, rating: u16) -> u16 {
    let Some((_, points)) = RAPID_MINUS.iter().find(|(s, _)| Some(*s) == speed) else {
        return rating;
    };
    let x = f64::from(rating);
    let gap = match points {
        [] => 0.0,
        [(x0, y0), ..] if x <= *x0 => *y0,
        [.., (xn, yn)] if x >= *xn => *yn,
        _ => points
            .windows(2)
            .find(|w| x >= w[0].0 && x <= w[1].0)
            .map_or(0.0, |w| {
                w[0].1 + (w[1].1 - w[0].1) * (x - w[0].0) / (w[1].0 - w[0].0)
            }),
    };
    (x + gap).round().clamp(0.0, f64::from(u16::MAX)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::think::EngineConfig;
    use crate::think::settings::validate;

    #[test]
    fn the_peoples_scale_chooses_by_each_levels_strength_among_people() {
        let mut cfg = EngineConfig::default();
        // Levels 1000, 1200 and 1400 measured among people, the others not.
        for level in &mut cfg.levels {
            level.people = match level.elo {
                1000 => Some(1400),
                1200 => Some(1600),
                1400 => Some(1750),
                _ => None,
            };
        }
        let chosen = |cfg: &EngineConfig, elo: u16| {
            let c = cfg.level_for(elo).expect("a level");
            (c.level.elo, c.elo, c.clamped)
        };
        // On Stockfish's scale, as before: the nearest `elo`.
        assert_eq!(chosen(&cfg, 1500), (1400, 1500, false));
        assert_eq!(cfg.elo_range(), Some((1000, 2600)), "stockfish");
        cfg.elo_scale = EloScale::People;
        assert_eq!(cfg.elo_range(), Some((1400, 1750)));
        assert_eq!(chosen(&cfg, 1500), (1000, 1500, false));
        assert_eq!(chosen(&cfg, 1501), (1200, 1501, false));
        assert_eq!(chosen(&cfg, 1700), (1400, 1700, false));
        // Outside the measured levels: clamped, and said so.
        assert_eq!(chosen(&cfg, 1000), (1000, 1400, true));
        assert_eq!(chosen(&cfg, 2600), (1400, 1750, true));
        assert!(validate(&cfg).is_ok());
        // No level measured among people: the people's scale is refused, naming why.
        for level in &mut cfg.levels {
            level.people = None;
        }
        let e = validate(&cfg)
            .expect_err("nothing to choose from")
            .to_string();
        assert!(
            e.contains("elo-scale people") && e.contains("people"),
            "{e}"
        );
    }

    #[test]
    fn faster_pools_read_as_the_rapid_rating_of_the_same_person() {
        assert_eq!(rapid_equivalent(Some(Speed::Bullet), 1200), 1409);
        assert_eq!(rapid_equivalent(Some(Speed::Bullet), 1600), 1754); // halfway: +153.5
        assert_eq!(rapid_equivalent(Some(Speed::Bullet), 2600), 2669);
        assert_eq!(rapid_equivalent(Some(Speed::Blitz), 1500), 1573);
        assert_eq!(rapid_equivalent(Some(Speed::Blitz), 2000), 2058); // halfway: +57.5
        for (speed, rating) in [
            (Some(Speed::Rapid), 1342),
            (Some(Speed::Classical), 2615),
            (None, 1500),
        ] {
            assert_eq!(rapid_equivalent(speed, rating), rating);
        }
        assert_eq!("people".parse::<EloScale>(), Ok(EloScale::People));
        assert!("lichess".parse::<EloScale>().is_err());
    }
}
