//! A PositionDB key worked out by hand from a given table file.

use kifu_go::{
    BoardSize, Color, Move, Point, Position, Rules, SymmetricHashes, Symmetry, ZobristKeys,
    ZobristTable,
};
use std::sync::Arc;

/// A 3x3 table in the `zobrist_board_81.dat` format where point `i` (row by row from the top-left)
/// has black value `1 << 2i` and white value `1 << (2i + 1)`, so a hash is a bit mask of stones.
const TABLE: &str = "\
8
3
9
0000000000000001,0000000000000002,00000000000000ff
0000000000000004,0000000000000008,00000000000000ff
0000000000000010,0000000000000020,00000000000000ff
0000000000000040,0000000000000080,00000000000000ff
0000000000000100,0000000000000200,00000000000000ff
0000000000000400,0000000000000800,00000000000000ff
0000000000001000,0000000000002000,00000000000000ff
0000000000004000,0000000000008000,00000000000000ff
0000000000010000,0000000000020000,00000000000000ff
";

#[test]
fn key_of_a_small_board_by_hand() {
    let table = ZobristTable::parse(TABLE.as_bytes()).unwrap();
    let size = BoardSize::new(3).unwrap();
    assert_eq!(table.size(), size);
    let keys = Arc::new(ZobristKeys::new(table.clone()));
    let mut pos = Position::with_keys(keys, Rules::default());
    // Black C1 (index 8), white B1 (index 7): rows ".......O#".
    pos.play(
        Color::Black,
        Move::Play(Point::from_human("C1", size).unwrap()),
    )
    .unwrap();
    pos.play(
        Color::White,
        Move::Play(Point::from_human("B1", size).unwrap()),
    )
    .unwrap();
    assert_eq!(pos.board().to_rows(), b".......O#");
    // By hand, with m = 2: symmetry s sends C1 = (2, 2) and B1 = (1, 2) to
    //   0 identity       (2,2) i8 -> 1<<16, (1,2) i7 -> 1<<15 : 98304
    //   1 rotate 90      (0,2) i6 -> 1<<12, (0,1) i3 -> 1<<7  : 4224
    //   2 rotate 180     (0,0) i0 -> 1,     (1,0) i1 -> 1<<3  : 9
    //   3 rotate 270     (2,0) i2 -> 1<<4,  (2,1) i5 -> 1<<11 : 2064
    //   4 flip left-right(0,2) i6 -> 1<<12, (1,2) i7 -> 1<<15 : 36864
    //   5 flip top-bottom(2,0) i2 -> 1<<4,  (1,0) i1 -> 1<<3  : 24
    //   6 transpose      (2,2) i8 -> 1<<16, (2,1) i5 -> 1<<11 : 67584
    //   7 anti-transpose (0,0) i0 -> 1,     (0,1) i3 -> 1<<7  : 129
    let expected = SymmetricHashes([98304, 4224, 9, 2064, 36864, 24, 67584, 129]);
    assert_eq!(pos.hashes(), expected);
    assert_eq!(table.symmetric_hashes(&pos.board()), expected);
    let key = pos.canonical();
    assert_eq!(key.hash, 9);
    assert_eq!(key.symmetry, Symmetry::Rotate180);
    assert_eq!(key.hash.to_be_bytes(), [0, 0, 0, 0, 0, 0, 0, 9]);
    // The rotated board is the one whose plain hash is the key: black A3, white B3.
    let turned = pos.board().transform(key.symmetry);
    assert_eq!(turned.to_rows(), b"#O.......");
    assert_eq!(table.hash(&turned), 9);
    // The same key through a position built from the stored board, with the given table.
    let keys = pos.zobrist().clone();
    let again =
        Position::from_board_with_keys(&pos.board(), Color::Black, Rules::default(), keys).unwrap();
    assert_eq!(again.canonical(), key);
    let wrong = Position::from_board_with_keys(
        &kifu_go::Board::new(BoardSize::NINE),
        Color::Black,
        Rules::default(),
        again.zobrist().clone(),
    );
    assert!(wrong.is_err());
}
