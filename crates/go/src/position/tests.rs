//! Rule tests with exact expected boards.

use super::*;

const B: Color = Color::Black;
const W: Color = Color::White;

/// A position from rows text (`#`, `O`, `.`; one row per line).
fn pos(rows: &str, rules: Rules) -> Position {
    let board = Board::from_rows(rows.as_bytes(), None).unwrap();
    let p = Position::from_board(&board, B, rules);
    check(&p);
    p
}

fn at(p: &Position, s: &str) -> Point {
    Point::from_human(s, p.size()).unwrap()
}

fn mv(p: &Position, s: &str) -> Move {
    Move::Play(at(p, s))
}

/// Internal bookkeeping and incremental hashes agree with from-scratch computations.
fn check(p: &Position) {
    p.assert_consistent();
    let board = p.board();
    assert_eq!(
        p.hashes(),
        p.zobrist().table().symmetric_hashes(&board),
        "incremental hashes"
    );
    assert_eq!(p.stone_count(B) as usize, board.count(B));
    assert_eq!(p.stone_count(W) as usize, board.count(W));
}

fn rows(p: &Position) -> String {
    p.board().to_rows_lines()
}

fn play(p: &mut Position, c: Color, s: &str) -> Result<PlayOutcome, IllegalMove> {
    let m = mv(p, s);
    let r = p.play(c, m);
    check(p);
    r
}

#[test]
fn capture_one_stone_and_count_prisoners() {
    let mut p = pos(".....\n..#..\n.#O..\n..#..\n.....\n", Rules::default());
    let out = play(&mut p, B, "D3").unwrap();
    assert_eq!(out.captured, 1);
    assert_eq!(rows(&p), ".....\n..#..\n.#.#.\n..#..\n.....\n");
    assert_eq!(p.prisoners(B), 1);
    assert_eq!(p.prisoners(W), 0);
    assert_eq!(p.to_play(), W);
    assert_eq!(p.move_number(), 1);
    assert_eq!(
        p.last_move(),
        Some(PlayedMove {
            color: B,
            mv: mv(&p, "D3")
        })
    );
    // Capturing with a stone that keeps other liberties is not a ko.
    assert_eq!(p.ko_point(), None);
}

#[test]
fn one_move_captures_several_strings() {
    // Four black stones around the empty B4, each in atari there: white's move takes all four.
    let mut p = pos(
        "O#O..\n\
         #.#O.\n\
         O#O..\n\
         .O...\n\
         .....\n",
        Rules::default(),
    );
    let out = play(&mut p, W, "B4").unwrap();
    // B5 (1 stone), A4 (1 stone), C4 (1 stone), B3 (1 stone) are all captured.
    assert_eq!(out.captured, 4);
    assert_eq!(
        rows(&p),
        "O.O..\n\
         .O.O.\n\
         O.O..\n\
         .O...\n\
         .....\n"
    );
    assert_eq!(p.prisoners(W), 4);
    assert_eq!(
        p.ko_point(),
        None,
        "a lone stone that took four stones is no ko"
    );
}

#[test]
fn captures_a_large_string_on_the_edge() {
    let mut p = pos(
        "####O\n\
         OOOOO\n\
         .....\n\
         .....\n\
         .....\n",
        Rules::default(),
    );
    // A5-D5 touch only white and the edge: setup may leave a string without liberties, and a
    // white move elsewhere does not capture it.
    play(&mut p, W, "C1").unwrap();
    assert_eq!(p.stone_count(B), 4);
    let mut p = pos(
        "###.O\n\
         OOOOO\n\
         .....\n\
         .....\n\
         .....\n",
        Rules::default(),
    );
    let out = play(&mut p, W, "D5").unwrap();
    assert_eq!(out.captured, 3);
    assert_eq!(
        rows(&p),
        "...OO\n\
         OOOOO\n\
         .....\n\
         .....\n\
         .....\n"
    );
}

#[test]
fn suicide_is_illegal_by_default_and_changes_nothing() {
    let mut p = pos(".O...\nO....\n.....\n.....\n.....\n", Rules::default());
    let before = rows(&p);
    let hashes = p.hashes();
    assert_eq!(
        play(&mut p, B, "A5"),
        Err(IllegalMove::Suicide {
            point: at(&p, "A5")
        })
    );
    assert_eq!(rows(&p), before);
    assert_eq!(p.hashes(), hashes);
    assert_eq!(p.move_number(), 0);
    assert_eq!(p.to_play(), B);
    // Multi-stone suicide: black B5 joins A5 and leaves the pair without a liberty.
    let mut p = pos("#.O..\nOO...\n.....\n.....\n.....\n", Rules::default());
    assert_eq!(
        play(&mut p, B, "B5"),
        Err(IllegalMove::Suicide {
            point: at(&p, "B5")
        })
    );
    assert_eq!(
        p.check(B, mv(&p, "B5")),
        Err(IllegalMove::Suicide {
            point: at(&p, "B5")
        })
    );
    // The same shape is fine for white (it captures A5).
    let out = play(&mut p, W, "B5").unwrap();
    assert_eq!(out.captured, 1);
    assert_eq!(rows(&p), ".OO..\nOO...\n.....\n.....\n.....\n");
}

