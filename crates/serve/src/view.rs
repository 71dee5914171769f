//! A whole game for the page's viewer: every node of every variation with its move, comment and
//! the board after it, replayed by kifu-go (the page steps through it without Go rules).

use crate::board::rows_of;
use kifu_go::replay::{replay_game, ReplayError, ReplayOptions, ReplaySink, Scope, Step};
use kifu_go::{BoardSize, Color};
use kifu_sgf::GameTree;
use serde::Serialize;

/// The most nodes a game may have to be shown (a larger one is refused, not truncated).
pub const MAX_NODES: usize = 20_000;

/// One node of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeView {
    /// The parent's index (`None` at the root).
    pub parent: Option<usize>,
    /// The children's indexes, the main line's first.
    pub children: Vec<usize>,
    /// Who moved here, if anyone.
    pub color: Option<Color>,
    /// The move (`D4`, `pass`), if any.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Moves from the root to here.
    pub number: u32,
    /// The node's comment (`C`), if any.
    pub comment: Option<String>,
    /// The board after the node, rows from the top.
    pub rows: Vec<String>,
}

/// A game as the viewer shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameView {
    /// The board size.
    pub size: u32,
    /// The nodes in pre-order: the root first, each node's main child right after it.
    pub nodes: Vec<NodeView>,
    /// Why the replay stopped early, if it did (the nodes up to there are shown).
    pub error: Option<String>,
}

struct Collect {
    comments: Vec<Option<String>>,
    size: Option<BoardSize>,
    nodes: Vec<NodeView>,
    error: Option<String>,
}

impl ReplaySink for Collect {
    fn position(&mut self, s: &Step<'_>) {
        let size = s.position.size();
        self.size = Some(size);
        let at = self.nodes.len();
        if let Some(p) = s.parent {
            if let Some(parent) = self.nodes.get_mut(p) {
                parent.children.push(at);
            }
        }
        self.nodes.push(NodeView {
            parent: s.parent,
            children: Vec::new(),
            color: s.mv.map(|m| m.color),
            mv: s.mv.map(|m| m.mv.to_human(size)),
            number: s.move_number,
            comment: self.comments.get(s.node_index).cloned().flatten(),
            rows: rows_of(&s.position.board()),
        });
    }
    fn game_error(&mut self, e: ReplayError) {
        self.error = Some(e.to_string());
    }
}

/// Why a game cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// Too many nodes.
    #[error("the game has {0} nodes; the viewer shows games of at most {MAX_NODES}")]
    TooLarge(usize),
    /// Nothing could be replayed.
    #[error("the game cannot be replayed: {0}")]
    Unplayable(String),
}

/// The viewer's picture of `game`, all variations.
pub fn game_view(game: GameTree<'_>) -> Result<GameView, ViewError> {
    let count = game.node_count();
    if count > MAX_NODES {
        return Err(ViewError::TooLarge(count));
    }
    let comments = game.nodes().map(|n| n.text("C")).collect();
    let sink = Collect {
        comments,
        size: None,
        nodes: Vec::new(),
        error: None,
    };
    let opts = ReplayOptions {
        scope: Scope::AllVariations,
        ..ReplayOptions::default()
    };
    let c = replay_game(game, &opts, sink);
    match c.size {
        Some(size) => Ok(GameView {
            size: u32::from(size.get()),
            nodes: c.nodes,
            error: c.error,
        }),
        None => Err(ViewError::Unplayable(
            c.error.unwrap_or_else(|| "no board".to_string()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variations_comments_and_boards() {
        let parsed =
            kifu_sgf::Collection::parse(b"(;SZ[9]C[start];B[ee]C[tengen](;W[cc];B[gg])(;W[gc]))");
        let v = game_view(parsed.collection.game(0).unwrap()).unwrap();
        assert_eq!(v.size, 9);
        assert_eq!(v.nodes.len(), 5);
        assert_eq!(v.nodes[0].comment.as_deref(), Some("start"));
        assert_eq!(v.nodes[1].mv.as_deref(), Some("E5"));
        assert_eq!(v.nodes[1].comment.as_deref(), Some("tengen"));
        assert_eq!(v.nodes[1].children, [2, 4]);
        assert_eq!(v.nodes[4].mv.as_deref(), Some("G7"));
        assert_eq!(v.nodes[4].color, Some(Color::White));
        assert_eq!(v.nodes[3].number, 3);
        assert_eq!(v.nodes[3].rows[2], "..O......");
        assert_eq!(v.nodes[3].rows[6], "......#..");
        assert_eq!(v.error, None);
    }
}
