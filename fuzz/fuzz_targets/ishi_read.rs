//! Any bytes: reading, validating, writing and converting an Ishi file never panic; writing
//! what was read and reading it again gives the same document; Ishi -> SGF -> Ishi gives it back
//! when the file has no location off the board.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = kifu_ishi::check(data);
    for d in &parsed.diagnostics {
        let _ = d.to_string();
    }
    let doc = parsed.document;
    let text = kifu_ishi::write(&doc);
    let again = kifu_ishi::read(text.as_bytes());
    assert_eq!(again.document, doc, "write/read changed the document:\n{text}");
    let sgf = kifu_ishi::to_sgf(&doc);
    let sgf_text = kifu_sgf::write(&sgf.collection);
    let reparsed = kifu_sgf::Collection::parse(sgf_text.as_bytes());
    let back = kifu_ishi::from_sgf(&reparsed.collection);
    let _ = kifu_ishi::write(&back.document);
    if sgf.diagnostics.is_empty() && !parsed.diagnostics.iter().any(|d| d.is_error()) {
        assert_eq!(back.document, doc, "Ishi -> SGF -> Ishi changed the document:\n{sgf_text}");
    }
});
