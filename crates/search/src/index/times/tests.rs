//! The tests of the time tables: written by [`encode`](fn@super::encode), read back and checked.

use super::read::{Halves, MAX_POINTS, MAX_WORDS};
use super::*;
use crate::index::format::put_varint;

/// Tables of a 9x9 board with every kind of point:
/// never touched, one change, changes again (taken, taken and played again), set up at
/// node 0, and the last point of the board; in units of two nodes, points past node 254
/// and of both parities.
fn tables(shift: u8, line: Option<MainLine>) -> (Vec<u8>, Vec<u32>, Vec<u32>, Vec<u8>) {
    let (out, first, last, fin, _) = tables_held(shift, line);
    (out, first, last, fin)
}

/// [`tables`], with the points that held one stone and were then emptied for good (the
/// state of that stone, else 0): those taken and left empty but point 45.
#[allow(clippy::type_complexity)]
fn tables_held(
    shift: u8,
    line: Option<MainLine>,
) -> (Vec<u8>, Vec<u32>, Vec<u32>, Vec<u8>, Vec<u8>) {
    let n = 9;
    let mut fin = vec![0u8; n * n];
    let mut first = vec![u32::MAX; n * n];
    let mut last = vec![0u32; n * n];
    let mut cases: Vec<(usize, u32, u32, u8)> = vec![
        (0, 0, 0, 1),      // set up at the root
        (3, 5, 5, 2),      // played once
        (10, 7, 30, 0),    // played, taken
        (20, 9, 44, 1),    // played, taken, played again
        (30, 4, 4, 1),     // played once
        (63, 63, 63, 1),   // the end of the first word
        (64, 11, 11, 2),   // the start of the second
        (80, 101, 254, 2), // the last point, taken and played again
    ];
    if shift == 1 {
        cases.extend([
            (40, 300, 300, 1), // played once, late
            (41, 255, 255, 2), // played once at node 255
            (42, 256, 508, 0), // played late, taken at the end
            (43, 12, 257, 1),  // played early, taken and played again late
            (44, 508, 508, 2), // the last node
            (45, 261, 262, 0), // taken at once
            (46, 507, 507, 1), // played once, near the end
            (65, 507, 508, 1), // played and taken in the last unit
            (66, 3, 4, 1),     // odd then even
            (67, 4, 7, 1),     // even then odd
        ]);
    }
    for (q, f, l, s) in cases {
        first[q] = f;
        last[q] = l;
        fin[q] = s;
    }
    let twice: Vec<u8> = (0..n * n)
        .map(|q| {
            let again = first[q] != u32::MAX && first[q] != last[q];
            if again && fin[q] == 0 && q != 45 {
                1 + (q % 2) as u8
            } else {
                0
            }
        })
        .collect();
    let changes: Vec<_> = (0..n * n)
        .flat_map(|q| {
            let list = change_list(first[q], last[q], fin[q], twice[q]);
            list.into_iter().map(move |(node, s)| (q as u16, node, s))
        })
        .collect();
    let mut out = Vec::new();
    encode(
        &fin,
        (&first, &last, &twice),
        &changes,
        (n, shift),
        line,
        (&mut out, &mut Scratch::default()),
    );
    (out, first, last, fin, twice)
}

/// The changes of a point changed again that did not hold one stone, for [`tables_held`]:
/// taken and played again (a stone of the final board's colour, taken at the next node;
/// when that is the last change, a stone of the other colour first), or taken at once
/// (point 45). Empty for the other points.
fn change_list(first: u32, last: u32, fin: u8, twice: u8) -> Vec<(u32, u8)> {
    if first == u32::MAX || first == last || twice != 0 {
        Vec::new()
    } else if fin == 0 {
        vec![(first, 1), (last, 0)]
    } else if first + 1 == last {
        vec![(first, 3 - fin), (last, fin)]
    } else {
        vec![(first, fin), (first + 1, 0), (last, fin)]
    }
}

/// The main line the tables of [`tables`] are written with.
const LINE: MainLine = MainLine {
    nodes: 255,
    passes: 2,
    mid: 0,
};

/// A final board the last changes contradict is refused: a point of both colours, one off
/// the board, a stone that never came, a point changed once left empty.
#[test]
fn a_final_board_against_its_tables_is_refused() {
    let (bytes, ..) = tables(0, Some(LINE));
    let checked = |bytes: &[u8]| {
        let t = TimeTables::read(&mut Bytes::new(bytes), 9, 0).unwrap();
        assert_eq!(t.fin, &bytes[..72], "the final board comes first");
        t.check(9)
    };
    checked(&bytes).unwrap();
    // Rows of u32 words, Black's nine then White's: (row, column, colour, set).
    for (row, col, white, set) in [
        (0, 0, true, true),  // point 0 holds Black: both colours
        (0, 9, false, true), // off the board
        (2, 0, false, true), // point 18, never touched
        (0, 3, true, false), // point 3, played once, left empty
    ] {
        let mut bad = bytes.clone();
        let at = 4 * (row + if white { 9 } else { 0 }) + col / 8;
        if set {
            bad[at] |= 1 << (col % 8);
        } else {
            bad[at] &= !(1 << (col % 8));
        }
        assert!(checked(&bad).is_err(), "{row} {col} {white} {set}");
    }
}

