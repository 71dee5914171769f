//! The plain search on hand-made games, with every count worked out by hand.

use kifu_go::Color;
use kifu_search::scan::{GameSource, Page, Scan};
use kifu_search::{Filters, GameInfo, Pattern, Placement, Query, SearchAnswer};
use kifu_sgf::Collection;

const GAMES: &str = "(;SZ[9]RE[B+3]DT[2001-02-03]PB[Alpha]PW[Beta];B[cc];W[gg];B[cg];W[gc];B[dd])\
(;SZ[9]RE[W+R]DT[1999]PB[Gamma]PW[Alpha];B[cc];W[bc];B[bb])";

fn search(q: &Query) -> SearchAnswer {
    let coll = Collection::parse(GAMES.as_bytes()).collection;
    let mut scan = Scan::new(q, Page::default());
    for (i, g) in coll.games().enumerate() {
        let source = GameSource {
            id: i as u64,
            file: "games.sgf".into(),
            game_in_file: i as u32,
        };
        scan.game(&source, &GameInfo::from_game(&g), g);
    }
    scan.finish(Some(kifu_go::BoardSize::new(9).unwrap()))
}

fn corner_33() -> Query {
    Query::new(
        Pattern::parse("...\n...\n..#").unwrap(),
        Placement::At { col: 0, row: 0 },
    )
}

#[test]
fn corner_hits_continuations_and_tenuki() {
    let a = search(&corner_33());
    // Game 1: the top-left 3-3 from move 1 to 5 (5 hits), the bottom-left one from move 3
    // (found by Rotate270, the first of the two symmetries that put the pattern there)
    // (3 hits); every next move is elsewhere, and both stand at the end.
    // Game 2: move 1, then White plays inside at (1,2).
    assert_eq!(
        (a.games_searched, a.games, a.occurrences, a.swapped),
        (2, 2, 9, 0)
    );
    assert_eq!(
        (a.tenuki.count, a.tenuki.black_wins, a.tenuki.white_wins),
        (6, 6, 0)
    );
    assert_eq!(a.game_ends, 2);
    assert_eq!(a.continuations.len(), 1);
    let c = &a.continuations[0];
    // White played B7, cell (1, 2); the pattern is symmetric in the diagonal, so B7 and C8
    // are one move, named by its first row: C8.
    assert_eq!((c.mv.as_str(), c.cell, c.color), ("C8", (2, 1), 'W'));
    assert_eq!(
        (c.tally.count, c.tally.black_wins, c.tally.white_wins),
        (1, 0, 1)
    );
    assert_eq!(c.tally.white_win_rate, 1.0);
    let years: Vec<(i32, u64, u64)> = a
        .by_year
        .iter()
        .map(|y| (y.year, y.games, y.hits))
        .collect();
    assert_eq!(years, vec![(1999, 1, 1), (2001, 1, 8)]);
    type Seen<'a> = (u64, u32, usize, (u32, u32), &'a str);
    let seen: Vec<Seen> = a
        .matches
        .iter()
        .map(|m| (m.game, m.move_number, m.symmetry, m.place, m.next.as_str()))
        .collect();
    assert_eq!(
        seen,
        vec![
            (0, 1, 0, (0, 0), "G3"),
            (0, 2, 0, (0, 0), "C3"),
            (0, 3, 0, (0, 0), "G7"),
            (0, 3, 3, (0, 6), "G7"),
            (0, 4, 0, (0, 0), "D6"),
            (0, 4, 3, (0, 6), "D6"),
            (0, 5, 0, (0, 0), "-"),
            (0, 5, 3, (0, 6), "-"),
            (1, 1, 0, (0, 0), "B7"),
        ]
    );
}

#[test]
fn colour_swap_side_to_move_move_window_and_filters() {
    let mut q = corner_33();
    q.swap_colors = true;
    let a = search(&q);
    // White's 3-3 stones at G3 (from move 2) and G7 (from move 4) count, swapped.
    assert_eq!((a.occurrences, a.swapped), (9 + 4 + 2, 6));
    q.swap_colors = false;
    q.to_play = Some(Color::White);
    // Positions after Black's moves (1, 3, 5 in game 1; 1 in game 2).
    assert_eq!(search(&q).occurrences, 1 + 2 + 2 + 1);
    q.to_play = None;
    q.moves = Some((2, 3));
    assert_eq!(search(&q).occurrences, 1 + 2);
    q.moves = None;
    q.filters = Filters {
        player: Some("gamma".into()),
        ..Filters::default()
    };
    let a = search(&q);
    assert_eq!((a.games_searched, a.games, a.occurrences), (1, 1, 1));
    q.filters = Filters {
        date_to: Some("2000".into()),
        white: Some("alpha".into()),
        ..Filters::default()
    };
    assert_eq!(search(&q).games, 1);
}

