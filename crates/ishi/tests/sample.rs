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
    let out = write(&p.document);
    let again = read(out.as_bytes());
    assert_eq!(again.document, p.document);
    println!("{out}");
}
