use super::*;

#[test]
fn tree_navigation() {
    let p = Collection::parse(b"(;FF[4]SZ[9];B[aa](;W[bb];B[cc])(;W[dd]))(;C[two])");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let c = &p.collection;
    assert_eq!(c.len(), 2);
    assert_eq!(c.node_count(), 6);
    let g = c.game(0).unwrap();
    assert_eq!(g.board_size(), Some((9, 9)));
    let main: Vec<String> = g
        .main_line()
        .filter_map(|n| {
            n.properties()
                .next()
                .map(|p| String::from_utf8_lossy(p.raw()).into_owned())
        })
        .collect();
    assert_eq!(main, ["[4]", "[aa]", "[bb]", "[cc]"]);
    let b = g.root().first_child().unwrap();
    let kids: Vec<_> = b.children().map(|n| n.get("W").unwrap().raw()).collect();
    assert_eq!(kids, [b"[bb]", b"[dd]"]);
    let dd = b.children().nth(1).unwrap();
    assert_eq!(dd.path(), vec![0, 1]);
    assert_eq!(dd.parent().unwrap(), b);
    assert_eq!(c.game(1).unwrap().root().text("C").as_deref(), Some("two"));
}

#[test]
fn repaired_values_live_after_the_text() {
    let p = Collection::parse(b"(;C[a [b] c];B[aa])");
    let root = p.collection.game(0).unwrap().root();
    assert_eq!(root.get("C").unwrap().raw(), b"[a [b\\] c]");
    assert_eq!(root.text("C").as_deref(), Some("a [b] c"));
}

#[test]
fn unknown_ids_are_interned() {
    let p = Collection::parse(b"(;MULTIGOGM[1]XX[y])");
    let root = p.collection.game(0).unwrap().root();
    let ids: Vec<&str> = root.properties().map(|p| p.id()).collect();
    assert_eq!(ids, ["MULTIGOGM", "XX"]);
    assert!(root.get("XX").unwrap().info().is_none());
}
