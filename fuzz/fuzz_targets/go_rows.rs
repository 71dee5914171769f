//! PositionDB rows parser: never panics; what it accepts round-trips through `to_rows`.
#![no_main]
use kifu_go::Board;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(board) = Board::from_rows(data, None) {
        let again =
            Board::from_rows(&board.to_rows(), Some(board.size())).expect("own output parses");
        assert_eq!(again, board);
    }
});
