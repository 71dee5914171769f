//! Rules under arbitrary plays, forced plays, setup and passes: never panics, and the incremental
//! hashes always equal hashes recomputed from scratch.
#![no_main]
use kifu_go::{BoardSize, Color, Move, Point, Position, Rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&head, ops)) = data.split_first() else {
        return;
    };
    let Ok(size) = BoardSize::new(u32::from(head % 24) + 2) else {
        return;
    };
    let rules = Rules {
        suicide_allowed: head & 0x40 != 0,
        positional_superko: head & 0x80 != 0,
    };
    let mut pos = Position::with_rules(size, rules);
    for op in ops.chunks_exact(2) {
        let color = if op[0] & 1 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let p = Point::from_index(usize::from(op[1]) * 3 + usize::from(op[0] >> 6), size);
        match ((op[0] >> 1) & 3, p) {
            (0, Some(p)) => drop(pos.play(color, Move::Play(p))),
            (1, Some(p)) => drop(pos.play_forced(color, Move::Play(p))),
            (2, Some(p)) => drop(pos.setup(p, (op[0] & 8 != 0).then_some(color))),
            _ => drop(pos.play(color, Move::Pass)),
        }
    }
    assert_eq!(
        pos.hashes(),
        pos.zobrist().table().symmetric_hashes(&pos.board())
    );
});
