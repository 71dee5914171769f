//! The spec's Section 7 sample, read, validated, written and converted.

use kifu_ishi::*;

fn sample() -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ishi/testspec.go");
    std::fs::read(p).expect("the corpus sample")
}

#[test]
fn explore() {
    let p = check(&sample());
    for d in &p.diagnostics {
        println!("{d}");
    }
    let sgf = to_sgf(&p.document);
    for d in &sgf.diagnostics {
        println!("{d}");
    }
    let text = kifu_sgf::write(&sgf.collection);
    println!("{text}");
    let parsed = kifu_sgf::Collection::parse(text.as_bytes());
    let back = from_sgf(&parsed.collection);
    for d in &back.diagnostics {
        println!("{d}");
    }
    assert_eq!(back.document, p.document);
}
