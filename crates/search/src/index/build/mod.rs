//! Building a sidecar without holding the index: files are read in batches (each batch in
//! parallel), their games' records spooled in order to a temporary file beside the sidecar,
//! then the sidecar is written (header, files, game count, the spooled records, checksum) and
//! opened as any other. Memory is a batch's games, not the collection's.

use super::entry::{GameBuilder, GameRecord};
use super::games::Game;
use super::names::{NameSpool, SpoolIter};
use super::{store, PatternIndex, PatternIndexError};
use crate::collection::CollectionFile;
use kifu_posdb::extract::Source;
use kifu_posdb::index::FileReplay;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Files read at once: enough to keep both cores busy, few enough that a batch's games stay
/// small (a few megabytes of records for single-game files).
const BATCH: usize = 256;

impl PatternIndex {
    /// Builds the index of `files` into a sidecar at `path` for a database of `fingerprint`
    /// and opens it from there (only the games' hot parts in memory, as
    /// [`PatternIndex::load`]). `Ok(None)`, with nothing written, when a file could not be
    /// read: [`PatternIndex::build`] tells which.
    pub fn build_to(
        files: &[CollectionFile],
        path: &Path,
        fingerprint: u64,
    ) -> Result<Option<PatternIndex>, PatternIndexError> {
        write_sidecar(None, files, path, fingerprint)
    }

    /// The index of `files` when its first files are those of `self` (an index with games
    /// added after its files), written into a sidecar at `path` (which may be the one `self`
    /// was opened from: it is replaced by rename) and opened from there: the old games'
    /// records are copied, only the new files are read; the same bytes as
    /// [`PatternIndex::build_to`] of all `files`. `Ok(None)`, with nothing written, when
    /// `self` is not a beginning of `files` or a new file could not be read.
    pub fn extend_to(
        &self,
        files: &[CollectionFile],
        path: &Path,
        fingerprint: u64,
    ) -> Result<Option<PatternIndex>, PatternIndexError> {
        let old = self.files.len();
        if files.len() < old
            || files[..old]
                .iter()
                .zip(self.files.iter())
                .any(|(f, name)| f.source.path.display().to_string() != name)
        {
            return Ok(None);
        }
        write_sidecar(Some(self), files, path, fingerprint)
    }
}

/// Writes the sidecar of `files` at `path`: the games of `old` (an index of the first of
/// them) copied, those of the other files built in batches; then opens it.
fn write_sidecar(
    old: Option<&PatternIndex>,
    files: &[CollectionFile],
    path: &Path,
    fingerprint: u64,
) -> Result<Option<PatternIndex>, PatternIndexError> {
    let mut w = SidecarWriter::new(path)?;
    let known = old.map_or(0, |o| o.files.len());
    if let Some(old) = old {
        let mut cold = store::ColdReader::new(old, false);
        for (gi, g) in old.games.iter().enumerate() {
            let bytes = cold
                .bytes(gi)
                .map_err(|why| w.io(std::io::Error::other(why)))?;
            w.push_game(g, (g.id, g.file), bytes)?;
        }
    }
    for (b, batch) in files[known..].chunks(BATCH).enumerate() {
        for (entries, failures) in PatternIndex::build_files(batch, known + b * BATCH) {
            if !failures.is_empty() {
                return Ok(None);
            }
            for g in &entries {
                w.push(g)?;
            }
        }
    }
    w.finish(
        files.iter().map(|f| Ok(f.source.path.to_string_lossy())),
        fingerprint,
    )
}

/// Writes a sidecar's game records as they come, in the database's order, spooled to a
/// temporary file beside it; [`SidecarWriter::finish`] writes the sidecar (header, files,
/// game count, the records, checksum) and opens it.
struct SidecarWriter {
    path: PathBuf,
    spool: tempfile::NamedTempFile,
    w: std::io::BufWriter<std::fs::File>,
    games: u64,
    record: Vec<u8>,
}

