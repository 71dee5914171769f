//! Exports of hand-made games and position files, read back with the parquet crate's Arrow
//! reader and checked value by value.

use super::*;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float64Type, Int16Type, Int32Type, Int8Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use kifu_go::{Board, Color, ZobristKeys};
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, IndexOptions};
use kifu_posdb::{ExtraInfo, PositionId, PositionRecord, PositionWriter};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::io::Write;
use std::path::PathBuf;

/// Game 1: a capture, a pass, won by resignation. Game 2: handicap stones, a comment node after
/// a move, a variation. A 9x9 game (not indexed: another size), then a third 5x5 game.
const GAMES: &str = "(;GM[1]SZ[5]PB[Ann]PW[Bob]DT[2024-01-02]RE[B+R]KM[0.5]\
;B[cc];W[aa];B[ab];W[];B[ba])\
(;GM[1]SZ[5]RE[W+3.5]KM[6.5]HA[2]AB[aa][ee];W[cc](;B[dd];C[a comment])(;B[bd];W[db]))";
const MORE: &str = "(;GM[1]SZ[9];B[ee])(;GM[1]SZ[5]RE[Void];B[cc])";

fn five() -> BoardSize {
    BoardSize::new(5).unwrap()
}

/// The two game files in a temporary folder, and an index of them.
fn indexed(variations: bool) -> (tempfile::TempDir, PathBuf, u64) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.sgf"), GAMES).unwrap();
    std::fs::write(dir.path().join("b.sgf"), MORE).unwrap();
    let sources = [
        Source::new(dir.path().join("a.sgf")),
        Source::new(dir.path().join("b.sgf")),
    ];
    let mut opts = IndexOptions::new(five());
    opts.variations = variations;
    let db = dir.path().join("db.kpx");
    let mut out = Vec::new();
    let s = build_index(&sources, &opts, &mut out, &|| {}).unwrap();
    std::fs::write(&db, out).unwrap();
    assert_eq!((s.games, s.games_other_size, s.games_failed), (3, 1, 0));
    (dir, db, s.entries)
}

fn export_bytes(input: Input, opts: &ExportOptions) -> (ExportSummary, Vec<u8>) {
    let mut out = Vec::new();
    let s = export(input, opts, &mut out, &|_| {}).unwrap();
    assert_eq!(s.bytes, out.len() as u64);
    (s, out)
}

fn read_back(bytes: &[u8]) -> RecordBatch {
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::copy_from_slice(bytes)).unwrap();
    // The file's schema, with its metadata (the batches' own schema has none).
    let schema = builder.schema().clone();
    let mut reader = builder.with_batch_size(1 << 20).build().unwrap();
    let batch = reader.next().unwrap().unwrap();
    assert!(reader.next().is_none(), "one batch across the row groups");
    batch.with_schema(schema).unwrap()
}

fn u32s(b: &RecordBatch, name: &str) -> Vec<u32> {
    b[name].as_primitive::<UInt32Type>().values().to_vec()
}

fn u8s(b: &RecordBatch, name: &str) -> Vec<u8> {
    b[name].as_primitive::<UInt8Type>().values().to_vec()
}

fn strs(b: &RecordBatch, name: &str) -> Vec<String> {
    b[name]
        .as_string::<i32>()
        .iter()
        .map(|s| s.unwrap().to_string())
        .collect()
}

fn moves(b: &RecordBatch) -> Vec<(i16, i16)> {
    let r = b["move_row"].as_primitive::<Int16Type>();
    let c = b["move_col"].as_primitive::<Int16Type>();
    r.values()
        .iter()
        .copied()
        .zip(c.values().iter().copied())
        .collect()
}

/// Each row's board as rows text (`#`, `O`, `.`).
fn boards(b: &RecordBatch) -> Vec<String> {
    let list = b["board"].as_fixed_size_list();
    (0..list.len())
        .map(|i| {
            let cells = list.value(i);
            cells
                .as_primitive::<UInt8Type>()
                .values()
                .iter()
                .map(|c| match c {
                    1 => '#',
                    2 => 'O',
                    _ => '.',
                })
                .collect()
        })
        .collect()
}

