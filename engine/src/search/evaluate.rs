//! A static evaluation for the verifier: PeSTO's tapered material and piece-square tables
//! (Ronald Friederich's tables for Rofchade, as published on the Chess Programming Wiki,
//! "PeSTO's Evaluation Function"), a middlegame and an endgame score blended by the game phase,
//! plus a bishop-pair bonus, the pieces' mobility (to squares no enemy pawn attacks), pawn
//! structure (passed pawns also by what blocks them and where the kings stand), rooks on open
//! files, the king's safety (its pawn shield and the pieces attacking the squares around it),
//! threats (pieces attacked by pawns, or attacked and undefended) and a bonus for the side to
//! move. Scores are centipawns from the side to move.

use shakmaty::{Bitboard, Board, Chess, Color, Piece, Position, Role, attacks};

/// Material value of a role, in centipawns, for move ordering (MVV-LVA) and delta pruning.
pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// What a role adds to the game phase (24 with all pieces on the board).
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// Mobility is counted from a typical number of safe squares reached per role (so that the
/// piece-square tables' scale stays).
const MOBILITY_TYPICAL: [i32; 6] = [0, 3, 5, 6, 11, 0];

/// The evaluation's weighted terms, each a (middlegame, endgame) pair of centipawns; the
/// piece-square tables stay as published. `precedent fit eval` fits them (see [`WEIGHTS`]).
pub const N_TERMS: usize = 29;
/// Where each kind of term starts among the [`N_TERMS`].
pub mod term {
    /// Material, pawn to queen (5).
    pub const MATERIAL: usize = 0;
    /// Two bishops against fewer.
    pub const BISHOP_PAIR: usize = 5;
    /// Per square beyond the typical number that a knight, bishop, rook or queen reaches (4),
    /// not holding a piece of its own side nor attacked by an enemy pawn.
    pub const MOBILITY: usize = 6;
    /// A passed pawn on its relative rank 2 to 7 (6).
    pub const PASSED: usize = 10;
    /// A pawn with no pawn of its side on the neighbouring files.
    pub const ISOLATED: usize = 16;
    /// Each pawn beyond the first on a file.
    pub const DOUBLED: usize = 17;
    /// A rook on a file without pawns.
    pub const ROOK_OPEN: usize = 18;
    /// A rook on a file without pawns of its side.
    pub const ROOK_HALF_OPEN: usize = 19;
    /// Each pawn of its side in front of a king on its first two ranks (at most three count).
    pub const SHIELD: usize = 20;
    /// King safety: per square of the enemy king's zone (the king's square and those it
    /// attacks) that a knight, bishop, rook or queen (4) attacks, scaled by how many pieces
    /// take part (one attacker alone is no attack; the Chess Programming Wiki's "King Safety").
    pub const KING_ATTACK: usize = 21;
    /// A knight, bishop, rook or queen attacked by an enemy pawn.
    pub const THREAT_PAWN: usize = 25;
    /// A knight, bishop, rook or queen attacked by the enemy and defended by nothing of its
    /// side.
    pub const HANGING: usize = 26;
    /// A passed pawn whose next square is occupied.
    pub const PASSED_BLOCKED: usize = 27;
    /// Per square by which the enemy king stands farther than its own from a passed pawn's
    /// next square, times the pawn's relative rank (1–6).
    pub const PASSED_KINGS: usize = 28;
    /// The terms' names, for reports.
    pub const NAMES: [&str; super::N_TERMS] = [
        "pawn",
        "knight",
        "bishop",
        "rook",
        "queen",
        "bishop pair",
        "mobility knight",
        "mobility bishop",
        "mobility rook",
        "mobility queen",
        "passed rank 2",
        "passed rank 3",
        "passed rank 4",
        "passed rank 5",
        "passed rank 6",
        "passed rank 7",
        "isolated",
        "doubled",
        "rook open file",
        "rook half-open file",
        "king shield",
        "king attack knight",
        "king attack bishop",
        "king attack rook",
        "king attack queen",
        "attacked by a pawn",
        "hanging",
        "passed pawn blocked",
        "passed pawn kings",
    ];
}

