//! The query: a pattern, where it may stand, which symmetries and colours count, and which
//! positions of which games are searched. [`Query::variants`] turns it into the concrete
//! (pattern, places) pairs to test on a board of one size.

use crate::filter::{Filters, Winner};
use crate::pattern::{map_in_box, Cell, Pattern};
use kifu_go::{BoardSize, Color, Point, Symmetry};
use serde::{Deserialize, Serialize};

/// Where the pattern's top-left cell may be, in the query's orientation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Placement {
    /// At this point (column, row from the top-left, from 0). A pattern at a corner is a corner
    /// pattern, one along an edge a side pattern: under the symmetries it is sought at the
    /// corresponding corners and sides.
    At {
        /// Column of the top-left cell.
        col: u32,
        /// Row of the top-left cell.
        row: u32,
    },
    /// Along one edge of the board, touching it, anywhere along it (a side pattern).
    Edge {
        /// Which edge, in the query's orientation.
        side: Side,
    },
    /// Anywhere on the board where it fits (Kombilo's "center" patterns).
    Anywhere,
}

/// An edge of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Row 0.
    Top,
    /// The last row.
    Bottom,
    /// Column 0.
    Left,
    /// The last column.
    Right,
}

impl Placement {
    /// The placement of a `w` x `h` region with its top-left at (`col`, `row`) of an `n` x `n`
    /// board, as Kombilo reads a selected region: touching two edges (a corner, or the whole
    /// board) it stays where it is; touching one edge it slides along that edge; touching none
    /// it may be anywhere.
    pub fn of_region(col: u32, row: u32, w: u32, h: u32, n: u32) -> Placement {
        let (left, top) = (col == 0, row == 0);
        let (right, bottom) = (col + w >= n, row + h >= n);
        let horizontal = left || right;
        let vertical = top || bottom;
        match (horizontal, vertical) {
            (true, true) => Placement::At { col, row },
            (false, true) => Placement::Edge {
                side: if top { Side::Top } else { Side::Bottom },
            },
            (true, false) => Placement::Edge {
                side: if left { Side::Left } else { Side::Right },
            },
            (false, false) => Placement::Anywhere,
        }
    }

    /// The places (top-left cells) a `w` x `h` pattern may take on an `n` x `n` board, in the
    /// query's orientation.
    fn places(self, w: u32, h: u32, n: u32) -> Vec<(u32, u32)> {
        if w > n || h > n {
            return Vec::new();
        }
        match self {
            Placement::At { col, row }
                if col.checked_add(w).is_some_and(|e| e <= n)
                    && row.checked_add(h).is_some_and(|e| e <= n) =>
            {
                vec![(col, row)]
            }
            Placement::At { .. } => Vec::new(),
            Placement::Edge { side } => {
                let along = |fixed_col: Option<u32>, fixed_row: Option<u32>| {
                    let cols: Vec<u32> =
                        fixed_col.map_or_else(|| (0..=n - w).collect(), |c| vec![c]);
                    let rows: Vec<u32> =
                        fixed_row.map_or_else(|| (0..=n - h).collect(), |r| vec![r]);
                    rows.iter()
                        .flat_map(|&r| cols.iter().map(move |&c| (c, r)))
                        .collect::<Vec<_>>()
                };
                match side {
                    Side::Top => along(None, Some(0)),
                    Side::Bottom => along(None, Some(n - h)),
                    Side::Left => along(Some(0), None),
                    Side::Right => along(Some(n - w), None),
                }
            }
            Placement::Anywhere => (0..=n - h)
                .flat_map(|r| (0..=n - w).map(move |c| (c, r)))
                .collect(),
        }
    }
}

