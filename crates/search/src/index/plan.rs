//! A query's variants prepared for the pattern index: each variant's constraining cells,
//! stones, places and row masks, and every (variant, place) the columns and the walk number.

use crate::query::Variant;
use kifu_go::Color;

/// A variant as the index tests it.
#[derive(Debug)]
pub(super) struct VariantPlan {
    /// Constraining cells: column, row in the rectangle, and the states (bit 0 empty, 1 black,
    /// 2 white) that do not match.
    pub(super) cells: Vec<(u8, u8, u8)>,
    /// Cells that need a black stone, then a white one.
    pub(super) blacks: Vec<(u8, u8)>,
    pub(super) whites: Vec<(u8, u8)>,
    /// Cells that must be empty.
    pub(super) empties: Vec<(u8, u8)>,
    /// The same cells as runs along their rows: first column, row, length.
    pub(super) empty_runs: Vec<(u8, u8, u8)>,
    /// The same runs as the prune reads them ([`super::prune::Minima`]): the first points of
    /// the two spans of `2^k` points that cover a run, as offsets from the place's point
    /// (`y * n + x`) into level `k` (plus `k` times [`super::prune::STRIDE`]: one add and one
    /// mask a span, the level found with it).
    pub(super) run_spans: Vec<[u16; 2]>,
    /// The same spans as one list, those of a run whose two spans are one byte (a run of one,
    /// two or four cells) read once: what the prune's test reads (a survivor's cell is named
    /// through `run_spans`).
    pub(super) run_reads: Vec<u16>,
    /// The constraining cells that do not want an empty point (stones, wildcards), which the
    /// prune tests one by one beside the runs.
    pub(super) others: Vec<(u8, u8, u8)>,
    /// The stones (black, then white) as offsets from the place's point (`y * n + x`).
    pub(super) stone_at: Vec<u16>,
    /// The rows where its top-left may be, each with its places (bit `c`: place (c, row)).
    pub(super) allowed: Vec<(usize, u32)>,
    /// The cells that mismatch the empty board.
    pub(super) empty_mismatches: u16,
    /// The rectangle's width (its height is the number of `rows`).
    pub(super) width: u32,
    /// Per row of the rectangle, bits of its cells by column that a black stone, a white
    /// stone and an empty point do not match ([`VariantPlan::wrong`]).
    pub(super) rows: Vec<[u32; 3]>,
    /// The rows that an empty board does not match (bits).
    pub(super) empty_bad: u64,
    /// The rows with cells that allow empty and a stone (`*`, `x`, `o`), each with those
    /// cells (bits by column).
    pub(super) wild_rows: Vec<(u8, u32)>,
}

impl VariantPlan {
    /// The cells of row `y` of the rectangle that a row of the board does not match, given
    /// its black and white stones as bits from the rectangle's first column (bits past the
    /// rectangle's width are ignored).
    #[inline(always)]
    pub(super) fn wrong(&self, y: usize, b: u32, w: u32) -> u32 {
        let [xb, xw, xe] = self.rows[y];
        (b & xb) | (w & xw) | (!(b | w) & xe)
    }
}

/// A query's variants on one board size, ready for the index.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(super) variants: Vec<VariantPlan>,
    /// Every variant at each of its places, as candidates (variant, (column, row)), in
    /// [`Plan::places`]' order.
    pub(super) placed: Vec<(u32, (u32, u32))>,
    /// Whether two variants of the same rectangle may stand on one place at once (some
    /// board matches both: wildcards, or two sides' images that look alike where the sides
    /// meet), so that a place's hits must be told apart from its candidates'
    /// ([`super::workspace::Workspace::standing_now`]).
    pub(super) overlap: bool,
    /// Per variant, the others that may stand on one rectangle with it ([`Plan::overlap`]).
    pub(super) twins: Vec<Vec<u32>>,
    /// Whether every cell of every variant wants one state (no wildcard): then a candidate
    /// that stands stops at any change inside its rectangle ([`super::intervals`]).
    pub(super) strict: bool,
    /// The levels of [`super::prune::Minima`] the variants' runs of empty cells read (0: no
    /// such run).
    pub(super) run_levels: usize,
    /// The variants as the dense prune reads them ([`super::dense`]; made by
    /// [`Plan::make_dense`] when a search uses it), the sets of states their cells do not
    /// match, and the shapes of cells wanted empty they read.
    pub(super) dense: Vec<super::dense::DenseVariant>,
    pub(super) dense_kinds: super::dense::Kinds,
    pub(super) dense_shapes: u8,
    /// Whether the games' places are found by the dense prune rather than the columns (set
    /// for each search by [`super::dense::dense_or_columns`]).
    pub(super) dense_on: bool,
}

