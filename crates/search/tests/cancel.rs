//! A search whose caller raised the cancel flag (a server's client went away) gives up and says
//! so; with the flag down it answers as `search` does.

use kifu_go::BoardSize;
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, IndexOptions};
use kifu_search::scan::Page;
use kifu_search::{Database, Pattern, Placement, Query};
use std::sync::atomic::AtomicBool;

#[test]
fn a_raised_flag_stops_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.sgf");
    std::fs::write(
        &g,
        "(;GM[1]SZ[9]RE[B+R];B[cc];W[gg];B[cg])(;GM[1]SZ[9]RE[W+1];B[cc];W[gc])",
    )
    .unwrap();
    let mut bytes = Vec::new();
    let opts = IndexOptions::new(BoardSize::new(9).unwrap());
    build_index(&[Source::new(&g)], &opts, &mut bytes, &|| {}).unwrap();
    let db_path = dir.path().join("g.kpx");
    std::fs::write(&db_path, bytes).unwrap();
    let db = Database::open(&db_path).unwrap();
    let q = Query::new(
        Pattern::parse("...\n...\n..#").unwrap(),
        Placement::At { col: 0, row: 0 },
    );
    let page = Page::default();
    let raised = AtomicBool::new(true);
    assert!(db.search_cancellable(&q, page, false, &raised).is_none());
    let down = AtomicBool::new(false);
    let found = db.search_cancellable(&q, page, false, &down).unwrap();
    assert_eq!(found.answer, db.search(&q, page, false).answer);
    assert_eq!(found.answer.games, 2);
}
