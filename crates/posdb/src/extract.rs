//! Extraction: every distinct position of a game collection into a position file.
//!
//! # What is kept
//! Sources are SGF files (replayed by kifu-go: main lines, or all variations) and ASCII position
//! files ([`crate::ascii`]). Positions of other board sizes are skipped and counted, as are
//! positions outside the move range. Two positions are the same when their side to move is the same
//! and their boards are the same under one of the 8 symmetries: the key is the canonical hash,
//! and boards with the same hash are told apart by a form that is the same exactly for boards
//! equal under the symmetries ([`Canonicalizer::form_into`]: the board in its canonical
//! orientation, or its [`canonical_rows`] when several symmetries give the lowest hash), so a
//! hash collision never merges two positions (the later board gets the next tiebreaker, in
//! order of first appearance, as [`crate::Keyer`] does). The first occurrence of each position is
//! written, in input order (file, then replay order); with [`ExtractOptions::all_occurrences`],
//! every occurrence is written, still in input order.
//!
//! # Deterministic and bounded
//! Files are replayed in parallel (rayon) in batches, but every occurrence carries its place in
//! the input (file number, then ordinal within the file), and the output is defined by sorting on
//! it, so the bytes do not depend on the number of threads. Occurrences go through an
//! [`ExternalSorter`] keyed by (hash, form, side to move, place): past
//! [`ExtractOptions::memory_limit`] bytes they are spilled to temporary files, so memory is
//! bounded for collections of any size. Three merge passes follow: one finds hash collisions
//! (only their tiebreakers are kept in memory), one keeps the first occurrence of each position
//! and re-sorts the survivors by place (external again), and the last writes them.
//!
//! # Provenance
//! With [`ExtractOptions::file_ids`] every record gets its [`ExtraInfo`]: the file id given for its
//! source, the variation number and the move number from the replay (both saturate at 65,535,
//! the largest the u16 fields hold). ASCII sources have variation 0 and, as move number, the
//! position's ordinal in the file (from 0).

use crate::ascii::{parse_ascii_positions, AsciiError};
use crate::id::{PositionId, ID_BYTES};
use crate::record::ExtraInfo;
use crate::sort::ExternalSorter;
use kifu_go::replay::{ReplayError, ReplayOptions, ReplaySink, Scope, Step};
use kifu_go::{Board, BoardSize, Color, SymmetricHashes, Symmetry, ZobristKeys};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// The format of a source file.
///
/// Extension point: Ishi `.go` files become one more variant here and one more branch in
/// `occurrences_of` (replaying their moves into the same `Occurrences` collector), once a
/// kifu-ishi crate exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// An SGF collection.
    Sgf,
    /// ASCII positions ([`crate::ascii`]).
    Ascii,
    /// An Ishi Standard Format file (`.go`), replayed through its SGF conversion.
    Ishi,
}

/// One input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub kind: SourceKind,
}

/// How to extract.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// The board size kept.
    pub size: BoardSize,
    /// Main lines only, or all variations.
    pub scope: Scope,
    /// The first move number kept (0 = the position before the first move).
    pub from: u32,
    /// The last move number kept.
    pub to: u32,
    /// The Zobrist keys (of `size`).
    pub keys: Arc<ZobristKeys>,
    /// Write every occurrence, not only the first of each position.
    pub all_occurrences: bool,
    /// File ids for [`ExtraInfo`], one per source; `None` writes no extra info.
    pub file_ids: Option<Vec<u32>>,
    /// Bytes of occurrences buffered before spilling a sorted run to disk.
    pub memory_limit: usize,
    /// Folder for spilled runs (the system's temporary folder when `None`).
    pub temp_dir: Option<PathBuf>,
    /// Files replayed per parallel batch.
    pub batch: usize,
}

impl ExtractOptions {
    /// Defaults for `size`: main lines, all moves, kifu's own keys, first occurrences, no extra
    /// info, 256 MiB of buffer.
    pub fn new(size: BoardSize) -> ExtractOptions {
        ExtractOptions {
            size,
            scope: Scope::MainLineOnly,
            from: 0,
            to: u32::MAX,
            keys: ZobristKeys::default_for(size),
            all_occurrences: false,
            file_ids: None,
            memory_limit: 256 << 20,
            temp_dir: None,
            batch: 256,
        }
    }
}

