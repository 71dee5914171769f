//! Extraction: every distinct position of a game collection into a position file.
//!
//! # What is kept
//! Sources are SGF files (replayed by kifu-go: main lines, or all variations), Ishi files
//! (replayed through their SGF conversion) and ASCII position files ([`crate::ascii`]).
//! Positions of other board sizes are skipped and counted, as are positions outside the move
//! range. Two positions are the same when their side to move is the same
//! and their boards are the same under one of the 8 symmetries: the key is the canonical hash,
//! and boards with the same hash are told apart by their canonical rows ([`canonical_rows`]), so
//! a hash collision never merges two positions (the later board gets the next tiebreaker, in
//! order of first appearance, as [`crate::Keyer`] does). The first occurrence of each position is
//! written, in input order (file, then replay order); with [`ExtractOptions::all_occurrences`],
//! every occurrence is written, still in input order.
//!
//! # Deterministic and bounded
//! Files are replayed in parallel (rayon) in batches (the next batch replays while the last one
//! is appended), but every occurrence is numbered by its place in the input (file, then replay
//! order), and the output is defined by that number, so the bytes do not depend on the number of
//! threads. Each occurrence is stored once, in input order (hash, side, board packed 2 bits a
//! point, extra info; in memory up to three quarters of [`ExtractOptions::memory_limit`], then in
//! a temporary file), and only a 17-byte key (hash, side, number) is sorted, through an
//! [`ExternalSorter`] (a quarter of the memory, then sorted runs spilled to temporary files). One
//! pass over the sorted keys decides, hash by hash, which occurrences are written: a hash seen
//! once is a new position without reading its board; the boards of a hash seen several times
//! are read and compared by their canonical rows (so collisions are found exactly), and get
//! tiebreakers by first appearance. The occurrences written are marked in a bitmap (one bit an
//! occurrence, the only memory that grows with the input) and written in one pass over the store.
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
use groups::{Boards, Group, PayloadStore};
use kifu_fs::shard::Shard;
use kifu_go::replay::{ReplayError, ReplayOptions, ReplaySink, Scope, Step};
use kifu_go::{Board, BoardSize, Color, Symmetry, ZobristKeys};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// The format of a source file.
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

impl Source {
    /// A file whose format is told by its extension (any case): `.go` Ishi, `.txt` and `.pos`
    /// ASCII positions, anything else SGF.
    pub fn new(path: impl Into<PathBuf>) -> Source {
        let path = path.into();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let kind = match ext.as_deref() {
            Some("go") => SourceKind::Ishi,
            Some("txt" | "pos") => SourceKind::Ascii,
            _ => SourceKind::Sgf,
        };
        Source { path, kind }
    }

    /// The file's games as an SGF collection: SGF parsed, Ishi through its SGF conversion. ASCII
    /// positions have no games.
    pub fn read_games(&self) -> Result<kifu_sgf::Collection, SourceError> {
        let bytes = std::fs::read(&self.path).map_err(|source| SourceError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.games_from_bytes(bytes)
    }

    /// The games of the file whose bytes, as read, are `bytes` ([`Source::read_games`] without
    /// the read: for a caller that has read the file already).
    pub fn games_from_bytes(&self, bytes: Vec<u8>) -> Result<kifu_sgf::Collection, SourceError> {
        match self.kind {
            SourceKind::Sgf => Ok(kifu_sgf::Collection::parse_vec(bytes).collection),
            SourceKind::Ishi => {
                Ok(kifu_sgf::Collection::parse_vec(ishi_sgf_text(&bytes)).collection)
            }
            SourceKind::Ascii => Err(SourceError::NotGames(self.path.clone())),
        }
    }
}

/// An Ishi file's games as SGF text: what every reader of its games parses, so that the
/// indexes (which replay that text) and the readers of one game agree on every byte.
pub(crate) fn ishi_sgf_text(bytes: &[u8]) -> Vec<u8> {
    let doc = kifu_ishi::read(bytes).document;
    kifu_sgf::write(&kifu_ishi::to_sgf(&doc).collection).into_bytes()
}

/// Why a source's games could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// ASCII positions are positions, not games.
    #[error("{}: ASCII positions are not games", .0.display())]
    NotGames(PathBuf),
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
    /// Memory for the occurrences before temporary files are used: a quarter for sorting keys
    /// (held as 32 bytes an occurrence, with what the buffers have allocated ahead; then sorted
    /// runs are spilled), the rest for the occurrences themselves (then appended to a
    /// temporary file).
    pub memory_limit: usize,
    /// Folder for spilled runs (the system's temporary folder when `None`).
    pub temp_dir: Option<PathBuf>,
    /// Files replayed per parallel batch.
    pub batch: usize,
    /// Keep only the positions of this shard (canonical hash modulo N): the part of a sharded
    /// extraction ([`extract_part`]).
    pub shard: Option<Shard>,
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
            shard: None,
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
    /// Files read that hold no game (empty, or neither SGF nor Ishi; named in `errors`).
    pub files_without_games: u64,
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
    fn transform_into(&self, rows: &[u8], s: usize, out: &mut [u8]) {
        let p = &self.perm[s];
        for (j, o) in out.iter_mut().enumerate().take(self.n2) {
            *o = rows[p[j] as usize];
        }
    }
}

