//! SVG diagrams: a wood-coloured board with grid, star points, coordinates, stones, the last move,
//! SGF markup (`LB`, `TR`, `SQ`, `CR`, `MA`) and optional move numbers. Plain SVG 1.1 text, no
//! scripts, no external resources.

use crate::board::Board;
use crate::coord::{Color, Point, COLUMN_LETTERS};
use std::fmt::Write as _;

/// A text label on a point (SGF `LB`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub point: Point,
    /// The text (a letter or a short word; XML special characters are escaped).
    pub text: String,
}

/// A number drawn on a stone (or on an empty point, for a stone since captured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveNumber {
    /// Where.
    pub point: Point,
    /// The move number shown.
    pub number: u32,
}

/// What is drawn on top of the stones. The SGF layer fills it from a node's properties.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Markup {
    /// The last move, marked with a ring (unless a number or other markup is on that point).
    pub last_move: Option<Point>,
    /// `LB`: labels.
    pub labels: Vec<Label>,
    /// `TR`: triangles.
    pub triangles: Vec<Point>,
    /// `SQ`: squares.
    pub squares: Vec<Point>,
    /// `CR`: circles.
    pub circles: Vec<Point>,
    /// `MA`: crosses.
    pub crosses: Vec<Point>,
    /// Move numbers on stones.
    pub move_numbers: Vec<MoveNumber>,
}

/// How the SVG looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvgOptions {
    /// Distance between grid lines in SVG units (pixels); the stone diameter is about this.
    pub spacing: f64,
    /// Whether to write the coordinates (letters without `I`, rows from the bottom) around the grid.
    pub coordinates: bool,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            spacing: 24.0,
            coordinates: true,
        }
    }
}

const WOOD: &str = "#dcb35c";
const LINE: &str = "#3c2d14";