/// The weights of the terms: (middlegame, endgame) centipawns.
pub type Weights = [(i32, i32); N_TERMS];

/// The weights the verifier plays with: PeSTO's material, bishop pair 25/50, mobility 4/4,
/// 5/5, 2/4, 1/2, passed pawns rising to 50/80, isolated −10/−15, doubled −10/−20, rooks on
/// open files 25/10 and half-open 12/5, shield 10, king-zone attacks 20/20/40/80 (middlegame),
/// a piece under a pawn −40/−30, hanging −25/−15, a blocked passed pawn −5/−20 and the kings'
/// distance to its next square 0/2 per square and rank; set by hand and by self-play. Fitted
/// to Stockfish's evaluations, alone (`precedent fit eval --terms-only`) or together with the
/// tables (`precedent fit eval`), they predicted better but played no better
/// (docs/eval.md), so they stay.
pub const WEIGHTS: Weights = [
    (82, 94),
    (337, 281),
    (365, 297),
    (477, 512),
    (1025, 936),
    (25, 50),
    (4, 4),
    (5, 5),
    (2, 4),
    (1, 2),
    (0, 5),
    (5, 10),
    (10, 20),
    (20, 35),
    (35, 55),
    (50, 80),
    (-10, -15),
    (-10, -20),
    (25, 10),
    (12, 5),
    (10, 0),
    (20, 0),
    (20, 0),
    (40, 0),
    (80, 0),
    (-40, -30),
    (-25, -15),
    (-5, -20),
    (0, 2),
];

/// How the number of pieces attacking the king zone scales their attack, in percent.
const KING_ATTACKERS_SCALE: [i32; 8] = [0, 0, 50, 75, 88, 94, 97, 99];

/// Receives the evaluation's terms of a position.
pub trait Terms {
    /// `n100` hundredths of term `t`, for White (negative: for Black).
    fn add(&mut self, t: usize, n100: i32);
    /// A piece of `color` (0 White, 1 Black) and `role` (0 pawn … 5 king) on `square`
    /// (shakmaty's a1 = 0): its piece-square table entry.
    fn piece(&mut self, color: usize, role: usize, square: usize);
}

/// The table index of a piece: its role's block of 64, at its square seen from its own side
/// (White's a1 = 0, Black's a8 = 0), with the sign of its colour. What [`Terms::piece`]'s
/// arguments mean for a fit of the tables ([`TABLE_ENTRIES`] entries, middlegame and endgame).
pub fn table_entry(color: usize, role: usize, square: usize) -> (usize, i32) {
    if color == 0 {
        (role * 64 + square, 1)
    } else {
        (role * 64 + (square ^ 56), -1)
    }
}

/// Entries of the piece-square tables: 6 roles × 64 squares.
pub const TABLE_ENTRIES: usize = 384;

/// The tables in use, indexed as [`table_entry`]: (middlegame, endgame) centipawns.
pub fn tables() -> [(i32, i32); TABLE_ENTRIES] {
    let mut t = [(0, 0); TABLE_ENTRIES];
    for role in 0..6 {
        for square in 0..64 {
            t[role * 64 + square] = (SCORES.mg[0][role][square], SCORES.eg[0][role][square]);
        }
    }
    t
}

/// Sums the terms with weights: middlegame and endgame in hundredths of centipawns.
struct Score<'w> {
    weights: &'w Weights,
    mg: i32,
    eg: i32,
}

impl Terms for Score<'_> {
    #[inline]
    fn add(&mut self, t: usize, n100: i32) {
        self.mg += self.weights[t].0 * n100;
        self.eg += self.weights[t].1 * n100;
    }

    #[inline]
    fn piece(&mut self, color: usize, role: usize, square: usize) {
        self.mg += 100 * SCORES.mg[color][role][square];
        self.eg += 100 * SCORES.eg[color][role][square];
    }
}

