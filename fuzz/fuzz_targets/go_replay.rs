//! Replaying any bytes as SGF never panics: streaming and tree replay give the same steps
//! (provenance, parents, leaves, moves, boards), all variations or main lines only, the rule
//! checker runs, replaying the games of one size gives exactly their steps, and every game
//! that is transformed by a symmetry and back is unchanged.
#![no_main]

use kifu_go::replay::{self, ReplayOptions, Scope, Step};
use kifu_go::Symmetry;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = kifu_sgf::Collection::parse(data);
    for scope in [Scope::AllVariations, Scope::MainLineOnly] {
        let opts = ReplayOptions {
            scope,
            ..Default::default()
        };
        let digest = |s: &Step<'_>| {
            (
                s.game,
                s.variation,
                s.move_number,
                s.node_index,
                s.parent,
                s.is_leaf,
                s.mv,
                s.position.hash(),
            )
        };
        let mut streamed = Vec::new();
        let _ = replay::replay_bytes(data, &opts, |s: &Step<'_>| {
            // A parent is an earlier node of the same game (pre-order).
            assert!(s.parent.is_none_or(|p| p < s.node_index));
            streamed.push(digest(s));
        });
        let mut tree = Vec::new();
        let _ = replay::replay_collection(&parsed.collection, &opts, |s: &Step<'_>| {
            tree.push(digest(s));
        });
        assert_eq!(streamed, tree, "{scope:?}");
    }
    // Only the games of one size (`ReplayOptions::size`): exactly their steps of the full
    // replay, the others read and not played.
    let step = |s: &Step<'_>| (s.game, s.node_index, s.parent, s.mv, s.position.hash());
    let mut all = Vec::new();
    let _ = replay::replay_bytes(data, &ReplayOptions::default(), |s: &Step<'_>| {
        all.push((s.position.size().get(), step(s)));
    });
    for size in [kifu_go::BoardSize::NINE, kifu_go::BoardSize::NINETEEN] {
        let mut only = Vec::new();
        let opts = ReplayOptions {
            size: Some(size),
            ..Default::default()
        };
        let _ = replay::replay_bytes(data, &opts, |s: &Step<'_>| only.push(step(s)));
        let want: Vec<_> = all
            .iter()
            .filter(|(n, _)| *n == size.get())
            .map(|(_, d)| *d)
            .collect();
        assert_eq!(only, want, "{size:?}");
    }
    let _ = replay::rule_diagnostics(&parsed.collection);
    if let Ok(t) = kifu_go::transform::transform_collection(&parsed.collection, Symmetry::Rotate90) {
        let back = kifu_go::transform::transform_collection(&t, Symmetry::Rotate270).unwrap();
        let _ = kifu_sgf::write(&back);
    }
});
