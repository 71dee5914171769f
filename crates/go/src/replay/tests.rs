//! Replay tests with exact expected provenance, boards and diagnostics.

use super::*;
use crate::BoardSize;
use kifu_sgf::Collection;

/// What one step says, in a comparable form.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    game: usize,
    variation: u32,
    move_number: u32,
    node_index: usize,
    parent: Option<usize>,
    node_offset: usize,
    to_play: Color,
    mv: Option<String>,
    leaf: bool,
    rows: String,
    hash: u64,
    diags: Vec<(Code, String)>,
}

#[derive(Default)]
struct Record {
    steps: Vec<Seen>,
    errors: Vec<ReplayError>,
}

impl ReplaySink for Record {
    fn position(&mut self, s: &Step<'_>) {
        let size = s.position.size();
        self.steps.push(Seen {
            game: s.game,
            variation: s.variation,
            move_number: s.move_number,
            node_index: s.node_index,
            parent: s.parent,
            node_offset: s.node_offset,
            to_play: s.to_play,
            mv: s
                .mv
                .map(|m| format!("{}{}", m.color.letter(), m.mv.to_human(size))),
            leaf: s.is_leaf,
            rows: s.position.board().to_rows_lines(),
            hash: s.position.hash(),
            diags: s
                .diagnostics
                .iter()
                .map(|d| (d.code, d.message.clone()))
                .collect(),
        });
    }
    fn game_error(&mut self, e: ReplayError) {
        self.errors.push(e);
    }
}

fn stream(text: &str, opts: &ReplayOptions) -> Record {
    replay_bytes(text.as_bytes(), opts, Record::default())
}

/// Replays both ways and checks that streaming and tree replay agree.
fn both(text: &str, opts: &ReplayOptions) -> Record {
    let s = stream(text, opts);
    let c = Collection::parse(text.as_bytes()).collection;
    let t = replay_collection(&c, opts, Record::default());
    assert_eq!(s.steps, t.steps, "streaming and tree replay differ");
    assert_eq!(s.errors, t.errors);
    s
}

fn provenance(r: &Record) -> Vec<(u32, u32, Option<&str>, bool)> {
    r.steps
        .iter()
        .map(|s| (s.variation, s.move_number, s.mv.as_deref(), s.leaf))
        .collect()
}

const TREE: &str = "(;SZ[5];B[aa](;W[bb];B[cc])(;W[dd](;B[ee])(;B[ac]));W[ca])";

#[test]
fn variations_are_numbered_by_leaves_in_file_order() {
    let r = both(TREE, &ReplayOptions::default());
    assert_eq!(
        provenance(&r),
        [
            (0, 0, None, false),
            (0, 1, Some("BA5"), false),
            (0, 2, Some("WB4"), false),
            (0, 3, Some("BC3"), true),
            (1, 2, Some("WD2"), false),
            (1, 3, Some("BE1"), true),
            (2, 3, Some("BA3"), true),
            // A node after a closed variation: SGFC's missing '(' is assumed, so it is one more
            // child of B[aa].
            (3, 2, Some("WC5"), true),
        ]
    );
    let last = r.steps.last().unwrap();
    assert_eq!(last.rows, "#.O..\n.....\n.....\n.....\n.....\n");
    assert_eq!(last.node_index, 7);
    // Each node's parent: W[ca] is a child of B[aa], as in the tree.
    assert_eq!(
        r.steps.iter().map(|s| s.parent).collect::<Vec<_>>(),
        [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(1),
            Some(4),
            Some(4),
            Some(1)
        ]
    );
    assert_eq!(last.to_play, Color::Black);
    assert_eq!(r.steps[3].rows, "#....\n.O...\n..#..\n.....\n.....\n");
    assert_eq!(&TREE[r.steps[4].node_offset..][..6], ";W[dd]");
}

#[test]
fn games_of_another_size_get_their_information_only() {
    #[derive(Default)]
    struct Sizes {
        info: Vec<(usize, (u32, u32))>,
        steps: Vec<(usize, usize)>,
        errors: usize,
    }
    impl ReplaySink for Sizes {
        const GAME_INFO: bool = true;
        fn game_info(&mut self, game: usize, info: &RootInfo) {
            self.info.push((game, info.size()));
        }
        fn position(&mut self, step: &Step<'_>) {
            self.steps.push((step.game, step.node_index));
        }
        fn game_error(&mut self, _: ReplayError) {
            self.errors += 1;
        }
    }
    let text = b"(;SZ[9];B[aa];W[bb])(;SZ[19];B[pd](;W[dd])(;W[zz]))(;SZ[9];B[cc])";
    let opts = ReplayOptions {
        size: Some(BoardSize::NINE),
        ..Default::default()
    };
    let r = replay_text(text, &opts, Sizes::default());
    assert_eq!(r.info, [(0, (9, 9)), (1, (19, 19)), (2, (9, 9))]);
    assert_eq!(r.steps, [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1)]);
    assert_eq!(r.errors, 0, "the 19x19 game's bad move is not played");
    let all = replay_text(text, &ReplayOptions::default(), Sizes::default());
    assert_eq!(all.steps.len(), 5 + 4);
}

