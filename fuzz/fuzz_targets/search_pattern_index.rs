//! Pattern index sidecars: any bytes read as one (the fingerprint taken from the bytes
//! themselves, and, when the last byte is even, the checksum made right, so mutations of a
//! real sidecar get past both to the records), then searches over what was accepted; errors
//! only, never a panic or an allocation beyond the input's size. The same bytes opened as a
//! file (read in small windows, cold parts left in the file) give the same verdict and the
//! same index.
#![no_main]
use kifu_search::index::PatternIndex;
use kifu_search::scan::Page;
use kifu_search::{Pattern, Placement, Query};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut fixed = data.to_vec();
    if data.len() >= 36 && data[data.len() - 1].is_multiple_of(2) {
        let end = data.len() - 8;
        let sum = kifu_search::index::sidecar_checksum(&data[28..end]);
        fixed[end..].copy_from_slice(&sum.to_le_bytes());
    }
    let data = &fixed[..];
    let fingerprint = data
        .get(12..20)
        .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    let read = PatternIndex::from_bytes(data, fingerprint);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.kpp");
    std::fs::write(&path, data).unwrap();
    let opened = PatternIndex::load(&path, fingerprint);
    assert_eq!(read.is_ok(), opened.is_ok(), "{read:?} {opened:?}");
    let (Ok(Some(index)), Ok(Some(opened))) = (read, opened) else {
        return;
    };
    assert!(index == opened);
    let mut queries = Vec::new();
    for (rows, placement) in [
        ("..\n.#", Placement::At { col: 0, row: 0 }),
        ("#O\n.*", Placement::Anywhere),
        ("...\n.x.", Placement::Edge { side: kifu_search::Side::Top }),
    ] {
        if let Ok(p) = Pattern::parse(rows) {
            let mut q = Query::new(p, placement);
            q.variations = true;
            queries.push(q.clone());
            q.variations = false;
            q.counting = kifu_search::Counting::Placements;
            queries.push(q);
        }
    }
    // Filters go through the information's columns: text, dates, and a search narrowed by them.
    let filters = kifu_search::Filters {
        player: Some("e".into()),
        text: Some("1".into()),
        date_from: Some("2000".into()),
        ..Default::default()
    };
    if let Some(q) = queries.first_mut() {
        q.filters = filters.clone();
    }
    let answers = index.search_many(&queries, Page::default(), None, None);
    opened.set_cache_limit(4096);
    assert_eq!(answers, opened.search_many(&queries, Page::default(), None, None));
    // The dense prune reads every place of every game of the main line: the same answers.
    index.set_dense_prune(kifu_search::index::DensePrune::Always);
    assert_eq!(answers, index.search_many(&queries, Page::default(), None, None));
    let _ = index.filter_games(&filters, Page::default(), None);
});