impl SidecarWriter {
    fn new(path: &Path) -> Result<SidecarWriter, PatternIndexError> {
        let spool = kifu_fs::atomic::locked_temp_in(kifu_fs::atomic::folder_of(path))?;
        let file = spool.as_file().try_clone().map_err(io_at(path))?;
        Ok(SidecarWriter {
            path: path.to_path_buf(),
            spool,
            w: std::io::BufWriter::with_capacity(1 << 20, file),
            games: 0,
            record: Vec::new(),
        })
    }

    fn io(&self, source: std::io::Error) -> PatternIndexError {
        io_at(&self.path)(source)
    }

    /// Appends a game just built (its cold part in memory).
    fn push(&mut self, g: &GameRecord) -> Result<(), PatternIndexError> {
        self.push_encoded(|out| g.encode_record(&g.cold, out))
    }

    /// Appends the game numbered `id` of file `file` whose record after those numbers is
    /// `tail` ([`FileRecords`]).
    fn push_tail(&mut self, id: u64, file: u32, tail: &[u8]) -> Result<(), PatternIndexError> {
        self.record.clear();
        super::entry::encode_numbers(id, file, &mut self.record);
        self.w.write_all(&self.record).map_err(|e| self.io(e))?;
        self.w.write_all(tail).map_err(|e| self.io(e))?;
        self.games += 1;
        Ok(())
    }

    /// Appends a game of an opened index, numbered `numbers` (its id and file), whose cold
    /// part's bytes are `cold`.
    fn push_game(
        &mut self,
        g: Game<'_>,
        numbers: (u64, u32),
        cold: &[u8],
    ) -> Result<(), PatternIndexError> {
        self.push_encoded(|out| g.encode_record_as(numbers, cold, out))
    }

    /// Appends the record `encode` writes.
    fn push_encoded(&mut self, encode: impl FnOnce(&mut Vec<u8>)) -> Result<(), PatternIndexError> {
        self.record.clear();
        encode(&mut self.record);
        self.w.write_all(&self.record).map_err(|e| self.io(e))?;
        self.games += 1;
        Ok(())
    }

    /// Writes the sidecar, whose files are `names`, and opens it.
    fn finish(
        self,
        names: impl ExactSizeIterator<Item = std::io::Result<impl AsRef<str>>> + Clone,
        fingerprint: u64,
    ) -> Result<Option<PatternIndex>, PatternIndexError> {
        let path = self.path.clone();
        self.write(names, fingerprint)?;
        store::open(&path, fingerprint)
    }

    /// Writes the sidecar, whose files are `names`.
    fn write(
        mut self,
        names: impl ExactSizeIterator<Item = std::io::Result<impl AsRef<str>>> + Clone,
        fingerprint: u64,
    ) -> Result<(), PatternIndexError> {
        self.flush()?;
        let out = write_body(
            self.spool.as_file(),
            &self.path,
            names,
            self.games,
            fingerprint,
        )?;
        out.commit()?;
        Ok(())
    }

    /// Writes out the records spooled so far.
    fn flush(&mut self) -> Result<(), PatternIndexError> {
        self.w.flush().map_err(|e| io_at(&self.path)(e))
    }
}

/// Writes the sidecar at `path` of `games` games, whose files are `names` and whose records
/// are all of `spool`, into a temporary file beside it; commits nothing.
fn write_body(
    spool: &std::fs::File,
    path: &Path,
    names: impl ExactSizeIterator<Item = std::io::Result<impl AsRef<str>>> + Clone,
    games: u64,
    fingerprint: u64,
) -> Result<kifu_fs::atomic::AtomicFile, PatternIndexError> {
    let io = io_at(path);
    let mut spooled = spool;
    let len = spooled.seek(std::io::SeekFrom::End(0)).map_err(io)?;
    spooled.rewind().map_err(io)?;
    let mut out = kifu_fs::atomic::AtomicFile::create(path)?;
    let mut hash = store::write_head(&mut out, fingerprint, (names, games), len).map_err(io)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = spooled.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hash.add(&buf[..n]);
        out.write_all(&buf[..n]).map_err(io)?;
    }
    out.write_all(&hash.value().to_le_bytes()).map_err(io)?;
    Ok(out)
}