/// A root property given twice counts once, its first copy, as the game information and
/// `kifu sgf check` take it: the board is the size the game is filed under.
#[test]
fn a_repeated_root_property_counts_its_first_copy() {
    #[derive(Default)]
    struct Root {
        info: Vec<((u32, u32), i64)>,
        sizes: Vec<usize>,
    }
    impl ReplaySink for Root {
        const GAME_INFO: bool = true;
        fn game_info(&mut self, _: usize, info: &RootInfo) {
            self.info.push((info.size(), info.handicap()));
        }
        fn position(&mut self, step: &Step<'_>) {
            self.sizes.push(step.position.size().points());
        }
    }
    let text = b"(;SZ[9]HA[2]SZ[19]HA[5]GM[1]GM[2];B[aa])(;SZ[19];B[pd])";
    let r = replay_text(text, &ReplayOptions::default(), Root::default());
    assert_eq!(r.info, [((9, 9), 2), ((19, 19), 0)]);
    assert_eq!(r.sizes, [81, 81, 361, 361]);
}

#[test]
fn main_line_only_skips_variations() {
    let opts = ReplayOptions {
        scope: Scope::MainLineOnly,
        ..Default::default()
    };
    let r = both(TREE, &opts);
    assert_eq!(
        provenance(&r),
        [
            (0, 0, None, false),
            (0, 1, Some("BA5"), false),
            (0, 2, Some("WB4"), false),
            (0, 3, Some("BC3"), true),
        ]
    );
    assert_eq!(
        r.steps.iter().map(|s| s.parent).collect::<Vec<_>>(),
        [None, Some(0), Some(1), Some(2)]
    );
}

#[test]
fn illegal_moves_are_reported_and_forced() {
    // A ko at C3/B3: Black retakes at once; then a move onto a stone, a suicide (after setup in the
    // same node), a move onto a stone declared legal with KO[], and one without.
    let text = "(;SZ[5]AB[bb][ac][bd]AW[cb][dc][cd];B[cc];W[bc];B[cc];W[ee];B[aa];W[aa]\
                ;B[ea]AW[eb][da];W[bb]KO[];B[bb])";
    let r = both(text, &ReplayOptions::default());
    let diags: Vec<_> = r.steps.iter().flat_map(|s| s.diags.clone()).collect();
    assert_eq!(
        diags,
        [
            (
                Code::KoViolation,
                "Black C3 retakes the ko at once".to_owned()
            ),
            (
                Code::MoveOnOccupied,
                "White A5 is played onto a black stone (the stone is replaced)".to_owned()
            ),
            (
                Code::Suicide,
                "Black E5 is suicide (the string is removed)".to_owned()
            ),
            (
                Code::MoveOnOccupied,
                "Black B4 is played onto a white stone (the stone is replaced)".to_owned()
            ),
        ]
    );
    assert_eq!(r.steps[2].rows, ".....\n.#O..\n#O.O.\n.#O..\n.....\n");
    assert_eq!(r.steps[3].rows, ".....\n.#O..\n#.#O.\n.#O..\n.....\n");
    assert_eq!(r.steps[7].rows, "O..O.\n.#O.O\n#.#O.\n.#O..\n....O\n");
    assert!(r.steps[8].diags.is_empty());
    let last = r.steps.last().unwrap();
    assert_eq!(last.mv.as_deref(), Some("BB4"));
    assert_eq!(last.move_number, 9);
}

#[test]
fn suicide_is_legal_under_new_zealand_rules() {
    let text = "(;SZ[3]RU[NZ]AW[ba][ab];B[aa])";
    let r = both(text, &ReplayOptions::default());
    assert!(r.steps.iter().all(|s| s.diags.is_empty()));
    assert_eq!(r.steps[1].rows, ".O.\nO..\n...\n");
    let text = "(;SZ[3]RU[Japanese]AW[ba][ab];B[aa])";
    let r = both(text, &ReplayOptions::default());
    assert_eq!(r.steps[1].diags[0].0, Code::Suicide);
}

