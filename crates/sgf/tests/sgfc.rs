//! SGFC 2.0's own test file: `test.sgf` with SGFC's output `test-output.txt`.
//! Every (line, message number) SGFC reports must be reported by kifu with the
//! same SGFC number at the same line, except the differences listed here.

mod common;
use kifu_sgf::{convert, Collection};
use std::collections::BTreeSet;

/// SGFC reports these and kifu-sgf alone does not: 39 and 58 need Go rules
/// (kifu-go reports them; `kifu sgf check` combines both, and
/// `crates/cli/tests/sgf.rs::check_matches_sgfc_on_its_test_file` checks the
/// combined output against SGFC exactly, with only 51 missing); 51 ("feature not
/// defined in FF\[1\]") is not checked.
const ONLY_SGFC: &[(u32, u16)] = &[(39, 39), (51, 51), (58, 58)];
/// kifu-sgf reports these and SGFC does not: SGFC corrects `TM[9 hours]` and
/// the free-text date into FF\[4\] values (error 15); kifu does not guess, it
/// deletes the unreadable TM (S014) and keeps and reports the date (S033).
const ONLY_KIFU: &[(u32, u16)] = &[(15, 14), (15, 33)];

#[test]
fn sgfc_test_file_findings_match() {
    let dir = common::corpus().join("sgf/conformance/sgfc/test-files");
    let expected_text = std::fs::read_to_string(dir.join("test-output.txt")).unwrap();
    let mut expected = BTreeSet::new();
    for line in expected_text.lines() {
        // "Line:8 Col:4 - Error 8 (critical): ..." or "Warning 72 (critical): ..."
        let (place, rest) = match line.strip_prefix("Line:") {
            Some(r) => {
                let (l, r) = r.split_once(' ').unwrap();
                (l.parse::<u32>().unwrap(), r.split_once(" - ").unwrap().1)
            }
            None => (0, line),
        };
        let mut words = rest.split_whitespace();
        if let (Some("Error" | "Warning"), Some(n)) = (words.next(), words.next()) {
            expected.insert((place, n.trim_end_matches(':').parse::<u16>().unwrap()));
        }
    }
    assert_eq!(expected.len(), 47);

    let parsed = Collection::parse(&std::fs::read(dir.join("test.sgf")).unwrap());
    let mut found = BTreeSet::new();
    for d in parsed
        .diagnostics
        .iter()
        .chain(convert::check(&parsed.collection).iter())
    {
        if let Some(n) = d.code.sgfc() {
            found.insert((d.line, n));
        }
    }
    let missing: Vec<_> = expected.difference(&found).copied().collect();
    let extra: Vec<_> = found.difference(&expected).copied().collect();
    assert_eq!(missing, ONLY_SGFC);
    assert_eq!(extra, ONLY_KIFU);
}

#[test]
fn strict_file_is_clean() {
    // SGFC: "Just calling 'sgfc strict.sgf' should yield no warnings or errors."
    let dir = common::corpus().join("sgf/conformance/sgfc/test-files");
    let parsed = Collection::parse(&std::fs::read(dir.join("strict.sgf")).unwrap());
    let all: Vec<_> = parsed
        .diagnostics
        .iter()
        .chain(convert::check(&parsed.collection).iter())
        .map(|d| d.to_string())
        .collect();
    assert!(all.is_empty(), "{all:?}");
}
