//! Move patterns: the case base's knowledge of *which kinds of moves* its players choose.
//!
//! Every legal move of a position has one pattern in each [`Family`]: its piece and squares
//! alone, or with the pieces around its destination, or around its origin, its tactical
//! signature, its relation to the opponent's last move, the stage of the game. A case base
//! counts, for every pattern, how often a move with that pattern was *available* to its players
//! and how often it was *played*; the ratio is what the players of this case base do when they
//! can. These counts are built with the case base from its cases alone (so a one-game case base
//! knows only that game's patterns) and read by the move model.
//!
//! Patterns are computed in the mover's point of view (White to move; a Black-to-move position
//! is mirrored first), like the cases. A pattern key is exact, not hashed: its family in the top
//! byte and the pattern's fields packed below bit 51.

use bytemuck::{Pod, Zeroable};
use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square};

/// The kinds of pattern, each a different view of the same move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Piece, origin, destination, promotion: the move itself.
    Move,
    /// The move and the eight squares around its destination.
    ToRing,
    /// The move and the eight squares around its origin.
    FromRing,
    /// Piece, capture, check, and who attacks and defends its origin and destination.
    Tactic,
    /// The move against the opponent's last move: recapture, escape, distance.
    Reply,
    /// The move and the stage of the game (ply and material left).
    Phase,
    /// What the moved piece attacks afterwards: the most valuable enemy piece it threatens
    /// (undefended, or worth more than the piece itself), how many, and check.
    Threat,
    /// The moved piece's mobility before and after the move (squares it attacks that are not
    /// its own side's), by piece and destination.
    Mobility,
}

/// Number of families.
pub(crate) const FAMILIES: usize = 8;

impl Family {
    /// Every family, in key order.
    pub const ALL: [Family; FAMILIES] = [
        Family::Move,
        Family::ToRing,
        Family::FromRing,
        Family::Tactic,
        Family::Reply,
        Family::Phase,
        Family::Threat,
        Family::Mobility,
    ];

    /// Its name in reports and parameter files.
    pub fn name(self) -> &'static str {
        match self {
            Family::Move => "move",
            Family::ToRing => "to_ring",
            Family::FromRing => "from_ring",
            Family::Tactic => "tactic",
            Family::Reply => "reply",
            Family::Phase => "phase",
            Family::Threat => "threat",
            Family::Mobility => "mobility",
        }
    }

    /// The coarser family its estimates fall back on when its own counts are few.
    pub fn parent(self) -> Option<Family> {
        match self {
            Family::ToRing | Family::FromRing | Family::Phase => Some(Family::Move),
            Family::Move | Family::Tactic | Family::Reply | Family::Threat => None,
            Family::Mobility => Some(Family::Move),
        }
    }

    /// Position in [`Family::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The family of a key.
    #[cfg(test)]
    pub(crate) fn of_key(key: u64) -> Option<Family> {
        Family::ALL.get((key >> 56) as usize).copied()
    }
}

/// The opponent's last move, as a case remembers it (in the mover's point of view): where it
/// went and what it captured. 16 bits: bit 15 = known, bits 0–5 the destination, bits 6–8 the
/// captured role (0 = none).
#[repr(transparent)]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, Pod, Zeroable)]
pub struct LastMove(pub u16);

impl LastMove {
    /// Not known (the first move of a game, or a position set up from a FEN).
    pub(crate) const UNKNOWN: LastMove = LastMove(0);

    /// A last move to `to` that captured `captured`.
    pub fn new(to: Square, captured: Option<Role>) -> LastMove {
        let cap = captured.map_or(0, |r| r as u16);
        LastMove(1 << 15 | to as u16 | cap << 6)
    }

    /// The last move of a game, as the side to move sees it (mirrored when Black is to move).
    pub fn of(m: Option<&Move>, turn: Color) -> LastMove {
        let Some(m) = m else {
            return LastMove::UNKNOWN;
        };
        let to = match *m {
            Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_king_side(rook > king);
                Square::from_coords(side.king_to_file(), king.rank())
            }
            _ => m.to(),
        };
        let to = if turn == Color::Black {
            to.flip_vertical()
        } else {
            to
        };
        LastMove::new(to, m.capture())
    }

    /// Its destination, if known.
    pub fn to(self) -> Option<Square> {
        (self.0 >> 15 != 0).then(|| Square::new(u32::from(self.0 & 63)))
    }

    /// What it captured.
    pub(crate) fn captured(self) -> Option<Role> {
        Role::try_from(((self.0 >> 6) & 7) as u8).ok()
    }
}

