//! Ishi files with deep and long `VAR` structures, built from the bytes as a list of lines with
//! repeat counts (one byte can open thousands of variations): checking, writing, reading back and
//! converting never panic, and the diagnostics stay capped, with at most one note, last, that
//! is an error when it counts any error.
#![no_main]
use libfuzzer_sys::fuzz_target;

const LINES: [&str; 14] = [
    "VAR",
    "VAR a",
    "VAR 10",
    "ENDVAR",
    "B 1 Q3",
    "W 2 D4",
    "B 3 Q3",
    "W 2 R16",
    "SETUP B D4 Q16 W C3",
    "DIAGRAM",
    "PRISONER #1",
    "COM x\nENDCOM",
    "MARK 1@Q3 \\t@D4",
    "EVENT e",
];

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    for pair in data.chunks(2) {
        let line = LINES[usize::from(pair[0]) % LINES.len()];
        // High repeat counts are rare but reach past the diagnostic cap.
        let times = match pair.get(1) {
            None => 1,
            Some(&r) if r >= 250 => usize::from(r - 249) * 4000,
            Some(&r) => usize::from(r % 8) + 1,
        };
        for _ in 0..times {
            text.push_str(line);
            text.push('\n');
        }
    }
    let parsed = kifu_ishi::check(text.as_bytes());
    let ds = &parsed.diagnostics;
    assert!(ds.len() <= kifu_ishi::DiagnosticSink::DEFAULT_LIMIT + 1);
    let notes: Vec<usize> = (0..ds.len())
        .filter(|&i| ds[i].code == kifu_ishi::Code::TooManyProblems)
        .collect();
    assert!(notes.len() <= 1 && notes.iter().all(|&i| i + 1 == ds.len()));
    if let Some(&i) = notes.first() {
        assert_eq!(ds.len(), kifu_ishi::DiagnosticSink::DEFAULT_LIMIT + 1);
        let note = &ds[i];
        let counts_errors = !note.message.ends_with(" (0 of them errors)");
        assert_eq!(note.is_error(), counts_errors, "{note}");
    }
    let doc = parsed.document;
    let written = kifu_ishi::write(&doc);
    let again = kifu_ishi::read(written.as_bytes());
    assert_eq!(again.document, doc, "write/read changed the document");
    let sgf = kifu_ishi::to_sgf(&doc);
    assert!(sgf.diagnostics.len() <= kifu_ishi::DiagnosticSink::DEFAULT_LIMIT + 1);
    let sgf_text = kifu_sgf::write(&sgf.collection);
    let reparsed = kifu_sgf::Collection::parse(sgf_text.as_bytes());
    let back = kifu_ishi::from_sgf(&reparsed.collection);
    assert!(back.diagnostics.len() <= kifu_ishi::DiagnosticSink::DEFAULT_LIMIT + 1);
});
