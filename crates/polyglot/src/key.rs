//! Polyglot keys of positions, and positions from a FEN or a move list.
//!
//! The key is shakmaty's 64-bit Zobrist hash, whose 781 random values are Polyglot's
//! `Random64` table (checked value by value in `tests/random64.rs`). The en-passant file
//! is hashed only when a pawn of the side to move stands beside the pawn that just moved
//! two squares, which is [`EnPassantMode::PseudoLegal`].

use crate::error::{Error, Result};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// The Polyglot key of a position.
#[inline]
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// The key after playing the legal move `m` in `pos` whose key is `current`, without
/// hashing from scratch when shakmaty can update incrementally.
#[inline]
pub fn key_after(pos: &Chess, current: u64, m: Move) -> Option<u64> {
    pos.update_zobrist_hash(Zobrist64(current), m, EnPassantMode::PseudoLegal)
        .map(|z| z.0)
}

/// The key of the position in `fen`.
pub fn key_from_fen(fen: &str) -> Result<u64> {
    Ok(key(&position_from_fen(fen)?))
}

/// A position as bitboards, the way python-chess's `Board` holds it: bit 0 is a1, bit 7 h1,
/// bit 63 h8. Reading these is much cheaper than writing and parsing a FEN.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bitboards {
    /// Pawns of both colours.
    pub pawns: u64,
    /// Knights of both colours.
    pub knights: u64,
    /// Bishops of both colours.
    pub bishops: u64,
    /// Rooks of both colours.
    pub rooks: u64,
    /// Queens of both colours.
    pub queens: u64,
    /// Kings of both colours.
    pub kings: u64,
    /// White's pieces.
    pub white: u64,
    /// Black's pieces.
    pub black: u64,
    /// White moves next.
    pub white_to_move: bool,
    /// The rooks that keep their castling rights.
    pub castling_rooks: u64,
    /// The square a pawn just skipped (0..64), whether or not a capture is possible.
    pub ep_square: Option<u8>,
    /// Half-moves since the last capture or pawn move.
    pub halfmoves: u32,
    /// The move number.
    pub fullmoves: u32,
}

/// The position the bitboards describe, checked as a FEN would be (standard castling). As
/// python-chess hashes them, castling rights no king and rook could use are dropped, and so is
/// an en-passant square no pawn could have skipped.
pub fn position_from_bitboards(b: &Bitboards) -> Result<Chess> {
    use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, FromSetup, Setup, Square};
    let err = |reason: String| Error::Position { reason };
    let board = Board::try_from_bitboards(
        ByRole {
            pawn: Bitboard(b.pawns),
            knight: Bitboard(b.knights),
            bishop: Bitboard(b.bishops),
            rook: Bitboard(b.rooks),
            queen: Bitboard(b.queens),
            king: Bitboard(b.kings),
        },
        ByColor {
            white: Bitboard(b.white),
            black: Bitboard(b.black),
        },
    )
    .map_err(|e| err(e.to_string()))?;
    let ep_square = match b.ep_square {
        None => None,
        Some(s) => Some(Square::try_from(s).map_err(|_| err(format!("en-passant square {s}")))?),
    };
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn: if b.white_to_move {
            Color::White
        } else {
            Color::Black
        },
        castling_rights: Bitboard(b.castling_rooks),
        ep_square,
        remaining_checks: None,
        halfmoves: b.halfmoves,
        fullmoves: std::num::NonZeroU32::new(b.fullmoves).unwrap_or(std::num::NonZeroU32::MIN),
    };
    match Chess::from_setup(setup, CastlingMode::Standard) {
        Ok(p) => Ok(p),
        Err(e) => match e.ignore_invalid_ep_square() {
            Ok(p) => Ok(p),
            Err(e) => e
                .ignore_invalid_castling_rights()
                .map_err(|e| err(e.to_string())),
        },
    }
}

/// Parses a FEN (standard castling; Shredder/X-FEN castling files are accepted too).
pub fn position_from_fen(fen: &str) -> Result<Chess> {
    let err = |reason: String| Error::Fen {
        fen: fen.to_string(),
        reason,
    };
    let parsed: Fen = fen.trim().parse().map_err(|e| err(format!("{e}")))?;
    match parsed.clone().into_position(CastlingMode::Standard) {
        Ok(p) => Ok(p),
        Err(_) => parsed
            .into_position(CastlingMode::Chess960)
            .map_err(|e| err(format!("{e}"))),
    }
}

/// Plays a move list from the start position. Moves are separated by white space and may
/// be SAN (`e4`, `Nf3`, `O-O`) or UCI (`e2e4`, `e1g1`, `e1h1`); move numbers (`1.`, `1...`)
/// and results are skipped.
pub fn position_from_moves(moves: &str) -> Result<Chess> {
    position_after(Chess::default(), moves)
}

