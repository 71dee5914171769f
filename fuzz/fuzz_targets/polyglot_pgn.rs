//! Any bytes as PGN through make-book's reader, in both modes; nothing may panic or hang.
#![no_main]
use kifu_polyglot::make::PgnReader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for strict in [false, true] {
        let mut r = PgnReader::new(data);
        let mut n = 0;
        while let Ok(Some(g)) = r.next_game(strict) {
            for i in 0..g.moves.len() {
                let _ = g.mv(i);
            }
            n += 1;
            if n > 10_000 || (strict && g.error.is_some()) {
                break;
            }
        }
    }
});