/// Why an extraction stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// Temporary files or the output failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The keys are not for the board size.
    #[error("the Zobrist table is for {table} boards, not {size}")]
    KeysSize {
        /// The table's size.
        table: BoardSize,
        /// The size asked for.
        size: BoardSize,
    },
    /// More than 256 different boards share one hash.
    #[error("more than 256 different boards share the hash {0:016x}")]
    TooManyCollisions(u64),
    /// `file_ids` does not give one id per source.
    #[error("{ids} file ids for {sources} sources")]
    FileIds {
        /// Ids given.
        ids: usize,
        /// Sources.
        sources: usize,
    },
}

/// Counts of an extraction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractSummary {
    /// Source files.
    pub files: u64,
    /// Files that could not be read or parsed (see `errors`).
    pub files_failed: u64,
    /// Games replayed (any size).
    pub games: u64,
    /// Games that could not be replayed (bad `SZ`, not Go).
    pub games_failed: u64,
    /// Games of another board size.
    pub games_other_size: u64,
    /// Positions of games of another board size (skipped).
    pub positions_other_size: u64,
    /// Positions of the right size outside the move range (skipped).
    pub positions_out_of_range: u64,
    /// Positions kept before de-duplication (occurrences).
    pub occurrences: u64,
    /// Distinct positions (by id and board).
    pub distinct: u64,
    /// Records written.
    pub written: u64,
    /// Distinct boards that needed a tiebreaker above 0 (hash collisions).
    pub collisions: u64,
    /// Sorted runs spilled to disk (0: everything stayed in memory).
    pub spilled_runs: u64,
    /// Messages for failed files and games (`path: message`), the first 100.
    pub errors: Vec<String>,
}

/// Precomputed point permutations of the 8 symmetries, for [`canonical_rows`] without allocating.
#[derive(Debug, Clone)]
pub struct Canonicalizer {
    n2: usize,
    // perm[s][j]: the point of the original board that symmetry s puts at index j.
    perm: Vec<Vec<u16>>,
}

impl Canonicalizer {
    /// Tables for `size`.
    pub fn new(size: BoardSize) -> Canonicalizer {
        let n2 = size.points();
        let perm = Symmetry::ALL
            .iter()
            .map(|&s| {
                let mut p = vec![0u16; n2];
                for q in size.all_points() {
                    p[s.apply(q, size).index(size)] = q.index(size) as u16;
                }
                p
            })
            .collect();
        Canonicalizer { n2, perm }
    }

    /// Writes the canonical rows of `rows` (the lowest of the 8 transformed row strings, as
    /// [`crate::canonical_rows`] defines them) into `out`.
    pub fn canonical_into(&self, rows: &[u8], out: &mut [u8]) {
        let mut best: Option<usize> = None;
        for s in 0..8 {
            let p = &self.perm[s];
            let lower = match best {
                None => true,
                Some(b) => {
                    let q = &self.perm[b];
                    let mut ord = std::cmp::Ordering::Equal;
                    for j in 0..self.n2 {
                        let (x, y) = (rows[p[j] as usize], rows[q[j] as usize]);
                        if x != y {
                            ord = x.cmp(&y);
                            break;
                        }
                    }
                    ord == std::cmp::Ordering::Less
                }
            };
            if lower {
                best = Some(s);
            }
        }
        self.transform_into(rows, best.unwrap_or(0), out);
    }

    /// Writes `rows` transformed by the symmetry numbered `s` into `out`.
    pub fn transform_into(&self, rows: &[u8], s: usize, out: &mut [u8]) {
        let p = &self.perm[s];
        for (j, o) in out.iter_mut().enumerate().take(self.n2) {
            *o = rows[p[j] as usize];
        }
    }

