//! The two Arrow schemas of the exported files, and the codes their columns use. The column
//! tables are in the [crate docs](crate); this module is where they are made, so a change of a
//! column is a change here (and of the docs, README and the tests that read the columns back).

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use kifu_go::{BoardSize, Color};
use std::collections::HashMap;
use std::sync::Arc;

/// `move_row`/`move_col` of a pass (as `kifu.go.GO_PASS` in the Python package).
pub const PASS: i16 = -1;
/// `move_row`/`move_col` at the last position of a main line whose result (`RE`) says the game
/// was won by resignation (`B+R`, `W+Resign`): `kifu.go.GO_RESIGN`.
pub const RESIGN: i16 = -2;
/// `move_row`/`move_col` where no move follows (the end of a line): `kifu.go.GO_NO_MOVE`.
pub const NO_MOVE: i16 = -3;

/// A board cell: empty.
pub const EMPTY: u8 = 0;
/// A board cell, and `to_play`: Black.
pub const BLACK: u8 = 1;
/// A board cell, and `to_play`: White.
pub const WHITE: u8 = 2;

/// Key of the Parquet key-value metadata naming the kind of input: `index` or `positions`.
pub const META_KIND: &str = "kifu.kind";
/// Key of the Parquet key-value metadata giving the board size.
pub const META_SIZE: &str = "kifu.size";

/// The column names of an index export, in order.
pub const INDEX_COLUMNS: [&str; 19] = [
    "game",
    "file",
    "game_in_file",
    "variation",
    "move_number",
    "to_play",
    "move_row",
    "move_col",
    "board",
    "size",
    "hash",
    "symmetry",
    "result",
    "result_text",
    "black",
    "white",
    "date",
    "komi",
    "handicap",
];

/// The column names of a position file export, in order.
pub const POSITION_COLUMNS: [&str; 9] = [
    "record",
    "hash",
    "tiebreak",
    "to_play",
    "board",
    "size",
    "file_id",
    "variation",
    "move_number",
];

/// The code of a colour in `to_play` and the board cells.
pub fn color_code(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// The board cell of a PositionDB rows byte (`#` black, `O` white, anything else empty).
pub fn cell_of_row_byte(b: u8) -> u8 {
    match b {
        b'#' => BLACK,
        b'O' => WHITE,
        _ => EMPTY,
    }
}

/// The `board` column's type for `size`: a fixed-size list of `size * size` non-null `uint8`.
pub fn board_type(size: BoardSize) -> DataType {
    DataType::FixedSizeList(
        Arc::new(Field::new("item", DataType::UInt8, false)),
        size.points() as i32,
    )
}

fn metadata(kind: &str, size: BoardSize) -> HashMap<String, String> {
    HashMap::from([
        (META_KIND.to_string(), kind.to_string()),
        (META_SIZE.to_string(), size.get().to_string()),
    ])
}

/// The schema of an index export of `size` boards.
pub fn index_schema(size: BoardSize) -> SchemaRef {
    let f = |name: &str, t: DataType| Field::new(name, t, false);
    let fields = vec![
        f("game", DataType::UInt32),
        f("file", DataType::Utf8),
        f("game_in_file", DataType::UInt32),
        f("variation", DataType::UInt32),
        f("move_number", DataType::UInt32),
        f("to_play", DataType::UInt8),
        f("move_row", DataType::Int16),
        f("move_col", DataType::Int16),
        f("board", board_type(size)),
        f("size", DataType::UInt8),
        f("hash", DataType::UInt64),
        f("symmetry", DataType::UInt8),
        f("result", DataType::Int8),
        f("result_text", DataType::Utf8),
        f("black", DataType::Utf8),
        f("white", DataType::Utf8),
        f("date", DataType::Utf8),
        Field::new("komi", DataType::Float64, true),
        f("handicap", DataType::Int32),
    ];
    debug_assert!(fields
        .iter()
        .map(|f| f.name().as_str())
        .eq(INDEX_COLUMNS.iter().copied()));
    Arc::new(Schema::new_with_metadata(fields, metadata("index", size)))
}

/// The schema of a position file export of `size` boards.
pub fn positions_schema(size: BoardSize) -> SchemaRef {
    let f = |name: &str, t: DataType| Field::new(name, t, false);
    let fields = vec![
        f("record", DataType::UInt64),
        f("hash", DataType::UInt64),
        f("tiebreak", DataType::UInt8),
        f("to_play", DataType::UInt8),
        f("board", board_type(size)),
        f("size", DataType::UInt8),
        Field::new("file_id", DataType::UInt32, true),
        Field::new("variation", DataType::UInt32, true),
        Field::new("move_number", DataType::UInt32, true),
    ];
    debug_assert!(fields
        .iter()
        .map(|f| f.name().as_str())
        .eq(POSITION_COLUMNS.iter().copied()));
    Arc::new(Schema::new_with_metadata(
        fields,
        metadata("positions", size),
    ))
}

/// The game's winner from `RE` as the Python package's `result` column reads it: 1 when the
/// text (trimmed, any case) starts with `B`, 2 with `W`, else 0; and whether it says the game
/// ended by resignation (`+R...` after the first `+`).
pub fn result_code(re: &str) -> (i8, bool) {
    let re = re.trim().to_ascii_uppercase();
    let code = match re.as_bytes().first() {
        Some(b'B') => 1,
        Some(b'W') => 2,
        _ => 0,
    };
    let resign = re
        .split_once('+')
        .is_some_and(|(_, how)| how.starts_with('R'));
    (code, resign)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_as_the_python_package_reads_them() {
        assert_eq!(result_code("B+R"), (1, true));
        assert_eq!(result_code(" w+resign "), (2, true));
        assert_eq!(result_code("W+1.5"), (2, false));
        assert_eq!(result_code("0"), (0, false));
        assert_eq!(result_code(""), (0, false));
        assert_eq!(result_code("Void"), (0, false));
    }

    #[test]
    fn schemas_name_their_columns_in_order() {
        let s = index_schema(BoardSize::NINE);
        assert_eq!(s.fields().len(), INDEX_COLUMNS.len());
        assert_eq!(s.metadata()[META_KIND], "index");
        let p = positions_schema(BoardSize::new(13).unwrap());
        assert_eq!(p.fields().len(), POSITION_COLUMNS.len());
        assert_eq!(p.metadata()[META_SIZE], "13");
        assert_eq!(
            p.field_with_name("board").unwrap().data_type(),
            &board_type(BoardSize::new(13).unwrap())
        );
    }
}
