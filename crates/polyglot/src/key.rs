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
}