/// What a position's moves are seen with besides the board: the ply (0 = White's first move)
/// and the opponent's last move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveContext {
    /// Plies played before this position in its game.
    pub ply: u32,
    /// The move that led to it.
    pub last: LastMove,
}

/// Square content code: 0 empty, 1–6 own pawn…king, 7–12 the opponent's, 13 off the board.
#[cfg(test)]
fn code(board: &Board, sq: Option<Square>) -> u64 {
    match sq {
        None => 13,
        Some(sq) => match board.piece_at(sq) {
            None => 0,
            Some(p) => u64::from(p.role as u8) + if p.color == Color::White { 0 } else { 6 },
        },
    }
}

/// The eight squares around `sq` (off-board as `None`), in a fixed order.
fn ring(sq: Square) -> [Option<Square>; 8] {
    const STEPS: [(i32, i32); 8] = [
        (-1, -1),
        (0, -1),
        (1, -1),
        (-1, 0),
        (1, 0),
        (-1, 1),
        (0, 1),
        (1, 1),
    ];
    STEPS.map(|(df, dr)| sq.offset(df + 8 * dr).filter(|t| t.distance(sq) == 1))
}

#[cfg(test)]
fn ring_code(board: &Board, sq: Square) -> u64 {
    ring(sq)
        .iter()
        .fold(0, |acc, &s| (acc << 4) | code(board, s))
}

/// The ring of every square as square indices in [`ring`]'s order, 64 for off the board.
static RINGS: std::sync::LazyLock<[[u8; 8]; 64]> = std::sync::LazyLock::new(|| {
    let mut rings = [[64u8; 8]; 64];
    for sq in Square::ALL {
        for (slot, s) in rings[sq as usize].iter_mut().zip(ring(sq)) {
            *slot = s.map_or(64, |s| s as u8);
        }
    }
    rings
});

/// Every square's content code ([`code`]), and 13 (off the board) at index 64.
fn contents(board: &Board) -> [u8; 65] {
    let mut out = [0u8; 65];
    out[64] = 13;
    for (sq, p) in board {
        out[sq as usize] = p.role as u8 + if p.color == Color::White { 0 } else { 6 };
    }
    out
}

/// A count bucketed to 0, 1, 2 (2 = two or more).
fn bucket(bb: Bitboard) -> u64 {
    bb.count().min(2) as u64
}

/// Ply bucket of the phase family: 0–9, 10–19, 20–29, 30–49, 50–79, 80+.
fn ply_bucket(ply: u32) -> u64 {
    match ply {
        0..=9 => 0,
        10..=19 => 1,
        20..=29 => 2,
        30..=49 => 3,
        50..=79 => 4,
        _ => 5,
    }
}

/// Material bucket of the phase family, from the pieces other than pawns and kings (both sides,
/// in pawns: queen 9, rook 5, minor 3): 50+, 35–49, 20–34, below 20.
fn material_bucket(board: &Board) -> u64 {
    let value = |r: Role, v: u32| board.by_role(r).count() as u32 * v;
    let total = value(Role::Queen, 9)
        + value(Role::Rook, 5)
        + value(Role::Bishop, 3)
        + value(Role::Knight, 3);
    match total {
        50.. => 0,
        35..=49 => 1,
        20..=34 => 2,
        _ => 3,
    }
}

/// Material value of a role in pawns (the king counts as the most valuable).
fn role_value(role: Role) -> u32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 100,
    }
}

/// From- and to-square of a move as patterns see it (castling: the king's two-file move).
fn squares(m: &Move) -> (Square, Square) {
    match *m {
        Move::Castle { king, rook } => {
            let side = shakmaty::CastlingSide::from_king_side(rook > king);
            (king, Square::from_coords(side.king_to_file(), king.rank()))
        }
        _ => (m.from().unwrap_or(m.to()), m.to()),
    }
}

