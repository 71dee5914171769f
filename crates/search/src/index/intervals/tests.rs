//! The tests of the counted walk by stretches: its counts against the walk node by node.

use crate::collection::CollectionFile;
use crate::index::entry::ColdView;
use crate::index::games::ColdAt;
use crate::index::PatternIndex;
use crate::query::Counting;
use crate::scan::Page;
use crate::{Pattern, Placement, Query};
use kifu_go::{BoardSize, Color, Move, Point, Position};
use kifu_posdb::extract::Source;

/// Games with what a stretch's end can be: moves inside and outside, captures of a
/// pattern's stones by a move outside, passes, setup after a move and nodes of setup
/// alone, a stone played onto a stone of its colour and a suicide (moves inside that
/// change nothing), the game's end; and plain main lines, counted from the time tables
/// ([`super::Clean`]): captures, a point played again, a handicap, trailing passes, a
/// stone taken for good by a move whose point is then emptied by setup and played again.
const GAMES: &str = "(;SZ[9]RU[NZ]RE[B+R]DT[1999];B[cc];W[gg];B[cg];W[gc];B[];W[dd]\
    ;B[ee];W[];B[cc];W[cd];B[dc];W[ce]AB[ff];B[bd];W[be];B[ed];W[ff];B[fe])\
    (;SZ[9]RU[NZ]RE[W+1.5]DT[2003];B[ba];W[aa];B[ab];W[ab];B[gg];W[cc];B[];W[ii]\
    ;B[hi];W[ih];B[ii])(;SZ[9]AB[cc][gg]AW[gc]HA[2];W[cg];B[ee];W[];B[];W[dd])\
    (;SZ[9]DT[2010];B[cc];AW[gg];W[cg];B[gc];AB[ee]AE[cc];W[dd];AW[cc];B[];W[ff])\
    (;SZ[9]RE[W+2]DT[2006];B[ba];W[aa];B[ab];W[ee];B[cc];W[ca];B[aa];W[gg];B[cd];W[dc];B[];W[])\
    (;SZ[9]RE[B+R]DT[2007];B[ee];W[de];B[df];W[ef];B[ed];W[fe];B[dd];W[ce];B[ff];W[eg];B[cf]\
    ;W[fd];B[fc];W[ec];B[gd];W[ge];B[fb];W[cc];B[cd];W[bd];B[dc];W[eb])\
    (;SZ[9]HA[2]AB[cc][gg]RE[W+0.5];W[gc];B[cg];W[ee];B[ec];W[ce];B[dc];W[cb];B[])\
    (;SZ[9]RE[B+R];B[aa];W[ba];B[bb];W[ii];B[ca];W[hh];B[gg]AE[ca];W[hi];B[ca])";

/// An `n` x `n` game of up to `moves` random legal moves (an LCG from `seed`; it ends
/// early when a side has no legal move) and two passes: a long plain line, with many
/// captures and points played again.
fn long_game(n: u32, seed: u64, moves: usize) -> String {
    let size = BoardSize::new(n).unwrap();
    let mut pos = Position::new(size);
    let mut x = seed;
    let mut color = Color::Black;
    let mut sgf = format!("(;SZ[{n}]RE[W+R]");
    for _ in 0..moves {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let start = (x >> 33) as u32;
        let points = || {
            (0..n * n)
                .map(|k| (start + k) % (n * n))
                .map(|i| Point::new(i % n, i / n, size).unwrap())
        };
        // Not into its own eye while it has another move, so that the game goes on.
        let eye = |pos: &Position, p: Point| {
            let (c, r) = (u32::from(p.col()), u32::from(p.row()));
            [
                (c.wrapping_sub(1), r),
                (c + 1, r),
                (c, r.wrapping_sub(1)),
                (c, r + 1),
            ]
            .into_iter()
            .filter_map(|(c, r)| Point::new(c, r, size).ok())
            .all(|q| pos.stone_at(q) == Some(color))
        };
        let order: Vec<Point> = points()
            .filter(|&p| !eye(&pos, p))
            .chain(points())
            .collect();
        let played = order
            .into_iter()
            .find(|&p| pos.play(color, Move::Play(p)).is_ok());
        let Some(p) = played else { break };
        let [c, r] = p.to_sgf();
        let who = if color == Color::Black { 'B' } else { 'W' };
        sgf.push_str(&format!(";{who}[{}{}]", c as char, r as char));
        color = color.opponent();
    }
    sgf + ";B[];W[])"
}

