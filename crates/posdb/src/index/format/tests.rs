//! Round trips of every record, with the bit positions of the entry's packed byte.

use super::summary::*;
use super::tables::*;
use super::*;

#[test]
fn records_round_trip() {
    for (i, sym) in Symmetry::ALL.into_iter().enumerate() {
        for winner in [Winner::Unknown, Winner::Black, Winner::White, Winner::Draw] {
            let e = Entry {
                key: Key::new(0x0102_0304_0506_0708, u64::MAX - i as u64, Color::White),
                game: 0xA1B2_C3D4,
                move_number: 300,
                symmetry: sym,
                winner,
                in_variation: i % 2 == 1,
                next: NEXT_PASS - i as u16,
            };
            let b = e.encode();
            assert_eq!(Entry::decode(&b), e);
            assert_eq!(Entry::decode_key(&b), e.key);
            assert_eq!(&b[..8], &0x0102_0304_0506_0708u64.to_be_bytes());
            assert_eq!(b[16], b'W');
            assert_eq!(
                b[23],
                i as u8 | winner_code(winner) << 3 | (i as u8 % 2) << 5
            );
        }
    }
    for w in [Winner::Unknown, Winner::Black, Winner::White, Winner::Draw] {
        assert_eq!(winner_from_byte(winner_byte(w)), w);
    }
    let g = GameRecord {
        file: 7,
        game_in_file: 3,
        moves: 250,
        winner: Winner::Draw,
        strings: StrRef {
            off: 1 << 40,
            len: 9,
        },
    };
    assert_eq!(GameRecord::decode(&g.encode()), g);
    let f = FileRecord {
        path: StrRef { off: 5, len: 6 },
    };
    assert_eq!(FileRecord::decode(&f.encode()), f);
    let s = GameStrings {
        black: "a\tb".into(),
        white: "c\nd".into(),
        date: String::new(),
        result: "B+R".into(),
    };
    assert_eq!(s.encode(), "a b\tc d\t\tB+R");
    assert_eq!(
        GameStrings::decode("x"),
        GameStrings {
            black: "x".into(),
            ..GameStrings::default()
        }
    );
    let h = SummaryHead {
        first: 1,
        count: 2,
        games: 3,
        conts: 4,
        set_kind: SET_BITS,
        set_len: 16,
    };
    assert_eq!(SummaryHead::decode(&h.encode()), h);
    let c = ContRecord {
        code: 12,
        count: 3,
        black: 2,
        white: 1,
    };
    assert_eq!(ContRecord::decode_all(&c.encode()), [c]);
    for set in [
        GameSet::List(vec![1, 5, 9]),
        GameSet::Bits(vec![3, u64::MAX]),
    ] {
        let (kind, bytes) = set.encode();
        assert_eq!(GameSet::decode(kind, &bytes), Some(set));
    }
    let d = DirRecord {
        key: Key::new(1, 2, Color::Black),
        off: 3,
        len: 4,
    };
    assert_eq!(DirRecord::decode(&d.encode()), d);
    let t = Trailer {
        summaries: 2,
        dir_off: 100,
        sums: None,
    };
    assert_eq!(Trailer::decode(&t.encode()), Some(t));
    assert_eq!(t.file_len(), Some(100 + 80 + 24));
    // Format 4's trailer: the block size and the check after the same 24 bytes, and a
    // table of 8 bytes a block of everything up to the directory's end before it.
    let t4 = Trailer {
        sums: Some(TrailerSums {
            block: 4096,
            check: 0x0102_0304_0506_0708,
        }),
        ..t
    };
    let b = t4.encode();
    assert_eq!((b.len(), &b[..8]), (40, &b"KIFUPIXC"[..]));
    assert_eq!(b[24..32], 4096u64.to_be_bytes());
    assert_eq!(Trailer::decode(&b), Some(t4));
    assert_eq!(Trailer::decode(&b[16..]), None);
    assert_eq!(t4.file_len(), Some(100 + 80 + 8 + 40));
    let odd = Trailer {
        sums: Some(TrailerSums {
            block: 4000,
            check: 0,
        }),
        ..t
    };
    assert_eq!(odd.file_len(), None);
    let size = BoardSize::new(9).unwrap();
    let read = |bytes: &[u8]| {
        // What a reader reads first: the header, then the Zobrist table's first bytes.
        let mut first = [b'z'; HEADER_BYTES];
        first[..bytes.len()].copy_from_slice(bytes);
        first
    };
    // Format 4, the format written: 104 bytes, the cut a flag (bit 1 of byte 9), the
    // positions after the u64 fields.
    let h = Header::new(size, true, None, 3, 2, 1, 10, 7, 1024);
    let bytes = h.encode();
    assert_eq!(
        (bytes.len(), &bytes[..8], h.positions),
        (104, &b"KIFUPIX4"[..], 3)
    );
    assert_eq!((bytes[9], &bytes[10..12]), (1, &[0, 0][..]));
    assert_eq!(h.zobrist_off, 104);
    let len = h.summaries_off() + TRAILER_BYTES as u64;
    assert_eq!(Header::decode(&read(&bytes), len).unwrap(), h);
    assert!(Header::decode(&read(&bytes), len - 1).is_err());
    let cut = Header::new(size, false, Some((0, 9)), 3, 2, 1, 10, 7, 1024);
    let bytes = cut.encode();
    assert_eq!((bytes[9], &bytes[10..12]), (2, &[0, 0][..]));
    assert_eq!(bytes[96..], 9u64.to_be_bytes());
    assert_eq!(Header::decode(&read(&bytes), len).unwrap(), cut);
    assert_eq!(cut.most_stones, Some(0));
    // An uncut file whose positions are not its entries is a damaged header.
    let mut bad = h.encode();
    bad[96..].copy_from_slice(&9u64.to_be_bytes());
    assert!(Header::decode(&read(&bad), len).is_err());
    // Format 2, still read: 96 bytes, a trailer of 24.
    let h = Header {
        format: 2,
        zobrist_off: 96,
        ..h
    };
    let h = Header {
        entries_off: 106,
        games_off: 106 + 3 * 26,
        files_off: 106 + 3 * 26 + 2 * 32,
        ..h
    };
    let bytes = h.encode();
    assert_eq!((bytes.len(), &bytes[..8]), (96, &b"KIFUPIX2"[..]));
    let len = h.summaries_off() + 24;
    assert_eq!(Header::decode(&read(&bytes), len).unwrap(), h);
    assert_eq!(h.trailer_bytes(), 24);
    assert!(Header::decode(&read(&bytes), len - 1).is_err());
    // Format 3, still read: the most stones at bytes 10-11, no flag.
    let cut = Header {
        format: 3,
        most_stones: Some(0x0102),
        positions: 9,
        ..Header::new(size, false, Some((0x0102, 9)), 3, 2, 1, 10, 7, 1024)
    };
    assert_eq!(cut.zobrist_off, 104);
    let bytes = cut.encode();
    assert_eq!(bytes.len(), 104);
    assert_eq!(&bytes[..8], b"KIFUPIX3");
    assert_eq!(bytes[10..12], [1, 2]);
    assert_eq!(bytes[9], 0);
    assert_eq!(bytes[96..], 9u64.to_be_bytes());
    let len = cut.summaries_off() + 24;
    assert_eq!(Header::decode(&read(&bytes), len).unwrap(), cut);
    // Fewer positions than entries is a damaged header.
    let mut bad = bytes.clone();
    bad[96..].copy_from_slice(&2u64.to_be_bytes());
    assert!(Header::decode(&read(&bad), len).is_err());
}
