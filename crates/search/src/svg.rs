//! The pattern as a diagram, with its continuations labelled: one SVG for the CLI and the server.
//!
//! The pattern stands where the query puts it (a corner pattern in its corner; a side pattern
//! in the middle of its edge; a free pattern in the middle of the board). Cells that ask for a
//! stone show it; wildcards are marked: a cross for "anything", a triangle for "empty or black",
//! a square for "empty or white"; empty cells stay empty, and the points just outside the
//! pattern carry a circle, so its edge shows. Each continuation's cell carries a letter, `A` for the most played, in the
//! order of [`SearchAnswer::continuations`] (both colours of one cell share the first letter).

use crate::answer::SearchAnswer;
use crate::pattern::Cell;
use crate::query::{Placement, Query, Side};
use kifu_go::diagram::{svg_diagram, Label, Markup, SvgOptions};
use kifu_go::{Board, BoardSize, Color, Point};

/// The top-left cell of the pattern on the diagram.
fn origin(q: &Query, n: u32) -> (u32, u32) {
    let (w, h) = (q.pattern.width(), q.pattern.height());
    let mid = |len: u32| (n.saturating_sub(len)) / 2;
    match q.placement {
        Placement::At { col, row } => (col, row),
        Placement::Edge { side } => match side {
            Side::Top => (mid(w), 0),
            Side::Bottom => (mid(w), n - h),
            Side::Left => (0, mid(h)),
            Side::Right => (n - w, mid(h)),
        },
        Placement::Anywhere => (mid(w), mid(h)),
    }
}

/// The SVG of `query`'s pattern on a board of `size` with the continuations of `answer`
/// lettered as their `label`s say. `None` if the pattern does not fit the board.
pub fn pattern_svg(
    query: &Query,
    answer: Option<&SearchAnswer>,
    size: BoardSize,
) -> Option<String> {
    let n = u32::from(size.get());
    let p = &query.pattern;
    if p.width() > n || p.height() > n {
        return None;
    }
    let (c0, r0) = origin(query, n);
    if c0 + p.width() > n || r0 + p.height() > n {
        return None;
    }
    let mut board = Board::new(size);
    let mut markup = Markup::default();
    for y in 0..n {
        for x in 0..n {
            let point = Point::new(x, y, size).ok()?;
            let inside = x >= c0 && y >= r0 && x - c0 < p.width() && y - r0 < p.height();
            if !inside {
                // The ring of points just outside the pattern shows where it ends.
                let near =
                    x + 1 >= c0 && y + 1 >= r0 && x <= c0 + p.width() && y <= r0 + p.height();
                if near {
                    markup.circles.push(point);
                }
                continue;
            }
            match p.cell(x - c0, y - r0) {
                Cell::Black => {
                    board.set(point, Some(Color::Black)).ok()?;
                }
                Cell::White => {
                    board.set(point, Some(Color::White)).ok()?;
                }
                Cell::Empty => {}
                Cell::Any => markup.crosses.push(point),
                Cell::EmptyOrBlack => markup.triangles.push(point),
                Cell::EmptyOrWhite => markup.squares.push(point),
            }
        }
    }
    for c in answer.map_or(&[][..], |a| &a.continuations[..]) {
        let (Some(letter), Ok(point)) = (c.label, Point::new(c0 + c.cell.0, r0 + c.cell.1, size))
        else {
            continue;
        };
        if !markup.labels.iter().any(|l| l.point == point) {
            markup.labels.push(Label {
                point,
                text: letter.to_string(),
            });
        }
    }
    Some(svg_diagram(&board, &markup, &SvgOptions::default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;

    #[test]
    fn stones_wildcards_and_letters() {
        let q = Query::new(
            Pattern::parse("#*x/o..").unwrap(),
            Placement::At { col: 0, row: 0 },
        );
        let svg = pattern_svg(&q, None, BoardSize::new(9).unwrap()).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("</svg>"));
        let big = Query::new(
            Pattern::parse(&"#".repeat(10)).unwrap(),
            Placement::Anywhere,
        );
        assert!(pattern_svg(&big, None, BoardSize::new(9).unwrap()).is_none());
    }
}
