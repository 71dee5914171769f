//! shakmaty's Zobrist keys (with `EnPassantMode::PseudoLegal`) are Polyglot keys: checked
//! against a from-scratch hash over Polyglot's own Random64 table, for every position of
//! Fischer.pgn and for en-passant corner cases.

mod common;

use common::random64::RANDOM64;
use kifu_polyglot::shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Position, Role, Square};
use kifu_polyglot::{key, position_from_fen};
use pgn_reader::{Reader, SanPlus, Visitor};
use std::ops::ControlFlow;

/// Polyglot's formula, written from the book format documentation.
fn polyglot_hash(pos: &Chess) -> u64 {
    let mut h = 0u64;
    for (sq, piece) in pos.board().clone() {
        let role = match piece.role {
            Role::Pawn => 0,
            Role::Knight => 1,
            Role::Bishop => 2,
            Role::Rook => 3,
            Role::Queen => 4,
            Role::King => 5,
        };
        let kind = 2 * role + usize::from(piece.color == Color::White);
        h ^= RANDOM64[64 * kind + 8 * sq.rank() as usize + sq.file() as usize];
    }
    let c = pos.castles();
    for (i, (color, side)) in [
        (Color::White, CastlingSide::KingSide),
        (Color::White, CastlingSide::QueenSide),
        (Color::Black, CastlingSide::KingSide),
        (Color::Black, CastlingSide::QueenSide),
    ]
    .into_iter()
    .enumerate()
    {
        if c.has(color, side) {
            h ^= RANDOM64[768 + i];
        }
    }
    if let Some(ep) = pos.ep_square(EnPassantMode::Always) {
        // Hashed only if a pawn of the side to move stands beside the pawn that moved.
        let pawn_rank = if pos.turn() == Color::White { 4 } else { 3 };
        let file = ep.file() as i32;
        let beside = [file - 1, file + 1]
            .into_iter()
            .filter(|f| (0..8).contains(f))
            .any(|f| {
                let sq = Square::new((pawn_rank * 8 + f) as u32);
                pos.board().piece_at(sq) == Some(Role::Pawn.of(pos.turn()))
            });
        if beside {
            h ^= RANDOM64[772 + ep.file() as usize];
        }
    }
    if pos.turn() == Color::White {
        h ^= RANDOM64[780];
    }
    h
}

struct AllPositions {
    checked: usize,
}

impl Visitor for AllPositions {
    type Tags = ();
    type Movetext = Chess;
    type Output = ();
    fn begin_tags(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), Chess> {
        ControlFlow::Continue(Chess::default())
    }
    fn san(&mut self, pos: &mut Chess, san: SanPlus) -> ControlFlow<()> {
        assert_eq!(key(pos), polyglot_hash(pos));
        self.checked += 1;
        match san.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(()),
        }
    }
    fn end_game(&mut self, pos: Chess) {
        assert_eq!(key(&pos), polyglot_hash(&pos));
    }
}

#[test]
fn table_values_and_start_key() {
    // First and last values of the published table, and the documented start key.
    assert_eq!(RANDOM64[0], 0x9D39247E33776D41);
    assert_eq!(RANDOM64[780], 0xF8D626AAAF278509);
    assert_eq!(polyglot_hash(&Chess::default()), 0x463b96181691fc9c);
    assert_eq!(key(&Chess::default()), 0x463b96181691fc9c);
}

#[test]
fn en_passant_corner_cases() {
    for fen in [
        // Pawn beside: hashed.
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w kq f6 0 4",
        // No pawn beside: not hashed.
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        // Pawn beside but pinned (pseudo-legal only): Polyglot hashes it.
        "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
        // Both sides.
        "4k3/8/8/8/2pPp3/8/8/4K3 b - d3 0 1",
        // Edge files.
        "4k3/8/8/pP6/8/8/8/4K3 w - a6 0 1",
        "4k3/8/8/6Pp/8/8/8/4K3 w - h6 0 1",
    ] {
        let pos = position_from_fen(fen).unwrap();
        assert_eq!(key(&pos), polyglot_hash(&pos), "{fen}");
    }
    let pinned = position_from_fen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1").unwrap();
    let no_ep = position_from_fen("8/8/8/K2pP2r/8/8/8/7k w - - 0 1").unwrap();
    assert_ne!(
        key(&pinned),
        key(&no_ep),
        "Polyglot hashes pseudo-legal en passant"
    );
}

#[test]
fn every_position_of_fischer_pgn() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpus/polyglot/pgn/Fischer.pgn"
    );
    let file = std::fs::File::open(path).expect("corpus file");
    let mut reader = Reader::new(file);
    let mut v = AllPositions { checked: 0 };
    while reader.read_game(&mut v).expect("readable").is_some() {}
    assert!(v.checked > 50_000, "only {} positions", v.checked);
}