/// A sidecar being written on a thread of its own once every file is appended
/// ([`PatternIndexBuilder::seal`]), with the files it is written for.
struct Sealing {
    path: PathBuf,
    files: std::sync::Arc<Appended>,
    thread: Option<std::thread::JoinHandle<Sealed>>,
}

/// What a sealing thread wrote (not yet in place), and the fingerprint it wrote it for.
type Sealed = Result<(kifu_fs::atomic::AtomicFile, u64), PatternIndexError>;

impl Sealing {
    /// What the thread wrote.
    fn wait(&mut self) -> Sealed {
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(written)) => written,
            _ => Err(PatternIndexError::Io {
                path: std::mem::take(&mut self.path),
                source: std::io::Error::other("the sidecar's writer stopped"),
            }),
        }
    }

    /// The files, once the thread is done with them (or never started); None if they are
    /// still shared, which the thread's end rules out.
    fn files(&mut self) -> Option<Appended> {
        // The thread's share is dropped when it ends, which `wait` or `drop` waits for.
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let files = std::mem::take(&mut self.files);
        std::sync::Arc::try_unwrap(files).ok()
    }
}

impl Drop for Sealing {
    // Waited for even when not used, so that its temporary file is gone when the builder is.
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The error of a read or write of the sidecar at `path`.
fn io_at(path: &Path) -> impl Fn(std::io::Error) -> PatternIndexError + Copy + '_ {
    move |source| PatternIndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The pattern index's records of one file's games, made while the full-board index reads
/// the file ([`kifu_posdb::index::build_index_with`]), so that each file is read once: see
/// [`PatternIndexBuilder`].
pub struct FileRecords {
    /// Each game's record but its numbers in the database (which the builder gives it), one
    /// after the other: encoded on the worker that replayed the file, so that the thread
    /// appending the files in order only copies bytes, and frees one buffer a file rather
    /// than each game's several (which glibc's allocator serialises on a lock when another
    /// thread allocated them).
    tails: Vec<u8>,
    /// Per game, in order: its number in the file, the end of its record in `tails`, and
    /// where its Dyer signature's text is there.
    games: Vec<RecordTail>,
}

/// A game of [`FileRecords`].
struct RecordTail {
    game_in_file: u32,
    end: usize,
    dyer: Option<std::ops::Range<usize>>,
}

impl FileRecords {
    /// The records of the games the full-board index takes from `replay`'s file, made from
    /// the one replay both share ([`FileReplay::replay`]). On a worker thread.
    pub fn build(_source: &Source, replay: &mut FileReplay<'_, '_>) -> FileRecords {
        let coll = replay.collection();
        let size = replay.size();
        let mut done: Vec<(u32, GameRecord)> = Vec::new();
        let mut current: Option<(usize, GameBuilder)> = None;
        let taken = replay.replay(&mut |step| {
            // The index takes only games of its size (a game is one size throughout).
            if step.position.size() != size {
                return;
            }
            if current.as_ref().map(|c| c.0) != Some(step.game) {
                if let Some((g, b)) = current.take() {
                    if let Some(tree) = coll.game(g) {
                        done.push((g as u32, b.finish(&tree)));
                    }
                }
                if let Some(tree) = coll.game(step.game) {
                    let b = GameBuilder::new(0, 0, step.game as u32, &tree);
                    current = Some((step.game, b));
                }
            }
            if let Some((_, b)) = current.as_mut() {
                b.step(step);
            }
        });
        if let Some((g, b)) = current.take() {
            if let Some(tree) = coll.game(g) {
                done.push((g as u32, b.finish(&tree)));
            }
        }
        let mut built = done.into_iter().peekable();
        let mut records = FileRecords {
            tails: Vec::new(),
            games: Vec::with_capacity(taken.len()),
        };
        for g in taken {
            while built.peek().is_some_and(|(at, _)| *at < g) {
                built.next();
            }
            match built.next_if(|(at, _)| *at == g) {
                Some((_, entry)) => records.push(&entry),
                // Every game taken was replayed at the index's size; were one not, its own
                // replay gives the same record.
                None => {
                    if let Some(tree) = coll.game(g as usize) {
                        records.push(&GameRecord::build(0, 0, g, tree));
                    }
                }
            }
        }
        records
    }

