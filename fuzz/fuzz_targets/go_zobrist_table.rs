//! `zobrist_board_81.dat` parser: never panics; what it accepts round-trips through `to_text`.
#![no_main]
use kifu_go::ZobristTable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(table) = ZobristTable::parse(data) {
        let again = ZobristTable::parse(table.to_text().as_bytes()).expect("own output parses");
        assert_eq!(again, table);
    }
});