/// The pattern keys of every legal move of `pos`, which must have White to move (the mover's
/// point of view), appended to `out` as (move, keys by family).
pub(crate) fn move_patterns(pos: &Chess, ctx: MoveContext, out: &mut Vec<(Move, [u64; FAMILIES])>) {
    let before = Before::of(pos, ctx);
    for m in pos.legal_moves() {
        let mut next = pos.clone();
        next.play_unchecked(m);
        let keys = before.keys(&m, next.board(), u64::from(next.is_check()));
        out.push((m, keys));
    }
}

/// What the patterns of every legal move read of the position before it (White to move).
struct Before<'a> {
    board: &'a Board,
    /// Every square's content code, for the rings.
    contents: [u8; 65],
    occupied: Bitboard,
    white: Bitboard,
    black: Bitboard,
    /// Material bucket of the phase family.
    material: u64,
    /// Ply bucket of the phase family.
    phase: u64,
    ctx: MoveContext,
    /// Where the opponent's last move went, if known, and the piece standing there.
    last_to: Option<Square>,
    last_piece: Option<shakmaty::Piece>,
    /// What the opponent's last-moved piece attacks now.
    threatened: Bitboard,
}

impl<'a> Before<'a> {
    fn of(pos: &'a Chess, ctx: MoveContext) -> Before<'a> {
        let board = pos.board();
        let occupied = board.occupied();
        let white = board.by_color(Color::White);
        let last_to = ctx.last.to();
        let last_piece = last_to.and_then(|sq| board.piece_at(sq));
        let threatened = match (last_to, last_piece) {
            (Some(sq), Some(p)) if p.color == Color::Black => {
                shakmaty::attacks::attacks(sq, p, occupied) & white
            }
            _ => Bitboard::EMPTY,
        };
        Before {
            board,
            contents: contents(board),
            occupied,
            white,
            black: board.by_color(Color::Black),
            material: material_bucket(board),
            phase: ply_bucket(ctx.ply),
            ctx,
            last_to,
            last_piece,
            threatened,
        }
    }

    /// The keys of move `m`, which leads to `after` (`check`: 1 if it gives check).
    #[inline]
    fn keys(&self, m: &Move, after: &Board, check: u64) -> [u64; FAMILIES] {
        let (from, to) = squares(m);
        let role = m.role() as u64;
        let promo = m.promotion().map_or(0, |r| r as u64);
        let mv = role << 15 | (from as u64) << 9 | (to as u64) << 3 | promo;
        let family = |f: Family, fields: u64| (f as u64) << 56 | fields;
        [
            family(Family::Move, mv),
            family(Family::ToRing, mv << 32 | self.ring_code(to)),
            family(Family::FromRing, mv << 32 | self.ring_code(from)),
            family(Family::Tactic, self.tactic(m, from, to, check)),
            family(Family::Reply, self.reply(m, from, to)),
            family(Family::Phase, mv << 8 | self.phase << 2 | self.material),
            family(Family::Threat, threat(after, to, check)),
            family(
                Family::Mobility,
                role << 10 | (to as u64) << 4 | self.mobility(m, from, after, to),
            ),
        ]
    }

    /// The contents of the eight squares around `sq`, four bits each ([`ring`]'s order).
    #[inline]
    fn ring_code(&self, sq: Square) -> u64 {
        RINGS[sq as usize].iter().fold(0, |acc, &s| {
            (acc << 4) | u64::from(self.contents[s as usize])
        })
    }

    /// The tactic family's fields: piece, capture, promotion, check, and who attacks and
    /// defends the destination (after the move) and the origin (before it).
    #[inline]
    fn tactic(&self, m: &Move, from: Square, to: Square, check: u64) -> u64 {
        let (board, occupied, white, black) = (self.board, self.occupied, self.white, self.black);
        let role = m.role() as u64;
        let promo = m.promotion().map_or(0, |r| r as u64);
        let captured = m.capture().map_or(0, |r| r as u64);
        // After the move the mover's piece stands on `to` and `from` is empty.
        let after_occ = (occupied & !Bitboard::from(from)) | Bitboard::from(to);
        let attackers = board.attacks_to(to, Color::Black, after_occ) & black & !Bitboard::from(to);
        let defenders =
            board.attacks_to(to, Color::White, after_occ) & white & !Bitboard::from(from);
        let from_attacked = board.attacks_to(from, Color::Black, occupied) & black;
        let from_defended = board.attacks_to(from, Color::White, occupied) & white;
        role << 15
            | captured << 12
            | promo << 9
            | check << 8
            | bucket(attackers) << 6
            | bucket(defenders) << 4
            | bucket(from_attacked).min(1) << 2
            | bucket(from_defended).min(1)
    }

    /// The reply family's fields: the move against the opponent's last one (recapture, escape
    /// from its threat, distance); 0 when the last move is not known.
    #[inline]
    fn reply(&self, m: &Move, from: Square, to: Square) -> u64 {
        let Some(lt) = self.last_to else {
            return 0;
        };
        let role = m.role() as u64;
        let captured = m.capture().map_or(0, |r| r as u64);
        let last_role = self.last_piece.map_or(0, |p| p.role as u64);
        let recapture = u64::from(to == lt);
        let escapes = u64::from(self.threatened.contains(from));
        let dist = u64::from(to.distance(lt).min(3));
        let last_captured = self.ctx.last.captured().map_or(0, |r| r as u64);
        1 << 30
            | role << 23
            | (to as u64) << 17
            | captured << 14
            | last_role << 11
            | last_captured << 8
            | recapture << 7
            | escapes << 6
            | dist << 4
    }

    /// The mobility family's classes of the moved piece: before the move on `from` (two bits,
    /// shifted left by 2) and after it on `to` in `after`.
    #[inline]
    fn mobility(&self, m: &Move, from: Square, after: &Board, to: Square) -> u64 {
        let moving = shakmaty::Piece {
            color: Color::White,
            role: m.role(),
        };
        let before_mob = mobility_class(moving, from, self.occupied, self.white);
        let after_mob = after.piece_at(to).map_or(0, |p| {
            mobility_class(p, to, after.occupied(), after.by_color(Color::White))
        });
        before_mob << 2 | after_mob
    }
}

/// The threat family's fields: what the piece on `to` attacks in `after` (the most valuable
/// enemy piece it threatens, undefended or worth more than itself, and how many), and check.
#[inline]
fn threat(after: &Board, to: Square, check: u64) -> u64 {
    let after_occ = after.occupied();
    let Some(piece) = after.piece_at(to) else {
        return 0;
    };
    let targets = shakmaty::attacks::attacks(to, piece, after_occ)
        & after.by_color(Color::Black)
        & !after.kings();
    let own_value = role_value(piece.role);
    let mut best = 0u64;
    let mut count = 0u64;
    for t in targets {
        let Some(victim) = after.piece_at(t) else {
            continue;
        };
        let defended = after.attacks_to(t, Color::Black, after_occ).any();
        if !defended || role_value(victim.role) > own_value {
            count += 1;
            best = best.max(victim.role as u64);
        }
    }
    piece.role as u64 * 64 + best * 8 + count.min(3) * 2 + check
}

/// Mobility class of `piece` on `sq`: the squares it attacks (with `occ`) that are not `own`,
/// as 0 (0–2), 1 (3–5), 2 (6–9) or 3 (10 or more).
#[inline]
fn mobility_class(piece: shakmaty::Piece, sq: Square, occ: Bitboard, own: Bitboard) -> u64 {
    let n = (shakmaty::attacks::attacks(sq, piece, occ) & !own).count();
    match n {
        0..=2 => 0u64,
        3..=5 => 1,
        6..=9 => 2,
        _ => 3,
    }
}

/// A pattern's counts in a case base.
#[repr(C)]
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct PatternCount {
    /// The pattern.
    pub key: u64,
    /// Times a move with this pattern was played.
    pub played: u32,
    /// Times a move with this pattern was legal in a case's position.
    pub available: u32,
}

/// A case base's pattern counts: one array sorted by key (families are contiguous, as the
/// family is the key's top byte).
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternTable<'a> {
    entries: &'a [PatternCount],
    strengths: &'a [f32],
}