    /// Writes a form of `rows` that is the same for boards equal under the 8 symmetries, and
    /// different for others, into `out`: given the 8 symmetric hashes of the board, when one
    /// symmetry alone gives the lowest hash, the board turned by it (its canonical orientation;
    /// two boards of one symmetry class have the same 8 hashes, so they turn to the same board);
    /// when several do (symmetric boards, or a collision among the 8 hashes, a property of the
    /// class too), the canonical rows. Both are boards of the class, so two classes never share a
    /// form. The first is one pass over the points instead of eight comparisons.
    pub fn form_into(&self, rows: &[u8], hashes: &SymmetricHashes, out: &mut [u8]) {
        let c = hashes.canonical();
        if hashes.0.iter().filter(|&&h| h == c.hash).count() == 1 {
            self.transform_into(rows, c.symmetry.index(), out);
        } else {
            self.canonical_into(rows, out);
        }
    }
}

/// The lowest of the 8 transformed rows of `board` (same as [`crate::canonical_rows`]).
pub fn canonical_rows(board: &Board) -> Vec<u8> {
    crate::id::canonical_rows(board)
}

/// Layout of the first sort's records: hash, form (packed), side, place, rows (packed),
/// extra. Boards are packed 2 bits a point (a 19x19 record is 207 bytes instead of 747), which
/// is what keeps the sort's temporary files small.
struct Layout {
    /// Packed board bytes.
    p: usize,
}

impl Layout {
    fn new(n2: usize) -> Layout {
        Layout { p: n2.div_ceil(4) }
    }
    fn len1(&self) -> usize {
        8 + self.p + 1 + 8 + self.p + 8
    }
    /// Second sort: place, id, rows (packed), extra.
    fn len2(&self) -> usize {
        8 + ID_BYTES + self.p + 8
    }
}

/// The 2-bit code of a PositionDB byte.
const fn code(b: u8) -> u8 {
    match b {
        b'#' => 1,
        b'O' => 2,
        _ => 0,
    }
}

/// The 4 PositionDB bytes of each packed byte.
const UNPACK: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut i = 0;
    while i < 256 {
        let mut j = 0;
        while j < 4 {
            t[i][j] = match (i >> (j * 2)) & 3 {
                1 => b'#',
                2 => b'O',
                _ => b'.',
            };
            j += 1;
        }
        i += 1;
    }
    t
};

/// Packs PositionDB rows 2 bits a point into `out` (`p` bytes).
fn pack(rows: &[u8], out: &mut [u8]) {
    let mut chunks = rows.chunks_exact(4);
    for (o, c) in out.iter_mut().zip(&mut chunks) {
        *o = code(c[0]) | code(c[1]) << 2 | code(c[2]) << 4 | code(c[3]) << 6;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut v = 0u8;
        for (k, &b) in rest.iter().enumerate() {
            v |= code(b) << (k * 2);
        }
        if let Some(o) = out.get_mut(rows.len() / 4) {
            *o = v;
        }
    }
}

/// Unpacks `n2` points.
fn unpack(packed: &[u8], n2: usize, out: &mut Vec<u8>) {
    let start = out.len();
    for &b in packed {
        out.extend_from_slice(&UNPACK[usize::from(b)]);
    }
    out.truncate(start + n2);
}

/// The occurrences of one file, encoded as first-sort records.
struct Occurrences<'a> {
    opts: &'a ExtractOptions,
    canon: &'a Canonicalizer,
    file_index: u32,
    file_id: u32,
    ordinal: u32,
    rows: Vec<u8>,
    scratch: Vec<u8>,
    out: Vec<u8>,
    summary: ExtractSummary,
    last_game_other: Option<usize>,
    path: String,
}

impl Occurrences<'_> {
    fn push(&mut self, hashes: &SymmetricHashes, to_play: Color, variation: u32, move_number: u32) {
        let p = self.rows.len().div_ceil(4);
        let start = self.out.len();
        self.out
            .extend_from_slice(&hashes.canonical().hash.to_be_bytes());
        self.canon.form_into(&self.rows, hashes, &mut self.scratch);
        self.out.resize(start + 8 + p, 0);
        pack(&self.scratch, &mut self.out[start + 8..]);
        self.out.push(to_play.letter() as u8);
        let place = u64::from(self.file_index) << 32 | u64::from(self.ordinal);
        self.out.extend_from_slice(&place.to_be_bytes());
        let at = self.out.len();
        self.out.resize(at + p, 0);
        pack(&self.rows, &mut self.out[at..]);
        let extra = ExtraInfo {
            file_id: self.file_id,
            variation: variation.min(u32::from(u16::MAX)) as u16,
            move_number: move_number.min(u32::from(u16::MAX)) as u16,
        };
        self.out.extend_from_slice(&extra.to_bytes());
        self.ordinal = self.ordinal.saturating_add(1);
        self.summary.occurrences += 1;
    }

    fn error(&mut self, msg: String) {
        if self.summary.errors.len() < 100 {
            self.summary.errors.push(format!("{}: {msg}", self.path));
        }
    }
}

