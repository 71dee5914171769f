use super::*;
use crate::{Pattern, Placement, Query};

/// Levels take whole units within three quarters of the limit, counted once made; the
/// cache gets the rest, and a clone starts with nothing made.
#[test]
fn the_budget_shares_its_limit_between_levels_and_the_cache() {
    let budget = Budget::default();
    assert_eq!(budget.cache_room(), DEFAULT_CACHE_BYTES);
    budget.set_limit(1000);
    assert_eq!(budget.take_levels(10_000, 100), 700);
    assert_eq!((budget.levels(), budget.cache_room()), (700, 300));
    assert_eq!(budget.take_levels(50, 25), 50);
    assert_eq!(budget.take_levels(500, 1), 0);
    assert_eq!(budget.cache_room(), 250);
    budget.set_limit(400);
    assert_eq!(budget.cache_room(), 0);
    let copy = budget.clone();
    assert_eq!((copy.limit(), copy.levels()), (400, 0));
    assert_eq!(copy.take_levels(10_000, 7), 294);
}

/// The head streamed is the bytes the names and count make (its length counted before),
/// and the checksum fed in pieces is that of those bytes at once; a varint's length is
/// what `put_varint` writes, at each byte boundary.
#[test]
fn the_head_is_streamed_as_its_bytes_and_length_say() {
    for v in [0, 1, 127, 128, 16_383, 16_384, 1 << 35, u64::MAX] {
        let mut b = Vec::new();
        put_varint(&mut b, v);
        assert_eq!(varint_len(v), b.len() as u64, "{v}");
    }
    let names: Vec<String> = (0..3000).map(|i| "x".repeat(i % 200)).collect();
    let mut out = Vec::new();
    let sum = write_head(&mut out, 9, (names.iter().map(Ok), 300), 1234).unwrap();
    let mut head = Vec::new();
    put_varint(&mut head, names.len() as u64);
    for n in &names {
        put_varint(&mut head, n.len() as u64);
        head.extend_from_slice(n.as_bytes());
    }
    put_varint(&mut head, 300);
    let fixed = MAGIC.len() + 4 + 8 + 8;
    assert_eq!(out[fixed..], head[..]);
    let body = u64::from_le_bytes(out[fixed - 8..fixed].try_into().unwrap());
    assert_eq!(body, head.len() as u64 + 1234);
    assert_eq!(sum.value(), Checksum::of(&head));
}

/// Games enough for several groups, with variations, setup and passes.
fn games() -> String {
    let mut sgf = String::new();
    for g in 0..100u32 {
        sgf.push_str(&format!("(;SZ[9]PB[b{g}]RE[B+{g}]"));
        if g % 5 == 0 {
            sgf.push_str("AB[ee]");
        }
        let mut taken = [false; 81];
        for m in 0..(g % 23) {
            let p = (g.wrapping_mul(2_654_435_761) ^ m.wrapping_mul(40_503)) % 81;
            if std::mem::replace(&mut taken[p as usize], true) {
                continue;
            }
            let (c, r) = (
                (b'a' + (p % 9) as u8) as char,
                (b'a' + (p / 9) as u8) as char,
            );
            sgf.push_str(&format!(";{}[{c}{r}]", if m % 2 == 0 { 'B' } else { 'W' }));
        }
        if g % 4 == 0 {
            sgf.push_str("(;B[aa];W[])(;B[ii])");
        }
        sgf.push(')');
    }
    sgf
}

fn built(dir: &Path) -> PatternIndex {
    let path = dir.join("games.sgf");
    std::fs::write(&path, games()).unwrap();
    let files = vec![crate::collection::CollectionFile {
        source: kifu_posdb::extract::Source::new(&path),
        ids: (0..100).map(Some).collect(),
    }];
    PatternIndex::build(&files)
}

/// Free patterns that every game holds, then two queries that walk few games of each
/// group: a stone at the centre (a fifth of the games have it from the root on), and one
/// player's games.
fn queries() -> Vec<Query> {
    let mut qs: Vec<Query> = ["#", "#.\n.O", "..\n.#", "O.\n.#"]
        .iter()
        .flat_map(|rows| {
            let mut q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
            let mut all = q.clone();
            all.variations = true;
            q.swap_colors = true;
            [q, all]
        })
        .collect();
    let mut centre = Query::new(
        Pattern::parse("#").unwrap(),
        Placement::At { col: 4, row: 4 },
    );
    centre.symmetries = false;
    qs.push(centre);
    let mut player = Query::new(Pattern::parse("#").unwrap(), Placement::Anywhere);
    player.filters.player = Some("b7".into());
    qs.push(player);
    qs
}