    /// Appends `g`'s record.
    fn push(&mut self, g: &GameRecord) {
        let cold = &g.cold;
        // Room for the record at once: its cold part, bitmaps, and most texts.
        self.tails.reserve(cold.len() + 4 * g.bitmaps.len() + 256);
        let dyer = g.encode_rest(&mut self.tails);
        self.tails.extend_from_slice(cold);
        self.games.push(RecordTail {
            game_in_file: g.game_in_file,
            end: self.tails.len(),
            dyer,
        });
    }
}

/// A pattern index built while `kifu pos index` builds the full-board index, from the same
/// reads of the files ([`FileRecords`]): the records are spooled as the files come, in order,
/// and [`PatternIndexBuilder::finish`] writes the sidecar once the full-board index is
/// written and its games' files and numbers are known. The same bytes as
/// [`PatternIndex::build_to`] of that index's files.
pub struct PatternIndexBuilder {
    writer: SidecarWriter,
    /// The files so far (with games), and their fingerprint.
    files: Appended,
    /// Whether the spool failed: the caller then builds the index from the finished
    /// full-board index, which reports why.
    broken: bool,
    /// The database's number of the first game appended (the games of an index extended
    /// come after its old ones).
    first_id: u64,
    /// How many games have each Dyer signature, so that the duplicates are counted without
    /// opening the sidecar written.
    signatures: SignatureCounts,
    /// The sidecar being written, once sealed.
    sealing: Option<Sealing>,
}

/// What [`PatternIndexBuilder::finish`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltSidecar {
    /// The number of games.
    pub games: u64,
    /// The number of groups of games with the same Dyer signature, as
    /// [`PatternIndex::duplicate_groups`] of the sidecar finds them.
    pub duplicate_groups: usize,
}

impl PatternIndexBuilder {
    /// A builder of the sidecar at `path`.
    pub fn new(path: &Path) -> Result<PatternIndexBuilder, PatternIndexError> {
        let files = Appended::new_in(kifu_fs::atomic::folder_of(path)).map_err(io_at(path))?;
        Ok(PatternIndexBuilder {
            writer: SidecarWriter::new(path)?,
            files,
            broken: false,
            first_id: 0,
            signatures: SignatureCounts::default(),
            sealing: None,
        })
    }

    /// A builder of the sidecar at `path` of an index whose first files are those of `old`
    /// (games added to an index, `kifu pos index --add`): `old`'s records are copied first,
    /// read from its sidecar, and the games appended are numbered after them. The same
    /// bytes as [`PatternIndex::extend_to`], without a second read of the new files.
    pub fn extending(
        old: &PatternIndex,
        path: &Path,
    ) -> Result<PatternIndexBuilder, PatternIndexError> {
        let mut b = PatternIndexBuilder::new(path)?;
        let mut cold = store::ColdReader::new(old, false);
        for (gi, g) in old.games.iter().enumerate() {
            b.copy_record(g, (g.id, g.file), &mut cold, gi)?;
        }
        // Each old file's games' numbers, by their place in it.
        let mut ids: Vec<Vec<Option<u64>>> = vec![Vec::new(); old.files.len()];
        for g in old.games.iter() {
            let Some(f) = ids.get_mut(g.file as usize) else {
                // Not an index of its files: the caller's comparison refuses it.
                b.broken = true;
                break;
            };
            let at = g.game_in_file as usize;
            if f.len() <= at {
                f.resize(at + 1, None);
            }
            f[at] = Some(g.id);
        }
        // (A file without games is in no index's list: the fingerprints then differ.)
        for (name, ids) in old.files.iter().zip(&ids) {
            b.files.push(name, ids).map_err(io_at(path))?;
        }
        b.first_id = old.games.len() as u64;
        Ok(b)
    }