impl ReplaySink for Occurrences<'_> {
    fn position(&mut self, step: &Step<'_>) {
        let pos = step.position;
        if step.node_index == 0 {
            self.summary.games += 1;
        }
        if pos.size() != self.opts.size {
            if self.last_game_other != Some(step.game) {
                self.last_game_other = Some(step.game);
                self.summary.games_other_size += 1;
            }
            self.summary.positions_other_size += 1;
            return;
        }
        if step.move_number < self.opts.from || step.move_number > self.opts.to {
            self.summary.positions_out_of_range += 1;
            return;
        }
        pos.write_rows(&mut self.rows);
        self.push(
            &pos.hashes(),
            step.to_play,
            step.variation,
            step.move_number,
        );
    }

    fn game_error(&mut self, error: ReplayError) {
        self.summary.games += 1;
        self.summary.games_failed += 1;
        self.error(error.to_string());
    }
}

fn occurrences_of(
    source: &Source,
    file_index: u32,
    file_id: u32,
    opts: &ExtractOptions,
    canon: &Canonicalizer,
) -> (Vec<u8>, ExtractSummary) {
    let mut occ = Occurrences {
        opts,
        canon,
        file_index,
        file_id,
        ordinal: 0,
        rows: vec![0; opts.size.points()],
        scratch: vec![0; opts.size.points()],
        out: Vec::new(),
        summary: ExtractSummary {
            files: 1,
            ..Default::default()
        },
        last_game_other: None,
        path: source.path.display().to_string(),
    };
    let bytes = match std::fs::read(&source.path) {
        Ok(b) => b,
        Err(e) => {
            occ.summary.files_failed = 1;
            occ.error(format!("cannot read: {e}"));
            return (Vec::new(), occ.summary);
        }
    };
    match source.kind {
        SourceKind::Sgf => {
            let replay = ReplayOptions {
                scope: opts.scope,
                keys: Some(opts.keys.clone()),
                ..Default::default()
            };
            occ = kifu_go::replay::replay_bytes(&bytes, &replay, occ);
        }
        SourceKind::Ishi => {
            let replay = ReplayOptions {
                scope: opts.scope,
                keys: Some(opts.keys.clone()),
                ..Default::default()
            };
            let doc = kifu_ishi::read(&bytes).document;
            let coll = kifu_ishi::to_sgf(&doc).collection;
            occ = kifu_go::replay::replay_collection(&coll, &replay, occ);
        }
        SourceKind::Ascii => match parse_ascii_positions(&bytes, opts.size) {
            Ok(positions) => {
                for (i, (board, to_play)) in positions.iter().enumerate() {
                    occ.rows.copy_from_slice(&board.to_rows());
                    let hashes = opts.keys.table().symmetric_hashes(board);
                    occ.push(&hashes, *to_play, 0, i as u32);
                }
            }
            Err(AsciiError { line, column, kind }) => {
                occ.summary.files_failed = 1;
                let msg = format!("{line}:{column}: {kind}");
                occ.summary.errors.push(format!("{}:{msg}", occ.path));
            }
        },
    }
    let out = std::mem::take(&mut occ.out);
    (out, occ.summary)
}

fn add(total: &mut ExtractSummary, s: ExtractSummary) {
    total.files += s.files;
    total.files_failed += s.files_failed;
    total.games += s.games;
    total.games_failed += s.games_failed;
    total.games_other_size += s.games_other_size;
    total.positions_other_size += s.positions_other_size;
    total.positions_out_of_range += s.positions_out_of_range;
    total.occurrences += s.occurrences;
    for e in s.errors {
        if total.errors.len() < 100 {
            total.errors.push(e);
        }
    }
}