#[test]
fn opened_in_small_windows_and_searched_through_a_small_cache() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    assert!(idx.games.len() > 2 * GROUP);
    let path = dir.path().join("db.kpp");
    idx.save(&path, 9).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(idx.to_bytes(9).unwrap(), bytes);
    let want = idx.search_many(&queries(), crate::scan::Page::default(), None, None);
    assert!(want.iter().all(|a| a.games > 0), "{want:?}");
    // Windows smaller than a record: each game is read over several windows.
    for window in [1, 7, 100, 1 << 20] {
        let opened = open_windowed(&path, 9, window).unwrap().unwrap();
        assert!(opened == idx, "window {window}");
        assert!(opened
            .games
            .iter()
            .all(|g| matches!(g.cold(), ColdAt::File { .. })));
        // No cache, caches of about one and two groups, the default. The smaller ones
        // cannot hold every group: a game of a group walked little is read alone.
        for limit in [0, bytes.len() / 3, bytes.len() / 2, DEFAULT_CACHE_BYTES] {
            opened.set_cache_limit(limit);
            let sidecar = opened.sidecar.as_ref().unwrap();
            let alone = sidecar.alone.load(Ordering::Relaxed);
            let got = opened.search_many(&queries(), crate::scan::Page::default(), None, None);
            assert_eq!(got, want, "window {window}, cache {limit}");
            let read_alone = sidecar.alone.load(Ordering::Relaxed) > alone;
            assert_eq!(
                read_alone,
                limit < bytes.len(),
                "window {window}, cache {limit}"
            );
            let cache = &opened.sidecar.as_ref().unwrap().cache;
            let used = cache.used.load(Ordering::Relaxed);
            assert!(used <= limit, "{used} > {limit}");
            let held: usize = cache
                .slots
                .iter()
                .filter_map(|s| s.group.read().unwrap().as_ref().map(|g| g.bytes.len()))
                .sum();
            assert_eq!(used, held);
        }
        assert!(opened.failures().is_empty());
        // Saved again from its file: the same bytes.
        assert_eq!(opened.to_bytes(9).unwrap(), bytes);
    }
    // A damaged byte anywhere is refused, whatever the window.
    for at in [0, 20, 30, bytes.len() / 2, bytes.len() - 9, bytes.len() - 1] {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        std::fs::write(&path, &b).unwrap();
        assert!(open_windowed(&path, 9, 5).is_err(), "byte {at}");
    }
    // With the checksum made right, damage in the body is found by the checks of every
    // value, on the checker's thread as in memory: the same verdict as reading it whole,
    // and the first damaged game named alike.
    let end = bytes.len() - 8;
    let mut refused = 0;
    for at in (28..end).step_by(251) {
        let mut b = bytes.clone();
        b[at] ^= 0x21;
        let sum = Checksum::of(&b[28..end]);
        b[end..].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        let whole = PatternIndex::from_bytes(&b, 9);
        for window in [5, 1 << 20] {
            match (open_windowed(&path, 9, window), &whole) {
                (Ok(Some(opened)), Ok(Some(read))) => assert!(opened == *read, "byte {at}"),
                (Err(e), Err(why)) => {
                    refused += 1;
                    assert!(
                        e.to_string().contains(why.as_str()),
                        "byte {at}: {e} / {why}"
                    );
                }
                (got, want) => panic!("byte {at}, window {window}: {got:?} / {want:?}"),
            }
        }
    }
    assert!(refused > 0);
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let e = open_windowed(&path, 9, 5).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn a_sidecar_changed_in_place_is_a_failure_of_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let idx = built(dir.path());
    let path = dir.path().join("db.kpp");
    idx.save(&path, 9).unwrap();
    let opened = open(&path, 9).unwrap().unwrap();
    // Written in place (never by kifu): another length.
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.set_len(40).unwrap();
    drop(f);
    let got = opened.search_many(&queries(), crate::scan::Page::default(), None, None);
    assert_eq!(got.len(), queries().len());
    let failures = opened.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].path, path);
    assert!(
        failures[0].message.contains("changed since it was opened"),
        "{}",
        failures[0].message
    );
    assert!(opened.to_bytes(9).is_err());
}