fn board(rows: &[&str]) -> String {
    rows.concat()
}

#[test]
fn an_index_of_main_lines_gives_each_position_with_its_next_move() {
    let (dir, db, entries) = indexed(false);
    let (s, bytes) = export_bytes(Input::open(&db).unwrap(), &ExportOptions::default());
    assert_eq!(
        (s.kind, s.rows, s.games, s.games_failed, s.row_groups),
        (InputKind::Index, 11, 3, 0, 1)
    );
    assert_eq!(s.rows, entries);
    assert!(!s.has_problems());
    let b = read_back(&bytes);
    assert_eq!(b.num_rows(), 11);
    assert_eq!(u32s(&b, "game"), [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2]);
    assert_eq!(u32s(&b, "game_in_file"), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    let a = dir.path().join("a.sgf").display().to_string();
    let bf = dir.path().join("b.sgf").display().to_string();
    assert_eq!(strs(&b, "file")[0], a);
    assert_eq!(strs(&b, "file")[10], bf);
    assert_eq!(u32s(&b, "variation"), [0; 11]);
    // Game 2: the node after B[dd] is followed by a comment node without a move, which stands
    // for it: the index has no entry for it, so no row.
    assert_eq!(u32s(&b, "move_number"), [0, 1, 2, 3, 4, 5, 0, 1, 2, 0, 1]);
    assert_eq!(u8s(&b, "to_play"), [1, 2, 1, 2, 1, 2, 2, 1, 2, 1, 2]);
    assert_eq!(
        moves(&b),
        [
            (2, 2),
            (0, 0),
            (1, 0),
            (PASS, PASS),
            (0, 1),
            (RESIGN, RESIGN),
            (2, 2),
            (3, 3),
            (NO_MOVE, NO_MOVE),
            (2, 2),
            (NO_MOVE, NO_MOVE)
        ]
    );
    let e = ".....";
    assert_eq!(
        boards(&b),
        [
            board(&[e, e, e, e, e]),
            board(&[e, e, "..#..", e, e]),
            board(&["O....", e, "..#..", e, e]),
            board(&["O....", "#....", "..#..", e, e]),
            board(&["O....", "#....", "..#..", e, e]),
            // B[ba] captured the white stone.
            board(&[".#...", "#....", "..#..", e, e]),
            board(&["#....", e, e, e, "....#"]),
            board(&["#....", e, "..O..", e, "....#"]),
            board(&["#....", e, "..O..", "...#.", "....#"]),
            board(&[e, e, e, e, e]),
            board(&[e, e, "..#..", e, e]),
        ]
    );
    assert_eq!(u8s(&b, "size"), [5; 11]);
    // The hash is the canonical Zobrist hash of the board, and the symmetry its orientation.
    let keys = ZobristKeys::default_for(five());
    let hashes = b["hash"].as_primitive::<UInt64Type>().values().to_vec();
    let syms = u8s(&b, "symmetry");
    for (i, rows) in boards(&b).iter().enumerate() {
        let board = Board::from_rows(rows.as_bytes(), Some(five())).unwrap();
        let c = keys.table().symmetric_hashes(&board).canonical();
        assert_eq!(
            (hashes[i], syms[i]),
            (c.hash, c.symmetry.index() as u8),
            "row {i}"
        );
    }
    let result = b["result"].as_primitive::<Int8Type>().values().to_vec();
    assert_eq!(result, [1, 1, 1, 1, 1, 1, 2, 2, 2, 0, 0]);
    assert_eq!(strs(&b, "result_text")[0], "B+R");
    assert_eq!(strs(&b, "result_text")[10], "Void");
    assert_eq!(strs(&b, "black")[0], "Ann");
    assert_eq!(strs(&b, "white")[5], "Bob");
    assert_eq!(strs(&b, "date")[0], "2024-01-02");
    assert_eq!(strs(&b, "black")[6], "");
    let komi = b["komi"].as_primitive::<Float64Type>();
    assert_eq!(
        (komi.value(0), komi.value(6), komi.is_null(10)),
        (0.5, 6.5, true)
    );
    let ha = b["handicap"].as_primitive::<Int32Type>().values().to_vec();
    assert_eq!(ha, [0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0]);
    // The file says what it is.
    let meta = b.schema();
    assert_eq!(meta.metadata()[schema::META_KIND], "index");
    assert_eq!(meta.metadata()[schema::META_SIZE], "5");
    assert_eq!(
        meta.field_with_name("board").unwrap().data_type(),
        &schema::board_type(five())
    );
}

#[test]
fn an_index_with_variations_gives_one_row_per_continuation() {
    let (_dir, db, entries) = indexed(true);
    let (s, bytes) = export_bytes(Input::open(&db).unwrap(), &ExportOptions::default());
    assert_eq!((s.rows, s.games), (14, 3));
    assert_eq!(s.rows, entries);
    let b = read_back(&bytes);
    // Game 2 (rows 6..12): W[cc] from the root; B[dd] from cc (variation 0); the comment node
    // ends variation 0; B[bd] from cc again, in variation 1; W[db]; its end.
    assert_eq!(u32s(&b, "variation")[6..11], [0, 0, 0, 1, 1]);
    assert_eq!(u32s(&b, "move_number")[6..11], [0, 1, 2, 1, 2]);
    assert_eq!(
        moves(&b)[6..12],
        [
            (2, 2),
            (3, 3),
            (NO_MOVE, NO_MOVE),
            (3, 1),
            (1, 3),
            (NO_MOVE, NO_MOVE)
        ]
    );
    assert_eq!(boards(&b)[7], boards(&b)[9]);
    assert_eq!(u32s(&b, "variation")[11], 1);
}

#[test]
fn a_changed_or_missing_game_file_is_counted_and_the_rest_exported() {
    let (dir, db, _) = indexed(false);
    // The first game of a.sgf gets a move more; b.sgf goes away.
    let changed = GAMES.replacen(";B[ba])", ";B[ba];W[ee])", 1);
    std::fs::write(dir.path().join("a.sgf"), changed).unwrap();
    std::fs::remove_file(dir.path().join("b.sgf")).unwrap();
    let (s, bytes) = export_bytes(Input::open(&db).unwrap(), &ExportOptions::default());
    assert_eq!((s.games, s.games_failed, s.files_failed), (1, 2, 1));
    assert!(s.has_problems());
    assert_eq!(s.rows, 7 + 3);
    assert!(s.failures[0].contains("game 1: 6 moves on the main line, the index has 5"));
    assert!(
        s.failures[1].contains("b.sgf: cannot read"),
        "{:?}",
        s.failures
    );
    assert_eq!(read_back(&bytes).num_rows(), 10);
    // A game of another size where the index had a 5x5 one gives no rows.
    std::fs::write(
        dir.path().join("a.sgf"),
        GAMES.replacen("SZ[5]", "SZ[7]", 1),
    )
    .unwrap();
    let (s, _) = export_bytes(Input::open(&db).unwrap(), &ExportOptions::default());
    assert_eq!((s.games, s.rows), (1, 3));
    assert!(
        s.failures[0].contains("a 7x7 board, the index is 5x5"),
        "{:?}",
        s.failures
    );
}

fn record(hash: u64, to_play: Color, rows: &str, extra: Option<ExtraInfo>) -> PositionRecord {
    PositionRecord {
        id: PositionId {
            hash,
            tiebreak: (hash % 3) as u8,
            to_play,
        },
        board: Board::from_rows(rows.as_bytes(), Some(BoardSize::NINE)).unwrap(),
        extra,
    }
}

fn position_file(records: &[PositionRecord]) -> Vec<u8> {
    let mut w = PositionWriter::new(Vec::new());
    for r in records {
        w.write(r).unwrap();
    }
    w.into_inner()
}

fn nine(stones: &[(usize, char)]) -> String {
    let mut b = vec!['.'; 81];
    for &(i, c) in stones {
        b[i] = c;
    }
    b.into_iter().collect()
}

#[test]
fn a_position_file_gives_one_row_per_record_with_its_extra_info() {
    let extra = ExtraInfo {
        file_id: 7,
        variation: 2,
        move_number: 31,
    };
    let records = [
        record(1, Color::Black, &nine(&[]), None),
        record(
            u64::MAX,
            Color::White,
            &nine(&[(0, '#'), (80, 'O')]),
            Some(extra),
        ),
        record(5, Color::Black, &nine(&[(40, 'O')]), None),
    ];
    let bytes = position_file(&records);
    assert_eq!(bytes.len(), 92 * 3 + 8);
    let (s, out) = export_bytes(
        Input::Positions(Box::new(std::io::Cursor::new(bytes))),
        &ExportOptions::default(),
    );
    assert_eq!(
        (s.kind, s.rows, s.games, s.torn.clone()),
        (InputKind::Positions, 3, 0, None)
    );
    let b = read_back(&out);
    assert_eq!(
        b["record"].as_primitive::<UInt64Type>().values().to_vec(),
        [0, 1, 2]
    );
    assert_eq!(
        b["hash"].as_primitive::<UInt64Type>().values().to_vec(),
        [1, u64::MAX, 5]
    );
    assert_eq!(u8s(&b, "tiebreak"), [1, 0, 2]);
    assert_eq!(u8s(&b, "to_play"), [1, 2, 1]);
    assert_eq!(u8s(&b, "size"), [9, 9, 9]);
    assert_eq!(
        boards(&b),
        [nine(&[]), nine(&[(0, '#'), (80, 'O')]), nine(&[(40, 'O')])]
    );
    let col =
        |name: &str| -> Vec<Option<u32>> { b[name].as_primitive::<UInt32Type>().iter().collect() };
    assert_eq!(col("file_id"), [None, Some(7), None]);
    assert_eq!(col("variation"), [None, Some(2), None]);
    assert_eq!(col("move_number"), [None, Some(31), None]);
    assert_eq!(b.schema().metadata()[schema::META_KIND], "positions");
}

#[test]
fn a_torn_last_record_is_reported_and_a_bad_one_is_an_error_with_its_place() {
    let records = [
        record(1, Color::Black, &nine(&[]), None),
        record(2, Color::White, &nine(&[(3, '#')]), None),
    ];
    let mut bytes = position_file(&records);
    bytes.extend_from_slice(&position_file(&records)[..50]);
    let (s, out) = export_bytes(
        Input::Positions(Box::new(std::io::Cursor::new(bytes.clone()))),
        &ExportOptions::default(),
    );
    assert_eq!(s.rows, 2);
    assert!(s.has_problems());
    assert!(s.torn.unwrap().starts_with("record 2 (byte offset 184)"));
    assert_eq!(read_back(&out).num_rows(), 2);
    // A flag byte that is neither 0 nor 1.
    bytes.truncate(184);
    bytes[92 + 91] = 7;
    let mut out = Vec::new();
    let e = export(
        Input::Positions(Box::new(std::io::Cursor::new(bytes))),
        &ExportOptions::default(),
        &mut out,
        &|_| {},
    )
    .unwrap_err();
    assert!(matches!(e, ExportError::Positions(_)));
    assert!(
        e.to_string()
            .contains("record 1 (byte offset 92): flag byte 0x07"),
        "{e}"
    );
}

#[test]
fn inputs_are_told_apart_by_the_index_reader() {
    let (dir, db, _) = indexed(false);
    assert_eq!(Input::open(&db).unwrap().kind(), InputKind::Index);
    // One 9x9 record (92 bytes) is shorter than an index header: a position file.
    let one = dir.path().join("one.dat");
    std::fs::write(
        &one,
        position_file(&[record(1, Color::Black, &nine(&[]), None)]),
    )
    .unwrap();
    assert_eq!(Input::open(&one).unwrap().kind(), InputKind::Positions);
    let empty = dir.path().join("empty.dat");
    std::fs::write(&empty, b"").unwrap();
    let (s, _) = export_bytes(Input::open(&empty).unwrap(), &ExportOptions::default());
    assert_eq!(s.rows, 0);
    // An index of the old format, and a damaged index: errors, not position files.
    let mut old = std::fs::read(&db).unwrap();
    old[..8].copy_from_slice(b"KIFUPIX1");
    let old_path = dir.path().join("old.kpx");
    std::fs::write(&old_path, &old).unwrap();
    let e = Input::open(&old_path).unwrap_err();
    assert!(e.to_string().contains("rebuild it"), "{e}");
    let torn = dir.path().join("torn.kpx");
    let full = std::fs::read(&db).unwrap();
    std::fs::write(&torn, &full[..full.len() - 10]).unwrap();
    let e = Input::open(&torn).unwrap_err();
    assert!(e.to_string().contains("not a kifu position index"), "{e}");
    let e = Input::open(&dir.path().join("missing")).unwrap_err();
    assert!(e.to_string().contains("missing: cannot open"), "{e}");
}

#[test]
fn row_groups_are_bounded_and_every_compression_reads_back() {
    let records: Vec<PositionRecord> = (0..10)
        .map(|i| record(i, Color::Black, &nine(&[(i as usize, '#')]), None))
        .collect();
    let bytes = position_file(&records);
    for compression in [Compression::Zstd, Compression::Snappy, Compression::None] {
        let opts = ExportOptions {
            compression,
            row_group_rows: 3,
            batch_rows: 2,
            ..ExportOptions::default()
        };
        let (s, out) = export_bytes(
            Input::Positions(Box::new(std::io::Cursor::new(bytes.clone()))),
            &opts,
        );
        assert_eq!((s.rows, s.row_groups), (10, 4));
        let file = SerializedFileReader::new(bytes::Bytes::from(out.clone())).unwrap();
        let meta = file.metadata();
        assert_eq!(meta.num_row_groups(), 4);
        let kv = meta.file_metadata().key_value_metadata().unwrap();
        let kind = kv.iter().find(|k| k.key == schema::META_KIND).unwrap();
        assert_eq!(kind.value.as_deref(), Some("positions"));
        assert!(meta.row_groups().iter().all(|g| g.num_rows() <= 3));
        // No statistics for the board cells, statistics for the other columns.
        for c in meta.row_group(0).columns() {
            let cells = c.column_path().string() == "board.list.item";
            assert_eq!(c.statistics().is_none(), cells, "{}", c.column_path());
        }
        let b = read_back(&out);
        assert_eq!(
            b["hash"].as_primitive::<UInt64Type>().values().to_vec(),
            (0..10).collect::<Vec<u64>>()
        );
    }
}

/// A writer that fails once it has taken `left` bytes (a full disk).
struct Full {
    left: usize,
}

impl Write for Full {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.left {
            return Err(std::io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_output_is_the_error_reported() {
    let records: Vec<PositionRecord> = (0..5000)
        .map(|i| record(i, Color::White, &nine(&[((i % 81) as usize, 'O')]), None))
        .collect();
    let bytes = position_file(&records);
    let opts = ExportOptions {
        row_group_rows: 100,
        batch_rows: 100,
        ..ExportOptions::default()
    };
    let e = export(
        Input::Positions(Box::new(std::io::Cursor::new(bytes))),
        &opts,
        &mut Full { left: 1000 },
        &|_| {},
    )
    .unwrap_err();
    assert!(matches!(e, ExportError::Io(_)), "{e:?}");
    assert_eq!(e.to_string(), "disk full");
}

#[test]
fn progress_counts_every_unit() {
    let (_dir, db, _) = indexed(true);
    let done = std::sync::atomic::AtomicU64::new(0);
    let tick = |n: u64| {
        done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    };
    let mut out = Vec::new();
    export(
        Input::open(&db).unwrap(),
        &ExportOptions::default(),
        &mut out,
        &tick,
    )
    .unwrap();
    assert_eq!(done.into_inner(), 3);
    let records: Vec<PositionRecord> = (0..5000)
        .map(|i| record(i, Color::Black, &nine(&[]), None))
        .collect();
    let done = std::sync::atomic::AtomicU64::new(0);
    let tick = |n: u64| {
        done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    };
    let input = Input::Positions(Box::new(std::io::Cursor::new(position_file(&records))));
    export(input, &ExportOptions::default(), &mut Vec::new(), &tick).unwrap();
    assert_eq!(done.into_inner(), 5000);
}
