//! The tests of a game's entry: its bitmaps made flat, its nodes and main line as built from
//! the replay, and its Dyer signature from the replay's steps against the tree's.

use super::*;
use crate::index::times::MainLine;
use kifu_go::replay::replay_game;
use kifu_go::{Color, Move, PlayedMove};

/// `flats` puts bit `c` of row `r` at point `r * n + c`, for every side up to 25, and
/// leaves the bits past a row's `n` out.
#[test]
fn flat_bitmaps_are_the_rows_bit_by_bit() {
    let mut rng = super::super::xorshift();
    for n in 1..=25usize {
        let rows: Vec<[u32; 2]> = (0..n).map(|_| [rng() as u32, rng() as u32]).collect();
        let got = flats(n, |r| rows[r]);
        for (k, bits) in got.iter().enumerate() {
            for p in 0..64 * FLAT_WORDS {
                let want = p < n * n && rows[p / n][k] >> (p % n) & 1 != 0;
                assert_eq!(
                    bits[p / 64] >> (p % 64) & 1 != 0,
                    want,
                    "side {n}, point {p}"
                );
            }
        }
        assert_eq!(flat(n, |r| rows[r][1]), got[1]);
    }
}

/// Every node's board, as the replay has it (cells 0 empty, 1 black, 2 white), with its
/// move number, move and side to play.
type Replayed = (Vec<u8>, u32, Option<PlayedMove>, Color);

fn replayed(tree: kifu_sgf::GameTree<'_>) -> Vec<Replayed> {
    let opts = ReplayOptions {
        scope: Scope::AllVariations,
        ..ReplayOptions::default()
    };
    let mut nodes = Vec::new();
    let _ = replay_game(tree, &opts, |step: &Step<'_>| {
        let mut cells = vec![0u8; step.position.size().points()];
        step.position.write_cells(&mut cells);
        nodes.push((cells, step.move_number, step.mv, step.to_play));
    });
    nodes
}

/// The main line's shape is kept only for the lines the tables alone can count.
#[test]
fn plain_main_lines_are_told_apart() {
    let line = |nodes, passes| Some(MainLine::new(nodes, passes));
    let mid = |nodes, trailing, passes: &[u32]| {
        let mut l = MainLine::new(nodes, trailing);
        for (k, &p) in passes.iter().enumerate() {
            l.mid |= u64::from(p) << (16 * k);
        }
        Some(l)
    };
    let games = [
        // Captures, a point played again after its capture, trailing passes, variations.
        ("(;SZ[5];B[ba];W[aa];B[ab];W[dd];B[aa];W[];B[])", line(8, 2)),
        ("(;SZ[5]AB[ba][ab];W[cc](;B[dd])(;B[ee];W[aa]))", line(3, 0)),
        ("(;SZ[5])", line(1, 0)),
        // A stone played onto one of the other colour, a stone taken off by setup beside a
        // move (as a capture would): no point gets a stone but the move's.
        ("(;SZ[5];B[cc];W[cc];B[dd])", line(4, 0)),
        ("(;SZ[5];B[aa];W[bb]AE[aa])", line(3, 0)),
        // Passes before a play (up to four).
        ("(;SZ[5];B[ba];W[];B[ab])", mid(4, 0, &[2])),
        ("(;SZ[5];B[];W[];B[ab];W[];B[];W[])", mid(7, 3, &[1, 2])),
        (
            "(;SZ[5];B[];W[];B[ab];W[];B[];W[cc];B[])",
            mid(8, 1, &[1, 2, 4, 5]),
        ),
        // Nodes without a move or a change at the end: left out of the line.
        ("(;SZ[5];B[aa];W[bb];C[x]TB[cc];)", line(3, 0)),
        ("(;SZ[5];B[aa];W[];C[x])", line(3, 1)),
        ("(;SZ[5];C[x])", line(1, 0)),
        // Five passes before a play, a suicide, a move onto a stone of its colour, setup
        // after the root, a node without a move (before a move, or with a change), a move
        // in the root.
        ("(;SZ[5];B[];W[];B[ab];W[];B[];W[cc];B[];W[dd])", None),
        ("(;SZ[5];B[ba];W[cc];B[ab];W[aa])", None),
        ("(;SZ[5];B[cc];B[cc];W[dd])", None),
        ("(;SZ[5];B[aa];W[bb]AB[cc])", None),
        ("(;SZ[5];B[aa];AB[cc];W[bb])", None),
        ("(;SZ[5];B[aa];C[x];W[bb])", None),
        ("(;SZ[5];B[aa];W[bb];C[x];;B[cc])", None),
        ("(;SZ[5];B[aa];W[bb];AE[aa])", None),
        ("(;SZ[5]B[cc];W[dd])", None),
    ];
    for (sgf, want) in games {
        let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
        let entry = GameRecord::build(0, 0, 0, parsed.collection.games().next().unwrap());
        let cold = &entry.cold;
        let view = ColdView::parse(cold, entry.side, entry.times, entry.shift).unwrap();
        assert_eq!(view.times.unwrap().line, want, "{sgf}");
    }
}

