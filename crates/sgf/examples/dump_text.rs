//! Prints the charset and the decoded text values of SGF files (a debugging aid).
fn main() {
    for a in std::env::args().skip(1) {
        let p = kifu_sgf::parse_file(&a).expect("readable file");
        let c = &p.collection;
        println!(
            "{a}: charset {} games {} diags {:?}",
            c.charset(),
            c.len(),
            p.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
        );
        for g in c.games() {
            for n in g.nodes().take(3) {
                for pr in n.properties() {
                    if matches!(pr.id(), "C" | "GN" | "PB" | "PW" | "N" | "EV" | "CA") {
                        let t = pr.value().map(|v| v.simple_text()).unwrap_or_default();
                        println!("  {}: {}", pr.id(), t.chars().take(60).collect::<String>());
                    }
                }
            }
        }
    }
}
