//! The dense prune: every place of every variant of a game tested at once, 64 places at a
//! time, from byte tables of the game made once, instead of the columns finding the
//! candidates and the prune ([`super::prune`]) testing them one by one.
//!
//! A small free pattern (a 3x3 anywhere) has a candidate at most of its places in most games:
//! the columns keep dozens a game even after their levels, and the prune spends about 180
//! instructions on each, four in five of them falling. Here a game's tables are turned into a
//! byte per point and kind of cell: the first stone of each point that ever held a black (or
//! white) stone, 255 elsewhere; and for each set of states a cell does not match, the last
//! change of each point whose final state is in it, 255 elsewhere. A place survives when the
//! latest first stone of its stones (and the move window's first unit) comes before the
//! earliest last change among its cells that the final board contradicts: the prune's own
//! test, read for 64 consecutive points of the board with two loads and two byte minima or
//! maxima per cell on AVX2. Each survivor is handed on with what the prune would hand on
//! ([`super::prune::Survivor`]).

use super::entry::{flats, row_word, FLAT_WORDS};
use super::plan::VariantPlan;
use super::times::TimeTables;

/// Bytes a table spans: a cell read for a place of a vector is at most 63 points past a
/// cell of a place on the board (a point under 25 x 25), so every read stays under 689.
const STRIDE: usize = 1024;

/// The tables: first stones where Black held one, where White held one, then the last
/// changes for each set `m` (1 to 7) of states that do not match (bit 0 empty, 1 black,
/// 2 white), at `1 + m`, then the minima of the cells wanted empty over [`SHAPES`] (9 to
/// 11); room for 16, a power of two, so that an offset masked by their size is in the buffer
/// with no bounds check (the buffer has the lanes' bytes more).
const TABLES: usize = 16;

/// The places tested at once.
const LANES: usize = 64;

/// The tables' bytes, and the mask that keeps a read in them.
const BYTES: usize = TABLES * STRIDE + LANES;
const MASK: usize = TABLES * STRIDE - 1;

/// How a search finds the places of a pattern of many places (a free pattern) along the main
/// line: the columns then the prune of each candidate, or the dense prune of every place of
/// every game ([`super::PatternIndex::set_dense_prune`]). The answers are the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DensePrune {
    /// On a processor with AVX2, the dense prune for a free pattern's games once the first
    /// block of the columns done keeps many candidates a game (25 or more); the columns
    /// otherwise.
    #[default]
    Auto,
    /// The dense prune for every query of the main line, whatever its places (for tests and
    /// benchmarks).
    Always,
    /// The columns always.
    Never,
}

/// A [`DensePrune`] that searches on other threads read.
#[derive(Debug, Default)]
pub(crate) struct DenseSetting(std::sync::atomic::AtomicU8);

impl DenseSetting {
    /// The setting.
    pub(super) fn get(&self) -> DensePrune {
        match self.0.load(std::sync::atomic::Ordering::Relaxed) {
            1 => DensePrune::Always,
            2 => DensePrune::Never,
            _ => DensePrune::Auto,
        }
    }