#[test]
fn suicide_allowed_removes_own_string() {
    let rules = Rules {
        suicide_allowed: true,
        positional_superko: false,
    };
    let mut p = pos("#.O..\nOO...\n.....\n.....\n.....\n", rules);
    let out = play(&mut p, B, "B5").unwrap();
    assert_eq!(out.suicided, 2);
    assert_eq!(out.captured, 0);
    assert_eq!(out.violation, None);
    assert_eq!(rows(&p), "..O..\nOO...\n.....\n.....\n.....\n");
    assert_eq!(
        p.prisoners(W),
        2,
        "suicided stones are the opponent's prisoners"
    );
    assert_eq!(p.to_play(), W);
}

#[test]
fn looks_like_suicide_but_captures() {
    let mut p = pos(".O#..\nO#...\n#....\n.....\n.....\n", Rules::default());
    // A5 has no liberty, but it takes B5 and A4 (each in atari).
    let out = play(&mut p, B, "A5").unwrap();
    assert_eq!(out.captured, 2);
    assert_eq!(rows(&p), "#.#..\n.#...\n#....\n.....\n.....\n");
}

/// A ko: black takes the white stone on B4 by playing C4, white retakes on B4.
const KO: &str = "\
.#O..\n\
#O.O.\n\
.#O..\n\
.....\n\
.....\n";

#[test]
fn simple_ko() {
    let mut p = pos(KO, Rules::default());
    // Black takes the white stone on B4 by playing C4.
    let out = play(&mut p, B, "C4").unwrap();
    assert_eq!(out.captured, 1);
    assert_eq!(rows(&p), ".#O..\n#.#O.\n.#O..\n.....\n.....\n");
    assert_eq!(p.ko_point(), Some(at(&p, "B4")));
    // White may not retake at once...
    let before = p.hashes();
    assert_eq!(
        play(&mut p, W, "B4"),
        Err(IllegalMove::Ko {
            point: at(&p, "B4")
        })
    );
    assert_eq!(p.hashes(), before);
    // ...but black could fill there (the ban is on the opponent only).
    assert_eq!(p.check(B, mv(&p, "B4")), Ok(()));
    // After an exchange elsewhere, white retakes.
    play(&mut p, W, "E1").unwrap();
    assert_eq!(p.ko_point(), None);
    play(&mut p, B, "E2").unwrap();
    let out = play(&mut p, W, "B4").unwrap();
    assert_eq!(out.captured, 1);
    assert_eq!(p.ko_point(), Some(at(&p, "C4")));
    assert_eq!(rows(&p), ".#O..\n#O.O.\n.#O..\n....#\n....O\n");
    // A pass also lifts the ban.
    p.play(B, Move::Pass).unwrap();
    assert_eq!(p.ko_point(), None);
    assert_eq!(p.consecutive_passes(), 1);
}

#[test]
fn positional_superko_after_passes() {
    let mut simple = pos(KO, Rules::default());
    let mut strict = pos(KO, Rules::CHINESE);
    for p in [&mut simple, &mut strict] {
        play(p, B, "C4").unwrap();
        p.play(W, Move::Pass).unwrap();
        p.play(B, Move::Pass).unwrap();
    }
    // Simple ko: the ban is gone after the passes; the retake recreates the start position.
    let out = play(&mut simple, W, "B4").unwrap();
    assert_eq!(out.captured, 1);
    assert_eq!(rows(&simple), KO);
    // Positional superko forbids recreating it.
    assert_eq!(
        play(&mut strict, W, "B4"),
        Err(IllegalMove::Superko {
            point: at(&strict, "B4")
        })
    );
    assert_eq!(rows(&strict), ".#O..\n#.#O.\n.#O..\n.....\n.....\n");
    // Other moves stay legal.
    play(&mut strict, W, "E1").unwrap();
}

#[test]
fn superko_forbids_single_stone_suicide_with_suicide_allowed() {
    let mut p = pos(".O...\nO....\n.....\n.....\n.....\n", Rules::NEW_ZEALAND);
    // Suicide of one stone gives back the same board: a repetition.
    assert_eq!(
        play(&mut p, B, "A5"),
        Err(IllegalMove::Superko {
            point: at(&p, "A5")
        })
    );
    // Two-stone suicide gives a new board: legal.
    let mut p = pos("#.O..\nOO...\n.....\n.....\n.....\n", Rules::NEW_ZEALAND);
    assert_eq!(play(&mut p, B, "B5").unwrap().suicided, 2);
}