/// Plays a move list (as in [`position_from_moves`]) from `pos`.
pub fn position_after(mut pos: Chess, moves: &str) -> Result<Chess> {
    let mut number = 0;
    for token in moves.split_whitespace() {
        let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() || matches!(token, "*" | "1-0" | "0-1" | "1/2-1/2") {
            continue;
        }
        number += 1;
        let m = parse_move(&pos, token).map_err(|reason| Error::Move {
            number,
            token: token.to_string(),
            reason,
        })?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

/// Reads one move in SAN or UCI (king-takes-rook castling included) in `pos`.
pub fn parse_move(pos: &Chess, token: &str) -> std::result::Result<Move, String> {
    if let Ok(uci) = token.parse::<UciMove>() {
        if let Ok(m) = uci.to_move(pos) {
            return Ok(m);
        }
        // Polyglot writes castling as king-takes-rook: `e1h1` in standard chess.
        if let UciMove::Normal {
            from,
            to,
            promotion: None,
        } = uci
        {
            let raw = crate::RawMove::new(from, to, None);
            if let Some(m) = raw.resolve(pos) {
                return Ok(m);
            }
        }
    }
    let san: SanPlus = token.parse().map_err(|e| format!("not SAN or UCI ({e})"))?;
    san.san
        .to_move(pos)
        .map_err(|e| format!("{e} in {}", Fen::from_position(pos, EnPassantMode::Legal)))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Keys from the Polyglot book format documentation.
    #[test]
    fn documented_keys() {
        let cases = [
            ("", 0x463b96181691fc9c),
            ("e4", 0x823c9b50fd114196),
            ("e4 d5", 0x0756b94461c50fb0),
            ("e4 d5 e5", 0x662fafb965db29d4),
            ("e4 d5 e5 f5", 0x22a48b5a8e47ff78),
            ("e4 d5 e5 f5 Ke2", 0x652a607ca3f242c1),
            ("e4 d5 e5 f5 Ke2 Kf7", 0x00fdd303c946bdd9),
            ("a4 b5 h4 b4 c4", 0x3c8123ea7b067637),
            ("a4 b5 h4 b4 c4 bxc3 Ra3", 0x5c3f9b829b279560),
        ];
        for (moves, k) in cases {
            assert_eq!(key(&position_from_moves(moves).unwrap()), k, "{moves}");
        }
        assert_eq!(
            key_from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3").unwrap(),
            0x652a607ca3f242c1
        );
        // e3 is given as the en-passant square but no black pawn can take: not hashed.
        assert_eq!(
            key_from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap(),
            0x823c9b50fd114196
        );
    }

    #[test]
    fn uci_and_castling_tokens() {
        let a = position_from_moves("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O").unwrap();
        let b = position_from_moves("e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1h1").unwrap();
        let c = position_from_moves("e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1").unwrap();
        assert_eq!(key(&a), key(&b));
        assert_eq!(key(&a), key(&c));
        let e = position_from_moves("e4 e4").unwrap_err();
        assert!(e.to_string().starts_with("move 2 \"e4\""), "{e}");
        assert!(position_from_fen("not a fen").is_err());
    }

    #[test]
    fn incremental_key_matches() {
        let mut pos = Chess::default();
        let mut k = key(&pos);
        for t in [
            "e4", "d5", "e5", "f5", "exf6", "Nc6", "fxg7", "Bd7", "gxh8=N",
        ] {
            let m = parse_move(&pos, t).unwrap();
            k = key_after(&pos, k, m).unwrap_or_else(|| {
                let mut p = pos.clone();
                p.play_unchecked(m);
                key(&p)
            });
            pos.play_unchecked(m);
            assert_eq!(k, key(&pos), "{t}");
        }
    }

    fn bitboards(pos: &Chess) -> Bitboards {
        let board = pos.board();
        Bitboards {
            pawns: board.pawns().0,
            knights: board.knights().0,
            bishops: board.bishops().0,
            rooks: board.rooks().0,
            queens: board.queens().0,
            kings: board.kings().0,
            white: board.white().0,
            black: board.black().0,
            white_to_move: pos.turn().is_white(),
            castling_rooks: pos.castles().castling_rights().0,
            ep_square: pos.maybe_ep_square().map(u8::from),
            halfmoves: pos.halfmoves(),
            fullmoves: pos.fullmoves().get(),
        }
    }

    #[test]
    fn bitboards_give_the_fens_position() {
        // Every position of these lines, with en-passant squares that can and cannot be taken,
        // castling rights lost one by one, a promotion.
        for line in [
            "e4 d5 e5 f5 exf6 Nc6 fxg7 Bd7 gxh8=N",
            "a4 b5 h4 b4 c4 bxc3 Ra3 e5 Rh3 Ke7",
            "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O Nf6 Re1 O-O",
        ] {
            let mut pos = Chess::default();
            for t in std::iter::once("").chain(line.split(' ')) {
                if !t.is_empty() {
                    let m = parse_move(&pos, t).unwrap();
                    pos.play_unchecked(m);
                }
                let b = bitboards(&pos);
                let from_bits = position_from_bitboards(&b).unwrap();
                assert_eq!(key(&from_bits), key(&pos), "{line}: after {t:?}");
                assert_eq!(from_bits.legal_moves(), pos.legal_moves(), "{t}");
            }
        }
        // e3 skipped but no black pawn can take: not hashed, as from the FEN.
        let pos = position_from_moves("e4").unwrap();
        assert_eq!(bitboards(&pos).ep_square, Some(20));
        assert_eq!(
            key(&position_from_bitboards(&bitboards(&pos)).unwrap()),
            0x823c9b50fd114196
        );
        // Not a position: two white kings, pieces of both colours on one square, a bad square.
        let mut b = bitboards(&Chess::default());
        b.kings |= 1 << 3;
        b.queens &= !(1 << 3);
        assert!(position_from_bitboards(&b).is_err());
        let mut b = bitboards(&Chess::default());
        b.black |= 1;
        assert!(position_from_bitboards(&b)
            .unwrap_err()
            .to_string()
            .starts_with("invalid position"));
        // A rook that moved away keeps no right (python-chess's `clean_castling_rights`).
        let mut b = bitboards(&Chess::default());
        b.castling_rooks |= 1 << 1;
        b.rooks &= !1;
        b.white &= !1;
        let p = position_from_bitboards(&b).unwrap();
        assert_eq!(
            p.castles().castling_rights().0,
            (1 << 7) | (1 << 56) | (1 << 63)
        );
        let mut b = bitboards(&Chess::default());
        b.ep_square = Some(200);
        assert!(position_from_bitboards(&b).is_err());
    }
}
