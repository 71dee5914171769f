//! Finding one node of a game tree and the position there: by variation number (as
//! [`crate::replay`] numbers them) and move number, or by path; and the node's markup for diagrams.

use crate::coord::{BoardSize, Point};
use crate::diagram::{Label, Markup, MoveNumber};
use crate::position::{PlayedMove, Position};
use crate::replay::{ReplayError, ReplayOptions, ReplaySink, Replayer, Step};
use kifu_sgf::{Diagnostic, GameTree, Node};

/// The position at one node, with where it is.
#[derive(Debug, Clone)]
pub struct NodePosition {
    /// The position after the node.
    pub position: Position,
    /// The variation the node belongs to (see [`crate::replay`]).
    pub variation: u32,
    /// Moves from the root to the node.
    pub move_number: u32,
    /// The node's path: the child index taken at each step from the root.
    pub path: Vec<usize>,
    /// The moves from the root to the node, with their move numbers.
    pub moves: Vec<(u32, PlayedMove)>,
    /// Rule diagnostics found on the way (offsets set, lines not), at most
    /// [`kifu_sgf::DiagnosticSink::DEFAULT_LIMIT`] and an S109 counting the rest.
    pub diagnostics: Vec<Diagnostic>,
}

/// The leaves of a game in file order: leaf `v` ends variation `v`.
pub fn leaves<'c>(game: GameTree<'c>) -> impl Iterator<Item = Node<'c>> + 'c {
    game.nodes().filter(|n| n.first_child().is_none())
}

/// The nodes from the root to the leaf of variation `variation`, or `None` if there are fewer
/// variations.
pub fn variation_line(game: GameTree<'_>, variation: u32) -> Option<Vec<Node<'_>>> {
    let leaf = leaves(game).nth(variation as usize)?;
    Some(line_to(leaf))
}

/// The nodes from the root to `node`.
pub fn line_to(node: Node<'_>) -> Vec<Node<'_>> {
    let mut line: Vec<Node<'_>> = std::iter::successors(Some(node), |n| n.parent()).collect();
    line.reverse();
    line
}

/// The node at `path` (child indices from the root; empty for the root).
pub fn node_at_path<'c>(game: GameTree<'c>, path: &[usize]) -> Option<Node<'c>> {
    let mut n = game.root();
    for &i in path {
        n = n.children().nth(i)?;
    }
    Some(n)
}

/// The variation a node belongs to: the number of leaves before it in file order.
pub fn variation_of(game: GameTree<'_>, node: Node<'_>) -> u32 {
    let root = game.root().index();
    game.nodes()
        .take(node.index() - root)
        .filter(|n| n.first_child().is_none())
        .count() as u32
}

/// Replays the line from the root to `node` and returns the position there.
pub fn position_at(
    game: GameTree<'_>,
    node: Node<'_>,
    options: &ReplayOptions,
) -> Result<NodePosition, ReplayError> {
    #[derive(Default)]
    struct Last {
        position: Option<Position>,
        move_number: u32,
        moves: Vec<(u32, PlayedMove)>,
        // Capped: a line of a million moves onto stones would keep a million messages.
        diagnostics: kifu_sgf::DiagnosticSink,
        error: Option<ReplayError>,
    }
    impl ReplaySink for Last {
        fn position(&mut self, s: &Step<'_>) {
            if let Some(m) = s.mv {
                self.moves.push((s.move_number, m));
            }
            self.diagnostics.extend(s.diagnostics.iter().cloned());
            self.move_number = s.move_number;
            if s.is_leaf {
                self.position = Some(s.position.clone());
            }
        }
        fn game_error(&mut self, e: ReplayError) {
            self.error = Some(e);
        }
    }
    let line = line_to(node);
    let mut opts = options.clone();
    opts.scope = crate::replay::Scope::AllVariations;
    let mut r = Replayer::new(opts, Last::default());
    r.replay_line(game.index(), &line);
    let last = r.into_sink();
    if let Some(e) = last.error {
        return Err(e);
    }
    Ok(NodePosition {
        position: last
            .position
            .expect("a line that replays without error yields its last node"),
        variation: variation_of(game, node),
        move_number: last.move_number,
        path: node.path(),
        moves: last.moves,
        diagnostics: last.diagnostics.finish(),
    })
}

/// The node on a line after which `number` moves have been played: the node of the move itself
/// (setup-only nodes after it are not taken); for 0, the root.
pub fn node_with_move<'c>(line: &[Node<'c>], number: u32) -> Option<Node<'c>> {
    if number == 0 {
        return line.first().copied();
    }
    let mut count = 0;
    for n in line {
        if n.has("B") || n.has("W") {
            count += 1;
            if count == number {
                return Some(*n);
            }
        }
    }
    None
}

/// The markup of a node (`LB`, `TR`, `SQ`, `CR`, `MA`, compressed lists expanded) for a diagram of
/// `size`; points off the board are dropped.
pub fn markup(node: Node<'_>, size: BoardSize) -> Markup {
    let mut m = Markup::default();
    let points = |id: &str| -> Vec<Point> {
        node.get(id)
            .map(|p| {
                p.values()
                    .filter_map(|v| v.points())
                    .flatten()
                    .filter_map(|q| Point::new(q.col.into(), q.row.into(), size).ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    m.triangles = points("TR");
    m.squares = points("SQ");
    m.circles = points("CR");
    m.crosses = points("MA");
    if let Some(p) = node.get("LB") {
        for v in p.values() {
            if let Some((pt, text)) = v.compose() {
                if let Some(q) = pt.point() {
                    if let Ok(point) = Point::new(q.col.into(), q.row.into(), size) {
                        m.labels.push(Label {
                            point,
                            text: text.simple_text(),
                        });
                    }
                }
            }
        }
    }
    m
}

/// Move numbers for the moves numbered `from..=to` of `moves` (the last one on each point).
pub fn move_numbers(moves: &[(u32, PlayedMove)], from: u32, to: u32) -> Vec<MoveNumber> {
    let mut out: Vec<MoveNumber> = Vec::new();
    for &(number, m) in moves {
        if number < from || number > to {
            continue;
        }
        if let Some(point) = m.mv.point() {
            out.retain(|x| x.point != point);
            out.push(MoveNumber { point, number });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_sgf::Collection;

    #[test]
    fn find_nodes_by_variation_move_and_path() {
        let c = Collection::parse(b"(;SZ[5]TR[aa:bb]LB[cc:hi];B[aa](;W[bb];B[cc])(;W[dd];AB[ee]))")
            .collection;
        let g = c.game(0).unwrap();
        let line = variation_line(g, 1).unwrap();
        assert_eq!(line.len(), 4);
        let n = node_with_move(&line, 2).unwrap();
        assert_eq!(n.path(), [0, 1]);
        let at = position_at(g, n, &ReplayOptions::default()).unwrap();
        assert_eq!(at.variation, 1);
        assert_eq!(at.move_number, 2);
        assert_eq!(
            at.position.board().to_rows_lines(),
            "#....\n.....\n.....\n...O.\n.....\n"
        );
        let leaf = *line.last().unwrap();
        let at = position_at(g, leaf, &ReplayOptions::default()).unwrap();
        assert_eq!(at.move_number, 2);
        assert_eq!(at.moves.len(), 2);
        assert_eq!(node_at_path(g, &[0, 1, 0]), Some(leaf));
        assert_eq!(variation_line(g, 2), None);
        assert_eq!(node_with_move(&line, 3), None);
        let m = markup(g.root(), BoardSize::new(5).unwrap());
        assert_eq!(m.triangles.len(), 4);
        assert_eq!(m.labels[0].text, "hi");
    }
}
