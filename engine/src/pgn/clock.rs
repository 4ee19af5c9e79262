//! Clocks in PGN: the `TimeControl` tag and Lichess' `[%clk h:mm:ss]` comments, read into how
//! long each player thought about each move and how much time they had left.

/// A game's time control (`TimeControl "180+2"`): the starting clock and the increment a move,
/// in seconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TimeControl {
    /// Seconds on each clock at the start.
    pub base: u32,
    /// Seconds added after each move.
    pub increment: u32,
}

impl TimeControl {
    /// Parses a `TimeControl` tag of the form `base+increment` or `base` (seconds); `-`, `?`,
    /// moves-per-period forms (`40/5400`) and anything else give `None`.
    pub fn from_tag(tag: &str) -> Option<TimeControl> {
        let tag = tag.trim();
        let (base, increment) = match tag.split_once('+') {
            Some((b, i)) => (b, i),
            None => (tag, "0"),
        };
        let number = |s: &str| {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
        };
        let (base, increment) = (number(base)?, number(increment)?);
        (base > 0 || increment > 0).then_some(TimeControl { base, increment })
    }
}

/// How fast a game is, by its estimated duration (the starting clock plus 40 increments), as
/// Lichess sorts its games: under 3 minutes bullet (Lichess' ultrabullet, under 30 s, counted
/// with it: engines are tested at such clocks, people rarely play them), under 8 blitz, under
/// 25 rapid, else classical. A game without a time control (most over-the-board collections)
/// counts as classical.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Speed {
    /// Under 3 minutes.
    Bullet,
    /// 3 to 8 minutes.
    Blitz,
    /// 8 to 25 minutes.
    Rapid,
    /// 25 minutes or more, or untimed.
    Classical,
}

crate::choice::choice!(Speed, "speed", [
    Bullet => "bullet",
    Blitz => "blitz",
    Rapid => "rapid",
    Classical => "classical",
]);

impl Speed {
    /// The speed of a clock of `base` seconds and `increment` seconds a move.
    pub fn of_clock(base: f64, increment: f64) -> Speed {
        let estimate = base + 40.0 * increment;
        if estimate < 180.0 {
            Speed::Bullet
        } else if estimate < 480.0 {
            Speed::Blitz
        } else if estimate < 1500.0 {
            Speed::Rapid
        } else {
            Speed::Classical
        }
    }

    /// The speed of a game with this time control (`None`: untimed, classical).
    pub fn of_control(control: Option<TimeControl>) -> Speed {
        control.map_or(Speed::Classical, |c| {
            Speed::of_clock(f64::from(c.base), f64::from(c.increment))
        })
    }
}

/// How one move was timed: the mover's clock before it and the time it took, in tenths of a
/// second (the increment it earned is not counted as time taken).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveClock {
    /// The mover's clock when the move began.
    pub left: u32,
    /// The time the mover took.
    pub spent: u32,
}

/// The clock in a comment such as `[%clk 0:02:56]` or `[%clk 0:00:07.3]`, in tenths of a
/// second; `None` when the comment has none or a malformed one.
pub(crate) fn parse_clock(comment: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(comment).ok()?;
    let rest = &text[text.find("[%clk")? + 5..];
    let value = rest[..rest.find(']')?].trim();
    let mut parts = value.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let (whole, tenths) = match s.split_once('.') {
        Some((w, f)) if digits(f) => (w, u32::from(f.as_bytes()[0] - b'0')),
        Some(_) => return None,
        None => (s, 0),
    };
    if !(digits(h) && digits(m) && digits(whole)) {
        return None;
    }
    let (h, m, whole): (u32, u32, u32) = (h.parse().ok()?, m.parse().ok()?, whole.parse().ok()?);
    if m >= 60 || whole >= 60 || h > 99 {
        return None;
    }
    Some(((h * 60 + m) * 60 + whole) * 10 + tenths)
}