// Tables as printed (a8 first, rank 8 to rank 1) for White; Black reads them mirrored.
#[rustfmt::skip]
const MG_PAWN: [i16; 64] = [
        0,    0,    0,    0,    0,    0,    0,    0,
       98,  134,   61,   95,   68,  126,   34,  -11,
       -6,    7,   26,   31,   65,   56,   25,  -20,
      -14,   13,    6,   21,   23,   12,   17,  -23,
      -27,   -2,   -5,   12,   17,    6,   10,  -25,
      -26,   -4,   -4,  -10,    3,    3,   33,  -12,
      -35,   -1,  -20,  -23,  -15,   24,   38,  -22,
        0,    0,    0,    0,    0,    0,    0,    0,
];
#[rustfmt::skip]
const EG_PAWN: [i16; 64] = [
        0,    0,    0,    0,    0,    0,    0,    0,
      178,  173,  158,  134,  147,  132,  165,  187,
       94,  100,   85,   67,   56,   53,   82,   84,
       32,   24,   13,    5,   -2,    4,   17,   17,
       13,    9,   -3,   -7,   -7,   -8,    3,   -1,
        4,    7,   -6,    1,    0,   -5,   -1,   -8,
       13,    8,    8,   10,   13,    0,    2,   -7,
        0,    0,    0,    0,    0,    0,    0,    0,
];
#[rustfmt::skip]
const MG_KNIGHT: [i16; 64] = [
     -167,  -89,  -34,  -49,   61,  -97,  -15, -107,
      -73,  -41,   72,   36,   23,   62,    7,  -17,
      -47,   60,   37,   65,   84,  129,   73,   44,
       -9,   17,   19,   53,   37,   69,   18,   22,
      -13,    4,   16,   13,   28,   19,   21,   -8,
      -23,   -9,   12,   10,   19,   17,   25,  -16,
      -29,  -53,  -12,   -3,   -1,   18,  -14,  -19,
     -105,  -21,  -58,  -33,  -17,  -28,  -19,  -23,
];
#[rustfmt::skip]
const EG_KNIGHT: [i16; 64] = [
      -58,  -38,  -13,  -28,  -31,  -27,  -63,  -99,
      -25,   -8,  -25,   -2,   -9,  -25,  -24,  -52,
      -24,  -20,   10,    9,   -1,   -9,  -19,  -41,
      -17,    3,   22,   22,   22,   11,    8,  -18,
      -18,   -6,   16,   25,   16,   17,    4,  -18,
      -23,   -3,   -1,   15,   10,   -3,  -20,  -22,
      -42,  -20,  -10,   -5,   -2,  -20,  -23,  -44,
      -29,  -51,  -23,  -15,  -22,  -18,  -50,  -64,
];
#[rustfmt::skip]
const MG_BISHOP: [i16; 64] = [
      -29,    4,  -82,  -37,  -25,  -42,    7,   -8,
      -26,   16,  -18,  -13,   30,   59,   18,  -47,
      -16,   37,   43,   40,   35,   50,   37,   -2,
       -4,    5,   19,   50,   37,   37,    7,   -2,
       -6,   13,   13,   26,   34,   12,   10,    4,
        0,   15,   15,   15,   14,   27,   18,   10,
        4,   15,   16,    0,    7,   21,   33,    1,
      -33,   -3,  -14,  -21,  -13,  -12,  -39,  -21,
];
#[rustfmt::skip]
const EG_BISHOP: [i16; 64] = [
      -14,  -21,  -11,   -8,   -7,   -9,  -17,  -24,
       -8,   -4,    7,  -12,   -3,  -13,   -4,  -14,
        2,   -8,    0,   -1,   -2,    6,    0,    4,
       -3,    9,   12,    9,   14,   10,    3,    2,
       -6,    3,   13,   19,    7,   10,   -3,   -9,
      -12,   -3,    8,   10,   13,    3,   -7,  -15,
      -14,  -18,   -7,   -1,    4,   -9,  -15,  -27,
      -23,   -9,  -23,   -5,   -9,  -16,   -5,  -17,
];
#[rustfmt::skip]
const MG_ROOK: [i16; 64] = [
       32,   42,   32,   51,   63,    9,   31,   43,
       27,   32,   58,   62,   80,   67,   26,   44,
       -5,   19,   26,   36,   17,   45,   61,   16,
      -24,  -11,    7,   26,   24,   35,   -8,  -20,
      -36,  -26,  -12,   -1,    9,   -7,    6,  -23,
      -45,  -25,  -16,  -17,    3,    0,   -5,  -33,
      -44,  -16,  -20,   -9,   -1,   11,   -6,  -71,
      -19,  -13,    1,   17,   16,    7,  -37,  -26,
];
#[rustfmt::skip]
const EG_ROOK: [i16; 64] = [
       13,   10,   18,   15,   12,   12,    8,    5,
       11,   13,   13,   11,   -3,    3,    8,    3,
        7,    7,    7,    5,    4,   -3,   -5,   -3,
        4,    3,   13,    1,    2,    1,   -1,    2,
        3,    5,    8,    4,   -5,   -6,   -8,  -11,
       -4,    0,   -5,   -1,   -7,  -12,   -8,  -16,
       -6,   -6,    0,    2,   -9,   -9,  -11,   -3,
       -9,    2,    3,   -1,   -5,  -13,    4,  -20,
];
#[rustfmt::skip]
const MG_QUEEN: [i16; 64] = [
      -28,    0,   29,   12,   59,   44,   43,   45,
      -24,  -39,   -5,    1,  -16,   57,   28,   54,
      -13,  -17,    7,    8,   29,   56,   47,   57,
      -27,  -27,  -16,  -16,   -1,   17,   -2,    1,
       -9,  -26,   -9,  -10,   -2,   -4,    3,   -3,
      -14,    2,  -11,   -2,   -5,    2,   14,    5,
      -35,   -8,   11,    2,    8,   15,   -3,    1,
       -1,  -18,   -9,   10,  -15,  -25,  -31,  -50,
];
#[rustfmt::skip]
const EG_QUEEN: [i16; 64] = [
       -9,   22,   22,   27,   27,   19,   10,   20,
      -17,   20,   32,   41,   58,   25,   30,    0,
      -20,    6,    9,   49,   47,   35,   19,    9,
        3,   22,   24,   45,   57,   40,   57,   36,
      -18,   28,   19,   47,   31,   34,   39,   23,
      -16,  -27,   15,    6,    9,   17,   10,    5,
      -22,  -23,  -30,  -16,  -16,  -23,  -36,  -32,
      -33,  -28,  -22,  -43,   -5,  -32,  -20,  -41,
];
#[rustfmt::skip]
const MG_KING: [i16; 64] = [
      -65,   23,   16,  -15,  -56,  -34,    2,   13,
       29,   -1,  -20,   -7,   -8,   -4,  -38,  -29,
       -9,   24,    2,  -16,  -20,    6,   22,  -22,
      -17,  -20,  -12,  -27,  -30,  -25,  -14,  -36,
      -49,   -1,  -27,  -39,  -46,  -44,  -33,  -51,
      -14,  -14,  -22,  -46,  -44,  -30,  -15,  -27,
        1,    7,   -8,  -64,  -43,  -16,    9,    8,
      -15,   36,   12,  -54,    8,  -28,   24,   14,
];
#[rustfmt::skip]
const EG_KING: [i16; 64] = [
      -74,  -35,  -18,  -18,  -11,   15,    4,  -17,
      -12,   17,   14,   17,   17,   38,   23,   11,
       10,   17,   23,   15,   20,   45,   44,   13,
       -8,   22,   24,   27,   26,   33,   26,    3,
      -18,   -4,   21,   24,   27,   23,    9,  -11,
      -19,   -3,   11,   21,   23,   16,    7,   -9,
      -27,  -11,    4,   13,   14,    4,   -5,  -17,
      -53,  -34,  -21,  -11,  -28,  -14,  -24,  -43,
];