    /// Writes the sidecar at `path` of an index merged from parts (`kifu pos merge
    /// --shards`) out of the parts' own sidecars, `parts`: each game's record is copied from
    /// its part and numbered as `files` (the merged index's games' files and numbers,
    /// [`crate::collection::index_files`]) number it, so that no game's file is read again.
    /// The same bytes as [`PatternIndex::build_to`] of `files`. `Ok(None)`, with nothing
    /// written, when the parts do not hold every file of `files` with the same games (a part
    /// without its sidecar, or another part's).
    pub fn merged(
        parts: &[PatternIndex],
        files: &[CollectionFile],
        path: &Path,
        fingerprint: u64,
    ) -> Result<Option<BuiltSidecar>, PatternIndexError> {
        // Where each file's games are: its part, and their range in that part (a sidecar
        // holds the games of a file one after the other, files in order).
        let mut places: std::collections::HashMap<&str, (usize, std::ops::Range<usize>)> =
            std::collections::HashMap::new();
        for (pi, part) in parts.iter().enumerate() {
            let mut start = 0;
            for (fi, name) in part.files.iter().enumerate() {
                let len = part
                    .games
                    .range(start..part.games.len())
                    .take_while(|g| g.file as usize == fi)
                    .count();
                if places.insert(name, (pi, start..start + len)).is_some() {
                    return Ok(None);
                }
                start += len;
            }
            if start != part.games.len() {
                return Ok(None);
            }
        }
        let mut b = PatternIndexBuilder::new(path)?;
        let mut colds: Vec<store::ColdReader<'_>> = parts
            .iter()
            .map(|p| store::ColdReader::new(p, false))
            .collect();
        for (fi, f) in files.iter().enumerate() {
            let name = f.source.path.display().to_string();
            let Some((pi, range)) = places.get(name.as_str()).cloned() else {
                return Ok(None);
            };
            if f.ids.iter().flatten().count() != range.len() {
                return Ok(None);
            }
            for gi in range {
                let g = parts[pi].games.at(gi);
                let id = f.ids.get(g.game_in_file as usize).copied().flatten();
                if id != Some(b.writer.games) {
                    return Ok(None);
                }
                b.copy_record(g, (b.writer.games, fi as u32), &mut colds[pi], gi)?;
            }
            b.files
                .push(&f.source.path.to_string_lossy(), &f.ids)
                .map_err(io_at(path))?;
        }
        b.finish(fingerprint)
    }

    /// Writes `g`, numbered `numbers` (its id and file), with the cold part of game `gi` of
    /// the sidecar `cold` reads, and counts its signature.
    fn copy_record(
        &mut self,
        g: Game<'_>,
        numbers: (u64, u32),
        cold: &mut store::ColdReader<'_>,
        gi: usize,
    ) -> Result<(), PatternIndexError> {
        let bytes = cold
            .bytes(gi)
            .map_err(|why| self.writer.io(std::io::Error::other(why)))?;
        self.writer.push_game(g, numbers, bytes)?;
        if let Some(d) = g.dyer() {
            self.signatures.count(d.as_bytes());
        }
        Ok(())
    }