#[test]
fn setup_after_the_root_and_setup_findings() {
    let text = "(;SZ[3];B[aa];AB[aa][bb]AW[cc:cb]AE[ac];AB[cc]AE[cb])";
    let r = both(text, &ReplayOptions::default());
    assert_eq!(r.steps[2].rows, "#..\n.#O\n..O\n");
    assert_eq!(
        r.steps[2].diags,
        [
            (
                Code::SetupNoEffect,
                "AB has no effect on aa (a stone of that colour is already there)".to_owned()
            ),
            (
                Code::SetupNoEffect,
                "AE has no effect on ac (the point is already empty)".to_owned()
            ),
        ]
    );
    assert_eq!(
        r.steps[3].diags,
        [(
            Code::SetupOverwrites,
            "AB replaces a stone of the other colour on cc".to_owned()
        )]
    );
    assert_eq!(r.steps[3].rows, "#..\n.#.\n..#\n");
    // Setup does not count as a move; alternation goes on from the last move.
    assert_eq!(r.steps[3].move_number, 1);
    assert_eq!(r.steps[3].to_play, Color::White);
}

#[test]
fn to_play_follows_pl_then_alternation_and_handicap() {
    let r = both(
        "(;SZ[5]PL[W];B[aa];W[bb];PL[B];B[cc];W[dd])",
        &ReplayOptions::default(),
    );
    let to_play: Vec<Color> = r.steps.iter().map(|s| s.to_play).collect();
    use Color::{Black as B, White as W};
    assert_eq!(to_play, [W, W, B, B, W, B]);
    assert_eq!(
        r.steps[1].diags,
        [(
            Code::ColorSurprise,
            "PL says White is to play, but Black plays".to_owned()
        )]
    );
    // W[bb] after B[aa] is expected again; two white moves in a row are not reported.
    assert!(r.steps[2..].iter().all(|s| s.diags.is_empty()));
    let r = both(
        "(;SZ[9]HA[2]AB[cc][gg];W[ee];W[ff])",
        &ReplayOptions::default(),
    );
    let to_play: Vec<Color> = r.steps.iter().map(|s| s.to_play).collect();
    assert_eq!(to_play, [W, B, B]);
    assert!(r.steps.iter().all(|s| s.diags.is_empty()));
}

#[test]
fn unusable_boards_are_errors_for_their_game_only() {
    let text =
        "(;SZ[19:13];B[aa])(;SZ[30];B[aa])(;SZ[x])(;GM[2];B[aa])(;SZ[1])(;SZ[2];B[tt];W[bb])";
    let r = both(text, &ReplayOptions::default());
    let errors: Vec<String> = r.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        errors,
        [
            "game 1: board 19x13 is not square; only square boards 2x2 to 25x25 are supported",
            "game 2: board size 30 is not supported; sizes 2 to 25 are",
            "game 3: SZ[x] is not a board size",
            "game 4: GM[2] is not Go",
            "game 5: board size 1 is not supported; sizes 2 to 25 are",
        ]
    );
    assert_eq!(r.errors[3].offset(), text.find("(;GM").unwrap() + 1);
    assert_eq!(
        provenance(&r),
        [
            (0, 0, None, false),
            (0, 1, Some("Bpass"), false),
            (0, 2, Some("WB1"), true)
        ]
    );
    assert!(r.steps.iter().all(|s| s.game == 5));
}

#[test]
fn tt_is_a_pass_only_up_to_19x19_and_off_board_moves_are_skipped() {
    let r = both("(;SZ[21];B[tt];W[ss];B[zz];W[])", &ReplayOptions::default());
    let moves: Vec<_> = r.steps.iter().map(|s| s.mv.clone()).collect();
    assert_eq!(
        moves,
        [
            None,
            Some("BU2".into()),
            Some("WT3".into()),
            None,
            Some("Wpass".into())
        ]
    );
    assert_eq!(r.steps[3].diags[0].0, Code::OffBoard);
    assert_eq!(r.steps[4].move_number, 3);
    let r = both("(;SZ[19];B[tt])", &ReplayOptions::default());
    assert_eq!(r.steps[1].mv.as_deref(), Some("Bpass"));
}

#[test]
fn given_keys_are_used_for_their_size() {
    let keys = Arc::new(ZobristKeys::new(crate::ZobristTable::generate(
        BoardSize::new(7).unwrap(),
    )));
    let opts = ReplayOptions {
        keys: Some(keys.clone()),
        ..Default::default()
    };
    let mut seen = Vec::new();
    let _ = replay_bytes(b"(;SZ[7];B[aa])(;SZ[9];B[aa])", &opts, |s: &Step<'_>| {
        seen.push(Arc::ptr_eq(s.position.zobrist(), &keys))
    });
    assert_eq!(seen, [true, true, false, false]);
}

