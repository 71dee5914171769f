//! Building an index: [`build_index`] reads the files in parallel batches, sorts the entries, and
//! writes the sections in file order ([`super::format`]). Sections whose place comes after the
//! entries (games, strings, summaries) are spooled to temporary files while the entries are
//! still unknown, so the index is written in one stream.

use super::format::{
    Entry, FileRecord, GameRecord, Header, StrRef, SumWriter, Trailer, ENTRY_BYTES,
};
use super::hash::SecondHash;
use super::sink::{FileIndexer, IndexedFile};
use super::summary::SummaryBuilder;
use super::{IndexError, IndexOptions, IndexSummary};
use crate::extract::{Source, SourceKind};
use crate::sort::ExternalSorter;
use kifu_go::replay::{
    replay_bytes, replay_collection, ReplayError, ReplayOptions, ReplaySink, RootInfo, Scope, Step,
};
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Errors kept for the summary.
const MAX_ERRORS: usize = 100;

/// Indexes the main lines (with [`IndexOptions::variations`], every variation too) of the games
/// of `sources` (SGF, or Ishi through its SGF conversion; ASCII positions are failed files) into
/// `out` (see the [module docs](super)), calling `progress` after each file.
pub fn build_index(
    sources: &[Source],
    opts: &IndexOptions,
    out: &mut dyn Write,
    progress: &(dyn Fn() + Sync),
) -> Result<IndexSummary, IndexError> {
    build_index_with::<()>(sources, opts, out, progress, None)
}

/// [`FileWork::visit`]: a file and its replay ([`FileReplay`]: its games as parsed, replayed
/// once for the index and for the visit).
pub type VisitFile<'a, T> = dyn Fn(&Source, &mut FileReplay<'_, '_>) -> T + Sync + 'a;

/// One file's games as parsed, for a [`FileWork::visit`]: [`FileReplay::replay`] replays them
/// once for both the index and the visit, so that a file is read, parsed and replayed once
/// whatever else is made of it.
pub struct FileReplay<'c, 's> {
    collection: &'c kifu_sgf::Collection,
    options: ReplayOptions,
    size: kifu_go::BoardSize,
    /// Whether the index takes the main lines only (the replay plays every variation).
    main_only: bool,
    indexer: Option<FileIndexer<'s>>,
    result: Option<IndexedFile>,
}

impl<'c> FileReplay<'c, '_> {
    /// The file's games as parsed (an Ishi file's through its SGF conversion).
    pub fn collection(&self) -> &'c kifu_sgf::Collection {
        self.collection
    }

    /// The board size of the index: the games of other sizes are not taken.
    pub fn size(&self) -> kifu_go::BoardSize {
        self.size
    }

    /// Replays every game of the file, every variation, once: the index takes its positions
    /// from the steps (the main lines only, unless it indexes variations) and `each` sees
    /// every step, of every game. The numbers in the file of the games the index took, in
    /// order. Called again, it replays nothing and gives the same numbers.
    pub fn replay(&mut self, each: &mut dyn FnMut(&Step<'_>)) -> Vec<u32> {
        if let Some(mut indexer) = self.indexer.take() {
            let tee = Tee {
                indexer: &mut indexer,
                main_only: self.main_only,
                each,
            };
            replay_collection(self.collection, &self.options, tee);
            self.result = Some(indexer.finish());
        }
        self.result
            .as_ref()
            .map(|r| r.games.iter().map(|g| g.game_in_file).collect())
            .unwrap_or_default()
    }
}

/// The replay's steps given to the index's sink and to a visit's closure.
struct Tee<'t, 's> {
    indexer: &'t mut FileIndexer<'s>,
    main_only: bool,
    each: &'t mut dyn FnMut(&Step<'_>),
}

impl ReplaySink for Tee<'_, '_> {
    const GAME_INFO: bool = true;

    fn position(&mut self, step: &Step<'_>) {
        // Along the main line the steps are those of a replay of the main line only: it
        // comes first in the pre-order, each node the child of the one before.
        if !(self.main_only && step.variation != 0) {
            self.indexer.position(step);
        }
        (self.each)(step);
    }

    fn game_info(&mut self, game: usize, info: &RootInfo) {
        self.indexer.game_info(game, info);
    }

    fn game_error(&mut self, error: ReplayError) {
        self.indexer.game_error(error);
    }
}