const MG_TABLES: [&[i16; 64]; 6] = [
    &MG_PAWN, &MG_KNIGHT, &MG_BISHOP, &MG_ROOK, &MG_QUEEN, &MG_KING,
];
const EG_TABLES: [&[i16; 64]; 6] = [
    &EG_PAWN, &EG_KNIGHT, &EG_BISHOP, &EG_ROOK, &EG_QUEEN, &EG_KING,
];

/// Table values per colour, role and square (shakmaty's a1 = 0), for White's side.
struct Scores {
    mg: [[[i32; 64]; 6]; 2],
    eg: [[[i32; 64]; 6]; 2],
}

const fn scores() -> Scores {
    let mut s = Scores {
        mg: [[[0; 64]; 6]; 2],
        eg: [[[0; 64]; 6]; 2],
    };
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            // White's square a1 is the printed tables' index 56; Black's a1 is its a8, index 0.
            let white = sq ^ 56;
            s.mg[0][role][sq] = MG_TABLES[role][white] as i32;
            s.eg[0][role][sq] = EG_TABLES[role][white] as i32;
            s.mg[1][role][sq] = -(MG_TABLES[role][sq] as i32);
            s.eg[1][role][sq] = -(EG_TABLES[role][sq] as i32);
            sq += 1;
        }
        role += 1;
    }
    s
}