impl<'a> PatternTable<'a> {
    /// A table over sorted entries and their strengths (parallel to the entries, or empty).
    pub fn new(entries: &'a [PatternCount], strengths: &'a [f32]) -> PatternTable<'a> {
        PatternTable { entries, strengths }
    }

    /// What the table knows of `key`, with one search: (played, available, fitted
    /// log-strength); zeros when the pattern never occurred (or was pruned).
    pub(crate) fn lookup(&self, key: u64) -> (u32, u32, f32) {
        match self.entries.binary_search_by_key(&key, |e| e.key) {
            Ok(i) => (
                self.entries[i].played,
                self.entries[i].available,
                self.strengths.get(i).copied().unwrap_or(0.0),
            ),
            Err(_) => (0, 0, 0.0),
        }
    }

    /// The counts of `key`: (played, available), zero when the pattern never occurred.
    pub fn get(&self, key: u64) -> (u32, u32) {
        let (played, available, _) = self.lookup(key);
        (played, available)
    }

    /// Total (played, available) over the entries of one family: every case contributes one
    /// played move and all its legal moves to each family.
    pub(crate) fn totals(&self, family: Family) -> (u64, u64) {
        let lo = (family as u64) << 56;
        let start = self.entries.partition_point(|e| e.key < lo);
        let end = self
            .entries
            .partition_point(|e| (e.key >> 56) <= family as u64);
        self.entries[start..end].iter().fold((0, 0), |(p, a), e| {
            (p + u64::from(e.played), a + u64::from(e.available))
        })
    }
}

