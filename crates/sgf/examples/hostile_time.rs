//! Times parse / check / convert on a hostile node (debugging aid).
fn main() {
    let mut s = String::from("(;FF[4];MA");
    for _ in 0..200_000 {
        s.push_str("[aa]");
    }
    for _ in 0..50_000 {
        s.push_str("C[x]B[zz]");
    }
    s.push(')');
    let t = std::time::Instant::now();
    let p = kifu_sgf::Collection::parse(s.as_bytes());
    println!("parse {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let d = kifu_sgf::convert::check(&p.collection);
    println!("check {:?} {}", t.elapsed(), d.len());
    let t = std::time::Instant::now();
    let c = kifu_sgf::convert::to_ff4(&p.collection);
    println!("convert {:?} {}", t.elapsed(), c.collection.node_count());
}
