//! Pattern search: any text as a pattern with any query options, searched over a small game;
//! a parse error or an answer whose counts add up, never a panic.
#![no_main]
use kifu_search::scan::{GameSource, Page, Scan};
use kifu_search::{GameInfo, Pattern, Placement, Query, SearchAnswer, Side};
use libfuzzer_sys::fuzz_target;

const GAME: &str = "(;SZ[9]RE[B+3]DT[2001];B[cc];W[gg];B[cg];W[gc];B[dd];W[];B[ee](;W[ef])(;W[fe];B[ff]))";

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(pattern) = Pattern::parse(text) else {
        return;
    };
    let placement = match flags % 4 {
        0 => Placement::Anywhere,
        1 => Placement::At {
            col: u32::from(flags >> 4),
            row: u32::from((flags >> 2) & 3),
        },
        2 => Placement::Edge {
            side: [Side::Top, Side::Bottom, Side::Left, Side::Right][usize::from(flags >> 6)],
        },
        _ => Placement::At { col: 0, row: 0 },
    };
    let mut q = Query::new(pattern, placement);
    q.symmetries = flags & 0x10 == 0;
    q.swap_colors = flags & 0x20 != 0;
    q.variations = flags & 0x40 != 0;
    let coll = kifu_sgf::Collection::parse(GAME.as_bytes()).collection;
    let mut scan = Scan::new(&q, Page { offset: 1, limit: 3 });
    for (i, g) in coll.games().enumerate() {
        let source = GameSource {
            id: i as u64,
            ..GameSource::default()
        };
        scan.game(&source, &GameInfo::from_game(&g), g);
    }
    let a = scan.finish(kifu_go::BoardSize::new(9).ok());
    let next: u64 = a.continuations.iter().map(|c| c.tally.count).sum::<u64>()
        + a.tenuki.count
        + a.passes.count
        + a.game_ends;
    assert_eq!(next, a.occurrences);
    assert!(a.games <= a.games_searched && a.games <= a.occurrences);
    assert!(a.matches.len() as u64 <= 3);
    let json = serde_json::to_string(&a).unwrap();
    let back: SearchAnswer = serde_json::from_str(&json).unwrap();
    assert_eq!(back.occurrences, a.occurrences);
});