/// How the move at `ply` was timed, from the clocks after each ply (tenths of a second) and the
/// time control. Each side's first move is not timed (Lichess starts a clock at its owner's
/// second move); a missing clock, or one that rose by more than the increment, gives `None`.
pub fn move_clock(clocks: &[Option<u32>], ply: usize, control: TimeControl) -> Option<MoveClock> {
    let after = (*clocks.get(ply)?)?;
    if ply < 2 {
        return Some(MoveClock {
            left: after,
            spent: 0,
        });
    }
    let before = (*clocks.get(ply - 2)?)?;
    let spent = (before + control.increment * 10).checked_sub(after)?;
    Some(MoveClock {
        left: before,
        spent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_control_tags_parse_to_seconds() {
        let tc = |base, increment| Some(TimeControl { base, increment });
        assert_eq!(TimeControl::from_tag("180+2"), tc(180, 2));
        assert_eq!(TimeControl::from_tag(" 600 "), tc(600, 0));
        assert_eq!(TimeControl::from_tag("0+1"), tc(0, 1));
        for bad in [
            "-",
            "?",
            "",
            "40/5400",
            "180+",
            "+2",
            "a+b",
            "0+0",
            "99999999999+1",
        ] {
            assert_eq!(TimeControl::from_tag(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn speeds_follow_lichess_estimate_of_a_games_duration() {
        let of = |tag: &str| Speed::of_control(TimeControl::from_tag(tag));
        assert_eq!(of("15+0"), Speed::Bullet);
        assert_eq!(of("60+0"), Speed::Bullet);
        assert_eq!(of("120+1"), Speed::Bullet);
        assert_eq!(of("180+0"), Speed::Blitz);
        assert_eq!(of("180+2"), Speed::Blitz);
        assert_eq!(of("300+5"), Speed::Rapid);
        assert_eq!(of("600+0"), Speed::Rapid);
        assert_eq!(of("900+15"), Speed::Classical);
        assert_eq!(of("-"), Speed::Classical);
        assert_eq!(Speed::of_clock(10.0, 0.1), Speed::Bullet);
        assert_eq!("Blitz".parse::<Speed>(), Ok(Speed::Blitz));
    }

    #[test]
    fn clock_comments_parse_to_tenths() {
        assert_eq!(parse_clock(b" [%clk 0:02:56] "), Some(1760));
        assert_eq!(parse_clock(b"[%eval 0.3] [%clk 1:00:00]"), Some(36000));
        assert_eq!(parse_clock(b"[%clk 0:00:07.3]"), Some(73));
        for bad in [
            &b"[%clk 0:61:00]"[..],
            b"[%clk 0:00]",
            b"[%clk 0:0a:00]",
            b"[%clk 0:00:07.x]",
            b"[%clk 0:00:07",
            b"no clock",
        ] {
            assert_eq!(parse_clock(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_moves_time_is_its_clocks_drop_plus_the_increment() {
        let control = TimeControl {
            base: 180,
            increment: 2,
        };
        // 1. e4 3:00  1... e5 3:00  2. Nf3 3:01  2... d6 2:50  3. Nc3 missing
        let clocks = [Some(1800), Some(1800), Some(1810), Some(1700), None];
        let at = |ply| move_clock(&clocks, ply, control);
        assert_eq!(
            at(0),
            Some(MoveClock {
                left: 1800,
                spent: 0
            })
        );
        assert_eq!(
            at(2),
            Some(MoveClock {
                left: 1800,
                spent: 10
            })
        );
        assert_eq!(
            at(3),
            Some(MoveClock {
                left: 1800,
                spent: 120
            })
        );
        assert_eq!(at(4), None);
        assert_eq!(at(9), None);
        // A clock that rose by more than the increment (a gift of time) is not a move's time.
        let gift = [Some(1800), Some(1800), Some(1900)];
        assert_eq!(move_clock(&gift, 2, control), None);
    }
}