/// [`FileWork::append`]: a file, the index's number of its first game, what `visit` gave.
pub type AppendFile<'a, T> = dyn FnMut(&Source, u64, T) + Send + 'a;

/// More work on each file [`build_index_with`] reads, done on its games as parsed and on the
/// steps of their one replay: kifu-search builds its pattern index's records this way, so
/// that each file is read, parsed and replayed once.
pub struct FileWork<'a, T> {
    /// On a worker thread, for each file read: the file and its [`FileReplay`] (its games,
    /// and [`FileReplay::replay`], which gives the steps and the numbers in the file of the
    /// games the index took; the build replays the file itself if `visit` did not).
    pub visit: &'a VisitFile<'a, T>,
    /// On the building thread, in the order of the files, for each file the index took games
    /// from: the file, the index's number of its first game, and what `visit` gave.
    pub append: &'a mut AppendFile<'a, T>,
    /// On the building thread, once every file is appended and before the index is sorted
    /// and written: what the appends made can then be finished beside the index's writing.
    pub appended: Option<&'a mut (dyn FnMut() + 'a)>,
}

/// [`build_index`], with `work` done on each file as it is read and replayed.
pub fn build_index_with<T: Send>(
    sources: &[Source],
    opts: &IndexOptions,
    out: &mut dyn Write,
    progress: &(dyn Fn() + Sync),
    work: Option<FileWork<'_, T>>,
) -> Result<IndexSummary, IndexError> {
    if opts.keys.size() != opts.size {
        return Err(IndexError::KeysSize {
            table: opts.keys.size(),
            size: opts.size,
        });
    }
    if opts.variations && opts.most_stones.is_some() {
        // The pattern search answers the positions without entries by their own line, where
        // the entries of such an index follow a main-line position by a variation's move.
        return Err(IndexError::Options(super::NO_CUT_WITH_VARIATIONS));
    }
    let (visit, append, appended) = match work {
        Some(w) => (Some(w.visit), Some(w.append), w.appended),
        None => (None, None, None),
    };
    let Collected {
        sorter,
        games,
        strings,
        files,
        mut summary,
    } = collect(sources, opts, progress, visit, append)?;
    if let Some(appended) = appended {
        appended();
    }
    let mut runs = sorter.finish()?;
    summary.spilled_runs = runs.spilled_runs() as u64;
    let tables = Tables {
        games,
        strings,
        files,
    };
    let counts = (
        summary.positions,
        summary.entries,
        summary.games,
        summary.files,
    );
    summary.summaries = write_index(out, opts, counts, tables, &mut |each| {
        if let Some(sorted) = runs.in_memory() {
            for e in sorted.as_chunks::<ENTRY_BYTES>().0 {
                each(e)?;
            }
        } else {
            let mut m = runs.merge()?;
            let mut bytes = Vec::new();
            while m.next_into(&mut bytes)? {
                let e: &[u8; ENTRY_BYTES] = bytes[..]
                    .try_into()
                    .map_err(|_| IndexError::Format("a sorted entry of the wrong length"))?;
                each(e)?;
            }
        }
        Ok(())
    })?;
    Ok(summary)
}

/// The sections of an index that come after the entries but are known before them: the game
/// records, the strings and the file table.
pub(super) struct Tables {
    pub games: Spool,
    pub strings: Spool,
    pub files: Vec<FileRecord>,
}

/// Hands each entry, in key order, to the function it is given.
pub(super) type EntrySource<'a> = dyn FnMut(&mut dyn FnMut(&[u8; ENTRY_BYTES]) -> Result<(), IndexError>) -> Result<(), IndexError>
    + 'a;