#[test]
fn forced_moves_replace_retake_and_self_capture() {
    // Onto an occupied point: the middle stone of a black line is replaced by white; black's
    // string splits in two.
    let mut p = pos(".....\n.###.\n.....\n.....\n.....\n", Rules::default());
    let m = mv(&p, "C4");
    assert_eq!(
        p.play(W, m),
        Err(IllegalMove::Occupied {
            point: at(&p, "C4"),
            by: B
        })
    );
    let out = p.play_forced(W, m).unwrap();
    check(&p);
    assert_eq!(out.replaced, Some(B));
    assert_eq!(
        out.violation,
        Some(IllegalMove::Occupied {
            point: at(&p, "C4"),
            by: B
        })
    );
    assert_eq!(rows(&p), ".....\n.#O#.\n.....\n.....\n.....\n");
    assert_eq!(p.prisoners(W), 0, "a replaced stone is no prisoner");
    assert_eq!(p.last_move(), Some(PlayedMove { color: W, mv: m }));
    // A forced replacement that takes one stone with a lone stone is no ko: retaking does not
    // repeat the board from before the replacement.
    let mut p = pos(".#O..\n###O.\n.#O..\n.....\n.....\n", Rules::default());
    let out = p.play_forced(W, mv(&p, "B4")).unwrap();
    check(&p);
    assert_eq!((out.replaced, out.captured), (Some(B), 1));
    assert_eq!(rows(&p), ".#O..\n#O.O.\n.#O..\n.....\n.....\n");
    assert_eq!(p.ko_point(), None);
    assert_eq!(play(&mut p, B, "C4").unwrap().captured, 1);
    assert_eq!(rows(&p), ".#O..\n#.#O.\n.#O..\n.....\n.....\n");
    // Forced ko retake.
    let mut p = pos(KO, Rules::default());
    play(&mut p, B, "C4").unwrap();
    let out = p.play_forced(W, mv(&p, "B4")).unwrap();
    check(&p);
    assert_eq!(
        out.violation,
        Some(IllegalMove::Ko {
            point: at(&p, "B4")
        })
    );
    assert_eq!(out.captured, 1);
    assert_eq!(rows(&p), KO);
    // Forced suicide: the string is removed.
    let mut p = pos("#.O..\nOO...\n.....\n.....\n.....\n", Rules::default());
    let out = p.play_forced(B, mv(&p, "B5")).unwrap();
    check(&p);
    assert_eq!(
        out.violation,
        Some(IllegalMove::Suicide {
            point: at(&p, "B5")
        })
    );
    assert_eq!(out.suicided, 2);
    assert_eq!(rows(&p), "..O..\nOO...\n.....\n.....\n.....\n");
    // A forced move onto a stone that then captures.
    let mut p = pos(".O...\n#O...\nO....\n.....\n.....\n", Rules::default());
    let out = p.play_forced(W, mv(&p, "A4")).unwrap();
    check(&p);
    assert_eq!(out.replaced, Some(B));
    assert_eq!(out.captured, 0);
    assert_eq!(rows(&p), ".O...\nOO...\nO....\n.....\n.....\n");
}

#[test]
fn setup_places_and_removes_without_capturing() {
    let mut p = Position::new(BoardSize::new(5).unwrap());
    for s in ["B5", "A4"] {
        p.setup(at(&p, s), Some(W)).unwrap();
    }
    // A black stone put in the corner by setup stays, with no liberty.
    assert_eq!(p.setup(at(&p, "A5"), Some(B)), Ok(None));
    check(&p);
    assert_eq!(rows(&p), "#O...\nO....\n.....\n.....\n.....\n");
    // Replacing and erasing.
    assert_eq!(p.setup(at(&p, "B5"), Some(B)), Ok(Some(W)));
    check(&p);
    assert_eq!(p.setup(at(&p, "A4"), None), Ok(Some(W)));
    check(&p);
    assert_eq!(rows(&p), "##...\n.....\n.....\n.....\n.....\n");
    assert_eq!(p.move_number(), 0);
    // Erasing the middle of a string splits it.
    let mut p = pos("#####\n.....\n.....\n.....\n.....\n", Rules::default());
    p.setup(at(&p, "C5"), None).unwrap();
    check(&p);
    assert_eq!(p.stone_count(B), 4);
    // White fills C5 and A4, E4: both black pairs have one liberty each; W B4 takes A5-B5.
    for s in ["C5", "A4", "E4"] {
        p.setup(at(&p, s), Some(W)).unwrap();
    }
    let out = play(&mut p, W, "B4").unwrap();
    assert_eq!(out.captured, 2);
    let out = play(&mut p, W, "D4").unwrap();
    assert_eq!(out.captured, 2);
    assert_eq!(rows(&p), "..O..\nOO.OO\n.....\n.....\n.....\n");
}