/// The lowest of the 8 transformed rows of `board` (same as [`crate::canonical_rows`]).
pub fn canonical_rows(board: &Board) -> Vec<u8> {
    crate::id::canonical_rows(board)
}

/// Bytes of an occurrence record (the payload): hash, side to move, rows packed 2 bits a point
/// (a 19x19 board in 91 bytes instead of 361), extra info.
fn payload_len(n2: usize) -> usize {
    8 + 1 + n2.div_ceil(4) + 8
}

/// Bytes of a sort key: hash, side to move, occurrence number (its place in the input).
const KEY_LEN: usize = 17;

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
    file_id: u32,
    rows: Vec<u8>,
    out: Vec<u8>,
    summary: ExtractSummary,
    last_game_other: Option<usize>,
    path: String,
}

impl Occurrences<'_> {
    fn push(&mut self, hash: u64, to_play: Color, variation: u32, move_number: u32) {
        let p = self.rows.len().div_ceil(4);
        self.out.extend_from_slice(&hash.to_be_bytes());
        self.out.push(to_play.letter() as u8);
        let at = self.out.len();
        self.out.resize(at + p, 0);
        pack(&self.rows, &mut self.out[at..]);
        let extra = ExtraInfo {
            file_id: self.file_id,
            variation: variation.min(u32::from(u16::MAX)) as u16,
            move_number: move_number.min(u32::from(u16::MAX)) as u16,
        };
        self.out.extend_from_slice(&extra.to_bytes());
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
            pos.canonical().hash,
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
    file_id: u32,
    opts: &ExtractOptions,
) -> (Vec<u8>, ExtractSummary) {
    let mut occ = Occurrences {
        opts,
        file_id,
        rows: vec![0; opts.size.points()],
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
                    let hash = opts.keys.table().symmetric_hashes(board).canonical().hash;
                    occ.push(hash, *to_play, 0, i as u32);
                }
            }
            Err(AsciiError { line, column, kind }) => {
                occ.summary.files_failed = 1;
                let msg = format!("{line}:{column}: {kind}");
                occ.summary.errors.push(format!("{}:{msg}", occ.path));
            }
        },
    }
    let s = &occ.summary;
    if s.files_failed == 0 && s.games + s.games_other_size + s.games_failed == 0 {
        if let SourceKind::Sgf | SourceKind::Ishi = source.kind {
            // A file that holds no game (empty, not SGF, not Ishi) is named: it may be a
            // file the user did not mean to give, or one damaged on its way.
            occ.summary.files_without_games = 1;
            occ.error("no game found in it".into());
        }
    }
    let out = std::mem::take(&mut occ.out);
    (out, occ.summary)
}

fn add(total: &mut ExtractSummary, s: ExtractSummary) {
    total.files += s.files;
    total.files_failed += s.files_failed;
    total.files_without_games += s.files_without_games;
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
    extract_into(sources, opts, out, None, progress)
}

/// Extracts the positions of the shard `opts.shard` (all of them without one) into `out`, and
/// into `order` the place of each record's occurrence in the whole input (a u64, big-endian, a
/// record): the part of a sharded extraction that [`crate::parts::merge_extract_parts`] merges.
/// All the boards of one hash fall in one shard, so tiebreakers are those of one pass, and the
/// records of all parts merged by their places are the bytes of one pass.
pub fn extract_part(
    sources: &[Source],
    opts: &ExtractOptions,
    out: &mut dyn Write,
    order: &mut dyn Write,
    progress: &(dyn Fn() + Sync),
) -> Result<ExtractSummary, ExtractError> {
    extract_into(sources, opts, out, Some(order), progress)
}

