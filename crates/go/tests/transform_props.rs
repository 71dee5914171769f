//! Property test: transforming an SGF tree by a symmetry and then by its inverse gives back the
//! original tree, byte for byte once written; and replaying a transformed game gives the
//! transformed boards (same canonical hash at every node).

use kifu_go::replay::{self, ReplayOptions, Step};
use kifu_go::transform::transform_collection;
use kifu_go::Symmetry;
use kifu_sgf::Collection;
use proptest::prelude::*;

/// A point as SGF letters on an `n`x`n` board (sometimes one off the board, which must stay).
fn point(n: u8) -> impl Strategy<Value = String> {
    (0..=n, 0..n).prop_map(|(c, r)| format!("{}{}", (b'a' + c) as char, (b'a' + r) as char))
}

/// A normalised compressed rectangle `tl:br`.
fn rect(n: u8) -> impl Strategy<Value = String> {
    (0..n, 0..n, 0..n, 0..n).prop_map(|(a, b, c, d)| {
        let l = |x: u8| (b'a' + x) as char;
        format!(
            "{}{}:{}{}",
            l(a.min(c)),
            l(b.min(d)),
            l(a.max(c)),
            l(b.max(d))
        )
    })
}

/// One node's properties.
fn node(n: u8) -> impl Strategy<Value = String> {
    let list = prop::collection::vec(prop_oneof![point(n), rect(n)], 1..4);
    (
        prop_oneof!["B", "W"],
        prop_oneof![point(n), Just(String::new())],
        prop::option::of((
            prop_oneof!["AB", "AW", "AE", "TR", "SQ", "CR", "MA", "SL", "DD", "VW", "TB", "TW"],
            list,
        )),
        prop::option::of((point(n), "[a-z\\]:]{0,4}")),
        prop::option::of((point(n), point(n))),
    )
        .prop_map(|(c, mv, setup, label, arrow)| {
            let mut s = format!(";{c}[{mv}]");
            if let Some((id, vals)) = setup {
                s.push_str(&id);
                for v in vals {
                    s.push_str(&format!("[{v}]"));
                }
            }
            if let Some((p, text)) = label {
                let text = text.replace('\\', "").replace(']', "\\]");
                s.push_str(&format!("LB[{p}:{text}]"));
            }
            if let Some((a, b)) = arrow {
                s.push_str(&format!("AR[{a}:{b}]LN[{b}:{a}]"));
            }
            s.push_str("C[aa]");
            s
        })
}

/// A game tree with variations, built from a flat list of nodes and nesting decisions.
fn game() -> impl Strategy<Value = String> {
    (2u8..=25).prop_flat_map(|n| {
        (Just(n), prop::collection::vec((node(n), 0u8..4), 1..30)).prop_map(|(n, nodes)| {
            let mut s = format!("(;FF[4]GM[1]SZ[{n}]");
            let mut open = 0;
            for (text, shape) in nodes {
                match shape {
                    0 if open < 5 => {
                        s.push('(');
                        open += 1;
                    }
                    1 if open > 0 => {
                        s.push_str(")(");
                    }
                    _ => {}
                }
                s.push_str(&text);
            }
            s.push_str(&")".repeat(open + 1));
            s
        })
    })
}

fn symmetry() -> impl Strategy<Value = Symmetry> {
    (0usize..8).prop_map(|i| Symmetry::from_index(i).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn transform_then_inverse_is_identity(text in game(), s in symmetry()) {
        let original = Collection::parse(text.as_bytes()).collection;
        let there = transform_collection(&original, s).unwrap();
        let back = transform_collection(&there, s.inverse()).unwrap();
        prop_assert_eq!(kifu_sgf::write(&back), kifu_sgf::write(&original));
    }

    #[test]
    fn transformed_games_replay_to_transformed_boards(text in game(), s in symmetry()) {
        let original = Collection::parse(text.as_bytes()).collection;
        let there = transform_collection(&original, s).unwrap();
        let collect = |c: &Collection| {
            let mut out = Vec::new();
            let _ = replay::replay_collection(c, &ReplayOptions::default(), |st: &Step<'_>| {
                out.push((st.variation, st.move_number, st.position.board()));
            });
            out
        };
        let a = collect(&original);
        let b = collect(&there);
        prop_assert_eq!(a.len(), b.len());
        for ((va, ma, ba), (vb, mb, bb)) in a.iter().zip(&b) {
            prop_assert_eq!((va, ma), (vb, mb));
            prop_assert_eq!(&ba.transform(s), bb);
        }
    }
}