#[test]
fn every_point_reads_back_its_units() {
    for shift in [0u8, 1, 2] {
        let (bytes, first, last, fin, twice) = tables_held(shift, Some(LINE));
        let mut b = Bytes::new(&bytes);
        let t = TimeTables::read(&mut b, 9, shift).unwrap();
        assert!(b.is_empty(), "every byte read");
        t.check(9).unwrap();
        // The points changed again: the board, a byte per point, a directory of two words,
        // the words of stones inside their unit when units are longer than a node, a byte
        // each (and two bits each in units of two nodes), then the main line (a varint of
        // two bytes, one of a byte, and a byte for no passes before the trailing ones).
        let again = (0..81)
            .filter(|&q| first[q] != u32::MAX && first[q] != last[q])
            .count();
        let inside = if shift > 0 { 16 } else { 0 };
        let parity = if shift == 1 { again.div_ceil(4) } else { 0 };
        let held = again.div_ceil(4);
        // The change lists: a count, then a varint a change (the node's step times four
        // plus the state), after their length.
        let mut many = Vec::new();
        let mut lists = ListStarts::default();
        for q in 0..81 {
            let list = change_list(first[q], last[q], fin[q], twice[q]);
            if !list.is_empty() {
                put_varint(&mut many, list.len() as u64);
                let mut prev = 0;
                for (node, s) in list {
                    put_varint(&mut many, u64::from(node - prev) << 2 | u64::from(s));
                    prev = node;
                }
            }
            let read: Option<Vec<_>> = t.changes(q).map(Iterator::collect);
            let want = change_list(first[q], last[q], fin[q], twice[q]);
            assert_eq!(read, (!want.is_empty()).then_some(want), "changes of {q}");
            let listed: Option<Vec<_>> = t.changes_listed(q, &mut lists).map(Iterator::collect);
            assert_eq!(listed, read, "changes of {q} through their start");
        }
        assert_eq!(many.len(), if shift == 1 { 31 } else { 11 }, "lists");
        assert_eq!(
            bytes.len(),
            72 + 81 + 20 + inside + again + held + parity + 1 + many.len() + 4
        );
        assert_eq!(t.line, Some(LINE));
        // The points changed again, read by rows of any length from any point, from the
        // directory and unpacked (with words left from a game of another size).
        let mut buf = FirstStones {
            first: Box::new([NEVER; MAX_POINTS]),
            again: [u64::MAX; MAX_WORDS + 1],
        };
        let unpacked = t.unpacked(&mut buf);
        for q in 0..81 {
            for len in 1..=(81 - q).min(32) {
                let want = (0..len)
                    .filter(|&i| first[q + i] != u32::MAX && first[q + i] != last[q + i])
                    .fold(0u32, |m, i| m | 1 << i);
                assert_eq!(t.changed_again(q, len), want, "{q} {len}");
                assert_eq!(
                    TimeRead::changed_again(&unpacked, q, len),
                    want,
                    "{q} {len}"
                );
            }
        }
        for q in 0..81 {
            let want_first = if first[q] == u32::MAX {
                255
            } else {
                first[q] >> shift
            };
            assert_eq!(t.first(q), want_first, "first of {q}, shift {shift}");
            // 255 for a point that never held a stone.
            let want_last = if first[q] == u32::MAX {
                255
            } else {
                last[q].div_ceil(1 << shift)
            };
            assert_eq!(t.last(q), want_last, "last of {q}, shift {shift}");
            // Exact nodes in units of two.
            assert_eq!(t.halves().is_some(), shift == 1);
            if let Some(h) = t.halves() {
                let (f, l) = if first[q] == u32::MAX {
                    (510, 510)
                } else {
                    (first[q], last[q])
                };
                assert_eq!([h.first(q), h.last(q)], [f, l], "exact times of {q}");
                let held = (twice[q] != 0).then_some((f, l, twice[q] == 2));
                assert_eq!(h.held_once(q), held, "held once at {q}");
            }
            // In units, for the other units.
            let held = (twice[q] != 0).then(|| (want_first, want_last, twice[q] == 2));
            assert_eq!(TimeRead::held_once(&t, q), held, "held once at {q}");
            let stone = |c: usize| {
                let at = 4 * (c * 9 + q / 9);
                let w = u32::from_le_bytes(t.fin[at..at + 4].try_into().unwrap());
                w >> (q % 9) & 1 != 0
            };
            assert_eq!(stone(0), fin[q] == 1);
            assert_eq!(stone(1), fin[q] == 2);
        }
    }
}