/// Formats a coordinate with at most two decimals and no trailing zeros.
fn num(x: f64) -> String {
    let s = format!("{:.2}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Writes an SVG diagram of `board` with `markup`. Markup on points off the board is ignored.
pub fn svg_diagram(board: &Board, markup: &Markup, options: &SvgOptions) -> String {
    let size = board.size();
    let n = usize::from(size.get());
    let u = if options.spacing.is_finite() && options.spacing > 0.0 {
        options.spacing
    } else {
        SvgOptions::default().spacing
    };
    let margin = if options.coordinates {
        1.6 * u
    } else {
        0.8 * u
    };
    let extent = (n - 1) as f64 * u;
    let total = extent + 2.0 * margin;
    let x = |col: usize| margin + col as f64 * u;
    let y = |row: usize| margin + row as f64 * u;
    let on = |p: &Point| p.is_on(size);

    let mut s = String::with_capacity(4096 + n * n * 64);
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{w}\" height=\"{w}\" \
         viewBox=\"0 0 {w} {w}\" font-family=\"Helvetica, Arial, sans-serif\">",
        w = num(total)
    );
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{w}\" fill=\"{WOOD}\"/>",
        w = num(total)
    );
    // Grid.
    let _ = writeln!(
        s,
        "<g stroke=\"{LINE}\" stroke-width=\"{}\" stroke-linecap=\"square\">",
        num(u / 24.0)
    );
    for i in 0..n {
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            num(x(0)),
            num(y(i)),
            num(x(n - 1)),
            num(y(i))
        );
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            num(x(i)),
            num(y(0)),
            num(x(i)),
            num(y(n - 1))
        );
    }
    s.push_str("</g>\n");
    // Star points.
    let _ = writeln!(s, "<g fill=\"{LINE}\">");
    for p in size.star_points() {
        let _ = writeln!(
            s,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            num(x(p.col().into())),
            num(y(p.row().into())),
            num(u * 0.11)
        );
    }
    s.push_str("</g>\n");
    // Coordinates.
    if options.coordinates {
        let _ = writeln!(
            s,
            "<g fill=\"{LINE}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\">",
            num(u * 0.45)
        );
        let near = margin * 0.45;
        let far = total - near;
        for (i, &letter) in COLUMN_LETTERS.iter().enumerate().take(n) {
            let letter = letter as char;
            for yy in [near, far] {
                let _ = writeln!(
                    s,
                    "<text x=\"{}\" y=\"{}\">{letter}</text>",
                    num(x(i)),
                    num(yy)
                );
            }
            let number = n - i;
            for xx in [near, far] {
                let _ = writeln!(
                    s,
                    "<text x=\"{}\" y=\"{}\">{number}</text>",
                    num(xx),
                    num(y(i))
                );
            }
        }
        s.push_str("</g>\n");
    }
    // Stones.
    let r = u * 0.48;
    for (p, c) in board.stones() {
        let (fill, stroke) = match c {
            Color::Black => ("#000000", "#000000"),
            Color::White => ("#ffffff", "#000000"),
        };
        let _ = writeln!(
            s,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{}\"/>",
            num(x(p.col().into())),
            num(y(p.row().into())),
            num(r),
            num(u / 24.0)
        );
    }
    // Markup, drawn in the colour that stands out on what lies beneath.
    let ink = |p: Point| match board.get(p) {
        Some(Color::Black) => "#ffffff",
        _ => "#000000",
    };
    // Empty points under text get a patch of wood so the grid does not cross the text.
    let patch = |s: &mut String, p: Point| {
        if board.get(p).is_none() {
            let _ = writeln!(
                s,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{WOOD}\"/>",
                num(x(p.col().into())),
                num(y(p.row().into())),
                num(u * 0.36)
            );
        }
    };
    let mut marked: Vec<Point> = Vec::new();
    for m in markup.move_numbers.iter().filter(|m| on(&m.point)) {
        let p = m.point;
        patch(&mut s, p);
        let text = m.number.to_string();
        let fs = if text.len() >= 3 { u * 0.38 } else { u * 0.48 };
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"{}\">{text}</text>",
            num(x(p.col().into())),
            num(y(p.row().into())),
            num(fs),
            ink(p)
        );
        marked.push(p);
    }
    for l in markup.labels.iter().filter(|l| on(&l.point)) {
        let p = l.point;
        patch(&mut s, p);
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"{}\">{}</text>",
            num(x(p.col().into())),
            num(y(p.row().into())),
            num(u * 0.5),
            ink(p),
            escape(&l.text)
        );
        marked.push(p);
    }
    let sw = num(u * 0.07);
    for &p in markup.triangles.iter().filter(|p| on(p)) {
        let (cx, cy, h) = (x(p.col().into()), y(p.row().into()), u * 0.3);
        let _ = writeln!(
            s,
            "<polygon points=\"{},{} {},{} {},{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{sw}\"/>",
            num(cx),
            num(cy - h),
            num(cx - h * 0.866),
            num(cy + h * 0.5),
            num(cx + h * 0.866),
            num(cy + h * 0.5),
            ink(p)
        );
        marked.push(p);
    }
    for &p in markup.squares.iter().filter(|p| on(p)) {
        let half = u * 0.22;
        let _ = writeln!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{sw}\"/>",
            num(x(p.col().into()) - half),
            num(y(p.row().into()) - half),
            num(2.0 * half),
            num(2.0 * half),
            ink(p)
        );
        marked.push(p);
    }
    for &p in markup.circles.iter().filter(|p| on(p)) {
        let _ = writeln!(
            s,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{sw}\"/>",
            num(x(p.col().into())),
            num(y(p.row().into())),
            num(u * 0.24),
            ink(p)
        );
        marked.push(p);
    }
    for &p in markup.crosses.iter().filter(|p| on(p)) {
        let (cx, cy, h) = (x(p.col().into()), y(p.row().into()), u * 0.2);
        let _ = writeln!(
            s,
            "<path d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"{}\" stroke-width=\"{sw}\"/>",
            num(cx - h),
            num(cy - h),
            num(cx + h),
            num(cy + h),
            num(cx - h),
            num(cy + h),
            num(cx + h),
            num(cy - h),
            ink(p)
        );
        marked.push(p);
    }
    if let Some(p) = markup.last_move.filter(|p| on(p) && !marked.contains(p)) {
        let _ = writeln!(
            s,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>",
            num(x(p.col().into())),
            num(y(p.row().into())),
            num(u * 0.22),
            if board.get(p) == Some(Color::Black) {
                "#ffffff"
            } else {
                "#cc0000"
            },
            num(u * 0.09)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::BoardSize;

    fn pt(s: &str, size: BoardSize) -> Point {
        Point::from_human(s, size).unwrap()
    }

    #[test]
    fn draws_everything_once() {
        let size = BoardSize::NINE;
        let mut board = Board::new(size);
        board.set(pt("C3", size), Some(Color::Black)).unwrap();
        board.set(pt("D4", size), Some(Color::White)).unwrap();
        let markup = Markup {
            last_move: Some(pt("D4", size)),
            labels: vec![Label {
                point: pt("E5", size),
                text: "a<&>".to_owned(),
            }],
            triangles: vec![pt("C3", size)],
            squares: vec![pt("A1", size)],
            circles: vec![pt("J9", size)],
            crosses: vec![pt("B2", size)],
            move_numbers: vec![],
        };
        let svg = svg_diagram(&board, &markup, &SvgOptions::default());
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
        // 9 + 9 grid lines, 5 star points.
        assert_eq!(svg.matches("<line ").count(), 18);
        assert_eq!(svg.matches("r=\"2.64\"/>").count(), 5);
        // Size: 8 * 24 between the outer lines plus 2 * 1.6 * 24 of margin.
        assert!(svg.contains("width=\"268.8\""));
        // Stones: black on C3 = (x 86.4, y 182.4), white on D4.
        assert!(svg.contains(
            "<circle cx=\"86.4\" cy=\"182.4\" r=\"11.52\" fill=\"#000000\" stroke=\"#000000\""
        ));
        assert!(svg.contains("<circle cx=\"110.4\" cy=\"158.4\" r=\"11.52\" fill=\"#ffffff\""));
        // Coordinates on four sides: each letter twice, I never.
        assert_eq!(svg.matches(">J</text>").count(), 2);
        assert_eq!(svg.matches(">I</text>").count(), 0);
        assert_eq!(svg.matches(">9</text>").count(), 2);
        // Markup: the triangle on the black stone is white; the label is escaped.
        assert!(svg.contains("stroke=\"#ffffff\" stroke-width=\"1.68\"/>"));
        assert!(svg.contains(">a&lt;&amp;&gt;</text>"));
        assert_eq!(svg.matches("<polygon").count(), 1);
        assert_eq!(svg.matches("<path").count(), 1);
        assert_eq!(svg.matches("<rect").count(), 2);
        // The last move on the white stone: a red ring.
        assert!(svg.contains("r=\"5.28\" fill=\"none\" stroke=\"#cc0000\""));
        // Tags balance.
        assert_eq!(svg.matches("<g ").count(), svg.matches("</g>").count());
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }

    #[test]
    fn numbers_replace_the_last_move_ring_and_no_coordinates() {
        let size = BoardSize::new(5).unwrap();
        let mut board = Board::new(size);
        board.set(pt("C3", size), Some(Color::Black)).unwrap();
        let markup = Markup {
            last_move: Some(pt("C3", size)),
            move_numbers: vec![
                MoveNumber {
                    point: pt("C3", size),
                    number: 1,
                },
                MoveNumber {
                    point: pt("A1", size),
                    number: 120,
                },
            ],
            ..Markup::default()
        };
        let opts = SvgOptions {
            spacing: 20.0,
            coordinates: false,
        };
        let svg = svg_diagram(&board, &markup, &opts);
        assert!(svg.contains(">1</text>"));
        assert!(
            svg.contains("font-size=\"7.6\""),
            "three digits are smaller"
        );
        assert!(svg.contains("fill=\"#ffffff\">1</text>"), "white on black");
        assert!(!svg.contains("stroke=\"#cc0000\""));
        assert!(!svg.contains("stroke=\"#ffffff\" stroke-width=\"1.8\""));
        assert!(!svg.contains(">A</text>"));
        assert!(svg.contains("width=\"112\""));
    }
}