#[test]
fn off_board_points_are_errors() {
    let p19 = Point::from_sgf(b"ss", BoardSize::NINETEEN).unwrap();
    let mut p = Position::new(BoardSize::NINE);
    assert_eq!(
        p.play(B, Move::Play(p19)),
        Err(IllegalMove::OffBoard { point: p19 })
    );
    assert_eq!(
        p.play_forced(B, Move::Play(p19)),
        Err(IllegalMove::OffBoard { point: p19 })
    );
    assert_eq!(
        p.setup(p19, Some(B)),
        Err(IllegalMove::OffBoard { point: p19 })
    );
    assert_eq!(p.stone_at(p19), None);
    assert!(matches!(
        Point::new(9, 0, BoardSize::NINE),
        Err(CoordError::OffBoard { .. })
    ));
}

#[test]
fn empty_board_hashes_to_zero_and_one_stone_to_its_values() {
    let size = BoardSize::NINE;
    let mut p = Position::new(size);
    assert_eq!(p.hashes(), SymmetricHashes([0; 8]));
    assert_eq!(p.canonical().hash, 0);
    let c3 = at(&p, "C3");
    play(&mut p, B, "C3").unwrap();
    let t = ZobristTable::generate(size);
    for s in Symmetry::ALL {
        assert_eq!(p.hashes().get(s), t.value(B, s.apply(c3, size)));
    }
    // Playing and capturing back to empty returns to 0.
    let mut p = pos("O....\n.....\n.....\n.....\n.....\n", Rules::default());
    play(&mut p, B, "B5").unwrap();
    play(&mut p, B, "A4").unwrap();
    p.setup(at(&p, "B5"), None).unwrap();
    p.setup(at(&p, "A4"), None).unwrap();
    assert_eq!(p.hash(), 0);
    assert_eq!(p.prisoners(B), 1);
}

#[test]
fn clone_is_independent_for_variations() {
    let mut main = Position::new(BoardSize::NINE);
    play(&mut main, B, "E5").unwrap();
    let mut var = main.clone();
    play(&mut var, W, "C3").unwrap();
    play(&mut main, W, "G7").unwrap();
    assert_eq!(main.stone_at(at(&main, "C3")), None);
    assert_eq!(var.stone_at(at(&var, "G7")), None);
    assert_ne!(main, var);
}

use crate::symmetry::Symmetry;
use crate::zobrist::ZobristTable;

#[test]
fn write_rows_matches_board_rows() {
    let mut p = pos(".....\n..#..\n.#O..\n..#..\n.....\n", Rules::default());
    let _ = play(&mut p, W, "A1");
    let mut out = vec![0u8; 25];
    p.write_rows(&mut out);
    assert_eq!(out, p.board().to_rows());
    // A short buffer gets the whole rows it holds.
    let mut short = vec![b'x'; 7];
    p.write_rows(&mut short);
    assert_eq!(&short, b".....xx");
}

#[test]
fn write_cells_codes_the_rows() {
    let mut p = pos(".....\n..#..\n.#O..\n..#..\n.....\n", Rules::default());
    let _ = play(&mut p, W, "A1");
    let mut cells = vec![9u8; 25];
    p.write_cells(&mut cells);
    let coded: Vec<u8> = p
        .board()
        .to_rows()
        .iter()
        .map(|&c| match c {
            b'#' => 1,
            b'O' => 2,
            _ => 0,
        })
        .collect();
    assert_eq!(cells, coded);
    assert_eq!(cells[20], 2, "A1 is the first cell of the bottom row");
    for n in [5, 9, 13, 19] {
        let mut q = Position::new(BoardSize::new(n).expect("size"));
        let _ = play(&mut q, B, "C3");
        let _ = play(&mut q, W, "A1");
        let mut pushed = vec![7u8];
        q.push_cells(&mut pushed);
        let mut written = vec![0u8; (n * n) as usize];
        q.write_cells(&mut written);
        assert_eq!(pushed[0], 7);
        assert_eq!(&pushed[1..], &written[..], "{n}x{n}");
        assert_eq!(written.iter().filter(|&&c| c != 0).count(), 2);
    }
    let mut short = vec![9u8; 7];
    p.write_cells(&mut short);
    assert_eq!(short, [0, 0, 0, 0, 0, 9, 9]);
}