/// A pattern search. Unknown fields are refused: a misspelt option must not be ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// The pattern, in the query's orientation and colours.
    pub pattern: Pattern,
    /// Where it may stand. Default: anywhere.
    #[serde(default = "anywhere")]
    pub placement: Placement,
    /// Seek it in all 8 orientations (else as given only). Default: yes.
    #[serde(default = "yes")]
    pub symmetries: bool,
    /// Also seek it with Black and White exchanged.
    #[serde(default)]
    pub swap_colors: bool,
    /// Only positions where this colour (in the query's colours) is to play next (`"B"`, `"W"`).
    #[serde(default)]
    pub to_play: Option<Color>,
    /// Only positions after move `from` up to move `to` (inclusive; 0 is the start).
    #[serde(default)]
    pub moves: Option<(u32, u32)>,
    /// Search every variation, not only the main line.
    #[serde(default)]
    pub variations: bool,
    /// Moves that must follow the pattern, inside it, in order: colour (in the query's colours)
    /// and cell of the pattern (column, row from its top-left). Captures are whatever the game
    /// did. Continuations are then the moves after the sequence.
    #[serde(default)]
    pub sequence: Vec<(Color, (u32, u32))>,
    /// Between the moves of the sequence, moves outside the pattern (and passes) are allowed
    /// (the first move of the sequence is always the one right after the hit).
    #[serde(default)]
    pub allow_tenuki: bool,
    /// What counts as one occurrence.
    #[serde(default)]
    pub counting: Counting,
    /// Which games.
    #[serde(default)]
    pub filters: Filters,
}

/// What counts as one occurrence of a pattern in a game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    /// Every position where the pattern stands, with the move right after it (inside the
    /// pattern: a continuation; outside: tenuki). The whole board gives `pos lookup`'s counts.
    #[default]
    Positions,
    /// Every place (board position and orientation) where it appears, once per game, where it
    /// first appears; its continuation is the next move inside the pattern, however late (moves
    /// elsewhere are not tenuki then). Kombilo counts so. With a move sequence, where it first
    /// appears and the sequence follows.
    Placements,
}

fn anywhere() -> Placement {
    Placement::Anywhere
}

fn yes() -> bool {
    true
}

impl Query {
    /// A query for `pattern` at `placement`, in all orientations, colours as given, main lines.
    pub fn new(pattern: Pattern, placement: Placement) -> Query {
        Query {
            pattern,
            placement,
            symmetries: true,
            swap_colors: false,
            to_play: None,
            moves: None,
            variations: false,
            sequence: Vec::new(),
            allow_tenuki: false,
            counting: Counting::Positions,
            filters: Filters::default(),
        }
    }

    /// Checks what a query read from JSON may get wrong: moves of the sequence outside the
    /// pattern, a move window that ends before it starts.
    pub fn validate(&self) -> Result<(), QueryError> {
        let (w, h) = (self.pattern.width(), self.pattern.height());
        if let Some(i) = self
            .sequence
            .iter()
            .position(|&(_, (x, y))| x >= w || y >= h)
        {
            return Err(QueryError::SequenceOutside {
                index: i + 1,
                cell: self.sequence[i].1,
            });
        }
        if let Some((from, to)) = self.moves {
            if from > to {
                return Err(QueryError::Moves { from, to });
            }
        }
        self.filters.validate()?;
        Ok(())
    }

    /// [`Query::validate`], and that the pattern fits a board of `size` where it is placed.
    pub fn validate_on(&self, size: BoardSize) -> Result<(), QueryError> {
        self.validate()?;
        let n = u32::from(size.get());
        let (w, h) = (self.pattern.width(), self.pattern.height());
        let (fits, at) = match self.placement {
            Placement::At { col, row } => (
                col.checked_add(w).is_some_and(|e| e <= n)
                    && row.checked_add(h).is_some_and(|e| e <= n),
                format!(" at column {col}, row {row}"),
            ),
            // (Turned, a pattern fits where its longer side does.)
            _ => (w.max(h) <= n, String::new()),
        };
        if fits {
            Ok(())
        } else {
            Err(QueryError::Placement {
                width: w,
                height: h,
                at,
                size: n,
            })
        }
    }

    /// The distinct ways the pattern can appear on a board of `size`: each orientation and
    /// colour choice, with the places its top-left cell may take. Orientations that give the same
    /// cells at the same places (a symmetric pattern) are kept once, the first in the order
    /// identity, the other symmetries by index, then the same with colours swapped: a position
    /// is counted once however many of them it matches. With a side to move, a variant with
    /// the colours swapped is kept beside an unswapped one of the same cells (it wants the
    /// other side to move). Empty when the pattern does not fit.
    pub fn variants(&self, size: BoardSize) -> Vec<Variant> {
        self.variants_and_stabilizer(size).0
    }

