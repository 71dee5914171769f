//! Any bytes as a logical header and as pgheader command input; nothing may panic, and a
//! header kifu writes parses back to itself.
#![no_main]
use kifu_polyglot::header::{encode_records, logical_header, Header};
use kifu_polyglot::pgheader::{parse_args, run, Dialect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = Header::parse(data) {
        if let Ok(text) = h.to_text() {
            let again = Header::parse(&text).expect("kifu's own header parses");
            assert_eq!(again.variants, h.variants);
        }
    }
    let records = encode_records(data);
    let _ = logical_header(&kifu_polyglot::header_data(&records));
    let text = String::from_utf8_lossy(data);
    let args: Vec<&str> = text.split(' ').take(6).chain(["book.bin"]).collect();
    if let Ok(a) = parse_args(&args) {
        let _ = run(&a, Ok(data.to_vec()), Dialect::Kifu, "x");
        let _ = run(&a, Ok(data.to_vec()), Dialect::Pgheader, "x");
    }
});
