//! SGF -> Ishi on long lines: many games (some not Go, some with data Ishi cannot hold, some
//! with multi-byte text) on one line, built from the bytes with repeat counts. Converting never
//! panics, keeps the diagnostics capped, and `LineIndex::line_col` (which gives the diagnostics
//! their places) agrees with counting characters from the line start at every game.
#![no_main]
use kifu_sgf::{Collection, LineIndex};
use libfuzzer_sys::fuzz_target;

const GAMES: [&str; 8] = [
    "(;SZ[19];B[aa];W[bb])",
    "(;SZ[9]N[x];B[cc](;W[dd])(;W[ee]))",
    "(;GM[2]SZ[8])",
    "(;SZ[19]C[碁 é 🀄];B[pd])",
    "(;SZ[25]B[aa])",
    "(;SZ[19]AB[aa][bb]AE[aa];W[cc])",
    "\r\n",
    "(;SZ[13]TR[aa]LB[bb:long label];B[cc]BM[1])",
];

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    for pair in data.chunks(2) {
        let game = GAMES[usize::from(pair[0]) % GAMES.len()];
        let times = match pair.get(1) {
            None => 1,
            Some(&r) if r >= 250 => usize::from(r - 249) * 3000,
            Some(&r) => usize::from(r % 8) + 1,
        };
        for _ in 0..times {
            text.push_str(game);
        }
    }
    let parsed = Collection::parse(text.as_bytes());
    let coll = &parsed.collection;
    let r = kifu_ishi::from_sgf(coll);
    assert!(r.diagnostics.len() <= kifu_ishi::DiagnosticSink::DEFAULT_LIMIT + 1);
    let _ = kifu_ishi::write(&r.document);
    let t = coll.text();
    let idx = LineIndex::new(t);
    let roots: Vec<usize> = coll.games().map(|g| g.root().offset()).collect();
    // The naive count costs the line's length: check the first and last games only.
    let picked = roots.iter().take(20).chain(roots.iter().rev().take(20));
    for &off in picked.chain([0, t.len()].iter()) {
        let start = t[..off]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1);
        let line = 1 + t[..start]
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && t.get(i + 1) != Some(&b'\n')))
            .count();
        let col = 1 + t[start..off]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count();
        assert_eq!(
            idx.line_col(t, off),
            (line as u32, col as u32),
            "offset {off}"
        );
    }
});