#[test]
fn a_pattern_anywhere_and_the_whole_board() {
    // A black stone with an empty point on each side, anywhere: around C7 from move 1, and
    // later D6 and C3 and... each stone whose four neighbours are empty and on the board.
    let q = Query::new(
        Pattern::parse("*.*\n.#.\n*.*").unwrap(),
        Placement::Anywhere,
    );
    let a = search(&q);
    // Game 1: after move 1: cc; 2: cc; 3: cc, cg; 4: cc, cg; 5: cc, cg, dd (dd's neighbours
    // dc, cd, ed, de are empty). Game 2: after move 1: cc; after move 2 (W bc), cc has a white
    // neighbour; after move 3 (B bb) bb's neighbours ab, ba, cb, bc: bc is white.
    assert_eq!(a.occurrences, 1 + 1 + 2 + 2 + 3 + 1);
    // The whole board at move 2 of game 1, in any orientation.
    let mut rows = [b'.'; 81];
    rows[2 * 9 + 2] = b'#';
    rows[6 * 9 + 6] = b'O';
    let text: String = rows
        .chunks(9)
        .map(|r| String::from_utf8(r.to_vec()).unwrap() + "\n")
        .collect();
    let q = Query::new(
        Pattern::parse(&text).unwrap(),
        Placement::At { col: 0, row: 0 },
    );
    let a = search(&q);
    assert_eq!((a.games, a.occurrences), (1, 1));
    // Black played C3; the position is symmetric in the diagonal, which makes C3 the same move
    // as G7, named by its first row.
    assert_eq!(a.continuations[0].mv, "G7");
}

/// Black captures a White stone in the corner, with White playing elsewhere in between; the
/// second game is the first mirrored in the diagonal.
const CAPTURES: &str =
    "(;SZ[9]RE[B+R];B[cc];W[bb];B[cb];W[gg];B[bc];W[gc];B[ba];W[gd];B[ab];W[dd])\
(;SZ[9]RE[B+R];B[cc];W[bb];B[bc];W[gg];B[cb];W[cg];B[ab];W[dg];B[ba];W[dd])";

fn search_in(games: &str, q: &Query) -> SearchAnswer {
    let coll = Collection::parse(games.as_bytes()).collection;
    let mut scan = Scan::new(q, Page::default());
    for (i, g) in coll.games().enumerate() {
        let source = GameSource {
            id: i as u64,
            ..GameSource::default()
        };
        scan.game(&source, &GameInfo::from_game(&g), g);
    }
    scan.finish(Some(kifu_go::BoardSize::new(9).unwrap()))
}

#[test]
fn move_sequences_with_captures_tenuki_and_mirror_images() {
    let mut q = Query::new(
        Pattern::parse("..../..../..#./....").unwrap(),
        Placement::At { col: 0, row: 0 },
    );
    use Color::{Black as B, White as W};
    q.sequence = vec![
        (W, (1, 1)),
        (B, (2, 1)),
        (B, (1, 2)),
        (B, (1, 0)),
        (B, (0, 1)),
    ];
    // White answers elsewhere between Black's moves: with tenuki not allowed, no game has it.
    assert_eq!(search_in(CAPTURES, &q).occurrences, 0);
    q.allow_tenuki = true;
    let a = search_in(CAPTURES, &q);
    // Both games (the second in the mirror image, which the pattern's own symmetry allows);
    // the capture at move 9 is replayed, and White's D6 follows, the same point in both
    // frames since D6 is on the diagonal.
    assert_eq!((a.games, a.occurrences), (2, 2));
    let conts: Vec<(&str, char, u64, u64)> = a
        .continuations
        .iter()
        .map(|c| (c.mv.as_str(), c.color, c.tally.count, c.tally.black_wins))
        .collect();
    assert_eq!(conts, vec![("D6", 'W', 2, 2)]);
    assert!(a.matches.iter().all(|m| m.move_number == 1));
    // The first two moves of the sequence only, no tenuki: both games, then White tenuki.
    q.sequence.truncate(2);
    q.allow_tenuki = false;
    let a = search_in(CAPTURES, &q);
    assert_eq!((a.occurrences, a.tenuki.count), (2, 2));
    // A move of the sequence that no game plays.
    q.sequence = vec![(W, (3, 0))];
    assert_eq!(search_in(CAPTURES, &q).occurrences, 0);
}