    /// The searched orientations and colour choices that leave the pattern, at its places, as
    /// it is (always the identity): continuations that they exchange are the same continuation,
    /// and are counted under one name ([`Query::canonical`]).
    pub fn stabilizer(&self, size: BoardSize) -> Vec<Image> {
        self.variants_and_stabilizer(size).1
    }

    /// A continuation (cell of the pattern, colour) under the one name it has among those the
    /// `stabilizer` exchanges: the first by row, column and colour. So a move and its mirror
    /// image in a symmetric pattern are counted together, whichever orientation a game shows.
    pub fn canonical(
        &self,
        stabilizer: &[Image],
        cell: (u32, u32),
        color: Color,
    ) -> ((u32, u32), Color) {
        stabilizer
            .iter()
            .map(|&g| self.apply(g, cell, color))
            .min_by_key(|&((x, y), c)| (y, x, c == Color::White))
            .unwrap_or((cell, color))
    }

    /// A move of the pattern (cell, colour) moved by an element of the stabilizer.
    pub fn apply(&self, g: Image, cell: (u32, u32), color: Color) -> ((u32, u32), Color) {
        let (w, h) = (self.pattern.width(), self.pattern.height());
        if cell.0 >= w || cell.1 >= h {
            return (cell, color); // not a cell of the pattern (see `validate`)
        }
        let c = map_in_box(g.0, cell.0, cell.1, w, h);
        (c, if g.1 { color.opponent() } else { color })
    }

