//! What a move is, seen on the board: the move model's own features of a move, besides what the
//! cases and the search say of it. People choose by what they see: what a move takes, whether
//! it checks, whether it answers the last move, whether the piece was attacked and where it
//! lands. The patterns count how often such moves were played; these features let the model
//! weigh them directly, and the network combine them with the rest.

use shakmaty::{Chess, Color, Move, Position, Role};

use crate::casebase::patterns::LastMove;
use crate::search::see::see;

/// A role's value in pawns (the king 0: it is never taken).
fn pawns(role: Role) -> f64 {
    match role {
        Role::Pawn => 1.0,
        Role::Knight | Role::Bishop => 3.0,
        Role::Rook => 5.0,
        Role::Queen => 9.0,
        Role::King => 0.0,
    }
}

/// The features of move `m` in `pos` (White to move: the mover's point of view) after the
/// opponent's move `last`, in the order of [`super::FEATURES`] from `capture_value` to `king`.
pub(crate) fn describe(pos: &Chess, m: &Move, last: LastMove) -> [f64; 20] {
    let board = pos.board();
    let occupied = board.occupied();
    let role = m.role();
    let to = m.to();
    let bit = |b: bool| f64::from(u8::from(b));
    let (mut escape, mut from_hanging, mut advance, mut distance) = (0.0, 0.0, 0.0, 0.0);
    if let Some(from) = m.from().filter(|_| !m.is_castle()) {
        let attackers =
            board.attacks_to(from, Color::Black, occupied) & board.by_color(Color::Black);
        let defenders =
            board.attacks_to(from, Color::White, occupied) & board.by_color(Color::White);
        escape = bit(attackers.any());
        let cheaper = attackers
            .into_iter()
            .any(|sq| board.role_at(sq).is_some_and(|r| pawns(r) < pawns(role)));
        from_hanging = bit(cheaper || (attackers.any() && defenders.is_empty()));
        advance = f64::from(to.rank() as i8 - from.rank() as i8);
        distance = f64::from(from.distance(to));
    }
    let mut after = pos.clone();
    after.play_unchecked(*m);
    let (to_attacked, to_defended) = if m.is_castle() {
        (0.0, 0.0)
    } else {
        let b = after.board();
        let occ = b.occupied();
        (
            bit((b.attacks_to(to, Color::Black, occ) & b.by_color(Color::Black)).any()),
            bit((b.attacks_to(to, Color::White, occ) & b.by_color(Color::White)).any()),
        )
    };
    let mut x = [0.0; 20];
    x[0] = m.capture().map_or(0.0, pawns);
    x[1] = bit(after.is_check());
    x[2] = bit(!m.is_castle() && last.to() == Some(to));
    x[3] = escape;
    x[4] = from_hanging;
    x[5] = to_attacked;
    x[6] = to_defended;
    x[7] = (f64::from(see(board, m)) / 100.0).clamp(-9.0, 9.0);
    x[8] = advance;
    x[9] = if m.is_castle() {
        0.0
    } else {
        f64::from(to.rank() as u8)
    };
    x[10] = distance;
    x[11] = pawns(role);
    x[12] = bit(m.is_castle());
    x[13] = bit(m.is_promotion());
    x[14 + role as usize - 1] = 1.0;
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::Square;

    fn find(pos: &Chess, from: Square, to: Square) -> Move {
        pos.legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(from) && m.to() == to)
            .expect("legal move")
    }

    #[test]
    fn a_recapture_is_seen_as_one() {
        // Black's knight just took White's bishop on c4; White's d3 pawn takes it back.
        let pos = parse_fen("r1bqkbnr/pppp1ppp/8/4p3/2n1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 0 5")
            .expect("fen");
        let last = LastMove::new(Square::C4, Some(Role::Bishop));
        let x = describe(&pos, &find(&pos, Square::D3, Square::C4), last);
        assert_eq!(x[0], 3.0, "captures a knight");
        assert_eq!(x[2], 1.0, "recaptures");
        assert_eq!(x[8], 1.0, "one rank forward");
        assert_eq!(x[11], 1.0, "a pawn moves");
        assert_eq!(x[14], 1.0, "pawn one-hot");
        assert!(x[7] >= 3.0, "wins the knight by exchange");
        let quiet = describe(&pos, &find(&pos, Square::B1, Square::C3), last);
        assert_eq!((quiet[0], quiet[2], quiet[15]), (0.0, 0.0, 1.0));
    }

    #[test]
    fn escapes_checks_and_castling() {
        // The white queen on d4 is attacked by the c5 pawn; Qa4+ escapes with check.
        let pos = parse_fen("rnbqkbnr/pp2pppp/3p4/2p5/3Q4/8/PPP1PPPP/RNB1KBNR w KQkq - 0 4")
            .expect("fen");
        let x = describe(
            &pos,
            &find(&pos, Square::D4, Square::A4),
            LastMove::default(),
        );
        assert_eq!((x[1], x[3], x[4]), (1.0, 1.0, 1.0));
        let castle = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("fen");
        let m = castle
            .legal_moves()
            .into_iter()
            .find(|m| m.is_castle())
            .expect("castling");
        let x = describe(&castle, &m, LastMove::default());
        assert_eq!((x[12], x[19], x[10]), (1.0, 1.0, 0.0));
    }
}
