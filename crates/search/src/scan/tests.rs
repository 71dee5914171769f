use super::*;
use crate::pattern::{Cell, Pattern};
use crate::query::Query;
use kifu_go::{Board, Rules};
use proptest::prelude::*;

fn cell(i: u8) -> Cell {
    [
        Cell::Black,
        Cell::White,
        Cell::Empty,
        Cell::Any,
        Cell::EmptyOrBlack,
        Cell::EmptyOrWhite,
    ][usize::from(i % 6)]
}

proptest! {
    // The fast test (stones first, on a copy of the rows) finds exactly the places where
    // the plain `Pattern::matches_at` says the variant stands, among the variants that
    // want the side to move.
    #[test]
    fn find_agrees_with_the_plain_test(
        stones in proptest::collection::vec(0u8..3, 81),
        w in 1u32..5, h in 1u32..5,
        cells in proptest::collection::vec(0u8..6, 16),
        swap in any::<bool>(),
        wanted in 0u8..3,
        white_to_play in any::<bool>(),
        one_a_rectangle in any::<bool>(),
    ) {
        let size = BoardSize::new(9).unwrap();
        let mut board = Board::new(size);
        for (i, s) in stones.iter().enumerate() {
            let stone = match s { 1 => Some(Color::Black), 2 => Some(Color::White), _ => None };
            board.set(Point::from_index(i, size).unwrap(), stone).unwrap();
        }
        let cells: Vec<Cell> = (0..(w * h) as usize).map(|i| cell(cells[i])).collect();
        let Ok(p) = Pattern::new(w as usize, h as usize, cells) else { return Ok(()) };
        let mut q = Query::new(p, Placement::Anywhere);
        q.swap_colors = swap;
        let wanted = [None, Some(Color::Black), Some(Color::White)][usize::from(wanted)];
        q.to_play = wanted;
        let variants = q.variants(size);
        let to_play = if white_to_play { Color::White } else { Color::Black };
        let position = Position::from_board(&board, to_play, Rules::default());
        let fast = find(&variants, &position, (wanted, to_play), one_a_rectangle);
        let mut plain: Vec<(usize, (u32, u32))> = Vec::new();
        for (vi, v) in variants.iter().enumerate() {
            if wanted.is_some_and(|tp| v.query_color(to_play) != tp) {
                continue;
            }
            for &place in &v.places {
                let (vw, vh) = (v.pattern.width(), v.pattern.height());
                let taken = one_a_rectangle && plain.iter().any(|&(oi, op)| op == place
                    && variants[oi].pattern.width() == vw
                    && variants[oi].pattern.height() == vh);
                if v.pattern.matches_at(&board, place.0, place.1) && !taken {
                    plain.push((vi, place));
                }
            }
        }
        prop_assert_eq!(fast, plain);
    }
}