    /// Sets it.
    pub(super) fn set(&self, mode: DensePrune) {
        let v = match mode {
            DensePrune::Auto => 0,
            DensePrune::Always => 1,
            DensePrune::Never => 2,
        };
        self.0.store(v, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for DenseSetting {
    fn clone(&self) -> Self {
        let copy = DenseSetting::default();
        copy.set(self.get());
        copy
    }
}

/// Places (variant and place pairs) from which a plan may be read by the dense prune: a free
/// pattern's (a 7x7 anywhere has 1,352); a corner's or a side's few are the columns' work.
const DENSE_PLACES: usize = 512;

/// The candidates a game (in a block of the columns) from which the dense prune pays, and
/// the most cells it may read in all (with 64 places a read, [`DenseVariant::work`]) for each
/// candidate a game. Measured at 100,000 games on 70 random free patterns (bench/RESULTS.md,
/// session 36): below about 25 candidates a game the columns were faster whatever the
/// pattern (a 6x7 of two stones anywhere: 14 a game, 1,584 reads, 32 ms by the columns and
/// 65 ms by the dense prune); a 3x3 of two stones, 56 a game and 264 reads, took 65 and 44 ms.
const DENSE_FROM: usize = 25;
const DENSE_WORK: usize = 25;

/// The candidates of `plan` (on board side `side`) for a search of `q` from the columns,
/// or which games are left to the dense prune (then `plan.dense_on` is set): with
/// [`DensePrune::Always`] every game (`None`), with [`DensePrune::Auto`] the blocks after
/// the first whose columns keep many candidates a game for what reading every place costs
/// ([`DENSE_FROM`], [`DENSE_WORK`]).
pub(super) fn dense_or_columns(
    index: &super::PatternIndex,
    q: &crate::Query,
    columns: &super::columns::Columns,
    plan: &mut super::plan::Plan,
    side: u8,
    passing: Option<&[u64]>,
) -> Option<super::columns::Candidates> {
    let main_line = (!q.variations).then_some(index);
    let setting = index.dense_prune.get();
    plan.dense_on = !q.variations
        && match setting {
            DensePrune::Never => false,
            DensePrune::Always => true,
            // Without AVX2 the columns and the prune are faster.
            DensePrune::Auto => plan.placed.len() >= DENSE_PLACES && lanes::avx2(),
        };
    if !plan.dense_on {
        return columns.candidates(plan, side, main_line, passing);
    }
    plan.make_dense(usize::from(side));
    if setting == DensePrune::Always {
        return None;
    }
    let work: usize = plan.dense.iter().map(|d| d.work()).sum();
    let pays = |places: usize, games: usize| {
        let per_game = places / games.max(1);
        per_game >= DENSE_FROM && per_game * DENSE_WORK >= work
    };
    columns.candidates_or_dense(plan, side, main_line, passing, Some(&pays))
}

/// A variant's cells as the dense prune reads them.
#[derive(Debug, Default)]
pub(super) struct DenseVariant {
    /// The stones: offsets of their cells into the first stones' tables (table times
    /// [`STRIDE`] plus the cell's point from the place's).
    arrive: Vec<u16>,
    /// The reads of the constraining cells: the cells wanted empty as the fewest pairs and
    /// squares of them ([`SHAPES`]) that cover them, then the others, each an offset into the
    /// table of the states it does not match.
    dead: Vec<u16>,
    /// The constraining cells one by one, those wanted empty first, in rows and columns, then
    /// the others in the order of [`VariantPlan::others`] (the order in which the prune
    /// names a cell): offsets as in `dead`, and their columns and rows in the rectangle.
    name: Vec<u16>,
    cells: Vec<[u8; 2]>,
    /// The point of the first place, and per [`LANES`] points from it the places allowed
    /// (bits), in [`super::plan::Plan::placed`]'s order.
    start: usize,
    chunks: Vec<u64>,
    /// The sets of states that its cells do not match, as bits `1 << m`, and the shapes of
    /// cells wanted empty it reads (bit `k` for `SHAPES[k]`).
    pub(super) kinds: u8,
    pub(super) shapes: u8,
}

/// The table of the last changes of the points that hold a stone at the end: what a cell
/// wanted empty reads (the set of states 0b110, at `1 + m`).
const EMPTY_TABLE: usize = 7;

/// Shapes of cells wanted empty read at once, from tables of minima made from
/// [`EMPTY_TABLE`] per game: two cells side by side, one above the other, and a square of
/// four (its table made from the first's), each `(table, width, height)`. The eight
/// images of the 3x3 hane read their six empty cells as three pairs: 9 reads a place
/// instead of 12.
const SHAPES: [(usize, u8, u8); 3] = [(9, 2, 1), (10, 1, 2), (11, 2, 2)];

impl DenseVariant {
    /// The cells the dense prune reads for the variant at every place of a game, 64 places
    /// a read.
    pub(super) fn work(&self) -> usize {
        self.chunks.iter().filter(|&&c| c != 0).count() * (self.arrive.len() + self.dead.len())
    }

    /// The dense reading of `v` on an `n` x `n` board.
    pub(super) fn new(v: &VariantPlan, n: usize) -> DenseVariant {
        let off = |x: u8, y: u8| usize::from(y) * n + usize::from(x);
        let arrive = v
            .blacks
            .iter()
            .map(|&(x, y)| off(x, y))
            .chain(v.whites.iter().map(|&(x, y)| STRIDE + off(x, y)))
            .map(|o| o as u16)
            .collect();
        let mut empties: Vec<(u8, u8, u8)> =
            v.cells.iter().copied().filter(|c| c.2 == 0b110).collect();
        empties.sort_unstable_by_key(|&(x, y, _)| (y, x));
        let constraining: Vec<(u8, u8, u8)> = empties
            .into_iter()
            .chain(v.others.iter().copied().filter(|c| c.2 & 7 != 0))
            .collect();
        let kinds = constraining.iter().fold(0, |k, c| k | 1 << (c.2 & 7));
        let name = constraining
            .iter()
            .map(|&(x, y, m)| ((1 + usize::from(m & 7)) * STRIDE + off(x, y)) as u16)
            .collect();
        let cells = constraining.iter().map(|&(x, y, _)| [x, y]).collect();
        let (mut dead, shapes) = cover(&v.empties, n);
        dead.extend(
            v.others
                .iter()
                .filter(|c| c.2 & 7 != 0)
                .map(|&(x, y, m)| ((1 + usize::from(m & 7)) * STRIDE + off(x, y)) as u16),
        );
        let flat: Vec<usize> = v
            .allowed
            .iter()
            .flat_map(|&(r, mask)| {
                (0..32)
                    .filter(move |c| mask >> c & 1 != 0)
                    .map(move |c| r * n + c)
            })
            .collect();
        let start = flat.first().copied().unwrap_or(0);
        let mut bits = vec![0u64; flat.last().map_or(0, |&l| (l - start) / LANES + 1)];
        for p in flat {
            bits[(p - start) / LANES] |= 1 << ((p - start) % LANES);
        }
        DenseVariant {
            arrive,
            dead,
            name,
            cells,
            start,
            chunks: bits,
            kinds,
            shapes,
        }
    }
}

/// The reads that cover the cells `empties` (column, row) of a rectangle on an `n` x `n`
/// board: repeatedly the shape (a single cell, or one of [`SHAPES`] whose cells are all
/// wanted empty) that covers the most cells not yet read, the larger first on a tie; with
/// the shapes used (bits). A cell read twice changes no minimum.
fn cover(empties: &[(u8, u8)], n: usize) -> (Vec<u16>, u8) {
    // Rectangles are at most 25 x 25: a row of the rectangle is a word of bits.
    let mut wanted = [0u32; 25];
    for &(x, y) in empties {
        if let Some(row) = wanted.get_mut(usize::from(y)) {
            *row |= 1 << x;
        }
    }
    let mut left = wanted;
    // The cells of a shape anchored at (x, y), as row bits (none when it leaves the rectangle).
    let cells = |x: u8, y: u8, w: u8, h: u8| -> Option<[u32; 2]> {
        let bits = ((1u32 << w) - 1) << x;
        let rows = [Some(bits), (h == 2).then_some(bits)];
        let mut out = [0u32; 2];
        for (dy, r) in rows.iter().enumerate() {
            if let Some(r) = *r {
                let y = usize::from(y) + dy;
                (wanted.get(y)? & r == r).then_some(())?;
                out[dy] = r;
            }
        }
        Some(out)
    };
    let count = |left: &[u32; 25], y: u8, c: [u32; 2]| -> u32 {
        let y = usize::from(y);
        (left[y] & c[0]).count_ones() + left.get(y + 1).map_or(0, |l| (l & c[1]).count_ones())
    };
    let (mut reads, mut used) = (Vec::new(), 0u8);
    while let Some(y0) = left.iter().position(|&r| r != 0) {
        let x0 = left[y0].trailing_zeros() as u8;
        let y0 = y0 as u8;
        // A single cell first, so that a tie goes to a larger shape after it.
        let mut best = (1, EMPTY_TABLE, x0, y0, None, [1u32 << x0, 0]);
        for (k, &(table, w, h)) in SHAPES.iter().enumerate() {
            for &(x, y) in empties {
                let Some(c) = cells(x, y, w, h) else { continue };
                let new = count(&left, y, c);
                if new >= best.0 {
                    best = (new, table, x, y, Some(k), c);
                }
            }
        }
        let (_, table, x, y, shape, c) = best;
        let y = usize::from(y);
        left[y] &= !c[0];
        if let Some(l) = left.get_mut(y + 1) {
            *l &= !c[1];
        }
        used |= shape.map_or(0, |k| 1 << k);
        reads.push((table * STRIDE + y * n + usize::from(x)) as u16);
    }
    (reads, used)
}

/// A place that survives: its point, the unit by which its stones are all there (0: it has
/// none), and the first unit after which the final board contradicts one of its cells for
/// good (255: none does).
#[derive(Clone, Copy, Debug)]
pub(super) struct Found {
    pub point: usize,
    pub arrive: u8,
    pub dead: u8,
}

/// A game's tables for the dense prune, and its last changes copied whole vectors long,
/// kept from game to game (the bytes past a game's points are left from earlier games: only
/// lanes no place takes read them; a copy made anew each game, filled first, was about 1% of
/// the instructions of a 7x3 lone stone anywhere).
#[derive(Debug)]
pub(crate) struct Dense {
    tables: Box<[u8; BYTES]>,
    last: Box<[u8; STRIDE]>,
}

impl Default for Dense {
    fn default() -> Self {
        Dense {
            tables: Box::new([u8::MAX; BYTES]),
            last: Box::new([u8::MAX; STRIDE]),
        }
    }
}

/// What [`Dense::fill`] reads of a game: its last changes and first stones (a byte per
/// point; past the board, bytes that only lanes no place takes read), and as bitmaps of the board's points its final black and
/// white stones and the points that ever held a black and a white stone.
struct GameBytes<'a> {
    last: &'a [u8; STRIDE],
    first: &'a [u8; STRIDE],
    fin: [[u64; FLAT_WORDS]; 2],
    held: [[u64; FLAT_WORDS]; 2],
}

/// Per set of states a cell does not match, its table and which of empty, black and white
/// it takes (each 0 or all ones).
type Kind = (usize, [u32; 3]);

/// The sets of states that a plan's cells do not match, as [`Dense::fill`] makes their
/// tables (made once a plan, not per game).
#[derive(Debug, Default)]
pub(super) struct Kinds(Vec<Kind>);

impl Kinds {
    /// The sets `m` of `bits` (bit `1 << m`).
    pub(super) fn of(bits: u8) -> Kinds {
        let kind = |m: usize| {
            let take = |bit: usize| if m >> bit & 1 != 0 { u32::MAX } else { 0 };
            (1 + m, [take(0), take(1), take(2)])
        };
        Kinds((1..8).filter(|m| bits >> m & 1 != 0).map(kind).collect())
    }
}

/// The 32-bit word `j` of a board's bitmap.
#[inline(always)]
fn word32(bits: &[u64; FLAT_WORDS], j: usize) -> u32 {
    (bits[(j / 2) % FLAT_WORDS] >> (32 * (j % 2))) as u32
}

impl Dense {
    /// Makes the tables of a game of side `n` from its time tables `times`, the first stones
    /// unpacked into `first` (a byte per point), and the rows of the points its main line
    /// ever gave a black and a white stone (`held`), those of the sets of states in `kinds`
    /// and of the shapes of cells wanted empty in `shapes` (bit `k` for `SHAPES[k]`).
    pub(super) fn fill(
        &mut self,
        times: &TimeTables<'_>,
        first: &[u8],
        (black, white): (&[u32], &[u32]),
        n: usize,
        (kinds, shapes): (&Kinds, u8),
    ) {
        let copy = |bytes: &[u8], out: &mut [u8; STRIDE]| {
            let k = (n * n).min(bytes.len()).min(STRIDE);
            out[..k].copy_from_slice(&bytes[..k]);
        };
        copy(times.lasts(), &mut self.last);
        // The unpacked first stones are a buffer of that size already (its bytes past the
        // board, left from earlier games, make only table bytes that no place reads).
        let copied;
        let first: &[u8; STRIDE] = match first.get(..STRIDE) {
            Some(all) => all.try_into().expect("STRIDE bytes"),
            None => {
                let mut out = [u8::MAX; STRIDE];
                copy(first, &mut out);
                copied = out;
                &copied
            }
        };
        let fin = times.fin;
        let at = |rows: &[u32], r: usize| rows.get(r).copied().unwrap_or(0);
        let [b, w, hb, hw] = flats(n, |r| {
            [
                row_word(fin, r),
                row_word(fin, n + r),
                at(black, r),
                at(white, r),
            ]
        });
        let game = GameBytes {
            last: &self.last,
            first,
            fin: [b, w],
            held: [hb, hw],
        };
        let points = (n * n).min(STRIDE);
        lanes::fill(&mut self.tables, &game, &kinds.0, points);
        fill_shapes(&mut self.tables, n, points, shapes);
    }

    /// Calls `found` with each place of `v` where its stones all arrive, after unit `from`,
    /// before the final board contradicts one of its cells for good, in
    /// [`super::plan::Plan::placed`]'s order.
    pub(super) fn survivors(&self, v: &DenseVariant, from: u8, found: &mut impl FnMut(Found)) {
        lanes::survivors(&self.tables, v, from, found);
    }

    /// The column and row in the rectangle of the cell of `v` at the place whose point is
    /// `point` that contradicts the final board from unit `dead` on, as the prune names it:
    /// the first wanted empty by rows and columns, else the first of the others.
    pub(super) fn named(&self, v: &DenseVariant, point: usize, dead: u8) -> Option<[u8; 2]> {
        v.name
            .iter()
            .position(|&o| self.tables[(point + usize::from(o)) & MASK] == dead)
            .and_then(|i| v.cells.get(i).copied())
    }
}

/// The tables of the shapes `shapes` (bit `k` for `SHAPES[k]`) from the cells wanted empty
/// of a game of side `n` ([`EMPTY_TABLE`], `points` of it).
fn fill_shapes(tables: &mut [u8; BYTES], n: usize, points: usize, shapes: u8) {
    // The shapes' minima (a loop of byte minima the compiler vectorizes). A shape at a
    // place's cell reads points of that place only, all on the board: what lies past
    // them (a row's end, the board's) is read only by lanes no place takes.
    let t = tables;
    let pairs = [
        (0, SHAPES[0].0, 1),
        (1, SHAPES[1].0, n),
        (2, SHAPES[2].0, n),
    ];
    // The square needs the horizontal pairs.
    let need = shapes | (shapes >> 2 & 1);
    for (k, table, step) in pairs {
        if need >> k & 1 == 0 {
            continue;
        }
        // The square is the horizontal pairs' minimum over two rows.
        let from = if k == 2 { SHAPES[0].0 } else { EMPTY_TABLE };
        let (src, dst) = t.split_at_mut(table * STRIDE);
        let src = &src[from * STRIDE..from * STRIDE + STRIDE];
        let (a, b) = (&src[..points], &src[step..step + points]);
        for ((d, &a), &b) in dst[..points].iter_mut().zip(a).zip(b) {
            *d = a.min(b);
        }
    }
}

/// [`Dense::fill`]'s tables a byte at a time: the reference, and the code without AVX2.
fn fill_plain(tables: &mut [u8; BYTES], game: &GameBytes<'_>, used: &[Kind], points: usize) {
    for p in 0..points {
        let bit = |bits: &[u64; FLAT_WORDS]| word32(bits, p / 32) >> (p % 32) & 1 != 0;
        let (b, w) = (bit(&game.fin[0]), bit(&game.fin[1]));
        let state = [!(b || w), b, w];
        let pick = |held: bool, v: u8| if held { v } else { u8::MAX };
        tables[p] = pick(bit(&game.held[0]), game.first[p]);
        tables[STRIDE + p] = pick(bit(&game.held[1]), game.first[p]);
        for &(t, take) in used {
            let sel = (0..3).any(|k| state[k] && take[k] != 0);
            tables[t * STRIDE + p] = pick(sel, game.last[p]);
        }
    }
}

/// [`Dense::survivors`] for one variant, given `survive` (the lanes that survive of 64 places
/// from a point, with their stones' arrival and their first contradiction in two arrays).
#[inline(always)]
fn survivors_with(
    v: &DenseVariant,
    found: &mut impl FnMut(Found),
    mut survive: impl FnMut(usize, &mut [u8; LANES], &mut [u8; LANES]) -> u64,
) {
    let (mut arrive, mut dead) = ([0u8; LANES], [0u8; LANES]);
    for (i, &allowed) in v.chunks.iter().enumerate() {
        if allowed == 0 {
            continue;
        }
        let s = v.start + LANES * i;
        let mut ok = survive(s, &mut arrive, &mut dead) & allowed;
        while ok != 0 {
            let lane = ok.trailing_zeros() as usize;
            ok &= ok - 1;
            found(Found {
                point: s + lane,
                arrive: arrive[lane],
                dead: dead[lane],
            });
        }
    }
}

/// The places of 64 lanes from `s` that survive (bits): where the latest of the `arrive`
/// bytes (and `from`) is before the least of the `dead` bytes, each byte read at its offset
/// plus `s` (plus the lane), a byte at a time (the reference, and the code without AVX2);
/// the lanes' latest arrival and least contradiction into `arrived` and `least`.
fn survive_plain(
    tables: &[u8; BYTES],
    s: usize,
    v: &DenseVariant,
    from: u8,
    (arrived, least): (&mut [u8; LANES], &mut [u8; LANES]),
) -> u64 {
    let byte = |o: u16, i: usize| tables[((s + usize::from(o)) & MASK) + i];
    (0..LANES).fold(0u64, |m, i| {
        arrived[i] = v.arrive.iter().fold(0, |b, &o| b.max(byte(o, i)));
        least[i] = v.dead.iter().fold(u8::MAX, |l, &o| l.min(byte(o, i)));
        m | u64::from(least[i] > arrived[i].max(from)) << i
    })
}

/// The tables and the places on AVX2 when the processor has it (asked once, at run time),
/// else a byte at a time.
mod lanes {
    use super::{
        fill_plain, survive_plain, survivors_with, DenseVariant, Found, GameBytes, Kind, BYTES,
    };

    /// Whether this processor has AVX2, asked once.
    pub(super) fn avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
            *HAS.get_or_init(|| std::is_x86_feature_detected!("avx2"))
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    #[allow(unsafe_code)]
    pub(super) fn fill(
        tables: &mut [u8; BYTES],
        game: &GameBytes<'_>,
        used: &[Kind],
        points: usize,
    ) {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the processor has AVX2 (asked at run time), all `x86::fill` needs.
            unsafe { x86::fill(tables, game, used, points) };
            return;
        }
        fill_plain(tables, game, used, points);
    }

    #[allow(unsafe_code)]
    pub(super) fn survivors(
        tables: &[u8; BYTES],
        v: &DenseVariant,
        from: u8,
        found: &mut impl FnMut(Found),
    ) {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the processor has AVX2 (asked at run time), all `x86::survivors` needs.
            unsafe { x86::survivors(tables, v, from, found) };
            return;
        }
        survivors_with(v, found, |s, a, d| {
            survive_plain(tables, s, v, from, (a, d))
        });
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::super::{word32, LANES, MASK, STRIDE};
        use super::*;
        use std::arch::x86_64::{
            __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8,
            _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi32,
            _mm256_set1_epi64x, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256,
            _mm256_shuffle_epi8, _mm256_storeu_si256, _mm256_subs_epu8,
        };

        // SAFETY (every `unsafe` block and function of this module): the functions are
        // called only when the processor has AVX2 (`avx2`), and the intrinsics need no more;
        // the loads and stores go through references to 32 (or 64) bytes of the buffers,
        // made with bounds-checked slicing, unaligned as the intrinsics allow.

        /// The 32 bytes of `bytes`.
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn load(bytes: &[u8; 32]) -> __m256i {
            _mm256_loadu_si256(bytes.as_ptr().cast::<__m256i>())
        }

        /// Stores `v` into `bytes`.
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn store(bytes: &mut [u8; 32], v: __m256i) {
            _mm256_storeu_si256(bytes.as_mut_ptr().cast::<__m256i>(), v);
        }

        /// The bits of `bits` as bytes: 255 where a bit is set.
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn spread(bits: u32) -> __m256i {
            // Each half of the vector holds the word; bytes 0-7 take its first byte, 8-15 its
            // second, then the third and fourth in the upper half.
            let which = _mm256_setr_epi8(
                0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3,
                3, 3, 3, 3,
            );
            let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
            let x = _mm256_shuffle_epi8(_mm256_set1_epi32(bits as i32), which);
            _mm256_cmpeq_epi8(_mm256_and_si256(x, bit), bit)
        }

        #[target_feature(enable = "avx2")]
        #[allow(unsafe_code)]
        pub(super) unsafe fn fill(
            tables: &mut [u8; BYTES],
            game: &GameBytes<'_>,
            used: &[Kind],
            points: usize,
        ) {
            for j in 0..points.div_ceil(32) {
                let at = 32 * j;
                let l = load(game.last[at..at + 32].try_into().expect("32 bytes"));
                let f = load(game.first[at..at + 32].try_into().expect("32 bytes"));
                let (b, w) = (word32(&game.fin[0], j), word32(&game.fin[1], j));
                let e = !(b | w);
                let mut put = |t: usize, v: __m256i| {
                    let o = t * STRIDE + at;
                    store((&mut tables[o..o + 32]).try_into().expect("32 bytes"), v);
                };
                put(0, _mm256_or_si256(f, spread(!word32(&game.held[0], j))));
                put(1, _mm256_or_si256(f, spread(!word32(&game.held[1], j))));
                for &(t, [te, tb, tw]) in used {
                    let sel = (e & te) | (b & tb) | (w & tw);
                    put(t, _mm256_or_si256(l, spread(!sel)));
                }
            }
        }

        /// The two vectors of 32 bytes at `at` (masked into the tables).
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn load2(tables: &[u8; BYTES], at: usize) -> [__m256i; 2] {
            let at = at & MASK;
            let bytes: &[u8; LANES] = tables[at..at + LANES].try_into().expect("64 bytes");
            let (lo, hi) = bytes.split_at(32);
            [
                load(lo.try_into().expect("32 bytes")),
                load(hi.try_into().expect("32 bytes")),
            ]
        }

        /// The byte-wise maximum (`MAX`) or minimum of `acc` and the two vectors at each
        /// offset of `offsets` from `s`, two offsets a step (one loop step a cell cost more
        /// than its reads).
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn fold<const MAX: bool>(
            tables: &[u8; BYTES],
            s: usize,
            offsets: &[u16],
            mut acc: [__m256i; 2],
        ) -> [__m256i; 2] {
            let op = |a: __m256i, b: __m256i| {
                if MAX {
                    _mm256_max_epu8(a, b)
                } else {
                    _mm256_min_epu8(a, b)
                }
            };
            let read = |o: u16| load2(tables, s + usize::from(o));
            let mut pairs = offsets.chunks_exact(2);
            for q in &mut pairs {
                let (a, b) = (read(q[0]), read(q[1]));
                acc = [op(acc[0], op(a[0], b[0])), op(acc[1], op(a[1], b[1]))];
            }
            for &o in pairs.remainder() {
                let a = read(o);
                acc = [op(acc[0], a[0]), op(acc[1], a[1])];
            }
            acc
        }

        #[target_feature(enable = "avx2")]
        #[allow(unsafe_code)]
        pub(super) unsafe fn survivors(
            tables: &[u8; BYTES],
            v: &DenseVariant,
            from: u8,
            found: &mut impl FnMut(Found),
        ) {
            let from = _mm256_set1_epi8(from as i8);
            let zero = _mm256_setzero_si256();
            survivors_with(v, found, |s, arrived, least| {
                let born = fold::<true>(tables, s, &v.arrive, [zero; 2]);
                let dead = fold::<false>(tables, s, &v.dead, [_mm256_set1_epi8(-1); 2]);
                // Lanes where `dead - max(born, from)` saturates to 0 fall.
                let fall = |k: usize| {
                    let gap = _mm256_subs_epu8(dead[k], _mm256_max_epu8(born[k], from));
                    _mm256_movemask_epi8(_mm256_cmpeq_epi8(gap, zero)) as u32
                };
                let ok = !(u64::from(fall(0)) | u64::from(fall(1)) << 32);
                if ok != 0 {
                    let (a, d) = (arrived.split_at_mut(32), least.split_at_mut(32));
                    store(a.0.try_into().expect("32 bytes"), born[0]);
                    store(a.1.try_into().expect("32 bytes"), born[1]);
                    store(d.0.try_into().expect("32 bytes"), dead[0]);
                    store(d.1.try_into().expect("32 bytes"), dead[1]);
                }
                ok
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 tables and survivors (when this processor has AVX2) are those of the plain
    /// code, on random tables and bitmaps.
    #[test]
    fn lanes_match_the_plain_reading() {
        let mut rng = super::super::xorshift();
        for n in [9usize, 13, 19, 25] {
            for _ in 0..20 {
                let mut last = [u8::MAX; STRIDE];
                let mut first = [u8::MAX; STRIDE];
                for p in 0..n * n {
                    last[p] = (rng() % 256) as u8;
                    first[p] = (rng() % 256) as u8;
                }
                let bits = |rng: &mut dyn FnMut() -> u64| {
                    let mut b = [0u64; FLAT_WORDS];
                    for w in &mut b {
                        *w = rng() & rng();
                    }
                    b
                };
                let game = GameBytes {
                    last: &last,
                    first: &first,
                    fin: [bits(&mut rng), bits(&mut rng)],
                    held: [bits(&mut rng), bits(&mut rng)],
                };
                let used = Kinds::of(0xfe).0;
                let mut plain = Box::new([u8::MAX; BYTES]);
                fill_plain(&mut plain, &game, &used, n * n);
                let mut fast = Box::new([u8::MAX; BYTES]);
                lanes::fill(&mut fast, &game, &used, n * n);
                for t in 0..9 {
                    let r = t * STRIDE..t * STRIDE + n * n;
                    assert_eq!(plain[r.clone()], fast[r], "table {t}, side {n}");
                }
                let q = crate::Query::new(
                    crate::Pattern::parse("#O.\n.#.\n...").unwrap(),
                    crate::Placement::Anywhere,
                );
                let size = kifu_go::BoardSize::new(n as u32).unwrap();
                let mut plan = super::super::plan::Plan::new(&q.variants(size), n);
                plan.make_dense(n);
                fill_shapes(&mut fast, n, n * n, plan.dense_shapes);
                assert_ne!(plan.dense_shapes, 0, "the hane's empty cells read as pairs");
                for v in &plan.dense {
                    for from in [0u8, 7, 100] {
                        let mut a = Vec::new();
                        survivors_with(
                            v,
                            &mut |f| a.push((f.point, f.arrive, f.dead)),
                            |s, x, y| survive_plain(&fast, s, v, from, (x, y)),
                        );
                        let mut b = Vec::new();
                        lanes::survivors(&fast, v, from, &mut |f| {
                            b.push((f.point, f.arrive, f.dead))
                        });
                        assert_eq!(a, b);
                    }
                }
            }
        }
    }
}