/// Writes a whole index (see the [module docs](super)) from its counts (positions, entries,
/// games, files), its tables and its sorted entries; gives the number of summaries. One pass
/// over the entries: the summaries are built as they stream past.
pub(super) fn write_index(
    out: &mut dyn Write,
    opts: &IndexOptions,
    (positions, entries, games, files): (u64, u64, u64, u64),
    tables: Tables,
    sorted: &mut EntrySource<'_>,
) -> Result<u64, IndexError> {
    let zobrist = opts.keys.table().to_text();
    let threshold = opts.summary_threshold.max(1);
    let header = Header::new(
        opts.size,
        opts.variations,
        opts.most_stones.map(|most| (most, positions)),
        entries,
        games,
        files,
        zobrist.len() as u64,
        tables.strings.len,
        threshold,
    );
    let mut out = SumWriter::new(out);
    out.write_all(&header.encode())?;
    out.write_all(zobrist.as_bytes())?;
    let mut sums = SummaryBuilder::new(
        threshold,
        games,
        Spool::new(&opts.temp_dir)?,
        Spool::new(&opts.temp_dir)?,
    );
    let mut i = 0u64;
    sorted(&mut |e| {
        out.write_all(e)?;
        sums.push(i, &Entry::decode(e))?;
        i += 1;
        Ok(())
    })?;
    if i != entries {
        return Err(IndexError::Format("fewer or more entries than counted"));
    }
    let (data, dir, data_len, summaries) = sums.finish()?;
    tables.games.copy_to(&mut out)?;
    for f in &tables.files {
        out.write_all(&f.encode())?;
    }
    tables.strings.copy_to(&mut out)?;
    data.copy_to(&mut out)?;
    dir.copy_to(&mut out)?;
    out.finish(Trailer {
        summaries,
        dir_off: header.summaries_off() + data_len,
        sums: None,
    })?;
    Ok(summaries)
}

/// A section written to a temporary file before its place in the index comes.
pub(super) struct Spool {
    w: BufWriter<File>,
    /// Bytes written.
    len: u64,
}

impl Spool {
    pub(super) fn new(dir: &Option<PathBuf>) -> io::Result<Spool> {
        let f = match dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        Ok(Spool {
            w: BufWriter::new(f),
            len: 0,
        })
    }

    /// Appends a string; gives where it is.
    pub(super) fn push_str(&mut self, s: &str) -> io::Result<StrRef> {
        let r = StrRef {
            off: self.len,
            len: s.len() as u32,
        };
        self.write_all(s.as_bytes())?;
        Ok(r)
    }