#[test]
fn deep_nesting_replays_in_bounded_memory() {
    // 20,000 nested variations, each a single node.
    let mut text = String::from("(;SZ[19]");
    for i in 0..20_000 {
        let c = if i % 2 == 0 { 'B' } else { 'W' };
        let p = i % 361;
        text.push_str(&format!(
            "(;{c}[{}{}]",
            (b'a' + (p % 19) as u8) as char,
            (b'a' + (p / 19) as u8) as char
        ));
    }
    text.push_str(&")".repeat(20_001));
    let mut n = 0;
    let mut last = 0;
    let _ = replay_bytes(
        text.as_bytes(),
        &ReplayOptions::default(),
        |s: &Step<'_>| {
            n += 1;
            last = s.move_number;
        },
    );
    assert_eq!((n, last), (20_001, 20_000));
}

#[test]
fn rule_diagnostics_check_rectangular_boards_and_locate_findings() {
    let text = "(;FF[4]SZ[4:2]\n;B[da];W[ca];B[db]\n;W[da])";
    let c = Collection::parse(text.as_bytes()).collection;
    let d = rule_diagnostics(&c);
    // D2 (da) and D1 (db) are black; W C2 and W at D1's neighbour... W[da] onto a black stone.
    let got: Vec<(u32, u32, Code)> = d.iter().map(|d| (d.line, d.column, d.code)).collect();
    assert_eq!(got, [(3, 2, Code::MoveOnOccupied)]);
}

#[test]
fn large_setup_findings_name_ten_points() {
    let r = both("(;SZ[5]AE[aa:ee])", &ReplayOptions::default());
    assert_eq!(
        r.steps[0].diags,
        [(
            Code::SetupNoEffect,
            "AE has no effect on aa, ba, ca, da, ea, ab, bb, cb, db, eb, and 15 more \
             (the point is already empty)"
                .to_owned()
        )]
    );
}

#[test]
fn game_trees_without_nodes_are_not_games() {
    // Found by fuzzing: streaming replay counted "(()" (a tree with no node) as a game, the tree did not.
    let r = both(
        "(()(;SZ[5];B[aa])(( )(;SZ[5];W[bb])",
        &ReplayOptions::default(),
    );
    let games: Vec<usize> = r.steps.iter().map(|s| s.game).collect();
    assert_eq!(games, [0, 0, 1, 1]);
}

/// Empty variations `()` are ignored as trees ignore them: the node before them is a leaf when
/// no node follows, they do not end the main line, and they take no variation number (found by
/// fuzzing go_replay: streaming said "not a leaf" before any '(').
#[test]
fn empty_variations_change_nothing() {
    let leaves = |r: &Record| -> Vec<(u32, Option<String>, bool, Option<usize>)> {
        r.steps
            .iter()
            .map(|s| (s.variation, s.mv.clone(), s.leaf, s.parent))
            .collect()
    };
    let all = ReplayOptions::default();
    let main = ReplayOptions {
        scope: Scope::MainLineOnly,
        ..Default::default()
    };
    // A leaf followed by an empty variation.
    let r = both("(;SZ[5];B[aa]())", &all);
    assert_eq!(
        leaves(&r),
        [
            (0, None, false, None),
            (0, Some("BA5".into()), true, Some(0))
        ]
    );
    // Empty variations before and between real ones.
    let text = "(;SZ[5];B[aa]()(;W[bb])( )(;W[cc]()))";
    let r = both(text, &all);
    assert_eq!(
        leaves(&r),
        [
            (0, None, false, None),
            (0, Some("BA5".into()), false, Some(0)),
            (0, Some("WB4".into()), true, Some(1)),
            (1, Some("WC3".into()), true, Some(1)),
        ]
    );
    let r = both(text, &main);
    assert_eq!(
        leaves(&r),
        [
            (0, None, false, None),
            (0, Some("BA5".into()), false, Some(0)),
            (0, Some("WB4".into()), true, Some(1)),
        ]
    );
    // The fuzzer's input: nodes without ';', an empty variation, junk.
    let r = both("(B[](T[0](\n))]\nY[", &all);
    assert_eq!(
        leaves(&r),
        [
            (0, Some("Bpass".into()), false, None),
            (0, None, true, Some(0)),
            (1, None, true, Some(0)),
        ]
    );
}