static SCORES: Scores = scores();

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Squares of the files next to `file`.
const fn neighbour_files(file: usize) -> u64 {
    let mut m = 0;
    if file > 0 {
        m |= FILE_A << (file - 1);
    }
    if file < 7 {
        m |= FILE_A << (file + 1);
    }
    m
}

/// Per colour and square: the squares ahead of it (towards the colour's promotion rank) on its
/// file and the neighbouring files. A pawn is passed when no enemy pawn stands there.
const fn ahead_spans() -> [[u64; 64]; 2] {
    let mut spans = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = (sq % 8, sq / 8);
        let files = (FILE_A << file) | neighbour_files(file);
        let above = if rank == 7 {
            0
        } else {
            u64::MAX << ((rank + 1) * 8)
        };
        let below = if rank == 0 {
            0
        } else {
            u64::MAX >> ((8 - rank) * 8)
        };
        spans[0][sq] = files & above;
        spans[1][sq] = files & below;
        sq += 1;
    }
    spans
}

static AHEAD: [[u64; 64]; 2] = ahead_spans();

/// The rank (0–7) of square index `i` counted from `color`'s side.
fn relative_rank(i: usize, color: Color) -> usize {
    if color == Color::White {
        i / 8
    } else {
        7 - i / 8
    }
}

/// Pawn structure, rooks on open files and the king's pawn shield of one side (`sign` 1 for
/// White, -1 for Black).
fn structure<T: Terms>(board: &Board, color: Color, sign: i32, sink: &mut T) {
    let c = usize::from(color == Color::Black);
    let ours = board.pawns() & board.by_color(color);
    let theirs = board.pawns() & board.by_color(!color);
    for sq in ours {
        let i = usize::from(sq);
        let file = i % 8;
        if theirs.0 & AHEAD[c][i] == 0 {
            // A pawn stands on its relative ranks 2 to 7 (1 to 6 from 0).
            let rank = relative_rank(i, color).clamp(1, 6);
            sink.add(term::PASSED + rank - 1, sign * 100);
            let next = if color == Color::White { i + 8 } else { i - 8 };
            if board.occupied().0 & (1 << next) != 0 {
                sink.add(term::PASSED_BLOCKED, sign * 100);
            }
            let distance = |k: Option<shakmaty::Square>| {
                k.map_or(0, |k| {
                    let k = usize::from(k);
                    (k % 8).abs_diff(next % 8).max((k / 8).abs_diff(next / 8)) as i32
                })
            };
            let margin = distance(board.king_of(!color)) - distance(board.king_of(color));
            if margin != 0 {
                sink.add(term::PASSED_KINGS, sign * 100 * margin * rank as i32);
            }
        }
        if ours.0 & neighbour_files(file) == 0 {
            sink.add(term::ISOLATED, sign * 100);
        }
    }
    for file in 0..8 {
        let n = (ours.0 & (FILE_A << file)).count_ones() as i32;
        if n > 1 {
            sink.add(term::DOUBLED, sign * 100 * (n - 1));
        }
    }
    for sq in board.rooks() & board.by_color(color) {
        let file = FILE_A << (usize::from(sq) % 8);
        if (ours.0 | theirs.0) & file == 0 {
            sink.add(term::ROOK_OPEN, sign * 100);
        } else if ours.0 & file == 0 {
            sink.add(term::ROOK_HALF_OPEN, sign * 100);
        }
    }
    if let Some(king) = board.king_of(color) {
        let i = usize::from(king);
        if relative_rank(i, color) <= 1 {
            // The two ranks in front of the king (it stands on its first two ranks), on its
            // file and the neighbouring ones.
            let r = i / 8;
            let two_ranks = if color == Color::White {
                0xFFFF_u64 << ((r + 1) * 8)
            } else {
                0xFFFF_u64 << ((r - 2) * 8)
            };
            let front = AHEAD[c][i] & two_ranks;
            let shield = (ours.0 & front).count_ones().min(3) as i32;
            if shield > 0 {
                sink.add(term::SHIELD, sign * 100 * shield);
            }
        }
    }
}

