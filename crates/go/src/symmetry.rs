//! The 8 symmetries of the square board (the dihedral group of order 8).

use crate::coord::{BoardSize, Point};
use std::fmt;

/// One of the 8 symmetries of a square board.
///
/// The order is fixed (it is the index stored with canonical hashes, and never changes). With `x` the
/// column from the left, `y` the row from the top and `m = size - 1`, symmetry `i` maps `(x, y)` to:
///
/// | index | symmetry | `(x, y)` becomes |
/// |---|---|---|
/// | 0 | [`Identity`](Symmetry::Identity) | `(x, y)` |
/// | 1 | [`Rotate90`](Symmetry::Rotate90) (clockwise, as seen on a diagram) | `(m - y, x)` |
/// | 2 | [`Rotate180`](Symmetry::Rotate180) | `(m - x, m - y)` |
/// | 3 | [`Rotate270`](Symmetry::Rotate270) (90° anticlockwise) | `(y, m - x)` |
/// | 4 | [`FlipHorizontal`](Symmetry::FlipHorizontal) (left and right swap) | `(m - x, y)` |
/// | 5 | [`FlipVertical`](Symmetry::FlipVertical) (top and bottom swap) | `(x, m - y)` |
/// | 6 | [`Transpose`](Symmetry::Transpose) (mirror in the top-left to bottom-right diagonal) | `(y, x)` |
/// | 7 | [`AntiTranspose`](Symmetry::AntiTranspose) (mirror in the other diagonal) | `(m - y, m - x)` |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symmetry {
    /// Index 0: nothing moves.
    Identity = 0,
    /// Index 1: a quarter turn clockwise; the top-left corner goes to the top-right.
    Rotate90 = 1,
    /// Index 2: a half turn.
    Rotate180 = 2,
    /// Index 3: a quarter turn anticlockwise; the top-left corner goes to the bottom-left.
    Rotate270 = 3,
    /// Index 4: mirror left-right.
    FlipHorizontal = 4,
    /// Index 5: mirror top-bottom.
    FlipVertical = 5,
    /// Index 6: mirror in the main diagonal (top-left to bottom-right); `(x, y)` becomes `(y, x)`.
    Transpose = 6,
    /// Index 7: mirror in the anti-diagonal (top-right to bottom-left).
    AntiTranspose = 7,
}

impl Symmetry {
    /// All 8 symmetries in index order.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipHorizontal,
        Symmetry::FlipVertical,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// The index 0..8 of the table above.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The symmetry of index `i`, if `i < 8`.
    pub const fn from_index(i: usize) -> Option<Symmetry> {
        if i < 8 {
            Some(Self::ALL[i])
        } else {
            None
        }
    }

    /// Where a point goes on a board of `size`. A point that is not on a board of `size` (one built
    /// for a larger board) is returned unchanged rather than mapped off the board.
    #[inline]
    pub fn apply(self, p: Point, size: BoardSize) -> Point {
        let (x, y) = self.apply_xy(p.col(), p.row(), size.get());
        Point::new(u32::from(x), u32::from(y), size).unwrap_or(p)
    }

    /// The mapping on raw column/row numbers for a board of side `n` (internal; keeps `apply` short).
    #[inline]
    pub(crate) const fn apply_xy(self, x: u8, y: u8, n: u8) -> (u8, u8) {
        let m = n.wrapping_sub(1);
        let (x, y) = (x, y);
        match self {
            Symmetry::Identity => (x, y),
            Symmetry::Rotate90 => (m.wrapping_sub(y), x),
            Symmetry::Rotate180 => (m.wrapping_sub(x), m.wrapping_sub(y)),
            Symmetry::Rotate270 => (y, m.wrapping_sub(x)),
            Symmetry::FlipHorizontal => (m.wrapping_sub(x), y),
            Symmetry::FlipVertical => (x, m.wrapping_sub(y)),
            Symmetry::Transpose => (y, x),
            Symmetry::AntiTranspose => (m.wrapping_sub(y), m.wrapping_sub(x)),
        }
    }

