//! Any bytes: parsing, checking and converting never panic, and every
//! diagnostic has a place inside the text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = kifu_sgf::Collection::parse(data);
    let text_len = parsed.collection.text().len();
    for d in &parsed.diagnostics {
        if let Some(off) = d.offset {
            assert!(off <= text_len);
            assert!(d.line >= 1 && d.column >= 1);
        }
    }
    let _ = kifu_sgf::convert::check(&parsed.collection);
    let converted = kifu_sgf::convert::to_ff4(&parsed.collection);
    let _ = kifu_sgf::write(&converted.collection);
    // Walk everything the typed accessors can decode.
    for g in parsed.collection.games() {
        let (c, r) = g.board_size().unwrap_or((19, 19));
        for n in g.nodes() {
            for p in n.properties() {
                for v in p.values() {
                    let _ = (v.text(), v.simple_text(), v.number(), v.real(), v.points(), v.move_for(c, r), v.size());
                }
            }
        }
    }
});