    /// Appends a file's records, in the order of the files: `first` is the database's number
    /// of its first game.
    pub fn append(&mut self, source: &Source, first: u64, records: FileRecords) {
        // A file after the seal: the sidecar being written is not the whole.
        self.unseal();
        if self.broken {
            return;
        }
        let file = self.files.len() as u32;
        let mut ids = Vec::new();
        let mut start = 0;
        for (k, g) in records.games.iter().enumerate() {
            let id = self.first_id + first + k as u64;
            let at = g.game_in_file as usize;
            if ids.len() <= at {
                ids.resize(at + 1, None);
            }
            ids[at] = Some(id);
            let tail = &records.tails[start..g.end];
            start = g.end;
            if self.writer.push_tail(id, file, tail).is_err() {
                self.broken = true;
                return;
            }
            if let Some(d) = &g.dyer {
                self.signatures.count(&records.tails[d.clone()]);
            }
        }
        // A file without games is in no index's list of files (`index_files`).
        if !ids.is_empty()
            && self
                .files
                .push(&source.path.to_string_lossy(), &ids)
                .is_err()
        {
            self.broken = true;
        }
    }

    /// The fingerprint of the files appended ([`super::fingerprint`]): the index's own
    /// ([`super::index_fingerprint`]) when they are its files.
    pub fn fingerprint(&self) -> u64 {
        match &self.sealing {
            Some(s) => s.files.fingerprint.value(),
            None => self.files.fingerprint.value(),
        }
    }

    /// Writes the sidecar if the files appended are those of the index just written, whose
    /// fingerprint is `fingerprint` ([`super::index_fingerprint`]: of the games' files and
    /// numbers, [`crate::collection::index_files`]); `Ok(None)`, with nothing written, when
    /// they are not (a path given twice is one file there, two here). The files are told by
    /// their fingerprints, as a sidecar is told to be its index's: the lists themselves,
    /// held for the comparison, were about 450 MB at a million files. The sidecar is not
    /// opened: reading back the whole file only to count its duplicates cost about 8% of
    /// `kifu pos index`'s time; [`PatternIndex::load`] checks it at its first search.
    pub fn finish(mut self, fingerprint: u64) -> Result<Option<BuiltSidecar>, PatternIndexError> {
        let sealed = self.unseal();
        if self.broken || self.files.fingerprint.value() != fingerprint {
            return Ok(None);
        }
        let games = self.writer.games;
        let duplicate_groups = self.signatures.groups;
        match sealed {
            Some(Ok((out, sealed_for))) if sealed_for == fingerprint => out.commit()?,
            Some(Err(e)) => return Err(e),
            other => {
                // Its file removed first: it holds the sidecar's lock.
                drop(other);
                self.files.flush().map_err(io_at(&self.writer.path))?;
                self.writer.write(self.files.names(), fingerprint)?;
            }
        }
        Ok(Some(BuiltSidecar {
            games,
            duplicate_groups,
        }))
    }

    /// Starts writing the sidecar on a thread of its own, now that every file is appended,
    /// so that it is written while the full-board index is: [`PatternIndexBuilder::finish`]
    /// then only puts it in place. It is written for the files appended, as the index's own
    /// files make it (the fingerprint of [`super::fingerprint`]); `finish` with other files or
    /// another fingerprint writes it again, and a file appended after this starts over.
    pub fn seal(&mut self) {
        if self.broken || self.sealing.is_some() {
            return;
        }
        // A sidecar that is not a regular file (a FIFO) is written by `finish` as before: a
        // thread must not wait on a reader that may never come.
        let path = self.writer.path.clone();
        if kifu_fs::existing_regular_file(&path).is_err()
            || self.writer.flush().is_err()
            || self.files.flush().is_err()
        {
            return;
        }
        let Ok(spool) = self.writer.spool.as_file().try_clone() else {
            return;
        };
        // The files go with the thread, which writes their names.
        let files = std::sync::Arc::new(std::mem::take(&mut self.files));
        let theirs = std::sync::Arc::clone(&files);
        let games = self.writer.games;
        let at = path.clone();
        let thread = std::thread::Builder::new()
            .name("kifu-sidecar".into())
            .spawn(move || {
                let fingerprint = theirs.fingerprint.value();
                let mut out = write_body(&spool, &at, theirs.names(), games, fingerprint)?;
                out.sync()?;
                Ok((out, fingerprint))
            });
        let mut sealing = Sealing {
            path,
            files,
            thread: None,
        };
        match thread {
            Ok(t) => {
                sealing.thread = Some(t);
                self.sealing = Some(sealing);
            }
            // A thread that cannot be started (a process limit) leaves the writing to
            // `finish`.
            Err(_) => self.take_back(sealing.files()),
        }
    }