    /// Copies everything written to `out`.
    fn copy_to(self, out: &mut dyn Write) -> io::Result<()> {
        let mut f = self.w.into_inner().map_err(|e| e.into_error())?;
        f.seek(SeekFrom::Start(0))?;
        io::copy(&mut BufReader::new(f), out)?;
        Ok(())
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.w.write(buf)?;
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// What reading the files gives: the unsorted entries, the game records and strings spooled,
/// the file table.
struct Collected {
    sorter: ExternalSorter,
    games: Spool,
    strings: Spool,
    files: Vec<FileRecord>,
    summary: IndexSummary,
}

impl Collected {
    fn error(&mut self, e: String) {
        if self.summary.errors.len() < MAX_ERRORS {
            self.summary.errors.push(e);
        }
    }

    /// Appends one file's result: its path, then its games (numbered from the games so far) and
    /// their strings, and its entries to the sorter.
    fn append<T>(
        &mut self,
        source: &Source,
        result: Result<(IndexedFile, Option<T>), String>,
        append: &mut Option<&mut AppendFile<'_, T>>,
    ) -> Result<(), IndexError> {
        let file_no = u32::try_from(self.summary.files).map_err(|_| IndexError::TooMany)?;
        self.summary.files += 1;
        let path = self.strings.push_str(&source.path.display().to_string())?;
        self.files.push(FileRecord { path });
        let (r, work) = match result {
            Ok(r) => r,
            Err(e) => {
                self.summary.files_failed += 1;
                self.error(e);
                return Ok(());
            }
        };
        self.summary.games_other_size += r.games_other_size;
        self.summary.games_failed += r.games_failed;
        for e in r.errors {
            self.error(e);
        }
        if r.games.is_empty() && r.games_other_size == 0 && r.games_failed == 0 {
            // A file that holds no game (empty, not SGF, not Ishi) is named: it may be a
            // file the user did not mean to give, or one damaged on its way.
            self.summary.files_without_games += 1;
            self.error(format!("{}: no game found in it", source.path.display()));
        }
        let base = u32::try_from(self.summary.games).map_err(|_| IndexError::TooMany)?;
        if let (Some(append), Some(work)) = (append.as_mut(), work) {
            append(source, u64::from(base), work);
        }
        for g in &r.games {
            let record = GameRecord {
                file: file_no,
                game_in_file: g.game_in_file,
                moves: g.moves,
                winner: g.winner,
                strings: self.strings.push_str(&g.strings)?,
            };
            self.games.write_all(&record.encode())?;
        }
        self.summary.games += r.games.len() as u64;
        for e in &r.entries {
            let e = Entry {
                game: base + e.game,
                ..*e
            };
            self.sorter.push_array(&e.encode())?;
        }
        self.summary.entries += r.entries.len() as u64;
        self.summary.positions += r.positions;
        Ok(())
    }
}

/// Replays the files in batches of [`IndexOptions::batch`] and appends their results in input
/// order: a batch is replayed in parallel while the one before is appended (a serial step), so
/// the bytes do not depend on the threads.
fn collect<T: Send>(
    sources: &[Source],
    opts: &IndexOptions,
    progress: &(dyn Fn() + Sync),
    visit: Option<&VisitFile<'_, T>>,
    mut append: Option<&mut AppendFile<'_, T>>,
) -> Result<Collected, IndexError> {
    let second = SecondHash::new(opts.size);
    let mut c = Collected {
        sorter: ExternalSorter::new(ENTRY_BYTES, opts.memory_limit, opts.temp_dir.clone()),
        games: Spool::new(&opts.temp_dir)?,
        strings: Spool::new(&opts.temp_dir)?,
        files: Vec::new(),
        summary: IndexSummary::default(),
    };
    let compute = |chunk: &[Source]| -> Vec<Result<(IndexedFile, Option<T>), String>> {
        chunk
            .par_iter()
            .map(|p| {
                let r = index_file(p, opts, &second, visit);
                progress();
                r
            })
            .collect()
    };
    let mut chunks = sources.chunks(opts.batch.max(1));
    let mut pending = chunks.next().map(|c| (c, compute(c)));
    while let Some((chunk, results)) = pending.take() {
        let next = chunks.next();
        let (done, computed) = rayon::join(
            || -> Result<(), IndexError> {
                for (r, source) in results.into_iter().zip(chunk) {
                    c.append(source, r, &mut append)?;
                }
                Ok(())
            },
            || next.map(|c| (c, compute(c))),
        );
        done?;
        pending = computed;
    }
    Ok(c)
}

/// Replays one file: streamed, or with `visit`, parsed and replayed once for the index and the
/// visit, whose result is kept if the index took games from it (`Err`: the message of a file
/// that could not be read).
fn index_file<T>(
    source: &Source,
    opts: &IndexOptions,
    second: &SecondHash,
    visit: Option<&VisitFile<'_, T>>,
) -> Result<(IndexedFile, Option<T>), String> {
    let path = &source.path;
    let failed = |msg: String| format!("{}: {msg}", path.display());
    let bytes = std::fs::read(path).map_err(|e| failed(format!("cannot read: {e}")))?;
    let converted = match source.kind {
        SourceKind::Sgf => None,
        // Ishi files are read through their SGF conversion (small files: the round trip
        // through text costs little and keeps one indexing path).
        SourceKind::Ishi => Some(crate::extract::ishi_sgf_text(&bytes)),
        SourceKind::Ascii => {
            return Err(failed(
                "ASCII positions are not games: there is nothing to index".into(),
            ))
        }
    };
    let scope = if opts.variations {
        Scope::AllVariations
    } else {
        Scope::MainLineOnly
    };
    let keys = Some(opts.keys.clone());
    let text = converted.unwrap_or(bytes);
    let (mut r, work) = match visit {
        None => {
            let replay = ReplayOptions {
                scope,
                keys,
                ..Default::default()
            };
            let sink = replay_bytes(
                &text,
                &replay,
                FileIndexer::new(opts.size, second, opts.most_stones),
            );
            (sink.finish(), None)
        }
        Some(visit) => {
            // Parsed once into a tree (the visit reads it too) and replayed once for both.
            let collection = kifu_sgf::Collection::parse_vec(text).collection;
            let mut replay = FileReplay {
                collection: &collection,
                options: ReplayOptions {
                    scope: Scope::AllVariations,
                    keys,
                    ..Default::default()
                },
                size: opts.size,
                main_only: scope == Scope::MainLineOnly,
                indexer: Some(FileIndexer::new(opts.size, second, opts.most_stones)),
                result: None,
            };
            let t = visit(source, &mut replay);
            replay.replay(&mut |_| {});
            // `replay` has just left its result; an empty one would only stand for nothing.
            let r = replay
                .result
                .take()
                .unwrap_or_else(|| FileIndexer::new(opts.size, second, opts.most_stones).finish());
            let t = (!r.games.is_empty()).then_some(t);
            (r, t)
        }
    };
    for e in &mut r.errors {
        *e = failed(std::mem::take(e));
    }
    Ok((r, work))
}