/// Gives `board`'s terms to `terms` and returns the game phase (0 = bare kings and pawns, 24 =
/// all pieces).
pub fn terms<T: Terms>(board: &Board, sink: &mut T) -> i32 {
    let mut phase = 0;
    let occupied = board.occupied();
    let pawn_attacks = [Color::White, Color::Black].map(|color| pawn_attacks(board, color));
    // Every square each side attacks (pawns, pieces, king), for the hanging pieces.
    let mut attacked = pawn_attacks;
    for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
        if let Some(k) = board.king_of(color) {
            attacked[c] |= attacks::king_attacks(k);
        }
    }
    for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let sign = if color == Color::White { 1 } else { -1 };
        let ours = board.by_color(color);
        let zone = board
            .king_of(!color)
            .map_or(Bitboard::EMPTY, |k| attacks::king_attacks(k).with(k));
        let mut attackers = 0usize;
        let mut near = [0i32; 4];
        for (r, role) in Role::ALL.into_iter().enumerate() {
            let pieces: Bitboard = ours & board.by_role(role);
            let count = pieces.count() as i32;
            phase += PHASE[r] * count;
            if r < 5 && count > 0 {
                sink.add(term::MATERIAL + r, sign * 100 * count);
            }
            let mobile = (1..=4).contains(&r);
            for sq in pieces {
                sink.piece(c, r, usize::from(sq));
                if mobile {
                    let reached = attacks::attacks(sq, Piece { color, role }, occupied);
                    attacked[c] |= reached;
                    let safe = !(ours | pawn_attacks[1 - c]);
                    let reach = (reached & safe).count() as i32 - MOBILITY_TYPICAL[r];
                    sink.add(term::MOBILITY + r - 1, sign * 100 * reach);
                    let near_king = (reached & zone).count() as i32;
                    if near_king > 0 {
                        attackers += 1;
                        near[r - 1] += near_king;
                    }
                }
            }
        }
        let scale = KING_ATTACKERS_SCALE[attackers.min(7)];
        if scale > 0 {
            for (i, n) in near.into_iter().enumerate() {
                if n > 0 {
                    sink.add(term::KING_ATTACK + i, sign * n * scale);
                }
            }
        }
        structure(board, color, sign, sink);
        if (ours & board.bishops()).count() >= 2 {
            sink.add(term::BISHOP_PAIR, sign * 100);
        }
    }
    for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let sign = if color == Color::White { 1 } else { -1 };
        let pieces = board.by_color(color) & !(board.pawns() | board.kings());
        let threatened = (pieces & pawn_attacks[1 - c]).count() as i32;
        if threatened > 0 {
            sink.add(term::THREAT_PAWN, sign * 100 * threatened);
        }
        let hanging = (pieces & attacked[1 - c] & !attacked[c]).count() as i32;
        if hanging > 0 {
            sink.add(term::HANGING, sign * 100 * hanging);
        }
    }
    phase.min(24)
}

