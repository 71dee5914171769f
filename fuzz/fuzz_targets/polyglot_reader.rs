//! Any bytes as a book: open, look up, iterate, check, repair, merge; nothing may panic.
#![no_main]
use kifu_polyglot::{check, merge, repair, Book, DuplicatePolicy, MergeStrategy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = check(data, 10);
    let _ = report.is_ok();
    if let Ok((fixed, _)) = repair(data, DuplicatePolicy::Sum) {
        let book = Book::from_bytes(&fixed[..]).expect("a repaired book opens");
        let _ = merge(&[book], &MergeStrategy::Sum);
    }
    if let Ok(book) = Book::from_bytes(data) {
        let _ = book.header();
        for e in book.entries().take(64) {
            assert!(book.lookup(e.key).any(|f| f == e));
            let _ = e.raw_move.to_raw_uci();
        }
    }
});