/// Whether `a` and `b` can stand on one rectangle of the board at once: rectangles of the
/// same size, at a place both may take, whose cells all allow a common state. (Two images of
/// a corner pattern that look alike stand in different corners: they cannot.)
fn can_both_stand(a: &Variant, b: &Variant) -> bool {
    let (w, h) = (a.pattern.width(), a.pattern.height());
    if (w, h) != (b.pattern.width(), b.pattern.height()) {
        return false;
    }
    if !a.places.iter().any(|p| b.places.contains(p)) {
        return false;
    }
    let states = |v: &Variant| {
        let mut grid = vec![0b111u8; (w * h) as usize];
        for &(x, y, c) in &v.checks {
            let mut allowed = 0u8;
            for (s, stone) in [None, Some(Color::Black), Some(Color::White)]
                .into_iter()
                .enumerate()
            {
                allowed |= u8::from(c.matches(stone)) << s;
            }
            grid[(y * w + x) as usize] &= allowed;
        }
        grid
    };
    states(a).iter().zip(states(b)).all(|(x, y)| x & y != 0)
}

impl Plan {
    /// The plan of `variants` on an `n` x `n` board.
    pub(crate) fn new(variants: &[Variant], n: usize) -> Plan {
        let source = variants;
        let variants: Vec<VariantPlan> = variants
            .iter()
            .map(|v| {
                let cells: Vec<(u8, u8, u8)> = v
                    .checks
                    .iter()
                    .map(|&(x, y, c)| {
                        let mut m = 0u8;
                        for (s, stone) in [None, Some(Color::Black), Some(Color::White)]
                            .into_iter()
                            .enumerate()
                        {
                            if !c.matches(stone) {
                                m |= 1 << s;
                            }
                        }
                        (x as u8, y as u8, m)
                    })
                    .collect();
                let only = |bit: u8| -> Vec<(u8, u8)> {
                    cells
                        .iter()
                        .filter(|c| c.2 == 0b111 & !bit)
                        .map(|c| (c.0, c.1))
                        .collect()
                };
                let mut rows_allowed = vec![0u32; n];
                for &(c, r) in &v.places {
                    rows_allowed[r as usize] |= 1 << c;
                }
                let allowed: Vec<(usize, u32)> = rows_allowed
                    .into_iter()
                    .enumerate()
                    .filter(|&(_, m)| m != 0)
                    .collect();
                let mut rows = vec![[0u32; 3]; v.pattern.height() as usize];
                for &(x, y, m) in &cells {
                    for (state, bits) in rows[usize::from(y)].iter_mut().enumerate() {
                        // States in `m`: empty (bit 0), black, white; here black, white, empty.
                        if m >> ((state + 1) % 3) & 1 != 0 {
                            *bits |= 1 << x;
                        }
                    }
                }
                let (blacks, whites) = (only(0b010), only(0b100));
                let empties = only(0b001);
                let mut by_rows = empties.clone();
                by_rows.sort_unstable_by_key(|&(x, y)| (y, x));
                let mut empty_runs: Vec<(u8, u8, u8)> = Vec::new();
                for &(x, y) in &by_rows {
                    match empty_runs.last_mut() {
                        Some((x0, y0, len)) if *y0 == y && *x0 + *len == x => *len += 1,
                        _ => empty_runs.push((x, y, 1)),
                    }
                }
                let run_spans: Vec<[u16; 2]> = empty_runs
                    .iter()
                    .map(|&(x, y, len)| {
                        let level = len.ilog2() as usize;
                        let at = usize::from(y) * n + usize::from(x);
                        let second = at + usize::from(len) - (1 << level);
                        let base = level * super::prune::STRIDE;
                        // Runs of at most 25 points: level 4 at most, under 5 * 1024.
                        [(base + at) as u16, (base + second) as u16]
                    })
                    .collect();
                let run_reads = run_spans
                    .iter()
                    .flat_map(|&[a, b]| std::iter::once(a).chain((a != b).then_some(b)))
                    .collect();
                let others = cells.iter().copied().filter(|c| c.2 != 0b110).collect();
                let stone_at = blacks
                    .iter()
                    .chain(&whites)
                    .map(|&(x, y)| (usize::from(y) * n + usize::from(x)) as u16)
                    .collect();
                let empty_bad = rows
                    .iter()
                    .enumerate()
                    .fold(0u64, |bad, (y, r)| bad | u64::from(r[2] != 0) << y);
                let mask = (1u32 << v.pattern.width()) - 1;
                let wild_rows = rows
                    .iter()
                    .enumerate()
                    .map(|(y, &[xb, xw, xe])| (y as u8, !xe & !(xb & xw) & mask))
                    .filter(|&(_, cells)| cells != 0)
                    .collect();
                VariantPlan {
                    wild_rows,
                    empty_bad,
                    width: v.pattern.width(),
                    rows,
                    blacks,
                    whites,
                    empties,
                    empty_runs,
                    run_spans,
                    run_reads,
                    others,
                    stone_at,
                    empty_mismatches: cells.iter().filter(|c| c.2 & 1 != 0).count() as u16,
                    cells,
                    allowed,
                }
            })
            .collect();
        let twins: Vec<Vec<u32>> = (0..source.len())
            .map(|a| {
                (0..source.len())
                    .filter(|&b| b != a && can_both_stand(&source[a], &source[b]))
                    .map(|b| b as u32)
                    .collect()
            })
            .collect();
        let overlap = twins.iter().any(|t| !t.is_empty());
        let strict = source
            .iter()
            .zip(&variants)
            .all(|(v, p): (&Variant, &VariantPlan)| {
                p.cells.len() == (v.pattern.width() * v.pattern.height()) as usize
                    && p.cells.iter().all(|c| matches!(c.2, 0b110 | 0b101 | 0b011))
            });
        let run_levels = variants
            .iter()
            .flat_map(|v| &v.empty_runs)
            .map(|r| r.2.ilog2() as usize + 1)
            .max()
            .unwrap_or(0);
        let mut plan = Plan {
            variants,
            placed: Vec::new(),
            overlap,
            twins,
            strict,
            run_levels,
            dense: Vec::new(),
            dense_kinds: Default::default(),
            dense_shapes: 0,
            dense_on: false,
        };
        plan.placed = plan
            .variants
            .iter()
            .enumerate()
            .flat_map(|(vi, v)| {
                v.allowed.iter().flat_map(move |&(row, mask)| {
                    super::columns::ones(&[u64::from(mask)])
                        .map(move |col| (vi as u32, (col as u32, row as u32)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        plan
    }
}

/// A variant at one place: its black stones, its white stones (cells of the rectangle), and
/// the place's column and row.
pub(crate) type PlacedStones<'a> = (&'a [(u8, u8)], &'a [(u8, u8)], usize, usize);

impl Plan {
    /// Makes [`Plan::dense`] for an `n` x `n` board, once.
    pub(super) fn make_dense(&mut self, n: usize) {
        if self.dense.len() == self.variants.len() {
            return;
        }
        self.dense = self
            .variants
            .iter()
            .map(|v| super::dense::DenseVariant::new(v, n))
            .collect();
        self.dense_kinds = super::dense::Kinds::of(self.dense.iter().fold(0, |k, d| k | d.kinds));
        self.dense_shapes = self.dense.iter().fold(0, |k, d| k | d.shapes);
    }

    /// The candidates of `places` (numbers in [`Plan::placed`]) into `out`.
    pub(super) fn list(&self, places: &[u16], out: &mut Vec<(u32, (u32, u32))>) {
        out.clear();
        out.extend(
            places
                .iter()
                .filter_map(|&k| self.placed.get(usize::from(k))),
        );
    }

    /// Each variant at each of its places: its black stones, its white stones (cells of the
    /// rectangle), and the place's column and row.
    pub(crate) fn places(&self) -> impl Iterator<Item = PlacedStones<'_>> {
        // `placed` lists them in this order: the numbers the columns give are its indices.
        self.placed.iter().map(|&(vi, (col, row))| {
            let v = &self.variants[vi as usize];
            (&v.blacks[..], &v.whites[..], col as usize, row as usize)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;
    use crate::query::{Placement, Query};
    use kifu_go::BoardSize;

    fn overlap(rows: &str) -> bool {
        let q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
        let size = BoardSize::new(9).unwrap();
        Plan::new(&q.variants(size), 9).overlap
    }

    /// Anywhere, only wildcards let two images of a pattern stand on one rectangle (images
    /// that look alike are one variant there), and only when no cell of one forbids what the
    /// other's asks there.
    #[test]
    fn two_images_stand_on_one_rectangle_only_through_wildcards() {
        // Its images differ where one has a stone and the other none.
        assert!(!overlap("#.\n.."));
        assert!(!overlap("#O.\n.#."));
        // `*` (any) beside a stone: the images `#*` and `*#` both match `##`.
        assert!(overlap("#*"));
        // Empty or black against black: `#x` and `x#` both match `##`.
        assert!(overlap("#x"));
        // Empty or white against black: `#o` and `o#` disagree on both cells.
        assert!(!overlap("#o"));
    }

    /// Without wildcards, two images stand on one rectangle where two sides meet: a side
    /// pattern that a diagonal reflection leaves as it is, along the bottom and (reflected)
    /// along the right, in the bottom right corner.
    #[test]
    fn side_images_that_look_alike_meet_in_a_corner() {
        let side = |rows: &str| {
            let side = crate::query::Side::Bottom;
            let q = Query::new(Pattern::parse(rows).unwrap(), Placement::Edge { side });
            let size = BoardSize::new(9).unwrap();
            let plan = Plan::new(&q.variants(size), 9);
            (plan.overlap, plan.strict)
        };
        assert_eq!(side("#..\n.#.\n..."), (true, true));
        assert_eq!(side(".#\n##"), (true, true));
        // Neither diagonal reflection leaves it as it is: no two images alike.
        assert_eq!(side("##.\n...\n..."), (false, true));
        // Not square: its images along two sides have other shapes.
        assert_eq!(side("#.#\n..."), (false, true));
    }
}