fn extract_into(
    sources: &[Source],
    opts: &ExtractOptions,
    out: &mut dyn Write,
    mut order: Option<&mut dyn Write>,
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
    // With an order to write, each stored occurrence carries its place in the whole input.
    let plen_in = payload_len(n2);
    let plen = plen_in + if order.is_some() { 8 } else { 0 };
    let p = n2.div_ceil(4);
    let canon = Canonicalizer::new(opts.size);
    // A quarter of the memory for the keys' sort, the rest for the occurrences themselves.
    let mut sorter = ExternalSorter::new(KEY_LEN, opts.memory_limit / 4, opts.temp_dir.clone());
    let mut store = PayloadStore::new(plen, opts.memory_limit - opts.memory_limit / 4, opts);
    let mut summary = ExtractSummary::default();
    let batch = opts.batch.max(1);
    // Batches are replayed in parallel while the one before is appended (a serial step).
    let compute = |b: usize, chunk: &[Source]| -> Vec<(Vec<u8>, ExtractSummary)> {
        chunk
            .par_iter()
            .enumerate()
            .map(|(i, s)| {
                let id = opts.file_ids.as_ref().map_or(0, |ids| ids[b * batch + i]);
                let r = occurrences_of(s, id, opts);
                progress();
                r
            })
            .collect()
    };
    let mut chunks = sources.chunks(batch).enumerate();
    let mut pending = chunks.next().map(|(b, c)| compute(b, c));
    let mut key = [0u8; KEY_LEN];
    let mut place = 0u64;
    let mut out_of_shard = 0u64;
    let mut with_place = Vec::with_capacity(plen);
    let keep_place = order.is_some();
    while let Some(results) = pending.take() {
        let next = chunks.next();
        let (done, computed) = rayon::join(
            || -> Result<(), ExtractError> {
                for (records, s) in results {
                    add(&mut summary, s);
                    for r in records.chunks_exact(plen_in) {
                        let here = place;
                        place += 1;
                        if let Some(shard) = opts.shard {
                            if !shard
                                .contains(u64::from_be_bytes(r[..8].try_into().expect("8 bytes")))
                            {
                                out_of_shard += 1;
                                continue;
                            }
                        }
                        key[..9].copy_from_slice(&r[..9]);
                        key[9..].copy_from_slice(&store.len().to_be_bytes());
                        sorter.push(&key)?;
                        if keep_place {
                            with_place.clear();
                            with_place.extend_from_slice(r);
                            with_place.extend_from_slice(&here.to_be_bytes());
                            store.push(&with_place)?;
                        } else {
                            store.push(r)?;
                        }
                    }
                }
                Ok(())
            },
            || next.map(|(b, c)| compute(b, c)),
        );
        done?;
        pending = computed;
    }
    summary.occurrences -= out_of_shard;
    let mut runs = sorter.finish()?;
    summary.spilled_runs = runs.spilled_runs() as u64 + store.spilled();

    // One pass over the keys, by hash: which occurrences are written, and the tiebreakers of
    // the hashes shared by several boards. Boards are read only for hashes with several
    // occurrences, and compared by their canonical rows.
    let mut kept = vec![0u64; store.len().div_ceil(64) as usize];
    let mut tiebreaks: HashMap<u64, u8> = HashMap::new();
    {
        let mut group = Group::default();
        let mut m = runs.merge()?;
        let mut rec = Vec::new();
        let mut boards = Boards {
            store: &mut store,
            canon: &canon,
            payload: vec![0u8; plen],
            rows: Vec::with_capacity(n2 + 4),
            n2,
        };
        while m.next_into(&mut rec)? {
            let hash = u64::from_be_bytes(rec[..8].try_into().expect("8 bytes"));
            let occ = u64::from_be_bytes(rec[9..17].try_into().expect("8 bytes"));
            if group.hash != Some(hash) {
                group.finish(&mut kept, &mut tiebreaks, &mut summary);
                group.hash = Some(hash);
            }
            group.add(rec[8], occ, opts.all_occurrences, &mut boards)?;
        }
        group.finish(&mut kept, &mut tiebreaks, &mut summary);
    }
    drop(runs);

    // The kept occurrences, in input order.
    let mut buf = Vec::with_capacity(ID_BYTES + n2 + 9);
    let mut occ = 0u64;
    store.for_each(|r| {
        let i = occ;
        occ += 1;
        if kept[(i / 64) as usize] >> (i % 64) & 1 == 0 {
            return Ok(());
        }
        let id = PositionId {
            hash: u64::from_be_bytes(r[..8].try_into().expect("8 bytes")),
            tiebreak: tiebreaks.get(&i).copied().unwrap_or(0),
            to_play: if r[8] == b'B' {
                Color::Black
            } else {
                Color::White
            },
        };
        buf.clear();
        buf.extend_from_slice(&id.to_bytes());
        unpack(&r[9..9 + p], n2, &mut buf);
        if opts.file_ids.is_some() {
            buf.push(1);
            buf.extend_from_slice(&r[9 + p..plen_in]);
        } else {
            buf.push(0);
        }
        out.write_all(&buf)?;
        if let Some(order) = order.as_mut() {
            order.write_all(&r[plen_in..])?;
        }
        summary.written += 1;
        Ok(())
    })?;
    Ok(summary)
}

mod groups;

#[cfg(test)]
mod tests;
