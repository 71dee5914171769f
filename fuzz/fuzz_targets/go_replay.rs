//! Replaying any bytes as SGF never panics: streaming and tree replay give the same steps (and
//! parents), the rule checker runs, and every game that is transformed by a symmetry and back is
//! unchanged.
#![no_main]

use kifu_go::replay::{self, ReplayOptions, Step};
use kifu_go::Symmetry;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = ReplayOptions::default();
    let mut streamed = Vec::new();
    let _ = replay::replay_bytes(data, &opts, |s: &Step<'_>| {
        // A parent is an earlier node of the same game (pre-order).
        assert!(s.parent.is_none_or(|p| p < s.node_index));
        streamed.push((s.game, s.variation, s.move_number, s.parent, s.position.hash()));
    });
    let parsed = kifu_sgf::Collection::parse(data);
    let mut tree = Vec::new();
    let _ = replay::replay_collection(&parsed.collection, &opts, |s: &Step<'_>| {
        tree.push((s.game, s.variation, s.move_number, s.parent, s.position.hash()));
    });
    assert_eq!(streamed, tree);
    let _ = replay::rule_diagnostics(&parsed.collection);
    if let Ok(t) = kifu_go::transform::transform_collection(&parsed.collection, Symmetry::Rotate90) {
        let back = kifu_go::transform::transform_collection(&t, Symmetry::Rotate270).unwrap();
        let _ = kifu_sgf::write(&back);
    }
});