    /// The move that `g` (an element of the stabilizer) moves onto (`cell`, `color`).
    pub fn unapply(&self, g: Image, cell: (u32, u32), color: Color) -> ((u32, u32), Color) {
        let (w, h) = (self.pattern.width(), self.pattern.height());
        // The stabilizer keeps the box, so the inverse symmetry maps `cell` back into it (one
        // map per counted hit: searching the box for it took a tenth of a corner's search).
        let inverse = (cell.0 < w && cell.1 < h)
            .then(|| map_in_box(g.0.inverse(), cell.0, cell.1, w, h))
            .filter(|&(x, y)| x < w && y < h && map_in_box(g.0, x, y, w, h) == cell);
        let from = inverse.unwrap_or_else(|| {
            (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .find(|&(x, y)| map_in_box(g.0, x, y, w, h) == cell)
                .unwrap_or(cell)
        });
        (from, if g.1 { color.opponent() } else { color })
    }

    /// The elements of `stabilizer` that leave every move of the sequence as it is: those that
    /// still make two continuations one after the sequence is played.
    pub fn sequence_fixers(&self, stabilizer: &[Image]) -> Vec<Image> {
        stabilizer
            .iter()
            .copied()
            .filter(|&g| {
                self.sequence
                    .iter()
                    .all(|&(color, cell)| self.apply(g, cell, color) == (cell, color))
            })
            .collect()
    }

    fn variants_and_stabilizer(&self, size: BoardSize) -> (Vec<Variant>, Vec<Image>) {
        let mut stabilizer = Vec::new();
        let n = u32::from(size.get());
        let (w, h) = (self.pattern.width(), self.pattern.height());
        let syms: &[Symmetry] = if self.symmetries {
            &Symmetry::ALL
        } else {
            &[Symmetry::Identity]
        };
        let swaps: &[bool] = if self.swap_colors {
            &[false, true]
        } else {
            &[false]
        };
        let mut out: Vec<Variant> = Vec::new();
        for &swapped in swaps {
            let base = if swapped {
                self.pattern.swapped()
            } else {
                self.pattern.clone()
            };
            for &sym in syms {
                let pattern = base.transformed(sym);
                let (tw, th) = (pattern.width(), pattern.height());
                // Each place of the query's rectangle, moved by the symmetry: the new top-left
                // is the smaller coordinates of the moved far corners.
                let mut places: Vec<(u32, u32)> = self
                    .placement
                    .places(w, h, n)
                    .into_iter()
                    .map(|(col, row)| {
                        let a = sym.apply(Point::new(col, row, size).expect("fits"), size);
                        let b = sym.apply(
                            Point::new(col + w - 1, row + h - 1, size).expect("fits"),
                            size,
                        );
                        (
                            u32::from(a.col()).min(u32::from(b.col())),
                            u32::from(a.row()).min(u32::from(b.row())),
                        )
                    })
                    .collect();
                places.sort_by_key(|&(c, r)| (r, c));
                if places.is_empty() {
                    continue;
                }
                // The same cells at the same places are the same variant, but for a side to
                // move: the colours swapped want the other side, so an image that swaps the
                // colours is then a variant of its own (not a symmetry of the query).
                if let Some(i) = out.iter().position(|v| {
                    v.pattern == pattern
                        && v.places == places
                        && (self.to_play.is_none() || v.swapped == swapped)
                }) {
                    if i == 0 {
                        stabilizer.push((sym, swapped));
                    }
                    continue;
                }
                if out.is_empty() {
                    stabilizer.push((sym, swapped));
                }
                let mut back = vec![(0u32, 0u32); (tw * th) as usize];
                for y in 0..h {
                    for x in 0..w {
                        let (tx, ty) = map_in_box(sym, x, y, w, h);
                        back[(ty * tw + tx) as usize] = (x, y);
                    }
                }
                let mut checks: Vec<(u32, u32, Cell)> = (0..th)
                    .flat_map(|y| (0..tw).map(move |x| (x, y)))
                    .map(|(x, y)| (x, y, pattern.cell(x, y)))
                    .filter(|c| c.2.constrains())
                    .collect();
                checks.sort_by_key(|c| match c.2 {
                    Cell::Black | Cell::White => 0,
                    Cell::Empty => 1,
                    _ => 2,
                });
                out.push(Variant {
                    symmetry: sym,
                    swapped,
                    pattern,
                    places,
                    back,
                    checks,
                });
            }
        }
        (out, stabilizer)
    }
}

/// What [`Query::validate`] finds wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// A move of the sequence is not on a cell of the pattern.
    #[error("sequence move {index}: cell {cell:?} is outside the pattern")]
    SequenceOutside {
        /// Which move, from 1.
        index: usize,
        /// Its cell.
        cell: (u32, u32),
    },
    /// The move window ends before it starts.
    #[error("moves {from}-{to}: the window ends before it starts")]
    Moves {
        /// First move.
        from: u32,
        /// Last move.
        to: u32,
    },
    /// A condition on the games' information is wrong.
    #[error("filters: {0}")]
    Filters(#[from] crate::filter::FilterError),
    /// The pattern does not fit the board where it is placed (or at all).
    #[error("a {width}x{height} pattern{at} does not fit a {size}x{size} board")]
    Placement {
        /// The pattern's width.
        width: u32,
        /// Its height.
        height: u32,
        /// ` at column C, row R` for a fixed place, else empty.
        at: String,
        /// The board's side.
        size: u32,
    },
}

/// An orientation and whether colours are exchanged: an element of a pattern's symmetries.
pub type Image = (Symmetry, bool);

/// One orientation and colour choice of a query's pattern on one board size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The symmetry that turns the query's pattern into this one.
    pub symmetry: Symmetry,
    /// Whether colours are exchanged.
    pub swapped: bool,
    /// The pattern as it stands on the board.
    pub pattern: Pattern,
    /// Where its top-left cell may be (column, row).
    pub places: Vec<(u32, u32)>,
    // For each cell of `pattern`, the cell of the query's pattern it came from.
    back: Vec<(u32, u32)>,
    // The cells to test (column, row, cell), stones first: most places fail on a stone, so
    // testing those first rejects them after one look.
    pub(crate) checks: Vec<(u32, u32, Cell)>,
}