/// Counts patterns: `add` every case's position and move, then [`PatternCounter::finish`].
/// Counting sorts packed codes (the key shifted left, the played flag in bit 0) chunk by chunk
/// and merges the chunks' run-length counts, so memory stays proportional to a chunk.
#[derive(Debug, Default)]
pub struct PatternCounter {
    codes: Vec<u64>,
    table: Vec<PatternCount>,
    buffer: Vec<(Move, [u64; FAMILIES])>,
}

/// Codes collected before they are sorted and merged.
const CHUNK: usize = 1 << 25;

impl PatternCounter {
    /// An empty counter.
    pub fn new() -> PatternCounter {
        PatternCounter::default()
    }

    /// Counts the legal moves of `pos` (White to move) and the one played (`played`, in the
    /// same orientation; a move that is not legal there only counts the others as available).
    pub fn add(&mut self, pos: &Chess, ctx: MoveContext, played: &dyn Fn(&Move) -> bool) {
        self.buffer.clear();
        move_patterns(pos, ctx, &mut self.buffer);
        for (m, keys) in &self.buffer {
            let flag = u64::from(played(m));
            self.codes.extend(keys.iter().map(|k| k << 1 | flag));
        }
        if self.codes.len() >= CHUNK {
            self.flush();
        }
    }

    /// Sorts the pending codes and merges their counts into the table.
    fn flush(&mut self) {
        if self.codes.is_empty() {
            return;
        }
        let mut codes = std::mem::take(&mut self.codes);
        sort_codes(&mut codes);
        let mut chunk: Vec<PatternCount> = Vec::new();
        for c in codes {
            let key = c >> 1;
            let played = (c & 1) as u32;
            match chunk.last_mut() {
                Some(e) if e.key == key => {
                    e.played = e.played.saturating_add(played);
                    e.available = e.available.saturating_add(1);
                }
                _ => chunk.push(PatternCount {
                    key,
                    played,
                    available: 1,
                }),
            }
        }
        self.table = merge(std::mem::take(&mut self.table), chunk);
    }

    /// Merges another counter's counts into this one (counters filled in parallel).
    pub(crate) fn absorb(&mut self, mut other: PatternCounter) {
        other.flush();
        self.flush();
        self.table = merge(std::mem::take(&mut self.table), other.table);
    }

    /// The counts, sorted by key.
    pub fn finish(mut self) -> Vec<PatternCount> {
        self.flush();
        self.table
    }
}

fn sort_codes(codes: &mut [u64]) {
    use rayon::slice::ParallelSliceMut;
    codes.par_sort_unstable();
}