/// The squares `color`'s pawns attack.
fn pawn_attacks(board: &Board, color: Color) -> Bitboard {
    const NOT_A: u64 = !FILE_A;
    const NOT_H: u64 = !(FILE_A << 7);
    let p = (board.pawns() & board.by_color(color)).0;
    Bitboard(if color == Color::White {
        ((p & NOT_H) << 9) | ((p & NOT_A) << 7)
    } else {
        ((p & NOT_H) >> 7) | ((p & NOT_A) >> 9)
    })
}

/// Evaluation of `board` from White's side, with `weights`.
pub fn evaluate_with(board: &Board, weights: &Weights) -> i32 {
    let mut score = Score {
        weights,
        mg: 0,
        eg: 0,
    };
    let phase = terms(board, &mut score);
    (score.mg * phase + score.eg * (24 - phase)) / 2400
}

/// Evaluation of `board` from White's side.
pub fn evaluate_white(board: &Board) -> i32 {
    evaluate_with(board, &WEIGHTS)
}

/// Evaluation from the side to move.
pub fn evaluate(pos: &Chess) -> i32 {
    let s = evaluate_white(pos.board());
    TEMPO + if pos.turn() == Color::White { s } else { -s }
}

/// What having the move is worth, centipawns (+19 Elo in self-play, 300 games, 2026-11-23).
pub const TEMPO: i32 = 15;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;

    /// Records the terms, in hundredths.
    #[derive(Default)]
    struct Recorded(Vec<(usize, i32)>);

    impl Recorded {
        fn of(&self, t: usize) -> i32 {
            self.0.iter().filter(|e| e.0 == t).map(|e| e.1).sum()
        }
    }

    impl Terms for Recorded {
        fn add(&mut self, t: usize, n100: i32) {
            self.0.push((t, n100));
        }
        fn piece(&mut self, _: usize, _: usize, _: usize) {}
    }

    #[test]
    fn a_position_and_its_mirror_score_opposite() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1",
        ] {
            let pos = parse_fen(fen).expect("fen");
            let mirrored = pos.board().clone().into_mirrored();
            assert_eq!(
                evaluate_white(pos.board()),
                -evaluate_white(&mirrored),
                "{fen}"
            );
        }
        assert_eq!(evaluate_white(&Board::new()), 0);
    }

    #[test]
    fn pawn_structure_terms() {
        let eval = |fen: &str| evaluate_white(parse_fen(fen).expect("fen").board());
        // A passed pawn on the sixth rank is worth more than one blocked by a pawn ahead on a
        // neighbouring file (same squares otherwise: the enemy pawn moves from a7 to c7).
        let passed = eval("4k3/p7/3P4/3K4/8/8/8/8 w - - 0 1");
        let held = eval("4k3/2p5/3P4/3K4/8/8/8/8 w - - 0 1");
        assert!(passed > held, "{passed} {held}");
        // Doubled pawns are worse than the same pawns side by side.
        let doubled = eval("4k3/8/8/8/8/3P4/3P4/4K3 w - - 0 1");
        let side_by_side = eval("4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1");
        assert!(side_by_side > doubled, "{side_by_side} {doubled}");
        // A rook on an open file beats one behind its own pawn.
        let open = eval("4k3/8/8/8/8/8/P7/1R2K3 w - - 0 1");
        let closed = eval("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1");
        assert!(open > closed, "{open} {closed}");
        // A castled king's pawn shield, for either colour, and none once the pawns have gone
        // two ranks up.
        let shield = |fen: &str, color| {
            let mut terms = Recorded::default();
            structure(parse_fen(fen).expect("fen").board(), color, 1, &mut terms);
            terms.of(term::SHIELD)
        };
        let castled = "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1";
        assert_eq!(shield(castled, Color::White), 300);
        assert_eq!(shield(castled, Color::Black), 300);
        assert_eq!(
            shield("6k1/8/8/5ppp/8/8/5PPP/6K1 w - - 0 1", Color::Black),
            0
        );
    }

    #[test]
    fn material_dominates_and_side_to_move_flips_the_sign() {
        let up_a_queen = parse_fen("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1").expect("fen");
        assert!(evaluate(&up_a_queen) > 800);
        let black_to_move = parse_fen("4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1").expect("fen");
        assert_eq!(evaluate(&black_to_move), -evaluate(&up_a_queen) + 2 * TEMPO);
    }

    fn recorded(fen: &str) -> Recorded {
        let mut terms = Recorded::default();
        super::terms(parse_fen(fen).expect("fen").board(), &mut terms);
        terms
    }

    #[test]
    fn pieces_attacked_by_pawns_or_undefended_are_threatened() {
        // White's knight on d5 under Black's pawn on c6, undefended; then defended from e4.
        let alone = recorded("4k3/8/2p5/3N4/8/8/8/4K3 w - - 0 1");
        assert_eq!(
            (alone.of(term::THREAT_PAWN), alone.of(term::HANGING)),
            (100, 100)
        );
        let defended = recorded("4k3/8/2p5/3N4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(
            (defended.of(term::THREAT_PAWN), defended.of(term::HANGING)),
            (100, 0)
        );
        // Black's rook on a5 attacked by White's rook on h5 (itself defended by its king):
        // hanging, not threatened by a pawn; then under a pawn on b4.
        let rook = recorded("4k3/8/8/r6R/6K1/8/8/8 b - - 0 1");
        assert_eq!(
            (rook.of(term::THREAT_PAWN), rook.of(term::HANGING)),
            (0, -100)
        );
        let pawn = recorded("4k3/8/8/r7/1P6/8/8/4K3 b - - 0 1");
        assert_eq!(pawn.of(term::THREAT_PAWN), -100);
    }

    #[test]
    fn a_passed_pawn_is_worth_less_blocked_and_more_escorted() {
        // White's pawn on c6: its next square c7 empty or held by Black's bishop.
        assert_eq!(
            recorded("3k4/8/2P5/8/8/8/2K5/8 w - - 0 1").of(term::PASSED_BLOCKED),
            0
        );
        assert_eq!(
            recorded("3k4/2b5/2P5/8/8/8/2K5/8 w - - 0 1").of(term::PASSED_BLOCKED),
            100
        );
        // Kings one square (d8) and five (c2) from c7, the pawn on relative rank 5: (1 − 5)·5.
        assert_eq!(
            recorded("3k4/8/2P5/8/8/8/2K5/8 w - - 0 1").of(term::PASSED_KINGS),
            -2000
        );
        let escorted = evaluate_white(
            parse_fen("8/8/2KP4/8/8/8/8/6k1 w - - 0 1")
                .expect("fen")
                .board(),
        );
        let alone = evaluate_white(
            parse_fen("8/8/3P4/8/8/8/8/K5k1 w - - 0 1")
                .expect("fen")
                .board(),
        );
        assert!(escorted > alone, "{escorted} {alone}");
    }

    #[test]
    fn pieces_bearing_on_the_king_count_against_it() {
        // White's knight on g5 beside its queen on h5, both bearing on the squares around
        // Black's castled king: two attackers, whose attacks count (scaled by how many take
        // part); the same knight on c5, away from the king, leaves the queen alone, which is
        // no attack.
        let attack = |fen: &str| {
            let r = recorded(fen);
            (0..4)
                .map(|i| r.of(term::KING_ATTACK + i))
                .collect::<Vec<_>>()
        };
        let both = attack("3rr1k1/3b1ppp/2nq4/6NQ/8/8/3B1PPP/3RR1K1 w - - 0 1");
        assert!(both[0] > 0 && both[3] > 0, "knight and queen: {both:?}");
        let queen_alone = attack("3rr1k1/3b1ppp/2nq4/2N4Q/8/8/3B1PPP/3RR1K1 w - - 0 1");
        assert!(queen_alone.iter().all(|&n| n <= 0), "{queen_alone:?}");
        // The attacks on White's king count for Black, with the opposite sign.
        let black = attack("3rr1k1/8/8/8/3b4/5n1q/5PPP/6K1 w - - 0 1");
        assert!(black.iter().any(|&n| n < 0), "{black:?}");
    }
}