impl Variant {
    /// The cell of the query's pattern (column, row in the pattern) that the board point
    /// (`col`, `row`) is, with this variant's top-left at `place`; `None` outside the rectangle.
    pub fn query_cell(&self, place: (u32, u32), col: u32, row: u32) -> Option<(u32, u32)> {
        let (x, y) = (col.checked_sub(place.0)?, row.checked_sub(place.1)?);
        if x >= self.pattern.width() || y >= self.pattern.height() {
            return None;
        }
        Some(self.back[(y * self.pattern.width() + x) as usize])
    }

    /// The cell of the query's pattern that a move plays on, with this variant's top-left at
    /// `place`; `None` for a pass or a move outside the rectangle.
    pub fn move_cell(&self, place: (u32, u32), mv: kifu_go::Move) -> Option<(u32, u32)> {
        match mv {
            kifu_go::Move::Play(p) => {
                self.query_cell(place, u32::from(p.col()), u32::from(p.row()))
            }
            kifu_go::Move::Pass => None,
        }
    }

    /// Whether Black and whether White won a game whose winner is `winner`, in the query's
    /// colours.
    pub(crate) fn wins(&self, winner: Winner) -> (bool, bool) {
        let w = if self.swapped {
            winner.swapped()
        } else {
            winner
        };
        (
            w == crate::filter::Winner::Black,
            w == crate::filter::Winner::White,
        )
    }

    /// A colour on the board in the query's colours.
    pub fn query_color(&self, c: Color) -> Color {
        if self.swapped {
            c.opponent()
        } else {
            c
        }
    }

    /// Whether a position with `to_play` to move is one a query wanting `wanted` to move (in
    /// its colours; `None`: either) asks for in this variant's colours.
    pub fn wants_to_play(&self, wanted: Option<Color>, to_play: Color) -> bool {
        wanted.is_none_or(|tp| self.query_color(to_play) == tp)
    }