    /// The symmetry that undoes this one: `s.inverse().apply(s.apply(p)) == p`. Only the quarter turns
    /// are not their own inverses.
    pub const fn inverse(self) -> Symmetry {
        match self {
            Symmetry::Rotate90 => Symmetry::Rotate270,
            Symmetry::Rotate270 => Symmetry::Rotate90,
            s => s,
        }
    }

    /// `self` first, then `next`: `s.then(t).apply(p) == t.apply(s.apply(p))`.
    pub const fn then(self, next: Symmetry) -> Symmetry {
        THEN[self as usize][next as usize]
    }

    /// Mathematical composition `self ∘ other`: `other` first, then `self`
    /// (`s.compose(t).apply(p) == s.apply(t.apply(p))`). Same as `other.then(self)`.
    pub const fn compose(self, other: Symmetry) -> Symmetry {
        other.then(self)
    }
}

impl fmt::Display for Symmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Symmetry::Identity => "identity",
            Symmetry::Rotate90 => "rotate 90",
            Symmetry::Rotate180 => "rotate 180",
            Symmetry::Rotate270 => "rotate 270",
            Symmetry::FlipHorizontal => "flip horizontal",
            Symmetry::FlipVertical => "flip vertical",
            Symmetry::Transpose => "transpose",
            Symmetry::AntiTranspose => "anti-transpose",
        })
    }
}

/// `THEN[a][b]` is `a.then(b)`, worked out at compile time by following the corners of a 3x3 board:
/// the image of `(0, 0)` and `(1, 0)` identifies a symmetry.
const THEN: [[Symmetry; 8]; 8] = {
    let mut table = [[Symmetry::Identity; 8]; 8];
    let mut a = 0;
    while a < 8 {
        let mut b = 0;
        while b < 8 {
            let (p0, p1) = {
                let s = Symmetry::ALL[a];
                let t = Symmetry::ALL[b];
                let q0 = s.apply_xy(0, 0, 3);
                let q1 = s.apply_xy(1, 0, 3);
                (t.apply_xy(q0.0, q0.1, 3), t.apply_xy(q1.0, q1.1, 3))
            };
            let mut c = 0;
            while c < 8 {
                let u = Symmetry::ALL[c];
                let r0 = u.apply_xy(0, 0, 3);
                let r1 = u.apply_xy(1, 0, 3);
                if r0.0 == p0.0 && r0.1 == p0.1 && r1.0 == p1.0 && r1.1 == p1.1 {
                    table[a][b] = u;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(s: &[u8], size: BoardSize) -> Point {
        Point::from_sgf(s, size).unwrap()
    }

    #[test]
    fn documented_images_of_a_corner() {
        let n = BoardSize::NINETEEN;
        // A stone near the top-left corner, on the 3-4 point (SGF "cd", C16).
        let p = pt(b"cd", n);
        let images: Vec<String> = Symmetry::ALL
            .iter()
            .map(|s| s.apply(p, n).to_human(n))
            .collect();
        assert_eq!(images, ["C16", "Q17", "R4", "D3", "R16", "C4", "D17", "Q3"]);
    }

    #[test]
    fn group_laws_exhaustive() {
        let n = BoardSize::new(5).unwrap();
        for s in Symmetry::ALL {
            assert_eq!(Symmetry::Identity.then(s), s);
            assert_eq!(s.then(Symmetry::Identity), s);
            assert_eq!(s.then(s.inverse()), Symmetry::Identity);
            assert_eq!(s.inverse().then(s), Symmetry::Identity);
            for t in Symmetry::ALL {
                for p in n.all_points() {
                    assert_eq!(s.then(t).apply(p, n), t.apply(s.apply(p, n), n));
                    assert_eq!(s.compose(t).apply(p, n), s.apply(t.apply(p, n), n));
                }
            }
        }
        // The 8 are distinct maps.
        let p = pt(b"ba", n);
        let mut images: Vec<Point> = Symmetry::ALL.iter().map(|s| s.apply(p, n)).collect();
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
        assert_eq!(Symmetry::from_index(8), None);
        for (i, s) in Symmetry::ALL.iter().enumerate() {
            assert_eq!(s.index(), i);
            assert_eq!(Symmetry::from_index(i), Some(*s));
        }
    }
}
