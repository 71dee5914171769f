//! ASCII positions (the `parse_position_file` input): any bytes, any size, no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&n, text)) = data.split_first() else {
        return;
    };
    if let Ok(size) = kifu_go::BoardSize::new(u32::from(n % 24) + 2) {
        if let Ok(positions) = kifu_posdb::ascii::parse_ascii_positions(text, size) {
            for (board, _) in positions {
                assert_eq!(board.size(), size);
            }
        }
    }
});
