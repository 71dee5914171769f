//! Parses every .sgf file under a folder N times in memory and prints MB/s
//! (parse only: files are read first). `cargo run --release --example parse_speed -- DIR [N]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("folder");
    let n: usize = args.next().map_or(3, |s| s.parse().unwrap());
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
                files.push(std::fs::read(&p).unwrap());
            }
        }
    }
    let bytes: usize = files.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..n {
        let t = std::time::Instant::now();
        nodes = 0;
        for f in &files {
            nodes += kifu_sgf::Collection::parse(f).collection.node_count();
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{} files, {bytes} bytes, {nodes} nodes: best {best:.4} s = {:.1} MB/s",
        files.len(),
        bytes as f64 / 1e6 / best
    );
}