#[test]
fn main_lines_with_passes_before_the_end_read_back() {
    // Passes at nodes 3 and 7, then two at the end: the line's bytes end with the count of
    // passes before the trailing ones and their steps.
    let mut line = LINE;
    line.mid = 3 | 7 << 16;
    assert_eq!(line.mid_passes().collect::<Vec<_>>(), [3, 7]);
    assert_eq!(line.passes_in(1, 254), 4);
    assert_eq!(line.passes_in(4, 252), 1);
    let (bytes, ..) = tables(0, Some(line));
    assert_eq!(bytes[bytes.len() - 3..], [2, 3, 4]);
    let t = TimeTables::read(&mut Bytes::new(&bytes), 9, 0).unwrap();
    assert_eq!(t.line, Some(line));
    // Five passes before the end, a pass among the trailing ones, a pass at the root:
    // refused.
    for (back, v) in [(3, 5u8), (1, 250), (2, 0)] {
        let mut bad = bytes.clone();
        let at = bad.len() - back;
        bad[at] = v;
        assert!(
            TimeTables::read(&mut Bytes::new(&bad), 9, 0).is_err(),
            "{back} {v}"
        );
    }
}

#[test]
fn damaged_tables_are_refused_or_read_as_nothing() {
    // Without a main line (one byte after the first stones, which the reads below shift).
    let (bytes, ..) = tables(0, None);
    // A wrong count (the second word's), a point off the board (bit 63 of the second
    // word), a change again at a point that never held a stone (point 1).
    let dir = 72 + 81;
    for (at, v) in [(dir + 18, 1u8), (dir + 17, 0x80), (dir, 0x02)] {
        let mut bad = bytes.clone();
        bad[at] ^= v;
        // The first two damages have one more point read a byte: give it one, so that
        // only the check can tell.
        bad.push(0);
        let mut b = Bytes::new(&bad);
        // The change lists' length is then read a byte later: refused by the read or the
        // check.
        let Ok(t) = TimeTables::read(&mut b, 9, 0) else {
            continue;
        };
        assert!(t.check(9).is_err(), "byte {at}");
        // Read anyway, nothing panics.
        let h = Halves(&t);
        for q in 0..200 {
            t.first(q);
            t.last(q);
            TimeRead::held_once(&t, q);
            h.first(q);
            h.last(q);
            h.held_once(q);
            t.changes(q).map(Iterator::count);
        }
    }
    // A change list damaged: a state (the last change of point 20, its final stone, made
    // empty), a node (the last change of point 80 made later), a count (point 20's made
    // 4): refused.
    let (t, ..) = TimeTables::read(&mut Bytes::new(&bytes), 9, 0)
        .map(|t| (t, ()))
        .unwrap();
    let start = bytes.len() - 1 - t.many.len();
    for (at, v) in [(start + 4, 1u8), (start + 9, 4), (start, 7)] {
        let mut bad = bytes.clone();
        bad[at] ^= v;
        let t = TimeTables::read(&mut Bytes::new(&bad), 9, 0).unwrap();
        assert!(t.check(9).is_err(), "byte {at} of the lists");
        for q in 0..81 {
            t.changes(q).map(Iterator::count);
        }
    }
    // Cut short: refused.
    for len in 0..bytes.len() {
        let mut b = Bytes::new(&bytes[..len]);
        assert!(TimeTables::read(&mut b, 9, 0).is_err(), "{len} bytes");
    }
}

/// The starts of the first lists are kept, each past the lists before it; a damaged
/// list ends them.
#[test]
fn list_starts_are_found_once() {
    let mut many = Vec::new();
    let mut want = Vec::new();
    for k in 0..MAX_LISTS as u64 + 6 {
        want.push(many.len() as u32);
        // Lists of 1 to 3 changes, some of two bytes.
        put_varint(&mut many, 1 + k % 3);
        for c in 0..1 + k % 3 {
            put_varint(&mut many, (k * 40 + c) << 2 | 1);
        }
    }
    let mut lists = ListStarts::default();
    lists.fill(&many);
    assert_eq!(lists.len, MAX_LISTS);
    assert_eq!(lists.starts[..], want[..MAX_LISTS]);
    // Cut inside the fifth list: four found.
    lists.fill(&many[..want[4] as usize + 2]);
    assert_eq!((lists.len, &lists.starts[..4]), (4, &want[..4]));
}