/// The counted walks (by stretches for positions, [`super::super::placements`] for
/// placements) give the plain scan's answers.
#[test]
fn counted_walks_count_as_the_plain_scan() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sgf");
    // Long plain lines too (13x13: random games on 9x9 end too soon): past node 254 (in
    // units of two nodes, counted from exact nodes) and past node 508 (in units of four,
    // walked).
    // Then lines that end with nodes without a move or a change (comments, territory),
    // left out of the plain line: a short one whose move window ends at its last move,
    // and a long one in units of two nodes.
    let long = [
        long_game(13, 9, 300),
        long_game(13, 15, 2000),
        long_game(13, 9, 600),
        "(;SZ[9]RE[B+R];B[cc];W[gg];B[cg];W[gc];B[dd];W[cd];B[ee];C[end];TB[aa]TW[ii])".to_string(),
        long_game(13, 21, 320).replace(";B[];W[])", ";B[];W[];C[counted];)"),
    ];
    std::fs::write(&path, format!("{GAMES}{}", long.concat())).unwrap();
    let files = vec![CollectionFile {
        source: Source::new(&path),
        ids: (0..13).map(Some).collect(),
    }];
    let idx = PatternIndex::build(&files);
    let units: Vec<_> = idx.games.iter().map(|g| (g.times, g.shift)).collect();
    assert_eq!(
        units[8..],
        [(true, 1), (true, 1), (true, 2), (true, 0), (true, 1)]
    );
    for g in idx.games.range(7..idx.games.len()) {
        let ColdAt::Here(cold) = g.cold() else {
            panic!("built in memory")
        };
        let view = ColdView::parse(cold, g.side, g.times, g.shift).unwrap();
        assert!(view.times.unwrap().line.is_some(), "a plain line");
    }
    // A full page: the hits are counted, not listed.
    let page = Page {
        offset: 0,
        limit: 0,
    };
    let mut checked = 0;
    let sizes = [9, 13].map(|n| BoardSize::new(n).unwrap());
    // With stones that may be taken off for good while the others stand (a wanted stone
    // taken off ends the last stretch).
    let shapes = [
        "#",
        "O",
        ".",
        "#.\n.O",
        "..\n..",
        "...\n.#.\n...",
        "O.\n..",
        "#O.\n.#.",
        ".#.\n#O#",
        // The White stone taken for good by the move at the third cell, whose stone is
        // then taken off by setup and played again (the last game of `GAMES`).
        "#O.",
    ];
    for (size, rows) in sizes.into_iter().flat_map(|s| shapes.map(|r| (s, r))) {
        for placement in [Placement::Anywhere, Placement::At { col: 0, row: 0 }] {
            for (to_play, moves) in [
                (None, None),
                (Some(Color::White), None),
                (None, Some((3, 9))),
                (None, Some((3, 7))),
                (None, Some((250, 520))),
            ] {
                for (swap, counting) in [
                    (false, Counting::Positions),
                    (true, Counting::Positions),
                    (false, Counting::Placements),
                    (true, Counting::Placements),
                ] {
                    let mut q = Query::new(Pattern::parse(rows).unwrap(), placement);
                    q.swap_colors = swap;
                    q.counting = counting;
                    q.to_play = to_play;
                    q.moves = moves;
                    let indexed = idx.search_many(std::slice::from_ref(&q), page, Some(size), None);
                    let scanned = crate::collection::search_files(&files, &q, page, Some(size));
                    assert_eq!(
                        indexed[0], scanned.answer,
                        "{size} {rows:?} {placement:?} {to_play:?} {moves:?} {swap}"
                    );
                    checked += usize::from(scanned.answer.occurrences > 0);
                }
            }
        }
    }
    assert!(checked > 300, "{checked} queries with hits");
}

/// Counting placements, a wanted stone taken off for good by moves outside (the time
/// tables count it, [`super::stands`]): the continuation is the next move inside, however
/// late (a first stone onto a cell wanted empty), and the game's end when none comes.
#[test]
fn placements_go_on_past_a_taken_stone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sgf");
    // Black's dd is held from node 1 and taken by W[dc] at node 8, both White stones
    // beside it inside the rectangle (columns and rows d to f); then the first move
    // inside is W[ff] at node 10 (first game), or none (second), or B[ee] at node 11,
    // taken at node 14 and played again by White (third: walked).
    let start = "(;SZ[9];B[dd];W[ed];B[aa];W[de];B[ii];W[cd];B[ia];W[dc];B[ai]";
    let games = [
        format!("{start};W[ff];B[ha])"),
        format!("{start};W[hh])"),
        format!("{start};W[hh];B[ee];W[ef];B[ha];W[fe];B[hb];W[ee])"),
    ];
    std::fs::write(&path, games.concat()).unwrap();
    let files = vec![CollectionFile {
        source: Source::new(&path),
        ids: (0..3).map(Some).collect(),
    }];
    let idx = PatternIndex::build(&files);
    let page = Page {
        offset: 0,
        limit: 0,
    };
    let size = BoardSize::new(9).unwrap();
    let pattern = Pattern::parse("#O.\nO..\n...").unwrap();
    let mut q = Query::new(pattern, Placement::At { col: 3, row: 3 });
    q.symmetries = false;
    q.counting = Counting::Placements;
    let indexed = idx.search_many(std::slice::from_ref(&q), page, Some(size), None);
    let scanned = crate::collection::search_files(&files, &q, page, Some(size));
    assert_eq!(indexed[0], scanned.answer);
    let a = &indexed[0];
    assert_eq!((a.games, a.occurrences, a.game_ends), (3, 3, 1));
    let mut next: Vec<_> = a
        .continuations
        .iter()
        .map(|c| (c.cell, c.color, c.tally.count))
        .collect();
    next.sort_unstable();
    assert_eq!(next, [((1, 1), 'B', 1), ((2, 2), 'W', 1)]);
}