    /// Waits for the sidecar being written, if it is, and takes its files back: what it
    /// wrote, with the fingerprint it wrote it for.
    fn unseal(&mut self) -> Option<Sealed> {
        let mut s = self.sealing.take()?;
        let written = s.wait();
        self.take_back(s.files());
        Some(written)
    }

    /// Takes back the files a sealing thread had: the builder is broken without them.
    fn take_back(&mut self, files: Option<Appended>) {
        match files {
            Some(files) => self.files = files,
            None => self.broken = true,
        }
    }
}

/// How many games have each Dyer signature, the signatures' bytes in one buffer: a table of
/// boxed signatures freed them one by one at the end, 20 ms of the building thread at
/// 100,000 games.
#[derive(Default)]
struct SignatureCounts {
    bytes: Vec<u8>,
    /// Per signature: its start and length in `bytes`, and its games.
    table: hashbrown::HashTable<(usize, usize, u32)>,
    state: std::hash::RandomState,
    /// The signatures of more than one game.
    groups: usize,
}

impl SignatureCounts {
    /// Counts a game of signature `sig` (its text), for the duplicate groups
    /// [`PatternIndexBuilder::finish`] reports.
    fn count(&mut self, sig: &[u8]) {
        use std::hash::BuildHasher;
        let hash = self.state.hash_one(sig);
        let bytes = &self.bytes;
        if let Some(e) = self
            .table
            .find_mut(hash, |&(s, l, _)| &bytes[s..s + l] == sig)
        {
            e.2 += 1;
            if e.2 == 2 {
                self.groups += 1;
            }
            return;
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(sig);
        let (bytes, state) = (&self.bytes, &self.state);
        self.table
            .insert_unique(hash, (start, sig.len(), 1), |&(s, l, _)| {
                state.hash_one(&bytes[s..s + l])
            });
    }
}

/// The files a builder has appended, as its sidecar names them, and their fingerprint
/// ([`super::fingerprint`], made as they come): the names spooled to a temporary file beside
/// the sidecar ([`NameSpool`]), so that a build of millions of files holds none of them (in
/// one buffer they were about 70 bytes a file; a [`CollectionFile`] a file, with its path
/// and numbers, about 200).
#[derive(Default)]
struct Appended {
    /// None only in the builder's place while a sealing thread has them.
    names: Option<NameSpool>,
    len: usize,
    fingerprint: super::Fingerprint,
}

impl Appended {
    /// No files yet, their names to be spooled in folder `dir`.
    fn new_in(dir: &Path) -> std::io::Result<Appended> {
        Ok(Appended {
            names: Some(NameSpool::new_in(dir)?),
            ..Appended::default()
        })
    }

    /// Adds a file named `name` whose games have the numbers `ids` (by their place in it).
    fn push(&mut self, name: &str, ids: &[Option<u64>]) -> std::io::Result<()> {
        let spool = self
            .names
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the names are with the sidecar's writer"))?;
        spool.push(name)?;
        self.len += 1;
        self.fingerprint.file(name, ids);
        Ok(())
    }

    /// The number of files.
    fn len(&self) -> usize {
        self.len
    }

    /// Writes out the names appended, for [`Appended::names`].
    fn flush(&mut self) -> std::io::Result<()> {
        self.names.as_mut().map_or(Ok(()), NameSpool::flush)
    }

    /// The files' names, in order (as far as [`Appended::flush`] wrote them), each a read of
    /// the spool.
    fn names(&self) -> impl ExactSizeIterator<Item = std::io::Result<String>> + Clone + '_ {
        match &self.names {
            Some(spool) => spool.iter(),
            None => SpoolIter::empty(),
        }
    }
}

#[cfg(test)]
mod tests;
