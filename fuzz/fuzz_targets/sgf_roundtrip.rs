//! Any bytes: parse -> write -> parse gives the same tree (CA values aside,
//! which the writer sets to UTF-8), and conversion to FF[4] is a fixed point.
#![no_main]
use libfuzzer_sys::fuzz_target;

fn dump(c: &kifu_sgf::Collection) -> Vec<String> {
    let mut out = Vec::new();
    for g in c.games() {
        out.push("game".to_string());
        for n in g.nodes() {
            let mut line = format!("{:?}:", n.parent().map(|p| p.index()));
            for p in n.properties() {
                line.push_str(p.id());
                if p.id() == "CA" {
                    continue;
                }
                for v in p.values() {
                    line.push('[');
                    line.push_str(&String::from_utf8_lossy(v.raw()));
                    line.push(']');
                }
            }
            out.push(line);
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let first = kifu_sgf::Collection::parse(data);
    let text = kifu_sgf::write(&first.collection);
    let second = kifu_sgf::Collection::parse(text.as_bytes());
    assert_eq!(dump(&first.collection), dump(&second.collection), "{text}");

    let once = kifu_sgf::write(&kifu_sgf::convert::to_ff4(&first.collection).collection);
    let again = kifu_sgf::Collection::parse(once.as_bytes());
    let twice = kifu_sgf::write(&kifu_sgf::convert::to_ff4(&again.collection).collection);
    assert_eq!(once, twice);
});
