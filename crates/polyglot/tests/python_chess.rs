//! Differential test against python-chess (`pip install chess`): the key of every position
//! of a deterministic sample of the PGN corpus, and the entries python-chess's
//! `chess.polyglot` reader finds for those positions in performance.bin.
//!
//! Sample (bounded so the test takes seconds): every 4th game of Fischer.pgn, every 60th of
//! Carlsen.pgn, Tal.pgn and 2moves_v2.pgn, the first 4 games of one TCEC superfinal, and
//! the standard-chess edge cases. FENs are written with the en-passant square whenever a
//! pawn just moved two squares, since Polyglot hashes pseudo-legal en passant.

use kifu_polyglot::shakmaty::Position;
use kifu_polyglot::{key, key_after, parse_move, position_from_fen, Book};
use std::path::PathBuf;
use std::process::Command;

const SCRIPT: &str = r#"
import sys, chess, chess.pgn, chess.polyglot
corpus, = sys.argv[1:]
sample = [("pgn/Fischer.pgn", 4, None), ("pgn/Carlsen.pgn", 60, None), ("pgn/Tal.pgn", 60, None),
          ("pgn/2moves_v2.pgn", 60, None), ("pgn/tcec/TCEC_Season_10_-_Superfinal.pgn", 1, 4)]
import glob, os
for f in sorted(glob.glob(os.path.join(corpus, "pgn/edge-cases/*.pgn"))):
    sample.append((os.path.relpath(f, corpus), 1, None))
book = chess.polyglot.open_reader(os.path.join(corpus, "books/performance.bin"))
out = sys.stdout
for rel, every, limit in sample:
    with open(os.path.join(corpus, rel), encoding="utf-8-sig", errors="replace") as fh:
        n = 0
        while True:
            if limit is not None and n >= limit:
                break
            if n % every:
                n += 1
                if chess.pgn.skip_game(fh):
                    continue
                break
            game = chess.pgn.read_game(fh)
            if game is None:
                break
            n += 1
            if (n - 1) % every:
                continue
            if game.errors or game.headers.get("Variant", "Standard").lower() not in ("standard", "normal"):
                continue
            board = game.board()
            if board.chess960:
                continue
            out.write("G\t%s\t%d\t%s\n" % (rel, n, board.fen()))
            moves = list(game.mainline_moves())
            if not all(moves):  # stop at a null move ("--"), which Polyglot books cannot hold
                moves = moves[:[bool(m) for m in moves].index(False)]
            for i in range(len(moves) + 1):
                found = " ".join("%s:%d:%d" % (e.move.uci(), e.weight, e.learn) for e in book.find_all(board))
                nxt = moves[i].uci() if i < len(moves) else "-"
                out.write("P\t%s\t%016x\t%s\t%s\n" % (board.fen(en_passant="fen"), chess.polyglot.zobrist_hash(board), nxt, found))
                if i < len(moves):
                    board.push(moves[i])
"#;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/polyglot")
}

#[test]
fn keys_and_lookups_match_python_chess() {
    let out = match Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(corpus())
        .output()
    {
        Ok(o) if o.status.success() => o,
        other => {
            let why = match other {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "python3 with chess needed (pip install chess): {why}"
            );
            eprintln!("skipping: python3 with chess is not available: {why}");
            return;
        }
    };
    let text = String::from_utf8(out.stdout).unwrap();
    let book = Book::open(corpus().join("books/performance.bin")).unwrap();
    let (mut games, mut positions, mut found) = (0, 0, 0);
    let mut pos = None;
    let mut running_key = 0u64;
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[0] == "G" {
            games += 1;
            let p = position_from_fen(f[3]).unwrap();
            running_key = key(&p);
            pos = Some(p);
            continue;
        }
        let (fen, want_key, next, entries) =
            (f[1], u64::from_str_radix(f[2], 16).unwrap(), f[3], f[4]);
        let p = pos.as_mut().expect("a game line first");
        // The key from the replayed position, the incremental key and the key from the FEN.
        assert_eq!(key(p), want_key, "{fen}");
        assert_eq!(running_key, want_key, "incremental key at {fen}");
        assert_eq!(
            key(&position_from_fen(fen).unwrap()),
            want_key,
            "from FEN {fen}"
        );
        // python-chess hides weight-0 entries and shows castling as e1g1.
        let ours: Vec<String> = book
            .lookup(want_key)
            .filter(|e| e.weight >= 1)
            .map(|e| {
                format!(
                    "{}:{}:{}",
                    e.raw_move
                        .to_uci(p)
                        .unwrap_or_else(|| e.raw_move.to_raw_uci()),
                    e.weight,
                    e.learn
                )
            })
            .collect();
        assert_eq!(ours.join(" "), entries, "entries at {fen}");
        found += usize::from(!entries.is_empty());
        positions += 1;
        if next != "-" {
            let m = parse_move(p, next).unwrap_or_else(|e| panic!("{next} at {fen}: {e}"));
            running_key = key_after(p, running_key, m).unwrap_or(0);
            p.play_unchecked(m);
            if running_key == 0 {
                running_key = key(p);
            }
        }
    }
    assert!(games > 500, "{games} games");
    assert!(positions > 20_000, "{positions} positions");
    assert!(found > 1000, "only {found} positions found in the book");
    eprintln!("{games} games, {positions} positions, {found} found in performance.bin");
}