/// A skipped variation is read as any other text, so skipping ends where the tree's variation
/// ends: here "((" inside the skipped part is ignored, and the second game is still replayed
/// with main lines only (found by fuzzing go_replay with both scopes).
#[test]
fn skipped_variations_end_where_the_tree_says() {
    let text = "(T[0](;);(()));";
    let main = ReplayOptions {
        scope: Scope::MainLineOnly,
        ..Default::default()
    };
    let r = both(text, &main);
    assert_eq!(
        r.steps
            .iter()
            .map(|s| (s.game, s.node_offset, s.leaf))
            .collect::<Vec<_>>(),
        [(0, 1, false), (0, 6, true), (1, 14, true)]
    );
    let r = both(text, &ReplayOptions::default());
    assert_eq!(r.steps.len(), 4);
    // A property after ')' opens a variation inside the skipped part too.
    let text = ";>(;T54)L[]\n(i])\nL[2]));B";
    let r = both(text, &main);
    assert_eq!(
        r.steps
            .iter()
            .map(|s| (s.game, s.node_offset))
            .collect::<Vec<_>>(),
        [(0, 0), (0, 3)]
    );
    assert_eq!(both(text, &ReplayOptions::default()).steps.len(), 5);
}

/// Game information comes once per replayed game, before its root's step, from the root only:
/// the last occurrence of a property wins, escapes are removed, a game that cannot be replayed
/// gives none, and a property of a later node is not game information.
#[test]
fn game_info_comes_from_the_root_before_its_step() {
    #[derive(Default)]
    struct Info(Vec<String>);
    impl ReplaySink for Info {
        const GAME_INFO: bool = true;
        fn position(&mut self, s: &Step<'_>) {
            self.0.push(format!("step {} {}", s.game, s.node_index));
        }
        fn game_info(&mut self, game: usize, info: &RootInfo) {
            let t = |p| info.text(p);
            self.0.push(format!(
                "info {game} {}|{}|{}|{}|{}|{:?}|{}|{:?}",
                t(InfoProperty::Black),
                t(InfoProperty::White),
                t(InfoProperty::Date),
                t(InfoProperty::Result),
                t(InfoProperty::Event),
                info.komi(),
                info.handicap(),
                info.size(),
            ));
        }
    }
    let text = "(;GM[1]SZ[9]PB[a]PB[b\\]c]PW[w\nx]HA[2]KM[6.5]EV[Cup]RE[B+R]AB[aa][bb](;B[cc])(;PB[z]W[dd]))\
                (;GM[2]PB[no])(;PW[y];B[aa])";
    for scope in [Scope::AllVariations, Scope::MainLineOnly] {
        let opts = ReplayOptions {
            scope,
            ..Default::default()
        };
        let streamed = replay_bytes(text.as_bytes(), &opts, Info::default()).0;
        let coll = Collection::parse(text.as_bytes()).collection;
        let tree = replay_collection(&coll, &opts, Info::default()).0;
        assert_eq!(streamed, tree);
        let mut expected = vec![
            "info 0 b]c|w x||B+R|Cup|Some(6.5)|2|(9, 9)",
            "step 0 0",
            "step 0 1",
        ];
        if scope == Scope::AllVariations {
            expected.push("step 0 2");
        }
        expected.extend(["info 2 |y||||None|0|(19, 19)", "step 2 0", "step 2 1"]);
        assert_eq!(streamed, expected);
    }
    // Without GAME_INFO the replay reads no game information.
    struct Unasked(usize);
    impl ReplaySink for Unasked {
        fn position(&mut self, _: &Step<'_>) {}
        fn game_info(&mut self, _: usize, _: &RootInfo) {
            self.0 += 1;
        }
    }
    let r = replay_bytes(text.as_bytes(), &ReplayOptions::default(), Unasked(0));
    assert_eq!(r.0, 0);
}

/// `only_move` is false exactly when setup or a second move may have changed the board beyond
/// the node's move.
#[test]
fn only_move_marks_setup_and_two_moves() {
    let text =
        "(;GM[1]SZ[5];B[aa];AB[bb];W[cc]AE[bb];B[dd]W[ee];B[ab]B[ac];C[x](;W[ba])(;W[bb]AW[cd]))";
    for opts in [
        ReplayOptions::default(),
        ReplayOptions {
            scope: Scope::MainLineOnly,
            ..Default::default()
        },
    ] {
        let mut seen = Vec::new();
        let _ = replay_bytes(text.as_bytes(), &opts, |s: &Step<'_>| {
            seen.push(s.only_move)
        });
        let mut expected = vec![true, true, false, false, false, true, true, true];
        if opts.scope == Scope::AllVariations {
            expected.push(false);
        }
        assert_eq!(seen, expected);
    }
}