#[test]
fn nodes_applied_along_their_parents_give_every_replayed_board() {
    // Captures of one stone and of a group, a suicide, a move onto a stone, setup (adding,
    // removing, over a stone) after moves, two moves in one node, passes, and variations
    // that capture before the line goes back up to their parent.
    let games = [
        "(;SZ[5];B[ba];W[aa];B[ab])",
        "(;SZ[5];B[ba];W[bb];B[ab];W[ca];B[cb];W[aa])",
        "(;SZ[5]AB[ba][ab];W[aa])",
        "(;SZ[5];B[cc];W[cc];B[dd])",
        "(;SZ[5];B[aa];W[bb]AE[aa]AB[ee];B[bb]AW[cc];W[dd]B[de])",
        "(;SZ[5];B[ba];W[];B[ab](;W[aa];B[bb])(;W[ca];B[aa](;W[bb])(;W[cb];B[db]))(;W[dd]))",
        "(;SZ[5];B[ab];W[ac];B[bb];W[bc];B[cb];W[cc];B[db];W[dc];B[eb];W[ec];B[ba];W[aa];B[ca])",
        // A move in the root (never a short play: it has no parent), a move number set
        // (the plays after it count from it), points past 511 (a short play's ten bits).
        "(;SZ[5]B[cc];W[dd];B[ee]MN[7];W[aa];B[bb])",
        "(;SZ[25];B[yy];W[ya];B[ay];W[xy];B[xx])",
    ];
    for sgf in games {
        let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
        let tree = parsed.collection.games().next().unwrap();
        let boards = replayed(tree);
        let entry = GameRecord::build(0, 0, 0, parsed.collection.games().next().unwrap());
        let cold = &entry.cold;
        let view = ColdView::parse(cold, entry.side, entry.times, entry.shift).unwrap();
        let (count, nodes) = view.nodes().unwrap();
        assert_eq!(count as usize, boards.len(), "{sgf}");
        let mut numbers = Vec::new();
        let points = u16::from(entry.side) * u16::from(entry.side);
        let mut reader = NodeReader::new(nodes, count, points, &mut numbers);
        let mut changes = Vec::new();
        let mut seen: Vec<Vec<u8>> = Vec::new();
        while let Some(node) = reader.next(&mut changes).unwrap() {
            let mut board = node
                .parent
                .map_or(vec![0; usize::from(points)], |p| seen[p as usize].clone());
            for &(q, s) in &changes {
                assert_ne!(board[usize::from(q)], s, "{sgf}: a change that is none");
                board[usize::from(q)] = s;
            }
            let (want, number, mv, to_play) = &boards[seen.len()];
            assert_eq!(&board, want, "{sgf}: node {}", seen.len());
            assert_eq!(node.move_number, *number, "{sgf}: node {}", seen.len());
            assert_eq!(node.to_play, *to_play, "{sgf}: node {}", seen.len());
            let n = u16::from(entry.side);
            let want_mv = mv.map(|pm| {
                let p = match pm.mv {
                    Move::Play(p) => Some(u16::from(p.row()) * n + u16::from(p.col())),
                    Move::Pass => None,
                };
                (pm.color, p)
            });
            assert_eq!(node.mv, want_mv, "{sgf}: node {}", seen.len());
            seen.push(board);
        }
        assert_eq!(seen.len(), boards.len());
    }
}

