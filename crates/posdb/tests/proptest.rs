//! Property tests: any records round-trip through every file kind; any bytes read without
//! panicking, and a truncated file reads its whole records then reports a torn one.

use kifu_go::{Board, BoardSize, Color, Symmetry, ZobristKeys};
use kifu_posdb::*;
use proptest::prelude::*;

fn arb_record(n: u32) -> impl Strategy<Value = PositionRecord> {
    let size = BoardSize::new(n).unwrap();
    (
        any::<u64>(),
        any::<u8>(),
        any::<bool>(),
        proptest::collection::vec(0u8..3, size.points()),
        proptest::option::of((any::<u32>(), any::<u16>(), any::<u16>())),
    )
        .prop_map(move |(hash, tiebreak, black, cells, extra)| {
            let rows: Vec<u8> = cells.iter().map(|&c| b".#O"[usize::from(c)]).collect();
            PositionRecord {
                id: PositionId {
                    hash,
                    tiebreak,
                    to_play: if black { Color::Black } else { Color::White },
                },
                board: Board::from_rows(&rows, Some(size)).unwrap(),
                extra: extra.map(|(file_id, variation, move_number)| ExtraInfo {
                    file_id,
                    variation,
                    move_number,
                }),
            }
        })
}

fn arb_scored() -> impl Strategy<Value = ScoredPosition> {
    (any::<u64>(), any::<u8>(), any::<bool>(), 3u8..=8, 0u8..=100).prop_map(
        |(hash, tiebreak, black, score, confidence)| ScoredPosition {
            id: PositionId {
                hash,
                tiebreak,
                to_play: if black { Color::Black } else { Color::White },
            },
            score,
            confidence,
        },
    )
}

proptest! {
    #[test]
    fn positions_round_trip((n, recs, seed) in prop_oneof![Just(9u32), Just(5), Just(13)]
        .prop_flat_map(|n| (Just(n), proptest::collection::vec(arb_record(n), 0..20), any::<u64>()))) {
        let size = BoardSize::new(n).unwrap();
        let mut w = PositionWriter::new(Vec::new());
        for r in &recs { w.write(r).unwrap(); }
        let bytes = w.into_inner();
        prop_assert_eq!(read_positions(&bytes, size).unwrap(), recs.clone());
        // Any cut that is not at a record boundary is a torn record at the last boundary.
        if !bytes.is_empty() {
            let cut = (seed as usize) % bytes.len();
            let mut rd = PositionReader::new(&bytes[..cut], size);
            let mut whole = 0u64;
            let mut ends = vec![0u64];
            for r in &recs { whole += r.encoded_len() as u64; ends.push(whole); }
            let mut got = 0;
            let mut err = None;
            for item in &mut rd {
                match item { Ok(_) => got += 1, Err(e) => { err = Some(e); break; } }
            }
            if ends.contains(&(cut as u64)) {
                prop_assert!(err.is_none());
            } else {
                let e = err.expect("torn");
                prop_assert!(e.is_torn());
                prop_assert_eq!(e.record, got);
                prop_assert_eq!(e.offset, ends[got as usize]);
            }
        }
    }

    #[test]
    fn scored_round_trip(recs in proptest::collection::vec(arb_scored(), 0..50)) {
        let mut w = ScoredWriter::new(Vec::new());
        for r in &recs { w.write(r).unwrap(); }
        let bytes = w.into_inner();
        prop_assert_eq!(bytes.len(), recs.len() * 12);
        prop_assert_eq!(read_scored(&bytes).unwrap(), recs);
    }

    #[test]
    fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_scored(&bytes);
        let _ = read_positions(&bytes, BoardSize::NINE);
        let _ = read_positions(&bytes, BoardSize::new(2).unwrap());
    }

    #[test]
    fn keys_are_symmetric_and_tiebreakers_stable(cells in proptest::collection::vec(0u8..3, 81), s in 0usize..8) {
        let rows: Vec<u8> = cells.iter().map(|&c| b".#O"[usize::from(c)]).collect();
        let board = Board::from_rows(&rows, None).unwrap();
        let mut keyer = Keyer::new(ZobristKeys::default_for(BoardSize::NINE));
        let a = keyer.key(&board, Color::Black).unwrap();
        let turned = board.transform(Symmetry::ALL[s]);
        let b = keyer.key(&turned, Color::White).unwrap();
        prop_assert_eq!(a.hash, b.hash);
        prop_assert_eq!(a.tiebreak, 0);
        prop_assert_eq!(b.tiebreak, 0);
    }
}
