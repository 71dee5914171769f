//! Polyglot's 16-bit move encoding and its mapping to and from shakmaty moves.
//!
//! Bits 0-2 are the to-file, 3-5 the to-rank, 6-8 the from-file, 9-11 the from-rank and
//! 12-14 the promotion piece (0 none, 1 knight, 2 bishop, 3 rook, 4 queen). Castling is
//! written as the king taking its own rook (`e1h1`, `e1a1`, `e8h8`, `e8a8`), which is how
//! shakmaty represents castling too, so no square translation is needed.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move, Position, Role, Square};
use std::fmt;

/// A move as stored in a Polyglot record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RawMove(pub u16);

impl RawMove {
    /// Builds a raw move from squares and an optional promotion piece.
    pub fn new(from: Square, to: Square, promotion: Option<Role>) -> RawMove {
        let promo = match promotion {
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(Role::Queen) => 4,
            _ => 0,
        };
        RawMove((promo << 12) | ((u32::from(from) as u16) << 6) | u32::from(to) as u16)
    }

    /// Encodes a legal move. Castling becomes king-takes-own-rook; drops (not in
    /// standard chess) encode as `to`-`to`.
    pub fn encode(m: Move) -> RawMove {
        match m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => RawMove::new(from, to, promotion),
            Move::EnPassant { from, to } => RawMove::new(from, to, None),
            Move::Castle { king, rook } => RawMove::new(king, rook, None),
            Move::Put { to, .. } => RawMove::new(to, to, None),
        }
    }

    /// The origin square.
    pub fn from_square(self) -> Square {
        Square::new(u32::from((self.0 >> 6) & 63))
    }

    /// The target square (the rook's square for castling).
    pub fn to_square(self) -> Square {
        Square::new(u32::from(self.0 & 63))
    }

    /// The promotion piece. `Err(bits)` for the undefined values 5, 6 and 7.
    pub fn promotion(self) -> Result<Option<Role>, u16> {
        match (self.0 >> 12) & 7 {
            0 => Ok(None),
            1 => Ok(Some(Role::Knight)),
            2 => Ok(Some(Role::Bishop)),
            3 => Ok(Some(Role::Rook)),
            4 => Ok(Some(Role::Queen)),
            bits => Err(bits),
        }
    }

    /// Whether the bits could be a move at all: bit 15 clear, a defined promotion
    /// value and distinct squares. (Legality needs a position: see [`RawMove::resolve`].)
    pub fn is_well_formed(self) -> bool {
        self.0 & 0x8000 == 0 && self.promotion().is_ok() && self.from_square() != self.to_square()
    }

    /// The move as Polyglot writes it, in UCI-like text without a position: castling
    /// stays `e1h1`. Undefined promotion bits print as `?`.
    pub fn to_raw_uci(self) -> String {
        let mut s = format!("{}{}", self.from_square(), self.to_square());
        match self.promotion() {
            Ok(Some(role)) => s.push(role.char()),
            Ok(None) => {}
            Err(_) => s.push('?'),
        }
        s
    }

    /// Finds the legal move of `pos` that this raw move stands for (castling mapped
    /// from king-takes-rook). `None` if no legal move encodes to these bits.
    pub fn resolve<P: Position>(self, pos: &P) -> Option<Move> {
        if !self.is_well_formed() {
            return None;
        }
        self.find_in(&pos.legal_moves())
    }

    /// The move among `legal` (a position's legal moves) that this raw move stands for: all
    /// of a position's entries are resolved against one move generation.
    pub fn find_in(self, legal: &[Move]) -> Option<Move> {
        if !self.is_well_formed() {
            return None;
        }
        let from = self.from_square();
        legal
            .iter()
            .find(|m| m.from() == Some(from) && RawMove::encode(**m) == self)
            .copied()
    }

    /// The move in standard UCI (`e1g1` for castling) if legal in `pos`.
    pub fn to_uci<P: Position>(self, pos: &P) -> Option<String> {
        self.resolve(pos)
            .map(|m| UciMove::from_move(m, CastlingMode::Standard).to_string())
    }

    /// The move in SAN (`O-O`, `exd6`, `e8=N+`) if legal in `pos`.
    pub fn to_san<P: Position + Clone>(self, pos: &P) -> Option<String> {
        self.resolve(pos)
            .map(|m| shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string())
    }
}

impl fmt::Display for RawMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_raw_uci())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::Chess;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn encodes_like_polyglot() {
        // e2e4: from e2 (file 4, rank 1), to e4 (file 4, rank 3).
        let m = RawMove::new(Square::E2, Square::E4, None);
        assert_eq!(m.0, (1 << 9) | (4 << 6) | (3 << 3) | 4);
        assert_eq!(m.to_raw_uci(), "e2e4");
        let q = RawMove::new(Square::A7, Square::A8, Some(Role::Queen));
        assert_eq!(q.0 >> 12, 4);
        assert_eq!(q.to_raw_uci(), "a7a8q");
        assert_eq!(RawMove(0x5000 | q.0 & 0xfff).promotion(), Err(5));
        assert!(!RawMove(0).is_well_formed());
    }

    #[test]
    fn castling_maps_king_takes_rook() {
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let short = RawMove::new(Square::E1, Square::H1, None);
        let long = RawMove::new(Square::E1, Square::A1, None);
        assert_eq!(short.to_uci(&p).as_deref(), Some("e1g1"));
        assert_eq!(short.to_san(&p).as_deref(), Some("O-O"));
        assert_eq!(long.to_uci(&p).as_deref(), Some("e1c1"));
        assert_eq!(long.to_san(&p).as_deref(), Some("O-O-O"));
        // e1g1 is not how Polyglot writes castling: it is no legal move here.
        assert_eq!(RawMove::new(Square::E1, Square::G1, None).resolve(&p), None);
        let m = short.resolve(&p).unwrap();
        assert_eq!(RawMove::encode(m), short);
        let black = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        assert_eq!(
            RawMove::new(Square::E8, Square::A8, None)
                .to_san(&black)
                .as_deref(),
            Some("O-O-O")
        );
    }

    #[test]
    fn under_promotion_and_en_passant() {
        let p = pos("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
        let n = RawMove::new(Square::E7, Square::E8, Some(Role::Knight));
        assert_eq!(n.to_uci(&p).as_deref(), Some("e7e8n"));
        assert_eq!(n.to_san(&p).as_deref(), Some("e8=N+"));
        let ep = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
        let m = RawMove::new(Square::E5, Square::D6, None);
        assert_eq!(m.to_san(&ep).as_deref(), Some("exd6"));
    }
}
