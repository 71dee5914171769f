//! Property tests: the rules against a naive flood-fill reference, incremental hashes against hashes
//! computed from scratch, canonical hashes under the 8 symmetries, and the symmetry group laws.

use kifu_go::{
    Board, BoardSize, Color, IllegalMove, Move, Point, Position, Rules, Symmetry, ZobristTable,
};
use proptest::prelude::*;

/// A naive Go board: flood fills for every question. Slow and obviously right.
#[derive(Clone, PartialEq, Debug)]
struct Reference {
    size: BoardSize,
    board: Board,
    prisoners: [u32; 2],
    /// The board before the last move, when that move was a stone played (for simple ko).
    before_last: Option<(Color, Board)>,
}

#[derive(Debug, PartialEq)]
enum RefError {
    Occupied,
    Ko,
    Suicide,
}

impl Reference {
    fn new(size: BoardSize) -> Self {
        Reference {
            size,
            board: Board::new(size),
            prisoners: [0; 2],
            before_last: None,
        }
    }

    fn neighbours(&self, p: Point) -> Vec<Point> {
        let n = i64::from(self.size.get());
        let (c, r) = (i64::from(p.col()), i64::from(p.row()));
        [(c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)]
            .into_iter()
            .filter(|&(c, r)| c >= 0 && r >= 0 && c < n && r < n)
            .map(|(c, r)| Point::new(c as u32, r as u32, self.size).unwrap())
            .collect()
    }

    /// The string through `p` and whether it has a liberty.
    fn string(board: &Board, this: &Reference, p: Point) -> (Vec<Point>, bool) {
        let color = board.get(p);
        let mut seen = vec![p];
        let mut stack = vec![p];
        let mut free = false;
        while let Some(q) = stack.pop() {
            for nb in this.neighbours(q) {
                match board.get(nb) {
                    None => free = true,
                    c if c == color && !seen.contains(&nb) => {
                        seen.push(nb);
                        stack.push(nb);
                    }
                    _ => {}
                }
            }
        }
        (seen, free)
    }

    /// Plays; `force` plays illegal moves with kifu's documented semantics.
    fn play(
        &mut self,
        color: Color,
        mv: Move,
        suicide_allowed: bool,
        force: bool,
    ) -> Result<(u32, u32), RefError> {
        let p = match mv {
            Move::Pass => {
                self.before_last = None;
                return Ok((0, 0));
            }
            Move::Play(p) => p,
        };
        let mut violation = None;
        let mut b = self.board.clone();
        if b.get(p).is_some() {
            violation = Some(RefError::Occupied);
            b.set(p, None).unwrap();
        }
        b.set(p, Some(color)).unwrap();
        let mut captured = 0;
        for nb in self.neighbours(p) {
            if b.get(nb) == Some(color.opponent()) {
                let (stones, free) = Self::string(&b, self, nb);
                if !free {
                    captured += stones.len() as u32;
                    for s in stones {
                        b.set(s, None).unwrap();
                    }
                }
            }
        }
        let mut suicided = 0;
        let (own, free) = Self::string(&b, self, p);
        if !free {
            suicided = own.len() as u32;
            for s in own {
                b.set(s, None).unwrap();
            }
            if violation.is_none() && !suicide_allowed {
                violation = Some(RefError::Suicide);
            }
        }
        // Simple ko: a capture that brings back the board from before the opponent's last move.
        // (Two suicides in a row also repeat a board, but that is no ko.)
        if violation.is_none() && captured > 0 {
            if let Some((c, before)) = &self.before_last {
                if *c == color.opponent() && *before == b {
                    violation = Some(RefError::Ko);
                }
            }
        }
        if let Some(v) = violation {
            if !force {
                return Err(v);
            }
        }
        self.before_last = Some((color, std::mem::replace(&mut self.board, b)));
        self.prisoners[color.index()] += captured;
        self.prisoners[color.opponent().index()] += suicided;
        Ok((captured, suicided))
    }
}

fn kind(e: &IllegalMove) -> RefError {
    match e {
        IllegalMove::Occupied { .. } => RefError::Occupied,
        IllegalMove::Ko { .. } => RefError::Ko,
        IllegalMove::Suicide { .. } => RefError::Suicide,
        other => panic!("unexpected {other:?}"),
    }
}

/// A move script: (colour, point index or pass, forced?).
fn script(max_points: usize) -> impl Strategy<Value = Vec<(bool, usize, bool)>> {
    prop::collection::vec(
        (
            any::<bool>(),
            0..max_points + max_points / 10 + 1,
            prop::bool::weighted(0.1),
        ),
        0..250,
    )
}

