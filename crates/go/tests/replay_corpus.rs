//! Replay over the SGF corpus: streaming and tree replay agree on every step of every file, and the
//! incrementally kept hashes equal hashes computed from scratch along replayed games.

use kifu_go::replay::{self, ReplayOptions, ReplaySink, Step};
use kifu_sgf::Collection;
use kifu_testdata::sgf_files;
use std::path::PathBuf;

fn corpus() -> PathBuf {
    kifu_testdata::corpus().join("sgf")
}

/// A digest of one step: everything but the diagnostics' offsets (tree replay gives the node's
/// offset for a property whose values were repaired while parsing).
#[derive(Debug, PartialEq, Eq)]
struct Digest {
    game: usize,
    variation: u32,
    move_number: u32,
    node_offset: usize,
    node_index: usize,
    parent: Option<usize>,
    hashes: [u64; 8],
    to_play: kifu_go::Color,
    mv: Option<kifu_go::PlayedMove>,
    leaf: bool,
    prisoners: [u32; 2],
    diags: Vec<(kifu_sgf::Code, String)>,
}

#[derive(Default)]
struct Digests(Vec<Digest>, Vec<String>);

impl ReplaySink for Digests {
    fn position(&mut self, s: &Step<'_>) {
        self.0.push(Digest {
            game: s.game,
            variation: s.variation,
            move_number: s.move_number,
            node_offset: s.node_offset,
            node_index: s.node_index,
            parent: s.parent,
            hashes: s.position.hashes().0,
            to_play: s.to_play,
            mv: s.mv,
            leaf: s.is_leaf,
            prisoners: [
                s.position.prisoners(kifu_go::Color::Black),
                s.position.prisoners(kifu_go::Color::White),
            ],
            diags: s
                .diagnostics
                .iter()
                .map(|d| (d.code, d.message.clone()))
                .collect(),
        });
    }
    fn game_error(&mut self, e: replay::ReplayError) {
        self.1.push(e.to_string());
    }
}

#[test]
fn streaming_and_tree_replay_agree_on_the_corpus() {
    let files = sgf_files(&corpus());
    assert!(files.len() > 9_000);
    let mut steps = 0usize;
    let mut variations = 0usize;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let opts = ReplayOptions::default();
        let s = replay::replay_bytes(&bytes, &opts, Digests::default());
        let coll = Collection::parse(&bytes).collection;
        let t = replay::replay_collection(&coll, &opts, Digests::default());
        assert!(
            s.0 == t.0,
            "{}: streaming and tree replay differ",
            f.display()
        );
        assert_eq!(s.1, t.1, "{}", f.display());
        // Node indices are the tree's pre-order indices.
        for d in &s.0 {
            let game = coll.game(d.game).unwrap();
            let node = coll.node(game.root().index() + d.node_index).unwrap();
            assert_eq!(node.offset(), d.node_offset, "{}", f.display());
            let parent = node.parent().map(|p| p.index() - game.root().index());
            assert_eq!(parent, d.parent, "{}", f.display());
        }
        steps += s.0.len();
        variations += s.0.iter().filter(|d| d.variation > 0).count();
    }
    assert!(steps > 1_000_000, "only {steps} steps");
    assert!(variations > 10_000, "only {variations} steps in variations");
}

/// Hashes kept incrementally along replayed games equal the hashes of the board computed from
/// scratch, at every node (captures, setup after the root and forced illegal moves included).
#[test]
fn incremental_hashes_match_from_scratch_along_corpus_games() {
    let files = sgf_files(&corpus());
    // A deterministic sample of a few hundred files from every folder.
    let sample: Vec<&PathBuf> = files.iter().step_by(25).collect();
    assert!(sample.len() > 350);
    let mut checked = 0usize;
    let mut captures = 0usize;
    for f in sample {
        let bytes = std::fs::read(f).unwrap();
        let _ = replay::replay_bytes(&bytes, &ReplayOptions::default(), |s: &Step<'_>| {
            let board = s.position.board();
            let table = s.position.zobrist().table();
            assert_eq!(
                s.position.hashes(),
                table.symmetric_hashes(&board),
                "{} node at byte {}",
                f.display(),
                s.node_offset
            );
            assert_eq!(
                s.position.canonical(),
                table.symmetric_hashes(&board).canonical()
            );
            checked += 1;
            captures += usize::from(s.position.prisoners(kifu_go::Color::Black) > 0);
        });
    }
    assert!(checked > 50_000, "only {checked} positions checked");
    assert!(captures > 10_000);
}
