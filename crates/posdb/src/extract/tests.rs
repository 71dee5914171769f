use super::*;

#[test]
fn canonicalizer_matches_canonical_rows() {
    for n in [2u32, 3, 5, 9] {
        let size = BoardSize::new(n).unwrap();
        let c = Canonicalizer::new(size);
        let mut x = u64::from(n);
        for _ in 0..200 {
            let rows: Vec<u8> = (0..size.points())
                .map(|_| {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    [b'.', b'.', b'#', b'O'][(x >> 62) as usize]
                })
                .collect();
            let board = Board::from_rows(&rows, Some(size)).unwrap();
            let mut out = vec![0; size.points()];
            c.canonical_into(&rows, &mut out);
            assert_eq!(out, canonical_rows(&board));
            let mut packed = vec![0; size.points().div_ceil(4)];
            pack(&rows, &mut packed);
            let mut back = Vec::new();
            unpack(&packed, size.points(), &mut back);
            assert_eq!(back, rows);
        }
    }
}