    /// The rectangle of the board this variant covers with its top-left at `place`: top-left,
    /// width and height. A position is one hit a rectangle, whichever variants stand on it.
    pub(crate) fn rectangle(&self, place: (u32, u32)) -> ((u32, u32), u32, u32) {
        (place, self.pattern.width(), self.pattern.height())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(n: u32) -> BoardSize {
        BoardSize::new(n).unwrap()
    }

    /// `unapply` takes back what `apply` did, for every image that keeps the pattern's box
    /// (all eight on a square, the four that do not turn it a quarter on a rectangle), and
    /// names the cell the image maps onto a given one for the others, as a search would.
    #[test]
    fn unapply_is_the_inverse_of_apply() {
        for rows in ["...\n...\n...", ".....\n.....\n....."] {
            let q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
            let (w, h) = (q.pattern.width(), q.pattern.height());
            for &sym in &Symmetry::ALL {
                for swap in [false, true] {
                    let g = (sym, swap);
                    for (x, y) in (0..h).flat_map(|y| (0..w).map(move |x| (x, y))) {
                        let (cell, color) = q.apply(g, (x, y), Color::Black);
                        let back = q.unapply(g, cell, color);
                        let searched = (0..h)
                            .flat_map(|y| (0..w).map(move |x| (x, y)))
                            .find(|&(x, y)| map_in_box(sym, x, y, w, h) == cell)
                            .unwrap_or(cell);
                        assert_eq!(back.0, searched, "{sym:?} {:?}", (x, y));
                        assert_eq!(back.1, Color::Black);
                        if w == h
                            || !matches!(
                                sym,
                                Symmetry::Rotate90
                                    | Symmetry::Rotate270
                                    | Symmetry::Transpose
                                    | Symmetry::AntiTranspose
                            )
                        {
                            assert_eq!(back.0, (x, y), "{sym:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_corner_pattern_goes_to_the_four_corners() {
        let p = Pattern::parse("#O\n..\n..").unwrap();
        let q = Query::new(p, Placement::At { col: 0, row: 0 });
        let v = q.variants(size(19));
        assert_eq!(v.len(), 8);
        let mut places: Vec<(u32, u32)> = v.iter().map(|v| v.places[0]).collect();
        places.sort();
        places.dedup();
        // 3x2 and 2x3 rectangles in each corner.
        assert_eq!(
            places,
            vec![
                (0, 0),
                (0, 16),
                (0, 17),
                (16, 0),
                (17, 0),
                (17, 16),
                (16, 17)
            ]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
        );
    }

    #[test]
    fn symmetric_patterns_keep_distinct_variants_only() {
        // A single stone anywhere: one orientation; with colours swapped, two.
        let mut q = Query::new(Pattern::parse("#").unwrap(), Placement::Anywhere);
        assert_eq!(q.variants(size(9)).len(), 1);
        q.swap_colors = true;
        let v = q.variants(size(9));
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].places.len(), 81);
        // The 3-3 point of a corner pattern: symmetric under the diagonal mirror.
        let p = Pattern::parse("...\n...\n..#").unwrap();
        let q = Query::new(p, Placement::At { col: 0, row: 0 });
        assert_eq!(q.variants(size(19)).len(), 4);
    }

    #[test]
    fn side_patterns_slide_along_every_edge() {
        let p = Pattern::parse("...\n.#.").unwrap();
        let q = Query::new(p, Placement::Edge { side: Side::Top });
        let v = q.variants(size(9));
        // 7 places along each of the 4 edges; the pattern is symmetric left-right, so the 8
        // symmetries give 4 variants.
        assert_eq!(v.len(), 4);
        assert!(v.iter().all(|v| v.places.len() == 7));
        let mut all: Vec<(u32, u32)> = v.iter().flat_map(|v| v.places.clone()).collect();
        all.sort();
        assert!(all.contains(&(0, 0)) && all.contains(&(7, 6)) && all.contains(&(3, 7)));
        assert_eq!(
            Placement::of_region(0, 0, 19, 19, 19),
            Placement::At { col: 0, row: 0 }
        );
        assert_eq!(
            Placement::of_region(3, 14, 5, 5, 19),
            Placement::Edge { side: Side::Bottom }
        );
        assert_eq!(Placement::of_region(3, 3, 5, 5, 19), Placement::Anywhere);
        assert_eq!(
            Placement::of_region(15, 0, 4, 4, 19),
            Placement::At { col: 15, row: 0 }
        );
    }

    #[test]
    fn mirror_continuations_share_one_name() {
        // The 3-3 corner is symmetric in the diagonal: C16-like cells (2,3) and (3,2) are one.
        let p = Pattern::parse("....\n....\n..#.\n....").unwrap();
        let q = Query::new(p, Placement::At { col: 0, row: 0 });
        let st = q.stabilizer(size(19));
        assert_eq!(
            st,
            vec![(Symmetry::Identity, false), (Symmetry::Transpose, false)]
        );
        assert_eq!(
            q.canonical(&st, (3, 2), Color::White),
            ((3, 2), Color::White)
        );
        assert_eq!(
            q.canonical(&st, (2, 3), Color::White),
            ((3, 2), Color::White)
        );
        // An empty 2x2 corner with colours swapped: every orientation and colour choice fixes it.
        let mut q = Query::new(
            Pattern::parse("..\n..").unwrap(),
            Placement::At { col: 0, row: 0 },
        );
        q.swap_colors = true;
        let st = q.stabilizer(size(9));
        assert_eq!(st.len(), 4);
        assert_eq!(
            q.canonical(&st, (0, 1), Color::White),
            ((1, 0), Color::Black)
        );
    }

    #[test]
    fn board_points_map_back_to_query_cells() {
        let p = Pattern::parse("#O.\n...").unwrap();
        let q = Query::new(p.clone(), Placement::At { col: 0, row: 0 });
        for v in q.variants(size(9)) {
            let place = v.places[0];
            for y in 0..v.pattern.height() {
                for x in 0..v.pattern.width() {
                    let (qx, qy) = v.query_cell(place, place.0 + x, place.1 + y).unwrap();
                    assert_eq!(p.cell(qx, qy), v.pattern.cell(x, y), "{:?}", v.symmetry);
                }
            }
            assert_eq!(v.query_cell(place, place.0 + 5, place.1), None);
        }
        // Too large for the board: nothing to seek.
        let big = Pattern::parse(&"#".repeat(10)).unwrap();
        assert!(Query::new(big, Placement::Anywhere)
            .variants(size(9))
            .is_empty());
    }
}
