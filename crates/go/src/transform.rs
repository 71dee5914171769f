//! Applying a [`Symmetry`] to whole SGF game trees: every point-valued property is mapped, the rest
//! is copied byte for byte, and the tree's shape is kept.
//!
//! Mapped: moves `B`, `W` (passes `[]`, and `[tt]` on boards up to 19x19, stay passes); point lists
//! `AB`, `AW`, `AE`, `TR`, `SQ`, `CR`, `MA`, `SL`, `DD`, `VW`, `TB`, `TW` (a compressed rectangle
//! `aa:cc` stays a rectangle: its corners are mapped and written again as top-left:bottom-right);
//! the point of `LB` labels (the text is kept); both points of `AR` arrows and `LN` lines. A value
//! that is not a point, or a point off the board, is copied unchanged. Games on boards that are not
//! square cannot be turned by a quarter turn without changing `SZ`, so they are an error.

use crate::symmetry::Symmetry;
use kifu_sgf::{Builder, Collection, GameTree, Node, SgfPoint, Value, WalkEvent};

/// Why a game could not be transformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransformError {
    /// The board is not square (or `SZ` is unreadable).
    #[error("game {}: the board is not square (SZ {size}); symmetries need a square board", game + 1)]
    NotSquare {
        /// Game index.
        game: usize,
        /// The `SZ` value as written.
        size: String,
    },
}

const POINT_LISTS: &[&str] = &[
    "AB", "AW", "AE", "TR", "SQ", "CR", "MA", "SL", "DD", "VW", "TB", "TW",
];

/// A new collection with every game of `collection` transformed by `s` (game-info and other
/// properties unchanged).
pub fn transform_collection(
    collection: &Collection,
    s: Symmetry,
) -> Result<Collection, TransformError> {
    let mut b = Builder::new();
    for g in collection.games() {
        transform_game_into(g, s, &mut b)?;
    }
    Ok(b.finish())
}

/// Appends game `game` transformed by `s` to the builder `b`.
pub fn transform_game_into(
    game: GameTree<'_>,
    s: Symmetry,
    b: &mut Builder,
) -> Result<(), TransformError> {
    let n = match game.board_size() {
        Some((c, r)) if c == r => c,
        _ => {
            return Err(TransformError::NotSquare {
                game: game.index(),
                size: game
                    .root()
                    .get("SZ")
                    .map(|p| String::from_utf8_lossy(p.raw()).into_owned())
                    .unwrap_or_default(),
            })
        }
    };
    b.begin_game();
    let _ = game.walk(|e| -> Result<(), ()> {
        match e {
            WalkEvent::BeginVariation => b.begin_variation(),
            WalkEvent::EndVariation => b.end_variation(),
            WalkEvent::Node(node) => node_into(node, s, n, b),
        }
        Ok(())
    });
    b.end_game();
    Ok(())
}

fn node_into(node: Node<'_>, s: Symmetry, n: u32, b: &mut Builder) {
    b.begin_node();
    for p in node.properties() {
        let id = p.id();
        let map: fn(Value<'_>, Symmetry, u32) -> Option<Vec<u8>> = match id {
            "B" | "W" => map_move,
            "LB" => map_label,
            "AR" | "LN" => map_pair,
            _ if POINT_LISTS.contains(&id) => map_point_or_rect,
            _ => {
                b.copy_property(p);
                continue;
            }
        };
        if s == Symmetry::Identity {
            b.copy_property(p);
            continue;
        }
        let values: Vec<Vec<u8>> = p
            .values()
            .map(|v| map(v, s, n).unwrap_or_else(|| v.raw().to_vec()))
            .collect();
        b.add_property(id, values);
    }
}

/// Where a point goes on an `n`x`n` board; points off the board stay.
fn map_point(p: SgfPoint, s: Symmetry, n: u32) -> SgfPoint {
    if u32::from(p.col) >= n || u32::from(p.row) >= n || n > 52 {
        return p;
    }
    let (col, row) = s.apply_xy(p.col, p.row, n as u8);
    SgfPoint { col, row }
}

fn map_move(v: Value<'_>, s: Symmetry, n: u32) -> Option<Vec<u8>> {
    if v.is_empty() || (v.raw() == b"tt" && n <= 19) {
        return None;
    }
    Some(map_point(v.point()?, s, n).to_letters().to_vec())
}

fn map_point_or_rect(v: Value<'_>, s: Symmetry, n: u32) -> Option<Vec<u8>> {
    match v.compose() {
        None => Some(map_point(v.point()?, s, n).to_letters().to_vec()),
        Some((a, c)) => {
            let (a, c) = (map_point(a.point()?, s, n), map_point(c.point()?, s, n));
            let tl = SgfPoint {
                col: a.col.min(c.col),
                row: a.row.min(c.row),
            };
            let br = SgfPoint {
                col: a.col.max(c.col),
                row: a.row.max(c.row),
            };
            let mut out = tl.to_letters().to_vec();
            out.push(b':');
            out.extend_from_slice(&br.to_letters());
            Some(out)
        }
    }
}

fn map_label(v: Value<'_>, s: Symmetry, n: u32) -> Option<Vec<u8>> {
    let (p, text) = v.compose()?;
    let mut out = map_point(p.point()?, s, n).to_letters().to_vec();
    out.push(b':');
    out.extend_from_slice(text.raw());
    Some(out)
}

fn map_pair(v: Value<'_>, s: Symmetry, n: u32) -> Option<Vec<u8>> {
    let (a, c) = v.compose()?;
    let mut out = map_point(a.point()?, s, n).to_letters().to_vec();
    out.push(b':');
    out.extend_from_slice(&map_point(c.point()?, s, n).to_letters());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str, s: Symmetry) -> String {
        let c = Collection::parse(text.as_bytes()).collection;
        kifu_sgf::write(&transform_collection(&c, s).unwrap())
    }

    #[test]
    fn every_point_property_is_mapped() {
        let text =
            "(;FF[4]SZ[9]AB[aa][bc:cd]LB[ab:x\\]y]AR[aa:ii]C[aa];B[ba](;W[])(;B[tt]TR[ia]VW[]))";
        assert_eq!(
            t(text, Symmetry::Rotate90),
            "(;FF[4]SZ[9]AB[ia][fb:gc]LB[ha:x\\]y]AR[ia:ai]C[aa];B[ib]\n(;W[])\n(;B[tt]TR[ii]VW[]))\n"
        );
        assert_eq!(
            t(text, Symmetry::Identity),
            kifu_sgf::write(&Collection::parse(text.as_bytes()).collection)
        );
    }

    #[test]
    fn tt_is_a_point_above_19x19_and_off_board_points_stay() {
        assert_eq!(
            t("(;SZ[21];B[tt]AB[zz])", Symmetry::FlipHorizontal),
            "(;SZ[21];B[bt]AB[zz])\n"
        );
    }

    #[test]
    fn non_square_boards_are_refused() {
        let c = Collection::parse(b"(;SZ[9])(;SZ[19:13])").collection;
        assert_eq!(
            transform_collection(&c, Symmetry::Rotate90)
                .unwrap_err()
                .to_string(),
            "game 2: the board is not square (SZ [19:13]); symmetries need a square board"
        );
    }
}