/// Extracts the positions of `sources` into `out` (a position file), calling `progress` after
/// each file. See the [module docs](self) for what is written.
pub fn extract(
    sources: &[Source],
    opts: &ExtractOptions,
    out: &mut dyn Write,
    progress: &(dyn Fn() + Sync),
) -> Result<ExtractSummary, ExtractError> {
    if opts.keys.size() != opts.size {
        return Err(ExtractError::KeysSize {
            table: opts.keys.size(),
            size: opts.size,
        });
    }
    if let Some(ids) = &opts.file_ids {
        if ids.len() != sources.len() {
            return Err(ExtractError::FileIds {
                ids: ids.len(),
                sources: sources.len(),
            });
        }
    }
    let n2 = opts.size.points();
    let layout = Layout::new(n2);
    let p = layout.p;
    let canon = Canonicalizer::new(opts.size);
    let mut sorter = ExternalSorter::new(layout.len1(), opts.memory_limit, opts.temp_dir.clone());
    if !opts.all_occurrences {
        // Only the first occurrence of a position is written: drop the others run by run.
        sorter = sorter.unique_prefix(8 + p + 1);
    }
    let mut summary = ExtractSummary::default();
    let batch = opts.batch.max(1);
    for (b, chunk) in sources.chunks(batch).enumerate() {
        let results: Vec<(Vec<u8>, ExtractSummary)> = chunk
            .par_iter()
            .enumerate()
            .map(|(i, s)| {
                let index = b * batch + i;
                let id = opts.file_ids.as_ref().map_or(0, |ids| ids[index]);
                let r = occurrences_of(s, index as u32, id, opts, &canon);
                progress();
                r
            })
            .collect();
        for (records, s) in results {
            add(&mut summary, s);
            for r in records.chunks_exact(layout.len1()) {
                sorter.push(r)?;
            }
        }
    }
    let mut runs = sorter.finish()?;
    summary.spilled_runs = runs.spilled_runs() as u64;

    // Pass 1: hashes shared by several boards get tiebreakers by first appearance.
    let mut tiebreaks: HashMap<(u64, Vec<u8>), u8> = HashMap::new();
    {
        let mut m = runs.merge()?;
        let mut rec = Vec::new();
        // The current hash's boards: (form, first place).
        let mut group: Vec<(Vec<u8>, u64)> = Vec::new();
        let mut group_hash = None;
        let mut flush = |hash: Option<u64>, group: &mut Vec<(Vec<u8>, u64)>| {
            if let (Some(h), true) = (hash, group.len() > 1) {
                if group.len() > 256 {
                    return Err(ExtractError::TooManyCollisions(h));
                }
                group.sort_by_key(|g| g.1);
                for (t, (form, _)) in group.drain(..).enumerate() {
                    tiebreaks.insert((h, form), t as u8);
                }
            }
            group.clear();
            Ok(())
        };
        while m.next_into(&mut rec)? {
            let hash = u64::from_be_bytes(rec[..8].try_into().expect("8 bytes"));
            let form = &rec[8..8 + p];
            let place = u64::from_be_bytes(rec[9 + p..17 + p].try_into().expect("8 bytes"));
            if group_hash != Some(hash) {
                flush(group_hash, &mut group)?;
                group_hash = Some(hash);
            }
            match group.last_mut() {
                Some((f, p)) if f.as_slice() == form => *p = (*p).min(place),
                _ => group.push((form.to_vec(), place)),
            }
        }
        flush(group_hash, &mut group)?;
    }
    summary.collisions = tiebreaks.values().filter(|&&t| t > 0).count() as u64;

    // Pass 2: first occurrences (or all), re-sorted by place.
    let mut by_place = ExternalSorter::new(layout.len2(), opts.memory_limit, opts.temp_dir.clone());
    {
        let mut m = runs.merge()?;
        let mut rec = Vec::new();
        let mut prev: Vec<u8> = Vec::new();
        let key_len = 8 + p + 1;
        let mut out_rec = Vec::with_capacity(layout.len2());
        while m.next_into(&mut rec)? {
            let new_position = prev.len() != key_len || prev[..] != rec[..key_len];
            if new_position {
                summary.distinct += 1;
                prev.clear();
                prev.extend_from_slice(&rec[..key_len]);
            } else if !opts.all_occurrences {
                continue;
            }
            let hash = u64::from_be_bytes(rec[..8].try_into().expect("8 bytes"));
            let tiebreak = if tiebreaks.is_empty() {
                0
            } else {
                tiebreaks
                    .get(&(hash, rec[8..8 + p].to_vec()))
                    .copied()
                    .unwrap_or(0)
            };
            let to_play = if rec[8 + p] == b'B' {
                Color::Black
            } else {
                Color::White
            };
            let id = PositionId {
                hash,
                tiebreak,
                to_play,
            };
            out_rec.clear();
            out_rec.extend_from_slice(&rec[9 + p..17 + p]);
            out_rec.extend_from_slice(&id.to_bytes());
            out_rec.extend_from_slice(&rec[17 + p..]);
            by_place.push(&out_rec)?;
        }
    }
    drop(runs);
    let mut sorted = by_place.finish()?;
    summary.spilled_runs += sorted.spilled_runs() as u64;

    // Pass 3: write in input order.
    let mut m = sorted.merge()?;
    let mut rec = Vec::new();
    let mut buf = Vec::with_capacity(ID_BYTES + n2 + 9);
    while m.next_into(&mut rec)? {
        buf.clear();
        buf.extend_from_slice(&rec[8..8 + ID_BYTES]);
        unpack(&rec[8 + ID_BYTES..8 + ID_BYTES + p], n2, &mut buf);
        if opts.file_ids.is_some() {
            buf.push(1);
            buf.extend_from_slice(&rec[8 + ID_BYTES + p..]);
        } else {
            buf.push(0);
        }
        out.write_all(&buf)?;
        summary.written += 1;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonicalizer_matches_canonical_rows() {
        for n in [2u32, 3, 5, 9] {
            let size = BoardSize::new(n).unwrap();
            let c = Canonicalizer::new(size);
            let mut x = u64::from(n);
            for _ in 0..200 {
                let rows: Vec<u8> = (0..size.points())
                    .map(|_| {
                        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        [b'.', b'.', b'#', b'O'][(x >> 62) as usize]
                    })
                    .collect();
                let board = Board::from_rows(&rows, Some(size)).unwrap();
                let mut out = vec![0; size.points()];
                c.canonical_into(&rows, &mut out);
                assert_eq!(out, canonical_rows(&board));
                let mut packed = vec![0; size.points().div_ceil(4)];
                pack(&rows, &mut packed);
                let mut back = Vec::new();
                unpack(&packed, size.points(), &mut back);
                assert_eq!(back, rows);
            }
        }
    }

    /// The form is the same for the 8 transforms of a board and differs between boards that are
    /// not symmetric images (compared through canonical rows), symmetric boards included.
    #[test]
    fn forms_are_class_invariants() {
        for n in [2u32, 3, 4, 5, 9] {
            let size = BoardSize::new(n).unwrap();
            let c = Canonicalizer::new(size);
            let keys = ZobristKeys::default_for(size);
            let mut x = u64::from(n) + 7;
            let mut boards: Vec<Board> = vec![Board::new(size)];
            for k in 0..150 {
                let rows: Vec<u8> = (0..size.points())
                    .map(|_| {
                        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        [b'.', b'.', b'.', b'#', b'O'][((x >> 33) % 5) as usize]
                    })
                    .collect();
                let b = Board::from_rows(&rows, Some(size)).unwrap();
                // Every third board made symmetric (mirrored onto itself).
                let b = if k % 3 == 0 {
                    let m = b.transform(Symmetry::ALL[k % 8]);
                    let mut s = b.clone();
                    for (p, col) in m.stones() {
                        let _ = s.set(p, Some(col));
                    }
                    s
                } else {
                    b
                };
                boards.push(b);
            }
            let form = |b: &Board| {
                let rows = b.to_rows();
                let mut out = vec![0; size.points()];
                c.form_into(&rows, &keys.table().symmetric_hashes(b), &mut out);
                out
            };
            for a in &boards {
                for s in Symmetry::ALL {
                    assert_eq!(form(&a.transform(s)), form(a));
                }
                for b in &boards {
                    assert_eq!(
                        form(a) == form(b),
                        canonical_rows(a) == canonical_rows(b),
                        "{n}"
                    );
                }
            }
        }
    }
}
