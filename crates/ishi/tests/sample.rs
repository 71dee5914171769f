//! The spec's Section 7 sample (`testspec.go`): every event, variation, mark, comment and user
//! block accounted for; validation clean; exact SGF; round trips.

use kifu_ishi::*;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn sample() -> Vec<u8> {
    std::fs::read(dir().join("../../../shared/corpus/ishi/testspec.go")).expect("the corpus sample")
}

/// Lines of the file whose first word is `kw` (outside blocks, the sample has no such text).
fn count_lines(kw: &str) -> usize {
    String::from_utf8(sample())
        .unwrap()
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case(kw))
        })
        .count()
}

fn all_notes(ev: &Event) -> Vec<&Notes> {
    let mut v = vec![&ev.notes];
    for it in &ev.items {
        match it {
            Item::Setup(s) => v.push(&s.notes),
            Item::Move(m) => v.push(&m.notes),
            Item::Diagram(d) => v.push(&d.notes),
            _ => {}
        }
    }
    v
}

#[test]
fn every_keyword_of_the_sample_is_accounted_for() {
    let p = check(&sample());
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let doc = &p.document;
    assert_eq!(doc.events.len(), 3);
    assert_eq!(doc.events.len(), count_lines("EVENT"));
    let titles: Vec<Option<&str>> = doc.events.iter().map(|e| e.title.as_deref()).collect();
    assert_eq!(
        titles,
        [
            Some(""),
            Some("Yose Problem 7"),
            Some("Problem 1 from Ishigure")
        ]
    );
    assert_eq!(
        doc.events[0].remarks,
        [
            "testspec.go",
            "Three-event SF file for illustration and testing"
        ]
    );
    let moves: usize = doc.events.iter().map(|e| e.moves().count()).sum();
    assert_eq!(moves, count_lines("B") + count_lines("W"));
    assert_eq!(moves, 110);
    let main: Vec<usize> = doc.events.iter().map(|e| e.main_line().count()).collect();
    assert_eq!(main, [58, 31, 6]);
    let vars: usize = doc
        .events
        .iter()
        .flat_map(|e| &e.items)
        .filter(|i| matches!(i, Item::BeginVar(_)))
        .count();
    assert_eq!(vars, count_lines("VAR"));
    let markers: Vec<Option<&str>> = doc.events[2]
        .items
        .iter()
        .filter_map(|i| match i {
            Item::BeginVar(m) => Some(m.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(markers, [Some("8"), None, Some("8"), Some("7"), None, None]);
    let notes: Vec<&Notes> = doc.events.iter().flat_map(all_notes).collect();
    let comments: usize = notes.iter().map(|n| n.comments.len()).sum();
    assert_eq!(comments, count_lines("COM"));
    let users: Vec<&UserBlock> = notes.iter().flat_map(|n| &n.users).collect();
    assert_eq!(users.len(), count_lines("USER"));
    assert_eq!(users[0].data, "Print-Diagram 1 of 10");
    // USER lines are opaque: "MARK All" inside is not a mark.
    assert_eq!(users[0].lines[0], "MARK All");
    assert_eq!(
        users[1].lines,
        [
            "Some user data here.",
            "More user data.",
            "Last line of user data."
        ]
    );
    let prisoners: usize = notes.iter().map(|n| n.prisoners.len()).sum();
    assert_eq!(prisoners, 17);
    let marks: Vec<String> = notes
        .iter()
        .flat_map(|n| &n.marks)
        .map(|m| format!("{}{m}", if m.is_unmark() { "-" } else { "" }))
        .collect();
    // Item by item: Yose #1-2; Problem 1: B 1 Q12 (7 + 6), two M7, ALL / UNMARK #6 / \t@L8,
    // #1 R9 P9 X@R10, P9, ALL a@K6, the diagram's 10 + 7 (the MARK inside USER is not one).
    assert_eq!(marks.len(), 1 + 13 + 2 + 3 + 4 + 1 + 2 + 17);
    assert_eq!(&marks[..1], ["#1-2"]);
    assert!(marks.join(" ").contains("ALL -#6 \\t@L8"), "{marks:?}");
    let diagram = doc.events[2]
        .items
        .iter()
        .find_map(|i| match i {
            Item::Diagram(d) => Some(d),
            _ => None,
        })
        .unwrap();
    assert_eq!(diagram.region, Region::Board);
    assert_eq!(diagram.notes.hides.len(), 10);
    assert_eq!(diagram.notes.marks.len(), 17);
    // The Yose problem's header.
    let h = &doc.events[1].header;
    assert_eq!(h.source.len(), 3);
    assert_eq!(h.komi, Some(0.0));
    assert_eq!(h.black.as_deref(), Some("Haruyama 6-dan"));
    assert_eq!(doc.events[1].board_size, Some(10));
    let setup = match &doc.events[1].items[0] {
        Item::Setup(s) => s,
        other => panic!("{other:?}"),
    };
    assert_eq!((setup.black.len(), setup.white.len()), (31, 31));
    assert_eq!(setup.notes.comments.len(), 1);
}

#[test]
fn writing_and_reading_again_gives_an_equal_document() {
    let doc = read(&sample()).document;
    let text = write(&doc);
    assert_eq!(read(text.as_bytes()).document, doc);
    // LF-only input reads the same.
    let lf = String::from_utf8(sample()).unwrap().replace("\r\n", "\n");
    assert_eq!(read(lf.as_bytes()).document, doc);
}

#[test]
fn the_sample_converts_to_the_expected_sgf_and_back() {
    let doc = read(&sample()).document;
    let sgf = to_sgf(&doc);
    assert!(sgf.diagnostics.is_empty(), "{:?}", sgf.diagnostics);
    let text = kifu_sgf::write(&sgf.collection);
    let expected = std::fs::read_to_string(dir().join("tests/data/testspec.sgf")).unwrap();
    assert_eq!(text, expected);
    // kifu-sgf reads it without errors (private properties only warn).
    let parsed = kifu_sgf::Collection::parse(text.as_bytes());
    assert!(!parsed.has_errors());
    let errors: Vec<_> = kifu_sgf::convert::check(&parsed.collection)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let back = from_sgf(&parsed.collection);
    assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
    assert_eq!(back.document, doc);
}