fn check_hashes(pos: &Position) {
    let board = pos.board();
    assert_eq!(
        pos.hashes(),
        pos.zobrist().table().symmetric_hashes(&board),
        "incremental hashes differ from a recomputation"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Random games (random colours, passes, illegal tries, some forced moves) give the same
    /// boards, errors and prisoners as the flood-fill reference, and the incremental hashes always
    /// equal hashes recomputed from scratch.
    #[test]
    fn rules_match_reference_and_hashes_stay_exact(
        n in 2u32..=9,
        suicide_allowed in any::<bool>(),
        moves in script(81),
    ) {
        let size = BoardSize::new(n).unwrap();
        let rules = Rules { suicide_allowed, positional_superko: false };
        let mut pos = Position::with_rules(size, rules);
        let mut reference = Reference::new(size);
        // Alternate colours mostly, so that kos happen; the script's bool flips some.
        let mut color = Color::Black;
        for (flip, idx, force) in moves {
            if flip && idx % 3 == 0 {
                color = color.opponent();
            }
            let mv = Point::from_index(idx, size).map_or(Move::Pass, Move::Play);
            let expected = reference.play(color, mv, suicide_allowed, force);
            if force {
                // The forced path finds violations its own way; they must be what `check` says.
                let broken = pos.check(color, mv).err();
                let out = pos.play_forced(color, mv).unwrap();
                let (c, s) = expected.unwrap();
                prop_assert_eq!((out.captured, out.suicided), (c, s));
                prop_assert_eq!(out.violation, broken);
            } else {
                match (pos.play(color, mv), expected) {
                    (Ok(out), Ok((c, s))) => prop_assert_eq!((out.captured, out.suicided), (c, s)),
                    (Err(e), Err(r)) => prop_assert_eq!(kind(&e), r),
                    (got, want) => prop_assert!(false, "{:?} vs reference {:?} for {:?} {:?}\n{:?}", got, want, color, mv, pos),
                }
            }
            prop_assert_eq!(&pos.board(), &reference.board);
            prop_assert_eq!([pos.prisoners(Color::Black), pos.prisoners(Color::White)], reference.prisoners);
            check_hashes(&pos);
            color = color.opponent();
        }
    }

    /// Setup stones added and removed at random keep the hashes exact and the board as asked.
    #[test]
    fn setup_keeps_hashes_exact(
        n in 2u32..=9,
        edits in prop::collection::vec((0usize..81, 0u8..3), 0..120),
    ) {
        let size = BoardSize::new(n).unwrap();
        let mut pos = Position::new(size);
        let mut board = Board::new(size);
        for (idx, what) in edits {
            let Some(p) = Point::from_index(idx, size) else { continue };
            let stone = match what { 0 => None, 1 => Some(Color::Black), _ => Some(Color::White) };
            let old = pos.setup(p, stone).unwrap();
            prop_assert_eq!(old, board.set(p, stone).unwrap());
            prop_assert_eq!(&pos.board(), &board);
            check_hashes(&pos);
        }
        // Moves after setup still follow the rules exactly.
        let mut reference = Reference::new(size);
        reference.board = board;
        for p in size.all_points() {
            let expected = reference.play(Color::Black, Move::Play(p), false, false);
            let got = pos.play(Color::Black, Move::Play(p));
            prop_assert_eq!(got.is_ok(), expected.is_ok());
            prop_assert_eq!(&pos.board(), &reference.board);
            check_hashes(&pos);
        }
    }

    /// The canonical hash of a board is the canonical hash of each of its 8 transforms, and the
    /// symmetric hashes of a transform are a permutation given by symmetry composition.
    #[test]
    fn canonical_hash_is_symmetry_invariant(
        n in 2u32..=19,
        cells in prop::collection::vec(0u8..3, 361),
    ) {
        let size = BoardSize::new(n).unwrap();
        let table = ZobristTable::generate(size);
        let mut board = Board::new(size);
        for (p, &c) in size.all_points().zip(&cells) {
            let stone = match c { 0 => None, 1 => Some(Color::Black), _ => Some(Color::White) };
            board.set(p, stone).unwrap();
        }
        let hashes = table.symmetric_hashes(&board);
        let canonical = hashes.canonical();
        prop_assert_eq!(table.hash(&board.transform(canonical.symmetry)), canonical.hash);
        for t in Symmetry::ALL {
            let turned = board.transform(t);
            let th = table.symmetric_hashes(&turned);
            prop_assert_eq!(th.canonical().hash, canonical.hash);
            for s in Symmetry::ALL {
                prop_assert_eq!(th.get(s), hashes.get(t.then(s)));
            }
            // The same through a position built from the transformed board.
            let pos = Position::from_board(&turned, Color::Black, Rules::default());
            prop_assert_eq!(pos.canonical().hash, canonical.hash);
        }
    }

    /// Symmetry laws on random points of random sizes.
    #[test]
    fn symmetry_laws(n in 2u32..=25, col in 0u32..25, row in 0u32..25, a in 0usize..8, b in 0usize..8, c in 0usize..8) {
        let size = BoardSize::new(n).unwrap();
        let p = Point::new(col % n, row % n, size).unwrap();
        let (a, b, c) = (Symmetry::ALL[a], Symmetry::ALL[b], Symmetry::ALL[c]);
        prop_assert_eq!(a.inverse().apply(a.apply(p, size), size), p);
        prop_assert_eq!(a.apply(a.inverse().apply(p, size), size), p);
        prop_assert_eq!(a.then(b).apply(p, size), b.apply(a.apply(p, size), size));
        prop_assert_eq!(a.compose(b).apply(p, size), a.apply(b.apply(p, size), size));
        prop_assert_eq!(a.then(b).then(c), a.then(b.then(c)));
        prop_assert_eq!(a.then(b).inverse(), b.inverse().then(a.inverse()));
        prop_assert!(a.apply(p, size).is_on(size));
    }
}