/// Merges two sorted count tables, adding the counts of equal keys.
fn merge(a: Vec<PatternCount>, b: Vec<PatternCount>) -> Vec<PatternCount> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].key.cmp(&b[j].key) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(PatternCount {
                    key: a[i].key,
                    played: a[i].played.saturating_add(b[j].played),
                    available: a[i].available.saturating_add(b[j].available),
                });
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;

    fn patterns(fen: &str, ctx: MoveContext) -> Vec<(Move, [u64; FAMILIES])> {
        let pos = parse_fen(fen).expect("fen");
        let mut out = Vec::new();
        move_patterns(&pos, ctx, &mut out);
        out
    }

    fn find<'a>(all: &'a [(Move, [u64; FAMILIES])], uci: &str) -> &'a (Move, [u64; FAMILIES]) {
        all.iter()
            .find(|(m, _)| m.to_uci(shakmaty::CastlingMode::Standard).to_string() == uci)
            .unwrap_or_else(|| panic!("{uci} is legal"))
    }

    #[test]
    fn rings_read_from_the_contents_are_the_rings_read_from_the_board() {
        for fen in [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "8/2k5/8/8/8/8/5K2/7R w - - 0 60",
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        ] {
            let pos = parse_fen(fen).expect("fen");
            let before = Before::of(&pos, MoveContext::default());
            for sq in Square::ALL {
                assert_eq!(
                    before.ring_code(sq),
                    ring_code(pos.board(), sq),
                    "{fen} {sq}"
                );
            }
        }
    }

    #[test]
    fn every_legal_move_gets_one_key_per_family_in_its_family() {
        let all = patterns(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            MoveContext::default(),
        );
        assert_eq!(all.len(), 27);
        for (_, keys) in &all {
            for (f, k) in Family::ALL.iter().zip(keys) {
                assert_eq!(Family::of_key(*k), Some(*f));
                assert!(*k < 1 << 62, "room for the played flag");
            }
        }
        // Different moves differ in the move family.
        let mut moves: Vec<u64> = all.iter().map(|(_, k)| k[0]).collect();
        moves.sort_unstable();
        moves.dedup();
        assert_eq!(moves.len(), all.len());
    }

    #[test]
    fn tactic_sees_an_attacked_destination_and_check() {
        // Qxf7+ is a capture with check on a square the king defends; Qh5-h6 is quiet.
        let all = patterns(
            "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3",
            MoveContext::default(),
        );
        let qxf7 = find(&all, "h5f7").1[Family::Tactic.index()];
        let check = (qxf7 >> 8) & 1;
        let attackers = (qxf7 >> 6) & 3;
        let captured = (qxf7 >> 12) & 7;
        assert_eq!((check, attackers, captured), (1, 1, Role::Pawn as u64));
        let quiet = find(&all, "h5h6").1[Family::Tactic.index()];
        assert_eq!((quiet >> 8) & 1, 0);
    }

    #[test]
    fn reply_knows_a_recapture() {
        // Black just took on d5 with the knight (…Nxd5 after exd5): exd5 is no longer there;
        // White's Nxd5 recaptures on the square of the last move.
        let ctx = MoveContext {
            ply: 9,
            last: LastMove::new(Square::D5, Some(Role::Pawn)),
        };
        let all = patterns(
            "r1bqkb1r/ppp2ppp/2n5/3np3/8/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 5",
            ctx,
        );
        let recapture = find(&all, "c3d5").1[Family::Reply.index()];
        assert_eq!((recapture >> 7) & 1, 1);
        let other = find(&all, "d2d3").1[Family::Reply.index()];
        assert_eq!((other >> 7) & 1, 0);
        // Without a known last move the family has one key for every move of a piece and square.
        let unknown = patterns(
            "r1bqkb1r/ppp2ppp/2n5/3np3/8/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 0 5",
            MoveContext::default(),
        );
        assert_eq!(
            find(&unknown, "c3d5").1[Family::Reply.index()] & ((1 << 56) - 1),
            0
        );
    }

    #[test]
    fn counts_add_up_across_chunks_and_merges() {
        let pos = Chess::default();
        let e4 = |m: &Move| m.to_uci(shakmaty::CastlingMode::Standard).to_string() == "e2e4";
        let mut a = PatternCounter::new();
        a.add(&pos, MoveContext::default(), &e4);
        a.add(&pos, MoveContext::default(), &e4);
        let mut b = PatternCounter::new();
        b.add(&pos, MoveContext::default(), &|_| false);
        a.absorb(b);
        let entries = a.finish();
        assert!(
            entries.windows(2).all(|w| w[0].key < w[1].key),
            "sorted, unique"
        );
        let table = PatternTable::new(&entries, &[]);
        let mut all = Vec::new();
        move_patterns(&pos, MoveContext::default(), &mut all);
        let (_, keys) = all.iter().find(|(m, _)| e4(m)).expect("e4 is legal");
        assert_eq!(table.get(keys[0]), (2, 3));
        assert_eq!(table.totals(Family::Move), (2, 60));
        assert_eq!(table.get(1), (0, 0));
    }
}