/// The signature [`GameBuilder`] makes from the replay's steps is the one
/// [`crate::dyer::signature`] reads from the tree.
fn signatures_agree(sgf: &[u8], name: &str) -> usize {
    let parsed = kifu_sgf::Collection::parse(sgf);
    let mut games = 0;
    for tree in parsed.collection.games() {
        let want = crate::dyer::signature(&tree).map(|s| s.as_str().to_string());
        let entry = GameRecord::build(0, 0, 0, tree);
        assert_eq!(entry.dyer, want, "{name}: game {games}");
        games += 1;
    }
    games
}

#[test]
fn dyer_signatures_from_the_steps_are_the_trees() {
    // Two moves in a node, a move and setup, passes written both ways, a value with
    // spaces, a point off the board, upper-case letters, a move onto a stone, a suicide,
    // a repeated property, moves in the root, a short game, a game on a board that is
    // not square, and one without moves.
    let odd = [
        "(;SZ[9];B[aa]W[bb];B[cc])",
        "(;SZ[9];B[aa];W[bb]AB[ee];B[cc])",
        "(;SZ[9];B[];W[tt];B[cc])",
        "(;SZ[9];B[ ];W[bb])",
        "(;SZ[9];B[zz];W[bb])",
        "(;SZ[9];B[AB];W[bb])",
        "(;SZ[9];B[aa];W[aa];B[bb])",
        "(;SZ[9]AW[ba][ab];B[aa];W[cc])",
        "(;SZ[9];B[aa]B[bb];W[cc])",
        "(;SZ[9]B[aa]W[bb];B[cc])",
        "(;SZ[9];B[aa])",
        "(;SZ[9:7];B[aa];W[bb])",
        "(;SZ[9]C[nothing])",
    ];
    for sgf in odd {
        assert_eq!(signatures_agree(sgf.as_bytes(), sgf), 1);
    }
    // The steps serve where they can, the tree where they cannot.
    let from_steps = |sgf: &str| {
        let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
        let tree = parsed.collection.games().next().unwrap();
        let mut b = GameBuilder::new(0, 0, 0, &tree);
        let opts = ReplayOptions {
            scope: Scope::AllVariations,
            ..ReplayOptions::default()
        };
        let _ = replay_game(tree, &opts, |step: &Step<'_>| b.step(step));
        b.dyer.exact && !b.broken
    };
    assert!(from_steps("(;SZ[9];B[aa];W[];B[cc](;W[dd])(;W[ee]B[ff]))"));
    assert!(!from_steps("(;SZ[9];B[aa]W[bb];B[cc])"));
    assert!(!from_steps("(;SZ[9];B[zz];W[bb])"));
    // A game of 80 moves with two moves in one node after move 71 (read by neither).
    let mut long = String::from("(;SZ[19]");
    for i in 0..80u8 {
        let p = [b'a' + i % 19, b'a' + i / 19];
        let p = std::str::from_utf8(&p).unwrap().to_string();
        long.push_str(&format!(";{}[{p}]", if i % 2 == 0 { "B" } else { "W" }));
    }
    long.push_str("B[ss]W[rs])");
    assert_eq!(signatures_agree(long.as_bytes(), "long"), 1);
    // Every game of the shared corpus.
    let dir = kifu_testdata::corpus().join("sgf/games");
    let mut games = 0;
    for path in kifu_testdata::sgf_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        games += signatures_agree(&bytes, &path.display().to_string());
    }
    assert!(games > 9000, "{games} games");
}
